// P3: ps_1_4 bump mapping. s0 = a normal map, s2 = the base texture; t1 = the light
// vector biased into 0..1. Phase 1: N.L from the normal map's texel; phase 2: times the base.
ps_1_4
texld r0, t0
texcrd r1.xyz, t1
dp3_sat r0, r0_bx2, r1_bx2
phase
texld r2, t0
mul r0, r0, r2
