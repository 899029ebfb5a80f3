//! Every operation in x86-64 code: values of sources, then each instruction's formula of
//! [`dxso::formula`] in the generator's own instruction sequences (they allocate registers,
//! keep masks in k registers and do a formula's work in fewer steps where an instruction
//! allows: `vfixupimmps`, `vgetexpps`, `vscalefps`, `vminps` as a select). Each routine
//! names the formula it implements; the corpus and property tests hold it to that formula's
//! bits (the interpreter's, which instantiates it).

use super::*;

impl Gen<'_> {
    // ---- values ----------------------------------------------------------------------

    /// A register holding `x` in every lane, shared (read only) while it stays cached.
    pub(super) fn kreg(&mut self, x: f32) -> R<V> {
        let key = KONST | self.pool_at(x.to_bits()) as u32;
        let found = (0..self.regs()).find(|&r| self.slot[r] == Slot::Row { key, dirty: false });
        let r = match found {
            Some(r) => r,
            None => {
                let r = self.alloc()?;
                let m = self.km(x);
                vx!(self, vbroadcastss(Vr(r), m))?;
                self.slot[r] = Slot::Row { key, dirty: false };
                r
            }
        };
        self.touch(r);
        self.pinned[r] = self.epoch;
        Ok(r)
    }

    /// A new temporary holding `x` in every lane.
    pub(super) fn constant(&mut self, x: f32) -> R<V> {
        let t = self.alloc()?;
        let m = self.km(x);
        vx!(self, vbroadcastss(Vr(t), m))?;
        Ok(t)
    }

    /// Source component `c` with `_abs` applied but not negation.
    pub(super) fn src_unnegated(&mut self, s: &SrcRef, c: usize) -> R<V> {
        let v = self.row(s.rows[c])?;
        if s.and == u32::MAX {
            return Ok(v);
        }
        let t = self.alloc()?;
        let m = self.kb(!SIGN);
        vx!(self, vpandd | vpand(Vr(t), Vr(v), m))?;
        Ok(t)
    }

    pub(super) fn src(&mut self, s: &SrcRef, c: usize) -> R<V> {
        let v = self.src_unnegated(s, c)?;
        if s.xor == 0 {
            return Ok(v);
        }
        let t = self.alloc()?;
        let m = self.kb(SIGN);
        vx!(self, vpxord | vpxor(Vr(t), Vr(v), m))?;
        self.free(v);
        Ok(t)
    }

    /// `f(new, x, y)` into a new temporary.
    pub(super) fn op3(
        &mut self,
        f: fn(&mut Self, V, V, V) -> Result<(), IcedError>,
        x: V,
        y: V,
    ) -> R<V> {
        let t = self.alloc()?;
        f(self, t, x, y)?;
        Ok(t)
    }

    pub(super) fn fadd(&mut self, x: V, y: V) -> R<V> {
        self.op3(|g, d, x, y| vx!(g, vaddps(Vr(d), Vr(x), Vr(y))), x, y)
    }

    pub(super) fn fsub(&mut self, x: V, y: V) -> R<V> {
        self.op3(|g, d, x, y| vx!(g, vsubps(Vr(d), Vr(x), Vr(y))), x, y)
    }

    pub(super) fn fmul(&mut self, x: V, y: V) -> R<V> {
        self.op3(|g, d, x, y| vx!(g, vmulps(Vr(d), Vr(x), Vr(y))), x, y)
    }

    pub(super) fn fdiv(&mut self, x: V, y: V) -> R<V> {
        self.op3(|g, d, x, y| vx!(g, vdivps(Vr(d), Vr(x), Vr(y))), x, y)
    }

    /// [`dxso::formula::mul`], the product with the zero rule (C8): a zero factor gives +0.
    /// Fast code: `fma(x, y, +0)`, the rule's bits for finite factors (`finite` checks the
    /// rest).
    pub(super) fn mul(&mut self, x: V, y: V) -> R<V> {
        if self.fast && x != y {
            let t = self.alloc()?;
            vx!(self, vpxord | vpxor(Vr(t), Vr(t), Vr(t)))?;
            vx!(self, vfmadd231ps(Vr(t), Vr(x), Vr(y)))?;
            return Ok(t);
        }
        self.mul_rule(x, y)
    }

    /// [`dxso::formula::mul`] spelled out: compares and a masked product.
    pub(super) fn mul_rule(&mut self, x: V, y: V) -> R<V> {
        if x == y {
            // A square is +0 for a zero factor of either sign already.
            return self.fmul(x, y);
        }
        if self.w == Width::Ymm {
            return self.mul_ymm(x, y);
        }
        // k1 = lanes where neither factor is zero; the non-zero masks of cached rows are
        // kept in k5..k7 while their registers hold them.
        let (x, y) = match (self.mask_of(x), self.mask_of(y)) {
            (_, Some(_)) => (x, y),
            (Some(_), None) => (y, x),
            (None, None) if self.worth_keeping(y) => (x, y),
            (None, None) => (y, x),
        };
        // Compared with a register holding zero: with a broadcast memory operand instead,
        // W2 ran 6 % and W3 5 % slower.
        let zero = |g: &mut Self| g.kreg(0.0).map(|z| ZMM[z]);
        match (self.mask_of(x), self.mask_of(y)) {
            (Some(kx), Some(ky)) => self.a.kandw(k1, KREG[kx], KREG[ky])?,
            (None, Some(ky)) => {
                let z = zero(self)?;
                self.a.vcmpps(mk_k(ky), ZMM[x], z, NEQ)?;
            }
            _ => {
                let z = zero(self)?;
                match self.mask_slot(y) {
                    Some(ky) => {
                        self.a.vcmpps(KREG[ky], ZMM[y], z, NEQ)?;
                        self.a.vcmpps(mk_k(ky), ZMM[x], z, NEQ)?;
                    }
                    None => {
                        self.a.vcmpps(k1, ZMM[y], z, NEQ)?;
                        self.a.vcmpps(k1.k1(), ZMM[x], z, NEQ)?;
                    }
                }
            }
        }
        let t = self.alloc()?;
        self.a.vmulps(ZMM[t].k1().z(), ZMM[x], ZMM[y])?;
        Ok(t)
    }

    /// [`Self::mul`] at AVX2 width: the product and-ed with the lanes where neither factor
    /// is zero (the compares are unordered-not-equal, so NaN lanes keep the product).
    /// A factor this op multiplies again (a broadcast component, nrm's reciprocal length)
    /// keeps its mask in a register to the op's end.
    fn mul_ymm(&mut self, x: V, y: V) -> R<V> {
        let z = self.kreg(0.0)?;
        let mut masks = [0; 2];
        let mut kept = [false; 2];
        for (i, v) in [x, y].into_iter().enumerate() {
            if let Some((_, m)) = self.op_mask.filter(|e| e.0 == v) {
                (masks[i], kept[i]) = (m, true);
                continue;
            }
            let m = self.alloc()?;
            self.a.vcmpps(YMM[m], YMM[v], YMM[z], NEQ)?;
            masks[i] = m;
            if self.op_mask.is_none() && self.worth_keeping_in_op(v) {
                self.op_mask = Some((v, m));
                kept[i] = true;
            }
        }
        let t = self.alloc()?;
        self.a.vmulps(YMM[t], YMM[x], YMM[y])?;
        for i in 0..2 {
            self.a.vandps(YMM[t], YMM[t], YMM[masks[i]])?;
            if !kept[i] {
                self.free(masks[i]);
            }
        }
        Ok(t)
    }

    /// Whether this op multiplies `v` again: a row it reads again, or its reused temporary.
    fn worth_keeping_in_op(&self, v: V) -> bool {
        match self.slot[v] {
            Slot::Row { key, .. } => self.reused_rows.contains(&(key as u16)),
            _ => self.reused_temp == Some(v),
        }
    }

    /// The k register holding `v`'s non-zero mask, if one does.
    pub(super) fn mask_of(&self, v: V) -> Option<usize> {
        (0..KEPT)
            .find(|&i| self.kcache[i] == Some(v))
            .map(|i| i + FIRST_KEPT)
    }

    /// Whether `v` holds a row a later op or this one reads again, a constant, or the
    /// temporary this op multiplies again: its mask may be used again.
    pub(super) fn worth_keeping(&self, v: V) -> bool {
        match self.slot[v] {
            Slot::Row { key, .. } => {
                key & KONST != 0
                    || self.reused_rows.contains(&(key as u16))
                    || self.live(key as u16)
            }
            _ => self.reused_temp == Some(v),
        }
    }

    /// A k register (2..7) to keep the non-zero mask of `v` in, when that is worth it: the
    /// least recently taken one.
    pub(super) fn mask_slot(&mut self, v: V) -> Option<usize> {
        if !self.worth_keeping(v) {
            return None;
        }
        let i = (0..KEPT).min_by_key(|&i| self.kstamp[i]).expect("slots");
        self.clock += 1;
        self.kstamp[i] = self.clock;
        self.kcache[i] = Some(v);
        Some(i + FIRST_KEPT)
    }

    /// Forget every kept mask (the k registers are about to change).
    pub(super) fn forget_masks(&mut self) {
        self.kcache = [None; KEPT];
    }

    /// `k{k}` is about to be used as scratch: forget the mask kept there.
    pub(super) fn scratch_k(&mut self, k: u8) {
        if let Some(i) = (k as usize).checked_sub(FIRST_KEPT) {
            self.kcache[i] = None;
        }
    }

    /// The lanes where `x <cc> y`, `y` a constant: in `k{k}` (AVX-512), or in a new
    /// temporary of all-ones lanes (AVX2).
    pub(super) fn cmpk(&mut self, k: u8, x: V, cc: i32, y: f32) -> R<Mask> {
        let m = self.kf(y);
        match self.w {
            Width::Zmm => {
                self.scratch_k(k);
                self.a.vcmpps(KREG[k as usize], ZMM[x], m, cc)?;
                Ok(Mask::K(k))
            }
            Width::Ymm => {
                let v = self.alloc()?;
                self.a.vcmpps(YMM[v], YMM[x], m, cc)?;
                Ok(Mask::V(v))
            }
        }
    }

    /// The lanes where `x <cc> y` (registers), as [`Self::cmpk`].
    pub(super) fn cmpv(&mut self, k: u8, x: V, cc: i32, y: V) -> R<Mask> {
        match self.w {
            Width::Zmm => {
                self.scratch_k(k);
                self.a.vcmpps(KREG[k as usize], ZMM[x], ZMM[y], cc)?;
                Ok(Mask::K(k))
            }
            Width::Ymm => {
                let v = self.alloc()?;
                self.a.vcmpps(YMM[v], YMM[x], YMM[y], cc)?;
                Ok(Mask::V(v))
            }
        }
    }

    /// `t = constant` in the lanes of `mask` (merge).
    pub(super) fn set_where(&mut self, t: V, mask: Mask, x: f32) -> R {
        match mask {
            Mask::K(k) => {
                let m = self.km(x);
                Ok(self.a.vbroadcastss(mk(ZMM[t], k), m)?)
            }
            Mask::V(m) => {
                // A temporary, not a cached constant: with 16 registers, the constants an
                // op pins (they stay while it is emitted) would run out.
                let c = self.constant(x)?;
                self.a.vblendvps(YMM[t], YMM[t], YMM[c], YMM[m])?;
                self.free(c);
                Ok(())
            }
        }
    }

    /// A new temporary: `y` in the lanes of `mask`, `x` elsewhere.
    pub(super) fn select(&mut self, mask: Mask, x: V, y: V) -> R<V> {
        let t = self.alloc()?;
        match mask {
            Mask::K(k) => self.a.vblendmps(mk(ZMM[t], k), ZMM[x], ZMM[y])?,
            Mask::V(m) => self.a.vblendvps(YMM[t], YMM[x], YMM[y], YMM[m])?,
        }
        Ok(t)
    }

    /// [`dxso::formula::clamp`] (NaN stays NaN), into a new temporary.
    pub(super) fn clamp(&mut self, x: V, lo: f32, hi: f32) -> R<V> {
        // maxps(lo, x) is `lo > x ? lo : x`, minps(hi, t) `hi < t ? hi : t`: x itself
        // when it is NaN.
        if self.w == Width::Ymm {
            // Temporaries, not cached constants (which stay pinned while the op is
            // emitted): 16 registers run out in lit's and pow's chains.
            let t = self.constant(lo)?;
            vx!(self, vmaxps(Vr(t), Vr(t), Vr(x)))?;
            let hi = self.constant(hi)?;
            vx!(self, vminps(Vr(t), Vr(hi), Vr(t)))?;
            self.free(hi);
            return Ok(t);
        }
        let (lo, hi) = (self.kreg(lo)?, self.kreg(hi)?);
        let t = self.alloc()?;
        vx!(self, vmaxps(Vr(t), Vr(lo), Vr(x)))?;
        vx!(self, vminps(Vr(t), Vr(hi), Vr(t)))?;
        Ok(t)
    }

    /// [`dxso::formula::horner`]: the polynomial with coefficients `k` (highest first) at
    /// `x`.
    pub(super) fn horner(&mut self, x: V, k: &[f32]) -> R<V> {
        let p = self.constant(k[0])?;
        for &c in &k[1..] {
            vx!(self, vmulps(Vr(p), Vr(p), Vr(x)))?;
            let m = self.kf(c);
            vx!(self, vaddps(Vr(p), Vr(p), m))?;
        }
        Ok(p)
    }

    /// AVX2 width: `d = v` in the lanes of the vector mask `m` (AVX-512 code writes under a
    /// k register instead), and `v` freed.
    fn merge(&mut self, m: V, d: V, v: V) -> R {
        self.a.vblendvps(YMM[d], YMM[d], YMM[v], YMM[m])?;
        self.free(v);
        Ok(())
    }

    /// 2^x as [`dxso::formula::exp2`] computes it.
    pub(super) fn exp2(&mut self, x: V) -> R<V> {
        let x = self.clamp(x, EXP2_MIN, EXP2_MAX)?;
        if self.w == Width::Zmm {
            // The same value in fewer steps. vrndscaleps rounds to nearest even as the
            // 1.5 * 2^23 trick does for |x| <= 151; vscalefps gives p * 2^n rounded once,
            // which is the two-step scaling's value (p * 2^(n >> 1) is exact; subnormal
            // results included). At the clamp (n = -151) the result is +0: p is zeroed
            // there first, since a vscalefps that underflows to zero takes a microcode
            // assist (W3, whose back-facing lanes take pow(0, s), ran 2.3 times slower).
            // NaN stays p's NaN.
            let n = self.round(x, 0x08)?;
            let fr = self.fsub(x, n)?;
            self.free(x);
            let p = self.horner(fr, &EXP2_POLY)?;
            self.free(fr);
            self.cmpk(2, n, LE, EXP2_MIN)?;
            self.a.vpxord(ZMM[p].k2(), ZMM[p], ZMM[p])?;
            self.a.vscalefps(ZMM[p], ZMM[p], ZMM[n])?;
            self.free(n);
            return Ok(p);
        }
        let n = self.alloc()?;
        let big = self.kf(ROUNDER);
        vx!(self, vaddps(Vr(n), Vr(x), big))?;
        let big = self.kf(ROUNDER);
        vx!(self, vsubps(Vr(n), Vr(n), big))?;
        let fr = self.fsub(x, n)?;
        self.free(x);
        let p = self.horner(fr, &EXP2_POLY)?;
        self.free(fr);
        let low = self.cmpk(2, n, LE, EXP2_MIN)?;
        // n is integral and inside the clamp (or NaN, which the product keeps NaN).
        vx!(self, vcvttps2dq(Vr(n), Vr(n)))?;
        let n1 = self.alloc()?;
        vx!(self, vpsrad(Vr(n1), Vr(n), 1))?;
        vx!(self, vpsubd(Vr(n), Vr(n), Vr(n1)))?;
        for s in [n1, n] {
            let bias = self.kb(127);
            vx!(self, vpaddd(Vr(s), Vr(s), bias))?;
            vx!(self, vpslld(Vr(s), Vr(s), 23))?;
        }
        self.set_where(n, low, 1.0)?;
        vx!(self, vmulps(Vr(p), Vr(p), Vr(n1)))?;
        vx!(self, vmulps(Vr(p), Vr(p), Vr(n)))?;
        match low {
            Mask::K(_) => self.a.vpxord(ZMM[p].k2(), ZMM[p], ZMM[p])?,
            Mask::V(m) => self.a.vandnps(YMM[p], YMM[m], YMM[p])?,
        }
        self.free_mask(low);
        self.free(n);
        self.free(n1);
        Ok(p)
    }

    /// x = m * 2^e with m in [sqrt(1/2), sqrt(2)) and e integral (as a float), subnormals
    /// normalised: [`dxso::formula::log2`]'s split.
    fn log2_split(&mut self, x: V) -> R<(V, V)> {
        let half = self.kf(0.5);
        if self.w == Width::Zmm {
            // vgetexpps and vgetmantps give floor(log2 x) and x / 2^that in [1, 2),
            // subnormals normalised: the values of the bit manipulation below.
            let e = self.alloc()?;
            self.a.vgetexpps(ZMM[e], ZMM[x])?;
            let m = self.alloc()?;
            // Interval [1, 2), the source's sign (x >= 0 here).
            self.a.vgetmantps(ZMM[m], ZMM[x], 0)?;
            self.cmpk(2, m, GT, std::f32::consts::SQRT_2)?;
            self.a.vmulps(ZMM[m].k2(), ZMM[m], half)?;
            let one = self.kf(1.0);
            self.a.vaddps(ZMM[e].k2(), ZMM[e], one)?;
            return Ok((m, e));
        }
        // AVX2: from the bits. Subnormals scaled by 2^23 first.
        let Mask::V(tiny) = self.cmpk(1, x, LT, f32::MIN_POSITIVE)? else {
            unreachable!("AVX2 masks are vectors")
        };
        let xs = self.copy(x)?;
        let k = self.kf(8_388_608.0);
        let t = self.alloc()?;
        self.a.vmulps(YMM[t], YMM[x], k)?;
        self.merge(tiny, xs, t)?;
        let e = self.alloc()?;
        self.a.vpsrld(YMM[e], YMM[xs], 23)?;
        let m = self.kb(0xFF);
        self.a.vpand(YMM[e], YMM[e], m)?;
        let m = self.kb(127);
        self.a.vpsubd(YMM[e], YMM[e], m)?;
        // e - 23 in the tiny lanes: the mask and-ed with 23.
        let m = self.kb(23);
        self.a.vpand(YMM[tiny], YMM[tiny], m)?;
        self.a.vpsubd(YMM[e], YMM[e], YMM[tiny])?;
        self.free(tiny);
        let mant = self.kb(0x007F_FFFF);
        self.a.vpand(YMM[xs], YMM[xs], mant)?;
        let one_bits = self.kb(0x3F80_0000);
        self.a.vpor(YMM[xs], YMM[xs], one_bits)?;
        let m = xs;
        let Mask::V(big) = self.cmpk(2, m, GT, std::f32::consts::SQRT_2)? else {
            unreachable!("AVX2 masks are vectors")
        };
        let t = self.alloc()?;
        self.a.vmulps(YMM[t], YMM[m], half)?;
        self.merge(big, m, t)?;
        // e + 1 in those lanes: minus the mask's -1.
        self.a.vpsubd(YMM[e], YMM[e], YMM[big])?;
        self.free(big);
        self.a.vcvtdq2ps(YMM[e], YMM[e])?;
        Ok((m, e))
    }

    /// log2(x) as [`dxso::formula::log2`] computes it, for x >= 0 or NaN.
    pub(super) fn log2(&mut self, x: V) -> R<V> {
        let (m, e) = self.log2_split(x)?;
        let num = self.alloc()?;
        let one = self.kf(1.0);
        vx!(self, vsubps(Vr(num), Vr(m), one))?;
        let one = self.kf(1.0);
        vx!(self, vaddps(Vr(m), Vr(m), one))?;
        let s = self.fdiv(num, m)?;
        self.free(num);
        self.free(m);
        let s2 = self.fmul(s, s)?;
        let p = self.horner(s2, &LOG2_POLY)?;
        let two_s = self.alloc()?;
        let two = self.kf(2.0);
        vx!(self, vmulps(Vr(two_s), Vr(s), two))?;
        self.free(s);
        let t = self.fmul(two_s, s2)?;
        vx!(self, vmulps(Vr(t), Vr(t), Vr(p)))?;
        self.free(s2);
        self.free(p);
        vx!(self, vaddps(Vr(t), Vr(two_s), Vr(t)))?;
        self.free(two_s);
        let l2e = self.kf(std::f32::consts::LOG2_E);
        vx!(self, vmulps(Vr(t), Vr(t), l2e))?;
        vx!(self, vaddps(Vr(t), Vr(t), Vr(e)))?;
        self.free(e);
        let r = t;
        self.fixup(r, x, Fix::ZeroInf(FIX_NEG_INF, FIX_POS_INF))?;
        // Below zero would be NaN too; every caller passes a magnitude.
        let nan = self.cmpv(1, x, UNORD, x)?;
        self.set_where(r, nan, f32::NAN)?;
        self.free_mask(nan);
        Ok(r)
    }

    pub(super) fn abs(&mut self, x: V) -> R<V> {
        let t = self.alloc()?;
        let m = self.kb(!SIGN);
        vx!(self, vpandd | vpand(Vr(t), Vr(x), m))?;
        Ok(t)
    }

    /// `x` rounded as `mode` says (`vrndscaleps`/`vroundps` immediate: 0x08 to nearest
    /// even, 0x09 down; inexact not signalled), into a new temporary.
    pub(super) fn round(&mut self, x: V, mode: i32) -> R<V> {
        let t = self.alloc()?;
        vx!(self, vrndscaleps | vroundps(Vr(t), Vr(x), mode))?;
        Ok(t)
    }

    /// At AVX2 width (16 registers), free the temporary `v` as soon as the op is done with
    /// it; AVX-512 code keeps it to the op's end (its register choice stays as it was).
    pub(super) fn release(&mut self, v: V) {
        if self.w == Width::Ymm {
            self.free(v);
        }
    }

    /// A mask is done with (a temporary at AVX2 width; k registers need nothing).
    pub(super) fn free_mask(&mut self, m: Mask) {
        if let Mask::V(v) = m {
            self.free(v);
        }
    }

    /// [`dxso::formula::pow`]: exp2(y * log2|x|) with the zero rule's product.
    pub(super) fn pow(&mut self, x: V, y: V) -> R<V> {
        let abs_x = self.abs(x)?;
        let l = self.log2(abs_x)?;
        self.free(abs_x);
        // log2 gives -inf for 0: this product keeps the rule in fast code too.
        let t = self.mul_rule(y, l)?;
        self.free(l);
        let r = self.exp2(t)?;
        self.free(t);
        Ok(r)
    }

    /// `r` = 1/sqrt(f) for f >= 0 or NaN: +inf (f = 0 only: no other root's reciprocal
    /// overflows) becomes the largest float, NaN stays (minps returns its second operand
    /// for NaN): the `0 -> FLT_MAX` select of [`dxso::formula::rsq`] (C5) and
    /// [`dxso::formula::nrm_factor`] in one instruction.
    fn at_most_max(&mut self, r: V) -> R {
        let max = self.kreg(FLT_MAX)?;
        Ok(vx!(self, vminps(Vr(r), Vr(max), Vr(r)))?)
    }

    /// `r` = a fixed value where `x` is ±0 (or +inf), in one `vfixupimmps` (classifies `x`
    /// without a compare; denormals are not zero): the selects of [`dxso::formula::rcp`]
    /// (C5), [`dxso::formula::log`] (C6), [`dxso::formula::log2`] and
    /// [`dxso::formula::sgn`].
    pub(super) fn fixup(&mut self, r: V, x: V, fix: Fix) -> R {
        // One 4-bit response per class of x: 2 = ±0, 5 = +inf (0: keep r).
        let table = match fix {
            Fix::Zero(z) => z << 8,
            Fix::ZeroInf(z, inf) => z << 8 | inf << 20,
        };
        if self.w == Width::Zmm {
            let t = self.kb(table);
            return Ok(self.a.vfixupimmps(ZMM[r], ZMM[x], t, 0)?);
        }
        // AVX2: compares (equal-ordered: ±0 equals 0, NaN nothing; denormals are not zero
        // either) and blends.
        let value = |response: u32| match response {
            FIX_NEG_INF => f32::NEG_INFINITY,
            FIX_POS_INF => f32::INFINITY,
            FIX_POS_ZERO => 0.0,
            FIX_MAX => FLT_MAX,
            _ => -FLT_MAX,
        };
        let (zero, inf) = match fix {
            Fix::Zero(z) => (z, None),
            Fix::ZeroInf(z, inf) => (z, Some(inf)),
        };
        let m = self.cmpk(1, x, EQ, 0.0)?;
        self.set_where(r, m, value(zero))?;
        self.free_mask(m);
        if let Some(inf) = inf {
            let m = self.cmpk(1, x, EQ, f32::INFINITY)?;
            self.set_where(r, m, value(inf))?;
            self.free_mask(m);
        }
        Ok(())
    }

    /// [`dxso::formula::dot`]: the zero rule's products summed left to right.
    pub(super) fn dot(&mut self, src: &[SrcRef; 3], n: usize) -> R<V> {
        let mut acc: Option<V> = None;
        for c in 0..n {
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
        Ok(acc.expect("n > 0"))
    }

    /// One component of an op is computed into `v`: at AVX2 width (16 registers), the rows
    /// it read need not stay in their registers for the op's other components, so they are
    /// unpinned (and `v`, where it is a row's register, copied into a temporary of its own
    /// first). At AVX-512 width, `v` as it is.
    pub(super) fn component_done(&mut self, v: V) -> R<V> {
        if self.w == Width::Zmm {
            return Ok(v);
        }
        let v = if self.slot[v] == Slot::Temp {
            v
        } else {
            self.copy(v)?
        };
        self.epoch += 1;
        Ok(v)
    }

    /// One ALU operation: each arm is the `dxso::formula` function of its name in x86
    /// instructions (`Alu::Lrp` is [`dxso::formula::lrp`], ...).
    #[allow(clippy::too_many_lines)] // a dispatch `match`: one arm per ALU operation
    pub(super) fn alu(&mut self, kind: Alu, dst: &DstRef, src: &[SrcRef; 3]) -> R {
        let live: [bool; 4] = std::array::from_fn(|c| self.writes(dst, c));
        if live == [false; 4] {
            return Ok(());
        }
        let on = |c: usize| live[c];
        let nargs = kind.componentwise_sources();
        if nargs > 0 {
            let mut res = [None; 4];
            for c in (0..4).filter(|&c| on(c)) {
                let mut a = [0; 3];
                for k in 0..nargs {
                    // x + (-y) is x - y in IEEE arithmetic: skip the negation.
                    a[k] = if kind == Alu::Add && k == 1 && src[1].xor != 0 {
                        self.src_unnegated(&src[1], c)?
                    } else {
                        self.src(&src[k], c)?
                    };
                }
                let v = match kind {
                    Alu::Mov | Alu::MovA => a[0],
                    Alu::Add if src[1].xor != 0 => self.fsub(a[0], a[1])?,
                    Alu::Add => self.fadd(a[0], a[1])?,
                    Alu::Mul => self.mul(a[0], a[1])?,
                    Alu::Mad => {
                        let p = self.mul(a[0], a[1])?;
                        vx!(self, vaddps(Vr(p), Vr(p), Vr(a[2])))?;
                        p
                    }
                    // minps is `x < y ? x : y`, the interpreter's min.
                    Alu::Min => {
                        self.op3(|g, d, x, y| vx!(g, vminps(Vr(d), Vr(x), Vr(y))), a[0], a[1])?
                    }
                    Alu::Max => {
                        // `x >= y ? x : y` (maxps differs on +-0 and NaN).
                        let m = self.cmpv(1, a[0], GE, a[1])?;
                        let t = self.select(m, a[1], a[0])?;
                        self.free_mask(m);
                        t
                    }
                    Alu::Slt | Alu::Sge => {
                        let cc = if kind == Alu::Slt { LT } else { GE };
                        let m = self.cmpv(1, a[0], cc, a[1])?;
                        let one = self.km(1.0);
                        match m {
                            Mask::K(_) => {
                                let t = self.alloc()?;
                                self.a.vbroadcastss(ZMM[t].k1().z(), one)?;
                                t
                            }
                            Mask::V(m) => {
                                let one = self.kreg(1.0)?;
                                self.a.vandps(YMM[m], YMM[m], YMM[one])?;
                                m
                            }
                        }
                    }
                    Alu::Abs => self.abs(a[0])?,
                    // C2: vs_1_1 `mov a0.x` floors (rounding mode 1: down).
                    Alu::Floor => self.round(a[0], 0x09)?,
                    Alu::Frc => {
                        let t = self.round(a[0], 0x09)?;
                        vx!(self, vsubps(Vr(t), Vr(a[0]), Vr(t)))?;
                        t
                    }
                    Alu::Lrp => {
                        let d = self.fsub(a[1], a[2])?;
                        let p = self.mul(a[0], d)?;
                        self.free(d);
                        vx!(self, vaddps(Vr(p), Vr(p), Vr(a[2])))?;
                        p
                    }
                    Alu::Cmp | Alu::Cnd | Alu::Scale(_) | Alu::SrcMod(_) => {
                        self.pixel_componentwise(kind, a)?
                    }
                    Alu::Sgn => {
                        // a < 0: -1; a == 0: 0; otherwise (NaN too) 1.
                        let t = self.constant(1.0)?;
                        self.fixup(t, a[0], Fix::Zero(FIX_POS_ZERO))?;
                        let m = self.cmpk(1, a[0], LT, 0.0)?;
                        self.set_where(t, m, -1.0)?;
                        self.free_mask(m);
                        t
                    }
                    _ => unreachable!("component-wise kinds"),
                };
                // The sources' own temporaries (modifiers) are done with.
                for &x in &a[..nargs] {
                    if x != v {
                        self.free(x);
                    }
                }
                let v = self.component_done(v)?;
                res[c] = Some(v);
            }
            return self.store(dst, res);
        }
        let replicated = match kind {
            Alu::Dp3 => Some(self.dot(src, 3)?),
            Alu::Dp4 => Some(self.dot(src, 4)?),
            Alu::Rcp => {
                // (1 / 1 is 1 already: the pseudo-code's x == 1 case needs no code.)
                let x = self.src(&src[0], 0)?;
                let one = self.kreg(1.0)?;
                let r = self.fdiv(one, x)?;
                self.fixup(r, x, Fix::Zero(FIX_MAX))?;
                Some(r)
            }
            Alu::Rsq => {
                let x = self.src(&src[0], 0)?;
                let f = self.abs(x)?;
                let s = self.alloc()?;
                vx!(self, vsqrtps(Vr(s), Vr(f)))?;
                let one = self.kreg(1.0)?;
                let r = self.fdiv(one, s)?;
                self.at_most_max(r)?;
                Some(r)
            }
            Alu::Exp => {
                let x = self.src(&src[0], 0)?;
                Some(self.exp2(x)?)
            }
            Alu::Log => {
                let x = self.src(&src[0], 0)?;
                let f = self.abs(x)?;
                let l = self.log2(f)?;
                self.fixup(l, f, Fix::Zero(FIX_NEG_MAX))?;
                Some(l)
            }
            Alu::Pow => {
                let x = self.src(&src[0], 0)?;
                let y = self.src(&src[1], 0)?;
                Some(self.pow(x, y)?)
            }
            Alu::Dp2Add => Some(self.dp2add(src)?),
            _ => None,
        };
        if let Some(v) = replicated {
            return self.store(dst, [Some(v); 4]);
        }
        match kind {
            Alu::Kill(comps) => self.kill(dst, &src[0], comps),
            Alu::Dsx | Alu::Dsy => self.quad_difference(kind == Alu::Dsx, dst, &src[0]),
            Alu::TexLdl { sampler, swizzle } => {
                // The callback's slot: four component rows of one register's lanes.
                let row = self.w.bytes();
                for c in 0..4 {
                    let v = self.src(&src[0], c)?;
                    let m = self.vmem(rsp + IO + c as i32 * row);
                    vx!(self, vmovups(m, Vr(v)))?;
                    self.release(v);
                }
                let texldl = match self.w {
                    Width::Zmm => crate::compile::texldl::<16> as *const u8,
                    Width::Ymm => crate::compile::texldl::<8> as *const u8,
                };
                self.call(texldl, Some(sampler as u32))?;
                let texel: [V; 4] = std::array::from_fn(|_| 0);
                let mut texel = texel;
                for (c, t) in texel.iter_mut().enumerate() {
                    *t = self.alloc()?;
                    let m = self.vmem(rsp + IO + c as i32 * row);
                    vx!(self, vmovups(Vr(*t), m))?;
                }
                let res = std::array::from_fn(|c| Some(texel[(swizzle >> (2 * c) & 3) as usize]));
                self.store(dst, res)
            }
            Alu::SinCos => {
                let x = self.src(&src[0], 0)?;
                let io = self.vmem(rsp + IO);
                vx!(self, vmovups(io, Vr(x)))?;
                let sincos = match self.w {
                    Width::Zmm => crate::compile::sincos::<16> as *const u8,
                    Width::Ymm => crate::compile::sincos::<8> as *const u8,
                };
                self.call(sincos, None)?;
                let cos = self.alloc()?;
                vx!(self, vmovups(Vr(cos), io))?;
                let sin = self.alloc()?;
                let m = self.vmem(rsp + IO + self.w.bytes());
                vx!(self, vmovups(Vr(sin), m))?;
                let z = self.constant(0.0)?;
                self.store(dst, [Some(cos), Some(sin), Some(z), Some(z)])
            }
            Alu::Lit => {
                let x = self.src(&src[0], 0)?;
                let y = self.src(&src[0], 1)?;
                let w = self.src(&src[0], 3)?;
                let power = self.clamp(w, -LIT_POWER, LIT_POWER)?;
                self.release(w);
                let pw = self.pow(y, power)?;
                self.release(power);
                let one = self.constant(1.0)?;
                let mx = self.cmpk(2, x, GT, 0.0)?;
                let my = self.cmpk(3, y, GT, 0.0)?;
                let r1 = self.alloc()?;
                match (mx, my) {
                    (Mask::V(mx), Mask::V(my)) => {
                        self.a.vandps(YMM[r1], YMM[mx], YMM[x])?;
                        self.a.vandps(YMM[my], YMM[my], YMM[mx])?;
                        self.a.vandps(YMM[pw], YMM[pw], YMM[my])?;
                        self.free(mx);
                        self.free(my);
                    }
                    _ => {
                        self.a.vmovaps(ZMM[r1].k2().z(), ZMM[x])?;
                        self.a.kandw(k3, k2, k3)?;
                        self.a.vmovaps(ZMM[pw].k3().z(), ZMM[pw])?;
                    }
                }
                self.store(dst, [Some(one), Some(r1), Some(pw), Some(one)])
            }
            Alu::Dst => {
                let ay = self.src(&src[0], 1)?;
                let az = self.src(&src[0], 2)?;
                let by = self.src(&src[1], 1)?;
                let bw = self.src(&src[1], 3)?;
                let one = self.constant(1.0)?;
                let y = self.mul(ay, by)?;
                self.store(dst, [Some(one), Some(y), Some(az), Some(bw)])
            }
            Alu::Crs => {
                let mut a = [0; 3];
                let mut b = [0; 3];
                for c in 0..3 {
                    a[c] = self.src(&src[0], c)?;
                }
                for c in 0..3 {
                    b[c] = self.src(&src[1], c)?;
                }
                let mut r = [None; 4];
                for (c, (i, j)) in [(1, 2), (2, 0), (0, 1)].into_iter().enumerate() {
                    let p = self.mul(a[i], b[j])?;
                    let q = self.mul(a[j], b[i])?;
                    vx!(self, vsubps(Vr(p), Vr(p), Vr(q)))?;
                    self.free(q);
                    r[c] = Some(p);
                }
                self.store(dst, r)
            }
            Alu::Nrm => {
                let mut a = [0; 4];
                for c in 0..4 {
                    a[c] = self.src(&src[0], c)?;
                }
                let f = self.mul(a[0], a[0])?;
                for c in 1..3 {
                    let p = self.mul(a[c], a[c])?;
                    vx!(self, vaddps(Vr(f), Vr(f), Vr(p)))?;
                    self.free(p);
                }
                let r = self.alloc()?;
                vx!(self, vsqrtps(Vr(r), Vr(f)))?;
                let one = self.kreg(1.0)?;
                vx!(self, vdivps(Vr(r), Vr(one), Vr(r)))?;
                // f == 0 (not NaN): the largest float.
                self.at_most_max(r)?;
                self.free(f);
                // r is final: its mask serves all four products.
                self.reused_temp = Some(r);
                let mut out = [None; 4];
                for c in 0..4 {
                    out[c] = Some(self.mul(a[c], r)?);
                    self.release(a[c]);
                }
                self.store(dst, out)
            }
            Alu::Setp(cmp) => {
                let cc = compare_predicate(cmp);
                let mut res = [None; 4];
                for c in (0..4).filter(|&c| on(c)) {
                    let a = self.src(&src[0], c)?;
                    let b = self.src(&src[1], c)?;
                    // All ones in the lanes where the compare holds.
                    let t = match self.cmpv(1, a, cc, b)? {
                        Mask::V(m) => m,
                        Mask::K(_) => {
                            let t = self.alloc()?;
                            self.a.vpternlogd(ZMM[t].k1().z(), ZMM[t], ZMM[t], 0xFF)?;
                            t
                        }
                    };
                    // At AVX2 width the sources' temporaries (`_abs`, negation) go now: with
                    // four components held for a masked write, 16 registers ran out.
                    self.release(a);
                    self.release(b);
                    let t = self.component_done(t)?;
                    res[c] = Some(t);
                }
                let vals = std::array::from_fn(|c| res[c].map(|v| (P0_ROW + c as u16, v)));
                self.commit(dst, vals)
            }
            _ => unreachable!("supported() admits only these kinds"),
        }
    }

    /// Call a callback with the frame's io slot (after writing every cached row back:
    /// the callee may use every vector register).
    pub(super) fn call(&mut self, f: *const u8, sampler: Option<u32>) -> R {
        self.flush()?;
        self.forget_masks();
        if self.fast {
            // The callee may use every vector register: the check accumulator waits in
            // its home.
            let (acc, at) = (self.acc(), self.vmem(rsp + self.acc_home));
            vx!(self, vmovups(at, Vr(acc)))?;
        }
        self.a.vzeroupper()?;
        match sampler {
            Some(s) => {
                self.a.mov(rdi, qword_ptr(rsp + SAMPLING))?;
                self.a.mov(esi, s)?;
                self.a.mov(rdx, rsp)?;
            }
            None => self.a.mov(rdi, rsp)?,
        }
        self.a.mov(rax, f as u64)?;
        self.a.call(rax)?;
        if self.fast {
            let (acc, at) = (self.acc(), self.vmem(rsp + self.acc_home));
            vx!(self, vmovups(Vr(acc), at))?;
        }
        Ok(())
    }
}
