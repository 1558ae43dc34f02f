build-san/pic/astra.o: src/astra.c src/json.h include/themis/error.h \
 include/themis/astra.h include/themis/cost.h include/themis/system.h \
 include/themis/run.h include/themis/emulate.h include/themis/schedule.h \
 include/themis/str.h
src/json.h:
include/themis/error.h:
include/themis/astra.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/run.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/str.h:
