build-san/obj/system.o: src/system.c src/json.h include/themis/error.h \
 src/system_internal.h include/themis/system.h include/themis/str.h
src/json.h:
include/themis/error.h:
src/system_internal.h:
include/themis/system.h:
include/themis/str.h:
