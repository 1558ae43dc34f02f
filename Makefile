# themis build: library, CLI, tests, benchmarks. GNU make; dependencies through pkg-config.
CC      ?= gcc
PREFIX  ?= /usr/local
PKGS    := libcjson gsl yaml-0.1
CFLAGS  ?= -O2
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -pthread -Iinclude
CFLAGS  += $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -pthread

ifeq ($(SANITIZE),1)
BUILD   := build/sanitize
CFLAGS  += -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
else
BUILD   := build
endif

LIB_SRC := $(filter-out src/cli%.c,$(wildcard src/*.c))
CLI_SRC := $(wildcard src/cli*.c)
LIB_OBJ := $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o)
CLI_OBJ := $(CLI_SRC:src/%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(wildcard tests/*.c)
TEST_OBJ := $(TEST_SRC:tests/%.c=$(BUILD)/obj/tests/%.o)
BENCH_SRC := $(wildcard bench/*.c)

LIB     := $(BUILD)/libthemis.a
BIN     := $(BUILD)/themis
TESTBIN := $(BUILD)/check_themis
BENCHBIN := $(BUILD)/bench_themis

.PHONY: all run check bench install clean deps format figures

all: $(BIN) $(LIB)

$(BUILD)/obj/%.o: src/%.c $(wildcard include/themis/*.h) | $(BUILD)/obj
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/%.c $(wildcard include/themis/*.h) tests/check_themis.h | $(BUILD)/obj/tests
	$(CC) $(CFLAGS) $(shell pkg-config --cflags check 2>/dev/null) -c $< -o $@

$(BUILD)/obj $(BUILD)/obj/tests:
	mkdir -p $@

$(LIB): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(TESTBIN): $(TEST_OBJ) $(LIB)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) $(shell pkg-config --libs check 2>/dev/null) -o $@

$(BENCHBIN): $(BENCH_SRC) $(LIB) $(wildcard include/themis/*.h)
	$(CC) $(CFLAGS) $(LDFLAGS) $(BENCH_SRC) $(LIB) $(LDLIBS) -o $@

deps:
	@scripts/install-deps

run: deps
	@$(MAKE) --no-print-directory all
	$(BIN) run

check: deps
	@$(MAKE) --no-print-directory all $(TESTBIN)
	THEMIS_BIN=$(BIN) THEMIS_SRCDIR=$(CURDIR) $(TESTBIN)

bench: deps
	@$(MAKE) --no-print-directory all $(BENCHBIN)
	$(BENCHBIN)

# Every sweep and plot into out/figures/*.png and *.pdf (needs gnuplot-nox); docs/REPRODUCTION.md.
figures: all
	@THEMIS_BIN=$(BIN) scripts/figures

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/themis
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/themis
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libthemis.a
	install -m 644 include/themis/*.h $(DESTDIR)$(PREFIX)/include/themis/

format:
	clang-format -i src/*.c include/themis/*.h tests/*.c tests/*.h bench/*.c

clean:
	rm -rf build
