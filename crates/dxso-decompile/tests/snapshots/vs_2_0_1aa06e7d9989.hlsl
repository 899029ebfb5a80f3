// vs_2_0 vertex shader, decompiled by dxso (for fxc)

float4 c[8] : register(c0);

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
    o.texcoord0 = i.texcoord1.xyyx * c[1].xyyx + c[1].zwwz + frac(c[2].xywz * c[3].x);
    r0 = mul(i.texcoord0, float4x4(c[4], c[5], c[6], c[7]));
    o.texcoord1 = r0.z * (1 / r0.w);
    o.position.xy = r0.w * c[0].xy + r0.xy;
    o.position.zw = r0.zw;
    return o;
}
