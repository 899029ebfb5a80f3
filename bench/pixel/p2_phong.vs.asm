// P2's vertex stage: the position as given (clip space), the world position and the normal.
vs_3_0
dcl_position v0
dcl_texcoord0 v1
dcl_texcoord1 v2
dcl_position o0
dcl_texcoord0 o1.xyz
dcl_texcoord1 o2.xyz
mov o0, v0
mov o1.xyz, v1
mov o2.xyz, v2
