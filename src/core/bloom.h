/*
 * bloom.h: the Bloom filter (Bloom 1970; Fan et al. 2000; Bose et al. 2008;
 * doc/references.md).
 *
 * Layout: header with p1 = m (bits), p2 = k (hashes), p3 = layout, n = x = 0,
 * then ceil(m/8) bytes of bits; bit j is bit (j mod 8) of byte j/8, and the
 * bits past m in the last byte are zero.  Where a key's bits go depends on
 * the layout: classic (0) spreads its k probes over all m bits (hash.h);
 * blocked (1) puts them in one 512-bit block (blocked.h).
 */
#ifndef BS_BLOOM_H
#define BS_BLOOM_H

#include <stdbool.h>
#include <stdint.h>

#include "blocked.h"
#include "format.h"
#include "hash.h"

#define BS_BLOOM_MAX_HASHES 64
/* Largest m: the whole sketch must fit in BS_MAX_SKETCH_BYTES. */
#define BS_BLOOM_MAX_BITS ((BS_MAX_SKETCH_BYTES - BS_HEADER_SIZE) * 8)
/* Work limit of the exact false-positive rate (throws x occupied bits). */
#define BS_FPR_EXACT_MAX_WORK 100000000.0
/*
 * Its work space: one double per possible number of occupied bits, which is
 * at most the throws, so at most sqrt(BS_FPR_EXACT_MAX_WORK), plus one.
 */
#define BS_FPR_EXACT_WORK_LEN 10001

/* Layouts (header p3). */
#define BS_LAYOUT_CLASSIC 0
#define BS_LAYOUT_BLOCKED 1
#define BS_LAYOUT_MAX BS_LAYOUT_BLOCKED

/* "classic", "blocked" or "unknown". */
const char *bs_layout_name(uint32_t layout);

/* The layout named by text[0..len): classic or blocked; BS_ERR_PARAM else. */
bs_status	bs_layout_parse(const char *text, size_t len, uint32_t *layout,
							bs_error *err);

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

static inline uint64_t
bs_bloom_payload_bytes(uint64_t m)
{
	return m / 8 + (m % 8 != 0);
}

/* Sizing (Fan et al. 2000): m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2). */
bs_status	bs_bloom_optimal_bits(double n, double p, uint64_t *m, bs_error *err);
bs_status	bs_bloom_optimal_hashes(uint64_t m, double n, uint32_t *k, bs_error *err);
bs_status	bs_bloom_check_shape(uint64_t m, uint64_t k, bs_error *err);
/* The same, plus what the layout needs (blocked: a multiple of 512 bits). */
bs_status	bs_bloom_check_layout_shape(uint64_t m, uint64_t k, uint32_t layout,
										bs_error *err);

/*
 * The shape bloom_empty(n, p, layout) gives: classic as above, blocked the
 * smallest blocked filter that meets p (bs_blocked_optimal).
 */
bs_status	bs_bloom_shape_for(double n, double p, uint32_t layout, uint64_t *m,
							   uint32_t *k, bs_error *err);

/* The rate of a filter of the layout with m bits, n keys and k hashes. */
double		bs_bloom_fpr_layout(uint32_t layout, uint64_t m, double n, uint32_t k);

/* (1 - e^{-kn/m})^k, the usual approximation (Fan et al. 2000, Table 3). */
double		bs_bloom_fpr_approx(double m, double n, double k);

/*
 * Bose et al.'s exact rate, by dynamic programming over the bit occupancy;
 * work holds BS_FPR_EXACT_WORK_LEN doubles (80 kB: the caller's, so that
 * the core keeps no state and needs no large stack).
 */
bs_status	bs_bloom_fpr_exact(uint64_t m, uint64_t n, uint32_t k, double *work,
							   double *out, bs_error *err);

/* Fill a buffer of bs_bloom_size(m) bytes with an empty filter. */
bs_status	bs_bloom_size(uint64_t m, uint64_t *total, bs_error *err);
void		bs_bloom_init(uint8_t *buf, uint64_t m, uint32_t k, uint8_t family,
						  uint64_t seed);
void		bs_bloom_init_layout(uint8_t *buf, uint64_t m, uint32_t k, uint32_t layout,
								 uint8_t family, uint64_t seed);

/* View trusted bytes (already validated, or made by us). */
void		bs_bloom_view(uint8_t *buf, bs_bloom *b);

static inline void
bs_bloom_add_hash(uint8_t *bits, uint64_t m, uint32_t k, uint64_t h)
{
	uint32_t	i;

	for (i = 0; i < k; i++)
	{
		uint64_t	pos = bs_probe(h, i, m);

		bits[pos >> 3] |= (uint8_t) (1u << (pos & 7));
	}
}

static inline bool
bs_bloom_contains_hash(const uint8_t *bits, uint64_t m, uint32_t k, uint64_t h)
{
	uint32_t	i;

	for (i = 0; i < k; i++)
	{
		uint64_t	pos = bs_probe(h, i, m);

		if ((bits[pos >> 3] & (1u << (pos & 7))) == 0)
			return false;
	}
	return true;
}

/* Add or look up a hash in a filter of either layout. */
static inline void
bs_bloom_add(const bs_bloom *b, uint64_t h)
{
	if (b->layout == BS_LAYOUT_BLOCKED)
		bs_blocked_add_hash(b->bits, b->m, b->k, h);
	else
		bs_bloom_add_hash(b->bits, b->m, b->k, h);
}

static inline bool
bs_bloom_contains(const bs_bloom *b, uint64_t h)
{
	if (b->layout == BS_LAYOUT_BLOCKED)
		return bs_blocked_contains_hash(b->bits, b->m, b->k, h);
	return bs_bloom_contains_hash(b->bits, b->m, b->k, h);
}

/* Merges: dst op= src after checking that the shapes, layouts and families agree. */
bs_status	bs_bloom_check_mergeable(const bs_bloom *a, const bs_bloom *b,
									 bs_error *err);
void		bs_bloom_or(bs_bloom *dst, const bs_bloom *src);
void		bs_bloom_and(bs_bloom *dst, const bs_bloom *src);

uint64_t	bs_popcount(const uint8_t *bytes, uint64_t nbytes);

/* Swamidass and Baldi: n = -(m/k) ln(1 - X/m); +inf when every bit is set. */
double		bs_bloom_cardinality(uint64_t m, uint32_t k, uint64_t bits_set);

/* Current false-positive probability from the fill: (X/m)^k. */
double		bs_bloom_fpr_from_fill(uint64_t m, uint32_t k, uint64_t bits_set);

/* Estimates from the fill of either layout (the two above, or blocked.h's). */
double		bs_bloom_cardinality_of(const bs_bloom *b);
double		bs_bloom_fpr_of(const bs_bloom *b);

/* Fold a classic filter of M bits onto M/f bits (f divides M): bit j goes to j/f. */
void		bs_bloom_fold(const uint8_t *src, uint64_t M, uint64_t f, uint8_t *dst);

/* Kind check (bs_kind_check, core/kinds.c); every check is O(1). */
bs_status	bs_bloom_check(const bs_header *h, const uint8_t *payload,
						   uint64_t plen, bool deep, bs_error *err);

/* The same check of a filter inside another kind, named what in messages. */
bs_status	bs_bloom_check_named(const bs_header *h, const uint8_t *payload,
								 uint64_t plen, const char *what, bs_error *err);

#endif
