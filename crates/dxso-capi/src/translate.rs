//! Translation for GPUs: a door to `dxso_naga::translate` and `dxso_naga::write`.

use super::shader::{NAME, source_message};
use super::{DxsoBuffer, DxsoStatus, Failure, c_string, guard, put, slice, writable};
use dxso_format::source::Source;
use dxso_format::validate::Caps;
use dxso_naga::{FloatMode, Options, Output, Target};
use std::ffi::c_char;

/// The language `dxso_translate` writes (its `target`, a `uint32_t`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxsoTarget {
    /// WGSL text, as WebGPU takes it.
    Wgsl = 0,
    /// A binary SPIR-V module (little-endian 32-bit words).
    Spirv = 1,
    /// GLSL 450 core.
    Glsl = 2,
    /// Metal Shading Language text.
    Msl = 3,
    /// HLSL shader model 5.1.
    Hlsl = 4,
}

/// The arithmetic `dxso_translate` emits (its `float_mode`, a `uint32_t`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxsoFloat {
    /// D3D9's arithmetic as dxso's CPU engine does it (a zero factor gives +0, rcp/rsq of 0
    /// give FLT_MAX, log of 0 gives -FLT_MAX, relative reads outside a file give 0, ...).
    Strict = 0,
    /// Plain IEEE operations.
    Ieee = 1,
}

impl DxsoTarget {
    /// `target` as C passed it: one of the enum's values, else an argument failure.
    fn from_c(target: u32) -> Result<Target, Failure> {
        Ok(match target {
            0 => Target::Wgsl,
            1 => Target::SpirV,
            2 => Target::Glsl,
            3 => Target::Msl,
            4 => Target::Hlsl,
            _ => {
                return Err(Failure::argument(format!(
                    "target must be a DxsoTarget (0..4), not {target}"
                )));
            }
        })
    }
}

impl DxsoFloat {
    /// `float_mode` as C passed it: one of the enum's values, else an argument failure.
    fn from_c(float_mode: u32) -> Result<FloatMode, Failure> {
        match float_mode {
            0 => Ok(FloatMode::Strict),
            1 => Ok(FloatMode::Ieee),
            _ => Err(Failure::argument(format!(
                "float_mode must be a DxsoFloat (0 or 1), not {float_mode}"
            ))),
        }
    }
}

/// Translate the vertex or pixel shader in `len` bytes at `data` (assembly text, binary
/// tokens or a hex listing; any version) into `target` (a DxsoTarget value) with the
/// arithmetic `float_mode` (a DxsoFloat value), as `dxso translate` does.
///
/// On success `*code` holds the code — UTF-8 text without a terminating NUL (print it with
/// its length), or for DXSO_TARGET_SPIRV the SPIR-V module's bytes — owned by the caller:
/// free it with `dxso_buffer_free`. `*interface_json` (NUL-terminated; owned by the caller:
/// free it with `dxso_string_free`) is what a caller must know to bind the shader: constant
/// buffers, samplers, inputs, outputs and their locations, as JSON (`dxso translate
/// --interface`). On failure neither is written: DXSO_STATUS_INPUT for a shader that does
/// not read, does not validate (caps "max"; the message has the validator's errors) or that
/// the translation does not handle; DXSO_STATUS_ARGUMENT for a `target` or `float_mode`
/// outside its enum.
///
/// # Safety
///
/// `data` points to `len` readable bytes (it may be NULL when `len` is 0); `code` and
/// `interface_json` are NULL (DXSO_STATUS_ARGUMENT) or point to a writable `DxsoBuffer` and
/// `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxso_translate(
    data: *const u8,
    len: usize,
    target: u32,
    float_mode: u32,
    code: *mut DxsoBuffer,
    interface_json: *mut *mut c_char,
) -> DxsoStatus {
    guard(|| {
        writable(code, "code")?;
        writable(interface_json, "interface_json")?;
        let target = DxsoTarget::from_c(target)?;
        let float = DxsoFloat::from_c(float_mode)?;
        // SAFETY: the caller's contract.
        let data = unsafe { slice(data, len, "data") }?;
        let source = Source::load(data).map_err(|e| Failure::input(source_message(&e)))?;
        let checked = dxso_format::validate::validate(&source.shader, &Caps::max())
            .map_err(|d| Failure::input(source.rejection(NAME, &d)))?;
        let fail = |e: dxso_naga::Error| Failure::input(format!("{NAME}: error: {e}"));
        let t = dxso_naga::translate(&checked, &Options { float }).map_err(fail)?;
        let bytes = match dxso_naga::write(&t, target).map_err(fail)? {
            Output::Text(text) => text.into_bytes(),
            Output::SpirV(words) => words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        };
        let json = serde_json::to_string(&t.interface)
            .map_err(|e| Failure::input(format!("the interface as JSON: {e}")))?;
        // SAFETY: both checked by `writable` above, writable (the caller's contract).
        unsafe {
            put(code, DxsoBuffer::from_vec(bytes), "code")?;
            put(interface_json, c_string(json), "interface_json")
        }
    })
}
