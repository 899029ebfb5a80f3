// ps_2_0 pixel shader, decompiled by dxso (for fxc)

float4 _ZBufferParams : register(c0);
float _NoSkyBoxMask : register(c1);
float4 _SunPosition : register(c2);
sampler2D _MainTex : register(s0);
sampler2D _CameraDepthTexture : register(s1);

struct PS_INPUT
{
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
    float4 r1 = 0;
    float2 r2 = 0;
    r0 = tex2D(_MainTex, i.texcoord0.xy);
    r1 = tex2D(_CameraDepthTexture, i.texcoord1.xy);
    r2 = _SunPosition.xy - i.texcoord1.xy;
    r1.y = saturate(_SunPosition.w - (1 / rsqrt(abs(dot(r2, r2) + 0))));
    r0.x = r1.y * max(r0.w, dot(r0.xyz, float3(0.59, 0.3, 0.11)) * _NoSkyBoxMask);
    o.color0 = 0.99 - (1 / (_ZBufferParams.x * r1.x + _ZBufferParams.y)) >= 0 ? 0 : r0.x;
    return o;
}
