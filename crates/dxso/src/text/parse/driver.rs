//! The driver: the text cut into logical lines, each a directive (`#define`), a comment
//! block, the version or a statement; errors collected at their line and column.

use super::cursor::{Cursor, LineResult};
use super::error::{MAX_PARSE_ERRORS, ParseError, ParseErrors, Span};
use super::instruction::{parse_version, statement};
use crate::ir::*;
use crate::opcodes::Opcode;
use crate::text::preprocess::{Macros, blank_block_comments, logical_lines};
use crate::text::print::COMMENT_DIRECTIVE;

/// Assemble `source` into IR.
pub fn parse(source: &str) -> Result<Shader, ParseErrors> {
    parse_with_spans(source).map(|(shader, _)| shader)
}

/// Assemble `source` into IR, with the position of each instruction (for diagnostics).
pub fn parse_with_spans(source: &str) -> Result<(Shader, Vec<Span>), ParseErrors> {
    let mut instructions = Vec::new();
    let mut spans = Vec::new();
    let version = parse_each(source, |_, inst, span| {
        instructions.push(inst);
        spans.push(span);
    })?;
    Ok((
        Shader {
            version,
            instructions,
        },
        spans,
    ))
}

/// Assemble `source` one statement at a time, handing each instruction and its position
/// (with the shader's version, known from the first statement) to `each` as soon as it is
/// parsed instead of collecting them (as `dxso asm` encodes a large
/// listing); returns the shader's version. The instructions handed over are those
/// [`parse_with_spans`] returns, in order; when this returns `Err` the caller drops what it
/// was given.
///
/// ```
/// let mut opcodes = Vec::new();
/// let version = dxso::text::parse_each("vs_2_0\nnop\nnop\n", |_, inst, span| {
///     opcodes.push((inst.opcode, span.line));
/// });
/// assert_eq!(version, Ok(dxso::Version::vs(2, 0)));
/// assert_eq!(opcodes, [(dxso::opcodes::Opcode::Nop, 2), (dxso::opcodes::Opcode::Nop, 3)]);
/// ```
pub fn parse_each(
    source: &str,
    mut each: impl FnMut(Version, Instruction, Span),
) -> Result<Version, ParseErrors> {
    let source = source.split('\0').next().unwrap_or("");
    let (source, unterminated) = blank_block_comments(source);
    let source = &*source;
    let mut p = Parser {
        version: None,
        each: &mut each,
        errors: Vec::new(),
        macros: Macros::default(),
        not_shown: 0,
    };
    for (number, text) in logical_lines(source) {
        p.line(number, &text);
    }
    if let Some(u) = unterminated {
        p.errors.push(ParseError {
            line: u.line,
            col: u.col,
            message: "unterminated /* comment (no */ follows)".into(),
            line_text: u.line_text,
        });
    }
    if p.not_shown > 0 {
        let line = p.errors.last().map_or(1, |e| e.line);
        p.errors.push(ParseError {
            line,
            col: 1,
            message: format!(
                "{} more errors not shown (limit MAX_PARSE_ERRORS = {MAX_PARSE_ERRORS})",
                p.not_shown
            ),
            line_text: String::new(),
        });
    }
    let Some(version) = p.version else {
        if p.errors.is_empty() {
            p.errors.push(ParseError {
                line: 1,
                col: 1,
                message: "no shader version statement (such as vs_3_0)".into(),
                line_text: source.lines().next().unwrap_or("").into(),
            });
        }
        return Err(ParseErrors(p.errors));
    };
    if !p.errors.is_empty() {
        return Err(ParseErrors(p.errors));
    }
    Ok(version)
}

struct Parser<'s> {
    version: Option<Version>,
    /// Where each parsed instruction goes, with its span.
    each: &'s mut dyn FnMut(Version, Instruction, Span),
    errors: Vec<ParseError>,
    macros: Macros,
    /// Errors past [`MAX_PARSE_ERRORS`], counted only.
    not_shown: usize,
}

impl Parser<'_> {
    fn line(&mut self, number: usize, raw: &str) {
        let trimmed = raw.trim_start();
        if let Some(rest) = trimmed.strip_prefix('#') {
            if let Err((col, message)) = self.directive(rest) {
                let col = col + raw.len() - rest.len();
                self.error(number, col, message, raw);
            }
            return;
        }
        if let Some(words) = trimmed.strip_prefix(COMMENT_DIRECTIVE) {
            self.comment_block(number, raw, words);
            return;
        }
        let code = strip_comment(raw);
        if code.trim().is_empty() {
            return;
        }
        let text = match self.macros.expand(code) {
            Ok(text) => text,
            Err((col, message)) => return self.error(number, col, message, code),
        };
        let mut cur = Cursor::new(&text);
        let result = match self.version {
            None => parse_version(&mut cur).map(|v| {
                self.version = Some(v);
            }),
            Some(v) => statement(&mut cur, v).map(|inst| {
                let col = text.len() - text.trim_start().len() + 1;
                (self.each)(v, inst, Span { line: number, col });
            }),
        };
        if let Err((col, message)) = result {
            self.error(number, col, message, &text);
        }
    }

    fn error(&mut self, line: usize, col: usize, message: String, text: &str) {
        if self.errors.len() >= MAX_PARSE_ERRORS {
            self.not_shown += 1;
            return;
        }
        self.errors.push(ParseError {
            line,
            col: col + 1,
            message,
            line_text: text.trim_end().to_string(),
        });
    }

    fn directive(&mut self, rest: &str) -> LineResult<()> {
        let mut cur = Cursor::new(rest);
        cur.ws();
        let name = cur
            .ident()
            .ok_or_else(|| (cur.pos, "expected a directive name".to_string()))?;
        match name {
            "define" => {
                cur.ws();
                let at = cur.pos;
                let macro_name = cur
                    .ident()
                    .ok_or_else(|| (at, "expected a macro name after #define".to_string()))?;
                if cur.peek() == Some(b'(') {
                    return Err((cur.pos, "function-like macros are not supported".into()));
                }
                let body = strip_comment(cur.rest()).trim();
                self.macros.define(macro_name, body);
            }
            "undef" => {
                cur.ws();
                let name = cur.ident().unwrap_or("");
                self.macros.undef(name);
            }
            "line" => {}
            other => return Err((0, format!("unsupported preprocessor directive #{other}"))),
        }
        Ok(())
    }

    fn comment_block(&mut self, number: usize, raw: &str, words: &str) {
        let data = strip_comment(words);
        let mut imm = Vec::new();
        for w in data.split_whitespace() {
            match u32::from_str_radix(w.trim_start_matches("0x"), 16) {
                Ok(v) => imm.push(v),
                Err(_) => {
                    let col = raw.find(w).unwrap_or(0);
                    self.error(number, col, format!("'{w}' is not a hex DWORD"), raw);
                    return;
                }
            }
        }
        let Some(version) = self.version else {
            self.error(number, 0, "comment block before the version".into(), raw);
            return;
        };
        let mut inst = Instruction::new(Opcode::Comment);
        inst.imm = imm;
        let col = raw.len() - raw.trim_start().len() + 1;
        (self.each)(version, inst, Span { line: number, col });
    }
}

fn strip_comment(s: &str) -> &str {
    let cut = [s.find("//"), s.find(';')].into_iter().flatten().min();
    match cut {
        Some(i) => &s[..i],
        None => s,
    }
}
