build-san/obj/fuzz/fuzz_units.o: tests/fuzz/fuzz_units.c \
 tests/fuzz/fuzz.h include/themis/sweep.h include/themis/buf.h \
 include/themis/run.h include/themis/emulate.h include/themis/schedule.h \
 include/themis/cost.h include/themis/system.h include/themis/error.h \
 include/themis/units.h
tests/fuzz/fuzz.h:
include/themis/sweep.h:
include/themis/buf.h:
include/themis/run.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
include/themis/units.h:
