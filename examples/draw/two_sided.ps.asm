// Front faces keep their colour; back faces are tinted blue, through vFace.
ps_3_0
def c0, 0, 0.3, 0.5, 1
dcl vFace
dcl_color v0
mov r0, v0
if_lt vFace, c0.x
lrp r0.xyz, c0.z, v0, c0.xyzw
add r0.z, r0.z, c0.z
endif
mov oC0, r0
