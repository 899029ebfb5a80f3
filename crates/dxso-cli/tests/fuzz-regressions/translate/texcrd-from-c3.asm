ps_1_4
texcrd r4, c3
mov r0, r4
