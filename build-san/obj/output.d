build-san/obj/output.o: src/output.c include/themis/output.h \
 include/themis/error.h include/themis/str.h
include/themis/output.h:
include/themis/error.h:
include/themis/str.h:
