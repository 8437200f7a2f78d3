/*
 * bloom_agg_state.h: the transition state of bloom_agg (SQL type bloom_agg_state).
 *
 * bloom_agg(x) without a capacity does not know how many distinct values its
 * group will hold, yet must meet the requested false-positive rate p without
 * a huge filter for every small group.  The rule (doc/sizing.md):
 *
 *   exact phase   Up to BS_AGG_STATE_EXACT_LIMIT distinct values the state
 *                 keeps the distinct 64-bit hashes in an open-addressing
 *                 table.  The final filter is then sized exactly for the
 *                 distinct count n: m = ceil(-n ln p / ln^2 2),
 *                 k = round(m/n ln 2), the same as bloom_empty(n, p).
 *   dense phase   Past that, the hashes move into one filter of M bits sized
 *                 for BS_AGG_STATE_DENSE_FACTOR times the limit, with
 *                 k = round(log2(1/p)).  M is a multiple of 2^10 * 3^6, and
 *                 the final function folds it onto M/f bits for the largest
 *                 f = 2^i 3^j whose rate, at the cardinality estimated from
 *                 the fill, is still at most p.  Folding is exact because
 *                 positions are reduce(a, M) = floor(a M / 2^64), and
 *                 floor(floor(a M / 2^64) / f) = floor(a (M/f) / 2^64).
 *
 * bloom_agg(x, capacity, fpr) makes the filter of the bloom_empty shape.
 * Its state (BS_AGG_STATE_FIXED) also keeps the exact hashes first, while
 * their table is no larger than that filter (at most 1 MB of 131,072 slots
 * for a capacity of 1,000,000 at 1%), then turns into the filter: a small
 * group, a parallel worker's or a Citus shard's part takes and ships its
 * hashes, not 1.2 MB of mostly empty filter, and the final filter is the
 * same either way.
 *
 * Either kind of state can make a blocked filter (blocked.h; flag
 * BS_AGG_STATE_BLOCKED): the exact phase sizes it with bs_blocked_optimal, the
 * fixed state has the bloom_empty(capacity, fpr, 'blocked') shape, and the
 * dense phase is a blocked filter of M bits whose block count is a multiple
 * of 2^7 * 3^4 (BS_BLOCKED_FOLD_BASE), with the k that bs_blocked_optimal
 * gives for the dense capacity.  The final function folds whole blocks onto
 * M/f bits for the largest f = 2^i 3^j whose blocked rate, at the
 * cardinality estimated from the blocks' fill, is still at most p; folding
 * blocks keeps each key's block, so it is exact too (blocked.h).  Every input order and every split into partial states gives
 * the same final filter, byte for byte, so parallel plans equal serial ones.
 *
 * cbloom_agg(x) uses a counting exact state (BS_AGG_STATE_COUNTED): each slot
 * also keeps how many times its hash was added (saturating at 255), and the
 * final function makes a counting filter of the same shape, so
 * cbloom_agg(x)::bloom equals bloom_agg(x).  A counting state has no dense
 * phase (a foldable filter of counters would take 4 to 8 times the memory):
 * past BS_AGG_STATE_EXACT_LIMIT distinct values adding fails with an error
 * that says to pass a capacity.
 *
 * Header use: p1 = table slots (exact), hashes listed (packed) or bits
 * (dense); p2 = hashes (dense), the distinct hashes held (fixed, exact) or,
 * counting, the count of the zero hash; p3 = flags; n = distinct hashes
 * held (exact) or the capacity (fixed); x = target fpr (float8 bits).
 * Exact payload: slots 64-bit hashes (0 = empty; the zero hash itself is
 * the HASZERO flag), then, counting, slots one-byte counts.
 *
 * Packed (BS_AGG_STATE_PACKED, exact phase only): the same hashes without
 * the empty slots, in ascending order, then their counts.  A state that
 * leaves its aggregate (a parallel worker's result, a Citus shard's text, a
 * stored partial state) is packed when it is large (bloom_agg_expanded.c):
 * it is 3/8 to 3/4 the table's size, and its bytes depend only on the set
 * of hashes, not on the order they came in.  Every function reads both
 * forms; adding to a packed state first makes it a table again.
 */
#ifndef BS_BLOOM_AGG_STATE_H
#define BS_BLOOM_AGG_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "format.h"
#include "layout.h"
#include "status.h"

#define BS_AGG_STATE_DENSE 0x1u
#define BS_AGG_STATE_FIXED 0x2u
#define BS_AGG_STATE_HASZERO 0x4u
#define BS_AGG_STATE_COUNTED 0x8u
#define BS_AGG_STATE_BLOCKED 0x10u
#define BS_AGG_STATE_PACKED 0x20u
#define BS_AGG_STATE_FLAGS (BS_AGG_STATE_DENSE | BS_AGG_STATE_FIXED | BS_AGG_STATE_HASZERO | BS_AGG_STATE_COUNTED | BS_AGG_STATE_BLOCKED | BS_AGG_STATE_PACKED)
#define BS_AGG_STATE_MAX_COUNT 255

#define BS_AGG_STATE_MIN_SLOTS 16
#define BS_AGG_STATE_EXACT_LIMIT (UINT64_C(1) << 20)
#define BS_AGG_STATE_MAX_SLOTS (UINT64_C(1) << 21)
#define BS_AGG_STATE_DENSE_FACTOR 16
/* The dense phase's fold bases: BS_FOLD_BASE (classic.h), BS_BLOCKED_FOLD_BASE (blocked.h). */

/* Total byte length of a (trusted) state. */
size_t		bs_bloom_agg_state_size(const uint8_t *state);

bs_status	bs_bloom_agg_state_new_auto(double fpr, uint8_t family, uint64_t seed,
								const bs_allocator *a, uint8_t **out, bs_error *err);
bs_status	bs_bloom_agg_state_new_auto_layout(double fpr, uint32_t layout, uint8_t family,
									   uint64_t seed, const bs_allocator *a,
									   uint8_t **out, bs_error *err);
bs_status	bs_bloom_agg_state_new_counting(double fpr, uint8_t family, uint64_t seed,
									const bs_allocator *a, uint8_t **out,
									bs_error *err);
bs_status	bs_bloom_agg_state_new_fixed(double capacity, double fpr, uint8_t family,
								 uint64_t seed, const bs_allocator *a,
								 uint8_t **out, bs_error *err);

/*
 * A fixed state of the layout whose shape m, k the caller got from
 * bs_bloom_shape_for(capacity, fpr, layout) (and may have kept: the blocked
 * sizing takes a few hundred microseconds, too long for every group).
 */
bs_status	bs_bloom_agg_state_new_fixed_shape(double capacity, double fpr, uint32_t layout,
									   uint64_t m, uint32_t k, uint8_t family,
									   uint64_t seed, const bs_allocator *a,
									   uint8_t **out, bs_error *err);

/* The layout of the filter a state makes (layout.h). */
uint32_t	bs_bloom_agg_state_layout(const uint8_t *state);

/*
 * Is this the state of exactly this call: its target (as
 * bs_bloom_agg_state_same_target), counting or not, and layout?  One read of
 * the header, for the transition function's check on every row.
 */
bool		bs_bloom_agg_state_fits(const uint8_t *state, bool fixed, uint64_t capacity,
								double fpr, bool counting, uint32_t layout);

/* Do this state's target and shape equal the ones asked for? */
bool		bs_bloom_agg_state_same_target(const uint8_t *state, bool fixed,
								   uint64_t capacity, double fpr);

/*
 * Add one hash: on success *state is the state or the new buffer it grew
 * into; a counting state that is full is BS_ERR_LIMIT (*state unchanged).
 */
bs_status	bs_bloom_agg_state_add(uint8_t **state, uint64_t h, const bs_allocator *a,
						   bs_error *err);
bool		bs_bloom_agg_state_is_counting(const uint8_t *state);

/*
 * Hashes on their way into a large state, in batches.  A large state's table
 * (or dense filter) is bigger than the CPU caches, so adding hashes one at a
 * time in arrival order costs a cache miss (and, past a few MB, a TLB miss)
 * per row.  Instead the caller collects bs_bloom_agg_state_batch_hashes() hashes and
 * adds them with bs_bloom_agg_state_add_batch():
 *
 *   exact phase   sorted by their top 22 bits.  A hash's home slot,
 *                 reduce(h, slots) = h >> (64 - log2 slots), grows with h, so
 *                 sorted hashes walk the table from its first slot to its
 *                 last: each line and page is fetched once per batch, in
 *                 address order.  A batch holds about one hash per two
 *                 cache lines of the table, so it touches each line once or
 *                 twice.
 *   dense phase   the lines of each hash are asked for (prefetched) a few
 *                 hashes before its bits are set, so that many misses are in
 *                 flight at once (bs_layout_add_batch).
 *
 * The state ends up holding the same hashes (exact) or the same bits (dense)
 * as with bs_bloom_agg_state_add() in any order, so the final filter is the same,
 * byte for byte.  The batch is not part of the state's format: whoever keeps
 * one must add it before anyone else reads the state (src/bloom_agg_expanded.c).
 */
size_t		bs_bloom_agg_state_batch_hashes(const uint8_t *state);

/*
 * Whether batches pay for this state: a table of at least 1 kB, 128 slots (a
 * GROUP BY keeps many tables, so a new value's probe misses the caches, and
 * a table that turns into a batched one early grows in its own memory
 * context, where each table it outgrows is freed, instead of leaving its
 * chunk on the aggregate context's free lists: 133,277 kB for 1,000 groups
 * of 10,000 distinct values, 153,613 kB with a limit of 8 kB and 177,667
 * with 64 kB),
 * or a filter of at least 2 MB (256 kB blocked).  The k bits of a smaller
 * classic filter, which stays in the L2 and L3 caches, are set as fast one by
 * one: 1M keys into a 1.2 MB filter took 26-37 ms one by one, 27-34 ms
 * prefetched (and 47-64 ms sorted, as batches were before 1.5).
 */
bool		bs_bloom_agg_state_batches_pay(const uint8_t *state);

/* Scratch (in uint64 words) that bs_bloom_agg_state_add_batch needs for a batch of n hashes. */
size_t		bs_bloom_agg_state_batch_scratch(const uint8_t *state, size_t n);

/*
 * Add h[0..n) (reordered in place) using scratch_words words of scratch
 * (bs_bloom_agg_state_batch_scratch(state, n) is enough to sort an exact
 * batch; less still gives the same state, more slowly; a dense one needs
 * none).  On success *state is the state
 * or the new buffer it grew into (intermediate buffers go to a->release when
 * it is set); a counting state that is full is BS_ERR_LIMIT, as in
 * bs_bloom_agg_state_add (*state unchanged).
 */
bs_status	bs_bloom_agg_state_add_batch(uint8_t **state, uint64_t *h, size_t n,
								 uint64_t *scratch, size_t scratch_words,
								 const bs_allocator *a, bs_error *err);

/*
 * The packed form (above) of a state: its size, then the bytes into out.
 * A dense or already packed state packs into a copy of itself.
 */
size_t		bs_bloom_agg_state_packed_size(const uint8_t *state);
void		bs_bloom_agg_state_pack(const uint8_t *state, uint8_t *out);

/* Is this an exact state in its packed form? */
bool		bs_bloom_agg_state_is_packed(const uint8_t *state);

/*
 * A packed state as a table again, in a new buffer from a (the state a
 * table of the same hashes grows to, whatever order they came in).
 */
uint8_t    *bs_bloom_agg_state_unpack(const uint8_t *state, const bs_allocator *a);

/* *dst += src (src unchanged): on success *dst is dst or a new buffer; on error *dst is unchanged. */
bs_status	bs_bloom_agg_state_merge(uint8_t **dst, const uint8_t *src,
							 const bs_allocator *a, bs_error *err);

/*
 * Shape of the final filter, then the filter itself into bs_bloom_size(m)
 * bytes.  The shape of a fixed state in its exact phase is its capacity's
 * (bs_bloom_shape_for: a search for the blocked layout, which a caller
 * finishing many groups may keep, see bs_bloom_agg_state_fixed_exact); it
 * fails only for a crafted capacity that has no filter.
 */
bs_status	bs_bloom_agg_state_result_shape(const uint8_t *state, uint64_t *m, uint32_t *k,
									bs_error *err);

/*
 * Is this a fixed state in its exact phase (whose final shape is computed,
 * not in its header), and of which capacity, fpr and layout?
 */
bool		bs_bloom_agg_state_fixed_exact(const uint8_t *state, uint64_t *capacity,
										double *fpr, uint32_t *layout);
void		bs_bloom_agg_state_finish(const uint8_t *state, uint64_t m, uint32_t k,
							  uint8_t *out);

/* A counting state's filter into bs_cbloom_size(m, bits) bytes: each hash added its count times. */
void		bs_bloom_agg_state_finish_counting(const uint8_t *state, uint64_t m, uint32_t k,
									   uint32_t bits, uint8_t *out);

/* Parameters of the dense phase for a target rate. */
uint32_t	bs_bloom_agg_state_dense_hashes(double fpr);
uint64_t	bs_bloom_agg_state_dense_bits(double fpr, uint32_t k);

/* Kind check (bs_kind_check, core/kinds.c). */
bs_status	bs_bloom_agg_state_check(const bs_header *h, const uint8_t *payload,
							 uint64_t plen, bool deep, bs_error *err);

#endif
