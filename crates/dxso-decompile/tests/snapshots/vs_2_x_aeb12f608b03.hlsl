// vs_2_x vertex shader, decompiled by dxso (for fxc)

float4 c[7] : register(c0);

struct VS_INPUT
{
    float4 texcoord0 : TEXCOORD0;
    float4 texcoord1 : TEXCOORD1;
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
    float4 r0 = 0;
    float4 r1 = 0;
    o.texcoord0.xy = i.texcoord1.xy * c[1].xy + c[1].zw;
    r0 = mul(i.texcoord0, float4x4(c[3], c[4], c[5], c[6]));
    r1.w = r0.y * c[2].x * 0.5;
    r1.xz = r0.xw * 0.5;
    o.texcoord1.xy = r1.z + r1.xw;
    o.position.xy = r0.w * c[0].xy + r0.xy;
    o.texcoord1.zw = r0.zw;
    o.position.zw = r0.zw;
    return o;
}
