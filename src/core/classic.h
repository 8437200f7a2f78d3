/*
 * classic.h: the classic layout of a Bloom filter (Bloom 1970; Fan et al.
 * 2000; Bose et al. 2008; doc/bibliography.md), header p3 = 0: a key's k
 * probes spread over all m bits (hash.h).  Its sizing, its rate formulas,
 * its estimates from the fill and its fold; the shape limits every layout
 * shares.  Above bits.h; blocked.h and layout.h build on it.
 */
#ifndef BS_CLASSIC_H
#define BS_CLASSIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bits.h"
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

/* Sizing (Fan et al. 2000): m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2). */
bs_status	bs_bloom_optimal_bits(double n, double p, uint64_t *m, bs_error *err);
bs_status	bs_bloom_optimal_hashes(uint64_t m, double n, uint32_t *k, bs_error *err);

/* The limits of any filter: 1 <= m <= BS_BLOOM_MAX_BITS, 1 <= k <= 64. */
bs_status	bs_bloom_check_shape(uint64_t m, uint64_t k, bs_error *err);

/* (1 - e^{-kn/m})^k, the usual approximation (Fan et al. 2000, Table 3). */
double		bs_bloom_fpr_approx(double m, double n, double k);

/*
 * Bose et al.'s exact rate, by dynamic programming over the bit occupancy;
 * work holds BS_FPR_EXACT_WORK_LEN doubles (80 kB: the caller's, so that
 * the core keeps no state and needs no large stack).
 */
bs_status	bs_bloom_fpr_exact(uint64_t m, uint64_t n, uint32_t k, double *work,
							   double *out, bs_error *err);

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

/*
 * The k bit positions a lookup of h tests, in probe order (the bit-sliced
 * index reads these slices): exactly the bits bs_bloom_contains_hash reads.
 */
static inline void
bs_bloom_positions(uint64_t m, uint32_t k, uint64_t h, uint64_t *pos)
{
	uint32_t	i;

	for (i = 0; i < k; i++)
		pos[i] = bs_probe(h, i, m);
}

/* Swamidass and Baldi: n = -(m/k) ln(1 - X/m); +inf when every bit is set. */
double		bs_bloom_cardinality(uint64_t m, uint32_t k, uint64_t bits_set);

/* Current false-positive probability from the fill: (X/m)^k. */
double		bs_bloom_fpr_from_fill(uint64_t m, uint32_t k, uint64_t bits_set);

/* Fold a classic filter of M bits onto M/f bits (f divides M): bit j goes to j/f. */
void		bs_bloom_fold(const uint8_t *src, uint64_t M, uint64_t f, uint8_t *dst);

/*
 * A foldable classic filter (bloom_agg's dense phase, bloom_agg_state.h):
 * M a multiple of BS_FOLD_BASE = 2^10 3^6 bits, so that it folds onto M / f
 * bits for every f = 2^i 3^j, i <= 10, j <= 6.  Its k = round(log2(1/p))
 * (1 to 64), and its M the fewest such bits that hold n keys at rate p with
 * that k.
 */
#define BS_FOLD_TWOS 10
#define BS_FOLD_THREES 6
#define BS_FOLD_BASE (UINT64_C(1024) * 729)
uint32_t	bs_bloom_foldable_hashes(double p);
uint64_t	bs_bloom_foldable_bits(double n, double p, uint32_t k);

/*
 * Set the k bits of each of h[0..n), the k lines of each key asked for
 * BS_BLOOM_PREFETCH_AHEAD keys early, so that k times that many misses are in
 * flight.  Worth it from about BS_BLOOM_BATCH_MIN_BYTES of filter
 * (bloom_agg_state.h).
 */
#define BS_BLOOM_BATCH_MIN_BYTES (2 * 1024 * 1024)
#define BS_BLOOM_PREFETCH_AHEAD 16
void		bs_bloom_add_prefetched(uint8_t *bits, uint64_t m, uint32_t k, const uint64_t *h,
									size_t n);

#endif
