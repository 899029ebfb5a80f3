//! Each instruction's arithmetic, written once over an abstract lane type.
//!
//! A D3D9 rule such as rcp's `0 -> FLT_MAX` (C5) is spelled here and nowhere else: the
//! engines implement [`Lanes`] (the interpreter over `f32` through [`Scalar`], the Cranelift
//! generator over its SSA vectors, the naga translator over expression handles) and call
//! these functions, so every tier computes the same operations in the same order and
//! rounds alike. (The idea of winch's `MacroAssembler`: one description of an operation,
//! a back end per target.) The x86 generator emits its own instruction sequences where an
//! instruction does a formula's work in fewer steps (`vfixupimmps`, `vgetexpps`,
//! `vscalefps`, `vminps` as a select); each such routine names the formula here it
//! implements, and the corpus and property tests hold it to the same bits.
//!
//! The rule numbers (C3, C5, ...) are those of `../shared/spec/instructions.md`.
//!
//! ```
//! use dxso::formula::{self, Scalar};
//! assert_eq!(formula::rcp(&mut Scalar, 0.0), f32::MAX);
//! assert_eq!(formula::mul(&mut Scalar, 0.0, f32::INFINITY), 0.0);
//! ```

use crate::ir::Comparison;

/// Operations on lanes of `f32` values (and the `i32` lanes the exp2/log2 bit work needs),
/// which each engine implements over its own representation.
///
/// Every operation is the IEEE one, rounding to nearest even; compares are ordered
/// (NaN compares false except `Ne`).
pub trait Lanes {
    /// A value: one `f32` per lane.
    type V: Copy;
    /// A lane mask, the result of a compare.
    type M: Copy;
    /// An `i32` per lane.
    type I: Copy;

    /// `x` in every lane.
    fn k(&mut self, x: f32) -> Self::V;
    /// `a + b`.
    fn add(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a - b`.
    fn sub(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// The IEEE product `a * b` (the D3D9 product is [`mul`]).
    fn fmul(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a / b`.
    fn div(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `|a|`.
    fn abs(&mut self, a: Self::V) -> Self::V;
    /// Rounded toward negative infinity.
    fn floor(&mut self, a: Self::V) -> Self::V;
    /// The square root.
    fn sqrt(&mut self, a: Self::V) -> Self::V;
    /// Rounded to the nearest integer, halves to even; needed only for `|a| <= 151`.
    fn round_even(&mut self, a: Self::V) -> Self::V;
    /// The lanes where `a <c> b` (ordered: NaN gives false except for `Ne`).
    fn cmp(&mut self, c: Comparison, a: Self::V, b: Self::V) -> Self::M;
    /// The lanes where `a` is NaN.
    fn is_nan(&mut self, a: Self::V) -> Self::M;
    /// Both masks.
    fn and(&mut self, a: Self::M, b: Self::M) -> Self::M;
    /// Either mask.
    fn or(&mut self, a: Self::M, b: Self::M) -> Self::M;
    /// `m ? a : b` per lane.
    fn select(&mut self, m: Self::M, a: Self::V, b: Self::V) -> Self::V;
    /// Whether `a` and `b` are known to be one value (the same SSA value or expression):
    /// lets [`mul`] skip the zero rule for a square. `false` is always correct.
    fn same(&self, a: Self::V, b: Self::V) -> bool {
        let _ = (a, b);
        false
    }

    /// `x` in every integer lane.
    fn ik(&mut self, x: i32) -> Self::I;
    /// Wrapping `a + b`.
    fn iadd(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// Wrapping `a - b`.
    fn isub(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `a & b`.
    fn iand(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `a | b`.
    fn ior(&mut self, a: Self::I, b: Self::I) -> Self::I;
    /// `a << n`.
    fn shl(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `a >> n`, arithmetic (the sign fills in).
    fn sar(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `a >> n`, logical (zeros fill in).
    fn shr(&mut self, a: Self::I, n: u32) -> Self::I;
    /// `m ? a : b` per integer lane.
    fn iselect(&mut self, m: Self::M, a: Self::I, b: Self::I) -> Self::I;
    /// An integral `a` (inside the `i32` range, or NaN, whose lane may become anything)
    /// as an integer.
    fn to_int(&mut self, a: Self::V) -> Self::I;
    /// `a` as a float (rounded).
    fn to_float(&mut self, a: Self::I) -> Self::V;
    /// The bits of `a`.
    fn bits(&mut self, a: Self::V) -> Self::I;
    /// The float with bits `a`.
    fn float_of_bits(&mut self, a: Self::I) -> Self::V;
}

/// The largest finite float, D3D9's `FLT_MAX` (C5, C6, nrm).
pub const FLT_MAX: f32 = f32::MAX;
/// exp2's argument range: below it the result is +0, above it +inf.
pub const EXP2_MIN: f32 = -151.0;
/// See [`EXP2_MIN`].
pub const EXP2_MAX: f32 = 129.0;
/// 1.5 * 2^23: adding and subtracting it rounds a float below 2^22 to an integer (half to
/// even), a [`Lanes::round_even`] without SSE4.1.
pub const ROUNDER: f32 = 12_582_912.0;
/// Taylor terms of 2^f = e^(f ln 2) to degree 7, highest first: (ln 2)^k / k!.
pub const EXP2_POLY: [f32; 8] = [
    1.5252734e-5,
    1.540353e-4,
    0.0013333558,
    0.009618129,
    0.05550411,
    0.2402265,
    std::f32::consts::LN_2,
    1.0,
];
/// log2 series: atanh(s)/s = 1 + s^2/3 + s^4/5 + s^6/7, the terms after 1, highest first.
pub const LOG2_POLY: [f32; 3] = [0.14285715, 0.2, 0.33333334];
/// lit's exponent clamp (MAXPOWER, 8.8 fixed point).
pub const LIT_POWER: f32 = 127.9961;
/// 2^23, which scales a subnormal into the normal range (log2's split).
pub const SUBNORMAL_SCALE: f32 = 8_388_608.0;

// ---- building blocks ------------------------------------------------------------------

/// `f32::clamp(x, lo, hi)` by selects: NaN stays NaN.
#[inline(always)]
pub fn clamp<L: Lanes>(l: &mut L, x: L::V, lo: f32, hi: f32) -> L::V {
    let lo = l.k(lo);
    let m = l.cmp(Comparison::Lt, x, lo);
    let x = l.select(m, lo, x);
    let hi = l.k(hi);
    let m = l.cmp(Comparison::Gt, x, hi);
    l.select(m, hi, x)
}

/// The polynomial with coefficients `k` (highest first) at `x`, by Horner's rule.
#[inline(always)]
pub fn horner<L: Lanes>(l: &mut L, x: L::V, k: &[f32]) -> L::V {
    let mut p = l.k(k[0]);
    for &c in &k[1..] {
        let t = l.fmul(p, x);
        let c = l.k(c);
        p = l.add(t, c);
    }
    p
}

/// `c ? 1.0 : 0.0`.
#[inline(always)]
fn one_if<L: Lanes>(l: &mut L, c: L::M) -> L::V {
    let (one, zero) = (l.k(1.0), l.k(0.0));
    l.select(c, one, zero)
}

/// `x == k ? v : r`.
#[inline(always)]
fn when_eq<L: Lanes>(l: &mut L, x: L::V, k: f32, v: f32, r: L::V) -> L::V {
    let kv = l.k(k);
    let m = l.cmp(Comparison::Eq, x, kv);
    let v = l.k(v);
    l.select(m, v, r)
}

/// 2^x, exact for integers, about 1 ulp elsewhere (exp needs 21 bits); +0 below
/// [`EXP2_MIN`], +inf above [`EXP2_MAX`], NaN for NaN. Branch-free.
#[inline(always)]
pub fn exp2<L: Lanes>(l: &mut L, x: L::V) -> L::V {
    // NaN stays NaN through the clamp and the polynomial.
    let x = clamp(l, x, EXP2_MIN, EXP2_MAX);
    let n = l.round_even(x);
    let f = l.sub(x, n); // [-0.5, 0.5]
    let p = horner(l, f, &EXP2_POLY);
    // At the clamp (n = -151) the result, below 2^-150, rounds to +0: give it without
    // computing an underflowing product (processors slow down on those).
    let lowest = l.k(EXP2_MIN);
    let zero = l.cmp(Comparison::Le, n, lowest);
    // Scale by 2^n in two steps so that subnormal results and overflow round once.
    let n = l.to_int(n);
    let n1 = l.sar(n, 1);
    let n2 = l.isub(n, n1);
    let bias = l.ik(127);
    let scale = |l: &mut L, e: L::I| {
        let e = l.iadd(e, bias);
        let e = l.shl(e, 23);
        l.float_of_bits(e)
    };
    let s1 = scale(l, n1);
    let s2 = scale(l, n2);
    let one = l.k(1.0);
    let s2 = l.select(zero, one, s2);
    let r = l.fmul(p, s1);
    let r = l.fmul(r, s2);
    let z = l.k(0.0);
    l.select(zero, z, r)
}

/// log2(x): 0 gives -inf, +inf gives +inf, negatives and NaN give NaN; exact at powers of
/// two, about 1 ulp elsewhere (log needs 21 bits). Branch-free.
#[inline(always)]
pub fn log2<L: Lanes>(l: &mut L, x: L::V) -> L::V {
    // Normalise subnormals, then split x = m * 2^e with m in [sqrt(1/2), sqrt(2)).
    let minpos = l.k(f32::MIN_POSITIVE);
    let sub = l.cmp(Comparison::Lt, x, minpos);
    let k = l.k(SUBNORMAL_SCALE);
    let scaled = l.fmul(x, k);
    let xs = l.select(sub, scaled, x);
    let bits = l.bits(xs);
    let e = l.shr(bits, 23);
    let ff = l.ik(0xFF);
    let e = l.iand(e, ff);
    let k127 = l.ik(127);
    let e = l.isub(e, k127);
    let (k23, k0) = (l.ik(23), l.ik(0));
    let adj = l.iselect(sub, k23, k0);
    let e = l.isub(e, adj);
    let mant = l.ik(0x007F_FFFF);
    let m = l.iand(bits, mant);
    let one_bits = l.ik(0x3F80_0000);
    let m = l.ior(m, one_bits);
    let m = l.float_of_bits(m);
    let sqrt2 = l.k(std::f32::consts::SQRT_2);
    let big = l.cmp(Comparison::Gt, m, sqrt2);
    let half = l.k(0.5);
    let mh = l.fmul(m, half);
    let m = l.select(big, mh, m);
    let k1 = l.ik(1);
    let inc = l.iselect(big, k1, k0);
    let e = l.iadd(e, inc);
    // log2(m) = 2/ln2 * atanh(s), s = (m - 1) / (m + 1), |s| < 0.172.
    let one = l.k(1.0);
    let num = l.sub(m, one);
    let den = l.add(m, one);
    let s = l.div(num, den);
    let s2 = l.fmul(s, s);
    let p = horner(l, s2, &LOG2_POLY);
    let two = l.k(2.0);
    let two_s = l.fmul(two, s);
    let t = l.fmul(two_s, s2);
    let t = l.fmul(t, p);
    let ln_m = l.add(two_s, t);
    let log2e = l.k(std::f32::consts::LOG2_E);
    let r = l.fmul(ln_m, log2e);
    let ef = l.to_float(e);
    let r = l.add(r, ef);
    let inf = l.k(f32::INFINITY);
    let is_inf = l.cmp(Comparison::Eq, x, inf);
    let r = l.select(is_inf, x, r);
    let r = when_eq(l, x, 0.0, f32::NEG_INFINITY, r);
    let z = l.k(0.0);
    let neg = l.cmp(Comparison::Lt, x, z);
    let nan = l.is_nan(x);
    let bad = l.or(neg, nan);
    let qnan = l.k(f32::NAN);
    l.select(bad, qnan, r)
}

// ---- the instructions -----------------------------------------------------------------

/// The D3D9 product (C8): a ±0 factor gives +0, even against ±inf or NaN. (A square needs
/// no rule: ±0 · ±0 is +0 in IEEE arithmetic already.) `mul`; the products of `mad`, `lrp`,
/// the dot products and `m#x#`, `crs`, `dst`, `nrm`, `pow`, `lit`, `dp2add`.
#[inline(always)]
pub fn mul<L: Lanes>(l: &mut L, a: L::V, b: L::V) -> L::V {
    if l.same(a, b) {
        return l.fmul(a, b);
    }
    let z = l.k(0.0);
    let za = l.cmp(Comparison::Eq, a, z);
    let zb = l.cmp(Comparison::Eq, b, z);
    let either = l.or(za, zb);
    let p = l.fmul(a, b);
    l.select(either, z, p)
}

/// `mad`: a product (C8), then a sum; not fused.
#[inline(always)]
pub fn mad<L: Lanes>(l: &mut L, a: L::V, b: L::V, c: L::V) -> L::V {
    let p = mul(l, a, b);
    l.add(p, c)
}

/// `lrp`: `a * (b - c) + c` (C8 product, not fused).
#[inline(always)]
pub fn lrp<L: Lanes>(l: &mut L, a: L::V, b: L::V, c: L::V) -> L::V {
    let d = l.sub(b, c);
    mad(l, a, d, c)
}

/// `min`: `a < b ? a : b`, the pseudo-code's select (C7: NaN in either gives `b`).
#[inline(always)]
pub fn min<L: Lanes>(l: &mut L, a: L::V, b: L::V) -> L::V {
    let m = l.cmp(Comparison::Lt, a, b);
    l.select(m, a, b)
}

/// `max`: `a >= b ? a : b` (C7).
#[inline(always)]
pub fn max<L: Lanes>(l: &mut L, a: L::V, b: L::V) -> L::V {
    let m = l.cmp(Comparison::Ge, a, b);
    l.select(m, a, b)
}

/// `slt`: `a < b ? 1 : 0` (C7: ordered, NaN gives 0).
#[inline(always)]
pub fn slt<L: Lanes>(l: &mut L, a: L::V, b: L::V) -> L::V {
    let m = l.cmp(Comparison::Lt, a, b);
    one_if(l, m)
}

/// `sge`: `a >= b ? 1 : 0` (C7).
#[inline(always)]
pub fn sge<L: Lanes>(l: &mut L, a: L::V, b: L::V) -> L::V {
    let m = l.cmp(Comparison::Ge, a, b);
    one_if(l, m)
}

/// `frc`: `a - floor(a)` (a tiny negative `a` gives exactly 1.0).
#[inline(always)]
pub fn frc<L: Lanes>(l: &mut L, a: L::V) -> L::V {
    let f = l.floor(a);
    l.sub(a, f)
}

/// `sgn`: -1 below 0, 0 at ±0, otherwise (NaN too) +1.
#[inline(always)]
pub fn sgn<L: Lanes>(l: &mut L, a: L::V) -> L::V {
    let one = l.k(1.0);
    let r = when_eq(l, a, 0.0, 0.0, one);
    let z = l.k(0.0);
    let neg = l.cmp(Comparison::Lt, a, z);
    let m1 = l.k(-1.0);
    l.select(neg, m1, r)
}

/// `rcp`: `1 / x`, but ±0 gives +`FLT_MAX` (C5). (The pseudo-code's `x == 1 -> 1` case
/// needs no code: 1 / 1 is exactly 1 in IEEE arithmetic.) Also the ps_1_x projections'
/// divisor (texcrd/texld `_dz`, `_dw`, texm3x3spec's `1 / (N·N)`).
#[inline(always)]
pub fn rcp<L: Lanes>(l: &mut L, x: L::V) -> L::V {
    let one = l.k(1.0);
    let r = l.div(one, x);
    when_eq(l, x, 0.0, FLT_MAX, r)
}

/// `rsq`: `1 / sqrt(|x|)`, but 0 gives +`FLT_MAX` (C5). (`|x| == 1 -> 1` is IEEE's result
/// already.)
#[inline(always)]
pub fn rsq<L: Lanes>(l: &mut L, x: L::V) -> L::V {
    let f = l.abs(x);
    let s = l.sqrt(f);
    let one = l.k(1.0);
    let r = l.div(one, s);
    when_eq(l, f, 0.0, FLT_MAX, r)
}

/// `exp`/`expp`: 2^x ([`exp2`], 21 bits for both).
#[inline(always)]
pub fn exp<L: Lanes>(l: &mut L, x: L::V) -> L::V {
    exp2(l, x)
}

/// `log`/`logp`: `log2(|x|)`, but 0 gives -`FLT_MAX` (C6).
#[inline(always)]
pub fn log<L: Lanes>(l: &mut L, x: L::V) -> L::V {
    let f = l.abs(x);
    let r = log2(l, f);
    when_eq(l, f, 0.0, -FLT_MAX, r)
}

/// `pow`: exp2(y * log2|x|) with the D3D9 product (C8), so pow(0, 0) = 1 and pow(0, y > 0)
/// = 0.
#[inline(always)]
pub fn pow<L: Lanes>(l: &mut L, x: L::V, y: L::V) -> L::V {
    let ax = l.abs(x);
    let lg = log2(l, ax);
    let t = mul(l, y, lg);
    exp2(l, t)
}

/// `lit` of (x, y, w) = (N·L, N·H, exponent): (1, x > 0 ? x : 0, x > 0 && y > 0 ?
/// pow(y, clamp(w, ±[`LIT_POWER`])) : 0, 1).
#[inline(always)]
pub fn lit<L: Lanes>(l: &mut L, x: L::V, y: L::V, w: L::V) -> [L::V; 4] {
    lit_with(l, x, y, w, pow)
}

/// [`lit`] with another `pow` (naga's `Ieee` mode uses the plain operations).
#[inline(always)]
pub fn lit_with<L: Lanes>(
    l: &mut L,
    x: L::V,
    y: L::V,
    w: L::V,
    pow: impl FnOnce(&mut L, L::V, L::V) -> L::V,
) -> [L::V; 4] {
    let power = clamp(l, w, -LIT_POWER, LIT_POWER);
    let z = l.k(0.0);
    let one = l.k(1.0);
    let xpos = l.cmp(Comparison::Gt, x, z);
    let ypos = l.cmp(Comparison::Gt, y, z);
    let r1 = l.select(xpos, x, z);
    let both = l.and(xpos, ypos);
    let pw = pow(l, y, power);
    let r2 = l.select(both, pw, z);
    [one, r1, r2, one]
}

/// `dst` of s0's y, z and s1's y, w: (1, s0.y * s1.y (C8), s0.z, s1.w).
#[inline(always)]
pub fn dst<L: Lanes>(l: &mut L, ay: L::V, az: L::V, by: L::V, bw: L::V) -> [L::V; 4] {
    let one = l.k(1.0);
    let y = mul(l, ay, by);
    [one, y, az, bw]
}

/// One component of `crs`: `a1 * b2 - a2 * b1` (C8 products); a vector engine passes the
/// rotated vectors (a.yzx, b.zxy, a.zxy, b.yzx).
#[inline(always)]
pub fn cross_term<L: Lanes>(l: &mut L, a1: L::V, b2: L::V, a2: L::V, b1: L::V) -> L::V {
    let p = mul(l, a1, b2);
    let q = mul(l, a2, b1);
    l.sub(p, q)
}

/// `crs`: the right-handed cross product of a.xyz and b.xyz.
#[inline(always)]
pub fn crs<L: Lanes>(l: &mut L, a: [L::V; 3], b: [L::V; 3]) -> [L::V; 3] {
    [
        cross_term(l, a[1], b[2], a[2], b[1]),
        cross_term(l, a[2], b[0], a[0], b[2]),
        cross_term(l, a[0], b[1], a[1], b[0]),
    ]
}

/// `dp2`/`dp3`/`dp4` and the `m#x#` rows: the C8 products of `a` and `b` summed left to
/// right.
#[inline(always)]
pub fn dot<L: Lanes>(l: &mut L, a: &[L::V], b: &[L::V]) -> L::V {
    let mut acc = mul(l, a[0], b[0]);
    for (&x, &y) in a[1..].iter().zip(&b[1..]) {
        let p = mul(l, x, y);
        acc = l.add(acc, p);
    }
    acc
}

/// `dp2add`: a.x * b.x + a.y * b.y + c (C8 products, summed left to right).
#[inline(always)]
pub fn dp2add<L: Lanes>(l: &mut L, a: [L::V; 2], b: [L::V; 2], c: L::V) -> L::V {
    let d = dot(l, &a, &b);
    l.add(d, c)
}

/// `nrm`'s factor from the squared length `f`: `f != 0 ? 1 / sqrt(f) : FLT_MAX`.
#[inline(always)]
pub fn nrm_factor<L: Lanes>(l: &mut L, f: L::V) -> L::V {
    let s = l.sqrt(f);
    let one = l.k(1.0);
    let r = l.div(one, s);
    let z = l.k(0.0);
    let nz = l.cmp(Comparison::Ne, f, z);
    let max = l.k(FLT_MAX);
    l.select(nz, r, max)
}

/// `nrm`: all four components times [`nrm_factor`] of the xyz length (C8 products; w is
/// scaled too).
#[inline(always)]
pub fn nrm<L: Lanes>(l: &mut L, a: [L::V; 4]) -> [L::V; 4] {
    let f = dot(l, &a[..3], &a[..3]);
    let f = nrm_factor(l, f);
    a.map(|c| mul(l, c, f))
}

/// `cmp`: `a >= 0 ? b : c` (NaN picks `c`).
#[inline(always)]
pub fn cmp<L: Lanes>(l: &mut L, a: L::V, b: L::V, c: L::V) -> L::V {
    let z = l.k(0.0);
    let m = l.cmp(Comparison::Ge, a, z);
    l.select(m, b, c)
}

/// `cnd`: `a > 0.5 ? b : c` (NaN picks `c`).
#[inline(always)]
pub fn cnd<L: Lanes>(l: &mut L, a: L::V, b: L::V, c: L::V) -> L::V {
    let half = l.k(0.5);
    let m = l.cmp(Comparison::Gt, a, half);
    l.select(m, b, c)
}

/// `_sat`: clamped to [0, 1], NaN to 0.
#[inline(always)]
pub fn sat<L: Lanes>(l: &mut L, x: L::V) -> L::V {
    let (z, one) = (l.k(0.0), l.k(1.0));
    let lt1 = l.cmp(Comparison::Lt, x, one);
    let m = l.select(lt1, x, one);
    let pos = l.cmp(Comparison::Gt, x, z);
    l.select(pos, m, z)
}

/// The ps_1_x source modifier `_bias`: `a - 0.5`.
#[inline(always)]
pub fn bias<L: Lanes>(l: &mut L, a: L::V) -> L::V {
    let half = l.k(0.5);
    l.sub(a, half)
}

/// `_bx2`: `(a - 0.5) * 2` (an IEEE product).
#[inline(always)]
pub fn bx2<L: Lanes>(l: &mut L, a: L::V) -> L::V {
    let t = bias(l, a);
    let two = l.k(2.0);
    l.fmul(t, two)
}

/// `1 - a`: the ps_1_x `_comp` modifier.
#[inline(always)]
pub fn comp<L: Lanes>(l: &mut L, a: L::V) -> L::V {
    let one = l.k(1.0);
    l.sub(one, a)
}

/// A ps_1_x destination shift (`_x2`, `_d4`, ...) or the `_x2` source modifier: `a * k`,
/// an IEEE product (k is a power of two).
#[inline(always)]
pub fn scale<L: Lanes>(l: &mut L, a: L::V, k: f32) -> L::V {
    let k = l.k(k);
    l.fmul(a, k)
}

/// texdepth / texm3x2depth: `num / den`, 1.0 where `den` is 0.
#[inline(always)]
pub fn depth_ratio<L: Lanes>(l: &mut L, num: L::V, den: L::V) -> L::V {
    let t = l.div(num, den);
    when_eq(l, den, 0.0, 1.0, t)
}

// ---- the scalar instance --------------------------------------------------------------

/// The `f32` instance: one lane, Rust's own operations (the interpreter runs it in a loop
/// over a batch, which the compiler vectorises; the unit tests compute D3D9's values with
/// it).
#[derive(Clone, Copy, Debug, Default)]
pub struct Scalar;

impl Lanes for Scalar {
    type V = f32;
    type M = bool;
    type I = i32;

    #[inline(always)]
    fn k(&mut self, x: f32) -> f32 {
        x
    }
    #[inline(always)]
    fn add(&mut self, a: f32, b: f32) -> f32 {
        a + b
    }
    #[inline(always)]
    fn sub(&mut self, a: f32, b: f32) -> f32 {
        a - b
    }
    #[inline(always)]
    fn fmul(&mut self, a: f32, b: f32) -> f32 {
        a * b
    }
    #[inline(always)]
    fn div(&mut self, a: f32, b: f32) -> f32 {
        a / b
    }
    #[inline(always)]
    fn abs(&mut self, a: f32) -> f32 {
        a.abs()
    }
    #[inline(always)]
    fn floor(&mut self, a: f32) -> f32 {
        a.floor()
    }
    #[inline(always)]
    fn sqrt(&mut self, a: f32) -> f32 {
        a.sqrt()
    }
    #[inline(always)]
    fn round_even(&mut self, a: f32) -> f32 {
        // Exact for |a| < 2^22, and branch-free without SSE4.1's roundps.
        (a + ROUNDER) - ROUNDER
    }
    #[inline(always)]
    fn cmp(&mut self, c: Comparison, a: f32, b: f32) -> bool {
        match c {
            Comparison::Gt => a > b,
            Comparison::Eq => a == b,
            Comparison::Ge => a >= b,
            Comparison::Lt => a < b,
            Comparison::Ne => a != b,
            Comparison::Le => a <= b,
        }
    }
    #[inline(always)]
    fn is_nan(&mut self, a: f32) -> bool {
        a.is_nan()
    }
    #[inline(always)]
    fn and(&mut self, a: bool, b: bool) -> bool {
        a & b
    }
    #[inline(always)]
    fn or(&mut self, a: bool, b: bool) -> bool {
        a | b
    }
    #[inline(always)]
    fn select(&mut self, m: bool, a: f32, b: f32) -> f32 {
        if m { a } else { b }
    }
    #[inline(always)]
    fn ik(&mut self, x: i32) -> i32 {
        x
    }
    #[inline(always)]
    fn iadd(&mut self, a: i32, b: i32) -> i32 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    fn isub(&mut self, a: i32, b: i32) -> i32 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    fn iand(&mut self, a: i32, b: i32) -> i32 {
        a & b
    }
    #[inline(always)]
    fn ior(&mut self, a: i32, b: i32) -> i32 {
        a | b
    }
    #[inline(always)]
    fn shl(&mut self, a: i32, n: u32) -> i32 {
        a.wrapping_shl(n)
    }
    #[inline(always)]
    fn sar(&mut self, a: i32, n: u32) -> i32 {
        a >> n
    }
    #[inline(always)]
    fn shr(&mut self, a: i32, n: u32) -> i32 {
        ((a as u32) >> n) as i32
    }
    #[inline(always)]
    fn iselect(&mut self, m: bool, a: i32, b: i32) -> i32 {
        if m { a } else { b }
    }
    #[inline(always)]
    fn to_int(&mut self, a: f32) -> i32 {
        a as i32
    }
    #[inline(always)]
    fn to_float(&mut self, a: i32) -> f32 {
        a as f32
    }
    #[inline(always)]
    fn bits(&mut self, a: f32) -> i32 {
        a.to_bits() as i32
    }
    #[inline(always)]
    fn float_of_bits(&mut self, a: i32) -> f32 {
        f32::from_bits(a as u32)
    }
}

#[cfg(test)]
mod tests;
