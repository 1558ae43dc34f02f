build-san/obj/sweep_point.o: src/sweep_point.c src/sweep_internal.h \
 include/themis/sweep.h include/themis/buf.h include/themis/run.h \
 include/themis/emulate.h include/themis/schedule.h include/themis/cost.h \
 include/themis/system.h include/themis/error.h include/themis/train.h \
 include/themis/workload.h include/themis/csv.h include/themis/report.h \
 include/themis/summarize.h
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
include/themis/report.h:
include/themis/summarize.h:
