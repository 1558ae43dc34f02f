build-san/obj/fuzz/fuzz_csv.o: tests/fuzz/fuzz_csv.c tests/fuzz/fuzz.h \
 include/themis/csv.h include/themis/buf.h include/themis/error.h \
 include/themis/summarize.h
tests/fuzz/fuzz.h:
include/themis/csv.h:
include/themis/buf.h:
include/themis/error.h:
include/themis/summarize.h:
