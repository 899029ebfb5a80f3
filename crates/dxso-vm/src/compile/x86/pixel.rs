//! The pixel programs' operations, the interpreter's formulas again (`exec.rs`,
//! `pixel/exec.rs`, `pixel/quad.rs`): `cmp`, `cnd`, the ps_1_x source modifiers and
//! destination shifts, `dp2add`, `texkill` into the kill row, `dsx`/`dsy` as differences
//! within each quad, and texture sampling through the interpreter's own sampler.
//!
//! A group's lanes (16 or 8, from a multiple of 16 or 8 in the batch) are whole quads, so
//! the quad differences are shuffles inside each 128-bit lane of a register (`vpermilps`),
//! and the sampling callback sees every quad it needs for the implicit level of detail.

use super::*;
use crate::pixel::lower::SampleMode;

/// `vpermilps` selectors: per quad (x, y), (x+1, y), (x, y+1), (x+1, y+1), the lanes a
/// difference subtracts. dsx: lanes 1, 1, 3, 3 minus 0, 0, 2, 2; dsy: 2, 3, 2, 3 minus 0,
/// 1, 0, 1 (`pixel::quad`).
const DSX: (i32, i32) = (0b11_11_01_01, 0b10_10_00_00);
const DSY: (i32, i32) = (0b11_10_11_10, 0b01_00_01_00);

impl Gen<'_> {
    /// A pixel program's component-wise kind on its sources `a`, into a new temporary:
    /// [`dxso::formula::cmp`], `cnd`, `scale`, `bias`, `bx2` and `comp`.
    pub(super) fn pixel_componentwise(&mut self, kind: Alu, a: [V; 3]) -> R<V> {
        Ok(match kind {
            // s0 >= 0 ? s1 : s2, and s0 > 0.5 ? s1 : s2 (NaN picks s2: ordered compares).
            Alu::Cmp | Alu::Cnd => {
                let m = if kind == Alu::Cmp {
                    self.cmpk(1, a[0], GE, 0.0)?
                } else {
                    self.cmpk(1, a[0], GT, 0.5)?
                };
                let t = self.select(m, a[2], a[1])?;
                self.free_mask(m);
                t
            }
            // A plain product (not the zero rule's), as the interpreter's `a * k`.
            Alu::Scale(k) => {
                let t = self.alloc()?;
                let m = self.kf(k);
                vx!(self, vmulps(Vr(t), Vr(a[0]), m))?;
                t
            }
            Alu::SrcMod(m) => {
                let t = self.alloc()?;
                match m {
                    PsMod::Bias | PsMod::Bx2 => {
                        let half = self.kf(0.5);
                        vx!(self, vsubps(Vr(t), Vr(a[0]), half))?;
                        if m == PsMod::Bx2 {
                            let two = self.kf(2.0);
                            vx!(self, vmulps(Vr(t), Vr(t), two))?;
                        }
                    }
                    PsMod::Comp => {
                        let one = self.kreg(1.0)?;
                        vx!(self, vsubps(Vr(t), Vr(one), Vr(a[0])))?;
                    }
                    PsMod::X2 => {
                        let two = self.kf(2.0);
                        vx!(self, vmulps(Vr(t), Vr(a[0]), two))?;
                    }
                }
                t
            }
            _ => unreachable!("the pixel component-wise kinds"),
        })
    }

    /// [`dxso::formula::dp2add`]: s0.x * s1.x + s0.y * s1.y + s2.x, the products with the
    /// zero rule.
    pub(super) fn dp2add(&mut self, src: &[SrcRef; 3]) -> R<V> {
        let mut acc: Option<V> = None;
        for c in 0..2 {
            let a = self.src(&src[0], c)?;
            let b = self.src(&src[1], c)?;
            let p = self.mul(a, b)?;
            if self.w == Width::Ymm {
                self.free(a);
                self.free(b);
            }
            let p = self.component_done(p)?;
            acc = Some(match acc {
                None => p,
                Some(s) => {
                    vx!(self, vaddps(Vr(s), Vr(s), Vr(p)))?;
                    self.free(p);
                    s
                }
            });
        }
        let s = acc.expect("two products");
        let c = self.src(&src[2], 0)?;
        vx!(self, vaddps(Vr(s), Vr(s), Vr(c)))?;
        self.free(c);
        Ok(s)
    }

    /// texkill: the kill row (`dst`, mask x) becomes 1 in the lanes where a component of
    /// `comps` of `s` is below 0, and keeps its value elsewhere (then the write mask).
    pub(super) fn kill(&mut self, dst: &DstRef, s: &SrcRef, comps: u8) -> R {
        let DstKind::Rows(row) = dst.kind else {
            return Err(Error("texkill into a register file".into()));
        };
        if !self.writes(dst, 0) {
            return Ok(());
        }
        let old = self.row(row)?;
        let t = self.copy(old)?;
        for c in (0..4).filter(|c| comps >> c & 1 != 0) {
            let v = self.src(s, c)?;
            let m = self.cmpk(1, v, LT, 0.0)?;
            self.set_where(t, m, 1.0)?;
            self.free_mask(m);
            self.free(v);
        }
        self.store(dst, [Some(t), None, None, None])
    }

    /// texdepth / texm3x2depth: oDepth.x = [`dxso::formula::depth_ratio`] of rows `num` and
    /// `den`.
    pub(super) fn depth_ratio(&mut self, num: u16, den: u16) -> R {
        let dst = crate::pixel::lower::mask_dst(crate::pixel::lower::DEPTH_ROW, 1);
        if !self.writes(&dst, 0) {
            return Ok(());
        }
        let a = self.row(num)?;
        let b = self.row(den)?;
        let t = self.fdiv(a, b)?;
        // An ordered compare: a NaN divisor keeps the quotient (NaN).
        let m = self.cmpk(1, b, EQ, 0.0)?;
        self.set_where(t, m, 1.0)?;
        self.free_mask(m);
        self.store(&dst, [Some(t), None, None, None])
    }

    /// texcrd `_dz`/`_dw`: `dst` = `src` times [`dxso::formula::rcp`] of its component `q`
    /// (1/0 is the largest float, C5), the products with the zero rule.
    pub(super) fn divide(&mut self, dst: &DstRef, src: &SrcRef, q: u8) -> R {
        let written: Vec<usize> = (0..4).filter(|&c| self.writes(dst, c)).collect();
        if written.is_empty() {
            return Ok(());
        }
        let d = self.src(src, q as usize & 3)?;
        let one = self.kreg(1.0)?;
        let r = self.fdiv(one, d)?;
        self.fixup(r, d, Fix::Zero(FIX_MAX))?;
        self.free(d);
        let mut res = [None; 4];
        for c in written {
            let v = self.src(src, c)?;
            let p = self.mul(v, r)?;
            self.free(v);
            res[c] = Some(self.component_done(p)?);
        }
        self.store(dst, res)
    }

    /// dsx (`x`) or dsy: per component, the differences within each quad.
    pub(super) fn quad_difference(&mut self, x: bool, dst: &DstRef, s: &SrcRef) -> R {
        let (hi, lo) = if x { DSX } else { DSY };
        let mut res = [None; 4];
        let written: Vec<usize> = (0..4).filter(|&c| self.writes(dst, c)).collect();
        for c in written {
            let v = self.src(s, c)?;
            let a = self.alloc()?;
            vx!(self, vpermilps(Vr(a), Vr(v), hi))?;
            let b = self.alloc()?;
            vx!(self, vpermilps(Vr(b), Vr(v), lo))?;
            vx!(self, vsubps(Vr(a), Vr(a), Vr(b)))?;
            self.free(b);
            self.free(v);
            res[c] = Some(self.component_done(a)?);
        }
        self.store(dst, res)
    }

    /// A texture sample, for all the pass's groups at once: each group's coordinates (and
    /// texldd's gradients) into the io slot (rows of the pass's lanes), one call of the
    /// interpreter's sampler on the pass's quads (`compile::pixel_sample`), then each
    /// group's texel swizzled into `dst`. (One call instead of one a group: the sampler's
    /// setup is paid once a pass.)
    pub(super) fn sample_pass(
        &mut self,
        dst: &DstRef,
        src: [SrcRef; 3],
        sampler: u8,
        swizzle: u8,
        mode: SampleMode,
        after: &HashSet<u16>,
    ) -> R {
        if !(0..4).any(|c| self.writes(dst, c)) {
            return Ok(());
        }
        let (row, pass) = (self.w.bytes(), self.w.bytes() * self.groups as i32);
        let operands = if mode == SampleMode::Grad { 3 } else { 1 };
        for g in 0..self.groups {
            self.g = g;
            for (k, s) in src[..operands].iter().enumerate() {
                for c in 0..4 {
                    let v = self.src(s, c)?;
                    let at = IO + (4 * k + c) as i32 * pass + g as i32 * row;
                    let m = self.vmem(rsp + at);
                    vx!(self, vmovups(m, Vr(v)))?;
                    self.free(v);
                    // Stored: its register may go (16 registers hold fewer than 12 rows
                    // and their temporaries).
                    self.epoch += 1;
                }
            }
            // (No rows dropped yet: the store below may read the predicate, the old values
            // and the execution mask, live or not after the op.)
            self.end_op();
        }
        self.g = 0;
        let f = match self.w.lanes() * self.groups {
            16 => crate::compile::pixel_sample::<16> as *const u8,
            32 => crate::compile::pixel_sample::<32> as *const u8,
            64 => crate::compile::pixel_sample::<64> as *const u8,
            n => return Err(Error(format!("a pass of {n} lanes"))),
        };
        self.call(f, Some(sampler as u32 | (mode as u32) << 8))?;
        for g in 0..self.groups {
            self.g = g;
            let mut texel = [0; 4];
            for (c, t) in texel.iter_mut().enumerate() {
                *t = self.alloc()?;
                let m = self.vmem(rsp + IO + c as i32 * pass + g as i32 * row);
                vx!(self, vmovups(Vr(*t), m))?;
            }
            let res = std::array::from_fn(|c| Some(texel[(swizzle >> (2 * c) & 3) as usize]));
            self.store(dst, res)?;
            self.end_op();
            self.drop_dead(after);
        }
        self.g = 0;
        Ok(())
    }
}
