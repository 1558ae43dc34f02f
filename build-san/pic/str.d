build-san/pic/str.o: src/str.c include/themis/str.h
include/themis/str.h:
