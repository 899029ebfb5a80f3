//! `dxso draw` (`../shared/CLI.md`, "dxso draw"): outputs and exit codes. The CPU pipeline is
//! not on this branch yet, so the pictures here are frames without draws: the clear.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A directory of this test's own.
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dxso-draw-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `dxso ARGS`, checked to exit with `code` (stderr shown when not).
fn expect(args: &[&str], code: i32) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_dxso"))
        .args(args)
        .output()
        .expect("dxso runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "dxso {}: {err}",
        args.join(" ")
    );
    assert!(!err.contains("panicked"), "{err}");
    out
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// A 4x3 frame, two targets, cleared to 0x80336699 (z 1, stencil 7), no draws.
const CLEAR: &str = r#"{"width": 4, "height": 3,
    "targets": [{"format": "A8R8G8B8"}, {"format": "R32F"}],
    "clear": {"color": "0x80336699", "z": 1.0, "stencil": 7},
    "draws": []}"#;

fn read_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(
        (info.color_type, info.bit_depth),
        (png::ColorType::Rgba, png::BitDepth::Eight)
    );
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn a_frame_without_draws_is_its_clear_colour() {
    let d = dir("png");
    let scene = write(&d, "clear.json", CLEAR);
    // Without -o or --pixel: SCENE.png beside the scene.
    expect(&["draw", &scene], 0);
    let (w, h, rgba) = read_png(&d.join("clear.png"));
    assert_eq!((w, h), (4, 3));
    assert!(
        rgba.chunks(4).all(|p| p == [0x33, 0x66, 0x99, 0x80]),
        "{rgba:?}"
    );
    // Target 1 (R32F) stores red only and reads 1.0 for the rest.
    let out = d.join("t1.png");
    expect(
        &["draw", &scene, "-o", out.to_str().unwrap(), "--target", "1"],
        0,
    );
    let (_, _, rgba) = read_png(&out);
    assert!(
        rgba.chunks(4).all(|p| p == [0x33, 255, 255, 255]),
        "{rgba:?}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn pixels_print_the_clear_exactly() {
    let d = dir("pixels");
    let scene = write(&d, "clear.json", CLEAR);
    let out = expect(
        &[
            "draw", &scene, "--pixel", "0,0", "--pixel", "3,2", "--format", "json",
        ],
        0,
    );
    // --pixel alone writes no picture.
    assert!(!d.join("clear.png").exists());
    let text = String::from_utf8(out.stdout).unwrap();
    let c = |x: u32| x as f32 / 255.0;
    let pixel = |x: u32, y: u32| {
        format!(
            r#"{{"x": {x}, "y": {y}, "targets": [[{:?}, {:?}, {:?}, {:?}], [{:?}, 1.0, 1.0, 1.0]], "z": 1.0, "stencil": 7}}"#,
            c(0x33),
            c(0x66),
            c(0x99),
            c(0x80),
            c(0x33)
        )
    };
    assert_eq!(
        text,
        format!("{{\"pixels\": [{}, {}]}}\n", pixel(0, 0), pixel(3, 2))
    );
    // The numbers read back to the same f32.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let alpha = v["pixels"][1]["targets"][0][3].as_f64().unwrap() as f32;
    assert_eq!(alpha, 128.0 / 255.0);

    // A float depth buffer keeps z as given and has no stencil; no depth buffer, neither.
    let scene = write(
        &d,
        "d32.json",
        r#"{"width": 2, "height": 2, "depth_stencil": {"format": "D32F_LOCKABLE"},
            "clear": {"color": [0.25, 2, -1, 0.5], "z": 0.3}, "draws": []}"#,
    );
    let out = expect(&["draw", &scene, "--pixel", "1,1"], 0);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "{{\"pixels\": [{{\"x\": 1, \"y\": 1, \"targets\": [[{:?}, 1.0, 0.0, {:?}]], \"z\": 0.3, \"stencil\": null}}]}}\n",
            c(64),
            c(128)
        )
    );
    let scene = write(
        &d,
        "none.json",
        r#"{"width": 1, "height": 1, "depth_stencil": null, "targets": [{"format": "A32B32G32R32F"}],
            "clear": {"color": [0.1, 2, -1, "inf"]}, "draws": []}"#,
    );
    let out = expect(&["draw", &scene, "--pixel", "0,0", "--format", "json"], 0);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"pixels\": [{\"x\": 0, \"y\": 0, \"targets\": [[0.1, 2.0, -1.0, \"inf\"]], \"z\": null, \"stencil\": null}]}\n"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn dds_keeps_the_targets_own_format() {
    let d = dir("dds");
    let scene = write(&d, "clear.json", CLEAR);
    let read = |target: &str| {
        let out = d.join(format!("t{target}.dds"));
        expect(
            &[
                "draw",
                &scene,
                "-o",
                out.to_str().unwrap(),
                "--target",
                target,
            ],
            0,
        );
        ddsfile::Dds::read(std::fs::File::open(&out).unwrap()).unwrap()
    };
    let dds = read("0");
    assert_eq!(dds.get_d3d_format(), Some(ddsfile::D3DFormat::A8R8G8B8));
    assert_eq!((dds.get_width(), dds.get_height()), (4, 3));
    assert_eq!(dds.data.len(), 4 * 3 * 4);
    assert!(dds.data.chunks(4).all(|p| p == [0x99, 0x66, 0x33, 0x80]));
    let dds = read("1");
    assert_eq!(dds.get_d3d_format(), Some(ddsfile::D3DFormat::R32F));
    assert!(
        dds.data
            .chunks(4)
            .all(|p| p == (51.0f32 / 255.0).to_le_bytes())
    );
    // Packed and half formats, value by value.
    let scene = write(
        &d,
        "packed.json",
        r#"{"width": 1, "height": 1, "targets": [{"format": "A2R10G10B10"}, {"format": "R5G6B5"},
            {"format": "A16B16G16R16F"}, {"format": "A16B16G16R16"}],
            "clear": {"color": [1, 0.5, 0, 0.25]}, "draws": []}"#,
    );
    let read = |target: &str| {
        let out = d.join(format!("p{target}.dds"));
        expect(
            &[
                "draw",
                &scene,
                "-o",
                out.to_str().unwrap(),
                "--target",
                target,
            ],
            0,
        );
        ddsfile::Dds::read(std::fs::File::open(&out).unwrap()).unwrap()
    };
    // A2R10G10B10: a 1 (of 3; 0.25 rounds to 1), r 1023, g 512, b 0.
    let word = 1u32 << 30 | 1023 << 20 | 512 << 10;
    assert_eq!(read("0").data, word.to_le_bytes());
    // R5G6B5: r 31, g 32, b 0.
    assert_eq!(read("1").data, (31u16 << 11 | 32 << 5).to_le_bytes());
    // Halves: 1.0, 0.5, 0.0, 0.25.
    assert_eq!(
        read("2").data,
        [0x3c00u16, 0x3800, 0, 0x3400]
            .iter()
            .flat_map(|h| h.to_le_bytes())
            .collect::<Vec<u8>>()
    );
    assert_eq!(
        read("3").data,
        [65535u16, 32768, 0, 16384]
            .iter()
            .flat_map(|h| h.to_le_bytes())
            .collect::<Vec<u8>>()
    );

    // A float target written as DDS reads back as a texture with the same values.
    let scene = write(
        &d,
        "float.json",
        r#"{"width": 2, "height": 2, "targets": [{"format": "A32B32G32R32F"}],
            "clear": {"color": [0.1, 2, -1, "inf"]}, "draws": []}"#,
    );
    let out = d.join("f.dds");
    expect(&["draw", &scene, "-o", out.to_str().unwrap()], 0);
    let run = write(
        &d,
        "run.json",
        r#"{"shader_asm": "vs_3_0\ndcl_position v0\ndcl_2d s0\ndcl_position o0\ndcl_texcoord o1\nmov o0, v0\ntexldl o1, v0, s0\n",
            "vertex_count": 1,
            "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION"}],
            "streams": [{"stride": 16, "f32": [0.5, 0.5, 0, 0]}],
            "textures": {"s0": {"file": "f.dds"}}}"#,
    );
    let out = expect(&["run", &run], 0);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(r#""o1": [0.1, 2.0, -1.0, "inf"]"#), "{text}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// A one-triangle draw with `extra` fields.
fn triangle(extra: &str) -> String {
    format!(
        r#"{{"width": 8, "height": 8, "vertex_count": 3,
            "declaration": [{{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITIONT", "usage_index": 0}}],
            "streams": [{{"stride": 16, "f32": [0, 0, 0, 1, 8, 0, 0, 1, 0, 8, 0, 1]}}]{extra}}}"#
    )
}

#[test]
fn bad_scenes_exit_1_naming_the_field() {
    let d = dir("bad");
    for (name, text, fragments) in [
        (
            "state.json",
            triangle(r#", "states": {"CULLMOD": "NONE"}"#),
            &["states", "CULLMOD"][..],
        ),
        (
            "value.json",
            triangle(r#", "states": {"CULLMODE": "SIDEWAYS"}"#),
            &["CULLMODE", "SIDEWAYS"][..],
        ),
        (
            "field.json",
            triangle(r#", "pixel_shadr": "ps.asm""#),
            &["unknown field `pixel_shadr`"][..],
        ),
        (
            "format.json",
            r#"{"targets": [{"format": "A8R8G8B9"}], "draws": []}"#.to_string(),
            &["targets[0]", "A8R8G8B9"][..],
        ),
        (
            "depth.json",
            r#"{"depth_stencil": {"format": "D15"}, "draws": []}"#.to_string(),
            &["depth_stencil", "D15"][..],
        ),
        (
            "ps.json",
            triangle(r#", "pixel_shader_asm": "ps_2_0\ntexld r0, t0, s0\nmov oC0, r0\n""#),
            &["does not validate", "error[V"][..],
        ),
        (
            "json.json",
            "{\"draws\": [".to_string(),
            &["scene JSON"][..],
        ),
    ] {
        let scene = write(&d, name, &text);
        let out = expect(&["draw", &scene], 1);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("{scene}: error: ")), "{err}");
        for f in fragments {
            assert!(err.contains(f), "{name}: wanted {f:?} in: {err}");
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn usage_errors_exit_2() {
    let d = dir("usage");
    let scene = write(&d, "clear.json", CLEAR);
    for (args, fragment) in [
        (
            &["--gpu", "--adapter", "no adapter is called this"][..],
            "mesa-vulkan-drivers",
        ),
        (&["--gpu", "--compare"][..], "cannot be used with"),
        (
            &["--gpu", "--trace-pixel", "1,1"][..],
            "--trace-pixel traces the CPU draw",
        ),
        (
            &["--compare", "--pixel", "1,1"][..],
            "--compare prints the differences",
        ),
        (
            &["--compare", "-o", "diff.dds"][..],
            "--compare writes its differences as OUT.png",
        ),
        (
            &["--trace-pixel", "9,1"][..],
            "--pixel 9,1 is outside the 4x3 frame",
        ),
        (
            &["--target", "2"][..],
            "--target 2: the scene has 2 render targets",
        ),
        (
            &["--pixel", "4,0"][..],
            "--pixel 4,0 is outside the 4x3 frame",
        ),
        (&["--pixel", "4"][..], "expected X,Y"),
        (&["--format", "json"][..], "--format json prints the pixels"),
        (
            &["--pixel", "0,0", "--format", "png"][..],
            "--pixel prints JSON",
        ),
        (&["-o", "out.bmp"][..], "writes OUT.png or OUT.dds"),
        (&["--adapter", "x"][..], "--gpu"),
    ] {
        let mut all = vec!["draw", scene.as_str()];
        all.extend(args);
        let out = expect(&all, 2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(fragment),
            "{args:?}: wanted {fragment:?} in: {err}"
        );
    }
    let missing = d.join("missing.json");
    let out = expect(&["draw", missing.to_str().unwrap()], 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
    std::fs::remove_dir_all(&d).unwrap();
}

/// The repository's example draws (examples/draw): each draws the picture committed beside
/// it, exactly.
#[test]
fn examples_draw_their_committed_pictures() {
    let root = dxso_testdata::repo_root().join("examples/draw");
    let mut n = 0;
    for e in std::fs::read_dir(&root).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".scene.json") else {
            continue;
        };
        let d = dir(&format!("example-{stem}"));
        let out = d.join("out.png");
        expect(
            &["draw", p.to_str().unwrap(), "-o", out.to_str().unwrap()],
            0,
        );
        let (w, h, got) = read_png(&out);
        let (ew, eh, want) = read_png(&root.join(format!("{stem}.scene.png")));
        assert_eq!((w, h), (ew, eh), "{stem}");
        assert!(
            got == want,
            "{stem}: the drawing differs from {stem}.scene.png"
        );
        std::fs::remove_dir_all(&d).unwrap();
        n += 1;
    }
    assert_eq!(n, 6);
}

#[test]
fn trace_pixel_shows_inputs_the_shader_and_the_merger() {
    let scene = dxso_testdata::repo_root().join("examples/draw/blending.scene.json");
    let out = expect(
        &["draw", scene.to_str().unwrap(), "--trace-pixel", "60,64"],
        0,
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // The background quad, then the translucent triangle blended over it.
    assert!(
        text.starts_with("pixel (60, 64): 2 draws of 5 shade it"),
        "{text}"
    );
    assert!(
        text.contains("draw 1:\n  inputs:\n    COLOR0     (1, 0.2509804, 0.1254902, 0.5019608)"),
        "{text}"
    );
    assert!(text.contains("no pixel shader"), "{text}");
    let shaded = dxso_testdata::repo_root().join("examples/draw/terrain.scene.json");
    let out = expect(
        &["draw", shaded.to_str().unwrap(), "--trace-pixel", "128,70"],
        0,
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for f in [
        "pixel shader: 11 instructions executed",
        "dsx r0.xyz, v0",
        "depth test LESSEQUAL",
        "written",
    ] {
        assert!(text.contains(f), "{f:?} in {text}");
    }
}
