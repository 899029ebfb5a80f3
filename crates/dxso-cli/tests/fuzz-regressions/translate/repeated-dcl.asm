vs_3_0
dcl_position v0
dcl_color1 v2
dcl_color1 v2
dcl_position o0
mov o0, v0
