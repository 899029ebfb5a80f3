// A stripe pattern from the texture coordinate.
ps_2_0
def c0, 0.9, 0.5, 0.2, 1
def c1, 0.3, 0.6, 0.3, 1
def c2, 8, 0.5, 0, 0
dcl t0.xy
mul r0.x, t0.y, c2.x
frc r0.x, r0.x
add r0.x, r0.x, -c2.y
mov r2, c1
cmp r1, r0.x, c0, r2
mov oC0, r1
