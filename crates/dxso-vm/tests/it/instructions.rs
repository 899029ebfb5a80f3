//! Every instruction's semantics against hand-computed values (instructions.md).

use crate::common::*;

const MAX: f32 = f32::MAX;

fn one(body: &str, consts: &[(u32, [f32; 4])], v0: [f32; 4]) -> [f32; 4] {
    o1(body, consts, &[v0])[0]
}

#[test]
fn componentwise_arithmetic() {
    let c = &[(0, [1.0, -2.0, 0.5, 4.0]), (1, [3.0, 3.0, -1.0, 0.25])];
    let v = [2.0, 4.0, -8.0, 16.0];
    assert_eq!(one("mov o1, v0.wzyx\n", c, v), [16.0, -8.0, 4.0, 2.0]);
    assert_eq!(one("add o1, v0, c0\n", c, v), [3.0, 2.0, -7.5, 20.0]);
    assert_eq!(one("sub o1, v0, c0\n", c, v), [1.0, 6.0, -8.5, 12.0]);
    assert_eq!(one("mul o1, v0, c0\n", c, v), [2.0, -8.0, -4.0, 64.0]);
    assert_eq!(
        one("mov r0, c1\nmad o1, v0, c0, r0\n", c, v),
        [5.0, -5.0, -5.0, 64.25]
    );
    assert_eq!(one("min o1, v0, c0\n", c, v), [1.0, -2.0, -8.0, 4.0]);
    assert_eq!(one("max o1, v0, c0\n", c, v), [2.0, 4.0, 0.5, 16.0]);
    assert_eq!(one("slt o1, v0, c0\n", c, v), [0.0, 0.0, 1.0, 0.0]);
    assert_eq!(one("sge o1, v0, c0\n", c, v), [1.0, 1.0, 0.0, 1.0]);
    assert_eq!(one("abs o1, c0\n", c, v), [1.0, 2.0, 0.5, 4.0]);
    assert_eq!(one("mov o1, -c0_abs\n", c, v), [-1.0, -2.0, -0.5, -4.0]);
    // frc: x - floor(x); -0.25 -> 0.75.
    assert_eq!(
        one("frc o1, v0\n", c, [1.25, -0.25, 3.0, -2.5]),
        [0.25, 0.75, 0.0, 0.5]
    );
    // lrp: s0 * (s1 - s2) + s2.
    assert_eq!(
        one("mov r0, c1\nlrp o1, c0.z, v0, r0\n", c, v),
        [2.5, 3.5, -4.5, 8.125]
    );
    assert_eq!(one("mov o1, c0.xyyy\n", c, v), [1.0, -2.0, -2.0, -2.0]);
}

#[test]
fn masks_keep_other_components() {
    let v = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(
        one("mov o1, v0\nmov o1.yw, c0.x\n", &[(0, [9.0; 4])], v),
        [1.0, 9.0, 3.0, 9.0]
    );
}

#[test]
fn dot_products_and_macros() {
    let c = &[
        (0, [1.0, 2.0, 3.0, 4.0]),
        (1, [0.0, 1.0, 0.0, 0.0]),
        (2, [0.0, 0.0, 1.0, 0.0]),
        (3, [0.0, 0.0, 0.0, 1.0]),
    ];
    let v = [1.0, 1.0, 1.0, 2.0];
    assert_eq!(one("dp3 o1, v0, c0\n", c, v), [6.0; 4]);
    assert_eq!(one("dp4 o1, v0, c0\n", c, v), [14.0; 4]);
    assert_eq!(one("m4x4 o1, v0, c0\n", c, v), [14.0, 1.0, 1.0, 2.0]);
    assert_eq!(
        one("mov o1, c3\nm4x3 o1.xyz, v0, c0\n", c, v),
        [14.0, 1.0, 1.0, 1.0]
    );
    assert_eq!(
        one("mov o1, c3\nm3x3 o1.xyz, v0, c0\n", c, v),
        [6.0, 1.0, 1.0, 1.0]
    );
    assert_eq!(one("m3x4 o1, v0, c0\n", c, v), [6.0, 1.0, 1.0, 0.0]);
    assert_eq!(
        one("mov o1, c3\nm3x2 o1.xy, v0, c0\n", c, v),
        [6.0, 1.0, 0.0, 1.0]
    );
}

#[test]
fn zero_times_anything_is_zero() {
    // C8: 0 * inf and 0 * NaN give +0 in mul, mad, dp3.
    let c = &[
        (0, [0.0, -0.0, 0.0, 1.0]),
        (1, [f32::INFINITY, f32::NAN, -5.0, 2.0]),
    ];
    let r = one("mov r1, c1\nmul o1, c0, r1\n", c, [0.0; 4]);
    assert_eq!(r.map(f32::to_bits), [0, 0, 0, 2f32.to_bits()]);
    assert_eq!(one("mov r1, c1\ndp3 o1, c0, r1\n", c, [0.0; 4]), [0.0; 4]);
    assert_eq!(
        one("mov r1, c1\nmad o1, c0, r1, c0.w\n", c, [0.0; 4]),
        [1.0, 1.0, 1.0, 3.0]
    );
}

#[test]
fn scalar_instructions_and_special_cases() {
    let c = &[(0, [0.0, 1.0, 4.0, -0.0]), (1, [8.0, 0.5, -2.0, 16.0])];
    let v = [0.0; 4];
    assert_eq!(one("rcp o1, c1.w\n", c, v), [0.0625; 4]);
    assert_eq!(one("rcp o1, c0.x\n", c, v), [MAX; 4]); // C5
    assert_eq!(one("rcp o1, c0.w\n", c, v), [MAX; 4]); // -0 too
    assert_eq!(one("rcp o1, c0.y\n", c, v), [1.0; 4]);
    assert_eq!(one("rsq o1, c0.z\n", c, v), [0.5; 4]);
    assert_eq!(one("rsq o1, -c1.w\n", c, v), [0.25; 4]); // |x|
    assert_eq!(one("rsq o1, c0.x\n", c, v), [MAX; 4]);
    assert_eq!(one("exp o1, c1.z\n", c, v), [0.25; 4]);
    assert_eq!(one("expp o1, c1.x\n", c, v), [256.0; 4]);
    assert_eq!(one("log o1, c1.x\n", c, v), [3.0; 4]);
    assert_eq!(one("log o1, -c1.w\n", c, v), [4.0; 4]); // |x|
    assert_eq!(one("log o1, c0.x\n", c, v), [-MAX; 4]); // C6
    assert_eq!(one("logp o1, c1.y\n", c, v), [-1.0; 4]);
    // pow = |s0|^s1: (-2)^... uses |-2| = 2; 2^3 = 8.
    assert_eq!(
        one(
            "mov r1, c2\npow r0, c1.z, r1.x\nmov o1, r0\n",
            &[(1, [8.0, 0.5, -2.0, 16.0]), (2, [3.0, 0.0, 0.0, 0.0])],
            v
        ),
        [8.0; 4]
    );
    assert_eq!(one("pow r0, c0.x, c0.x\nmov o1, r0\n", c, v), [1.0; 4]); // pow(0,0) = 1
    assert_eq!(
        one("mov r1, c1\npow r0, c0.x, r1.y\nmov o1, r0\n", c, v),
        [0.0; 4]
    );
    // The scalar is taken from x when the swizzle is .xyzw.
    assert_eq!(one("rcp o1, c1\n", c, v), [0.125; 4]);
}

#[test]
fn lit_dst_crs_nrm_sgn() {
    // lit: (1, max(x,0), x>0 && y>0 ? y^w : 0, 1).
    assert_eq!(
        one("lit o1, v0\n", &[], [0.5, 4.0, 0.0, 0.5]),
        [1.0, 0.5, 2.0, 1.0]
    );
    assert_eq!(
        one("lit o1, v0\n", &[], [-0.5, 4.0, 0.0, 0.5]),
        [1.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        one("lit o1, v0\n", &[], [0.5, -4.0, 0.0, 0.5]),
        [1.0, 0.5, 0.0, 1.0]
    );
    // Power clamps to 127.9961: 1^200 = 1 anyway; 2^200 -> 2^127.9961.
    let r = one("lit o1, v0\n", &[], [1.0, 2.0, 0.0, 200.0]);
    assert_eq!(r[2], 127.9961f32.exp2());
    // dst: (1, a.y*b.y, a.z, b.w).
    assert_eq!(
        one(
            "dst o1, v0, c0\n",
            &[(0, [9.0, 0.5, 9.0, 0.25])],
            [9.0, 4.0, 16.0, 9.0]
        ),
        [1.0, 2.0, 16.0, 0.25]
    );
    // crs: right-handed cross product, w untouched.
    assert_eq!(
        one(
            "mov r1, c0\nmov r2, c1\nmov r0, c2\ncrs r0.xyz, r1, r2\nmov o1, r0\n",
            &[
                (0, [1.0, 0.0, 0.0, 0.0]),
                (1, [0.0, 1.0, 0.0, 0.0]),
                (2, [7.0; 4])
            ],
            [0.0; 4]
        ),
        [0.0, 0.0, 1.0, 7.0]
    );
    // nrm scales all four by 1/|xyz|.
    assert_eq!(
        one("nrm r0, v0\nmov o1, r0\n", &[], [3.0, 0.0, 4.0, 10.0]),
        [0.6, 0.0, 0.8, 2.0]
    );
    // nrm of a zero vector: (0, 0, 0, w * FLT_MAX).
    assert_eq!(
        one("nrm r0, v0\nmov o1, r0\n", &[], [0.0, 0.0, 0.0, 0.0]),
        [0.0; 4]
    );
    assert_eq!(
        one("nrm r0, v0\nmov o1, r0\n", &[], [0.0, 0.0, 0.0, 0.5]),
        [0.0, 0.0, 0.0, MAX * 0.5]
    );
    assert_eq!(
        one("nrm r0, v0\nmov o1, r0\n", &[], [0.0, 0.0, 0.0, 2.0])[3],
        f32::INFINITY
    );
    assert_eq!(
        one("sgn r0, v0\nmov o1, r0\n", &[], [-3.0, 0.0, 2.0, -0.0]),
        [-1.0, 0.0, 1.0, 0.0]
    );
}

#[test]
fn sincos_both_forms() {
    let x = 0.5f32;
    let r = one(
        "mov r0, c0\nsincos r0.xy, v0.x\nmov o1, r0\n",
        &[(0, [7.0; 4])],
        [x, 0.0, 0.0, 0.0],
    );
    assert_eq!(r, [x.cos(), x.sin(), 7.0, 7.0]);
    let r = one(
        "mov r0, c0\nsincos r0.y, v0.x\nmov o1, r0\n",
        &[(0, [7.0; 4])],
        [x, 0.0, 0.0, 0.0],
    );
    assert_eq!(r, [7.0, x.sin(), 7.0, 7.0]);
    // vs_2_0 form with the two constant registers; w untouched.
    let src = "vs_2_0\ndcl_texcoord0 v0\ndef c10, -1.5500992e-006, -2.1701389e-005, 0.0026041667, 0.00026041668\ndef c11, -0.020833334, -0.125, 1, 0.5\nmov r0, c0\nsincos r0.xy, v0.x, c10, c11\nmov oPos, v0\nmov oT0, r0\n";
    let out = run(src, &[(0, [7.0; 4])], &[vec![[x, 0.0, 0.0, 0.0]]]);
    // Outputs: oPos, oD0 (always there before vs_3_0), oT0.
    assert_eq!(out[0][2], [x.cos(), x.sin(), 7.0, 7.0]);
}

#[test]
fn saturate_clamps() {
    assert_eq!(
        one("mov_sat o1, v0\n", &[], [-1.0, 0.5, 2.0, f32::NAN]),
        [0.0, 0.5, 1.0, 0.0]
    );
}

#[test]
fn mova_rounds_half_to_even_and_indexes_constants() {
    // a0 = round(v0): 2.5 -> 2, 3.5 -> 4, -0.5 -> 0, 1.4 -> 1.
    let consts: Vec<(u32, [f32; 4])> = (0..8).map(|i| (10 + i, [i as f32; 4])).collect();
    let r = one(
        "mova a0, v0\nmov r0.x, c12[a0.x].x\nmov r0.y, c12[a0.y].x\nmov r0.z, c12[a0.z].x\nmov r0.w, c12[a0.w].x\nmov o1, r0\n",
        &consts,
        [2.5, 3.5, -0.5, 1.4],
    );
    assert_eq!(r, [4.0, 6.0, 2.0, 3.0]);
    // Out of range (c[-1], c[9000]) reads zero (C4).
    let r = one(
        "mova a0.x, v0.x\nmov o1, c0[a0.x]\n",
        &[(0, [5.0; 4])],
        [-1.0, 0.0, 0.0, 0.0],
    );
    assert_eq!(r, [0.0; 4]);
    let r = one(
        "mova a0.x, v0.x\nmov o1, c0[a0.x]\n",
        &[(0, [5.0; 4])],
        [9000.0, 0.0, 0.0, 0.0],
    );
    assert_eq!(r, [0.0; 4]);
}

#[test]
fn relative_addressing_differs_per_lane() {
    let consts: Vec<(u32, [f32; 4])> = (0..4).map(|i| (20 + i, [10.0 * i as f32; 4])).collect();
    let v: Vec<[f32; 4]> = (0..40).map(|i| [(i % 4) as f32, 0.0, 0.0, 0.0]).collect();
    let out = o1("mova a0.x, v0.x\nmov o1, c20[a0.x]\n", &consts, &v);
    for (i, r) in out.iter().enumerate() {
        assert_eq!(r[0], 10.0 * (i % 4) as f32, "vertex {i}");
    }
}
