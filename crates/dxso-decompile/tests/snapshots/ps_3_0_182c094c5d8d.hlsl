// ps_3_0 pixel shader, decompiled by dxso (for fxc)

float4 TextureSpaceBlurOrigin : register(c0); // float2 in the constant table
float4 UVMinMax : register(c7);
float4 AspectRatioAndInvAspectRatio : register(c8);
float4 LightShaftParameters : register(c9);
sampler2D SourceTexture : register(s0);
sampler2D s13 : register(s13);

struct PS_INPUT
{
    float2 texcoord0 : TEXCOORD0;
};

struct PS_OUTPUT
{
    float4 color0 : COLOR0;
};

PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    float4 r1 = 0;
    float4 r2 = 0;
    float4 r3 = 0;
    float4 r4 = 0;
    float4 r5 = 0;
    float4 r6 = 0;
    float4 r30 = 0;
    r30 = TextureSpaceBlurOrigin;
    r30.x = tex2Dlod(s13, float4(0.0625, 0.0625, 0.0625, 0.0625)).x * 0.5 + r30.x;
    r1 = i.texcoord0.xyxy * -AspectRatioAndInvAspectRatio.zwzw + r30.xyxy;
    r2.x = 1 / rsqrt(abs(dot(r1.zw, r1.zw) + 0)) * 0.5;
    r1 = r1 * (1 / r2.x);
    r1 = r1 * min(r2.x, 1 / rsqrt(abs(r2.x)) * 0.5);
    r1 = r1 * (0.015625 * LightShaftParameters.z);
    r0 = r1.zwzw * float4(0, 0, 1, 1) + AspectRatioAndInvAspectRatio.zwzw * i.texcoord0.xyxy;
    r1 = r1 * AspectRatioAndInvAspectRatio.xyxy;
    r2 = 0;
    r3 = r0 * AspectRatioAndInvAspectRatio.xyxy;
    r4.xw = float2(2, 1.96875);
    for (int n = 0; n < 32; n++) {
        r4.zw = r4.xw;
        r5.xy = r4.zw * r4.zw;
        r5.zw = r5.xy * 4;
        r4.xy = r5.xy * 4 - r4.zw >= 0 ? r4.zw : r5.zw;
        r6 = min(UVMinMax.zwzw, max(r3, UVMinMax.xyxy));
        r5 = tex2D(SourceTexture, r6.xy) * r4.xxxz + r2;
        r6 = tex2D(SourceTexture, r6.zw);
        r2 = r6 * r4.yyyw + r5;
        r4.xw = r4.zw - 0.0625;
        r3 = r1 * 2 + r3;
    }
    o.color0 = r2 * 0.015625;
    return o;
}
