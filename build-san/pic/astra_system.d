build-san/pic/astra_system.o: src/astra_system.c src/json.h \
 include/themis/error.h src/system_internal.h include/themis/system.h
src/json.h:
include/themis/error.h:
src/system_internal.h:
include/themis/system.h:
