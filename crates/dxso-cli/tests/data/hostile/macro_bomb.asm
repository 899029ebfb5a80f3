#define a r0 r0
#define b a a
#define c b b
#define d c c
#define e d d
#define f e e
#define g f f
#define h g g
#define i h h
#define j i i
#define k j j
#define l k k
#define m l l
#define n m m
#define o n n
vs_2_0
mov r0, o
