//! `dxso decompile` as `../shared/CLI.md` describes it: HLSL to stdout or `-o`, `--for
//! fxc|glslang`, `--asm-comments`, text and bytecode input, and refusal of invalid shaders
//! (exit 1) with the validator's diagnostics.

use crate::translate::expect;

fn dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("dxso-cli-decompile-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A vs_2_0 listing with a Microsoft header (no CTAB): the header names the constants.
const VS: &[u8] = b"// Parameters:
//
//   float4x4 WorldViewProj;
//   float4 Tint;
//
// Registers:
//
//   Name          Reg   Size
//   ------------- ----- ----
//   WorldViewProj c0       4
//   Tint          c4       1
//
vs_2_0
dcl_position v0
dcl_color v1
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
mul oD0, v1, c4
";

#[test]
fn fxc_hlsl_goes_to_stdout_with_the_headers_names() {
    let out = expect(&["decompile", "-"], VS, 0);
    let text = String::from_utf8(out.stdout).expect("text");
    assert!(
        text.contains("// vs_2_0 vertex shader, decompiled by dxso (for fxc)"),
        "{text}"
    );
    assert!(
        text.contains("float4x4 WorldViewProj : register(c0);"),
        "{text}"
    );
    assert!(text.contains("float4 Tint : register(c4);"), "{text}");
    assert!(text.contains("float4 position : POSITION;"), "{text}");
    assert!(
        text.contains("o.position = mul(i.position, WorldViewProj);"),
        "{text}"
    );
    assert!(text.contains("o.color0 = i.color0 * Tint;"), "{text}");
}

#[test]
fn for_glslang_writes_system_values_and_o_writes_a_file() {
    let d = dir();
    let path = d.join("out.hlsl");
    let out = expect(
        &[
            "decompile",
            "-",
            "--for",
            "glslang",
            "-o",
            path.to_str().unwrap(),
        ],
        VS,
        0,
    );
    assert!(out.stdout.is_empty());
    let text = std::fs::read_to_string(&path).expect("written");
    assert!(text.contains("float4 position : SV_Position;"), "{text}");
    assert!(text.contains("(for glslang)"), "{text}");
}

#[test]
fn asm_comments_put_each_instruction_beside_its_hlsl() {
    let out = expect(&["decompile", "-", "--asm-comments"], VS, 0);
    let text = String::from_utf8(out.stdout).expect("text");
    assert!(text.contains("    // dp4 oPos.x, v0, c0\n"), "{text}");
    assert!(
        text.contains("    // mul oD0, v1, c4\n    o.color0 = i.color0 * Tint;"),
        "{text}"
    );
}

#[test]
fn bytecode_input_decompiles_like_its_text() {
    let d = dir();
    let vso = d.join("ps.vso");
    let asm = d.join("ps.asm");
    std::fs::write(
        &asm,
        "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n",
    )
    .expect("written");
    expect(
        &["asm", asm.to_str().unwrap(), "-o", vso.to_str().unwrap()],
        b"",
        0,
    );
    let from_text = expect(&["decompile", asm.to_str().unwrap()], b"", 0).stdout;
    let from_binary = expect(&["decompile", vso.to_str().unwrap()], b"", 0).stdout;
    assert_eq!(from_text, from_binary);
    let text = String::from_utf8(from_text).expect("text");
    assert!(
        text.contains("o.color0 = tex2D(s0, i.texcoord0.xy);"),
        "{text}"
    );
}

#[test]
fn an_invalid_shader_exits_1_with_the_validators_diagnostics() {
    let out = expect(
        &["decompile", "-"],
        b"vs_2_0\ndcl_position v0\nmov oPos, r5\n",
        1,
    );
    let err = String::from_utf8(out.stderr).expect("text");
    assert!(err.contains("<stdin>:3:"), "{err}");
    assert!(err.contains("error[V"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn a_bad_for_value_is_a_usage_error() {
    let out = expect(&["decompile", "-", "--for", "msl"], VS, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--for"));
}
