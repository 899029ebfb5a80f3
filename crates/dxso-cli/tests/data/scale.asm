// Scales positions by c0 and passes a D3DCOLOR colour through.
vs_3_0
dcl_position v0
dcl_color v1
dcl_position o0
dcl_color o1
mul o0, v0, c0
mov o1, v1
