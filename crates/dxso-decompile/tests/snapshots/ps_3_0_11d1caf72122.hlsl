// ps_3_0 pixel shader, decompiled by dxso (for fxc)

row_major float3x4 ProjectionMatrixInverse : register(c0);
float4 _MainTex_TexelSize : register(c3);
float4 Kernel : register(c4);
float DepthTolerance : register(c5);
float PreserveDetails : register(c6);
sampler2D _CameraDepthNormalsTexture : register(s0);
sampler2D _CameraDepthTexture : register(s1);
sampler2D _MainTex : register(s2);

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
    r0 = tex2D(_CameraDepthTexture, i.texcoord0);
    r0.x = ProjectionMatrixInverse[2].z * (r0.x * 2 - 1) + ProjectionMatrixInverse[2].w;
    r0.yzw = tex2D(_CameraDepthNormalsTexture, i.texcoord0).xyz * float3(3.5554, 3.5554, 0) + float3(-1.7777, -1.7777, 1);
    r0.w = 1 / dot(r0.yzw, r0.yzw);
    r1.xy = r0.yz * (r0.w + r0.w);
    r1.z = r0.w * 2 - 1;
    r0.y = (1 / rsqrt(abs(dot(r1.xy, r1.xy) + 0)) * 2 + 1) * DepthTolerance;
    r2.xy = float2(2, 5);
    r0.z = PreserveDetails * -r2.x + r2.y;
    r0.y = 1 / r0.y;
    r2.zw = 0;
    r3 = 0;
    r4 = 0;
    r0.w = 0;
    r1.w = 0;
    for (int n = 0; n < 255; n++) {
        r5.x = r0.z;
        if (r1.w >= r5.x) break;
        r2.xy = (r1.w + PreserveDetails - 2) * Kernel.xy * _MainTex_TexelSize.xy + i.texcoord0;
        r5 = tex2Dlod(_CameraDepthTexture, r2.xyww);
        r5.x = ProjectionMatrixInverse[2].z * (r5.x * 2 - 1) + ProjectionMatrixInverse[2].w;
        r5.yzw = tex2Dlod(_CameraDepthNormalsTexture, r2.xyww).xyz * float3(3.5554, 3.5554, 0) + float3(-1.7777, -1.7777, 1);
        r5.w = 1 / dot(r5.yzw, r5.yzw);
        r6.xy = r5.yz * (r5.w + r5.w);
        r6.z = r5.w * 2 - 1;
        r5.x = saturate(abs(r5.x - r0.x) * -r0.y + 1);
        r5.y = saturate(dot(r6.xyz, r1.xyz) * 5 - 4);
        r5.z = r5.y * r5.x;
        r6 = tex2Dlod(_MainTex, r2);
        r4 = r4 + r6;
        r3 = r6 * r5.z + r3;
        r0.w = r5.x * r5.y + r0.w;
        r1.w = r1.w + 1;
    }
    r2 = 1 / r0.w * r3;
    o.color0 = r0.w - 1.1 >= 0 ? r2 : r4 * 0.2;
    return o;
}
