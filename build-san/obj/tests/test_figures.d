build-san/obj/tests/test_figures.o: tests/test_figures.c \
 tests/check_themis.h include/themis/themis.h include/themis/astra.h \
 include/themis/cost.h include/themis/system.h include/themis/error.h \
 include/themis/buf.h include/themis/csv.h include/themis/emulate.h \
 include/themis/schedule.h include/themis/output.h \
 include/themis/report.h include/themis/run.h include/themis/summarize.h \
 include/themis/train.h include/themis/workload.h include/themis/str.h \
 include/themis/sweep.h include/themis/text.h include/themis/units.h
tests/check_themis.h:
include/themis/themis.h:
include/themis/astra.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
include/themis/buf.h:
include/themis/csv.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/output.h:
include/themis/report.h:
include/themis/run.h:
include/themis/summarize.h:
include/themis/train.h:
include/themis/workload.h:
include/themis/str.h:
include/themis/sweep.h:
include/themis/text.h:
include/themis/units.h:
