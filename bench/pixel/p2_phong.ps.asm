// P2: per-pixel Blinn-Phong over 4 point lights (unrolled: ps_3_0 cannot index c#).
// c0, c2, c4, c6 = light positions; c1, c3, c5, c7 = their colours; c8 = the eye;
// c9 = (specular power, specular weight, ambient). v0 = world position, v1 = normal.
// Per light: L = normalize(light - P), H = normalize(L + V), k = N.L + w * (N.H)^power.
ps_3_0
dcl_texcoord0 v0.xyz
dcl_texcoord1 v1.xyz
nrm r0.xyz, v1
add r4.xyz, c8, -v0
nrm r4.xyz, r4
mov r6, c9
mov r5.xyz, r6.z
add r1.xyz, c0, -v0
nrm r2.xyz, r1
add r3.xyz, r2, r4
nrm r1.xyz, r3
dp3_sat r3.x, r0, r2
dp3_sat r3.y, r0, r1
pow r3.y, r3.y, r6.x
mad r3.x, r3.y, r6.y, r3.x
mad r5.xyz, c1, r3.x, r5
add r1.xyz, c2, -v0
nrm r2.xyz, r1
add r3.xyz, r2, r4
nrm r1.xyz, r3
dp3_sat r3.x, r0, r2
dp3_sat r3.y, r0, r1
pow r3.y, r3.y, r6.x
mad r3.x, r3.y, r6.y, r3.x
mad r5.xyz, c3, r3.x, r5
add r1.xyz, c4, -v0
nrm r2.xyz, r1
add r3.xyz, r2, r4
nrm r1.xyz, r3
dp3_sat r3.x, r0, r2
dp3_sat r3.y, r0, r1
pow r3.y, r3.y, r6.x
mad r3.x, r3.y, r6.y, r3.x
mad r5.xyz, c5, r3.x, r5
add r1.xyz, c6, -v0
nrm r2.xyz, r1
add r3.xyz, r2, r4
nrm r1.xyz, r3
dp3_sat r3.x, r0, r2
dp3_sat r3.y, r0, r1
pow r3.y, r3.y, r6.x
mad r3.x, r3.y, r6.y, r3.x
mad r5.xyz, c7, r3.x, r5
mov r5.w, c9.w
mov oC0, r5
