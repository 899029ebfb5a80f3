//! Whole draws through [`dxso_gpu::Gpu::draw_frame`] (a wgpu render pipeline) against pixels
//! computed by hand, and every example scene (`examples/draw/*.json`) drawn on the GPU
//! against dxso-draw's CPU draw within the tolerance classes of `docs/gpu.md`.

use dxso_draw::{DrawScene, Surfaces};
use dxso_gpu::{Error, Gpu};

/// A draw scene from its JSON text (files relative to the repository's examples).
fn scene(json: &str) -> DrawScene {
    let dir = dxso_testdata::repo_root().join("examples/draw");
    DrawScene::from_json(json, &dir).unwrap_or_else(|e| panic!("{json}\n{e}"))
}

fn gpu_draw(gpu: &Gpu, s: &DrawScene) -> Surfaces {
    gpu.draw_frame(&s.frame, &s.draws)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A pre-transformed (POSITIONT) triangle list of `verts` (x, y, z, D3DCOLOR) into an 8x8
/// A8R8G8B8 target cleared to black, with `states`.
fn positiont(verts: &[(f32, f32, f32, u32)], states: &str, depth: bool) -> String {
    let mut hex = String::new();
    for &(x, y, z, c) in verts {
        for f in [x, y, z, 1.0] {
            for b in f.to_le_bytes() {
                hex.push_str(&format!("{b:02x}"));
            }
        }
        for b in c.to_le_bytes() {
            hex.push_str(&format!("{b:02x}"));
        }
    }
    format!(
        r#"{{"width": 8, "height": 8, "depth_stencil": {}, "clear": {{"color": "0xff000000", "z": 1.0}},
        "primitive": "TRIANGLELIST", "vertex_count": {},
        "declaration": [{{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT", "usage_index": 0}},
                        {{"stream": 0, "offset": 16, "type": "D3DCOLOR", "usage": "COLOR", "usage_index": 0}}],
        "streams": [{{"stride": 20, "hex": "{hex}"}}],
        "states": {{{states}}}}}"#,
        if depth {
            r#"{"format": "D24S8"}"#
        } else {
            "null"
        },
        verts.len()
    )
}

/// The pixels of target 0 that are not black.
fn lit(s: &Surfaces) -> Vec<(u32, u32)> {
    let t = &s.targets[0];
    (0..s.height)
        .flat_map(|y| (0..s.width).map(move |x| (x, y)))
        .filter(|&(x, y)| t.texels[(y * s.width + x) as usize][..3] != [0.0; 3])
        .collect()
}

#[test]
fn a_triangle_covers_the_pixels_of_the_top_left_rule() {
    let Some(gpu) = crate::gpu() else { return };
    // D3D9 pixel centres are whole numbers: (0, 0), (4, 0), (0, 4) covers the centres with
    // x, y >= 0 and x + y < 4 (the top and left edges are in, the diagonal, a bottom-right
    // edge, is out): 4 + 3 + 2 + 1 pixels.
    let white = 0xffff_ffff;
    let json = positiont(
        &[
            (0.0, 0.0, 0.5, white),
            (4.0, 0.0, 0.5, white),
            (0.0, 4.0, 0.5, white),
        ],
        r#""ZENABLE": false"#,
        false,
    );
    let s = gpu_draw(&gpu, &scene(&json));
    let mut want = Vec::new();
    for y in 0..4u32 {
        for x in 0..4 - y {
            want.push((x, y));
        }
    }
    want.sort_by_key(|&(x, y)| (y, x));
    assert_eq!(lit(&s), want);
    // Moved by half a pixel the triangle's edges pass between centres.
    let json = positiont(
        &[
            (1.5, 1.5, 0.5, white),
            (3.5, 1.5, 0.5, white),
            (1.5, 3.5, 0.5, white),
        ],
        r#""ZENABLE": false, "CULLMODE": "NONE""#,
        false,
    );
    let s = gpu_draw(&gpu, &scene(&json));
    // Centres with x, y >= 2 and x + y < 5: (3, 2) and (2, 3) lie on the diagonal, out.
    assert_eq!(lit(&s), vec![(2, 2)]);
}

#[test]
fn culling_follows_d3d9s_clockwise_front_face() {
    let Some(gpu) = crate::gpu() else { return };
    let white = 0xffff_ffff;
    // Clockwise on screen (y down): front.
    let cw = [
        (0.0, 0.0, 0.5, white),
        (8.0, 0.0, 0.5, white),
        (0.0, 8.0, 0.5, white),
    ];
    let ccw = [cw[0], cw[2], cw[1]];
    for (verts, cull, drawn) in [
        (cw, "CCW", true),
        (cw, "CW", false),
        (ccw, "CCW", false),
        (ccw, "CW", true),
        (ccw, "NONE", true),
    ] {
        let states = format!(r#""ZENABLE": false, "CULLMODE": "{cull}""#);
        let s = gpu_draw(&gpu, &scene(&positiont(&verts, &states, false)));
        assert_eq!(!lit(&s).is_empty(), drawn, "CULLMODE {cull}");
    }
}

#[test]
fn depth_test_keeps_the_nearer_triangle_whatever_the_order() {
    let Some(gpu) = crate::gpu() else { return };
    let tri = |z: f32, c: u32| [(0.0, 0.0, z, c), (8.0, 0.0, z, c), (0.0, 8.0, z, c)];
    let (red, green) = (0xffff_0000u32, 0xff00_ff00u32);
    for order in [[(0.5, red), (0.25, green)], [(0.25, green), (0.5, red)]] {
        let mut verts = Vec::new();
        for (z, c) in order {
            verts.extend(tri(z, c));
        }
        let s = gpu_draw(
            &gpu,
            &scene(&positiont(&verts, r#""ZFUNC": "LESSEQUAL""#, true)),
        );
        let p = s.pixel(3, 3).unwrap();
        assert_eq!(p.targets[0], [0.0, 1.0, 0.0, 1.0], "order {order:?}");
        assert_eq!(p.z, Some(dxso_draw::DepthFormat::D24S8.store(0.25)));
        // Outside the triangles: the clear.
        assert_eq!(s.pixel(7, 7).unwrap().z, Some(1.0));
    }
    // GREATER against the clear (1.0) passes nothing.
    let s = gpu_draw(
        &gpu,
        &scene(&positiont(&tri(0.5, red), r#""ZFUNC": "GREATER""#, true)),
    );
    assert!(lit(&s).is_empty());
}

#[test]
fn blending_source_alpha_over_the_target() {
    let Some(gpu) = crate::gpu() else { return };
    // 50% (0x80) white over the black clear, then 25% (0x40) red over that.
    let v = |c: u32| [(0.0, 0.0, 0.5, c), (16.0, 0.0, 0.5, c), (0.0, 16.0, 0.5, c)];
    let mut verts = v(0x80ff_ffff).to_vec();
    verts.extend(v(0x40ff_0000));
    let states = r#""ZENABLE": false, "ALPHABLENDENABLE": true, "SRCBLEND": "SRCALPHA", "DESTBLEND": "INVSRCALPHA""#;
    let s = gpu_draw(&gpu, &scene(&positiont(&verts, states, false)));
    let got = s.pixel(1, 1).unwrap().targets[0];
    let a1 = 128.0 / 255.0;
    let first = (a1 * 255.0f32).round() / 255.0; // 128/255 in every colour channel
    let a2 = 64.0 / 255.0;
    let r = ((a2 + first * (1.0 - a2)) * 255.0).round() / 255.0;
    let gb = ((first * (1.0 - a2)) * 255.0).round() / 255.0;
    for (c, want) in [(0, r), (1, gb), (2, gb)] {
        assert!(
            (got[c] - want).abs() <= 1.0 / 255.0 + 1e-6,
            "channel {c}: {got:?}, want {want}"
        );
    }
}

#[test]
fn the_alpha_test_discards_by_alpharef() {
    let Some(gpu) = crate::gpu() else { return };
    let tri = |c: u32| [(0.0, 0.0, 0.5, c), (8.0, 0.0, 0.5, c), (0.0, 8.0, 0.5, c)];
    let states = r#""ZENABLE": false, "ALPHATESTENABLE": true, "ALPHAREF": 128, "ALPHAFUNC": "GREATEREQUAL""#;
    for (colour, drawn) in [
        (0x40ff_ffffu32, false),
        (0x80ff_ffff, true),
        (0xc0ff_ffff, true),
    ] {
        let s = gpu_draw(&gpu, &scene(&positiont(&tri(colour), states, false)));
        assert_eq!(!lit(&s).is_empty(), drawn, "alpha {:#x}", colour >> 24);
    }
}

#[test]
fn table_fog_blends_the_fog_colour_by_depth() {
    let Some(gpu) = crate::gpu() else { return };
    // LINEAR from 0 to 1 at z = 0.25: factor 0.75, white fogged with red is (1, .75, .75).
    let white = 0xffff_ffff;
    let tri = [
        (0.0, 0.0, 0.25, white),
        (8.0, 0.0, 0.25, white),
        (0.0, 8.0, 0.25, white),
    ];
    let states = r#""ZENABLE": false, "FOGENABLE": true, "FOGCOLOR": "0xffff0000", "FOGTABLEMODE": "LINEAR", "FOGSTART": 0, "FOGEND": 1"#;
    let s = gpu_draw(&gpu, &scene(&positiont(&tri, states, false)));
    let got = s.pixel(1, 1).unwrap().targets[0];
    let want = [1.0, 191.0 / 255.0, 191.0 / 255.0, 1.0];
    for c in 0..4 {
        assert!(
            (got[c] - want[c]).abs() <= 1.0 / 255.0 + 1e-6,
            "{got:?}, want {want:?}"
        );
    }
}

#[test]
fn a_point_of_size_4_covers_4_by_4_pixels() {
    let Some(gpu) = crate::gpu() else { return };
    // Centre (4, 4), side 4: the centres x, y in [2, 6) (left and top edges in).
    let json = positiont(&[(4.0, 4.0, 0.5, 0xffff_ffff)], r#""POINTSIZE": 4"#, false)
        .replace("TRIANGLELIST", "POINTLIST");
    let s = gpu_draw(&gpu, &scene(&json));
    let want: Vec<(u32, u32)> = (2..6).flat_map(|y| (2..6).map(move |x| (x, y))).collect();
    assert_eq!(lit(&s), want);
}

#[test]
fn positiont_with_a_negative_rhw_is_refused() {
    let Some(gpu) = crate::gpu() else { return };
    let white = 0xffff_ffff;
    let tri = [
        (0.0, 0.0, 0.5, white),
        (4.0, 0.0, 0.5, white),
        (0.0, 4.0, 0.5, white),
    ];
    // Vertex 0's rhw (1.0, 0x3f800000) becomes -1.0.
    let json = positiont(&tri, r#""ZENABLE": false"#, false).replacen("0000803f", "000080bf", 1);
    let s = scene(&json);
    let e = gpu.draw_frame(&s.frame, &s.draws).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("rhw -1.0"), "{e}");
}

#[test]
fn srgb_texture_reads_are_refused() {
    let Some(gpu) = crate::gpu() else { return };
    let path = dxso_testdata::repo_root().join("examples/draw/textured.scene.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["draws"][0]["pixel_samplers"]["s0"]["srgb_texture"] = true.into();
    let s = scene(&json.to_string());
    let e = gpu.draw_frame(&s.frame, &s.draws).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("SRGBTEXTURE"), "{e}");
}

#[test]
fn refused_states_are_named() {
    let Some(gpu) = crate::gpu() else { return };
    let white = 0xffff_ffff;
    let tri = [
        (0.0, 0.0, 0.5, white),
        (4.0, 0.0, 0.5, white),
        (0.0, 4.0, 0.5, white),
    ];
    for (state, name, primitive) in [
        (r#""ZENABLE": "USEW""#, "USEW", "TRIANGLELIST"),
        (r#""CULLMODE": "NONE""#, "LINELIST", "LINELIST"),
    ] {
        let json = positiont(&tri, state, false).replace("TRIANGLELIST", primitive);
        let s = scene(&json);
        match gpu.draw_frame(&s.frame, &s.draws) {
            Err(e @ Error::Refused(_)) => {
                let text = e.to_string();
                assert!(text.contains(name) && text.contains("draw 0"), "{text}");
            }
            other => panic!("{state}: {:?}", other.map(|_| "drawn")),
        }
    }
}

/// How far a GPU draw may be from the CPU's (docs/gpu.md, "CPU against GPU").
#[derive(Clone, Copy, Debug)]
struct Tolerance {
    /// The share of an 8-bit unorm target's pixels that may differ.
    unorm8_fraction: f64,
    /// A unorm channel may differ by this much, or by one step of its format if that is more.
    unorm_absolute: f32,
    /// A float target's values: at most this far, relative to max(1, |CPU value|).
    float_relative: f32,
}

const EXACT: Tolerance = Tolerance {
    unorm8_fraction: 0.0,
    unorm_absolute: -1.0,
    float_relative: 0.0,
};

/// Interpolation: the GPU's barycentric weights differ from dxso-draw's in the last bits, so
/// a unorm value near a rounding boundary lands one step away (an 8-bit target on at most
/// 2% of its pixels; 10- and 16-bit ones on more, by at most 1.6e-4 or one step) and a
/// float value differs after a few significant digits (an f16 by its last bit).
const INTERPOLATION: Tolerance = Tolerance {
    unorm8_fraction: 0.02,
    unorm_absolute: 1.6e-4,
    float_relative: 1.0 / 512.0,
};

/// sRGB writes: the GPU's sRGB encoding and decoding (for blending) differ from dxso-draw's
/// exact curve by up to one step of the 8-bit target, on any share of the pixels.
const SRGB: Tolerance = Tolerance {
    unorm8_fraction: 1.0,
    unorm_absolute: 0.0,
    float_relative: 0.0,
};

/// How far one channel is off: for a unorm channel the difference over what `t` allows
/// (one step or `unorm_absolute`), for a float one the difference relative to max(1, |a|)
/// over `float_relative`; above 1 is out of tolerance, 0 equal.
fn off(format: dxso_draw::TargetFormat, c: usize, a: f32, b: f32, t: Tolerance) -> f32 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0.0;
    }
    let d = (a - b).abs();
    let allowed = match format.unorm_bits() {
        Some(bits) if bits[c] == 0 => return 0.0,
        Some(bits) if t.unorm_absolute < 0.0 => return d * ((1u32 << bits[c]) - 1) as f32 + 1.0,
        Some(bits) => t.unorm_absolute.max(1.0 / ((1u32 << bits[c]) - 1) as f32),
        None => t.float_relative * a.abs().max(1.0),
    };
    if d.is_nan() {
        f32::INFINITY
    } else if allowed > 0.0 {
        // A hair over the step: the values are k / (2^n - 1) in f32, their difference rounded.
        d / allowed / (1.0 + 1e-3)
    } else {
        f32::INFINITY
    }
}

/// Every target of `gpu` against `cpu` within `t`; a line per target of what differs.
fn agree(name: &str, cpu: &Surfaces, gpu: &Surfaces, t: Tolerance) {
    for (n, (a, b)) in cpu.targets.iter().zip(&gpu.targets).enumerate() {
        let mut differ = 0usize;
        let mut worst = 0.0f32;
        let mut largest = 0.0f32;
        for (p, q) in a.texels.iter().zip(&b.texels) {
            if p.iter()
                .zip(q)
                .any(|(x, y)| x != y && !(x.is_nan() && y.is_nan()))
            {
                differ += 1;
            }
            for c in 0..4 {
                worst = worst.max(off(a.format, c, p[c], q[c], t));
                largest = largest.max((p[c] - q[c]).abs());
            }
        }
        eprintln!(
            "{name} target {n} ({}): {differ} of {} pixels differ, largest {largest}",
            a.format.name(),
            a.texels.len(),
        );
        let eight_bit = a.format.unorm_bits().is_some_and(|b| b[0] == 8);
        let share_ok = !eight_bit || differ as f64 <= t.unorm8_fraction * a.texels.len() as f64;
        assert!(
            share_ok && worst <= 1.0,
            "{name} target {n}: {differ} pixels differ, largest {largest} ({t:?})"
        );
    }
}

fn scenes_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".scene.json"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no scenes in {}", dir.display());
    names
}

/// Each scene of `dir` drawn both ways, within its class.
fn scenes_agree(
    gpu: &Gpu,
    dir: &std::path::Path,
    class: fn(&str) -> Result<Tolerance, &'static str>,
) {
    for path in scenes_in(dir) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let s = DrawScene::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let cpu = dxso_draw::draw_frame(&s.frame, &s.draws).unwrap();
        match class(&name) {
            Err(why) => match gpu.draw_frame(&s.frame, &s.draws) {
                Err(e @ Error::Refused(_)) => assert!(e.to_string().contains(why), "{name}: {e}"),
                other => panic!(
                    "{name}: expected a refusal naming {why}, got {:?}",
                    other.map(|_| ())
                ),
            },
            Ok(t) => agree(&name, &cpu, &gpu_draw(gpu, &s), t),
        }
    }
}

#[test]
fn example_scenes_agree_with_the_cpu_draw() {
    let Some(gpu) = crate::gpu() else { return };
    let dir = dxso_testdata::repo_root().join("examples/draw");
    scenes_agree(&gpu, &dir, |name| match name {
        "blending.scene.json" | "bump.scene.json" | "textured.scene.json" => Ok(EXACT),
        "fog.scene.json" | "terrain.scene.json" | "two_sided.scene.json" => Ok(INTERPOLATION),
        _ => Err("(a new example: give it a class)"),
    });
}

/// `tests/gpu/scenes/`: multiple float and unorm targets, stencil, scissor, a viewport
/// offset, MAX blending, a colour write mask, fans and strips (`mrt_stencil_scissor`); a
/// vs_1_1 with a ps_2_0 whose colour input the vertex stage writes above 1, indexed, D16
/// (`vs11_ps20_indexed_d16`); flat shading of a strip, a fan and a list, with and without a
/// pixel shader, exactly (`flat_strip_fan_list`); `SRGBWRITEENABLE` with blending into
/// A8R8G8B8 and X8R8G8B8 (`srgb_write_blend`); A2R10G10B10, G16R16F, G32R32F and D32F
/// (`formats_mrt_d32f`); A16B16G16R16F, R16F, A32B32G32R32F, R32F and D24X8
/// (`formats_float_d24x8`); one-pixel points at random, whole and
/// half-pixel positions, exactly (`points_size_1`); points of sizes 5 and 4 (clamped by
/// POINTSIZE_MAX) partly off the target, sprites of size 8 with a texture, clip-space points
/// through a vertex shader, some outside the view volume (`points_large_sprites`); per-vertex
/// sizes from a vs_3_0 `PSIZE` output and from a `PSIZE` element (`points_psize`); two user clip planes with a vertex
/// shader and one without (`clip_planes`); a vs_3_0 `texldl` of a vertex texture
/// (`vertex_texture`); `DEPTHBIAS` pulling a coplanar decal in front, and pushing one behind,
/// with and without an oDepth shader (`depth_bias_decal`); `SLOPESCALEDEPTHBIAS` both ways on
/// sloped quads, one with a `texkill` shader (`depth_bias_slope`); pixel shader inputs no vertex output feeds, (0, 0, 0, 1) and a
/// missing diffuse colour white (`unwritten_inputs`); SHORT4 and UBYTE4 (integer layouts
/// converted in the vertex entry) and DEC3N (decoded in the entry from a storage buffer)
/// elements (`short4_ubyte4_dec3n`). The others use layouts of float formats (D3DCOLOR as
/// `Uint8x4` divided by 255, FLOAT2/4, indices); `fetch.rs` checks every type and frequency.
#[test]
fn test_scenes_agree_with_the_cpu_draw() {
    let Some(gpu) = crate::gpu() else { return };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gpu/scenes");
    scenes_agree(&gpu, &dir, |name| {
        Ok(if name.starts_with("srgb") {
            SRGB
        } else if ["flat", "points", "depth_bias"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            EXACT
        } else {
            INTERPOLATION
        })
    });
}

/// A16B16G16R16 draws where the adapter renders to `Rgba16Unorm` (within the interpolation
/// class) and is refused by name where it does not.
#[test]
fn a16b16g16r16_draws_or_is_refused_by_name() {
    let Some(gpu) = crate::gpu() else { return };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gpu/scenes");
    let text = std::fs::read_to_string(dir.join("formats_mrt_d32f.scene.json"))
        .unwrap()
        .replacen("\"A8R8G8B8\"", "\"A16B16G16R16\"", 1);
    let s = scene(&text);
    assert_eq!(s.frame.targets[1], dxso_draw::TargetFormat::A16B16G16R16);
    match gpu.draw_frame(&s.frame, &s.draws) {
        Ok(got) => {
            let cpu = dxso_draw::draw_frame(&s.frame, &s.draws).unwrap();
            agree("A16B16G16R16", &cpu, &got, INTERPOLATION);
        }
        Err(e @ Error::Refused(_)) => {
            assert!(e.to_string().contains("A16B16G16R16"), "{e}");
            dxso_testdata::skip(&format!("A16B16G16R16: {e}"));
        }
        Err(e) => panic!("{e}"),
    }
}

/// What the GPU draw refuses is typed, with the message every face prints (no GPU needed):
/// each refusal's words, and a draw's index before them.
#[test]
fn refusals_name_the_state_and_the_draw() {
    use dxso_gpu::Refusal;
    let said = |r: Refusal| Error::Refused(r).to_string();
    assert_eq!(
        said(Refusal::InDraw {
            draw: 3,
            refusal: Box::new(Refusal::Lines)
        }),
        "not drawn on the GPU: draw 3: LINELIST/LINESTRIP: lines (D3D9's diamond rule, \
         LASTPIXEL) are not drawn on the GPU path yet"
    );
    let cases = [
        (
            Refusal::WBuffer,
            "render state ZENABLE USEW (w-buffering) is not supported on the GPU path yet",
        ),
        (
            Refusal::BothSrcAlphaDest,
            "DESTBLEND BOTHSRCALPHA/BOTHINVSRCALPHA (valid only as SRCBLEND)",
        ),
        (
            Refusal::R5G6B5Target,
            "render target format R5G6B5: WebGPU has no renderable 5-6-5 format",
        ),
        (
            Refusal::Unorm16Target,
            "render target format A16B16G16R16: the adapter cannot render to 16-bit unorm \
             (Rgba16Unorm) targets",
        ),
        (
            Refusal::D24S8,
            "depth-stencil format D24S8: the adapter has no readable depth-stencil format \
             (DEPTH32FLOAT_STENCIL8)",
        ),
        (
            Refusal::PassThrough {
                usage: dxso::ir::Usage::PSize,
                index: 1,
            },
            "a draw without a vertex shader passing PSIZE1: not supported on the GPU path",
        ),
        (
            Refusal::ClipDistances,
            "CLIPPLANEENABLE: the adapter has no clip distances (CLIP_DISTANCES)",
        ),
        (
            Refusal::ClipPlanesWithPoints,
            "CLIPPLANEENABLE with points larger than a pixel or sprites (D3D9 clips a point by \
             its centre)",
        ),
        (
            Refusal::Float32Blend {
                format: dxso_draw::TargetFormat::A32B32G32R32F,
            },
            "ALPHABLENDENABLE into the A32B32G32R32F target: the adapter cannot blend 32-bit \
             floats",
        ),
        (
            Refusal::PositionT {
                vertex: 2,
                position: [1.0, f32::NAN, 0.5, 0.0],
            },
            "POSITIONT vertex 2 is (1.0, NaN, 0.5, rhw 0.0): the GPU path draws finite screen \
             positions (x, y within ±2^22) with rhw > 0",
        ),
        (
            Refusal::SrgbTexture(4),
            "s4: SRGBTEXTURE (sRGB texture reads) is not drawn on the GPU path yet",
        ),
        (
            Refusal::NoOc0,
            "the alpha test or fog of a pixel shader that writes no oC0",
        ),
    ];
    for (refusal, message) in cases {
        assert_eq!(refusal.to_string(), message);
    }
}

/// Draws sharing a vertex buffer share its upload, and the index list's, and draws of the
/// same shaders and states share one pipeline: three copies of `textured`'s first draw
/// upload what one does and make one pipeline (and draw what the CPU draws); a fourth with
/// another colour write mask makes a second pipeline and uploads nothing more.
#[test]
fn buffers_and_pipelines_are_made_once_per_frame() {
    let Some(gpu) = crate::gpu() else { return };
    let path = dxso_testdata::repo_root().join("examples/draw/textured.scene.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let draw = json["draws"][0].clone();
    let mut masked = draw.clone();
    masked["states"] = serde_json::json!({"COLORWRITEENABLE": 3});
    let with = |draws: Vec<serde_json::Value>| {
        let mut j = json.clone();
        j["draws"] = serde_json::Value::Array(draws);
        let dir = dxso_testdata::repo_root().join("examples/draw");
        DrawScene::from_json(&j.to_string(), &dir).unwrap()
    };
    let stats = |s: &DrawScene| gpu.prepare_frame(&s.frame, &s.draws).unwrap().stats();
    let one = stats(&with(vec![draw.clone()]));
    assert_eq!(one.pipelines, 1);
    assert_eq!(one.cpu_fetches, 0);
    // Its stream and its index list.
    assert_eq!(one.buffers, 2, "{one:?}");
    let three = with(vec![draw.clone(), draw.clone(), draw.clone()]);
    assert_eq!(stats(&three), one);
    let two = stats(&with(vec![draw.clone(), masked]));
    assert_eq!((two.buffers, two.pipelines), (one.buffers, 2), "{two:?}");
    let cpu = dxso_draw::draw_frame(&three.frame, &three.draws).unwrap();
    agree(
        "textured, draw 0 three times",
        &cpu,
        &gpu_draw(&gpu, &three),
        EXACT,
    );
}
