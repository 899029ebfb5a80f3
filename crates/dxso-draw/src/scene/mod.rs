//! Scenes (`../shared/CLI.md`): the JSON that describes a draw, read once here for the command
//! line, the bindings and the server.
//!
//! - [`Scene`] (`run.rs`): a `dxso run` scene — the vertex shader, declaration, streams,
//!   indices, constants, vertex textures and samplers — as a configured [`dxso_vm::Device`].
//! - [`DrawScene`] (`draw.rs`): a `dxso draw` scene — the frame (size, targets, depth-stencil
//!   surface, clear) and its draws, each a run scene plus the pixel shader and its state,
//!   the render and texture stage states, viewport, scissor and clip planes — as a
//!   [`Frame`](crate::Frame) and [`Draw`](crate::Draw)s.
//! - [`textures`]: textures (inline `levels`, `.dds` and `.png` files) and sampler states.
//! - [`mesh`]: meshes (`.obj`, `.gltf`, `.glb`) that supply a draw's streams.
//!
//! Every error is a [`SceneError`] whose message names the field at fault (`streams[1]: hex:
//! ...`, `draws[0].states: CULLMODE: ...`) and the file, where one is involved.

mod constants;
mod draw;
pub mod mesh;
mod run;
mod shader;
pub mod textures;

pub use draw::{DrawScene, draw_scene_from_json, is_draw_scene, load_draw_scene};
pub use mesh::Mesh;
pub use run::Scene;
pub use shader::{LoadedShader, load_shader};

use crate::DrawError;
use serde_json::Value;
use std::fmt::Display;

/// What is wrong with a scene (or a file it names): the message names the field and file.
/// `internal`: not the scene's fault but a defect in dxso met while loading it
/// ([`DrawError::Internal`]), kept apart so callers can say so.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneError {
    message: String,
    internal: bool,
}

impl std::fmt::Display for SceneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.internal {
            f.write_str("internal error: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SceneError {}

impl SceneError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> SceneError {
        SceneError {
            message: message.into(),
            internal: false,
        }
    }

    /// The message, `what: ` in front (the field or file the error is in).
    pub fn context(self, what: impl Display) -> SceneError {
        SceneError {
            message: format!("{what}: {}", self.message),
            ..self
        }
    }

    /// Whether this is a defect in dxso rather than in the scene.
    pub fn is_internal(&self) -> bool {
        self.internal
    }
}

impl From<SceneError> for DrawError {
    fn from(e: SceneError) -> DrawError {
        if e.internal {
            DrawError::Internal(e.message)
        } else {
            DrawError::Scene(e.message)
        }
    }
}

impl From<dxso_vm::VmError> for SceneError {
    fn from(e: dxso_vm::VmError) -> SceneError {
        SceneError::new(e.to_string())
    }
}

impl From<dxso_vm::TextureError> for SceneError {
    fn from(e: dxso_vm::TextureError) -> SceneError {
        SceneError::new(e.to_string())
    }
}

impl From<DrawError> for SceneError {
    fn from(e: DrawError) -> SceneError {
        match e {
            DrawError::Internal(message) => SceneError {
                message,
                internal: true,
            },
            e => SceneError::new(e.to_string()),
        }
    }
}

/// `return Err(SceneError::new(format!(...)).into())`.
macro_rules! bail {
    ($($t:tt)*) => {
        return Err($crate::scene::SceneError::new(format!($($t)*)).into())
    };
}
pub(crate) use bail;

/// `.context(...)` on results, as anyhow has it: the error's message gets `what: ` in front.
pub(crate) trait Context<T> {
    fn context(self, what: impl Display) -> Result<T, SceneError>;
    fn with_context<D: Display>(self, what: impl FnOnce() -> D) -> Result<T, SceneError>;
}

impl<T, E: Into<SceneError>> Context<T> for Result<T, E> {
    fn context(self, what: impl Display) -> Result<T, SceneError> {
        self.map_err(|e| e.into().context(what))
    }
    fn with_context<D: Display>(self, what: impl FnOnce() -> D) -> Result<T, SceneError> {
        self.map_err(|e| e.into().context(what()))
    }
}

/// A file a scene names, read; the error names the path.
pub(crate) fn read_file(path: &std::path::Path) -> Result<Vec<u8>, SceneError> {
    std::fs::read(path).map_err(|e| SceneError::new(format!("reading {}: {e}", path.display())))
}

/// A number as JSON writes it, or the strings "nan", "inf", "-inf".
pub(crate) fn float(v: &Value) -> Result<f32, SceneError> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .map(|x| x as f32)
            .ok_or_else(|| SceneError::new(format!("bad number {n}"))),
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "nan" => Ok(f32::NAN),
            "inf" | "+inf" | "infinity" => Ok(f32::INFINITY),
            "-inf" | "-infinity" => Ok(f32::NEG_INFINITY),
            _ => bail!("expected a number, found {s:?}"),
        },
        other => bail!("expected a number, found {other}"),
    }
}

/// Four items of an array, each read by `f`; errors name `what`.
pub(crate) fn four<T>(
    v: &Value,
    what: &str,
    f: impl Fn(&Value) -> Result<T, SceneError>,
) -> Result<[T; 4], SceneError> {
    let arr = v
        .as_array()
        .ok_or_else(|| SceneError::new(format!("{what}: expected an array of 4 numbers")))?;
    if arr.len() != 4 {
        bail!("{what}: expected 4 numbers, found {}", arr.len());
    }
    let items: Vec<T> = arr.iter().map(&f).collect::<Result<_, _>>().context(what)?;
    items
        .try_into()
        .map_err(|_| SceneError::new(format!("{what}: expected 4 numbers")))
}

/// A serde_json error, as the scene reader reports it.
pub(crate) fn json_error(e: serde_json::Error) -> SceneError {
    SceneError::new(e.to_string())
}

#[cfg(test)]
mod tests;
