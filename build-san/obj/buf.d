build-san/obj/buf.o: src/buf.c include/themis/buf.h
include/themis/buf.h:
