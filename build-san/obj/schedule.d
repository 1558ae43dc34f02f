build-san/obj/schedule.o: src/schedule.c src/schedule_internal.h \
 include/themis/schedule.h include/themis/cost.h include/themis/system.h \
 include/themis/error.h include/themis/str.h include/themis/units.h
src/schedule_internal.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
include/themis/str.h:
include/themis/units.h:
