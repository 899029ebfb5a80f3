// P1: a texture lit by one directional light. c0 = the light direction (normalised),
// c1.x = diffuse weight, c1.y = ambient; t1 = an unnormalised normal.
ps_2_0
dcl t0.xy
dcl t1.xyz
dcl_2d s0
texld r0, t0, s0
nrm r1.xyz, t1
dp3_sat r1.w, r1, c0
mul r1.w, r1.w, c1.x
add r1.w, r1.w, c1.y
mul r0.xyz, r0, r1.w
mov oC0, r0
