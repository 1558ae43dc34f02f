build-san/pic/report.o: src/report.c src/report_internal.h \
 include/themis/report.h include/themis/run.h include/themis/emulate.h \
 include/themis/schedule.h include/themis/cost.h include/themis/system.h \
 include/themis/error.h include/themis/summarize.h include/themis/train.h \
 include/themis/workload.h include/themis/csv.h include/themis/buf.h \
 include/themis/text.h
src/report_internal.h:
include/themis/report.h:
include/themis/run.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
include/themis/summarize.h:
include/themis/train.h:
include/themis/workload.h:
include/themis/csv.h:
include/themis/buf.h:
include/themis/text.h:
