build-san/pic/text.o: src/text.c include/themis/text.h
include/themis/text.h:
