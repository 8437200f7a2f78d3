/*
 * fuzz_common.h: what the libFuzzer targets of test/fuzz/ share.
 *
 *   - an arena for the core's bs_allocator: every block is its own calloc at
 *     its exact length (so AddressSanitizer sees a read or write one byte
 *     past any value), and fz_reset() frees them all after each input, so
 *     LeakSanitizer stays quiet.  The arena also bounds the memory one input
 *     may take (FZ_ALLOC_LIMIT live at once, FZ_MAX_BLOCKS live blocks): an
 *     operation that allocates in proportion to a header field the validator
 *     did not tie to the input's length fails the run instead of passing
 *     slowly.  fz_allocator never releases (as bs_palloc_allocator);
 *     fz_releasing_allocator frees a block when the core gives it back (as
 *     the topk aggregate state's allocator, src/topk_state.c), so ASan sees
 *     any later use of it, and fails on a release of anything that is not a
 *     live block (a release twice, or of a pointer alloc did not return).
 *   - FZ_CHECK: a property that must hold; on failure it prints what and
 *     where and aborts, which libFuzzer records as a crash with its input.
 *   - a deterministic generator seeded from the input, for the keys and
 *     hashes the operations use (same input, same run).
 *   - fz_roundtrip: every value the core makes must pass bs_validate(),
 *     deep and quick, and (up to FZ_TEXT_MAX bytes) its text form must
 *     decode to the same bytes: what a dump and restore does.
 *
 * Everything here is static: each target is one translation unit plus the
 * core's sources.
 */
#ifndef BS_FUZZ_COMMON_H
#define BS_FUZZ_COMMON_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bloom.h"
#include "core/bloom_agg_state.h"
#include "core/cbloom.h"
#include "core/cms.h"
#include "core/endian.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/status.h"
#include "core/topk.h"
#include "core/topk_v1.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- failing ---- */

static inline void fz_fail(const char *file, int line, const char *cond, const char *fmt,...)
			__attribute__((format(printf, 4, 5), noreturn));

static inline void
fz_fail(const char *file, int line, const char *cond, const char *fmt,...)
{
	va_list		ap;

	fprintf(stderr, "\n==bloomsketch fuzz== CHECK FAILED at %s:%d: %s\n==bloomsketch fuzz== ",
			file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	abort();
}

/* FZ_CHECK(cond, "what %d", args...): abort with a message unless cond. */
#define FZ_CHECK(cond, ...) \
	do { if (!(cond)) fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)

/* ---- the arena ---- */

/*
 * 64 MiB live per input.  Inputs are at most -max_len (96 KiB), and every
 * value the targets make is at most a few times an input: anything near the
 * limit is an allocation sized by an unchecked field.
 */
#define FZ_ALLOC_LIMIT ((size_t) 64 << 20)
#define FZ_MAX_BLOCKS 4096

static void *fz_blocks[FZ_MAX_BLOCKS];
static size_t fz_sizes[FZ_MAX_BLOCKS];
static size_t fz_nblocks;
static size_t fz_allocated;

static inline uint8_t *
fz_alloc(void *ctx, size_t len)
{
	void	   *p;

	(void) ctx;
	FZ_CHECK(len <= FZ_ALLOC_LIMIT - fz_allocated,
			 "allocation of %zu bytes after %zu in this input: more than the %zu bytes one input may use (a size taken from an unchecked field?)",
			 len, fz_allocated, FZ_ALLOC_LIMIT);
	FZ_CHECK(fz_nblocks < FZ_MAX_BLOCKS, "more than %d allocations in one input", FZ_MAX_BLOCKS);
	p = calloc(1, len == 0 ? 1 : len);
	if (p == NULL)
	{
		fprintf(stderr, "out of memory (%zu bytes)\n", len);
		abort();
	}
	fz_blocks[fz_nblocks] = p;
	fz_sizes[fz_nblocks++] = len;
	fz_allocated += len;
	return p;
}

/* Take back a live block (the newest are searched first). */
static inline void
fz_release(void *ctx, uint8_t *buf)
{
	size_t		i;

	(void) ctx;
	for (i = fz_nblocks; i-- > 0;)
		if (fz_blocks[i] == buf)
		{
			free(buf);
			fz_allocated -= fz_sizes[i];
			fz_blocks[i] = fz_blocks[fz_nblocks - 1];
			fz_sizes[i] = fz_sizes[fz_nblocks - 1];
			fz_nblocks--;
			return;
		}
	fz_fail(__FILE__, __LINE__, "release", "the core released %p, which is not a live block of its allocator (released twice, or not the pointer alloc returned)",
			(void *) buf);
}

static const bs_allocator fz_allocator = {fz_alloc, NULL, NULL};
static const bs_allocator fz_releasing_allocator = {fz_alloc, NULL, fz_release};

static inline void
fz_reset(void)
{
	size_t		i;

	for (i = 0; i < fz_nblocks; i++)
		free(fz_blocks[i]);
	fz_nblocks = 0;
	fz_allocated = 0;
}

/* A writable copy of len bytes at its exact length. */
static inline uint8_t *
fz_dup(const uint8_t *p, size_t len)
{
	uint8_t    *c = fz_alloc(NULL, len);

	memcpy(c, p, len);
	return c;
}

/* ---- deterministic data ---- */

typedef struct fz_rng
{
	uint64_t	s;
} fz_rng;

static inline uint64_t
fz_next(fz_rng *r)
{
	uint64_t	z = (r->s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline uint64_t
fz_below(fz_rng *r, uint64_t n)
{
	return n == 0 ? 0 : fz_next(r) % n;
}

static inline fz_rng
fz_rng_for(const uint8_t *data, size_t size)
{
	fz_rng		r;

	r.s = XXH3_64bits(data, size);
	return r;
}

/* A key family other than f and other than none. */
static inline uint8_t
fz_other_family(uint8_t f)
{
	return (uint8_t) (f % BS_FAMILY_MAX + 1);
}

/* ---- rejections and the text form ---- */

/* A rejection is BS_ERR_FORMAT with a message, NUL-terminated in its buffer. */
static inline void
fz_check_rejection(bs_status st, const bs_error *err, const char *what)
{
	FZ_CHECK(st == BS_ERR_FORMAT, "%s: rejected with status %d, not BS_ERR_FORMAT", what, (int) st);
	FZ_CHECK(memchr(err->msg, '\0', sizeof(err->msg)) != NULL && err->msg[0] != '\0',
			 "%s: rejected without a message", what);
}

/* A core error other than BS_OK must come with a message. */
static inline void
fz_check_error(bs_status st, bs_status want, const bs_error *err, const char *what)
{
	FZ_CHECK(st == want, "%s: status %d, expected %d (%s)", what, (int) st, (int) want,
			 st != BS_OK ? err->msg : "no error");
	if (st != BS_OK)
		FZ_CHECK(memchr(err->msg, '\0', sizeof(err->msg)) != NULL && err->msg[0] != '\0',
				 "%s: error %d without a message", what, (int) st);
}

/*
 * Values up to this length go through their text form; longer ones (the
 * dense states) only through bs_validate: the coder is the hex target's, and
 * three text round trips of 93 KB took most of bloom_agg_state's time.
 */
#define FZ_TEXT_MAX 16384

/* The text form of len bytes decodes to the same bytes (no validation). */
static inline void
fz_roundtrip_bytes(const uint8_t *buf, size_t len, const char *what)
{
	size_t		tlen = bs_hex_encoded_len(len),
				outlen = 0;
	char	   *text;
	uint8_t    *back;
	bs_error	err;
	bs_status	st;

	if (len > FZ_TEXT_MAX)
		return;
	text = (char *) fz_alloc(NULL, tlen);
	back = fz_alloc(NULL, len);
	bs_hex_encode(buf, len, text);
	st = bs_hex_decode(text, tlen, back, &outlen, &err);
	FZ_CHECK(st == BS_OK && outlen == len && memcmp(back, buf, len) == 0,
			 "%s: text form does not decode to the same %zu bytes (status %d, %zu bytes)",
			 what, len, (int) st, outlen);
}

/*
 * What bloom_out then bloom_in (or send then recv, or the bytea cast) does
 * to a value the extension made: text form, decoded at an exact-length
 * buffer, the same bytes, accepted by the deep check of its kind.
 */
static inline void
fz_roundtrip(const uint8_t *buf, size_t len, bs_kind kind, const char *what)
{
	bs_error	err;
	bs_status	st;

	fz_roundtrip_bytes(buf, len, what);
	st = bs_validate(buf, len, kind, true, NULL, &err);
	FZ_CHECK(st == BS_OK, "%s: a %s value made by the core is rejected by bs_validate: %s",
			 what, bs_kind_name(kind), err.msg);
	st = bs_validate(buf, len, kind, false, NULL, &err);
	FZ_CHECK(st == BS_OK, "%s: a %s value made by the core fails the quick check: %s",
			 what, bs_kind_name(kind), err.msg);
}

/* Read every byte of a region (so ASan checks it) and fold it into a value. */
static inline uint64_t
fz_touch(const uint8_t *p, size_t len)
{
	return len == 0 ? 0 : XXH3_64bits(p, len);
}

#endif
