//! The scene reader: every field, the defaults, and errors that name what is wrong.

use super::*;
use crate::{Clear, DepthFormat, Frame, Primitive, TargetFormat, Viewport};
use dxso::ir::Usage;
use std::path::Path;

const VS: &str = r#""shader_asm": "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n""#;
const PS: &str = r#""pixel_shader_asm": "ps_2_0\ndcl t0\ndcl_2d s5\ntexld r0, t0, s5\nmul r0, r0, c0\nmov oC0, r0\n""#;
const DECL: &str = r#""declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT", "usage_index": 0}],
    "streams": [{"stride": 16, "f32": [0, 0, 0, 1, 4, 0, 0, 1, 0, 4, 0, 1]}]"#;

fn draw_scene(text: &str) -> Result<DrawScene, DrawError> {
    DrawScene::from_json(text, Path::new("."))
}

/// The error message of a draw scene that must not load.
fn draw_error(text: &str) -> String {
    match draw_scene(text) {
        Ok(_) => panic!("loaded: {text}"),
        Err(e) => e.to_string(),
    }
}

fn assert_names(text: &str, fragments: &[&str]) {
    let e = draw_error(text);
    for f in fragments {
        assert!(e.contains(f), "wanted {f:?} in: {e}");
    }
}

#[test]
fn a_run_scene_configures_the_device() {
    let s = Scene::from_json(
        r#"{"shader_asm": "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord o1\nmov o0, v0\nmul o1, v0, c2\n",
            "vertex_count": 2, "instance_count": 1,
            "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT2", "usage": "POSITION"}],
            "streams": [{"stride": 8, "hex": "0000803f 00000040 00004040 00008040"}],
            "indices": [1, 0],
            "constants": {"c2": [2, 3, 1, 1], "i0": [1, 2, 3, 4], "b0": true},
            "textures": {"s1": {"format": "A8R8G8B8", "width": 1, "height": 1, "levels": [[0, 0, 255, 255]]}},
            "samplers": {"s1": {"address_u": "CLAMP", "mag_filter": "LINEAR", "border_color": "0xff000000"}}}"#,
        Path::new("."),
    )
    .unwrap();
    assert_eq!((s.vertex_count, s.instance_count), (2, 1));
    assert_eq!(s.device.constant_i(0), Some([1, 2, 3, 4]));
    assert_eq!(s.device.constant_b(0), Some(true));
    let out = s.device.draw(2, 1).unwrap();
    // Index 1 first: (3, 4) as FLOAT2 reads (3, 4, 0, 1).
    assert_eq!(out.vertex(0), &[3.0, 4.0, 0.0, 1.0, 6.0, 12.0, 0.0, 1.0]);
}

#[test]
fn run_scene_errors_name_the_field() {
    let err = |text: &str| match Scene::from_json(text, Path::new(".")) {
        Ok(_) => panic!("loaded: {text}"),
        Err(e) => e.to_string(),
    };
    let e = err(&format!(r#"{{{VS}, "vertex_count": 1, "colour": 1}}"#));
    assert!(e.starts_with("scene JSON: unknown field `colour`"), "{e}");
    let e = err(&format!(r#"{{{VS}}}"#));
    assert_eq!(e, "missing field `vertex_count`");
    let e = err(r#"{"vertex_count": 1}"#);
    assert!(
        e.contains("exactly one of \"shader\" and \"shader_asm\""),
        "{e}"
    );
    // A draw's fields are not a run scene's.
    let e = err(&format!(r#"{{{VS}, "vertex_count": 1, {PS}}}"#));
    assert!(e.contains("unknown field `pixel_shader_asm`"), "{e}");
    let e = err(&format!(
        r#"{{{VS}, "vertex_count": 1, "streams": [{{"stride": 4, "hex": "0g"}}]}}"#
    ));
    assert_eq!(e, "streams[0]: hex: 'g' is not a hex digit");
    let e = err(&format!(
        r#"{{{VS}, "vertex_count": 1, "textures": {{"s4": {{"format": "R32F", "levels": [[1]]}}}}}}"#
    ));
    assert_eq!(e, "textures: \"s4\": vertex samplers are s0..s3");
    let e = err(&format!(
        r#"{{{VS}, "vertex_count": 1, "textures": {{"s0": {{"format": "A8R8G8B8", "levels": [[0, 0, 256, 0]]}}}}}}"#
    ));
    assert_eq!(
        e,
        "textures.s0: levels[0]: number 2 (256): A8R8G8B8 stores an integer 0..=255 (one 8-bit channel)"
    );
    let e = err(&format!(
        r#"{{{VS}, "vertex_count": 1, "textures": {{"s0": {{"format": "DXT9", "levels": [[0]]}}}}}}"#
    ));
    assert_eq!(
        e,
        "textures.s0: format \"DXT9\" is not a vertex texture format"
    );
    let e = err(&format!(
        r#"{{{VS}, "vertex_count": 1, "samplers": {{"s0": {{"mag_filter": "CUBIC"}}}}}}"#
    ));
    assert_eq!(e, "samplers.s0: mag_filter: unknown filter \"CUBIC\"");
    let e = err(&format!(
        r#"{{{VS}, "vertex_count": 1, "constants": {{"c0": [1, 2]}}}}"#
    ));
    assert_eq!(e, "constants: c0: expected 4 numbers, found 2");
    let e = err(&format!(
        r#"{{{VS}, "vertex_count": 1, "streams": [{{"stride": 4, "file": "no-such.bin"}}]}}"#
    ));
    assert!(e.starts_with("streams[0]: reading ./no-such.bin: "), "{e}");
    let e = err(r#"{"shader_asm": "ps_2_0\nmov oC0, c0\n", "vertex_count": 1}"#);
    assert_eq!(e, "shader_asm: ps_2_0 is not a vertex shader");
}

#[test]
fn a_draw_scene_has_d3d9s_defaults() {
    let s = draw_scene(&format!(r#"{{"vertex_count": 3, {DECL}}}"#)).unwrap();
    assert_eq!(s.frame, Frame::default());
    assert_eq!(
        (s.frame.width, s.frame.height, &s.frame.targets[..]),
        (640, 480, &[TargetFormat::A8R8G8B8][..])
    );
    assert_eq!(s.frame.depth_stencil, Some(DepthFormat::D24S8));
    assert_eq!(s.frame.clear, Clear::default());
    assert_eq!(s.draws.len(), 1);
    let d = &s.draws[0];
    assert_eq!(d.fixed_function, Some(vec![(Usage::PositionT, 0)]));
    assert_eq!((d.vertex_count, d.instance_count), (3, 1));
    assert_eq!(d.primitive, Primitive::TriangleList);
    assert!(d.pixel.is_none());
    assert_eq!(d.states, crate::RenderStates::new(true));
    assert_eq!(d.states.get_by_name("ZENABLE"), Some(1));
    assert_eq!(d.stages[3], crate::StageStates::defaults(3));
    assert_eq!((d.viewport, d.scissor), (None, None));
    assert_eq!(d.clip_planes, [[0.0; 4]; 6]);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);

    // Without a depth-stencil surface ZENABLE defaults to FALSE.
    let s = draw_scene(&format!(
        r#"{{"depth_stencil": null, "vertex_count": 3, {DECL}}}"#
    ))
    .unwrap();
    assert_eq!(s.frame.depth_stencil, None);
    assert_eq!(s.draws[0].states.get_by_name("ZENABLE"), Some(0));
}

#[test]
fn every_draw_scene_field_is_read() {
    let text = format!(
        r#"{{
        "width": 64, "height": 32,
        "targets": [{{"format": "A8R8G8B8"}}, {{"format": "R32F"}}],
        "depth_stencil": {{"format": "D16"}},
        "clear": {{"color": "0x80ff0000", "z": 0.5, "stencil": 7}},
        "draws": [{{
            {VS}, {PS},
            "primitive": "TRIANGLESTRIP", "vertex_count": 4, "instance_count": 2,
            "declaration": [{{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION", "usage_index": 0}}],
            "streams": [{{"stride": 16, "f32": [0, 0, 0, 1]}}],
            "pixel_constants": {{"c0": [1, 0.5, 0.25, 1], "i1": [1, 2, 3, 4], "b2": false}},
            "pixel_textures": {{"s5": {{"type": "2d", "format": "A8R8G8B8", "width": 1, "height": 1, "levels": [[1, 2, 3, 4]]}}}},
            "pixel_samplers": {{"s5": {{"min_filter": "ANISOTROPIC", "mag_filter": "POINT", "max_anisotropy": 4, "address_w": "CLAMP"}}}},
            "states": {{"CULLMODE": "NONE", "ZENABLE": false, "ALPHABLENDENABLE": true, "SRCBLEND": "SRCALPHA",
                        "FOGCOLOR": "0xff00ff00", "FOGSTART": 0.25, "FOGEND": {{"bits": "0x40000000"}}, "ALPHAREF": 65392}},
            "stages": [{{}}, {{"BUMPENVMAT00": 1.0, "BUMPENVMAT11": -0.5, "TEXTURETRANSFORMFLAGS": "PROJECTED"}}],
            "viewport": {{"x": 8, "y": 4, "width": 16, "height": 8, "min_z": 0.25, "max_z": 0.75}},
            "scissor": [0, 1, 20, 30],
            "clip_planes": {{"0": [0, 1, 0, 0], "5": [1, "inf", 0, -1]}}
        }}, {{
            "vertex_count": 3, {DECL}
        }}]
    }}"#
    );
    let s = draw_scene(&text).unwrap();
    let f = &s.frame;
    assert_eq!((f.width, f.height), (64, 32));
    assert_eq!(f.targets, [TargetFormat::A8R8G8B8, TargetFormat::R32F]);
    assert_eq!(f.depth_stencil, Some(DepthFormat::D16));
    assert_eq!(
        f.clear,
        Clear {
            color: [1.0, 0.0, 0.0, 128.0 / 255.0],
            z: 0.5,
            stencil: 7
        }
    );
    assert_eq!(s.draws.len(), 2);
    let d = &s.draws[0];
    assert_eq!(d.fixed_function, None);
    assert!(d.vertex.program().is_some());
    assert!(d.pixel.is_some());
    assert_eq!(d.primitive, Primitive::TriangleStrip);
    assert_eq!((d.vertex_count, d.instance_count), (4, 2));
    let st = |n: &str| d.states.get_by_name(n).unwrap();
    assert_eq!(st("CULLMODE"), 1);
    assert_eq!(st("ZENABLE"), 0);
    assert_eq!(st("ALPHABLENDENABLE"), 1);
    assert_eq!(st("SRCBLEND"), 5);
    assert_eq!(st("FOGCOLOR"), 0xff00_ff00);
    assert_eq!(st("FOGSTART"), 0.25f32.to_bits());
    assert_eq!(st("FOGEND"), 0x4000_0000);
    assert_eq!(st("ALPHAREF"), 0xff70);
    assert_eq!(st("DESTBLEND"), 1, "an unset state keeps its default");
    assert_eq!(d.stages[0], crate::StageStates::defaults(0));
    assert_eq!(d.stages[1].bump_env_mat, [1.0, 0.0, 0.0, -0.5]);
    assert!(d.stages[1].projected());
    assert_eq!(
        d.viewport,
        Some(Viewport {
            x: 8,
            y: 4,
            width: 16,
            height: 8,
            min_z: 0.25,
            max_z: 0.75
        })
    );
    assert_eq!(d.scissor, Some([0, 1, 20, 30]));
    assert_eq!(d.clip_planes[0], [0.0, 1.0, 0.0, 0.0]);
    assert_eq!(d.clip_planes[5], [1.0, f32::INFINITY, 0.0, -1.0]);
    assert_eq!(d.clip_planes[1], [0.0; 4]);

    // The second draw inherits nothing from the first.
    let d = &s.draws[1];
    assert_eq!(d.fixed_function, Some(vec![(Usage::PositionT, 0)]));
    assert!(d.pixel.is_none());
    assert_eq!(d.primitive, Primitive::TriangleList);
    assert_eq!(d.states, crate::RenderStates::new(true));
    assert_eq!(d.stages[1], crate::StageStates::defaults(1));
    assert_eq!((d.viewport, d.scissor), (None, None));
}

#[test]
fn frame_field_forms() {
    let frame = |fields: &str| {
        draw_scene(&format!(r#"{{{fields} "draws": []}}"#))
            .unwrap()
            .frame
    };
    assert_eq!(
        frame(r#""depth_stencil": "d24x8","#).depth_stencil,
        Some(DepthFormat::D24X8)
    );
    assert_eq!(
        frame(r#""depth_stencil": {"format": "D32F_LOCKABLE"},"#).depth_stencil,
        Some(DepthFormat::D32FLockable)
    );
    let c = frame(r#""clear": {"color": [0.5, 2, -1, "nan"]},"#).clear;
    assert_eq!(c.color[..3], [0.5, 2.0, -1.0]);
    assert!(c.color[3].is_nan());
    assert_eq!((c.z, c.stencil), (1.0, 0));
    let f = frame(r#""width": 1, "height": 2,"#);
    assert_eq!((f.width, f.height), (1, 2));
    // A draw's viewport defaults fill the rest of the target.
    let s = draw_scene(&format!(
        r#"{{"width": 10, "height": 8, "vertex_count": 3, {DECL}, "viewport": {{"x": 2, "y": 3}}}}"#
    ))
    .unwrap();
    assert_eq!(
        s.draws[0].viewport,
        Some(Viewport {
            x: 2,
            y: 3,
            width: 8,
            height: 5,
            min_z: 0.0,
            max_z: 1.0
        })
    );
}

#[test]
fn frame_errors_name_the_field_and_value() {
    assert_names(r#"{"width": "wide", "draws": []}"#, &["width", "wide"]);
    assert_names(
        r#"{"targets": [{"format": "A8R8G8B9"}], "draws": []}"#,
        &["targets[0]", "A8R8G8B9", "A8R8G8B8"],
    );
    assert_names(
        r#"{"targets": [{"format": "R32F", "blend": 1}], "draws": []}"#,
        &["targets", "blend"],
    );
    assert_names(
        r#"{"depth_stencil": {"format": "D15"}, "draws": []}"#,
        &["depth_stencil", "D15"],
    );
    assert_names(r#"{"depth_stencil": 16, "draws": []}"#, &["depth_stencil"]);
    assert_names(
        r#"{"clear": {"color": "red"}, "draws": []}"#,
        &["clear: color", "\"red\""],
    );
    assert_names(
        r#"{"clear": {"z": 2}, "draws": []}"#,
        &["clear: z", "[0, 1]"],
    );
    assert_names(
        r#"{"clear": {"stencil": 256}, "draws": []}"#,
        &["clear: stencil", "256"],
    );
    assert_names(
        r#"{"clear": {"colour": 1}, "draws": []}"#,
        &["clear", "colour"],
    );
    assert_names(r#"{"width": 0, "draws": []}"#, &["width and height"]);
    assert_names(r#"{"width": 16385, "draws": []}"#, &["too large", "16385"]);
    assert_names(r#"{"targets": [], "draws": []}"#, &["0 render targets"]);
    assert_names(
        r#"{"targets": [{"format": "R32F"}, {"format": "R32F"}, {"format": "R32F"}, {"format": "R32F"}, {"format": "R32F"}], "draws": []}"#,
        &["5 render targets"],
    );
    assert_names(
        r#"{"targets": [{}], "draws": []}"#,
        &["targets: missing field `format`"],
    );
    assert_names(r#"{"draws": {}}"#, &["draws: expected an array"]);
    assert_names(r#"{"width": 4}"#, &["no draw", "\"draws\": []"]);
    assert_names(r#"{"draws": [3]}"#, &["draws[0]: expected an object"]);
    assert_names(r#"[1, 2]"#, &["scene JSON"]);
}

#[test]
fn draw_errors_name_the_field_and_value() {
    let one = |extra: &str| format!(r#"{{"vertex_count": 3, {DECL}, {extra}}}"#);
    let listed = |extra: &str| {
        format!(
            r#"{{"draws": [{{"vertex_count": 3, {DECL}}}, {{"vertex_count": 3, {DECL}, {extra}}}]}}"#
        )
    };
    // Unknown fields, at the top and in a draw.
    assert_names(
        &one(r#""pixel_shadr": "x.asm""#),
        &["unknown field `pixel_shadr`"],
    );
    assert_names(
        &listed(r#""statez": {}"#),
        &["draws[1]: unknown field `statez`"],
    );
    // A draw's field beside "draws"; the scene's field in a draw.
    assert_names(
        &format!(r#"{{"draws": [], {PS}}}"#),
        &["\"pixel_shader_asm\" is a draw's field", "inherits nothing"],
    );
    assert_names(
        &listed(r#""width": 4"#),
        &["draws[1]: \"width\" is the scene's field"],
    );
    // States: unknown names and values, values of the wrong kind.
    assert_names(
        &one(r#""states": {"CULLMOD": "NONE"}"#),
        &["states", "CULLMOD"],
    );
    assert_names(
        &listed(r#""states": {"CULLMODE": "SIDEWAYS"}"#),
        &["draws[1]: states: CULLMODE", "SIDEWAYS"],
    );
    assert_names(
        &one(r#""states": {"FOGSTART": [1]}"#),
        &["states: FOGSTART", "[1]"],
    );
    assert_names(
        &one(r#""states": {"FOGEND": {"bits": "0xnope"}}"#),
        &["states: FOGEND", "bits", "0xnope"],
    );
    assert_names(
        &one(r#""states": {"FOGEND": {"bits": "0x1", "more": 1}}"#),
        &["states: FOGEND", "more"],
    );
    assert_names(&one(r#""states": {"ZENABLE": 3}"#), &["ZENABLE", "3"]);
    // Stages.
    assert_names(
        &one(r#""stages": [{"BUMPENVMAT22": 1}]"#),
        &["stages[0]", "BUMPENVMAT22"],
    );
    assert_names(
        &one(r#""stages": [{}, {"BUMPENVMAT00": "x"}]"#),
        &["stages[1]", "BUMPENVMAT00"],
    );
    assert_names(
        &one(r#""stages": [{}, {}, {}, {}, {}, {}, {}, {}, {}]"#),
        &["stages: 9 stages"],
    );
    // Primitive, viewport, scissor, clip planes.
    assert_names(
        &one(r#""primitive": "QUADLIST""#),
        &["primitive", "QUADLIST"],
    );
    assert_names(
        &one(r#""viewport": {"x": 600, "width": 100}"#),
        &["viewport", "outside the 640x480 targets"],
    );
    assert_names(
        &one(r#""viewport": {"max_z": 1.5}"#),
        &["viewport: max_z", "1.5"],
    );
    assert_names(
        &one(r#""viewport": {"w": 1}"#),
        &["viewport", "unknown field `w`"],
    );
    assert_names(&one(r#""viewport": {"width": 0}"#), &["viewport", "0x480"]);
    assert_names(&one(r#""scissor": [0, 0, 1]"#), &["scissor", "4 numbers"]);
    assert_names(
        &one(r#""scissor": [0, 0, 1, 1e10]"#),
        &["scissor", "32-bit"],
    );
    assert_names(
        &one(r#""clip_planes": {"6": [0, 0, 0, 0]}"#),
        &["clip_planes", "\"6\""],
    );
    assert_names(
        &one(r#""clip_planes": {"0": [0, 0]}"#),
        &["clip_planes: 0", "4 numbers"],
    );
    // Counts: vertex_count and instance_count are the device's to bound.
    assert_names(
        &format!(r#"{{{VS}, "vertex_count": 18446744073709551615, {DECL}}}"#),
        &["vertex_count", "too large"],
    );
    assert_names(
        &format!(r#"{{{VS}, "vertex_count": 4294967296, "instance_count": 4294967296, {DECL}}}"#),
        &["vertex_count"],
    );
    assert_names(r#"{"vertex_count": -1}"#, &["vertex_count", "-1"]);
    // Without a vertex shader the declaration needs a position.
    assert_names(
        r#"{"vertex_count": 3, "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "COLOR"}],
            "streams": [{"stride": 16, "f32": [0, 0, 0, 0]}]}"#,
        &["declaration", "POSITION or POSITIONT"],
    );
}

#[test]
fn pixel_shader_errors() {
    let with = |ps: &str, extra: &str| {
        format!(r#"{{"vertex_count": 3, {DECL}, "pixel_shader_asm": "{ps}"{extra}}}"#)
    };
    // A vertex shader where the pixel shader goes.
    assert_names(
        &with("vs_3_0\\ndcl_position o0\\nmov o0, c0\\n", ""),
        &["pixel_shader_asm: vs_3_0 is not a pixel shader"],
    );
    // The validator's diagnostics, with their rule ids.
    assert_names(
        &with("ps_2_0\\ntexld r0, t0, s0\\nmov oC0, r0\\n", ""),
        &["does not validate", "pixel_shader_asm:2:", "error[V"],
    );
    // Assembly errors with line and column.
    assert_names(
        &with("ps_2_0\\nmvo oC0, c0\\n", ""),
        &["pixel_shader_asm:2:1"],
    );
    // Both forms; a missing file.
    assert_names(
        &with("ps_2_0\\nmov oC0, c0\\n", r#", "pixel_shader": "ps.asm""#),
        &["exactly one of \"pixel_shader\" and \"pixel_shader_asm\""],
    );
    assert_names(
        &format!(r#"{{"vertex_count": 3, {DECL}, "pixel_shader": "no-such-ps.asm"}}"#),
        &["no-such-ps.asm"],
    );
    // Pixel samplers are s0..s15; their states are checked by name.
    let ok = "ps_2_0\\nmov oC0, c0\\n";
    assert_names(
        &with(
            ok,
            r#", "pixel_textures": {"s16": {"format": "R32F", "levels": [[1]]}}"#,
        ),
        &["pixel_textures", "\"s16\"", "pixel samplers are s0..s15"],
    );
    assert_names(
        &with(ok, r#", "pixel_samplers": {"s3": {"min_filtr": "POINT"}}"#),
        &["pixel_samplers.s3", "min_filtr"],
    );
    assert_names(
        &with(ok, r#", "pixel_constants": {"c0": [1, 2, 3]}"#),
        &["pixel_constants: c0", "4 numbers"],
    );
    assert_names(
        &with(ok, r#", "pixel_constants": {"b0": 1}"#),
        &["pixel_constants: b0 must be true or false"],
    );
    // Every pixel sampler, and the anisotropic filter vertex samplers lack.
    let s = draw_scene(&with(
        ok,
        r#", "pixel_samplers": {"s15": {"min_filter": "ANISOTROPIC", "max_anisotropy": 16}},
            "pixel_textures": {"s0": {"format": "A16B16G16R16F", "levels": [[0.5, 1, 2, 65504]]}}"#,
    ))
    .unwrap();
    assert!(s.draws[0].pixel.is_some());
    // Pixel state without a pixel shader is a warning.
    let s = draw_scene(&format!(
        r#"{{"vertex_count": 3, {DECL}, "pixel_constants": {{"c0": [1, 1, 1, 1]}}}}"#
    ))
    .unwrap();
    assert_eq!(
        s.warnings,
        ["pixel_constants: the draw has no pixel shader to read them"]
    );
}

#[test]
fn a_mesh_feeds_a_draw_without_a_vertex_shader() {
    let dir = std::env::temp_dir().join(format!("dxso-draw-scene-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("tri.obj"), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    let s = DrawScene::from_json(r#"{"mesh": {"file": "tri.obj"}}"#, &dir).unwrap();
    assert_eq!(s.draws[0].vertex_count, 3);
    assert_eq!(s.draws[0].fixed_function, Some(vec![(Usage::Position, 0)]));
    let out = s.draws[0].vertex.draw(3, 1).unwrap();
    assert_eq!(out.vertex(1), &[1.0, 0.0, 0.0, 1.0]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Examples dxso refuses, with the fragment of the error each gives: a tripwire, should the
/// rule behind it change.
fn known_defect(name: &str) -> Option<&'static str> {
    match name {
        // `add r0, c0, c1` reads two c# registers, which dxso's validator refuses for ps_2_0
        // (V007: registers::read_ports gives ps_2_0's c# one port); Wine's d3d9, which drew
        // the example, does not check read ports.
        "vs20_ps20.scene.json" => Some(
            "vs20_ps20.ps.vso: word 7: error[V007]: 2 different c# registers in one \
             instruction; ps_2_0 allows 1",
        ),
        _ => None,
    }
}

#[test]
fn the_draw_examples_load() {
    let Some(dir) = dxso_testdata::shared("draw-examples") else {
        return;
    };
    let mut loaded = Vec::new();
    let mut names = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".scene.json") {
            continue;
        }
        names.push(name.clone());
        let result = DrawScene::load(&p);
        if let Some(fragment) = known_defect(&name) {
            let e = result.err();
            assert!(matches!(e, Some(DrawError::Scene(_))), "{name}: {e:?}");
            let e = e.map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(fragment), "{name}: wanted {fragment:?} in: {e}");
            continue;
        }
        let s = result.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(s.warnings.is_empty(), "{name}: {:?}", s.warnings);
        loaded.push((name, s));
    }
    names.sort();
    assert_eq!(
        names,
        [
            "clear.scene.json",
            "texld.scene.json",
            "vs20_ps20.scene.json",
            "xyzrhw_diffuse.scene.json"
        ]
    );
    loaded.sort_by(|a, b| a.0.cmp(&b.0));
    let (name, clear) = &loaded[0];
    assert_eq!(name, "clear.scene.json");
    assert!(clear.draws.is_empty());
    assert_eq!(clear.frame.clear.color, crate::d3dcolor(0xff33_6699));
    assert_eq!((clear.frame.width, clear.frame.height), (640, 480));
}

/// Every field of a full scene, each replaced by values of every kind (and numbers at the
/// edges): the reader answers each with a scene or an error, never a panic.
#[test]
fn hostile_values_in_every_field_are_errors_not_panics() {
    let base = format!(
        r#"{{"width": 8, "height": 8, "targets": [{{"format": "A8R8G8B8"}}],
        "depth_stencil": {{"format": "D24S8"}}, "clear": {{"color": [0, 0, 0, 1], "z": 1, "stencil": 0}},
        "draws": [{{{VS}, {PS}, "vertex_count": 3, "instance_count": 1, "primitive": "TRIANGLELIST",
            "declaration": [{{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION", "usage_index": 0}}],
            "streams": [{{"stride": 16, "f32": [0, 0, 0, 1], "offset": 0}}], "indices": [0, 0, 0],
            "constants": {{"c0": [1, 1, 1, 1]}}, "pixel_constants": {{"c0": [1, 1, 1, 1], "i0": [1, 1, 1, 1]}},
            "pixel_textures": {{"s5": {{"format": "A8R8G8B8", "width": 1, "height": 1, "levels": [[1, 2, 3, 4]]}}}},
            "pixel_samplers": {{"s5": {{"min_filter": "POINT", "max_anisotropy": 1, "border_color": "0x0"}}}},
            "states": {{"CULLMODE": "NONE", "FOGSTART": 0.5, "FOGEND": {{"bits": "0x3f800000"}}}},
            "stages": [{{"BUMPENVMAT00": 1}}],
            "viewport": {{"x": 0, "y": 0, "width": 8, "height": 8, "min_z": 0, "max_z": 1}},
            "scissor": [0, 0, 8, 8], "clip_planes": {{"0": [0, 0, 0, 1]}}}}]}}"#
    );
    let root: serde_json::Value = serde_json::from_str(&base).unwrap();
    draw_scene(&base).unwrap();
    let hostile: Vec<serde_json::Value> = serde_json::from_str(
        r#"[null, true, -1, 0, 1.5, 4294967296, 18446744073709551615, -9223372036854775808,
            1e300, "", "x", "0x", "nan", [], [1], [1, 2, 3, 4, 5], {}, {"bits": 1}, {"format": 1}]"#,
    )
    .unwrap();
    // Every path to a value, down to the items of arrays and objects.
    fn paths(v: &serde_json::Value, at: Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(at.clone());
        match v {
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    let mut p = at.clone();
                    p.push(k.clone());
                    paths(x, p, out);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let mut p = at.clone();
                    p.push(i.to_string());
                    paths(x, p, out);
                }
            }
            _ => {}
        }
    }
    let mut all = Vec::new();
    paths(&root, Vec::new(), &mut all);
    assert!(all.len() > 100, "{}", all.len());
    for path in &all {
        for h in &hostile {
            let mut v = root.clone();
            let mut slot = &mut v;
            for step in path {
                slot = match slot {
                    serde_json::Value::Object(o) => o.get_mut(step).unwrap(),
                    serde_json::Value::Array(a) => &mut a[step.parse::<usize>().unwrap()],
                    _ => unreachable!(),
                };
            }
            *slot = h.clone();
            let _ = draw_scene(&v.to_string());
        }
    }
}

#[test]
fn a_png_as_an_inline_texture_is_the_texture_its_file_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/heightmap");
    // height.png: 4x4 grey, 8-bit, rows 0 17 34 51 / 68 85 102 119 / ...
    let png = std::fs::read(dir.join("height.png")).unwrap();
    let t = textures::png_to_json(&png, 16).unwrap();
    assert_eq!(
        textures::png_to_json(&png, 15).unwrap_err().to_string(),
        "PNG: 4x4 is more than the 15 texels allowed here"
    );
    assert_eq!(
        (&t["type"], &t["format"], &t["width"], &t["height"]),
        (
            &serde_json::json!("2d"),
            &serde_json::json!("A8B8G8R8"),
            &serde_json::json!(4),
            &serde_json::json!(4)
        )
    );
    let level = t["levels"][0].as_array().unwrap();
    assert_eq!(level.len(), 64);
    // Grey expanded to R, G, B and an opaque A, in memory order (A8B8G8R8: R first).
    assert_eq!(
        level[4..12],
        serde_json::json!([17, 17, 17, 255, 34, 34, 34, 255])
            .as_array()
            .unwrap()[..]
    );
    assert_eq!(level[63], 255);
    // The scene with the texture inline draws what the scene naming the file draws.
    let text = std::fs::read_to_string(dir.join("scene-png.json")).unwrap();
    let mut inline: serde_json::Value = serde_json::from_str(&text).unwrap();
    inline["textures"]["s0"] = t;
    let by_file = Scene::from_json(&text, &dir).unwrap();
    let by_value = Scene::from_json(&inline.to_string(), &dir).unwrap();
    let a = by_file.device.draw(16, 1).unwrap();
    let b = by_value.device.draw(16, 1).unwrap();
    for v in 0..16 {
        assert_eq!(a.vertex(v), b.vertex(v), "vertex {v}");
    }
    // Not a PNG: an error, not a panic.
    assert!(
        textures::png_to_json(b"not a png", 16)
            .unwrap_err()
            .to_string()
            .starts_with("PNG")
    );
}
