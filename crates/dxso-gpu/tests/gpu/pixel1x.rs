//! Pixel shader model 1 (ps_1_1 .. ps_1_4) rendered with [`dxso_gpu::Gpu::render`]: the
//! texture-addressing instructions with known textures and texture-stage state, cnd/cmp,
//! co-issue and the modifiers, against hand-computed pixels (the instructions' D3D9
//! formulas; `dxso_naga::ps1x` states them).

use crate::pixel::{centre, each, render, texture, uv};
use dxso_gpu::{Frame, Sampler, Varying};
use dxso_naga::FloatMode;
use dxso_naga::ps1x::BUMP_MATRIX_ROW;
use dxso_vm::{SamplerState, Texture};
use std::sync::Arc;

const MODES: [FloatMode; 2] = [FloatMode::Strict, FloatMode::Ieee];

/// Texture C: 4x4, texel (x, y) = (x / 4, y / 4, (x + 4y) / 16, 1).
fn c(x: usize, y: usize) -> [f32; 4] {
    let (x, y) = (x as f32, y as f32);
    [x / 4.0, y / 4.0, (x + 4.0 * y) / 16.0, 1.0]
}

fn texture_c() -> Arc<Texture> {
    texture(4, 4, 1, |_, x, y| c(x, y))
}

/// A 1x1 texture holding `texel`.
fn single(texel: [f32; 4]) -> Arc<Texture> {
    texture(1, 1, 1, move |_, _, _| texel)
}

fn stage(register: u32, texture: Arc<Texture>) -> Sampler {
    Sampler {
        register,
        texture,
        state: SamplerState::default(),
    }
}

/// An 8x8 frame whose TEXCOORD0..3 are all (u, v, 0, 1).
fn frame() -> Frame {
    let mut f = Frame::new(8, 8);
    for k in 0..4 {
        f.varyings.push(uv(&format!("TEXCOORD{k}"), 8, 8));
    }
    f
}

fn set(f: &mut Frame, semantic: &str, v: Varying) {
    let slot = f
        .varyings
        .iter_mut()
        .find(|x| x.semantic == semantic)
        .expect("semantic");
    *slot = Varying {
        semantic: semantic.into(),
        ..v
    };
}

fn linear(origin: [f32; 4], dx: [f32; 4], dy: [f32; 4]) -> Varying {
    Varying {
        semantic: String::new(),
        origin,
        dx,
        dy,
    }
}

/// `tex t0` samples stage 0 at texture coordinate 0; `texcoord t1` is coordinate 1
/// saturated, with w = 1.
#[test]
fn tex_and_texcoord() {
    let Some(gpu) = crate::gpu() else { return };
    let mut f = frame();
    f.samplers.push(stage(0, texture_c()));
    let img = render(&gpu, "ps_1_1\ntex t0\nmov r0, t0\n", &f);
    each(&img, "oC0", "tex", |i, j| c(i as usize / 2, j as usize / 2));

    // t1 = (u - 0.25, 2, v, 5) -> (sat(u - 0.25), 1, v, 1).
    set(
        &mut f,
        "TEXCOORD1",
        linear(
            [-0.25, 2.0, 0.0, 5.0],
            [0.125, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.125, 0.0],
        ),
    );
    let img = render(&gpu, "ps_1_1\ntexcoord t1\nmov r0, t1\n", &f);
    each(&img, "oC0", "texcoord", |i, j| {
        [(centre(i, 8) - 0.25).max(0.0), 1.0, centre(j, 8), 1.0]
    });
}

/// texbem: stage 1 sampled at (u + M00 du + M10 dv, v + M01 du + M11 dv), (du, dv) the
/// red and green of stage 0 = (0.5, 0.25), BUMPENVMAT1 = (M00, M01, M10, M11) =
/// (0.5, 1, 0, 0): (u + 0.25, v + 0.5), WRAP.
#[test]
fn texbem_perturbs_by_the_bump_matrix() {
    let Some(gpu) = crate::gpu() else { return };
    let mut f = frame();
    f.samplers.push(stage(0, single([0.5, 0.25, 0.0, 1.0])));
    f.samplers.push(stage(1, texture_c()));
    f.ps1x[BUMP_MATRIX_ROW as usize + 1] = [0.5, 1.0, 0.0, 0.0];
    let img = render(&gpu, "ps_1_1\ntex t0\ntexbem t1, t0\nmov r0, t1\n", &f);
    each(&img, "oC0", "texbem", |i, j| {
        c((i as usize / 2 + 1) % 4, (j as usize / 2 + 2) % 4)
    });
}

/// texreg2ar: stage 1 sampled at (t0.a, t0.r). Stage 0's texel (x, y) has
/// a = (x + 0.5) / 4 and r = (y + 0.5) / 4: the centre of stage 1's texel (x, y).
#[test]
fn texreg2ar_samples_at_alpha_red() {
    let Some(gpu) = crate::gpu() else { return };
    let mut f = frame();
    let ar = texture(4, 4, 1, |_, x, y| {
        [(y as f32 + 0.5) / 4.0, 0.0, 0.0, (x as f32 + 0.5) / 4.0]
    });
    f.samplers.push(stage(0, ar));
    f.samplers.push(stage(1, texture_c()));
    let img = render(&gpu, "ps_1_1\ntex t0\ntexreg2ar t1, t0\nmov r0, t1\n", &f);
    each(&img, "oC0", "texreg2ar", |i, j| {
        c(i as usize / 2, j as usize / 2)
    });
}

/// texm3x2pad/texm3x2tex: stage 2 sampled at (t1.xyz . t0.rgb, t2.xyz . t0.rgb) with
/// t0.rgb = (1, 0.5, 0.25), t1 = (0, 2u, 0, 0), t2 = (0, 0, 4v, 0): (u, v).
#[test]
fn texm3x2tex_samples_at_two_dot_products() {
    let Some(gpu) = crate::gpu() else { return };
    let mut f = frame();
    f.samplers.push(stage(0, single([1.0, 0.5, 0.25, 1.0])));
    f.samplers.push(stage(2, texture_c()));
    set(
        &mut f,
        "TEXCOORD1",
        linear([0.0; 4], [0.0, 0.25, 0.0, 0.0], [0.0; 4]),
    );
    set(
        &mut f,
        "TEXCOORD2",
        linear([0.0; 4], [0.0; 4], [0.0, 0.0, 0.5, 0.0]),
    );
    let src = "ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x2tex t2, t0\nmov r0, t2\n";
    for mode in MODES {
        f.float = mode;
        let img = render(&gpu, src, &f);
        each(&img, "oC0", &format!("texm3x2tex {mode:?}"), |i, j| {
            c(i as usize / 2, j as usize / 2)
        });
    }
}

/// texdp3: t1.xyz . t0.rgb in every component; t1 = (u, v, 1, 9), t0.rgb = (1, 0.5, 0.25).
#[test]
fn texdp3_is_the_dot_product() {
    let Some(gpu) = crate::gpu() else { return };
    let mut f = frame();
    f.samplers.push(stage(0, single([1.0, 0.5, 0.25, 1.0])));
    let mut t1 = uv("TEXCOORD1", 8, 8);
    t1.origin = [0.0, 0.0, 1.0, 9.0];
    set(&mut f, "TEXCOORD1", t1);
    for mode in MODES {
        f.float = mode;
        let img = render(&gpu, "ps_1_2\ntex t0\ntexdp3 t1, t0\nmov r0, t1\n", &f);
        each(&img, "oC0", &format!("texdp3 {mode:?}"), |i, j| {
            [centre(i, 8) + 0.5 * centre(j, 8) + 0.25; 4]
        });
    }
}

/// ps_1_1 cnd: r0.a > 0.5 picks the second operand; r0.a = u from COLOR0.
#[test]
fn cnd_tests_the_alpha_against_a_half() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_1_1\ndef c1, 1, 0, 0, 1\ndef c2, 0, 0, 1, 1\nmov r0, v0\ncnd r0, r0.a, c1, c2\n";
    let mut f = Frame::new(8, 8);
    f.varyings
        .push(linear([0.0; 4], [0.0, 0.0, 0.0, 0.125], [0.0; 4]));
    f.varyings[0].semantic = "COLOR0".into();
    for mode in MODES {
        f.float = mode;
        let img = render(&gpu, src, &f);
        each(&img, "oC0", &format!("cnd {mode:?}"), |i, _| {
            if i >= 4 {
                [1.0, 0.0, 0.0, 1.0]
            } else {
                [0.0, 0.0, 1.0, 1.0]
            }
        });
    }
}

/// ps_1_4 cmp, per component: src0 >= 0 picks src1, else src2; src0 = (u - 0.5, v - 0.5,
/// -0.5, 0.5) from texcrd.
#[test]
fn cmp_picks_per_component() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_1_4\ndef c0, 1, 0, 0, 1\ndef c1, 0, 1, 1, 0\ndef c2, 0.5, 0.5, 0.5, 0.5\n\
               texcrd r1.rgb, t0\nsub r1.rgb, r1, c2\nmov r1.a, c2\ncmp r0, r1, c0, c1\n";
    let mut f = frame();
    for mode in MODES {
        f.float = mode;
        let img = render(&gpu, src, &f);
        each(&img, "oC0", &format!("cmp {mode:?}"), |i, j| {
            [
                if i >= 4 { 1.0 } else { 0.0 },
                if j >= 4 { 0.0 } else { 1.0 },
                1.0,
                1.0,
            ]
        });
    }
}

/// Co-issued instructions read their operands before either writes: the alpha gets the
/// old r0.b (0.75), not the new one (0.625).
#[test]
fn coissue_reads_before_it_writes() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_1_1\ndef c0, 0.25, 0.5, 0.75, 1\ndef c1, 0.125, 0.375, 0.625, 0.875\n\
               mov r0, c0\nmov r0.rgb, c1\n+ mov r0.a, r0.b\n";
    for mode in MODES {
        let mut f = Frame::new(4, 4);
        f.float = mode;
        let img = render(&gpu, src, &f);
        each(&img, "oC0", &format!("co-issue {mode:?}"), |_, _| {
            [0.125, 0.375, 0.625, 0.75]
        });
    }
}

/// _bias (x - 0.5), _x2, _bx2 (2x - 1) and 1-x: t0 = texcoord (u, v, 0, 1).
#[test]
fn ps_1_x_modifiers() {
    let Some(gpu) = crate::gpu() else { return };
    let f0 = frame();
    for mode in MODES {
        let mut f = f0.clone();
        f.float = mode;
        let what = format!("{mode:?}");
        // add_x2: 2 ((t - 0.5) + c0), c0 = (0.5, 0.25, 0.125, 0).
        let src = "ps_1_1\ndef c0, 0.5, 0.25, 0.125, 0\ntexcoord t0\nadd_x2 r0, t0_bias, c0\n";
        let img = render(&gpu, src, &f);
        each(&img, "oC0", &what, |i, j| {
            [2.0 * centre(i, 8), 2.0 * centre(j, 8) - 0.5, -0.75, 1.0]
        });
        // mul: (2t - 1) (1 - c0).
        let src = "ps_1_1\ndef c0, 0.5, 0.25, 0.125, 0\ntexcoord t0\nmul r0, t0_bx2, 1-c0\n";
        let img = render(&gpu, src, &f);
        each(&img, "oC0", &what, |i, j| {
            [
                (2.0 * centre(i, 8) - 1.0) * 0.5,
                (2.0 * centre(j, 8) - 1.0) * 0.75,
                -0.875,
                1.0,
            ]
        });
    }
}

/// ps_1_x texkill tests x, y and z of the coordinate only: w < 0 does not kill.
#[test]
fn ps_1_x_texkill_tests_xyz() {
    let Some(gpu) = crate::gpu() else { return };
    let clear = [0.5, 0.5, 0.5, 0.5];
    let mut f = frame();
    f.clear = clear;
    // t0 = (u - 0.5, 0, 0, -1): columns 0..3 killed.
    set(
        &mut f,
        "TEXCOORD0",
        linear([-0.5, 0.0, 0.0, -1.0], [0.125, 0.0, 0.0, 0.0], [0.0; 4]),
    );
    let img = render(&gpu, "ps_1_1\ntexkill t0\ntexcoord t1\nmov r0, t1\n", &f);
    each(&img, "oC0", "texkill", |i, j| {
        if i < 4 {
            clear
        } else {
            [centre(i, 8), centre(j, 8), 0.0, 1.0]
        }
    });
}
