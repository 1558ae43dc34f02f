build-san/obj/fuzz/fuzz_workload.o: tests/fuzz/fuzz_workload.c \
 tests/fuzz/fuzz.h include/themis/system.h include/themis/error.h \
 include/themis/workload.h include/themis/schedule.h \
 include/themis/cost.h
tests/fuzz/fuzz.h:
include/themis/system.h:
include/themis/error.h:
include/themis/workload.h:
include/themis/schedule.h:
include/themis/cost.h:
