# bloomsketch: PGXS build.  `make`, `make install`, `make installcheck`,
# `make unittest` (C unit tests of src/core, no server needed).

EXTENSION = bloomsketch
MODULE_big = bloomsketch
DATA = $(wildcard sql/bloomsketch--*.sql)

CORE_SRCS = $(wildcard src/core/*.c)
GLUE_SRCS = $(wildcard src/*.c)
OBJS = $(CORE_SRCS:.c=.o) $(GLUE_SRCS:.c=.o)

# pg_regress: sql/NAME.sql against expected/NAME.out
REGRESS = $(sort $(filter-out bloomsketch--%,$(basename $(notdir $(wildcard sql/*.sql)))))
REGRESS_OPTS = --inputdir=. --outputdir=.

# -Wno-unused-parameter: PostgreSQL's own headers (pg_list.h, bufpage.h) trip it.
PG_CPPFLAGS = -I$(srcdir)/src -Wall -Wextra -Wno-unused-parameter
ifdef WERROR
PG_CPPFLAGS += -Werror
endif

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Every object depends on every header: the probe and format code is inline in
# headers, and a stale object would place and look up keys differently.
HEADERS = $(wildcard src/*.h src/core/*.h)
$(OBJS) $(OBJS:.o=.bc): $(HEADERS)

# --- C unit tests of the PostgreSQL-independent core ---
UNIT_CC ?= cc
UNIT_CFLAGS ?= -std=c11 -O2 -g -Wall -Wextra -Isrc
ifdef WERROR
UNIT_CFLAGS += -Werror
endif
UNIT_TESTS = $(patsubst %.c,%,$(wildcard test/unit/*_test.c))

test/unit/%_test: test/unit/%_test.c test/unit/unit.h $(CORE_SRCS) $(wildcard src/core/*.h)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $< $(CORE_SRCS) -lm

.PHONY: unittest
unittest: $(UNIT_TESTS)
	@bash test/unit/run.sh $(UNIT_TESTS)

EXTRA_CLEAN = $(UNIT_TESTS)
