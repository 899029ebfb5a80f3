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
    // SAFETY: (every call) the pointers are valid; the counts are refused before any read.
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
}

/// The random-call program (`calls`, which the fuzz target runs too) on random bytes: every
/// status is a status (never DXSO_STATUS_INTERNAL), and nothing crashes. 16 programs of 256
/// calls; a longer campaign: `DXSO_CAPI_RANDOM=SEED:PROGRAMS` (default 1:16).
#[test]
fn random_calls_in_random_orders_give_statuses() {
    let (seed, programs) = std::env::var("DXSO_CAPI_RANDOM")
        .ok()
        .and_then(|v| {
            let (seed, n) = v.split_once(':')?;
            Some((seed.parse::<u64>().ok()?, n.parse::<u64>().ok()?))
        })
        .unwrap_or((1, 16));
    for program in seed..seed.saturating_add(programs) {
        // Any seed but 0 (xorshift's fixed point).
        let mut rng = Rng(program.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let bytes: Vec<u8> = (0..8192).map(|_| rng.next() as u8).collect();
        let outcome = std::panic::catch_unwind(|| calls::run(&bytes));
        assert!(outcome.is_ok(), "program {program} found a defect");
    }
}
