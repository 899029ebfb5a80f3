// A perspective ground plane: c0..c3 view-projection rows; oFog from the view depth,
// linear between c4.x (start) and c4.y (end).
vs_2_0
def c5, 1, 0, 0, 0
dcl_position v0
dcl_texcoord v1
m4x4 r0, v0, c0
mov oPos, r0
add r1.x, c4.y, -r0.w
mul oFog, r1.x, c4.z
mov oT0, v1
