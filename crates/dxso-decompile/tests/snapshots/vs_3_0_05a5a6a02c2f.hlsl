// vs_3_0 vertex shader, decompiled by dxso (for fxc)

int4 g_nLightCountRegister : register(i0); // int in the constant table
float4 cEyePosWaterZ : register(c2);
float4 cFlexScale : register(c3);
column_major float4x4 cViewProj : register(c8);
float4 cViewProjZ : register(c13);
float4 cFogParams : register(c16);
float3 cAmbientCubeX[2] : register(c21);
float3 cAmbientCubeY[2] : register(c23);
float3 cAmbientCubeZ[2] : register(c25);
float4 cLightInfo[20] : register(c27); // struct { float4 color; float4 dir; float4 pos; float4 spotParams; float4 atten; }[4] in the constant table
float4 cBaseTexCoordTransform[2] : register(c48);
float4 cDetailTexCoordTransform[2] : register(c52);
column_major float4x3 cModel[53] : register(c58);
float4 c0 : register(c0); // not in the constant table
sampler2D s0 : register(s0);

struct VS_INPUT
{
    float4 position : POSITION;
    float4 blendweight : BLENDWEIGHT;
    float4 blendindices : BLENDINDICES;
    float4 normal : NORMAL;
    float4 texcoord0 : TEXCOORD0;
    float4 position1 : POSITION1;
    float4 normal1 : NORMAL1;
};

struct VS_OUTPUT
{
    float4 position : POSITION;
    float2 texcoord0 : TEXCOORD0;
    float2 texcoord1 : TEXCOORD1;
    float4 texcoord2 : TEXCOORD2;
    float3 texcoord3 : TEXCOORD3;
    float3 texcoord4 : TEXCOORD4;
    float4 texcoord5 : TEXCOORD5;
    float4 texcoord6 : TEXCOORD6;
    float4 texcoord7 : TEXCOORD7;
    float4 color1 : COLOR1;
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
    float3 r6 = 0;
    float3 r7 = 0;
    float3 r8 = 0;
    float4 r10 = 0;
    int4 a0 = 0;
    r0.xyz = i.position1.xyz * cFlexScale.x + i.position.xyz;
    r1.xyz = i.normal1.xyz * cFlexScale.x + i.normal.xyz;
    r2.xyz = 765.00586 * i.blendindices.zyx;
    a0.xyz = (int3)dx9_round(r2.xyz);
    r1.w = c0.y - (i.blendweight.y + i.blendweight.x);
    r2 = transpose(cModel[a0.x / 3])[a0.x % 3] * i.blendweight.x + i.blendweight.y * transpose(cModel[a0.y / 3])[a0.y % 3];
    r3 = transpose(cModel[(a0.x + 1) / 3])[(a0.x + 1) % 3] * i.blendweight.x + i.blendweight.y * transpose(cModel[(a0.y + 1) / 3])[(a0.y + 1) % 3];
    r4 = transpose(cModel[(a0.x + 2) / 3])[(a0.x + 2) % 3] * i.blendweight.x + i.blendweight.y * transpose(cModel[(a0.y + 2) / 3])[(a0.y + 2) % 3];
    r2 = transpose(cModel[a0.z / 3])[a0.z % 3] * r1.w + r2;
    r3 = transpose(cModel[(a0.z + 1) / 3])[(a0.z + 1) % 3] * r1.w + r3;
    r4 = transpose(cModel[(a0.z + 2) / 3])[(a0.z + 2) % 3] * r1.w + r4;
    r0.w = i.position.w;
    r5.x = dot(r0, r2);
    r5.y = dot(r0, r3);
    r5.z = dot(r0, r4);
    r0.x = dot(r1.xyz, r2.xyz);
    r0.y = dot(r1.xyz, r3.xyz);
    r0.z = dot(r1.xyz, r4.xyz);
    r1.xyz = normalize(r0.xyz);
    r5.w = c0.y;
    r0.xy = mul(r5, cViewProj).xy;
    o.position.z = dot(r5, transpose(cViewProj)[2]);
    r0.w = dot(r5, transpose(cViewProj)[3]);
    r0.z = dot(r5, cViewProjZ);
    r2.xy = cEyePosWaterZ.wz - r5.z;
    r1.w = max(r2.x, c0.x);
    r2.x = 1 / r2.y;
    o.color1.w = max(-(r0.z * (r1.w * r2.x)) * cFogParams.w + cFogParams.y, cFogParams.z);
    o.texcoord3 = cEyePosWaterZ.xyz - r5.xyz;
    r2.z = c0.y;
    r3.x = c0.y;
    r4.xyz = c0.x;
    r6 = c0.x;
    r1.w = c0.x;
    for (int n = 0; n < g_nLightCountRegister.x; n++) {
        r2.x = r1.w * 5;
        a0.x = (int)dx9_round(r2.x);
        r7 = cLightInfo[a0.x + 2].xyz - r5.xyz;
        r2.x = dot(r7, r7);
        r2.y = rsqrt(abs(r2.x));
        r8 = r2.y * r7;
        r7 = max(dot(r1.xyz, cLightInfo[a0.x].w * (r7 * -r2.y - cLightInfo[a0.x + 1].xyz) + r8), c0.x) * cLightInfo[a0.x].xyz;
        r3.yz = r2.yz * r2.x;
        r2.x = 1 / dot(cLightInfo[a0.x + 4].xyz, r3.xyz);
        r3.y = pow(abs(max((dot(cLightInfo[a0.x + 1].xyz, -r8) - cLightInfo[a0.x + 3].z) * cLightInfo[a0.x + 3].w, 0.0001)), cLightInfo[a0.x + 3].x);
        r2.x = cLightInfo[a0.x + 1].w * (r2.x * min(r3.y, c0.y) - r2.x) + r2.x;
        r2.xyw = (cLightInfo[a0.x].w * (c0.y - r2.x) + r2.x) * r7;
        r4.xyz = (float)(-r1.w >= r1.w) * r2.xyw + r4.xyz;
        r3.y = (float)(-r1.w < r1.w);
        r6 = r2.xyw * r3.y + r6;
        r1.w = r1.w + c0.y;
    }
    o.texcoord5.xyz = r4.xyz;
    r2.xyz = r1.xyz * r1.xyz;
    r3.xyz = (float3)(r1.xyz < c0.x);
    a0.xyz = (int3)dx9_round(r3.xyz);
    r2.xyw = r2.x * cAmbientCubeX[a0.x].xyz + r2.y * cAmbientCubeY[a0.y].xyz;
    o.texcoord2.xyz = r2.z * cAmbientCubeZ[a0.z].xyz + r2.xyw + r6;
    o.texcoord0.x = dot(i.texcoord0, cBaseTexCoordTransform[0]);
    o.texcoord0.y = dot(i.texcoord0, cBaseTexCoordTransform[1]);
    o.texcoord1.x = dot(i.texcoord0, cDetailTexCoordTransform[0]);
    o.texcoord1.y = dot(i.texcoord0, cDetailTexCoordTransform[1]);
    o.position.xyw = r0.xyw;
    r10 = tex2Dlod(s0, float4(0.0625, 0.0625, 0.0625, 0.0625));
    r0.x = r10.x * (r0.w - r10.y) + r0.x;
    o.texcoord2.w = c0.x;
    o.texcoord4 = r1.xyz;
    o.texcoord5.w = c0.x;
    o.texcoord6 = r0;
    o.texcoord7.xyz = r5.xyz;
    o.texcoord7.w = r0.z;
    o.color1.xyz = c0.x;
    return o;
}
