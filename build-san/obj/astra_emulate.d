build-san/obj/astra_emulate.o: src/astra_emulate.c src/emulate_internal.h \
 include/themis/emulate.h include/themis/schedule.h include/themis/cost.h \
 include/themis/system.h include/themis/error.h include/themis/astra.h
src/emulate_internal.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
include/themis/astra.h:
