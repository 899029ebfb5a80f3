vs_3_0
dcl_position o0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
if b0
mov o0, c0
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
endif
