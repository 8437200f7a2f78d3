/*
 * unit.h: the little harness of the C unit tests of src/core.
 *
 * Each check prints one line, "ok - description" or "not ok - description"
 * followed by where it failed; unit_done() prints "NAME: N passed, N failed"
 * and gives the exit status (non-zero if any check failed).  test/unit/run.sh
 * sums these lines over all test binaries.
 *
 * Test data come from splitmix64 (Steele, Lea and Flood), so every run sees
 * the same values.
 */
#ifndef BS_UNIT_H
#define BS_UNIT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int	unit_passed;
static int	unit_failed;

static inline int unit_check(int ok, const char *cond, const char *file, int line,
							 const char *fmt,...)
			__attribute__((format(printf, 5, 6)));

static inline int
unit_check(int ok, const char *cond, const char *file, int line,
		   const char *fmt,...)
{
	va_list		ap;

	fputs(ok ? "ok - " : "not ok - ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok)
		printf("  [%s:%d: failed: %s]", file, line, cond);
	putchar('\n');
	fflush(stdout);
	if (ok)
		unit_passed++;
	else
		unit_failed++;
	return ok;
}

/* CHECK(cond, "description %d", args...): evaluates to cond (0 or 1). */
#define CHECK(cond, ...) \
	unit_check(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)

static inline int
unit_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, unit_passed, unit_failed);
	fflush(stdout);
	return unit_failed == 0 ? 0 : 1;
}

/* splitmix64: a deterministic 64-bit generator for test data. */
typedef struct unit_rng
{
	uint64_t	s;
} unit_rng;

static inline uint64_t
unit_next(unit_rng *r)
{
	uint64_t	z = (r->s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n >= 1 (the tiny modulo bias is irrelevant here). */
static inline uint64_t
unit_below(unit_rng *r, uint64_t n)
{
	return unit_next(r) % n;
}

/* Out-of-memory in a test is fatal, not a check. */
static inline void *
unit_calloc(size_t n, size_t size)
{
	void	   *p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory (%zu x %zu bytes)\n", n, size);
		exit(2);
	}
	return p;
}

/* n random 64-bit hashes in a new array (free it). */
static inline uint64_t *
unit_random_hashes(unit_rng *r, size_t n)
{
	uint64_t   *h = unit_calloc(n, sizeof(uint64_t));
	size_t		i;

	for (i = 0; i < n; i++)
		h[i] = unit_next(r);
	return h;
}

/* A calloc-backed allocator for the core that remembers what it gave out. */
typedef struct unit_arena
{
	void	  **ptr;
	size_t		n,
				cap;
} unit_arena;

static inline uint8_t *
unit_arena_alloc(void *ctx, size_t len)
{
	unit_arena *a = ctx;

	if (a->n == a->cap)
	{
		a->cap = a->cap ? a->cap * 2 : 64;
		a->ptr = realloc(a->ptr, a->cap * sizeof(void *));
		if (a->ptr == NULL)
			exit(2);
	}
	a->ptr[a->n] = unit_calloc(1, len);
	return a->ptr[a->n++];
}

static inline void
unit_arena_reset(unit_arena *a)
{
	size_t		i;

	for (i = 0; i < a->n; i++)
		free(a->ptr[i]);
	a->n = 0;
}

#endif
