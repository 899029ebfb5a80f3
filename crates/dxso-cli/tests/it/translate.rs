//! `dxso translate` as `../shared/CLI.md` describes it: targets, `-o`, `--interface`,
//! `--float`, and refusal of invalid shaders (exit 1) with the validator's diagnostics.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Run `dxso` with `args` and `stdin` (the other command suites use it too).
pub(crate) fn dxso(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dxso"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dxso runs");
    let _ = child.stdin.take().expect("stdin").write_all(stdin);
    child.wait_with_output().expect("dxso finishes")
}

/// [`dxso`], asserting its exit status.
pub(crate) fn expect(args: &[&str], stdin: &[u8], code: i32) -> Output {
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

fn dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("dxso-cli-translate-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

const VS: &[u8] = b"vs_2_0\ndcl_position v0\nmul r0, v0, c4\nmad oPos, v0, c0, r0\n";

#[test]
fn wgsl_is_the_default_and_goes_to_stdout() {
    let out = expect(&["translate", "-"], VS, 0);
    let text = String::from_utf8(out.stdout).expect("text");
    assert!(text.contains("@vertex"), "{text}");
    assert!(
        text.contains("fn body(inputs: Inputs) -> Outputs"),
        "{text}"
    );
    // Strict: mul's zero-factor rule is a select.
    assert!(
        text.contains("select((inputs.v0_ * _e18), vec4<f32>(), ((inputs.v0_ == vec4<f32>())"),
        "{text}"
    );
    let out = expect(&["translate", "-", "--float", "ieee"], VS, 0);
    let ieee = String::from_utf8(out.stdout).expect("text");
    assert!(!ieee.contains("select("), "{ieee}");
}

#[test]
fn every_target_writes() {
    let d = dir();
    let spv = d.join("a.spv");
    expect(
        &[
            "translate",
            "-",
            "--to",
            "spirv",
            "-o",
            spv.to_str().unwrap(),
        ],
        VS,
        0,
    );
    let bytes = std::fs::read(&spv).expect("written");
    assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes(), "SPIR-V magic");
    let glsl = expect(&["translate", "-", "--to", "glsl"], VS, 0).stdout;
    assert!(String::from_utf8_lossy(&glsl).starts_with("#version 450 core"));
    let msl = expect(&["translate", "-", "--to", "msl"], VS, 0).stdout;
    assert!(String::from_utf8_lossy(&msl).contains("vertex"));
    let hlsl = expect(&["translate", "-", "--to", "hlsl"], VS, 0).stdout;
    assert!(String::from_utf8_lossy(&hlsl).contains("vs_main"));
    // Piped stdout takes binary SPIR-V too.
    let piped = expect(&["translate", "-", "--to", "spirv"], VS, 0).stdout;
    assert_eq!(piped, bytes);
    expect(&["translate", "-", "--to", "dxil"], VS, 2);
}

#[test]
fn interface_json() {
    let d = dir();
    let json = d.join("i.json");
    expect(
        &["translate", "-", "--interface", json.to_str().unwrap()],
        VS,
        0,
    );
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("written")).expect("JSON");
    assert_eq!(v["stage"], "vertex");
    assert_eq!(v["float_constants"]["registers"], 256);
    assert_eq!(v["inputs"][0]["varyings"][0]["semantic"], "POSITION0");
    assert_eq!(v["outputs"][0]["register"], "oPos");
}

#[test]
fn invalid_shaders_are_refused_with_diagnostics() {
    let out = expect(&["translate", "-"], b"vs_2_0\nmov oPos, r0\n", 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("<stdin>:2:1: error[V040]"), "{err}");
    assert!(out.stdout.is_empty());
    let out = expect(&["translate", "-"], b"vs_2_0\nfoo r0\n", 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("<stdin>:2:1"));
}
