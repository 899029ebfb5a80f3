// Per-pixel lighting with the normal from the derivatives of the world position (dsx/dsy
// across the 2x2 quad), lit on both sides through vFace, coloured by height.
ps_3_0
def c0, 0.35, 0.8, -0.45, 0
def c1, 0.25, 0.45, 0.2, 1
def c2, 0.85, 0.8, 0.7, 1
def c3, 0.15, 0.15, 0.2, 0
dcl_texcoord0 v0.xyz
dcl_texcoord1 v1.x
dcl vFace
dsx r0.xyz, v0
dsy r1.xyz, v0
crs r2.xyz, r0, r1
nrm r3.xyz, r2
if_lt vFace, c0.w
mov r3.xyz, -r3
endif
dp3_sat r4.x, r3, c0
mov r6, c1
lrp r5, v1.x, c2, r6
mad r5.xyz, r5, r4.x, c3
mov oC0, r5
