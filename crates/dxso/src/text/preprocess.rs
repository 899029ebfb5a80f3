//! The preprocessing Microsoft's assembler does before it reads statements: `/* ... */` block
//! comments blanked (their line breaks kept, so positions stay), `\\` line continuations
//! joined, and object-like `#define` macros expanded with bounded work.

use std::borrow::Cow;
use std::collections::HashMap;

/// The most macros one `#define` expansion may nest (a macro whose body uses a macro whose
/// body uses a macro ...); deeper is an error.
pub const MAX_MACRO_DEPTH: usize = 16;

/// The most bytes one line may grow to by `#define` expansion; longer is an error. (Bodies
/// that use a macro several times grow exponentially with the nesting; this bounds the work.)
pub const MAX_MACRO_EXPANSION: usize = 64 * 1024;

/// A `/*` without its `*/`: where it starts, and the line it is on.
pub(super) struct Unterminated {
    pub line: usize,
    pub col: usize,
    pub line_text: String,
}

/// The text with every `/* ... */` comment replaced by spaces (its line breaks kept), so that
/// later positions keep their line and column. As in the C preprocessor Microsoft's assembler
/// runs, `/*` inside a `//` comment starts nothing, while one after `;` (no comment to the
/// preprocessor) does. A `/*` without its `*/` is an error at its position (the rest of the
/// text is comment).
pub(super) fn blank_block_comments(source: &str) -> (Cow<'_, str>, Option<Unterminated>) {
    if !source.contains("/*") {
        return (Cow::Borrowed(source), None);
    }
    let bytes = source.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1)) {
            (b'/', Some(b'/')) => {
                let end = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
                out.extend_from_slice(&bytes[i..end]);
                i = end;
            }
            (b'/', Some(b'*')) => {
                let Some(len) = source[i + 2..].find("*/") else {
                    let line = source[..i].matches('\n').count() + 1;
                    let line_start = source[..i].rfind('\n').map_or(0, |n| n + 1);
                    let line_end = source[i..].find('\n').map_or(source.len(), |n| i + n);
                    let error = Unterminated {
                        line,
                        col: i - line_start + 1,
                        line_text: source[line_start..line_end].trim_end().to_string(),
                    };
                    out.extend(bytes[i..].iter().map(|&b| blank(b)));
                    return (Cow::Owned(into_string(out)), Some(error));
                };
                let end = i + 2 + len + 2;
                out.extend(bytes[i..end].iter().map(|&b| blank(b)));
                i = end;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    (Cow::Owned(into_string(out)), None)
}

/// A comment's byte as a space; line breaks stay. A multi-byte character becomes one space
/// per byte, which keeps byte offsets (columns count bytes on the lines of a listing).
fn blank(b: u8) -> u8 {
    if matches!(b, b'\n' | b'\r') { b } else { b' ' }
}

fn into_string(bytes: Vec<u8>) -> String {
    // Only whole comments (which start and end at ASCII bytes) were blanked, so the text is
    // still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Physical lines joined at `\` continuations, each with its 1-based first line number.
pub(super) fn logical_lines(source: &str) -> impl Iterator<Item = (usize, Cow<'_, str>)> {
    // Lazily, borrowing each line that has no continuation: a listing is not copied line by
    // line before it is parsed.
    let mut physical = source.split('\n').enumerate();
    std::iter::from_fn(move || {
        let (i, raw) = physical.next()?;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let Some(first) = raw.strip_suffix('\\') else {
            return Some((i + 1, Cow::Borrowed(raw)));
        };
        let mut text = first.to_string();
        for (_, raw) in physical.by_ref() {
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            match raw.strip_suffix('\\') {
                Some(more) => text.push_str(more),
                None => {
                    text.push_str(raw);
                    break;
                }
            }
        }
        Some((i + 1, Cow::Owned(text)))
    })
}

/// The `#define`d macros: name -> body.
#[derive(Default)]
pub(super) struct Macros(HashMap<String, String>);

impl Macros {
    pub(super) fn define(&mut self, name: &str, body: &str) {
        self.0.insert(name.to_string(), body.to_string());
    }

    pub(super) fn undef(&mut self, name: &str) {
        self.0.remove(name);
    }

    /// Replace macro names as a C preprocessor does: a body is expanded again (macros that use
    /// macros), except for names already being expanded (`#define R R` gives `R`). The work
    /// is bounded: at most [`MAX_MACRO_DEPTH`] macros inside one another and at most
    /// [`MAX_MACRO_EXPANSION`] bytes of expanded text per line, otherwise an error at the
    /// column of the outermost macro name.
    pub(super) fn expand(&self, code: &str) -> Result<String, (usize, String)> {
        if self.0.is_empty() {
            return Ok(code.to_string());
        }
        let mut out = String::with_capacity(code.len());
        let mut active = Vec::new();
        self.expand_into(code, &mut active, &mut out)
            .map_err(|(at, message)| (at.unwrap_or(0), message))?;
        Ok(out)
    }

    /// Append `text` with its macros expanded to `out`; `active` holds the macros being
    /// expanded. An error carries the byte offset of the name in `text` when `active` is
    /// empty (the caller's column), `None` when it comes from inside a body.
    fn expand_into<'m>(
        &'m self,
        text: &str,
        active: &mut Vec<&'m str>,
        out: &mut String,
    ) -> Result<(), (Option<usize>, String)> {
        let bytes = text.as_bytes();
        let mut i = 0;
        let mut copied = 0;
        while i < bytes.len() {
            if !is_ident_start(bytes[i]) {
                // Skip digits glued to letters (`1e5`, `c12`) as one word too.
                let start = i;
                while i < bytes.len() && is_ident(bytes[i]) {
                    i += 1;
                }
                if i == start {
                    i += 1;
                }
                continue;
            }
            let start = i;
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            let word = &text[start..i];
            let Some((name, body)) = self.0.get_key_value(word) else {
                continue;
            };
            if active.contains(&name.as_str()) {
                continue;
            }
            out.push_str(&text[copied..start]);
            copied = i;
            let at = active.is_empty().then_some(start);
            if active.len() >= MAX_MACRO_DEPTH {
                return Err((
                    at,
                    format!(
                        "macro '{word}' nests deeper than {MAX_MACRO_DEPTH} macros \
                         (limit MAX_MACRO_DEPTH)"
                    ),
                ));
            }
            active.push(name);
            let nested = self.expand_into(body, active, out);
            active.pop();
            nested.map_err(|(_, message)| (at, message))?;
            if out.len() > MAX_MACRO_EXPANSION {
                return Err((
                    at,
                    format!(
                        "macro '{word}' expands the line past {MAX_MACRO_EXPANSION} bytes \
                         (limit MAX_MACRO_EXPANSION)"
                    ),
                ));
            }
        }
        out.push_str(&text[copied..]);
        if out.len() > MAX_MACRO_EXPANSION {
            return Err((
                None,
                format!(
                    "the line expands past {MAX_MACRO_EXPANSION} bytes (limit MAX_MACRO_EXPANSION)"
                ),
            ));
        }
        Ok(())
    }
}

pub(super) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}
pub(super) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
