build-san/obj/fuzz/util.o: tests/fuzz/util.c tests/fuzz/fuzz.h \
 include/themis/system.h include/themis/error.h
tests/fuzz/fuzz.h:
include/themis/system.h:
include/themis/error.h:
