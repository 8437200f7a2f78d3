/*
 * cms.h: the Count-Min sketch (Cormode and Muthukrishnan 2005,
 * doc/bibliography.md).
 *
 * A depth x width table of 64-bit counters.  Adding a key with count c adds
 * c to one counter in each row, the counter at bs_probe(h, row, width); a
 * point query is the minimum over the rows, never below the true count and,
 * with probability 1 - delta, at most the true count plus eps N, where
 * width = ceil(e / eps), depth = ceil(ln(1 / delta)) and N is the total.
 *
 * Layout: header with p1 = width, p2 = depth, p3 = 0, n = total N, x = 0,
 * then depth rows of width little-endian uint64 counters.  Every row sums to
 * N, so no counter exceeds N: keeping N <= INT64_MAX keeps every counter in
 * range, and one check of N is the overflow check of a whole update or merge.
 * Updates are standard (not conservative), so sketches of parts add up to
 * the sketch of the whole, byte for byte, and the sketch of a part subtracts
 * from the whole's exactly (bs_cms_subtract).
 */
#ifndef BS_CMS_H
#define BS_CMS_H

#include <stdbool.h>
#include <stdint.h>

#include "endian.h"
#include "format.h"
#include "hash.h"
#include "u128.h"

#define BS_CMS_MAX_DEPTH 64
#define BS_CMS_MAX_COUNT ((uint64_t) INT64_MAX)

typedef struct bs_cms
{
	uint64_t	width;
	uint32_t	depth;
	uint8_t		family;
	uint64_t	seed;
	uint64_t	total;
	uint8_t    *buf;			/* the whole sketch, header first */
	uint8_t    *counters;		/* depth * width * 8 bytes */
} bs_cms;

/* Shape from the error parameters: width = ceil(e/eps), depth = ceil(ln(1/delta)). */
bs_status	bs_cms_dims(double epsilon, double delta, uint64_t *width,
						uint32_t *depth, bs_error *err);
bs_status	bs_cms_check_shape(uint64_t width, uint64_t depth, bs_error *err);
bs_status	bs_cms_size(uint64_t width, uint32_t depth, uint64_t *total,
						bs_error *err);
void		bs_cms_init(uint8_t *buf, uint64_t width, uint32_t depth,
						uint8_t family, uint64_t seed);

/* Read the header of a validated sketch (inline: aggregates call it per row). */
static inline void
bs_cms_view(uint8_t *buf, bs_cms *c)
{
	c->family = buf[BS_OFF_FAMILY];
	c->seed = bs_load64(buf + 8);
	c->width = bs_load64(buf + BS_OFF_P1);
	c->depth = bs_load32(buf + BS_OFF_P2);
	c->total = bs_load64(buf + BS_OFF_N);
	c->buf = buf;
	c->counters = buf + BS_HEADER_SIZE;
}

/* The guarantees the shape gives: eps = e / width, delta = e^-depth. */
double		bs_cms_epsilon(uint64_t width);
double		bs_cms_delta(uint32_t depth);

/* Add count to key h; BS_ERR_LIMIT (nothing changed) if the total would pass INT64_MAX. */
bs_status	bs_cms_add(bs_cms *c, uint64_t h, uint64_t count, bs_error *err);

/* bs_cms_add, and *est = bs_cms_frequency(c, h) after it, in one pass over the rows. */
bs_status	bs_cms_add_estimate(bs_cms *c, uint64_t h, uint64_t count, uint64_t *est,
								bs_error *err);

/* Estimated count of key h: the minimum over the rows. */
uint64_t	bs_cms_frequency(const bs_cms *c, uint64_t h);

/* dst += src counter-wise, after the shape, family and overflow checks. */
bs_status	bs_cms_merge(bs_cms *dst, const bs_cms *src, bs_error *err);

/*
 * dst -= src counter-wise (cms_subtract): after the checks of bs_cms_merge,
 * BS_ERR_PARAM (nothing changed) when src's total or any counter is larger
 * than dst's.  Exact when src is the sketch of a part of dst's stream: the
 * sketch of a + b minus that of b is the sketch of a, byte for byte.
 */
bs_status	bs_cms_subtract(bs_cms *dst, const bs_cms *src, bs_error *err);

/* Estimated inner product (join size): min over rows of sum a_ij * b_ij. */
bs_status	bs_cms_inner_product(const bs_cms *a, const bs_cms *b,
								 bs_u128 *out, bs_error *err);

/* Kind check (bs_kind_check, core/kinds.c). */
bs_status	bs_cms_check(const bs_header *h, const uint8_t *payload,
						 uint64_t plen, bool deep, bs_error *err);

/*
 * Deep check of a counter array (shared with topk): every one of the depth
 * rows of width counters sums exactly to total.  kind names the value in the
 * message ("cms", "topk").
 */
bs_status	bs_cms_check_rows(const uint8_t *counters, uint64_t width, uint32_t depth,
							  uint64_t total, const char *kind, bs_error *err);

#endif
