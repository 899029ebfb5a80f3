//! The three places where dxso does what D3D9 does on Windows rather than what the reference
//! pages say (`../shared/spec/instructions.md` C2, C11, §6), checked against hand-computed
//! values in every way a draw runs: both code generators of the compiled tier (AVX-512 code,
//! fused and not, and Cranelift's four lanes) and the interpreter on its widest and its
//! baseline instruction-set path, in full and partial batches.

use crate::common::*;
use dxso_vm::{Device, Format, Isa, Texture, TextureKind, Tier};
use std::sync::Arc;

/// Every way of running: [`WAYS`] and the interpreter's baseline path.
const EVERY_WAY: [(Tier, Isa); 4] = [WAYS[0], WAYS[1], WAYS[2], (Tier::Interpreted, Isa::Base)];

/// Vertices per draw: a full batch of 64 (fused code where there is some) and 6 more.
const N: usize = 70;

/// A draw's outputs by vertex and register.
type Vertices = Vec<Vec<[f32; 4]>>;

/// Draw `n` vertices in every way; each way's outputs.
fn every_way(dev: &mut Device, n: usize) -> Vec<((Tier, Isa), Vertices)> {
    EVERY_WAY
        .into_iter()
        .map(|way| {
            let out = if way.1 == Isa::Base {
                set_way(dev, way);
                dev.draw(n, 1).unwrap()
            } else {
                draw_way(dev, way, n, true)
            };
            (way, split(&out))
        })
        .collect()
}

/// The output register names of the bound program.
fn names(dev: &Device) -> Vec<String> {
    let p = dev.program().expect("a shader is bound");
    p.outputs.iter().map(|o| o.name.clone()).collect()
}

/// C11: in vs_1_1 .. vs_2_x, oD0 starts each vertex as (1, 1, 1, 1): a shader writing only
/// `oD0.x = 0.5` outputs (0.5, 1, 1, 1) (0xff7fffff on Windows), one that never writes it
/// (1, 1, 1, 1); oD1, oT# and oFog components it leaves are 0.
#[test]
fn unwritten_diffuse_components_are_one_before_vs_3_0() {
    for version in ["vs_1_1", "vs_2_0", "vs_2_x"] {
        let src = format!(
            "{version}\ndcl_texcoord0 v0\nmov oPos, v0\nmov oD0.x, c0.x\nmov oD1.y, v0.x\n\
             mov oT0.xy, v0.yx\nmov oFog.x, v0.w\n"
        );
        let v0: Vec<[f32; 4]> = (0..N).map(|i| [i as f32, -1.5, 2.0, 0.25]).collect();
        let mut dev = device(&src, std::slice::from_ref(&v0));
        dev.set_constant_f(0, &[[0.5, 7.0, 7.0, 7.0]]).unwrap();
        assert_eq!(
            names(&dev),
            ["oPos", "oFog", "oD0", "oD1", "oT0"],
            "{version}"
        );
        for (way, out) in every_way(&mut dev, N) {
            for (i, o) in out.iter().enumerate() {
                let f = i as f32;
                assert_eq!(o[1], [0.25, 0.0, 0.0, 0.0], "{version} {way:?} {i} oFog");
                assert_eq!(o[2], [0.5, 1.0, 1.0, 1.0], "{version} {way:?} {i} oD0");
                assert_eq!(o[3], [0.0, f, 0.0, 0.0], "{version} {way:?} {i} oD1");
                assert_eq!(o[4], [-1.5, f, 0.0, 0.0], "{version} {way:?} {i} oT0");
            }
        }
        // Not written at all: oD0 is still an output, (1, 1, 1, 1).
        let src = format!("{version}\ndcl_texcoord0 v0\nmov oPos, v0\nmov oT1, -v0\n");
        let mut dev = device(&src, std::slice::from_ref(&v0));
        assert_eq!(names(&dev), ["oPos", "oD0", "oT1"], "{version}");
        for (way, out) in every_way(&mut dev, N) {
            for (i, o) in out.iter().enumerate() {
                assert_eq!(o[1], [1.0; 4], "{version} {way:?} {i} oD0");
                assert_eq!(
                    o[2],
                    [-(i as f32), 1.5, -2.0, -0.25],
                    "{version} {way:?} {i}"
                );
            }
        }
    }
}

/// C11 where writes depend on constants and lanes: oD0 written under `if b0` (with b0 false
/// and true), and predicated writes that some vertices take and others do not (vs_2_x), in
/// batch after batch.
#[test]
fn diffuse_writes_that_do_not_happen_leave_one() {
    let src = "vs_2_x\ndcl_texcoord0 v0\nmov oPos, v0\nif b0\nmov oD0.yz, v0.x\nendif\n\
               setp_gt p0, v0, c0\n(p0) mov oD0.xw, c1\n";
    // Vertex i: x = i; y alternates between above and below c0.y = 0.
    let v0: Vec<[f32; 4]> = (0..2 * N)
        .map(|i| {
            let s = if i % 2 == 0 { 1.0 } else { -1.0 };
            [i as f32, 0.0, 0.0, s]
        })
        .collect();
    let mut dev = device(src, std::slice::from_ref(&v0));
    // p0.x = i > 2.5; p0.w = w > 0 (even vertices).
    dev.set_constant_f(0, &[[2.5, 0.0, 0.0, 0.0], [0.25, 9.0, 9.0, 0.75]])
        .unwrap();
    for b0 in [false, true] {
        dev.set_constant_b(0, &[b0]).unwrap();
        for (way, out) in every_way(&mut dev, 2 * N) {
            for (i, o) in out.iter().enumerate() {
                let f = i as f32;
                let x = if f > 2.5 { 0.25 } else { 1.0 };
                let yz = if b0 { f } else { 1.0 };
                let w = if i % 2 == 0 { 0.75 } else { 1.0 };
                assert_eq!(o[1], [x, yz, yz, w], "b0 {b0} {way:?} vertex {i}");
            }
        }
    }
}

/// C11 applies to oD0 of vs_1_1 .. vs_2_x only: a vs_3_0 COLOR0 output written in part
/// keeps 0 in the other components.
#[test]
fn vs_3_0_colour_outputs_still_start_at_zero() {
    let src =
        "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_color o1\nmov o0, v0\nmov o1.x, c0.x\n";
    let v0: Vec<[f32; 4]> = (0..N).map(|i| [i as f32, 1.0, 2.0, 3.0]).collect();
    let mut dev = device(src, &[v0]);
    dev.set_constant_f(0, &[[0.5; 4]]).unwrap();
    assert_eq!(names(&dev), ["o0", "o1"]);
    for (way, out) in every_way(&mut dev, N) {
        for (i, o) in out.iter().enumerate() {
            assert_eq!(o[1], [0.5, 0.0, 0.0, 0.0], "{way:?} vertex {i}");
        }
    }
}

/// C2: vs_1_1 `mov a0.x, s` floors (−2.4 → −3, −0.4 → −1, 1.6 → 1, 2.5 → 2, −2.5 → −3); vs_2_0
/// `mov a0.x` and `mova` round to nearest, halves to even (C3: −2.4 → −2, −0.4 → 0, 1.6 → 2,
/// 2.5 → 2, −2.5 → −2). Constant register 10 + k holds (k, ...), so c[a0.x + 10] shows a0.
#[test]
fn vs_1_1_mov_a0_floors_and_later_versions_round() {
    let xs = [
        -2.4f32,
        -0.4,
        1.6,
        2.5,
        -2.5,
        0.0,
        -0.0,
        3.0,
        -3.0,
        0.999_999_9,
        -1e-30,
        1.5,
    ];
    let floor = [-3, -1, 1, 2, -3, 0, 0, 3, -3, 0, -1, 1];
    let nearest = [-2, 0, 2, 2, -2, 0, 0, 3, -3, 1, 0, 2];
    let consts: Vec<[f32; 4]> = (0..20)
        .map(|r| {
            let k = r as f32 - 10.0;
            [k, 2.0 * k, 0.5, 1.0]
        })
        .collect();
    let v0: Vec<[f32; 4]> = (0..N).map(|i| [xs[i % xs.len()], 0.0, 0.0, 1.0]).collect();
    for (src, want) in [
        (
            "vs_1_1\ndcl_texcoord0 v0\nmov a0.x, v0.x\nmov oPos, v0\nmov oT0, c[a0.x + 10]\n",
            floor,
        ),
        (
            "vs_2_0\ndcl_texcoord0 v0\nmov a0.x, v0.x\nmov oPos, v0\nmov oT0, c[a0.x + 10]\n",
            nearest,
        ),
        (
            "vs_2_0\ndcl_texcoord0 v0\nmova a0.x, v0.x\nmov oPos, v0\nmov oT0, c[a0.x + 10]\n",
            nearest,
        ),
    ] {
        let mut dev = device(src, std::slice::from_ref(&v0));
        dev.set_constant_f(0, &consts).unwrap();
        for (way, out) in every_way(&mut dev, N) {
            for (i, o) in out.iter().enumerate() {
                let k = want[i % xs.len()] as f32;
                // Outputs: oPos, oD0, oT0.
                assert_eq!(
                    o[2],
                    [k, 2.0 * k, 0.5, 1.0],
                    "{way:?} x = {}\n{src}",
                    xs[i % xs.len()]
                );
            }
        }
    }
}

/// The vs_1_1 floor, shown by the shader debugger too: a0 after `mov a0.x, -0.4` is -1.
#[test]
fn the_trace_shows_the_floored_address() {
    let src = "vs_1_1\ndcl_texcoord0 v0\nmov a0.x, v0.x\nmov oPos, c[a0.x + 1]\n";
    let dev = device(src, &[vec![[-0.4, 0.0, 0.0, 0.0]]]);
    let t = dev.trace(0, 1, 1).unwrap();
    let step = t
        .steps
        .iter()
        .find(|s| s.text.contains("a0.x, v0"))
        .unwrap();
    assert!(step.effect.starts_with("a0 = (-1,"), "{}", step.effect);
    // Outputs oPos = c0, oD0 untouched.
    assert_eq!(t.outputs, [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
}

/// A 2x1 A32B32G32R32F texture: texel 0 = (1, 2, 3, 4), texel 1 = (5, 6, 7, 8).
fn two_texels() -> Arc<Texture> {
    let texels: Vec<u8> = (1..=8).flat_map(|x| (x as f32).to_le_bytes()).collect();
    let t = Texture::new(TextureKind::TwoD, Format::A32B32G32R32F, 2, 1, 1, &[texels]);
    Arc::new(t.unwrap())
}

/// §6: `texldl` into an output register (the Windows runtime accepts and runs it): whole,
/// masked with a sampler swizzle, and from replicated coordinates as in `texldl o1, c0.x, s0`.
#[test]
fn texldl_writes_output_registers() {
    let src = "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\n\
               dcl_texcoord2 o3\ndcl_2d s0\nmov o0, v0\ntexldl o1, v0, s0\n\
               texldl o2.xz, v0, s0.wzyx\ntexldl o3, c0.x, s0\n";
    // Even vertices sample texel 0 (u = 0.25), odd ones texel 1 (u = 0.75); LOD 0.
    let v0: Vec<[f32; 4]> = (0..N)
        .map(|i| [0.25 + 0.5 * (i % 2) as f32, 0.5, 0.0, 0.0])
        .collect();
    let mut dev = device(src, &[v0]);
    dev.set_texture(0, Some(two_texels())).unwrap();
    // c0.x = 0.75: (0.75, 0.75, 0.75, 0.75) reads texel 1 (v wraps to 0.75 of one row).
    dev.set_constant_f(0, &[[0.75, 0.0, 0.0, 0.0]]).unwrap();
    for (way, out) in every_way(&mut dev, N) {
        for (i, o) in out.iter().enumerate() {
            let t = if i % 2 == 0 {
                [1.0, 2.0, 3.0, 4.0]
            } else {
                [5.0, 6.0, 7.0, 8.0]
            };
            assert_eq!(o[1], t, "{way:?} vertex {i} o1");
            assert_eq!(o[2], [t[3], 0.0, t[1], 0.0], "{way:?} vertex {i} o2");
            assert_eq!(o[3], [5.0, 6.0, 7.0, 8.0], "{way:?} vertex {i} o3");
        }
    }
}
