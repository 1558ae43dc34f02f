build-san/obj/sweep_run.o: src/sweep_run.c src/sweep_internal.h \
 include/themis/sweep.h include/themis/buf.h include/themis/run.h \
 include/themis/emulate.h include/themis/schedule.h include/themis/cost.h \
 include/themis/system.h include/themis/error.h include/themis/train.h \
 include/themis/workload.h include/themis/csv.h
src/sweep_internal.h:
include/themis/sweep.h:
include/themis/buf.h:
include/themis/run.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
include/themis/train.h:
include/themis/workload.h:
include/themis/csv.h:
