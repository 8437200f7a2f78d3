/*
 * fuzz_bloom_agg_state.c: a bloom_agg_state from outside (bloom_agg_state_in or
 * _recv, e.g. the initcond of a user's aggregate over bloom_agg_trans, or a
 * state shipped between nodes), then what the SQL functions do with it.
 *
 * The input is the state's bytes; every form is reachable: exact, counting
 * (cbloom_agg), either of them packed (flag 0x20, a sorted list), fixed (bloom_agg(x, capacity, fpr)) and dense (auto-sized
 * past the exact limit: at least 93,360 bytes, so run with -max_len of at
 * least that, 98304 by default), each classic or blocked (flag 0x10,
 * bloom_agg(x, [capacity,] fpr, 'blocked'); a dense auto-sized blocked state
 * has at least 663,552 bytes, past -max_len, so only its exact and fixed
 * forms are reached).  When bs_validate(deep) accepts them:
 *   - bloom_agg_final: bs_bloom_agg_state_result_shape, bs_bloom_size, finish; the
 *     filter is valid, of the state's layout, and holds every hash the state
 *     holds (bs_bloom_contains, which follows the layout);
 *   - cbloom_agg_final (counting states): finish_counting at 4-bit counters;
 *     valid, and every held hash counts at least its count (or saturates);
 *   - bloom_agg_trans / cbloom_agg_trans: bs_bloom_agg_state_same_target, then adds
 *     (the zero hash, a held hash, new ones); the state stays valid and its
 *     filter holds them;
 *   - bloom_agg_combine: with a copy of itself, and with a valid state of
 *     the same target (both orders; equal final filters), and the refusals
 *     of another target, layout (blocked and classic states do not merge)
 *     or family;
 *   - every state and filter made goes through its text form and bs_validate.
 *
 * Three properties are checked only for states whose hash table is well
 * formed (each hash reachable from its home slot, none there twice): that
 * the states made from it pass bs_validate, that merges keep every held
 * count, and order independence (bloom_agg_state.h: every order and split gives the
 * same final filter, byte for byte).  The deep check does not demand a
 * well-formed table, and a state from outside that has a hash twice or out
 * of place breaks all three (finding 1 in README.md).  Build with
 * -DFZ_STRICT to check them for every accepted state (it then fails on that
 * finding's input).
 */
#include "fuzz_common.h"

#define MAX_HELD 32

typedef struct held
{
	uint64_t	hash;
	uint32_t	count;
} held;

static double
fpr_of(const bs_header *h)
{
	double		d;

	memcpy(&d, &h->x, sizeof(d));
	return d;
}

/* Up to MAX_HELD of the hashes an exact state holds, with their counts. */
static int
held_hashes(const uint8_t *s, held *out)
{
	bs_header	h;
	uint64_t	i;
	int			n = 0;
	bool		counting;

	bs_header_read(s, &h);
	if (h.p3 & BS_AGG_STATE_DENSE)
		return 0;
	counting = (h.p3 & BS_AGG_STATE_COUNTED) != 0;
	if (h.p3 & BS_AGG_STATE_HASZERO)
	{
		out[n].hash = 0;
		out[n++].count = counting ? h.p2 : 1;
	}
	for (i = 0; i < h.p1 && n < MAX_HELD; i++)
	{
		uint64_t	v = bs_load64(s + BS_HEADER_SIZE + i * 8);

		if (v != 0)
		{
			out[n].hash = v;
			out[n++].count = counting ? s[BS_HEADER_SIZE + h.p1 * 8 + i] : 1;
		}
	}
	return n;
}

/*
 * Is every hash of an exact table where a lookup finds it, and no hash there
 * twice?  A packed list that validated is ascending, so it has none twice.
 */
static bool
table_well_formed(const uint8_t *s)
{
	bs_header	h;
	uint64_t	i;

	bs_header_read(s, &h);
	if (h.p3 & (BS_AGG_STATE_DENSE | BS_AGG_STATE_PACKED))
		return true;
	for (i = 0; i < h.p1; i++)
	{
		uint64_t	v = bs_load64(s + BS_HEADER_SIZE + i * 8),
					j;

		if (v == 0)
			continue;
		for (j = bs_reduce(v, h.p1); j != i; j = (j + 1) & (h.p1 - 1))
		{
			uint64_t	w = bs_load64(s + BS_HEADER_SIZE + j * 8);

			if (w == 0 || w == v)
				return false;
		}
	}
	return true;
}

/*
 * Is the input's table well formed (or FZ_STRICT)?  Only then are the
 * states made from it required to pass bs_validate: from a state whose
 * table is not, adds and merges can make a state with a count above what
 * its table holds (README.md, "Findings").  They are made and used all the
 * same, so any memory error on the way is still caught.
 */
static bool table_ok;

static void
check_state(const uint8_t *s, const char *what)
{
	size_t		len = bs_bloom_agg_state_size(s);
	bs_error	err;

	FZ_CHECK(len <= FZ_ALLOC_LIMIT, "%s: state of %zu bytes", what, len);
	if (!table_ok)
	{
		fz_roundtrip_bytes(s, len, what);
		return;
	}
	FZ_CHECK(bs_validate(s, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK,
			 "%s: the state the core made is rejected: %s", what, err.msg);
	fz_roundtrip(s, len, BS_KIND_BLOOM_AGG_STATE, what);
}

/* bloom_agg_final: the filter of a state (valid, exact length). */
static uint8_t *
finish_bloom(const uint8_t *s, size_t *len, const char *what)
{
	uint64_t	m,
				total;
	uint32_t	k;
	bs_error	err;
	uint8_t    *out;
	bs_bloom	b;

	FZ_CHECK(bs_bloom_agg_state_result_shape(s, &m, &k, &err) == BS_OK,
			 "%s: a validated state has no result shape: %s", what, err.msg);
	FZ_CHECK(bs_bloom_check_layout_shape(m, k, bs_bloom_agg_state_layout(s), &err) == BS_OK &&
			 bs_bloom_size(m, &total, &err) == BS_OK,
			 "%s: %s result shape %" PRIu64 " bits, %u hashes: %s", what,
			 bs_layout_name(bs_bloom_agg_state_layout(s)), m, k, err.msg);
	out = fz_alloc(NULL, (size_t) total);
	bs_bloom_agg_state_finish(s, m, k, out);
	*len = (size_t) total;
	fz_roundtrip(out, *len, BS_KIND_BLOOM, what);
	/* what warn_if_overfull computes */
	bs_bloom_view(out, &b);
	FZ_CHECK(b.layout == bs_bloom_agg_state_layout(s), "%s: a %s state made a %s filter", what,
			 bs_layout_name(bs_bloom_agg_state_layout(s)), bs_layout_name(b.layout));
	(void) bs_bloom_fpr_of(&b);
	(void) bs_bloom_cardinality_of(&b);
	return out;
}

static void
bloom_has(const uint8_t *filter, const uint64_t *hashes, int n, const char *what)
{
	bs_bloom	b;
	int			i;

	bs_bloom_view((uint8_t *) filter, &b);
	for (i = 0; i < n; i++)
		FZ_CHECK(bs_bloom_contains(&b, hashes[i]),
				 "%s: hash %016" PRIx64 " held by the state is not in its %s filter", what, hashes[i],
				 bs_layout_name(b.layout));
}

static void
bloom_has_held(const uint8_t *filter, const held *hs, int n, const char *what)
{
	int			i;

	for (i = 0; i < n; i++)
		bloom_has(filter, &hs[i].hash, 1, what);
}

/* cbloom_agg_final: the counting filter of a counting state. */
static uint8_t *
finish_cbloom(const uint8_t *s, size_t *len, const char *what)
{
	uint64_t	m,
				total;
	uint32_t	k;
	bs_error	err;
	uint8_t    *out;

	(void) bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
	FZ_CHECK(bs_cbloom_size(m, BS_CBLOOM_DEFAULT_BITS, &total, &err) == BS_OK &&
			 bs_cbloom_check_shape(m, k, BS_CBLOOM_DEFAULT_BITS, &err) == BS_OK,
			 "%s: counting result shape %" PRIu64 " counters, %u hashes: %s", what, m, k, err.msg);
	out = fz_alloc(NULL, (size_t) total);
	bs_bloom_agg_state_finish_counting(s, m, k, BS_CBLOOM_DEFAULT_BITS, out);
	*len = (size_t) total;
	fz_roundtrip(out, *len, BS_KIND_CBLOOM, what);
	return out;
}

static void
cbloom_counts_held(const uint8_t *filter, const held *hs, int n, const char *what)
{
	bs_cbloom	c;
	int			i;

	bs_cbloom_view((uint8_t *) filter, &c);
	for (i = 0; i < n; i++)
	{
		uint32_t	got = bs_cbloom_count_hash(&c, hs[i].hash),
					want = hs[i].count < c.max ? hs[i].count : c.max;

		FZ_CHECK(bs_cbloom_contains_hash(&c, hs[i].hash) && got >= want,
				 "%s: hash %016" PRIx64 " held %u times counts %u", what, hs[i].hash, hs[i].count, got);
	}
}

/* A valid empty state of the same target as h (family and seed as given). */
static uint8_t *
same_target(const bs_header *h, uint8_t family)
{
	double		fpr = fpr_of(h);
	uint32_t	layout = (h->p3 & BS_AGG_STATE_BLOCKED) ? BS_LAYOUT_BLOCKED : BS_LAYOUT_CLASSIC;
	uint8_t    *s = NULL;
	bs_error	err;
	bs_status	st;

	if (h->p3 & BS_AGG_STATE_FIXED)
	{
		bs_header	c;
		uint64_t	m = 0;
		uint32_t	k = 0;

		st = bs_bloom_shape_for((double) h->n, fpr, layout, &m, &k, &err);
		if (st == BS_OK)
			st = bs_bloom_agg_state_new_fixed_shape((double) h->n, fpr, layout, m, k, family, h->seed,
											&fz_allocator, &s, &err);
		FZ_CHECK(st == BS_OK, "new fixed %s state of capacity %" PRIu64 ", fpr %g: %s",
				 bs_layout_name(layout), h->n, fpr, err.msg);
		bs_header_read(s, &c);
		/* a new state is exact while its table fits in the filter; dense, it has the shape */
		FZ_CHECK((c.p3 & BS_AGG_STATE_DENSE) ? c.p1 == m && c.p2 == k : c.p1 == BS_AGG_STATE_MIN_SLOTS && c.p2 == 0,
				 "bs_bloom_agg_state_new_fixed(%" PRIu64 ", %g) of %" PRIu64 " bits, %u hashes makes p1 %" PRIu64 ", p2 %u",
				 h->n, fpr, m, k, c.p1, c.p2);
		FZ_CHECK(!(h->p3 & BS_AGG_STATE_DENSE) || (h->p1 == m && h->p2 == k),
				 "a dense fixed state of capacity %" PRIu64 " at %g accepted with %" PRIu64 " bits, %u hashes, not %" PRIu64 " and %u",
				 h->n, fpr, h->p1, h->p2, m, k);
		/*
		 * The capacity goes through a double: above 2^53 the state stores
		 * another capacity than the one asked for (finding 3 in README.md).
		 */
#ifdef FZ_STRICT
		FZ_CHECK(c.n == h->n, "bs_bloom_agg_state_new_fixed(capacity %" PRIu64 ") stores capacity %" PRIu64, h->n, c.n);
#else
		bs_store64(s + BS_OFF_N, h->n);
#endif
	}
	else if (h->p3 & BS_AGG_STATE_COUNTED)
		st = bs_bloom_agg_state_new_counting(fpr, family, h->seed, &fz_allocator, &s, &err);
	else
		st = bs_bloom_agg_state_new_auto_layout(fpr, layout, family, h->seed, &fz_allocator, &s, &err);
	FZ_CHECK(st != BS_OK || bs_bloom_agg_state_layout(s) == ((h->p3 & BS_AGG_STATE_COUNTED) ? BS_LAYOUT_CLASSIC : layout),
			 "a new state of a %s target is %s", bs_layout_name(layout), bs_layout_name(bs_bloom_agg_state_layout(s)));
	FZ_CHECK(st == BS_OK, "new state at fpr %g: %s", fpr, err.msg);
	return s;
}

static uint8_t *
add_ok(uint8_t *s, uint64_t hash, const char *what)
{
	uint8_t    *t = s;
	bs_status	st = bs_bloom_agg_state_add(&t, hash, &fz_allocator, NULL);

	FZ_CHECK(st == BS_OK, "%s: a state with room refused a hash", what);
	return t;
}

static uint8_t *
merge_ok(const uint8_t *dst, const uint8_t *src, const char *what)
{
	bs_error	err;
	uint8_t    *r = fz_dup(dst, bs_bloom_agg_state_size(dst));
	bs_status	st = bs_bloom_agg_state_merge(&r, src, &fz_allocator, &err);

	FZ_CHECK(st == BS_OK, "%s: merge of states of one target failed (%d): %s",
			 what, (int) st, st != BS_OK ? err.msg : "");
	check_state(r, what);
	return r;
}

static void
merge_refused(const uint8_t *dst, const uint8_t *src, bs_status want, const char *what)
{
	size_t		len = bs_bloom_agg_state_size(dst);
	uint8_t    *d = fz_dup(dst, len);
	bs_error	err;
	uint8_t    *r = d;
	bs_status	st = bs_bloom_agg_state_merge(&r, src, &fz_allocator, &err);

	FZ_CHECK(st != BS_OK && r == d, "%s: merge of states of different targets succeeded", what);
	fz_check_error(st, want, &err, what);
	FZ_CHECK(memcmp(d, dst, len) == 0, "%s: a refused merge changed its destination", what);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bs_header	h;
	bs_error	err;
	fz_rng		r;
	held		hs[MAX_HELD];
	int			nheld,
				i;
	bool		counting,
				fixed;
	uint8_t    *s,
			   *f0,
			   *f1,
			   *c,
			   *m1,
			   *m2,
			   *m3;
	size_t		f0len,
				f1len,
				f2len,
				f3len;
	uint64_t	added[6],
				cadded[4];
	double		fpr;

	if (bs_validate(data, size, BS_KIND_BLOOM_AGG_STATE, true, &h, &err) != BS_OK)
		return 0;
	r = fz_rng_for(data, size);
	FZ_CHECK(bs_bloom_agg_state_size(data) == size, "state accepted at %zu bytes, its header says %zu",
			 size, bs_bloom_agg_state_size(data));
	counting = (h.p3 & BS_AGG_STATE_COUNTED) != 0;
	fixed = (h.p3 & BS_AGG_STATE_FIXED) != 0;
	fpr = fpr_of(&h);
	FZ_CHECK(bs_bloom_agg_state_is_counting(data) == counting, "is_counting disagrees with the flags");
	nheld = held_hashes(data, hs);
	table_ok = table_well_formed(data);
#ifdef FZ_STRICT
	table_ok = true;
#endif

	/* bloom_agg_final and cbloom_agg_final of the state as it came */
	f0 = finish_bloom(data, &f0len, "final filter");
	bloom_has_held(f0, hs, nheld, "final filter");
	if (counting)
	{
		uint8_t    *cf = finish_cbloom(data, &f1len, "final counting filter");

		cbloom_counts_held(cf, hs, nheld, "final counting filter");
	}

	/* bloom_agg_trans: the same parameters, then adds */
	FZ_CHECK(bs_bloom_agg_state_same_target(data, fixed, fixed ? h.n : 0, fpr),
			 "a state is not of its own target");
	FZ_CHECK(!bs_bloom_agg_state_same_target(data, !fixed, h.n, fpr), "a state is of the other target kind too");
	s = fz_dup(data, size);
	for (i = 0; i < 6; i++)
	{
		added[i] = i == 0 ? 0 : (i == 1 && nheld > 0) ? hs[nheld - 1].hash : fz_next(&r);
		s = add_ok(s, added[i], "add");
	}
	check_state(s, "after adds");
	f1 = finish_bloom(s, &f1len, "final filter after adds");
	bloom_has(f1, added, 6, "final filter after adds");
	bloom_has_held(f1, hs, nheld, "final filter after adds");
	if (counting)
	{
		held		ah[6];
		uint8_t    *cf;

		for (i = 0; i < 6; i++)
		{
			ah[i].hash = added[i];
			ah[i].count = 1;
		}
		cf = finish_cbloom(s, &f2len, "final counting filter after adds");
		cbloom_counts_held(cf, ah, 6, "final counting filter after adds");
	}

	/* bloom_agg_combine with itself: a union of sets changes nothing */
	m1 = merge_ok(data, data, "merge with itself");
	if (!counting && table_ok)
	{
		uint8_t    *f = finish_bloom(m1, &f2len, "final filter of the merge with itself");

		FZ_CHECK(f2len == f0len && memcmp(f, f0, f0len) == 0,
				 "merging a state with itself changed its final filter");
	}
	if (counting)
	{
		uint8_t    *cf = finish_cbloom(m1, &f2len, "counting filter of the merge with itself");

		/* a hash held twice can lose a count when the table grows (finding 1) */
		if (table_ok)
			cbloom_counts_held(cf, hs, nheld, "counting filter of the merge with itself");
	}

	/* with a valid state of the same target, both orders */
	c = same_target(&h, (fz_next(&r) & 1) ? h.family : BS_FAMILY_NONE);
	for (i = 0; i < 4; i++)
	{
		cadded[i] = i == 0 && nheld > 0 ? hs[0].hash : fz_next(&r);
		c = add_ok(c, cadded[i], "add to the other state");
	}
	m2 = merge_ok(data, c, "merge with a state of its target");
	m3 = merge_ok(c, data, "merge into a state of its target");
	f0 = finish_bloom(m2, &f2len, "final filter of a merge");
	f1 = finish_bloom(m3, &f3len, "final filter of the reverse merge");
	bloom_has(f0, cadded, 4, "final filter of a merge");
	bloom_has(f1, cadded, 4, "final filter of the reverse merge");
	bloom_has_held(f0, hs, nheld, "final filter of a merge");
	bloom_has_held(f1, hs, nheld, "final filter of the reverse merge");
	if (table_ok)
		FZ_CHECK(f2len == f3len && memcmp(f0, f1, f2len) == 0,
				 "merges in the two orders give different final filters (%zu and %zu bytes)", f2len, f3len);
	if (counting)
	{
		size_t		l2,
					l3;
		uint8_t    *c2 = finish_cbloom(m2, &l2, "counting filter of a merge"),
				   *c3 = finish_cbloom(m3, &l3, "counting filter of the reverse merge");

		if (table_ok)
		{
			cbloom_counts_held(c2, hs, nheld, "counting filter of a merge");
			cbloom_counts_held(c3, hs, nheld, "counting filter of the reverse merge");
			FZ_CHECK(l2 == l3 && memcmp(c2, c3, l2) == 0,
					 "merges in the two orders give different counting filters");
		}
	}

	/* the refusals: another rate, another kind of target, another family */
	{
		bs_header	o = h;
		double		ofpr = fpr == 0.25 ? 0.125 : 0.25;
		uint8_t    *other;

		if (fixed)
			o.p3 = 0;			/* an auto-sized state at the same rate */
		else
			memcpy(&o.x, &ofpr, sizeof(ofpr));
		other = same_target(&o, h.family);
		merge_refused(data, other, BS_ERR_SHAPE, "merge with another target");
		merge_refused(other, data, BS_ERR_SHAPE, "merge into another target");
		o = h;
		o.p3 ^= BS_AGG_STATE_COUNTED;
		if (!fixed)
		{
			other = same_target(&o, h.family);
			merge_refused(data, other, BS_ERR_SHAPE, "merge of counting and plain states");
		}
		if (h.family != BS_FAMILY_NONE)
		{
			other = same_target(&h, fz_other_family(h.family));
			merge_refused(data, other, BS_ERR_FAMILY, "merge with a state of another family");
		}
		/* the same target in the other layout (a counting state has none) */
		if (!counting)
		{
			o = h;
			o.p3 ^= BS_AGG_STATE_BLOCKED;
			if (fixed)
			{
				/* the fixed shape of the other layout */
				uint64_t	om = 0;
				uint32_t	ok = 0;

				FZ_CHECK(bs_bloom_shape_for((double) h.n, fpr, (o.p3 & BS_AGG_STATE_BLOCKED) ? BS_LAYOUT_BLOCKED : BS_LAYOUT_CLASSIC,
											&om, &ok, &err) == BS_OK,
						 "the other layout's shape for capacity %" PRIu64 " at %g: %s", h.n, fpr, err.msg);
				o.p1 = om;
				o.p2 = ok;
			}
			other = same_target(&o, h.family);
			merge_refused(data, other, BS_ERR_SHAPE, "merge with a state of the other layout");
			merge_refused(other, data, BS_ERR_SHAPE, "merge into a state of the other layout");
		}
	}

	fz_reset();
	return 0;
}
