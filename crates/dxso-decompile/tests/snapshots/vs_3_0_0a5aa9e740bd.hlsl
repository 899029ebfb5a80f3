// vs_3_0 vertex shader, decompiled by dxso (for fxc)

row_major float4x4 glstate_matrix_mvp : register(c0);
float4 _ProjectionParams : register(c8);
float4 _ScreenParams : register(c9);
float4 unity_LightmapST : register(c10);
float4 _MainTex_ST : register(c11);
float4 _Illum_ST : register(c12);
sampler2D s0 : register(s0);

struct VS_INPUT
{
    float4 position : POSITION;
    float4 texcoord0 : TEXCOORD0;
    float4 texcoord1 : TEXCOORD1;
};

struct VS_OUTPUT
{
    float4 texcoord0 : TEXCOORD0;
    float4 texcoord1 : TEXCOORD1;
    float4 texcoord2 : TEXCOORD2;
    float4 position : POSITION;
};

VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    float4 r0 = 0;
    float3 r1 = 0;
    float4 r2 = 0;
    r0.w = dot(i.position, glstate_matrix_mvp[3]);
    r0.z = dot(i.position, glstate_matrix_mvp[2]);
    r0.xy = mul(glstate_matrix_mvp, i.position).xy;
    o.position = r0;
    r2 = tex2Dlod(s0, float4(0.0625, 0.0625, 0.0625, 0.0625));
    r0.x = (r0.w - r2.y) * r2.x + r0.x;
    r1 = r0.xyw * 0.5;
    r1.y = r1.y * _ProjectionParams.x;
    o.texcoord2.xy = r1.z * _ScreenParams.zw + r1.xy;
    o.texcoord2.zw = r0.zw;
    o.texcoord0.zw = i.texcoord0.xy * _Illum_ST.xy + _Illum_ST.zw;
    o.texcoord0.xy = i.texcoord0.xy * _MainTex_ST.xy + _MainTex_ST.zw;
    o.texcoord1.xy = i.texcoord1.xy * unity_LightmapST.xy + unity_LightmapST.zw;
    return o;
}
