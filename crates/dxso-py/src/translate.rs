//! `translate`: a shader for GPUs (a door to `dxso_naga::translate` and `dxso_naga::write`).

use crate::errors::{self, TranslationError};
use crate::shader;
use dxso::validate::Caps;
use dxso_naga::{FloatMode, Options, Output, Target};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Translate a vertex or pixel shader (a `Shader`, assembly text or bytecode; any version)
/// for GPUs, as `dxso translate` does.
///
/// `to` is "wgsl", "spirv", "glsl", "msl" or "hlsl"; `float` is "strict" (D3D9's arithmetic
/// as dxso's CPU engine does it) or "ieee" (plain IEEE operations). Returns the code — a
/// `str`, or for "spirv" the module's `bytes` (little-endian 32-bit words) — and the
/// interface as a dict: what a caller must know to bind the shader (constant buffers,
/// samplers, inputs, outputs and their locations; the JSON of `dxso translate --interface`).
/// Raises `ValidationError` for a shader that does not validate (caps "max"), and
/// `TranslationError` for what the translation does not handle.
#[pyfunction]
#[pyo3(signature = (data, to = "wgsl", float = "strict"))]
pub fn translate<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    to: &str,
    float: &str,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let target = Target::from_name(to).ok_or_else(|| {
        errors::Error::new_err(format!(
            "unknown target {to:?}; expected \"wgsl\", \"spirv\", \"glsl\", \"msl\" or \"hlsl\""
        ))
    })?;
    let float = match float {
        "strict" => FloatMode::Strict,
        "ieee" => FloatMode::Ieee,
        _ => {
            return Err(errors::Error::new_err(format!(
                "unknown float mode {float:?}; expected \"strict\" or \"ieee\""
            )));
        }
    };
    let (name, source) = shader::load(data)?;
    let checked = shader::check(py, &name, &source, &Caps::max())?;
    let (code, interface) = py
        .detach(|| -> Result<_, dxso_naga::Error> {
            let t = dxso_naga::translate(&checked, &Options { float })?;
            Ok((
                dxso_naga::write(&t, target)?,
                serde_json::to_string(&t.interface),
            ))
        })
        .map_err(|e| TranslationError::new_err(format!("{name}: error: {e}")))?;
    let interface =
        interface.map_err(|e| errors::Error::new_err(format!("the interface as JSON: {e}")))?;
    let code = match code {
        Output::Text(text) => text.into_pyobject(py)?.into_any(),
        Output::SpirV(words) => {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            PyBytes::new(py, &bytes).into_any()
        }
    };
    let interface = py.import("json")?.call_method1("loads", (interface,))?;
    Ok((code, interface))
}
