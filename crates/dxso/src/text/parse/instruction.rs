//! Statements: the version, and an instruction's opcode, modifiers and operands.

use super::cursor::{Cursor, LineResult};
use super::declaration::{dcl, def_values};
use super::operand::{dst_operand, result_modifiers, src_operand};
use crate::ir::*;
use crate::opcodes::{Layout, Opcode};

pub(super) fn parse_version(cur: &mut Cursor) -> LineResult<Version> {
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

pub(super) fn statement(cur: &mut Cursor, version: Version) -> LineResult<Instruction> {
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
