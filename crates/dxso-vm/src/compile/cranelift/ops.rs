//! Each operation for the Cranelift generator: sources in, [`dxso::formula`]'s formula over
//! the generator's lanes (`lanes`), results stored.

use super::*;
use dxso::formula::{self as f, Lanes};

impl Emitter<'_> {
    pub(super) fn dot(&mut self, src: &[SrcRef; 3], n: usize) -> Value {
        let a: Vec<Value> = (0..n).map(|c| self.src(&src[0], c)).collect();
        let b: Vec<Value> = (0..n).map(|c| self.src(&src[1], c)).collect();
        f::dot(self, &a, &b)
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
                    Alu::Mul => f::mul(self, a[0], a[1]),
                    Alu::Mad => f::mad(self, a[0], a[1], a[2]),
                    Alu::Min => f::min(self, a[0], a[1]),
                    Alu::Max => f::max(self, a[0], a[1]),
                    Alu::Slt => f::slt(self, a[0], a[1]),
                    Alu::Sge => f::sge(self, a[0], a[1]),
                    Alu::Cmp | Alu::Cnd | Alu::Scale(_) | Alu::SrcMod(_) => {
                        self.pixel_componentwise(kind, &a)
                    }
                    Alu::Abs => self.b.ins().fabs(a[0]),
                    // C2: vs_1_1 `mov a0.x` floors.
                    Alu::Floor => self.b.ins().floor(a[0]),
                    Alu::Frc => f::frc(self, a[0]),
                    Alu::Lrp => f::lrp(self, a[0], a[1], a[2]),
                    Alu::Sgn => f::sgn(self, a[0]),
                    _ => unreachable!("component-wise kinds"),
                };
                res[c] = Some(v);
            }
            return self.store(dst, res);
        }
        let replicated = match kind {
            Alu::Dp3 => Some(self.dot(src, 3)),
            Alu::Dp4 => Some(self.dot(src, 4)),
            Alu::Rcp | Alu::Rsq | Alu::Exp | Alu::Log => {
                let x = self.src(&src[0], 0);
                Some(match kind {
                    Alu::Rcp => f::rcp(self, x),
                    Alu::Rsq => f::rsq(self, x),
                    Alu::Exp => f::exp(self, x),
                    _ => f::log(self, x),
                })
            }
            Alu::Pow => {
                let x = self.src(&src[0], 0);
                let y = self.src(&src[1], 0);
                Some(f::pow(self, x, y))
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
                let r = f::lit(self, x, y, w);
                self.store(dst, r.map(Some));
            }
            Alu::Dst => {
                let ay = self.src(&src[0], 1);
                let az = self.src(&src[0], 2);
                let by = self.src(&src[1], 1);
                let bw = self.src(&src[1], 3);
                let r = f::dst(self, ay, az, by, bw);
                self.store(dst, r.map(Some));
            }
            Alu::Crs => {
                let a: [Value; 3] = std::array::from_fn(|c| self.src(&src[0], c));
                let b: [Value; 3] = std::array::from_fn(|c| self.src(&src[1], c));
                let r = f::crs(self, a, b);
                self.store(dst, [Some(r[0]), Some(r[1]), Some(r[2]), None]);
            }
            Alu::Nrm => {
                let a: [Value; 4] = std::array::from_fn(|c| self.src(&src[0], c));
                let out = f::nrm(self, a);
                self.store(dst, out.map(Some));
            }
            Alu::Setp(cmp) => {
                let cc = lanes::float_cc(cmp);
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
            let v = if dst.sat { f::sat(self, v) } else { v };
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
