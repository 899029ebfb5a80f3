//! The C boundary's own checks, called as C calls them (through the `extern "C"` functions):
//! every enum parameter out of range, every count near `SIZE_MAX`, misaligned pointers, D3D9
//! `BOOL`s, a device shared by four threads, and a device whose lock a panic poisoned. (The
//! C program tests/c/test.c covers the same from C, under valgrind and the sanitizers.)

use super::*;
use std::ffi::{CStr, c_char};
use std::ptr::{null, null_mut};

/// The message of the last failure on this thread.
fn last_error() -> String {
    // SAFETY: dxso_last_error never returns NULL; the string lives until the next call.
    unsafe { CStr::from_ptr(dxso_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// `status` is DXSO_STATUS_ARGUMENT, and the message says `what`.
#[track_caller]
fn argument(status: DxsoStatus, what: &str) {
    assert_eq!(status, DxsoStatus::Argument, "{}", last_error());
    assert!(
        last_error().contains(what),
        "{:?} lacks {what:?}",
        last_error()
    );
}

const VS: &str = "vs_3_0\ndcl_position v0\ndcl_position o0\nadd o0, v0, c0\n";
const PS: &str = "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n";

/// A device with `VS` bound, one FLOAT4 position per vertex in stream 0 (`vertices`).
fn device(vertices: &[[f32; 4]]) -> *mut DxsoDevice {
    let mut d = null_mut();
    let decl = DxsoVertexElement {
        stream: 0,
        offset: 0,
        type_: 3,
        method: 0,
        usage: 0,
        usage_index: 0,
    };
    // SAFETY: every pointer is valid for its length.
    unsafe {
        assert_eq!(dxso_device_new(&mut d), DxsoStatus::Ok);
        assert_eq!(
            dxso_device_set_shader(d, VS.as_ptr(), VS.len()),
            DxsoStatus::Ok
        );
        assert_eq!(dxso_device_set_declaration(d, &decl, 1), DxsoStatus::Ok);
        assert_eq!(
            dxso_device_set_stream(d, 0, vertices.as_ptr().cast(), size_of_val(vertices), 0, 16),
            DxsoStatus::Ok
        );
    }
    d
}

/// Draw `n` vertices of `d` (one output register each).
fn draw(d: *mut DxsoDevice, n: usize) -> Result<Vec<[f32; 4]>, String> {
    let mut out = vec![[0.0f32; 4]; n];
    let mut written = 0;
    // SAFETY: `out` holds n * 4 floats.
    let status = unsafe { dxso_device_draw(d, n, 1, out.as_mut_ptr().cast(), n * 4, &mut written) };
    if status != DxsoStatus::Ok {
        return Err(last_error());
    }
    assert_eq!(written, n * 4);
    Ok(out)
}

#[test]
fn enum_parameters_outside_their_enum_are_argument_failures() {
    let mut list = null_mut();
    for which in [2, 7, 0x8000_0000, u32::MAX] {
        // SAFETY: valid pointers.
        let status = unsafe { dxso_signature(VS.as_ptr(), VS.len(), which, &mut list) };
        argument(
            status,
            &format!("which must be a DxsoSignatureKind (0 or 1), not {which}"),
        );
        assert!(list.is_null());
    }
    for which in [DxsoSignatureKind::Inputs, DxsoSignatureKind::Outputs] {
        // SAFETY: valid pointers; the list is freed once.
        unsafe {
            assert_eq!(
                dxso_signature(VS.as_ptr(), VS.len(), which as u32, &mut list),
                DxsoStatus::Ok
            );
            assert_eq!(dxso_signature_count(list), 1);
            dxso_signature_free(list);
        }
    }

    let mut code = DxsoBuffer {
        data: null_mut(),
        len: 0,
    };
    let mut json: *mut c_char = null_mut();
    let translate = |target: u32, float: u32, code: &mut DxsoBuffer, json: &mut *mut c_char| {
        // SAFETY: valid pointers.
        unsafe { dxso_translate(PS.as_ptr(), PS.len(), target, float, code, json) }
    };
    for target in [5, 99, u32::MAX] {
        argument(
            translate(target, 0, &mut code, &mut json),
            &format!("target must be a DxsoTarget (0..4), not {target}"),
        );
    }
    for float in [2, 99, u32::MAX] {
        argument(
            translate(0, float, &mut code, &mut json),
            &format!("float_mode must be a DxsoFloat (0 or 1), not {float}"),
        );
    }
    assert!(code.data.is_null() && json.is_null());
    for target in [
        DxsoTarget::Wgsl,
        DxsoTarget::Spirv,
        DxsoTarget::Glsl,
        DxsoTarget::Msl,
        DxsoTarget::Hlsl,
    ] {
        for float in [DxsoFloat::Strict, DxsoFloat::Ieee] {
            let status = translate(target as u32, float as u32, &mut code, &mut json);
            assert_eq!(
                status,
                DxsoStatus::Ok,
                "{target:?} {float:?}: {}",
                last_error()
            );
            assert!(code.len > 0 && !json.is_null());
            // SAFETY: both came from dxso_translate and are freed once.
            unsafe {
                dxso_buffer_free(&mut code);
                dxso_string_free(json);
            }
            json = null_mut();
        }
    }
}

/// The counts no buffer of `size`-byte elements can have: near SIZE_MAX, just past
/// SIZE_MAX / size (where `count * size` wraps), and just past PTRDIFF_MAX bytes.
fn huge_counts(size: usize) -> Vec<usize> {
    let mut counts = vec![usize::MAX, usize::MAX - 1, isize::MAX as usize / size + 1];
    if size > 1 {
        counts.push(usize::MAX / size + 1);
    }
    counts
}

#[test]
fn counts_no_buffer_can_have_are_argument_failures() {
    // Real (small) buffers: nothing past the check may read them as long as the count says.
    let bytes = [0u8; 64];
    let words = [0u32; 16];
    let floats = [0f32; 16];
    let ints = [0i32; 16];
    let element = DxsoVertexElement {
        stream: 0,
        offset: 0,
        type_: 3,
        method: 0,
        usage: 0,
        usage_index: 0,
    };
    let d = device(&[[1.0, 2.0, 3.0, 1.0]]);
    let name = c"c".as_ptr();
    let mut buffer = DxsoBuffer {
        data: null_mut(),
        len: 0,
    };
    let mut string: *mut c_char = null_mut();
    let mut diags = null_mut();
    let mut signature = null_mut();
    let mut out = [0f32; 4];
    let mut written = 0usize;
    // Out-pointers as raw pointers, so that the calls below can share them.
    let (buffer_p, string_p, diags_p, signature_p) = (
        &raw mut buffer,
        &raw mut string,
        &raw mut diags,
        &raw mut signature,
    );
    let (out_p, written_p) = (out.as_mut_ptr(), &raw mut written);

    type Call<'a> = (&'a str, usize, Box<dyn Fn(usize) -> DxsoStatus + 'a>);
    // SAFETY (every call): the pointers are valid; the counts are refused before any read.
    let calls: Vec<Call> = unsafe {
        vec![
            (
                "text",
                1,
                Box::new(|n| dxso_assemble(bytes.as_ptr().cast(), n, 0, buffer_p)),
            ),
            (
                "data",
                1,
                Box::new(|n| dxso_disassemble(bytes.as_ptr(), n, string_p)),
            ),
            (
                "data",
                1,
                Box::new(|n| dxso_validate(bytes.as_ptr(), n, null(), diags_p)),
            ),
            (
                "data",
                1,
                Box::new(|n| dxso_signature(bytes.as_ptr(), n, 0, signature_p)),
            ),
            (
                "data",
                1,
                Box::new(|n| dxso_translate(bytes.as_ptr(), n, 0, 0, buffer_p, string_p)),
            ),
            (
                "data",
                1,
                Box::new(|n| dxso_device_set_shader(d, bytes.as_ptr(), n)),
            ),
            (
                "values",
                16,
                Box::new(|n| dxso_device_set_constant_f(d, 0, floats.as_ptr(), n)),
            ),
            (
                "values",
                16,
                Box::new(|n| dxso_device_set_constant_i(d, 0, ints.as_ptr(), n)),
            ),
            (
                "values",
                4,
                Box::new(|n| dxso_device_set_constant_b(d, 0, ints.as_ptr(), n)),
            ),
            (
                "elements",
                8,
                Box::new(|n| dxso_device_set_declaration(d, &element, n)),
            ),
            (
                "data",
                1,
                Box::new(|n| dxso_device_set_stream(d, 0, bytes.as_ptr(), n, 0, 16)),
            ),
            (
                "indices",
                4,
                Box::new(|n| dxso_device_set_indices(d, words.as_ptr(), n)),
            ),
            (
                "out_len",
                4,
                Box::new(|n| dxso_device_draw(d, 1, 1, out_p, n, written_p)),
            ),
            (
                "values",
                4,
                Box::new(|n| dxso_device_set_constant_by_name(d, name, floats.as_ptr(), n)),
            ),
            (
                "values",
                4,
                Box::new(|n| dxso_device_set_constant_by_name_i(d, name, ints.as_ptr(), n)),
            ),
            (
                "values",
                4,
                Box::new(|n| dxso_device_set_constant_by_name_b(d, name, ints.as_ptr(), n)),
            ),
        ]
    };
    for (what, size, call) in &calls {
        for n in huge_counts(*size) {
            argument(call(n), &format!("{what}: {n} "));
        }
    }
    drop(calls);
    assert!(buffer.data.is_null() && string.is_null() && diags.is_null() && signature.is_null());

    // The device is as it was: the draw reads the one vertex bound above.
    assert_eq!(draw(d, 1).unwrap(), [[1.0, 2.0, 3.0, 1.0]]);

    // Counts whose products overflow inside the device are input failures, never a panic.
    // SAFETY: valid pointers.
    unsafe {
        for (vertices, instances) in [(usize::MAX, 1), (1 << 40, 1 << 40), (usize::MAX, 2)] {
            let status = dxso_device_draw(d, vertices, instances, out_p, 4, null_mut());
            assert_eq!(status, DxsoStatus::Input, "{}", last_error());
        }
        for (offset, stride) in [(usize::MAX, 16), (0, usize::MAX), (usize::MAX, usize::MAX)] {
            let status = dxso_device_set_stream(d, 0, bytes.as_ptr(), 64, offset, stride);
            assert_eq!(status, DxsoStatus::Ok);
            assert!(
                draw(d, 2)
                    .unwrap_err()
                    .contains("past the end of the stream")
            );
        }
        dxso_device_free(d);
    }
}

#[test]
fn misaligned_pointers_are_argument_failures() {
    let d = device(&[[0.0; 4]]);
    let words = [0u64; 10];
    // One byte into 8-aligned memory: misaligned for every type wider than a byte.
    let odd = words.as_ptr().cast::<u8>().wrapping_add(1);
    // SAFETY: the pointers are refused before any read.
    unsafe {
        argument(
            dxso_device_set_constant_f(d, 0, odd.cast(), 1),
            "values is not aligned to 4 bytes",
        );
        argument(
            dxso_device_set_constant_b(d, 0, odd.cast(), 1),
            "values is not aligned to 4 bytes",
        );
        argument(
            dxso_device_set_declaration(d, odd.cast(), 1),
            "elements is not aligned to 2 bytes",
        );
        argument(
            dxso_device_draw(d, 1, 1, odd.cast_mut().cast(), 4, null_mut()),
            "out is not aligned to 4 bytes",
        );
        argument(
            dxso_device_set_constant_f(odd.cast_mut().cast(), 0, null(), 0),
            "device is not a device",
        );
        dxso_device_free(d);
    }
}

#[test]
fn bools_are_32_bit_and_any_non_zero_value_is_true() {
    let text = "vs_2_0\ndcl_position v0\nmov r0, v0\nif b1\nadd r0, r0, r0\nendif\nmov oPos, r0\n";
    let mut d = null_mut();
    // SAFETY: valid pointers, each for its length.
    unsafe {
        assert_eq!(dxso_device_new(&mut d), DxsoStatus::Ok);
        assert_eq!(
            dxso_device_set_shader(d, text.as_ptr(), text.len()),
            DxsoStatus::Ok
        );
        let decl = DxsoVertexElement {
            stream: 0,
            offset: 0,
            type_: 3,
            method: 0,
            usage: 0,
            usage_index: 0,
        };
        let v = [1.0f32, 2.0, 3.0, 1.0];
        assert_eq!(dxso_device_set_declaration(d, &decl, 1), DxsoStatus::Ok);
        assert_eq!(
            dxso_device_set_stream(d, 0, v.as_ptr().cast(), 16, 0, 16),
            DxsoStatus::Ok
        );
        let mut out = [0f32; 8];
        for (b1, doubled) in [(0, false), (1, true), (2, true), (-1, true), (0x100, true)] {
            // b0 is set too: the values are read as 4-byte BOOLs, not bytes.
            let bools: [DxsoBool; 2] = [0, b1];
            assert_eq!(
                dxso_device_set_constant_b(d, 0, bools.as_ptr(), 2),
                DxsoStatus::Ok
            );
            assert_eq!(
                dxso_device_draw(d, 1, 1, out.as_mut_ptr(), 8, null_mut()),
                DxsoStatus::Ok
            );
            let x = if doubled { 2.0 } else { 1.0 };
            assert_eq!(out[0], x, "b1 = {b1:#x}");
        }
        dxso_device_free(d);
    }
}

/// Address of a device, to hand to threads (the device is `Sync`; the pointer is not).
#[derive(Clone, Copy)]
struct Shared(*mut DxsoDevice);
// SAFETY: a DxsoDevice is Send + Sync (device.rs asserts it); threads only call the C API.
unsafe impl Send for Shared {}

#[test]
fn a_device_shared_by_four_threads_runs_each_call_whole() {
    const VERTICES: usize = 64;
    let vertices: Vec<[f32; 4]> = (0..VERTICES).map(|i| [i as f32, 0.0, 0.0, 1.0]).collect();
    let d = Shared(device(&vertices));
    std::thread::scope(|scope| {
        for t in 0..4u8 {
            let vertices = &vertices;
            scope.spawn(move || {
                let d = d;
                for round in 0..50 {
                    // Each thread sets c0 to its own value; a draw sees one whole c0 (some
                    // thread's), the same for every vertex.
                    let c0 = [f32::from(t), 10.0 * f32::from(t), 0.0, 0.0];
                    // SAFETY: the device lives until the scope ends; valid pointers.
                    unsafe {
                        assert_eq!(
                            dxso_device_set_constant_f(d.0, 0, c0.as_ptr(), 1),
                            DxsoStatus::Ok
                        );
                        if round % 25 == t as usize {
                            // Rebinding the same shader and stream midway changes nothing.
                            assert_eq!(
                                dxso_device_set_shader(d.0, VS.as_ptr(), VS.len()),
                                DxsoStatus::Ok
                            );
                            assert_eq!(
                                dxso_device_set_stream(
                                    d.0,
                                    0,
                                    vertices.as_ptr().cast(),
                                    size_of_val(vertices.as_slice()),
                                    0,
                                    16
                                ),
                                DxsoStatus::Ok
                            );
                        }
                        assert_eq!(dxso_device_output_count(d.0), 1);
                    }
                    let out = draw(d.0, VERTICES).unwrap();
                    let k = out[0][0];
                    assert!(k == k.round() && (0.0..4.0).contains(&k), "c0.x = {k}");
                    for (i, o) in out.iter().enumerate() {
                        assert_eq!(*o, [i as f32 + k, 10.0 * k, 0.0, 1.0], "vertex {i}");
                    }
                }
            });
        }
    });
    // SAFETY: every thread has ended.
    unsafe { dxso_device_free(d.0) };
}

#[test]
fn a_device_a_panic_poisoned_refuses_every_call() {
    let d = device(&[[0.0; 4]]);
    // SAFETY: a live device, used by this thread alone.
    let device = unsafe { &*d };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _held = device.state.lock();
        panic!("inside a call");
    }));
    let c0 = [0f32; 4];
    // SAFETY: valid pointers.
    unsafe {
        let status = dxso_device_set_constant_f(d, 0, c0.as_ptr(), 1);
        assert_eq!(status, DxsoStatus::Internal);
        assert!(last_error().starts_with("the device is unusable"));
        assert_eq!(dxso_device_output_count(d), 0);
        assert!(dxso_device_output_semantic(d, 0).is_null());
        assert!(
            draw(d, 1)
                .unwrap_err()
                .starts_with("the device is unusable")
        );
        dxso_device_free(d);
    }
}

/// A small deterministic generator (xorshift64*), so that a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// A count for a buffer of `len` elements: one it holds, or one no buffer can have.
    fn count(&mut self, len: usize, size: usize) -> usize {
        match self.below(8) {
            0 => huge_counts(size)[self.below(huge_counts(size).len())],
            _ => self.below(len + 1),
        }
    }
    /// An integer parameter: small, at an edge, or anything.
    fn u32(&mut self) -> u32 {
        match self.below(4) {
            0 => [
                0,
                1,
                2,
                4,
                5,
                7,
                15,
                16,
                99,
                0x4000_0001,
                0x8000_0001,
                u32::MAX,
            ][self.below(12)],
            1 => self.next() as u32,
            _ => self.below(20) as u32,
        }
    }
}

/// Random calls in random orders with random arguments, on two devices: every status is a
/// status (never DXSO_STATUS_INTERNAL), and nothing crashes. (Pointers are always valid for
/// the counts they come with, or the counts are ones no buffer can have: what C promises.)
/// A longer campaign: `DXSO_CAPI_RANDOM=SEED:STEPS` (default 1:3000).
#[test]
fn random_calls_in_random_orders_give_statuses() {
    let (seed, steps) = std::env::var("DXSO_CAPI_RANDOM")
        .ok()
        .and_then(|v| {
            let (seed, steps) = v.split_once(':')?;
            Some((seed.parse::<u64>().ok()?, steps.parse::<usize>().ok()?))
        })
        .unwrap_or((1, 3000));
    let shaders: [&[u8]; 6] = [
        VS.as_bytes(),
        PS.as_bytes(),
        b"vs_2_0\ndcl_position v0\ndcl_texcoord0 v1\nrep i0\nadd r0, v0, c[a0.x]\nendrep\nif b3\nmov oT0, v1\nendif\nmova a0.x, v1.x\nmov oPos, r0\n",
        b"vs_1_1\ndcl_position v0\nmov oPos, v0\nmov oD0, c95\n",
        &[0x00, 0x03, 0xFE, 0xFF, 0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00],
        b"ps_1_1\ntex t0\nmov r0, t0\n",
    ];
    // Any seed but 0 (xorshift's fixed point).
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let floats: Vec<f32> = (0..1024).map(|i| i as f32 * 0.25 - 7.0).collect();
    let ints: Vec<i32> = (0..256).map(|i| i - 3).collect();
    let words: Vec<u32> = (0..256).map(|i| (i * 7) % 300).collect();
    let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 31 % 251) as u8).collect();
    let mut out = vec![0f32; 1 << 14];
    let names = [
        c"c".as_ptr(),
        c"WorldViewProj".as_ptr(),
        c"".as_ptr(),
        null(),
    ];
    let mut devices = [null_mut(); 2];
    for d in &mut devices {
        // SAFETY: a valid out-pointer.
        assert_eq!(unsafe { dxso_device_new(d) }, DxsoStatus::Ok);
    }
    for step in 0..steps {
        let d = if rng.below(16) == 0 {
            null_mut()
        } else {
            devices[rng.below(2)]
        };
        let shader = shaders[rng.below(shaders.len())];
        let pick = rng.below(16);
        // SAFETY: every pointer is valid for the count given with it (or the count is
        // refused before any read); lists and buffers are freed once.
        let status = unsafe {
            match pick {
                0 => dxso_device_set_shader(d, shader.as_ptr(), shader.len()),
                1 => dxso_device_set_constant_f(d, rng.u32(), floats.as_ptr(), rng.count(256, 16)),
                2 => dxso_device_set_constant_i(d, rng.u32(), ints.as_ptr(), rng.count(64, 16)),
                3 => dxso_device_set_constant_b(d, rng.u32(), ints.as_ptr(), rng.count(256, 4)),
                4 => {
                    let elements: Vec<DxsoVertexElement> = (0..rng.below(4))
                        .map(|_| DxsoVertexElement {
                            stream: rng.below(18) as u16,
                            offset: [0, 4, 12, 16, 0xFFFF][rng.below(5)],
                            type_: rng.below(20) as u8,
                            method: rng.below(2) as u8,
                            usage: [0, 3, 5, 10, 14, 200][rng.below(6)],
                            usage_index: rng.below(3) as u8,
                        })
                        .collect();
                    dxso_device_set_declaration(d, elements.as_ptr(), elements.len())
                }
                5 => {
                    let (offset, stride) = match rng.below(4) {
                        0 => (usize::MAX - rng.below(4), usize::MAX / (1 + rng.below(3))),
                        _ => (rng.below(64), rng.below(48)),
                    };
                    let data = if rng.below(8) == 0 {
                        null()
                    } else {
                        bytes.as_ptr()
                    };
                    let len = if data.is_null() {
                        0
                    } else {
                        rng.count(4096, 1)
                    };
                    dxso_device_set_stream(d, rng.u32(), data, len, offset, stride)
                }
                6 => dxso_device_set_stream_frequency(d, rng.u32(), rng.u32()),
                7 => {
                    let ix = if rng.below(4) == 0 {
                        null()
                    } else {
                        words.as_ptr()
                    };
                    dxso_device_set_indices(d, ix, rng.count(256, 4))
                }
                8 | 9 => {
                    let (vertices, instances) = match rng.below(8) {
                        0 => (usize::MAX >> rng.below(40), 1 + rng.below(3)),
                        _ => (rng.below(70), rng.below(4)),
                    };
                    let mut written = usize::MAX;
                    let out_len = rng.count(out.len(), 4);
                    let s = dxso_device_draw(
                        d,
                        vertices,
                        instances,
                        out.as_mut_ptr(),
                        out_len,
                        &mut written,
                    );
                    if s == DxsoStatus::Ok {
                        assert!(written <= out_len);
                    }
                    s
                }
                10 => {
                    let name = names[rng.below(names.len())];
                    match rng.below(3) {
                        0 => dxso_device_set_constant_by_name(
                            d,
                            name,
                            floats.as_ptr(),
                            rng.count(1024, 4),
                        ),
                        1 => dxso_device_set_constant_by_name_i(
                            d,
                            name,
                            ints.as_ptr(),
                            rng.count(256, 4),
                        ),
                        _ => dxso_device_set_constant_by_name_b(
                            d,
                            name,
                            ints.as_ptr(),
                            rng.count(256, 4),
                        ),
                    }
                }
                11 => {
                    let n = dxso_device_output_count(d);
                    let i = rng.below(n + 2);
                    let s = dxso_device_output_semantic(d, i);
                    assert_eq!(s.is_null(), i >= n);
                    DxsoStatus::Ok
                }
                12 => {
                    let mut list = null_mut();
                    let s = dxso_signature(shader.as_ptr(), shader.len(), rng.u32() % 4, &mut list);
                    let n = dxso_signature_count(list);
                    assert!(dxso_signature_get(list, n).is_null());
                    dxso_signature_free(list);
                    s
                }
                13 => {
                    let mut code = DxsoBuffer {
                        data: null_mut(),
                        len: 0,
                    };
                    let mut json = null_mut();
                    let (target, float) = (rng.u32() % 7, rng.u32() % 3);
                    let s = dxso_translate(
                        shader.as_ptr(),
                        shader.len(),
                        target,
                        float,
                        &mut code,
                        &mut json,
                    );
                    dxso_buffer_free(&mut code);
                    dxso_string_free(json);
                    s
                }
                14 => {
                    let mut list = null_mut();
                    let caps = [
                        null(),
                        c"min".as_ptr(),
                        c"{\"MaxVertexShaderConst\": 5}".as_ptr(),
                    ];
                    let s =
                        dxso_validate(shader.as_ptr(), shader.len(), caps[rng.below(3)], &mut list);
                    let n = dxso_diagnostics_count(list);
                    assert!(dxso_diagnostics_get(list, n).is_null());
                    dxso_diagnostics_free(list);
                    s
                }
                _ => {
                    let mut tokens = DxsoBuffer {
                        data: null_mut(),
                        len: 0,
                    };
                    let s = dxso_assemble(
                        shader.as_ptr().cast(),
                        shader.len(),
                        rng.u32() & 1,
                        &mut tokens,
                    );
                    let mut listing = null_mut();
                    if s == DxsoStatus::Ok {
                        assert_eq!(
                            dxso_disassemble(tokens.data, tokens.len, &mut listing),
                            DxsoStatus::Ok
                        );
                    }
                    dxso_string_free(listing);
                    dxso_buffer_free(&mut tokens);
                    s
                }
            }
        };
        assert_ne!(
            status,
            DxsoStatus::Internal,
            "seed {seed}, step {step}, call {pick}: {}",
            last_error()
        );
    }
    for d in devices {
        // SAFETY: made above, freed once.
        unsafe { dxso_device_free(d) };
    }
}
