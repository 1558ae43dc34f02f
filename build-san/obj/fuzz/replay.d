build-san/obj/fuzz/replay.o: tests/fuzz/replay.c tests/fuzz/fuzz.h
tests/fuzz/fuzz.h:
