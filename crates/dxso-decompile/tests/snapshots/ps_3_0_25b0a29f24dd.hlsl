// ps_3_0 pixel shader, decompiled by dxso (for fxc)

float _Intensity : register(c0);
sampler2D _Overlay : register(s0);
sampler2D _MainTex : register(s1);
float4 c200 : register(c200); // not in the constant table
sampler2D s13 : register(s13);

struct PS_INPUT
{
    float2 texcoord0 : TEXCOORD0;
    float2 texcoord1 : TEXCOORD1;
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
    float3 r3 = 0;
    float3 r4 = 0;
    float4 r20 = 0;
    r0 = tex2D(_MainTex, i.texcoord1);
    r1 = tex2D(_Overlay, i.texcoord0);
    r20 = c200;
    if (r20.y == 0) {
        r1 = 0.6;
    }
    r3 = r0.xyz - 0.5;
    r2.xyz = r1.xyz * ((r0.xyz + r0.xyz) * (r3 >= 0 ? 0 : 1));
    r4 = r3 * -2 + 1;
    r2.xyz = lerp(r0.xyz, (r3 >= 0 ? 1 : 0) * (r4 * -(1 - r1.xyz) + 1) + r2.xyz, (float3)_Intensity);
    r2.w = r0.w;
    o.color0 = r2;
    return o;
}
