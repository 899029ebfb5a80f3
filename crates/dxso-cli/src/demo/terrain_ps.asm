// dxso demo, pixel stage: per-pixel lighting of a textured terrain, two-sided through vFace.
//   v0 = (u, v, height, 1), v1 = normal; s0 = ground texture (tiled)
//   c5 = direction towards the light; c6 / c7 = colour of low / high ground; c9 = ambient
ps_3_0
def c10, 0, 1, 12, 0.5
dcl_texcoord0 v0
dcl_texcoord1 v1.xyz
dcl vFace
dcl_2d s0
nrm r0.xyz, v1               // interpolated normals are not unit length
if_lt vFace, c10.x
mov r0.xyz, -r0              // a back face: light its other side
endif
dp3_sat r1.x, r0, c5         // diffuse term
mul r2.xy, v0.xy, c10.z      // tile the ground texture
texld r3, r2, s0
mov r6, c6
lrp r4, v0.z, c7, r6         // colour by height
mul r4.xyz, r4, r3
mul r5.xyz, r4, c9           // ambient
mad r4.xyz, r4, r1.x, r5
mov r4.w, c10.y
mov oC0, r4
