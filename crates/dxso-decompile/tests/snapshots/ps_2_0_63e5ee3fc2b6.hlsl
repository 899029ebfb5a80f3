// ps_2_0 pixel shader, decompiled by dxso (for fxc)

sampler2D _MainTex : register(s0);

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
    float2 r1 = 0;
    float2 r2 = 0;
    float2 r3 = 0;
    float2 r4 = 0;
    r0.xy = i.texcoord1.xy + i.texcoord0.xy;
    r1 = r0.xy + i.texcoord1.xy;
    r2 = r1 + i.texcoord1.xy;
    r3 = r2 + i.texcoord1.xy;
    r4 = r3 + i.texcoord1.xy;
    r0 = tex2D(_MainTex, r0.xy) + tex2D(_MainTex, i.texcoord0.xy) + tex2D(_MainTex, r1) + tex2D(_MainTex, r2) + tex2D(_MainTex, r3);
    o.color0 = (tex2D(_MainTex, r4) + r0) * 0.16666667;
    return o;
}
