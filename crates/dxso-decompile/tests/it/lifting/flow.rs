//! Flow control: loops, `rep`, `break`, `if`/`else`, predication and subroutines.

use super::{hlsl, main_of};

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
