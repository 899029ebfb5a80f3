//! Arithmetic: each instruction in naga IR. `Strict` gives dxso-vm's results by the same
//! formulas, [`dxso::formula`]'s over naga expressions (`lanes`): a product with a zero
//! factor is +0 (C8), rcp/rsq of 0 give FLT_MAX (C5), log of 0 gives -FLT_MAX (C6),
//! min/max/slt/sge are the documented selects (C7), exp/log/pow dxso's own polynomials.
//! `Ieee` uses the plain operations (`*`, `min`, `exp2`, `dot`, ...).

use crate::Error;
use crate::func::{H, Shape, vec4};
use crate::regs::Tr;
use dxso::Opcode;
use dxso::formula as f;
use dxso::ir::{Comparison, Instruction};
use naga::{BinaryOperator as B, MathFunction as M, Scalar};

impl Tr {
    /// `a * b`; in Strict a zero factor gives +0 even against inf or NaN (C8).
    pub fn mul(&mut self, a: H, b: H, shape: Shape) -> H {
        if !self.strict {
            return self.fb.fmul(a, b);
        }
        f::mul(&mut self.lanes(shape), a, b)
    }

    /// dp2/dp3/dp4 of two `vec4`s, as a scalar: Strict sums the zero-rule products left to
    /// right as dxso-vm does.
    pub fn dot(&mut self, a: H, b: H, n: u32) -> H {
        if !self.strict {
            let (x, y) = if n == 4 {
                (a, b)
            } else {
                (self.fb.prefix(a, n as u8), self.fb.prefix(b, n as u8))
            };
            return self.fb.math_n(M::Dot, x, Some(y), None);
        }
        let x: Vec<H> = (0..n).map(|c| self.fb.index(a, c)).collect();
        let y: Vec<H> = (0..n).map(|c| self.fb.index(b, c)).collect();
        f::dot(&mut self.lanes(Shape::Scalar), &x, &y)
    }

    /// pow(x, y) (scalar): exp2(y * log2|x|) with the zero-factor rule (pow(0, 0) = 1).
    pub fn pow(&mut self, x: H, y: H) -> H {
        if !self.strict {
            return ieee_pow(&mut self.fb, x, y);
        }
        f::pow(&mut self.lanes(Shape::Scalar), x, y)
    }

    /// rcp, rsq, exp(p), log(p) of the scalar `x`.
    fn scalar_op(&mut self, op: Opcode, x: H) -> H {
        use Opcode as O;
        if self.strict {
            let l = &mut self.lanes(Shape::Scalar);
            return match op {
                O::Rcp => f::rcp(l, x),
                O::Rsq => f::rsq(l, x),
                O::Exp | O::ExpP => f::exp(l, x),
                _ => f::log(l, x),
            };
        }
        match op {
            O::Rcp => {
                let one = self.fb.f32(1.0);
                self.fb.bin(B::Divide, one, x)
            }
            O::Rsq => {
                let a = self.fb.math(M::Abs, x);
                self.fb.math(M::InverseSqrt, a)
            }
            O::Exp | O::ExpP => self.fb.math(M::Exp2, x),
            _ => {
                let a = self.fb.math(M::Abs, x);
                self.fb.math(M::Log2, a)
            }
        }
    }

    /// The instructions computed on values: everything but flow control and textures.
    /// Returns `Ok(false)` for an opcode it does not handle.
    #[allow(clippy::too_many_lines)] // a dispatch `match`: one arm per opcode
    pub fn arithmetic(&mut self, inst: &Instruction) -> Result<bool, Error> {
        use Opcode as O;
        let v4 = Shape::Vec4;
        let matrix = inst.opcode.matrix_rows().zip(inst.opcode.matrix_width());
        if let Some((rows, n)) = matrix {
            let a = self.src(&inst.srcs[0])?;
            let mut parts = Vec::new();
            for r in 0..4 {
                if r < rows {
                    let b = self.src_at(&inst.srcs[1], r)?;
                    parts.push(self.dot(a, b, n));
                } else {
                    parts.push(self.fb.f32(0.0));
                }
            }
            let v = self.fb.compose(&mut self.m, vec4(Scalar::F32), parts);
            self.write(inst, v)?;
            return Ok(true);
        }
        let srcs = |tr: &mut Tr, n: usize| -> Result<Vec<H>, Error> {
            inst.srcs.iter().take(n).map(|s| tr.src(s)).collect()
        };
        let v = match inst.opcode {
            O::Mov | O::MovA => srcs(self, 1)?[0],
            O::Add => {
                let s = srcs(self, 2)?;
                self.fb.add(s[0], s[1])
            }
            O::Sub => {
                let s = srcs(self, 2)?;
                self.fb.sub(s[0], s[1])
            }
            O::Mul => {
                let s = srcs(self, 2)?;
                self.mul(s[0], s[1], v4)
            }
            O::Mad => {
                let s = srcs(self, 3)?;
                let p = self.mul(s[0], s[1], v4);
                self.fb.add(p, s[2])
            }
            O::Min | O::Max => {
                let s = srcs(self, 2)?;
                let min = inst.opcode == O::Min;
                if self.strict {
                    let l = &mut self.lanes(v4);
                    if min {
                        f::min(l, s[0], s[1])
                    } else {
                        f::max(l, s[0], s[1])
                    }
                } else {
                    let fun = if min { M::Min } else { M::Max };
                    self.fb.math_n(fun, s[0], Some(s[1]), None)
                }
            }
            O::Slt => {
                let s = srcs(self, 2)?;
                f::slt(&mut self.lanes(v4), s[0], s[1])
            }
            O::Sge => {
                let s = srcs(self, 2)?;
                f::sge(&mut self.lanes(v4), s[0], s[1])
            }
            O::Abs => {
                let s = srcs(self, 1)?;
                self.fb.math(M::Abs, s[0])
            }
            O::Frc => {
                let s = srcs(self, 1)?;
                f::frc(&mut self.lanes(v4), s[0])
            }
            O::Lrp => {
                let s = srcs(self, 3)?;
                let d = self.fb.sub(s[1], s[2]);
                let p = self.mul(s[0], d, v4);
                self.fb.add(p, s[2])
            }
            O::Sgn => {
                let s = srcs(self, 1)?;
                let a = s[0];
                if self.strict {
                    f::sgn(&mut self.lanes(v4), a)
                } else {
                    self.fb.math(M::Sign, a)
                }
            }
            O::Dp3 | O::Dp4 => {
                let s = srcs(self, 2)?;
                let n = if inst.opcode == O::Dp3 { 3 } else { 4 };
                let d = self.dot(s[0], s[1], n);
                self.fb.splat(d)
            }
            O::Dp2Add => {
                // dxso::formula::dp2add: the dot product, then the sum.
                let s = srcs(self, 3)?;
                let d = self.dot(s[0], s[1], 2);
                let c = self.fb.index(s[2], 0);
                let r = self.fb.add(d, c);
                self.fb.splat(r)
            }
            O::Rcp | O::Rsq | O::Exp | O::ExpP | O::Log | O::LogP => {
                let s = srcs(self, 1)?;
                let x = self.fb.index(s[0], 0);
                let r = self.scalar_op(inst.opcode, x);
                self.fb.splat(r)
            }
            O::Pow => {
                let s = srcs(self, 2)?;
                let x = self.fb.index(s[0], 0);
                let y = self.fb.index(s[1], 0);
                let r = self.pow(x, y);
                self.fb.splat(r)
            }
            O::Lit => self.lit(inst)?,
            O::Dst => {
                let s = srcs(self, 2)?;
                let ay = self.fb.index(s[0], 1);
                let by = self.fb.index(s[1], 1);
                let az = self.fb.index(s[0], 2);
                let bw = self.fb.index(s[1], 3);
                let r = if self.strict {
                    f::dst(&mut self.lanes(Shape::Scalar), ay, az, by, bw)
                } else {
                    let one = self.fb.f32(1.0);
                    [one, self.fb.fmul(ay, by), az, bw]
                };
                self.fb.compose(&mut self.m, vec4(Scalar::F32), r.to_vec())
            }
            O::Crs => {
                let s = srcs(self, 2)?;
                let (a, b) = (s[0], s[1]);
                let a1 = self.fb.swizzle(a, [1, 2, 0, 3]);
                let b2 = self.fb.swizzle(b, [2, 0, 1, 3]);
                let a2 = self.fb.swizzle(a, [2, 0, 1, 3]);
                let b1 = self.fb.swizzle(b, [1, 2, 0, 3]);
                if self.strict {
                    f::cross_term(&mut self.lanes(v4), a1, b2, a2, b1)
                } else {
                    let p = self.fb.fmul(a1, b2);
                    let q = self.fb.fmul(a2, b1);
                    self.fb.sub(p, q)
                }
            }
            O::Nrm => {
                let s = srcs(self, 1)?;
                let a = s[0];
                let len2 = self.dot(a, a, 3);
                let inv = if self.strict {
                    f::nrm_factor(&mut self.lanes(Shape::Scalar), len2)
                } else {
                    let sq = self.fb.math(M::Sqrt, len2);
                    let one = self.fb.f32(1.0);
                    self.fb.bin(B::Divide, one, sq)
                };
                let inv = self.fb.splat(inv);
                self.mul(a, inv, v4)
            }
            O::SinCos => {
                let s = srcs(self, 1)?;
                let x = self.fb.index(s[0], 0);
                let c = self.fb.math(M::Cos, x);
                let sn = self.fb.math(M::Sin, x);
                let z = self.fb.f32(0.0);
                self.fb
                    .compose(&mut self.m, vec4(Scalar::F32), vec![c, sn, z, z])
            }
            O::Cmp => {
                let s = srcs(self, 3)?;
                f::cmp(&mut self.lanes(v4), s[0], s[1], s[2])
            }
            O::Cnd => {
                let s = srcs(self, 3)?;
                f::cnd(&mut self.lanes(v4), s[0], s[1], s[2])
            }
            O::Setp => {
                self.setp(inst)?;
                return Ok(true);
            }
            _ => return Ok(false),
        };
        self.write(inst, v)?;
        Ok(true)
    }

    fn lit(&mut self, inst: &Instruction) -> Result<H, Error> {
        let a = self.src(&inst.srcs[0])?;
        let x = self.fb.index(a, 0);
        let y = self.fb.index(a, 1);
        let w = self.fb.index(a, 3);
        let strict = self.strict;
        let l = &mut self.lanes(Shape::Scalar);
        let r = if strict {
            f::lit(l, x, y, w)
        } else {
            f::lit_with(l, x, y, w, |l, y, p| ieee_pow(l.fb, y, p))
        };
        Ok(self.fb.compose(&mut self.m, vec4(Scalar::F32), r.to_vec()))
    }

    /// A D3D9 comparison of two values of one shape (IEEE ordered: NaN gives false except
    /// for `ne`, C7).
    pub fn compare(&mut self, c: Comparison, a: H, b: H) -> H {
        self.fb.bin(crate::lanes::comparison_op(c), a, b)
    }

    fn setp(&mut self, inst: &Instruction) -> Result<(), Error> {
        let d = inst.dst.ok_or_else(|| self.invalid("setp without p0"))?;
        let a = self.src(&inst.srcs[0])?;
        let b = self.src(&inst.srcs[1])?;
        let c = inst.comparison().unwrap_or(Comparison::Gt);
        let v = self.compare(c, a, b);
        let old = self.fb.load(self.p0);
        let pred = inst.predicate;
        let parts: Vec<H> = (0..4u32)
            .map(|k| {
                let o = self.fb.index(old, k);
                if !d.mask.has(k as usize) {
                    return o;
                }
                let n = self.fb.index(v, k);
                match pred {
                    Some(p) => {
                        let b = self.fb.index(old, p.swizzle.get(k as usize) as u32);
                        if p.modifier == dxso::ir::SrcModifier::Not {
                            self.fb.select(b, o, n)
                        } else {
                            self.fb.select(b, n, o)
                        }
                    }
                    None => n,
                }
            })
            .collect();
        let new = self.fb.compose(&mut self.m, vec4(Scalar::BOOL), parts);
        self.fb.store(self.p0, new);
        Ok(())
    }
}

/// `Ieee`'s pow: exp2(y * log2|x|) by the plain operations.
fn ieee_pow(fb: &mut crate::func::FnBuilder, x: H, y: H) -> H {
    let ax = fb.math(M::Abs, x);
    let l = fb.math(M::Log2, ax);
    let p = fb.fmul(y, l);
    fb.math(M::Exp2, p)
}
