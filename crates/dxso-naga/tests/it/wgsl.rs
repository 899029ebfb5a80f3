//! Asserted excerpts of the WGSL of small shaders: the Strict formulas (dxso-vm's, from
//! `crates/dxso-vm/src/exec.rs`) and their plain Ieee counterparts, relative addressing
//! with its bounds check, non-finite `def`s, flow control and the entry points.

use dxso_naga::{FloatMode, Options, Output, Target};

fn wgsl_of(shader: &dxso::Shader, float: FloatMode) -> String {
    let checked = dxso::validate::validate(shader, &dxso::validate::Caps::max()).expect("valid");
    let t = dxso_naga::translate(&checked, &Options { float }).expect("translates");
    match dxso_naga::write(&t, Target::Wgsl).expect("writes") {
        Output::Text(s) => s,
        Output::SpirV(_) => unreachable!("WGSL is text"),
    }
}

fn wgsl(src: &str, float: FloatMode) -> String {
    wgsl_of(&dxso::text::parse(src).expect("assembles"), float)
}

const FLT_MAX: &str = "340282350000000000000000000000000000000f";

#[test]
fn strict_products_with_a_zero_factor_are_zero_and_ieee_is_plain() {
    let src = "vs_2_0\ndcl_position v0\nmul r0, v0, c0\nmad oPos, v0, c1, r0\n";
    let s = wgsl(src, FloatMode::Strict);
    // select(a * b, +0, a == 0 | b == 0), the zero one expression for the whole function.
    assert!(
        s.contains(
            "select((inputs.v0_ * _e18), vec4<f32>(), \
             ((inputs.v0_ == vec4<f32>()) | (_e18 == vec4<f32>())))"
        ),
        "{s}"
    );
    let i = wgsl(src, FloatMode::Ieee);
    assert!(!i.contains("select("), "{i}");
    assert!(i.contains("(inputs.v0_ * _e"), "{i}");
}

#[test]
fn rcp_rsq_log_of_zero() {
    let src =
        "vs_2_0\ndcl_position v0\nrcp r0.x, v0.x\nrsq r0.y, v0.y\nlog r0.z, v0.z\nmov oPos, r0\n";
    let s = wgsl(src, FloatMode::Strict);
    // rcp/rsq of 0 give FLT_MAX, log of 0 -FLT_MAX (C5, C6); log2 is dxso-vm's series.
    assert_eq!(s.matches(FLT_MAX).count(), 3, "{s}");
    assert!(s.contains(&format!("-{FLT_MAX}")), "{s}");
    assert!(s.contains("0.14285715f"), "{s}");
    let i = wgsl(src, FloatMode::Ieee);
    assert!(!i.contains(FLT_MAX), "{i}");
    assert!(i.contains("inverseSqrt(abs("), "{i}");
    assert!(i.contains("log2(abs("), "{i}");
}

#[test]
fn exp_uses_dxso_vm_polynomial_in_strict() {
    let src = "vs_2_0\ndcl_position v0\nexp r0, v0.x\nmov oPos, r0\n";
    let s = wgsl(src, FloatMode::Strict);
    assert!(s.contains("0.000015252734f"), "{s}");
    assert!(s.contains("-151f") && s.contains("129f"), "{s}");
    assert!(wgsl(src, FloatMode::Ieee).contains("exp2("));
}

#[test]
fn relative_constants_are_bounds_checked() {
    let s = wgsl(
        "vs_2_0\ndcl_position v0\nmova a0.y, v0.x\nmov oPos, c[a0.y + 7]\n",
        FloatMode::Ieee,
    );
    // Index as u32 (negatives are huge; the sum wraps as the i32 sum), clamped load, and 0
    // outside the 256 registers.
    assert!(s.contains("(bitcast<u32>(_e"), "{s}");
    assert!(s.contains(".y) + 7u)"), "{s}");
    assert!(s.contains("c[min(_e"), "{s}");
    assert!(s.contains(", 255u)]"), "{s}");
    assert!(s.contains("< 256u)"), "{s}");
    // mova: round half to even, NaN -> 0 (C3).
    assert!(s.contains("round("), "{s}");
    assert!(s.contains("!= _e"), "{s}");
}

#[test]
fn vs_1_1_mov_to_a0_floors() {
    let s = wgsl(
        "vs_1_1\ndcl_position v0\nmov a0.x, v0.x\nmov oPos, c[a0.x]\n",
        FloatMode::Strict,
    );
    assert!(s.contains("floor("), "{s}");
    assert!(!s.contains("round("), "{s}");
    // Unwritten oD0 of vs_1_1 .. vs_2_x is 1.0 (C11).
    assert!(
        s.contains("let _e14 = vec4(1f);") && s.contains("oD0_ = _e14;"),
        "{s}"
    );
}

#[test]
fn non_finite_defs_are_bitcasts() {
    let mut shader =
        dxso::text::parse("vs_2_0\ndcl_position v0\ndef c0, 1, 2, 3, 4\nmul oPos, v0, c0\n")
            .expect("assembles");
    let def = shader
        .instructions
        .iter_mut()
        .find(|i| i.opcode == dxso::Opcode::Def)
        .expect("def");
    def.imm = vec![f32::INFINITY.to_bits(), f32::NAN.to_bits(), 0, 0x8000_0000];
    let s = wgsl_of(&shader, FloatMode::Strict);
    assert!(s.contains("bitcast<f32>(2139095040u)"), "{s}");
    assert!(s.contains("bitcast<f32>(2143289344u)"), "{s}");
    // -0.0 is a literal.
    assert!(s.contains("-0f"), "{s}");
    // No buffer: every c# read is a def.
    assert!(!s.contains("var<uniform>"), "{s}");
}

#[test]
fn loops_save_al_and_count_i() {
    let s = wgsl(
        "vs_3_0\ndcl_position v0\ndcl_position o0\ndefi i0, 3, 2, 1, 0\nmov r0, v0\n\
         loop aL, i0\nadd r0, r0, c0[aL]\nbreak_gt r0.x, c1.x\nendloop\nmov o0, r0\n",
        FloatMode::Ieee,
    );
    assert!(s.contains("loop {"), "{s}");
    assert!(s.contains("continuing {"), "{s}");
    assert!(s.contains("break;"), "{s}");
    // aL saved before the loop and restored after it.
    let saved = s.find("= aL;").expect("aL saved");
    let restored = s.rfind("aL = _e").expect("aL restored");
    assert!(saved < restored, "{s}");
}

#[test]
fn pixel_shader_entry_point_and_texkill() {
    let s = wgsl(
        "ps_3_0\ndcl_texcoord0 v0\ndcl vFace\ndcl_2d s0\ntexkill v0\ntexld r0, v0, s0\n\
         if_lt vFace, c0.x\nmov r0, c1\nendif\nmov oC0, r0\n",
        FloatMode::Strict,
    );
    assert!(s.contains("@fragment"), "{s}");
    assert!(s.contains("discard;"), "{s}");
    assert!(s.contains("textureSample(t0_, s0_,"), "{s}");
    assert!(s.contains("@builtin(front_facing)"), "{s}");
    assert!(s.contains("@location(0) oC0_color0_: vec4<f32>"), "{s}");
    assert!(s.contains("@group(3) @binding(0)"), "{s}");
}

/// SPIR-V names its entry point and interface (`OpName`) in every build of dxso: naga adds
/// names only where debug assertions are on, so without asking for them a release build
/// wrote other bytes than a debug build for the same shader.
#[test]
fn spirv_names_its_values_in_every_build() {
    let shader = dxso::text::parse("ps_2_0\ndcl t0\nmov oC0, t0\n").expect("assembles");
    let checked = dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("valid");
    let t = dxso_naga::translate(&checked, &Options::default()).expect("translates");
    let Output::SpirV(words) = dxso_naga::write(&t, Target::SpirV).expect("writes") else {
        unreachable!("SPIR-V is binary")
    };
    // OpName (opcode 5) whose literal string is "ps_main\0" (little-endian words).
    let name: Vec<u32> = b"ps_main\0"
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let named = words
        .windows(4)
        .any(|w| w[0] & 0xffff == 5 && w[0] >> 16 == 4 && w[2..] == name[..]);
    assert!(named, "no OpName \"ps_main\" in the module");
}
