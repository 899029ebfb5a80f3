// The texture at t0, tinted by the pixel constant c0.
ps_2_0
dcl t0.xy
dcl_2d s0
texld r0, t0, s0
mul r0, r0, c0
mov oC0, r0
