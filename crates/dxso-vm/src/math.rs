//! The lane arithmetic every tier shares: a batch row, the zero-product rule (C8), and
//! exp2/log2/pow with the polynomial constants the compiled tier emits again (so that all
//! tiers round alike). It imports nothing of the crate but [`LANES`].

use crate::LANES;

/// One component of a register over a batch (one lane per vertex).
pub(crate) type Row = [f32; LANES];

/// A product with the zero rule (C8).
#[inline(always)]
pub(crate) fn mul(a: f32, b: f32) -> f32 {
    // C8: a product with a zero factor is +0, even against inf or NaN.
    if a == 0.0 || b == 0.0 { 0.0 } else { a * b }
}

/// `pow` as exp2(y * log2|x|) with the zero-product rule (C8): pow(0, 0) = 1.
#[inline(always)]
pub(crate) fn pow(x: f32, y: f32) -> f32 {
    exp2(mul(y, log2(x.abs())))
}

/// exp2's argument range: below it the result is +0, above it +inf.
pub(crate) const EXP2_MIN: f32 = -151.0;
pub(crate) const EXP2_MAX: f32 = 129.0;
/// 1.5 * 2^23: adding and subtracting it rounds to an integer (to nearest even).
pub(crate) const ROUNDER: f32 = 12_582_912.0;
/// Taylor terms of 2^f = e^(f ln 2) to degree 7, highest first: (ln 2)^k / k!.
pub(crate) const EXP2_POLY: [f32; 8] = [
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
pub(crate) const LOG2_POLY: [f32; 3] = [0.14285715, 0.2, 0.33333334];
/// lit's exponent clamp.
pub(crate) const LIT_POWER: f32 = 127.9961;

/// 2^x, exact for integers, about 1 ulp elsewhere (exp needs 21 bits). Branch-free, so the
/// compiler vectorises it and every lane of a batch computes it the same way. The compiled
/// tier (`compile/`) emits the same steps.
#[inline(always)]
pub(crate) fn exp2(x: f32) -> f32 {
    // NaN stays NaN through the clamp and the polynomial.
    let x = x.clamp(EXP2_MIN, EXP2_MAX);
    // Round to nearest even by the 1.5 * 2^23 trick (no SSE4.1 needed, exact for |x| < 2^22).
    let n = (x + ROUNDER) - ROUNDER;
    let f = x - n; // [-0.5, 0.5]
    let mut p = EXP2_POLY[0];
    for k in &EXP2_POLY[1..] {
        p = p * f + k;
    }
    // At the clamp (n = -151) the result, below 2^-150, rounds to +0: give it without
    // computing an underflowing product (processors slow down on those).
    let zero = n <= EXP2_MIN;
    // Scale by 2^n in two steps so that subnormal results and overflow round once.
    let n = n as i32;
    let (n1, n2) = (n >> 1, n - (n >> 1));
    let s2 = if zero {
        1.0
    } else {
        f32::from_bits(((n2 + 127) as u32) << 23)
    };
    let r = p * f32::from_bits(((n1 + 127) as u32) << 23) * s2;
    if zero { 0.0 } else { r }
}

/// log2(x): 0 gives -inf, negatives and NaN give NaN; exact at powers of two, about 1 ulp
/// elsewhere (log needs 21 bits). Branch-free like [`exp2`]; the compiled tier emits the
/// same steps.
#[inline(always)]
pub(crate) fn log2(x: f32) -> f32 {
    // Normalise subnormals, then split x = m * 2^e with m in [sqrt(1/2), sqrt(2)).
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 8_388_608.0 } else { x };
    let bits = xs.to_bits();
    let e = ((bits >> 23) & 0xFF) as i32 - 127 - if sub { 23 } else { 0 };
    let m = f32::from_bits((bits & 0x007F_FFFF) | 0x3F80_0000);
    let big = m > std::f32::consts::SQRT_2;
    let m = if big { m * 0.5 } else { m };
    let e = e + big as i32;
    // log2(m) = 2/ln2 * atanh(s), s = (m - 1) / (m + 1), |s| < 0.172.
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut p = LOG2_POLY[0];
    for k in &LOG2_POLY[1..] {
        p = p * s2 + k;
    }
    let ln_m = 2.0 * s + 2.0 * s * s2 * p;
    let r = ln_m * std::f32::consts::LOG2_E + e as f32;
    let r = if x == f32::INFINITY { x } else { r };
    let r = if x == 0.0 { f32::NEG_INFINITY } else { r };
    if x < 0.0 || x.is_nan() { f32::NAN } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp2_and_log2_are_accurate_and_exact_where_it_matters() {
        let mut worst: f64 = 0.0;
        let mut x = -126.0f32;
        while x < 127.0 {
            let got = exp2(x) as f64;
            let want = (x as f64).exp2();
            worst = worst.max(((got - want) / want).abs());
            x += 0.01731;
        }
        assert!(worst < 2f64.powi(-22), "exp2 relative error {worst:e}");
        for n in -149..=127 {
            assert_eq!(exp2(n as f32), (n as f32).exp2(), "2^{n}");
        }
        assert_eq!(exp2(200.0), f32::INFINITY);
        assert_eq!(exp2(-200.0), 0.0);
        assert_eq!(exp2(f32::NEG_INFINITY), 0.0);
        assert!(exp2(f32::NAN).is_nan());
        let mut worst: f64 = 0.0;
        let mut x = 1e-30f32;
        while x < 1e30 {
            let got = log2(x) as f64;
            let want = (x as f64).log2();
            worst = worst.max((got - want).abs() / want.abs().max(1.0));
            x *= 1.0137;
        }
        assert!(worst < 2f64.powi(-21), "log2 error {worst:e}");
        for n in -149..=127 {
            assert_eq!(log2((n as f32).exp2()), n as f32, "log2(2^{n})");
        }
        assert_eq!(log2(0.0), f32::NEG_INFINITY);
        assert!(log2(-1.0).is_nan());
        assert_eq!(pow(2.0, 3.0), 8.0);
        assert_eq!(pow(0.0, 0.0), 1.0);
        assert_eq!(pow(0.0, 2.0), 0.0);
        assert_eq!(pow(-3.0, 2.0), 9.0);
    }
}
