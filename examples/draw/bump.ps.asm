// ps_1_1 environment bump mapping: t0 reads the V8U8 bump map, texbem offsets t1's
// coordinates by it through stage 1's BUMPENVMAT, and the result is the pixel's colour.
ps_1_1
tex t0
texbem t1, t0
mov r0, t1
