//! The output merger's less common modes, each against a hand-computed pixel.

use crate::support::*;
use dxso::ir::Usage;
use dxso_draw::{Clear, DepthFormat, Frame, Primitive, StateValue, TargetFormat};
use dxso_vm::DeclType;

const BLACK: [u8; 4] = [0, 0, 0, 0];

fn quad(z: f32, color: u32, depth: bool) -> dxso_draw::Draw {
    let v: Vec<V> = vec![
        ([-1.0, 1.0, z, 1.0], color),
        ([1.0, 1.0, z, 1.0], color),
        ([-1.0, -1.0, z, 1.0], color),
        ([1.0, -1.0, z, 1.0], color),
    ];
    draw(&v, Primitive::TriangleStrip, false, depth)
}

fn blend(d: &mut dxso_draw::Draw, src: &str, dst: &str, op: &str) {
    states(
        d,
        &[
            ("ALPHABLENDENABLE", StateValue::Bool(true)),
            ("SRCBLEND", name(src)),
            ("DESTBLEND", name(dst)),
            ("BLENDOP", name(op)),
        ],
    );
}

#[test]
fn blend_operations() {
    // Source (0.5, 0.25, 1, 0.5) over destination (0.25, 0.5, 0.5, 1): ONE, ONE.
    let run = |op: &str| {
        let mut d = quad(0.5, 0x8080_40ff, false);
        blend(&mut d, "ONE", "ONE", op);
        rgba8(&render(&frame(2, 2, 0xff40_8080, false), &[d]), 0, 0)
    };
    assert_eq!(run("ADD"), [0xc0, 0xc0, 0xff, 0xff]);
    assert_eq!(run("SUBTRACT"), [0x40, 0, 0x7f, 0]);
    assert_eq!(run("REVSUBTRACT"), [0, 0x40, 0, 0x7f]);
    assert_eq!(run("MIN"), [0x40, 0x40, 0x80, 0x80]);
    assert_eq!(run("MAX"), [0x80, 0x80, 0xff, 0xff]);
}

#[test]
fn separate_alpha_and_blend_factor() {
    let mut d = quad(0.5, 0x80ff_ffff, false);
    blend(&mut d, "BLENDFACTOR", "ZERO", "ADD");
    states(
        &mut d,
        &[
            ("BLENDFACTOR", name("0x40804020")),
            ("SEPARATEALPHABLENDENABLE", StateValue::Bool(true)),
            ("SRCBLENDALPHA", name("ZERO")),
            ("DESTBLENDALPHA", name("ONE")),
        ],
    );
    // Colour = factor (0x80, 0x40, 0x20); alpha keeps the destination's 0x10.
    assert_eq!(
        rgba8(&render(&frame(2, 2, 0x1000_0000, false), &[d]), 1, 1),
        [0x80, 0x40, 0x20, 0x10]
    );
}

#[test]
fn float_targets_blend_unclamped() {
    let mut f = frame(2, 2, 0, false);
    f.targets = vec![TargetFormat::A32B32G32R32F];
    f.clear = Clear {
        color: [2.0, 0.0, -1.0, 1.0],
        ..Default::default()
    };
    let mut d = quad(0.5, 0xffff_ffff, false);
    blend(&mut d, "ONE", "ONE", "ADD");
    let s = render(&f, &[d]);
    assert_eq!(s.pixel(0, 0).unwrap().targets[0], [3.0, 1.0, 0.0, 2.0]);
}

#[test]
fn srgb_write_encodes_linear_values() {
    let mut d = quad(0.5, 0xff80_0000, false);
    states(&mut d, &[("SRGBWRITEENABLE", StateValue::Bool(true))]);
    // 128/255 = 0.50196 linear encodes to 0.73791 (188.2): 188.
    assert_eq!(
        rgba8(&render(&frame(2, 2, 0, false), &[d]), 0, 0),
        [188, 0, 0, 255]
    );
}

#[test]
fn two_sided_stencil_uses_the_ccw_states_on_back_faces() {
    // A back-facing (counter-clockwise) triangle, drawn with CULLMODE NONE.
    let v: Vec<V> = vec![
        ([0.0, 0.0, 0.5, 1.0], 0xffff_ffff),
        ([0.0, 4.0, 0.5, 1.0], 0xffff_ffff),
        ([4.0, 0.0, 0.5, 1.0], 0xffff_ffff),
    ];
    let mut d = draw(&v, Primitive::TriangleList, true, true);
    states(
        &mut d,
        &[
            ("CULLMODE", name("NONE")),
            ("STENCILENABLE", StateValue::Bool(true)),
            ("TWOSIDEDSTENCILMODE", StateValue::Bool(true)),
            ("STENCILPASS", name("INCR")),
            ("CCW_STENCILPASS", name("REPLACE")),
            ("STENCILREF", StateValue::Number(7.0)),
            ("ZENABLE", StateValue::Bool(false)),
        ],
    );
    let mut f = frame(4, 4, 0, true);
    f.clear.stencil = 2;
    let s = render(&f, &[d]);
    assert_eq!(s.pixel(0, 0).unwrap().stencil, Some(7));
    assert_eq!(s.pixel(3, 3).unwrap().stencil, Some(2));
}

#[test]
fn stencil_ops_saturate_and_wrap() {
    let run = |op: &str, start: u8| {
        let mut d = quad(0.5, 0xffff_ffff, true);
        states(
            &mut d,
            &[
                ("STENCILENABLE", StateValue::Bool(true)),
                ("STENCILPASS", name(op)),
                ("ZENABLE", StateValue::Bool(false)),
            ],
        );
        let mut f = frame(2, 2, 0, true);
        f.clear.stencil = start;
        render(&f, &[d]).pixel(0, 0).unwrap().stencil.unwrap()
    };
    assert_eq!(run("INCRSAT", 255), 255);
    assert_eq!(run("INCR", 255), 0);
    assert_eq!(run("DECRSAT", 0), 0);
    assert_eq!(run("DECR", 0), 255);
    assert_eq!(run("INVERT", 0x0f), 0xf0);
    assert_eq!(run("ZERO", 9), 0);
    assert_eq!(run("KEEP", 9), 9);
}

#[test]
fn d16_depth_precision() {
    let mut f = frame(2, 2, 0, true);
    f.depth_stencil = Some(DepthFormat::D16);
    // 0.5 and 0.500005 are one D16 step apart at most: EQUAL passes after rounding.
    let mut second = quad(0.500_005, 0xff00_ff00, true);
    states(&mut second, &[("ZFUNC", name("EQUAL"))]);
    let s = render(&f, &[quad(0.5, 0xffff_0000, true), second]);
    assert_eq!(rgba8(&s, 0, 0), [0, 255, 0, 255]);
    assert_eq!(
        s.pixel(0, 0).unwrap().z,
        Some((32768.0f64 / 65535.0) as f32)
    );
}

#[test]
fn user_clip_planes_in_clip_space() {
    let mut d = quad(0.5, 0xffff_ffff, false);
    // Keep x >= 0 (the right half of an 8-wide target: columns 4..8).
    d.clip_planes[2] = [1.0, 0.0, 0.0, 0.0];
    states(&mut d, &[("CLIPPLANEENABLE", StateValue::Number(4.0))]);
    let p = painted(&render(&frame(8, 2, 0, false), &[d]), BLACK);
    assert_eq!(p.len(), 8);
    assert!(p.iter().all(|&(x, _)| x >= 4));
}

#[test]
fn specular_and_vertex_fog_without_shaders() {
    // POSITIONT, diffuse (0.5, 0, 0), specular (0, 0.25, 0) with alpha 0x80 as the fog factor.
    let decl = vec![
        element(0, DeclType::Float4, Usage::PositionT, 0),
        element(16, DeclType::D3dColor, Usage::Color, 0),
        element(20, DeclType::D3dColor, Usage::Color, 1),
    ];
    let mut bytes = Vec::new();
    for (x, y) in [(0.0f32, 0.0f32), (4.0, 0.0), (0.0, 4.0)] {
        for f in [x, y, 0.5, 1.0] {
            bytes.extend_from_slice(&f.to_le_bytes());
        }
        bytes.extend_from_slice(&0xff80_0000u32.to_le_bytes());
        bytes.extend_from_slice(&0x8000_4000u32.to_le_bytes());
    }
    let run = |list: &[(&str, StateValue)]| {
        let mut d = draw_raw(decl.clone(), bytes.clone(), 24, 3, Primitive::TriangleList);
        states(&mut d, list);
        rgba8(&render(&frame(4, 4, 0, false), &[d]), 0, 0)
    };
    assert_eq!(run(&[]), [0x80, 0, 0, 0xff]);
    assert_eq!(
        run(&[("SPECULARENABLE", StateValue::Bool(true))]),
        [0x80, 0x40, 0, 0xff]
    );
    // Fog factor 128/255 towards FOGCOLOR blue: red 0.50196 * 0.50196 = 0.25197 (64),
    // blue 1 - 0.50196 = 0.49804 (127).
    assert_eq!(
        run(&[
            ("FOGENABLE", StateValue::Bool(true)),
            ("FOGCOLOR", name("0xff0000ff"))
        ]),
        [64, 0, 127, 0xff]
    );
}

#[test]
fn mrt_frames_need_targets() {
    let f = Frame {
        targets: vec![],
        ..Frame::default()
    };
    assert!(dxso_draw::draw_frame(&f, &[]).is_err());
}

#[test]
fn bands_draw_what_one_pass_draws() {
    // Overlapping blended triangles across many bands: the parallel draw equals the
    // single-pass one the pixel debugger uses.
    let mut draws = Vec::new();
    for k in 0..6 {
        let o = k as f32 * 9.0;
        let v: Vec<V> = vec![
            ([o, 3.0, 0.5, 1.0], 0x80ff_0000 ^ (k * 0x1234)),
            ([o + 90.0, 40.0 + o, 0.5, 1.0], 0x8000_ff00),
            ([o + 10.0, 150.0, 0.5, 0.5], 0x4000_00ff),
        ];
        let mut d = draw(&v, Primitive::TriangleList, true, false);
        blend(&mut d, "SRCALPHA", "INVSRCALPHA", "ADD");
        draws.push(d);
    }
    let f = frame(160, 160, 0xff20_2020, false);
    let banded = dxso_draw::draw_frame(&f, &draws).unwrap();
    let (single, reports) = dxso_draw::trace_pixel(&f, &draws, 40, 60).unwrap();
    assert_eq!(banded, single);
    assert!(!reports.is_empty());
    assert!(reports.iter().all(|r| r.merge.written));
}

#[test]
fn draws_beyond_the_vertex_bound_are_refused() {
    let mut d = draw(
        &[([0.0, 0.0, 0.5, 1.0], 0)],
        Primitive::PointList,
        true,
        false,
    );
    d.vertex_count = dxso_draw::MAX_DRAW_VERTICES;
    d.instance_count = 2;
    let e = dxso_draw::draw_frame(&frame(2, 2, 0, false), &[d]).unwrap_err();
    assert!(matches!(e, dxso_draw::DrawError::TooLarge(_)), "{e}");
    let mut d = draw(
        &[([0.0, 0.0, 0.5, 1.0], 0)],
        Primitive::PointList,
        true,
        false,
    );
    d.vertex_count = 5;
    // The stream holds one vertex: the vertex stage says so.
    let e = dxso_draw::draw_frame(&frame(2, 2, 0, false), &[d]).unwrap_err();
    assert!(e.to_string().contains("past the end"), "{e}");
}

/// Every comparison function, as ZFUNC, ALPHAFUNC and STENCILFUNC, against hand-computed
/// outcomes: the incoming value 0.5 (depth), 0x80 (alpha) or the reference 5 (stencil) against
/// a stored value below, equal to and above it.
#[test]
fn every_comparison_function() {
    let funcs = [
        ("NEVER", [false, false, false]),
        ("LESS", [false, false, true]),
        ("EQUAL", [false, true, false]),
        ("LESSEQUAL", [false, true, true]),
        ("GREATER", [true, false, false]),
        ("NOTEQUAL", [true, false, true]),
        ("GREATEREQUAL", [true, true, false]),
        ("ALWAYS", [true, true, true]),
    ];
    let drawn = |s: &dxso_draw::Surfaces| rgba8(s, 0, 0)[1] == 255;
    for (func, want) in funcs {
        for (k, below_equal_above) in want.into_iter().enumerate() {
            // Depth: the stored depth is 0.25, 0.5 or 0.75 (D32F: exact).
            let mut f = frame(2, 2, 0, true);
            f.depth_stencil = Some(DepthFormat::D32FLockable);
            f.clear.z = [0.25, 0.5, 0.75][k];
            let mut d = quad(0.5, 0xff00_ff00, true);
            states(&mut d, &[("ZFUNC", name(func))]);
            assert_eq!(
                drawn(&render(&f, &[d])),
                below_equal_above,
                "ZFUNC {func} {k}"
            );
            // Alpha: the reference is 0x7f, 0x80 or 0x81 against alpha 0x80.
            let mut d = quad(0.5, 0x8000_ff00, false);
            states(
                &mut d,
                &[
                    ("ALPHATESTENABLE", StateValue::Bool(true)),
                    ("ALPHAFUNC", name(func)),
                    ("ALPHAREF", StateValue::Number([0x7f, 0x80, 0x81][k] as f64)),
                ],
            );
            let s = render(&frame(2, 2, 0, false), &[d]);
            assert_eq!(drawn(&s), below_equal_above, "ALPHAFUNC {func} {k}");
            // Stencil: reference 5 against a stored 4, 5 or 6 (ref on the left).
            let mut f = frame(2, 2, 0, true);
            f.clear.stencil = [4, 5, 6][k];
            let mut d = quad(0.5, 0xff00_ff00, true);
            states(
                &mut d,
                &[
                    ("STENCILENABLE", StateValue::Bool(true)),
                    ("STENCILFUNC", name(func)),
                    ("STENCILREF", StateValue::Number(5.0)),
                    ("ZENABLE", StateValue::Bool(false)),
                ],
            );
            assert_eq!(
                drawn(&render(&f, &[d])),
                below_equal_above,
                "STENCILFUNC {func} {k}"
            );
        }
    }
}

/// Every blend factor as the source factor (destination factor ZERO, op ADD), source
/// (0.4, 0.2, 0.6, 0.8) over destination (0.2, 0.6, 1.0, 0.4) into a float target.
#[test]
fn every_blend_factor() {
    let (src, dst) = ([0.4f32, 0.2, 0.6, 0.8], [0.2f32, 0.6, 1.0, 0.4]);
    // BLENDFACTOR 0xff3f7fbf: (63, 127, 191, 255) / 255 as RGBA.
    let bf = dxso_draw::d3dcolor(0xff3f_7fbf);
    let cases: [(&str, [f32; 4]); 15] = [
        ("ZERO", [0.0; 4]),
        ("ONE", [1.0; 4]),
        ("SRCCOLOR", src),
        ("INVSRCCOLOR", src.map(|x| 1.0 - x)),
        ("SRCALPHA", [src[3]; 4]),
        ("INVSRCALPHA", [1.0 - src[3]; 4]),
        ("DESTALPHA", [dst[3]; 4]),
        ("INVDESTALPHA", [1.0 - dst[3]; 4]),
        ("DESTCOLOR", dst),
        ("INVDESTCOLOR", dst.map(|x| 1.0 - x)),
        // min(As, 1 - Ad) for colour, 1 for alpha.
        ("SRCALPHASAT", [0.6, 0.6, 0.6, 1.0]),
        // BOTHSRCALPHA: source As, destination 1 - As (the destination factor is overridden).
        ("BOTHSRCALPHA", [src[3]; 4]),
        ("BOTHINVSRCALPHA", [1.0 - src[3]; 4]),
        ("BLENDFACTOR", bf),
        ("INVBLENDFACTOR", bf.map(|x| 1.0 - x)),
    ];
    for (name_, f) in cases {
        let mut fr = frame(2, 2, 0, false);
        fr.targets = vec![TargetFormat::A32B32G32R32F];
        fr.clear.color = dst;
        // The source colour from a pixel shader, exact in a float target.
        let mut d = crate::support::shaded(
            crate::support::VS30,
            "ps_3_0\ndcl_texcoord v0\ndef c0, 0.4, 0.2, 0.6, 0.8\nmov oC0, c0\n",
            &crate::support::screen_quad(),
            Primitive::TriangleStrip,
        );
        blend(&mut d, name_, "ZERO", "ADD");
        d.states
            .set("BLENDFACTOR", &StateValue::Name("0xff3f7fbf".into()))
            .unwrap();
        let s = render(&fr, &[d]);
        let got = s.pixel(0, 0).unwrap().targets[0];
        let mut want: [f32; 4] = std::array::from_fn(|c| src[c] * f[c]);
        if name_ == "BOTHSRCALPHA" || name_ == "BOTHINVSRCALPHA" {
            let (sa, da) = if name_ == "BOTHSRCALPHA" {
                (src[3], 1.0 - src[3])
            } else {
                (1.0 - src[3], src[3])
            };
            want = std::array::from_fn(|c| src[c] * sa + dst[c] * da);
        }
        for c in 0..4 {
            assert!(
                (got[c] - want[c]).abs() < 1e-6,
                "{name_}: {got:?} vs {want:?}"
            );
        }
    }
}

#[test]
fn exp_and_exp2_table_fog() {
    // Depth 0.5, FOGDENSITY 2: EXP gives e^-1, EXP2 e^-1 as well ((2 * 0.5)^2 = 1); density 3:
    // EXP e^-1.5, EXP2 e^-2.25. Red fogged towards black in a float target.
    for (mode, density, factor) in [
        ("EXP", 2.0f64, (-1.0f32).exp()),
        ("EXP2", 2.0, (-1.0f32).exp()),
        ("EXP", 3.0, (-1.5f32).exp()),
        ("EXP2", 3.0, (-2.25f32).exp()),
    ] {
        let mut d = quad(0.5, 0xffff_0000, false);
        states(
            &mut d,
            &[
                ("FOGENABLE", StateValue::Bool(true)),
                ("FOGTABLEMODE", name(mode)),
                ("FOGDENSITY", StateValue::Number(density)),
                ("FOGCOLOR", name("0xff000000")),
            ],
        );
        let mut f = frame(2, 2, 0, false);
        f.targets = vec![TargetFormat::A32B32G32R32F];
        let got = render(&f, &[d]).pixel(0, 0).unwrap().targets[0][0];
        assert!(
            (got - factor).abs() < 1e-6,
            "{mode} {density}: {got} vs {factor}"
        );
    }
}
