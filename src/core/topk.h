/*
 * topk.h: heavy hitters, the topk kind.
 *
 * Format 2 (bloomsketch 1.5 on) counts its candidates itself, as the
 * counter-based summaries of Misra and Gries and of Metwally et al.
 * (Space-Saving) do, merged as Agarwal et al. merge them ("Mergeable
 * summaries", doc/bibliography.md), and keeps a Count-Min sketch beside them.
 * Every value it holds has two counts: lower, the occurrences counted while
 * it was held, and upper, a bound on all its occurrences; the true count is
 * always between them.  floor bounds the count of every value it does not
 * hold.  A value not held is inserted with lower = c and upper = floor + c;
 * when 2C values are held and one more arrives, the C with the smallest lower
 * counts (then upper, then hash) are dropped and floor rises to the largest
 * upper bound dropped.  The Count-Min rows cap every upper bound (and floor,
 * for a given value) at the value's Count-Min estimate, so an upper bound is
 * at most eps N above the truth with probability 1 - delta, whatever the data.
 * On skewed data the heavy hitters are held from their first rows on, and
 * their lower and upper counts are exact.
 *
 * Format 1 (1.0 to 1.4) is topk_v1.h; the functions below that read a value
 * read either format.
 *
 * Layout of format 2 (doc/format.md, section 9): header version 2, p1 =
 * width w, p2 = depth d, p3 = k, n = total N, x = capacity C (low 32 bits) |
 * values held c (high 32 bits); payload: the d x w counters (as a cms), floor
 * (8 bytes), c records of 20 bytes {lower u64, upper u64, key end u32} in
 * increasing order of the values' hashes, then the key bytes, value i's from
 * the previous record's key end (0 for the first) to its own.
 */
#ifndef BS_TOPK_H
#define BS_TOPK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "cms.h"
#include "format.h"

#define BS_TOPK_MAX_K 10000
#define BS_TOPK_MAX_KEY 65536	/* bytes of one tracked value's key */
#define BS_TOPK_MAX_CAPACITY 1000000	/* values a sketch tracks (epsilon >= 1e-6) */
#define BS_TOPK_FORMAT_V1 1		/* Count-Min candidates: topk_v1.h */
#define BS_TOPK_FORMAT 2		/* counted candidates */
#define BS_TOPK_RECORD 20

/* What a sketch is built with: k listed, C tracked, a w x d Count-Min sketch. */
typedef struct bs_topk_params
{
	uint32_t	k;
	uint32_t	capacity;
	uint64_t	width;
	uint32_t	depth;
} bs_topk_params;

bs_status	bs_topk_check_k(int64_t k, bs_error *err);

/*
 * The parameters of topk_agg(value, k, epsilon, delta): the Count-Min shape
 * of epsilon and delta (bs_cms_dims) and capacity max(2k, ceil(1 / epsilon)).
 */
bs_status	bs_topk_params_for(int64_t k, double epsilon, double delta,
							   bs_topk_params *p, bs_error *err);

/* One held value in memory. */
typedef struct bs_topk_entry
{
	uint64_t	hash;
	uint64_t	lower;
	uint64_t	upper;
	uint32_t	key_off;		/* in keys */
	uint32_t	key_len;
} bs_topk_entry;

/*
 * A format-2 sketch being built or merged into: the aggregates' transition
 * state.  Its arrays come from the allocator and grow through it (released
 * through it when it can release); items[0..n) are in no particular order,
 * index is an open-addressing table of item positions + 1 (0: empty) by
 * hash, keys holds exactly the held values' key bytes.
 */
typedef struct bs_topk_state
{
	bs_topk_params params;
	bs_allocator alloc;
	uint8_t    *cmsbuf;			/* a cms value: header, then the counters */
	bs_cms		cms;			/* its view; cms.total is N */
	uint64_t	floor;
	bs_topk_entry *items;
	uint32_t	n;
	uint32_t	items_cap;
	uint32_t   *index;
	uint32_t	index_mask;
	uint8_t    *keys;
	uint64_t	keys_used;
	uint64_t	keys_cap;
} bs_topk_state;

/* An empty state; BS_ERR_LIMIT if its counters would pass the size limit. */
bs_status	bs_topk_state_init(bs_topk_state *st, const bs_topk_params *p,
							   uint8_t family, uint64_t seed, const bs_allocator *a,
							   bs_error *err);

/* Give every array of st back to its allocator (when it can release). */
void		bs_topk_state_release(bs_topk_state *st);

/* A state holding format-2 value buf (validated). */
void		bs_topk_state_load(bs_topk_state *st, const uint8_t *buf, size_t len,
							   const bs_allocator *a);

/*
 * Whether a topk sketch of sketch_family may count a canonical key of len
 * bytes of family (both formats): short enough to track, canonical, and of
 * the sketch's family (or the sketch has none yet).
 */
bs_status	bs_topk_check_key(uint32_t len, uint8_t family, uint8_t sketch_family,
							  bs_error *err);

/*
 * Add count for the value with hash h and canonical key bytes of family
 * (the sketch takes the family if it had none).  On error nothing changed.
 */
bs_status	bs_topk_state_add(bs_topk_state *st, uint64_t h, const uint8_t *key,
							  uint32_t len, uint8_t family, uint64_t count,
							  bs_error *err);

/*
 * st += src, a validated format-2 value of the same k, capacity, Count-Min
 * shape and seed, and a compatible family (BS_ERR_SHAPE or BS_ERR_FAMILY
 * otherwise, BS_ERR_LIMIT past the total; st unchanged on error).  Keeps
 * the best C values.
 */
bs_status	bs_topk_state_merge(bs_topk_state *st, const uint8_t *src, size_t srclen,
								bs_error *err);

/* Size in bytes of bs_topk_state_write(st, false, ...). */
size_t		bs_topk_state_size(const bs_topk_state *st);

/*
 * The state as a format-2 value, in a new buffer from a: every value held,
 * or, when canonical, the canonical form: the best C values (floor raised
 * to the largest upper bound dropped).  The state is not changed.
 */
uint8_t    *bs_topk_state_write(const bs_topk_state *st, bool canonical,
								const bs_allocator *a, size_t *outlen);

/*
 * Every value held, as bs_topk_state_write(st, false, ...) writes it, into
 * out, of bs_topk_state_size(st) bytes; only a sorting buffer comes from
 * scratch (and goes back to it).  For a caller that owns the output buffer
 * but not the current allocator (PostgreSQL flattens into a tuple built in
 * a memory context that cannot free).
 */
void		bs_topk_state_write_into(const bs_topk_state *st, const bs_allocator *scratch,
									 uint8_t *out);

/* ---- reading a value of either format ---- */

/* One listed value: its key bytes (inside the value read) and its counts. */
typedef struct bs_topk_row
{
	const uint8_t *key;
	uint32_t	len;
	uint64_t	estimate;
	uint64_t	lower;
	uint64_t	upper;
} bs_topk_row;

/*
 * The values a valid sketch lists, best first, in a new array from a (*n
 * rows; format 1 in its canonical order, its estimate the Count-Min one and
 * its lower bound 0; format 2 by lower count, then upper, then hash, its
 * estimate the lower count).  The rows point into buf or into a copy from a.
 */
bs_topk_row *bs_topk_ranked(const uint8_t *buf, size_t len, const bs_allocator *a,
							uint32_t *n);

/*
 * The counts of any value (hash h, key bytes key[0..len)) in a valid sketch:
 * a held value's row, or for one not held lower = estimate = 0 and upper =
 * the smaller of floor and its Count-Min estimate (format 1: every value
 * gets its Count-Min estimate as estimate and upper, and 0).  Returns
 * whether the value is held.
 */
bool		bs_topk_lookup(const uint8_t *buf, size_t len, uint64_t h,
						   const uint8_t *key, uint32_t klen, bs_topk_row *row);

/* What topk_info shows. */
typedef struct bs_topk_info
{
	int			version;
	bs_topk_params params;
	uint64_t	total;
	uint32_t	held;
	bool		has_floor;		/* format 1 has none */
	uint64_t	floor;
} bs_topk_info;

void		bs_topk_describe(const uint8_t *buf, size_t len, bs_topk_info *info);

/*
 * BS_ERR_SHAPE naming both formats (the version bytes of two values) when
 * they differ, so that the values cannot be merged; BS_OK otherwise.
 */
bs_status	bs_topk_check_same_format(int a, int b, bs_error *err);

/* The checks of k, the Count-Min shape and the total that both formats make (BS_ERR_FORMAT). */
bs_status	bs_topk_check_header(const bs_header *h, bs_error *err);

/* Kind check (bs_kind_check, core/kinds.c), both formats. */
bs_status	bs_topk_check(const bs_header *h, const uint8_t *payload,
						  uint64_t plen, bool deep, bs_error *err);

#endif
