//! Declarations (`dcl_*`) and constant definitions (`def`, `defi`, `defb`).

use super::cursor::{Cursor, LineResult};
use super::operand::{dst_operand, result_modifiers};
use crate::ir::*;
use crate::opcodes::{Layout, Opcode};
use crate::registers::register_name;

pub(super) fn dcl(
    cur: &mut Cursor,
    version: Version,
    parts: &[&str],
    at: usize,
) -> LineResult<Instruction> {
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

pub(super) fn def_values(
    cur: &mut Cursor,
    inst: &mut Instruction,
    version: Version,
) -> LineResult<()> {
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
