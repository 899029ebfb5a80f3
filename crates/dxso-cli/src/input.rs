//! Reading shaders from files: assembly text, or bytecode as binary or hex tokens
//! ([`dxso::source`] does the reading and locating).

use dxso::source::{Position, Source};

pub use dxso::source::{is_bytecode, read_bytecode};
/// Load text or bytecode. `Err` is the rendered message (`FILE:LINE:COL: error: ...`).
pub use dxso_draw::scene::load_shader;

/// A shader loaded from a file of either kind.
pub type Loaded = Source;

/// Where an instruction is, as the JSON outputs say it: `{"line": L, "col": C}` in text,
/// `{"word": W}` in bytecode, `{}` where it is not known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct JsonPosition {
    /// 1-based line (text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column (text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub col: Option<usize>,
    /// Word offset of the instruction's first token (bytecode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub word: Option<usize>,
}

impl From<Option<Position>> for JsonPosition {
    fn from(p: Option<Position>) -> JsonPosition {
        match p {
            Some(Position::Text { line, col }) => JsonPosition {
                line: Some(line),
                col: Some(col),
                word: None,
            },
            Some(Position::Word(w)) => JsonPosition {
                word: Some(w),
                ..JsonPosition::default()
            },
            None => JsonPosition::default(),
        }
    }
}

/// Line/col or word offset of instruction `i`, for machine-readable output.
pub fn position(loaded: &Loaded, i: Option<usize>) -> JsonPosition {
    loaded.position(i).into()
}
