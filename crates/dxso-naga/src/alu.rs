//! Arithmetic: each instruction's formula in naga IR. `Strict` gives dxso-vm's results
//! (`crates/dxso-vm/src/exec.rs`, `../shared/spec/instructions.md` C1-C16): a product with
//! a zero factor is +0 (C8), rcp/rsq of 0 give FLT_MAX (C5), log of 0 gives -FLT_MAX (C6),
//! min/max/slt/sge are the documented selects (C7), exp/log/pow use dxso-vm's own
//! polynomials. `Ieee` uses the plain operations (`*`, `min`, `exp2`, `dot`, ...).

use crate::Error;
use crate::func::{H, Shape, vec4};
use crate::regs::Tr;
use dxso::Opcode;
use dxso::ir::{Comparison, Instruction};
use naga::{BinaryOperator as B, MathFunction as M, Scalar, ScalarKind};

/// dxso-vm's exp2 polynomial (Taylor terms of 2^f to degree 7, highest first).
const EXP2_POLY: [f32; 8] = [
    1.5252734e-5,
    1.540353e-4,
    0.0013333558,
    0.009618129,
    0.05550411,
    0.2402265,
    std::f32::consts::LN_2,
    1.0,
];
/// dxso-vm's log2 series terms after 1, highest first.
const LOG2_POLY: [f32; 3] = [0.14285715, 0.2, 0.33333334];
const EXP2_MIN: f32 = -151.0;
const EXP2_MAX: f32 = 129.0;
/// lit's exponent clamp.
const LIT_POWER: f32 = 127.9961;

impl Tr {
    /// `a * b`; in Strict a zero factor gives +0 even against inf or NaN (C8).
    pub fn mul(&mut self, a: H, b: H, shape: Shape) -> H {
        let p = self.fb.fmul(a, b);
        // A square needs no zero rule: ±0 · ±0 is +0 in IEEE arithmetic, the rule's result
        // (dp3 r0, r0 in every `nrm` and by hand).
        if !self.strict || a == b {
            return p;
        }
        let zero = self.fb.kf(0.0, shape);
        let az = self.fb.bin(B::Equal, a, zero);
        let bz = self.fb.bin(B::Equal, b, zero);
        let either = self.fb.bin(B::InclusiveOr, az, bz);
        self.fb.select(either, zero, p)
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
        let p = self.mul(a, b, Shape::Vec4);
        let mut acc = self.fb.index(p, 0);
        for c in 1..n {
            let t = self.fb.index(p, c);
            acc = self.fb.add(acc, t);
        }
        acc
    }

    fn cmp(&mut self, op: B, a: H, b: H) -> H {
        self.fb.bin(op, a, b)
    }

    /// `cond ? 1.0 : 0.0` in `shape`.
    fn one_if(&mut self, cond: H, shape: Shape) -> H {
        let one = self.fb.kf(1.0, shape);
        let zero = self.fb.kf(0.0, shape);
        self.fb.select(cond, one, zero)
    }

    fn rcp(&mut self, x: H) -> H {
        let one = self.fb.f32(1.0);
        let q = self.fb.bin(B::Divide, one, x);
        if !self.strict {
            return q;
        }
        let zero = self.fb.f32(0.0);
        let max = self.fb.f32(f32::MAX);
        let is1 = self.fb.bin(B::Equal, x, one);
        let r = self.fb.select(is1, one, q);
        let is0 = self.fb.bin(B::Equal, x, zero);
        self.fb.select(is0, max, r)
    }

    fn rsq(&mut self, x: H) -> H {
        let f = self.fb.math(M::Abs, x);
        if !self.strict {
            return self.fb.math(M::InverseSqrt, f);
        }
        let one = self.fb.f32(1.0);
        let s = self.fb.math(M::Sqrt, f);
        let q = self.fb.bin(B::Divide, one, s);
        let zero = self.fb.f32(0.0);
        let max = self.fb.f32(f32::MAX);
        let is1 = self.fb.bin(B::Equal, f, one);
        let r = self.fb.select(is1, one, q);
        let is0 = self.fb.bin(B::Equal, f, zero);
        self.fb.select(is0, max, r)
    }

    /// 2^x (scalar): dxso-vm's `exp2` step for step in Strict.
    pub fn exp2(&mut self, x: H) -> H {
        if !self.strict {
            return self.fb.math(M::Exp2, x);
        }
        let f = &mut self.fb;
        // Clamp by selects, so NaN stays NaN.
        let lo = f.f32(EXP2_MIN);
        let hi = f.f32(EXP2_MAX);
        let below = f.bin(B::Less, x, lo);
        let x = f.select(below, lo, x);
        let above = f.bin(B::Greater, x, hi);
        let x = f.select(above, hi, x);
        let n = f.math(M::Round, x);
        let fr = f.sub(x, n);
        let mut p = f.f32(EXP2_POLY[0]);
        for k in &EXP2_POLY[1..] {
            let t = f.fmul(p, fr);
            let k = f.f32(*k);
            p = f.add(t, k);
        }
        let zero_res = f.bin(B::LessEqual, n, lo);
        // n as i32 (NaN gives 0 as Rust's `as` does).
        let nan = f.bin(B::NotEqual, n, n);
        let z = f.f32(0.0);
        let n_ok = f.select(nan, z, n);
        let ni = f.convert(n_ok, ScalarKind::Sint);
        let one_i = f.u32(1);
        let n1 = f.bin(B::ShiftRight, ni, one_i);
        let n2 = f.sub(ni, n1);
        let bias = f.i32(127);
        let sh = f.u32(23);
        let scale = |f: &mut crate::func::FnBuilder, e: H| {
            let b = f.add(e, bias);
            let u = f.bitcast(b, ScalarKind::Uint);
            let s = f.bin(B::ShiftLeft, u, sh);
            f.bitcast(s, ScalarKind::Float)
        };
        let s1 = scale(f, n1);
        let s2 = scale(f, n2);
        let one = f.f32(1.0);
        let s2 = f.select(zero_res, one, s2);
        let r = f.fmul(p, s1);
        let r = f.fmul(r, s2);
        f.select(zero_res, z, r)
    }

    /// log2(x) (scalar): dxso-vm's `log2` step for step in Strict (0 gives -inf, negatives
    /// and NaN give NaN).
    pub fn log2(&mut self, x: H) -> H {
        if !self.strict {
            return self.fb.math(M::Log2, x);
        }
        let f = &mut self.fb;
        let minpos = f.f32(f32::MIN_POSITIVE);
        let sub = f.bin(B::Less, x, minpos);
        let big_k = f.f32(8_388_608.0);
        let scaled = f.fmul(x, big_k);
        let xs = f.select(sub, scaled, x);
        let bits = f.bitcast(xs, ScalarKind::Uint);
        let sh = f.u32(23);
        let e = f.bin(B::ShiftRight, bits, sh);
        let ff = f.u32(0xFF);
        let e = f.bin(B::And, e, ff);
        let e = f.bitcast(e, ScalarKind::Sint);
        let k127 = f.i32(127);
        let e = f.sub(e, k127);
        let k23 = f.i32(23);
        let k0 = f.i32(0);
        let adj = f.select(sub, k23, k0);
        let e = f.sub(e, adj);
        let mant = f.u32(0x007F_FFFF);
        let m = f.bin(B::And, bits, mant);
        let one_bits = f.u32(0x3F80_0000);
        let m = f.bin(B::InclusiveOr, m, one_bits);
        let m = f.bitcast(m, ScalarKind::Float);
        let sqrt2 = f.f32(std::f32::consts::SQRT_2);
        let big = f.bin(B::Greater, m, sqrt2);
        let half = f.f32(0.5);
        let mh = f.fmul(m, half);
        let m = f.select(big, mh, m);
        let k1 = f.i32(1);
        let inc = f.select(big, k1, k0);
        let e = f.add(e, inc);
        let one = f.f32(1.0);
        let num = f.sub(m, one);
        let den = f.add(m, one);
        let s = f.bin(B::Divide, num, den);
        let s2 = f.fmul(s, s);
        let mut p = f.f32(LOG2_POLY[0]);
        for k in &LOG2_POLY[1..] {
            let t = f.fmul(p, s2);
            let k = f.f32(*k);
            p = f.add(t, k);
        }
        let two = f.f32(2.0);
        let two_s = f.fmul(two, s);
        let t = f.fmul(two_s, s2);
        let t = f.fmul(t, p);
        let ln_m = f.add(two_s, t);
        let log2e = f.f32(std::f32::consts::LOG2_E);
        let r = f.fmul(ln_m, log2e);
        let ef = f.convert(e, ScalarKind::Float);
        let r = f.add(r, ef);
        let inf = f.f32(f32::INFINITY);
        let is_inf = f.bin(B::Equal, x, inf);
        let r = f.select(is_inf, x, r);
        let z = f.f32(0.0);
        let is0 = f.bin(B::Equal, x, z);
        let ninf = f.f32(f32::NEG_INFINITY);
        let r = f.select(is0, ninf, r);
        let neg = f.bin(B::Less, x, z);
        let nan = f.bin(B::NotEqual, x, x);
        let bad = f.bin(B::LogicalOr, neg, nan);
        let qnan = f.f32(f32::NAN);
        f.select(bad, qnan, r)
    }

    /// pow(x, y) = exp2(y * log2|x|) with the zero-factor rule (pow(0, 0) = 1).
    pub fn pow(&mut self, x: H, y: H) -> H {
        let ax = self.fb.math(M::Abs, x);
        let l = self.log2(ax);
        let p = self.mul(y, l, Shape::Scalar);
        self.exp2(p)
    }

    /// The instructions computed on values: everything but flow control and textures.
    /// Returns `Ok(false)` for an opcode it does not handle.
    #[allow(clippy::too_many_lines)] // a dispatch `match`: one arm per opcode
    pub fn arithmetic(&mut self, inst: &Instruction) -> Result<bool, Error> {
        use Opcode as O;
        let v4 = Shape::Vec4;
        let matrix = match inst.opcode {
            O::M4x4 => Some((4, 4)),
            O::M4x3 => Some((3, 4)),
            O::M3x4 => Some((4, 3)),
            O::M3x3 => Some((3, 3)),
            O::M3x2 => Some((2, 3)),
            _ => None,
        };
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
                let (op, fun) = if inst.opcode == O::Min {
                    (B::Less, M::Min)
                } else {
                    (B::GreaterEqual, M::Max)
                };
                if self.strict {
                    let c = self.cmp(op, s[0], s[1]);
                    self.fb.select(c, s[0], s[1])
                } else {
                    self.fb.math_n(fun, s[0], Some(s[1]), None)
                }
            }
            O::Slt | O::Sge => {
                let s = srcs(self, 2)?;
                let op = if inst.opcode == O::Slt {
                    B::Less
                } else {
                    B::GreaterEqual
                };
                let c = self.cmp(op, s[0], s[1]);
                self.one_if(c, v4)
            }
            O::Abs => {
                let s = srcs(self, 1)?;
                self.fb.math(M::Abs, s[0])
            }
            O::Frc => {
                let s = srcs(self, 1)?;
                let fl = self.fb.math(M::Floor, s[0]);
                self.fb.sub(s[0], fl)
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
                    let zero = self.fb.kf(0.0, v4);
                    let one = self.fb.kf(1.0, v4);
                    let m1 = self.fb.kf(-1.0, v4);
                    let eq = self.cmp(B::Equal, a, zero);
                    let r = self.fb.select(eq, zero, one);
                    let lt = self.cmp(B::Less, a, zero);
                    self.fb.select(lt, m1, r)
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
                let s = srcs(self, 3)?;
                let d = self.dot(s[0], s[1], 2);
                let c = self.fb.index(s[2], 0);
                let r = self.fb.add(d, c);
                self.fb.splat(r)
            }
            O::Rcp | O::Rsq | O::Exp | O::ExpP | O::Log | O::LogP => {
                let s = srcs(self, 1)?;
                let x = self.fb.index(s[0], 0);
                let r = match inst.opcode {
                    O::Rcp => self.rcp(x),
                    O::Rsq => self.rsq(x),
                    O::Exp | O::ExpP => self.exp2(x),
                    _ => {
                        let f = self.fb.math(M::Abs, x);
                        let l = self.log2(f);
                        if self.strict {
                            let z = self.fb.f32(0.0);
                            let is0 = self.fb.bin(B::Equal, f, z);
                            let m = self.fb.f32(-f32::MAX);
                            self.fb.select(is0, m, l)
                        } else {
                            l
                        }
                    }
                };
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
                let one = self.fb.f32(1.0);
                let ay = self.fb.index(s[0], 1);
                let by = self.fb.index(s[1], 1);
                let y = self.mul(ay, by, Shape::Scalar);
                let z = self.fb.index(s[0], 2);
                let w = self.fb.index(s[1], 3);
                self.fb
                    .compose(&mut self.m, vec4(Scalar::F32), vec![one, y, z, w])
            }
            O::Crs => {
                let s = srcs(self, 2)?;
                let (a, b) = (s[0], s[1]);
                let a1 = self.fb.swizzle(a, [1, 2, 0, 3]);
                let b2 = self.fb.swizzle(b, [2, 0, 1, 3]);
                let a2 = self.fb.swizzle(a, [2, 0, 1, 3]);
                let b1 = self.fb.swizzle(b, [1, 2, 0, 3]);
                let p = self.mul(a1, b2, v4);
                let q = self.mul(a2, b1, v4);
                self.fb.sub(p, q)
            }
            O::Nrm => {
                let s = srcs(self, 1)?;
                let a = s[0];
                let f = self.dot(a, a, 3);
                let sq = self.fb.math(M::Sqrt, f);
                let one = self.fb.f32(1.0);
                let inv = self.fb.bin(B::Divide, one, sq);
                let inv = if self.strict {
                    let z = self.fb.f32(0.0);
                    let nz = self.fb.bin(B::NotEqual, f, z);
                    let max = self.fb.f32(f32::MAX);
                    self.fb.select(nz, inv, max)
                } else {
                    inv
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
                let zero = self.fb.kf(0.0, v4);
                let ge = self.cmp(B::GreaterEqual, s[0], zero);
                self.fb.select(ge, s[1], s[2])
            }
            O::Cnd => {
                let s = srcs(self, 3)?;
                let half = self.fb.kf(0.5, v4);
                let gt = self.cmp(B::Greater, s[0], half);
                self.fb.select(gt, s[1], s[2])
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
        let lo = self.fb.f32(-LIT_POWER);
        let hi = self.fb.f32(LIT_POWER);
        // Rust's clamp: NaN stays NaN; by selects.
        let below = self.fb.bin(B::Less, w, lo);
        let w = self.fb.select(below, lo, w);
        let above = self.fb.bin(B::Greater, w, hi);
        let power = self.fb.select(above, hi, w);
        let zero = self.fb.f32(0.0);
        let one = self.fb.f32(1.0);
        let xp = self.fb.bin(B::Greater, x, zero);
        let ry = self.fb.select(xp, x, zero);
        let yp = self.fb.bin(B::Greater, y, zero);
        let both = self.fb.bin(B::LogicalAnd, xp, yp);
        let p = self.pow(y, power);
        let rz = self.fb.select(both, p, zero);
        Ok(self
            .fb
            .compose(&mut self.m, vec4(Scalar::F32), vec![one, ry, rz, one]))
    }

    /// A D3D9 comparison of two values of one shape (IEEE ordered: NaN gives false except
    /// for `ne`, C7).
    pub fn compare(&mut self, c: Comparison, a: H, b: H) -> H {
        let op = match c {
            Comparison::Gt => B::Greater,
            Comparison::Eq => B::Equal,
            Comparison::Ge => B::GreaterEqual,
            Comparison::Lt => B::Less,
            Comparison::Ne => B::NotEqual,
            Comparison::Le => B::LessEqual,
        };
        self.fb.bin(op, a, b)
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
