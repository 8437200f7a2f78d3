#include "bloom_agg_state.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bloom.h"
#include "cbloom.h"
#include "endian.h"
#include "hash.h"

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* The keys the dense phase is sized for. */
#define DENSE_CAPACITY ((double) BS_AGG_STATE_EXACT_LIMIT * BS_AGG_STATE_DENSE_FACTOR)

/*
 * The layout a state's flags say, and the flag that says a layout (none
 * for classic): the only place that knows how a state stores its layout.
 */
static inline uint32_t
layout_of_flags(uint32_t flags)
{
	return (flags & BS_AGG_STATE_BLOCKED) ? BS_LAYOUT_BLOCKED : BS_LAYOUT_CLASSIC;
}

static inline uint32_t
layout_flag(uint32_t layout)
{
	return layout == BS_LAYOUT_BLOCKED ? BS_AGG_STATE_BLOCKED : 0;
}

/*
 * A state's header, decoded (bloom_agg_state.h says what each field holds).
 * Only view_of reads the header, and only write_header and the set_*
 * functions write it; those keep the caller's view in step, so that a loop
 * adding many hashes decodes its state once.
 */
typedef struct agg_state_view
{
	uint32_t	flags;			/* p3, BS_AGG_STATE_*, and what they say: */
	bool		dense,
				fixed,
				haszero,
				counting,
				packed;
	uint32_t	layout;			/* of the filter the state makes */
	uint64_t	size;			/* p1: table slots (exact), hashes listed
								 * (packed) or bits (dense) */
	uint32_t	k;				/* p2 when dense: hashes */
	uint32_t	zero_count;		/* p2 when counting: the zero hash's count */
	uint64_t	n;				/* hashes held (exact phase): n, or p2 when fixed */
	uint64_t	capacity;		/* n when fixed */
	double		fpr;			/* x: the target rate */
	uint64_t	seed;
	uint8_t		family;
} agg_state_view;

static inline void
view_flags(agg_state_view *v, uint32_t flags)
{
	v->flags = flags;
	v->dense = (flags & BS_AGG_STATE_DENSE) != 0;
	v->fixed = (flags & BS_AGG_STATE_FIXED) != 0;
	v->haszero = (flags & BS_AGG_STATE_HASZERO) != 0;
	v->counting = (flags & BS_AGG_STATE_COUNTED) != 0;
	v->packed = (flags & BS_AGG_STATE_PACKED) != 0;
	v->layout = layout_of_flags(flags);
}

static inline agg_state_view
view_of(const uint8_t *s)
{
	agg_state_view v;

	view_flags(&v, bs_load32(s + BS_OFF_P3));
	v.size = bs_load64(s + BS_OFF_P1);
	v.k = v.zero_count = bs_load32(s + BS_OFF_P2);
	v.n = bs_load64(s + BS_OFF_N);
	v.capacity = 0;
	if (v.fixed)
	{
		v.capacity = v.n;
		v.n = v.dense ? 0 : v.k;
	}
	v.fpr = bs_f64_from_bits(bs_load64(s + BS_OFF_X));
	v.seed = bs_load64(s + BS_OFF_SEED);
	v.family = s[BS_OFF_FAMILY];
	return v;
}

static void
write_header(uint8_t *s, uint8_t family, uint64_t seed, uint64_t p1,
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

/* The header of an exact state like v's, but of p1, flags and hashes held. */
static void
write_exact_header(uint8_t *s, const agg_state_view *v, uint64_t p1, uint32_t flags,
				   uint64_t held)
{
	if (v->fixed)
		write_header(s, v->family, v->seed, p1, (uint32_t) held, flags, v->capacity, v->fpr);
	else
		write_header(s, v->family, v->seed, p1, v->zero_count, flags, held, v->fpr);
}

static inline void
set_zero_count(uint8_t *s, agg_state_view *v, uint32_t count)
{
	v->k = v->zero_count = count;
	bs_store32(s + BS_OFF_P2, count);
}

static inline void
set_flags(uint8_t *s, agg_state_view *v, uint32_t flags)
{
	view_flags(v, flags);
	bs_store32(s + BS_OFF_P3, flags);
}

static inline void
set_n(uint8_t *s, agg_state_view *v, uint64_t n)
{
	v->n = n;
	if (v->fixed)
		bs_store32(s + BS_OFF_P2, (uint32_t) n);
	else
		bs_store64(s + BS_OFF_N, n);
}

static inline void
set_family(uint8_t *s, agg_state_view *v, uint8_t family)
{
	v->family = family;
	s[BS_OFF_FAMILY] = family;
}

static const uint8_t *
slots_of(const uint8_t *s)
{
	return s + BS_HEADER_SIZE;
}

/* The one-byte counts of a counting exact state, after its hashes. */
static uint8_t *
counts_of(const uint8_t *s, uint64_t slots)
{
	return (uint8_t *) s + BS_HEADER_SIZE + slots * 8;
}

bool
bs_bloom_agg_state_is_packed(const uint8_t *s)
{
	return view_of(s).packed;
}

bool
bs_bloom_agg_state_is_counting(const uint8_t *s)
{
	return view_of(s).counting;
}

uint32_t
bs_bloom_agg_state_layout(const uint8_t *s)
{
	return view_of(s).layout;
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

/* A packed state's size is its hashes listed: the payload is the table's without empty slots. */
static size_t
state_size(const agg_state_view *v)
{
	if (v->dense)
		return BS_HEADER_SIZE + bs_bloom_payload_bytes(v->size);
	return BS_HEADER_SIZE + v->size * slot_bytes(v->counting);
}

size_t
bs_bloom_agg_state_size(const uint8_t *s)
{
	agg_state_view v = view_of(s);

	return state_size(&v);
}

uint32_t
bs_bloom_agg_state_dense_hashes(double fpr)
{
	return bs_bloom_foldable_hashes(fpr);
}

uint64_t
bs_bloom_agg_state_dense_bits(double fpr, uint32_t k)
{
	return bs_bloom_foldable_bits(DENSE_CAPACITY, fpr, k);
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

static bs_status
new_exact(double fpr, uint32_t flags, uint8_t family, uint64_t seed,
		  const bs_allocator *a, uint8_t **out, bs_error *err)
{
	uint8_t    *s;

	if (check_fpr(fpr, err) != BS_OK)
		return BS_ERR_PARAM;
	s = a->alloc(a->ctx, BS_HEADER_SIZE +
				 BS_AGG_STATE_MIN_SLOTS * slot_bytes((flags & BS_AGG_STATE_COUNTED) != 0));
	write_header(s, family, seed, BS_AGG_STATE_MIN_SLOTS, 0, flags, 0, fpr);
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
	return new_exact(fpr, layout_flag(layout), family, seed, a, out, err);
}

bs_status
bs_bloom_agg_state_new_counting(double fpr, uint8_t family, uint64_t seed,
						const bs_allocator *a, uint8_t **out, bs_error *err)
{
	return new_exact(fpr, BS_AGG_STATE_COUNTED, family, seed, a, out, err);
}

/*
 * The most slots the exact table of a fixed state may have: the largest
 * power of two whose 8-byte slots fit in the payload of the classic filter
 * of (capacity, fpr), so that the exact phase never takes more memory than
 * the filter would (a blocked filter is a little larger still).  0 when not
 * even the least table fits: such a state is dense from the start.  One
 * log(), so cheap enough for each time a table grows and for the quick check.
 */
static uint64_t
fixed_exact_slots(uint64_t capacity, double fpr)
{
	uint64_t	m,
				slots = BS_AGG_STATE_MIN_SLOTS;

	if (bs_bloom_optimal_bits((double) capacity, fpr, &m, NULL) != BS_OK ||
		bs_bloom_payload_bytes(m) < slots * 8)
		return 0;
	while (slots < BS_AGG_STATE_MAX_SLOTS && slots * 16 <= bs_bloom_payload_bytes(m))
		slots *= 2;
	return slots;
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
	if (fixed_exact_slots((uint64_t) capacity, fpr) != 0)
	{
		/* the exact phase first: hashes held 0 in p2, the capacity in n */
		s = a->alloc(a->ctx, BS_HEADER_SIZE + BS_AGG_STATE_MIN_SLOTS * 8);
		write_header(s, family, seed, BS_AGG_STATE_MIN_SLOTS, 0,
					 BS_AGG_STATE_FIXED | layout_flag(layout), (uint64_t) capacity, fpr);
		*out = s;
		return BS_OK;
	}
	s = a->alloc(a->ctx, (size_t) total);
	write_header(s, family, seed, m, k,
				 BS_AGG_STATE_DENSE | BS_AGG_STATE_FIXED | layout_flag(layout),
				 (uint64_t) capacity, fpr);
	*out = s;
	return BS_OK;
}

static bool
view_same_target(const agg_state_view *v, bool fixed, uint64_t capacity, double fpr)
{
	if (bs_bits_of_f64(v->fpr) != bs_bits_of_f64(fpr) || v->fixed != fixed)
		return false;
	/* the state keeps the capacity as the double its sizing used */
	return !fixed || v->capacity == (uint64_t) (double) capacity;
}

bool
bs_bloom_agg_state_same_target(const uint8_t *s, bool fixed, uint64_t capacity, double fpr)
{
	agg_state_view v = view_of(s);

	return view_same_target(&v, fixed, capacity, fpr);
}

bool
bs_bloom_agg_state_fits(const uint8_t *s, bool fixed, uint64_t capacity, double fpr,
						bool counting, uint32_t layout)
{
	agg_state_view v = view_of(s);

	return view_same_target(&v, fixed, capacity, fpr) && v.counting == counting &&
		v.layout == layout;
}

/*
 * The slot of non-zero hash h in an exact table of that many slots with a
 * free slot: where h is, or the empty slot where it goes (*found = false).
 */
static uint64_t
table_slot(const uint8_t *s, uint64_t slots, uint64_t h, bool *found)
{
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
table_put(uint8_t *s, uint64_t slots, bool counting, uint64_t h, uint32_t count)
{
	bool		found;
	uint64_t	idx = table_slot(s, slots, h, &found);

	bs_store64(s + BS_HEADER_SIZE + idx * 8, h);
	if (counting)
		counts_of(s, slots)[idx] = (uint8_t) count;
}

/*
 * Visit every hash an exact state (view v) holds, with its count (1 unless
 * counting): a table's non-empty slots, or a packed state's list (whose
 * hashes are never 0).
 */
#define FOR_EACH_ENTRY(s, v, h, c, body) \
	do { \
		uint64_t	slots_ = (v).size, i_; \
		bool		counting_ = (v).counting; \
		if ((v).haszero) \
		{ uint64_t h = 0; uint32_t c = counting_ ? (v).zero_count : 1; \
		  (void) c; body; } \
		for (i_ = 0; i_ < slots_; i_++) \
		{ \
			uint64_t	h = bs_load64(slots_of(s) + i_ * 8); \
			if (h != 0) \
			{ uint32_t c = counting_ ? counts_of(s, slots_)[i_] : 1; (void) c; body; } \
		} \
	} while (0)
#define FOR_EACH_HASH(s, v, h, body) FOR_EACH_ENTRY(s, v, h, count_unused_, body)

/*
 * Hashes on their way into a dense state's filter, gathered SINK_HASHES at
 * a time for bs_layout_add_batch (which asks for each hash's lines a few
 * hashes early), or one by one into a filter too small for batches to pay.
 * The bits are the same either way.
 */
#define SINK_HASHES 1024

typedef struct dense_sink
{
	uint32_t	layout;
	uint8_t    *bits;
	uint64_t	m;
	uint32_t	k;
	bool		batched;
	size_t		n;
	uint64_t	hs[SINK_HASHES];
} dense_sink;

static void
sink_init(dense_sink *sk, uint8_t *d)
{
	agg_state_view v = view_of(d);

	sk->layout = v.layout;
	sk->bits = d + BS_HEADER_SIZE;
	sk->m = v.size;
	sk->k = v.k;
	sk->batched = state_size(&v) >= bs_layout_batch_min_bytes(v.layout);
	sk->n = 0;
}

static void
sink_flush(dense_sink *sk)
{
	bs_layout_add_batch(sk->layout, sk->bits, sk->m, sk->k, sk->hs, sk->n);
	sk->n = 0;
}

static inline void
sink_put(dense_sink *sk, uint64_t h)
{
	if (!sk->batched)
	{
		bs_layout_add(sk->layout, sk->bits, sk->m, sk->k, h);
		return;
	}
	sk->hs[sk->n++] = h;
	if (sk->n == SINK_HASHES)
		sink_flush(sk);
}

/*
 * The dense state that the exact state s turns into, or NULL (*st, err set) when
 * a fixed state's capacity has no filter (only a crafted state's: the
 * aggregate sized it before its first row).
 */
static uint8_t *
to_dense(const uint8_t *s, const bs_allocator *a, bs_status *st, bs_error *err)
{
	agg_state_view e = view_of(s);
	uint64_t	M;
	uint32_t	k;
	uint8_t    *d;
	dense_sink	sink;

	if (!e.fixed)
		bs_layout_foldable_shape(e.layout, DENSE_CAPACITY, e.fpr, &M, &k);
	else if ((*st = bs_bloom_shape_for((double) e.capacity, e.fpr, e.layout, &M, &k, err)) != BS_OK)
		return NULL;
	d = a->alloc(a->ctx, BS_HEADER_SIZE + bs_bloom_payload_bytes(M));
	write_header(d, e.family, e.seed, M, k,
				 BS_AGG_STATE_DENSE | (e.flags & BS_AGG_STATE_FIXED) | layout_flag(e.layout),
				 e.capacity, e.fpr);
	sink_init(&sink, d);
	FOR_EACH_HASH(s, e, h, sink_put(&sink, h));
	sink_flush(&sink);
	return d;
}

/* The exact state s in a table of twice the slots. */
static uint8_t *
grow(const uint8_t *s, const bs_allocator *a)
{
	agg_state_view e = view_of(s);
	uint64_t	slots = e.size * 2;
	uint8_t    *g = a->alloc(a->ctx, BS_HEADER_SIZE + slots * slot_bytes(e.counting));

	/* s's header but for the slots: a valid state's other bytes are those write_header gives */
	write_exact_header(g, &e, slots, e.flags, e.n);
	FOR_EACH_ENTRY(s, e, h, c, if (h != 0) table_put(g, slots, e.counting, h, c));
	return g;
}

/* --- the packed form (bloom_agg_state.h) --- */

size_t
bs_bloom_agg_state_packed_size(const uint8_t *s)
{
	agg_state_view v = view_of(s);

	if (v.dense || v.packed)
		return state_size(&v);
	return BS_HEADER_SIZE + (v.n - v.haszero) * slot_bytes(v.counting);
}

/* Hash i of a list (and its count, counting) moves to position j. */
static inline void
list_move(uint8_t *hs, uint8_t *cs, uint64_t i, uint64_t j)
{
	bs_store64(hs + j * 8, bs_load64(hs + i * 8));
	if (cs)
		cs[j] = cs[i];
}

void
bs_bloom_agg_state_pack(const uint8_t *s, uint8_t *out)
{
	agg_state_view v = view_of(s);
	uint64_t	slots = v.size,
				cnt,
				e,
				i,
				w = 0;
	int			pass;
	uint8_t    *hs,
			   *cs;

	if (v.dense || v.packed)
	{
		memcpy(out, s, state_size(&v));
		return;
	}
	cnt = v.n - v.haszero;
	write_exact_header(out, &v, cnt, v.flags | BS_AGG_STATE_PACKED, v.n);
	hs = out + BS_HEADER_SIZE;
	cs = v.counting ? hs + cnt * 8 : NULL;

	/*
	 * Collect the hashes in the order of their home slots, but for the
	 * order within probe runs.  A table at most 3/4 full has an empty slot
	 * e, and no run crosses it: the slots before e hold hashes whose home
	 * is there too, and hashes that wrapped around from the table's end
	 * (home past their slot); the slots after e hold hashes at home there.
	 */
	for (e = 0; e < slots && bs_load64(slots_of(s) + e * 8) != 0; e++)
		;
	for (pass = 0; pass < 3; pass++)
	{
		uint64_t	from = pass == 1 ? e + 1 : 0,
					to = pass == 1 ? slots : e;

		for (i = from; i < to; i++)
		{
			uint64_t	h = bs_load64(slots_of(s) + i * 8);

			if (h == 0 || w == cnt || (pass != 1 && (bs_reduce(h, slots) > i) != (pass == 2)))
				continue;
			bs_store64(hs + w * 8, h);
			if (cs)
				cs[w] = counts_of(s, slots)[i];
			w++;
		}
	}

	/*
	 * Then sort by insertion: only hashes within a run are out of order, so
	 * this takes a few moves per hash.
	 */
	for (i = 1; i < w; i++)
	{
		uint64_t	h = bs_load64(hs + i * 8),
					j = i;
		uint8_t		c = cs ? cs[i] : 0;

		while (j > 0 && bs_load64(hs + (j - 1) * 8) > h)
		{
			list_move(hs, cs, j - 1, j);
			j--;
		}
		if (j != i)
		{
			bs_store64(hs + j * 8, h);
			if (cs)
				cs[j] = c;
		}
	}
}

uint8_t *
bs_bloom_agg_state_unpack(const uint8_t *s, const bs_allocator *a)
{
	agg_state_view v = view_of(s);
	uint64_t	slots = BS_AGG_STATE_MIN_SLOTS,
				i;
	uint8_t    *t;

	/* the table that adding the hashes one by one grows to */
	while (v.size * 4 > slots * 3)
		slots *= 2;
	t = a->alloc(a->ctx, BS_HEADER_SIZE + slots * slot_bytes(v.counting));
	write_exact_header(t, &v, slots, v.flags & ~BS_AGG_STATE_PACKED, v.n);
	/* in ascending order, so in the order of their home slots: one pass over the table */
	for (i = 0; i < v.size; i++)
		table_put(t, slots, v.counting, bs_load64(slots_of(s) + i * 8),
				  v.counting ? counts_of(s, v.size)[i] : 1);
	return t;
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

/*
 * Does a new distinct hash turn the exact state v dense?  Past the exact
 * phase's limit, or, fixed, when its table would outgrow the filter
 * (fixed_exact_slots).
 */
static inline bool
turns_dense(const agg_state_view *v, uint64_t h)
{
	if (v->n + 1 > BS_AGG_STATE_EXACT_LIMIT)
		return true;
	return v->fixed && h != 0 && (v->n + 1) * 4 > v->size * 3 &&
		v->size * 2 > fixed_exact_slots(v->capacity, v->fpr);
}

/*
 * Add hash h count times (count >= 1; only a counting state keeps it) to s,
 * which *v describes; returns s or the state it grew into, which *v then
 * describes, or NULL (*st and err set) when a counting state is full or a
 * fixed one has no filter.  Always in line: the view of a row's or a
 * batch's state then stays in registers.
 */
static ALWAYS_INLINE uint8_t *
add_count(uint8_t *s, agg_state_view *v, uint64_t h, uint32_t count, const bs_allocator *a,
		  bs_status *st, bs_error *err)
{
	bool		found = false;
	uint64_t	idx = 0;

	if (v->dense)
	{
		bs_layout_add(v->layout, s + BS_HEADER_SIZE, v->size, v->k, h);
		return s;
	}
	if (h == 0 ? v->haszero : (idx = table_slot(s, v->size, h, &found), found))
	{
		if (!v->counting)
			return s;
		if (h == 0)
			set_zero_count(s, v, sat_count(v->zero_count, count));
		else
			counts_of(s, v->size)[idx] = (uint8_t) sat_count(counts_of(s, v->size)[idx], count);
		return s;
	}

	/* A new distinct hash: make room first. */
	if (turns_dense(v, h))
	{
		if (v->counting)
		{
			*st = full_error(err);
			return NULL;
		}
		if ((s = to_dense(s, a, st, err)) == NULL)
			return NULL;
		*v = view_of(s);
		bs_layout_add(v->layout, s + BS_HEADER_SIZE, v->size, v->k, h);
		return s;
	}
	if (h != 0 && (v->n + 1) * 4 > v->size * 3)
	{
		s = grow(s, a);
		*v = view_of(s);
	}
	if (h == 0)
	{
		set_flags(s, v, v->flags | BS_AGG_STATE_HASZERO);
		if (v->counting)
			set_zero_count(s, v, sat_count(0, count));
	}
	else
		table_put(s, v->size, v->counting, h, sat_count(0, count));
	set_n(s, v, v->n + 1);
	return s;
}

/* s replaced by s2 during a call; give s back unless it is the caller's. */
static void
replaced(uint8_t *s, const uint8_t *caller, const bs_allocator *a)
{
	if (s != caller && a->release != NULL)
		a->release(a->ctx, s);
}

bs_status
bs_bloom_agg_state_add(uint8_t **state, uint64_t h, const bs_allocator *a, bs_error *err)
{
	agg_state_view v = view_of(*state);
	uint8_t    *s = *state,
			   *t;
	bs_status	st = BS_OK;

	if (v.packed)
	{
		s = bs_bloom_agg_state_unpack(s, a);
		v = view_of(s);
	}
	t = add_count(s, &v, h, 1, a, &st, err);
	if (t != s)
		replaced(s, *state, a);
	if (t == NULL)
		return st;
	*state = t;
	return BS_OK;
}

/* --- batches (bloom_agg_state.h) --- */

#define MIN_EXACT_BATCH 256
#define SMALL_TABLE_SLOTS (UINT64_C(1) << 17)
#define GROUP_TABLE_SLOTS (UINT64_C(1) << 14)
/*
 * Hashes of a dense batch: its lines are prefetched, not sorted, so the
 * size only spreads the call over enough hashes (32 kB of them).
 */
#define DENSE_BATCH 4096

size_t
bs_bloom_agg_state_batch_hashes(const uint8_t *s)
{
	agg_state_view v = view_of(s);
	uint64_t	per;

	if (v.dense)
		return DENSE_BATCH;
	/*
	 * One hash per line of 8-byte slots; in tables of up to 1 MB, of which a
	 * GROUP BY keeps one per group, each with its batch, one per two lines,
	 * and one per eight up to 128 kB: a group of 10,000 values keeps a batch
	 * of 2 kB beside its 128 kB table.  Tables of fewer than 1,024 slots
	 * take a quarter of their slots (a group of 50 values, 32 hashes).
	 */
	per = v.size / (v.size > SMALL_TABLE_SLOTS ? 8 : v.size > GROUP_TABLE_SLOTS ? 16 : 64);
	if (per < MIN_EXACT_BATCH)
		per = v.size / 4 < MIN_EXACT_BATCH ? v.size / 4 : MIN_EXACT_BATCH;
	return (size_t) per;
}

#define BATCH_MIN_TABLE_BYTES 1024

bool
bs_bloom_agg_state_batches_pay(const uint8_t *s)
{
	agg_state_view v = view_of(s);

	return state_size(&v) >= (v.dense ? bs_layout_batch_min_bytes(v.layout) :
							  BATCH_MIN_TABLE_BYTES);
}

size_t
bs_bloom_agg_state_batch_scratch(const uint8_t *s, size_t n)
{
	/* an exact batch sorts its hashes; a dense one needs none */
	return view_of(s).dense ? 0 : n;
}

bs_status
bs_bloom_agg_state_add_batch(uint8_t **state, uint64_t *h, size_t n, uint64_t *scratch,
					 size_t scratch_words, const bs_allocator *a, bs_error *err)
{
	uint8_t    *s = *state;
	const uint8_t *caller = s;
	agg_state_view v = view_of(s);
	size_t		i;
	bs_status	st = BS_OK;

	if (v.packed)
	{
		s = bs_bloom_agg_state_unpack(s, a);
		v = view_of(s);
	}

	/*
	 * Sorted, a batch fills the table in address order; but sorted hashes
	 * arrive position by position, so a batch large for its table would
	 * pile its first hashes into the table's first part (one long probe
	 * run, quadratic): such a batch goes in as it comes.
	 */
	if (!v.dense && scratch_words >= n && n <= v.size / 4)
		bs_radix_sort22(h, scratch, n, 64 - BS_RADIX_SORT_BITS);
	for (i = 0; i < n; i++)
	{
		uint8_t    *t;

		if (v.dense)
		{
			/*
			 * The rest go in as a batch of the layout (prefetched), or one by
			 * one into a filter too small for batches to pay (a fixed state
			 * that was a batched table until it turned dense).
			 */
			if (state_size(&v) >= bs_layout_batch_min_bytes(v.layout))
				bs_layout_add_batch(v.layout, s + BS_HEADER_SIZE, v.size, v.k, h + i, n - i);
			else
				for (; i < n; i++)
					bs_layout_add(v.layout, s + BS_HEADER_SIZE, v.size, v.k, h[i]);
			*state = s;
			return BS_OK;
		}
		t = add_count(s, &v, h[i], 1, a, &st, err);
		if (t != s)
			replaced(s, caller, a);
		if (t == NULL)
			return st;
		s = t;
	}
	*state = s;
	return BS_OK;
}

/*
 * "fpr 0.01 (auto-sized, seed 0)", "fpr 0.01, capacity 100 (959 bits, 7
 * hashes, seed 0)" or, before a fixed state turns dense, "fpr 0.01, capacity
 * 100000 (classic, seed 0)"
 */
static const char *
describe_target(const agg_state_view *v, char *buf, size_t len)
{
	const char *layout = bs_layout_name(v->layout);

	if (v->fixed && v->dense)
		snprintf(buf, len, "fpr %s, capacity %" PRIu64 " (%s, %" PRIu64 " bits, %u hashes, seed %" PRIu64 ")",
				 bs_num(v->fpr).s, v->capacity, layout, v->size, v->k, v->seed);
	else if (v->fixed)
		snprintf(buf, len, "fpr %s, capacity %" PRIu64 " (%s, seed %" PRIu64 ")",
				 bs_num(v->fpr).s, v->capacity, layout, v->seed);
	else
		snprintf(buf, len, "fpr %s (auto-sized, %s%s, seed %" PRIu64 ")",
				 bs_num(v->fpr).s, layout, v->counting ? ", counting" : "", v->seed);
	return buf;
}

/*
 * Add hash h count c to *dst (view *dv) for a merge into the caller's
 * state; false (*st, err set) when it cannot (add_count).  A table it
 * outgrew goes back to the allocator unless it is the caller's.
 */
static bool
merge_one(uint8_t **dst, agg_state_view *dv, const uint8_t *caller, uint64_t h, uint32_t c,
		  const bs_allocator *a, bs_status *st, bs_error *err)
{
	uint8_t    *t = add_count(*dst, dv, h, c, a, st, err);

	if (t != *dst)
		replaced(*dst, caller, a);
	if (t == NULL)
		return false;
	*dst = t;
	return true;
}

/* Source slots between the merge's early read of a slot and its add. */
#define MERGE_AHEAD 8

/* The error of a merge of states with different targets. */
static bs_status
target_error(const agg_state_view *dv, const agg_state_view *sv, bs_error *err)
{
	char		d1[128],
				d2[128];

	return bs_fail(err, BS_ERR_SHAPE,
				   "cannot merge bloom_agg states with different targets: %s and %s",
				   describe_target(dv, d1, sizeof(d1)), describe_target(sv, d2, sizeof(d2)));
}

bs_status
bs_bloom_agg_state_merge(uint8_t **dstp, const uint8_t *src, const bs_allocator *a,
						 bs_error *err)
{
	uint8_t    *dst = *dstp;
	agg_state_view dv = view_of(dst),
				sv = view_of(src);
	uint8_t		family;
	bs_status	st = BS_OK;

	/* a fixed state's shape is its capacity's; dense, it is in the header too */
	if (bs_bits_of_f64(dv.fpr) != bs_bits_of_f64(sv.fpr) ||
		dv.fixed != sv.fixed || dv.counting != sv.counting || dv.layout != sv.layout ||
		dv.seed != sv.seed || dv.capacity != sv.capacity ||
		(dv.dense && sv.dense && (dv.size != sv.size || dv.k != sv.k)))
		return target_error(&dv, &sv, err);
	if (!bs_family_compatible(dv.family, sv.family))
		return bs_fail(err, BS_ERR_FAMILY,
					   "cannot merge a bloom_agg state of %s keys with one of %s keys",
					   bs_family_name(dv.family), bs_family_name(sv.family));
	family = bs_family_join(dv.family, sv.family);

	if (sv.dense)
	{
		if (!dv.dense)
		{
			uint8_t    *d = to_dense(dst, a, &st, err);

			if (d == NULL)
				return st;
			/* a blocked shape is checked deeply only: compare before reading src */
			if (view_of(d).size != sv.size || view_of(d).k != sv.k)
			{
				agg_state_view xv = view_of(d);

				target_error(&xv, &sv, err);
				replaced(d, *dstp, a);
				return BS_ERR_SHAPE;
			}
			dst = d;
			dv = view_of(dst);
		}
		bs_or_bytes(dst + BS_HEADER_SIZE, src + BS_HEADER_SIZE, bs_bloom_payload_bytes(dv.size));
	}
	else
	{
		/*
		 * src's slots (or list) in a scattered order (an odd stride over a
		 * power of two visits each index once): in order its hashes would
		 * come sorted by position and pile into one part of dst's table,
		 * which has room for them only spread over all of it (two exact
		 * states of 700,000 took 8 s, not 0.1).  Once dst is dense, the
		 * rest go in through a dense_sink: one by one, each hash's k lines
		 * of a 20 MB filter were k cache misses in a row (74% of a merge of
		 * two states of 700,000 hashes, 0.4 s).
		 */
		uint64_t	span = 1,
					step,
					i,
					j,
					pi,
					qi;
		dense_sink	sink;

		while (span < sv.size)
			span *= 2;
		step = (span * 5 / 8) | 1;
		if (dv.packed)
		{
			dst = bs_bloom_agg_state_unpack(dst, a);
			dv = view_of(dst);
		}
		if (sv.haszero && !merge_one(&dst, &dv, *dstp, 0, sv.counting ? sv.zero_count : 1, a,
									 &st, err))
			return st;

		/*
		 * Both tables are past the caches and the order is scattered: the
		 * slot 2 MERGE_AHEAD steps on is asked for, and the home slot in dst
		 * of the hash MERGE_AHEAD steps on (a counting merge of two states
		 * of 960,000 hashes took 97-139 ms, 35-47 so; one that does not
		 * count, 20-24 ms either way).
		 */
		pi = (MERGE_AHEAD * step) & (span - 1);
		qi = (2 * MERGE_AHEAD * step) & (span - 1);
		for (j = 0, i = 0; j < span && !dv.dense; j++, i = (i + step) & (span - 1),
			 pi = (pi + step) & (span - 1), qi = (qi + step) & (span - 1))
		{
			uint64_t	h = i < sv.size ? bs_load64(slots_of(src) + i * 8) : 0;

			if (qi < sv.size)
			{
				bs_prefetch_read(slots_of(src) + qi * 8);
				if (sv.counting)
					bs_prefetch_read(counts_of(src, sv.size) + qi);
			}
			if (pi < sv.size)
			{
				uint64_t	ph = bs_load64(slots_of(src) + pi * 8),
							home = bs_reduce(ph, dv.size);

				bs_prefetch_write(dst + BS_HEADER_SIZE + home * 8);
				if (dv.counting)
					bs_prefetch_write(counts_of(dst, dv.size) + home);
			}
			if (h != 0 && !merge_one(&dst, &dv, *dstp, h,
									 sv.counting ? counts_of(src, sv.size)[i] : 1, a, &st, err))
				return st;
		}
		if (dv.dense)
		{
			/* the rest of src, in the same order (the bits do not depend on it) */
			sink_init(&sink, dst);
			for (; j < span; j++, i = (i + step) & (span - 1))
				if (i < sv.size)
				{
					uint64_t	h = bs_load64(slots_of(src) + i * 8);

					if (h != 0)
						sink_put(&sink, h);
				}
			sink_flush(&sink);
		}
	}
	set_family(dst, &dv, family);
	*dstp = dst;
	return BS_OK;
}

/*
 * 3-smooth fold factors 2^i 3^j (i <= imax, j <= jmax) in descending order:
 * those dividing a layout's fold base (bs_layout_fold_base).
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

bool
bs_bloom_agg_state_fixed_exact(const uint8_t *s, uint64_t *capacity, double *fpr,
								uint32_t *layout)
{
	agg_state_view v = view_of(s);

	*capacity = v.capacity;
	*fpr = v.fpr;
	*layout = v.layout;
	return v.fixed && !v.dense;
}

bs_status
bs_bloom_agg_state_result_shape(const uint8_t *s, uint64_t *m, uint32_t *k, bs_error *err)
{
	agg_state_view v = view_of(s);

	if (v.fixed && v.dense)
	{
		*m = v.size;
		*k = v.k;
	}
	else if (v.fixed)
		return bs_bloom_shape_for((double) v.capacity, v.fpr, v.layout, m, k, err);
	else if (v.dense)
	{
		double		n = bs_layout_cardinality(v.layout, s + BS_HEADER_SIZE, v.size, v.k);
		uint64_t	factors[BS_LAYOUT_MAX_FOLD_FACTORS];
		int			twos,
					threes,
					nf,
					i;

		bs_layout_fold_base(v.layout, &twos, &threes);
		nf = fold_factors(twos, threes, factors);
		*m = v.size;
		*k = v.k;
		for (i = 0; i < nf; i++)
			if (bs_bloom_fpr_layout(v.layout, v.size / factors[i], n, v.k) <= v.fpr)
			{
				*m = v.size / factors[i];
				break;
			}
	}
	else
	{
		double		dn = v.n < 1 ? 1.0 : (double) v.n;

		/* Cannot fail: n <= BS_AGG_STATE_EXACT_LIMIT and fpr was checked. */
		if (bs_bloom_shape_for(dn, v.fpr, v.layout, m, k, NULL) != BS_OK)
		{
			*m = BS_BLOCK_BITS;
			*k = 1;
		}
	}
	return BS_OK;
}

void
bs_bloom_agg_state_finish(const uint8_t *s, uint64_t m, uint32_t k, uint8_t *out)
{
	agg_state_view v = view_of(s);

	bs_bloom_init_layout(out, m, k, v.layout, v.family, v.seed);
	if (v.dense)
	{
		if (v.size == m)
			memcpy(out + BS_HEADER_SIZE, s + BS_HEADER_SIZE, bs_bloom_payload_bytes(m));
		else
			bs_layout_fold(v.layout, s + BS_HEADER_SIZE, v.size, v.size / m, out + BS_HEADER_SIZE);
	}
	else
		FOR_EACH_HASH(s, v, h, bs_layout_add(v.layout, out + BS_HEADER_SIZE, m, k, h));
}

void
bs_bloom_agg_state_finish_counting(const uint8_t *s, uint64_t m, uint32_t k,
						   uint32_t bits, uint8_t *out)
{
	agg_state_view v = view_of(s);
	bs_cbloom	c;

	uint64_t	hs[SINK_HASHES];
	uint32_t	counts[SINK_HASHES];
	size_t		got = 0;

	bs_cbloom_init(out, m, k, bits, v.family, v.seed);
	bs_cbloom_view(out, &c);
	FOR_EACH_ENTRY(s, v, h, n,
				   {
					   hs[got] = h;
					   counts[got++] = n;
					   if (got == SINK_HASHES)
					   {
						   bs_cbloom_add_prefetched(&c, hs, counts, got);
						   got = 0;
					   }
				   });
	bs_cbloom_add_prefetched(&c, hs, counts, got);
}

bs_status
bs_bloom_agg_state_check(const bs_header *h, const uint8_t *payload, uint64_t plen,
				 bool deep, bs_error *err)
{
	uint32_t	layout = layout_of_flags(h->p3);
	double		fpr;

	memcpy(&fpr, &h->x, sizeof(fpr));
	if (check_fpr(fpr, err) != BS_OK)
		return BS_ERR_FORMAT;
	if (h->p3 & ~BS_AGG_STATE_FLAGS)
		return bs_fail(err, BS_ERR_FORMAT, "bloom_agg_state has unknown flags 0x%x", h->p3);

	if ((h->p3 & BS_AGG_STATE_COUNTED) && (h->p3 & BS_AGG_STATE_DENSE))
		return bs_fail(err, BS_ERR_FORMAT, "a counting bloom_agg_state must be in its exact phase");
	if ((h->p3 & BS_AGG_STATE_COUNTED) && (h->p3 & BS_AGG_STATE_FIXED))
		return bs_fail(err, BS_ERR_FORMAT, "a counting bloom_agg_state cannot have a fixed capacity");
	/* cbloom_agg makes classic filters only */
	if ((h->p3 & BS_AGG_STATE_COUNTED) && layout != BS_LAYOUT_CLASSIC)
		return bs_fail(err, BS_ERR_FORMAT, "a counting bloom_agg_state cannot be %s",
					   bs_layout_name(layout));
	if (h->p3 & BS_AGG_STATE_DENSE)
	{
		bs_header	bh = *h;
		uint64_t	M = 0;
		uint32_t	kk = 0;

		if (h->p3 & BS_AGG_STATE_PACKED)
			return bs_fail(err, BS_ERR_FORMAT, "a dense bloom_agg_state cannot be packed");
		if (h->p3 & BS_AGG_STATE_HASZERO ||
			((h->p3 & BS_AGG_STATE_FIXED) ? h->n < 1 || h->n > (UINT64_C(1) << 53) : h->n != 0))
			return bs_fail(err, BS_ERR_FORMAT, "dense bloom_agg_state has an invalid count %" PRIu64, h->n);
		/*
		 * The shape must be the one the target implies.  Where the sizing is
		 * a search (hundreds of microseconds), the quick check, which every
		 * final function runs, leaves it to the deep one: the length check
		 * below already keeps every read inside the value.
		 */
		if (!deep && bs_layout_sizing_is_search(layout))
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
		else if (bs_layout_foldable_shape(layout, DENSE_CAPACITY, fpr, &M, &kk),
				 h->p2 != kk || h->p1 != M)
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
		bool		counting = (h->p3 & BS_AGG_STATE_COUNTED) != 0,
					packed = (h->p3 & BS_AGG_STATE_PACKED) != 0,
					haszero = (h->p3 & BS_AGG_STATE_HASZERO) != 0,
					fixed = (h->p3 & BS_AGG_STATE_FIXED) != 0;
		uint64_t	width = slot_bytes(counting);
		/* hashes held: n, or p2 of a fixed state, whose n is its capacity */
		uint64_t	held = fixed ? h->p2 : h->n;

		if (fixed)
		{
			uint64_t	most,
						m;
			uint32_t	k;

			if (h->n < 1 || h->n > (UINT64_C(1) << 53))
				return bs_fail(err, BS_ERR_FORMAT,
							   "bloom_agg_state has an invalid capacity %" PRIu64, h->n);
			most = fixed_exact_slots(h->n, fpr);
			/* the filter it turns into must exist (a blocked sizing is a search: deep only) */
			if ((deep || !bs_layout_sizing_is_search(layout)) &&
				bs_bloom_shape_for((double) h->n, fpr, layout, &m, &k, NULL) != BS_OK)
				return bs_fail(err, BS_ERR_FORMAT,
							   "bloom_agg_state of capacity %" PRIu64 " and fpr %s has no %s filter",
							   h->n, bs_num(fpr).s, bs_layout_name(layout));
			if (most == 0)
				return bs_fail(err, BS_ERR_FORMAT,
							   "bloom_agg_state of capacity %" PRIu64 " and fpr %s must be dense: its filter is smaller than the least table",
							   h->n, bs_num(fpr).s);
			if (packed ? slots * 4 > most * 3 : slots > most)
				return bs_fail(err, BS_ERR_FORMAT,
							   "bloom_agg_state of capacity %" PRIu64 " and fpr %s %s %" PRIu64 " %s, more than its table of at most %" PRIu64 " slots takes",
							   h->n, bs_num(fpr).s, packed ? "lists" : "has", slots,
							   packed ? "hashes" : "slots", most);
		}
		if (packed && (slots > BS_AGG_STATE_EXACT_LIMIT || slots + haszero != held))
			return bs_fail(err, BS_ERR_FORMAT,
						   "packed bloom_agg_state lists %" PRIu64 " hashes but counts %" PRIu64 "%s",
						   slots, held, haszero ? " with the zero hash" : "");
		if (packed)
			;
		else if (slots < BS_AGG_STATE_MIN_SLOTS || slots > BS_AGG_STATE_MAX_SLOTS ||
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
		if (!counting && !fixed && h->p2 != 0)
			return bs_fail(err, BS_ERR_FORMAT,
						   "bloom_agg_state in its exact phase must have a hash count of 0, has %u", h->p2);
		if (plen != slots * width)
			return bs_fail(err, BS_ERR_FORMAT,
						   "bloom_agg_state of %" PRIu64 " %s must have %" PRIu64 " payload bytes, has %" PRIu64,
						   slots, packed ? "hashes" : "slots", slots * width, plen);
		if (held > BS_AGG_STATE_EXACT_LIMIT)
			return bs_fail(err, BS_ERR_FORMAT,
						   "bloom_agg_state counts %" PRIu64 " hashes, more than the exact phase holds (%" PRIu64 ")",
						   held, BS_AGG_STATE_EXACT_LIMIT);
		if (!deep)
			return BS_OK;
		/* packed: each hash once, none 0, in ascending order, each counted */
		for (i = 0; packed && i < slots; i++)
		{
			uint64_t	hv = bs_load64(payload + i * 8);

			if (hv == 0 || (i > 0 && hv <= bs_load64(payload + (i - 1) * 8)))
				return bs_fail(err, BS_ERR_FORMAT,
							   "packed bloom_agg_state's hash %" PRIu64 " is %s",
							   i, hv == 0 ? "0 (the zero hash is a flag)" :
							   "not greater than the one before it");
			if (counting && payload[slots * 8 + i] == 0)
				return bs_fail(err, BS_ERR_FORMAT,
							   "packed counting bloom_agg_state's hash %" PRIu64 " has a count of 0", i);
		}
		if (packed)
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
		if (used + haszero != held)
			return bs_fail(err, BS_ERR_FORMAT,
						   "bloom_agg_state counts %" PRIu64 " hashes but its table holds %" PRIu64 "%s",
						   held, used, haszero ? " and the zero hash" : "");
	}
	return BS_OK;
}
