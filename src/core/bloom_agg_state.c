#include "bloom_agg_state.h"

#include <inttypes.h>
#include <stdio.h>
#include <math.h>

#include "bloom.h"
#include "cbloom.h"
#include "endian.h"
#include "hash.h"

static double
state_fpr(const uint8_t *s)
{
	return bs_f64_from_bits(bs_load64(s + BS_OFF_X));
}

static const uint8_t *
slots_of(const uint8_t *s)
{
	return s + BS_HEADER_SIZE;
}

static bool
is_counting(const uint8_t *s)
{
	return (bs_load32(s + BS_OFF_P3) & BS_AGG_STATE_COUNTED) != 0;
}

bool
bs_bloom_agg_state_is_counting(const uint8_t *s)
{
	return is_counting(s);
}

/* The one-byte counts of a counting exact state, after its hashes. */
static uint8_t *
counts_of(const uint8_t *s)
{
	return (uint8_t *) s + BS_HEADER_SIZE + bs_load64(s + BS_OFF_P1) * 8;
}

static bool
is_blocked(const uint8_t *s)
{
	return (bs_load32(s + BS_OFF_P3) & BS_AGG_STATE_BLOCKED) != 0;
}

uint32_t
bs_bloom_agg_state_layout(const uint8_t *s)
{
	return is_blocked(s) ? BS_LAYOUT_BLOCKED : BS_LAYOUT_CLASSIC;
}

/* Add hash h to the m-bit filter bits of the state's layout. */
static inline void
add_to_filter(uint8_t *bits, uint64_t m, uint32_t k, bool blocked, uint64_t h)
{
	bs_layout_add(blocked ? BS_LAYOUT_BLOCKED : BS_LAYOUT_CLASSIC, bits, m, k, h);
}

static uint64_t
slot_bytes(bool counting)
{
	return counting ? 9 : 8;
}

static uint32_t
sat_count(uint64_t a, uint64_t b)
{
	return a + b >= BS_AGG_STATE_MAX_COUNT ? BS_AGG_STATE_MAX_COUNT : (uint32_t) (a + b);
}

size_t
bs_bloom_agg_state_size(const uint8_t *s)
{
	uint32_t	flags = bs_load32(s + BS_OFF_P3);
	uint64_t	p1 = bs_load64(s + BS_OFF_P1);

	if (flags & BS_AGG_STATE_DENSE)
		return BS_HEADER_SIZE + bs_bloom_payload_bytes(p1);
	return BS_HEADER_SIZE + p1 * slot_bytes((flags & BS_AGG_STATE_COUNTED) != 0);
}

uint32_t
bs_bloom_agg_state_dense_hashes(double fpr)
{
	double		k = round(-log2(fpr));

	if (k < 1)
		k = 1;
	if (k > BS_BLOOM_MAX_HASHES)
		k = BS_BLOOM_MAX_HASHES;
	return (uint32_t) k;
}

/*
 * The dense phase of a blocked state: the blocked shape for the dense
 * capacity, its block count rounded up to a multiple of BS_BLOCKED_FOLD_BASE.
 */
static void
blocked_dense_shape(double fpr, uint64_t *M, uint32_t *k)
{
	uint64_t	m = 0;

	if (bs_blocked_optimal((double) BS_AGG_STATE_EXACT_LIMIT * BS_AGG_STATE_DENSE_FACTOR,
						   fpr, &m, k, NULL) != BS_OK)
	{
		/* cannot happen for a checked fpr: 2^24 keys at 2^-64 fit the limit */
		m = BS_BLOCK_BITS;
		*k = 1;
	}
	*M = (m / BS_BLOCK_BITS + BS_BLOCKED_FOLD_BASE - 1) / BS_BLOCKED_FOLD_BASE *
		BS_BLOCKED_FOLD_BASE * BS_BLOCK_BITS;
}

/* The dense phase's shape for a state's target. */
static void
dense_shape(double fpr, bool blocked, uint64_t *M, uint32_t *k)
{
	if (blocked)
		blocked_dense_shape(fpr, M, k);
	else
	{
		*k = bs_bloom_agg_state_dense_hashes(fpr);
		*M = bs_bloom_agg_state_dense_bits(fpr, *k);
	}
}

uint64_t
bs_bloom_agg_state_dense_bits(double fpr, uint32_t k)
{
	double		capacity = (double) BS_AGG_STATE_EXACT_LIMIT * BS_AGG_STATE_DENSE_FACTOR;
	double		need = ceil(-(double) k * capacity / log1p(-pow(fpr, 1.0 / k)));
	double		units = ceil(need / (double) BS_FOLD_BASE);

	return (uint64_t) units * BS_FOLD_BASE;
}

static bs_status
check_fpr(double fpr, bs_error *err)
{
	if (!(fpr > 0.0 && fpr < 1.0))
		return bs_fail(err, BS_ERR_PARAM,
					   "false-positive rate must be between 0 and 1 (exclusive), got %s", bs_num(fpr).s);
	if (-log2(fpr) > BS_BLOOM_MAX_HASHES)
		return bs_fail(err, BS_ERR_PARAM,
					   "false-positive rate %s would need more than %d hashes",
					   bs_num(fpr).s, BS_BLOOM_MAX_HASHES);
	return BS_OK;
}

static void
write_state_header(uint8_t *s, uint8_t family, uint64_t seed, uint64_t p1,
				   uint32_t p2, uint32_t flags, uint64_t n, double fpr)
{
	bs_header	h;

	bs_header_init(&h, BS_KIND_BLOOM_AGG_STATE, family, seed);
	h.p1 = p1;
	h.p2 = p2;
	h.p3 = flags;
	h.n = n;
	h.x = bs_bits_of_f64(fpr);
	bs_header_write(s, &h);
}

static bs_status
new_exact(double fpr, uint32_t flags, uint8_t family, uint64_t seed,
		  const bs_allocator *a, uint8_t **out, bs_error *err)
{
	uint8_t    *s;

	if (check_fpr(fpr, err) != BS_OK)
		return BS_ERR_PARAM;
	s = a->alloc(a->ctx, BS_HEADER_SIZE +
				 BS_AGG_STATE_MIN_SLOTS * slot_bytes((flags & BS_AGG_STATE_COUNTED) != 0));
	write_state_header(s, family, seed, BS_AGG_STATE_MIN_SLOTS, 0, flags, 0, fpr);
	*out = s;
	return BS_OK;
}

bs_status
bs_bloom_agg_state_new_auto(double fpr, uint8_t family, uint64_t seed,
					const bs_allocator *a, uint8_t **out, bs_error *err)
{
	return new_exact(fpr, 0, family, seed, a, out, err);
}

bs_status
bs_bloom_agg_state_new_auto_layout(double fpr, uint32_t layout, uint8_t family, uint64_t seed,
						   const bs_allocator *a, uint8_t **out, bs_error *err)
{
	if (layout > BS_LAYOUT_MAX)
		return bs_fail(err, BS_ERR_PARAM, "unknown bloom filter layout %u", layout);
	return new_exact(fpr, layout == BS_LAYOUT_BLOCKED ? BS_AGG_STATE_BLOCKED : 0,
					 family, seed, a, out, err);
}

bs_status
bs_bloom_agg_state_new_counting(double fpr, uint8_t family, uint64_t seed,
						const bs_allocator *a, uint8_t **out, bs_error *err)
{
	return new_exact(fpr, BS_AGG_STATE_COUNTED, family, seed, a, out, err);
}

bs_status
bs_bloom_agg_state_new_fixed(double capacity, double fpr, uint8_t family, uint64_t seed,
					 const bs_allocator *a, uint8_t **out, bs_error *err)
{
	uint64_t	m;
	uint32_t	k;
	bs_status	st;

	if ((st = bs_bloom_shape_for(capacity, fpr, BS_LAYOUT_CLASSIC, &m, &k, err)) != BS_OK)
		return st;
	return bs_bloom_agg_state_new_fixed_shape(capacity, fpr, BS_LAYOUT_CLASSIC, m, k, family,
									  seed, a, out, err);
}

bs_status
bs_bloom_agg_state_new_fixed_shape(double capacity, double fpr, uint32_t layout, uint64_t m,
						   uint32_t k, uint8_t family, uint64_t seed,
						   const bs_allocator *a, uint8_t **out, bs_error *err)
{
	uint64_t	total;
	uint8_t    *s;
	bs_status	st;

	if ((st = bs_bloom_check_layout_shape(m, k, layout, err)) != BS_OK ||
		(st = bs_bloom_size(m, &total, err)) != BS_OK)
		return st;
	s = a->alloc(a->ctx, (size_t) total);
	write_state_header(s, family, seed, m, k,
					   BS_AGG_STATE_DENSE | BS_AGG_STATE_FIXED |
					   (layout == BS_LAYOUT_BLOCKED ? BS_AGG_STATE_BLOCKED : 0),
					   (uint64_t) capacity, fpr);
	*out = s;
	return BS_OK;
}

bool
bs_bloom_agg_state_same_target(const uint8_t *s, bool fixed, uint64_t capacity, double fpr)
{
	uint32_t	flags = bs_load32(s + BS_OFF_P3);

	if (bs_load64(s + BS_OFF_X) != bs_bits_of_f64(fpr) ||
		((flags & BS_AGG_STATE_FIXED) != 0) != fixed)
		return false;
	/* the state keeps the capacity as the double its sizing used */
	return !fixed || bs_load64(s + BS_OFF_N) == (uint64_t) (double) capacity;
}

/*
 * The slot of non-zero hash h in an exact table with a free slot: where h
 * is, or the empty slot where it goes (*found = false).
 */
static uint64_t
table_slot(const uint8_t *s, uint64_t h, bool *found)
{
	uint64_t	slots = bs_load64(s + BS_OFF_P1);
	uint64_t	mask = slots - 1;
	uint64_t	idx = bs_reduce(h, slots);
	const uint8_t *t = slots_of(s);

	for (;;)
	{
		uint64_t	v = bs_load64(t + idx * 8);

		if (v == h || v == 0)
		{
			*found = v == h;
			return idx;
		}
		idx = (idx + 1) & mask;
	}
}

/* Put a new non-zero hash with its count (ignored unless counting) into a table with room. */
static void
table_put(uint8_t *s, uint64_t h, uint32_t count)
{
	bool		found;
	uint64_t	idx = table_slot(s, h, &found);

	bs_store64(s + BS_HEADER_SIZE + idx * 8, h);
	if (is_counting(s))
		counts_of(s)[idx] = (uint8_t) count;
}

/* Visit every hash an exact state holds, with its count (1 unless counting). */
#define FOR_EACH_ENTRY(s, h, c, body) \
	do { \
		uint64_t	slots_ = bs_load64((s) + BS_OFF_P1), i_; \
		bool		counting_ = is_counting(s); \
		if (bs_load32((s) + BS_OFF_P3) & BS_AGG_STATE_HASZERO) \
		{ uint64_t h = 0; uint32_t c = counting_ ? bs_load32((s) + BS_OFF_P2) : 1; \
		  (void) c; body; } \
		for (i_ = 0; i_ < slots_; i_++) \
		{ \
			uint64_t	h = bs_load64(slots_of(s) + i_ * 8); \
			if (h != 0) \
			{ uint32_t c = counting_ ? counts_of(s)[i_] : 1; (void) c; body; } \
		} \
	} while (0)
#define FOR_EACH_HASH(s, h, body) FOR_EACH_ENTRY(s, h, count_unused_, body)

/* The empty dense state that an exact state s turns into. */
static uint8_t *
new_dense(const uint8_t *s, const bs_allocator *a)
{
	double		fpr = state_fpr(s);
	bool		blocked = is_blocked(s);
	uint32_t	k;
	uint64_t	M;
	uint8_t    *d;

	dense_shape(fpr, blocked, &M, &k);
	d = a->alloc(a->ctx, BS_HEADER_SIZE + bs_bloom_payload_bytes(M));
	write_state_header(d, s[BS_OFF_FAMILY], bs_load64(s + BS_OFF_SEED), M, k,
					   BS_AGG_STATE_DENSE | (blocked ? BS_AGG_STATE_BLOCKED : 0), 0, fpr);
	return d;
}

static uint8_t *
to_dense(const uint8_t *s, const bs_allocator *a)
{
	uint8_t    *d = new_dense(s, a);
	uint64_t	M = bs_load64(d + BS_OFF_P1);
	uint32_t	k = bs_load32(d + BS_OFF_P2);
	bool		blocked = is_blocked(d);

	FOR_EACH_HASH(s, h, add_to_filter(d + BS_HEADER_SIZE, M, k, blocked, h));
	return d;
}

static void dense_add_sorted(uint8_t *bits, uint64_t m, uint32_t k, bool blocked,
							 const uint64_t *h, size_t n, uint64_t *scratch,
							 size_t scratch_words);

/* to_dense, setting the bits of the table's hashes in address order (a batch's scratch). */
static uint8_t *
to_dense_sorted(const uint8_t *s, const bs_allocator *a, uint64_t *scratch, size_t scratch_words)
{
	uint8_t    *d = new_dense(s, a);
	uint64_t	M = bs_load64(d + BS_OFF_P1);
	uint32_t	k = bs_load32(d + BS_OFF_P2);
	bool		blocked = is_blocked(d);
	size_t		chunk = scratch_words / (1 + 2 * (size_t) k),
				n = 0;
	uint64_t   *hs;

	if (chunk == 0)
	{
		FOR_EACH_HASH(s, h, add_to_filter(d + BS_HEADER_SIZE, M, k, blocked, h));
		return d;
	}
	/* chunk hashes gather in the upper part of scratch, their positions sort in the rest */
	hs = scratch + scratch_words - chunk;
	FOR_EACH_HASH(s, h,
				  {
					  hs[n++] = h;
					  if (n == chunk)
					  {
						  dense_add_sorted(d + BS_HEADER_SIZE, M, k, blocked, hs, n,
										   scratch, scratch_words - chunk);
						  n = 0;
					  }
				  });
	dense_add_sorted(d + BS_HEADER_SIZE, M, k, blocked, hs, n, scratch, scratch_words - chunk);
	return d;
}

static uint8_t *
grow(const uint8_t *s, const bs_allocator *a)
{
	uint64_t	slots = bs_load64(s + BS_OFF_P1) * 2;
	uint8_t    *g = a->alloc(a->ctx, BS_HEADER_SIZE + slots * slot_bytes(is_counting(s)));

	memcpy(g, s, BS_HEADER_SIZE);
	bs_store64(g + BS_OFF_P1, slots);
	FOR_EACH_ENTRY(s, h, c, if (h != 0) table_put(g, h, c));
	return g;
}

/* Add hash h count times (count >= 1; only a counting state keeps it). */
static uint8_t *
add_count(uint8_t *s, uint64_t h, uint32_t count, const bs_allocator *a)
{
	uint32_t	flags = bs_load32(s + BS_OFF_P3);
	bool		counting = (flags & BS_AGG_STATE_COUNTED) != 0,
				found = false;
	uint64_t	n,
				idx = 0;

	if (flags & BS_AGG_STATE_DENSE)
	{
		add_to_filter(s + BS_HEADER_SIZE, bs_load64(s + BS_OFF_P1),
					  bs_load32(s + BS_OFF_P2), (flags & BS_AGG_STATE_BLOCKED) != 0, h);
		return s;
	}
	if (h == 0 ? (flags & BS_AGG_STATE_HASZERO) != 0 : (idx = table_slot(s, h, &found), found))
	{
		if (!counting)
			return s;
		if (h == 0)
			bs_store32(s + BS_OFF_P2, sat_count(bs_load32(s + BS_OFF_P2), count));
		else
			counts_of(s)[idx] = (uint8_t) sat_count(counts_of(s)[idx], count);
		return s;
	}

	/* A new distinct hash: make room first. */
	n = bs_load64(s + BS_OFF_N);
	if (n + 1 > BS_AGG_STATE_EXACT_LIMIT)
		return counting ? NULL : add_count(to_dense(s, a), h, count, a);
	if (h != 0 && (n + 1) * 4 > bs_load64(s + BS_OFF_P1) * 3)
		s = grow(s, a);
	if (h == 0)
	{
		bs_store32(s + BS_OFF_P3, flags | BS_AGG_STATE_HASZERO);
		if (counting)
			bs_store32(s + BS_OFF_P2, sat_count(0, count));
	}
	else
		table_put(s, h, sat_count(0, count));
	bs_store64(s + BS_OFF_N, n + 1);
	return s;
}

/* Why a counting state cannot take another distinct hash. */
static bs_status
full_error(bs_error *err)
{
	bs_fail(err, BS_ERR_LIMIT,
			"cbloom_agg without a capacity holds at most %" PRIu64 " distinct values per group",
			BS_AGG_STATE_EXACT_LIMIT);
	bs_error_hint(err, "Pass a capacity for the group: cbloom_agg(x, capacity, fpr).");
	return BS_ERR_LIMIT;
}

bs_status
bs_bloom_agg_state_add(uint8_t **state, uint64_t h, const bs_allocator *a, bs_error *err)
{
	uint8_t    *t = add_count(*state, h, 1, a);

	if (t == NULL)
		return full_error(err);
	*state = t;
	return BS_OK;
}

/* --- batches (bloom_agg_state.h) --- */

#define PREFETCH_AHEAD 8
#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)
#define SORT_BITS (2 * RADIX_BITS)
#define LINE_BYTES 64
#define MIN_BATCH 1024
/* positions sorted at once in the dense phase: 8 MB of them and 8 MB of scratch at most */
#define MAX_DENSE_POSITIONS (UINT64_C(1) << 20)

/* Sort v[0..n) by bits [shift, shift + 22) of each value: LSD radix, two 11-bit digits. */
static void
radix_sort22(uint64_t *v, uint64_t *tmp, size_t n, unsigned shift)
{
	size_t		count[RADIX];
	uint64_t   *src = v,
			   *dst = tmp,
			   *t;
	unsigned	pass;

	for (pass = 0; pass < 2; pass++)
	{
		unsigned	sh = shift + pass * RADIX_BITS;
		size_t		i,
					sum = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i] >> sh) & (RADIX - 1)]++;
		for (i = 0; i < RADIX; i++)
		{
			size_t		c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> sh) & (RADIX - 1)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	/* after an even number of passes the result is back in v */
}

/* Number of significant bits of x (0 for 0). */
static unsigned
bit_length(uint64_t x)
{
	unsigned	b = 0;

	while (x != 0)
	{
		b++;
		x >>= 1;
	}
	return b;
}

/* Positions one dense batch sorts at once: about one per cache line of the filter. */
static uint64_t
dense_positions(uint64_t m)
{
	uint64_t	lines = bs_bloom_payload_bytes(m) / LINE_BYTES;

	if (lines < MIN_BATCH)
		return MIN_BATCH;
	return lines > MAX_DENSE_POSITIONS ? MAX_DENSE_POSITIONS : lines;
}

/*
 * Set the k bits of each of h[0..n) in the filter of m bits, positions sorted
 * in chunks of up to scratch_words / 2 so that bits are set in address order.
 * A blocked filter is not sorted but prefetched.
 */
static void
dense_add_sorted(uint8_t *bits, uint64_t m, uint32_t k, bool blocked, const uint64_t *h,
				 size_t n, uint64_t *scratch, size_t scratch_words)
{
	size_t		chunk = scratch_words / 2 / k,
				i = 0;
	unsigned	len = bit_length(m - 1),
				shift = len > SORT_BITS ? len - SORT_BITS : 0;

	if (blocked)
	{
		/*
		 * One line per key: asking for the line PREFETCH_AHEAD keys early
		 * keeps that many misses in flight.  Sorting the hashes first (they
		 * would then walk the blocks in order) measured no faster for
		 * 1.2 MB to 12 MB filters.
		 */
		for (; i < n; i++)
		{
			if (i + PREFETCH_AHEAD < n)
				bs_prefetch_write(bs_blocked_block(bits, m, h[i + PREFETCH_AHEAD]));
			bs_blocked_add_hash(bits, m, k, h[i]);
		}
		return;
	}
	if (chunk == 0)
	{
		for (; i < n; i++)
			bs_bloom_add_hash(bits, m, k, h[i]);
		return;
	}
	while (i < n)
	{
		size_t		c = n - i < chunk ? n - i : chunk,
					np = 0,
					j;
		uint32_t	p;

		for (j = 0; j < c; j++)
			for (p = 0; p < k; p++)
				scratch[np++] = bs_probe(h[i + j], p, m);
		radix_sort22(scratch, scratch + np, np, shift);
		for (j = 0; j < np; j++)
			bits[scratch[j] >> 3] |= (uint8_t) (1u << (scratch[j] & 7));
		i += c;
	}
}

size_t
bs_bloom_agg_state_batch_hashes(const uint8_t *s)
{
	uint32_t	flags = bs_load32(s + BS_OFF_P3);
	uint64_t	p1 = bs_load64(s + BS_OFF_P1);

	if (flags & BS_AGG_STATE_DENSE)
	{
		/* classic: k positions per hash; blocked: one line per hash */
		uint64_t	per = dense_positions(p1) /
			((flags & BS_AGG_STATE_BLOCKED) ? 1 : bs_load32(s + BS_OFF_P2));

		return per < 64 ? 64 : (size_t) per;
	}
	/* one hash per line of 8-byte slots */
	return p1 / 8 < MIN_BATCH ? MIN_BATCH : (size_t) (p1 / 8);
}

#define BATCH_MIN_TABLE_BYTES (64 * 1024)
#define BATCH_MIN_FILTER_BYTES (2 * 1024 * 1024)
#define BATCH_MIN_BLOCKED_BYTES (256 * 1024)

bool
bs_bloom_agg_state_batches_pay(const uint8_t *s)
{
	uint32_t	flags = bs_load32(s + BS_OFF_P3);

	if (!(flags & BS_AGG_STATE_DENSE))
		return bs_bloom_agg_state_size(s) >= BATCH_MIN_TABLE_BYTES;
	return bs_bloom_agg_state_size(s) >= ((flags & BS_AGG_STATE_BLOCKED) ? BATCH_MIN_BLOCKED_BYTES :
								  BATCH_MIN_FILTER_BYTES);
}

size_t
bs_bloom_agg_state_batch_scratch(const uint8_t *s, size_t n)
{
	uint32_t	flags = bs_load32(s + BS_OFF_P3);
	uint64_t	dense,
				M;
	uint32_t	k;

	if (flags & BS_AGG_STATE_DENSE)
		return (size_t) (2 * dense_positions(bs_load64(s + BS_OFF_P1)));
	/* only a full-sized auto table may turn dense during the batch */
	if ((flags & BS_AGG_STATE_COUNTED) || bs_load64(s + BS_OFF_P1) < BS_AGG_STATE_MAX_SLOTS)
		return n;
	dense_shape(state_fpr(s), (flags & BS_AGG_STATE_BLOCKED) != 0, &M, &k);
	dense = 2 * dense_positions(M);
	return n > dense ? n : (size_t) dense;
}

/* s2 replaced s1 during a batch; give s1 back unless it is the caller's. */
static void
replaced(uint8_t *s1, const uint8_t *caller, const bs_allocator *a)
{
	if (s1 != caller && a->release != NULL)
		a->release(a->ctx, s1);
}

/* Does the exact state s hold hash h? */
static bool
holds(const uint8_t *s, uint64_t h)
{
	bool		found;

	if (h == 0)
		return (bs_load32(s + BS_OFF_P3) & BS_AGG_STATE_HASZERO) != 0;
	(void) table_slot(s, h, &found);
	return found;
}

bs_status
bs_bloom_agg_state_add_batch(uint8_t **state, uint64_t *h, size_t n, uint64_t *scratch,
					 size_t scratch_words, const bs_allocator *a, bs_error *err)
{
	uint8_t    *s = *state;
	const uint8_t *caller = s;
	size_t		i;

	if (!(bs_load32(s + BS_OFF_P3) & BS_AGG_STATE_DENSE) && scratch_words >= n)
		radix_sort22(h, scratch, n, 64 - SORT_BITS);
	for (i = 0; i < n; i++)
	{
		uint8_t    *t;

		/* a new hash for a full auto-sized table: the table turns dense (add_count's rule) */
		if (!(bs_load32(s + BS_OFF_P3) & BS_AGG_STATE_DENSE) && !is_counting(s) &&
			bs_load64(s + BS_OFF_N) >= BS_AGG_STATE_EXACT_LIMIT && !holds(s, h[i]))
		{
			t = to_dense_sorted(s, a, scratch, scratch_words);
			replaced(s, caller, a);
			s = t;
		}
		if (bs_load32(s + BS_OFF_P3) & BS_AGG_STATE_DENSE)
		{
			/* the rest go in sorted by bit position */
			dense_add_sorted(s + BS_HEADER_SIZE, bs_load64(s + BS_OFF_P1),
							 bs_load32(s + BS_OFF_P2), is_blocked(s), h + i, n - i,
							 scratch, scratch_words);
			*state = s;
			return BS_OK;
		}
		t = add_count(s, h[i], 1, a);
		if (t == NULL)
			return full_error(err);
		if (t != s)
			replaced(s, caller, a);
		s = t;
	}
	*state = s;
	return BS_OK;
}

/* "fpr 0.01 (auto-sized, seed 0)" or "fpr 0.01, capacity 100 (959 bits, 7 hashes, seed 0)" */
static const char *
describe_target(const uint8_t *s, char *buf, size_t len)
{
	const char *layout = bs_layout_name(bs_bloom_agg_state_layout(s));

	if (bs_load32(s + BS_OFF_P3) & BS_AGG_STATE_FIXED)
		snprintf(buf, len, "fpr %s, capacity %" PRIu64 " (%s, %" PRIu64 " bits, %u hashes, seed %" PRIu64 ")",
				 bs_num(state_fpr(s)).s, bs_load64(s + BS_OFF_N), layout,
				 bs_load64(s + BS_OFF_P1), bs_load32(s + BS_OFF_P2), bs_load64(s + BS_OFF_SEED));
	else
		snprintf(buf, len, "fpr %s (auto-sized, %s%s, seed %" PRIu64 ")",
				 bs_num(state_fpr(s)).s, layout, is_counting(s) ? ", counting" : "",
				 bs_load64(s + BS_OFF_SEED));
	return buf;
}

bs_status
bs_bloom_agg_state_merge(uint8_t **dstp, const uint8_t *src, const bs_allocator *a,
				 bs_error *err)
{
	uint8_t    *dst = *dstp;
	uint32_t	df = bs_load32(dst + BS_OFF_P3),
				sf = bs_load32(src + BS_OFF_P3);
	uint8_t		family;
	char		d1[128],
				d2[128];

	if (bs_bits_of_f64(state_fpr(dst)) != bs_bits_of_f64(state_fpr(src)) ||
		(df & BS_AGG_STATE_FIXED) != (sf & BS_AGG_STATE_FIXED) ||
		(df & BS_AGG_STATE_COUNTED) != (sf & BS_AGG_STATE_COUNTED) ||
		(df & BS_AGG_STATE_BLOCKED) != (sf & BS_AGG_STATE_BLOCKED) ||
		bs_load64(dst + BS_OFF_SEED) != bs_load64(src + BS_OFF_SEED) ||
		((df & BS_AGG_STATE_FIXED) &&
		 (bs_load64(dst + BS_OFF_P1) != bs_load64(src + BS_OFF_P1) ||
		  bs_load64(dst + BS_OFF_N) != bs_load64(src + BS_OFF_N) ||
		  bs_load32(dst + BS_OFF_P2) != bs_load32(src + BS_OFF_P2))))
		return bs_fail(err, BS_ERR_SHAPE,
					   "cannot merge bloom_agg states with different targets: %s and %s",
					   describe_target(dst, d1, sizeof(d1)),
					   describe_target(src, d2, sizeof(d2)));
	if (!bs_family_compatible(dst[BS_OFF_FAMILY], src[BS_OFF_FAMILY]))
		return bs_fail(err, BS_ERR_FAMILY,
					   "cannot merge a bloom_agg state of %s keys with one of %s keys",
					   bs_family_name(dst[BS_OFF_FAMILY]),
					   bs_family_name(src[BS_OFF_FAMILY]));
	family = bs_family_join(dst[BS_OFF_FAMILY], src[BS_OFF_FAMILY]);

	if (sf & BS_AGG_STATE_DENSE)
	{
		uint64_t	i,
					nbytes;

		if (!(df & BS_AGG_STATE_DENSE))
			dst = to_dense(dst, a);
		nbytes = bs_bloom_payload_bytes(bs_load64(dst + BS_OFF_P1));
		for (i = 0; i < nbytes; i++)
			dst[BS_HEADER_SIZE + i] |= src[BS_HEADER_SIZE + i];
	}
	else
	{
		FOR_EACH_ENTRY(src, h, c,
					   if (dst != NULL) dst = add_count(dst, h, c, a));
		if (dst == NULL)
			return full_error(err);
	}
	dst[BS_OFF_FAMILY] = family;
	*dstp = dst;
	return BS_OK;
}

/*
 * 3-smooth fold factors 2^i 3^j (i <= imax, j <= jmax) in descending order:
 * those dividing BS_FOLD_BASE (10, 6) or BS_BLOCKED_FOLD_BASE (7, 4).
 */
static int
fold_factors(int imax, int jmax, uint64_t *out)
{
	int			n = 0,
				i,
				j;

	for (i = 0; i <= imax; i++)
		for (j = 0; j <= jmax; j++)
		{
			uint64_t	f = UINT64_C(1) << i;
			int			t;

			for (t = 0; t < j; t++)
				f *= 3;
			out[n++] = f;
		}
	/* insertion sort, descending */
	for (i = 1; i < n; i++)
	{
		uint64_t	v = out[i];

		for (j = i - 1; j >= 0 && out[j] < v; j--)
			out[j + 1] = out[j];
		out[j + 1] = v;
	}
	return n;
}

void
bs_bloom_agg_state_result_shape(const uint8_t *s, uint64_t *m, uint32_t *k)
{
	uint32_t	flags = bs_load32(s + BS_OFF_P3);
	double		fpr = state_fpr(s);

	if (flags & BS_AGG_STATE_FIXED)
	{
		*m = bs_load64(s + BS_OFF_P1);
		*k = bs_load32(s + BS_OFF_P2);
	}
	else if (flags & BS_AGG_STATE_DENSE)
	{
		bool		blocked = (flags & BS_AGG_STATE_BLOCKED) != 0;
		uint64_t	M = bs_load64(s + BS_OFF_P1);
		uint32_t	kk = bs_load32(s + BS_OFF_P2);
		uint8_t    *bits = (uint8_t *) s + BS_HEADER_SIZE;
		double		n = bs_layout_cardinality(bs_bloom_agg_state_layout(s), bits, M, kk);
		uint64_t	factors[77];
		int			nf = blocked ? fold_factors(7, 4, factors) : fold_factors(10, 6, factors),
					i;

		*m = M;
		*k = kk;
		for (i = 0; i < nf; i++)
			if (bs_bloom_fpr_layout(bs_bloom_agg_state_layout(s), M / factors[i], n, kk) <= fpr)
			{
				*m = M / factors[i];
				break;
			}
	}
	else
	{
		uint64_t	n = bs_load64(s + BS_OFF_N);
		double		dn = n < 1 ? 1.0 : (double) n;

		/* Cannot fail: n <= BS_AGG_STATE_EXACT_LIMIT and fpr was checked. */
		if (bs_bloom_shape_for(dn, fpr, bs_bloom_agg_state_layout(s), m, k, NULL) != BS_OK)
		{
			*m = BS_BLOCK_BITS;
			*k = 1;
		}
	}
}

void
bs_bloom_agg_state_finish(const uint8_t *s, uint64_t m, uint32_t k, uint8_t *out)
{
	uint32_t	flags = bs_load32(s + BS_OFF_P3);
	bool		blocked = (flags & BS_AGG_STATE_BLOCKED) != 0;

	bs_bloom_init_layout(out, m, k, bs_bloom_agg_state_layout(s), s[BS_OFF_FAMILY], bs_load64(s + BS_OFF_SEED));
	if (flags & BS_AGG_STATE_DENSE)
	{
		uint64_t	M = bs_load64(s + BS_OFF_P1);

		if (M == m)
			memcpy(out + BS_HEADER_SIZE, s + BS_HEADER_SIZE, bs_bloom_payload_bytes(m));
		else
			bs_layout_fold(bs_bloom_agg_state_layout(s), s + BS_HEADER_SIZE, M, M / m, out + BS_HEADER_SIZE);
	}
	else
		FOR_EACH_HASH(s, h, add_to_filter(out + BS_HEADER_SIZE, m, k, blocked, h));
}

void
bs_bloom_agg_state_finish_counting(const uint8_t *s, uint64_t m, uint32_t k,
						   uint32_t bits, uint8_t *out)
{
	bs_cbloom	c;

	bs_cbloom_init(out, m, k, bits, s[BS_OFF_FAMILY], bs_load64(s + BS_OFF_SEED));
	bs_cbloom_view(out, &c);
	FOR_EACH_ENTRY(s, h, n, bs_cbloom_add_hash(&c, h, n));
}

bs_status
bs_bloom_agg_state_check(const bs_header *h, const uint8_t *payload, uint64_t plen,
				 bool deep, bs_error *err)
{
	double		fpr;

	memcpy(&fpr, &h->x, sizeof(fpr));
	if (check_fpr(fpr, err) != BS_OK)
		return BS_ERR_FORMAT;
	if (h->p3 & ~BS_AGG_STATE_FLAGS)
		return bs_fail(err, BS_ERR_FORMAT, "bloom_agg_state has unknown flags 0x%x", h->p3);

	if ((h->p3 & BS_AGG_STATE_COUNTED) && (h->p3 & (BS_AGG_STATE_DENSE | BS_AGG_STATE_FIXED)))
		return bs_fail(err, BS_ERR_FORMAT, "a counting bloom_agg_state must be in its exact phase");
	if ((h->p3 & BS_AGG_STATE_COUNTED) && (h->p3 & BS_AGG_STATE_BLOCKED))
		return bs_fail(err, BS_ERR_FORMAT, "a counting bloom_agg_state cannot be blocked");
	if (h->p3 & BS_AGG_STATE_DENSE)
	{
		bs_header	bh = *h;
		uint32_t	layout = (h->p3 & BS_AGG_STATE_BLOCKED) ? BS_LAYOUT_BLOCKED : BS_LAYOUT_CLASSIC;
		uint64_t	M = 0;
		uint32_t	kk = 0;

		if (h->p3 & BS_AGG_STATE_HASZERO ||
			((h->p3 & BS_AGG_STATE_FIXED) ? h->n < 1 || h->n > (UINT64_C(1) << 53) : h->n != 0))
			return bs_fail(err, BS_ERR_FORMAT, "dense bloom_agg_state has an invalid count %" PRIu64, h->n);
		/*
		 * The shape must be the one the target implies.  The blocked sizing
		 * is a search (hundreds of microseconds), so the quick check, which
		 * every final function runs, leaves it to the deep one: the length
		 * check below already keeps every read inside the value.
		 */
		if (!deep && layout == BS_LAYOUT_BLOCKED)
			;
		else if (h->p3 & BS_AGG_STATE_FIXED)
		{
			uint64_t	m = 0;
			uint32_t	k = 0;

			if (bs_bloom_shape_for((double) h->n, fpr, layout, &m, &k, NULL) != BS_OK ||
				m != h->p1 || k != h->p2)
				return bs_fail(err, BS_ERR_FORMAT,
							   "%s bloom_agg_state of %" PRIu64 " bits and %u hashes does not match its capacity %" PRIu64 " and fpr %s",
							   bs_layout_name(layout), h->p1, h->p2, h->n, bs_num(fpr).s);
		}
		else if (dense_shape(fpr, layout == BS_LAYOUT_BLOCKED, &M, &kk), h->p2 != kk || h->p1 != M)
			return bs_fail(err, BS_ERR_FORMAT,
						   "%s bloom_agg_state of %" PRIu64 " bits and %u hashes does not match its fpr %s",
						   bs_layout_name(layout), h->p1, h->p2, bs_num(fpr).s);
		bh.p3 = layout;
		bh.n = 0;
		bh.x = 0;
		return bs_bloom_check_named(&bh, payload, plen, "dense bloom_agg_state", err);
	}
	else
	{
		uint64_t	slots = h->p1,
					used = 0,
					i;
		bool		counting = (h->p3 & BS_AGG_STATE_COUNTED) != 0;
		uint64_t	width = slot_bytes(counting);

		if (h->p3 & BS_AGG_STATE_FIXED)
			return bs_fail(err, BS_ERR_FORMAT, "bloom_agg_state with a fixed capacity must be dense");
		if (slots < BS_AGG_STATE_MIN_SLOTS || slots > BS_AGG_STATE_MAX_SLOTS ||
			(slots & (slots - 1)) != 0)
			return bs_fail(err, BS_ERR_FORMAT,
						   "bloom_agg_state has an invalid table size %" PRIu64 " (a power of two from %d to %" PRIu64 ")",
						   slots, BS_AGG_STATE_MIN_SLOTS, BS_AGG_STATE_MAX_SLOTS);
		if (counting && ((h->p3 & BS_AGG_STATE_HASZERO) != 0) != (h->p2 != 0))
			return bs_fail(err, BS_ERR_FORMAT,
						   "counting bloom_agg_state has a zero-hash count of %u %s the zero hash",
						   h->p2, h->p2 != 0 ? "without" : "with");
		if (counting && h->p2 > BS_AGG_STATE_MAX_COUNT)
			return bs_fail(err, BS_ERR_FORMAT,
						   "counting bloom_agg_state has a zero-hash count of %u, more than %d",
						   h->p2, BS_AGG_STATE_MAX_COUNT);
		if (!counting && h->p2 != 0)
			return bs_fail(err, BS_ERR_FORMAT,
						   "bloom_agg_state in its exact phase must have a hash count of 0, has %u", h->p2);
		if (plen != slots * width)
			return bs_fail(err, BS_ERR_FORMAT,
						   "bloom_agg_state of %" PRIu64 " slots must have %" PRIu64 " payload bytes, has %" PRIu64,
						   slots, slots * width, plen);
		if (h->n > BS_AGG_STATE_EXACT_LIMIT)
			return bs_fail(err, BS_ERR_FORMAT,
						   "bloom_agg_state counts %" PRIu64 " hashes, more than the exact phase holds (%" PRIu64 ")",
						   h->n, BS_AGG_STATE_EXACT_LIMIT);
		if (!deep)
			return BS_OK;
		for (i = 0; i < slots; i++)
		{
			uint64_t	hv = bs_load64(payload + i * 8),
						j;
			bool		full = hv != 0;

			used += full;
			/*
			 * Each hash once, where a lookup finds it: linear probing from
			 * its home slot must reach it without an empty slot or a copy.
			 */
			for (j = full ? bs_reduce(hv, slots) : i; j != i; j = (j + 1) & (slots - 1))
			{
				uint64_t	o = bs_load64(payload + j * 8);

				if (o == 0 || o == hv)
					return bs_fail(err, BS_ERR_FORMAT,
								   "bloom_agg_state's slot %" PRIu64 " holds a hash %s",
								   i, o == 0 ? "a lookup cannot reach" : "that is also in another slot");
			}
			if (counting && full != (payload[slots * 8 + i] != 0))
				return bs_fail(err, BS_ERR_FORMAT,
							   "counting bloom_agg_state's slot %" PRIu64 " has %s",
							   i, full ? "a hash with a count of 0" : "a count but no hash");
		}
		if (used * 4 > slots * 3)
			return bs_fail(err, BS_ERR_FORMAT,
						   "bloom_agg_state's table of %" PRIu64 " slots is more than 3/4 full (%" PRIu64 " hashes)",
						   slots, used);
		if (used + ((h->p3 & BS_AGG_STATE_HASZERO) != 0) != h->n)
			return bs_fail(err, BS_ERR_FORMAT,
						   "bloom_agg_state counts %" PRIu64 " hashes but its table holds %" PRIu64 "%s",
						   h->n, used, (h->p3 & BS_AGG_STATE_HASZERO) ? " and the zero hash" : "");
	}
	return BS_OK;
}
