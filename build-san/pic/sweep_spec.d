build-san/pic/sweep_spec.o: src/sweep_spec.c src/json.h \
 include/themis/error.h src/sweep_internal.h include/themis/sweep.h \
 include/themis/buf.h include/themis/run.h include/themis/emulate.h \
 include/themis/schedule.h include/themis/cost.h include/themis/system.h \
 include/themis/train.h include/themis/workload.h include/themis/report.h \
 include/themis/summarize.h include/themis/str.h include/themis/units.h
src/json.h:
include/themis/error.h:
src/sweep_internal.h:
include/themis/sweep.h:
include/themis/buf.h:
include/themis/run.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/train.h:
include/themis/workload.h:
include/themis/report.h:
include/themis/summarize.h:
include/themis/str.h:
include/themis/units.h:
