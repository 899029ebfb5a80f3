//! Arithmetic and texture instructions as HLSL statements.

use crate::Error;
use crate::ctx::{Ctx, Helper};
use crate::expr::{self, COMPARE, E, TERNARY, call, float_ty};
use dxso::Opcode;
use dxso::ir::{Comparison, Instruction, RegisterKind, Src, TextureType};
use dxso::opcodes::{TEXLD_BIAS, TEXLD_PROJECT};

/// The HLSL operator of a comparison.
pub(crate) fn cmp_op(c: Comparison) -> &'static str {
    match c {
        Comparison::Gt => ">",
        Comparison::Eq => "==",
        Comparison::Ge => ">=",
        Comparison::Lt => "<",
        Comparison::Ne => "!=",
        Comparison::Le => "<=",
    }
}

impl Ctx<'_> {
    /// Source `k` of `inst` for the destination's channels.
    fn s(&mut self, inst: &Instruction, k: usize) -> Result<E, Error> {
        let chans = Ctx::channels(inst.dst.map_or(0xF, |d| d.mask.0));
        let src = *inst.srcs.get(k).ok_or_else(|| missing(inst))?;
        self.src(&src, &chans)
    }

    /// Source `k` of `inst` read at channels `0 .. n` (dot products, coordinates).
    pub(crate) fn s_n(&mut self, inst: &Instruction, k: usize, n: usize) -> Result<E, Error> {
        let src = *inst.srcs.get(k).ok_or_else(|| missing(inst))?;
        self.src(&src, &(0..n).collect::<Vec<_>>())
    }

    /// The statements of an arithmetic or texture instruction; `None` when `inst` is not
    /// one (flow control, declarations, ps_1_x texture addressing).
    pub(crate) fn arithmetic(&mut self, inst: &Instruction) -> Result<Option<Vec<String>>, Error> {
        if inst.opcode == Opcode::TexKill {
            return self.texkill(inst).map(Some);
        }
        match self.value(inst)? {
            Some(v) => self.assign(inst, v).map(Some),
            None => Ok(None),
        }
    }

    /// The value an arithmetic or texture instruction computes (before its destination's
    /// modifiers); `None` when `inst` is not one.
    pub(crate) fn value(&mut self, inst: &Instruction) -> Result<Option<E>, Error> {
        use Opcode as O;
        let chans = Ctx::channels(inst.dst.map_or(0xF, |d| d.mask.0));
        let w = chans.len();
        let v = match inst.opcode {
            O::Mov | O::MovA => {
                let a = self.s(inst, 0)?;
                let to_a0 = inst.dst.is_some_and(|d| d.reg.kind == RegisterKind::Addr);
                if to_a0 && inst.opcode == O::Mov && self.shader.version.major < 2 {
                    // vs_1_1 `mov a0.x` rounds toward -inf.
                    a.call("floor")
                } else {
                    a
                }
            }
            O::Add => expr::add(&self.s(inst, 0)?, &self.s(inst, 1)?),
            O::Sub => expr::add(&self.s(inst, 0)?, &self.s(inst, 1)?.neg()),
            O::Mul => expr::mul(&self.s(inst, 0)?, &self.s(inst, 1)?),
            O::Mad => {
                let p = expr::mul(&self.s(inst, 0)?, &self.s(inst, 1)?);
                expr::add(&p, &self.s(inst, 2)?)
            }
            O::Min | O::Max => {
                let f = if inst.opcode == O::Min { "min" } else { "max" };
                call(f, &[&self.s(inst, 0)?, &self.s(inst, 1)?], w)
            }
            O::Slt | O::Sge => {
                let op = if inst.opcode == O::Slt { "<" } else { ">=" };
                let c = expr::bin(&self.s(inst, 0)?, op, &self.s(inst, 1)?, COMPARE);
                E::new(
                    format!("({}){}", float_ty(w), c.at(expr::ATOM)),
                    expr::UNARY,
                    w,
                )
            }
            O::Abs => self.s(inst, 0)?.call("abs"),
            O::Frc => self.s(inst, 0)?.call("frac"),
            O::Sgn => self.s(inst, 0)?.call("sign"),
            O::Lrp => {
                let (a, b, c) = (self.s(inst, 0)?, self.s(inst, 1)?, self.s(inst, 2)?);
                call("lerp", &[&c, &b, &a], w)
            }
            O::Cmp => {
                let (a, b, c) = (self.s(inst, 0)?, self.s(inst, 1)?, self.s(inst, 2)?);
                ternary(&a, ">=", "0", &b, &c)
            }
            O::Cnd => {
                let v = self.shader.version;
                let a = if v.major == 1 && v.minor < 4 {
                    // ps_1_1 .. ps_1_3: the condition is the first operand's alpha.
                    let src = *inst.srcs.first().ok_or_else(|| missing(inst))?;
                    self.src(&src, &[3])?
                } else {
                    self.s(inst, 0)?
                };
                let (b, c) = (self.s(inst, 1)?, self.s(inst, 2)?);
                ternary(&a, ">", "0.5", &b, &c)
            }
            O::Dp3 | O::Dp4 => {
                let n = if inst.opcode == O::Dp3 { 3 } else { 4 };
                let (a, b) = (self.s_n(inst, 0, n)?, self.s_n(inst, 1, n)?);
                call("dot", &[&a, &b], 1)
            }
            O::Dp2Add => {
                let (a, b) = (self.s_n(inst, 0, 2)?, self.s_n(inst, 1, 2)?);
                let c = self.s_n(inst, 2, 1)?;
                expr::add(&call("dot", &[&a, &b], 1), &c)
            }
            O::Rcp => expr::div(&E::atom("1", 1), &self.s_n(inst, 0, 1)?),
            O::Rsq => self.s_n(inst, 0, 1)?.call("abs").call("rsqrt"),
            O::Exp | O::ExpP => self.s_n(inst, 0, 1)?.call("exp2"),
            O::Log | O::LogP => self.s_n(inst, 0, 1)?.call("abs").call("log2"),
            O::Pow => {
                let (a, b) = (self.s_n(inst, 0, 1)?, self.src1_scalar(inst)?);
                call("pow", &[&a.call("abs"), &b], 1)
            }
            O::Nrm => {
                if chans.iter().all(|&c| c < 3) {
                    // x, y, z written: w is not read.
                    self.s_n(inst, 0, 3)?.call("normalize").swizzle(&chans)
                } else {
                    let a = self.s_n(inst, 0, 4)?;
                    let xyz = a.swizzle(&[0, 1, 2]);
                    let len = call("dot", &[&xyz, &xyz], 1).call("rsqrt");
                    expr::mul(&a.swizzle(&chans), &len)
                }
            }
            O::Crs => {
                let (a, b) = (self.s_n(inst, 0, 3)?, self.s_n(inst, 1, 3)?);
                call("cross", &[&a, &b], 3).swizzle(&chans)
            }
            O::SinCos => {
                let a = self.s_n(inst, 0, 1)?;
                let parts: Vec<String> = chans
                    .iter()
                    .map(|&c| match c {
                        0 => format!("cos({})", a.s),
                        1 => format!("sin({})", a.s),
                        _ => "0".into(),
                    })
                    .collect();
                if parts.len() == 1 {
                    E::atom(parts[0].clone(), 1)
                } else {
                    E::atom(format!("{}({})", float_ty(w), parts.join(", ")), w)
                }
            }
            O::Lit => {
                self.helpers.insert(Helper::Lit);
                call("dx9_lit", &[&self.s_n(inst, 0, 4)?], 4).swizzle(&chans)
            }
            O::Dst => {
                // (1, a.y * b.y, a.z, b.w): only those components are read.
                let (s0, s1) = (inst.srcs.first(), inst.srcs.get(1));
                let (s0, s1) = (
                    *s0.ok_or_else(|| missing(inst))?,
                    *s1.ok_or_else(|| missing(inst))?,
                );
                let (ay, az) = (self.src(&s0, &[1])?, self.src(&s0, &[2])?);
                let (by, bw) = (self.src(&s1, &[1])?, self.src(&s1, &[3])?);
                let y = expr::mul(&ay, &by);
                let s = format!("float4(1, {}, {}, {})", y.s, az.s, bw.s);
                E::atom(s, 4).swizzle(&chans)
            }
            O::M4x4 | O::M4x3 | O::M3x4 | O::M3x3 | O::M3x2 => self.matrix_macro(inst)?,
            O::Setp => {
                let c = inst.comparison().unwrap_or(Comparison::Gt);
                expr::bin(&self.s(inst, 0)?, cmp_op(c), &self.s(inst, 1)?, COMPARE)
            }
            O::Dsx => self.s(inst, 0)?.call("ddx"),
            O::Dsy => self.s(inst, 0)?.call("ddy"),
            O::Tex | O::TexLdl | O::TexLdd if self.shader.version.major >= 2 => {
                self.sample(inst)?
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    /// The second operand of `pow`, a scalar.
    fn src1_scalar(&mut self, inst: &Instruction) -> Result<E, Error> {
        let src = *inst.srcs.get(1).ok_or_else(|| missing(inst))?;
        self.src(&src, &[0])
    }

    /// `m4x4`/`m4x3`/`m3x4`/`m3x3`/`m3x2`: a matrix product when the rows are a
    /// parameter's, otherwise one `dot` a row.
    fn matrix_macro(&mut self, inst: &Instruction) -> Result<E, Error> {
        let rows = inst.opcode.matrix_rows().unwrap_or(4) as usize;
        let n = inst.opcode.matrix_width().unwrap_or(4) as usize;
        let vector = *inst.srcs.first().ok_or_else(|| missing(inst))?;
        let m = *inst.srcs.get(1).ok_or_else(|| missing(inst))?;
        if let Some(e) = self.matrix_product(&vector, n, &m, rows)? {
            let chans = Ctx::channels(inst.dst.map_or(0xF, |d| d.mask.0));
            return Ok(e.swizzle(&chans[..chans.len().min(e.w)]));
        }
        let a = self.s_n(inst, 0, n)?;
        let mut dots = Vec::new();
        for r in 0..rows {
            let mut row = m;
            row.reg.number += r as u32;
            let b = self.src(&row, &(0..n).collect::<Vec<_>>())?;
            dots.push(call("dot", &[&a, &b], 1).s);
        }
        Ok(E::atom(
            format!("{}({})", float_ty(rows), dots.join(", ")),
            rows,
        ))
    }

    /// `rows` dot products of `vector` (its first `n` components) with the consecutive
    /// registers from `first` as one `mul`, when those registers are rows or columns of one
    /// matrix parameter (or of the `c` array).
    pub(crate) fn matrix_product(
        &mut self,
        vector: &Src,
        n: usize,
        first: &Src,
        rows: usize,
    ) -> Result<Option<E>, Error> {
        use dxso::ir::SrcModifier;
        if first.reg.kind != RegisterKind::Const
            || first.relative.is_some()
            || first.modifier != SrcModifier::None
            || first.swizzle != dxso::ir::Swizzle::IDENTITY
        {
            return Ok(None);
        }
        let regs: Vec<u32> = (0..rows as u32).map(|k| first.reg.number + k).collect();
        if regs.iter().any(|r| self.defs.float.contains_key(r)) {
            return Ok(None);
        }
        let Some(m) = self.uniforms.matrix_of(&regs, n) else {
            return Ok(None);
        };
        let a = self.src(vector, &(0..n).collect::<Vec<_>>())?;
        let product = if m.columns {
            call("mul", &[&a, &E::atom(m.expr.clone(), 4)], m.out)
        } else {
            call("mul", &[&E::atom(m.expr.clone(), 4), &a], m.out)
        };
        let sel: Vec<usize> = (m.from..m.from + rows).collect();
        Ok(Some(product.swizzle(&sel)))
    }

    fn texkill(&mut self, inst: &Instruction) -> Result<Vec<String>, Error> {
        let d = inst.dst.ok_or_else(|| missing(inst))?;
        let v = self.shader.version;
        let chans = if v.major == 1 {
            vec![0, 1, 2]
        } else {
            Ctx::channels(d.mask.0)
        };
        let e = self.read(d.reg, None, &chans)?;
        Ok(vec![format!("clip({});", e.s)])
    }

    /// `texld`/`texldp`/`texldb`/`texldl`/`texldd` of ps_2_0 and later (and vs_3_0's
    /// `texldl`).
    fn sample(&mut self, inst: &Instruction) -> Result<E, Error> {
        let sampler = *inst.srcs.get(1).ok_or_else(|| missing(inst))?;
        let info = self
            .uniforms
            .samplers
            .get(&sampler.reg.number)
            .cloned()
            .ok_or(Error::Unsupported(crate::Unsupported::UndeclaredSampler(
                sampler.reg.number,
            )))?;
        let (suffix, n) = match info.ty {
            TextureType::OneD => ("1D", 1),
            TextureType::Cube => ("CUBE", 3),
            TextureType::Volume => ("3D", 3),
            _ => ("2D", 2),
        };
        let s = E::atom(info.name.clone(), 1);
        let e = match inst.opcode {
            Opcode::TexLdl => {
                let c = self.s_n(inst, 0, 4)?;
                call(&format!("tex{suffix}lod"), &[&s, &c], 4)
            }
            Opcode::TexLdd => {
                let c = self.s_n(inst, 0, n)?;
                let dx = self.s_n(inst, 2, n)?;
                let dy = self.s_n(inst, 3, n)?;
                call(&format!("tex{suffix}grad"), &[&s, &c, &dx, &dy], 4)
            }
            _ if inst.control == TEXLD_PROJECT && info.ty == TextureType::Cube => {
                // No projective cube lookup in SPIR-V: the division written out.
                let c = self.s_n(inst, 0, 4)?;
                let q = expr::div(&c.swizzle(&[0, 1, 2]), &c.swizzle(&[3]));
                call("texCUBE", &[&s, &q], 4)
            }
            _ if inst.control == TEXLD_PROJECT => {
                let c = self.s_n(inst, 0, 4)?;
                call(&format!("tex{suffix}proj"), &[&s, &c], 4)
            }
            _ if inst.control == TEXLD_BIAS => {
                let c = self.s_n(inst, 0, 4)?;
                call(&format!("tex{suffix}bias"), &[&s, &c], 4)
            }
            _ => {
                let c = self.s_n(inst, 0, n)?;
                call(&format!("tex{suffix}"), &[&s, &c], 4)
            }
        };
        let chans = Ctx::channels(inst.dst.map_or(0xF, |d| d.mask.0));
        let comps: Vec<usize> = chans.iter().map(|&c| sampler.swizzle.get(c)).collect();
        Ok(e.swizzle(&comps))
    }
}

/// `a op k ? b : c`, componentwise.
fn ternary(a: &E, op: &str, k: &str, b: &E, c: &E) -> E {
    let cond = expr::bin(a, op, &E::atom(k, 1), COMPARE);
    E::new(
        format!(
            "{} ? {} : {}",
            cond.at(COMPARE),
            b.at(COMPARE),
            c.at(TERNARY)
        ),
        TERNARY,
        a.w.max(b.w).max(c.w),
    )
}

fn missing(inst: &Instruction) -> Error {
    Error::Unsupported(crate::Unsupported::MissingOperands(inst.opcode))
}

/// Whether source `s` is exactly register `r`'s components read by no modifier.
#[allow(dead_code)]
pub(crate) fn plain(s: &Src) -> bool {
    s.modifier == dxso::ir::SrcModifier::None && s.relative.is_none()
}
