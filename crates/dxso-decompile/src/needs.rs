//! What a shader reads from its constant files and samplers, and the constants its
//! `def`/`defi`/`defb` give: the walk that decides which uniforms to declare.

use crate::ctx::Defs;
use crate::uniforms::Needs;
use dxso::Opcode;
use dxso::ir::{RegisterKind, Shader, TextureType};

/// The `def`/`defi`/`defb` values of a shader.
pub(crate) fn defs(shader: &Shader) -> Defs {
    let mut d = Defs::default();
    for inst in &shader.instructions {
        let (Some(dst), imm) = (inst.dst, &inst.imm) else {
            continue;
        };
        let n = dst.reg.number;
        match inst.opcode {
            Opcode::Def if imm.len() == 4 => {
                d.float
                    .insert(n, [0, 1, 2, 3].map(|k| f32::from_bits(imm[k])));
            }
            Opcode::DefI if imm.len() == 4 => {
                d.int.insert(n, [0, 1, 2, 3].map(|k| imm[k] as i32));
            }
            Opcode::DefB if !imm.is_empty() => {
                d.bool_.insert(n, imm[0] != 0);
            }
            _ => {}
        }
    }
    d
}

/// The texture stage a ps_1_x texture instruction samples (its destination's number), and
/// the texture type it needs.
pub(crate) fn ps1x_stage(shader: &Shader, op: Opcode) -> Option<TextureType> {
    let v = shader.version;
    if !(v.is_pixel() && v.major == 1) {
        return None;
    }
    Some(match op {
        Opcode::TexM3x3Tex | Opcode::TexM3x3Spec | Opcode::TexM3x3VSpec => TextureType::Cube,
        Opcode::TexReg2Rgb => TextureType::Volume,
        Opcode::Tex
        | Opcode::TexBem
        | Opcode::TexBemL
        | Opcode::TexReg2Ar
        | Opcode::TexReg2Gb
        | Opcode::TexM3x2Tex
        | Opcode::TexDp3Tex => TextureType::TwoD,
        _ => return None,
    })
}

/// What `shader` reads, given its definitions.
pub(crate) fn needs(shader: &Shader, defs: &Defs) -> Needs {
    let mut n = Needs {
        file_end: if shader.version.is_vertex() {
            if shader.version.major >= 2 { 255 } else { 95 }
        } else if shader.version.major >= 3 {
            223
        } else {
            31
        },
        ..Needs::default()
    };
    for inst in &shader.instructions {
        match inst.opcode {
            Opcode::Comment | Opcode::Def | Opcode::DefI | Opcode::DefB => continue,
            Opcode::Dcl => {
                if let (Some(d), Some(decl)) = (inst.dst, inst.decl)
                    && d.reg.kind == RegisterKind::Sampler
                {
                    let ty = TextureType::from_u32(decl.texture_type as u32)
                        .unwrap_or(TextureType::TwoD);
                    n.samplers.insert(d.reg.number, ty);
                }
                continue;
            }
            _ => {}
        }
        if let (Some(ty), Some(d)) = (ps1x_stage(shader, inst.opcode), inst.dst) {
            n.samplers.entry(d.reg.number).or_insert(ty);
        }
        let rows = inst.opcode.matrix_rows().unwrap_or(1);
        for (k, s) in inst.srcs.iter().enumerate() {
            let comps = inst.src_components(k);
            match s.reg.kind {
                RegisterKind::Const => {
                    if s.relative.is_some() {
                        n.relative.push((s.reg.number, comps));
                        continue;
                    }
                    let count = if k == 1 { rows } else { 1 };
                    for r in s.reg.number..s.reg.number + count {
                        if !defs.float.contains_key(&r) {
                            *n.float.entry(r).or_insert(0) |= comps;
                        }
                    }
                }
                RegisterKind::ConstInt if !defs.int.contains_key(&s.reg.number) => {
                    n.int.push(s.reg.number)
                }
                RegisterKind::ConstBool if !defs.bool_.contains_key(&s.reg.number) => {
                    n.bool_.push(s.reg.number)
                }
                RegisterKind::Sampler => {
                    n.samplers.entry(s.reg.number).or_insert(TextureType::TwoD);
                }
                _ => {}
            }
        }
    }
    n.int.sort_unstable();
    n.int.dedup();
    n.bool_.sort_unstable();
    n.bool_.dedup();
    n
}
