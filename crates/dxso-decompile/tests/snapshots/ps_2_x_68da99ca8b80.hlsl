// ps_2_x pixel shader, decompiled by dxso (for fxc)

float4 c[6] : register(c0);
samplerCUBE s0 : register(s0);

struct PS_INPUT
{
    float4 texcoord0 : TEXCOORD0;
    float4 texcoord1 : TEXCOORD1;
    float4 texcoord2 : TEXCOORD2;
};

struct PS_OUTPUT
{
    float4 color0 : COLOR0;
};

PS_OUTPUT main(PS_INPUT i)
{
    PS_OUTPUT o = (PS_OUTPUT)0;
    float4 r0 = 0;
    float r1 = 0;
    float r2_w = 0;
    r0.xyz = c[4].xyz - i.texcoord2.xyz;
    r0.w = rsqrt(abs(dot(r0.xyz, r0.xyz)));
    r0.xyz = r0.xyz * r0.w + c[5].xyz;
    r1 = max(dot(i.texcoord1.xyz, normalize(r0.xyz)), 0);
    r2_w = pow(abs(r1), 128 * c[3].x);
    r0 = texCUBE(s0, i.texcoord0.xyz);
    r0.xyz = c[0].xyz * c[1].xyz * r2_w + r0.xyz * c[2].xyz;
    r0.w = 1;
    o.color0 = r0;
    return o;
}
