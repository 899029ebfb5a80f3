//! Pixel shaders (ps_2_0 .. ps_3_0) rendered over a full-screen triangle with
//! [`dxso_gpu::Gpu::render`] and read back, against pixels computed by hand from D3D9's
//! definitions of the instructions. Every varying is a linear function of the pixel
//! position with power-of-two steps and every texture read hits a texel centre (or, for the
//! linear filter, a weight that is a multiple of 1/8), so the values are exact.

use dxso_gpu::{Error, Frame, FrameError, Gpu, Image, Sampler, Varying, Winding};
use dxso_naga::FloatMode;
use dxso_vm::{Format, SamplerState, Texture, TextureFilter, TextureKind};
use std::sync::Arc;

const MODES: [FloatMode; 2] = [FloatMode::Strict, FloatMode::Ieee];

/// `src` assembled and validated (maximum caps).
pub fn checked(src: &str) -> dxso::validate::Checked {
    let shader = dxso::text::parse(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    dxso::validate::validate(&shader, &dxso::validate::Caps::max())
        .unwrap_or_else(|d| panic!("{src}\n{d:?}"))
}

/// Render `src` over `frame`.
pub fn render(gpu: &Gpu, src: &str, frame: &Frame) -> Image {
    gpu.render(&checked(src), frame)
        .unwrap_or_else(|e| panic!("{src}\n{e}"))
}

/// The centre of pixel `i` along an axis of `n` pixels, scaled to [0, 1].
pub fn centre(i: u32, n: u32) -> f32 {
    (i as f32 + 0.5) / n as f32
}

/// `semantic` = (x / w, y / h, 0, 1): pixel (i, j) reads ((i + 0.5) / w, (j + 0.5) / h, 0, 1).
pub fn uv(semantic: &str, w: u32, h: u32) -> Varying {
    Varying {
        semantic: semantic.into(),
        origin: [0.0, 0.0, 0.0, 1.0],
        dx: [1.0 / w as f32, 0.0, 0.0, 0.0],
        dy: [0.0, 1.0 / h as f32, 0.0, 0.0],
    }
}

/// Every pixel of `register` against `want(i, j)`, bit for bit.
pub fn each(image: &Image, register: &str, what: &str, want: impl Fn(u32, u32) -> [f32; 4]) {
    for j in 0..image.height {
        for i in 0..image.width {
            let got = image
                .pixel(register, i, j)
                .unwrap_or_else(|| panic!("{what}: no {register}"));
            let w = want(i, j);
            assert_eq!(
                got.map(f32::to_bits),
                w.map(f32::to_bits),
                "{what}: {register} pixel ({i}, {j}): got {got:?}, want {w:?}"
            );
        }
    }
}

/// A 2d `A32B32G32R32F` texture of `levels` (level k is `(w >> k) x (h >> k)`), texel (x, y)
/// of level k from `texel(k, x, y)`.
pub fn texture(
    w: usize,
    h: usize,
    levels: usize,
    texel: impl Fn(usize, usize, usize) -> [f32; 4],
) -> Arc<Texture> {
    let bytes: Vec<Vec<u8>> = (0..levels)
        .map(|k| {
            let (lw, lh) = ((w >> k).max(1), (h >> k).max(1));
            (0..lh)
                .flat_map(|y| (0..lw).map(move |x| (x, y)))
                .flat_map(|(x, y)| texel(k, x, y))
                .flat_map(f32::to_le_bytes)
                .collect()
        })
        .collect();
    Arc::new(
        Texture::new(TextureKind::TwoD, Format::A32B32G32R32F, w, h, 1, &bytes).expect("texture"),
    )
}

/// Texture A: 4x4, texel (x, y) = (x, y, 10 + x + 4y, 1); its 2x2 level 1 (100 + x,
/// 100 + y, 0, 0.5).
fn a(k: usize, x: usize, y: usize) -> [f32; 4] {
    let (x, y) = (x as f32, y as f32);
    if k == 0 {
        [x, y, 10.0 + x + 4.0 * y, 1.0]
    } else {
        [100.0 + x, 100.0 + y, 0.0, 0.5]
    }
}

/// Texture B: 4x4, texel (x, y) = (-x, -y, 0.5, 2).
fn b(_: usize, x: usize, y: usize) -> [f32; 4] {
    [-(x as f32), -(y as f32), 0.5, 2.0]
}

fn point_mips() -> SamplerState {
    SamplerState {
        mip_filter: TextureFilter::Point,
        ..SamplerState::default()
    }
}

/// ps_2_0: mad with replicate swizzles, _sat, negation, a swizzled source; four targets.
#[test]
fn arithmetic_modifiers_and_four_targets_in_both_modes() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_2_0\ndef c0, 2, -1, 0.5, 0.25\ndcl t0\n\
               mad r0, t0, c0.x, c0.y\nmov_sat r1, r0\nadd r2, -r0, c0.z\nmul r3, r0.yxwz, c0.w\n\
               mov oC0, r0\nmov oC1, r1\nmov oC2, r2\nmov oC3, r3\n";
    for mode in MODES {
        let mut frame = Frame::new(8, 8);
        frame.float = mode;
        frame.varyings.push(uv("TEXCOORD0", 8, 8));
        let img = render(&gpu, src, &frame);
        // t0 = (u, v, 0, 1); r0 = 2 t0 - 1 = (a, b, -1, 1).
        let ab = |i, j| (2.0 * centre(i, 8) - 1.0, 2.0 * centre(j, 8) - 1.0);
        let what = format!("{mode:?}");
        each(&img, "oC0", &what, |i, j| {
            let (a, b) = ab(i, j);
            [a, b, -1.0, 1.0]
        });
        each(&img, "oC1", &what, |i, j| {
            let (a, b) = ab(i, j);
            [a.max(0.0), b.max(0.0), 0.0, 1.0]
        });
        each(&img, "oC2", &what, |i, j| {
            let (a, b) = ab(i, j);
            [0.5 - a, 0.5 - b, 1.5, -0.5]
        });
        each(&img, "oC3", &what, |i, j| {
            let (a, b) = ab(i, j);
            [0.25 * b, 0.25 * a, 0.25, -0.25]
        });
    }
}

/// ps_3_0: _abs, dp3, rcp, cmp, lrp.
#[test]
fn ps_3_0_arithmetic_in_both_modes() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_3_0\ndef c0, 2, -1, 0.5, 4\ndcl_texcoord0 v0\n\
               mad r0, v0, c0.x, c0.y\nadd r1, r0_abs, c0.z\n\
               dp3 r2.x, r0, r0\nrcp r2.y, c0.w\ncmp r2.z, r0.x, c0.x, c0.y\nmov r2.w, c0.z\n\
               lrp r3, c0.z, r0, r1\n\
               mov oC0, r1\nmov oC1, r2\nmov oC2, r3\n";
    for mode in MODES {
        let mut frame = Frame::new(8, 8);
        frame.float = mode;
        frame.varyings.push(uv("TEXCOORD0", 8, 8));
        let img = render(&gpu, src, &frame);
        let ab = |i, j| (2.0 * centre(i, 8) - 1.0, 2.0 * centre(j, 8) - 1.0);
        let what = format!("{mode:?}");
        each(&img, "oC0", &what, |i, j| {
            let (a, b) = ab(i, j);
            [a.abs() + 0.5, b.abs() + 0.5, 1.5, 1.5]
        });
        each(&img, "oC1", &what, |i, j| {
            let (a, b) = ab(i, j);
            [
                a * a + b * b + 1.0,
                0.25,
                if a >= 0.0 { 2.0 } else { -1.0 },
                0.5,
            ]
        });
        // lrp: 0.5 r0 + 0.5 r1.
        each(&img, "oC2", &what, |i, j| {
            let (a, b) = ab(i, j);
            [
                0.5 * a + 0.5 * (a.abs() + 0.5),
                0.5 * b + 0.5 * (b.abs() + 0.5),
                -0.5 + 0.5 * 1.5,
                0.5 * 1.0 + 0.5 * 1.5,
            ]
        });
    }
}

/// C1/C3: a zero factor gives +0 and rcp of 0 FLT_MAX in `Strict`; IEEE's NaN and
/// infinity in `Ieee`.
#[test]
fn strict_and_ieee_differ_where_d3d9_does() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_2_0\ndcl t0\nmul r0, c0, t0\nrcp r1.x, t0.z\nmov r1.yzw, c1\n\
               mov oC0, r0\nmov oC1, r1\n";
    let inf = f32::INFINITY;
    for mode in MODES {
        let mut frame = Frame::new(4, 4);
        frame.float = mode;
        frame.float_constants = vec![[inf; 4], [0.5; 4]];
        frame.varyings.push(uv("TEXCOORD0", 4, 4));
        let img = render(&gpu, src, &frame);
        let p = img.pixel("oC0", 1, 2).expect("oC0");
        assert_eq!(p[0], inf, "{mode:?}");
        assert_eq!(p[3], inf, "{mode:?}");
        let r1 = img.pixel("oC1", 1, 2).expect("oC1");
        match mode {
            FloatMode::Strict => {
                assert_eq!(p[2].to_bits(), 0, "{mode:?}: inf * 0 is +0");
                assert_eq!(r1, [f32::MAX, 0.5, 0.5, 0.5]);
            }
            FloatMode::Ieee => {
                assert!(p[2].is_nan(), "{mode:?}: inf * 0 is NaN, got {p:?}");
                assert_eq!(r1, [inf, 0.5, 0.5, 0.5]);
            }
        }
    }
}

/// texkill (ps_2_0: any component of the operand below 0) leaves the clear colour.
#[test]
fn texkill_keeps_the_clear_colour() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_2_0\ndcl t0\ntexkill t0\nmov oC0, t0\n";
    let clear = [0.25, 0.5, 0.75, 1.0];
    for mode in MODES {
        let mut frame = Frame::new(8, 8);
        frame.float = mode;
        frame.clear = clear;
        // t0 = (u - 0.5, v, 0, v - 0.5): x < 0 for i < 4, w < 0 for j < 4.
        frame.varyings.push(Varying {
            semantic: "TEXCOORD0".into(),
            origin: [-0.5, 0.0, 0.0, -0.5],
            dx: [0.125, 0.0, 0.0, 0.0],
            dy: [0.0, 0.125, 0.0, 0.125],
        });
        let img = render(&gpu, src, &frame);
        each(&img, "oC0", &format!("{mode:?}"), |i, j| {
            if i < 4 || j < 4 {
                clear
            } else {
                [centre(i, 8) - 0.5, centre(j, 8), 0.0, centre(j, 8) - 0.5]
            }
        });
    }
}

fn texture_frame(w: u32) -> Frame {
    let mut frame = Frame::new(w, w);
    frame.samplers = vec![
        Sampler {
            register: 0,
            texture: texture(4, 4, 2, a),
            state: point_mips(),
        },
        Sampler {
            register: 1,
            texture: texture(4, 4, 1, b),
            state: SamplerState::default(),
        },
    ];
    frame
}

/// texld from two samplers, texldp (divides by w) and texldb (w biases the level of
/// detail): point sampling of texel centres. On the 8x8 target u = (i + 0.5) / 8 steps an
/// eighth per pixel, half a texel of the 4x4 level 0: the level of detail is -1, so texld
/// reads level 0 texel (i / 2, j / 2); a bias of 2 makes it 1, level 1 texel (i / 4, j / 4).
#[test]
fn texld_texldp_texldb_read_the_texels_they_address() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_2_0\ndcl t0\ndcl t1\ndcl t2\ndcl_2d s0\ndcl_2d s1\n\
               texld r0, t0, s1\ntexld r1, t0, s0\ntexldp r2, t1, s0\ntexldb r3, t2, s0\n\
               mov oC0, r0\nmov oC1, r1\nmov oC2, r2\nmov oC3, r3\n";
    let mut frame = texture_frame(8);
    frame.varyings.push(uv("TEXCOORD0", 8, 8));
    // t1 = (2u, 2v, 0, 2): projected, (u, v).
    frame.varyings.push(Varying {
        semantic: "TEXCOORD1".into(),
        origin: [0.0, 0.0, 0.0, 2.0],
        dx: [0.25, 0.0, 0.0, 0.0],
        dy: [0.0, 0.25, 0.0, 0.0],
    });
    // t2 = (u, v, 0, 2): bias 2.
    let mut t2 = uv("TEXCOORD2", 8, 8);
    t2.origin[3] = 2.0;
    t2.semantic = "TEXCOORD2".into();
    frame.varyings.push(t2);
    let img = render(&gpu, src, &frame);
    let half = |i: u32| i as usize / 2;
    each(&img, "oC0", "texld s1", |i, j| b(0, half(i), half(j)));
    each(&img, "oC1", "texld s0", |i, j| a(0, half(i), half(j)));
    each(&img, "oC2", "texldp", |i, j| a(0, half(i), half(j)));
    each(&img, "oC3", "texldb", |i, j| {
        a(1, i as usize / 4, j as usize / 4)
    });
}

/// texldd's gradients and texldl's level pick the level: a gradient of half the texture per
/// pixel (2 texels) is level 1, an eighth (half a texel) level 0; texldl at w = 1 level 1.
#[test]
fn texldd_and_texldl_pick_the_level() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_3_0\ndef c0, 0.5, 0.125, 0, 0\n\
               dcl_texcoord0 v0\ndcl_texcoord1 v1\ndcl_2d s0\n\
               mov r4, c0.xzzz\nmov r5, c0.zxzz\nmov r6, c0.yzzz\nmov r7, c0.zyzz\n\
               texldd r0, v0, s0, r4, r5\ntexldd r1, v0, s0, r6, r7\ntexldl r2, v1, s0\n\
               mov oC0, r0\nmov oC1, r1\nmov oC2, r2\n";
    let mut frame = texture_frame(8);
    frame.varyings.push(uv("TEXCOORD0", 8, 8));
    let mut v1 = uv("TEXCOORD1", 8, 8);
    v1.origin[3] = 1.0;
    frame.varyings.push(v1);
    let img = render(&gpu, src, &frame);
    each(&img, "oC0", "texldd level 1", |i, j| {
        a(1, i as usize / 4, j as usize / 4)
    });
    each(&img, "oC1", "texldd level 0", |i, j| {
        a(0, i as usize / 2, j as usize / 2)
    });
    each(&img, "oC2", "texldl level 1", |i, j| {
        a(1, i as usize / 4, j as usize / 4)
    });
}

/// A linear filter between texels: a 2x2 texture whose red is 0 in column 0 and 1 in
/// column 1 (green likewise by row), CLAMP. Pixel i of 8 samples at texel-space
/// x = (i + 0.5) / 4 - 0.5, so red = clamp(x, 0, 1): 0, 0, 1/8, 3/8, 5/8, 7/8, 1, 1 — weights
/// that are multiples of 1/8, exact even with 8-bit filter weights.
#[test]
fn linear_filter_blends_by_hand_computed_weights() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_2_0\ndcl t0\ndcl_2d s2\ntexld r0, t0, s2\nmov oC0, r0\n";
    let mut frame = Frame::new(8, 8);
    frame.varyings.push(uv("TEXCOORD0", 8, 8));
    let linear = SamplerState {
        address_u: dxso_vm::TextureAddress::Clamp,
        address_v: dxso_vm::TextureAddress::Clamp,
        mag_filter: TextureFilter::Linear,
        min_filter: TextureFilter::Linear,
        ..SamplerState::default()
    };
    frame.samplers.push(Sampler {
        register: 2,
        texture: texture(2, 2, 1, |_, x, y| [x as f32, y as f32, 0.5, 1.0]),
        state: linear,
    });
    let img = render(&gpu, src, &frame);
    let w = |i: u32| (centre(i, 4) - 0.5).clamp(0.0, 1.0);
    each(&img, "oC0", "linear", |i, j| [w(i), w(j), 0.5, 1.0]);
}

/// dsx/dsy of a linear varying are its slopes per pixel, exactly.
#[test]
fn dsx_dsy_are_the_slopes() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_3_0\ndcl_texcoord0 v0\ndsx r0, v0\ndsy r1, v0\nmov oC0, r0\nmov oC1, r1\n";
    for mode in MODES {
        let mut frame = Frame::new(8, 8);
        frame.float = mode;
        frame.varyings.push(Varying {
            semantic: "TEXCOORD0".into(),
            origin: [1.0, 2.0, 3.0, 4.0],
            dx: [3.0, 0.0, 1.0, 0.0],
            dy: [0.0, -2.0, 1.0, 0.0],
        });
        let img = render(&gpu, src, &frame);
        each(&img, "oC0", "dsx", |_, _| [3.0, 0.0, 1.0, 0.0]);
        each(&img, "oC1", "dsy", |_, _| [0.0, -2.0, 1.0, 0.0]);
    }
}

/// vPos is the pixel's whole-number position (D3D9 puts pixel centres on whole numbers; the
/// translation subtracts the half pixel of the GPU's centre): (i, j, 0, 0).
#[test]
fn vpos_is_the_integer_pixel_position() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_3_0\ndef c0, 0, 0, 7, 1\ndcl vPos.xy\nmov r0, c0\nmov r0.xy, vPos\nmov oC0, r0\n";
    let frame = Frame::new(16, 8);
    let img = render(&gpu, src, &frame);
    each(&img, "oC0", "vPos", |i, j| [i as f32, j as f32, 7.0, 1.0]);
}

/// vFace: +1 for a triangle clockwise on screen (D3D9's front face), -1 for a
/// counter-clockwise one.
#[test]
fn vface_is_the_sign_of_the_winding() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_3_0\ndef c0, 0, 0, 0, 0\ndef c1, 1, 0, 0, 1\ndef c2, 0, 1, 0, 1\ndcl vFace\n\
               if_gt vFace, c0.x\nmov oC0, c1\nelse\nmov oC0, c2\nendif\n";
    for (winding, want) in [
        (Winding::Clockwise, [1.0, 0.0, 0.0, 1.0]),
        (Winding::CounterClockwise, [0.0, 1.0, 0.0, 1.0]),
    ] {
        let mut frame = Frame::new(4, 4);
        frame.winding = winding;
        let img = render(&gpu, src, &frame);
        each(&img, "oC0", &format!("{winding:?}"), |_, _| want);
    }
}

/// oDepth goes to the depth target: depth = u at pixel (i, j); killed pixels keep 1.0.
#[test]
fn odepth_is_written_to_the_depth_target() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_2_0\ndcl t0\ntexkill t0\nmov r0, t0.x\nmov oDepth, r0.x\nmov oC0, t0\n";
    let mut frame = Frame::new(8, 4);
    // t0 = (u, v - 0.5, 0, 1): rows 0 and 1 are killed.
    frame.varyings.push(Varying {
        semantic: "TEXCOORD0".into(),
        origin: [0.0, -0.5, 0.0, 1.0],
        dx: [0.125, 0.0, 0.0, 0.0],
        dy: [0.0, 0.25, 0.0, 0.0],
    });
    let img = render(&gpu, src, &frame);
    let depth = img.depth.as_ref().expect("a depth target");
    for j in 0..4 {
        for i in 0..8 {
            let want = if j < 2 { 1.0 } else { centre(i, 8) };
            assert_eq!(depth[(j * 8 + i) as usize], want, "depth ({i}, {j})");
        }
    }
}

/// What the frame lacks is an error, not a panic.
#[test]
fn a_missing_varying_or_a_vertex_shader_is_an_error() {
    let Some(gpu) = crate::gpu() else { return };
    let frame = Frame::new(4, 4);
    let e = gpu
        .render(&checked("ps_2_0\ndcl t3\nmov oC0, t3\n"), &frame)
        .expect_err("no TEXCOORD3");
    assert!(
        matches!(&e, Error::Frame(FrameError::MissingInput(s)) if s == "TEXCOORD3"),
        "{e}"
    );
    let e = gpu
        .render(&checked("vs_2_0\ndcl_position v0\nmov oPos, v0\n"), &frame)
        .expect_err("a vertex shader");
    assert!(
        matches!(e, Error::Frame(FrameError::NotPixelShader(v)) if v == dxso::Version::vs(2, 0)),
        "{e}"
    );
    let e = gpu
        .render(&checked("ps_2_0\nmov oC0, c0\n"), &Frame::new(0, 4))
        .expect_err("0 wide");
    assert!(
        matches!(
            e,
            Error::Frame(FrameError::TargetSize {
                width: 0,
                height: 4,
                ..
            })
        ),
        "{e}"
    );
}

/// What a frame cannot draw says which draw and what, typed, with the message every face
/// prints (no GPU needed).
#[test]
fn frame_errors_name_the_draw_and_the_value() {
    let e = Error::Frame(FrameError::InDraw {
        draw: 2,
        error: Box::new(FrameError::DrawSize {
            vertices: 20_000_000,
            instances: 1,
            max: dxso_draw::MAX_DRAW_VERTICES,
        }),
    });
    assert_eq!(
        e.to_string(),
        "render: draw 2: a draw of 20000000 vertices x 1 instances: at most 16777216 vertices \
         at once"
    );
    assert_eq!(
        FrameError::NotPixelShader(dxso::Version::vs(3, 0)).to_string(),
        "vs_3_0 is not a pixel shader"
    );
    assert_eq!(
        FrameError::FrameSize {
            width: 9000,
            height: 10,
            max: 8192
        }
        .to_string(),
        "a 9000x10 frame: the adapter's targets are at most 8192x8192"
    );
    assert_eq!(
        FrameError::MissingInput("TEXCOORD3".into()).to_string(),
        "the frame gives no value for the input TEXCOORD3"
    );
}

/// Inputs by semantic whatever their location: NORMAL0 and TANGENT0 (locations from 14 on,
/// in the pixel shader's declaration order, which is not its register order: the generated
/// vertex stage must take them from `translate_pair`), two semantics packed in one register,
/// COLOR1.
#[test]
fn varyings_reach_packed_and_unfixed_semantics() {
    let Some(gpu) = crate::gpu() else { return };
    let src = "ps_3_0\ndcl_normal0 v3\ndcl_tangent0 v0\ndcl_texcoord0 v1.xy\ndcl_texcoord1 v1.zw\n\
               dcl_color1 v2\nmov r0, v0\nadd r0, r0, v1\nadd r0, r0, v2\nadd oC0, r0, -v3\n";
    let mut frame = Frame::new(4, 4);
    frame.varyings = vec![
        Varying::constant("NORMAL0", [1.0, 2.0, 3.0, 4.0]),
        Varying::constant("TANGENT0", [100.0, 200.0, 300.0, 400.0]),
        Varying::constant("TEXCOORD0", [10.0, 20.0, -1.0, -1.0]),
        Varying::constant("TEXCOORD1", [-1.0, -1.0, 30.0, 40.0]),
        uv("COLOR1", 4, 4),
    ];
    let img = render(&gpu, src, &frame);
    each(&img, "oC0", "packed", |i, j| {
        [109.0 + centre(i, 4), 218.0 + centre(j, 4), 327.0, 437.0]
    });
}

/// `Gpu::render_module`: a fragment stage written in WGSL (not a translation), described by
/// an Interface of its own — an input at location 12 fed by the frame's `NORMAL0`, vPos as the
/// position builtin, a constant buffer at (0, 0), s2's texture and sampler at (3, 4) and
/// (3, 5), the output oC1 at location 1 — against pixels computed by hand.
#[test]
fn render_module_draws_a_module_compiled_elsewhere() {
    use dxso_naga::interface::{ConstantBuffer, Input, Interface, Output, Sampler as Slot};
    let Some(gpu) = crate::gpu() else { return };
    let wgsl = "@group(0) @binding(0) var<uniform> k: array<vec4<f32>, 2>;\n\
                @group(3) @binding(4) var t: texture_2d<f32>;\n\
                @group(3) @binding(5) var s: sampler;\n\
                @fragment fn main(@location(12) n: vec4<f32>, @builtin(position) p: vec4<f32>)\n\
                    -> @location(1) vec4<f32> {\n\
                    return textureSample(t, s, n.xy) * k[1].x + vec4(n.zw, floor(p.xy));\n\
                }\n";
    let module = naga::front::wgsl::parse_str(wgsl).expect("WGSL");
    let varying = |semantic: &str, location, builtin| dxso_naga::interface::Varying {
        semantic: semantic.into(),
        location,
        builtin,
        components: "xyzw".into(),
    };
    let interface = Interface {
        stage: "fragment",
        version: "ps_3_0".into(),
        entry_point: "main".into(),
        body: String::new(),
        float_constants: Some(ConstantBuffer {
            group: 0,
            binding: 0,
            registers: 2,
            defs: Vec::new(),
        }),
        int_constants: None,
        bool_constants: None,
        samplers: vec![Slot {
            register: 2,
            group: 3,
            texture_binding: 4,
            sampler_binding: 5,
            kind: "2d",
        }],
        inputs: vec![
            Input {
                register: "v0".into(),
                varyings: vec![varying("NORMAL0", Some(12), None)],
                kind: "vec4<f32>",
            },
            Input {
                register: "vPos".into(),
                varyings: vec![varying("VPOS", None, Some("position"))],
                kind: "vec4<f32>",
            },
        ],
        outputs: vec![Output {
            register: "oC1".into(),
            varyings: vec![varying("COLOR1", Some(1), None)],
            components: "xyzw".into(),
        }],
        parameters: Vec::new(),
        ps1x_parameters: None,
    };
    let mut frame = Frame::new(4, 4);
    frame.float_constants = vec![[0.0; 4], [2.0, 0.0, 0.0, 0.0]];
    frame.varyings.push(Varying {
        semantic: "NORMAL0".into(),
        origin: [0.0, 0.0, 3.0, 0.0],
        dx: [0.25, 0.0, 0.0, 0.0],
        dy: [0.0, 0.25, 0.0, 0.5],
    });
    frame.samplers.push(Sampler {
        register: 2,
        texture: texture(4, 4, 1, a),
        state: SamplerState::default(),
    });
    let img = gpu
        .render_module(module, &interface, &frame)
        .expect("render_module");
    each(&img, "oC1", "render_module", |i, j| {
        let (x, y) = (i as f32, j as f32);
        // Texel (i, j) of A times 2, then NORMAL0.zw = (3, (j + 0.5) / 2) and vPos.
        [
            2.0 * x + 3.0,
            2.0 * y + (y + 0.5) * 0.5,
            2.0 * (10.0 + x + 4.0 * y) + x,
            2.0 + y,
        ]
    });
    // A vertex-stage interface is refused, not drawn.
    let mut vertex = interface.clone();
    vertex.stage = "vertex";
    let module = naga::front::wgsl::parse_str(wgsl).expect("WGSL");
    assert!(matches!(
        gpu.render_module(module, &vertex, &frame),
        Err(Error::Interface(_))
    ));
}
