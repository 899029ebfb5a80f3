//! `decompile`: a shader as readable HLSL (a door to `dxso_decompile`).

use crate::errors::{self, TranslationError};
use crate::shader;
use dxso::validate::Caps;
use dxso_decompile::{Dialect, Options};
use pyo3::prelude::*;
use pyo3::types::PyString;

/// Decompile a vertex or pixel shader (a `Shader`, assembly text or bytecode; any version)
/// to HLSL a person can read, as `dxso decompile` does.
///
/// `dialect` is "fxc" (the D3D9 dialect of Microsoft's compiler) or "glslang" (the form
/// `glslangValidator -D --hlsl-dx9-compatible` compiles); `asm_comments` puts each source
/// instruction, as a comment, above the HLSL it became. The constants take their names from
/// the shader's constant table, or for assembly text without one from the listing's header.
/// Raises `ValidationError` for a shader that does not validate (caps "max"), and
/// `TranslationError` for what the decompiler does not handle.
#[pyfunction]
#[pyo3(signature = (data, dialect = "fxc", asm_comments = false))]
pub fn decompile(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dialect: &str,
    asm_comments: bool,
) -> PyResult<String> {
    let dialect = match dialect {
        "fxc" => Dialect::Fxc,
        "glslang" => Dialect::Glslang,
        _ => {
            return Err(errors::Error::new_err(format!(
                "unknown dialect {dialect:?}; expected \"fxc\" or \"glslang\""
            )));
        }
    };
    // The text of a listing, whose header may name the constants.
    let text: Option<String> = if data.is_instance_of::<PyString>() {
        Some(data.extract()?)
    } else {
        None
    };
    let (name, source) = shader::load(data)?;
    let checked = shader::check(py, &name, &source, &Caps::max())?;
    let table = match checked.shader().constant_table() {
        Ok(Some(t)) => Some(t),
        Ok(None) => text
            .as_deref()
            .and_then(|t| dxso_decompile::listing_table(t, checked.shader().version)),
        Err(e) => {
            return Err(TranslationError::new_err(format!(
                "{name}: error: constant table: {e}"
            )));
        }
    };
    let options = Options {
        dialect,
        asm_comments,
    };
    py.detach(|| dxso_decompile::decompile_with_table(&checked, table.as_ref(), &options))
        .map_err(|e| TranslationError::new_err(format!("{name}: error: {e}")))
}
