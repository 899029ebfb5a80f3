//! The constant table's parameters as declarations, against hand-written HLSL: a parameter
//! the table gives fewer registers than its type takes, the order glslang needs, samplers of
//! an array, non-square `column_major` matrices for glslang; and the glslang output of all
//! of them through glslang, the sampler split and naga's SPIR-V front end and validator
//! (what the behaviour proofs draw with).

use dxso_decompile::{Dialect, Options, decompile_with_table, listing_table};

/// The HLSL of `source` (a listing whose header is the constant table) for `dialect`.
fn hlsl(source: &str, dialect: Dialect) -> String {
    let shader = dxso::text::parse(source).expect("assembles");
    let checked =
        dxso::validate::validate(&shader, &dxso::validate::Caps::max()).expect("validates");
    let table = listing_table(source, shader.version).expect("a header");
    let options = Options {
        dialect,
        asm_comments: false,
    };
    decompile_with_table(&checked, Some(&table), &options).expect("decompiles")
}

/// The declarations: the lines before the first `struct`.
fn declarations(text: &str) -> &str {
    &text[..text.find("\n\nstruct ").expect("a struct") + 1]
}

/// The table gives a parameter fewer registers than its type takes (the compiler leaves out
/// what no instruction reads): a `row_major` matrix is declared with that many rows, a
/// `column_major` one with that many columns, an array with that many whole elements, and
/// an array cut inside an element or a matrix cut to one register as its raw registers. Declared whole, each would reach
/// into the next parameter's registers (`Shadow` into `c7`, which the table does not name).
#[test]
fn a_parameter_takes_the_registers_the_table_gives() {
    const SOURCE: &str = r#"// Parameters:
//
//   row_major float4x4 LightMatrix;
//   float4x4 Shadow;
//   float4x4 Bones[2];
//   float4 Lights[4];
//   float4x4 Proj;
//
// Registers:
//
//   Name         Reg   Size
//   ------------ ----- ----
//   LightMatrix  c0       3
//   Shadow       c4       3
//   Bones        c8       6
//   Lights       c14      2
//   Proj         c16      1
//
vs_2_0
dcl_position v0
dp4 oT0.x, v0, c0
dp4 oT0.y, v0, c1
dp4 oT0.z, v0, c2
dp4 oT1.x, v0, c4
dp4 oT1.y, v0, c5
dp4 oT1.z, v0, c6
mul r0, v0, c7
add r0, r0, c9
add r0, r0, c15
add oPos, r0, c16
"#;
    let expected = r#"// vs_2_0 vertex shader, decompiled by dxso (for fxc)

row_major float3x4 LightMatrix : register(c0); // row_major float4x4 in the constant table
column_major float4x3 Shadow : register(c4); // column_major float4x4 in the constant table
float4 Bones[6] : register(c8); // column_major float4x4[2] in the constant table
float4 Lights[2] : register(c14); // float4[4] in the constant table
float4 Proj : register(c16); // column_major float4x4 in the constant table
float4 c7 : register(c7); // not in the constant table

struct VS_INPUT
{
    float4 position : POSITION;
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
    o.texcoord0.xyz = mul(LightMatrix, i.position);
    o.texcoord1.xyz = mul(i.position, Shadow);
    o.position = i.position * c7 + Bones[1] + Lights[1] + Proj;
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE, Dialect::Fxc), expected);
}

/// glslang gives `register(cN)` the offset 16 N in `$Global` and a `bool` or `int4` the
/// next free offset, in declaration order; naga takes the block only where the offsets
/// rise. For glslang the declarations are by register file (`c#`, `i#`, `b#`, `s#`), each
/// by register, named and unnamed together; fxc keeps the table's order, then the
/// registers it does not name.
#[test]
fn glslang_declares_by_register() {
    const SOURCE: &str = r#"// Parameters:
//
//   bool UseFog;
//   float4 Tint;
//   sampler2D Diffuse;
//
// Registers:
//
//   Name         Reg   Size
//   ------------ ----- ----
//   UseFog       b0       1
//   Tint         c4       1
//   Diffuse      s0       1
//
ps_3_0
dcl_texcoord v0
dcl_2d s0
mul r0, v0, c4
if b0
add r0, r0, c0
endif
if b1
mul r0, r0, c2
endif
texld r1, v0, s0
mul oC0, r0, r1
"#;
    let expected = r#"// ps_3_0 pixel shader, decompiled by dxso (for glslang)

float4 c0 : register(c0); // not in the constant table
float4 c2 : register(c2); // not in the constant table
float4 Tint : register(c4);
bool UseFog : register(b0);
bool b1 : register(b1);
sampler2D Diffuse : register(s0);

struct PS_INPUT
{
    float4 texcoord0 : TEXCOORD0;
};

struct PS_OUTPUT
{
    float4 color0 : SV_Target0;
};

PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    r0 = i.texcoord0 * Tint;
    if (UseFog) {
        r0 = r0 + c0;
    }
    if (b1) {
        r0 = r0 * c2;
    }
    o.color0 = r0 * tex2D(Diffuse, i.texcoord0.xy);
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE, Dialect::Glslang), expected);
    let fxc = r#"// ps_3_0 pixel shader, decompiled by dxso (for fxc)

bool UseFog : register(b0);
float4 Tint : register(c4);
sampler2D Diffuse : register(s0);
float4 c0 : register(c0); // not in the constant table
float4 c2 : register(c2); // not in the constant table
bool b1 : register(b1);
"#;
    assert_eq!(declarations(&hlsl(SOURCE, Dialect::Fxc)), fxc);
}

/// A relative read outside every array of the table (`c[a0.x + 5]`: `World` ends at `c4`,
/// `Tints` starts at `c8`) may reach any register: it reads `cd`, the register file copied
/// as `main` starts from each register's expression, and the registers the table does not
/// name are declared in runs (`c5_7`, `c10_11`, `c13_255`) beside the named parameters,
/// none laid over another (fxc refuses overlapping registers, naga overlapping members). A
/// relative read inside `Tints` still indexes it.
#[test]
fn a_relative_read_outside_the_arrays_reads_the_register_file() {
    const SOURCE: &str = r#"// Parameters:
//
//   float4 Scale;
//   float4x4 World;
//   float4 Tints[2];
//   float Bias;
//
// Registers:
//
//   Name   Reg   Size
//   ------ ----- ----
//   Scale  c0       1
//   World  c1       4
//   Tints  c8       2
//   Bias   c12      1
//
vs_2_0
dcl_position v0
dcl_blendindices v1
mova a0.x, v1.x
mul r0, v0, c[a0.x + 5]
add r0, r0, c[a0.x + 8]
mul r0, r0, c12.x
add oPos, r0, c0
"#;
    let expected = r#"// vs_2_0 vertex shader, decompiled by dxso (for fxc)

float4 Scale : register(c0);
column_major float4x4 World : register(c1);
float4 Tints[2] : register(c8);
float Bias : register(c12);
float4 c5_7[3] : register(c5); // registers the constant table does not name
float4 c10_11[2] : register(c10); // registers the constant table does not name
float4 c13_255[243] : register(c13); // registers the constant table does not name

struct VS_INPUT
{
    float4 position : POSITION;
    float4 blendindices : BLENDINDICES;
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
    cd[0] = Scale;
    cd[1] = transpose(World)[0];
    cd[2] = transpose(World)[1];
    cd[3] = transpose(World)[2];
    cd[4] = transpose(World)[3];
    for (int k = 0; k < 3; k++) {
        cd[5 + k] = c5_7[k];
    }
    for (int k = 0; k < 2; k++) {
        cd[8 + k] = Tints[k];
    }
    for (int k = 0; k < 2; k++) {
        cd[10 + k] = c10_11[k];
    }
    cd[12] = float4(Bias, float3(0, 0, 0));
    for (int k = 0; k < 243; k++) {
        cd[13 + k] = c13_255[k];
    }
    a0.x = (int)dx9_round(i.blendindices.x);
    o.position = (i.position * cd_at(a0.x + 5) + Tints[a0.x]) * Bias + Scale;
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE, Dialect::Fxc), expected);
}

/// An array of samplers: for fxc the array (`Maps[1]`); for glslang, which binds an array
/// as one arrayed binding where D3D9 binds each register, each element the shader uses as
/// a sampler of its own at its register. An element whose `dcl` gives another type than
/// the table's (`dcl_cube s2` in a `sampler2D` array) is of the `dcl`'s type, the one it is
/// sampled as: `texCUBE` with three coordinates (the fxc output too, apart).
#[test]
fn samplers_of_an_array() {
    const SOURCE: &str = r#"// Parameters:
//
//   sampler2D Maps[4];
//
// Registers:
//
//   Name         Reg   Size
//   ------------ ----- ----
//   Maps         s0       4
//
ps_3_0
dcl_texcoord v0
dcl_2d s1
dcl_2d s3
texld r0, v0, s1
texld r1, v0, s3
add oC0, r0, r1
"#;
    let fxc = hlsl(SOURCE, Dialect::Fxc);
    assert_eq!(
        declarations(&fxc),
        "// ps_3_0 pixel shader, decompiled by dxso (for fxc)\n\nsampler2D Maps[4] : register(s0);\n"
    );
    assert!(fxc.contains(
        "    o.color0 = tex2D(Maps[1], i.texcoord0.xy) + tex2D(Maps[3], i.texcoord0.xy);\n"
    ));
    let glslang = hlsl(SOURCE, Dialect::Glslang);
    assert_eq!(
        declarations(&glslang),
        r#"// ps_3_0 pixel shader, decompiled by dxso (for glslang)

sampler2D Maps_1 : register(s1); // Maps[1] in the constant table
sampler2D Maps_3 : register(s3); // Maps[3] in the constant table
"#
    );
    assert!(glslang.contains(
        "    o.color0 = tex2D(Maps_1, i.texcoord0.xy) + tex2D(Maps_3, i.texcoord0.xy);\n"
    ));

    let cube = SOURCE.replace("dcl_2d s3", "dcl_cube s3");
    for dialect in [Dialect::Fxc, Dialect::Glslang] {
        let text = hlsl(&cube, dialect);
        assert!(
            text.contains(
                "\nsampler2D Maps_1 : register(s1); // Maps[1] in the constant table\n\
                 samplerCUBE Maps_3 : register(s3); // Maps[3] in the constant table\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("tex2D(Maps_1, i.texcoord0.xy) + texCUBE(Maps_3, i.texcoord0.xyz);"),
            "{text}"
        );
    }
}

/// A non-square `column_major` matrix: for fxc as the table has it, read by `mul(v, M)`
/// and its columns as `transpose(M)[k]`; for glslang as the `row_major` matrix of the
/// transposed shape (the same registers: column k of the one is row k of the other), read
/// by `mul(M, v)` and `M[k]`. glslang writes a `column_major` matrix as a `RowMajor` SPIR-V
/// member, and naga's SPIR-V front end mistypes the product of a non-square one with a
/// vector. A `row_major` one is the same in both.
#[test]
fn non_square_column_major_matrices_for_glslang() {
    const SOURCE: &str = r#"// Parameters:
//
//   float4x3 World;
//   row_major float3x4 View;
//
// Registers:
//
//   Name         Reg   Size
//   ------------ ----- ----
//   World        c0       3
//   View         c3       3
//
vs_2_0
dcl_position v0
m4x3 r0.xyz, v0, c0
mov r0.w, v0.w
m4x3 oT0.xyz, r0, c3
add oPos, v0, c1
"#;
    let body = |world: &str, product: &str, column: &str| {
        format!(
            r#"
{world}
row_major float3x4 View : register(c3);

struct VS_INPUT
{{
    float4 position : POSITION;
}};

struct VS_OUTPUT
{{
    float4 position : {position};
    float4 texcoord0 : TEXCOORD0;
}};

VS_OUTPUT main(VS_INPUT i)
{{
    VS_OUTPUT o = (VS_OUTPUT)0;
    float4 r0 = 0;
    r0.xyz = {product};
    r0.w = i.position.w;
    o.texcoord0.xyz = mul(View, r0);
    o.position = i.position + {column};
    return o;
}}
"#,
            position = if world.starts_with("column") {
                "POSITION"
            } else {
                "SV_Position"
            }
        )
    };
    assert_eq!(
        hlsl(SOURCE, Dialect::Fxc),
        format!(
            "// vs_2_0 vertex shader, decompiled by dxso (for fxc)\n{}",
            body(
                "column_major float4x3 World : register(c0);",
                "mul(i.position, World)",
                "transpose(World)[1]"
            )
        )
    );
    assert_eq!(
        hlsl(SOURCE, Dialect::Glslang),
        format!(
            "// vs_2_0 vertex shader, decompiled by dxso (for glslang)\n{}",
            body(
                "row_major float3x4 World : register(c0); // column_major float4x3 in the constant table",
                "mul(World, i.position)",
                "World[1]"
            )
        )
    );
}

/// Every fix above in one shader, for glslang: it compiles, its samplers split as the
/// behaviour proofs split them, and naga's SPIR-V front end and validator take it (before:
/// `Shadow` declared whole overlapping `Tint`, `UseFog` at offset 0 over `c0`, the array of
/// samplers ids naga's front end did not resolve, and the non-square `column_major`
/// `Shadow` and `World` mistyped by naga's front end: a member overlapping the next, a
/// product it refused).
#[test]
fn the_glslang_output_with_the_table_is_a_module_naga_takes() {
    const SOURCE: &str = r#"// Parameters:
//
//   float4x4 Shadow;
//   float4 Tint;
//   float4x3 World;
//   bool UseFog;
//   sampler2D Maps[4];
//
// Registers:
//
//   Name         Reg   Size
//   ------------ ----- ----
//   UseFog       b0       1
//   Shadow       c1       3
//   Tint         c4       1
//   World        c5       3
//   Maps         s0       4
//
ps_3_0
dcl_texcoord v0
dcl_2d s1
dcl_cube s2
mul r0, v0, c0
dp4 r1.x, v0, c1
dp4 r1.y, v0, c2
dp4 r1.z, v0, c3
dp4 r2.x, v0, c5
dp4 r2.y, v0, c6
dp4 r2.z, v0, c7
add r0.xyz, r1, r2
mul r0, r0, c4
if b0
texld r3, v0, s1
mul r0, r0, r3
endif
texld r3, v0, s2
mul oC0, r0, r3
"#;
    if !dxso_testdata::tool("glslangValidator", "glslang-tools") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("dxso-table-lifting-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (src, spv) = (dir.join("t.hlsl"), dir.join("t.spv"));
    std::fs::write(&src, hlsl(SOURCE, Dialect::Glslang)).expect("writable");
    let built = crate::behaviour::glslang(&src, "frag", "main", &spv);
    let bytes = std::fs::read(&spv);
    let _ = std::fs::remove_dir_all(&dir);
    built.expect("glslang compiles the output");
    let words = crate::spirv_split::words(&bytes.expect("SPIR-V"));
    let (words, splits) = crate::spirv_split::split(&words, dxso_naga::interface::PS_SAMPLER_GROUP)
        .expect("the samplers split");
    assert_eq!(
        splits
            .iter()
            .map(|s| (s.register, s.dim))
            .collect::<Vec<_>>(),
        [(1, 1), (2, 3)],
        "s1 a 2D sampler, s2 a cube"
    );
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let module = naga::front::spv::parse_u8_slice(&bytes, &Default::default())
        .expect("naga's SPIR-V front end reads it");
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .expect("naga's validator takes it");
}
