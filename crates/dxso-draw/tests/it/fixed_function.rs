//! Draws without shaders: coverage, interpolation and the output merger, pixel by pixel,
//! against hand-computed values.

use crate::support::*;
use dxso_draw::{DepthFormat, Primitive, StateValue, Viewport};

const BLACK: [u8; 4] = [0, 0, 0, 0];
const RED: u32 = 0xffff_0000;

fn quad_clip(z: f32, color: u32) -> Vec<V> {
    vec![
        ([-1.0, 1.0, z, 1.0], color),
        ([1.0, 1.0, z, 1.0], color),
        ([-1.0, -1.0, z, 1.0], color),
        ([1.0, -1.0, z, 1.0], color),
    ]
}

fn full(z: f32, color: u32) -> dxso_draw::Draw {
    draw(&quad_clip(z, color), Primitive::TriangleStrip, false, true)
}

#[test]
fn fill_rule_at_fractional_positions() {
    // Centres with x >= 1, y >= 1 and x + y < 5 (the hypotenuse is a right edge: out).
    let d = draw(
        &[
            ([0.5, 0.5, 0.5, 1.0], RED),
            ([4.5, 0.5, 0.5, 1.0], RED),
            ([0.5, 4.5, 0.5, 1.0], RED),
        ],
        Primitive::TriangleList,
        true,
        false,
    );
    let s = render(&frame(8, 8, 0, false), &[d]);
    assert_eq!(
        painted(&s, BLACK),
        vec![(1, 1), (2, 1), (3, 1), (1, 2), (2, 2), (1, 3)]
    );
}

#[test]
fn a_strip_covers_every_pixel_once() {
    let mut d = full(0.5, 0xff40_4040);
    states(
        &mut d,
        &[
            ("ALPHABLENDENABLE", StateValue::Bool(true)),
            ("SRCBLEND", name("ONE")),
            ("DESTBLEND", name("ONE")),
        ],
    );
    let s = render(&frame(8, 8, 0, true), &[d]);
    for y in 0..8 {
        for x in 0..8 {
            assert_eq!(rgba8(&s, x, y), [0x40, 0x40, 0x40, 0xff], "({x}, {y})");
        }
    }
}

#[test]
fn culling_by_winding() {
    // Counter-clockwise on screen.
    let ccw = [
        ([0.0, 0.0, 0.5, 1.0], RED),
        ([0.0, 6.0, 0.5, 1.0], RED),
        ([6.0, 0.0, 0.5, 1.0], RED),
    ];
    let run = |cull: Option<&str>, v: &[V]| {
        let mut d = draw(v, Primitive::TriangleList, true, false);
        if let Some(c) = cull {
            states(&mut d, &[("CULLMODE", name(c))]);
        }
        painted(&render(&frame(8, 8, 0, false), &[d]), BLACK).len()
    };
    assert_eq!(run(None, &ccw), 0);
    assert_eq!(run(Some("NONE"), &ccw), 21);
    assert_eq!(run(Some("CW"), &ccw), 21);
    let cw = [ccw[0], ccw[2], ccw[1]];
    assert_eq!(run(None, &cw), 21);
    assert_eq!(run(Some("CW"), &cw), 0);
}

#[test]
fn gouraud_and_flat_shading() {
    let v = [
        ([0.0, 0.0, 0.5, 1.0], 0xffff_0000),
        ([8.0, 0.0, 0.5, 1.0], 0xff00_ff00),
        ([0.0, 8.0, 0.5, 1.0], 0xff00_00ff),
    ];
    // At (2, 2): weights (0.5, 0.25, 0.25); 127.5 rounds up, 63.75 to 64.
    let s = render(
        &frame(8, 8, 0, false),
        &[draw(&v, Primitive::TriangleList, true, false)],
    );
    assert_eq!(rgba8(&s, 2, 2), [128, 64, 64, 255]);
    let mut d = draw(&v, Primitive::TriangleList, true, false);
    states(&mut d, &[("SHADEMODE", name("FLAT"))]);
    let s = render(&frame(8, 8, 0, false), &[d]);
    assert_eq!(rgba8(&s, 2, 2), [255, 0, 0, 255]);
    assert_eq!(rgba8(&s, 5, 1), [255, 0, 0, 255]);
}

#[test]
fn perspective_correct_colours() {
    // rhw 0.25 at the white vertex: at (4, 0) the screen weights (0.5, 0.5) become
    // (0.8, 0.2) after the divide: 0.2 * 255 = 51.
    let v = [
        ([0.0, 0.0, 0.5, 1.0], 0xff00_0000),
        ([8.0, 0.0, 0.5, 0.25], 0xffff_ffff),
        ([0.0, 8.0, 0.5, 1.0], 0xff00_0000),
    ];
    let s = render(
        &frame(8, 8, 0, false),
        &[draw(&v, Primitive::TriangleList, true, false)],
    );
    assert_eq!(rgba8(&s, 4, 0), [51, 51, 51, 255]);
}

#[test]
fn depth_test_and_write() {
    let f = frame(4, 4, 0, true);
    let s = render(&f, &[full(0.5, 0xffff_0000), full(0.7, 0xff00_ff00)]);
    assert_eq!(rgba8(&s, 1, 1), [255, 0, 0, 255]);
    assert_eq!(
        s.pixel(1, 1).unwrap().z,
        Some(DepthFormat::D24S8.store(0.5))
    );
    let s = render(&f, &[full(0.5, 0xffff_0000), full(0.3, 0xff00_00ff)]);
    assert_eq!(rgba8(&s, 1, 1), [0, 0, 255, 255]);
    // GREATER keeps the farther one; ZWRITEENABLE false leaves the depth.
    let mut far = full(0.7, 0xff00_ff00);
    states(
        &mut far,
        &[
            ("ZFUNC", name("GREATER")),
            ("ZWRITEENABLE", StateValue::Bool(false)),
        ],
    );
    let s = render(&f, &[full(0.5, 0xffff_0000), far]);
    assert_eq!(rgba8(&s, 1, 1), [0, 255, 0, 255]);
    assert_eq!(
        s.pixel(1, 1).unwrap().z,
        Some(DepthFormat::D24S8.store(0.5))
    );
}

#[test]
fn stencil_marks_then_masks() {
    let mut mark = draw(
        &[
            ([0.0, 0.0, 0.5, 1.0], RED),
            ([2.0, 0.0, 0.5, 1.0], RED),
            ([0.0, 2.0, 0.5, 1.0], RED),
        ],
        Primitive::TriangleList,
        true,
        true,
    );
    states(
        &mut mark,
        &[
            ("STENCILENABLE", StateValue::Bool(true)),
            ("STENCILPASS", name("INCR")),
            ("ZENABLE", StateValue::Bool(false)),
        ],
    );
    let mut fill = full(0.5, 0xff00_ff00);
    states(
        &mut fill,
        &[
            ("STENCILENABLE", StateValue::Bool(true)),
            ("STENCILFUNC", name("EQUAL")),
            ("STENCILREF", StateValue::Number(1.0)),
            ("ZENABLE", StateValue::Bool(false)),
        ],
    );
    let s = render(&frame(4, 4, 0, true), &[mark, fill]);
    // The marking triangle covers (0,0), (1,0), (0,1).
    assert_eq!(s.pixel(0, 0).unwrap().stencil, Some(1));
    assert_eq!(s.pixel(1, 1).unwrap().stencil, Some(0));
    let mut green = painted(&s, BLACK);
    green.retain(|&(x, y)| rgba8(&s, x, y) == [0, 255, 0, 255]);
    assert_eq!(green, vec![(0, 0), (1, 0), (0, 1)]);
}

#[test]
fn alpha_test_against_alpharef() {
    let run = |alpha: u32| {
        let mut d = full(0.5, alpha << 24 | 0x00ff_0000);
        states(
            &mut d,
            &[
                ("ALPHATESTENABLE", StateValue::Bool(true)),
                ("ALPHAFUNC", name("GREATEREQUAL")),
                // 0xff80 compares as 0x80.
                ("ALPHAREF", StateValue::Number(0xff80 as f64)),
            ],
        );
        rgba8(&render(&frame(2, 2, 0, true), &[d]), 0, 0)
    };
    assert_eq!(run(0x80), [255, 0, 0, 0x80]);
    assert_eq!(run(0x7f), [0, 0, 0, 0]);
}

#[test]
fn source_alpha_blending() {
    let mut d = full(0.5, 0x80ff_0000);
    states(
        &mut d,
        &[
            ("ALPHABLENDENABLE", StateValue::Bool(true)),
            ("SRCBLEND", name("SRCALPHA")),
            ("DESTBLEND", name("INVSRCALPHA")),
        ],
    );
    let s = render(&frame(2, 2, 0xff00_00ff, true), &[d]);
    let a = 128.0f32 / 255.0;
    let alpha = (a * a + (1.0 - a)) * 255.0;
    assert_eq!(rgba8(&s, 0, 0), [128, 0, 127, (alpha + 0.5).floor() as u8]);
}

#[test]
fn linear_table_fog() {
    let mut d = draw(
        &[
            ([0.0, 0.0, 0.5, 1.0], RED),
            ([4.0, 0.0, 0.5, 1.0], RED),
            ([0.0, 4.0, 0.5, 1.0], RED),
        ],
        Primitive::TriangleList,
        true,
        false,
    );
    states(
        &mut d,
        &[
            ("FOGENABLE", StateValue::Bool(true)),
            ("FOGTABLEMODE", name("LINEAR")),
            ("FOGCOLOR", name("0xff00ff00")),
            ("FOGSTART", StateValue::Number(0.0)),
            ("FOGEND", StateValue::Number(1.0)),
        ],
    );
    // Factor (1 - 0.5) / (1 - 0): half red, half green.
    assert_eq!(
        rgba8(&render(&frame(4, 4, 0, false), &[d]), 0, 0),
        [128, 128, 0, 255]
    );
}

#[test]
fn the_near_plane_clips() {
    // z runs from -0.5 at the left edge to 0.5 at the right: z < 0 (x < 4 on screen) is cut.
    let v = vec![
        ([-1.0, 1.0, -0.5, 1.0], RED),
        ([1.0, 1.0, 0.5, 1.0], RED),
        ([-1.0, -1.0, -0.5, 1.0], RED),
        ([1.0, -1.0, 0.5, 1.0], RED),
    ];
    let s = render(
        &frame(8, 8, 0, false),
        &[draw(&v, Primitive::TriangleStrip, false, false)],
    );
    let p = painted(&s, BLACK);
    assert_eq!(p.len(), 32);
    assert!(p.iter().all(|&(x, _)| x >= 4), "{p:?}");
    let behind = vec![
        ([-1.0, 1.0, -0.5, 1.0], RED),
        ([1.0, 1.0, -0.5, 1.0], RED),
        ([-1.0, -1.0, -0.5, 1.0], RED),
    ];
    let s = render(
        &frame(8, 8, 0, false),
        &[draw(&behind, Primitive::TriangleList, false, false)],
    );
    assert!(painted(&s, BLACK).is_empty());
}

#[test]
fn scissor_and_viewport() {
    let mut d = full(0.5, RED);
    states(&mut d, &[("SCISSORTESTENABLE", StateValue::Bool(true))]);
    d.scissor = Some([2, 2, 5, 6]);
    let p = painted(&render(&frame(8, 8, 0, true), &[d]), BLACK);
    assert_eq!(p.len(), 12);
    assert!(
        p.iter()
            .all(|&(x, y)| (2..5).contains(&x) && (2..6).contains(&y))
    );
    let mut d = full(0.5, RED);
    d.viewport = Some(Viewport {
        x: 4,
        y: 0,
        width: 4,
        height: 4,
        min_z: 0.0,
        max_z: 1.0,
    });
    let p = painted(&render(&frame(8, 8, 0, true), &[d]), BLACK);
    assert_eq!(p.len(), 16);
    assert!(p.iter().all(|&(x, y)| x >= 4 && y < 4));
    let mut d = full(0.5, RED);
    d.viewport = Some(Viewport {
        x: 6,
        y: 0,
        width: 4,
        height: 4,
        min_z: 0.0,
        max_z: 1.0,
    });
    let e = dxso_draw::draw_frame(&frame(8, 8, 0, true), &[d]).unwrap_err();
    // A typed error a caller can act on: the viewport refused and the target's size.
    let dxso_draw::DrawError::Viewport(v) = &e else {
        panic!("not a viewport error: {e:?}");
    };
    assert_eq!(
        (v.viewport.x, v.viewport.width, v.width, v.height),
        (6, 4, 8, 8)
    );
    assert_eq!(
        e.to_string(),
        "viewport 4x4 at (6, 0), z 0..1: it must lie inside the 8x8 target with z in 0..1"
    );
}

#[test]
fn points_and_lines() {
    let mut p = draw(
        &[([4.0, 4.0, 0.5, 1.0], RED)],
        Primitive::PointList,
        true,
        false,
    );
    states(&mut p, &[("POINTSIZE", StateValue::Number(3.0))]);
    let s = render(&frame(8, 8, 0, false), &[p]);
    let px = painted(&s, BLACK);
    assert_eq!(px.len(), 9);
    assert!(
        px.iter()
            .all(|&(x, y)| (3..6).contains(&x) && (3..6).contains(&y)),
        "{px:?}"
    );
    let l = draw(
        &[([1.0, 1.0, 0.5, 1.0], RED), ([6.0, 1.0, 0.5, 1.0], RED)],
        Primitive::LineList,
        true,
        false,
    );
    let s = render(&frame(8, 8, 0, false), &[l]);
    assert_eq!(
        painted(&s, BLACK),
        (1..=6).map(|x| (x, 1)).collect::<Vec<_>>()
    );
    let mut l = draw(
        &[([1.0, 1.0, 0.5, 1.0], RED), ([6.0, 1.0, 0.5, 1.0], RED)],
        Primitive::LineList,
        true,
        false,
    );
    states(&mut l, &[("LASTPIXEL", StateValue::Bool(false))]);
    let s = render(&frame(8, 8, 0, false), &[l]);
    assert_eq!(painted(&s, BLACK).len(), 5);
}

#[test]
fn colour_write_mask() {
    let mut d = full(0.5, 0xffff_ff00);
    states(&mut d, &[("COLORWRITEENABLE", StateValue::Number(1.0))]);
    let s = render(&frame(2, 2, 0xff00_00ff, true), &[d]);
    assert_eq!(rgba8(&s, 0, 0), [255, 0, 255, 255]);
}
