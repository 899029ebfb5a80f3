//! A shader from either of its forms — assembly text, or bytecode as little-endian binary
//! tokens or as a hex listing (one token per word, what `dxso asm --hex` prints) — with where
//! each instruction came from, for diagnostics.
//!
//! ```
//! use dxso::source::{Position, Source};
//! let text = Source::load(b"vs_2_0\ndcl_position v0\nmov oPos, v0\n").unwrap();
//! assert_eq!(text.position(Some(1)), Some(Position::Text { line: 3, col: 1 }));
//! let tokens = dxso::binary::write_bytes(&text.shader).unwrap();
//! let binary = Source::load(&tokens).unwrap();
//! assert_eq!(binary.shader, text.shader);
//! assert_eq!(binary.position(Some(1)), Some(Position::Word(4)));
//! ```

use crate::Shader;
use crate::binary::{self, ReadError, ReadErrorKind};
use crate::report::{Diagnostic, Report, Severity, Snippet};
use crate::text::{ParseError, ParseErrors, Span};
use std::fmt;

/// The most instructions (comments, declarations and `def`s included) a [`Source`] holds: a
/// longer shader is refused, after reading it to the end to count them, in memory that does
/// not grow with its length. No valid shader comes near it — vs_3_0 and ps_3_0 have at most
/// 32,768 instruction slots, and a shader's `dcl`s and `def`s are bounded by its register
/// files — so the limit only keeps `check`, `run`, `translate` and `link` of a hostile file
/// within bounded memory (an [`Instruction`](crate::ir::Instruction) is larger than its text).
pub const MAX_INSTRUCTIONS: usize = 65_536;

/// Where an instruction is: a 1-based line and column of the text, or the word offset of
/// its first token in the bytecode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// A place in the text.
    Text {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
    },
    /// Word offset of the first token in the bytecode.
    Word(usize),
}

impl fmt::Display for Position {
    /// `LINE:COL` or `word N`, as diagnostics print them after the file name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Text { line, col } => write!(f, "{line}:{col}"),
            Position::Word(w) => write!(f, "word {w}"),
        }
    }
}

/// Why a source could not be read: the assembler's errors (text) or the reader's (bytecode).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// The text does not assemble.
    #[error(transparent)]
    Parse(ParseErrors),
    /// The bytes are not a shader the reader takes.
    #[error(transparent)]
    Read(ReadError),
}

impl SourceError {
    /// The diagnostics every face prints for a source that cannot be read: the assembler's
    /// errors, each with its line and a caret (`NAME:LINE:COL: error: ...`), or the reader's
    /// (`NAME: error: ...` with the word offset).
    pub fn report(&self, name: &str) -> Report {
        match self {
            SourceError::Parse(e) => e.report(name),
            SourceError::Read(e) => Report::error(name, e),
        }
    }

    /// [`SourceError::report`] as plain text; each line ends with a newline.
    pub fn render(&self, name: &str) -> String {
        self.report(name).render()
    }
}

/// A shader read from text or bytecode, with each instruction's position.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// The shader.
    pub shader: Shader,
    origin: Origin,
}

#[derive(Debug, Clone, PartialEq)]
enum Origin {
    /// The text, and each instruction's span and the byte offset of its line.
    Text {
        text: String,
        spans: Vec<Span>,
        line_starts: Vec<usize>,
    },
    Binary(Vec<usize>),
}

impl Source {
    /// Read `bytes` as bytecode when they look like it ([`is_bytecode`]), else as assembly text.
    pub fn load(bytes: &[u8]) -> Result<Source, SourceError> {
        if is_bytecode(bytes) {
            Source::bytecode(bytes).map_err(SourceError::Read)
        } else {
            Source::text(&String::from_utf8_lossy(bytes)).map_err(SourceError::Parse)
        }
    }

    /// Assemble `text`. A text of more than [`MAX_INSTRUCTIONS`] instructions is an error at
    /// the first one past the limit.
    pub fn text(text: &str) -> Result<Source, ParseErrors> {
        let mut instructions = Vec::new();
        let mut spans = Vec::new();
        let mut line_starts = Vec::new();
        // Where each instruction's line starts, found by walking the text forward once (the
        // spans come in line order): a per-instruction table, not one entry per line.
        let mut cursor = Cursor::default();
        let mut count = 0usize;
        let mut first_past: Option<Span> = None;
        let version = crate::text::parse_each(text, |_, inst, span| {
            count += 1;
            if count > MAX_INSTRUCTIONS {
                first_past.get_or_insert(span);
                return;
            }
            line_starts.push(cursor.line_start(text, span.line));
            instructions.push(inst);
            spans.push(span);
        })?;
        if let Some(span) = first_past {
            let start = cursor.line_start(text, span.line);
            return Err(ParseErrors(vec![ParseError {
                line: span.line,
                col: span.col,
                message: too_many(count),
                line_text: line_at(text, start).to_string(),
            }]));
        }
        Ok(Source {
            shader: Shader {
                version,
                instructions,
            },
            origin: Origin::Text {
                text: text.to_string(),
                spans,
                line_starts,
            },
        })
    }

    /// Decode bytecode: binary little-endian tokens, or a hex listing. Bytecode of more than
    /// [`MAX_INSTRUCTIONS`] instructions is an error at the first one past the limit.
    pub fn bytecode(bytes: &[u8]) -> Result<Source, ReadError> {
        let tokens = bytecode_tokens(bytes)?;
        let mut stream = binary::instructions(&tokens)?;
        let mut instructions = Vec::new();
        let mut offsets = Vec::new();
        let mut count = 0usize;
        let mut first_past = None;
        for item in &mut stream {
            let (offset, inst) = item?;
            count += 1;
            if count > MAX_INSTRUCTIONS {
                first_past.get_or_insert(offset);
                continue;
            }
            offsets.push(offset);
            instructions.push(inst);
        }
        if let Some(offset) = first_past {
            return Err(ReadError {
                offset,
                instruction: MAX_INSTRUCTIONS,
                kind: ReadErrorKind::TooManyInstructions {
                    found: count,
                    limit: MAX_INSTRUCTIONS,
                },
            });
        }
        Ok(Source {
            shader: Shader {
                version: stream.version(),
                instructions,
            },
            origin: Origin::Binary(offsets),
        })
    }

    /// Where instruction `i` (an index into `shader.instructions`) came from.
    pub fn position(&self, i: Option<usize>) -> Option<Position> {
        let i = i?;
        match &self.origin {
            Origin::Text { spans, .. } => spans.get(i).map(|s| Position::Text {
                line: s.line,
                col: s.col,
            }),
            Origin::Binary(offsets) => offsets.get(i).copied().map(Position::Word),
        }
    }

    /// The validator's refusal of this shader as every face prints it: one diagnostic a
    /// finding of error severity in `diagnostics` (`NAME:LINE:COL: error[V011]: message`, or
    /// `NAME: word N: ...` for bytecode), followed for text by the line and a caret under
    /// the column (as the assembler's errors are), then `NAME: the shader does not validate`.
    pub fn rejection_report(
        &self,
        name: &str,
        diagnostics: &[crate::validate::Diagnostic],
    ) -> Report {
        let mut report = Report::default();
        for d in diagnostics
            .iter()
            .filter(|d| d.severity == crate::validate::Severity::Error)
        {
            report.push(
                self.diagnostic(name, d.instruction, Severity::Error, &d.message)
                    .with_code(d.rule.id()),
            );
        }
        report.push_line(format!("{name}: the shader does not validate"));
        report
    }

    /// [`Source::rejection_report`] as plain text, without a line break at the end.
    pub fn rejection(&self, name: &str, diagnostics: &[crate::validate::Diagnostic]) -> String {
        let text = self.rejection_report(name, diagnostics).render();
        text.strip_suffix('\n').map(str::to_string).unwrap_or(text)
    }

    /// A diagnostic at instruction `i` of the shader read from file `name`: at its line and
    /// column with the line and a caret (text), at its word (bytecode), or at the file alone
    /// (`i` is `None` or past the end).
    pub fn diagnostic(
        &self,
        name: &str,
        i: Option<usize>,
        severity: Severity,
        message: impl fmt::Display,
    ) -> Diagnostic {
        let position = self.position(i);
        let snippet = match (position, &self.origin) {
            (
                Some(Position::Text { col, .. }),
                Origin::Text {
                    text, line_starts, ..
                },
            ) => {
                // `position` found instruction `i`, so its line start is there too.
                let start = i.and_then(|i| line_starts.get(i)).copied();
                Some(Snippet {
                    line: line_at(text, start.unwrap_or(text.len())).to_string(),
                    col,
                })
            }
            _ => None,
        };
        Diagnostic {
            position,
            snippet,
            ..Diagnostic::new(name, severity, message)
        }
    }

    /// Where instruction `i` of the shader read from file `name` is, as diagnostics begin
    /// (`NAME:LINE:COL`, `NAME: word N`, or `NAME` alone), and for text the source line with a
    /// caret under the column ([`Source::diagnostic`]'s place and snippet).
    pub fn locate(&self, name: &str, i: Option<usize>) -> (String, Option<String>) {
        let d = self.diagnostic(name, i, Severity::Error, "");
        (d.at(), d.snippet.map(|s| s.render()))
    }
}

/// The message for a shader of `found` instructions, more than [`MAX_INSTRUCTIONS`] (the
/// bytecode's error says the same).
fn too_many(found: usize) -> String {
    ReadErrorKind::TooManyInstructions {
        found,
        limit: MAX_INSTRUCTIONS,
    }
    .to_string()
}

/// The line of `text` that starts at byte `start`, without its line break.
fn line_at(text: &str, start: usize) -> &str {
    let rest = text.get(start..).unwrap_or("");
    let end = rest.find('\n').unwrap_or(rest.len());
    rest[..end].trim_end_matches('\r')
}

/// A position in a text walked forward: line `line` (1-based) starts at byte `start`.
struct Cursor {
    line: usize,
    start: usize,
}

impl Default for Cursor {
    fn default() -> Cursor {
        Cursor { line: 1, start: 0 }
    }
}

impl Cursor {
    /// The byte offset where line `line` starts (the text's end past its last line). Lines
    /// asked for in order cost one pass over the text in all; asking for an earlier line
    /// starts again from the top.
    fn line_start(&mut self, text: &str, line: usize) -> usize {
        if line < self.line {
            *self = Cursor::default();
        }
        while self.line < line {
            match text[self.start..].find('\n') {
                Some(n) => {
                    self.start += n + 1;
                    self.line += 1;
                }
                None => return text.len(),
            }
        }
        self.start
    }
}

/// A link finding as the command line prints it: at the pixel shader's instruction when it
/// has one (else the vertex shader's), with a note pointing at the vertex shader's side.
/// `vs` and `ps` are each a source and its file name.
pub fn link_report(
    vs: (&Source, &str),
    ps: (&Source, &str),
    d: &crate::link::LinkDiagnostic,
) -> Report {
    let severity = if d.error {
        Severity::Error
    } else {
        Severity::Warning
    };
    let first = match (d.ps_instruction, d.vs_instruction) {
        (Some(p), _) => ps.0.diagnostic(ps.1, Some(p), severity, &d.message),
        (None, Some(v)) => vs.0.diagnostic(vs.1, Some(v), severity, &d.message),
        (None, None) => Diagnostic::new(format!("{} + {}", vs.1, ps.1), severity, &d.message),
    };
    let mut report = Report::default();
    report.push(first.with_code(d.rule.id()));
    if d.ps_instruction.is_some()
        && let Some(v) = d.vs_instruction
    {
        report.push(vs.0.diagnostic(vs.1, Some(v), Severity::Note, "the vertex shader's side"));
    }
    report
}

/// [`link_report`] as plain text; each line ends with a newline.
pub fn render_link(
    vs: (&Source, &str),
    ps: (&Source, &str),
    d: &crate::link::LinkDiagnostic,
) -> String {
    link_report(vs, ps, d).render()
}

/// Decode bytecode given as raw little-endian tokens, or as hex tokens separated by white
/// space (an optional `0x` prefix is accepted).
pub fn read_bytecode(bytes: &[u8]) -> Result<Shader, ReadError> {
    binary::read(&bytecode_tokens(bytes)?)
}

/// [`read_bytecode`], with the word offset of each instruction.
pub fn read_bytecode_with_offsets(bytes: &[u8]) -> Result<(Shader, Vec<usize>), ReadError> {
    binary::read_with_offsets(&bytecode_tokens(bytes)?)
}

/// The tokens of bytecode given as raw little-endian tokens or as a hex listing (see
/// [`read_bytecode`]), not yet decoded: for [`binary::instructions`].
pub fn bytecode_tokens(bytes: &[u8]) -> Result<Vec<u32>, ReadError> {
    match hex_tokens(bytes) {
        Some(tokens) => Ok(tokens),
        None => binary::tokens_of_bytes(bytes),
    }
}

/// The tokens of a hex listing, or `None` if `bytes` is not one.
pub fn hex_tokens(bytes: &[u8]) -> Option<Vec<u32>> {
    let text = std::str::from_utf8(bytes).ok()?;
    // Word by word, stopping at the first that is not hex (assembly text stops at once).
    let tokens: Option<Vec<u32>> = text
        .split_whitespace()
        .map(|w| {
            let w = w.trim_start_matches("0x").trim_start_matches("0X");
            if w.is_empty() || w.len() > 8 {
                return None;
            }
            u32::from_str_radix(w, 16).ok()
        })
        .collect();
    tokens.filter(|t| !t.is_empty())
}

/// Whether `bytes` look like bytecode rather than assembly text: binary tokens starting with
/// a version token, or a hex listing.
pub fn is_bytecode(bytes: &[u8]) -> bool {
    if bytes.len() >= 4 && matches!(u16::from_le_bytes([bytes[2], bytes[3]]), 0xFFFE | 0xFFFF) {
        return true;
    }
    hex_tokens(bytes).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_each_form() {
        let tokens = [0xFFFE_0101u32, 0x0000_FFFF];
        let bin: Vec<u8> = tokens.iter().flat_map(|t| t.to_le_bytes()).collect();
        assert!(is_bytecode(&bin));
        assert!(is_bytecode(b"fffe0101\n0x0000ffff\n"));
        assert!(!is_bytecode(b"vs_1_1\n"));
        assert_eq!(hex_tokens(b"fffe0101 0000ffff"), Some(tokens.to_vec()));
        assert_eq!(hex_tokens(b"fffe01011"), None);
        let a = Source::load(&bin).unwrap();
        let b = Source::load(b"fffe0101\n0000ffff\n").unwrap();
        let c = Source::load(b"vs_1_1\n").unwrap();
        assert_eq!(a.shader, c.shader);
        assert_eq!(b.shader, c.shader);
    }

    #[test]
    fn errors_keep_their_kind() {
        assert!(matches!(
            Source::load(b"vs_1_1\nfoo\n"),
            Err(SourceError::Parse(e)) if e.0[0].line == 2
        ));
        assert!(matches!(
            Source::load(&[0x01, 0x01, 0xFE, 0xFF]),
            Err(SourceError::Read(e)) if e.kind == binary::ReadErrorKind::MissingEnd
        ));
        assert_eq!(Position::Word(7).to_string(), "word 7");
    }

    #[test]
    fn locates_as_the_command_line_prints() {
        let text = Source::load(b"vs_2_0\r\n\tdcl_position v0\nmov oPos, v0\n").unwrap();
        assert_eq!(
            text.locate("a.asm", Some(0)),
            (
                "a.asm:2:2".to_string(),
                Some("    \tdcl_position v0\n    \t^\n".into())
            )
        );
        assert_eq!(
            text.diagnostic("a.asm", Some(1), Severity::Error, "bad")
                .with_code("V001")
                .to_string(),
            "a.asm:3:1: error[V001]: bad\n    mov oPos, v0\n    ^\n"
        );
        assert_eq!(text.locate("a.asm", None), ("a.asm".to_string(), None));
        let tokens = binary::write_bytes(&text.shader).unwrap();
        let binary = Source::load(&tokens).unwrap();
        assert_eq!(
            binary.locate("a.vso", Some(1)),
            ("a.vso: word 4".to_string(), None)
        );
        assert_eq!(Position::Text { line: 2, col: 5 }.to_string(), "2:5");
    }

    #[test]
    fn holds_at_most_max_instructions() {
        let listing = |n: usize| format!("vs_3_0\n{}", "nop\n".repeat(n));
        // At the limit: loaded, and positions still point at the right lines.
        let at = Source::load(listing(MAX_INSTRUCTIONS).as_bytes()).unwrap();
        assert_eq!(at.shader.instructions.len(), MAX_INSTRUCTIONS);
        assert_eq!(
            at.locate("a.asm", Some(MAX_INSTRUCTIONS - 1)),
            (
                format!("a.asm:{}:1", MAX_INSTRUCTIONS + 1),
                Some("    nop\n    ^\n".into())
            )
        );
        // Past it: an error at the first instruction past the limit, counting them all.
        let past = Source::load(listing(MAX_INSTRUCTIONS + 5).as_bytes()).unwrap_err();
        let SourceError::Parse(e) = past else {
            panic!("{past:?}")
        };
        assert_eq!(
            (e.0.len(), e.0[0].line, e.0[0].col),
            (1, MAX_INSTRUCTIONS + 2, 1)
        );
        assert_eq!(e.0[0].line_text, "nop");
        assert_eq!(
            e.0[0].message,
            format!(
                "the shader has {} instructions; dxso loads at most {MAX_INSTRUCTIONS} \
                 (no valid shader has that many)",
                MAX_INSTRUCTIONS + 5
            )
        );
        // A syntax error anywhere is reported as such, not as the length.
        let bad = format!("{}foo\n", listing(MAX_INSTRUCTIONS + 5));
        assert!(
            matches!(Source::load(bad.as_bytes()), Err(SourceError::Parse(e)) if e.0[0].message.contains("foo"))
        );

        // Bytecode: the version token, one token per nop, the end token.
        let tokens = |n: usize| {
            let mut t = vec![0xFFFE_0300u32];
            t.resize(n + 1, 0);
            t.push(0x0000_FFFF);
            t.iter().flat_map(|t| t.to_le_bytes()).collect::<Vec<u8>>()
        };
        let at = Source::load(&tokens(MAX_INSTRUCTIONS)).unwrap();
        assert_eq!(
            at.position(Some(MAX_INSTRUCTIONS - 1)),
            Some(Position::Word(MAX_INSTRUCTIONS))
        );
        assert_eq!(
            Source::load(&tokens(MAX_INSTRUCTIONS + 2)),
            Err(SourceError::Read(ReadError {
                offset: MAX_INSTRUCTIONS + 1,
                instruction: MAX_INSTRUCTIONS,
                kind: ReadErrorKind::TooManyInstructions {
                    found: MAX_INSTRUCTIONS + 2,
                    limit: MAX_INSTRUCTIONS
                }
            }))
        );
    }

    #[test]
    fn locates_lines_out_of_order_and_past_the_end() {
        let mut c = Cursor::default();
        let text = "a\nbb\r\nccc";
        assert_eq!(c.line_start(text, 3), 6);
        assert_eq!(c.line_start(text, 1), 0);
        assert_eq!(c.line_start(text, 2), 2);
        assert_eq!(c.line_start(text, 9), text.len());
        assert_eq!(line_at(text, 2), "bb");
        assert_eq!(line_at(text, text.len()), "");
    }

    /// The refusal every face prints: each error at its place, then the verdict; text gets
    /// its line and a caret when asked, bytecode its word offsets.
    #[test]
    fn a_rejection_names_each_error_then_the_verdict() {
        let text = Source::load(b"vs_2_0\nmov oPos, v0\n").unwrap();
        let found = crate::validate::diagnostics(&text.shader, &crate::validate::Caps::max());
        assert_eq!(
            text.rejection("a.asm", &found),
            "a.asm:2:1: error[V011]: v0 is used but not declared\n    \
             mov oPos, v0\n    ^\n\
             a.asm: the shader does not validate"
        );
        let tokens = crate::binary::write_bytes(&text.shader).unwrap();
        let binary = Source::load(&tokens).unwrap();
        assert_eq!(
            binary.rejection("a.vso", &found),
            "a.vso: word 1: error[V011]: v0 is used but not declared\n\
             a.vso: the shader does not validate"
        );
    }
}
