// P4: the interpolated vertex colour (the work is the rasterizer's and the depth test's).
ps_2_0
dcl v0
mov oC0, v0
