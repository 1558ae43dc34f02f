build-san/obj/cost.o: src/cost.c include/themis/cost.h \
 include/themis/system.h include/themis/error.h
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
