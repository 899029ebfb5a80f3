//! Reading shaders from files: assembly text, or bytecode as binary or hex tokens.

use dxso::Shader;
use dxso::text::Span;

pub use dxso::source::read_bytecode;
use dxso::source::{is_bytecode, read_bytecode_with_offsets};

/// Where each instruction of a loaded shader came from.
pub enum Origin {
    Text { source: String, spans: Vec<Span> },
    Binary { offsets: Vec<usize> },
}

/// A shader loaded from a file of either kind.
pub struct Loaded {
    pub shader: Shader,
    pub origin: Origin,
}

/// Load text or bytecode. `Err` is the rendered message (`FILE:LINE:COL: error: ...`).
pub fn load_shader(name: &str, bytes: &[u8]) -> Result<Loaded, String> {
    if is_bytecode(bytes) {
        let (shader, offsets) =
            read_bytecode_with_offsets(bytes).map_err(|e| format!("{name}: error: {e}\n"))?;
        return Ok(Loaded {
            shader,
            origin: Origin::Binary { offsets },
        });
    }
    let source = String::from_utf8_lossy(bytes).into_owned();
    let (shader, spans) = dxso::text::parse_with_spans(&source).map_err(|e| e.render(name))?;
    Ok(Loaded {
        shader,
        origin: Origin::Text { source, spans },
    })
}

impl Loaded {
    /// `FILE:LINE:COL` (text) or `FILE: word N` (bytecode) for instruction `i`, plus the
    /// source line and a caret for text.
    pub fn locate(&self, name: &str, i: Option<usize>) -> (String, Option<String>) {
        match (&self.origin, i) {
            (Origin::Text { source, spans }, Some(i)) if i < spans.len() => {
                let sp = spans[i];
                let line = source
                    .split('\n')
                    .nth(sp.line - 1)
                    .unwrap_or("")
                    .trim_end_matches('\r');
                let pad: String = line
                    .chars()
                    .take(sp.col - 1)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                (
                    format!("{name}:{}:{}", sp.line, sp.col),
                    Some(format!("    {line}\n    {pad}^\n")),
                )
            }
            (Origin::Binary { offsets }, Some(i)) if i < offsets.len() => {
                (format!("{name}: word {}", offsets[i]), None)
            }
            _ => (name.to_string(), None),
        }
    }

    /// Line/col or word offset of instruction `i`, for machine-readable output.
    pub fn position(&self, i: Option<usize>) -> serde_json::Value {
        match (&self.origin, i) {
            (Origin::Text { spans, .. }, Some(i)) if i < spans.len() => {
                serde_json::json!({"line": spans[i].line, "col": spans[i].col})
            }
            (Origin::Binary { offsets }, Some(i)) if i < offsets.len() => {
                serde_json::json!({"word": offsets[i]})
            }
            _ => serde_json::json!({}),
        }
    }
}
