// ps_3_0 pixel shader, decompiled by dxso (for fxc)

float4 _ZBufferParams : register(c0);
float4 vaporColor : register(c1);
float vaporDensity : register(c2);
float lightIntensity : register(c3);
float4 lightColor : register(c4);
float inverseFadeDistance : register(c5);
sampler2D vaporTexture : register(s0);
sampler2D _CameraDepthTexture : register(s1);
float4 c210 : register(c210); // not in the constant table

struct PS_INPUT
{
    float4 texcoord0 : TEXCOORD0;
    float2 vpos : VPOS;
};

struct PS_OUTPUT
{
    float4 color0 : COLOR0;
};

PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    float3 r1 = 0;
    float r2 = 0;
    float4 r31 = 0;
    r31.xy = i.vpos;
    r31.z = 1 / c210.x;
    r31.w = 1 / c210.y;
    r31.xy = r31.xy * r31.zw;
    r0 = tex2Dproj(vaporTexture, i.texcoord0);
    r1.x = dot(r0, float4(0, 0, -0.5, 0.5));
    r0.y = dot(r0, float4(0.5, 0.5, 0, 0));
    r1 = (r1.x + 0.5) * lightColor.xyz;
    r2 = tex2D(_CameraDepthTexture, r31.xy).x * _ZBufferParams.z + _ZBufferParams.w;
    r0 = pow(abs(2.718282), -(r0.y * vaporDensity));
    r0.y = 1 / r2 - i.texcoord0.z;
    r0.z = r0.x;
    r0.x = saturate(r0.y * inverseFadeDistance);
    r0.x = (1 - r0.z) * r0.x;
    o.color0.xyz = r0.x * (r1 * lightIntensity) + vaporColor.xyz;
    o.color0.w = r0.x;
    return o;
}
