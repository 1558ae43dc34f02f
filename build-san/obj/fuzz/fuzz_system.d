build-san/obj/fuzz/fuzz_system.o: tests/fuzz/fuzz_system.c \
 tests/fuzz/fuzz.h include/themis/system.h include/themis/error.h
tests/fuzz/fuzz.h:
include/themis/system.h:
include/themis/error.h:
