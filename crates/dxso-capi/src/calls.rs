//! A random-call program for the C library: each call is chosen by a byte, its arguments (enum
//! values, starts, counts, offsets, strides, vertex counts, a shader's bytes) come from the
//! bytes after it, on two devices and a NULL one. Every status must be a status:
//! DXSO_STATUS_INTERNAL (a panic inside, or a poisoned device) is a finding, as is a crash.
//! Pointers are valid for the counts passed with them, or the counts are ones no buffer can
//! have (what the header's Safety paragraphs ask of C).
//!
//! One program for two drivers: the unit test `random_calls_in_random_orders_give_statuses`
//! feeds it bytes from a seeded generator, and the fuzz target fuzz/fuzz_targets/capi.rs
//! (which compiles these sources as a module, with `--cfg fuzzing`) feeds it libFuzzer's.

use super::*;
use std::ffi::{CStr, c_char};
use std::ptr::{null, null_mut};

/// Runs the program `data` (at most 256 calls); panics on a finding, naming the step and call.
pub fn run(data: &[u8]) {
    let mut input = Input(data);
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
    let buffers = Buffers {
        floats: &floats,
        ints: &ints,
        words: &words,
        bytes: &bytes,
        names: &names,
    };
    for step in 0..256 {
        if input.0.is_empty() {
            break;
        }
        let pick = input.byte() % 16;
        let d = match input.byte() % 8 {
            0 => null_mut(),
            b => devices[usize::from(b % 2)],
        };
        // SAFETY: every pointer is valid for the count given with it (or the count is
        // refused before any read); lists and buffers are freed once.
        let status = unsafe { call(&mut input, pick, d, &buffers, &mut out) };
        assert_ne!(
            status,
            DxsoStatus::Internal,
            "step {step}, call {pick}: {}",
            last_error()
        );
    }
    for d in devices {
        // SAFETY: made above, freed once.
        unsafe { dxso_device_free(d) };
    }
}

/// The message of the last failure on this thread.
fn last_error() -> String {
    // SAFETY: never NULL; valid until the next call on this thread.
    unsafe { CStr::from_ptr(dxso_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// The data the calls point into.
struct Buffers<'a> {
    floats: &'a [f32],
    ints: &'a [i32],
    words: &'a [u32],
    bytes: &'a [u8],
    names: &'a [*const c_char],
}

/// A program's bytes, read front to back (zeros once they run out).
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }
    fn u32(&mut self) -> u32 {
        match self.byte() {
            0..=127 => u32::from(self.byte() % 20),
            128..=191 => u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()]),
            b => [
                0,
                1,
                2,
                4,
                5,
                7,
                15,
                16,
                17,
                99,
                0x4000_0001,
                0x8000_0001,
                u32::MAX,
            ][b as usize % 13],
        }
    }
    fn below(&mut self, n: usize) -> usize {
        usize::from(u16::from_le_bytes([self.byte(), self.byte()])) % n
    }
    /// A count for a buffer of `len` elements of `size` bytes: one it holds, or one that no
    /// buffer can have.
    fn count(&mut self, len: usize, size: usize) -> usize {
        match self.byte() % 16 {
            0 => usize::MAX - usize::from(self.byte() % 2),
            1 => (usize::MAX / size).saturating_add(1),
            2 => isize::MAX as usize / size + 1,
            _ => self.below(len + 1),
        }
    }
    /// A size_t anywhere in its range.
    fn size(&mut self, small: usize) -> usize {
        match self.byte() % 8 {
            0 => usize::MAX >> (self.byte() % 64),
            1 => usize::from_le_bytes(std::array::from_fn(|_| self.byte())),
            _ => self.below(small + 1),
        }
    }
    /// A shader: one of a few that validate, or bytes from the input.
    fn shader(&mut self) -> &'a [u8] {
        const SHADERS: [&[u8]; 6] = [
            b"vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\ndcl_texcoord0 o1\nadd o0, v0, c0\nmov o1, v1\n",
            b"vs_2_0\ndcl_position v0\nrep i0\nadd r0, v0, c1\nendrep\nif b3\nmul r0, r0, c2\nendif\nmov oPos, r0\n",
            b"ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
            b"vs_1_1\ndcl_position v0\nmov oPos, v0\nmov oD0, c95\n",
            &[0x00, 0x03, 0xFE, 0xFF, 0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00],
            b"//\n// Parameters:\n//\n//   float4x4 WorldViewProj;\n//\n//\n// Registers:\n//\n//   Name          Reg   Size\n//   ------------- ----- ----\n//   WorldViewProj c0       4\n//\nvs_3_0\ndcl_position v0\ndcl_position o0\nm4x4 o0, v0, c0\n",
        ];
        let pick = self.byte();
        if let Some(s) = SHADERS.get(usize::from(pick % 8)) {
            return s;
        }
        let n = usize::from(self.byte()).min(self.0.len());
        let (s, rest) = self.0.split_at(n);
        self.0 = rest;
        s
    }
}

/// Call number `pick` with arguments from `input`.
///
/// # Safety
///
/// `d` is NULL or a live device.
#[allow(clippy::too_many_lines)] // a dispatch `match`: one arm per C call
unsafe fn call(
    input: &mut Input,
    pick: u8,
    d: *mut DxsoDevice,
    buffers: &Buffers,
    out: &mut [f32],
) -> DxsoStatus {
    let Buffers {
        floats,
        ints,
        words,
        bytes,
        names,
    } = buffers;
    // SAFETY: (each call) as `run` says.
    unsafe {
        match pick {
            0 => {
                let s = input.shader();
                dxso_device_set_shader(d, s.as_ptr(), s.len())
            }
            1 => dxso_device_set_constant_f(
                d,
                input.u32(),
                floats.as_ptr(),
                input.count(floats.len() / 4, 16),
            ),
            2 => dxso_device_set_constant_i(
                d,
                input.u32(),
                ints.as_ptr(),
                input.count(ints.len() / 4, 16),
            ),
            3 => dxso_device_set_constant_b(
                d,
                input.u32(),
                ints.as_ptr(),
                input.count(ints.len(), 4),
            ),
            4 => {
                let elements: Vec<DxsoVertexElement> = (0..input.byte() % 5)
                    .map(|_| DxsoVertexElement {
                        stream: u16::from(input.byte() % 18),
                        offset: u16::from_le_bytes([input.byte(), input.byte() % 2]),
                        type_: input.byte() % 20,
                        method: input.byte() % 3,
                        usage: input.byte() % 16,
                        usage_index: input.byte() % 3,
                    })
                    .collect();
                dxso_device_set_declaration(d, elements.as_ptr(), elements.len())
            }
            5 => {
                let (n, offset, stride) = (input.u32(), input.size(64), input.size(48));
                let (data, len) = match input.byte() % 8 {
                    0 => (null(), 0),
                    _ => (bytes.as_ptr(), input.count(bytes.len(), 1)),
                };
                dxso_device_set_stream(d, n, data, len, offset, stride)
            }
            6 => dxso_device_set_stream_frequency(d, input.u32(), input.u32()),
            7 => {
                let ix = if input.byte().is_multiple_of(4) {
                    null()
                } else {
                    words.as_ptr()
                };
                dxso_device_set_indices(d, ix, input.count(words.len(), 4))
            }
            8 | 9 => {
                let (vertices, instances) = (input.size(70), input.size(3));
                let out_len = input.count(out.len(), 4);
                let mut written = usize::MAX;
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
                let name = names[input.below(names.len())];
                match input.byte() % 3 {
                    0 => dxso_device_set_constant_by_name(
                        d,
                        name,
                        floats.as_ptr(),
                        input.count(floats.len(), 4),
                    ),
                    1 => dxso_device_set_constant_by_name_i(
                        d,
                        name,
                        ints.as_ptr(),
                        input.count(ints.len(), 4),
                    ),
                    _ => dxso_device_set_constant_by_name_b(
                        d,
                        name,
                        ints.as_ptr(),
                        input.count(ints.len(), 4),
                    ),
                }
            }
            11 => {
                let n = dxso_device_output_count(d);
                let i = input.below(n + 2);
                assert_eq!(dxso_device_output_semantic(d, i).is_null(), i >= n);
                DxsoStatus::Ok
            }
            12 => {
                let s = input.shader();
                let mut list = null_mut();
                let status = dxso_signature(s.as_ptr(), s.len(), input.u32(), &mut list);
                let n = dxso_signature_count(list);
                assert!(dxso_signature_get(list, n).is_null());
                dxso_signature_free(list);
                status
            }
            13 => {
                let s = input.shader();
                let mut code = DxsoBuffer {
                    data: null_mut(),
                    len: 0,
                };
                let mut json = null_mut();
                let (target, float) = (input.u32(), input.u32());
                let status =
                    dxso_translate(s.as_ptr(), s.len(), target, float, &mut code, &mut json);
                dxso_buffer_free(&mut code);
                dxso_string_free(json);
                status
            }
            14 => {
                let s = input.shader();
                let caps = [
                    null(),
                    c"min".as_ptr(),
                    c"{\"MaxVertexShaderConst\": 5}".as_ptr(),
                ];
                let mut list = null_mut();
                let status = dxso_validate(s.as_ptr(), s.len(), caps[input.below(3)], &mut list);
                let n = dxso_diagnostics_count(list);
                assert!(dxso_diagnostics_get(list, n).is_null());
                dxso_diagnostics_free(list);
                status
            }
            _ => {
                let s = input.shader();
                let mut tokens = DxsoBuffer {
                    data: null_mut(),
                    len: 0,
                };
                let status =
                    dxso_assemble(s.as_ptr().cast(), s.len(), input.u32() & 1, &mut tokens);
                let mut listing = null_mut();
                if status == DxsoStatus::Ok {
                    assert_eq!(
                        dxso_disassemble(tokens.data, tokens.len, &mut listing),
                        DxsoStatus::Ok
                    );
                }
                dxso_string_free(listing);
                dxso_buffer_free(&mut tokens);
                status
            }
        }
    }
}
