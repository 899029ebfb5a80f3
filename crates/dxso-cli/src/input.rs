//! Reading shaders from files: assembly text, or bytecode as binary or hex tokens
//! ([`dxso::source`] does the reading and locating).

use dxso::source::{Position, Source};

pub use dxso::source::{is_bytecode, read_bytecode};
/// Load text or bytecode. `Err` is the rendered message (`FILE:LINE:COL: error: ...`).
pub use dxso_draw::scene::load_shader;

/// A shader loaded from a file of either kind.
pub type Loaded = Source;

/// Line/col or word offset of instruction `i`, for machine-readable output.
pub fn position(loaded: &Loaded, i: Option<usize>) -> serde_json::Value {
    match loaded.position(i) {
        Some(Position::Text { line, col }) => serde_json::json!({"line": line, "col": col}),
        Some(Position::Word(w)) => serde_json::json!({"word": w}),
        None => serde_json::json!({}),
    }
}
