//! What each token of a stream means, in words (the playground's hover over hex tokens, a
//! person reading a dump). The tokens are decoded by [`instructions`](super::instructions), the
//! reader everything else uses; this only names the fields of what it decoded, token by token,
//! in the order [`write_instruction`](super::write_instruction) lays them out.

use super::{END_TOKEN, instructions};
use crate::ir::*;
use crate::opcodes::{Layout, Opcode, TEXLD_BIAS, TEXLD_PROJECT};
use crate::registers::register_name;

/// What one token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenRole {
    /// The version token (`vs_3_0`).
    Version,
    /// An instruction token: opcode, length, control, predicated and co-issue bits.
    Instruction,
    /// A comment token (`0xNNNNfffe`): how many DWORDs of comment follow.
    Comment,
    /// A DWORD of a comment's payload (a constant table, `CTAB`, or anything else).
    CommentData,
    /// A `dcl`'s usage token: usage and index, or a sampler's texture type.
    Usage,
    /// A destination parameter token.
    Destination,
    /// A source parameter token.
    Source,
    /// The predicate of a predicated instruction (a source parameter token).
    Predicate,
    /// The token after a relatively addressed parameter that names its index register.
    Relative,
    /// A literal of `def`, `defi` or `defb`.
    Literal,
    /// The end token (`0x0000ffff`).
    End,
    /// A token the reader did not reach: after an error, or after the end token.
    Unread,
}

impl TokenRole {
    /// A lower-case name (for JSON and CSS classes).
    pub fn name(self) -> &'static str {
        match self {
            TokenRole::Version => "version",
            TokenRole::Instruction => "instruction",
            TokenRole::Comment => "comment",
            TokenRole::CommentData => "comment-data",
            TokenRole::Usage => "usage",
            TokenRole::Destination => "destination",
            TokenRole::Source => "source",
            TokenRole::Predicate => "predicate",
            TokenRole::Relative => "relative",
            TokenRole::Literal => "literal",
            TokenRole::End => "end",
            TokenRole::Unread => "unread",
        }
    }
}

/// One token's meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenMeaning {
    /// What the token is (version, instruction, operand, comment, ...).
    pub role: TokenRole,
    /// The instruction the token belongs to (as [`instructions`] counts them, comments
    /// included); `None` for the version token, the end token and unread tokens.
    pub instruction: Option<usize>,
    /// The fields of the token in words, e.g. `destination: oPos (RASTOUT 0), write mask xyzw`.
    pub text: String,
}

/// The meaning of every token of `tokens`: one entry per token, in order. A stream the reader
/// stops on (a bad token, a missing end token) has its tokens from the instruction at fault on
/// described as [`TokenRole::Unread`], with the reader's error.
///
/// ```
/// use dxso::binary::{TokenRole, describe};
/// // vs_2_0: mov oPos, v0
/// let m = describe(&[0xFFFE_0200, 0x0200_0001, 0xC00F_0000, 0x90E4_0000, 0x0000_FFFF]);
/// assert_eq!(m[2].role, TokenRole::Destination);
/// assert_eq!(m[2].text, "destination: oPos (RASTOUT 0), write mask xyzw");
/// ```
pub fn describe(tokens: &[u32]) -> Vec<TokenMeaning> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut stream = match instructions(tokens) {
        Ok(s) => s,
        Err(e) => {
            unread(&mut out, tokens.len(), &e.to_string());
            return out;
        }
    };
    let version = stream.version();
    out.push(TokenMeaning {
        role: TokenRole::Version,
        instruction: None,
        text: format!(
            "version token: {version} (a {} shader, model {}.{})",
            if version.is_vertex() {
                "vertex"
            } else {
                "pixel"
            },
            version.major,
            if version.minor == 0xFF {
                "sw".to_string()
            } else {
                version.minor.to_string()
            }
        ),
    });
    for (index, item) in (&mut stream).enumerate() {
        let (offset, inst) = match item {
            Ok(found) => found,
            Err(e) => {
                unread(&mut out, tokens.len(), &e.to_string());
                return out;
            }
        };
        // Each instruction starts where the previous one's tokens end (the tests check that
        // every token is described; should one not be, the stream still gets one entry a token).
        out.truncate(offset);
        unread(&mut out, offset, "not described");
        let mut d = Describer {
            out: &mut out,
            index,
            version,
        };
        d.instruction(tokens[offset], &inst);
    }
    if out.len() < tokens.len() && tokens[out.len()] == END_TOKEN {
        out.push(TokenMeaning {
            role: TokenRole::End,
            instruction: None,
            text: "end token".into(),
        });
    }
    unread(&mut out, tokens.len(), "after the end token");
    out
}

/// Fill `out` up to `len` tokens with unread ones, saying why.
fn unread(out: &mut Vec<TokenMeaning>, len: usize, why: &str) {
    while out.len() < len {
        out.push(TokenMeaning {
            role: TokenRole::Unread,
            instruction: None,
            text: format!("not read: {why}"),
        });
    }
}

struct Describer<'a> {
    out: &'a mut Vec<TokenMeaning>,
    index: usize,
    version: Version,
}

const LETTERS: [char; 4] = ['x', 'y', 'z', 'w'];

impl Describer<'_> {
    fn push(&mut self, role: TokenRole, text: String) {
        self.out.push(TokenMeaning {
            role,
            instruction: Some(self.index),
            text,
        });
    }

    /// The tokens of one decoded instruction, `token` its first.
    fn instruction(&mut self, token: u32, inst: &Instruction) {
        if inst.opcode == Opcode::Comment {
            self.comment(&inst.imm);
            return;
        }
        self.push(TokenRole::Instruction, self.instruction_token(token, inst));
        let layout = inst.opcode.info().layout;
        if let Some(decl) = inst.decl {
            self.push(TokenRole::Usage, self.usage(decl, inst.dst.as_ref()));
        }
        if let Some(dst) = &inst.dst {
            self.push(TokenRole::Destination, destination(dst));
            self.relative(dst.relative);
        }
        if let Some(p) = &inst.predicate {
            self.push(TokenRole::Predicate, format!("predicate: {}", source(p)));
            self.relative(p.relative);
        }
        let name = inst
            .dst
            .as_ref()
            .map(|d| register_name(d.reg.kind, d.reg.number))
            .unwrap_or_default();
        for (k, &w) in inst.imm.iter().enumerate() {
            let text = match layout {
                Layout::DefI => format!("literal: {name}.{} = {} (integer)", LETTERS[k], w as i32),
                Layout::DefB => format!(
                    "literal: {name} = {}",
                    match w {
                        0 => "false".to_string(),
                        1 => "true".to_string(),
                        n => format!("{n} (neither 0 nor 1)"),
                    }
                ),
                _ => format!(
                    "literal: {name}.{} = {} (float)",
                    LETTERS[k % 4],
                    crate::text::float(f32::from_bits(w))
                ),
            };
            self.push(TokenRole::Literal, text);
        }
        let many = inst.srcs.len() > 1;
        for (k, s) in inst.srcs.iter().enumerate() {
            let which = if many {
                format!("source {}", k + 1)
            } else {
                "source".to_string()
            };
            self.push(TokenRole::Source, format!("{which}: {}", source(s)));
            self.relative(s.relative);
        }
    }

    /// `mov: opcode 1 (D3DSIO_MOV), 2 parameter tokens, predicated, co-issued`.
    fn instruction_token(&self, token: u32, inst: &Instruction) -> String {
        let info = inst.opcode.info();
        let mut s = format!(
            "instruction: {} (opcode {})",
            inst.opcode.mnemonic(inst.control, self.version),
            info.number
        );
        if self.version.has_length() {
            let n = token >> 24 & 0xF;
            s.push_str(&format!(
                ", {n} parameter token{}",
                if n == 1 { "" } else { "s" }
            ));
        } else {
            s.push_str(", no length field (SM1: the opcode table gives the operands)");
        }
        if let Some(c) = inst.comparison() {
            s.push_str(&format!(", comparison {}", c.name()));
        } else if inst.opcode == Opcode::Tex && self.version.number() >= 0x200 {
            match inst.control {
                TEXLD_PROJECT => s.push_str(", control: project (texldp)"),
                TEXLD_BIAS => s.push_str(", control: bias (texldb)"),
                _ => {}
            }
        }
        if inst.predicate.is_some() {
            s.push_str(", predicated");
        }
        if inst.coissue {
            s.push_str(", co-issued");
        }
        s
    }

    fn comment(&mut self, payload: &[u32]) {
        let tag = fourcc(payload.first().copied());
        let what = match tag.as_deref() {
            Some("CTAB") => " (CTAB: the constant table)".to_string(),
            Some(t) => format!(" ({t})"),
            None => String::new(),
        };
        let n = payload.len();
        self.push(
            TokenRole::Comment,
            format!(
                "comment: {n} DWORD{} follow{}{what}",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" }
            ),
        );
        let ctab = crate::ctab::ctab_data(payload).map(ctab_words);
        for k in 0..n {
            let what = match (&tag, &ctab, k) {
                (Some(t), _, 0) => format!(": the tag \"{t}\""),
                (_, Some(words), k) => k
                    .checked_sub(1)
                    .and_then(|j| words.get(j))
                    .map_or(String::new(), |w| format!(": {w}")),
                _ => String::new(),
            };
            self.push(
                TokenRole::CommentData,
                format!("comment DWORD {} of {n}{what}", k + 1),
            );
        }
    }

    fn usage(&self, decl: Decl, dst: Option<&Dst>) -> String {
        let sampler = dst.is_some_and(|d| d.reg.kind == RegisterKind::Sampler);
        if sampler || decl.texture_type != 0 {
            let ty = TextureType::from_u32(decl.texture_type as u32)
                .map_or_else(|| format!("{}", decl.texture_type), |t| t.name().into());
            return format!("dcl usage: sampler type {ty}");
        }
        if decl.usage == 0 && decl.usage_index == 0 && self.version.is_pixel() {
            return "dcl usage: none (a plain dcl: usage 0, index 0)".into();
        }
        let usage = Usage::from_u32(decl.usage as u32)
            .map_or_else(|| format!("{} (unknown)", decl.usage), |u| u.name().into());
        format!("dcl usage: {usage}, index {}", decl.usage_index)
    }

    /// The token naming a relatively addressed parameter's index register (SM2 on; in
    /// vs_1_1 the index is `a0.x` and has no token).
    fn relative(&mut self, rel: Option<Relative>) {
        if let Some(r) = rel.filter(|_| self.version.has_length()) {
            self.push(
                TokenRole::Relative,
                format!("relative address: {}", index_register(r)),
            );
        }
    }
}

/// `a0.x`, `aL`: the register a relative address reads and the component it reads.
fn index_register(r: Relative) -> String {
    let name = register_name(r.reg.kind, r.reg.number);
    if r.reg.kind == RegisterKind::Loop {
        name
    } else {
        format!("{name}.{}", LETTERS[r.swizzle.get(0)])
    }
}

/// `oPos (RASTOUT 0)`: the name, and the register type and number the token holds (type 3
/// is `ADDR` or `TEXTURE`, type 6 `TEXCRDOUT` or `OUTPUT`, as the reader resolved them).
fn register(reg: Register) -> String {
    let (ty, number) = reg.kind.to_type(reg.number);
    let ty_name = match (ty, reg.kind) {
        (0, _) => "TEMP",
        (1, _) => "INPUT",
        (2, _) => "CONST",
        (3, RegisterKind::Addr) => "ADDR",
        (3, _) => "TEXTURE",
        (4, _) => "RASTOUT",
        (5, _) => "ATTROUT",
        (6, RegisterKind::Output) => "OUTPUT",
        (6, _) => "TEXCRDOUT",
        (7, _) => "CONSTINT",
        (8, _) => "COLOROUT",
        (9, _) => "DEPTHOUT",
        (10, _) => "SAMPLER",
        (11, _) => "CONST2",
        (12, _) => "CONST3",
        (13, _) => "CONST4",
        (14, _) => "CONSTBOOL",
        (15, _) => "LOOP",
        (16, _) => "TEMPFLOAT16",
        (17, _) => "MISCTYPE",
        (18, _) => "LABEL",
        _ => "PREDICATE",
    };
    format!(
        "{} ({ty_name} {number})",
        register_name(reg.kind, reg.number)
    )
}

fn destination(d: &Dst) -> String {
    let mut s = format!(
        "destination: {}, write mask {}",
        register(d.reg),
        (0..4)
            .filter(|&c| d.mask.has(c))
            .map(|c| LETTERS[c])
            .collect::<String>()
    );
    if d.mask.0 == 0 {
        s.push_str("(none)");
    }
    for (bit, name) in [
        (RESULT_SATURATE, "saturate (_sat)"),
        (RESULT_PARTIAL_PRECISION, "partial precision (_pp)"),
        (RESULT_CENTROID, "centroid"),
    ] {
        if d.modifiers & bit != 0 {
            s.push_str(", ");
            s.push_str(name);
        }
    }
    match d.shift {
        0 => {}
        1 => s.push_str(", shift x2 (_x2)"),
        2 => s.push_str(", shift x4 (_x4)"),
        3 => s.push_str(", shift x8 (_x8)"),
        15 => s.push_str(", shift d2 (_d2)"),
        14 => s.push_str(", shift d4 (_d4)"),
        13 => s.push_str(", shift d8 (_d8)"),
        n => s.push_str(&format!(", shift {n} (not a D3D9 scale)")),
    }
    if let Some(r) = d.relative {
        s.push_str(&format!(", relative address {}", index_register(r)));
    }
    s
}

fn source(x: &Src) -> String {
    let swizzle: String = (0..4).map(|c| LETTERS[x.swizzle.get(c)]).collect();
    let mut s = format!("{}, swizzle {swizzle}", register(x.reg));
    let modifier = match x.modifier {
        SrcModifier::None => None,
        SrcModifier::Neg => Some("negate (-)"),
        SrcModifier::Bias => Some("bias (_bias)"),
        SrcModifier::BiasNeg => Some("bias and negate (-, _bias)"),
        SrcModifier::Sign => Some("sign (_bx2)"),
        SrcModifier::SignNeg => Some("sign and negate (-, _bx2)"),
        SrcModifier::Comp => Some("complement (1 - )"),
        SrcModifier::X2 => Some("times 2 (_x2)"),
        SrcModifier::X2Neg => Some("times 2 and negate (-, _x2)"),
        SrcModifier::Dz => Some("divide by z (_dz)"),
        SrcModifier::Dw => Some("divide by w (_dw)"),
        SrcModifier::Abs => Some("absolute value (_abs)"),
        SrcModifier::AbsNeg => Some("absolute value and negate (-, _abs)"),
        SrcModifier::Not => Some("not (!)"),
    };
    if let Some(m) = modifier {
        s.push_str(", modifier ");
        s.push_str(m);
    }
    if let Some(r) = x.relative {
        s.push_str(&format!(", relative address {}", index_register(r)));
    }
    s
}

/// What each DWORD of CTAB data (the words after the tag) holds: the header's fields
/// (`D3DXSHADER_CONSTANTTABLE`), each constant's record (`D3DXSHADER_CONSTANTINFO`, named by
/// the constant's name where [`ConstantTable::read`](crate::ctab::ConstantTable::read) reads
/// the table), and the rest as the text its bytes spell, where they do.
fn ctab_words(data: &[u32]) -> Vec<String> {
    let mut words: Vec<String> = data.iter().map(|&w| spelled(w)).collect();
    let header = [
        "Size, the header's bytes",
        "Creator, the byte offset of the creator's name",
        "Version",
        "Constants, how many",
        "ConstantInfo, the byte offset of the constants' records",
        "Flags",
        "Target, the byte offset of the target's name",
    ];
    for (k, name) in header.iter().enumerate() {
        if let Some(&v) = data.get(k) {
            words[k] = if k == 2 {
                format!("CTAB {name}: 0x{v:08x}")
            } else {
                format!("CTAB {name}: {v}")
            };
        }
    }
    let names: Vec<String> = crate::ctab::ConstantTable::read(data)
        .map(|t| t.constants.into_iter().map(|c| c.name).collect())
        .unwrap_or_default();
    let count = data.get(3).copied().unwrap_or(0) as usize;
    let first = data.get(4).map_or(usize::MAX, |&b| b as usize / 4);
    for i in 0..count.min(data.len()) {
        let name = names
            .get(i)
            .map_or(format!("constant {i}"), |n| format!("constant {n}"));
        for f in 0..5 {
            let Some(at) = first.checked_add(5 * i + f).filter(|&at| at < data.len()) else {
                break;
            };
            let v = data[at];
            let (lo, hi) = (v & 0xFFFF, v >> 16);
            words[at] = match f {
                0 => format!("{name}: Name, the byte offset {v} of its name"),
                1 => format!(
                    "{name}: RegisterSet {}, RegisterIndex {hi}",
                    crate::ctab::RegisterSet::from_u16(lo as u16)
                        .map_or_else(|| lo.to_string(), |r| r.name().to_string())
                ),
                2 => format!("{name}: RegisterCount {lo}"),
                3 => format!("{name}: TypeInfo, the byte offset {v} of its type"),
                _ if v == 0 => format!("{name}: DefaultValue, none"),
                _ => format!("{name}: DefaultValue, the byte offset {v} of its value"),
            };
        }
    }
    words
}

/// A DWORD of CTAB data that is not a field: the text its bytes spell, where they are
/// printable ASCII or NUL (`text "Tint"`), else `data`.
fn spelled(w: u32) -> String {
    let bytes = w.to_le_bytes();
    let printable = |b: &u8| b.is_ascii_graphic() || *b == b' ';
    if bytes.iter().any(printable) && bytes.iter().all(|b| printable(b) || *b == 0) {
        let text: String = bytes
            .iter()
            .map(|&b| if b == 0 { '·' } else { b as char })
            .collect();
        format!("text \"{text}\" (· a NUL)")
    } else {
        "data".into()
    }
}

/// A comment's tag: its first DWORD as four ASCII letters or digits (`CTAB`).
fn fourcc(first: Option<u32>) -> Option<String> {
    let bytes = first?.to_le_bytes();
    bytes
        .iter()
        .all(|b| b.is_ascii_alphanumeric())
        .then(|| bytes.iter().map(|&b| b as char).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(tokens: &[u32]) -> Vec<String> {
        let m = describe(tokens);
        assert_eq!(m.len(), tokens.len());
        m.into_iter().map(|m| m.text).collect()
    }

    #[test]
    fn a_vs_2_0_dcl_and_mov() {
        // vs_2_0 / dcl_position v0 / mov oPos, v0 (what `dxso asm --hex` writes).
        let tokens = [
            0xFFFE0200, 0x0200001F, 0x80000000, 0x900F0000, 0x02000001, 0xC00F0000, 0x90E40000,
            END_TOKEN,
        ];
        let m = describe(&tokens);
        let roles: Vec<_> = m.iter().map(|m| m.role).collect();
        use TokenRole::*;
        assert_eq!(
            roles,
            [
                Version,
                Instruction,
                Usage,
                Destination,
                Instruction,
                Destination,
                Source,
                End
            ]
        );
        let instructions: Vec<_> = m.iter().map(|m| m.instruction).collect();
        assert_eq!(
            instructions,
            [
                None,
                Some(0),
                Some(0),
                Some(0),
                Some(1),
                Some(1),
                Some(1),
                None
            ]
        );
        assert_eq!(
            texts(&tokens),
            [
                "version token: vs_2_0 (a vertex shader, model 2.0)",
                "instruction: dcl (opcode 31), 2 parameter tokens",
                "dcl usage: position, index 0",
                "destination: v0 (INPUT 0), write mask xyzw",
                "instruction: mov (opcode 1), 2 parameter tokens",
                "destination: oPos (RASTOUT 0), write mask xyzw",
                "source: v0 (INPUT 0), swizzle xyzw",
                "end token",
            ]
        );
    }

    #[test]
    fn relative_addressing_modifiers_and_the_const2_file() {
        // mov r0, -c0[a0.w+5].x (vs_2_0), then mov r0, c2049 (CONST2 1).
        let tokens = [
            0xFFFE0200, 0x03000001, 0x800F0000, 0xA1002005, 0xB0FF0000, 0x02000001, 0x800F0000,
            0xB0E40801, END_TOKEN,
        ];
        let t = texts(&tokens);
        assert_eq!(
            t[3],
            "source: c5 (CONST 5), swizzle xxxx, modifier negate (-), relative address a0.w"
        );
        assert_eq!(t[4], "relative address: a0.w");
        assert_eq!(t[7], "source: c2049 (CONST2 1), swizzle xyzw");
    }

    #[test]
    fn predication_comparison_and_result_modifiers() {
        // vs_2_x: setp_gt p0, r0, r1 / (!p0) add r2, r2, r3 (bytecode.md §8).
        let tokens = [
            0xFFFE0201, 0x0301005E, 0xB00F1000, 0x80E40000, 0x80E40001, 0x14000002, 0x800F0002,
            0xBDE41000, 0x80E40002, 0x80E40003, END_TOKEN,
        ];
        let t = texts(&tokens);
        assert_eq!(
            t[1],
            "instruction: setp_gt (opcode 94), 3 parameter tokens, comparison gt"
        );
        assert_eq!(t[2], "destination: p0 (PREDICATE 0), write mask xyzw");
        assert_eq!(
            t[5],
            "instruction: add (opcode 2), 4 parameter tokens, predicated"
        );
        assert_eq!(
            t[7],
            "predicate: p0 (PREDICATE 0), swizzle xyzw, modifier not (!)"
        );
        assert_eq!(t[8], "source 1: r2 (TEMP 2), swizzle xyzw");
        // ps_2_0: mov_sat_pp r0.xy, t0 (saturate and partial precision, mask xy).
        let tokens = [0xFFFF0200, 0x02000001, 0x80330000, 0xB0E40000, END_TOKEN];
        assert_eq!(
            texts(&tokens)[2],
            "destination: r0 (TEMP 0), write mask xy, saturate (_sat), partial precision (_pp)"
        );
    }

    #[test]
    fn def_literals_samplers_and_comments() {
        let shader = crate::text::parse(
            "ps_3_0\ndef c1, 1, 0.5, -2, 0\ndefi i0, 3, 0, 1, 0\ndefb b2, true\ndcl_2d s0\n\
             dcl_texcoord1 v0.xy\nmov oC0, c1\n",
        )
        .unwrap();
        let tokens = crate::binary::write(&shader).unwrap();
        let t = texts(&tokens);
        assert_eq!(t[1], "instruction: def (opcode 81), 5 parameter tokens");
        assert_eq!(t[2], "destination: c1 (CONST 1), write mask xyzw");
        assert_eq!(t[3], "literal: c1.x = 1 (float)");
        assert_eq!(t[4], "literal: c1.y = 0.5 (float)");
        assert_eq!(t[5], "literal: c1.z = -2 (float)");
        assert_eq!(t[9], "literal: i0.x = 3 (integer)");
        assert_eq!(t[15], "literal: b2 = true");
        assert_eq!(t[17], "dcl usage: sampler type 2d");
        assert_eq!(t[18], "destination: s0 (SAMPLER 0), write mask xyzw");
        assert_eq!(t[20], "dcl usage: texcoord, index 1");
        assert_eq!(t[21], "destination: v0 (INPUT 0), write mask xy");

        // A CTAB comment: its token, its tag, its data.
        let tokens = [0xFFFE0300, 0x0002FFFE, 0x42415443, 0xFFFFFFFF, END_TOKEN];
        let m = describe(&tokens);
        assert_eq!(m[1].role, TokenRole::Comment);
        assert_eq!(
            m[1].text,
            "comment: 2 DWORDs follow (CTAB: the constant table)"
        );
        assert_eq!(m[2].text, "comment DWORD 1 of 2: the tag \"CTAB\"");
        assert_eq!(m[3].role, TokenRole::CommentData);
        assert_eq!(
            m[3].text,
            "comment DWORD 2 of 2: CTAB Size, the header's bytes: 4294967295"
        );
        // A real table, built from a listing's header as `asm --ctab` builds it: the header's
        // fields and the constant's record by name.
        let listing = "// Parameters:\n//\n//   float4 Tint;\n//\n// Registers:\n//\n\
                       //   Name Reg   Size\n//   ---- ----- ----\n//   Tint c4       1\n//\n\
                       vs_2_0\nmov oPos, c4\n";
        let mut shader = crate::text::parse(listing).unwrap();
        let table = crate::text::parse_header(listing, shader.version)
            .unwrap()
            .unwrap();
        shader.set_constant_table(&table);
        let tokens = crate::binary::write(&shader).unwrap();
        let t = texts(&tokens);
        assert_eq!(
            t[3],
            format!(
                "comment DWORD 2 of {}: CTAB Size, the header's bytes: 28",
                tokens[1] >> 16
            )
        );
        assert!(t[5].ends_with(": CTAB Version: 0xfffe0200"), "{}", t[5]);
        assert!(t[6].ends_with(": CTAB Constants, how many: 1"), "{}", t[6]);
        let record = tokens[7] as usize / 4 + 3;
        assert!(
            t[record].contains(": constant Tint: Name, the byte offset "),
            "{}",
            t[record]
        );
        assert!(
            t[record + 1].ends_with(": constant Tint: RegisterSet FLOAT4, RegisterIndex 4"),
            "{}",
            t[record + 1]
        );
        assert!(
            t[record + 2].ends_with(": constant Tint: RegisterCount 1"),
            "{}",
            t[record + 2]
        );
        assert!(
            t.iter().any(|w| w.ends_with("text \"Tint\" (· a NUL)")),
            "{t:?}"
        );
        // Its words changed in turn: a meaning a token, and no panic.
        for k in 2..tokens.len() {
            for x in [0x0000_00FF, 0x00FF_0000, 0xFF00_0000, u32::MAX] {
                let mut changed = tokens.clone();
                changed[k] ^= x;
                assert_eq!(describe(&changed).len(), changed.len());
            }
        }
    }

    #[test]
    fn any_stream_gets_one_meaning_a_token() {
        let shader = crate::text::parse(
            "vs_3_0\ndef c1, 1, 0.5, -2, 0\ndcl_position v0\ndcl_position o0\n\
             mov r0, c0[a0.x]\nif_gt r0.x, c1.x\nmov o0, -r0\nendif\n",
        )
        .unwrap();
        let tokens = crate::binary::write(&shader).unwrap();
        // Every word changed in turn, and every prefix: an entry a token, and no panic.
        for k in 0..tokens.len() {
            for x in [
                0x8000_0000,
                0x0F00_0000,
                0x0000_FFFF,
                0x2000,
                0x1F,
                u32::MAX,
            ] {
                let mut t = tokens.clone();
                t[k] ^= x;
                assert_eq!(describe(&t).len(), t.len());
            }
            assert_eq!(describe(&tokens[..k]).len(), k);
        }
        assert!(
            describe(&tokens)
                .iter()
                .all(|m| m.role != TokenRole::Unread)
        );
    }

    #[test]
    fn sm1_and_unreadable_streams() {
        // vs_1_1: mov r0, c0[a0.x]: no length field, no relative token.
        let t = texts(&[0xFFFE0101, 0x00000001, 0x800F0000, 0xA0E42000, END_TOKEN]);
        assert_eq!(
            t[1],
            "instruction: mov (opcode 1), no length field (SM1: the opcode table gives the operands)"
        );
        assert_eq!(
            t[3],
            "source: c0 (CONST 0), swizzle xyzw, relative address a0.x"
        );
        // An unknown opcode: that instruction on is unread, with the reader's error.
        let m = describe(&[0xFFFE0300, 0x00000000, 0x00000031, END_TOKEN]);
        assert_eq!(m[1].text, "instruction: nop (opcode 0), 0 parameter tokens");
        assert_eq!(m[2].role, TokenRole::Unread);
        assert_eq!(
            m[2].text,
            "not read: word 2 (instruction 1): unknown opcode 49"
        );
        assert_eq!(m[3].role, TokenRole::Unread);
        // A bad version token; words after the end token.
        let m = describe(&[0x12345678, END_TOKEN]);
        assert!(m.iter().all(|m| m.role == TokenRole::Unread));
        let m = describe(&[0xFFFF0200, END_TOKEN, 7]);
        assert_eq!(
            m[0].text,
            "version token: ps_2_0 (a pixel shader, model 2.0)"
        );
        assert_eq!(m[1].role, TokenRole::End);
        assert_eq!(m[2].text, "not read: after the end token");
        assert!(describe(&[]).is_empty());
    }
}
