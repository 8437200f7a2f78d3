/*
 * bloom.h: a fixed Bloom filter (Bloom 1970; Fan et al. 2000; doc/bibliography.md),
 * one array of bits in one of the layouts of layout.h.
 *
 * Layout: header with p1 = m (bits), p2 = k (hashes), p3 = layout, n = x = 0,
 * then ceil(m/8) bytes of bits (bits.h).  Where a key's bits go depends on
 * the layout (layout.h); this file never asks which it is.  A bloom value
 * may instead be growable (growable.h); bloom_value.h tells the two apart.
 */
#ifndef BS_BLOOM_H
#define BS_BLOOM_H

#include <stdbool.h>
#include <stdint.h>

#include "format.h"
#include "layout.h"

/* A decoded filter pointing into a buffer. */
typedef struct bs_bloom
{
	uint64_t	m;
	uint32_t	k;
	uint32_t	layout;
	uint8_t		family;
	uint64_t	seed;
	uint8_t    *buf;			/* the whole sketch, header first */
	uint8_t    *bits;			/* ceil(m/8) bytes */
} bs_bloom;

/* Fill a buffer of bs_bloom_size(m) bytes with an empty filter. */
bs_status	bs_bloom_size(uint64_t m, uint64_t *total, bs_error *err);
void		bs_bloom_init(uint8_t *buf, uint64_t m, uint32_t k, uint8_t family,
						  uint64_t seed);
void		bs_bloom_init_layout(uint8_t *buf, uint64_t m, uint32_t k, uint32_t layout,
								 uint8_t family, uint64_t seed);

/* View trusted bytes (already validated, or made by us). */
void		bs_bloom_view(uint8_t *buf, bs_bloom *b);

/* Add or look up a hash. */
static inline void
bs_bloom_add(const bs_bloom *b, uint64_t h)
{
	bs_layout_add(b->layout, b->bits, b->m, b->k, h);
}

static inline bool
bs_bloom_contains(const bs_bloom *b, uint64_t h)
{
	return bs_layout_contains(b->layout, b->bits, b->m, b->k, h);
}

/* Merges: dst op= src after checking that the shapes, layouts and families agree. */
bs_status	bs_bloom_check_mergeable(const bs_bloom *a, const bs_bloom *b,
									 bs_error *err);
void		bs_bloom_or(bs_bloom *dst, const bs_bloom *src);
void		bs_bloom_and(bs_bloom *dst, const bs_bloom *src);

/* Estimates from the fill (layout.h). */
double		bs_bloom_cardinality_of(const bs_bloom *b);
double		bs_bloom_fpr_of(const bs_bloom *b);

/*
 * The checks of a fixed filter's header and bits (bloom_value.h's kind
 * check, and a filter inside another kind), named what in messages; O(1).
 */
bs_status	bs_bloom_check_named(const bs_header *h, const uint8_t *payload,
								 uint64_t plen, const char *what, bs_error *err);

#endif
