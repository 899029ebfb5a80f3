// vs_3_0 vertex shader, decompiled by dxso (for fxc)

bool isSkining : register(b0);
column_major float4x4 worldMatrix : register(c0);
column_major float4x3 worldITMatrix : register(c4); // column_major float4x4 in the constant table
column_major float4x4 worldViewProjMatrix : register(c8);
column_major float4x4 textureMatrix0 : register(c12);
column_major float4x3 viewITMatrix : register(c16); // column_major float4x4 in the constant table
float4 controlColor : register(c20);
float4 jointMatrices[144] : register(c21);
float4 vfxFresnelParam : register(c165);
float4 vfxFresnelCenterColor : register(c166);
float4 vfxFresnelOutsideColor : register(c167);
float4 ModelBBoxScale : register(c169);
float4 ModelBBoxOffSet : register(c170);
sampler2D s0 : register(s0);

struct VS_INPUT
{
    float4 position : POSITION;
    float4 color0 : COLOR0;
    float4 normal : NORMAL;
    float4 texcoord5 : TEXCOORD5;
    float4 texcoord6 : TEXCOORD6;
    float4 texcoord7 : TEXCOORD7;
    float4 texcoord0 : TEXCOORD0;
};

struct VS_OUTPUT
{
    float4 position : POSITION;
    float4 texcoord3 : TEXCOORD3;
    float4 texcoord0 : TEXCOORD0;
    float4 texcoord6 : TEXCOORD6;
    float4 texcoord5 : TEXCOORD5;
    float3 color0 : COLOR0;
    float4 color1 : COLOR1;
    float3 texcoord7 : TEXCOORD7;
};

// mova's rounding: to nearest, exact halves to even.
float4 dx9_round(float4 x)
{
    float4 t = floor(x);
    float4 d = x - t;
    return t + (float4)(d > 0.5) + (float4)(d == 0.5) * (frac(t * 0.5) * 2);
}
float3 dx9_round(float3 x) { return dx9_round(float4(x, 0)).xyz; }
float2 dx9_round(float2 x) { return dx9_round(float4(x, 0, 0)).xy; }
float dx9_round(float x) { return dx9_round(float4(x, 0, 0, 0)).x; }

VS_OUTPUT main(VS_INPUT i)
{
    VS_OUTPUT o = (VS_OUTPUT)0;
    float4 r0 = 0;
    float4 r1 = 0;
    float4 r2 = 0;
    float4 r3 = 0;
    float4 r4 = 0;
    float4 r5 = 0;
    float4 r6 = 0;
    float4 r30 = 0;
    int4 a0 = 0;
    r0.xyz = i.normal.xyz * 2 - 1;
    r1.xyz = i.texcoord5.xyz * 2 - 1;
    r2.xyz = i.position.xyz * ModelBBoxScale.xyz + ModelBBoxOffSet.xyz;
    if (isSkining) {
        r3 = frac(i.texcoord7);
        r4 = i.texcoord7 - r3;
        r3 = ((float4)(i.texcoord7 < -i.texcoord7) * (float4)(-r3 < r3) + r4) * 3;
        a0.xy = (int2)dx9_round(r3.xy);
        r4 = jointMatrices[a0.x] * i.texcoord6.x + i.texcoord6.y * jointMatrices[a0.y];
        r5 = jointMatrices[a0.x + 1] * i.texcoord6.x + i.texcoord6.y * jointMatrices[a0.y + 1];
        r6 = jointMatrices[a0.x + 2] * i.texcoord6.x + i.texcoord6.y * jointMatrices[a0.y + 2];
        a0.x = (int)dx9_round(r3.z);
        r4 = jointMatrices[a0.x] * i.texcoord6.z + r4;
        r5 = jointMatrices[a0.x + 1] * i.texcoord6.z + r5;
        r6 = jointMatrices[a0.x + 2] * i.texcoord6.z + r6;
        a0.x = (int)dx9_round(r3.w);
        r3 = jointMatrices[a0.x] * i.texcoord6.w + r4;
        r4 = jointMatrices[a0.x + 1] * i.texcoord6.w + r5;
        r5 = jointMatrices[a0.x + 2] * i.texcoord6.w + r6;
        r2.w = i.position.w;
        r0.w = dot(r3, r2);
        r1.w = dot(r4, r2);
        r2.z = dot(r5, r2);
        r2.w = dot(r3.xyz, r0.xyz);
        r3.w = dot(r4.xyz, r0.xyz);
        r0.z = dot(r5.xyz, r0.xyz);
        r3.x = dot(r3.xyz, r1.xyz);
        r3.y = dot(r4.xyz, r1.xyz);
        r1.z = dot(r5.xyz, r1.xyz);
        r2.x = r0.w;
        r2.y = r1.w;
        r0.x = r2.w;
        r0.y = r3.w;
        r1.xy = r3.xy;
    }
    r3 = mul((float4x3)worldViewProjMatrix, r2.xyz);
    r3 = transpose(worldViewProjMatrix)[3] * i.position.w + r3;
    r2.xyw = transpose(worldMatrix)[0].xyz * r2.x + r2.y * transpose(worldMatrix)[1].xyz;
    r2.xyz = transpose(worldMatrix)[2].xyz * r2.z + r2.xyw + transpose(worldMatrix)[3].xyz * i.position.w;
    r0.xyw = transpose(worldITMatrix)[0].xyz * r0.x + r0.y * transpose(worldITMatrix)[1].xyz;
    r0.xyz = transpose(worldITMatrix)[2].xyz * r0.z + r0.xyw;
    r1.xyw = transpose(worldITMatrix)[0].xyz * r1.x + r1.y * transpose(worldITMatrix)[1].xyz;
    r1.xyz = transpose(worldITMatrix)[2].xyz * r1.z + r1.xyw;
    r4.xy = mul((float4x2)textureMatrix0, i.texcoord0.xy).xy;
    o.texcoord0.xy = r4.xy + transpose(textureMatrix0)[3].xy;
    r5.x = transpose(viewITMatrix)[0].w - r2.x;
    r5.y = transpose(viewITMatrix)[1].w - r2.y;
    r5.z = transpose(viewITMatrix)[2].w - r2.z;
    r6.xyz = normalize(r5.xyz);
    r2.w = 1;
    r0.w = saturate(lerp(vfxFresnelParam.x, r2.w, pow(abs(min(abs(vfxFresnelParam.z - abs(dot(r6.xyz, normalize(r0.xyz)))), 1)), vfxFresnelParam.y)));
    r4 = abs(vfxFresnelParam.z - r0.w) * (vfxFresnelCenterColor - vfxFresnelOutsideColor) + vfxFresnelOutsideColor;
    r4 = r4 * i.color0;
    r4.w = (vfxFresnelParam.w * (r0.w - 1) + r2.w) * r4.w;
    o.texcoord3 = r4 * controlColor;
    o.color0 = r0.xyz * 0.5 + 0.5;
    r1.w = i.texcoord5.w * 2 - 1;
    o.color1 = r1 * 0.5 + 0.5;
    o.position = r3;
    o.texcoord0.zw = 0;
    o.texcoord6.w = r3.z;
    o.texcoord6.xyz = r2.xyz;
    o.texcoord5 = r3;
    o.texcoord7 = r6.xyz;
    r0 = r3;
    r30 = tex2Dlod(s0, float4(0.0625, 0.0625, 0.0625, 0.0625));
    r0.x = r0.x + r30.x * (r0.w - r30.y);
    o.texcoord5 = r0;
    return o;
}
