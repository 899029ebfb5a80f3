//! Tokens <-> IR (`../shared/spec/bytecode.md`).
//!
//! [`read`] decodes a token stream into a [`Shader`]; [`write`](fn@write) encodes it back. For every
//! stream `read` accepts, `write(read(t)) == t` up to the end token; for every shader `write`
//! accepts, `read(write(s)) == s`. [`describe`] says in words what each token of a stream
//! means.

use crate::ir::*;
use crate::opcodes::{Layout, Opcode};
use thiserror::Error;

mod describe;
pub use describe::{TokenMeaning, TokenRole, describe};

/// The end token (`D3DVS_END()`).
pub const END_TOKEN: u32 = 0x0000_FFFF;
const PARAM_BIT: u32 = 0x8000_0000;
const RELATIVE_BIT: u32 = 1 << 13;
const PREDICATED_BIT: u32 = 1 << 28;
const COISSUE_BIT: u32 = 1 << 30;

/// Why a token stream could not be read, and where.
#[derive(Debug, Error, PartialEq, Eq, Clone)]
#[error("word {offset} (instruction {instruction}): {kind}")]
pub struct ReadError {
    /// Index of the offending 32-bit word in the stream.
    pub offset: usize,
    /// Index of the instruction being decoded (comments count).
    pub instruction: usize,
    /// What is wrong.
    pub kind: ReadErrorKind,
}

/// What is wrong with a token stream (the message names the token).
#[derive(Debug, Error, PartialEq, Eq, Clone)]
pub enum ReadErrorKind {
    /// No bytes or words at all.
    #[error("the stream is empty")]
    Empty,
    /// Bytes that do not make whole 32-bit words.
    #[error("byte length {0} is not a multiple of 4")]
    ByteLength(usize),
    /// The first word is not a version token.
    #[error("0x{0:08x} is not a shader version token")]
    BadVersion(u32),
    /// A version token of a version dxso does not read (vs_1_0 .. vs_3_0, ps_1_0 .. ps_3_0).
    #[error("shader version {0} is not supported")]
    UnsupportedVersion(Version),
    /// No end token after the last instruction.
    #[error("the stream ends without an end token (0x0000ffff)")]
    MissingEnd,
    /// An instruction's tokens run past the stream's end.
    #[error("the stream ends inside an instruction")]
    Truncated,
    /// A parameter token where an instruction token belongs.
    #[error("expected an instruction token, found parameter token 0x{0:08x}")]
    ExpectedInstruction(u32),
    /// An opcode number the opcode table does not have.
    #[error("unknown opcode {0}")]
    UnknownOpcode(u16),
    /// An opcode of the IR alone (a pseudo-instruction) found in the stream.
    #[error("opcode {0:?} cannot appear in a token stream here")]
    Misplaced(Opcode),
    /// A token with bits set that D3D9 reserves.
    #[error("reserved bits set in 0x{0:08x}")]
    ReservedBits(u32),
    /// An instruction token where a parameter token belongs.
    #[error("expected a parameter token (bit 31 set), found 0x{0:08x}")]
    ExpectedParameter(u32),
    /// A register type number D3D9 does not define.
    #[error("unknown register type {0}")]
    UnknownRegisterType(u32),
    /// A source-modifier number D3D9 does not define (14, 15).
    #[error("unknown source modifier {0}")]
    UnknownModifier(u32),
    /// Result-modifier bits D3D9 does not define.
    #[error("unknown result modifier bits 0x{0:x}")]
    UnknownResultModifier(u32),
    /// A `dcl`'s usage token with reserved bits set or bit 31 clear.
    #[error("bad dcl usage token 0x{0:08x}")]
    BadDecl(u32),
    /// An instruction with a number of source operands its version does not allow.
    #[error("{opcode:?} has {found} source operands; {version} expects {expected:?}")]
    OperandCount {
        /// The instruction.
        opcode: Opcode,
        /// How many source operands it has.
        found: usize,
        /// The counts the version allows.
        expected: &'static [u8],
        /// The shader's version.
        version: Version,
    },
    /// An SM2+ instruction whose length field differs from the tokens its operands use.
    #[error("instruction length {length} does not match its operands ({used} tokens)")]
    LengthMismatch {
        /// The length field.
        length: usize,
        /// The tokens the operands use.
        used: usize,
    },
    /// An SM1 instruction token with a length field (SM1 has none).
    #[error("SM1 instruction token has a nonzero length field")]
    Sm1Length,
    /// Refused by [`crate::source::Source`], which holds at most
    /// [`MAX_INSTRUCTIONS`](crate::source::MAX_INSTRUCTIONS); [`read`] has no such limit.
    /// More instructions than [`crate::source::Source`] loads.
    #[error(
        "the shader has {found} instructions; dxso loads at most {limit} (no valid shader has that many)"
    )]
    TooManyInstructions {
        /// The shader's instructions.
        found: usize,
        /// The most it loads.
        limit: usize,
    },
}

/// Why an IR shader could not be encoded.
#[derive(Debug, Error, PartialEq, Eq, Clone)]
pub enum WriteError {
    /// An instruction whose tokens do not fit the 4-bit length field.
    #[error(
        "instruction {index}: {opcode:?} needs {needed} DWORDs, more than the 15 a length field holds"
    )]
    TooLong {
        /// The instruction's index.
        index: usize,
        /// Its opcode.
        opcode: Opcode,
        /// The DWORDs it needs.
        needed: usize,
    },
    /// A comment longer than the 15-bit length field holds.
    #[error("instruction {index}: comment of {0} DWORDs is larger than 32767", .len)]
    CommentTooLong {
        /// The instruction's index.
        index: usize,
        /// The comment's DWORDs.
        len: usize,
    },
    /// A register number the token's 11-bit field (or CONST2/3/4) cannot hold.
    #[error("instruction {index}: register number {number} of {kind:?} cannot be encoded")]
    RegisterNumber {
        /// The instruction's index.
        index: usize,
        /// The register file.
        kind: RegisterKind,
        /// The number.
        number: u32,
    },
    /// Operands that do not match the opcode's layout for the version.
    #[error("instruction {index}: {opcode:?} has the wrong operands for {version}")]
    Operands {
        /// The instruction's index.
        index: usize,
        /// Its opcode.
        opcode: Opcode,
        /// The shader's version.
        version: Version,
    },
}

/// Read little-endian bytes (as `CreateVertexShader` takes them).
pub fn read_bytes(bytes: &[u8]) -> Result<Shader, ReadError> {
    read(&tokens_of_bytes(bytes)?)
}

/// The little-endian tokens of `bytes`, whose length must be a multiple of 4.
pub fn tokens_of_bytes(bytes: &[u8]) -> Result<Vec<u32>, ReadError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(ReadError {
            offset: bytes.len() / 4,
            instruction: 0,
            kind: ReadErrorKind::ByteLength(bytes.len()),
        });
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Decode a token stream.
pub fn read(tokens: &[u32]) -> Result<Shader, ReadError> {
    read_with_offsets(tokens).map(|(shader, _)| shader)
}

/// Decode a token stream, with the word offset of each instruction (for diagnostics).
pub fn read_with_offsets(tokens: &[u32]) -> Result<(Shader, Vec<usize>), ReadError> {
    let mut stream = instructions(tokens)?;
    let mut instructions = Vec::new();
    let mut offsets = Vec::new();
    for item in &mut stream {
        let (offset, inst) = item?;
        offsets.push(offset);
        instructions.push(inst);
    }
    Ok((
        Shader {
            version: stream.version(),
            instructions,
        },
        offsets,
    ))
}

/// Decode a token stream one instruction at a time, without holding them all (as
/// `dxso dis` prints a large shader): the version token is read here, and the iterator
/// yields each instruction with the word offset of its first token, then stops at the end
/// token. It yields the first error [`read`] would return and nothing after it.
///
/// ```
/// let tokens = [0xFFFE_0300, 0x0000_0000, 0x0000_FFFF]; // vs_3_0, nop, end
/// let mut stream = dxso::binary::instructions(&tokens).unwrap();
/// assert_eq!(stream.version(), dxso::Version::vs(3, 0));
/// let (offset, nop) = stream.next().unwrap().unwrap();
/// assert_eq!((offset, nop.opcode), (1, dxso::opcodes::Opcode::Nop));
/// assert!(stream.next().is_none());
/// ```
pub fn instructions(tokens: &[u32]) -> Result<Instructions<'_>, ReadError> {
    let mut r = Reader {
        tokens,
        pos: 0,
        index: 0,
        version: Version::vs(0, 0),
    };
    let Some(&first) = tokens.first() else {
        return Err(r.err(ReadErrorKind::Empty));
    };
    let kind = match first >> 16 {
        0xFFFE => ShaderKind::Vertex,
        0xFFFF => ShaderKind::Pixel,
        _ => return Err(r.err(ReadErrorKind::BadVersion(first))),
    };
    let version = Version::new(kind, (first >> 8) as u8, first as u8);
    if !version.is_known() {
        return Err(r.err(ReadErrorKind::UnsupportedVersion(version)));
    }
    r.version = version;
    r.pos = 1;
    Ok(Instructions { r, done: false })
}

/// The instructions of a token stream, decoded as they are asked for (see [`instructions`]).
pub struct Instructions<'a> {
    r: Reader<'a>,
    done: bool,
}

impl Instructions<'_> {
    /// The version token's shader version.
    pub fn version(&self) -> Version {
        self.r.version
    }
}

impl Iterator for Instructions<'_> {
    /// An instruction and the word offset of its first token.
    type Item = Result<(usize, Instruction), ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = &mut self.r;
        let Some(&tok) = r.tokens.get(r.pos) else {
            self.done = true;
            return Some(Err(r.err(ReadErrorKind::MissingEnd)));
        };
        if tok == END_TOKEN {
            self.done = true;
            return None;
        }
        let offset = r.pos;
        let item = r.instruction(tok).map(|inst| (offset, inst));
        r.index += 1;
        self.done = item.is_err();
        Some(item)
    }
}

struct Reader<'a> {
    tokens: &'a [u32],
    pos: usize,
    index: usize,
    version: Version,
}

impl Reader<'_> {
    fn err(&self, kind: ReadErrorKind) -> ReadError {
        ReadError {
            offset: self.pos,
            instruction: self.index,
            kind,
        }
    }

    fn next(&mut self, end: usize) -> Result<u32, ReadError> {
        if self.pos >= end || self.pos >= self.tokens.len() {
            return Err(self.err(ReadErrorKind::Truncated));
        }
        let t = self.tokens[self.pos];
        self.pos += 1;
        Ok(t)
    }

    fn param(&mut self, end: usize) -> Result<u32, ReadError> {
        let t = self.next(end)?;
        if t & PARAM_BIT == 0 {
            self.pos -= 1;
            return Err(self.err(ReadErrorKind::ExpectedParameter(t)));
        }
        Ok(t)
    }

    fn register(&self, t: u32) -> Result<Register, ReadError> {
        let ty = (t >> 28 & 7) | (t >> 8 & 0x18);
        let (kind, number) = RegisterKind::from_type(ty, t & 0x7FF, self.version)
            .ok_or_else(|| self.err(ReadErrorKind::UnknownRegisterType(ty)))?;
        Ok(Register { kind, number })
    }

    fn relative(&mut self, t: u32, end: usize) -> Result<Option<Relative>, ReadError> {
        if t & RELATIVE_BIT == 0 {
            return Ok(None);
        }
        if !self.version.has_length() {
            // vs_1_1: the index is always a0.x and no extra token follows.
            return Ok(Some(Relative::a0(0)));
        }
        let rt = self.param(end)?;
        if rt & 0x0F00_E000 != 0 || rt & 0x7FF != 0 {
            self.pos -= 1;
            return Err(self.err(ReadErrorKind::ReservedBits(rt)));
        }
        Ok(Some(Relative {
            reg: self.register(rt)?,
            swizzle: Swizzle((rt >> 16) as u8),
        }))
    }

    fn dst(&mut self, end: usize) -> Result<Dst, ReadError> {
        let t = self.param(end)?;
        if t & 0xC000 != 0 {
            self.pos -= 1;
            return Err(self.err(ReadErrorKind::ReservedBits(t)));
        }
        let modifiers = (t >> 20 & 0xF) as u8;
        if modifiers & 0x8 != 0 {
            self.pos -= 1;
            return Err(self.err(ReadErrorKind::UnknownResultModifier(modifiers as u32)));
        }
        let reg = self.register(t)?;
        Ok(Dst {
            reg,
            mask: WriteMask((t >> 16 & 0xF) as u8),
            modifiers,
            shift: (t >> 24 & 0xF) as u8,
            relative: self.relative(t, end)?,
        })
    }

    fn src(&mut self, end: usize) -> Result<Src, ReadError> {
        let t = self.param(end)?;
        if t & 0xC000 != 0 {
            self.pos -= 1;
            return Err(self.err(ReadErrorKind::ReservedBits(t)));
        }
        let m = t >> 24 & 0xF;
        let Some(modifier) = SrcModifier::from_bits(m) else {
            self.pos -= 1;
            return Err(self.err(ReadErrorKind::UnknownModifier(m)));
        };
        let reg = self.register(t)?;
        Ok(Src {
            reg,
            swizzle: Swizzle((t >> 16) as u8),
            modifier,
            relative: self.relative(t, end)?,
        })
    }

    fn instruction(&mut self, tok: u32) -> Result<Instruction, ReadError> {
        let number = (tok & 0xFFFF) as u16;
        if number == Opcode::Comment as u16 {
            if tok & PARAM_BIT != 0 {
                return Err(self.err(ReadErrorKind::ExpectedInstruction(tok)));
            }
            let n = (tok >> 16 & 0x7FFF) as usize;
            let start = self.pos + 1;
            let Some(payload) = self.tokens.get(start..start + n) else {
                return Err(self.err(ReadErrorKind::Truncated));
            };
            let mut inst = Instruction::new(Opcode::Comment);
            inst.imm = payload.to_vec();
            self.pos = start + n;
            return Ok(inst);
        }
        if tok & PARAM_BIT != 0 {
            return Err(self.err(ReadErrorKind::ExpectedInstruction(tok)));
        }
        let opcode = Opcode::from_number(number)
            .ok_or_else(|| self.err(ReadErrorKind::UnknownOpcode(number)))?;
        if opcode == Opcode::End {
            return Err(self.err(ReadErrorKind::ReservedBits(tok)));
        }
        if tok & (1 << 29) != 0 {
            return Err(self.err(ReadErrorKind::ReservedBits(tok)));
        }
        let version = self.version;
        let length = (tok >> 24 & 0xF) as usize;
        let sm2 = version.has_length();
        if !sm2 && length != 0 {
            return Err(self.err(ReadErrorKind::Sm1Length));
        }
        let start = self.pos;
        self.pos += 1;
        // In SM2+ the length bounds the operands; SM1 relies on the table alone.
        let end = if sm2 { start + 1 + length } else { usize::MAX };
        if sm2 && end > self.tokens.len() {
            return Err(self.err(ReadErrorKind::Truncated));
        }
        let layout = opcode.info().layout;
        let mut inst = Instruction::new(opcode);
        inst.control = (tok >> 16) as u8;
        inst.coissue = tok & COISSUE_BIT != 0;
        if layout == Layout::Dcl {
            let d = self.param(end)?;
            inst.decl =
                Some(Decl::from_token(d).ok_or_else(|| self.err(ReadErrorKind::BadDecl(d)))?);
        }
        if layout.has_dst() {
            inst.dst = Some(self.dst(end)?);
        }
        if tok & PREDICATED_BIT != 0 {
            inst.predicate = Some(self.src(end)?);
        }
        for _ in 0..layout.imm_count() {
            let v = self.next(end)?;
            inst.imm.push(v);
        }
        let counts = layout.src_counts(version);
        if sm2 {
            while self.pos < end {
                let s = self.src(end)?;
                inst.srcs.push(s);
            }
            if !counts.contains(&(inst.srcs.len() as u8)) {
                return Err(ReadError {
                    offset: start,
                    instruction: self.index,
                    kind: ReadErrorKind::OperandCount {
                        opcode,
                        found: inst.srcs.len(),
                        expected: counts,
                        version,
                    },
                });
            }
            let used = self.pos - start - 1;
            if used != length {
                return Err(ReadError {
                    offset: start,
                    instruction: self.index,
                    kind: ReadErrorKind::LengthMismatch { length, used },
                });
            }
        } else {
            for _ in 0..counts[0] {
                let s = self.src(end)?;
                inst.srcs.push(s);
            }
        }
        // Peak memory: sources get an allocation of their size (see `text::parse`).
        inst.srcs = inst.srcs.to_vec();
        Ok(inst)
    }
}

/// Encode a shader as tokens, end token included.
pub fn write(shader: &Shader) -> Result<Vec<u32>, WriteError> {
    let mut out = vec![shader.version.token()];
    for (index, inst) in shader.instructions.iter().enumerate() {
        write_instruction(inst, shader.version, index, &mut out)?;
    }
    out.push(END_TOKEN);
    Ok(out)
}

/// Append the tokens of one instruction (or comment block) of a `version` shader to `out`;
/// `index` is its place in the shader, for errors. [`write`](fn@write) is the version token,
/// this for each instruction, and [`END_TOKEN`]; on an error `out` is left as it was. An encoder that does not hold a whole
/// shader (as `dxso asm` assembling a large listing) calls it as it goes.
pub fn write_instruction(
    inst: &Instruction,
    version: Version,
    index: usize,
    out: &mut Vec<u32>,
) -> Result<(), WriteError> {
    if inst.opcode == Opcode::Comment {
        if inst.imm.len() > 0x7FFF {
            return Err(WriteError::CommentTooLong {
                index,
                len: inst.imm.len(),
            });
        }
        out.push(0xFFFE | (inst.imm.len() as u32) << 16);
        out.extend_from_slice(&inst.imm);
        return Ok(());
    }
    let layout = inst.opcode.info().layout;
    let shape_ok = inst.opcode != Opcode::End
        && layout.has_dst() == inst.dst.is_some()
        && (layout == Layout::Dcl) == inst.decl.is_some()
        && inst.imm.len() == layout.imm_count()
        && (!version.has_length()
            || layout
                .src_counts(version)
                .contains(&(inst.srcs.len() as u8)));
    if !shape_ok {
        return Err(WriteError::Operands {
            index,
            opcode: inst.opcode,
            version,
        });
    }
    // The instruction token goes first; its length field is filled in once the body is out.
    let at = out.len();
    out.push(0);
    let sm2 = version.has_length();
    let body = push_body(inst, sm2, index, out).and_then(|()| {
        let length = if sm2 { out.len() - at - 1 } else { 0 };
        if length > 15 {
            return Err(WriteError::TooLong {
                index,
                opcode: inst.opcode,
                needed: length,
            });
        }
        Ok(length)
    });
    let length = match body {
        Ok(length) => length,
        Err(e) => {
            out.truncate(at);
            return Err(e);
        }
    };
    out[at] = inst.opcode as u32
        | (inst.control as u32) << 16
        | (length as u32) << 24
        | if inst.predicate.is_some() {
            PREDICATED_BIT
        } else {
            0
        }
        | if inst.coissue { COISSUE_BIT } else { 0 };
    Ok(())
}

/// Encode as little-endian bytes.
pub fn write_bytes(shader: &Shader) -> Result<Vec<u8>, WriteError> {
    Ok(write(shader)?
        .into_iter()
        .flat_map(u32::to_le_bytes)
        .collect())
}

fn reg_bits(reg: Register, index: usize) -> Result<u32, WriteError> {
    if reg.number > reg.kind.max_number() {
        return Err(WriteError::RegisterNumber {
            index,
            kind: reg.kind,
            number: reg.number,
        });
    }
    let (ty, number) = reg.kind.to_type(reg.number);
    Ok(PARAM_BIT | (ty & 7) << 28 | (ty & 0x18) << 8 | number)
}

fn push_src(body: &mut Vec<u32>, s: &Src, sm2: bool, index: usize) -> Result<(), WriteError> {
    let t = reg_bits(s.reg, index)? | (s.swizzle.0 as u32) << 16 | (s.modifier as u32) << 24;
    push_param(body, t, s.relative, sm2, index)
}

/// The parameter tokens and immediates of an instruction, in token order.
fn push_body(
    inst: &Instruction,
    sm2: bool,
    index: usize,
    out: &mut Vec<u32>,
) -> Result<(), WriteError> {
    if let Some(d) = inst.decl {
        out.push(d.token());
    }
    if let Some(d) = &inst.dst {
        let t = reg_bits(d.reg, index)?
            | (d.mask.0 as u32 & 0xF) << 16
            | (d.modifiers as u32 & 0xF) << 20
            | (d.shift as u32 & 0xF) << 24;
        push_param(out, t, d.relative, sm2, index)?;
    }
    if let Some(p) = &inst.predicate {
        push_src(out, p, sm2, index)?;
    }
    out.extend_from_slice(&inst.imm);
    for s in &inst.srcs {
        push_src(out, s, sm2, index)?;
    }
    Ok(())
}

fn push_param(
    body: &mut Vec<u32>,
    t: u32,
    relative: Option<Relative>,
    sm2: bool,
    index: usize,
) -> Result<(), WriteError> {
    match relative {
        None => body.push(t),
        Some(rel) => {
            body.push(t | RELATIVE_BIT);
            if sm2 {
                let r = reg_bits(rel.reg, index)?;
                body.push(r | (rel.swizzle.0 as u32) << 16);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_the_predicated_example_from_the_spec() {
        // bytecode.md §8: setp_gt p0, r0, r1 / (!p0) add r2, r2, r3 in vs_2_x.
        let tokens = [
            0xFFFE0201, 0x0301005E, 0xB00F1000, 0x80E40000, 0x80E40001, 0x14000002, 0x800F0002,
            0xBDE41000, 0x80E40002, 0x80E40003, END_TOKEN,
        ];
        let s = read(&tokens).unwrap();
        assert_eq!(s.instructions.len(), 2);
        assert_eq!(s.instructions[0].opcode, Opcode::Setp);
        assert_eq!(s.instructions[0].comparison(), Some(Comparison::Gt));
        let p = s.instructions[1].predicate.unwrap();
        assert_eq!(p.reg.kind, RegisterKind::Predicate);
        assert_eq!(p.modifier, SrcModifier::Not);
        assert_eq!(write(&s).unwrap(), tokens);
    }

    #[test]
    fn relative_constant_and_const2_files() {
        // mov r0, -c0[a0.w+5].x (vs_2_0): src 0xA1002005, rel 0xB0FF0000.
        let tokens = [
            0xFFFE0200, 0x03000001, 0x800F0000, 0xA1002005, 0xB0FF0000, 0x02000001, 0x800F0000,
            0xB0E40801, END_TOKEN,
        ];
        let s = read(&tokens).unwrap();
        let src = s.instructions[0].srcs[0];
        assert_eq!(src.reg, Register::new(RegisterKind::Const, 5));
        assert_eq!(src.modifier, SrcModifier::Neg);
        assert_eq!(src.relative, Some(Relative::a0(3)));
        assert_eq!(s.instructions[1].srcs[0].reg.number, 2049);
        assert_eq!(write(&s).unwrap(), tokens);
    }

    #[test]
    fn comments_survive() {
        let tokens = [0xFFFE0300, 0x0002FFFE, 0x42415443, 0xFFFFFFFF, END_TOKEN];
        let s = read(&tokens).unwrap();
        assert_eq!(s.instructions[0].imm, vec![0x42415443, 0xFFFFFFFF]);
        assert_eq!(write(&s).unwrap(), tokens);
    }

    #[test]
    fn errors_carry_offsets() {
        let e = read(&[0xFFFE0300, 0x02000001, 0x800F0000]).unwrap_err();
        assert_eq!(e.kind, ReadErrorKind::Truncated);
        let e = read(&[0xFFFE0300, 0x00000031, END_TOKEN]).unwrap_err();
        assert_eq!((e.offset, e.kind), (1, ReadErrorKind::UnknownOpcode(49)));
        let e = read(&[0xFFFE0300, 0x00000000]).unwrap_err();
        assert_eq!((e.offset, e.kind), (2, ReadErrorKind::MissingEnd));
        let e = read(&[0x12345678]).unwrap_err();
        assert_eq!(e.kind, ReadErrorKind::BadVersion(0x12345678));
        let e = read(&[0xFFFE0300, 0x01000001, 0x800F0000, END_TOKEN]).unwrap_err();
        assert!(matches!(e.kind, ReadErrorKind::OperandCount { .. }), "{e}");
        let e = read_bytes(&[0, 3, 0xFE]).unwrap_err();
        assert_eq!(e.kind, ReadErrorKind::ByteLength(3));
    }

    #[test]
    fn odd_relative_registers_survive() {
        // A relative token naming CONST2 (type 11, number 0): loss-free even though invalid.
        let tokens = [
            0xFFFE0300, 0x03000001, 0x800F0000, 0xA0E4200A, 0xB0000800, END_TOKEN,
        ];
        let s = read(&tokens).unwrap();
        assert_eq!(
            s.instructions[0].srcs[0].relative.unwrap().reg,
            Register::new(RegisterKind::Const, 2048)
        );
        assert_eq!(write(&s).unwrap(), tokens);
    }

    #[test]
    fn sm1_has_no_length_and_implicit_a0() {
        // vs_1_1: mov r0, c0[a0.x]: relative bit set, no extra token.
        let tokens = [0xFFFE0101, 0x00000001, 0x800F0000, 0xA0E42000, END_TOKEN];
        let s = read(&tokens).unwrap();
        assert_eq!(s.instructions[0].srcs[0].relative, Some(Relative::a0(0)));
        assert_eq!(write(&s).unwrap(), tokens);
    }
}
