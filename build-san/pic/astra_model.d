build-san/pic/astra_model.o: src/astra_model.c src/schedule_internal.h \
 include/themis/schedule.h include/themis/cost.h include/themis/system.h \
 include/themis/error.h include/themis/astra.h
src/schedule_internal.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
include/themis/astra.h:
