//! One minimal shader per rule that the rule rejects, and tricky shaders that are valid.

use super::*;
use crate::text::parse;

fn findings(src: &str, caps: &Caps) -> Vec<(&'static str, Severity)> {
    let shader = parse(src).unwrap_or_else(|e| panic!("{src}\n{e}"));
    diagnostics(&shader, caps)
        .into_iter()
        .map(|d| (d.rule.id(), d.severity))
        .collect()
}

fn errors(src: &str) -> Vec<&'static str> {
    errors_with(src, &Caps::max())
}

fn errors_with(src: &str, caps: &Caps) -> Vec<&'static str> {
    findings(src, caps)
        .into_iter()
        .filter(|f| f.1 == Severity::Error)
        .map(|f| f.0)
        .collect()
}

const VS3: &str = "vs_3_0\ndcl_position v0\ndcl_position o0\n";
const VS2: &str = "vs_2_0\ndcl_position v0\n";
const VS2X: &str = "vs_2_x\ndcl_position v0\n";

/// Every rule: a minimal shader it rejects (under max caps unless `min` is set).
#[test]
fn each_rule_rejects_its_minimal_shader() {
    let cases: &[(&str, String, bool)] = &[
        ("V002", format!("{VS2X}rep i0\nbreak\nendrep\nmov oPos, v0\n"), true),
        ("V002", format!("{VS2X}setp_gt p0, v0, v0\nmov oPos, v0\n"), true),
        ("V004", format!("{VS2X}mov r12, v0\nmov oPos, r12\n"), true),
        ("V004", format!("{VS3}mov o0, c256\n"), true),
        ("V004", format!("{VS3}m4x4 o0, v0, c8190\n"), false),
        ("V005", format!("{VS3}mov c0, v0\nmov o0, v0\n"), false),
        ("V006", format!("{VS2}mov oPos, v0\nmov r0, oPos\n"), false),
        ("V007", "vs_2_0\ndcl_position v0\ndcl_normal v1\nadd r0, v0, v1\nmov oPos, r0\n".into(), false),
        ("V007", format!("{VS3}mad o0, c1, c2, c3\n"), false),
        ("V008", format!("{VS2}mad r0, c3, c3, c3\nmov oPos, r0\n"), false),
        ("V009", format!("{VS2}mov oPos, v0\nmov oFog.xy, v0\n"), false),
        ("V010", format!("{VS3}mova a0.x, v0.x\nmov o[a0.x + 1], v0\ndcl_texcoord o1\nmov o0, v0\n"), false),
        ("V010", format!("{VS2}mova a0, v0\nmov r0, c0[a0]\nmov oPos, r0\n"), false),
        ("V011", "vs_3_0\ndcl_position o0\nmov o0, v0\n".into(), false),
        ("V012", format!("{VS3}mov o0, v0\nmov o1, v0\n"), false),
        ("V013", format!("{VS3}texldl r0, v0, s0\nmov o0, r0\n"), false),
        ("V014", "vs_3_0\ndcl_position o0\nmov o0, c0\ndcl_position v0\n".into(), false),
        ("V015", "vs_3_0\ndcl_position v0\ndcl_position v1\ndcl_position o0\nmov o0, v0\n".into(), false),
        ("V015", format!("{VS3}dcl_texcoord0 o1.xy\ndcl_texcoord1 o1.yz\nmov o0, v0\n"), false),
        ("V016", "ps_3_0\ndcl vPos.z\nmov oC0, vPos.z\n".into(), false),
        ("V019", "vs_3_0\ndcl_position v0\ndcl_texcoord o0\nmov o0, v0\n".into(), false),
        ("V019", "vs_3_0\ndcl_position v0\ndcl_position o0.xyz\nmov o0.xyz, v0\n".into(), false),
        ("V019", format!("{VS2}mov oD0, v0\n"), false),
        ("V020", format!("{VS3}dcl_psize o1.x\nmov o0, v0\nmov o1.x, v0.x\n"), false),
        ("V022", "vs_3_0\ndcl_position v0\ndcl_texcoord o0\ndcl_position o1\ndefi i0, 1, 0, 1, 0\nmov o1, v0\nloop aL, i0\nmov o[aL], v0\nendloop\n".into(), false),
        ("V030", format!("{VS3}mova r0, v0\nmov o0, v0\n"), false),
        ("V030", format!("{VS3}dcl_2d s0\ntexldl r0, v0, c0\nmov o0, r0\n"), false),
        // texldl writes r# or a vs_3_0 o# (instructions.md §6), nothing else.
        ("V030", format!("{VS3}dcl_2d s0\ntexldl a0, v0, s0\nmov o0, v0\n"), false),
        ("V030", "ps_3_0\ndcl_texcoord0 v0\ndcl_2d s0\ntexldl oC0, v0, s0\n".into(), false),
        ("V030", format!("{VS2}rep b0\nendrep\nmov oPos, v0\n"), false),
        ("V030", "ps_2_0\ndcl_2d s0\ntexld r0, i0, s0\nmov oC0, r0\n".into(), false),
        ("V030", "ps_1_4\ntexcrd r4, c3\nmov r0, r4\n".into(), false),
        ("V030", "ps_1_4\ntexld r0, c0\n".into(), false),
        ("V030", "ps_1_1\ntex t0\ntexbem t1, c0\nmov r0, t1\n".into(), false),
        ("V030", "ps_1_1\ntex t0\ntexm3x3pad t1, t0\ntexm3x3pad t2, t0\ntexm3x3spec t3, t0, v0\nmov r0, t3\n".into(), false),
        ("V030", "ps_3_0\ndcl_2d s0\ndcl_texcoord0 v0\ntexldd r0, v0, s0, b0, v0\nmov oC0, r0\n".into(), false),
        ("V031", format!("{VS3}sincos r0.xyz, v0.x\nmov o0, r0\n"), false),
        ("V031", format!("{VS3}m3x3 r0, v0, c0\nmov o0, r0\n"), false),
        ("V031", format!("{VS3}mov r1, v0\ncrs r0, r1, v0\nmov o0, r0\n"), false),
        ("V032", format!("{VS3}sincos r0.xy, v0.xy\nmov o0, r0\n"), false),
        ("V032", format!("{VS3}rcp r0, v0.xy\nmov o0, r0\n"), false),
        ("V032", format!("{VS3}m4x4 r0, v0, c0.x\nmov o0, r0\n"), false),
        ("V032", format!("{VS3}if_gt v0, c0.x\nendif\nmov o0, v0\n"), false),
        ("V033", format!("{VS2}mov r0, v0\nmov r1, -r0\nmov oPos, r1\nm4x4 r2, v0, -c0\n"), false),
        ("V034", format!("{VS2}mov_sat oPos, v0\n"), false),
        ("V034", format!("{VS3}frc_sat r0, v0\nmov o0, r0\n"), false),
        ("V036", format!("{VS3}mov r0, v0\nnrm r0, r0\nmov o0, r0\n"), false),
        // crs's rules hold in pixel shaders too (crs---ps); the differential fuzzer found
        // `crs r0, r0_abs, r0_abs` accepted in ps_3_0 (fuzz-regressions/differential_pixel).
        ("V036", "ps_3_0\ndef c0, 1, 0, 0, 0\nmov r0, c0\ncrs r0.xyz, r0_abs, r0_abs\nmov oC0, r0\n".into(), false),
        ("V031", "ps_2_0\ndef c0, 1, 0, 0, 0\nmov r1, c0\ncrs r0, r1, c0\nmov oC0, r0\n".into(), false),
        ("V036", format!("{VS3}mov r0, v0\nm4x4 r0, r0, c0\nmov o0, r0\n"), false),
        ("V036", format!("{VS3}mov r1, v0\npow r1, v0.x, r1.x\nmov o0, r1\n"), false),
        ("V037", format!("{VS2}sincos r0.xy, v0.x, c0, c0\nmov oPos, r0\n"), false),
        ("V038", format!("{VS3}setp_gt p0, v0, c0\n(p0) rep i0\nendrep\nmov o0, v0\n"), false),
        ("V038", format!("{VS2X}setp_gt p0, v0, c0\nmov r1, v0\n(p0) sincos r0.xy, r1.x, c0, c1\nmov oPos, r0\n"), false),
        ("V040", format!("{VS3}mov o0, r5\n"), false),
        ("V040", format!("{VS3}mov r0, c0[a0.x]\nmov o0, r0\n"), false),
        ("V040", format!("{VS3}(p0) mov o0, v0\n"), false),
        ("V041", format!("{VS2}mov r1, v0\nsgn r0, v0, r1, r1\nmov oPos, r0\n"), false),
        ("V042", format!("{VS3}add o0, c0_abs, c0\n"), false),
        ("V050", format!("{VS3}if b0\nmov o0, v0\n"), false),
        ("V050", format!("{VS3}endloop\nmov o0, v0\n"), false),
        ("V050", format!("{VS3}rep i0\nif b0\nendrep\nendif\nmov o0, v0\n"), false),
        ("V051", format!("{VS2}rep i0\nrep i1\nendrep\nendrep\nmov oPos, v0\n"), false),
        ("V051", format!("{VS2X}rep i0\nrep i1\nendrep\nendrep\nmov oPos, v0\n"), true),
        ("V052", format!("{VS2X}mov r0, v0\nif_gt r0.x, r0.y\nif_gt r0.x, r0.z\nendif\nendif\nmov oPos, v0\n"), true),
        ("V053", format!("{VS3}{}{}mov o0, v0\n", "if b0\n".repeat(25), "endif\n".repeat(25)), false),
        ("V054", format!("{VS2}call l0\nmov oPos, v0\nret\nlabel l0\ncall l1\nret\nlabel l1\nret\n"), false),
        ("V055", format!("{VS2}{}mov oPos, v0\n", "if b0\nendif\n".repeat(17)), false),
        ("V056", format!("{VS3}mov r0, c0[aL]\nmov o0, r0\n"), false),
        ("V057", format!("{VS3}break\nmov o0, v0\n"), false),
        ("V058", format!("{VS3}call l1\nmov o0, v0\nret\n"), false),
        ("V058", format!("{VS3}mov o0, v0\nret\nlabel l0\nret\nlabel l0\nret\n"), false),
        ("V058", format!("{VS3}mov o0, v0\nret\nmov r0, v0\n"), false),
        ("V059", format!("{VS2}{}mov oPos, v0\n", "mov r0, v0\n".repeat(256)), false),
    ];
    let mut wrong = Vec::new();
    for (id, src, min) in cases {
        let caps = if *min { Caps::min() } else { Caps::max() };
        let got = match parse(src) {
            Ok(_) => errors_with(src, &caps),
            Err(_) => vec!["(parse error)"],
        };
        if !got.contains(id) {
            wrong.push(format!("{id} not reported for:\n{src}\n  got {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn shader(src: &str) -> Shader {
    parse(src).unwrap_or_else(|e| panic!("{src}\n{e}"))
}

fn ir_errors(shader: &Shader, caps: &Caps) -> Vec<&'static str> {
    diagnostics(shader, caps)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.rule.id())
        .collect()
}

/// Rules the assembler already enforces for text: checked on IR (as bytecode would give it).
#[test]
fn rules_the_assembler_also_enforces_are_checked_on_ir() {
    let mut cases: Vec<(&str, Shader, Caps)> = Vec::new();
    // if_gt does not exist in vs_2_0.
    let mut s = shader(&format!("{VS2X}if_gt v0.x, v0.y\nendif\nmov oPos, v0\n"));
    s.version = Version::vs(2, 0);
    cases.push(("V001", s, Caps::max()));
    // Samplers do not exist in vs_2_0.
    let mut s = shader(&format!("{VS3}dcl_2d s0\nmov o0, v0\n"));
    s.version = Version::vs(2, 0);
    cases.push(("V003", s, Caps::max()));
    // vs_2_0 has 12 temporaries.
    let mut s = shader(&format!("{VS2X}mov r12, v0\nmov oPos, r12\n"));
    s.version = Version::vs(2, 0);
    cases.push(("V004", s, Caps::max()));
    // v# cannot be indexed in vs_2_0.
    let mut s = shader(&format!(
        "{VS2X}mova a0.x, v0.x\nmov r0, c0[a0.x]\nmov oPos, r0\n"
    ));
    s.instructions[2].srcs[0].reg.kind = RegisterKind::Input;
    cases.push(("V010", s, Caps::max()));
    // A sampler type on an input.
    let mut s = shader(&format!("{VS3}dcl_texcoord v1\nmov o0, v1\n"));
    s.instructions[2].decl = Some(Decl::sampler(TextureType::TwoD));
    cases.push(("V016", s, Caps::max()));
    // def beyond MaxVertexShaderConst.
    cases.push((
        "V017",
        shader(&format!("{VS3}def c300, 1, 2, 3, 4\nmov o0, v0\n")),
        Caps::min(),
    ));
    // sgn with two operands.
    let mut s = shader(&format!(
        "{VS2}mov r1, v0\nmov r2, v0\nsgn r0, v0, r1, r2\nmov oPos, r0\n"
    ));
    s.instructions[3].srcs.truncate(2);
    cases.push(("V060", s, Caps::max()));
    for (id, s, caps) in &cases {
        let got = ir_errors(s, caps);
        assert!(
            got.contains(id),
            "{id} not reported: {got:?}\n{}",
            crate::text::print(s)
        );
    }
}

#[test]
fn warnings_do_not_reject() {
    let cases: &[(&str, String)] = &[
        ("V018", format!("{VS3}mov o0, v0\ndef c0, 1, 2, 3, 4\n")),
        ("V021", format!("{VS2}mov oPos, v0\nmov oT0.y, v0\n")),
        ("V035", format!("{VS3}rcp r0.xy, v0.x\nmov o0, r0\n")),
        (
            "V039",
            format!("{VS2}mov a0.x, v0.x\nmov r0, c[a0.x]\nmov oPos, r0\n"),
        ),
        (
            "V015",
            format!("{VS3}dcl_2d s0\ndcl_2d s0\ntexldl r0, v0, s0\nmov o0, r0\n"),
        ),
    ];
    for (id, src) in cases {
        let all = findings(src, &Caps::max());
        assert!(
            all.contains(&(id, Severity::Warning)),
            "{id} warning missing: {all:?}\n{src}"
        );
        assert!(errors(src).is_empty(), "{src}: {:?}", errors(src));
        assert!(validate(&parse(src).unwrap(), &Caps::max()).is_ok());
    }
}

/// Shaders at the edge of a rule that must pass.
#[test]
fn tricky_valid_shaders_pass() {
    let valid: &[(&str, String, bool)] = &[
        ("same c# twice with different swizzles", format!("{VS2}add r0, c3, c3.wzyx\nmov oPos, r0\n"), false),
        ("same v# twice", format!("{VS2}add r0, v0, -v0.wzyx\nmov oPos, r0\n"), false),
        ("sincos's extra constants in vs_2_0", format!("{VS2}def c0, -1.5500992e-006, -2.1701389e-005, 0.0026041667, 0.00026041668\ndef c1, -0.020833334, -0.125, 1, 0.5\nmov r1, v0\nsincos r0.xy, r1.x, c0, c1\nmov oPos, r0\n"), false),
        ("a temp read three times in one mad", format!("{VS2}mov r0, v0\nmad r1, r0, r0, r0\nmov oPos, r1\n"), false),
        ("three temps in one mad", format!("{VS2}mov r0, v0\nmov r1, v0\nmov r2, v0\nmad r3, r0, r1, r2\nmov oPos, r3\n"), false),
        ("c# three times in vs_3_0", format!("{VS3}mad o0, c3, c3, c3\n"), false),
        ("loop nesting exactly at vs_2_0's limit", format!("{VS2}rep i0\nmov r0, v0\nendrep\nmov oPos, v0\n"), false),
        ("loop nesting exactly at vs_3_0's limit", format!("{VS3}{}{}mov o0, v0\n", "rep i0\n".repeat(4), "endrep\n".repeat(4)), false),
        ("dynamic nesting at the min caps' limit", format!("{VS2X}mov r0, v0\nmov oPos, v0\n"), true),
        ("if b# nested 24 deep", format!("{VS3}{}{}mov o0, v0\n", "if b0\n".repeat(24), "endif\n".repeat(24)), false),
        ("exactly 256 slots in vs_2_0", format!("{VS2}{}mov oPos, v0\n", "mov r0, v0\n".repeat(255)), false),
        ("16 static flow instructions in vs_2_0", format!("{VS2}{}mov oPos, v0\n", "if b0\nendif\n".repeat(16)), false),
        ("packed vs_3_0 outputs", format!("{VS3}dcl_texcoord0 o3.xy\ndcl_texcoord1 o3.zw\nmov o0, v0\nmov o3.xy, v0\nmov o3.zw, v0\n"), false),
        ("texldl with a declared sampler", format!("{VS3}dcl_2d s0\ntexldl r0, v0, s0\nmov o0, r0\n"), false),
        ("texldl into an output register, as Windows runs it (§6)", format!("{VS3}dcl_texcoord0 o1\ndcl_2d s0\nmov o0, v0\ntexldl o1, c0.x, s0\n"), false),
        ("texldl into part of an output register", format!("{VS3}dcl_texcoord0 o1\ndcl_2d s0\nmov o0, v0\ntexldl o1.xz, v0, s0.wzyx\n"), false),
        ("predicated vs_3_0", format!("{VS3}setp_gt p0.xy, v0, c0\n(!p0.x) mov r0, v0\n(p0) add r0, v0, c0\nmov o0, r0\n"), false),
        ("loop with aL indexing", format!("{VS3}defi i0, 4, 0, 1, 0\nmov r0, c0\nloop aL, i0\nadd r0, r0, c1[aL]\nendloop\nmov o0, r0\n"), false),
        ("subroutine called from a loop uses aL", format!("{VS3}mov r0, c0\nloop aL, i0\ncall l2\nendloop\nmov o0, r0\nret\nlabel l2\nadd r0, r0, c10[aL]\nret\n"), false),
        ("subroutine writes a temp read by main", format!("{VS2}call l0\nmov oPos, r7\nret\nlabel l0\nmov r7, v0\nret\n"), false),
        ("indexed outputs with position in o0", "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord0 o1\ndcl_texcoord1 o2\nmov o0, v0\nloop aL, i0\nmov o1[aL], v0\nendloop\n".into(), false),
        ("vs_2_x temps up to NumTemps", format!("{VS2X}mov r31, v0\nmov oPos, r31\n"), false),
        ("vs_2_x predication with max caps", format!("{VS2X}setp_gt p0, v0, c0\n(p0) mov r0, v0\nmov oPos, v0\n"), false),
        ("mova and indexed constants", format!("{VS2}mova a0.x, v0.x\nmov r0, c10[a0.x]\nmov oPos, r0\n"), false),
        ("vs_1_1", "vs_1_1\ndcl_position v0\nmov a0.x, v0.x\nmov r0, c[a0.x + 2]\nmov oPos, r0\n".into(), false),
        ("ps_2_0", "ps_2_0\ndcl t0.xy\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n".into(), false),
        ("ps_3_0 with vFace", "ps_3_0\ndcl vFace\ndcl_texcoord0 v0.xy\nif_gt vFace, c0.x\nmov r0, v0.x\nendif\nmov oC0, c0\n".into(), false),
    ];
    for (what, src, min) in valid {
        let caps = if *min { Caps::min() } else { Caps::max() };
        let e = errors_with(src, &caps);
        assert!(
            e.is_empty(),
            "{what}: {e:?}\n{src}\n{:?}",
            diagnostics(&parse(src).unwrap(), &caps)
        );
    }
}

#[test]
fn every_rule_has_an_id_summary_and_spec() {
    for (rule, id, summary, spec) in RULES {
        assert_eq!(rule.id(), *id);
        assert!(id.starts_with('V') && id.len() == 4);
        assert!(!summary.is_empty() && !spec.is_empty());
    }
}

#[test]
fn caps_presets_are_within_d3d9_ranges() {
    assert!(
        Caps::max().problems().is_empty(),
        "{:?}",
        Caps::max().problems()
    );
    assert!(
        Caps::min().problems().is_empty(),
        "{:?}",
        Caps::min().problems()
    );
    let mut bad = Caps::max();
    bad.vs20.num_temps = 40;
    assert_eq!(
        bad.problems(),
        [CapsProblem {
            field: "VS20Caps.NumTemps",
            value: 40,
            min: 12,
            max: 32
        }]
    );
}

/// Pixel-shader read ports, version by version, with the numbers of each version's register
/// table (`crate::registers::read_ports`): at each limit an instruction passes; one register
/// (or read) more is V007 (V008). Where an instruction cannot exceed a limit (r# has 3 ports
/// and no instruction 4 sources), the limit itself is shown to pass.
#[test]
fn pixel_shader_read_ports_follow_each_versions_table() {
    let port_rules = |src: &str| -> Vec<&'static str> {
        errors(src)
            .into_iter()
            .filter(|r| matches!(*r, "V007" | "V008"))
            .collect()
    };
    let ps1 = "def c0, 0, 0, 0, 0\ndef c1, 1, 1, 1, 1\ndef c2, 0.5, 0.5, 0.5, 0.5\n\
               tex t0\ntex t1\ntex t2\nmov r1, c0\n";
    let ps2 = "dcl v0\ndcl v1\ndcl t0\ndcl t1\nmov r1, c0\nmov r2, c0\nmov r3, c0\n";
    let ps3 = "dcl_color v0\ndcl_color1 v1\ndcl vPos.xy\ndcl vFace\nmov r1, c0\nmov r2, c0\n\
               mov r3, c0\n";
    #[rustfmt::skip]
    let cases: &[(&str, &str, &str, &[&str])] = &[
        // ps_1_1..ps_1_3: c# 2, r# 2, t# 2 / 3 / 3, v# 2 ports ("Read Port Limit" table).
        ("ps_1_1", ps1, "mad r0, c0, c1, v0", &[]),
        ("ps_1_1", ps1, "mad r0, c0, c1, c2", &["V007"]),
        ("ps_1_1", ps1, "mad r0, r0, r1, r0", &[]),
        ("ps_1_1", ps1, "add r0, v0, v1", &[]),
        ("ps_1_1", ps1, "add r0, t0, t1", &[]),
        ("ps_1_1", ps1, "mad r0, t0, t1, t2", &["V007"]),
        ("ps_1_2", ps1, "mad r0, t0, t1, t2", &[]),
        ("ps_1_2", ps1, "mad r0, c0, c1, c2", &["V007"]),
        ("ps_1_3", ps1, "mad r0, t0, t1, t2", &[]),
        ("ps_1_3", ps1, "mad r0, c2, c1, c0", &["V007"]),
        // ps_1_4: c# 2, r# 3, t# 1, v# 2.
        ("ps_1_4", "def c0, 0, 0, 0, 0\ndef c1, 1, 1, 1, 1\ndef c2, 0, 1, 0, 1\n\
                    texld r1, t0\ntexld r2, t1\ntexld r3, t2\n", "mad r0, r1, r2, r3", &[]),
        ("ps_1_4", "def c0, 0, 0, 0, 0\ndef c1, 1, 1, 1, 1\ndef c2, 0, 1, 0, 1\n",
                   "mad r0, c0, c1, c2", &["V007"]),
        ("ps_1_4", "def c0, 0, 0, 0, 0\ndef c1, 1, 1, 1, 1\n", "mad r0, c0, c1, c0", &[]),
        // ps_2_0 and ps_2_x: v# 1, r# 3, c# 1 port and 2 reads, t# 1 port.
        ("ps_2_0", ps2, "add r0, v0, v1", &["V007"]),
        ("ps_2_0", ps2, "mad r0, v0, v0.x, v0.y", &[]),
        ("ps_2_0", ps2, "mad r0, r1, r2, r3", &[]),
        ("ps_2_0", ps2, "add r0, c0, c1", &["V007"]),
        ("ps_2_0", ps2, "add r0, c0, c0.x", &[]),
        ("ps_2_0", ps2, "mad r0, c0, c0, c0", &["V008"]),
        ("ps_2_0", ps2, "add r0, t0, t1", &["V007"]),
        ("ps_2_0", ps2, "dp3 r0, t0, t0", &[]),
        ("ps_2_x", ps2, "add r0, v0, v1", &["V007"]),
        ("ps_2_x", ps2, "add r0, c0, c1", &["V007"]),
        ("ps_2_x", ps2, "mad r0, c0, c0, c0", &["V008"]),
        ("ps_2_x", ps2, "add r0, t0, t1", &["V007"]),
        ("ps_2_x", ps2, "mad r0, r1, r2, r3", &[]),
        // ps_3_0: v# 1, r# 3, c# 1 port and unlimited reads; vPos and vFace a port each.
        ("ps_3_0", ps3, "add r0, v0, v1", &["V007"]),
        ("ps_3_0", ps3, "add r0, v0, v0.x", &[]),
        ("ps_3_0", ps3, "mad r0, r1, r2, r3", &[]),
        ("ps_3_0", ps3, "add r0, c0, c1", &["V007"]),
        ("ps_3_0", ps3, "mad r0, c0, c0, c0", &[]),
        ("ps_3_0", ps3, "add r0, vPos.x, v0", &[]),
        ("ps_3_0", ps3, "if_lt vFace, vPos.x\nendif", &[]),
    ];
    for (version, setup, line, want) in cases {
        let src = format!("{version}\n{setup}{line}\nmov oC0, r0\n");
        let src = if version.starts_with("ps_1") {
            src.replace("mov oC0, r0\n", "")
        } else {
            src
        };
        assert_eq!(port_rules(&src), *want, "{version}: {line}\n{src}");
    }
    // The brief's example: ps_3_0's v# has one read port.
    assert!(
        errors("ps_3_0\ndcl_texcoord v0\ndcl_texcoord1 v1\nadd oC0, v0, v1\n").contains(&"V007")
    );
}

/// Token fields the text cannot spell are refused (the round-trip law, `encoding.rs`); the
/// spellable values of the same fields are not.
#[test]
fn fields_without_a_spelling_are_refused() {
    // (source, index of the instruction token to alter, bits to set or (mask) clear, rule)
    let cases: &[(&str, usize, u32, u32, Option<&str>)] = &[
        // mov with instruction-control bits.
        (VS3_MOV, 7, 0x0001_0000, 0, Some("V061")),
        (VS3_MOV, 7, 0x0080_0000, 0, Some("V061")),
        // setp_gt (comparison 1) with a bit above the comparison.
        (VS3_SETP, 7, 0x0008_0000, 0, Some("V061")),
        (VS3_SETP, 7, 0, 0, None),
        // ps_2_0 texld: control 3 is neither texldp (1) nor texldb (2).
        (PS2_TEXLD, 7, 0x0003_0000, 0, Some("V061")),
        (PS2_TEXLD, 7, 0x0001_0000, 0, None),
        (PS2_TEXLD, 7, 0x0002_0000, 0, None),
        // The co-issue bit in a vertex shader and in ps_2_0.
        (VS3_MOV, 7, 1 << 30, 0, Some("V062")),
        (PS2_TEXLD, 7, 1 << 30, 0, Some("V062")),
        // A destination write mask of 0.
        (VS3_MOV, 8, 0, 0x000F_0000, Some("V031")),
        // A shift in vs_1_1 (the text has none for vertex shaders); in ps_1_1 one of the six
        // defined shifts, not 5.
        (VS11_MOV, 5, 0x0100_0000, 0, Some("V034")),
        (PS11_MOV, 4, 0x0500_0000, 0, Some("V034")),
        (PS11_MOV, 4, 0x0100_0000, 0, None),
        // _dz outside ps_1_4.
        (PS11_MOV, 5, 0x0900_0000, 0, Some("V033")),
        // An aL index with a swizzle (.xxxx instead of the identity `c[aL]` writes).
        (VS3_LOOP, 22, 0, 0x00E4_0000, Some("V010")),
        (VS3_LOOP, 22, 0, 0, None),
    ];
    for &(src, at, set, clear, want) in cases {
        let mut tokens = crate::binary::write(&shader(src)).unwrap();
        tokens[at] = (tokens[at] | set) & !clear;
        let read = crate::binary::read(&tokens).unwrap();
        let got = ir_errors(&read, &Caps::max());
        match want {
            Some(id) => assert!(got.contains(&id), "{src} 0x{:08x}: {got:?}", tokens[at]),
            None => assert!(got.is_empty(), "{src} 0x{:08x}: {got:?}", tokens[at]),
        }
    }
    // Co-issue where it exists (ps_1_x) stays valid.
    let ps11 = shader("ps_1_1\ntex t0\nmov r0.rgb, t0\n+mov r0.a, t0\n");
    assert!(ps11.instructions[2].coissue);
    assert_eq!(ir_errors(&ps11, &Caps::max()), Vec::<&str>::new());
}

/// Tokens: the version, two dcl (3 words each), then the instruction token at word 7.
const VS3_MOV: &str = "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n";
const VS3_SETP: &str = "vs_3_0\ndcl_position v0\ndcl_position o0\nsetp_gt p0, v0, v0\nmov o0, v0\n";
const PS2_TEXLD: &str = "ps_2_0\ndcl t0\ndcl_2d s0\ntexld r0, t0, s0\nmov oC0, r0\n";
const VS11_MOV: &str = "vs_1_1\ndcl_position v0\nmov oPos, v0\n";
const PS11_MOV: &str = "ps_1_1\ntex t0\nmov r0, t0\n";
/// The relative token of `c0[aL]` is word 22.
const VS3_LOOP: &str = "vs_3_0\ndcl_position v0\ndcl_position o0\ndefi i0, 1, 0, 1, 0\nmov o0, v0\nloop aL, i0\nmov o0, c0[aL]\nendloop\n";

/// A declaration with the predicated bit (28) and a predicate token has no spelling (`(p0)`
/// exists for instructions only): V038, whatever register the predicate token names. Found by
/// the reader's fuzz target (`fuzz-regressions/reader/predicated-def.vso`), where the token
/// named oT9 and printed as `(oT9.wwxx) def c2, ...`.
#[test]
fn predicated_declarations_are_refused() {
    let one = 1.0f32.to_bits();
    // ps_1_1: def c2 (predicated), predicate token oT9.wwxx, four values.
    let ps11 = [
        0xFFFF_0101,
        0x1000_0051,
        0xA00F_0002,
        0xE00F_0009,
        one,
        one,
        0,
        0,
        0x0000_FFFF,
    ];
    // vs_3_0: def c0 predicated by p0 (a valid predicate anywhere else), then dcl_position
    // v0 predicated by p0.
    let p0 = 0xB0E4_1000;
    let vs3 = [
        0xFFFE_0300,
        0x1600_0051,
        0xA00F_0000,
        p0,
        one,
        one,
        one,
        one,
        0x0000_FFFF,
    ];
    let vs3_dcl = [
        0xFFFE_0300,
        0x1300_001F,
        0x8000_0000,
        0x900F_0000,
        p0,
        0x0000_FFFF,
    ];
    for tokens in [&ps11[..], &vs3[..], &vs3_dcl[..]] {
        let read = crate::binary::read(tokens).unwrap();
        assert!(read.instructions[0].predicate.is_some());
        let got = ir_errors(&read, &Caps::max());
        assert!(got.contains(&"V038"), "{tokens:08x?}: {got:?}");
    }
}

#[test]
fn crs_in_a_pixel_shader_passes_when_it_keeps_the_rules() {
    let ok =
        "ps_2_0\ndef c0, 1, 0, 0, 0\nmov r1, c0\ncrs r0.xyz, r1, c0\nmov r0.w, c0.x\nmov oC0, r0\n";
    assert_eq!(errors(ok), Vec::<&str>::new());
}
