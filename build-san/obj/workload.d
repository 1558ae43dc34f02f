build-san/obj/workload.o: src/workload.c src/json.h \
 include/themis/error.h include/themis/str.h include/themis/units.h \
 include/themis/workload.h include/themis/schedule.h \
 include/themis/cost.h include/themis/system.h
src/json.h:
include/themis/error.h:
include/themis/str.h:
include/themis/units.h:
include/themis/workload.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
