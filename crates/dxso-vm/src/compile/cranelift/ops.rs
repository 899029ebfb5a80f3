//! Each operation's formula for the Cranelift generator, the interpreter's again (the zero
//! rule C8, unfused mad, the same exp2/log2 polynomials).

use super::*;

impl Emitter<'_> {
    /// `f32::clamp`: NaN stays NaN.
    pub(super) fn clamp(&mut self, x: Value, lo: f32, hi: f32) -> Value {
        let (lo, hi) = (self.f(lo), self.f(hi));
        let m = self.cmp(FloatCC::LessThan, x, lo);
        let x = self.sel(m, lo, x);
        let m = self.cmp(FloatCC::GreaterThan, x, hi);
        self.sel(m, hi, x)
    }

    /// The polynomial with coefficients `k` (highest first) at `x`, by Horner's rule.
    pub(super) fn horner(&mut self, x: Value, k: &[f32]) -> Value {
        let mut p = self.f(k[0]);
        for &c in &k[1..] {
            let t = self.b.ins().fmul(p, x);
            let c = self.f(c);
            p = self.b.ins().fadd(t, c);
        }
        p
    }

    /// 2^x as [`crate::math::exp2`] computes it.
    pub(super) fn exp2(&mut self, x: Value) -> Value {
        let x = self.clamp(x, EXP2_MIN, EXP2_MAX);
        let big = self.f(ROUNDER);
        let n = self.b.ins().fadd(x, big);
        let n = self.b.ins().fsub(n, big);
        let fr = self.b.ins().fsub(x, n);
        let p = self.horner(fr, &EXP2_POLY);
        let lowest = self.f(EXP2_MIN);
        let zero = self.cmp(FloatCC::LessThanOrEqual, n, lowest);
        let n = self.b.ins().fcvt_to_sint_sat(I4, n);
        let n1 = self.b.ins().sshr_imm_s(n, 1);
        let n2 = self.b.ins().isub(n, n1);
        let bias = self.i(127);
        let scale = |e: &mut Self, k: Value| {
            let k = e.b.ins().iadd(k, bias);
            let k = e.b.ins().ishl_imm_s(k, 23);
            e.as_f(k)
        };
        let s1 = scale(self, n1);
        let s2 = scale(self, n2);
        let one = self.f(1.0);
        let s2 = self.sel(zero, one, s2);
        let r = self.b.ins().fmul(p, s1);
        let r = self.b.ins().fmul(r, s2);
        let z = self.f(0.0);
        self.sel(zero, z, r)
    }

    /// log2(x) as [`crate::math::log2`] computes it.
    pub(super) fn log2(&mut self, x: Value) -> Value {
        let minpos = self.f(f32::MIN_POSITIVE);
        let sub = self.cmp(FloatCC::LessThan, x, minpos);
        let k = self.f(8_388_608.0);
        let scaled = self.b.ins().fmul(x, k);
        let xs = self.sel(sub, scaled, x);
        let bits = self.as_i(xs);
        let e = self.b.ins().ushr_imm_s(bits, 23);
        let ff = self.i(0xFF);
        let e = self.b.ins().band(e, ff);
        let k127 = self.i(127);
        let e = self.b.ins().isub(e, k127);
        let k23 = self.i(23);
        let sub23 = self.b.ins().band(sub, k23);
        let e = self.b.ins().isub(e, sub23);
        let mant = self.i(0x007F_FFFF);
        let one_bits = self.i(0x3F80_0000);
        let m = self.b.ins().band(bits, mant);
        let m = self.b.ins().bor(m, one_bits);
        let m = self.as_f(m);
        let sqrt2 = self.f(std::f32::consts::SQRT_2);
        let big = self.cmp(FloatCC::GreaterThan, m, sqrt2);
        let half = self.f(0.5);
        let mh = self.b.ins().fmul(m, half);
        let m = self.sel(big, mh, m);
        // `big` is all ones (-1) where true.
        let e = self.b.ins().isub(e, big);
        let one = self.f(1.0);
        let num = self.b.ins().fsub(m, one);
        let den = self.b.ins().fadd(m, one);
        let s = self.b.ins().fdiv(num, den);
        let s2 = self.b.ins().fmul(s, s);
        let p = self.horner(s2, &LOG2_POLY);
        let two = self.f(2.0);
        let two_s = self.b.ins().fmul(two, s);
        let t = self.b.ins().fmul(two_s, s2);
        let t = self.b.ins().fmul(t, p);
        let ln_m = self.b.ins().fadd(two_s, t);
        let l2e = self.f(std::f32::consts::LOG2_E);
        let r = self.b.ins().fmul(ln_m, l2e);
        let ef = self.b.ins().fcvt_from_sint(F4, e);
        let r = self.b.ins().fadd(r, ef);
        let inf = self.f(f32::INFINITY);
        let is_inf = self.cmp(FloatCC::Equal, x, inf);
        let r = self.sel(is_inf, x, r);
        let z = self.f(0.0);
        let is_zero = self.cmp(FloatCC::Equal, x, z);
        let ninf = self.f(f32::NEG_INFINITY);
        let r = self.sel(is_zero, ninf, r);
        let neg = self.cmp(FloatCC::LessThan, x, z);
        let nan = self.cmp(FloatCC::Unordered, x, x);
        let bad = self.b.ins().bor(neg, nan);
        let qnan = self.f(f32::NAN);
        self.sel(bad, qnan, r)
    }

    pub(super) fn pow(&mut self, x: Value, y: Value) -> Value {
        let ax = self.b.ins().fabs(x);
        let l = self.log2(ax);
        let t = self.mul(y, l);
        self.exp2(t)
    }

    /// `x == k ? v : r`
    pub(super) fn when_eq(&mut self, x: Value, k: f32, v: f32, r: Value) -> Value {
        let kv = self.f(k);
        let m = self.cmp(FloatCC::Equal, x, kv);
        let v = self.f(v);
        self.sel(m, v, r)
    }

    pub(super) fn dot(&mut self, src: &[SrcRef; 3], n: usize) -> Value {
        let mut acc = None;
        for c in 0..n {
            let a = self.src(&src[0], c);
            let b = self.src(&src[1], c);
            let p = self.mul(a, b);
            acc = Some(match acc {
                None => p,
                Some(s) => self.add(s, p),
            });
        }
        acc.expect("n > 0")
    }

    #[allow(clippy::too_many_lines)] // a dispatch `match`: one arm per ALU operation
    pub(super) fn alu(&mut self, kind: Alu, dst: &DstRef, src: &[SrcRef; 3]) {
        let mask = dst.mask;
        let on = |c: usize| mask >> c & 1 != 0;
        let mut res: [Option<Value>; 4] = [None; 4];
        let nargs = kind.componentwise_sources();
        if nargs > 0 {
            for c in (0..4).filter(|&c| on(c)) {
                let a: Vec<Value> = (0..nargs).map(|k| self.src(&src[k], c)).collect();
                let v = match kind {
                    Alu::Mov | Alu::MovA => a[0],
                    // x + (-y) is x - y in IEEE arithmetic: skip the negation.
                    Alu::Add if src[1].xor != 0 => {
                        let b = self.src_unnegated(&src[1], c);
                        self.b.ins().fsub(a[0], b)
                    }
                    Alu::Add => self.add(a[0], a[1]),
                    Alu::Mul => self.mul(a[0], a[1]),
                    Alu::Mad => {
                        let p = self.mul(a[0], a[1]);
                        self.add(p, a[2])
                    }
                    Alu::Min => {
                        let m = self.cmp(FloatCC::LessThan, a[0], a[1]);
                        self.sel(m, a[0], a[1])
                    }
                    Alu::Max => {
                        let m = self.cmp(FloatCC::GreaterThanOrEqual, a[0], a[1]);
                        self.sel(m, a[0], a[1])
                    }
                    Alu::Slt | Alu::Sge => {
                        let cc = if kind == Alu::Slt {
                            FloatCC::LessThan
                        } else {
                            FloatCC::GreaterThanOrEqual
                        };
                        let m = self.cmp(cc, a[0], a[1]);
                        let one = self.f(1.0);
                        let one = self.as_i(one);
                        let r = self.b.ins().band(m, one);
                        self.as_f(r)
                    }
                    Alu::Cmp | Alu::Cnd | Alu::Scale(_) | Alu::SrcMod(_) => {
                        self.pixel_componentwise(kind, &a)
                    }
                    Alu::Abs => self.b.ins().fabs(a[0]),
                    // C2: vs_1_1 `mov a0.x` floors.
                    Alu::Floor => self.b.ins().floor(a[0]),
                    Alu::Frc => {
                        let f = self.b.ins().floor(a[0]);
                        self.b.ins().fsub(a[0], f)
                    }
                    Alu::Lrp => {
                        let d = self.b.ins().fsub(a[1], a[2]);
                        let p = self.mul(a[0], d);
                        self.add(p, a[2])
                    }
                    Alu::Sgn => {
                        // a < 0: -1; a == 0: 0; otherwise (NaN too) 1.
                        let z = self.f(0.0);
                        let one = self.f(1.0);
                        let r = self.when_eq(a[0], 0.0, 0.0, one);
                        let neg = self.cmp(FloatCC::LessThan, a[0], z);
                        let m1 = self.f(-1.0);
                        self.sel(neg, m1, r)
                    }
                    _ => unreachable!("component-wise kinds"),
                };
                res[c] = Some(v);
            }
            return self.store(dst, res);
        }
        let replicated = match kind {
            Alu::Dp3 => Some(self.dot(src, 3)),
            Alu::Dp4 => Some(self.dot(src, 4)),
            Alu::Rcp => {
                let x = self.src(&src[0], 0);
                let one = self.f(1.0);
                let r = self.b.ins().fdiv(one, x);
                let r = self.when_eq(x, 1.0, 1.0, r);
                Some(self.when_eq(x, 0.0, f32::MAX, r))
            }
            Alu::Rsq => {
                let x = self.src(&src[0], 0);
                let f = self.b.ins().fabs(x);
                let one = self.f(1.0);
                let s = self.b.ins().sqrt(f);
                let r = self.b.ins().fdiv(one, s);
                let r = self.when_eq(f, 1.0, 1.0, r);
                Some(self.when_eq(f, 0.0, f32::MAX, r))
            }
            Alu::Exp => {
                let x = self.src(&src[0], 0);
                Some(self.exp2(x))
            }
            Alu::Log => {
                let x = self.src(&src[0], 0);
                let f = self.b.ins().fabs(x);
                let l = self.log2(f);
                Some(self.when_eq(f, 0.0, -f32::MAX, l))
            }
            Alu::Pow => {
                let x = self.src(&src[0], 0);
                let y = self.src(&src[1], 0);
                Some(self.pow(x, y))
            }
            Alu::Dp2Add => Some(self.dp2add(src)),
            _ => None,
        };
        if let Some(v) = replicated {
            return self.store(dst, [Some(v); 4]);
        }
        match kind {
            Alu::Kill(comps) => self.kill(dst, &src[0], comps),
            Alu::Dsx | Alu::Dsy => self.quad_difference(kind == Alu::Dsx, dst, &src[0]),
            Alu::TexLdl { sampler, swizzle } => {
                let coords: [Value; 4] = std::array::from_fn(|c| self.src(&src[0], c));
                let sampler = self.b.ins().iconst(types::I32, sampler as i64);
                let texel = self.callback(
                    crate::compile::texldl::<4> as *const u8,
                    self.texldl_sig,
                    coords,
                    &[self.sampling, sampler],
                );
                let res = std::array::from_fn(|c| Some(texel[(swizzle >> (2 * c) & 3) as usize]));
                self.store(dst, res);
            }
            Alu::SinCos => {
                let x = self.src(&src[0], 0);
                let z = self.f(0.0);
                let r = self.callback(
                    crate::compile::sincos::<4> as *const u8,
                    self.sincos_sig,
                    [x, z, z, z],
                    &[],
                );
                self.store(dst, [Some(r[0]), Some(r[1]), Some(z), Some(z)]);
            }
            Alu::Lit => {
                let x = self.src(&src[0], 0);
                let y = self.src(&src[0], 1);
                let w = self.src(&src[0], 3);
                let power = self.clamp(w, -LIT_POWER, LIT_POWER);
                let z = self.f(0.0);
                let one = self.f(1.0);
                let xpos = self.cmp(FloatCC::GreaterThan, x, z);
                let ypos = self.cmp(FloatCC::GreaterThan, y, z);
                let r1 = self.sel(xpos, x, z);
                let both = self.b.ins().band(xpos, ypos);
                let pw = self.pow(y, power);
                let r2 = self.sel(both, pw, z);
                self.store(dst, [Some(one), Some(r1), Some(r2), Some(one)]);
            }
            Alu::Dst => {
                let ay = self.src(&src[0], 1);
                let az = self.src(&src[0], 2);
                let by = self.src(&src[1], 1);
                let bw = self.src(&src[1], 3);
                let one = self.f(1.0);
                let y = self.mul(ay, by);
                self.store(dst, [Some(one), Some(y), Some(az), Some(bw)]);
            }
            Alu::Crs => {
                let a: [Value; 3] = std::array::from_fn(|c| self.src(&src[0], c));
                let b: [Value; 3] = std::array::from_fn(|c| self.src(&src[1], c));
                let mut cross = |i: usize, j: usize| {
                    let p = self.mul(a[i], b[j]);
                    let q = self.mul(a[j], b[i]);
                    self.b.ins().fsub(p, q)
                };
                let r = [cross(1, 2), cross(2, 0), cross(0, 1)];
                self.store(dst, [Some(r[0]), Some(r[1]), Some(r[2]), None]);
            }
            Alu::Nrm => {
                let a: [Value; 4] = std::array::from_fn(|c| self.src(&src[0], c));
                let mut f = self.mul(a[0], a[0]);
                for c in 1..3 {
                    let p = self.mul(a[c], a[c]);
                    f = self.add(f, p);
                }
                let one = self.f(1.0);
                let s = self.b.ins().sqrt(f);
                let r = self.b.ins().fdiv(one, s);
                let z = self.f(0.0);
                let nz = self.cmp(FloatCC::NotEqual, f, z);
                let max = self.f(f32::MAX);
                let f = self.sel(nz, r, max);
                let out: [Value; 4] = std::array::from_fn(|c| self.mul(a[c], f));
                self.store(dst, out.map(Some));
            }
            Alu::Setp(cmp) => {
                let cc = match cmp {
                    Comparison::Gt => FloatCC::GreaterThan,
                    Comparison::Eq => FloatCC::Equal,
                    Comparison::Ge => FloatCC::GreaterThanOrEqual,
                    Comparison::Lt => FloatCC::LessThan,
                    Comparison::Ne => FloatCC::NotEqual,
                    Comparison::Le => FloatCC::LessThanOrEqual,
                };
                for c in (0..4).filter(|&c| on(c)) {
                    let a = self.src(&src[0], c);
                    let b = self.src(&src[1], c);
                    let v = self.cmp(cc, a, b);
                    let v = match self.pred_mask(dst, c) {
                        None => v,
                        Some(m) => {
                            let old = self.b.use_var(self.p0(c));
                            self.b.ins().bitselect(m, v, old)
                        }
                    };
                    self.b.def_var(self.p0(c), v);
                }
            }
            _ => unreachable!("supported() admits only these kinds"),
        }
    }

    /// Call `f(leading..., io)` with `io` (four vectors) in the stack slot; the four vectors
    /// it leaves there.
    pub(super) fn callback(
        &mut self,
        f: *const u8,
        sig: SigRef,
        io: [Value; 4],
        leading: &[Value],
    ) -> [Value; 4] {
        for (c, v) in io.into_iter().enumerate() {
            self.b
                .ins()
                .stack_store(self.ptr, v, self.io, c as i32 * 16);
        }
        let at = self.b.ins().stack_addr(self.ptr, self.io, 0);
        let callee = self.b.ins().iconst(self.ptr, f as i64);
        let mut args = leading.to_vec();
        args.push(at);
        self.b.ins().call_indirect(sig, callee, &args);
        std::array::from_fn(|c| {
            self.b
                .ins()
                .stack_load(self.ptr, F4, self.io, c as i32 * 16)
        })
    }

    /// The lanes a predicated write reaches (all lanes run: flow here is uniform).
    pub(super) fn pred_mask(&mut self, dst: &DstRef, c: usize) -> Option<Value> {
        let p = dst.pred?;
        let m = self.b.use_var(self.p0(p.comps[c] as usize));
        Some(if p.not { self.b.ins().bnot(m) } else { m })
    }

    pub(super) fn store(&mut self, dst: &DstRef, res: [Option<Value>; 4]) {
        for (c, v) in res.into_iter().enumerate() {
            let (true, Some(v)) = (dst.mask >> c & 1 != 0, v) else {
                continue;
            };
            let v = if dst.sat {
                // _sat: clamp to [0, 1]; NaN becomes 0.
                let (z, one) = (self.f(0.0), self.f(1.0));
                let lt1 = self.cmp(FloatCC::LessThan, v, one);
                let m = self.sel(lt1, v, one);
                let pos = self.cmp(FloatCC::GreaterThan, v, z);
                self.sel(pos, m, z)
            } else {
                v
            };
            let wm = self.pred_mask(dst, c);
            match dst.kind {
                DstKind::Rows(row) => {
                    let row = row + c as u16;
                    let v = match wm {
                        None => v,
                        Some(m) => {
                            let old = self.read_row(row);
                            self.sel(m, v, old)
                        }
                    };
                    self.write_row(row, v);
                }
                DstKind::Addr => {
                    // C3: round half to even, saturating; NaN -> 0.
                    let r = self.b.ins().nearest(v);
                    let r = self.b.ins().fcvt_to_sint_sat(I4, r);
                    let r = match wm {
                        None => r,
                        Some(m) => {
                            let old = self.b.use_var(self.a0(c));
                            self.b.ins().bitselect(m, r, old)
                        }
                    };
                    self.b.def_var(self.a0(c), r);
                }
                DstKind::Pred | DstKind::OutputByLoop(_) => {
                    unreachable!("setp stores its own masks; generate refuses o[aL]")
                }
            }
        }
    }
}
