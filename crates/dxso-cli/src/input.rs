//! Reading shaders from files: bytecode as binary tokens or as hex text.

use dxso::Shader;
use dxso::binary::{self, ReadError};

/// Decode bytecode given as raw little-endian tokens, or as hex tokens separated by white
/// space (what `dxso asm --hex` prints; an optional `0x` prefix is accepted).
pub fn read_bytecode(bytes: &[u8]) -> Result<Shader, ReadError> {
    match hex_tokens(bytes) {
        Some(tokens) => binary::read(&tokens),
        None => binary::read_bytes(bytes),
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
