# bloomsketch: PGXS build.  `make`, `make install`, `make installcheck`,
# `make unittest` (C unit tests of src/core, no server needed).

EXTENSION = bloomsketch
MODULE_big = bloomsketch
DATA = $(wildcard sql/bloomsketch--*.sql)

CORE_SRCS = $(wildcard src/core/*.c)
GLUE_SRCS = $(wildcard src/*.c)
OBJS = $(CORE_SRCS:.c=.o) $(GLUE_SRCS:.c=.o)

# pg_regress: sql/NAME.sql against expected/NAME.out; each file runs alone too (every one creates
# the extension if needed), which `make installcheck-alone` checks.  sql/include/ holds files the
# tests include with \i, not tests.
REGRESS = $(sort $(filter-out bloomsketch--%,$(basename $(notdir $(wildcard sql/*.sql)))))
REGRESS_OPTS = --inputdir=. --outputdir=.

# -Wno-unused-parameter: PostgreSQL's own headers (pg_list.h, bufpage.h) trip it.
PG_CPPFLAGS = -I$(srcdir)/src -Wall -Wextra -Wno-unused-parameter
ifdef WERROR
PG_CPPFLAGS += -Werror
endif

# set before the PGXS include, which reads it into its clean rule
EXTRA_CLEAN = $(patsubst %.c,%,$(wildcard test/unit/*_test.c)) test/unit/obj test/bench/micro

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Every object depends on every header: the probe and format code is inline in
# headers, and a stale object would place and look up keys differently.
HEADERS = $(wildcard src/*.h src/core/*.h)
$(OBJS) $(OBJS:.o=.bc): $(HEADERS)

# Every regression test alone, each in a fresh database, against a running server.
.PHONY: installcheck-alone
installcheck-alone:
	bash test/regress_alone.sh

# --- C unit tests of the PostgreSQL-independent core ---
UNIT_CC ?= cc
UNIT_CFLAGS ?= -std=c11 -O2 -g -Wall -Wextra -Isrc
ifdef WERROR
UNIT_CFLAGS += -Werror
endif
UNIT_TESTS = $(patsubst %.c,%,$(wildcard test/unit/*_test.c))

# The core is compiled once and linked into every test (-pthread: reentrant_test calls it from
# two threads at once).
UNIT_CORE_OBJS = $(patsubst src/core/%.c,test/unit/obj/%.o,$(CORE_SRCS))

test/unit/obj/%.o: src/core/%.c $(wildcard src/core/*.h)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -pthread -c -o $@ $<

test/unit/%_test: test/unit/%_test.c test/unit/unit.h $(UNIT_CORE_OBJS)
	$(UNIT_CC) $(UNIT_CFLAGS) -pthread -o $@ $< $(UNIT_CORE_OBJS) -lm

# The install and upgrade scripts are generated from sql/src (sql/src/generate.py) and
# committed, so building needs no generator; after editing sql/src, run `make sql-scripts`.
.PHONY: sql-scripts
sql-scripts:
	python3 sql/src/generate.py

.PHONY: unittest
unittest: $(UNIT_TESTS)
	@bash test/unit/run.sh $(UNIT_TESTS)


# --- the PGXN distribution (doc/install.md) ---
# make dist: bloomsketch-VERSION.zip (VERSION: META.json's, which test/meta_check.py keeps equal
# to bloomsketch.control's default_version), the committed tree at HEAD under one top-level
# directory bloomsketch-VERSION/, as PGXN takes it; nothing untracked (test/.work, build
# outputs).  Needs a git checkout.  DIST_ZIP: where to write it.
DIST_VERSION = $(shell python3 -c 'import json; print(json.load(open("$(srcdir)/META.json"))["version"])')
DIST_NAME = $(EXTENSION)-$(DIST_VERSION)
DIST_ZIP ?= $(DIST_NAME).zip

.PHONY: dist
dist:
	@git -C $(srcdir) rev-parse --verify -q HEAD >/dev/null || \
		{ echo "make dist: $(srcdir) is not a git checkout (the archive is git archive HEAD)" >&2; exit 1; }
	@test -n "$(DIST_VERSION)" || { echo "make dist: no version in META.json" >&2; exit 1; }
	@git -C $(srcdir) diff --quiet HEAD -- || \
		echo "make dist: uncommitted changes are not in the archive (it is HEAD)" >&2
	git -C $(srcdir) archive --format=zip --prefix=$(DIST_NAME)/ -o $(abspath $(DIST_ZIP)) HEAD
	@echo "$(DIST_ZIP): $(DIST_NAME)/ at $$(git -C $(srcdir) rev-parse --short HEAD)"


# --- benchmarks (test/bench/README.md; not part of the tests) ---
# `make bench` runs the whole suite (test/bench/run.sh: throwaway cluster, SQL cases, then the C
# micro-benchmark of the core against Debian's libbloom, built here with -O2).
BENCH_CC ?= cc
BENCH_CFLAGS ?= -std=c11 -O2 -g -Wall -Wextra
test/bench/micro: test/bench/micro.c $(CORE_SRCS) $(wildcard src/core/*.h)
	$(BENCH_CC) $(BENCH_CFLAGS) -iquote src -o $@ test/bench/micro.c $(CORE_SRCS) -lbloom -lm

.PHONY: bench
bench:
	bash test/bench/run.sh

# --- fuzzing and sanitized unit tests of the core (test/fuzz/README.md) ---
# make fuzz [FUZZ_SECONDS=20] [FUZZ_JOBS=N]: build every libFuzzer target with clang (ASan, UBSan)
# into test/fuzz/bin/ and run each for FUZZ_SECONDS on a copy of its seed corpus.
# make unittest-sanitize: every test/unit/*_test.c under ASan and UBSan, built into
# test/fuzz/bin/unit/ (the plain unit binaries are untouched).
# make fuzz-corpus: regenerate test/fuzz/corpus/ with test/fuzz/make_corpus.c (the finding* inputs
# of past bugs are kept).
FUZZ_CC ?= clang-14
FUZZ_CFLAGS ?= -std=c11 -g -O1 -Wall -Wextra
ifdef WERROR
FUZZ_CFLAGS += -Werror
endif
FUZZ_SANITIZE ?= -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# FZ_STRICT: also check the core's own results (every finding so far is fixed)
FUZZ_DEFS ?= -DFZ_STRICT
FUZZ_SECONDS ?= 20
FUZZ_JOBS ?=
FUZZ_TARGETS = validate bloom growable bloom_agg_state blocked cms topk cbloom hex
FUZZ_BINS = $(addprefix test/fuzz/bin/fuzz_,$(FUZZ_TARGETS))
# the core is compiled once (instrumented, without libFuzzer's main) and linked into every target
FUZZ_CORE_OBJS = $(patsubst src/core/%.c,test/fuzz/bin/obj/%.o,$(CORE_SRCS))

test/fuzz/bin/obj/%.o: src/core/%.c $(wildcard src/core/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(subst fuzzer,fuzzer-no-link,$(FUZZ_SANITIZE)) $(FUZZ_DEFS) -Isrc -c -o $@ $<

test/fuzz/bin/fuzz_%: test/fuzz/fuzz_%.c test/fuzz/fuzz_common.h $(FUZZ_CORE_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SANITIZE) $(FUZZ_DEFS) -Isrc -o $@ $< $(FUZZ_CORE_OBJS) -lm

.PHONY: fuzz fuzz-build fuzz-corpus unittest-sanitize
fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@bash test/fuzz/run.sh -s $(FUZZ_SECONDS) $(if $(FUZZ_JOBS),-j $(FUZZ_JOBS)) $(FUZZ_TARGETS)

fuzz-corpus: test/fuzz/make_corpus.c $(CORE_SRCS) $(wildcard src/core/*.h)
	@mkdir -p test/fuzz/bin
	$(UNIT_CC) $(UNIT_CFLAGS) -o test/fuzz/bin/make_corpus $< $(CORE_SRCS) -lm
	# keep the committed inputs of past findings (finding*), regenerate the rest
	find test/fuzz/corpus -type f ! -name 'finding*' -delete 2>/dev/null || true
	test/fuzz/bin/make_corpus test/fuzz/corpus

UNIT_SAN_CC ?= $(UNIT_CC)
UNIT_SAN_CFLAGS ?= -std=c11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Isrc \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined
ifdef WERROR
UNIT_SAN_CFLAGS += -Werror
endif
UNIT_SAN_TESTS = $(patsubst test/unit/%,test/fuzz/bin/unit/%,$(UNIT_TESTS))

UNIT_SAN_CORE_OBJS = $(patsubst src/core/%.c,test/fuzz/bin/unit/obj/%.o,$(CORE_SRCS))

test/fuzz/bin/unit/obj/%.o: src/core/%.c $(wildcard src/core/*.h)
	@mkdir -p $(@D)
	$(UNIT_SAN_CC) $(UNIT_SAN_CFLAGS) -pthread -c -o $@ $<

test/fuzz/bin/unit/%_test: test/unit/%_test.c test/unit/unit.h $(UNIT_SAN_CORE_OBJS)
	@mkdir -p $(@D)
	$(UNIT_SAN_CC) $(UNIT_SAN_CFLAGS) -pthread -o $@ $< $(UNIT_SAN_CORE_OBJS) -lm

unittest-sanitize: $(UNIT_SAN_TESTS)
	@bash test/fuzz/unit_sanitize.sh $(UNIT_SAN_TESTS)

.PHONY: fuzz-clean
fuzz-clean:
	rm -rf test/fuzz/bin
clean: fuzz-clean
