/*
 * blocked.h: the cache-blocked layout of a Bloom filter (Putze, Sanders and
 * Singler 2007; doc/bibliography.md), header p3 = BS_LAYOUT_BLOCKED.
 *
 * The m bits are B = m / 512 blocks of 512 bits, one 64-byte cache line
 * each.  A key with hash h sets its k bits inside one block:
 *
 *   block      b = reduce(h, B)                        (hash.h)
 *   bit i      bits 9 (i mod 7) .. 9 (i mod 7) + 8 of g_(i div 7),
 *              g_j = bs_splitmix(h, j), within block b
 *
 * so an insert or a lookup touches one cache line and costs one multiply
 * for the block plus one mix per 7 probes, instead of k lines and k mixes.
 * Because b = floor(h B / 2^64), a filter of B blocks folds exactly onto
 * B / f blocks (f dividing B) by OR-ing blocks b f .. b f + f - 1 into
 * block b: floor(floor(h B / 2^64) / f) = floor(h (B / f) / 2^64).
 *
 * The price is a higher rate for the same bits, because blocks fill
 * unevenly: the number of keys in a key's block is binomial (n, 1/B), so
 *
 *   fpr = sum over i of P(i keys in the block) r(i),
 *   r(i) = E[(X_i / 512)^k], X_i the bits that i keys set in one block,
 *
 * r(i) being the exact rate of a 512-bit filter of i keys (Bose et al.).
 * Putze et al. write it with the Poisson (n/B) limit of the binomial and
 * with (1 - (1 - 1/512)^(i k))^k for r(i), the mean fill to the k-th power,
 * which is 1% low at k = 6 and 4% low at k = 13; this exact form is what the
 * sizing uses (doc/sizing.md), so a filter meets the rate it was sized for.
 */
#ifndef BS_BLOCKED_H
#define BS_BLOCKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bits.h"
#include "endian.h"
#include "hash.h"
#include "status.h"

#define BS_BLOCK_BITS 512
#define BS_BLOCK_BYTES 64
/* in-block positions per splitmix output: 7 fields of 9 bits */
#define BS_BLOCK_PROBES_PER_MIX 7
/*
 * The most hashes the sizing gives a blocked filter (bs_blocked_best_hashes):
 * up to 20, the exact block rate is a short sum (blocked.c), and a lookup
 * takes at most 3 mixes.  Rates below about 1e-6 then take more bits than
 * with more hashes, but are still met.  A filter made with explicit bits and
 * hashes may have up to BS_BLOOM_MAX_HASHES.
 */
#define BS_BLOCKED_MAX_HASHES 20

/* The block of hash h in a filter of m bits, and its first byte. */
static inline uint64_t
bs_blocked_block_index(uint64_t m, uint64_t h)
{
	return bs_reduce(h, m / BS_BLOCK_BITS);
}

static inline uint8_t *
bs_blocked_block(uint8_t *bits, uint64_t m, uint64_t h)
{
	return bits + bs_blocked_block_index(m, h) * BS_BLOCK_BYTES;
}

/*
 * The probes of one splitmix output g: t of them, the i-th at bits
 * 9 i .. 9 i + 8 of g.  Bit j of a block is bit (j mod 8) of its byte j / 8
 * (bits.h), so it is also bit (j mod 64) of its little-endian 64-bit word
 * j / 64: the lookup tests it in the word, with no branch per probe, and
 * the bits are those of the byte-by-byte loop of blocked_test.c.  A key's
 * first 7 probes (every k of the sizing up to 7) take one output.
 */
static inline void
bs_blocked_set_probes(uint8_t *blk, uint64_t g, uint32_t t)
{
	uint32_t	i;

	for (i = 0; i < t; i++, g >>= 9)
		blk[(g >> 3) & 63] |= (uint8_t) (1u << (g & 7));
}

/* Probe i of g (bits 9 i .. 9 i + 8 of g): its word, shifted so that its bit is the lowest. */
#if BS_BLOCK_PROBES_PER_MIX != 7
#error "bs_blocked_test_probes has a case for each of 7 probes per mix"
#endif
#define BS_BLOCKED_PROBE_WORD(blk, g, i) \
	(bs_load64((blk) + (((g) >> (9 * (i) + 3)) & 56)) >> (((g) >> (9 * (i))) & 63))

static inline uint64_t
bs_blocked_test_probes(const uint8_t *blk, uint64_t g, uint32_t t)
{
	uint64_t	all = 1;

	/* the probes in any order (an AND): no loop, the case of t first */
	switch (t)
	{
		case 7:
			all &= BS_BLOCKED_PROBE_WORD(blk, g, 6);
			/* FALLTHROUGH */
		case 6:
			all &= BS_BLOCKED_PROBE_WORD(blk, g, 5);
			/* FALLTHROUGH */
		case 5:
			all &= BS_BLOCKED_PROBE_WORD(blk, g, 4);
			/* FALLTHROUGH */
		case 4:
			all &= BS_BLOCKED_PROBE_WORD(blk, g, 3);
			/* FALLTHROUGH */
		case 3:
			all &= BS_BLOCKED_PROBE_WORD(blk, g, 2);
			/* FALLTHROUGH */
		case 2:
			all &= BS_BLOCKED_PROBE_WORD(blk, g, 1);
			/* FALLTHROUGH */
		case 1:
			all &= BS_BLOCKED_PROBE_WORD(blk, g, 0);
	}
	return all & 1;
}

static inline void
bs_blocked_add_hash(uint8_t *bits, uint64_t m, uint32_t k, uint64_t h)
{
	uint8_t    *blk = bs_blocked_block(bits, m, h);
	uint32_t	j;

	for (j = 0; k > BS_BLOCK_PROBES_PER_MIX; j++, k -= BS_BLOCK_PROBES_PER_MIX)
		bs_blocked_set_probes(blk, bs_splitmix(h, j), BS_BLOCK_PROBES_PER_MIX);
	bs_blocked_set_probes(blk, bs_splitmix(h, j), k);
}

/* All k probes of a mix are tested before the one branch on their result. */
static inline bool
bs_blocked_contains_hash(const uint8_t *bits, uint64_t m, uint32_t k, uint64_t h)
{
	const uint8_t *blk = bs_blocked_block((uint8_t *) bits, m, h);
	uint32_t	j;

	for (j = 0; k > BS_BLOCK_PROBES_PER_MIX; j++, k -= BS_BLOCK_PROBES_PER_MIX)
		if (!bs_blocked_test_probes(blk, bs_splitmix(h, j), BS_BLOCK_PROBES_PER_MIX))
			return false;
	return bs_blocked_test_probes(blk, bs_splitmix(h, j), k) != 0;
}

/* The k bit positions (of the whole filter) that bs_blocked_contains_hash tests. */
static inline void
bs_blocked_positions(uint64_t m, uint32_t k, uint64_t h, uint64_t *pos)
{
	uint64_t	base = bs_blocked_block_index(m, h) * BS_BLOCK_BITS;
	uint32_t	i = 0,
				j = 0;

	while (i < k)
	{
		uint64_t	g = bs_splitmix(h, j++);
		uint32_t	t;

		for (t = 0; t < BS_BLOCK_PROBES_PER_MIX && i < k; t++, i++, g >>= 9)
			pos[i] = base + (g & 511);
	}
}

/* The rate of a blocked filter of m bits (a multiple of 512) holding n keys (above). */
double		bs_blocked_fpr(uint64_t m, double n, uint32_t k);

/*
 * The smallest blocked filter for n keys at rate p: the fewest blocks for
 * which some k <= BS_BLOCKED_MAX_HASHES has bs_blocked_fpr <= p, and that k
 * (the one with the lowest rate).  BS_ERR_PARAM for bad n or p, BS_ERR_LIMIT past the size limit.
 */
bs_status	bs_blocked_optimal(double n, double p, uint64_t *m, uint32_t *k,
							   bs_error *err);

/* The k <= BS_BLOCKED_MAX_HASHES with the lowest bs_blocked_fpr for m bits and n keys. */
uint32_t	bs_blocked_best_hashes(uint64_t m, double n);

/* Estimates from the fill of each block: sum of the blocks' Swamidass-Baldi
 * counts (+inf if a block is full), and the mean of (X_b / 512)^k. */
double		bs_blocked_cardinality(const uint8_t *bits, uint64_t m, uint32_t k);
double		bs_blocked_fpr_from_fill(const uint8_t *bits, uint64_t m, uint32_t k);

/* Fold m bits onto m / f bits (f divides m / 512): block b goes to b / f. */
void		bs_blocked_fold(const uint8_t *src, uint64_t m, uint64_t f, uint8_t *dst);

/*
 * A foldable blocked filter (bloom_agg's dense phase, bloom_agg_state.h):
 * bs_blocked_optimal's shape for n keys at rate p, its block count rounded
 * up to a multiple of BS_BLOCKED_FOLD_BASE = 2^7 3^4, so that it folds onto
 * m / f bits for every f = 2^i 3^j, i <= 7, j <= 4.
 */
#define BS_BLOCKED_FOLD_TWOS 7
#define BS_BLOCKED_FOLD_THREES 4
#define BS_BLOCKED_FOLD_BASE (UINT64_C(128) * 81)	/* in blocks */
void		bs_blocked_foldable(double n, double p, uint64_t *m, uint32_t *k);

/*
 * Add h[0..n), each key's block asked for a few keys early (one line per
 * key: prefetching keeps several misses in flight).  Worth it from about
 * BS_BLOCKED_BATCH_MIN_BYTES of filter (bloom_agg_state.h).
 */
#define BS_BLOCKED_BATCH_MIN_BYTES (256 * 1024)
void		bs_blocked_add_prefetched(uint8_t *bits, uint64_t m, uint32_t k,
									  const uint64_t *h, size_t n);

#endif
