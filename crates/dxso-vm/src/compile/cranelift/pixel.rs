//! The pixel programs' operations in Cranelift's code, the interpreter's formulas again:
//! `cmp`, `cnd`, the ps_1_x source modifiers and destination shifts, `dp2add`, `texkill`
//! into the kill row, `dsx`/`dsy` and texture sampling. A group's four lanes are one quad
//! (lanes 4q .. 4q+3), so the quad differences stay inside one vector and the sampling
//! callback sees the whole quad the implicit level of detail needs.

use super::*;
use crate::pixel::lower::SampleMode;
use dxso::formula as f;

impl Emitter<'_> {
    /// A pixel program's component-wise kind on its sources `a`.
    pub(super) fn pixel_componentwise(&mut self, kind: Alu, a: &[Value]) -> Value {
        match kind {
            Alu::Cmp => f::cmp(self, a[0], a[1], a[2]),
            Alu::Cnd => f::cnd(self, a[0], a[1], a[2]),
            Alu::Scale(k) => f::scale(self, a[0], k),
            Alu::SrcMod(m) => match m {
                PsMod::Bias => f::bias(self, a[0]),
                PsMod::Bx2 => f::bx2(self, a[0]),
                PsMod::Comp => f::comp(self, a[0]),
                PsMod::X2 => f::scale(self, a[0], 2.0),
            },
            _ => unreachable!("the pixel component-wise kinds"),
        }
    }

    /// dp2add: s0.x * s1.x + s0.y * s1.y + s2.x, the products with the zero rule.
    pub(super) fn dp2add(&mut self, src: &[SrcRef; 3]) -> Value {
        let (ax, bx) = (self.src(&src[0], 0), self.src(&src[1], 0));
        let (ay, by) = (self.src(&src[0], 1), self.src(&src[1], 1));
        let c = self.src(&src[2], 0);
        f::dp2add(self, [ax, ay], [bx, by], c)
    }

    /// texkill: the kill row (`dst`, mask x) becomes 1 in the lanes where a component of
    /// `comps` of `s` is below 0, and keeps its value elsewhere.
    pub(super) fn kill(&mut self, dst: &DstRef, s: &SrcRef, comps: u8) {
        let DstKind::Rows(row) = dst.kind else {
            unreachable!("texkill writes the kill row")
        };
        let mut r = self.read_row(row);
        for c in (0..4).filter(|c| comps >> c & 1 != 0) {
            let v = self.src(s, c);
            let z = self.f(0.0);
            let m = self.cmp(FloatCC::LessThan, v, z);
            let one = self.f(1.0);
            r = self.sel(m, one, r);
        }
        self.store(dst, [Some(r), None, None, None]);
    }

    /// texdepth / texm3x2depth: oDepth.x = row `num` / row `den`, 1.0 where `den` is 0.
    pub(super) fn depth_ratio(&mut self, num: u16, den: u16) {
        let (a, b) = (self.read_row(num), self.read_row(den));
        let r = f::depth_ratio(self, a, b);
        let dst = crate::pixel::lower::mask_dst(crate::pixel::lower::DEPTH_ROW, 1);
        self.store(&dst, [Some(r), None, None, None]);
    }

    /// texcrd `_dz`/`_dw`: `dst` = `src` times the reciprocal of its component `q` (1/0 is
    /// the largest float, C5), the products with the zero rule.
    pub(super) fn divide(&mut self, dst: &DstRef, src: &SrcRef, q: u8) {
        let d = self.src(src, q as usize & 3);
        let r = f::rcp(self, d);
        let mut res = [None; 4];
        for c in (0..4).filter(|&c| dst.mask >> c & 1 != 0) {
            let v = self.src(src, c);
            res[c] = Some(f::mul(self, v, r));
        }
        self.store(dst, res);
    }

    /// dsx (`x`) or dsy: per component, the differences within the quad: dsx lanes 1 - 0
    /// and 3 - 2, dsy lanes 2 - 0 and 3 - 1 (`pixel::quad`).
    pub(super) fn quad_difference(&mut self, x: bool, dst: &DstRef, s: &SrcRef) {
        let mut res = [None; 4];
        for c in (0..4).filter(|&c| dst.mask >> c & 1 != 0) {
            let v = self.src(s, c);
            let l: [Value; 4] = std::array::from_fn(|i| self.b.ins().extractlane(v, i as u8));
            let (first, second, lanes) = if x {
                let top = self.b.ins().fsub(l[1], l[0]);
                let bottom = self.b.ins().fsub(l[3], l[2]);
                (top, bottom, [2, 3])
            } else {
                let left = self.b.ins().fsub(l[2], l[0]);
                let right = self.b.ins().fsub(l[3], l[1]);
                (left, right, [1, 3])
            };
            let mut r = self.b.ins().splat(F4, first);
            for lane in lanes {
                r = self.b.ins().insertlane(r, second, lane);
            }
            res[c] = Some(r);
        }
        self.store(dst, res);
    }

    /// A texture sample: the coordinates (and texldd's gradients) into the io slot, the
    /// interpreter's sampler on this quad (`compile::pixel_sample`), the texel swizzled into
    /// `dst`.
    pub(super) fn sample(
        &mut self,
        dst: &DstRef,
        src: [SrcRef; 3],
        sampler: u8,
        swizzle: u8,
        mode: SampleMode,
    ) {
        let operands = if mode == SampleMode::Grad { 3 } else { 1 };
        for (k, s) in src[..operands].iter().enumerate() {
            for c in 0..4 {
                let v = self.src(s, c);
                self.b
                    .ins()
                    .stack_store(self.ptr, v, self.io, (4 * k + c) as i32 * 16);
            }
        }
        let at = self.b.ins().stack_addr(self.ptr, self.io, 0);
        let callee = self.b.ins().iconst(
            self.ptr,
            crate::compile::pixel_sample::<4> as *const u8 as i64,
        );
        let what = self
            .b
            .ins()
            .iconst(types::I32, (sampler as u32 | (mode as u32) << 8) as i64);
        self.b
            .ins()
            .call_indirect(self.texldl_sig, callee, &[self.sampling, what, at]);
        let texel: [Value; 4] = std::array::from_fn(|c| {
            self.b
                .ins()
                .stack_load(self.ptr, F4, self.io, c as i32 * 16)
        });
        let res = std::array::from_fn(|c| Some(texel[(swizzle >> (2 * c) & 3) as usize]));
        self.store(dst, res);
    }
}
