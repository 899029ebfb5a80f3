//! Each formula's scalar instance against D3D9's values, computed by hand from the
//! pseudo-code of `../shared/spec/instructions.md`.

use super::*;

fn bits(x: f32) -> u32 {
    x.to_bits()
}

#[test]
fn products_follow_the_zero_rule() {
    // C8: a ±0 factor gives +0 against anything, the sign of zero included.
    for other in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -3.0, 0.0, -0.0] {
        assert_eq!(bits(mul(&mut Scalar, 0.0, other)), 0, "0 * {other}");
        assert_eq!(bits(mul(&mut Scalar, -0.0, other)), 0, "-0 * {other}");
        assert_eq!(bits(mul(&mut Scalar, other, -0.0)), 0, "{other} * -0");
    }
    assert_eq!(mul(&mut Scalar, -3.0, 2.5), -7.5);
    assert!(mul(&mut Scalar, f32::NAN, 2.0).is_nan());
    // mad and lrp: the product, then an IEEE sum.
    assert_eq!(bits(mad(&mut Scalar, 0.0, f32::INFINITY, -0.0)), 0);
    assert_eq!(mad(&mut Scalar, 2.0, 3.0, 1.0), 7.0);
    assert_eq!(lrp(&mut Scalar, 0.25, 8.0, 4.0), 5.0);
    assert_eq!(lrp(&mut Scalar, 0.0, f32::INFINITY, 4.0), 4.0);
    // Dot products sum the rule's products left to right.
    assert_eq!(
        dot(&mut Scalar, &[0.0, 1.0, 2.0], &[f32::INFINITY, 3.0, 4.0]),
        11.0
    );
    assert_eq!(dp2add(&mut Scalar, [1.0, 0.0], [2.0, f32::NAN], 0.5), 2.5);
    assert_eq!(dst(&mut Scalar, 9.0, 4.0, 0.5, 7.0), [1.0, 4.5, 4.0, 7.0]);
    assert_eq!(dst(&mut Scalar, 0.0, 4.0, f32::INFINITY, 7.0)[1], 0.0);
    assert_eq!(
        crs(&mut Scalar, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        [0.0, 0.0, 1.0]
    );
    assert_eq!(
        crs(&mut Scalar, [0.0, 0.0, 1.0], [f32::INFINITY, 0.0, 0.0]),
        [0.0, f32::INFINITY, 0.0]
    );
}

#[test]
fn reciprocals_and_logarithms_of_zero_are_flt_max() {
    // C5: rcp(±0) and rsq(±0) are +FLT_MAX; 1 and -1 exactly; rsq takes |x|.
    assert_eq!(rcp(&mut Scalar, 0.0), f32::MAX);
    assert_eq!(rcp(&mut Scalar, -0.0), f32::MAX);
    assert_eq!(rcp(&mut Scalar, 1.0), 1.0);
    assert_eq!(rcp(&mut Scalar, 4.0), 0.25);
    assert_eq!(rcp(&mut Scalar, f32::INFINITY), 0.0);
    assert_eq!(rsq(&mut Scalar, 0.0), f32::MAX);
    assert_eq!(rsq(&mut Scalar, -0.0), f32::MAX);
    assert_eq!(rsq(&mut Scalar, -1.0), 1.0);
    assert_eq!(rsq(&mut Scalar, -4.0), 0.5);
    // C6: log(±0) is -FLT_MAX, log takes |x|.
    assert_eq!(log(&mut Scalar, 0.0), -f32::MAX);
    assert_eq!(log(&mut Scalar, -0.0), -f32::MAX);
    assert_eq!(log(&mut Scalar, -8.0), 3.0);
    assert_eq!(log(&mut Scalar, 0.25), -2.0);
    assert_eq!(exp(&mut Scalar, 3.0), 8.0);
    assert_eq!(exp(&mut Scalar, -1.0), 0.5);
    // nrm: the factor of a zero length is FLT_MAX, so (0, 0, 0, w) gives (0, 0, 0, w * MAX).
    assert_eq!(nrm_factor(&mut Scalar, 0.0), f32::MAX);
    assert_eq!(nrm_factor(&mut Scalar, 4.0), 0.5);
    assert_eq!(
        nrm(&mut Scalar, [3.0, 0.0, 4.0, 10.0]),
        [0.6, 0.0, 0.8, 2.0]
    );
    assert_eq!(
        nrm(&mut Scalar, [0.0, 0.0, 0.0, 0.5]),
        [0.0, 0.0, 0.0, f32::MAX * 0.5]
    );
    assert_eq!(nrm(&mut Scalar, [0.0, 0.0, 0.0, 2.0])[3], f32::INFINITY);
    assert_eq!(bits(nrm(&mut Scalar, [0.0, 0.0, 0.0, 0.0])[3]), 0);
}

#[test]
fn pow_and_lit_follow_the_pseudo_code() {
    // pow(|x|, y) = exp2(y * log2|x|) with the zero rule: pow(0, 0) = 1.
    assert_eq!(pow(&mut Scalar, 2.0, 3.0), 8.0);
    assert_eq!(pow(&mut Scalar, -3.0, 2.0), 9.0);
    assert_eq!(pow(&mut Scalar, 0.0, 0.0), 1.0);
    assert_eq!(pow(&mut Scalar, 0.0, 2.0), 0.0);
    assert_eq!(pow(&mut Scalar, 0.0, -2.0), f32::INFINITY);
    assert_eq!(pow(&mut Scalar, 4.0, 0.5), 2.0);
    // lit: (1, x > 0 ? x : 0, x > 0 && y > 0 ? pow(y, clamp(w)) : 0, 1).
    assert_eq!(lit(&mut Scalar, 0.5, 2.0, 3.0), [1.0, 0.5, 8.0, 1.0]);
    assert_eq!(lit(&mut Scalar, -0.5, 2.0, 3.0), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(lit(&mut Scalar, 0.0, 2.0, 3.0), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(lit(&mut Scalar, 0.5, 0.0, 3.0), [1.0, 0.5, 0.0, 1.0]);
    assert_eq!(lit(&mut Scalar, 0.5, -2.0, 3.0), [1.0, 0.5, 0.0, 1.0]);
    // The exponent clamps to ±127.9961: 0.5^200 would be 0, 0.5^127.9961 is not.
    let clamped = lit(&mut Scalar, 1.0, 0.5, 200.0)[2];
    assert!(clamped > 0.0 && clamped < 3e-38, "{clamped:e}");
    assert_eq!(
        lit(&mut Scalar, 1.0, 2.0, -200.0)[2],
        lit(&mut Scalar, 1.0, 2.0, -LIT_POWER)[2]
    );
    assert_eq!(lit(&mut Scalar, 1.0, 2.0, 0.0)[2], 1.0);
}

#[test]
fn selects_and_compares_are_the_documented_ones() {
    // C7: min/max are the pseudo-code's selects (NaN in either gives the second operand).
    assert_eq!(min(&mut Scalar, 1.0, 2.0), 1.0);
    assert_eq!(min(&mut Scalar, f32::NAN, 2.0), 2.0);
    assert!(min(&mut Scalar, 2.0, f32::NAN).is_nan());
    assert_eq!(max(&mut Scalar, f32::NAN, 2.0), 2.0);
    assert!(max(&mut Scalar, 2.0, f32::NAN).is_nan());
    assert_eq!(bits(max(&mut Scalar, 0.0, -0.0)), bits(0.0));
    assert_eq!(bits(max(&mut Scalar, -0.0, 0.0)), bits(-0.0));
    assert_eq!(bits(min(&mut Scalar, -0.0, 0.0)), bits(0.0));
    assert_eq!(slt(&mut Scalar, 1.0, 2.0), 1.0);
    assert_eq!(slt(&mut Scalar, 2.0, 2.0), 0.0);
    assert_eq!(slt(&mut Scalar, f32::NAN, 2.0), 0.0);
    assert_eq!(sge(&mut Scalar, 2.0, 2.0), 1.0);
    assert_eq!(sge(&mut Scalar, f32::NAN, 2.0), 0.0);
    assert_eq!(sgn(&mut Scalar, -3.0), -1.0);
    assert_eq!(bits(sgn(&mut Scalar, -0.0)), 0);
    assert_eq!(sgn(&mut Scalar, 0.1), 1.0);
    assert_eq!(sgn(&mut Scalar, f32::NAN), 1.0);
    assert_eq!(frc(&mut Scalar, 2.75), 0.75);
    assert_eq!(frc(&mut Scalar, -0.25), 0.75);
    assert_eq!(frc(&mut Scalar, -1e-9), 1.0);
    // ps: cmp tests >= 0, cnd > 0.5; NaN picks the last operand.
    assert_eq!(cmp(&mut Scalar, -0.0, 1.0, 2.0), 1.0);
    assert_eq!(cmp(&mut Scalar, -0.1, 1.0, 2.0), 2.0);
    assert_eq!(cmp(&mut Scalar, f32::NAN, 1.0, 2.0), 2.0);
    assert_eq!(cnd(&mut Scalar, 0.5, 1.0, 2.0), 2.0);
    assert_eq!(cnd(&mut Scalar, 0.51, 1.0, 2.0), 1.0);
    // _sat: [0, 1], NaN to 0.
    assert_eq!(sat(&mut Scalar, 1.5), 1.0);
    assert_eq!(sat(&mut Scalar, 0.25), 0.25);
    assert_eq!(bits(sat(&mut Scalar, -0.5)), 0);
    assert_eq!(bits(sat(&mut Scalar, f32::NAN)), 0);
    assert_eq!(bias(&mut Scalar, 0.75), 0.25);
    assert_eq!(bx2(&mut Scalar, 0.75), 0.5);
    assert_eq!(comp(&mut Scalar, 0.25), 0.75);
    assert_eq!(scale(&mut Scalar, 0.75, 4.0), 3.0);
    assert_eq!(depth_ratio(&mut Scalar, 3.0, 4.0), 0.75);
    assert_eq!(depth_ratio(&mut Scalar, 3.0, 0.0), 1.0);
    assert_eq!(depth_ratio(&mut Scalar, 3.0, -0.0), 1.0);
}

#[test]
fn exp2_and_log2_are_accurate_and_exact_where_it_matters() {
    let mut worst: f64 = 0.0;
    let mut x = -126.0f32;
    while x < 127.0 {
        let got = exp2(&mut Scalar, x) as f64;
        let want = (x as f64).exp2();
        worst = worst.max(((got - want) / want).abs());
        x += 0.01731;
    }
    assert!(worst < 2f64.powi(-22), "exp2 relative error {worst:e}");
    for n in -149..=127 {
        assert_eq!(exp2(&mut Scalar, n as f32), (n as f32).exp2(), "2^{n}");
    }
    assert_eq!(exp2(&mut Scalar, 200.0), f32::INFINITY);
    assert_eq!(exp2(&mut Scalar, -200.0), 0.0);
    assert_eq!(exp2(&mut Scalar, f32::NEG_INFINITY), 0.0);
    assert!(exp2(&mut Scalar, f32::NAN).is_nan());
    let mut worst: f64 = 0.0;
    let mut x = 1e-30f32;
    while x < 1e30 {
        let got = log2(&mut Scalar, x) as f64;
        let want = (x as f64).log2();
        worst = worst.max((got - want).abs() / want.abs().max(1.0));
        x *= 1.0137;
    }
    assert!(worst < 2f64.powi(-21), "log2 error {worst:e}");
    for n in -149..=127 {
        assert_eq!(
            log2(&mut Scalar, (n as f32).exp2()),
            n as f32,
            "log2(2^{n})"
        );
    }
    assert_eq!(log2(&mut Scalar, 0.0), f32::NEG_INFINITY);
    assert_eq!(log2(&mut Scalar, f32::INFINITY), f32::INFINITY);
    assert!(log2(&mut Scalar, -1.0).is_nan());
    assert!(log2(&mut Scalar, f32::NAN).is_nan());
}
