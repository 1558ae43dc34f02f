build-san/pic/buf.o: src/buf.c include/themis/buf.h
include/themis/buf.h:
