//! IR -> the listing Microsoft's disassembler prints.
//!
//! Conventions (as in `../shared/corpus/dx9-asm`): four-space indentation; `.xyzw` swizzles
//! and masks omitted; a replicated swizzle printed as one letter, any other as four;
//! `dcl_texcoord` for usage index 0; relative operands as `c96[a0.w]`; `def` values printed
//! like C's `%.9g` with a three-digit exponent (`1.5e-005`), which reads back to the same bits.
//!
//! A shader with a constant table (CTAB) gets the header Microsoft's disassembler prints from
//! it above the listing (`// Parameters:`, `// Registers:`; see
//! [`crate::text::print_header`]); the table's exact bytes stay in its `// @comment` line
//! below.
//!
//! Two extensions keep the text loss-free, both invisible to other tools: a non-finite `def`
//! value prints as its bit pattern (`0x7fc00000`), and a comment block of the token stream
//! prints as a `// @comment` line listing its DWORDs, which dxso's assembler turns back into
//! the same block (other assemblers see a comment).
//!
//! [`print_styled`] with [`Style::Unity`] prints the spelling of the Unity 4 era listings
//! instead (see `unity.rs`); either style reassembles to the same tokens.

use super::unity::ConstReads;
use crate::ctab::ConstantTable;
use crate::ir::*;
use crate::opcodes::{Layout, Opcode};
use crate::registers::register_name;
use std::fmt::Write;
use std::io;

/// Marker of a comment line that carries a token-stream comment block.
pub const COMMENT_DIRECTIVE: &str = "// @comment";

/// Whose listings a printed shader looks like.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Style {
    /// Microsoft's disassembler: `def c0, 0.5, 1, 0, 0`, `dcl_texcoord v0` (the default).
    #[default]
    Microsoft,
    /// The Unity 4 era listings: `def c0, 0.50000000, 1.00000000, 0, 0` (a zero component no
    /// instruction reads as `0`), `dcl_texcoord0 v0.xyzw` (the usage index always, and in a
    /// pixel shader the input's mask always).
    Unity,
}

/// Print a whole shader as Microsoft's disassembler does.
pub fn print(shader: &Shader) -> String {
    print_styled(shader, Style::Microsoft)
}

/// Print a whole shader in `style`.
pub fn print_styled(shader: &Shader, style: Style) -> String {
    let unity = (style == Style::Unity).then(|| ConstReads::of(shader));
    let mut out = String::new();
    push_preamble(
        shader.constant_table().ok().flatten().as_ref(),
        shader.version,
        &mut out,
    );
    for inst in &shader.instructions {
        push_line(inst, shader.version, unity.as_ref(), &mut out);
    }
    out
}

/// Writes a listing as [`print`](fn@print) prints it, one instruction at a time, to an
/// [`io::Write`]: for a shader too large to hold whole, as `dxso dis` reads a large token
/// stream with [`crate::binary::instructions`]. Holds one line at a time.
///
/// ```
/// let shader = dxso::text::parse("vs_2_0\nmov oPos, c0\n").unwrap();
/// let mut w = dxso::text::ListingWriter::new(Vec::new(), shader.version, None).unwrap();
/// for inst in &shader.instructions {
///     w.instruction(inst).unwrap();
/// }
/// assert_eq!(w.into_inner(), dxso::text::print(&shader).into_bytes());
/// ```
pub struct ListingWriter<W: io::Write> {
    out: W,
    version: Version,
    line: String,
}

impl<W: io::Write> ListingWriter<W> {
    /// Start a listing of a `version` shader: the header of its constant table (the one
    /// [`Shader::constant_table`] reads, when there is one) and the version line.
    pub fn new(mut out: W, version: Version, table: Option<&ConstantTable>) -> io::Result<Self> {
        let mut line = String::new();
        push_preamble(table, version, &mut line);
        out.write_all(line.as_bytes())?;
        Ok(ListingWriter { out, version, line })
    }

    /// Write the line of one instruction or comment block.
    pub fn instruction(&mut self, inst: &Instruction) -> io::Result<()> {
        self.line.clear();
        push_line(inst, self.version, None, &mut self.line);
        self.out.write_all(self.line.as_bytes())
    }

    /// The writer, with everything written to it.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// The constant table's header (if any) and the version line.
fn push_preamble(table: Option<&ConstantTable>, version: Version, out: &mut String) {
    if let Some(table) = table {
        super::header::print_header(table, out);
        out.push('\n');
    }
    let _ = writeln!(out, "    {version}");
}

/// One instruction's line, indented, newline included.
fn push_line(inst: &Instruction, version: Version, unity: Option<&ConstReads>, out: &mut String) {
    out.push_str("    ");
    if inst.opcode == Opcode::Comment {
        out.push_str(COMMENT_DIRECTIVE);
        for w in &inst.imm {
            let _ = write!(out, " {w:08x}");
        }
        if let Some(tag) = fourcc(&inst.imm) {
            let _ = write!(out, " // {tag}");
        }
    } else {
        out.push_str(&instruction(inst, version, unity));
    }
    out.push('\n');
}

fn fourcc(payload: &[u32]) -> Option<String> {
    let bytes = payload.first()?.to_le_bytes();
    bytes
        .iter()
        .all(|b| b.is_ascii_alphanumeric())
        .then(|| bytes.iter().map(|&b| b as char).collect())
}

/// Print one instruction as Microsoft's disassembler does (no indentation, no newline).
pub fn print_instruction(inst: &Instruction, version: Version) -> String {
    instruction(inst, version, None)
}

/// One instruction; in the Unity style (`unity` given: the constants' components read).
fn instruction(inst: &Instruction, version: Version, unity: Option<&ConstReads>) -> String {
    let mut s = String::new();
    if inst.coissue {
        s.push('+');
    }
    if let Some(p) = &inst.predicate {
        let _ = write!(s, "({}) ", src(p, version));
    }
    let layout = inst.opcode.info().layout;
    if let Some(d) = inst.decl.filter(|_| layout == Layout::Dcl) {
        s.push_str(&dcl_mnemonic(
            d,
            inst.dst.as_ref(),
            version,
            unity.is_some(),
        ));
    } else {
        s.push_str(&inst.opcode.mnemonic(inst.control, version));
    }
    if let Some(d) = &inst.dst {
        s.push_str(&result_modifiers(d));
    }
    let mut ops: Vec<String> = Vec::new();
    if let Some(d) = &inst.dst {
        let mut text = dst(d, version);
        if unity.is_some() && layout == Layout::Dcl && is_pixel_input(d, version) {
            text = format!(
                "{}.{}",
                reg_with_index(d.reg, d.relative),
                mask_letters(d.mask)
            );
        }
        ops.push(text);
    }
    match layout {
        Layout::Def => match (unity, &inst.dst) {
            (Some(reads), Some(d)) => ops.extend(reads.def_values(d.reg.number, &inst.imm)),
            _ => ops.extend(inst.imm.iter().map(|&b| float(f32::from_bits(b)))),
        },
        Layout::DefI => ops.extend(inst.imm.iter().map(|&b| (b as i32).to_string())),
        Layout::DefB => ops.extend(inst.imm.iter().map(|&b| match b {
            0 => "false".to_string(),
            1 => "true".to_string(),
            n => n.to_string(),
        })),
        _ => {}
    }
    ops.extend(inst.srcs.iter().map(|x| src(x, version)));
    if !ops.is_empty() {
        s.push(' ');
        s.push_str(&ops.join(", "));
    }
    s
}

/// Whether a `dcl` declares a pixel shader's input register (`v#`, `t#`).
fn is_pixel_input(d: &Dst, version: Version) -> bool {
    version.is_pixel() && matches!(d.reg.kind, RegisterKind::Input | RegisterKind::Texture)
}

/// `dcl`, `dcl_2d`, `dcl_texcoord1`, ...; `index0` writes a usage index of 0 too, except on
/// `dcl_position` of an output.
fn dcl_mnemonic(d: Decl, dst: Option<&Dst>, version: Version, index0: bool) -> String {
    let reg = dst.map(|d| d.reg.kind);
    if reg == Some(RegisterKind::Sampler) || d.texture_type != 0 {
        return match TextureType::from_u32(d.texture_type as u32) {
            Some(TextureType::Unknown) | None if d.usage == 0 && d.usage_index == 0 => "dcl".into(),
            Some(t) if d.usage == 0 && d.usage_index == 0 => format!("dcl_{}", t.name()),
            _ => format!("dcl_{}", raw_usage(d)),
        };
    }
    let plain = d.usage == 0 && d.usage_index == 0;
    if plain && (version.is_pixel() && version.major < 3 || reg == Some(RegisterKind::MiscType)) {
        return "dcl".into();
    }
    match Usage::from_u32(d.usage as u32) {
        // The Unity listings keep `dcl_position o0` for a vertex shader's position output.
        Some(Usage::Position) if d.usage_index == 0 && reg == Some(RegisterKind::Output) => {
            "dcl_position".into()
        }
        Some(u) if d.usage_index == 0 && !index0 => format!("dcl_{}", u.name()),
        Some(u) => format!("dcl_{}{}", u.name(), d.usage_index),
        None => format!("dcl_{}", raw_usage(d)),
    }
}

/// Spelling for usage tokens with no assembler name (printed so the token is visible).
fn raw_usage(d: Decl) -> String {
    format!("usage{:08x}", d.token())
}

fn result_modifiers(d: &Dst) -> String {
    let mut s = String::new();
    s.push_str(match d.shift {
        1 => "_x2",
        2 => "_x4",
        3 => "_x8",
        15 => "_d2",
        14 => "_d4",
        13 => "_d8",
        _ => "",
    });
    if d.modifiers & RESULT_SATURATE != 0 {
        s.push_str("_sat");
    }
    if d.modifiers & RESULT_PARTIAL_PRECISION != 0 {
        s.push_str("_pp");
    }
    if d.modifiers & RESULT_CENTROID != 0 {
        s.push_str("_centroid");
    }
    s
}

const LETTERS: [char; 4] = ['x', 'y', 'z', 'w'];

fn mask(m: WriteMask) -> String {
    if m == WriteMask::ALL {
        return String::new();
    }
    format!(".{}", mask_letters(m))
}

fn mask_letters(m: WriteMask) -> String {
    (0..4).filter(|&c| m.has(c)).map(|c| LETTERS[c]).collect()
}

/// `.xyzw` omitted, a replicate printed as one letter, anything else as four.
pub fn swizzle(sw: Swizzle) -> String {
    if sw == Swizzle::IDENTITY {
        String::new()
    } else if sw.is_replicate() {
        format!(".{}", LETTERS[sw.get(0)])
    } else {
        let mut s = String::from(".");
        s.extend((0..4).map(|c| LETTERS[sw.get(c)]));
        s
    }
}

fn reg_with_index(reg: Register, rel: Option<Relative>) -> String {
    let mut s = register_name(reg.kind, reg.number);
    if let Some(r) = rel {
        let _ = write!(
            s,
            "[{}{}]",
            register_name(r.reg.kind, r.reg.number),
            swizzle(r.swizzle)
        );
    }
    s
}

fn dst(d: &Dst, _version: Version) -> String {
    let mut s = reg_with_index(d.reg, d.relative);
    s.push_str(&mask(d.mask));
    s
}

fn src(x: &Src, _version: Version) -> String {
    let (neg, base) = x.modifier.split_negate();
    let mut s = String::new();
    match base {
        SrcModifier::Comp => s.push_str("1 - "),
        SrcModifier::Not => s.push('!'),
        _ => {}
    }
    if neg {
        s.push('-');
    }
    s.push_str(&reg_with_index(x.reg, x.relative));
    s.push_str(match base {
        SrcModifier::Bias => "_bias",
        SrcModifier::Sign => "_bx2",
        SrcModifier::X2 => "_x2",
        SrcModifier::Dz => "_dz",
        SrcModifier::Dw => "_dw",
        SrcModifier::Abs => "_abs",
        _ => "",
    });
    s.push_str(&swizzle(x.swizzle));
    s
}

/// Format an f32 like C's `%.9g` with MSVC's three-digit exponent; non-finite values as their
/// bit pattern in hex (a dxso extension that its assembler reads back).
pub fn float(v: f32) -> String {
    if !v.is_finite() {
        return format!("0x{:08x}", v.to_bits());
    }
    // 9 significant digits always identify an f32 uniquely.
    general(v, 9)
}

/// C's `%.{digits}g` of a finite `v` with MSVC's three-digit exponent (`1.5e-005`).
pub(crate) fn general(v: f32, digits: usize) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{:.*e}", digits - 1, v as f64);
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("exponent is an integer");
    if !(-4..digits as i32).contains(&exp) {
        let m = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:03}", exp.abs())
    } else {
        let decimals = (digits as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{:.*}", decimals, v as f64)).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_the_microsoft_disassembler() {
        assert_eq!(float(1.0), "1");
        assert_eq!(float(0.5), "0.5");
        assert_eq!(float(1.055), "1.05499995");
        assert_eq!(float(-0.055), "-0.0549999997");
        assert_eq!(float(0.41666666), "0.416666657");
        assert_eq!(float(1e-4), "9.99999975e-005");
        assert_eq!(float(-1.5500992e-6), "-1.55009923e-006");
        assert_eq!(float(1024.0), "1024");
        assert_eq!(float(-0.0), "-0");
        assert_eq!(float(3.402_823_5e38), "3.40282347e+038");
        assert_eq!(float(f32::NAN), "0x7fc00000");
        assert_eq!(float(0.0625), "0.0625");
    }

    #[test]
    fn swizzles_print_short() {
        assert_eq!(swizzle(Swizzle::IDENTITY), "");
        assert_eq!(swizzle(Swizzle::replicate(3)), ".w");
        assert_eq!(swizzle(Swizzle(0x54)), ".xyyy");
        assert_eq!(swizzle(Swizzle(0x1B)), ".wzyx");
    }
}
