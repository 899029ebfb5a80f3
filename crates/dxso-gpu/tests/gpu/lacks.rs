//! What GPUs lack and the translated stages supply, each drawn through
//! [`dxso_gpu::Gpu::draw_frame`] and through dxso-draw's CPU draw, against values computed by
//! hand: D3D9's pixel centres for clip-space positions, flat shading, sRGB write, user clip
//! planes, and vPos/vFace. A colour in an 8-bit target may be one step (1/255) from the hand
//! value on the GPU (the interpolation class of docs/gpu.md); the CPU draw must give it exactly.

use dxso_draw::{DrawScene, Surfaces};

/// An 8x8 scene of one draw whose stream is `verts` (clip-space or POSITIONT position, then a
/// float colour), drawn with `extra` draw fields (shaders, states, clip planes).
fn scene(verts: &[[f32; 8]], usage: &str, extra: &str) -> DrawScene {
    let floats: Vec<String> = verts.iter().flatten().map(|f| format!("{f:?}")).collect();
    let json = format!(
        r#"{{"width": 8, "height": 8, "depth_stencil": null, "clear": {{"color": "0xff000000"}},
        "draws": [{{"primitive": "TRIANGLELIST", "vertex_count": {},
        "declaration": [{{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "{usage}", "usage_index": 0}},
                        {{"stream": 0, "offset": 16, "type": "FLOAT4", "usage": "COLOR", "usage_index": 0}}],
        "streams": [{{"stride": 32, "f32": [{}]}}], {extra}}}]}}"#,
        verts.len(),
        floats.join(", ")
    );
    let dir = dxso_testdata::repo_root().join("examples/draw");
    DrawScene::from_json(&json, &dir).unwrap_or_else(|e| panic!("{json}\n{e}"))
}

/// The scene drawn on the CPU and on the GPU.
fn both(gpu: &dxso_gpu::Gpu, s: &DrawScene) -> [Surfaces; 2] {
    let cpu = dxso_draw::draw_frame(&s.frame, &s.draws).unwrap_or_else(|e| panic!("{e}"));
    let g = gpu
        .draw_frame(&s.frame, &s.draws)
        .unwrap_or_else(|e| panic!("{e}"));
    [cpu, g]
}

/// Pixel (x, y) of target 0.
fn at(s: &Surfaces, x: u32, y: u32) -> [f32; 4] {
    s.pixel(x, y).unwrap().targets[0]
}

/// The pixels whose red, green or blue is not 0.
fn lit(s: &Surfaces) -> Vec<(u32, u32)> {
    (0..s.height)
        .flat_map(|y| (0..s.width).map(move |x| (x, y)))
        .filter(|&(x, y)| at(s, x, y)[..3] != [0.0; 3])
        .collect()
}

/// `got` is `want` on the CPU, within one 8-bit step on the GPU.
fn close(got: [f32; 4], want: [f32; 4], gpu: bool, what: &str) {
    let tol = if gpu { 1.0 / 255.0 + 1e-6 } else { 0.0 };
    for c in 0..4 {
        assert!(
            (got[c] - want[c]).abs() <= tol,
            "{what} ({}): {got:?}, want {want:?}",
            if gpu { "GPU" } else { "CPU" }
        );
    }
}

const PASS_VS: &str = r#""shader_asm": "vs_3_0\ndcl_position v0\ndcl_color v1\ndcl_position o0\ndcl_color o1\nmov o0, v0\nmov o1, v1\n""#;

/// 8-bit storage of a value in [0, 1]: the nearest k/255.
fn unorm8(v: f32) -> f32 {
    (v * 255.0).round() / 255.0
}

/// The pixels with x + y < 4 in row order: a triangle (0, 0), (4, 0), (0, 4) under D3D9's
/// top-left rule.
fn corner_triangle() -> Vec<(u32, u32)> {
    (0..4u32)
        .flat_map(|y| (0..4 - y).map(move |x| (x, y)))
        .collect()
}

#[test]
fn clip_space_positions_land_on_d3d9s_pixel_centres() {
    let Some(gpu) = crate::gpu() else { return };
    // Clip space (-1, 1), (0, 1), (-1, 0) of an 8x8 viewport is screen (0, 0), (4, 0), (0, 4).
    // D3D9's pixel centres are whole numbers, so the pixels with x + y < 4 are covered (10;
    // a GPU's centres at +0.5 would give 6), and red, 0 at x = 0 and 0.5 at x = 4, is x / 8
    // at pixel x (a GPU's (x + 0.5) / 8 would be 16 steps off). Green marks coverage.
    let verts = [
        [-1.0, 1.0, 0.5, 1.0, 0.0, 1.0, 0.0, 1.0],
        [0.0, 1.0, 0.5, 1.0, 0.5, 1.0, 0.0, 1.0],
        [-1.0, 0.0, 0.5, 1.0, 0.0, 1.0, 0.0, 1.0],
    ];
    let extra = format!(r#"{PASS_VS}, "states": {{"CULLMODE": "NONE"}}"#);
    let s = scene(&verts, "POSITION", &extra);
    for (i, out) in both(&gpu, &s).iter().enumerate() {
        assert_eq!(
            lit(out),
            corner_triangle(),
            "coverage ({})",
            ["CPU", "GPU"][i]
        );
        for (x, y) in corner_triangle() {
            let want = [unorm8(x as f32 / 8.0), 1.0, 0.0, 1.0];
            close(at(out, x, y), want, i == 1, &format!("pixel ({x}, {y})"));
        }
    }
}

#[test]
fn flat_shading_takes_the_first_vertexs_colour() {
    let Some(gpu) = crate::gpu() else { return };
    let verts = [
        [0.0, 0.0, 0.5, 1.0, 1.0, 0.0, 0.0, 1.0],
        [8.0, 0.0, 0.5, 1.0, 0.0, 1.0, 0.0, 1.0],
        [0.0, 8.0, 0.5, 1.0, 0.0, 0.0, 1.0, 1.0],
    ];
    let s = scene(
        &verts,
        "POSITIONT",
        r#""states": {"SHADEMODE": "FLAT", "ZENABLE": false}"#,
    );
    for (i, out) in both(&gpu, &s).iter().enumerate() {
        // Every pixel with x + y < 8 is covered, and each is exactly red.
        let covered = lit(out);
        assert_eq!(covered.len(), 36, "({})", ["CPU", "GPU"][i]);
        for (x, y) in covered {
            assert_eq!(at(out, x, y), [1.0, 0.0, 0.0, 1.0], "pixel ({x}, {y})");
        }
    }
    // Gouraud shading, the default, blends them: pixel (4, 0) is half red, half green.
    let s = scene(&verts, "POSITIONT", r#""states": {"ZENABLE": false}"#);
    for (i, out) in both(&gpu, &s).iter().enumerate() {
        close(
            at(out, 4, 0),
            [unorm8(0.5), unorm8(0.5), 0.0, 1.0],
            i == 1,
            "gouraud (4, 0)",
        );
    }
}

#[test]
fn srgb_write_encodes_the_linear_colour() {
    let Some(gpu) = crate::gpu() else { return };
    // Linear 0.5 (a float colour, not 128/255) is sRGB 1.055 * 0.5^(1/2.4) - 0.055 = 0.73536,
    // 187.52 of 255: stored as 187 or 188, so both engines must be within one step of it.
    let grey = [0.5, 0.5, 0.5, 1.0];
    let tri = |g: [f32; 4]| {
        [[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]].map(|[x, y]| [x, y, 0.5, 1.0, g[0], g[1], g[2], g[3]])
    };
    let encoded = 1.055 * 0.5f64.powf(1.0 / 2.4) - 0.055;
    assert!((encoded * 255.0 - 187.5).abs() < 0.1, "{}", encoded * 255.0);
    let on = r#""states": {"SRGBWRITEENABLE": true, "ZENABLE": false}"#;
    let off = r#""states": {"ZENABLE": false}"#;
    for (states, want) in [(on, encoded as f32), (off, 0.5)] {
        let s = scene(&tri(grey), "POSITIONT", states);
        for (i, out) in both(&gpu, &s).iter().enumerate() {
            let got = at(out, 1, 1);
            // Within one step on both: the exact encode lands between 187 and 188 and the
            // 0.5 between 127 and 128; the GPU's may round either way.
            for c in 0..3 {
                assert!(
                    (got[c] - want).abs() <= 1.0 / 255.0,
                    "{states} ({}): {got:?}, want {want}",
                    ["CPU", "GPU"][i]
                );
            }
            assert_eq!(got[3], 1.0, "alpha is never encoded");
        }
    }
}

#[test]
fn a_user_clip_plane_cuts_where_the_plane_says() {
    let Some(gpu) = crate::gpu() else { return };
    // A triangle over the whole 8x8 target; plane 0 keeps x - 0.125 w >= 0, i.e. screen
    // x >= 4.5: columns 5, 6 and 7. Plane 1 alone (y <= 0.375 w after the -1 factor, screen
    // y >= 2.5) keeps rows 3 to 7.
    let white = [1.0; 4];
    let verts = [[-1.0, 1.0], [3.0, 1.0], [-1.0, -3.0]]
        .map(|[x, y]| [x, y, 0.5, 1.0, white[0], white[1], white[2], white[3]]);
    for (planes, enable, want) in [
        (r#"{"0": [1, 0, 0, -0.125]}"#, 1, (5..8, 0..8)),
        (r#"{"1": [0, -1, 0, 0.375]}"#, 2, (0..8, 3..8)),
        (
            r#"{"0": [1, 0, 0, -0.125], "1": [0, -1, 0, 0.375]}"#,
            3,
            (5..8, 3..8),
        ),
    ] {
        let extra = format!(
            r#"{PASS_VS}, "states": {{"CULLMODE": "NONE", "CLIPPLANEENABLE": {enable}}}, "clip_planes": {planes}"#
        );
        let s = scene(&verts, "POSITION", &extra);
        let (xs, ys) = want;
        let want: Vec<(u32, u32)> = ys.flat_map(|y| xs.clone().map(move |x| (x, y))).collect();
        for (i, out) in both(&gpu, &s).iter().enumerate() {
            assert_eq!(lit(out), want, "planes {planes} ({})", ["CPU", "GPU"][i]);
        }
    }
}

#[test]
fn vpos_and_vface_reach_a_drawn_pixel_shader() {
    let Some(gpu) = crate::gpu() else { return };
    // Red and green are vPos / 8 (whole pixel numbers in D3D9), blue 1 on a front
    // (clockwise) face and 0 on a back face. The left triangle is clockwise on screen, the
    // right one counter-clockwise.
    let ps = r#""pixel_shader_asm": "ps_3_0\ndef c0, 0.125, 1, 0, 0\ndcl vPos.xy\ndcl vFace\nmul r0.xy, vPos, c0.x\ncmp r0.z, vFace, c0.y, c0.z\nmov r0.w, c0.y\nmov oC0, r0\n""#;
    let c = [0.0, 0.0, 0.0, 1.0];
    let v = |x: f32, y: f32| [x, y, 0.5, 1.0, c[0], c[1], c[2], c[3]];
    // On screen (y down) the left triangle is (0, 0) -> (4, 0) -> (0, 8), clockwise; the
    // right one (8, 0) -> (4, 8) -> (8, 8), counter-clockwise.
    let verts = [
        v(-1.0, 1.0),
        v(0.0, 1.0),
        v(-1.0, -1.0),
        v(1.0, 1.0),
        v(0.0, -1.0),
        v(1.0, -1.0),
    ];
    let extra = format!(r#"{PASS_VS}, {ps}, "states": {{"CULLMODE": "NONE"}}"#);
    let s = scene(&verts, "POSITION", &extra);
    for (i, out) in both(&gpu, &s).iter().enumerate() {
        for (x, y, front) in [
            (0, 0, true),
            (1, 3, true),
            (2, 1, true),
            (7, 7, false),
            (6, 5, false),
        ] {
            let want = [
                unorm8(x as f32 / 8.0),
                unorm8(y as f32 / 8.0),
                if front { 1.0 } else { 0.0 },
                1.0,
            ];
            close(at(out, x, y), want, i == 1, &format!("pixel ({x}, {y})"));
        }
    }
}
