// A grid displaced by a height function of (x, z) computed in the shader:
//   y = c4.x * sin(c4.y * x) * cos(c4.z * z); c0..c3 view-projection rows.
//   o1 = world position (for the pixel shader's derivatives), o2 = (height, 0, 0, 1)
vs_3_0
def c5, 0, 1, 0.5, 0.15915494
def c6, 6.2831853, -3.1415927, 0, 0
dcl_position v0
dcl_position o0
dcl_texcoord0 o1
dcl_texcoord1 o2
mul r0.x, v0.x, c4.y
mad r0.x, r0.x, c5.w, c5.z
frc r0.x, r0.x
mad r0.x, r0.x, c6.x, c6.y
sincos r1.y, r0.x
mul r0.z, v0.z, c4.z
mad r0.z, r0.z, c5.w, c5.z
frc r0.z, r0.z
mad r0.z, r0.z, c6.x, c6.y
sincos r2.x, r0.z
mul r3.x, r1.y, r2.x
mov r4, v0
mul r4.y, r3.x, c4.x
m4x4 o0, r4, c0
mov o1, r4
mad o2, r3.x, c5.z, c5.z
