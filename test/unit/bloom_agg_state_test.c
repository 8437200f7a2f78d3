/*
 * bloom_agg_state_test.c: the bloom_agg transition state of src/core/bloom_agg_state.c:
 * order- and split-independence, the auto-sizing rule (exact phase, then a
 * dense filter folded at the end), fixed states, merge errors and the state
 * check.
 *
 * Memory: every state and result comes from a calloc-backed unit_arena that is
 * emptied after each part; states replaced while adding are freed at once.
 * The dense phase at p = 0.01 holds a ~20 MB filter; the peak is ~80 MB.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/bloom.h"
#include "core/bloom_agg_state.h"
#include "core/cbloom.h"
#include "core/endian.h"
#include "core/format.h"
#include "unit.h"


/* Free one buffer early (a state that bs_bloom_agg_state_add replaced). */
static void
arena_drop(unit_arena *a, void *p)
{
	size_t		i;

	for (i = a->n; i > 0; i--)
		if (a->ptr[i - 1] == p)
		{
			free(p);
			a->ptr[i - 1] = a->ptr[--a->n];
			return;
		}
}

static unit_arena the_arena;
static const bs_allocator alloc = {unit_arena_alloc, &the_arena, NULL};

/* ---- helpers ---- */


static void
shuffle(uint64_t *h, size_t n, unit_rng *r)
{
	size_t		i;

	for (i = n; i > 1; i--)
	{
		size_t		j = (size_t) unit_below(r, i);
		uint64_t	t = h[i - 1];

		h[i - 1] = h[j];
		h[j] = t;
	}
}

static uint8_t *
new_auto(double fpr, uint8_t family)
{
	uint8_t    *s;
	bs_error	err;

	if (bs_bloom_agg_state_new_auto(fpr, family, 0, &alloc, &s, &err) != BS_OK)
	{
		fprintf(stderr, "bs_bloom_agg_state_new_auto: %s\n", err.msg);
		exit(2);
	}
	return s;
}

static uint8_t *
add_all(uint8_t *s, const uint64_t *h, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		uint8_t    *t = s;

		(void) bs_bloom_agg_state_add(&t, h[i], &alloc, NULL);
		if (t != s)
			arena_drop(&the_arena, s);	/* grown or turned dense: the old state is dead */
		s = t;
	}
	return s;
}

static uint32_t flags_of(const uint8_t *s);

/* A fixed state turned dense: random hashes added until its table outgrows its filter. */
static uint8_t *
fixed_dense(double capacity, double fpr)
{
	static unit_rng r = {4242};
	uint8_t    *s;

	if (bs_bloom_agg_state_new_fixed(capacity, fpr, BS_FAMILY_INTEGER, 0, &alloc, &s, NULL) != BS_OK)
		exit(2);
	while (!(flags_of(s) & BS_AGG_STATE_DENSE))
		s = add_all(s, (uint64_t[]) {unit_next(&r)}, 1);
	return s;
}

static uint8_t *
copy_state(const uint8_t *s)
{
	size_t		len = bs_bloom_agg_state_size(s);
	uint8_t    *c = unit_arena_alloc(&the_arena, len);

	memcpy(c, s, len);
	return c;
}

/* The final filter of a state; *len is its byte length. */
static uint8_t *
finish(const uint8_t *s, size_t *len)
{
	uint64_t	m,
				total;
	uint32_t	k;
	uint8_t    *out;

	bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
	if (bs_bloom_size(m, &total, NULL) != BS_OK)
	{
		fprintf(stderr, "bad result shape %" PRIu64 "\n", m);
		exit(2);
	}
	out = unit_arena_alloc(&the_arena, (size_t) total);
	bs_bloom_agg_state_finish(s, m, k, out);
	*len = (size_t) total;
	return out;
}

/* bloom_empty(n, p) with the hashes added: the shape the exact phase must give. */
static uint8_t *
direct_filter(double n, double p, uint8_t family, const uint64_t *h, size_t nh, size_t *len)
{
	uint64_t	m,
				total;
	uint32_t	k;
	uint8_t    *out;
	size_t		i;

	if (bs_bloom_optimal_bits(n, p, &m, NULL) != BS_OK || bs_bloom_optimal_hashes(m, n, &k, NULL) != BS_OK ||
		bs_bloom_size(m, &total, NULL) != BS_OK)
		exit(2);
	out = unit_arena_alloc(&the_arena, (size_t) total);
	bs_bloom_init(out, m, k, family, 0);
	for (i = 0; i < nh; i++)
		bs_bloom_add_hash(out + BS_HEADER_SIZE, m, k, h[i]);
	*len = (size_t) total;
	return out;
}

static bool
same_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

static uint32_t
flags_of(const uint8_t *s)
{
	return bs_load32(s + BS_OFF_P3);
}

static uint64_t
m_of(const uint8_t *filter)
{
	return bs_load64(filter + BS_OFF_P1);
}

static uint32_t
k_of(const uint8_t *filter)
{
	return bs_load32(filter + BS_OFF_P2);
}

static uint64_t
count_hits(const uint8_t *filter, unit_rng *r, uint64_t probes)
{
	uint64_t	i,
				hits = 0,
				m = m_of(filter);
	uint32_t	k = k_of(filter);

	for (i = 0; i < probes; i++)
		hits += bs_bloom_contains_hash(filter + BS_HEADER_SIZE, m, k, unit_next(r));
	return hits;
}

static uint64_t
count_missing(const uint8_t *filter, const uint64_t *h, size_t n)
{
	uint64_t	m = m_of(filter),
				missing = 0;
	uint32_t	k = k_of(filter);
	size_t		i;

	for (i = 0; i < n; i++)
		missing += !bs_bloom_contains_hash(filter + BS_HEADER_SIZE, m, k, h[i]);
	return missing;
}

/* ---- tests ---- */

static void
test_exact_order(void)
{
	unit_rng	r = {1000};
	const size_t n = 5000;
	uint64_t   *h = unit_random_hashes(&r, n);
	uint64_t   *stream = unit_calloc(3 * n + 3, sizeof(uint64_t));
	size_t		ns = 0,
				i,
				la,
				lb,
				ld;
	uint8_t    *a,
			   *b,
			   *fa,
			   *fb,
			   *fd;

	h[17] = 0;					/* the hash 0 takes the HASZERO path */

	/* in order */
	a = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, n);
	/* shuffled, each hash 1 to 3 times */
	for (i = 0; i < n; i++)
	{
		int			c = 1 + (int) unit_below(&r, 3),
					j;

		for (j = 0; j < c; j++)
			stream[ns++] = h[i];
	}
	shuffle(stream, ns, &r);
	b = add_all(new_auto(0.01, BS_FAMILY_INTEGER), stream, ns);

	CHECK(bs_load64(a + BS_OFF_N) == n && bs_load64(b + BS_OFF_N) == n && (flags_of(b) & BS_AGG_STATE_HASZERO),
		  "exact phase counts %zu distinct hashes whether fed once in order or %zu times shuffled with duplicates (got %" PRIu64 ", %" PRIu64 ")",
		  n, ns, bs_load64(a + BS_OFF_N), bs_load64(b + BS_OFF_N));
	fa = finish(a, &la);
	fb = finish(b, &lb);
	fd = direct_filter((double) n, 0.01, BS_FAMILY_INTEGER, h, n, &ld);
	CHECK(same_bytes(fa, la, fb, lb), "exact phase: in-order and shuffled-with-duplicates inputs give byte-identical filters (%zu bytes)", la);
	CHECK(same_bytes(fa, la, fd, ld),
		  "exact phase: the filter equals bloom_empty(%zu, 0.01) (%" PRIu64 " bits, k = %u) with the hashes added",
		  n, m_of(fd), k_of(fd));
	CHECK(bs_validate(a, bs_bloom_agg_state_size(a), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) == BS_OK &&
		  bs_validate(b, bs_bloom_agg_state_size(b), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) == BS_OK,
		  "both states pass the deep bs_validate");

	/* tiny groups */
	{
		uint8_t    *e = new_auto(0.01, BS_FAMILY_NONE),
				   *one = add_all(new_auto(0.01, BS_FAMILY_TEXT), h, 1),
				   *fe,
				   *f1,
				   *de,
				   *d1;
		size_t		le,
					l1,
					lde,
					ld1;

		fe = finish(e, &le);
		de = direct_filter(1, 0.01, BS_FAMILY_NONE, NULL, 0, &lde);
		f1 = finish(one, &l1);
		d1 = direct_filter(1, 0.01, BS_FAMILY_TEXT, h, 1, &ld1);
		CHECK(same_bytes(fe, le, de, lde) && bs_popcount(fe + BS_HEADER_SIZE, le - BS_HEADER_SIZE) == 0,
			  "an empty auto state finishes to the empty bloom_empty(1, 0.01) (%" PRIu64 " bits)", m_of(fe));
		CHECK(same_bytes(f1, l1, d1, ld1), "a state of one hash finishes to bloom_empty(1, 0.01) holding it");
	}
	free(h);
	free(stream);
	unit_arena_reset(&the_arena);
}

static void
test_split_merge(void)
{
	unit_rng	r = {1100};
	const size_t n = 20000;
	uint64_t   *h = unit_random_hashes(&r, n);
	uint8_t    *whole,
			   *fw;
	size_t		lw;
	int			parts,
				bad_order = 0,
				bad_src = 0,
				runs = 0;

	h[5] = 0;
	whole = add_all(new_auto(0.001, BS_FAMILY_TEXT), h, n);
	fw = finish(whole, &lw);

	for (parts = 2; parts <= 4; parts++)
	{
		uint8_t    *st[4];
		int			p,
					perm;
		size_t		i;

		for (p = 0; p < parts; p++)
			st[p] = new_auto(0.001, p == 0 ? BS_FAMILY_NONE : BS_FAMILY_TEXT);
		/* every hash goes to a random part, 10% also to a second one */
		for (i = 0; i < n; i++)
		{
			p = (int) unit_below(&r, (uint64_t) parts);
			(void) bs_bloom_agg_state_add(&st[p], h[i], &alloc, NULL);
			if (unit_below(&r, 10) == 0)
			{
				p = (int) unit_below(&r, (uint64_t) parts);
				(void) bs_bloom_agg_state_add(&st[p], h[i], &alloc, NULL);
			}
		}
		/* several merge orders: left folds over random permutations, then a tree */
		for (perm = 0; perm < 6; perm++)
		{
			int			order[4] = {0, 1, 2, 3},
						j;
			uint8_t    *acc;
			uint8_t    *f;
			size_t		lf;

			for (j = parts - 1; j > 0; j--)
			{
				int			q = (int) unit_below(&r, (uint64_t) j + 1),
							t = order[j];

				order[j] = order[q];
				order[q] = t;
			}
			if (perm == 5 && parts == 4)
			{
				/* (0 + 1) + (2 + 3) */
				uint8_t    *l = copy_state(st[0]),
						   *rr = copy_state(st[2]);
				bs_status	s1,
							s2,
							s3;

				s1 = bs_bloom_agg_state_merge(&l, st[1], &alloc, NULL);
				s2 = bs_bloom_agg_state_merge(&rr, st[3], &alloc, NULL);
				acc = l;
				s3 = bs_bloom_agg_state_merge(&acc, rr, &alloc, NULL);
				if (s1 != BS_OK || s2 != BS_OK || s3 != BS_OK)
					acc = NULL;
			}
			else
			{
				acc = copy_state(st[order[0]]);
				for (j = 1; j < parts && acc; j++)
				{
					const uint8_t *src = st[order[j]];
					size_t		slen = bs_bloom_agg_state_size(src);
					uint8_t    *before = unit_arena_alloc(&the_arena, slen);
					bs_status	s;

					memcpy(before, src, slen);
					s = bs_bloom_agg_state_merge(&acc, src, &alloc, NULL);
					if (s != BS_OK)
						acc = NULL;
					if (memcmp(before, src, slen) != 0)
						bad_src++;
				}
			}
			runs++;
			if (acc == NULL)
			{
				bad_order++;
				continue;
			}
			f = finish(acc, &lf);
			if (!same_bytes(f, lf, fw, lw))
				bad_order++;
		}
	}
	CHECK(bad_order == 0,
		  "split into 2, 3 and 4 partial states (with duplicates across parts), merged in %d orders: every final filter is byte-identical to the one-state filter (%d differ)",
		  runs, bad_order);
	CHECK(bad_src == 0, "bs_bloom_agg_state_merge never modifies its source state (%d modified)", bad_src);
	CHECK(fw[BS_OFF_FAMILY] == BS_FAMILY_TEXT, "the final filter has the text family");
	free(h);
	unit_arena_reset(&the_arena);
}

/* Measured FPR of auto-sized filters for n distinct values, averaged over enough filters. */
static void
check_auto_fpr(size_t n, double p, uint64_t seed)
{
	unit_rng	r = {seed};
	size_t		filters = n < 10000 ? 100000 / n : 1;
	uint64_t	probes = p < 0.005 ? 2000000 : 1000000,
				per = probes / filters,
				hits = 0,
				missing = 0,
				m = 0,
				opt = 0;
	uint32_t	k = 0;
	size_t		f;
	bool		dense = false;

	for (f = 0; f < filters; f++)
	{
		uint64_t   *h = unit_random_hashes(&r, n);
		uint8_t    *s = add_all(new_auto(p, BS_FAMILY_INTEGER), h, n),
				   *out;
		size_t		len;

		dense |= (flags_of(s) & BS_AGG_STATE_DENSE) != 0;
		out = finish(s, &len);
		m = m_of(out);
		k = k_of(out);
		missing += count_missing(out, h, n);
		hits += count_hits(out, &r, per);
		free(h);
		unit_arena_reset(&the_arena);
	}
	bs_bloom_optimal_bits((double) n, p, &opt, NULL);
	{
		double		fpr = (double) hits / (double) (per * filters);

		CHECK(!dense && missing == 0 && fpr <= 1.2 * p && (double) m <= 1.5 * (double) opt,
			  "auto, exact phase, n = %zu, p = %g: %" PRIu64 " bits (%.3f x optimal %" PRIu64 "), k = %u; measured FPR %.5f = %.3f x p over %zu filter(s) and %" PRIu64 " absent probes (want <= 1.2 x p, bits <= 1.5 x optimal, no false negatives: %" PRIu64 " missing)",
			  n, p, m, (double) m / (double) opt, opt, k, fpr, fpr / p, filters, per * filters, missing);
	}
}

static void
test_auto_exact_sizes(void)
{
	static const size_t ns[] = {10, 100, 1000, 10000, 100000, BS_AGG_STATE_EXACT_LIMIT};
	static const size_t ns_low[] = {10, 1000, 100000, BS_AGG_STATE_EXACT_LIMIT};
	int			i;

	for (i = 0; i < (int) (sizeof(ns) / sizeof(ns[0])); i++)
		check_auto_fpr(ns[i], 0.01, 1200 + (uint64_t) i);
	for (i = 0; i < (int) (sizeof(ns_low) / sizeof(ns_low[0])); i++)
		check_auto_fpr(ns_low[i], 0.001, 1300 + (uint64_t) i);

	/* the limit itself: 2^20 distinct stays exact, one more goes dense */
	{
		unit_rng	r = {1400};
		uint64_t   *h = unit_random_hashes(&r, BS_AGG_STATE_EXACT_LIMIT + 1);
		uint8_t    *s = add_all(new_auto(0.05, BS_FAMILY_INTEGER), h, BS_AGG_STATE_EXACT_LIMIT);
		bool		exact_at_limit = !(flags_of(s) & BS_AGG_STATE_DENSE) &&
			bs_load64(s + BS_OFF_N) == BS_AGG_STATE_EXACT_LIMIT &&
			bs_load64(s + BS_OFF_P1) <= BS_AGG_STATE_MAX_SLOTS;

		s = add_all(s, h, BS_AGG_STATE_EXACT_LIMIT);	/* duplicates change nothing */
		exact_at_limit &= !(flags_of(s) & BS_AGG_STATE_DENSE);
		CHECK(exact_at_limit && bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) == BS_OK,
			  "a state of exactly 2^20 = %" PRIu64 " distinct hashes (added twice) is still exact, with %" PRIu64 " slots, and validates",
			  BS_AGG_STATE_EXACT_LIMIT, bs_load64(s + BS_OFF_P1));
		(void) bs_bloom_agg_state_add(&s, h[BS_AGG_STATE_EXACT_LIMIT], &alloc, NULL);
		CHECK((flags_of(s) & BS_AGG_STATE_DENSE) && bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) == BS_OK,
			  "the 2^20 + 1st distinct hash turns it dense (%" PRIu64 " bits, k = %u) and it validates",
			  bs_load64(s + BS_OFF_P1), bs_load32(s + BS_OFF_P2));
		free(h);
		unit_arena_reset(&the_arena);
	}
}

static void
check_dense(size_t n, double p, uint64_t seed)
{
	unit_rng	r = {seed};
	uint64_t   *h = unit_random_hashes(&r, n);
	uint8_t    *s = add_all(new_auto(p, BS_FAMILY_INTEGER), h, n),
			   *out;
	size_t		len;
	uint64_t	opt,
				M = bs_load64(s + BS_OFF_P1),
				missing,
				hits,
				probes = 1000000;
	double		fpr;

	bs_bloom_optimal_bits((double) n, p, &opt, NULL);
	out = finish(s, &len);
	missing = count_missing(out, h, n);
	hits = count_hits(out, &r, probes);
	fpr = (double) hits / (double) probes;
	CHECK((flags_of(s) & BS_AGG_STATE_DENSE) && missing == 0 && fpr <= 1.2 * p && (double) m_of(out) <= 1.5 * (double) opt,
		  "auto, dense phase, n = %zu, p = %g: %" PRIu64 "-bit dense filter folded by %" PRIu64 " to %" PRIu64 " bits (%.3f x optimal %" PRIu64 "), k = %u; measured FPR %.5f = %.3f x p over %" PRIu64 " absent probes; %" PRIu64 " of %zu false negatives (want FPR <= 1.2 x p, bits <= 1.5 x optimal, none missing)",
		  n, p, M, M / m_of(out), m_of(out), (double) m_of(out) / (double) opt, opt, k_of(out), fpr, fpr / p, probes,
		  missing, n);
	CHECK(bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) == BS_OK &&
		  bs_validate(out, len, BS_KIND_BLOOM, true, NULL, NULL) == BS_OK,
		  "dense state of n = %zu at p = %g and its final filter pass bs_validate", n, p);
	free(h);
	unit_arena_reset(&the_arena);
}

static void
test_dense(void)
{
	static const double ps[] = {0.01, 0.001, 0.3, 0.05, 1e-6, 0x1p-64};
	int			i,
				bad = 0;
	char		list[512] = "";

	/* the dense filter meets p up to BS_AGG_STATE_DENSE_FACTOR x the exact limit */
	for (i = 0; i < (int) (sizeof(ps) / sizeof(ps[0])); i++)
	{
		uint32_t	k = bs_bloom_agg_state_dense_hashes(ps[i]);
		uint64_t	M = bs_bloom_agg_state_dense_bits(ps[i], k);
		double		at_cap = bs_bloom_fpr_approx((double) M, (double) BS_AGG_STATE_EXACT_LIMIT * BS_AGG_STATE_DENSE_FACTOR, k);

		snprintf(list + strlen(list), sizeof(list) - strlen(list), " p=%g: k=%u M=%" PRIu64 " fpr@cap=%.3g;", ps[i], k, M, at_cap);
		if (M % BS_FOLD_BASE != 0 || at_cap > ps[i] || k != (uint32_t) fmax(1, round(-log2(ps[i]))) ||
			bs_bloom_check_shape(M, k, NULL) != BS_OK)
			bad++;
	}
	CHECK(bad == 0, "dense parameters: k = round(log2(1/p)), M a multiple of 2^10 3^6 meeting p at 16 x 2^20 values:%s", list);

	check_dense(1200000, 0.01, 1500);
	check_dense(3000000, 0.01, 1501);
	check_dense(1200000, 0.001, 1502);
}

static uint8_t *packed_of(const uint8_t *s);

static void
test_exact_dense_merge(void)
{
	unit_rng	r = {1600};
	const double p = 0.3;		/* a small dense filter (42.5M bits) keeps this quick */
	const size_t n = 1200000;
	uint64_t   *h = unit_random_hashes(&r, n);
	uint8_t    *whole = add_all(new_auto(p, BS_FAMILY_INTEGER), h, n),
			   *fw,
			   *dense,
			   *exact,
			   *m1,
			   *m2,
			   *f1,
			   *f2;
	size_t		lw,
				l1,
				l2,
				dlen,
				elen;
	bs_status	s1,
				s2;
	uint8_t    *dense_before,
			   *exact_before;

	fw = finish(whole, &lw);
	/* dense: h[0, 1.1M) and the hash 0; exact: h[1.0M, 1.2M) (overlapping) and the hash 0 */
	dense = add_all(new_auto(p, BS_FAMILY_INTEGER), h, 1100000);
	exact = add_all(new_auto(p, BS_FAMILY_NONE), h + 1000000, 200000);
	dlen = bs_bloom_agg_state_size(dense);
	elen = bs_bloom_agg_state_size(exact);
	dense_before = unit_arena_alloc(&the_arena, dlen);
	exact_before = unit_arena_alloc(&the_arena, elen);
	memcpy(dense_before, dense, dlen);
	memcpy(exact_before, exact, elen);

	m1 = copy_state(dense);
	s1 = bs_bloom_agg_state_merge(&m1, exact, &alloc, NULL);
	m2 = copy_state(exact);
	s2 = bs_bloom_agg_state_merge(&m2, dense, &alloc, NULL);
	CHECK(s1 == BS_OK && s2 == BS_OK && (flags_of(dense) & BS_AGG_STATE_DENSE) && !(flags_of(exact) & BS_AGG_STATE_DENSE) &&
		  m1 && m2 && (flags_of(m2) & BS_AGG_STATE_DENSE),
		  "merging an exact state (200000 hashes) and a dense one (1100000) works both ways and the result is dense");
	f1 = finish(m1, &l1);
	f2 = finish(m2, &l2);
	CHECK(same_bytes(f1, l1, fw, lw) && same_bytes(f2, l2, fw, lw),
		  "exact into dense and dense into exact both give the same final filter as one state fed all 1200000 hashes (%" PRIu64 " bits, k = %u)",
		  m_of(fw), k_of(fw));
	/* the exact side's hashes go into the 5 MB dense filter in prefetched batches (a dense_sink) */
	CHECK(same_bytes(m1, bs_bloom_agg_state_size(m1), whole, bs_bloom_agg_state_size(whole)) &&
		  same_bytes(m2, bs_bloom_agg_state_size(m2), whole, bs_bloom_agg_state_size(whole)),
		  "... and the same dense state, byte for byte, as hash by hash");
	CHECK(memcmp(dense, dense_before, dlen) == 0 && memcmp(exact, exact_before, elen) == 0,
		  "neither source state was modified by the merges");
	unit_arena_reset(&the_arena);

	/* two exact states whose union passes the limit */
	{
		uint8_t    *a,
				   *b,
				   *ma,
				   *mb,
				   *fa,
				   *fb;
		size_t		la,
					lb;
		bs_status	sa,
					sb;

		whole = add_all(new_auto(p, BS_FAMILY_INTEGER), h, n);
		fw = finish(whole, &lw);
		a = add_all(new_auto(p, BS_FAMILY_INTEGER), h, 700000);
		b = add_all(new_auto(p, BS_FAMILY_INTEGER), h + 500000, 700000);
		ma = copy_state(a);
		sa = bs_bloom_agg_state_merge(&ma, b, &alloc, NULL);
		mb = copy_state(b);
		sb = bs_bloom_agg_state_merge(&mb, a, &alloc, NULL);
		CHECK(sa == BS_OK && sb == BS_OK && !(flags_of(a) & BS_AGG_STATE_DENSE) && !(flags_of(b) & BS_AGG_STATE_DENSE) &&
			  (flags_of(ma) & BS_AGG_STATE_DENSE) && (flags_of(mb) & BS_AGG_STATE_DENSE),
			  "merging two exact states of 700000 hashes (union 1200000) goes dense");
		fa = finish(ma, &la);
		fb = finish(mb, &lb);
		CHECK(same_bytes(fa, la, fw, lw) && same_bytes(fb, lb, fw, lw),
			  "both merge orders of the two exact states give the one-state filter");
		/* past the limit the rest goes in through a dense_sink; packed, as a worker ships them */
		{
			uint8_t    *pa = packed_of(a),
					   *pb = packed_of(b),
					   *mp = copy_state(pa);
			size_t		lwh = bs_bloom_agg_state_size(whole);

			CHECK(same_bytes(ma, bs_bloom_agg_state_size(ma), whole, lwh) &&
				  same_bytes(mb, bs_bloom_agg_state_size(mb), whole, lwh) &&
				  bs_bloom_agg_state_merge(&mp, pb, &alloc, NULL) == BS_OK &&
				  same_bytes(mp, bs_bloom_agg_state_size(mp), whole, lwh),
				  "... the same dense state as hash by hash, byte for byte, and so from their packed forms");
		}
		unit_arena_reset(&the_arena);
	}
	free(h);
}

static void
test_fixed(void)
{
	unit_rng	r = {1700};
	uint64_t   *h = unit_random_hashes(&r, 8000);
	uint8_t    *s,
			   *s2,
			   *f,
			   *d,
			   *mf;
	size_t		lf,
				ld,
				i;
	uint64_t	m,
				opt;
	uint32_t	k,
				optk;
	bs_error	err;
	bs_status	st;

	st = bs_bloom_agg_state_new_fixed(5000, 0.01, BS_FAMILY_UUID, 0, &alloc, &s, &err);
	bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
	bs_bloom_optimal_bits(5000, 0.01, &opt, NULL);
	bs_bloom_optimal_hashes(opt, 5000, &optk, NULL);
	CHECK(st == BS_OK && flags_of(s) == BS_AGG_STATE_FIXED && bs_bloom_agg_state_size(s) == 176 &&
		  m == opt && k == optk,
		  "fixed state (5000, 0.01) starts exact (176 bytes) and has the bloom_empty shape: %" PRIu64 " bits, k = %u", m, k);
	for (i = 0; i < 3000; i++)
	{
		(void) bs_bloom_agg_state_add(&s, h[i], &alloc, NULL);
		(void) bs_bloom_agg_state_add(&s, h[i / 2], &alloc, NULL);
	}
	f = finish(s, &lf);
	d = direct_filter(5000, 0.01, BS_FAMILY_UUID, h, 3000, &ld);
	CHECK(same_bytes(f, lf, d, ld), "fixed state of 3000 hashes (with duplicates) finishes to bloom_empty(5000, 0.01) holding them, byte for byte");
	s = add_all(s, h + 3000, 5000);
	f = finish(s, &lf);
	d = direct_filter(5000, 0.01, BS_FAMILY_UUID, h, 8000, &ld);
	CHECK(same_bytes(f, lf, d, ld) && m_of(f) == opt,
		  "past its capacity (8000 > 5000) a fixed state keeps the bloom_empty shape and holds everything");

	/* merge of two fixed states */
	st = bs_bloom_agg_state_new_fixed(5000, 0.01, BS_FAMILY_NONE, 0, &alloc, &s2, &err);
	s2 = add_all(s2, h, 4000);
	bs_bloom_agg_state_new_fixed(5000, 0.01, BS_FAMILY_UUID, 0, &alloc, &mf, &err);
	mf = add_all(mf, h + 4000, 4000);
	st = bs_bloom_agg_state_merge(&mf, s2, &alloc, &err);
	f = finish(mf, &lf);
	CHECK(st == BS_OK && same_bytes(f, lf, d, ld), "merging two fixed states of halves gives the same filter as one");
	{
		uint8_t    *e;
		uint64_t	em;
		uint32_t	ek;

		bs_bloom_agg_state_new_fixed(1, 0.5, BS_FAMILY_NONE, 0, &alloc, &e, &err);
		bs_bloom_agg_state_result_shape(e, &em, &ek, NULL);
		CHECK(em == 2 && ek == 1, "fixed state (1, 0.5) has 2 bits, k = 1 like bloom_empty(1, 0.5) (got %" PRIu64 ", %u)", em, ek);
	}
	CHECK(bs_bloom_agg_state_new_fixed(0, 0.01, 0, 0, &alloc, &s, &err) == BS_ERR_PARAM &&
		  bs_bloom_agg_state_new_fixed(100, 1, 0, 0, &alloc, &s, &err) == BS_ERR_PARAM &&
		  bs_bloom_agg_state_new_fixed(100, 0, 0, 0, &alloc, &s, &err) == BS_ERR_PARAM,
		  "fixed state with capacity 0, fpr 1 or fpr 0 is BS_ERR_PARAM");
	CHECK(bs_bloom_agg_state_new_fixed(1e12, 0.01, 0, 0, &alloc, &s, &err) == BS_ERR_LIMIT,
		  "fixed state too large for 1 GB is BS_ERR_LIMIT (%s)", err.msg);
	CHECK(bs_bloom_agg_state_new_auto(0, 0, 0, &alloc, &s, &err) == BS_ERR_PARAM &&
		  bs_bloom_agg_state_new_auto(1, 0, 0, &alloc, &s, &err) == BS_ERR_PARAM &&
		  bs_bloom_agg_state_new_auto(NAN, 0, 0, &alloc, &s, &err) == BS_ERR_PARAM &&
		  bs_bloom_agg_state_new_auto(ldexp(1, -65), 0, 0, &alloc, &s, &err) == BS_ERR_PARAM &&
		  bs_bloom_agg_state_new_auto(ldexp(1, -64), 0, 0, &alloc, &s, &err) == BS_OK,
		  "auto state with fpr 0, 1, NaN or 2^-65 is BS_ERR_PARAM; 2^-64 is accepted");
	free(h);
	unit_arena_reset(&the_arena);
}

static void
test_merge_errors(void)
{
	uint8_t    *a1,
			   *a2,
			   *fx,
			   *fx2,
			   *ti,
			   *tt,
			   *sd,
			   *res,
			   *before;
	size_t		len;
	bs_error	err;
	bs_status	st;
	unit_rng	r = {1800};

	a1 = add_all(new_auto(0.01, BS_FAMILY_INTEGER), (uint64_t[]) {unit_next(&r), unit_next(&r)}, 2);
	a2 = new_auto(0.02, BS_FAMILY_INTEGER);
	bs_bloom_agg_state_new_fixed(100, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &fx, NULL);
	bs_bloom_agg_state_new_fixed(200, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &fx2, NULL);
	ti = new_auto(0.01, BS_FAMILY_INTEGER);
	tt = add_all(new_auto(0.01, BS_FAMILY_TEXT), (uint64_t[]) {unit_next(&r)}, 1);
	bs_bloom_agg_state_new_auto(0.01, BS_FAMILY_INTEGER, 1, &alloc, &sd, NULL);

	len = bs_bloom_agg_state_size(a1);
	before = unit_arena_alloc(&the_arena, len);
	memcpy(before, a1, len);
	res = a1;
	st = bs_bloom_agg_state_merge(&res, a2, &alloc, &err);
	CHECK(res == a1 && st == BS_ERR_SHAPE && strstr(err.msg, "0.01") && strstr(err.msg, "0.02"),
		  "merging states of fpr 0.01 and 0.02 is BS_ERR_SHAPE naming both (%s)", err.msg);
	CHECK(memcmp(before, a1, len) == 0, "a failed merge leaves its destination unchanged");
	res = a1;
	st = bs_bloom_agg_state_merge(&res, fx, &alloc, &err);
	CHECK(res == a1 && st == BS_ERR_SHAPE && strstr(err.msg, "auto-sized") && strstr(err.msg, "capacity 100"),
		  "merging an auto and a fixed state of the same fpr is BS_ERR_SHAPE (%s)", err.msg);
	res = fx;
	st = bs_bloom_agg_state_merge(&res, a1, &alloc, &err);
	CHECK(res == fx && st == BS_ERR_SHAPE, "merging a fixed and an auto state is BS_ERR_SHAPE (%s)", err.msg);
	res = fx;
	st = bs_bloom_agg_state_merge(&res, fx2, &alloc, &err);
	CHECK(res == fx && st == BS_ERR_SHAPE, "merging fixed states of capacity 100 and 200 is BS_ERR_SHAPE (%s)", err.msg);
	CHECK(res == fx && strstr(err.msg, "100") && strstr(err.msg, "200"),
		  "the error for fixed states of capacity 100 and 200 names both capacities (doc/architecture.md, section 4: an ERROR naming both shapes): %s", err.msg);
	res = ti;
	st = bs_bloom_agg_state_merge(&res, sd, &alloc, &err);
	CHECK(res == ti && st == BS_ERR_SHAPE, "merging states of seeds 0 and 1 is BS_ERR_SHAPE (%s)", err.msg);
	res = ti;
	st = bs_bloom_agg_state_merge(&res, tt, &alloc, &err);
	CHECK(res == ti && st == BS_ERR_FAMILY && strstr(err.msg, "integer") && strstr(err.msg, "text"),
		  "merging states of integer and text keys is BS_ERR_FAMILY naming both (%s)", err.msg);
	{
		uint8_t    *none = new_auto(0.01, BS_FAMILY_NONE);

		res = none;
		st = bs_bloom_agg_state_merge(&res, tt, &alloc, &err);
		CHECK(res != NULL && st == BS_OK && res[BS_OFF_FAMILY] == BS_FAMILY_TEXT,
			  "merging a text state into an empty NONE state works and takes the text family");
		res = copy_state(tt);
		st = bs_bloom_agg_state_merge(&res, new_auto(0.01, BS_FAMILY_NONE), &alloc, &err);
		CHECK(res != NULL && st == BS_OK && res[BS_OFF_FAMILY] == BS_FAMILY_TEXT,
			  "merging an empty NONE state into a text state keeps the text family");
	}

	/* same_target */
	CHECK(bs_bloom_agg_state_same_target(a1, false, 0, 0.01) && bs_bloom_agg_state_same_target(a1, false, 12345, 0.01) &&
		  !bs_bloom_agg_state_same_target(a1, false, 0, 0.02) && !bs_bloom_agg_state_same_target(a1, true, 0, 0.01),
		  "bs_bloom_agg_state_same_target of an auto 0.01 state: same for (auto, 0.01) whatever the capacity, not for 0.02 or fixed");
	CHECK(bs_bloom_agg_state_same_target(fx, true, 100, 0.01) && !bs_bloom_agg_state_same_target(fx, true, 101, 0.01) &&
		  !bs_bloom_agg_state_same_target(fx, false, 100, 0.01) && !bs_bloom_agg_state_same_target(fx, true, 100, 0.011),
		  "bs_bloom_agg_state_same_target of a fixed (100, 0.01) state: same only for fixed, 100, 0.01");
	CHECK(bs_bloom_agg_state_fits(fx, true, 100, 0.01, false, BS_LAYOUT_CLASSIC) &&
		  !bs_bloom_agg_state_fits(fx, true, 100, 0.01, true, BS_LAYOUT_CLASSIC) &&
		  !bs_bloom_agg_state_fits(fx, true, 100, 0.01, false, BS_LAYOUT_BLOCKED) &&
		  !bs_bloom_agg_state_fits(fx, true, 101, 0.01, false, BS_LAYOUT_CLASSIC) &&
		  bs_bloom_agg_state_fits(a1, false, 0, 0.01, false, BS_LAYOUT_CLASSIC) &&
		  !bs_bloom_agg_state_fits(a1, false, 0, 0.02, false, BS_LAYOUT_CLASSIC),
		  "bs_bloom_agg_state_fits: the target, counting and layout must all match");
	unit_arena_reset(&the_arena);
}

static void
test_check(void)
{
	unit_rng	r = {1900};
	uint64_t   *h = unit_random_hashes(&r, BS_AGG_STATE_EXACT_LIMIT + 10);
	uint8_t    *s = add_all(new_auto(0.3, BS_FAMILY_INTEGER), h, 1000),
			   *d;
	size_t		len = bs_bloom_agg_state_size(s);
	bs_error	err;
	uint64_t	n = bs_load64(s + BS_OFF_N),
				M;
	double		other = 0.29;
	uint64_t	ob;

	CHECK(bs_validate(s, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK, "an exact state of 1000 hashes validates");
	bs_store64(s + BS_OFF_N, n + 1);
	CHECK(bs_validate(s, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT && strstr(err.msg, "1001"),
		  "deep check: a count of 1001 for a table holding 1000 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(bs_validate(s, len, BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_OK,
		  "the quick check does not look at the table (documented: O(1))");
	bs_store64(s + BS_OFF_N, n - 1);
	CHECK(bs_validate(s, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT,
		  "deep check: a count of 999 for a table holding 1000 is BS_ERR_FORMAT (%s)", err.msg);
	bs_store64(s + BS_OFF_N, n);
	CHECK(bs_validate(s, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK, "restoring the count makes it valid again");

	d = add_all(new_auto(0.3, BS_FAMILY_INTEGER), h, BS_AGG_STATE_EXACT_LIMIT + 10);
	len = bs_bloom_agg_state_size(d);
	M = bs_load64(d + BS_OFF_P1);
	CHECK((flags_of(d) & BS_AGG_STATE_DENSE) && bs_validate(d, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK &&
		  M == bs_bloom_agg_state_dense_bits(0.3, bs_bloom_agg_state_dense_hashes(0.3)),
		  "a dense state at fpr 0.3 (%" PRIu64 " bits, k = %u) validates", M, bs_load32(d + BS_OFF_P2));
	memcpy(&ob, &other, sizeof(ob));
	bs_store64(d + BS_OFF_X, ob);
	CHECK(bs_validate(d, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT && strstr(err.msg, "does not match"),
		  "a dense state whose bits do not match its fpr (0.3 relabelled 0.29) is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(bs_validate(d, len, BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_ERR_FORMAT,
		  "the quick check also rejects it");
	other = 0.3;
	memcpy(&ob, &other, sizeof(ob));
	bs_store64(d + BS_OFF_X, ob);
	bs_store32(d + BS_OFF_P2, bs_load32(d + BS_OFF_P2) + 1);
	CHECK(bs_validate(d, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT,
		  "a dense state with one hash too many for its fpr is BS_ERR_FORMAT (%s)", err.msg);
	free(h);
	unit_arena_reset(&the_arena);
}

/* Buffers given back by bs_bloom_agg_state_add_batch through the allocator's release. */
static const uint8_t *batch_caller;
static int	batch_released,
			batch_released_caller;

static void
arena_release(void *ctx, uint8_t *buf)
{
	batch_released++;
	if (buf == batch_caller)
		batch_released_caller++;
	arena_drop((unit_arena *) ctx, buf);
}

static const bs_allocator batch_alloc = {unit_arena_alloc, &the_arena, arena_release};

/*
 * add_all in batches of `batch` hashes (0: the size the state asks for) with
 * scratch of `scratch` words per batch (0: what the state asks for, else
 * that many, possibly too few to sort), as src/bloom_agg_expanded.c does.
 */
static uint8_t *
add_all_batched(uint8_t *s, const uint64_t *h, size_t n, size_t batch, size_t scratch)
{
	size_t		i = 0;

	while (i < n)
	{
		size_t		want = batch ? batch : bs_bloom_agg_state_batch_hashes(s),
					c = n - i < want ? n - i : want,
					words = scratch ? scratch : bs_bloom_agg_state_batch_scratch(s, c);
		uint64_t   *copy = malloc(c * sizeof(uint64_t) + 1),
				   *tmp = malloc(words * sizeof(uint64_t) + 1);
		uint8_t    *t = s;
		bs_status	st;

		memcpy(copy, h + i, c * sizeof(uint64_t));
		batch_caller = s;
		st = bs_bloom_agg_state_add_batch(&t, copy, c, tmp, words, &batch_alloc, NULL);
		free(copy);
		free(tmp);
		if (st != BS_OK)
			return NULL;
		if (t != s)
			arena_drop(&the_arena, s);
		s = t;
		i += c;
	}
	return s;
}

/*
 * Same final filter, and the same state: byte for byte in the dense phase;
 * in the exact phase the same table size, count and flags, a valid table,
 * and the same hashes (linear probing may place colliding hashes in another
 * order, which no reader sees: the final filter is compared).
 */
static bool
same_result(const uint8_t *a, const uint8_t *b)
{
	size_t		la,
				lb;
	uint8_t    *fa,
			   *fb;
	bool		same;
	bs_error	err;

	if (bs_bloom_agg_state_size(a) != bs_bloom_agg_state_size(b) ||
		memcmp(a, b, BS_HEADER_SIZE) != 0 ||
		bs_validate(b, bs_bloom_agg_state_size(b), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) != BS_OK)
		return false;
	if ((flags_of(a) & BS_AGG_STATE_DENSE) &&
		memcmp(a, b, bs_bloom_agg_state_size(a)) != 0)
		return false;
	fa = finish(a, &la);
	fb = finish(b, &lb);
	same = la == lb && memcmp(fa, fb, la) == 0;
	return same;
}

/*
 * Batches of large states (bloom_agg_state.h): a state fed in sorted batches gives
 * the same state and final filter as one fed hash by hash, through growth,
 * the dense switch inside a batch, duplicates, the zero hash, counting and
 * fixed states, with scratch enough to sort, too little, or none; and only
 * intermediate buffers are released, never the caller's.
 */
static void
test_batches(void)
{
	unit_rng	r = {2024};
	size_t		n = BS_AGG_STATE_EXACT_LIMIT + 10000;	/* distinct ones too, after the duplicates below */
	uint64_t   *h = unit_random_hashes(&r, n);
	const size_t sizes[] = {0, 1, 7, 1000, 12289, 100000};
	const size_t batches[] = {0, 1, 7, 5000};
	size_t		i,
				j;
	uint8_t    *a,
			   *b;
	bs_error	err;
	bool		ok;

	/* duplicates and the zero hash among them */
	for (i = 0; i < 5000; i++)
		h[100000 + i] = h[i * 7];
	h[500] = 0;
	h[90000] = 0;
	ok = true;
	for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++)
		for (i = 0; i < sizeof(batches) / sizeof(batches[0]); i++)
		{
			if (batches[i] != 0 && batches[i] < 10 && sizes[j] > 12289)
				continue;		/* tiny batches of many hashes: slow, and nothing new */
			a = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, sizes[j]);
			b = add_all_batched(new_auto(0.01, BS_FAMILY_INTEGER), h, sizes[j], batches[i], 0);
			if (!same_result(a, b))
			{
				ok = false;
				printf("# exact state of %zu hashes in batches of %zu differs\n", sizes[j], batches[i]);
			}
			unit_arena_reset(&the_arena);
		}
	CHECK(ok, "exact states of 0 to 100000 hashes (duplicates, the zero hash) in batches of 1, 7, 5000 and the state's own size: same state and final filter as hash by hash");

	a = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, 20000);
	b = add_all_batched(new_auto(0.01, BS_FAMILY_INTEGER), h, 20000, 5000, 3);
	CHECK(same_result(a, b), "batches with too little scratch to sort (3 words) give the same result");
	unit_arena_reset(&the_arena);

	batch_released = batch_released_caller = 0;
	a = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, n);
	b = add_all_batched(new_auto(0.01, BS_FAMILY_INTEGER), h, n, 0, 0);
	CHECK((flags_of(b) & BS_AGG_STATE_DENSE) && same_result(a, b),
		  "past the exact limit (%zu hashes, dense) in the state's own batches: the same dense state, byte for byte", n);
	CHECK(batch_released_caller == 0, "the caller's state is never released (%d intermediate buffers were)", batch_released);
	unit_arena_reset(&the_arena);

	/* the dense switch in the middle of one batch, with sorted and unsorted positions */
	a = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, n);
	b = add_all_batched(new_auto(0.01, BS_FAMILY_INTEGER), h, n, 400000, 0);
	CHECK(same_result(a, b), "the dense switch inside a batch of 400000: the same dense state");
	unit_arena_reset(&the_arena);
	a = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, n);
	b = add_all_batched(new_auto(0.01, BS_FAMILY_INTEGER), h, n, 400000, 400000 + 20);
	CHECK(same_result(a, b), "... and with scratch for only one position chunk of a hash or two");
	unit_arena_reset(&the_arena);

	bs_bloom_agg_state_new_counting(0.01, BS_FAMILY_INTEGER, 0, &alloc, &a, &err);
	bs_bloom_agg_state_new_counting(0.01, BS_FAMILY_INTEGER, 0, &alloc, &b, &err);
	a = add_all(a, h, 105000);
	b = add_all_batched(b, h, 105000, 0, 0);
	ok = bs_bloom_agg_state_size(a) == bs_bloom_agg_state_size(b);
	if (ok)
	{
		uint64_t	m,
					tot;
		uint32_t	k;
		uint8_t    *fa,
				   *fb;

		bs_bloom_agg_state_result_shape(a, &m, &k, NULL);
		bs_cbloom_size(m, 4, &tot, NULL);
		fa = calloc(1, tot);
		fb = calloc(1, tot);
		bs_bloom_agg_state_finish_counting(a, m, k, 4, fa);
		bs_bloom_agg_state_finish_counting(b, m, k, 4, fb);
		ok = memcmp(fa, fb, tot) == 0 &&
			bs_validate(b, bs_bloom_agg_state_size(b), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK;
		free(fa);
		free(fb);
	}
	CHECK(ok, "counting state with duplicates in batches: the same counting filter");
	unit_arena_reset(&the_arena);

	bs_bloom_agg_state_new_fixed(50000, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &a, &err);
	bs_bloom_agg_state_new_fixed(50000, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &b, &err);
	a = add_all(a, h, 60000);
	b = add_all_batched(b, h, 60000, 0, 0);
	CHECK(memcmp(a, b, bs_bloom_agg_state_size(a)) == 0, "fixed state in batches: byte for byte");
	unit_arena_reset(&the_arena);

	/* where batches start: tables of 1 kB (128 slots), filters of 2 MB */
	a = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, 48);	/* 64 slots */
	b = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, 49);	/* 128 slots */
	ok = bs_load64(a + BS_OFF_P1) == 64 && !bs_bloom_agg_state_batches_pay(a) &&
		bs_load64(b + BS_OFF_P1) == 128 && bs_bloom_agg_state_batches_pay(b);
	unit_arena_reset(&the_arena);
	a = fixed_dense(1000000, 0.01);	/* 1.2 MB */
	b = fixed_dense(2000000, 0.01);	/* 2.4 MB */
	CHECK(ok && !bs_bloom_agg_state_batches_pay(a) && bs_bloom_agg_state_batches_pay(b),
		  "batches pay for tables from 1 kB and filters from 2 MB (a %zu-byte filter: no, %zu bytes: yes)",
		  bs_bloom_agg_state_size(a), bs_bloom_agg_state_size(b));
	unit_arena_reset(&the_arena);

	a = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, 100000);
	CHECK(bs_bloom_agg_state_batch_hashes(a) == bs_load64(a + BS_OFF_P1) / 8 &&
		  bs_bloom_agg_state_batch_scratch(a, 10) == 10,
		  "an exact state of 2^18 slots asks for one hash per cache line of its table, and scratch of the batch's size");
	unit_arena_reset(&the_arena);
	a = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, 10000);
	b = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, 20000);
	CHECK(bs_load64(a + BS_OFF_P1) == 16384 && bs_bloom_agg_state_batch_hashes(a) == 256 &&
		  bs_load64(b + BS_OFF_P1) == 32768 && bs_bloom_agg_state_batch_hashes(b) == 2048,
		  "an exact state of 2^14 slots (a GROUP BY keeps many) asks for one hash per eight cache lines, of 2^15 slots per two");
	a = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, 49);
	b = add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, 400);
	CHECK(bs_bloom_agg_state_batch_hashes(a) == 32 && bs_bloom_agg_state_batch_hashes(b) == 256,
		  "a table of 128 slots asks for a batch of 32 hashes, one of 1,024 slots for 256");
	free(h);
	unit_arena_reset(&the_arena);
}

/* ---- the packed form ---- */

static uint8_t *
packed_of(const uint8_t *s)
{
	uint8_t    *p = unit_arena_alloc(&the_arena, bs_bloom_agg_state_packed_size(s));

	bs_bloom_agg_state_pack(s, p);
	return p;
}

static bool
valid_state(const uint8_t *s, bs_error *err)
{
	return bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, err) == BS_OK;
}

/* The final filter of a state, counting (4-bit counters) or not. */
static uint8_t *
final_of(const uint8_t *s, size_t *len)
{
	uint64_t	m,
				total;
	uint32_t	k;
	uint8_t    *out;

	if (!bs_bloom_agg_state_is_counting(s))
		return finish(s, len);
	bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
	if (bs_cbloom_size(m, 4, &total, NULL) != BS_OK)
		exit(2);
	out = unit_arena_alloc(&the_arena, (size_t) total);
	bs_bloom_agg_state_finish_counting(s, m, k, 4, out);
	*len = (size_t) total;
	return out;
}

static bool
same_final(const uint8_t *a, const uint8_t *b)
{
	size_t		la,
				lb;
	uint8_t    *fa = final_of(a, &la),
			   *fb = final_of(b, &lb);

	return same_bytes(fa, la, fb, lb);
}

/*
 * Packed states (bloom_agg_state.h): the same bytes for the same hashes in
 * any order, valid, 8 (9 counting) bytes per hash, the same final filter,
 * and every function that reads or changes a state takes them: unpack, add,
 * add_batch, merge in both directions.  Hashes whose home slots are the
 * table's last ones wrap around to its first slots, which the packing must
 * still sort.
 */
static void
test_packed(void)
{
	static const struct
	{
		size_t		n;
		bool		counting,
					zero,
					high;
	}			cases[] = {
		{0, false, false, false}, {0, false, true, false}, {1, false, false, false},
		{12, false, true, false}, {13, false, false, true}, {1000, false, false, false},
		{30000, false, true, true}, {5000, true, true, false}, {3000, true, false, true},
	};
	size_t		c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
	{
		unit_rng	r = {2100 + c};
		size_t		n = cases[c].n,
					half = n / 2,
					i,
					width = cases[c].counting ? 9 : 8,
					held = n;
		uint64_t   *h = unit_random_hashes(&r, n + 2),
				   *order = unit_calloc(2 * n + 4, sizeof(uint64_t));
		uint8_t    *a,
				   *b,
				   *pa,
				   *pb,
				   *u,
				   *t,
				   *d;
		bs_error	err;
		bool		sorted = true;
		char		what[96];
		uint64_t	extra = h[n + 1] | 1;	/* not among the first n */

		for (i = 0; i < n; i++)
		{
			if (cases[c].high && i % 3 == 0)
				h[i] |= UINT64_C(0xffff000000000000);	/* homes in the last slots */
			if (h[i] == 0)
				h[i] = 1;
		}
		if (cases[c].zero)
		{
			h[n > 0 ? n - 1 : 0] = 0;
			held = n > 0 ? n : 1;
		}
		snprintf(what, sizeof(what), "%s%s state of %zu hashes%s",
				 cases[c].counting ? "counting " : "", cases[c].zero ? "zero-holding" : "exact",
				 held, cases[c].high ? " (many wrapped)" : "");

		/* order 1: as they come, each twice (counting: count 2); order 2: shuffled */
		for (i = 0; i < held; i++)
			order[i] = order[held + i] = h[i];
		a = cases[c].counting ? (bs_bloom_agg_state_new_counting(0.01, BS_FAMILY_INTEGER, 0, &alloc, &a, NULL), a) :
			new_auto(0.01, BS_FAMILY_INTEGER);
		b = copy_state(a);
		a = add_all(a, order, 2 * held);
		shuffle(order, 2 * held, &r);
		b = add_all(b, order, 2 * held);
		pa = packed_of(a);
		pb = packed_of(b);
		CHECK(bs_bloom_agg_state_packed_size(a) == BS_HEADER_SIZE + (held - cases[c].zero) * width &&
			  bs_bloom_agg_state_is_packed(pa) && !bs_bloom_agg_state_is_packed(a) &&
			  bs_load64(pa + BS_OFF_P1) == held - cases[c].zero && bs_load64(pa + BS_OFF_N) == held,
			  "%s: packed into %zu bytes (header 48 and %zu per hash)", what,
			  bs_bloom_agg_state_packed_size(a), width);
		CHECK(same_bytes(pa, bs_bloom_agg_state_size(pa), pb, bs_bloom_agg_state_size(pb)),
			  "%s: the same packed bytes for two orders", what);
		for (i = 1; i + cases[c].zero < held; i++)
			sorted &= bs_load64(pa + BS_HEADER_SIZE + (i - 1) * 8) < bs_load64(pa + BS_HEADER_SIZE + i * 8);
		CHECK(sorted && valid_state(pa, &err), "%s: ascending, and the deep check accepts it", what);
		CHECK(same_final(a, pa), "%s: the packed state makes the same final filter", what);
		t = unit_arena_alloc(&the_arena, bs_bloom_agg_state_size(pa));
		bs_bloom_agg_state_pack(pa, t);
		CHECK(same_bytes(pa, bs_bloom_agg_state_size(pa), t, bs_bloom_agg_state_size(pa)),
			  "%s: packing a packed state copies it", what);

		u = bs_bloom_agg_state_unpack(pa, &alloc);
		CHECK(!bs_bloom_agg_state_is_packed(u) && valid_state(u, &err) && same_final(u, a) &&
			  same_bytes(packed_of(u), bs_bloom_agg_state_size(pa), pa, bs_bloom_agg_state_size(pa)),
			  "%s: unpacked, a valid table of the same hashes that packs the same", what);
		CHECK(bs_load64(u + BS_OFF_P1) <= bs_load64(a + BS_OFF_P1),
			  "%s: unpacked into %" PRIu64 " slots, no more than adding grew to (%" PRIu64 ")", what,
			  bs_load64(u + BS_OFF_P1), bs_load64(a + BS_OFF_P1));

		/* add to a packed state: a table again, with the new hash */
		t = pa;
		CHECK(bs_bloom_agg_state_add(&t, extra, &alloc, NULL) == BS_OK && t != pa &&
			  !bs_bloom_agg_state_is_packed(t) && valid_state(t, &err) &&
			  bs_load64(t + BS_OFF_N) == held + 1,
			  "%s: adding a hash to it makes a valid table of %zu", what, held + 1);
		d = add_all(copy_state(a), &extra, 1);
		CHECK(same_final(t, d), "%s: ... with the same final filter as adding it to the table", what);
		t = pa;
		batch_caller = pa;
		batch_released_caller = 0;
		t = add_all_batched(t, order, held, 0, 0);
		CHECK(t != NULL && same_final(t, add_all(copy_state(a), order, held)) && batch_released_caller == 0,
			  "%s: half its stream again, in batches: the final filter of adding it to the table; the caller's packed state is not released", what);

		/* merge: the stream split in two, one side packed, then both */
		d = cases[c].counting ? (bs_bloom_agg_state_new_counting(0.01, BS_FAMILY_INTEGER, 0, &alloc, &d, NULL), d) :
			new_auto(0.01, BS_FAMILY_INTEGER);
		t = packed_of(add_all(copy_state(d), order + half, 2 * held - half));
		d = add_all(d, order, half);
		u = copy_state(d);
		CHECK(bs_bloom_agg_state_merge(&u, t, &alloc, &err) == BS_OK && valid_state(u, &err) && same_final(u, a),
			  "%s: a table merged with a packed state: the whole stream's filter", what);
		u = packed_of(d);
		CHECK(bs_bloom_agg_state_merge(&u, t, &alloc, &err) == BS_OK && valid_state(u, &err) &&
			  !bs_bloom_agg_state_is_packed(u) && same_final(u, a),
			  "%s: two packed states merged: a table, the same filter", what);
		free(h);
		free(order);
		unit_arena_reset(&the_arena);
	}
}

/* What the deep and quick checks refuse in a packed state. */
static void
test_packed_check(void)
{
	unit_rng	r = {2200};
	uint64_t   *h = unit_random_hashes(&r, 100);
	uint8_t    *p = packed_of(add_all(new_auto(0.01, BS_FAMILY_INTEGER), h, 100)),
			   *q;
	size_t		len = bs_bloom_agg_state_size(p);
	uint64_t	h0 = bs_load64(p + BS_HEADER_SIZE),
				h1 = bs_load64(p + BS_HEADER_SIZE + 8);
	bs_error	err;

	CHECK(len == BS_HEADER_SIZE + 800 && valid_state(p, &err), "a packed state of 100 hashes validates");
	bs_store64(p + BS_HEADER_SIZE, h1);
	bs_store64(p + BS_HEADER_SIZE + 8, h0);
	CHECK(bs_validate(p, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "hash 1 is not greater"), "two hashes out of order: BS_ERR_FORMAT (%s)", err.msg);
	CHECK(bs_validate(p, len, BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_OK,
		  "the quick check does not read the list");
	bs_store64(p + BS_HEADER_SIZE + 8, h0);
	CHECK(bs_validate(p, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT,
		  "a hash twice: BS_ERR_FORMAT (%s)", err.msg);
	bs_store64(p + BS_HEADER_SIZE, 0);
	bs_store64(p + BS_HEADER_SIZE + 8, h1);
	CHECK(bs_validate(p, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "zero hash is a flag"), "the hash 0 in the list: BS_ERR_FORMAT (%s)", err.msg);
	bs_store64(p + BS_HEADER_SIZE, h0);
	bs_store64(p + BS_OFF_N, 101);
	CHECK(bs_validate(p, len, BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "lists 100 hashes but counts 101"), "a count that is not the list's, even quick: BS_ERR_FORMAT (%s)", err.msg);
	bs_store64(p + BS_OFF_N, 100);
	CHECK(bs_validate(p, len - 8, BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_ERR_FORMAT,
		  "a list one hash short of its count: BS_ERR_FORMAT (%s)", err.msg);
	bs_store32(p + BS_OFF_P3, BS_AGG_STATE_PACKED | BS_AGG_STATE_DENSE);
	CHECK(bs_validate(p, len, BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "cannot be packed"), "dense and packed: BS_ERR_FORMAT (%s)", err.msg);
	bs_store32(p + BS_OFF_P3, BS_AGG_STATE_PACKED);
	CHECK(valid_state(p, &err), "restored, it validates again");

	bs_bloom_agg_state_new_counting(0.01, BS_FAMILY_INTEGER, 0, &alloc, &q, NULL);
	q = packed_of(add_all(q, h, 100));
	len = bs_bloom_agg_state_size(q);
	CHECK(len == BS_HEADER_SIZE + 900 && valid_state(q, &err), "a packed counting state of 100 hashes validates");
	q[BS_HEADER_SIZE + 800 + 7] = 0;
	CHECK(bs_validate(q, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "hash 7 has a count of 0"), "a count of 0: BS_ERR_FORMAT (%s)", err.msg);
	free(h);
	unit_arena_reset(&the_arena);
}

/*
 * A fixed state keeps an exact table while the table's 8-byte slots fit in
 * the classic filter's payload, then turns into the filter; the final filter
 * is the same, byte for byte, whichever phase it comes from.
 */
static void
test_fixed_exact(void)
{
	unit_rng	r = {2300};
	uint64_t   *h = unit_random_hashes(&r, 200000);
	uint8_t    *s,
			   *x,
			   *y,
			   *f,
			   *d,
			   *p,
			   *c;
	size_t		lf,
				ld,
				len;
	bs_error	err;
	bs_status	st;

	/* 1,000,000 at 1%: 9,585,059 bits, 1,198,133 payload bytes, so at most 131,072 slots (1 MB) */
	bs_bloom_agg_state_new_fixed(1000000, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &s, NULL);
	CHECK(flags_of(s) == BS_AGG_STATE_FIXED && bs_bloom_agg_state_size(s) == 176 &&
		  bs_load64(s + BS_OFF_N) == 1000000 && bs_load32(s + BS_OFF_P2) == 0 && valid_state(s, &err),
		  "a fixed state of capacity 1,000,000 starts exact: 176 bytes, the capacity in n, 0 hashes in p2");
	s = add_all(s, h, 98304);
	s = add_all(s, h, 1000);	/* duplicates change nothing */
	f = finish(s, &lf);
	d = direct_filter(1000000, 0.01, BS_FAMILY_INTEGER, h, 98304, &ld);
	CHECK(!(flags_of(s) & BS_AGG_STATE_DENSE) && bs_load64(s + BS_OFF_P1) == 131072 &&
		  bs_load32(s + BS_OFF_P2) == 98304 && valid_state(s, &err) && same_bytes(f, lf, d, ld),
		  "98,304 hashes: still exact in 131,072 slots (3/4 full), valid, and its filter is bloom_empty(1000000, 0.01) holding them");
	s = add_all(s, h + 98304, 1);
	f = finish(s, &lf);
	d = direct_filter(1000000, 0.01, BS_FAMILY_INTEGER, h, 98305, &ld);
	CHECK(flags_of(s) == (BS_AGG_STATE_FIXED | BS_AGG_STATE_DENSE) &&
		  bs_bloom_agg_state_size(s) == BS_HEADER_SIZE + 1198133 && valid_state(s, &err) &&
		  same_bytes(f, lf, d, ld),
		  "one more turns it into the dense filter (1,198,181 bytes), valid, with the same final bytes");

	/* packed, merged both ways and with itself: the filter of all the hashes */
	bs_bloom_agg_state_new_fixed(1000000, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &x, NULL);
	x = add_all(x, h, 40000);
	p = packed_of(x);
	len = bs_bloom_agg_state_size(p);
	CHECK(len == BS_HEADER_SIZE + 40000 * 8 && flags_of(p) == (BS_AGG_STATE_FIXED | BS_AGG_STATE_PACKED) &&
		  bs_load32(p + BS_OFF_P2) == 40000 && bs_load64(p + BS_OFF_N) == 1000000 && valid_state(p, &err),
		  "its packed form lists 40,000 hashes in 320,048 bytes and validates (%s)", valid_state(p, &err) ? "" : err.msg);
	bs_bloom_agg_state_new_fixed(1000000, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &y, NULL);
	y = add_all(y, h + 40000, 40000);
	c = copy_state(y);
	st = bs_bloom_agg_state_merge(&c, p, &alloc, &err);
	f = finish(c, &lf);
	d = direct_filter(1000000, 0.01, BS_FAMILY_INTEGER, h, 80000, &ld);
	CHECK(st == BS_OK && !(flags_of(c) & BS_AGG_STATE_DENSE) && bs_load32(c + BS_OFF_P2) == 80000 &&
		  same_bytes(f, lf, d, ld),
		  "exact halves of 40,000 merge into an exact state of 80,000 with the filter of all of them");
	c = copy_state(p);
	st = bs_bloom_agg_state_merge(&c, c, &alloc, &err);
	f = finish(c, &lf);
	d = direct_filter(1000000, 0.01, BS_FAMILY_INTEGER, h, 40000, &ld);
	CHECK(st == BS_OK && same_bytes(f, lf, d, ld), "a packed fixed state merged with itself keeps its filter");
	y = add_all(y, h + 80000, 120000);	/* dense now */
	c = copy_state(p);
	st = bs_bloom_agg_state_merge(&c, y, &alloc, &err);
	f = finish(c, &lf);
	d = direct_filter(1000000, 0.01, BS_FAMILY_INTEGER, h, 200000, &ld);
	CHECK(st == BS_OK && (flags_of(y) & BS_AGG_STATE_DENSE) && (flags_of(c) & BS_AGG_STATE_DENSE) &&
		  same_bytes(f, lf, d, ld), "exact <- dense: dense, the filter of all 200,000 hashes");
	st = bs_bloom_agg_state_merge(&y, p, &alloc, &err);
	x = finish(y, &ld);
	CHECK(st == BS_OK && same_bytes(f, lf, x, ld), "dense <- exact: the same filter as exact <- dense");

	/* targets: another capacity is refused, naming both */
	bs_bloom_agg_state_new_fixed(999999, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &c, NULL);
	x = copy_state(p);
	st = bs_bloom_agg_state_merge(&x, c, &alloc, &err);
	CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "capacity 1000000 (classic, seed 0)") &&
		  strstr(err.msg, "capacity 999999 (classic, seed 0)"),
		  "exact fixed states of capacities 1,000,000 and 999,999 do not merge: %s", err.msg);

	/* where the exact phase applies: a 120-byte filter is dense from the start */
	bs_bloom_agg_state_new_fixed(100, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &c, NULL);
	bs_bloom_agg_state_new_fixed(107, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &x, NULL);
	CHECK(flags_of(c) == (BS_AGG_STATE_FIXED | BS_AGG_STATE_DENSE) && flags_of(x) == BS_AGG_STATE_FIXED,
		  "capacity 100 (a 120-byte filter) starts dense, 107 (129 bytes) exact");

	/* refusals */
	x = copy_state(s = add_all(x, h, 10));
	bs_store64(x + BS_OFF_N, 0);
	CHECK(bs_validate(x, bs_bloom_agg_state_size(x), BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "invalid capacity 0"), "capacity 0: BS_ERR_FORMAT (%s)", err.msg);
	bs_store64(x + BS_OFF_N, 100);
	CHECK(bs_validate(x, bs_bloom_agg_state_size(x), BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "must be dense"), "an exact state of capacity 100: BS_ERR_FORMAT (%s)", err.msg);
	bs_store64(x + BS_OFF_N, UINT64_C(1) << 53);
	CHECK(bs_validate(x, bs_bloom_agg_state_size(x), BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "has no classic filter"), "a capacity of 2^53, whose filter cannot exist: BS_ERR_FORMAT (%s)", err.msg);
	bs_store64(x + BS_OFF_N, 107);
	bs_store32(x + BS_OFF_P2, 11);
	CHECK(bs_validate(x, bs_bloom_agg_state_size(x), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "counts 11 hashes but its table holds 10"), "a count in p2 that is not the table's: BS_ERR_FORMAT (%s)", err.msg);
	bs_store32(x + BS_OFF_P2, 10);
	CHECK(valid_state(x, &err), "restored, it validates");
	bs_bloom_agg_state_new_fixed(1000000, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &c, NULL);
	c = add_all(c, h, 98304);
	bs_store64(c + BS_OFF_N, 800000);	/* at most 65,536 slots */
	CHECK(bs_validate(c, bs_bloom_agg_state_size(c), BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "has 131072 slots, more than its table of at most 65536"),
		  "a table larger than its capacity's filter: BS_ERR_FORMAT (%s)", err.msg);
	bs_store32(x + BS_OFF_P3, BS_AGG_STATE_FIXED | BS_AGG_STATE_COUNTED);
	CHECK(bs_validate(x, bs_bloom_agg_state_size(x), BS_KIND_BLOOM_AGG_STATE, false, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "cannot have a fixed capacity"), "fixed and counting: BS_ERR_FORMAT (%s)", err.msg);

	/*
	 * A state whose capacity has no filter fails where it turns dense, and
	 * keeps what it held.  Unreachable from SQL (the aggregate sizes the
	 * filter before its first row, and input is validated), so only here.
	 */
	{
		uint8_t    *one,
				   *before;
		uint64_t	batch[2] = {h[11], h[12]},
					scratch[64];
		bs_status	s1,
					s2,
					s3;

		x = copy_state(s);		/* 10 hashes in 16 slots: the 13th turns it dense */
		bs_store64(x + BS_OFF_N, UINT64_C(1) << 53);
		s1 = bs_bloom_agg_state_add(&x, h[10], &alloc, &err);
		before = x;
		one = copy_state(x);
		err.msg[0] = '\0';
		s2 = bs_bloom_agg_state_add_batch(&x, batch, 2, scratch, 64, &alloc, &err);
		CHECK(s1 == BS_OK && s2 != BS_OK && err.msg[0] != '\0' && x == before &&
			  bs_load32(x + BS_OFF_P2) == 12 && flags_of(x) == BS_AGG_STATE_FIXED,
			  "capacity 2^53: the 13th hash of a batch cannot turn it into a filter: %s (status %d), 12 hashes still held, exact",
			  err.msg, (int) s2);
		x = copy_state(one);
		err.msg[0] = '\0';
		s3 = bs_bloom_agg_state_add(&x, h[12], &alloc, &err);
		CHECK(s3 == BS_OK && bs_load32(x + BS_OFF_P2) == 12 && flags_of(x) == BS_AGG_STATE_FIXED,
			  "the same one hash at a time: the 12th goes in, then ...");
		s3 = bs_bloom_agg_state_add(&x, h[13], &alloc, &err);
		CHECK(s3 == s2 && flags_of(x) == BS_AGG_STATE_FIXED && bs_load32(x + BS_OFF_P2) == 12,
			  "... the 13th fails the same way (%s) and the state keeps its 12 hashes", err.msg);
		bs_bloom_agg_state_new_fixed(107, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &c, NULL);
		c = add_all(c, h + 100, 10);
		bs_store64(c + BS_OFF_N, UINT64_C(1) << 53);
		x = copy_state(one);
		err.msg[0] = '\0';
		s3 = bs_bloom_agg_state_merge(&x, c, &alloc, &err);
		CHECK(s3 == s2 && err.msg[0] != '\0' && !(flags_of(x) & BS_AGG_STATE_DENSE),
			  "merging 10 new hashes into its 11 fails the same way, and it stays exact (%s)", err.msg);
	}
	free(h);
	unit_arena_reset(&the_arena);
}

int
main(void)
{
	test_exact_order();
	test_split_merge();
	test_auto_exact_sizes();
	test_dense();
	test_exact_dense_merge();
	test_fixed();
	test_merge_errors();
	test_check();
	test_batches();
	test_packed();
	test_packed_check();
	test_fixed_exact();
	free(the_arena.ptr);
	return unit_done("bloom_agg_state");
}
