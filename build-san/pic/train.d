build-san/pic/train.o: src/train.c include/themis/train.h \
 include/themis/emulate.h include/themis/schedule.h include/themis/cost.h \
 include/themis/system.h include/themis/error.h include/themis/workload.h
include/themis/train.h:
include/themis/emulate.h:
include/themis/schedule.h:
include/themis/cost.h:
include/themis/system.h:
include/themis/error.h:
include/themis/workload.h:
