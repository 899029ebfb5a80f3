// A ps_3_0 partner for transform.asm: the texture at the vertex's texture coordinate,
// modulated by the lit colour the vertex shader computes.
    ps_3_0
    dcl_color v0
    dcl_texcoord v1.xy
    dcl_2d s0
    texld r0, v1, s0
    mul oC0, r0, v0
