//! Lifting, pattern by pattern: small shaders written for these tests, and the HLSL a
//! person would write for them (read and checked by hand against the instructions'
//! semantics in `../shared/spec/instructions.md`).

use dxso_decompile::{Options, decompile_with_table, listing_table};

/// The HLSL of `source` (a listing; its header, if any, is the constant table).
fn hlsl(source: &str) -> String {
    let shader = dxso::text::parse(source).expect("assembles");
    let checked =
        dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("validates");
    let table = listing_table(source, shader.version);
    decompile_with_table(&checked, table.as_ref(), &Options::default()).expect("decompiles")
}

/// `main` and what follows it.
fn main_of(text: &str) -> &str {
    let at = text
        .find("\nVS_OUTPUT main(")
        .or_else(|| text.find("\nPS_OUTPUT main("));
    &text[at.expect("a main function") + 1..]
}

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

/// `loop aL, i#` with a `defi` is a `for` over its start, step and count (nested loops get their own counter), `rep` of a uniform `i#` counts to its x, `break`/`break_ge`/`if`/`else` nest as written.
#[test]
fn loops_with_al_rep_break_and_else() {
    const SOURCE: &str = r#"vs_3_0
defi i0, 4, 0, 1, 0
defi i1, 3, 10, -2, 0
def c0, 0, 1, 0.5, 0
dcl_position v0
dcl_position o0
mov r0, c0.x
mov r1, c0.z
loop aL, i0
add r0, r0, c1[aL]
loop aL, i1
mad r0, c2[aL], r1.x, r0
endloop
endloop
rep i2
add r0, r0, c0.y
if_gt r0.x, c0.y
break
endif
break_ge r0.y, c0.x
endrep
if b3
mov r0.w, c0.y
else
mov r0.w, c0.x
endif
mov o0, r0
"#;
    let expected = r#"VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    float4 r0 = 0;
    float4 r1 = 0;
    r0 = 0;
    r1 = 0.5;
    for (int aL = 0; aL < 4; aL++) {
        r0 = r0 + c[aL + 1];
        for (int aL1 = 10; aL1 > 4; aL1 -= 2) {
            r0 = c[aL1 + 2] * r1.x + r0;
        }
    }
    for (int n = 0; n < i2.x; n++) {
        r0 = r0 + 1;
        if (r0.x > 1) {
            break;
        }
        if (r0.y >= 0) break;
    }
    if (b3) {
        r0.w = 1;
    } else {
        r0.w = 0;
    }
    o.position = r0;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// `setp` writes a `bool4 p0`; a predicated write is an `if` (one predicate component) or a per-component `if` over a temporary.
#[test]
fn predication() {
    const SOURCE: &str = r#"vs_2_x
def c0, 0, 1, 0, 0
dcl_position v0
mov r0, v0
setp_gt p0.xy, v0, c0.x
(p0.x) mov r0.x, c0.y
(!p0.y) add r0.y, r0.y, c0.y
(p0) mul r0.zw, r0, c1
mov oPos, r0
"#;
    let expected = r#"VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    float4 r0 = 0;
    bool4 p0 = false;
    r0 = i.position;
    p0.xy = i.position.xy > 0;
    if (p0.x) r0.x = 1;
    if (!p0.y) r0.y = r0.y + 1;
    { float2 t_1 = r0.zw * c[1].zw;
      if (p0.z) r0.z = t_1.x;
      if (p0.w) r0.w = t_1.y;
    }
    o.position = r0;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

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

/// `call`/`callnz` are calls of functions defined before their callers; the registers they share become static globals.
#[test]
fn subroutines_are_functions() {
    const SOURCE: &str = r#"vs_3_0
dcl_position v0
dcl_position o0
mov r0, v0
call l1
callnz l2, b0
mov o0, r0
ret
label l1
mul r0, r0, c1
call l2
ret
label l2
add r0, r0, c0
ret
"#;
    let expected = r#"// vs_3_0 vertex shader, decompiled by dxso (for fxc)

float4 c[2] : register(c0);
bool b0 : register(b0);

struct VS_INPUT
{
    float4 position : POSITION;
};

struct VS_OUTPUT
{
    float4 position : POSITION;
};

static float4 r0 = 0;
static VS_INPUT i;
static VS_OUTPUT o;

void l2()
{
    r0 = r0 + c[0];
}

void l1()
{
    r0 = r0 * c[1];
    l2();
}

VS_OUTPUT main(VS_INPUT input)
{
    i = input;
    o = (VS_OUTPUT)0;
    r0 = i.position;
    l1();
    if (b0) l2();
    o.position = r0;
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE), expected);
}

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
    float4 r1 = 0;
    float4 r2 = 0;
    float4 r3 = 0;
    float4 r4 = 0;
    int4 a0 = 0;
    r0 = mul(i.position, World);
    o.position = mul(ViewProj, r0);
    r1.xyz = normalize(i.normal.xyz);
    a0.x = (int)dx9_round(i.texcoord0.z);
    r2 = Sun.color * Lights[a0.x];
    r2.w = dot(r1.xyz, Sun.dir);
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

/// ps_3_0 inputs packed two to a register become two members, each read at its components'
/// positions (`v0.zw` is TEXCOORD2's z and w); vPos/vFace are `VPOS`/`VFACE`; oDepth is `DEPTH`.
#[test]
fn vpos_vface_depth_for_fxc() {
    const SOURCE: &str = r#"ps_3_0
def c0, 0, 1, -1, 0
dcl vPos.xy
dcl vFace
dcl_texcoord1 v0.xy
dcl_texcoord2 v0.zw
if_lt vFace, c0.x
mov oC0, c0.z
else
add r0.xy, vPos, v0
mov r0.zw, v0
mov oC0, r0
endif
mov oDepth, c0.y
"#;
    let expected = r#"// ps_3_0 pixel shader, decompiled by dxso (for fxc)

struct PS_INPUT
{
    float2 texcoord1 : TEXCOORD1;
    float4 texcoord2 : TEXCOORD2;
    float2 vpos : VPOS;
    float vface : VFACE;
};

struct PS_OUTPUT
{
    float4 color0 : COLOR0;
    float depth : DEPTH;
};

PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    if (i.vface < 0) {
        o.color0 = -1;
    } else {
        r0.xy = i.vpos + i.texcoord1;
        r0.zw = i.texcoord2.zw;
        o.color0 = r0;
    }
    o.depth = 1;
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE), expected);
}

/// For glslang: vPos is the integer pixel (the fragment coordinate floored), vFace the sign
/// of `SV_IsFrontFace`; outputs are `SV_Target#`/`SV_Depth`.
#[test]
fn vpos_vface_depth_for_glslang() {
    const SOURCE: &str = r#"ps_3_0
def c0, 0, 1, -1, 0
dcl vPos.xy
dcl vFace
dcl_texcoord1 v0.xy
dcl_texcoord2 v0.zw
if_lt vFace, c0.x
mov oC0, c0.z
else
add r0.xy, vPos, v0
mov r0.zw, v0
mov oC0, r0
endif
mov oDepth, c0.y
"#;
    let shader = dxso::text::parse(SOURCE).expect("assembles");
    let checked =
        dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("validates");
    let options = Options {
        dialect: dxso_decompile::Dialect::Glslang,
        asm_comments: false,
    };
    let expected = r#"// ps_3_0 pixel shader, decompiled by dxso (for glslang)

struct PS_INPUT
{
    float2 texcoord1 : TEXCOORD1;
    float4 texcoord2 : TEXCOORD2;
    float4 fragCoord : SV_Position;
    bool frontFace : SV_IsFrontFace;
};

struct PS_OUTPUT
{
    float4 color0 : SV_Target0;
    float depth : SV_Depth;
};

PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    if ((i.frontFace ? 1.0 : -1.0) < 0) {
        o.color0 = -1;
    } else {
        r0.xy = floor(i.fragCoord.xy) + i.texcoord1;
        r0.zw = i.texcoord2.zw;
        o.color0 = r0;
    }
    o.depth = 1;
    return o;
}
"#;
    assert_eq!(
        dxso_decompile::decompile(&checked, &options).unwrap(),
        expected
    );
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

/// A malformed constant table is refused with the table's own error (where and what), as
/// the command line prints it after `constant table: `.
#[test]
fn a_malformed_constant_table_is_a_typed_error() {
    use dxso::ctab::{CtabError, CtabErrorKind};
    // A CTAB comment of one word after its FourCC: shorter than the 7-word header.
    let shader =
        dxso::text::parse("vs_2_0\n// @comment 42415443 0000001c\ndcl_position v0\nmov oPos, v0\n")
            .expect("assembles");
    let checked =
        dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("validates");
    let e = dxso_decompile::decompile(&checked, &Options::default()).unwrap_err();
    assert_eq!(
        e,
        dxso_decompile::Error::ConstantTable(CtabError {
            offset: 1,
            kind: CtabErrorKind::TooShort(1)
        })
    );
    assert_eq!(
        e.to_string(),
        "constant table: constant table word 1: the table is 1 DWORDs long, shorter than its \
         7-DWORD header"
    );
}

/// What the decompiler has no HLSL for is typed (the opcode, register or stage), with the
/// message the command line prints after `cannot decompile `.
#[test]
fn unsupported_constructs_are_typed() {
    use dxso::ir::{Register, RegisterKind};
    use dxso_decompile::{Error, Unsupported};
    let cases = [
        (
            Unsupported::MissingOperands(dxso::Opcode::Mad),
            "Mad without its operands",
        ),
        (
            Unsupported::Instruction(dxso::Opcode::Call),
            "the Call instruction",
        ),
        (
            Unsupported::RelativeAddressing(RegisterKind::Temp),
            "relative addressing of Temp registers",
        ),
        (
            Unsupported::RelativeIndex(RegisterKind::Input),
            "Input as a relative index",
        ),
        (
            Unsupported::StageWithoutSampler(2),
            "texture stage 2 without a sampler",
        ),
        (Unsupported::UndeclaredSampler(3), "an undeclared sampler"),
        (
            Unsupported::RelativeOutsideArrays(40),
            "relative read outside every array",
        ),
        (Unsupported::LoopCounterOutsideLoop, "aL outside a loop"),
        (
            Unsupported::RelativeDestination,
            "relatively addressed destinations",
        ),
        (
            Unsupported::Reading(RegisterKind::MiscType),
            "reading MiscType registers",
        ),
        (
            Unsupported::Writing(RegisterKind::Const),
            "writing Const registers",
        ),
        (Unsupported::MissingDestination, "a missing destination"),
        (
            Unsupported::RelativeInputsWithSubroutines,
            "relative input reads in a shader with subroutines",
        ),
    ];
    for (u, message) in cases {
        assert_eq!(
            Error::Unsupported(u).to_string(),
            format!("cannot decompile {message}")
        );
    }
    let output = Register {
        kind: RegisterKind::Output,
        number: 3,
    };
    assert_eq!(
        Unsupported::UndeclaredOutput(output).to_string(),
        "an undeclared output Register { kind: Output, number: 3 }"
    );
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

/// A ps_3_0 input declared on components that do not start at x keeps their positions:
/// `dcl_texcoord v0.zw` reads TEXCOORD0's z and w (linkage matches components in place), so
/// the member is a `float4` read as `.z`/`.w`, not a `float2` whose x and y stand for them.
#[test]
fn an_input_declared_on_zw_reads_z_and_w() {
    const SOURCE: &str = "ps_3_0\ndcl_texcoord v0.zw\nrcp r0.x, v0.w\nmul_pp oC0, r0.x, v0.z\n";
    let expected = r#"// ps_3_0 pixel shader, decompiled by dxso (for fxc)

struct PS_INPUT
{
    float4 texcoord0 : TEXCOORD0;
};

struct PS_OUTPUT
{
    float4 color0 : COLOR0;
};

PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    o.color0 = 1 / i.texcoord0.w * i.texcoord0.z;
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE), expected);
}
