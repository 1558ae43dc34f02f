build-san/pic/units.o: src/units.c include/themis/units.h \
 include/themis/error.h
include/themis/units.h:
include/themis/error.h:
