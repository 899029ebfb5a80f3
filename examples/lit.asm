// A lit vs_2_0 as fxc lists one: the header names the constants (dxso decompile reads it).
//
// Parameters:
//
//   float4 Ambient;
//   float4 LightColor;
//   float3 LightDir;
//   float4x4 World;
//   float4x4 WorldViewProj;
//
//
// Registers:
//
//   Name          Reg   Size
//   ------------- ----- ----
//   WorldViewProj c0       4
//   World         c4       3
//   LightDir      c7       1
//   LightColor    c8       1
//   Ambient       c9       1
//

    vs_2_0
    def c10, 0, 0, 0, 0
    dcl_position v0
    dcl_normal v1
    dp4 oPos.x, v0, c0
    dp4 oPos.y, v0, c1
    dp4 oPos.z, v0, c2
    dp4 oPos.w, v0, c3
    dp3 r0.x, v1, c4
    dp3 r0.y, v1, c5
    dp3 r0.z, v1, c6
    nrm r1.xyz, r0
    dp3 r0.x, r1, -c7
    max r0.x, r0.x, c10.x
    mov r1, c9
    mad oD0, r0.x, c8, r1
