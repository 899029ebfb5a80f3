//! Temporaries as the narrowest type that holds every component the output touches:
//! `float` for x only, `float2` for x, y, `float3` for x, y, z, a `float` named for its
//! component (`r1_w`) for one component past x; otherwise `float4` (#32). Each expected text
//! was checked by hand: the narrowed local reads and writes exactly the components the
//! instructions do.

use super::{hlsl, main_of};

/// A temporary every instruction touches in x only is a `float` (`r0.x` is `r0`, a broadcast
/// `r0.x` in arithmetic is `r0`, as a whole `float4` argument `(float4)r0`); one touched in w
/// only is a `float` named for it (`r1_w`).
#[test]
fn a_temporary_read_and_written_in_one_component_is_a_float() {
    const SOURCE: &str = r#"vs_2_0
dcl_position v0
dcl_normal v1
dp3 r0.x, v1, c0
max r0.x, r0.x, c1.x
mul oD0, r0.x, c2
add oD1, r0.x, c3
rcp r1.w, c4.x
mul oT0, v0, r1.w
add oT1, v1, r1.w
dp4 oT2.x, r0.x, c5
mov oPos, v0
"#;
    let expected = r#"VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    float r0 = 0;
    float r1_w = 0;
    r0 = max(dot(i.normal.xyz, c[0].xyz), c[1].x);
    o.color0 = r0 * c[2];
    o.color1 = r0 + c[3];
    r1_w = 1 / c[4].x;
    o.texcoord0 = i.position * r1_w;
    o.texcoord1 = i.normal + r1_w;
    o.texcoord2.x = dot((float4)r0, c[5]);
    o.position = i.position;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// A temporary written and read in x, y only is a `float2`, passed whole as `tex2D`'s
/// coordinate.
#[test]
fn a_float2_temporary_is_a_tex2d_coordinate() {
    const SOURCE: &str = r#"ps_2_0
dcl t0.xy
dcl_2d s0
add r0.xy, t0, c0
texld r1, r0, s0
mul r0.xy, r0, c1
texld r2, r0, s0
add r1, r1, r2
mov oC0, r1
"#;
    let expected = r#"PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float2 r0 = 0;
    float4 r1 = 0;
    r0 = i.texcoord0.xy + c[0].xy;
    r1 = tex2D(s0, r0);
    r0 = r0 * c[1].xy;
    o.color0 = r1 + tex2D(s0, r0);
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// `texldp` reads all four components of its coordinate (z, w unwritten: 0), so r0 stays a
/// `float4`; r2 is written in x and w (the run x..w: `float4`); r3 in x, y: `float2`.
#[test]
fn wider_reads_keep_the_temporary_wide() {
    const SOURCE: &str = r#"ps_2_0
dcl t0.xy
dcl_2d s0
mul r0.xy, t0, c0
texldp r1, r0, s0
mov r2.x, c1.x
mov r2.w, c1.y
add r1, r1, r2
mul r3.xy, r1, c2
add r3.x, r3.x, r3.y
mov r1.x, r3.x
mov oC0, r1
"#;
    let expected = r#"PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    float4 r1 = 0;
    float4 r2 = 0;
    float2 r3 = 0;
    r0.xy = i.texcoord0.xy * c[0].xy;
    r2.x = c[1].x;
    r2.w = c[1].y;
    r1 = tex2Dproj(s0, r0) + r2;
    r3 = r1.xy * c[2].xy;
    r1.x = r3.x + r3.y;
    o.color0 = r1;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// The components a temporary touches are counted over the whole function, flow included:
/// r0 in a loop, an `if` and a per-component predicated write (each component of the
/// narrowed `float2` by name) stays a `float2`, read whole as `.xyxy`.
#[test]
fn a_temporary_across_a_loop_an_if_and_a_predicate() {
    const SOURCE: &str = r#"vs_3_0
defi i0, 4, 0, 1, 0
dcl_position v0
dcl_position o0
dcl_texcoord o1
mov r0.xy, c0
loop aL, i0
add r0.xy, r0, c1[aL]
endloop
if b0
mul r0.xy, r0, c8
endif
setp_gt p0.xy, r0, c9
(p0) mov r0.xy, c10
mov o0, v0
mov o1, r0.xyxy
"#;
    let expected = r#"VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    float2 r0 = 0;
    bool4 p0 = false;
    r0 = c[0].xy;
    for (int aL = 0; aL < 4; aL++) {
        r0 = r0 + c[aL + 1].xy;
    }
    if (b0) {
        r0 = r0 * c[8].xy;
    }
    p0.xy = r0 > c[9].xy;
    { float2 t_1 = c[10].xy;
      if (p0.x) r0.x = t_1.x;
      if (p0.y) r0.y = t_1.y;
    }
    o.position = i.position;
    o.texcoord0 = r0.xyxy;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}

/// A temporary a subroutine shares with `main` is one `static` global, narrowed by what
/// every function touches.
#[test]
fn a_temporary_shared_with_a_subroutine() {
    const SOURCE: &str = r#"vs_3_0
dcl_position v0
dcl_position o0
dcl_texcoord o1
mov r1.x, c0.x
call l1
call l1
mov o0, v0
mov o1, r1.x
ret
label l1
mul r1.x, r1.x, c1.x
ret
"#;
    let expected = r#"// vs_3_0 vertex shader, decompiled by dxso (for fxc)

float4 c[2] : register(c0);

struct VS_INPUT
{
    float4 position : POSITION;
};

struct VS_OUTPUT
{
    float4 position : POSITION;
    float4 texcoord0 : TEXCOORD0;
};

static float r1 = 0;
static VS_INPUT i;
static VS_OUTPUT o;

void l1()
{
    r1 = r1 * c[1].x;
}

VS_OUTPUT main(VS_INPUT input)
{
    i = input;
    o = (VS_OUTPUT)0;
    r1 = c[0].x;
    l1();
    l1();
    o.position = i.position;
    o.texcoord0 = r1;
    return o;
}
"#;
    assert_eq!(hlsl(SOURCE), expected);
}

/// `nrm` into x, y, z reads x, y, z (r0 a `float3`); `dst` reads its first operand's y, z and
/// its second's y, w: r2 (y, z) is a `float2 r2_yz`, r3 (y, w) the run y..w, a
/// `float3 r3_yzw` whose x and z stand for y and w.
#[test]
fn nrm_and_dst_read_only_the_components_they_use() {
    const SOURCE: &str = r#"vs_2_0
dcl_position v0
dcl_normal v1
mul r0.xyz, v1, c0
nrm r1.xyz, r0
mul oT0.xyz, r0, c2
mov r2.yz, c3
mov r3.yw, c4
dst oT1, r2, r3
mad oD0.xyz, r1, c5, v0
mov oPos, v0
"#;
    let expected = r#"VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    float3 r0 = 0;
    float2 r2_yz = 0;
    float3 r3_yzw = 0;
    o.color0 = 1;
    r0 = i.normal.xyz * c[0].xyz;
    o.texcoord0.xyz = r0 * c[2].xyz;
    r2_yz = c[3].yz;
    r3_yzw.xz = c[4].yw;
    o.texcoord1 = float4(1, r2_yz.x * r3_yzw.x, r2_yz.y, r3_yzw.z);
    o.color0.xyz = normalize(r0) * c[5].xyz + i.position.xyz;
    o.position = i.position;
    return o;
}
"#;
    assert_eq!(main_of(&hlsl(SOURCE)), expected);
}
