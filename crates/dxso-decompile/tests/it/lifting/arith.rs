//! Arithmetic and matrix patterns: `mul(v, M)`, `normalize`/`length`, `mad`/`lrp`/`cmp`/
//! `_sat`, and when a temporary is folded into its reader.

use super::{hlsl, main_of};

/// `dp4` x 4 over a column_major matrix is `mul(v, M)`; `m4x3`/`m3x3` over column_major matrices the same (3 columns, a float3 vector).
#[test]
fn matrix_rows_and_columns_become_mul() {
    const SOURCE: &str = r#"// Parameters:
//
//   float4x4 WorldViewProj;
//   float4x3 World;
//   float3x3 NormalMatrix;
//
// Registers:
//
//   Name          Reg   Size
//   ------------- ----- ----
//   WorldViewProj c0       4
//   World         c4       3
//   NormalMatrix  c8       3
//
vs_2_0
dcl_position v0
dcl_normal v1
dp4 oPos.x, v0, c0
dp4 oPos.y, v0, c1
dp4 oPos.z, v0, c2
dp4 oPos.w, v0, c3
m4x3 oT0.xyz, v0, c4
m3x3 oT1.xyz, v1, c8
"#;
    let expected = r#"// vs_2_0 vertex shader, decompiled by dxso (for fxc)

column_major float4x4 WorldViewProj : register(c0);
column_major float4x3 World : register(c4);
column_major float3x3 NormalMatrix : register(c8);

struct VS_INPUT
{
    float4 position : POSITION;
    float4 normal : NORMAL;
};

struct VS_OUTPUT
{
    float4 position : POSITION;
    float4 texcoord0 : TEXCOORD0;
    float4 texcoord1 : TEXCOORD1;
};

VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    o.position = mul(i.position, WorldViewProj);
    o.texcoord0.xyz = mul(i.position, World);
    o.texcoord1.xyz = mul(i.normal.xyz, NormalMatrix);
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE), expected);
}

/// `dp3`+`rsq`+`mul` is `normalize`, `dp3`+`rsq`+`rcp` is `length`, `nrm` is `normalize` (folded into its one reader).
#[test]
fn normalize_length_and_nrm() {
    const SOURCE: &str = r#"vs_2_0
dcl_position v0
dcl_normal v1
mov oPos, v0
dp3 r0.w, v1, v1
rsq r0.w, r0.w
mul oT0.xyz, v1, r0.w
dp3 r1.x, v0, v0
rsq r1.x, r1.x
rcp oT1.x, r1.x
nrm r2.xyz, v1
mul oT2.xyz, r2, c0.x
"#;
    let expected = r#"VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    o.position = i.position;
    o.texcoord0.xyz = normalize(i.normal.xyz);
    o.texcoord1.x = length(i.position.xyz);
    o.texcoord2.xyz = normalize(i.normal.xyz) * c[0].x;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// `mad` is `a * b + c` (a `def` literal inlined), `lrp` is `lerp`, `cmp` is `?:`, `_sat` is `saturate`; without a table the constants are `float4 c[N]`.
#[test]
fn mad_lrp_cmp_and_saturate() {
    const SOURCE: &str = r#"ps_2_0
def c0, 0.5, 2, -1, 0
dcl t0.xy
dcl t1
dcl v0
dcl_2d s0
texld r0, t0, s0
mad r1, r0, c0.y, c0.z
lrp r2, v0.w, r1, t1
cmp r3, r2, r0, c1
mul r3.w, r3.w, c0.x
mov_sat oC0, r3
"#;
    let expected = r#"// ps_2_0 pixel shader, decompiled by dxso (for fxc)

float4 c[2] : register(c0);
sampler2D s0 : register(s0);

struct PS_INPUT
{
    float4 color0 : COLOR0;
    float4 texcoord0 : TEXCOORD0;
    float4 texcoord1 : TEXCOORD1;
};

struct PS_OUTPUT
{
    float4 color0 : COLOR0;
};

PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    float4 r3 = 0;
    r0 = tex2D(s0, i.texcoord0.xy);
    r3 = lerp(i.texcoord1, r0 * 2 - 1, i.color0.wwww) >= 0 ? r0 : c[1];
    r3.w = r3.w * 0.5;
    o.color0 = saturate(r3);
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE), expected);
}

/// A value folded into its reader (`mov r0, c8`) no longer stands for r0 once a lifted group (the dp4s) writes r0: the last add reads the product.
#[test]
fn a_lifted_group_ends_a_folded_value() {
    const SOURCE: &str = r#"vs_2_0
dcl_position v0
mov r0, c8
add r1, r0, v0
dp4 r0.x, v0, c0
dp4 r0.y, v0, c1
dp4 r0.z, v0, c2
dp4 r0.w, v0, c3
add oPos, r0, r1
"#;
    let expected = r#"VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    float4 r0 = 0;
    float4 r1 = 0;
    r1 = c[8] + i.position;
    r0 = mul(float4x4(c[0], c[1], c[2], c[3]), i.position);
    o.position = r0 + r1;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// `r2 = r1 + c1` folds `r1 = r5 * c0`, which folds `r5 = v0`: the later write of r5 keeps r2 a statement, as the fold would read the new r5.
#[test]
fn a_folded_value_waits_for_what_its_sources_read() {
    const SOURCE: &str = r#"vs_2_0
dcl_position v0
mov r5, v0
mul r1, r5, c0
add r2, r1, c1
mov r5, c2
add oPos, r2, r5
"#;
    let expected = r#"VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    float4 r2 = 0;
    r2 = i.position * c[0] + c[1];
    o.position = r2 + c[2];
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// A division of two integer literals is written with a float dividend: `rcp` of a `def`ined
/// 768 is `1.0 / 768` (HLSL's `1 / 768` divides integers: 0), and a `_d2` shift of a
/// literal 1 is `1.0 / 2`; a register divisor keeps `1 / x`.
#[test]
fn integer_literals_divide_as_floats() {
    let vs = hlsl(
        "vs_3_0\ndcl_position v0\ndcl_position o0\ndcl_texcoord o1\ndef c0, 1280, 768, 1, 0\n\
         rcp r0.x, c0.y\nrcp r0.y, v0.x\nmul o0, r0.xxxy, v0\nmov o1, c0\n",
    );
    assert!(main_of(&vs).contains("1.0 / 768"), "rcp of a literal: {vs}");
    assert!(main_of(&vs).contains("1 / i.position.x"), "{vs}");
    assert!(!main_of(&vs).contains(" 1 / 768"), "{vs}");
    let ps = hlsl("ps_1_4\ndef c0, 1, 1, 1, 1\nmov_d2 r0, c0.x\n");
    assert!(main_of(&ps).contains("1.0 / 2"), "a _d2 of 1: {ps}");
}
