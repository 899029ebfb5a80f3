//! The CPU draw of random triangles through random vs_3_0 / ps_3_0 pairs equals a slow,
//! independent per-pixel evaluation: coverage by the top-left rule tested pixel by pixel in
//! f64, perspective-correct barycentrics solved directly, and the pixel shader's expression
//! computed in Rust.

use crate::support::*;
use dxso_draw::{Primitive, TargetFormat};
use proptest::prelude::*;

/// What the random pixel shader computes from the interpolated v0 with c0 and c1.
#[derive(Clone, Copy, Debug)]
enum Expr {
    /// v0 * c0 + c1
    Mad,
    /// max(v0, c0) - c1
    MaxSub,
    /// abs(v0 - c0) * c1
    AbsMul,
    /// frc(v0 * c0)
    Frc,
}

impl Expr {
    fn asm(self) -> &'static str {
        match self {
            Expr::Mad => "mov r2, c1\nmad r0, v0, c0, r2",
            Expr::MaxSub => "max r1, v0, c0\nadd r0, r1, -c1",
            Expr::AbsMul => "add r1, v0, -c0\nmul r0, r1_abs, c1",
            Expr::Frc => "mul r1, v0, c0\nfrc r0, r1",
        }
    }

    fn eval(self, v: f64, c0: f64, c1: f64) -> f64 {
        match self {
            Expr::Mad => v * c0 + c1,
            Expr::MaxSub => v.max(c0) - c1,
            Expr::AbsMul => (v - c0).abs() * c1,
            Expr::Frc => {
                let x = v * c0;
                x - x.floor()
            }
        }
    }
}

/// Twice the signed area of (a, b, c) and the top-left test of the edge a -> b, in f64 (the
/// coordinates are multiples of 1/256, so every product is exact).
fn edge(a: (f64, f64), b: (f64, f64), p: (f64, f64)) -> f64 {
    (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
}

fn top_left(a: (f64, f64), b: (f64, f64)) -> bool {
    (b.1 == a.1 && b.0 > a.0) || b.1 < a.1
}

fn expr() -> impl Strategy<Value = Expr> {
    prop_oneof![
        Just(Expr::Mad),
        Just(Expr::MaxSub),
        Just(Expr::AbsMul),
        Just(Expr::Frc)
    ]
}

/// A screen coordinate on the 1/256 grid, a little beyond the 16x16 target.
fn coord() -> impl Strategy<Value = f64> {
    (-256i32..17 * 256).prop_map(|k| k as f64 / 256.0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn draws_equal_a_slow_per_pixel_evaluation(
        p in proptest::array::uniform3((coord(), coord())),
        w in proptest::array::uniform3(prop_oneof![Just(1u32), Just(2), Just(4), Just(8), Just(3)]),
        t in proptest::array::uniform3(-4i32..4),
        e in expr(),
        c0 in -8i32..8,
        c1 in -8i32..8,
    ) {
        let (c0, c1) = (c0 as f64 / 4.0, c1 as f64 / 4.0);
        // Clip-space vertices whose screen positions are p (16x16 viewport): x = (p + ...) w.
        let verts: Vec<([f32; 4], [f32; 4])> = (0..3)
            .map(|k| {
                let wk = w[k] as f32;
                let x = (p[k].0 as f32 / 8.0 - 1.0) * wk;
                let y = (1.0 - p[k].1 as f32 / 8.0) * wk;
                ([x, y, 0.5 * wk, wk], [t[k] as f32, 0.0, 0.0, 1.0])
            })
            .collect();
        let ps = format!(
            "ps_3_0\ndcl_texcoord v0\ndef c0, {c0}, {c0}, {c0}, {c0}\ndef c1, {c1}, {c1}, {c1}, {c1}\n{}\nmov oC0, r0\n",
            e.asm()
        );
        let mut d = shaded(VS30, &ps, &verts, Primitive::TriangleList);
        states(&mut d, &[("CULLMODE", name("NONE"))]);
        let mut f = frame(16, 16, 0, false);
        f.targets = vec![TargetFormat::A32B32G32R32F];
        f.clear.color = [-100.0; 4];
        let s = render(&f, &[d]);

        // The slow evaluation. The screen positions are exactly p when w is a power of two;
        // otherwise the divide rounds, so compare coverage only for powers of two.
        let exact = w.iter().all(|w| w.is_power_of_two());
        let area = edge(p[0], p[1], p[2]);
        let (a, b, c) = if area > 0.0 { (p[0], p[1], p[2]) } else { (p[0], p[2], p[1]) };
        for y in 0..16u32 {
            for x in 0..16u32 {
                let q = (x as f64, y as f64);
                let inside = |u: (f64, f64), v: (f64, f64)| {
                    let e = edge(u, v, q);
                    e > 0.0 || (e == 0.0 && top_left(u, v))
                };
                let covered = area != 0.0 && inside(a, b) && inside(b, c) && inside(c, a);
                let got = s.pixel(x, y).unwrap().targets[0][0] as f64;
                if exact {
                    prop_assert_eq!(covered, got != -100.0, "coverage at ({}, {})", x, y);
                }
                if !covered || got == -100.0 {
                    continue;
                }
                // Barycentrics of q in screen space, then perspective-correct.
                let l = [
                    edge(p[1], p[2], q) / area,
                    edge(p[2], p[0], q) / area,
                    edge(p[0], p[1], q) / area,
                ];
                let sum: f64 = (0..3).map(|k| l[k] / w[k] as f64).sum();
                let v: f64 = (0..3).map(|k| l[k] / w[k] as f64 * t[k] as f64).sum::<f64>() / sum;
                let want = e.eval(v, c0, c1);
                // frc is discontinuous: near an integer either side is right.
                let tolerance = 1e-3 * (1.0 + want.abs());
                let ok = (got - want).abs() <= tolerance
                    || matches!(e, Expr::Frc) && ((got - want).abs() - 1.0).abs() <= tolerance;
                prop_assert!(ok, "({}, {}): {:?} of v0 {} gives {}, drawn {}", x, y, e, v, want, got);
            }
        }
    }
}
