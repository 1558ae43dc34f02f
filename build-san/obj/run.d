build-san/obj/run.o: src/run.c include/themis/run.h \
 include/themis/emulate.h include/themis/schedule.h include/themis/cost.h \
 include/themis/system.h include/themis/error.h
include/themis/run.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
