build-san/obj/json.o: src/json.c src/json.h include/themis/error.h \
 include/themis/str.h
src/json.h:
include/themis/error.h:
include/themis/str.h:
