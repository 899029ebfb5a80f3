//! Relative addressing: `a0`-indexed arrays, the defs a relative read sees, `mova` rounding.

use super::{hlsl, main_of};

/// `c[a0.x + n]` inside an array parameter is an index into it; a matrix array is indexed by element and column.
#[test]
fn relative_addressing_indexes_the_array() {
    const SOURCE: &str = r#"// Parameters:
//
//   float4 Palette[16];
//   float4x3 Bones[20];
//
// Registers:
//
//   Name          Reg   Size
//   ------------- ----- ----
//   Palette       c4      16
//   Bones         c20     60
//
vs_2_0
dcl_position v0
dcl_blendindices v1
mova a0.xy, v1
mov oD0, c6[a0.x]
dp4 oPos.x, v0, c20[a0.y]
dp4 oPos.y, v0, c21[a0.y]
dp4 oPos.z, v0, c22[a0.y]
mov oPos.w, v0.w
"#;
    let expected = r#"VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    int4 a0 = 0;
    a0.xy = (int2)dx9_round(i.blendindices.xy);
    o.color0 = Palette[a0.x + 2];
    o.position.x = dot(i.position, transpose(Bones[a0.y / 3])[a0.y % 3]);
    o.position.y = dot(i.position, transpose(Bones[(a0.y + 1) / 3])[(a0.y + 1) % 3]);
    o.position.z = dot(i.position, transpose(Bones[(a0.y + 2) / 3])[(a0.y + 2) % 3]);
    o.position.w = i.position.w;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// A relative read sees the shader's `def`s (c5 here, one past the base): the `c` array
/// is read through a copy with the defs written over it, 0 outside the register file.
#[test]
fn relative_reads_see_the_defs() {
    const SOURCE: &str = r#"vs_2_0
def c5, 1, 2, 3, 4
dcl_position v0
dcl_texcoord v1
mova a0.x, v1.x
mov oPos, c4[a0.x]
"#;
    let expected = r#"// vs_2_0 vertex shader, decompiled by dxso (for fxc)

float4 c[256] : register(c0);

struct VS_INPUT
{
    float4 position : POSITION;
    float4 texcoord0 : TEXCOORD0;
};

struct VS_OUTPUT
{
    float4 position : POSITION;
};

// The constants as relative reads see them: the shader's defs written over the
// uniforms (filled as main starts), 0 outside the register file (dxso's choice).
static float4 cd[256];
float4 cd_at(int k)
{
    return (uint)k < 256 ? cd[k] : 0;
}

// mova's rounding: to nearest, exact halves to even.
float4 dx9_round(float4 x)
{
    float4 t = floor(x);
    float4 d = x - t;
    return t + (float4)(d > 0.5) + (float4)(d == 0.5) * (frac(t * 0.5) * 2);
}
float3 dx9_round(float3 x) { return dx9_round(float4(x, 0)).xyz; }
float2 dx9_round(float2 x) { return dx9_round(float4(x, 0, 0)).xy; }
float dx9_round(float x) { return dx9_round(float4(x, 0, 0, 0)).x; }

VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    int4 a0 = 0;
    for (int k = 0; k < 256; k++) {
        cd[k] = c[k];
    }
    cd[5] = float4(1, 2, 3, 4);
    a0.x = (int)dx9_round(i.texcoord0.x);
    o.position = cd_at(a0.x + 4);
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE), expected);
}

/// `mova` rounds to nearest with exact halves to even (C3): a `dx9_round` helper whose every
/// step is exact, not HLSL's `round` (whose halves are the implementation's).
#[test]
fn mova_rounds_halves_to_even() {
    const SOURCE: &str = "vs_2_0\ndcl_position v0\nmova a0.x, v0.x\nmova a0.yz, v0\n\
                          mov oPos, c4[a0.x]\nmov oD0, c4[a0.y]\nmov oD1, c4[a0.z]\n";
    let text = hlsl(SOURCE);
    let helper = "
// mova's rounding: to nearest, exact halves to even.
float4 dx9_round(float4 x)
{
    float4 t = floor(x);
    float4 d = x - t;
    return t + (float4)(d > 0.5) + (float4)(d == 0.5) * (frac(t * 0.5) * 2);
}
float3 dx9_round(float3 x) { return dx9_round(float4(x, 0)).xyz; }
float2 dx9_round(float2 x) { return dx9_round(float4(x, 0, 0)).xy; }
float dx9_round(float x) { return dx9_round(float4(x, 0, 0, 0)).x; }
";
    assert!(text.contains(helper), "{text}");
    assert!(!text.contains(" round("), "{text}");
    let main = main_of(&text);
    assert!(
        main.contains("a0.x = (int)dx9_round(i.position.x);"),
        "{main}"
    );
    assert!(
        main.contains("a0.yz = (int2)dx9_round(i.position.yz);"),
        "{main}"
    );
    // A shader without mova has no helper.
    assert!(!hlsl("vs_2_0\ndcl_position v0\nmov oPos, v0\n").contains("dx9_round"));
}
