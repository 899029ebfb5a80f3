//! Assembly text -> IR: the syntax Microsoft's assembler accepts.
//!
//! One statement per line. `//` and `;` start comments; `/* ... */` block comments may stand
//! wherever white space may, on one line or across lines. A small preprocessor handles
//! object-like `#define`, `#undef`, `#line` (ignored) and `\` line continuation. The text
//! ends at a NUL byte. The assembler also makes the checks an assembler makes (registers that
//! exist in the version, modifiers the version has, operand counts); the validator makes the
//! rest.

pub use super::preprocess::{MAX_MACRO_DEPTH, MAX_MACRO_EXPANSION};
use super::preprocess::{Macros, blank_block_comments, is_ident, is_ident_start, logical_lines};
use super::print::COMMENT_DIRECTIVE;
use crate::ir::*;
use crate::opcodes::{Layout, Opcode};
use crate::registers::{file_size, parse_register_name, register_name};
use crate::report::{Diagnostic, Report, Severity, Snippet};
use crate::source::Position;
use std::fmt;

/// The most errors one text reports; past it the rest are counted in one last error
/// ("N more errors not shown").
pub const MAX_PARSE_ERRORS: usize = 100;

/// One problem in the text, at a 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// What is wrong, in a sentence.
    pub message: String,
    /// The source line the error points into (after preprocessing).
    pub line_text: String,
}

/// Every problem found in a text, in line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseErrors(pub Vec<ParseError>);

impl std::error::Error for ParseErrors {}

impl fmt::Display for ParseErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{}:{}: error: {}", e.line, e.col, e.message)?;
        }
        Ok(())
    }
}

impl ParseErrors {
    /// Each error as a diagnostic: `FILE:LINE:COL: error: MESSAGE`, the source line, and a
    /// caret under the column.
    pub fn report(&self, file: &str) -> Report {
        let mut report = Report::default();
        for e in &self.0 {
            report.push(Diagnostic {
                position: Some(Position::Text {
                    line: e.line,
                    col: e.col,
                }),
                snippet: (!e.line_text.is_empty()).then(|| Snippet {
                    line: e.line_text.clone(),
                    col: e.col,
                }),
                ..Diagnostic::new(file, Severity::Error, &e.message)
            });
        }
        report
    }

    /// [`ParseErrors::report`] as plain text; each line ends with a newline.
    pub fn render(&self, file: &str) -> String {
        self.report(file).render()
    }
}

/// Where an instruction came from in the text: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
}

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

type LineResult<T> = Result<T, (usize, String)>;

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

struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str) -> Self {
        Cursor { s, pos: 0 }
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')) {
            self.pos += 1;
        }
    }
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.pos).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8, what: &str) -> LineResult<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err((self.pos, format!("expected {what}")))
        }
    }
    fn ident(&mut self) -> Option<&'a str> {
        let start = self.pos;
        if !self.peek().is_some_and(is_ident_start) {
            return None;
        }
        while self.peek().is_some_and(is_ident) {
            self.pos += 1;
        }
        Some(&self.s[start..self.pos])
    }
    /// A token of identifier characters, digits allowed first (`2d`, swizzle letters).
    fn word(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(is_ident) {
            self.pos += 1;
        }
        &self.s[start..self.pos]
    }
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.s.len()
    }
    /// A numeric literal as written: digits, `.`, exponent, `f` suffix, or `0x` hex.
    fn number(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.pos;
        let b = self.s.as_bytes();
        if self.rest().starts_with("0x") || self.rest().starts_with("0X") {
            self.pos += 2;
            while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            return Some(&self.s[start..self.pos]);
        }
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == b'.') {
            self.pos += 1;
        }
        if self.pos == start {
            return None;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if b.get(self.pos).is_some_and(|c| c.is_ascii_digit()) {
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
            } else {
                self.pos = save;
            }
        }
        if matches!(self.peek(), Some(b'f' | b'F')) {
            self.pos += 1;
        }
        Some(&self.s[start..self.pos])
    }
}

fn parse_version(cur: &mut Cursor) -> LineResult<Version> {
    cur.ws();
    let start = cur.pos;
    let text: String = cur
        .rest()
        .trim_end()
        .chars()
        .map(|c| {
            if c == '.' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    let bad = || {
        (
            start,
            format!(
                "expected a shader version such as vs_3_0, found '{}'",
                cur.rest().trim_end()
            ),
        )
    };
    let parts: Vec<&str> = text.split('_').collect();
    let [kind, major, minor] = parts[..] else {
        return Err(bad());
    };
    let kind = match kind {
        "vs" => ShaderKind::Vertex,
        "ps" => ShaderKind::Pixel,
        _ => return Err(bad()),
    };
    let major: u8 = major.parse().map_err(|_| bad())?;
    let minor: u8 = match minor {
        "x" if major == 2 => 1,
        "sw" => 0xFF,
        m if m.len() == 1 => m.parse().map_err(|_| bad())?,
        _ => return Err(bad()),
    };
    let v = Version::new(kind, major, minor);
    if !v.is_known() || v.number() == 0x201 && minor != 1 {
        return Err((
            start,
            format!("unsupported shader version {}", cur.rest().trim()),
        ));
    }
    cur.pos = cur.s.len();
    Ok(v)
}

fn statement(cur: &mut Cursor, version: Version) -> LineResult<Instruction> {
    cur.ws();
    let coissue = cur.eat(b'+');
    if coissue && !(version.is_pixel() && version.major < 2) {
        let what = if version.is_vertex() {
            "vertex shaders"
        } else {
            "pixel shaders from ps_2_0 on"
        };
        return Err((
            cur.pos - 1,
            format!("co-issue (+) is not supported in {what}"),
        ));
    }
    let mut predicate = None;
    if cur.eat(b'(') {
        let p = src_operand(cur, version)?;
        if p.reg.kind != RegisterKind::Predicate {
            return Err((cur.pos, "a predicate must be p0".into()));
        }
        cur.expect(b')', "')' after the predicate")?;
        predicate = Some(p);
    }
    cur.ws();
    let at = cur.pos;
    let mnemonic = cur
        .ident()
        .ok_or_else(|| (at, "expected an instruction".to_string()))?;
    let parts: Vec<&str> = mnemonic.split('_').collect();
    let stem = parts[0].to_ascii_lowercase();
    if stem == "dcl" {
        if predicate.is_some() || coissue {
            return Err((at, "dcl cannot be predicated or co-issued".into()));
        }
        return dcl(cur, version, &parts[1..], at);
    }
    let mut rest = &parts[1..];
    let mut comparison = None;
    if Opcode::stem_takes_comparison(&stem)
        && let Some(c) = rest.first().and_then(|s| Comparison::from_name(s))
    {
        comparison = Some(c);
        rest = &rest[1..];
    }
    let Some((opcode, mut control)) = Opcode::lookup(&stem, comparison.is_some()) else {
        return Err((at, format!("unknown instruction '{mnemonic}'")));
    };
    if let Some(c) = comparison {
        control = c as u8;
    }
    if !opcode.exists_in(version) {
        return Err((
            at,
            format!(
                "'{}' is not available in {version}",
                opcode.mnemonic(control, version)
            ),
        ));
    }
    let (modifiers, shift) = result_modifiers(rest, version, at)?;
    let info = opcode.info();
    if (info.flow || !info.layout.has_dst()) && (modifiers != 0 || shift != 0) {
        return Err((at, format!("'{mnemonic}' takes no instruction modifier")));
    }
    let mut inst = Instruction::new(opcode);
    inst.control = control;
    inst.coissue = coissue;
    inst.predicate = predicate;
    if info.layout.has_dst() {
        let mut d = dst_operand(cur, version)?;
        d.modifiers = modifiers;
        d.shift = shift;
        inst.dst = Some(d);
    }
    match info.layout {
        Layout::Def | Layout::DefI | Layout::DefB => {
            def_values(cur, &mut inst, version)?;
        }
        _ => {
            let first = inst.dst.is_none();
            let mut n = 0;
            loop {
                if n == 0 && first {
                    if cur.at_end() {
                        break;
                    }
                } else if !cur.eat(b',') {
                    break;
                }
                inst.srcs.push(src_operand(cur, version)?);
                n += 1;
            }
            if !cur.at_end() {
                return Err((cur.pos, format!("unexpected '{}'", cur.rest().trim())));
            }
            let counts = info.layout.src_counts(version);
            if !counts.contains(&(n as u8)) {
                let word = if (n as u8) > counts[0] {
                    "too many"
                } else {
                    "too few"
                };
                return Err((
                    at,
                    format!(
                        "{word} source operands for {}: {n} given, {} expected",
                        opcode.mnemonic(control, version),
                        counts
                            .iter()
                            .map(|c| c.to_string())
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                ));
            }
        }
    }
    // Peak memory: a listing's IR holds every instruction; its sources get an allocation of
    // their size (a `Vec` grows to four at its first push, and shrinking it in place would
    // leave the rest of its block unused).
    inst.srcs = inst.srcs.to_vec();
    Ok(inst)
}

/// Result modifiers (`_sat`, `_pp`, `_centroid`) and a shift (`_x2` .. `_d8`).
fn result_modifiers(parts: &[&str], version: Version, at: usize) -> LineResult<(u8, u8)> {
    let mut modifiers = 0u8;
    let mut shift = 0u8;
    for part in parts {
        let lower = part.to_ascii_lowercase();
        let flag = match lower.as_str() {
            "sat" => RESULT_SATURATE,
            "pp" => RESULT_PARTIAL_PRECISION,
            "centroid" => RESULT_CENTROID,
            "x2" | "x4" | "x8" | "d2" | "d4" | "d8" => {
                if shift != 0 {
                    return Err((at, "only one shift modifier is allowed".into()));
                }
                if !(version.is_pixel() && version.major < 2) {
                    return Err((
                        at,
                        format!("shift modifier _{lower} is not available in {version}"),
                    ));
                }
                shift = match lower.as_str() {
                    "x2" => 1,
                    "x4" => 2,
                    "x8" => 3,
                    "d2" => 15,
                    "d4" => 14,
                    _ => 13,
                };
                continue;
            }
            _ => return Err((at, format!("unknown instruction modifier _{part}"))),
        };
        if flag != RESULT_SATURATE && version.is_vertex() {
            return Err((
                at,
                format!("modifier _{lower} is not allowed in vertex shaders"),
            ));
        }
        modifiers |= flag;
    }
    Ok((modifiers, shift))
}

fn dcl(cur: &mut Cursor, version: Version, parts: &[&str], at: usize) -> LineResult<Instruction> {
    enum What {
        None,
        Sampler(TextureType),
        Usage(Usage, u8),
    }
    let mut what = What::None;
    let mut mods = parts;
    if let Some(first) = parts.first() {
        let lower = first.to_ascii_lowercase();
        let texture = match lower.as_str() {
            "2d" => Some(TextureType::TwoD),
            "cube" => Some(TextureType::Cube),
            "volume" => Some(TextureType::Volume),
            "1d" => Some(TextureType::OneD),
            _ => None,
        };
        if let Some(t) = texture {
            what = What::Sampler(t);
            mods = &parts[1..];
        } else {
            let digits = lower.len() - lower.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            let (name, index) = lower.split_at(lower.len() - digits);
            if let Some(u) = Usage::from_name(name) {
                let index: u32 = if index.is_empty() {
                    0
                } else {
                    index.parse().unwrap_or(u32::MAX)
                };
                if index > 15 {
                    return Err((at, format!("usage index {index} is larger than 15")));
                }
                what = What::Usage(u, index as u8);
                mods = &parts[1..];
            } else if !matches!(name, "pp" | "centroid" | "sat" | "x2" | "x4" | "d2") {
                return Err((at, format!("unknown dcl usage '{first}'")));
            }
        }
    }
    let (modifiers, shift) = result_modifiers(mods, version, at)?;
    if version.is_vertex() && (modifiers != 0 || shift != 0) {
        return Err((at, "dcl takes no modifier in a vertex shader".into()));
    }
    if modifiers & RESULT_SATURATE != 0 || shift != 0 {
        return Err((at, "dcl takes only _pp and _centroid".into()));
    }
    let mut d = dst_operand(cur, version)?;
    d.modifiers = modifiers;
    if !cur.at_end() {
        return Err((cur.pos, format!("unexpected '{}'", cur.rest().trim())));
    }
    let kind = d.reg.kind;
    let decl = match what {
        What::Sampler(t) => {
            if kind != RegisterKind::Sampler {
                return Err((at, "a sampler type is declared for a sampler (s#)".into()));
            }
            Decl::sampler(t)
        }
        What::Usage(u, index) => {
            let ok = match kind {
                RegisterKind::Input => version.is_vertex() || version.major >= 3,
                RegisterKind::Output => true,
                _ => false,
            };
            if !ok {
                return Err((
                    at,
                    format!(
                        "a usage cannot be declared for {} in {version}",
                        register_name(kind, d.reg.number)
                    ),
                ));
            }
            Decl::semantic(u, index)
        }
        What::None => {
            let ok = match kind {
                RegisterKind::Input | RegisterKind::Texture => version.is_pixel(),
                RegisterKind::MiscType | RegisterKind::Sampler => true,
                _ => false,
            };
            if !ok {
                return Err((at, "dcl needs a usage here, such as dcl_texcoord0".into()));
            }
            Decl::semantic(Usage::Position, 0)
        }
    };
    let mut inst = Instruction::new(Opcode::Dcl);
    inst.decl = Some(decl);
    inst.dst = Some(d);
    if !Opcode::Dcl.exists_in(version) {
        return Err((at, format!("dcl is not available in {version}")));
    }
    Ok(inst)
}

fn def_values(cur: &mut Cursor, inst: &mut Instruction, version: Version) -> LineResult<()> {
    let layout = inst.opcode.info().layout;
    let dst = inst.dst.expect("def has a destination");
    let want = match layout {
        Layout::Def => RegisterKind::Const,
        Layout::DefI => RegisterKind::ConstInt,
        _ => RegisterKind::ConstBool,
    };
    if dst.reg.kind != want || dst.relative.is_some() || dst.mask != WriteMask::ALL {
        return Err((
            0,
            format!(
                "{} defines a {} register",
                inst.opcode.info().mnemonic,
                register_name(want, 0).trim_end_matches('0')
            ),
        ));
    }
    let _ = version;
    for _ in 0..layout.imm_count() {
        cur.expect(b',', "','")?;
        cur.ws();
        let at = cur.pos;
        let value = match layout {
            Layout::DefB => {
                let w = cur.word().to_ascii_lowercase();
                match w.as_str() {
                    "true" => 1,
                    "false" => 0,
                    n => n
                        .parse::<u32>()
                        .map_err(|_| (at, format!("expected true or false, found '{w}'")))?,
                }
            }
            _ => {
                let neg = cur.eat(b'-');
                cur.ws();
                let at = cur.pos;
                let lit = cur
                    .number()
                    .ok_or_else(|| (at, "expected a number".to_string()))?;
                if layout == Layout::DefI {
                    if lit.contains(['.', 'e', 'E', 'f', 'x']) {
                        return Err((at, format!("defi takes integers, found '{lit}'")));
                    }
                    let v: i64 = lit
                        .parse()
                        .map_err(|_| (at, format!("bad integer '{lit}'")))?;
                    let v = if neg { -v } else { v };
                    if v < i32::MIN as i64 || v > u32::MAX as i64 {
                        return Err((at, format!("{v} does not fit in 32 bits")));
                    }
                    v as i32 as u32
                } else {
                    let bits = if let Some(hex) =
                        lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X"))
                    {
                        u32::from_str_radix(hex, 16)
                            .map_err(|_| (at, format!("bad hex value '{lit}'")))?
                    } else {
                        let digits = lit.trim_end_matches(['f', 'F']);
                        digits
                            .parse::<f32>()
                            .map_err(|_| (at, format!("bad number '{lit}'")))?
                            .to_bits()
                    };
                    if neg { bits ^ 0x8000_0000 } else { bits }
                }
            }
        };
        inst.imm.push(value);
    }
    if !cur.at_end() {
        return Err((cur.pos, format!("unexpected '{}'", cur.rest().trim())));
    }
    Ok(())
}

/// A register name with an optional `[index]`, checked against the version.
fn register_operand(
    cur: &mut Cursor,
    version: Version,
) -> LineResult<(Register, Option<Relative>, Vec<String>)> {
    cur.ws();
    let at = cur.pos;
    let word = cur.ident().ok_or_else(|| {
        (
            at,
            format!("expected a register, found '{}'", cur.rest().trim()),
        )
    })?;
    let mut pieces = word.split('_');
    let name = pieces.next().unwrap_or("");
    let mut suffixes: Vec<String> = pieces.map(|s| s.to_ascii_lowercase()).collect();
    let (kind, number) = parse_register_name(name, version)
        .ok_or_else(|| (at, format!("'{name}' is not a register of {version}")))?;
    let mut offset = 0u32;
    let mut relative = None;
    if cur.peek() == Some(b'[') {
        cur.pos += 1;
        let (off, rel) = index_expression(cur, version)?;
        offset = off;
        relative = rel;
        modifier_suffixes(cur, &mut suffixes);
    } else if number.is_none() {
        return Err((at, format!("register '{name}' needs a number")));
    }
    let number = number.unwrap_or(0).saturating_add(offset);
    let reg = Register::new(kind, number);
    let exists = file_size(version, kind)
        .is_some_and(|size| number <= kind.max_number() && (relative.is_some() || number < size));
    if !exists {
        let shown = register_name(kind, number);
        return Err((at, format!("register {shown} does not exist in {version}")));
    }
    if let Some(rel) = relative {
        check_relative(kind, rel, version).map_err(|m| (at, m))?;
    }
    Ok((reg, relative, suffixes))
}

/// `_abs`, `_bx2`, ... written after a `]` or a swizzle.
fn modifier_suffixes(cur: &mut Cursor, suffixes: &mut Vec<String>) {
    if cur.peek() == Some(b'_') {
        let more = cur.ident().unwrap_or("");
        suffixes.extend(
            more.split('_')
                .filter(|s| !s.is_empty())
                .map(str::to_ascii_lowercase),
        );
    }
}

/// The part inside `[...]`: integers and at most one of `a0.c` / `aL`, joined by `+`.
fn index_expression(cur: &mut Cursor, version: Version) -> LineResult<(u32, Option<Relative>)> {
    let mut offset = 0u32;
    let mut rel: Option<Relative> = None;
    loop {
        cur.ws();
        let at = cur.pos;
        match cur.peek() {
            Some(c) if c.is_ascii_digit() => {
                let lit = cur.number().unwrap_or("");
                let n: u32 = lit
                    .parse()
                    .map_err(|_| (at, format!("'{lit}' is not an integer register offset")))?;
                offset = offset.saturating_add(n);
            }
            Some(c) if is_ident_start(c) => {
                let name = cur.ident().unwrap_or("");
                let (kind, number) = parse_register_name(name, version)
                    .ok_or_else(|| (at, format!("'{name}' is not a register of {version}")))?;
                let mut swizzle = Swizzle::IDENTITY;
                if cur.peek() == Some(b'.') {
                    cur.pos += 1;
                    swizzle = parse_swizzle(cur)?;
                }
                match kind {
                    RegisterKind::Addr if number == Some(0) => {}
                    RegisterKind::Loop => {
                        if swizzle != Swizzle::IDENTITY {
                            return Err((at, "aL takes no swizzle".into()));
                        }
                    }
                    _ => {
                        return Err((
                            at,
                            format!("'{name}' cannot be used as an index (only a0 and aL)"),
                        ));
                    }
                }
                if file_size(version, kind).is_none() {
                    return Err((at, format!("register {name} does not exist in {version}")));
                }
                if rel.is_some() {
                    return Err((at, "only one index register is allowed".into()));
                }
                rel = Some(Relative {
                    reg: Register::new(kind, 0),
                    swizzle,
                });
            }
            _ => return Err((at, "expected an integer, a0 or aL in the index".into())),
        }
        cur.ws();
        match cur.peek() {
            Some(b'+') => cur.pos += 1,
            Some(b']') => {
                cur.pos += 1;
                return Ok((offset, rel));
            }
            Some(b'-') => {
                return Err((cur.pos, "'-' is not allowed in a register index".into()));
            }
            _ => return Err((cur.pos, "expected '+' or ']' in the register index".into())),
        }
    }
}

/// Which files may be indexed, and by what (registers.md §6; the assembler's view).
fn check_relative(kind: RegisterKind, rel: Relative, version: Version) -> Result<(), String> {
    use RegisterKind::*;
    let n = version.number();
    let allowed = if version.is_vertex() {
        match kind {
            Const => true,
            Input | Output => n >= 0x300,
            _ => false,
        }
    } else {
        n >= 0x300 && matches!(kind, Input | Const)
    };
    if !allowed {
        return Err(format!(
            "{} registers cannot be relatively addressed in {version}",
            register_name(kind, 0).trim_end_matches('0')
        ));
    }
    if !version.has_length() && rel.swizzle != Swizzle::replicate(0) {
        return Err(format!("only a0.x can index registers in {version}"));
    }
    Ok(())
}

fn dst_operand(cur: &mut Cursor, version: Version) -> LineResult<Dst> {
    let at = cur.pos;
    let (reg, relative, suffixes) = register_operand(cur, version)?;
    if let Some(s) = suffixes.first() {
        return Err((at, format!("source modifier _{s} on a destination")));
    }
    let mut d = Dst::new(reg);
    d.relative = relative;
    if cur.peek() == Some(b'.') {
        cur.pos += 1;
        d.mask = parse_mask(cur)?;
    }
    Ok(d)
}

fn src_operand(cur: &mut Cursor, version: Version) -> LineResult<Src> {
    cur.ws();
    let start = cur.pos;
    let not = cur.eat(b'!');
    let neg = cur.eat(b'-');
    cur.ws();
    let mut comp = false;
    if cur.peek().is_some_and(|c| c.is_ascii_digit()) {
        let at = cur.pos;
        let lit = cur.number().unwrap_or("");
        if lit != "1" {
            return Err((at, format!("invalid source modifier '{lit} -'")));
        }
        cur.expect(b'-', "'-' after '1' (the complement modifier 1 - r#)")?;
        comp = true;
    }
    let (reg, relative, mut suffixes) = register_operand(cur, version)?;
    let mut swizzle = Swizzle::IDENTITY;
    if cur.peek() == Some(b'.') {
        cur.pos += 1;
        swizzle = parse_swizzle(cur)?;
    }
    modifier_suffixes(cur, &mut suffixes);
    let pixel1 = version.is_pixel() && version.major < 2;
    let mut base = SrcModifier::None;
    for s in &suffixes {
        let (m, ok) = match s.as_str() {
            "abs" => (
                SrcModifier::Abs,
                version.number() >= if version.is_vertex() { 0x300 } else { 0x200 },
            ),
            "bias" => (SrcModifier::Bias, pixel1),
            "bx2" => (SrcModifier::Sign, pixel1),
            "x2" => (SrcModifier::X2, pixel1),
            "dz" | "db" => (
                SrcModifier::Dz,
                version.number() == 0x104 && version.is_pixel(),
            ),
            "dw" | "da" => (
                SrcModifier::Dw,
                version.number() == 0x104 && version.is_pixel(),
            ),
            _ => return Err((start, format!("unknown source modifier _{s}"))),
        };
        if !ok {
            return Err((
                start,
                format!("source modifier _{s} is not available in {version}"),
            ));
        }
        if base != SrcModifier::None {
            return Err((start, "only one source modifier is allowed".into()));
        }
        base = m;
    }
    if comp {
        if !pixel1 {
            return Err((
                start,
                format!("the complement modifier (1 - r#) is not available in {version}"),
            ));
        }
        if neg || base != SrcModifier::None {
            return Err((
                start,
                "the complement modifier takes no other modifier".into(),
            ));
        }
        base = SrcModifier::Comp;
    }
    if not {
        if !matches!(reg.kind, RegisterKind::ConstBool | RegisterKind::Predicate) {
            return Err((start, "'!' applies only to b# and p0".into()));
        }
        if neg || base != SrcModifier::None {
            return Err((start, "'!' takes no other modifier".into()));
        }
        base = SrcModifier::Not;
    }
    let modifier = base
        .with_negate(neg)
        .ok_or_else(|| (start, format!("negation cannot be combined with {base:?}")))?;
    Ok(Src {
        reg,
        swizzle,
        modifier,
        relative,
    })
}

fn component(c: u8) -> Option<u8> {
    match c.to_ascii_lowercase() {
        b'x' | b'r' => Some(0),
        b'y' | b'g' => Some(1),
        b'z' | b'b' => Some(2),
        b'w' | b'a' => Some(3),
        _ => None,
    }
}

fn parse_swizzle(cur: &mut Cursor) -> LineResult<Swizzle> {
    let at = cur.pos;
    let w = cur.word();
    let comps: Option<Vec<u8>> = w.bytes().map(component).collect();
    match comps {
        Some(c) if (1..=4).contains(&c.len()) => {
            let last = *c.last().expect("non-empty");
            let mut full = [last; 4];
            full[..c.len()].copy_from_slice(&c);
            Ok(Swizzle::from_components(full))
        }
        _ => Err((at, format!("invalid swizzle '.{w}'"))),
    }
}

fn parse_mask(cur: &mut Cursor) -> LineResult<WriteMask> {
    let at = cur.pos;
    let w = cur.word();
    let mut mask = 0u8;
    let mut last: i32 = -1;
    for b in w.bytes() {
        match component(b) {
            Some(c) if c as i32 > last => {
                mask |= 1 << c;
                last = c as i32;
            }
            _ => return Err((at, format!("invalid write mask '.{w}'"))),
        }
    }
    if mask == 0 {
        return Err((at, format!("invalid write mask '.{w}'")));
    }
    Ok(WriteMask(mask))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binary::write;

    fn tokens(src: &str) -> Vec<u32> {
        write(&parse(src).unwrap_or_else(|e| panic!("{src}: {e}"))).unwrap()
    }

    #[test]
    fn assembles_relative_forms() {
        assert_eq!(
            tokens("vs_2_0\nmov r0, -c0[a0.w+5].x\n")[1..4],
            [0x03000001, 0x800F0000, 0xA1002005]
        );
        assert_eq!(tokens("vs_1_1\nmov r0, c[ 2 + a0.x + 12 ]")[3], 0xA0E4200E);
        assert_eq!(
            tokens("vs_3_0\nmov r0, c0[aL]")[3..5],
            [0xA0E42000, 0xF0E40800]
        );
    }

    #[test]
    fn collects_every_error_with_its_position() {
        let e = parse("vs_3_0\nfoo r0, r1\nmov r0.xxyz, r1\nmov r0, v17\n").unwrap_err();
        assert_eq!(e.0.len(), 3);
        assert_eq!((e.0[0].line, e.0[0].col), (2, 1));
        assert_eq!((e.0[1].line, e.0[1].col), (3, 8));
        assert!(e.0[2].message.contains("v17"), "{}", e.0[2].message);
        let shown = e.render("x.asm");
        assert!(
            shown.starts_with(
                "x.asm:2:1: error: unknown instruction 'foo'\n    foo r0, r1\n    ^\n"
            ),
            "{shown}"
        );
    }

    #[test]
    fn floats_as_people_write_them() {
        let t = tokens(
            "vs_3_0\ndef c0, 1.0f, 0., -1.5e-05, 3.40282e+38\ndef c1, -0.0, .5, 1e2, 0x7fc00000",
        );
        assert_eq!(
            t[3..7],
            [
                0x3F800000,
                0,
                (-1.5e-05f32).to_bits(),
                3.40282e38f32.to_bits()
            ]
        );
        assert_eq!(
            t[9..13],
            [0x80000000, 0x3F000000, 100f32.to_bits(), 0x7FC00000]
        );
    }

    #[test]
    fn preprocessor_and_line_endings() {
        let t = tokens(
            "#define R r1\r\n#define TWO \\\n 2\nvs_2_0 ; comment\r\nmov r0, R // c\nmov r0, c[TWO]\0garbage",
        );
        assert_eq!(t[3], 0x80E40001);
        assert_eq!(t[6], 0xA0E40002);
    }

    #[test]
    fn block_comments_stand_where_white_space_may() {
        let plain = tokens("vs_2_0\nmov r0, c1\nadd r1, r0, c2\n");
        // Between two instructions, across lines.
        assert_eq!(
            tokens("vs_2_0\nmov r0, c1\n/* one\n   two\n*/\nadd r1, r0, c2\n"),
            plain
        );
        // Inside one line, between operands and around the comma.
        assert_eq!(
            tokens("vs_2_0 /* v */\nmov /*a*/ r0 /*b*/, /*c*/c1/*d*/\nadd r1,r0/**/,c2\n"),
            plain
        );
        // Starting inside an instruction line and ending inside the next one.
        assert_eq!(
            tokens("vs_2_0\nmov r0, c1 /* from here\n to here */ add r1, r0, c2\n"),
            plain
        );
        // `/*` inside a line comment starts nothing; `//` inside a block comment is comment.
        assert_eq!(
            tokens("vs_2_0\nmov r0, c1 // not /* a block\n/* // */ add r1, r0, c2\n"),
            plain
        );
        // A comment in a #define body.
        assert_eq!(
            tokens("#define SRC /* the constant */ c1\nvs_2_0\nmov r0, SRC\nadd r1, r0, c2\n"),
            plain
        );
    }

    #[test]
    fn block_comments_keep_later_positions() {
        // Two lines of comment before the bad register: still line 4, column 9.
        let e = parse("vs_3_0\n/* a\n b */ mov r0, c0\nmov r0, v17 /* x */\n").unwrap_err();
        assert_eq!((e.0[0].line, e.0[0].col), (4, 9), "{e}");
        // A comment earlier on the same line keeps the column of what follows.
        let e = parse("vs_3_0\n/* comment */ mov r0, v17\n").unwrap_err();
        assert_eq!((e.0[0].line, e.0[0].col), (2, 23), "{e}");
    }

    #[test]
    fn an_unterminated_block_comment_is_an_error_at_its_start() {
        let e = parse("vs_3_0\nmov r0, c0\n  add r0, r0, c1 /* never closed\nmov r1, c0\n")
            .unwrap_err();
        assert_eq!(e.0.len(), 1, "{e}");
        assert_eq!((e.0[0].line, e.0[0].col), (3, 18));
        assert!(e.0[0].message.contains("unterminated"), "{e}");
        assert_eq!(e.0[0].line_text, "  add r0, r0, c1 /* never closed");
    }

    #[test]
    fn macros_expand_as_in_c_with_bounded_work() {
        // Macros use macros; a name is not expanded inside its own expansion.
        let t = tokens("#define S T\n#define T r2\nvs_2_0\nmov r0, S\n");
        assert_eq!(t[3], 0x80E40002);
        let e = parse("#define R R\nvs_2_0\nmov R, r1\n").unwrap_err();
        assert!(
            e.0[0].message.contains("R") && !e.0[0].message.contains("MAX_"),
            "{e}"
        );
        // Digits glued to letters are one word (`1e2` is a number, not `1` then `e2`).
        let t = tokens("#define e2 junk\nvs_2_0\ndef c0, 1e2, 0, 0, 0\n");
        assert_eq!(t[3], 100f32.to_bits());

        // A chain of MAX_MACRO_DEPTH macros expands; one more is an error at the name.
        let chain = |n: usize| {
            let mut src = "#define m0 r3\n".to_string();
            for k in 1..n {
                src.push_str(&format!("#define m{k} m{}\n", k - 1));
            }
            src + &format!("vs_2_0\nmov r0, m{}\n", n - 1)
        };
        assert_eq!(tokens(&chain(MAX_MACRO_DEPTH))[3], 0x80E40003);
        let e = parse(&chain(MAX_MACRO_DEPTH + 1)).unwrap_err();
        assert_eq!(e.0.len(), 1);
        assert_eq!((e.0[0].line, e.0[0].col), (MAX_MACRO_DEPTH + 3, 9));
        assert!(e.0[0].message.contains("MAX_MACRO_DEPTH"), "{e}");

        // Each level quadruples the text: 12 levels are 4^12 * 3 bytes, past the limit.
        // (This shape of source, 35 bytes of it, once made the assembler allocate gigabytes.)
        let grow = |levels: usize| {
            let mut src = "#define x0 r0 \n".to_string();
            for k in 1..=levels {
                let p = format!("x{} ", k - 1);
                src.push_str(&format!("#define x{k} {}\n", p.repeat(4)));
            }
            src + &format!("vs_2_0\nmov r0, x{levels}\n")
        };
        let e = parse(&grow(12)).unwrap_err();
        assert_eq!(e.0.len(), 1);
        assert_eq!((e.0[0].line, e.0[0].col), (15, 9));
        assert!(e.0[0].message.contains("MAX_MACRO_EXPANSION"), "{e}");
        assert!(
            e.0[0].line_text.len() < 100,
            "the error shows the line as written"
        );
        // Below the limit the expansion happens (and the statement is then wrong).
        let e = parse(&grow(4)).unwrap_err();
        assert!(!e.0[0].message.contains("MAX_MACRO"), "{e}");
    }

    #[test]
    fn errors_past_the_cap_are_counted_in_one() {
        let src = format!("vs_2_0\n{}", "foo\n".repeat(MAX_PARSE_ERRORS + 50));
        let e = parse(&src).unwrap_err();
        assert_eq!(e.0.len(), MAX_PARSE_ERRORS + 1);
        let last = e.0.last().unwrap();
        assert_eq!(
            last.line,
            MAX_PARSE_ERRORS + 1,
            "the line of the last error shown"
        );
        assert_eq!(
            last.message,
            "50 more errors not shown (limit MAX_PARSE_ERRORS = 100)"
        );
        assert!(e.render("x").ends_with(
            "x:101:1: error: 50 more errors not shown (limit MAX_PARSE_ERRORS = 100)\n"
        ));
        // Continued lines are joined and numbered from their first line.
        let e = parse("vs_2_0\nmov r0, \\\r\n  v99\nfoo\n").unwrap_err();
        assert_eq!((e.0[0].line, e.0[1].line), (2, 4), "{e}");
    }
}
