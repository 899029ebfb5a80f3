//! Reading shaders from files: assembly text, or bytecode as binary or hex tokens.

use dxso::Shader;
use dxso::binary::{self, ReadError};
use dxso::text::Span;

/// Decode bytecode given as raw little-endian tokens, or as hex tokens separated by white
/// space (what `dxso asm --hex` prints; an optional `0x` prefix is accepted).
pub fn read_bytecode(bytes: &[u8]) -> Result<Shader, ReadError> {
    match hex_tokens(bytes) {
        Some(tokens) => binary::read(&tokens),
        None => binary::read_bytes(bytes),
    }
}

fn read_bytecode_with_offsets(bytes: &[u8]) -> Result<(Shader, Vec<usize>), ReadError> {
    match hex_tokens(bytes) {
        Some(tokens) => binary::read_with_offsets(&tokens),
        None => {
            if !bytes.len().is_multiple_of(4) {
                return binary::read_bytes(bytes).map(|s| (s, Vec::new()));
            }
            let tokens: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            binary::read_with_offsets(&tokens)
        }
    }
}

/// The tokens of a hex listing, or `None` if `bytes` is not one.
pub fn hex_tokens(bytes: &[u8]) -> Option<Vec<u32>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return None;
    }
    words
        .iter()
        .map(|w| {
            let w = w.trim_start_matches("0x").trim_start_matches("0X");
            if w.is_empty() || w.len() > 8 {
                return None;
            }
            u32::from_str_radix(w, 16).ok()
        })
        .collect()
}

/// Whether `bytes` look like bytecode rather than assembly text: binary tokens starting with
/// a version token, or a hex listing.
pub fn is_bytecode(bytes: &[u8]) -> bool {
    if bytes.len() >= 4 && matches!(u16::from_le_bytes([bytes[2], bytes[3]]), 0xFFFE | 0xFFFF) {
        return true;
    }
    hex_tokens(bytes).is_some()
}

/// Where each instruction of a loaded shader came from.
pub enum Origin {
    Text {
        source: String,
        spans: Vec<Span>,
        /// Where each line starts in `source`, found once at the first diagnostic (so that
        /// locating many is linear, not a re-scan of the text each).
        line_starts: std::sync::OnceLock<Vec<usize>>,
    },
    Binary {
        offsets: Vec<usize>,
    },
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
        origin: Origin::Text {
            source,
            spans,
            line_starts: std::sync::OnceLock::new(),
        },
    })
}

impl Loaded {
    /// `FILE:LINE:COL` (text) or `FILE: word N` (bytecode) for instruction `i`, plus the
    /// source line and a caret for text.
    pub fn locate(&self, name: &str, i: Option<usize>) -> (String, Option<String>) {
        match (&self.origin, i) {
            (
                Origin::Text {
                    source,
                    spans,
                    line_starts,
                },
                Some(i),
            ) if i < spans.len() => {
                let sp = spans[i];
                let starts = line_starts.get_or_init(|| {
                    std::iter::once(0)
                        .chain(source.match_indices('\n').map(|(k, _)| k + 1))
                        .collect()
                });
                let line = starts
                    .get(sp.line - 1)
                    .map_or("", |&start| {
                        let rest = &source[start..];
                        &rest[..rest.find('\n').unwrap_or(rest.len())]
                    })
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
