/*
 * cbloom.h: the counting Bloom filter (Fan et al. 2000, doc/bibliography.md).
 *
 * A Bloom filter whose m positions are small counters instead of bits, so a
 * value can be removed again: adding a value increments the counters at its
 * k probe positions (hash.h, the same positions a bloom filter of the same
 * m and k sets), removing it decrements them, and a value is present when
 * all its counters are non-zero.
 *
 * Counters are 4 bits (Fan et al. 2000: overflow of a 4-bit counter is
 * vanishingly rare at the optimal k) or 8 bits.  A counter that reaches its
 * maximum (15 or 255) is saturated: it stays there and is never decremented,
 * because its true count is unknown; so removing an added value never
 * clears a counter another added value still needs, and removal causes no
 * false negative.  (Removing a value that was never added but is a false
 * positive does decrement counters of other values; that is the counting
 * filter's inherent limit, doc/reference.md.)
 *
 * Layout: header with p1 = m (counters), p2 = k (hashes), p3 = counter bits
 * (4 or 8), n = x = 0, then the counters: 8-bit counter j is byte j; 4-bit
 * counter j is the low nibble of byte j/2 for even j and the high nibble for
 * odd j, and the unused high nibble of the last byte (odd m) is zero.
 */
#ifndef BS_CBLOOM_H
#define BS_CBLOOM_H

#include <stdbool.h>
#include <stdint.h>

#include "bloom.h"
#include "format.h"
#include "hash.h"

#define BS_CBLOOM_DEFAULT_BITS 4

typedef struct bs_cbloom
{
	uint64_t	m;
	uint32_t	k;
	uint32_t	bits;			/* 4 or 8 */
	uint32_t	max;			/* 15 or 255: the saturated value */
	uint8_t		family;
	uint64_t	seed;
	uint8_t    *buf;			/* the whole sketch, header first */
	uint8_t    *counters;
} bs_cbloom;

/* Counters that fit the size limit at the given width. */
uint64_t	bs_cbloom_max_counters(uint32_t bits);

/* Shape from capacity and fpr, as bloom_empty: m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2). */
bs_status	bs_cbloom_optimal_shape(double n, double p, uint32_t bits,
									uint64_t *m, uint32_t *k, bs_error *err);
bs_status	bs_cbloom_check_shape(uint64_t m, uint64_t k, uint64_t bits,
								  bs_error *err);
bs_status	bs_cbloom_size(uint64_t m, uint32_t bits, uint64_t *total,
						   bs_error *err);
void		bs_cbloom_init(uint8_t *buf, uint64_t m, uint32_t k, uint32_t bits,
						   uint8_t family, uint64_t seed);

/* View trusted bytes (validated, or made by us). */
void		bs_cbloom_view(uint8_t *buf, bs_cbloom *c);

static inline uint32_t
bs_cbloom_get(const bs_cbloom *c, uint64_t j)
{
	if (c->bits == 8)
		return c->counters[j];
	return (c->counters[j >> 1] >> ((j & 1) << 2)) & 15u;
}

static inline void
bs_cbloom_set(bs_cbloom *c, uint64_t j, uint32_t v)
{
	if (c->bits == 8)
		c->counters[j] = (uint8_t) v;
	else
	{
		unsigned	shift = (unsigned) (j & 1) << 2;
		uint8_t    *b = &c->counters[j >> 1];

		*b = (uint8_t) ((*b & ~(15u << shift)) | (v << shift));
	}
}

/* Add a value count times: each probe's counter += count, saturating. */
void		bs_cbloom_add_hash(bs_cbloom *c, uint64_t h, uint64_t count);

/*
 * The same for h[i], counts[i] times, i < n, each value's counters asked for
 * BS_CBLOOM_PREFETCH_AHEAD values early, so that many cache misses are in
 * flight (the final function of cbloom_agg: 1M values into a 4.8 MB filter
 * took 177-447 ms one by one, about 57 ms so).  The counters end the same.
 */
#define BS_CBLOOM_PREFETCH_AHEAD 8
void		bs_cbloom_add_prefetched(bs_cbloom *c, const uint64_t *h, const uint32_t *counts,
									 size_t n);

/*
 * Remove a value once.  BS_ERR_ABSENT, with nothing changed, if the value
 * is certainly absent: a counter of its probes is zero, or (when probes
 * coincide) smaller than the number of its probes that land on it.
 * Saturated counters are not decremented.
 */
bs_status	bs_cbloom_remove_hash(bs_cbloom *c, uint64_t h, bs_error *err);

/*
 * Whether the value may be present: each counter of its probes is non-zero
 * and, where several of its probes land on one counter, at least that many
 * (or saturated), so that a value it holds has bs_cbloom_count_hash >= 1.
 * Probes share a counter rarely; the second pass runs only for a value whose
 * counters are all non-zero.
 */
static inline bool
bs_cbloom_contains_hash(const bs_cbloom *c, uint64_t h)
{
	uint64_t	pos[BS_BLOOM_MAX_HASHES];
	uint32_t	val[BS_BLOOM_MAX_HASHES];
	uint32_t	i,
				j,
				mult;

	for (i = 0; i < c->k; i++)
	{
		pos[i] = bs_probe(h, i, c->m);
		val[i] = bs_cbloom_get(c, pos[i]);
		if (val[i] == 0)
			return false;
	}
	/* at a counter's last probe, mult counts all the value's probes on it */
	for (i = 1; i < c->k; i++)
	{
		if (val[i] >= c->k || val[i] == c->max)
			continue;
		for (j = 0, mult = 1; j < i; j++)
			mult += pos[j] == pos[i];
		if (val[i] < mult)
			return false;
	}
	return true;
}

/*
 * Upper bound on how many times the value was added (net of removals):
 * the minimum over its unsaturated counters, each divided by how many of
 * its probes land on it.  When all its counters are saturated the true
 * count is unknown (the value is present, added about max / probes-per-
 * counter times or more) and the result is the maximum, 15 or 255.
 */
uint32_t	bs_cbloom_count_hash(const bs_cbloom *c, uint64_t h);

/*
 * Merges and subtractions: same m, k, counter width and seed, compatible
 * families; the message says what was tried (verb: "merge", "subtract").
 */
bs_status	bs_cbloom_check_compatible(const bs_cbloom *a, const bs_cbloom *b,
									   const char *verb, bs_error *err);
/* dst += src counter-wise, saturating. */
void		bs_cbloom_add_counters(bs_cbloom *dst, const bs_cbloom *src);

/*
 * dst -= src counter-wise, for src holding values that dst holds (a
 * sub-multiset): the same as removing each of src's values from dst.
 * Saturated counters of dst stay.  BS_ERR_ABSENT, with nothing changed, if
 * an unsaturated counter of dst is below src's (src holds a value dst
 * certainly does not).  Shapes must have been checked.
 */
bs_status	bs_cbloom_subtract(bs_cbloom *dst, const bs_cbloom *src, bs_error *err);

/* Counters at zero and at the maximum. */
void		bs_cbloom_stats(const bs_cbloom *c, uint64_t *zero, uint64_t *saturated);

/*
 * The bit view into a buffer of bs_bloom_size(m) bytes: a bloom filter of
 * the same m, k, family and seed with bit j set where counter j > 0, equal to
 * the filter the same values would have made (for values only added).
 */
void		bs_cbloom_to_bloom(const bs_cbloom *c, uint8_t *out);

/* Kind check (bs_kind_check, core/kinds.c); every check is O(1). */
bs_status	bs_cbloom_check(const bs_header *h, const uint8_t *payload,
							uint64_t plen, bool deep, bs_error *err);

#endif
