build-san/pic/run_defaults.o: src/run_defaults.c src/json.h \
 include/themis/error.h src/system_internal.h include/themis/system.h \
 include/themis/run.h include/themis/emulate.h include/themis/schedule.h \
 include/themis/cost.h
src/json.h:
include/themis/error.h:
src/system_internal.h:
include/themis/system.h:
include/themis/run.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/cost.h:
