//! Operands: registers with their relative addressing, source and result modifiers,
//! swizzles and write masks.

use super::cursor::{Cursor, LineResult};
use crate::ir::*;
use crate::registers::{file_size, parse_register_name, register_name};
use crate::text::preprocess::is_ident_start;

/// A register name with an optional `[index]`, checked against the version.
pub(super) fn register_operand(
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

pub(super) fn dst_operand(cur: &mut Cursor, version: Version) -> LineResult<Dst> {
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

pub(super) fn src_operand(cur: &mut Cursor, version: Version) -> LineResult<Src> {
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

/// Result modifiers (`_sat`, `_pp`, `_centroid`) and a shift (`_x2` .. `_d8`).
pub(super) fn result_modifiers(
    parts: &[&str],
    version: Version,
    at: usize,
) -> LineResult<(u8, u8)> {
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
