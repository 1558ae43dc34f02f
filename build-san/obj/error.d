build-san/obj/error.o: src/error.c include/themis/error.h
include/themis/error.h:
