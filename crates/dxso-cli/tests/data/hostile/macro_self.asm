#define a a a a a a a
vs_2_0
mov a
