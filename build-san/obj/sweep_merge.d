build-san/obj/sweep_merge.o: src/sweep_merge.c include/themis/csv.h \
 include/themis/buf.h include/themis/error.h include/themis/sweep.h \
 include/themis/run.h include/themis/emulate.h include/themis/schedule.h \
 include/themis/cost.h include/themis/system.h
include/themis/csv.h:
include/themis/buf.h:
include/themis/error.h:
include/themis/sweep.h:
include/themis/run.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
