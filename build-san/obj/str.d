build-san/obj/str.o: src/str.c include/themis/str.h
include/themis/str.h:
