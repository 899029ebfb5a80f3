//! The command-line contract of `../shared/CLI.md`: outputs and exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn dxso(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dxso"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dxso runs");
    if let Some(data) = stdin {
        // dxso may finish (an error before it reads its input) while the input is still
        // being written: a closed pipe is then expected, not a failure.
        match child.stdin.take().expect("stdin").write_all(data) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("write stdin: {e}"),
            _ => {}
        }
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("dxso finishes")
}

/// `dxso` run with `args` (and `stdin`), checked to exit with `code` (its stderr shown when
/// not).
fn expect(args: &[&str], stdin: Option<&[u8]>, code: i32) -> Output {
    let out = dxso(args, stdin);
    assert_eq!(
        out.status.code(),
        Some(code),
        "dxso {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn temp(name: &str, data: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("dxso-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, data).unwrap();
    p
}

#[test]
fn asm_hex_prints_the_tokens() {
    let out = expect(
        &["asm", "-", "--hex"],
        Some(b"vs_2_0\nmov r0, -c0[a0.w+5].x\n"),
        0,
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "fffe0200\n03000001\n800f0000\na1002005\nb0ff0000\n0000ffff\n"
    );
}

#[test]
fn asm_writes_binary_and_dis_reads_it_back() {
    let src = temp(
        "t.asm",
        b"vs.3.0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n",
    );
    let bin = src.with_extension("vso");
    expect(
        &["asm", src.to_str().unwrap(), "-o", bin.to_str().unwrap()],
        None,
        0,
    );
    let bytes = std::fs::read(&bin).unwrap();
    assert_eq!(&bytes[..4], &[0x00, 0x03, 0xFE, 0xFF]);
    assert_eq!(bytes.len(), 4 * 11);
    let out = expect(&["dis", bin.to_str().unwrap()], None, 0);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "    vs_3_0\n    dcl_position v0\n    dcl_position o0\n    mov o0, v0\n"
    );
}

#[test]
fn dis_reads_hex_tokens() {
    let out = expect(
        &["dis", "-"],
        Some(b"fffe0300\n0200001f\n80000000\n900f0000\n0000ffff\n"),
        0,
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "    vs_3_0\n    dcl_position v0\n"
    );
}

#[test]
fn dis_prints_either_style_and_both_reassemble() {
    let src = b"ps_3_0\ndef c0, 0.5, 1, 0, 0\ndcl_texcoord v0\ndcl_texcoord1 v1.xy\n\
                mad r0, v0, c0.x, v1.y\nmov oC0, r0\n";
    let hex = String::from_utf8(expect(&["asm", "-", "--hex"], Some(src), 0).stdout).unwrap();
    let microsoft = "    ps_3_0\n    def c0, 0.5, 1, 0, 0\n    dcl_texcoord v0\n    \
                     dcl_texcoord1 v1.xy\n    mad r0, v0, c0.x, v1.y\n    mov oC0, r0\n";
    let unity = "    ps_3_0\n    def c0, 0.50000000, 1.00000000, 0, 0\n    dcl_texcoord0 v0.xyzw\n    \
                 dcl_texcoord1 v1.xy\n    mad r0, v0, c0.x, v1.y\n    mov oC0, r0\n";
    for (args, want) in [
        (&["dis", "-"][..], microsoft),
        (&["dis", "-", "--style", "microsoft"][..], microsoft),
        (&["dis", "-", "--style", "unity"][..], unity),
    ] {
        let out = expect(args, Some(hex.as_bytes()), 0);
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text, want, "{args:?}");
        let again = expect(&["asm", "-", "--hex"], Some(text.as_bytes()), 0);
        assert_eq!(String::from_utf8(again.stdout).unwrap(), hex, "{args:?}");
    }
    let out = expect(&["dis", "-", "--style", "fancy"], Some(hex.as_bytes()), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unity"));
}

#[test]
fn asm_errors_point_at_the_line_and_exit_1() {
    let out = expect(
        &["asm", "-"],
        Some(b"vs_3_0\nmov r0, v17\nadd_pp r0, r0, r1\n"),
        1,
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("<stdin>:2:9: error: register v17 does not exist in vs_3_0\n    mov r0, v17\n            ^\n"),
        "{err}"
    );
    assert!(
        err.contains("<stdin>:3:1: error:"),
        "every error is reported: {err}"
    );
}

/// Piped stderr is plain text, with or without `NO_COLOR`: no escape sequence, the same
/// bytes either way (a terminal's colours are `dxso`'s unit test's).
#[test]
fn piped_diagnostics_are_plain() {
    let input: &[u8] = b"vs_3_0\nmov r0, v17\n";
    let piped = expect(&["asm", "-"], Some(input), 1);
    let mut no_color = Command::new(env!("CARGO_BIN_EXE_dxso"));
    no_color
        .args(["asm", "-"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = no_color.spawn().expect("dxso runs");
    child.stdin.take().expect("stdin").write_all(input).unwrap();
    let no_color = child.wait_with_output().expect("dxso finishes");
    let want: &[u8] = b"<stdin>:2:9: error: register v17 does not exist in vs_3_0\n    mov r0, v17\n            ^\n";
    assert_eq!(
        String::from_utf8_lossy(&piped.stderr),
        String::from_utf8_lossy(want)
    );
    assert_eq!(no_color.stderr, want);
    assert_eq!(no_color.status.code(), Some(1));
}

#[test]
fn bad_bytecode_is_an_input_error() {
    let out = expect(
        &["dis", "-"],
        Some(&[0x00, 0x03, 0xFE, 0xFF, 0x01, 0x00, 0x00, 0x02]),
        1,
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("word"), "{err}");
}

#[test]
fn usage_and_io_errors_exit_2() {
    assert_eq!(dxso(&["asm"], None).status.code(), Some(2));
    assert_eq!(dxso(&["frobnicate"], None).status.code(), Some(2));
    let missing = dxso(&["dis", "/nonexistent/file.vso"], None);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr),
        "dxso: error: reading /nonexistent/file.vso: No such file or directory (os error 2)\n"
    );
}

#[test]
fn check_reports_rule_ids_with_positions_and_a_summary() {
    let bad = temp(
        "bad.asm",
        b"vs_2_0\ndcl_position v0\ndcl_normal v1\nadd r0, v0, v1\nmov oPos, r0\n",
    );
    let good = temp(
        "good.asm",
        b"vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n",
    );
    let out = expect(
        &["check", bad.to_str().unwrap(), good.to_str().unwrap()],
        None,
        1,
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("bad.asm:4:1: error[V007]: 2 different v# registers"),
        "{err}"
    );
    assert!(err.contains("    add r0, v0, v1\n    ^\n"), "{err}");
    let summary = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        summary,
        "checked 2 shaders: 1 valid, 1 invalid (1 error, 0 warnings)\n"
    );
    expect(&["check", good.to_str().unwrap()], None, 0);
}

#[test]
fn check_reads_bytecode_and_prints_json() {
    let out = dxso(
        &["asm", "-", "--hex"],
        Some(b"vs_2_0\ndcl_position v0\nmov oFog.xy, v0\n"),
    );
    let out = expect(&["check", "-", "--format", "json"], Some(&out.stdout), 1);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["files"][0]["diagnostics"];
    assert_eq!(d[0]["rule"], "V009");
    assert_eq!(d[0]["word"], 4);
    assert_eq!(v["summary"]["invalid"], 1);
}

#[test]
fn check_takes_caps_presets_and_files() {
    // 21 temps: beyond vs_2_x's minimum (16), within 24 and the maximum (32).
    let src: &[u8] = b"vs_2_x\ndcl_position v0\nmov r20, v0\nmov oPos, r20\n";
    let caps_file = |name: &str, temps: u32| {
        let json = format!(
            r#"{{"VS20Caps": {{"NumTemps": {temps}, "DynamicFlowControlDepth": 0, "StaticFlowControlDepth": 1}}}}"#
        );
        temp(name, json.as_bytes()).to_str().unwrap().to_string()
    };
    let cases = [
        (None, 0),
        (Some("min".to_string()), 1),
        (Some(caps_file("caps24.json", 24)), 0),
        (Some(caps_file("caps16.json", 16)), 1),
        // NumTemps above 32 is not a valid D3DCAPS9 value: a usage error.
        (Some(caps_file("caps99.json", 99)), 2),
    ];
    for (caps, code) in cases {
        let mut args = vec!["check", "-"];
        if let Some(c) = &caps {
            args.extend(["--caps", c.as_str()]);
        }
        assert_eq!(dxso(&args, Some(src)).status.code(), Some(code), "{caps:?}");
    }
}

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn run_prints_hand_computed_outputs() {
    let out = expect(&["run", &data("scale.json")], None, 0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["outputs"]["o0"], "POSITION0");
    assert_eq!(v["outputs"]["o1"], "COLOR0");
    // Index buffer [2, 0, 1]; c0 = (2, 0.5, -1, 1); colours are A8R8G8B8 bytes B, G, R, A.
    let want = serde_json::json!([
        {"o0": [0.0, 0.0, -4.0, 1.0], "o1": [0.0, 0.0, 0.0, 127.0f32 / 255.0]},
        {"o0": [2.0, 1.0, -3.0, 1.0], "o1": [0.0, 1.0, 0.0, 1.0]},
        {"o0": [-2.0, 0.0, 0.0, 1.0], "o1": [1.0, 0.0, 0.0, 128.0f32 / 255.0]},
    ]);
    let got = &v["vertices"];
    for (g, w) in got.as_array().unwrap().iter().zip(want.as_array().unwrap()) {
        for reg in ["o0", "o1"] {
            let g: Vec<f32> = g[reg]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            let w: Vec<f32> = w[reg]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            assert_eq!(g, w);
        }
    }
}

#[test]
fn run_csv_bin_instancing_and_non_finite_values() {
    let out = expect(
        &["run", &data("instanced.json"), "--format", "csv"],
        None,
        0,
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        // oD0 is there although the shader does not write it (C11).
        "oPos.x,oPos.y,oPos.z,oPos.w,oD0.x,oD0.y,oD0.z,oD0.w,oT0.x,oT0.y,oT0.z,oT0.w\n\
         1.0,2.0,0.0,1.0,1.0,1.0,1.0,1.0,10.0,inf,0.0,0.0\n\
         3.0,4.0,0.0,1.0,1.0,1.0,1.0,1.0,10.0,inf,0.0,0.0\n\
         1.0,2.0,0.0,1.0,1.0,1.0,1.0,1.0,20.0,inf,0.0,0.0\n\
         3.0,4.0,0.0,1.0,1.0,1.0,1.0,1.0,20.0,inf,0.0,0.0\n"
    );
    let out = dxso(&["run", &data("instanced.json")], None);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\"oT0\": [20.0, \"inf\", 0.0, 0.0]"),
        "{text}"
    );
    let bin = std::env::temp_dir().join(format!("dxso-run-{}.bin", std::process::id()));
    expect(
        &[
            "run",
            &data("instanced.json"),
            "--format",
            "bin",
            "-o",
            bin.to_str().unwrap(),
        ],
        None,
        0,
    );
    let bytes = std::fs::read(&bin).unwrap();
    // 4 vertices of 3 registers (oPos, oD0, oT0).
    assert_eq!(bytes.len(), 4 * 3 * 4 * 4);
    assert_eq!(f32::from_le_bytes(bytes[16..20].try_into().unwrap()), 1.0);
    assert_eq!(f32::from_le_bytes(bytes[32..36].try_into().unwrap()), 10.0);
}

#[test]
fn bad_scenes_exit_1_with_a_message() {
    let cases: &[(&str, &str)] = &[
        (
            "missing.json",
            r#"{"shader_asm": "vs_3_0\ndcl_position o0\nmov o0, c0\n"}"#,
        ),
        (
            "past.json",
            r#"{"shader_asm": "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n", "vertex_count": 2, "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION"}], "streams": [{"stride": 16, "f32": [1, 2, 3, 4]}]}"#,
        ),
        (
            "invalid.json",
            r#"{"shader_asm": "vs_3_0\ndcl_position o0\nmov o0, r0\n", "vertex_count": 1}"#,
        ),
        (
            "type.json",
            r#"{"shader_asm": "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n", "vertex_count": 1, "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT5", "usage": "POSITION"}], "streams": [{"stride": 16, "f32": [1, 2, 3, 4]}]}"#,
        ),
        (
            "two.json",
            r#"{"shader_asm": "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n", "vertex_count": 1, "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION"}], "streams": [{"stride": 16, "f32": [1, 2, 3, 4], "hex": "00"}]}"#,
        ),
        (
            "unset.json",
            r#"{"shader_asm": "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n", "vertex_count": 1, "declaration": [{"stream": 1, "offset": 0, "type": "FLOAT4", "usage": "POSITION"}]}"#,
        ),
        (
            "huge.json",
            r#"{"shader_asm": "vs_3_0\ndcl_position o0\nmov o0, c0\n", "vertex_count": 100000000000, "instance_count": 100000}"#,
        ),
        (
            "syntax.json",
            r#"{"shader_asm": "vs_3_0\nfoo\n", "vertex_count": 1}"#,
        ),
    ];
    for (name, json) in cases {
        let p = temp(name, json.as_bytes());
        let out = dxso(&["run", p.to_str().unwrap()], None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains("error"), "{name}: {err}");
    }
    assert_eq!(
        dxso(&["run", "/nonexistent/scene.json"], None)
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn bench_measures_scenes() {
    let out = expect(
        &[
            "bench",
            &data("scale.json"),
            "--repeat",
            "2",
            "--threads",
            "1",
            "--format",
            "json",
        ],
        None,
        0,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["results"][0];
    assert_eq!(r["vertices"], 3);
    assert_eq!(r["threads"], 1);
    assert!(r["median_s"].as_f64().unwrap() > 0.0);
    assert!(r["vertices_per_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn bench_measures_draw_scenes_by_frame() {
    // A draw scene (it has "draws"): a whole frame a run, its pixels counted.
    let scene = serde_json::json!({"width": 64, "height": 32, "draws": []});
    let p = temp("bench-draw.json", scene.to_string().as_bytes());
    let out = expect(
        &[
            "bench",
            p.to_str().unwrap(),
            "--repeat",
            "2",
            "--threads",
            "1",
            "--format",
            "json",
        ],
        None,
        0,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["results"][0];
    assert_eq!(r["pixels"], 64 * 32);
    assert_eq!(r["threads"], 1);
    assert!(r["frame_s"].as_f64().unwrap() > 0.0);
    assert!(r.get("vertices").is_none());
    let out = expect(&["bench", p.to_str().unwrap(), "--repeat", "1"], None, 0);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("frame s") && text.contains("2048"), "{text}");
}

fn csv_rows(out: &std::process::Output) -> Vec<Vec<f32>> {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect()
}

/// examples/heightmap: a 4x4 grid displaced by a 4x4 height map h(i, j) = (4j + i) / 15,
/// scaled by c4.x = 2, through texldl.
#[test]
fn heightmap_example_displaces_the_grid() {
    let dir = format!("{}/../../examples/heightmap", env!("CARGO_MANIFEST_DIR"));
    for scene in ["scene.json", "scene-png.json"] {
        let rows = csv_rows(&dxso(
            &["run", &format!("{dir}/{scene}"), "--format", "csv"],
            None,
        ));
        assert_eq!(rows.len(), 16);
        for (k, r) in rows.iter().enumerate() {
            let (i, j) = (k % 4, k / 4);
            let h = (4 * j + i) as f32 / 15.0;
            let (x, z) = ((i as f32 + 0.5) / 4.0, (j as f32 + 0.5) / 4.0);
            assert_eq!(r[..4], [x, h * 2.0, z, 1.0], "{scene} vertex {k}");
            assert_eq!(r[4..], [x, z, h, 1.0], "{scene} vertex {k}");
        }
    }
}

#[test]
fn dds_textures_with_mip_chains_load() {
    use ddsfile::{D3DFormat, Dds, NewD3dParams};
    // 2x2 A8R8G8B8 (bytes B, G, R, A), two levels: red 10, 20, 30, 40, then 100.
    let mut dds = Dds::new_d3d(NewD3dParams {
        height: 2,
        width: 2,
        depth: None,
        format: D3DFormat::A8R8G8B8,
        mipmap_levels: Some(2),
        caps2: None,
    })
    .unwrap();
    let data: Vec<u8> = [10u8, 20, 30, 40, 100]
        .iter()
        .flat_map(|&r| [0, 0, r, 255])
        .collect();
    dds.get_mut_data(0).unwrap().copy_from_slice(&data);
    let mut bytes = Vec::new();
    dds.write(&mut bytes).unwrap();
    temp("mips.dds", &bytes);
    let scene = r#"{
      "shader_asm": "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_2d s0\ntexldl r0, v0, s0\nmov o0, r0\n",
      "vertex_count": 3,
      "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "TEXCOORD"}],
      "streams": [{"stride": 16, "f32": [0.75, 0.75, 0, 0,  0.25, 0.25, 0, 1,  0.25, 0.25, 0, 0.5]}],
      "textures": {"s0": {"file": "mips.dds"}},
      "samplers": {"s0": {"mip_filter": "LINEAR", "min_filter": "POINT"}}
    }"#;
    let p = temp("dds-scene.json", scene.as_bytes());
    let rows = csv_rows(&dxso(
        &["run", p.to_str().unwrap(), "--format", "csv"],
        None,
    ));
    // LOD 0 at (0.75, 0.75) -> level 0 texel (1, 1) = 40; LOD 1 -> level 1 = 100;
    // LOD 0.5 at (0.25, 0.25) -> halfway between texel (0, 0) = 10 and 100.
    let (a, b, c) = (40.0f32 / 255.0, 100.0f32 / 255.0, 10.0f32 / 255.0);
    assert_eq!(rows[0], [a, 0.0, 0.0, 1.0]);
    assert_eq!(rows[1], [b, 0.0, 0.0, 1.0]);
    assert_eq!(rows[2], [c * 0.5 + b * 0.5, 0.0, 0.0, 1.0]);
}

#[test]
fn bad_textures_in_scenes_exit_1() {
    let shader = r#""shader_asm": "vs_3_0\ndcl_texcoord0 v0\ndcl_position o0\ndcl_2d s0\ntexldl r0, v0, s0\nmov o0, r0\n", "vertex_count": 1, "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "TEXCOORD"}], "streams": [{"stride": 16, "f32": [0, 0, 0, 0]}]"#;
    for (name, extra) in [
        (
            "t1.json",
            r#""textures": {"s0": {"format": "DXT1", "width": 1, "height": 1, "levels": [[0]]}}"#,
        ),
        (
            "t2.json",
            r#""textures": {"s0": {"format": "R32F", "width": 2, "height": 2, "levels": [[0]]}}"#,
        ),
        (
            "t3.json",
            r#""textures": {"s4": {"format": "R32F", "levels": [[0]]}}"#,
        ),
        (
            "t4.json",
            r#""samplers": {"s0": {"min_filter": "ANISOTROPIC"}}"#,
        ),
        ("t5.json", r#""textures": {"s0": {"file": "missing.png"}}"#),
        (
            "t6.json",
            r#""textures": {"s0": {"type": "cube", "format": "R32F", "levels": [[0, 0, 0, 0, 0, 0]]}}"#,
        ),
    ] {
        let p = temp(name, format!("{{{shader}, {extra}}}").as_bytes());
        let out = dxso(&["run", p.to_str().unwrap()], None);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn link_prints_the_varying_map_or_names_the_semantic() {
    let ps = temp("link-ps.asm", b"ps_3_0\ndcl_texcoord0 v0.x\ndcl_texcoord1 v0.yz\ndcl_texcoord2 v1.w\nmov r0, v0\nadd r0, r0, v1.w\nmov oC0, r0\n");
    let good = temp("link-vs.asm", b"vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o2.x\ndcl_texcoord1 o2.yz\ndcl_texcoord2 o4\nmov o0, v0\nmov o2.xyz, v0\nmov o4, v0\n");
    let out = expect(
        &["link", good.to_str().unwrap(), ps.to_str().unwrap()],
        None,
        0,
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "TEXCOORD0      o2.x       -> v0.x\nTEXCOORD1      o2.yz      -> v0.yz\nTEXCOORD2      o4.xyzw    -> v1.w\nnot read by the pixel shader: POSITION0 (o0)\n"
    );
    let out = dxso(
        &[
            "link",
            good.to_str().unwrap(),
            ps.to_str().unwrap(),
            "--format",
            "json",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["varyings"][2]["vs"]["register"], "o4");
    assert_eq!(v["varyings"][2]["ps"]["mask"], "w");
    let missing = temp("link-vs2.asm", b"vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o2.x\ndcl_texcoord1 o2.yzw\nmov o0, v0\nmov o2, v0\n");
    let out = expect(
        &["link", missing.to_str().unwrap(), ps.to_str().unwrap()],
        None,
        1,
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("link-ps.asm:4:1: error[L002]: TEXCOORD2 is read by the pixel shader"),
        "{err}"
    );
}

fn read_png(path: &std::path::Path) -> (usize, usize, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    (info.width as usize, info.height as usize, buf)
}

#[test]
fn demo_writes_a_picture_of_the_terrain() {
    let png_path = std::env::temp_dir().join(format!("dxso-demo-{}.png", std::process::id()));
    let out = expect(&["demo", "-o", png_path.to_str().unwrap()], None, 0);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("M vertices/s"), "{text}");
    assert!(text.contains(png_path.to_str().unwrap()), "{text}");
    let (w, h, px) = read_png(&png_path);
    assert_eq!((w, h), (800, 600));
    // The corner is background; the middle of the picture is lit terrain.
    assert_eq!(&px[..4], &[24, 26, 34, 255]);
    let mid = (300 * 800 + 400) * 4;
    assert_ne!(&px[mid..mid + 4], &[24, 26, 34, 255]);
}

#[test]
fn run_png_draws_the_output_triangles() {
    // Two triangles covering the left half in red; the right half stays background.
    let corners: [[f32; 4]; 6] = [
        [-1.0, -1.0, 0.5, 1.0],
        [-1.0, 1.0, 0.5, 1.0],
        [0.0, 1.0, 0.5, 1.0],
        [-1.0, -1.0, 0.5, 1.0],
        [0.0, 1.0, 0.5, 1.0],
        [0.0, -1.0, 0.5, 1.0],
    ];
    let mut bytes = Vec::new();
    for c in corners {
        bytes.extend(c.iter().flat_map(|f| f.to_le_bytes()));
        bytes.extend([0x00, 0x00, 0xFF, 0xFF]); // D3DCOLOR red: B, G, R, A
    }
    let scene = serde_json::json!({
        "shader_asm": "vs_2_0\ndcl_position v0\ndcl_color v1\nmov oPos, v0\nmov oD0, v1\n",
        "vertex_count": 6,
        "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION"},
                        {"stream": 0, "offset": 16, "type": "D3DCOLOR", "usage": "COLOR"}],
        "streams": [{"stride": 20, "bytes": bytes}]
    });
    let p = temp("png-scene.json", scene.to_string().as_bytes());
    let png_path = std::env::temp_dir().join(format!("dxso-run-{}.png", std::process::id()));
    expect(
        &[
            "run",
            p.to_str().unwrap(),
            "--png",
            png_path.to_str().unwrap(),
        ],
        None,
        0,
    );
    let (w, _, px) = read_png(&png_path);
    let at = |x: usize, y: usize| px[(y * w + x) * 4..(y * w + x) * 4 + 4].to_vec();
    assert_eq!(at(10, 10), [255, 0, 0, 255]);
    assert_eq!(at(390, 590), [255, 0, 0, 255]);
    assert_eq!(at(410, 300), [24, 26, 34, 255]);
    assert_eq!(at(790, 10), [24, 26, 34, 255]);
}

/// What Windows does (instructions.md C2, C11): `dxso run` prints oD0 for every vs_1_1 ..
/// vs_2_x shader, its unwritten components 1.0, and vs_1_1 `mov a0.x` floors.
#[test]
fn run_prints_diffuse_always_before_vs_3_0_and_floors_vs_1_1_addresses() {
    let scene = |shader: &str| {
        serde_json::json!({
            "shader_asm": shader,
            "vertex_count": 2,
            "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION"}],
            "streams": [{"stride": 16, "f32": [-0.4, 0, 0, 1, 1.6, 0, 0, 1]}],
            "constants": {"c0": [0.5, 0, 0, 0], "c1": [1, 1, 1, 1], "c2": [2, 2, 2, 2],
                          "c3": [3, 3, 3, 3], "c4": [4, 4, 4, 4]}
        })
        .to_string()
    };
    // oD0.x = 0.5 only: (0.5, 1, 1, 1); c[a0.x + 3] with a0.x = floor(-0.4) = -1, floor(1.6) = 1.
    let p = temp(
        "diffuse11.json",
        scene("vs_1_1\ndcl_position v0\nmov a0.x, v0.x\nmov oPos, v0\nmov oD0.x, c0.x\nmov oT0, c[a0.x + 3]\n").as_bytes(),
    );
    let out = expect(&["run", p.to_str().unwrap()], None, 0);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"outputs\": {\"oPos\": \"POSITION0\", \"oD0\": \"COLOR0\", \"oT0\": \"TEXCOORD0\"},\n \"vertices\": [\n  \
         {\"oPos\": [-0.4, 0.0, 0.0, 1.0], \"oD0\": [0.5, 1.0, 1.0, 1.0], \"oT0\": [2.0, 2.0, 2.0, 2.0]},\n  \
         {\"oPos\": [1.6, 0.0, 0.0, 1.0], \"oD0\": [0.5, 1.0, 1.0, 1.0], \"oT0\": [4.0, 4.0, 4.0, 4.0]}\n ]}\n"
    );
    // vs_2_0: oD0 never written is still printed, (1, 1, 1, 1); `mov a0.x` rounds as mova
    // does (-0.4 -> 0, 1.6 -> 2).
    let p = temp(
        "diffuse20.json",
        scene("vs_2_0\ndcl_position v0\nmov a0.x, v0.x\nmov oPos, v0\nmov oT0, c[a0.x + 3]\n")
            .as_bytes(),
    );
    let out = expect(&["run", p.to_str().unwrap(), "--format", "csv"], None, 0);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "oPos.x,oPos.y,oPos.z,oPos.w,oD0.x,oD0.y,oD0.z,oD0.w,oT0.x,oT0.y,oT0.z,oT0.w\n\
         -0.4,0.0,0.0,1.0,1.0,1.0,1.0,1.0,3.0,3.0,3.0,3.0\n\
         1.6,0.0,0.0,1.0,1.0,1.0,1.0,1.0,0.0,0.0,0.0,0.0\n"
    );
}

/// `run --png` draws unwritten diffuse as white: a vs_2_0 shader that never writes oD0, and
/// one that writes only oD0.x = 0 (cyan: red 0, green, blue and alpha 1).
#[test]
fn run_png_draws_unwritten_diffuse_white() {
    for (write, want) in [
        ("", [255, 255, 255, 255]),
        ("mov oD0.x, c0.x\n", [0, 255, 255, 255]),
    ] {
        let scene = serde_json::json!({
            "shader_asm": format!("vs_2_0\ndcl_position v0\nmov oPos, v0\n{write}"),
            "vertex_count": 3,
            "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION"}],
            "streams": [{"stride": 16, "f32": [-1, -1, 0.5, 1, -1, 1, 0.5, 1, 1, 1, 0.5, 1]}]
        });
        let p = temp("white.json", scene.to_string().as_bytes());
        let png_path = std::env::temp_dir().join(format!("dxso-white-{}.png", std::process::id()));
        expect(
            &[
                "run",
                p.to_str().unwrap(),
                "--png",
                png_path.to_str().unwrap(),
            ],
            None,
            0,
        );
        let (w, _, px) = read_png(&png_path);
        let at = |x: usize, y: usize| px[(y * w + x) * 4..(y * w + x) * 4 + 4].to_vec();
        // The upper-left half is the triangle; the lower-right corner is background.
        assert_eq!(at(10, 10), want, "{write}");
        assert_eq!(at(790, 590), [24, 26, 34, 255], "{write}");
    }
}

#[test]
fn trace_prints_every_executed_instruction() {
    let scene = serde_json::json!({
        "shader_asm": "vs_3_0\ndcl_position v0\ndcl_position o0\ndefi i0, 2, 0, 1, 0\nmov r0, c0\nloop aL, i0\nadd r0, r0, c1[aL]\nendloop\nif_gt v0.x, c0.y\nmov r0.x, c3.x\nendif\nmov o0, r0\n",
        "vertex_count": 2,
        "declaration": [{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "POSITION"}],
        "streams": [{"stride": 16, "f32": [1, 0, 0, 1, -1, 0, 0, 1]}],
        "constants": {"c1": [1, 1, 1, 1], "c2": [2, 2, 2, 2], "c3": [7, 7, 7, 7]}
    });
    let p = temp("trace.json", scene.to_string().as_bytes());
    let out = expect(&["run", p.to_str().unwrap(), "--trace", "1"], None, 0);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        lines,
        [
            "vertex 1: 9 instructions executed",
            // Instruction numbers count the dcl/defi lines (0-2); the if's body is skipped
            // when no lane takes it.
            "3 mov r0, c0 r0 = (0, 0, 0, 0)",
            "4 loop aL, i0 aL = 0",
            "5 add r0, r0, c1[aL] r0 = (1, 1, 1, 1)",
            "6 endloop aL = 1",
            "5 add r0, r0, c1[aL] r0 = (3, 3, 3, 3)",
            "6 endloop aL = 0",
            "- 7 if_gt v0.x, c0.y not taken",
            "9 endif",
            "10 mov o0, r0 o0 = (3, 3, 3, 3)",
            "outputs:",
            "o0 POSITION0 (3, 3, 3, 3)",
        ]
    );
    assert_eq!(
        dxso(&["run", p.to_str().unwrap(), "--trace", "2"], None)
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn meshes_from_obj_and_gltf_feed_the_declaration() {
    // The .obj quad: positions, normals and texture coordinates by usage, 6 indices.
    let obj = serde_json::json!({
        "shader_asm": "vs_3_0\ndcl_position v0\ndcl_normal v1\ndcl_texcoord0 v2\ndcl_position o0\ndcl_texcoord0 o1\ndcl_normal o2\nmov o0, v0\nmov o1, v2\nmov o2, v1\n",
        "mesh": {"file": data("quad.obj")}
    });
    let p = temp("obj-scene.json", obj.to_string().as_bytes());
    let rows = csv_rows(&dxso(
        &["run", p.to_str().unwrap(), "--format", "csv"],
        None,
    ));
    assert_eq!(rows.len(), 6);
    // Triangle 2 = vertices 1, 3, 4 of the file: (0,0) (1,1) (0,1).
    assert_eq!(rows[4][..4], [1.0, 1.0, 0.0, 1.0]);
    assert_eq!(rows[4][4..8], [1.0, 1.0, 0.0, 1.0]);
    assert_eq!(rows[5][..2], [0.0, 1.0]);
    assert_eq!(rows[5][8..12], [0.0, 0.0, 1.0, 1.0]);
    // The .glb triangle: joints and weights become BLENDINDICES0 and BLENDWEIGHT0.
    let glb = serde_json::json!({
        "shader_asm": "vs_3_0\ndcl_position v0\ndcl_blendindices v1\ndcl_blendweight v2\ndcl_normal v3\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\nmov o0, v0\nmov o1, v1\nmov r0, v3\nmul o2, v2, r0.z\n",
        "mesh": {"file": data("tri.glb")}
    });
    let p = temp("glb-scene.json", glb.to_string().as_bytes());
    let rows = csv_rows(&dxso(
        &["run", p.to_str().unwrap(), "--format", "csv"],
        None,
    ));
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[1][..4], [2.0, 0.0, 0.0, 1.0]);
    assert_eq!(rows[2][4..8], [5.0, 6.0, 7.0, 8.0]);
    assert_eq!(rows[0][8..12], [0.5, 0.5, 0.0, 0.0]);
    // A mesh with its own streams is a scene error.
    let both = serde_json::json!({"shader_asm": "vs_3_0\ndcl_position o0\nmov o0, c0\n", "mesh": {"file": data("quad.obj")}, "streams": [{"stride": 4, "f32": [0]}]});
    let p = temp("both.json", both.to_string().as_bytes());
    assert_eq!(
        dxso(&["run", p.to_str().unwrap()], None).status.code(),
        Some(1)
    );
}

/// A glTF whose accessor declares a billion elements in a few bytes of JSON (a sparse
/// accessor needs no buffer) is refused by its declared count, before anything is read.
#[test]
fn a_gltf_declaring_more_than_it_holds_is_refused() {
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"count": 1_000_000_000u32, "componentType": 5126, "type": "VEC3",
            "min": [0, 0, 0], "max": [0, 0, 0],
            "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": 5125},
                "values": {"bufferView": 0}}}],
        "bufferViews": [{"buffer": 0, "byteLength": 16}],
        "buffers": [{"byteLength": 16, "uri": "bomb.bin"}]
    });
    let mesh = temp("bomb.gltf", gltf.to_string().as_bytes());
    temp("bomb.bin", &[0; 16]);
    let scene = serde_json::json!({
        "shader_asm": "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n",
        "mesh": {"file": mesh}
    });
    let p = temp("bomb-scene.json", scene.to_string().as_bytes());
    let out = dxso(&["run", p.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1000000000 accessor elements would take about 30517 MiB to load"),
        "{stderr}"
    );
}

/// The edit cycle with names: `asm --ctab` builds the constant table from the listing's
/// header, `dis` prints the same header back (and the CTAB's exact words as `// @comment`),
/// and that listing assembles to the same tokens.
#[test]
fn asm_ctab_keeps_the_header_through_dis() {
    let listing = data("named.asm");
    let source = std::fs::read_to_string(&listing).unwrap();
    let header: Vec<&str> = source.lines().take_while(|l| l.starts_with("//")).collect();
    let with = expect(&["asm", &listing, "--ctab", "--hex"], None, 0);
    let without = expect(&["asm", &listing, "--hex"], None, 0);
    assert!(
        with.stdout.len() > without.stdout.len() + 9 * 40,
        "a CTAB block was added"
    );
    let out = expect(&["dis", "-"], Some(&with.stdout), 0);
    let text = String::from_utf8(out.stdout).unwrap();
    let printed: Vec<&str> = text.lines().take_while(|l| l.starts_with("//")).collect();
    assert_eq!(printed, header);
    assert!(text.contains("// @comment 42415443 "), "{text}");
    let again = expect(&["asm", "-", "--hex"], Some(text.as_bytes()), 0);
    assert_eq!(again.stdout, with.stdout, "dis -> asm keeps the tokens");
    // --ctab on a listing that already carries the block keeps that block.
    let kept = expect(&["asm", "-", "--hex", "--ctab"], Some(text.as_bytes()), 0);
    assert_eq!(kept.stdout, with.stdout);
    // Without the disassembler's header there is nothing to build from: a warning.
    let bare = expect(
        &["asm", "-", "--ctab", "--hex"],
        Some(b"vs_2_0\nmov oPos, c0\n"),
        0,
    );
    assert!(String::from_utf8_lossy(&bare.stderr).contains("no '// Parameters:' header"));
    // A header that names a parameter without a register row is an error at its line.
    let broken = source.replace("//   offsets      c30      4\n", "");
    let out = expect(&["asm", "-", "--ctab"], Some(broken.as_bytes()), 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("<stdin>:6:"), "{err}");
    assert!(err.contains("'offsets' has no row"), "{err}");
}

/// A scene that sets constants by name gives the outputs of the same scene by register: a
/// column-major matrix (16 numbers row by row), a row-major one, a struct member of an array
/// element and an array element.
#[test]
fn scene_constants_by_name_equal_constants_by_register() {
    let scene = |constants: &str| {
        format!(
            r#"{{"shader": "named.asm", "vertex_count": 2,
               "declaration": [{{"stream": 0, "offset": 0, "type": "FLOAT4", "usage": "TEXCOORD", "usage_index": 0}}],
               "streams": [{{"stride": 16, "f32": [1, 2, 3, 1, -1, 0.5, 4, 1]}}],
               "constants": {constants}}}"#
        )
    };
    let named = scene(
        r#"{"viewProj": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
            "world": [1, 0, 0, 0.5, 0, 2, 0, 0, 0, 0, 3, 0],
            "lights[1].pos": [1, 2, 3, 4], "offsets[2]": [10, 20, 30, 40]}"#,
    );
    let by_register = scene(
        r#"{"c8": [1, 5, 9, 13], "c9": [2, 6, 10, 14], "c10": [3, 7, 11, 15], "c11": [4, 8, 12, 16],
            "c12": [1, 0, 0, 0.5], "c13": [0, 2, 0, 0], "c14": [0, 0, 3, 0],
            "c25": [1, 2, 3, 4], "c32": [10, 20, 30, 40]}"#,
    );
    let dir = std::path::Path::new(&data("named.asm"))
        .parent()
        .unwrap()
        .to_path_buf();
    let run = |text: &str, name: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let out = expect(&["run", p.to_str().unwrap()], None, 0);
        std::fs::remove_file(&p).unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let a = run(&named, "by-name.tmp.json");
    let b = run(&by_register, "by-register.tmp.json");
    assert_eq!(a, b);
    // Vertex 0 is (1, 2, 3, 1): o0 = v * M, o1 = offsets[2] + lights[1].pos.
    assert!(a.contains(r#""o0": [51.0, 58.0, 65.0, 72.0]"#), "{a}");
    assert!(a.contains(r#""o1": [11.0, 22.0, 33.0, 44.0]"#), "{a}");

    // An unknown name is a bad scene (exit 1) that lists the table's names.
    let p = dir.join("unknown-name.tmp.json");
    std::fs::write(&p, scene(r#"{"viewproj": [1]}"#)).unwrap();
    let out = expect(&["run", p.to_str().unwrap()], None, 1);
    std::fs::remove_file(&p).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("viewproj") && err.contains("offsets, lights, world, viewProj"),
        "{err}"
    );

    // --trace shows the names beside the registers.
    let p = dir.join("trace-name.tmp.json");
    std::fs::write(&p, &named).unwrap();
    let out = expect(&["run", p.to_str().unwrap(), "--trace", "0"], None, 0);
    std::fs::remove_file(&p).unwrap();
    let trace = String::from_utf8(out.stdout).unwrap();
    assert!(trace.contains("[c8 = viewProj]"), "{trace}");
    assert!(trace.contains("[c25 = lights[1].pos]"), "{trace}");
    assert!(trace.contains("[c32 = offsets[2]]"), "{trace}");
}

/// A malformed CTAB block: `dis` says where (word offset in the table) and prints no header;
/// the block's words stay in their `// @comment` line, so the text reassembles the same.
#[test]
fn dis_warns_about_a_malformed_constant_table() {
    let src = b"vs_2_0\n// @comment 42415443 0000001c 00000000\nmov oPos, c0\n";
    let hex = expect(&["asm", "-", "--hex"], Some(src), 0);
    let out = expect(&["dis", "-"], Some(&hex.stdout), 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("<stdin>: warning: constant table word 2: the table is 2 DWORDs long"),
        "{err}"
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("// Parameters:"), "{text}");
    assert!(
        text.contains("// @comment 42415443 0000001c 00000000"),
        "{text}"
    );
    let again = expect(&["asm", "-", "--hex"], Some(text.as_bytes()), 0);
    assert_eq!(again.stdout, hex.stdout);
}
