//! Pixel shaders 1.1 .. 1.4: texture addressing instructions, `phase`, `cnd`.

use super::{hlsl, main_of};

/// ps_1_1: `t#` start as their coordinates, `tex` samples its stage, the pads' dot products feed the reflection `texm3x3spec` looks up, `cnd` tests r0's alpha.
#[test]
fn ps_1_1_texm3x3spec_and_cnd() {
    const SOURCE: &str = r#"ps_1_1
tex t0
texm3x3pad t1, t0_bx2
texm3x3pad t2, t0_bx2
texm3x3spec t3, t0_bx2, c0
mov r0, t0
cnd r0, r0.a, t3, v0
"#;
    let expected = r#"PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    float4 t0 = i.texcoord0;
    float4 t1 = i.texcoord1;
    float4 t2 = i.texcoord2;
    float4 t3 = i.texcoord3;
    t0 = tex2D(s0, i.texcoord0.xy);
    float pad1 = dot(i.texcoord1.xyz, 2 * t0.xyz - 1);
    float pad2 = dot(i.texcoord2.xyz, 2 * t0.xyz - 1);
    float3 normal3 = float3(pad1, pad2, dot(i.texcoord3.xyz, 2 * t0.xyz - 1));
    float3 eye3 = c[0].xyz;
    t3 = texCUBE(s3, 2 * normal3 * dot(normal3, eye3) / dot(normal3, normal3) - eye3);
    r0 = t0;
    r0 = r0.w > 0.5 ? t3 : i.color0;
    o.color0 = r0;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// ps_1_4: `texld r#, t#` samples stage #, `texcrd` copies the coordinate, `_bx2` is `2 * x - 1`, `phase` clears the temporaries' alpha.
#[test]
fn ps_1_4_phase_and_dependent_read() {
    const SOURCE: &str = r#"ps_1_4
texld r0, t0
texcrd r1.xyz, t1
dp3 r1, r0_bx2, r1
phase
texld r2, r1
mul r0, r2, r0
+mov r0.a, c0.a
"#;
    let expected = r#"PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    float4 r1 = 0;
    float4 r2 = 0;
    r0 = tex2D(s0, i.texcoord0.xy);
    r1.xyz = i.texcoord1.xyz;
    r1 = dot(2 * r0.xyz - 1, r1.xyz);
    // phase
    r0.w = 0;
    r1.w = 0;
    r2 = tex2D(s2, r1.xy);
    r0 = r2 * r0;
    r0.w = c[0].w;
    o.color0 = r0;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// `texbem` offsets the coordinate by the bump matrix (texture stage state, declared as such), `texcoord` is the saturated coordinate with w = 1.
#[test]
fn ps_1_1_texbem_and_texcoord() {
    const SOURCE: &str = r#"ps_1_1
tex t0
texbem t1, t0
texcoord t2
mul r0, t1, t2
"#;
    let expected = r#"// ps_1_1 pixel shader, decompiled by dxso (for fxc)

sampler2D s0 : register(s0);
sampler2D s1 : register(s1);
float4 BUMPENVMAT1; // (D3DTSS_BUMPENVMAT00, 01, 10, 11) of stage 1: texture stage state, not a constant

struct PS_INPUT
{
    float4 texcoord0 : TEXCOORD0;
    float4 texcoord1 : TEXCOORD1;
    float4 texcoord2 : TEXCOORD2;
};

struct PS_OUTPUT
{
    float4 color0 : COLOR0;
};

PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    float4 t0 = i.texcoord0;
    float4 t1 = i.texcoord1;
    float4 t2 = i.texcoord2;
    t0 = tex2D(s0, i.texcoord0.xy);
    t1 = tex2D(s1, i.texcoord1.xy + t0.x * BUMPENVMAT1.xy + t0.y * BUMPENVMAT1.zw);
    t2 = float4(saturate(i.texcoord2.xyz), 1);
    r0 = t1 * t2;
    o.color0 = r0;
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE), expected);
}
