/*
 * layout.h: where a Bloom filter's layout is decided, the one place that
 * switches on it.  A layout (header p3 of a fixed filter, or the low bit of
 * a growable one's) says where a key's bits go: classic (0, classic.h) over
 * all m bits, blocked (1, blocked.h) in one 512-bit block.  Everything above
 * (bloom.h, growable.h, the bloom_agg_state, probe ranges) calls these and never
 * tests the layout itself, so a third layout is a new unit beside classic.c
 * and blocked.c plus one case in each function here (doc/architecture.md,
 * section 2).
 */
#ifndef BS_LAYOUT_H
#define BS_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blocked.h"
#include "classic.h"

#define BS_LAYOUT_CLASSIC 0
#define BS_LAYOUT_BLOCKED 1
#define BS_LAYOUT_MAX BS_LAYOUT_BLOCKED

/* "classic", "blocked" or "unknown". */
const char *bs_layout_name(uint32_t layout);

/* The layout named by text[0..len): classic or blocked; BS_ERR_PARAM else. */
bs_status	bs_layout_parse(const char *text, size_t len, uint32_t *layout,
							bs_error *err);

/* bs_bloom_check_shape, plus what the layout needs (blocked: a multiple of 512 bits). */
bs_status	bs_bloom_check_layout_shape(uint64_t m, uint64_t k, uint32_t layout,
										bs_error *err);

/*
 * The shape bloom_empty(n, p, layout) gives: classic by Fan et al.'s
 * formulas, blocked the smallest blocked filter that meets p
 * (bs_blocked_optimal).
 */
bs_status	bs_bloom_shape_for(double n, double p, uint32_t layout, uint64_t *m,
							   uint32_t *k, bs_error *err);

/* The bits and the hashes of bloom_optimal_bits and bloom_optimal_hashes (blocked: for m bits). */
bs_status	bs_layout_optimal_bits(uint32_t layout, double n, double p, uint64_t *m,
								   bs_error *err);
bs_status	bs_layout_best_hashes(uint32_t layout, uint64_t m, double n, uint32_t *k,
								  bs_error *err);

/*
 * Whether bloom_fpr_estimate may give the rate of m bits and k hashes: a
 * classic filter of any size (a plan), a blocked one only of whole blocks
 * within the size limit (its formula needs them).
 */
bs_status	bs_layout_check_estimate(uint32_t layout, uint64_t m, uint32_t k,
									 bs_error *err);

/* Whether m bits suit the layout (blocked: whole 512-bit blocks). */
bool		bs_layout_fits(uint32_t layout, uint64_t m);

/* The rate of a filter of the layout with m bits, n keys and k hashes. */
double		bs_bloom_fpr_layout(uint32_t layout, uint64_t m, double n, uint32_t k);

/* Add or look up hash h in the bits of a filter of the layout. */
static inline void
bs_layout_add(uint32_t layout, uint8_t *bits, uint64_t m, uint32_t k, uint64_t h)
{
	if (layout == BS_LAYOUT_BLOCKED)
		bs_blocked_add_hash(bits, m, k, h);
	else
		bs_bloom_add_hash(bits, m, k, h);
}

static inline bool
bs_layout_contains(uint32_t layout, const uint8_t *bits, uint64_t m, uint32_t k,
				   uint64_t h)
{
	if (layout == BS_LAYOUT_BLOCKED)
		return bs_blocked_contains_hash(bits, m, k, h);
	return bs_bloom_contains_hash(bits, m, k, h);
}

/*
 * The k bit positions of the filter that a lookup of h tests (pos holds k):
 * the key is in the filter exactly when all of them are set.  The
 * bit-sliced index (bloom_slices) reads these bit slices.
 */
static inline void
bs_layout_positions(uint32_t layout, uint64_t m, uint32_t k, uint64_t h, uint64_t *pos)
{
	if (layout == BS_LAYOUT_BLOCKED)
		bs_blocked_positions(m, k, h, pos);
	else
		bs_bloom_positions(m, k, h, pos);
}

/* Estimates from the fill: distinct keys, and the current rate. */
double		bs_layout_cardinality(uint32_t layout, const uint8_t *bits, uint64_t m,
								  uint32_t k);
double		bs_layout_fpr_of(uint32_t layout, const uint8_t *bits, uint64_t m,
							 uint32_t k);

/*
 * The payload bytes a lookup of h reads (probe_ranges.h): one byte a probe
 * (classic), the key's block (blocked); returns how many ranges it wrote.
 */
struct bs_byte_range;
size_t		bs_layout_probe_ranges(uint32_t layout, uint64_t m, uint32_t k, uint64_t h,
								   struct bs_byte_range *out);

/* Fold m bits onto m / f bits (f divides m, and for blocked m / 512). */
void		bs_layout_fold(uint32_t layout, const uint8_t *src, uint64_t m, uint64_t f,
						   uint8_t *dst);

/*
 * A foldable filter of the layout for n keys at rate p (bloom_agg's dense
 * phase): its size in bits (classic) or blocks (blocked) is a multiple of
 * the layout's fold base 2^twos 3^threes, so bs_layout_fold folds it onto
 * m / f bits for every f = 2^i 3^j, i <= twos, j <= threes.
 */
/* the most factors 2^i 3^j of any layout's fold base: classic's */
#define BS_LAYOUT_MAX_FOLD_FACTORS ((BS_FOLD_TWOS + 1) * (BS_FOLD_THREES + 1))
void		bs_layout_foldable_shape(uint32_t layout, double n, double p, uint64_t *m,
									 uint32_t *k);
void		bs_layout_fold_base(uint32_t layout, int *twos, int *threes);

/*
 * Whether sizing a filter of the layout (bs_bloom_shape_for,
 * bs_layout_foldable_shape) is a search, hundreds of microseconds (blocked),
 * rather than a formula (classic): too slow to redo on every call.
 */
bool		bs_layout_sizing_is_search(uint32_t layout);

/*
 * Batches of hashes into a large filter (bloom_agg_state.h): the filter bytes
 * from which batches pay, and the batch insert itself, which asks for each
 * key's lines a few keys before it writes them.
 */
size_t		bs_layout_batch_min_bytes(uint32_t layout);
void		bs_layout_add_batch(uint32_t layout, uint8_t *bits, uint64_t m, uint32_t k,
								const uint64_t *h, size_t n);

#endif
