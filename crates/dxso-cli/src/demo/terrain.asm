// dxso demo: a terrain displaced by a height map read with texldl, lit per vertex.
//   v0 = grid position (x, 0, z, 1), v1 = texture coordinate (u, v)
//   c0..c3 view-projection rows; c4 = (height scale, texel step, slope factor, 0)
//   c5 = direction towards the light; c6 / c7 = colour of low / high ground; c9 = ambient
vs_3_0
def c8, 0, 1, 0.5, 2
dcl_position v0
dcl_texcoord0 v1
dcl_position o0
dcl_color o1
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
dp3 r7.x, r6, c5
max r7.x, r7.x, c8.x         // diffuse term
mov r10, c6
lrp r8, r1.x, c7, r10        // colour by height
mul r8.xyz, r8, r7.x
add r8.xyz, r8, c9
mov o1, r8
mov r9, v0
mad r9.y, r1.x, c4.x, v0.y   // displaced position
m4x4 o0, r9, c0
