build-san/obj/summarize.o: src/summarize.c include/themis/csv.h \
 include/themis/buf.h include/themis/error.h include/themis/str.h \
 include/themis/summarize.h include/themis/text.h
include/themis/csv.h:
include/themis/buf.h:
include/themis/error.h:
include/themis/str.h:
include/themis/summarize.h:
include/themis/text.h:
