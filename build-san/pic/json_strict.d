build-san/pic/json_strict.o: src/json_strict.c src/json.h \
 include/themis/error.h
src/json.h:
include/themis/error.h:
