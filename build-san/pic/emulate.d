build-san/pic/emulate.o: src/emulate.c src/emulate_internal.h \
 include/themis/emulate.h include/themis/schedule.h include/themis/cost.h \
 include/themis/system.h include/themis/error.h include/themis/str.h
src/emulate_internal.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
include/themis/str.h:
