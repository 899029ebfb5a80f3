//! Inputs and outputs: packed ps_3_0 inputs, vPos/vFace/oDepth for each dialect.

use super::hlsl;
use dxso_decompile::Options;

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
