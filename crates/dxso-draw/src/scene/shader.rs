//! A scene's shaders: a file (assembly text, or bytecode as binary or hex tokens) or inline
//! text, read, checked to be the stage the field names, validated (the validator's
//! diagnostics are the error), with the constant table a listing's header gives.

use super::{SceneError, bail};
use dxso::ctab::ConstantTable;
use dxso::source::Source;
use dxso::validate::{Caps, Checked, validate};
use std::path::Path;

/// Load text or bytecode. `Err` is the rendered message (`FILE:LINE:COL: error: ...`).
pub fn load_shader(name: &str, bytes: &[u8]) -> Result<Source, String> {
    Source::load(bytes).map_err(|e| e.render(name))
}

/// A validated shader from a scene, with its constant table and the validator's warnings.
pub struct LoadedShader {
    /// The shader as validated.
    pub checked: Checked,
    /// For a listing without a CTAB: the table its header (`// Parameters:`) describes, which
    /// the caller binds beside the shader (a shader's own CTAB comes with it).
    pub header_table: Option<ConstantTable>,
    /// `FILE:LINE:COL: warning[V0xx]: ...`, one a warning.
    pub warnings: Vec<String>,
}

/// Which stage a scene field holds a shader for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    Vertex,
    Pixel,
}

/// The shader of `file` (a path relative to `dir`) or `inline` (its text; `inline_field` is
/// the field's name), neither: `None`. Both: an error naming both fields.
pub(crate) fn scene_shader(
    stage: Stage,
    (file_field, file): (&str, Option<&str>),
    (inline_field, inline): (&str, Option<&str>),
    dir: &Path,
) -> Result<Option<LoadedShader>, SceneError> {
    let (name, bytes) = match (file, inline) {
        (Some(p), None) => {
            let full = dir.join(p);
            let bytes = std::fs::read(&full)
                .map_err(|e| SceneError::new(format!("shader {}: {e}", full.display())))?;
            (p.to_string(), bytes)
        }
        (None, Some(asm)) => (inline_field.to_string(), asm.as_bytes().to_vec()),
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            bail!("a scene names exactly one of \"{file_field}\" and \"{inline_field}\"")
        }
    };
    load_checked(stage, &name, &bytes).map(Some)
}

/// Read, check the stage of, validate, and name the constants of one shader.
pub(crate) fn load_checked(
    stage: Stage,
    name: &str,
    bytes: &[u8],
) -> Result<LoadedShader, SceneError> {
    let loaded = load_shader(name, bytes).map_err(|m| SceneError::new(m.trim_end()))?;
    let version = loaded.shader.version;
    match stage {
        Stage::Vertex if !version.is_vertex() => {
            bail!("{name}: {version} is not a vertex shader")
        }
        Stage::Pixel if !version.is_pixel() => {
            bail!("{name}: {version} is not a pixel shader")
        }
        _ => {}
    }
    let checked = validate(&loaded.shader, &Caps::max())
        .map_err(|diags| SceneError::new(loaded.rejection(name, &diags)))?;
    let warnings = checked
        .warnings()
        .iter()
        .map(|w| {
            let (at, _) = loaded.locate(name, w.instruction);
            format!("{at}: warning[{}]: {}", w.rule.id(), w.message)
        })
        .collect();
    // A listing names its constants in its header, as `asm --ctab` reads it.
    let header_table = match checked.shader().constant_table() {
        Ok(None) if !dxso::source::is_bytecode(bytes) => {
            let text = String::from_utf8_lossy(bytes);
            dxso::text::parse_header(&text, version)
                .map_err(|e| SceneError::new(e.render(name).trim_end()))?
        }
        _ => None,
    };
    Ok(LoadedShader {
        checked,
        header_table,
        warnings,
    })
}
