# themis build: static and shared library, CLI, tests, fuzzing, install. GNU make, after git's:
# every header dependency tracked (-MMD -MP), -Werror only on request (WERROR=1), a user's
# CFLAGS (-O0 ... -O3, -Os) only adds to the flags the build needs, and no target but `deps`
# (and `run`, which calls it) installs packages.
#
#   make                   build/themis, build/libthemis.a, build/libthemis.so.*
#   make check             tests + fuzz regression replay     SANITIZE=1: ASan+UBSan (build/sanitize)
#   make deps              install the Debian packages        TSAN=1: ThreadSanitizer (build/tsan)
#   make install           PREFIX=/usr/local DESTDIR=         WERROR=1: warnings are errors
#   make fuzz              FUZZ_SECONDS=60 per target (clang + libFuzzer, build/fuzz)
#   make python            the Python package in python/ (a copy of libthemis in it)
#   make check-format      clang-format would change nothing  make coverage: line coverage (gcov)
#   make check-layers      the module graph of src/ is a DAG and the core names no preset

# make predefines CC=cc, so `CC ?= gcc` would never apply: take gcc unless CC was given.
ifeq ($(origin CC),default)
CC       = gcc
endif
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
CFLAGS       ?= -O2
PREFIX       ?= /usr/local
# Debian's interpreter, the one python3-pytest and python3-pandas are installed for (an earlier
# python3 on PATH, such as a pyenv one, may not see them).
PYTHON       ?= $(firstword $(wildcard /usr/bin/python3) python3)
PKGS         := libcjson gsl yaml-0.1 nlopt libprotobuf-c
VERSION      := $(shell sed -n 's/^\#define TH_VERSION "\(.*\)"/\1/p' include/themis/version.h)
SOVERSION    := $(firstword $(subst ., ,$(VERSION)))

# Protocol Buffers schemas (src/MODULE/*.proto: the Chakra trace format) become C in build/gen/
# through protoc-c at build time, the same for every build variant; the library compiles that C
# like its own sources, and a source includes it as "MODULE/NAME.pb-c.h".
GEN          := build/gen
PROTO        := $(wildcard src/*/*.proto)
GEN_SRC      := $(PROTO:src/%.proto=$(GEN)/%.pb-c.c)
GEN_HDR      := $(GEN_SRC:.c=.h)

# Flags the build needs whatever CFLAGS says; the user's CPPFLAGS, CFLAGS and LDFLAGS come last.
BASIC_CFLAGS := -std=c11 -Wall -Wextra -D_POSIX_C_SOURCE=200809L -pthread -Iinclude -I$(GEN)
BASIC_CFLAGS += $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
ifeq ($(WERROR),1)
BASIC_CFLAGS += -Werror
endif
# libraries without a pkg-config file (GLPK), also themis.pc's Libs.private
PLAIN_LIBS   := -lglpk -lm -pthread
LIBS         := $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(PLAIN_LIBS)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)

# Check's per-test timeouts are for the plain build: a sanitizer build runs up to 10 times
# slower (TSan), so its timeouts are multiplied (unless CK_TIMEOUT_MULTIPLIER is set).
ifeq ($(SANITIZE),1)
BUILD := build/sanitize
SAN   := -g -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow
SAN   += -fno-sanitize-recover=all
CK_SLOW := 5
else ifeq ($(TSAN),1)
BUILD := build/tsan
SAN   := -g -fno-omit-frame-pointer -fsanitize=thread
CK_SLOW := 10
else ifeq ($(COVERAGE),1)
BUILD := build/coverage
SAN   := --coverage
CK_SLOW := 2
else
BUILD := build
SAN   :=
SHLIB_LDFLAGS := -Wl,-z,defs
endif

# The sanitizer runtimes of gcc 12 and clang 14 cannot map their shadow memory when the kernel
# randomises mmap with more than 28 bits (vm.mmap_rnd_bits = 32 on newer kernels: TSan dies with
# "unexpected memory mapping", ASan loops on DEADLYSIGNAL): there the tests run under
# `setarch -R` (no address randomisation, inherited by the binaries they start), when the
# container allows it. The same holds for make fuzz.
SAN_RUN = $(shell [ "$$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 0)" -gt 28 ] && \
	setarch -R true 2>/dev/null && echo setarch -R)

ALL_CFLAGS  = $(BASIC_CFLAGS) $(SAN) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SAN) $(LDFLAGS)
DEPFLAGS    = -MMD -MP

# The front end (src/cli/) is the program's, not the library's.
LIB_SRC   := $(wildcard src/*.c src/cmd/*.c src/chakra/*.c src/npus/*.c)
# The presets (src/presets/NAME/, one folder each) see the core's internal headers (-Isrc);
# the core is compiled without theirs.
PRESET_SRC := $(wildcard src/presets/*/*.c)
LIB_SRC   += $(PRESET_SRC)
# The public C API, the headers `make install` installs (themis.h includes them all); the other
# headers of include/themis/ are the library's internal helpers.
PUBLIC_HEADERS := $(addprefix include/themis/,$(addsuffix .h,themis export api error units \
	version system collective cost schedule bound emulate run report summarize train workload \
	sweep optimize calibrate))
CLI_SRC   := $(wildcard src/cli/*.c)
TEST_SRC  := $(wildcard tests/*.c)
BENCH_SRC := $(wildcard bench/*.c)
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)

LIB_OBJ   := $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o) $(GEN_SRC:$(GEN)/%.c=$(BUILD)/obj/gen/%.o)
PIC_OBJ   := $(LIB_SRC:src/%.c=$(BUILD)/pic/%.o) $(GEN_SRC:$(GEN)/%.c=$(BUILD)/pic/gen/%.o)
CLI_OBJ   := $(CLI_SRC:src/%.c=$(BUILD)/obj/%.o)
TEST_OBJ  := $(TEST_SRC:tests/%.c=$(BUILD)/obj/tests/%.o)
BENCH_OBJ := $(BENCH_SRC:bench/%.c=$(BUILD)/obj/bench/%.o)
FUZZ_UTIL_OBJ := $(BUILD)/obj/fuzz/util.o
REPLAY_OBJ := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/obj/fuzz/%.o) $(FUZZ_UTIL_OBJ) $(BUILD)/obj/fuzz/replay.o

LIB      := $(BUILD)/libthemis.a
SHLIB    := $(BUILD)/libthemis.so.$(VERSION)
BIN      := $(BUILD)/themis
TESTBIN  := $(BUILD)/check_themis
BENCHBIN := $(BUILD)/bench_themis
REPLAY   := $(BUILD)/fuzz_replay
MANPAGE  := $(BUILD)/themis.1
PCFILE   := $(BUILD)/themis.pc

.PHONY: all run check bench install deps format check-format check-layers coverage figures fuzz \
	fuzz-build man clean python

all: $(BIN) $(LIB) $(SHLIB)

# One rule makes both files of a schema (a pattern rule with two targets runs once for both).
$(GEN)/%.pb-c.c $(GEN)/%.pb-c.h: src/%.proto
	@mkdir -p $(@D)
	protoc-c --proto_path=$(<D) --c_out=$(@D) $<

# Kept once made (make would delete them as intermediate files), so nothing is rebuilt twice.
.SECONDARY: $(GEN_SRC) $(GEN_HDR)

# Every object waits for the generated headers (order-only: -MMD tracks them afterwards).
$(BUILD)/obj/%.o: src/%.c | $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/obj/gen/%.o: $(GEN)/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# The shared library exports only what the public headers mark TH_API (themis/export.h).
$(BUILD)/pic/%.o: src/%.c | $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden $(DEPFLAGS) -c $< -o $@

$(BUILD)/pic/gen/%.o: $(GEN)/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden $(DEPFLAGS) -c $< -o $@

$(BUILD)/obj/presets/%.o $(BUILD)/pic/presets/%.o: ALL_CFLAGS += -Isrc
# Tests may read a preset's settings through its own header.
$(BUILD)/obj/tests/%.o: ALL_CFLAGS += -Isrc -Isrc/presets/astra -Isrc/presets/astra1

$(BUILD)/obj/tests/%.o: tests/%.c | $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/obj/bench/%.o: bench/%.c | $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/obj/fuzz/%.o: tests/fuzz/%.c | $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# libthemis.so.0.1.0 with soname libthemis.so.0; the two links let tests use -L$(BUILD).
$(SHLIB): $(PIC_OBJ)
	$(CC) $(ALL_LDFLAGS) -shared -Wl,-soname,libthemis.so.$(SOVERSION) $(SHLIB_LDFLAGS) \
		$^ $(LIBS) -o $@
	ln -sf libthemis.so.$(VERSION) $(BUILD)/libthemis.so.$(SOVERSION)
	ln -sf libthemis.so.$(SOVERSION) $(BUILD)/libthemis.so

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

$(TESTBIN): $(TEST_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) $(CHECK_LIBS) -o $@

$(BENCHBIN): $(BENCH_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

$(REPLAY): $(REPLAY_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) $^ $(LIBS) -o $@

deps:
	@scripts/install-deps

run: deps
	@$(MAKE) --no-print-directory all
	$(BIN) run

# The benchmark is built (not run) so it cannot drift from the library unnoticed. THEMIS_MAKE
# and THEMIS_CC let the install test build against a DESTDIR install.
check: all $(TESTBIN) $(REPLAY) $(BENCHBIN)
	THEMIS_BIN=$(BIN) THEMIS_SRCDIR=$(CURDIR) THEMIS_MAKE="$(MAKE_COMMAND)" THEMIS_CC="$(CC)" \
		$(if $(CK_SLOW),CK_TIMEOUT_MULTIPLIER=$${CK_TIMEOUT_MULTIPLIER:-$(CK_SLOW)}) \
		$(if $(SAN),$(SAN_RUN)) $(TESTBIN)
	THEMIS_SRCDIR=$(CURDIR) $(if $(SAN),$(SAN_RUN)) $(REPLAY)
	$(if $(SAN),,$(PYTEST))

# Line coverage of src/ by the tests: a --coverage build in build/coverage (its counters reset
# first), `make check` there, then per-file and total line coverage from gcc's gcov. The
# counters' own write errors (a test that limits the file size) go to a log, not to the
# stderr the tests compare.
coverage:
	rm -f $$(find build/coverage -name '*.gcda' 2>/dev/null)
	@GCOV_ERROR_FILE=$(CURDIR)/build/coverage/gcov-errors.log \
		$(MAKE) --no-print-directory COVERAGE=1 check
	@scripts/coverage build/coverage

# The Python package's tests (tests/python, pytest) against this build's library and binary;
# not in sanitizer builds (the interpreter would need the sanitizer runtime preloaded).
PYTEST = THEMIS_BIN=$(CURDIR)/$(BIN) THEMIS_LIB=$(CURDIR)/$(SHLIB) THEMIS_SRCDIR=$(CURDIR) \
	THEMIS_MAKE="$(MAKE_COMMAND)" PYTHONPATH=$(CURDIR)/python \
	PYTHONDONTWRITEBYTECODE=1 \
	$(PYTHON) -m pytest -q -p no:cacheprovider tests/python

# The Python package (python/): a copy of this build's library in python/themis/, which the
# package loads from beside its own file (used in place with PYTHONPATH=python, or in the wheel
# `pip install ./python` builds) unless THEMIS_LIB names another.
PYLIB := python/themis/libthemis.so.$(SOVERSION)

python: $(PYLIB)

$(PYLIB): $(SHLIB)
	cp $< $@

# The performance targets (docs/PERFORMANCE.md), medians of BENCH_RUNS runs (default 5), each flagged met or MISSED;
# BENCH_ARGS="--save F" keeps the figures, "--compare F" prints ratios to them.
bench: all $(BENCHBIN)
	$(BENCHBIN) $(BENCH_ARGS)

# Every sweep and plot into out/figures/*.png and *.pdf (needs gnuplot-nox); docs/REPRODUCTION.md.
figures: all
	@THEMIS_BIN=$(BIN) scripts/figures

# ---- install ----

man: $(MANPAGE)

# From `themis --help`, `--version` and every command's --help (Debian package help2man).
$(MANPAGE): $(BIN) scripts/gen-man
	scripts/gen-man $(BIN) $@

# Remade on every install: it holds PREFIX, which may differ from the last one.
$(PCFILE): themis.pc.in FORCE
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@REQUIRES@|$(PKGS)|' \
		-e 's|@LIBS@|$(PLAIN_LIBS)|' $< > $@

FORCE:

bindir     = $(PREFIX)/bin
libdir     = $(PREFIX)/lib
includedir = $(PREFIX)/include
datadir    = $(PREFIX)/share
mandir     = $(datadir)/man

install: all $(MANPAGE) $(PCFILE)
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir)/pkgconfig
	install -d $(DESTDIR)$(includedir)/themis $(DESTDIR)$(datadir)/themis/plots
	install -d $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(datadir)/bash-completion/completions
	install -m 755 $(BIN) $(DESTDIR)$(bindir)/themis
	install -m 644 $(LIB) $(DESTDIR)$(libdir)/libthemis.a
	install -m 755 $(SHLIB) $(DESTDIR)$(libdir)/libthemis.so.$(VERSION)
	ln -sf libthemis.so.$(VERSION) $(DESTDIR)$(libdir)/libthemis.so.$(SOVERSION)
	ln -sf libthemis.so.$(SOVERSION) $(DESTDIR)$(libdir)/libthemis.so
	install -m 644 $(PCFILE) $(DESTDIR)$(libdir)/pkgconfig/themis.pc
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(includedir)/themis/
	install -m 644 plots/*.gp plots/*.gpi $(DESTDIR)$(datadir)/themis/plots/
	install -m 644 $(MANPAGE) $(DESTDIR)$(mandir)/man1/themis.1
	install -m 644 scripts/themis.bash $(DESTDIR)$(datadir)/bash-completion/completions/themis

# ---- fuzzing: clang + libFuzzer, ASan + UBSan (with float-cast-overflow, which gcc lacks) ----

FUZZ_BUILD  := build/fuzz
FUZZ_SAN    := -g -fno-omit-frame-pointer -fsanitize=address,undefined,float-cast-overflow
FUZZ_SAN    += -fno-sanitize-recover=all
FUZZ_CFLAGS  = $(BASIC_CFLAGS) $(FUZZ_SAN) -O1 -fsanitize=fuzzer-no-link
FUZZ_LIB_OBJ := $(LIB_SRC:src/%.c=$(FUZZ_BUILD)/obj/%.o) $(GEN_SRC:$(GEN)/%.c=$(FUZZ_BUILD)/obj/gen/%.o)
FUZZ_BINS   := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/obj/%.o: src/%.c | $(GEN_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(FUZZ_BUILD)/obj/gen/%.o: $(GEN)/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(FUZZ_BUILD)/obj/presets/%.o: FUZZ_CFLAGS += -Isrc

$(FUZZ_BUILD)/obj/fuzz/%.o: tests/fuzz/%.c | $(GEN_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(FUZZ_BUILD)/libthemis.a: $(FUZZ_LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# One binary per target: its file, the helpers and the libFuzzer entry point naming it.
$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/fuzz/fuzz_%.o $(FUZZ_BUILD)/obj/fuzz/util.o \
		tests/fuzz/libfuzzer.c tests/fuzz/fuzz.h $(FUZZ_BUILD)/libthemis.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -DTH_FUZZ_ENTRY=th_fuzz_$* tests/fuzz/libfuzzer.c \
		$(FUZZ_BUILD)/obj/fuzz/fuzz_$*.o $(FUZZ_BUILD)/obj/fuzz/util.o $(FUZZ_BUILD)/libthemis.a \
		$(LIBS) -o $@

fuzz-build: $(FUZZ_BINS)

# New inputs go to build/fuzz/corpus/NAME (the seeds in tests/fuzz/corpus/NAME are only read);
# a crash is saved under build/fuzz/crashes/NAME/ and fails the run: copy it to
# tests/fuzz/regressions/NAME/ once fixed, and `make check` replays it from then on.
fuzz: $(FUZZ_BINS)
	@for t in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/crashes/$$t && \
		THEMIS_SRCDIR=$(CURDIR) $(SAN_RUN) $(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
			-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_BUILD)/crashes/$$t/ \
			$(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t </dev/null \
			2>$(FUZZ_BUILD)/$$t.log || { tail -n 60 $(FUZZ_BUILD)/$$t.log; exit 1; }; \
		echo "fuzz: $$t: $$(sed -n 's/^stat::number_of_executed_units: *//p' \
			$(FUZZ_BUILD)/$$t.log) executions, no crash"; \
	done

# Every C source and header of the library, CLI, tests, benchmark and fuzz targets (src/ at any
# depth: a module may be a folder).
FORMAT_SRC = $(shell find src include tests/*.[ch] tests/fuzz/*.[ch] bench -name '*.[ch]' | sort)

format:
	clang-format -i $(FORMAT_SRC)

# Fails (and names each place) where `make format` would change a file.
check-format:
	@clang-format --dry-run -Werror $(FORMAT_SRC)

# The module graph of src/ is a DAG and the core names no preset (scripts/check-layers says
# how files map to modules); fast and silent when it holds. Rule 3 reads this build's objects.
check-layers:
	@scripts/check-layers $(BUILD)

clean:
	rm -rf build $(PYLIB)

-include $(wildcard $(BUILD)/obj/*.d $(BUILD)/pic/*.d $(BUILD)/obj/*/*.d $(BUILD)/pic/*/*.d \
	$(FUZZ_BUILD)/obj/*.d $(FUZZ_BUILD)/obj/*/*.d)
-include $(wildcard $(BUILD)/obj/presets/*/*.d $(BUILD)/pic/presets/*/*.d \
	$(FUZZ_BUILD)/obj/presets/*/*.d)
-include $(wildcard $(BUILD)/obj/gen/*/*.d $(BUILD)/pic/gen/*/*.d $(FUZZ_BUILD)/obj/gen/*/*.d)
