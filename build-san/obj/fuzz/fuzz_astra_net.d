build-san/obj/fuzz/fuzz_astra_net.o: tests/fuzz/fuzz_astra_net.c \
 tests/fuzz/fuzz.h include/themis/astra.h include/themis/cost.h \
 include/themis/system.h include/themis/error.h
tests/fuzz/fuzz.h:
include/themis/astra.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
