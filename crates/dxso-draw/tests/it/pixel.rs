//! Draws through pixel shaders: the pixel stage's inputs (interpolated, vPos, vFace), texture
//! sampling with the level of detail from the quads, texkill, MRT, oDepth, fog by version.

use crate::support::*;
use dxso_draw::{DepthFormat, Primitive, StateValue, TargetFormat};
use dxso_vm::{Format, SamplerState, Texture, TextureFilter, TextureKind};
use std::sync::Arc;

#[test]
fn vs20_ps20_constants() {
    // ps_2_0: def c0 plus the draw's c1 over the bottom-left quarter.
    let v = vec![
        ([-1.0, 0.0, 0.5, 1.0], [0.0; 4]),
        ([0.0, 0.0, 0.5, 1.0], [0.0; 4]),
        ([-1.0, -1.0, 0.5, 1.0], [0.0; 4]),
        ([0.0, -1.0, 0.5, 1.0], [0.0; 4]),
    ];
    let ps = "ps_2_0\ndef c0, 0.25, 0.5, 0.25, 1\nmov r1, c1\nadd r0, c0, r1\nmov oC0, r0\n";
    let mut d = shaded(VS20, ps, &v, Primitive::TriangleStrip);
    d.pixel
        .as_mut()
        .unwrap()
        .set_constant_f(1, &[[-0.25, 0.0, 0.25, 0.0]])
        .unwrap();
    let s = render(&frame(8, 8, 0, false), &[d]);
    assert_eq!(rgba8(&s, 1, 6), [0, 128, 128, 255]);
    assert_eq!(rgba8(&s, 6, 1), [0, 0, 0, 0]);
    assert_eq!(painted(&s, [0; 4]).len(), 16);
}

#[test]
fn vpos_is_the_integer_pixel_position() {
    let ps = "ps_3_0\ndcl vPos.xy\ndcl_texcoord v0\ndef c0, 0.003921569, 0.003921569, 0, 1\nmul r0.xy, vPos, c0\nmov r0.zw, c0\nmov oC0, r0\n";
    let s = render(
        &frame(8, 8, 0, false),
        &[shaded(VS30, ps, &screen_quad(), Primitive::TriangleStrip)],
    );
    for (x, y) in [(0, 0), (3, 5), (7, 7)] {
        assert_eq!(rgba8(&s, x, y), [x as u8, y as u8, 0, 255]);
    }
}

#[test]
fn vface_follows_the_winding() {
    let ps = "ps_3_0\ndcl vFace\ndcl_texcoord v0\ndef c0, 1, 0, 0, 1\ndef c1, 0, 1, 0, 1\nif_gt vFace, c0.y\nmov oC0, c0\nelse\nmov oC0, c1\nendif\n";
    let front = vec![
        ([-1.0, 1.0, 0.5, 1.0], [0.0; 4]),
        ([1.0, 1.0, 0.5, 1.0], [0.0; 4]),
        ([-1.0, -1.0, 0.5, 1.0], [0.0; 4]),
    ];
    let back = vec![front[0], front[2], front[1]];
    for (v, want) in [(front, [255, 0, 0, 255]), (back, [0, 255, 0, 255])] {
        let mut d = shaded(VS30, ps, &v, Primitive::TriangleList);
        states(&mut d, &[("CULLMODE", name("NONE"))]);
        assert_eq!(rgba8(&render(&frame(8, 8, 0, false), &[d]), 0, 0), want);
    }
}

/// A 16x16 texture whose five levels are solid colours: level k is (k/4, 0, 1 - k/4, 1).
fn mip_chain() -> Arc<Texture> {
    let levels: Vec<Vec<u8>> = (0..5)
        .map(|k| {
            let n = 16 >> k;
            let texel: Vec<u8> = [k as f32 / 4.0, 0.0, 1.0 - k as f32 / 4.0, 1.0]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            texel.repeat(n * n)
        })
        .collect();
    Arc::new(Texture::new(TextureKind::TwoD, Format::A32B32G32R32F, 16, 16, 1, &levels).unwrap())
}

#[test]
fn texld_picks_the_level_from_the_quad() {
    // A 16x16 texture over 4x4 pixels: 4 texels a pixel, lod 2 (level 2 = (0.5, 0, 0.5)).
    // Over 16x16 pixels: lod 0; over 2x2: lod 3.
    let ps = "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n";
    for (size, level) in [(16u32, 0), (4, 2), (2, 3)] {
        let mut d = shaded(VS20, ps, &screen_quad(), Primitive::TriangleStrip);
        let p = d.pixel.as_mut().unwrap();
        p.set_texture(0, Some(mip_chain())).unwrap();
        p.set_sampler_state(
            0,
            SamplerState {
                mip_filter: TextureFilter::Point,
                ..SamplerState::default()
            },
        )
        .unwrap();
        let s = render(&frame(size, size, 0, false), &[d]);
        let k = level as f32 / 4.0;
        let want = [
            (k * 255.0 + 0.5) as u8,
            0,
            ((1.0 - k) * 255.0 + 0.5) as u8,
            255,
        ];
        assert_eq!(rgba8(&s, 1, 1), want, "{size}x{size}");
    }
}

#[test]
fn texkill_discards() {
    // Texture coordinate x runs 0..1 across 8 pixels: (x + 0.5 - 4) / 8 ... kill where t0.x < 0.5.
    let ps = "ps_2_0\ndcl t0\ndef c0, -0.5, 0, 0, 0\ndef c1, 1, 1, 1, 1\nadd r0, t0, c0\ntexkill r0\nmov oC0, c1\n";
    let s = render(
        &frame(8, 8, 0, false),
        &[shaded(VS20, ps, &screen_quad(), Primitive::TriangleStrip)],
    );
    let p = painted(&s, [0; 4]);
    // t0.x at pixel x is x / 8 (pixel centres at integers): x >= 4 survive.
    assert_eq!(p.len(), 32);
    assert!(p.iter().all(|&(x, _)| x >= 4));
}

#[test]
fn mrt_and_odepth() {
    let ps = "ps_3_0\ndcl_texcoord v0\ndef c0, 1, 0, 0, 1\ndef c1, 0, 0, 1, 1\ndef c2, 0.25, 0, 0, 0\nmov oC0, c0\nmov oC1, c1\nmov oDepth, c2.x\n";
    let mut f = frame(4, 4, 0, true);
    f.targets = vec![TargetFormat::A8R8G8B8, TargetFormat::A8R8G8B8];
    let mut d = shaded(VS30, ps, &screen_quad(), Primitive::TriangleStrip);
    states(&mut d, &[("ZENABLE", StateValue::Bool(true))]);
    let s = render(&f, &[d]);
    let p = s.pixel(2, 2).unwrap();
    assert_eq!(p.targets[0], [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(p.targets[1], [0.0, 0.0, 1.0, 1.0]);
    assert_eq!(p.z, Some(DepthFormat::D24S8.store(0.25)));
}

#[test]
fn fog_applies_to_ps_2_0_not_ps_3_0() {
    let fogged = |vs: &str, ps: &str| {
        let mut d = shaded(vs, ps, &screen_quad(), Primitive::TriangleStrip);
        states(
            &mut d,
            &[
                ("FOGENABLE", StateValue::Bool(true)),
                ("FOGTABLEMODE", name("LINEAR")),
                ("FOGCOLOR", name("0xff00ff00")),
            ],
        );
        rgba8(&render(&frame(2, 2, 0, false), &[d]), 0, 0)
    };
    // z = 0.5, FOGSTART 0, FOGEND 1: factor 0.5.
    let red2 = "ps_2_0\ndef c0, 1, 0, 0, 1\nmov oC0, c0\n";
    let red3 = "ps_3_0\ndcl_texcoord v0\ndef c0, 1, 0, 0, 1\nmov oC0, c0\n";
    assert_eq!(fogged(VS20, red2), [128, 128, 0, 255]);
    assert_eq!(fogged(VS30, red3), [255, 0, 0, 255]);
}

#[test]
fn perspective_correct_texture_coordinates() {
    // A quad whose right edge has w = 4: at the middle pixel column the texture coordinate
    // is 0.2 (see the fixed-function colour test), read back through a ps_3_0.
    let v = vec![
        ([-1.0, 1.0, 0.5, 1.0], [0.0; 4]),
        ([4.0, 4.0, 2.0, 4.0], [1.0, 0.0, 0.0, 0.0]),
        ([-1.0, -1.0, 0.5, 1.0], [0.0; 4]),
        ([4.0, -4.0, 2.0, 4.0], [1.0, 0.0, 0.0, 0.0]),
    ];
    let ps =
        "ps_3_0\ndcl_texcoord v0\ndef c0, 0, 0, 0, 1\nmov r0, c0\nmov r0.x, v0.x\nmov oC0, r0\n";
    let s = render(
        &frame(8, 8, 0, false),
        &[shaded(VS30, ps, &v, Primitive::TriangleStrip)],
    );
    assert_eq!(rgba8(&s, 4, 4), [51, 0, 0, 255]);
}

#[test]
fn point_sprites_spread_texture_coordinates_across_the_point() {
    // A 4-pixel point at (4, 4) covers centres 2..=5; with POINTSPRITEENABLE t0 runs from
    // (0, 0) at the point's top-left corner: u = (x - 2) / 4.
    let decl = vec![
        element(0, dxso_vm::DeclType::Float4, dxso::ir::Usage::PositionT, 0),
        element(16, dxso_vm::DeclType::Float2, dxso::ir::Usage::TexCoord, 0),
    ];
    let bytes: Vec<u8> = [4.0f32, 4.0, 0.5, 1.0, 0.9, 0.9]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let run = |sprite: bool| {
        let mut d = draw_raw(decl.clone(), bytes.clone(), 24, 1, Primitive::PointList);
        d.pixel = Some(
            dxso_vm::PixelState::new(&checked("ps_2_0\ndcl t0.xy\nmov r0, t0\nmov oC0, r0\n"))
                .unwrap(),
        );
        states(
            &mut d,
            &[
                ("POINTSIZE", StateValue::Number(4.0)),
                ("POINTSPRITEENABLE", StateValue::Bool(sprite)),
            ],
        );
        let mut f = frame(8, 8, 0, false);
        f.targets = vec![TargetFormat::A32B32G32R32F];
        render(&f, &[d])
    };
    let s = run(true);
    for (x, u) in [(2, 0.0), (3, 0.25), (4, 0.5), (5, 0.75)] {
        let t = s.pixel(x, 3).unwrap().targets[0];
        assert_eq!((t[0], t[1]), (u, 0.25), "x {x}");
    }
    // Without sprites every pixel reads the vertex's own coordinate.
    assert_eq!(run(false).pixel(5, 5).unwrap().targets[0][..2], [0.9, 0.9]);
}
