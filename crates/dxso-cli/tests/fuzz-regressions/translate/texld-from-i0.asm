ps_2_0
dcl_2d s0
texld r0, i0, s0
mov oC0, r0
