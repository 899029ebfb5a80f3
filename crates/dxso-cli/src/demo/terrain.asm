// dxso demo, vertex stage: a terrain displaced by a height map read with texldl.
//   v0 = grid position (x, 0, z, 1), v1 = texture coordinate (u, v)
//   c0..c3 view-projection rows; c4 = (height scale, texel step, slope factor, 0)
//   out: o1 = (u, v, height, 1), o2 = the surface normal
vs_3_0
def c8, 0, 1, 0.5, 2
dcl_position v0
dcl_texcoord0 v1
dcl_position o0
dcl_texcoord0 o1
dcl_texcoord1 o2
dcl_2d s0
mov r0.xy, v1.xy
mov r0.zw, c8.x
texldl r1, r0, s0            // height here
mov r2, r0
add r2.x, r0.x, c4.y
texldl r3, r2, s0            // height one step along u
mov r2, r0
add r2.y, r0.y, c4.y
texldl r4, r2, s0            // height one step along v
add r5.x, r1.x, -r3.x
add r5.z, r1.x, -r4.x
mul r5.xz, r5.xz, c4.z       // -slope
mov r5.y, c8.y
nrm r6.xyz, r5               // normal
mov o2.xyz, r6
mov o2.w, c8.x
mov o1.xy, v1.xy
mov o1.z, r1.x
mov o1.w, c8.y
mov r9, v0
mad r9.y, r1.x, c4.x, v0.y   // displaced position
m4x4 o0, r9, c0
