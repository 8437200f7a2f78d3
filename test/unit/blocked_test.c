/*
 * blocked_test.c: the cache-blocked layout (src/core/blocked.h): where a
 * key's bits go, no false negatives, measured rates against the blocked
 * formula, the sizing, estimates from the fill, folding, the format checks
 * and the bloom_agg states that make blocked filters.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/bloom.h"
#include "core/bloom_agg_state.h"
#include "core/endian.h"
#include "core/format.h"
#include "unit.h"

static unit_arena the_arena;
static const bs_allocator alloc = {unit_arena_alloc, &the_arena, NULL};

/* A new blocked filter of m bits and k hashes (calloc'd; free it). */
static uint8_t *
new_blocked(uint64_t m, uint32_t k, bs_bloom *b)
{
	uint8_t    *buf = unit_calloc(1, BS_HEADER_SIZE + bs_bloom_payload_bytes(m));

	bs_bloom_init_layout(buf, m, k, BS_LAYOUT_BLOCKED, BS_FAMILY_INTEGER, 0);
	bs_bloom_view(buf, b);
	return buf;
}

static void
test_one_block_per_key(void)
{
	unit_rng	r = {1};
	int			bad = 0,
				i;

	for (i = 0; i < 2000; i++)
	{
		uint64_t	blocks = 1 + unit_below(&r, 300),
					m = blocks * BS_BLOCK_BITS,
					h = unit_next(&r),
					want = bs_reduce(h, blocks),
					x,
					b;
		uint32_t	k = 1 + (uint32_t) unit_below(&r, BS_BLOOM_MAX_HASHES);
		bs_bloom	f;
		uint8_t    *buf = new_blocked(m, k, &f);

		bs_bloom_add(&f, h);
		for (b = 0; b < blocks; b++)
		{
			x = bs_popcount(f.bits + b * BS_BLOCK_BYTES, BS_BLOCK_BYTES);
			if ((b == want) != (x > 0) || x > k)
				bad++;
		}
		if (!bs_bloom_contains(&f, h))
			bad++;
		free(buf);
	}
	CHECK(bad == 0, "a key sets between 1 and k bits, all in block reduce(h, B), and is found (2,000 random shapes, %d bad)", bad);
}

/*
 * The blocked layout's bits as version 1.3 set and tested them, byte by
 * byte with a branch per probe (format 1: doc/format.md).  The word-wise
 * code of blocked.h must set the same bits and answer the same.
 */
static void
reference_add(uint8_t *bits, uint64_t m, uint32_t k, uint64_t h)
{
	uint8_t    *blk = bits + bs_reduce(h, m / 512) * 64;
	uint32_t	i = 0,
				j = 0;

	while (i < k)
	{
		uint64_t	g = bs_splitmix(h, j++);
		uint32_t	t;

		for (t = 0; t < 7 && i < k; t++, i++, g >>= 9)
			blk[(g & 511) >> 3] |= (uint8_t) (1u << (g & 7));
	}
}

static bool
reference_contains(const uint8_t *bits, uint64_t m, uint32_t k, uint64_t h)
{
	const uint8_t *blk = bits + bs_reduce(h, m / 512) * 64;
	uint32_t	i = 0,
				j = 0;

	while (i < k)
	{
		uint64_t	g = bs_splitmix(h, j++);
		uint32_t	t;

		for (t = 0; t < 7 && i < k; t++, i++, g >>= 9)
			if ((blk[(g & 511) >> 3] & (1u << (g & 7))) == 0)
				return false;
	}
	return true;
}

static void
test_same_bits_as_before(void)
{
	unit_rng	r = {11};
	int			bits_differ = 0,
				answers_differ = 0,
				present = 0,
				shape;

	for (shape = 0; shape < 300; shape++)
	{
		uint64_t	blocks = 1 + unit_below(&r, 40),
					m = blocks * BS_BLOCK_BITS,
					nkeys = 1 + unit_below(&r, blocks * 60),
					i;
		uint32_t	k = 1 + (uint32_t) unit_below(&r, BS_BLOOM_MAX_HASHES);
		bs_bloom	f;
		uint8_t    *buf = new_blocked(m, k, &f),
				   *ref = unit_calloc(1, bs_bloom_payload_bytes(m));
		unit_rng	keys = {1000 + (uint64_t) shape};

		for (i = 0; i < nkeys; i++)
		{
			uint64_t	h = unit_next(&keys);

			bs_bloom_add(&f, h);
			reference_add(ref, m, k, h);
		}
		bits_differ += memcmp(f.bits, ref, bs_bloom_payload_bytes(m)) != 0;
		/* the keys added, then as many others (some found: false positives) */
		keys.s = 1000 + (uint64_t) shape;
		for (i = 0; i < 2 * nkeys; i++)
		{
			uint64_t	h = unit_next(&keys);
			bool		got = bs_bloom_contains(&f, h);

			answers_differ += got != reference_contains(ref, m, k, h);
			present += got;
		}
		free(buf);
		free(ref);
	}
	CHECK(bits_differ == 0,
		  "bs_blocked_add_hash sets the bits of the byte-wise loop of version 1.3 (300 filters, k 1 to 64; %d differ)",
		  bits_differ);
	CHECK(answers_differ == 0 && present > 0,
		  "bs_blocked_contains_hash answers as the byte-wise loop on keys added and not (%d differ, %d found)",
		  answers_differ, present);
}

static void
test_rates(double p)
{
	unit_rng	r = {7};
	double		n = 200000;
	uint64_t	m = 0,
				classic = 0,
				i,
				tries = 2000000,
				fp = 0,
				fn = 0;
	uint32_t	k = 0;
	bs_bloom	f;
	uint8_t    *buf;
	double		want,
				got;

	bs_status	st = bs_blocked_optimal(n, p, &m, &k, NULL);

	CHECK(st == BS_OK && m % BS_BLOCK_BITS == 0,
		  "bs_blocked_optimal(200,000, %g) gives %" PRIu64 " bits (a multiple of 512), %u hashes", p, m, k);
	(void) bs_bloom_optimal_bits(n, p, &classic, NULL);
	CHECK(m >= classic && m <= classic * 1.25,
		  "p = %g: blocked uses %.2f bits per key, classic %.2f (%.1f%% more)",
		  p, m / n, classic / n, 100.0 * ((double) m / classic - 1));
	want = bs_blocked_fpr(m, n, k);
	CHECK(want <= p && bs_blocked_fpr(m - BS_BLOCK_BITS, n, bs_blocked_best_hashes(m - BS_BLOCK_BITS, n)) > p,
		  "p = %g: the blocked rate %.6g meets p, and one block fewer does not", p, want);
	buf = new_blocked(m, k, &f);
	{
		unit_rng	keys = {99};

		for (i = 0; i < (uint64_t) n; i++)
			bs_bloom_add(&f, unit_next(&keys));
		keys.s = 99;
		for (i = 0; i < (uint64_t) n; i++)
			fn += !bs_bloom_contains(&f, unit_next(&keys));
	}
	for (i = 0; i < tries; i++)
		fp += bs_bloom_contains(&f, unit_next(&r));
	got = (double) fp / tries;
	CHECK(fn == 0, "p = %g: no false negatives among the 200,000 keys added (%" PRIu64 ")", p, fn);
	CHECK(fabs(got - want) <= 0.1 * want,
		  "p = %g: measured rate %.6g is within 10%% of the blocked formula %.6g (%" PRIu64 " lookups)",
		  p, got, want, tries);
	CHECK(fabs(bs_blocked_fpr_from_fill(f.bits, m, k) - got) <= 0.1 * got,
		  "p = %g: the rate from the blocks' fill %.6g is within 10%% of the measured %.6g",
		  p, bs_blocked_fpr_from_fill(f.bits, m, k), got);
	CHECK(fabs(bs_bloom_cardinality_of(&f) - n) <= 0.02 * n,
		  "p = %g: the cardinality from the blocks' fill %.0f is within 2%% of 200,000",
		  p, bs_bloom_cardinality_of(&f));
	free(buf);
}

static void
test_formula(void)
{
	double		lam = 50,
				poisson = 0,
				textbook = 0,
				term = exp(-lam),
			   *work = unit_calloc(BS_FPR_EXACT_WORK_LEN, sizeof(double));
	uint32_t	k = 7,
				i;
	uint64_t	m = (UINT64_C(1) << 20) * BS_BLOCK_BITS;
	int			bad = 0;

	/*
	 * One block holding n keys is a classic filter of 512 bits: the block
	 * rate is Bose et al.'s exact rate, both by the sum of exponentials
	 * (k <= 20) and by the throw-by-throw programme (k > 20).
	 */
	{
		uint32_t	ks[] = {1, 3, 7, 13, 20, 21, 30, 64};
		uint64_t	ns[] = {1, 2, 10, 40, 100};
		size_t		a1,
					a2;

		for (a1 = 0; a1 < sizeof(ks) / sizeof(ks[0]); a1++)
			for (a2 = 0; a2 < sizeof(ns) / sizeof(ns[0]); a2++)
			{
				double		exact = 0;

				if (bs_bloom_fpr_exact(512, ns[a2], ks[a1], work, &exact, NULL) != BS_OK)
					continue;	/* past its work limit */
				if (fabs(bs_blocked_fpr(512, (double) ns[a2], ks[a1]) - exact) > 1e-4 * exact)
				{
					bad++;
					printf("# k = %u, n = %" PRIu64 ": blocked %.12g, exact %.12g\n", ks[a1], ns[a2],
						   bs_blocked_fpr(512, (double) ns[a2], ks[a1]), exact);
				}
			}
	}
	CHECK(bad == 0, "one block of n keys: the block rate equals Bose et al.'s exact rate of a 512-bit filter to 1e-4, however small (k up to 64, %d differ)", bad);

	/* many blocks: the binomial mixture tends to the Poisson mixture of the exact block rates */
	for (i = 0; i < 400; i++)
	{
		double		exact = 0;

		if (i > 0)
			term *= lam / i;
		if (term < 1e-30)
			continue;
		(void) bs_bloom_fpr_exact(512, i, k, work, &exact, NULL);
		poisson += term * exact;
		textbook += term * pow(1 - pow(1 - 1.0 / 512, (double) i * k), k);
	}
	CHECK(fabs(bs_blocked_fpr(m, lam * (m / 512), k) - poisson) < 1e-3 * poisson,
		  "2^20 blocks, 50 keys a block, k = 7: binomial %.8g agrees with the Poisson mixture of exact block rates %.8g",
		  bs_blocked_fpr(m, lam * (m / 512), k), poisson);
	CHECK(poisson > textbook * 1.005 && poisson < textbook * 1.03,
		  "... which is %.2f%% above Putze et al.'s textbook form %.8g (the mean fill to the k-th power)",
		  100 * (poisson / textbook - 1), textbook);
	free(work);
	{
		uint64_t	mb = 0,
					mc = 0;
		uint32_t	kb = 0;
		bs_status	st = bs_blocked_optimal(2000, 1e-15, &mb, &kb, NULL);

		(void) bs_bloom_optimal_bits(2000, 1e-15, &mc, NULL);
		CHECK(st == BS_OK && bs_blocked_fpr(mb, 2000, kb) <= 1e-15 && kb <= BS_BLOCKED_MAX_HASHES &&
			  mb < 8 * mc,
			  "2,000 keys at 1e-15: %" PRIu64 " bits (%.1f times classic), %u hashes, rate %.3g: tiny rates are met, at a price",
			  mb, (double) mb / mc, kb, bs_blocked_fpr(mb, 2000, kb));
	}
	CHECK(bs_blocked_fpr(512 * 100, 0, 5) == 0, "no keys: rate 0");
	CHECK(bs_blocked_fpr(512 * 1000, 5000, 4) < bs_blocked_fpr(512 * 999, 5000, 4),
		  "more blocks, lower rate");
	{
		uint64_t	m1;
		uint32_t	k1;
		bs_error	err;

		bs_status	st1 = bs_blocked_optimal(1, 0.01, &m1, &k1, NULL);

		CHECK(st1 == BS_OK && m1 == 512,
			  "one key at 1%%: one block (%" PRIu64 " bits, %u hashes)", m1, k1);
		CHECK(bs_blocked_optimal(0, 0.01, &m1, &k1, &err) == BS_ERR_PARAM &&
			  bs_blocked_optimal(10, 1.0, &m1, &k1, &err) == BS_ERR_PARAM &&
			  bs_blocked_optimal(4e9, 1e-6, &m1, &k1, &err) == BS_ERR_LIMIT,
			  "sizing: capacity 0 and rate 1 are parameter errors, 4e9 keys at 1e-6 exceeds the limit (%s)",
			  err.msg);
	}
}

static void
test_fold(void)
{
	unit_rng	r = {3};
	uint64_t	B = 10368 * 2,
				M = B * BS_BLOCK_BITS,
				fs[] = {1, 2, 3, 4, 6, 8, 9, 12, 27, 81, 128, 10368},
				i,
				j;
	int			bad = 0;
	bs_bloom	big;
	uint8_t    *bb = new_blocked(M, 6, &big);
	uint64_t   *h = unit_random_hashes(&r, 30000);

	for (i = 0; i < 30000; i++)
		bs_bloom_add(&big, h[i]);
	for (j = 0; j < sizeof(fs) / sizeof(fs[0]); j++)
	{
		bs_bloom	direct;
		uint8_t    *db = new_blocked(M / fs[j], 6, &direct),
				   *folded = unit_calloc(1, bs_bloom_payload_bytes(M / fs[j]));

		for (i = 0; i < 30000; i++)
			bs_bloom_add(&direct, h[i]);
		bs_blocked_fold(big.bits, M, fs[j], folded);
		bad += memcmp(folded, direct.bits, bs_bloom_payload_bytes(M / fs[j])) != 0;
		free(db);
		free(folded);
	}
	CHECK(bad == 0, "folding %" PRIu64 " blocks by f in {1, ..., 10368} equals building with B/f blocks, byte for byte (%d differ)", B, bad);
	free(bb);
	free(h);
}

static void
test_format(void)
{
	bs_bloom	f;
	uint8_t    *buf = new_blocked(1024, 3, &f);
	size_t		len = BS_HEADER_SIZE + 128;
	bs_error	err;
	bs_header	h;

	CHECK(bs_validate(buf, len, BS_KIND_BLOOM, true, &h, &err) == BS_OK && h.p3 == BS_LAYOUT_BLOCKED,
		  "a blocked filter validates, with layout 1 in p3");
	bs_store32(buf + BS_OFF_P3, 2);
	CHECK(bs_validate(buf, len, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT,
		  "layout 2 is refused: %s", err.msg);
	bs_store32(buf + BS_OFF_P3, BS_LAYOUT_BLOCKED);
	bs_store64(buf + BS_OFF_P1, 1016);
	CHECK(bs_validate(buf, BS_HEADER_SIZE + 127, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT,
		  "a blocked filter of 1016 bits is refused: %s", err.msg);
	CHECK(bs_bloom_check_layout_shape(1000, 3, BS_LAYOUT_BLOCKED, &err) == BS_ERR_PARAM &&
		  bs_bloom_check_layout_shape(1024, 3, BS_LAYOUT_BLOCKED, NULL) == BS_OK &&
		  bs_bloom_check_layout_shape(1000, 3, BS_LAYOUT_CLASSIC, NULL) == BS_OK,
		  "shape: blocked needs a multiple of 512 bits, classic does not (%s)", err.msg);
	free(buf);
	{
		uint32_t	l = 9;

		CHECK(bs_layout_parse("blocked", 7, &l, NULL) == BS_OK && l == BS_LAYOUT_BLOCKED &&
			  bs_layout_parse("classic", 7, &l, NULL) == BS_OK && l == BS_LAYOUT_CLASSIC &&
			  bs_layout_parse("Blocked", 7, &l, &err) == BS_ERR_PARAM &&
			  strcmp(bs_layout_name(1), "blocked") == 0 && strcmp(bs_layout_name(5), "unknown") == 0,
			  "layout names: classic and blocked, nothing else (%s)", err.msg);
	}
	{
		bs_bloom	a,
					c;
		uint8_t    *ab = new_blocked(1024, 3, &a),
				   *cb = unit_calloc(1, BS_HEADER_SIZE + 128);

		bs_bloom_init(cb, 1024, 3, BS_FAMILY_INTEGER, 0);
		bs_bloom_view(cb, &c);
		CHECK(bs_bloom_check_mergeable(&a, &c, &err) == BS_ERR_SHAPE &&
			  strstr(err.msg, "blocked") && strstr(err.msg, "classic"),
			  "a blocked and a classic filter of the same shape do not merge: %s", err.msg);
		free(ab);
		free(cb);
	}
}

/* A state's final filter, in a new calloc'd buffer. */
static uint8_t *
finish(const uint8_t *s, bs_bloom *b)
{
	uint64_t	m,
				total;
	uint32_t	k;
	uint8_t    *out;

	bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
	(void) bs_bloom_size(m, &total, NULL);
	out = unit_calloc(1, (size_t) total);
	bs_bloom_agg_state_finish(s, m, k, out);
	bs_bloom_view(out, b);
	return out;
}

static void
test_states(void)
{
	unit_rng	r = {11};
	uint8_t    *s,
			   *s2,
			   *out;
	uint64_t   *h = unit_random_hashes(&r, 1200000),
				m,
				i,
				fn = 0;
	uint32_t	k;
	bs_bloom	b;
	bs_error	err;
	bs_status	st;

	/* auto-sized, exact phase: the filter of bloom_empty(n, p, 'blocked') */
	(void) bs_bloom_agg_state_new_auto_layout(0.01, BS_LAYOUT_BLOCKED, BS_FAMILY_INTEGER, 0, &alloc, &s, NULL);
	for (i = 0; i < 5000; i++)
		(void) bs_bloom_agg_state_add(&s, h[i], &alloc, NULL);
	out = finish(s, &b);
	(void) bs_bloom_shape_for(5000, 0.01, BS_LAYOUT_BLOCKED, &m, &k, NULL);
	for (i = 0; i < 5000; i++)
		fn += !bs_bloom_contains(&b, h[i]);
	CHECK(b.layout == BS_LAYOUT_BLOCKED && b.m == m && b.k == k && fn == 0 &&
		  bs_validate(out, BS_HEADER_SIZE + bs_bloom_payload_bytes(m), BS_KIND_BLOOM, true, NULL, NULL) == BS_OK,
		  "auto-sized blocked state of 5,000 hashes: the bloom_empty(5000, 0.01, 'blocked') shape (%" PRIu64 " bits, %u hashes), all found", m, k);
	free(out);

	/* auto-sized, dense phase: past 2^20 distinct hashes, folded at the end */
	for (; i < 1200000; i++)
		(void) bs_bloom_agg_state_add(&s, h[i], &alloc, NULL);
	CHECK((bs_load32(s + BS_OFF_P3) & (BS_AGG_STATE_DENSE | BS_AGG_STATE_BLOCKED)) ==
		  (BS_AGG_STATE_DENSE | BS_AGG_STATE_BLOCKED) &&
		  bs_load64(s + BS_OFF_P1) % (BS_BLOCKED_FOLD_BASE * BS_BLOCK_BITS) == 0 &&
		  bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK,
		  "1.2M hashes: the state is a blocked dense filter of %" PRIu64 " bits (a multiple of 512 * 2^7 * 3^4), and valid",
		  bs_load64(s + BS_OFF_P1));
	out = finish(s, &b);
	fn = 0;
	for (i = 0; i < 1200000; i++)
		fn += !bs_bloom_contains(&b, h[i]);
	CHECK(fn == 0 && b.layout == BS_LAYOUT_BLOCKED &&
		  bs_blocked_fpr(b.m, 1200000, b.k) <= 0.01,
		  "its final filter (%" PRIu64 " bits, %u hashes, folded by %" PRIu64 ") finds all 1.2M keys and meets 1%% (%.4f)",
		  b.m, b.k, bs_load64(s + BS_OFF_P1) / b.m, bs_blocked_fpr(b.m, 1200000, b.k));
	free(out);
	unit_arena_reset(&the_arena);

	/* fixed: same shape as bloom_empty; batches give the same bytes as one by one */
	(void) bs_bloom_shape_for(300000, 0.01, BS_LAYOUT_BLOCKED, &m, &k, NULL);
	(void) bs_bloom_agg_state_new_fixed_shape(300000, 0.01, BS_LAYOUT_BLOCKED, m, k, BS_FAMILY_INTEGER, 0, &alloc, &s, NULL);
	(void) bs_bloom_agg_state_new_fixed_shape(300000, 0.01, BS_LAYOUT_BLOCKED, m, k, BS_FAMILY_INTEGER, 0, &alloc, &s2, NULL);
	CHECK(!bs_bloom_agg_state_batches_pay(s) && !(bs_load32(s + BS_OFF_P3) & BS_AGG_STATE_DENSE),
		  "a fixed blocked state starts exact: %zu bytes, no batches", bs_bloom_agg_state_size(s));
	for (i = 0; i < 300000; i++)
		(void) bs_bloom_agg_state_add(&s, h[i], &alloc, NULL);
	CHECK(bs_bloom_agg_state_batches_pay(s) && (bs_load32(s + BS_OFF_P3) & BS_AGG_STATE_DENSE),
		  "after 300,000 hashes it is dense, %zu bytes, and takes batches (256 kB or more)",
		  bs_bloom_agg_state_size(s));
	{
		size_t		words = bs_bloom_agg_state_batch_scratch(s2, 4096);
		uint64_t   *scratch = unit_calloc(words, sizeof(uint64_t)),
				   *copy = unit_calloc(300000, sizeof(uint64_t));

		memcpy(copy, h, 300000 * sizeof(uint64_t));
		for (i = 0; i < 300000; i += 4096)
			(void) bs_bloom_agg_state_add_batch(&s2, copy + i, 300000 - i < 4096 ? 300000 - i : 4096,
										scratch, words, &alloc, NULL);
		CHECK(memcmp(s, s2, bs_bloom_agg_state_size(s)) == 0,
			  "a fixed blocked state: 300,000 hashes in batches give the bytes of adding them one by one");
		free(scratch);
		free(copy);
	}
	CHECK(bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK,
		  "the fixed blocked state is valid");
	/* a layout changes the target: merging a classic state into it fails, naming both */
	{
		uint8_t    *c,
				   *d = s;

		(void) bs_bloom_agg_state_new_fixed(300000, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &c, NULL);
		st = bs_bloom_agg_state_merge(&d, c, &alloc, &err);
		CHECK(d == s && st == BS_ERR_SHAPE &&
			  strstr(err.msg, "blocked") && strstr(err.msg, "classic"),
			  "merging fixed blocked and classic states fails: %s", err.msg);
	}
	{
		uint8_t    *c;

		(void) bs_bloom_agg_state_new_fixed(300000, 0.01, BS_FAMILY_INTEGER, 0, &alloc, &c, NULL);
		for (i = 0; i < 300000; i++)		/* dense */
			(void) bs_bloom_agg_state_add(&c, h[i], &alloc, NULL);
		bs_store32(c + BS_OFF_P3, bs_load32(c + BS_OFF_P3) | BS_AGG_STATE_BLOCKED);
		CHECK(bs_validate(c, bs_bloom_agg_state_size(c), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT,
			  "a classic fixed state marked blocked is refused: %s", err.msg);
	}
	{
		uint8_t    *c;

		(void) bs_bloom_agg_state_new_counting(0.01, BS_FAMILY_INTEGER, 0, &alloc, &c, NULL);
		bs_store32(c + BS_OFF_P3, bs_load32(c + BS_OFF_P3) | BS_AGG_STATE_BLOCKED);
		CHECK(bs_validate(c, bs_bloom_agg_state_size(c), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT,
			  "a counting state marked blocked is refused: %s", err.msg);
	}
	unit_arena_reset(&the_arena);
	free(h);
}

/*
 * bs_layout_positions lists exactly the bits a lookup tests (the bit-sliced
 * index relies on it): for random filters of both layouts, a key is found
 * exactly when every listed bit is set, and adding it sets exactly them.
 */
static void
test_positions(void)
{
	unit_rng	r = {7};
	int			bad = 0,
				i;

	for (i = 0; i < 600; i++)
	{
		uint32_t	layout = (i & 1) ? BS_LAYOUT_BLOCKED : BS_LAYOUT_CLASSIC;
		uint64_t	m = (layout == BS_LAYOUT_BLOCKED) ?
			(1 + unit_below(&r, 40)) * BS_BLOCK_BITS : 1 + unit_below(&r, 20000);
		uint32_t	k = 1 + (uint32_t) unit_below(&r, BS_BLOOM_MAX_HASHES);
		size_t		nb = (size_t) ((m + 7) / 8);
		uint8_t    *bits = calloc(nb, 1),
				   *one = calloc(nb, 1);
		uint64_t	pos[BS_BLOOM_MAX_HASHES];
		int			keys = (int) unit_below(&r, 200),
					q,
					j;

		for (q = 0; q < keys; q++)
			bs_layout_add(layout, bits, m, k, unit_next(&r));
		for (q = 0; q < 50; q++)
		{
			uint64_t	h = unit_next(&r);
			bool		all = true;

			bs_layout_positions(layout, m, k, h, pos);
			for (j = 0; j < (int) k; j++)
			{
				if (pos[j] >= m)
					bad++;
				else if ((bits[pos[j] >> 3] & (1u << (pos[j] & 7))) == 0)
					all = false;
			}
			if (all != bs_layout_contains(layout, bits, m, k, h))
				bad++;
			memset(one, 0, nb);
			bs_layout_add(layout, one, m, k, h);
			for (j = 0; j < (int) k; j++)
				if (pos[j] < m)
					one[pos[j] >> 3] &= (uint8_t) ~(1u << (pos[j] & 7));
			if (bs_popcount(one, nb) != 0)
				bad++;
		}
		free(bits);
		free(one);
	}
	CHECK(bad == 0, "bs_layout_positions lists the bits a lookup tests and an add sets (600 filters, both layouts, %d bad)", bad);
}

int
main(void)
{
	test_positions();
	test_one_block_per_key();
	test_same_bits_as_before();
	test_formula();
	test_rates(0.01);
	test_rates(0.001);
	test_fold();
	test_format();
	test_states();
	return unit_done("blocked");
}
