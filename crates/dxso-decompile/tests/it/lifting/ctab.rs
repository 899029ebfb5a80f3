//! The constant table: every kind it declares, and an embedded CTAB naming as the listing
//! header does.

use super::hlsl;
use dxso_decompile::{Options, listing_table};

/// Every kind the constant table has: a column_major and a row_major matrix, a `float4` array indexed by `a0` and by `aL`, a struct (declared, members by name), an `int` as the `int4` register a loop reads, a `bool` for `if`, a sampler, a `float` read as a scalar.
#[test]
fn constant_table_kinds() {
    const SOURCE: &str = r#"// Parameters:
//
//   float4x4 World;
//   row_major float4x4 ViewProj;
//   float4 Lights[8];
//   struct
//   {
//       float4 color;
//       float3 dir;
//   } Sun;
//   int Count;
//   bool UseFog;
//   sampler2D Diffuse;
//   float Scale;
//
// Registers:
//
//   Name         Reg   Size
//   ------------ ----- ----
//   UseFog       b0       1
//   Count        i0       1
//   World        c0       4
//   ViewProj     c4       4
//   Lights       c8       8
//   Sun          c16      2
//   Scale        c18      1
//   Diffuse      s0       1
//
vs_3_0
dcl_position v0
dcl_normal v1
dcl_texcoord v2
dcl_position o0
dcl_texcoord o1
dcl_color o2
dcl_2d s0
dp4 r0.x, v0, c0
dp4 r0.y, v0, c1
dp4 r0.z, v0, c2
dp4 r0.w, v0, c3
dp4 o0.x, r0, c4
dp4 o0.y, r0, c5
dp4 o0.z, r0, c6
dp4 o0.w, r0, c7
dp3 r1.w, v1, v1
rsq r1.w, r1.w
mul r1.xyz, v1, r1.w
mova a0.x, v2.z
mov r5, c16
mul r2, r5, c8[a0.x]
dp3 r2.w, r1, c17
mul r2.xyz, r2, r2.w
if b0
mul r2, r2, c18.x
endif
texldl r3, v2, s0
mov r4, c8
loop aL, i0
add r4, r4, c8[aL]
endloop
mul o1, r3, r4
mov o2, r2
"#;
    let expected = r#"// vs_3_0 vertex shader, decompiled by dxso (for fxc)

struct Sun_t
{
    float4 color;
    float3 dir;
};

bool UseFog : register(b0);
int4 Count : register(i0); // int in the constant table
column_major float4x4 World : register(c0);
row_major float4x4 ViewProj : register(c4);
float4 Lights[8] : register(c8);
Sun_t Sun : register(c16);
float Scale : register(c18);
sampler2D Diffuse : register(s0);

struct VS_INPUT
{
    float4 position : POSITION;
    float4 normal : NORMAL;
    float4 texcoord0 : TEXCOORD0;
};

struct VS_OUTPUT
{
    float4 position : POSITION;
    float4 texcoord0 : TEXCOORD0;
    float4 color0 : COLOR0;
};

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
    float4 r0 = 0;
    float3 r1 = 0;
    float4 r2 = 0;
    float4 r3 = 0;
    float4 r4 = 0;
    int4 a0 = 0;
    r0 = mul(i.position, World);
    o.position = mul(ViewProj, r0);
    r1 = normalize(i.normal.xyz);
    a0.x = (int)dx9_round(i.texcoord0.z);
    r2 = Sun.color * Lights[a0.x];
    r2.w = dot(r1, Sun.dir);
    r2.xyz = r2.xyz * r2.w;
    if (UseFog) {
        r2 = r2 * Scale;
    }
    r3 = tex2Dlod(Diffuse, i.texcoord0);
    r4 = Lights[0];
    for (int aL = Count.y, n = 0; n < Count.x; aL += Count.z, n++) {
        r4 = r4 + Lights[aL];
    }
    o.texcoord0 = r3 * r4;
    o.color0 = r2;
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE), expected);
}

/// A shader carrying its table as a CTAB comment block decompiles as the listing whose
/// header describes the same table.
#[test]
fn an_embedded_ctab_names_as_the_header_does() {
    const SOURCE: &str = r#"// Parameters:
//
//   float4x4 World;
//   row_major float4x4 ViewProj;
//   float4 Lights[8];
//   struct
//   {
//       float4 color;
//       float3 dir;
//   } Sun;
//   int Count;
//   bool UseFog;
//   sampler2D Diffuse;
//   float Scale;
//
// Registers:
//
//   Name         Reg   Size
//   ------------ ----- ----
//   UseFog       b0       1
//   Count        i0       1
//   World        c0       4
//   ViewProj     c4       4
//   Lights       c8       8
//   Sun          c16      2
//   Scale        c18      1
//   Diffuse      s0       1
//
vs_3_0
dcl_position v0
dcl_normal v1
dcl_texcoord v2
dcl_position o0
dcl_texcoord o1
dcl_color o2
dcl_2d s0
dp4 r0.x, v0, c0
dp4 r0.y, v0, c1
dp4 r0.z, v0, c2
dp4 r0.w, v0, c3
dp4 o0.x, r0, c4
dp4 o0.y, r0, c5
dp4 o0.z, r0, c6
dp4 o0.w, r0, c7
dp3 r1.w, v1, v1
rsq r1.w, r1.w
mul r1.xyz, v1, r1.w
mova a0.x, v2.z
mov r5, c16
mul r2, r5, c8[a0.x]
dp3 r2.w, r1, c17
mul r2.xyz, r2, r2.w
if b0
mul r2, r2, c18.x
endif
texldl r3, v2, s0
mov r4, c8
loop aL, i0
add r4, r4, c8[aL]
endloop
mul o1, r3, r4
mov o2, r2
"#;
    let mut shader = dxso::text::parse(SOURCE).expect("assembles");
    let table = listing_table(SOURCE, shader.version).expect("a header");
    shader.set_constant_table(&table);
    let checked =
        dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("validates");
    let embedded = dxso_decompile::decompile(&checked, &Options::default()).unwrap();
    assert_eq!(embedded, hlsl(SOURCE));
}
