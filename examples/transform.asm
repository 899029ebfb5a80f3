// A vs_3_0 transform: position by a 4x4 matrix in c0-c3, normal by c4-c6,
// one directional light (direction c7, colour c8), texture coordinates passed on.
    vs_3_0
    def c9, 0, 1, 0.5, 0
    dcl_position v0
    dcl_normal v1
    dcl_texcoord v2
    dcl_position o0
    dcl_color o1
    dcl_texcoord o2.xy
    dp4 o0.x, c0, v0
    dp4 o0.y, c1, v0
    dp4 o0.z, c2, v0
    dp4 o0.w, c3, v0
    m3x3 r0.xyz, v1, c4
    nrm r1.xyz, r0
    dp3 r0.x, r1, -c7
    max r0.x, r0.x, c9.x
    mul o1, r0.x, c8
    mov o2.xy, v2
