build-san/obj/fuzz/fuzz_astra_sys.o: tests/fuzz/fuzz_astra_sys.c \
 tests/fuzz/fuzz.h include/themis/astra.h include/themis/cost.h \
 include/themis/system.h include/themis/error.h
tests/fuzz/fuzz.h:
include/themis/astra.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
