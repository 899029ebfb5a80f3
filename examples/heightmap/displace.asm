// Displaces a flat grid by a height map: the vs_3_0 vertex-texture example.
//   v0 = grid position (x, 0, z, 1) with x, z in [0, 1]; the texture coordinate is (x, z)
//   height = texldl(s0, (x, z, 0, 0)).r;  y = height * c4.x
//   o0 = m4x4(displaced position, c0..c3), o1 = (x, z, height, 1)
vs_3_0
def c5, 0, 1, 0, 0
dcl_position v0
dcl_position o0
dcl_texcoord0 o1
dcl_2d s0
mov r0.xy, v0.xz
mov r0.zw, c5.x
texldl r1, r0, s0
mov r2, v0
mad r2.y, r1.x, c4.x, v0.y
m4x4 o0, r2, c0
mov o1.xy, r0
mov o1.z, r1.x
mov o1.w, c5.y
