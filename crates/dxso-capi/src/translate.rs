//! Translation for GPUs: a door to `dxso_naga::translate` and `dxso_naga::write`.

use crate::shader::{NAME, source_message};
use crate::{DxsoBuffer, DxsoStatus, Failure, c_string, guard, put, slice};
use dxso_format::source::Source;
use dxso_format::validate::{Caps, Severity};
use dxso_naga::{FloatMode, Options, Output, Target};
use std::ffi::c_char;

/// The language `dxso_translate` writes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxsoTarget {
    Wgsl = 0,
    /// A binary SPIR-V module (little-endian 32-bit words).
    Spirv = 1,
    /// GLSL 450 core.
    Glsl = 2,
    Msl = 3,
    /// HLSL shader model 5.1.
    Hlsl = 4,
}

/// The arithmetic `dxso_translate` emits.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DxsoFloat {
    /// D3D9's arithmetic as dxso's CPU engine does it (a zero factor gives +0, rcp/rsq of 0
    /// give FLT_MAX, log of 0 gives -FLT_MAX, relative reads outside a file give 0, ...).
    Strict = 0,
    /// Plain IEEE operations.
    Ieee = 1,
}

/// Translate the vertex or pixel shader in `len` bytes at `data` (assembly text, binary
/// tokens or a hex listing; any version) into `target`, as `dxso translate` does.
///
/// On success `*code` holds the code — UTF-8 text without a terminating NUL (print it with
/// its length), or for DXSO_TARGET_SPIRV the SPIR-V module's bytes — owned by the caller:
/// free it with `dxso_buffer_free`. `*interface_json` (NUL-terminated; owned by the caller:
/// free it with `dxso_string_free`) is what a caller must know to bind the shader: constant
/// buffers, samplers, inputs, outputs and their locations, as JSON (`dxso translate
/// --interface`). On failure neither is written: DXSO_STATUS_INPUT for a shader that does
/// not read, does not validate (caps "max"; the message has the validator's errors) or that
/// the translation does not handle.
#[unsafe(no_mangle)]
pub extern "C" fn dxso_translate(
    data: *const u8,
    len: usize,
    target: DxsoTarget,
    float_mode: DxsoFloat,
    code: *mut DxsoBuffer,
    interface_json: *mut *mut c_char,
) -> DxsoStatus {
    guard(|| {
        if code.is_null() {
            return Err(Failure::argument("code is null"));
        }
        if interface_json.is_null() {
            return Err(Failure::argument("interface_json is null"));
        }
        let source = Source::load(slice(data, len, "data")?)
            .map_err(|e| Failure::input(source_message(&e)))?;
        let checked =
            dxso_format::validate::validate(&source.shader, &Caps::max()).map_err(|d| {
                let mut message = String::new();
                for d in d.iter().filter(|d| d.severity == Severity::Error) {
                    let (at, _) = source.locate(NAME, d.instruction);
                    message.push_str(&format!("{at}: error[{}]: {}\n", d.rule.id(), d.message));
                }
                message.push_str(&format!("{NAME}: the shader does not validate"));
                Failure::input(message)
            })?;
        let float = match float_mode {
            DxsoFloat::Strict => FloatMode::Strict,
            DxsoFloat::Ieee => FloatMode::Ieee,
        };
        let target = match target {
            DxsoTarget::Wgsl => Target::Wgsl,
            DxsoTarget::Spirv => Target::SpirV,
            DxsoTarget::Glsl => Target::Glsl,
            DxsoTarget::Msl => Target::Msl,
            DxsoTarget::Hlsl => Target::Hlsl,
        };
        let fail = |e: dxso_naga::Error| Failure::input(format!("{NAME}: error: {e}"));
        let t = dxso_naga::translate(&checked, &Options { float }).map_err(fail)?;
        let bytes = match dxso_naga::write(&t, target).map_err(fail)? {
            Output::Text(text) => text.into_bytes(),
            Output::SpirV(words) => words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        };
        let json = serde_json::to_string(&t.interface)
            .map_err(|e| Failure::input(format!("the interface as JSON: {e}")))?;
        put(code, DxsoBuffer::from_vec(bytes), "code")?;
        put(interface_json, c_string(json), "interface_json")
    })
}
