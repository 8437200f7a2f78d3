/*
 * bloom_test.c: the Bloom filter of src/core/bloom.c against the published
 * formulas (Fan et al. 2000, Table 3; Bose et al. 2008; doc/bibliography.md),
 * and its merges and folds.
 *
 * Every hash set comes from one splitmix64 stream, whose outputs are all
 * distinct, so the "absent" probes drawn after the members are truly absent.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/bloom.h"
#include "core/bloom_agg_state.h"		/* BS_FOLD_BASE */
#include "core/format.h"
#include "unit.h"

/* bs_bloom_fpr_exact's work space */
static double fpr_work[BS_FPR_EXACT_WORK_LEN];

static uint8_t *
new_filter(uint64_t m, uint32_t k, uint8_t family, uint64_t seed)
{
	uint64_t	total;
	uint8_t    *buf;

	if (bs_bloom_size(m, &total, NULL) != BS_OK)
	{
		fprintf(stderr, "bs_bloom_size(%" PRIu64 ") failed\n", m);
		exit(2);
	}
	buf = unit_calloc(1, (size_t) total);
	bs_bloom_init(buf, m, k, family, seed);
	return buf;
}

static void
add_all(uint8_t *buf, const uint64_t *h, size_t n)
{
	bs_bloom	b;
	size_t		i;

	bs_bloom_view(buf, &b);
	for (i = 0; i < n; i++)
		bs_bloom_add_hash(b.bits, b.m, b.k, h[i]);
}

/* Fraction of `probes` fresh hashes from r that the filter claims to hold. */
static double
measure_fpr(uint8_t *buf, unit_rng *r, uint64_t probes)
{
	bs_bloom	b;
	uint64_t	i,
				hits = 0;

	bs_bloom_view(buf, &b);
	for (i = 0; i < probes; i++)
		hits += bs_bloom_contains_hash(b.bits, b.m, b.k, unit_next(r));
	return (double) hits / (double) probes;
}


static void
test_sizing(void)
{
	uint64_t	m = 0,
				total = 0;
	uint32_t	k = 0;
	bs_error	err;
	bs_status	st;

	st = bs_bloom_optimal_bits(1000, 0.01, &m, &err);
	CHECK(st == BS_OK && m == 9586, "bs_bloom_optimal_bits(1000, 0.01) = 9586 (got status %d, %" PRIu64 ")", st, m);
	st = bs_bloom_optimal_hashes(9586, 1000, &k, &err);
	CHECK(st == BS_OK && k == 7, "bs_bloom_optimal_hashes(9586, 1000) = 7 (got status %d, %u)", st, k);
	st = bs_bloom_optimal_bits(100000, 0.001, &m, &err);
	CHECK(st == BS_OK && m == (uint64_t) ceil(-100000 * log(0.001) / (log(2) * log(2))),
		  "bs_bloom_optimal_bits(100000, 0.001) = ceil(-n ln p / ln^2 2) = %" PRIu64, m);
	st = bs_bloom_optimal_bits(1, 0.5, &m, &err);
	CHECK(st == BS_OK && m == 2, "bs_bloom_optimal_bits(1, 0.5) = 2 (got %" PRIu64 ")", m);

	CHECK(bs_bloom_optimal_bits(0, 0.01, &m, &err) == BS_ERR_PARAM, "optimal bits: n = 0 is BS_ERR_PARAM (%s)", err.msg);
	CHECK(bs_bloom_optimal_bits(0.5, 0.01, &m, &err) == BS_ERR_PARAM, "optimal bits: n = 0.5 is BS_ERR_PARAM");
	CHECK(bs_bloom_optimal_bits(-3, 0.01, &m, &err) == BS_ERR_PARAM, "optimal bits: n = -3 is BS_ERR_PARAM");
	CHECK(bs_bloom_optimal_bits(1000, 0, &m, &err) == BS_ERR_PARAM, "optimal bits: p = 0 is BS_ERR_PARAM (%s)", err.msg);
	CHECK(bs_bloom_optimal_bits(1000, 1, &m, &err) == BS_ERR_PARAM, "optimal bits: p = 1 is BS_ERR_PARAM");
	CHECK(bs_bloom_optimal_bits(1000, -0.1, &m, &err) == BS_ERR_PARAM, "optimal bits: p = -0.1 is BS_ERR_PARAM");
	CHECK(bs_bloom_optimal_bits(NAN, 0.01, &m, &err) == BS_ERR_PARAM, "optimal bits: n = NaN is BS_ERR_PARAM");
	CHECK(bs_bloom_optimal_bits(1000, NAN, &m, &err) == BS_ERR_PARAM, "optimal bits: p = NaN is BS_ERR_PARAM");
	CHECK(bs_bloom_optimal_bits(INFINITY, 0.01, &m, &err) == BS_ERR_PARAM, "optimal bits: n = +inf is BS_ERR_PARAM");
	st = bs_bloom_optimal_bits(1e12, 0.01, &m, &err);
	CHECK(st == BS_ERR_LIMIT && strstr(err.msg, "limit") != NULL,
		  "optimal bits: n = 1e12 at p = 0.01 is BS_ERR_LIMIT (%s)", err.msg);
	{
		/* the largest n that fits still succeeds, one bit more does not */
		double		n = floor((double) BS_BLOOM_MAX_BITS * log(2) * log(2) / -log(0.01)) - 1000;

		st = bs_bloom_optimal_bits(n, 0.01, &m, &err);
		CHECK(st == BS_OK && m <= BS_BLOOM_MAX_BITS,
			  "optimal bits: n = %.0f at p = 0.01 (just under the 1 GB limit) is accepted (%" PRIu64 " bits)", n, m);
	}

	CHECK(bs_bloom_optimal_hashes(0, 10, &k, &err) == BS_ERR_PARAM, "optimal hashes: m = 0 is BS_ERR_PARAM");
	CHECK(bs_bloom_optimal_hashes(100, 0, &k, &err) == BS_ERR_PARAM, "optimal hashes: n = 0 is BS_ERR_PARAM");
	CHECK(bs_bloom_optimal_hashes(100, NAN, &k, &err) == BS_ERR_PARAM, "optimal hashes: n = NaN is BS_ERR_PARAM");
	CHECK(bs_bloom_optimal_hashes(1000000, 1, &k, &err) == BS_ERR_PARAM,
		  "optimal hashes: 1e6 bits for 1 value (k > 64) is BS_ERR_PARAM (%s)", err.msg);
	st = bs_bloom_optimal_hashes(10, 1000, &k, &err);
	CHECK(st == BS_OK && k == 1, "optimal hashes: 10 bits for 1000 values gives k = 1 (got %u)", k);

	CHECK(bs_bloom_check_shape(8, 64, &err) == BS_OK && bs_bloom_check_shape(1, 1, &err) == BS_OK,
		  "check_shape accepts m = 8, k = 64 and m = 1, k = 1");
	CHECK(bs_bloom_check_shape(0, 3, &err) == BS_ERR_PARAM, "check_shape: m = 0 is BS_ERR_PARAM");
	CHECK(bs_bloom_check_shape(BS_BLOOM_MAX_BITS + 1, 3, &err) == BS_ERR_LIMIT,
		  "check_shape: m = BS_BLOOM_MAX_BITS + 1 is BS_ERR_LIMIT (%s)", err.msg);
	CHECK(bs_bloom_check_shape(8, 0, &err) == BS_ERR_PARAM && bs_bloom_check_shape(8, 65, &err) == BS_ERR_PARAM,
		  "check_shape: k = 0 and k = 65 are BS_ERR_PARAM");

	st = bs_bloom_size(13, &total, &err);
	CHECK(st == BS_OK && total == BS_HEADER_SIZE + 2, "bs_bloom_size(13) = 48 + 2 bytes (got %" PRIu64 ")", total);
	st = bs_bloom_size(BS_BLOOM_MAX_BITS, &total, &err);
	CHECK(st == BS_OK && total <= BS_MAX_SKETCH_BYTES,
		  "bs_bloom_size(BS_BLOOM_MAX_BITS) = %" PRIu64 " fits the 1 GB limit (%" PRIu64 ")", total, (uint64_t) BS_MAX_SKETCH_BYTES);
	CHECK(bs_bloom_size(0, &total, &err) == BS_ERR_PARAM, "bs_bloom_size(0) is BS_ERR_PARAM");
	CHECK(bs_bloom_size(BS_BLOOM_MAX_BITS + 1, &total, &err) == BS_ERR_LIMIT,
		  "bs_bloom_size(BS_BLOOM_MAX_BITS + 1) is BS_ERR_LIMIT");
}

static void
test_no_false_negatives(void)
{
	unit_rng	r = {101};
	const size_t n = 1000000;
	uint64_t   *h = unit_random_hashes(&r, n);
	uint64_t	m;
	uint32_t	k;
	uint8_t    *buf;
	bs_bloom	b;
	size_t		i,
				missing = 0;

	bs_bloom_optimal_bits((double) n, 0.01, &m, NULL);
	bs_bloom_optimal_hashes(m, (double) n, &k, NULL);
	buf = new_filter(m, k, BS_FAMILY_INTEGER, 0);
	add_all(buf, h, n);
	bs_bloom_view(buf, &b);
	for (i = 0; i < n; i++)
		missing += !bs_bloom_contains_hash(b.bits, b.m, b.k, h[i]);
	CHECK(missing == 0, "no false negatives: all 1,000,000 random hashes added to a %" PRIu64 "-bit, k = %u filter are found (%zu missing)",
		  m, k, missing);
	CHECK(bs_validate(buf, BS_HEADER_SIZE + bs_bloom_payload_bytes(m), BS_KIND_BLOOM, true, NULL, NULL) == BS_OK,
		  "the filter of 1,000,000 hashes passes bs_validate");
	free(buf);
	free(h);
}

static void
test_fpr_by_formula(void)
{
	const double ps[] = {0.01, 0.001};
	const size_t n = 100000;
	const uint64_t probes = 1000000;
	int			i;

	for (i = 0; i < 2; i++)
	{
		unit_rng	r = {200 + (uint64_t) i};
		uint64_t   *h = unit_random_hashes(&r, n);
		uint64_t	m;
		uint32_t	k;
		uint8_t    *buf;
		double		fpr,
					fill;
		bs_bloom	b;

		bs_bloom_optimal_bits((double) n, ps[i], &m, NULL);
		bs_bloom_optimal_hashes(m, (double) n, &k, NULL);
		buf = new_filter(m, k, BS_FAMILY_INTEGER, 0);
		add_all(buf, h, n);
		fpr = measure_fpr(buf, &r, probes);
		CHECK(fabs(fpr / ps[i] - 1) <= 0.25,
			  "n = 100000, p = %g: %" PRIu64 " bits, k = %u; measured FPR over 1,000,000 absent hashes %.5f = %.3f x p (want within +-25%%)",
			  ps[i], m, k, fpr, fpr / ps[i]);

		/* fill-based estimates of the same filter */
		bs_bloom_view(buf, &b);
		fill = bs_bloom_fpr_from_fill(m, k, bs_popcount(b.bits, bs_bloom_payload_bytes(m)));
		CHECK(fabs(fill / fpr - 1) <= 0.1,
			  "n = 100000, p = %g: bs_bloom_fpr_from_fill %.5f agrees with the measured FPR %.5f within 10%%",
			  ps[i], fill, fpr);
		{
			double		est = bs_bloom_cardinality(m, k, bs_popcount(b.bits, bs_bloom_payload_bytes(m)));

			CHECK(fabs(est / n - 1) <= 0.05,
				  "n = 100000, p = %g: bs_bloom_cardinality estimates %.0f distinct values (%.2f%% off, want within 5%%)",
				  ps[i], est, 100 * (est / n - 1));
		}
		free(buf);
		free(h);
	}
}

static void
test_fpr_table3(void)
{
	/* Fan et al. 2000, Table 3: false-positive rate for m/n bits per value and k hashes */
	static const struct
	{
		int			ratio;
		uint32_t	k;
		double		table;
	}			t3[] = {
		{2, 1, 0.393},
		{4, 2, 0.155},
		{8, 3, 0.0306},
		{8, 6, 0.0216},
		{10, 4, 0.0118},
		{12, 5, 0.00459},
		{16, 8, 0.000574},
	};
	const uint64_t n = 200000;
	const uint64_t probes = 4000000;
	unit_rng	r = {300};
	uint64_t   *h = unit_random_hashes(&r, n);
	int			i;

	for (i = 0; i < (int) (sizeof(t3) / sizeof(t3[0])); i++)
	{
		uint64_t	m = (uint64_t) t3[i].ratio * n;
		uint8_t    *buf = new_filter(m, t3[i].k, BS_FAMILY_INTEGER, 0);
		double		approx = bs_bloom_fpr_approx((double) m, (double) n, t3[i].k);
		double		fpr;

		CHECK(fabs(approx / t3[i].table - 1) <= 0.01,
			  "bs_bloom_fpr_approx(m/n = %d, k = %u) = %.4g matches Table 3 (%g) to its 3 digits",
			  t3[i].ratio, t3[i].k, approx, t3[i].table);
		add_all(buf, h, n);
		fpr = measure_fpr(buf, &r, probes);
		CHECK(fabs(fpr / t3[i].table - 1) <= 0.15,
			  "Table 3, m/n = %d, k = %u: measured FPR %.5g (n = 200000, 4,000,000 absent probes, ~%.0f expected hits) vs %g: %.3f x (want within +-15%%)",
			  t3[i].ratio, t3[i].k, fpr, t3[i].table * probes, t3[i].table, fpr / t3[i].table);
		free(buf);
	}
	free(h);
}

/* Bose et al.: p = m^{-k(n+1)} sum_i i^k i! C(m,i) S(kn, i), with Stirling numbers. */
static double
bose_stirling(int m, int n, int k)
{
	int			kn = k * n,
				i,
				j;
	static double S[128][128];	/* S[j][i], j <= kn <= 127 */
	double		p = 0;

	memset(S, 0, sizeof(S));
	S[0][0] = 1;
	for (j = 1; j <= kn; j++)
		for (i = 1; i <= j; i++)
			S[j][i] = i * S[j - 1][i] + S[j - 1][i - 1];
	for (i = 1; i <= m && i <= kn; i++)
	{
		/* i! C(m, i) / m^{kn} = falling(m, i) / m^{kn} */
		double		term = S[kn][i] * pow((double) i / m, k);
		int			t;

		for (t = 0; t < i; t++)
			term *= (double) (m - t);
		p += term / pow((double) m, kn);
	}
	return p;
}

static void
test_fpr_formulas(void)
{
	double		e = -1,
				a;
	bs_error	err;
	bs_status	st;
	int			i;
	static const int small[][3] = {{2, 1, 2}, {16, 2, 3}, {20, 3, 2}, {10, 4, 3}, {64, 8, 4}, {30, 5, 1}, {96, 10, 7}};
	int			bad_ge = 0,
				bad_bose = 0;
	double		worst_bose = 0;

	/* approx = (1 - e^{-kn/m})^k */
	a = bs_bloom_fpr_approx(9586, 1000, 7);
	CHECK(fabs(a - pow(1 - exp(-7.0 * 1000 / 9586), 7)) <= 1e-15,
		  "bs_bloom_fpr_approx(9586, 1000, 7) = (1 - e^{-kn/m})^k = %.8f", a);
	a = bs_bloom_fpr_approx(1e9, 1, 1);
	CHECK(fabs(a / 1e-9 - 1) <= 1e-6, "bs_bloom_fpr_approx(1e9, 1, 1) = %.6g (~1e-9, no cancellation)", a);
	CHECK(bs_bloom_fpr_approx(100, 0, 3) == 0, "bs_bloom_fpr_approx with n = 0 is 0");

	st = bs_bloom_fpr_exact(2, 1, 2, fpr_work, &e, &err);
	CHECK(st == BS_OK && fabs(e - 10.0 / 16) <= 1e-12,
		  "bs_bloom_fpr_exact(m = 2, n = 1, k = 2) = 10/16 (Bose et al.'s example; got %.15f)", e);
	st = bs_bloom_fpr_exact(100, 0, 3, fpr_work, &e, &err);
	CHECK(st == BS_OK && e == 0, "bs_bloom_fpr_exact with n = 0 is 0 (got %g)", e);
	st = bs_bloom_fpr_exact(1, 5, 3, fpr_work, &e, &err);
	CHECK(st == BS_OK && fabs(e - 1) <= 1e-12, "bs_bloom_fpr_exact with m = 1 is 1 (got %g)", e);

	for (i = 0; i < (int) (sizeof(small) / sizeof(small[0])); i++)
	{
		double		b = bose_stirling(small[i][0], small[i][1], small[i][2]);

		st = bs_bloom_fpr_exact(small[i][0], small[i][1], small[i][2], fpr_work, &e, &err);
		a = bs_bloom_fpr_approx(small[i][0], small[i][1], small[i][2]);
		if (st != BS_OK || e < a)
			bad_ge++;
		if (st != BS_OK || fabs(e - b) > 1e-12 * b + 1e-15)
			bad_bose++;
		if (fabs(e - b) / b > worst_bose)
			worst_bose = fabs(e - b) / b;
	}
	CHECK(bad_ge == 0, "exact >= approx for (m, n, k) = (2,1,2) (16,2,3) (20,3,2) (10,4,3) (64,8,4) (30,5,1) (96,10,7) (%d not)", bad_ge);
	CHECK(bad_bose == 0,
		  "bs_bloom_fpr_exact equals Bose et al.'s Stirling-number sum for the same 7 cases (worst relative difference %.2g)",
		  worst_bose);

	/* Exact approaches approx as m grows at m/n = 10, k = 7. */
	{
		double		rel[3];
		uint64_t	ms[3] = {100, 1000, 10000};

		for (i = 0; i < 3; i++)
		{
			bs_bloom_fpr_exact(ms[i], ms[i] / 10, 7, fpr_work, &e, NULL);
			a = bs_bloom_fpr_approx((double) ms[i], (double) (ms[i] / 10), 7);
			rel[i] = e / a - 1;
		}
		CHECK(rel[0] > rel[1] && rel[1] > rel[2] && rel[2] >= 0 && rel[2] < 0.002,
			  "exact/approx - 1 shrinks with m at m/n = 10, k = 7: m = 100: %.4f, 1000: %.5f, 10000: %.6f",
			  rel[0], rel[1], rel[2]);
	}

	st = bs_bloom_fpr_exact(1000000, 100000, 7, fpr_work, &e, &err);
	CHECK(st == BS_ERR_LIMIT, "bs_bloom_fpr_exact(1e6, 1e5, 7) is past the work limit: BS_ERR_LIMIT (%s)", err.msg);
	st = bs_bloom_fpr_exact(10000, 1428, 7, fpr_work, &e, &err);
	CHECK(st == BS_OK, "bs_bloom_fpr_exact(10000, 1428, 7) is within the work limit (%g steps)", 9996.0 * 9996.0);
	CHECK(bs_bloom_fpr_exact(0, 1, 1, fpr_work, &e, &err) != BS_OK && bs_bloom_fpr_exact(10, 1, 0, fpr_work, &e, &err) != BS_OK,
		  "bs_bloom_fpr_exact rejects m = 0 and k = 0");

	/* fill formulas */
	CHECK(bs_bloom_fpr_from_fill(1000, 3, 500) == 0.125 && bs_bloom_fpr_from_fill(1000, 3, 0) == 0 &&
		  bs_bloom_fpr_from_fill(1000, 3, 1000) == 1,
		  "bs_bloom_fpr_from_fill = (X/m)^k: 0.125 at half fill, k = 3; 0 empty; 1 full");
	CHECK(bs_bloom_cardinality(1000, 3, 0) == 0 && isinf(bs_bloom_cardinality(1000, 3, 1000)) &&
		  fabs(bs_bloom_cardinality(1000, 2, 500) - 500 * log(2)) < 1e-9,
		  "bs_bloom_cardinality = -(m/k) ln(1 - X/m): 0 empty, +inf full, 500 ln 2 at m = 1000, k = 2, X = 500");
}

/*
 * Small filters: the measured rate, averaged over many filters (the rate of
 * one small filter varies with its fill), must agree with Bose et al.'s exact
 * rate, which assumes independent probe positions.
 */
static void
test_fpr_small_vs_exact(void)
{
	static const struct
	{
		uint64_t	m,
					n;
		uint32_t	k;
	}			cases[] = {{96, 10, 7}, {144, 10, 10}, {959, 100, 7}, {9586, 1000, 7}};
	int			c;

	for (c = 0; c < (int) (sizeof(cases) / sizeof(cases[0])); c++)
	{
		unit_rng	r = {450 + (uint64_t) c};
		uint64_t	filters = 100000 / cases[c].n,
					per = 3000000 / filters,
					hits = 0,
					f,
					i;
		uint8_t    *buf = new_filter(cases[c].m, cases[c].k, BS_FAMILY_INTEGER, 0);
		bs_bloom	b;
		double		exact = 0,
					fpr;

		bs_bloom_fpr_exact(cases[c].m, cases[c].n, cases[c].k, fpr_work, &exact, NULL);
		bs_bloom_view(buf, &b);
		for (f = 0; f < filters; f++)
		{
			memset(b.bits, 0, bs_bloom_payload_bytes(b.m));
			for (i = 0; i < cases[c].n; i++)
				bs_bloom_add_hash(b.bits, b.m, b.k, unit_next(&r));
			for (i = 0; i < per; i++)
				hits += bs_bloom_contains_hash(b.bits, b.m, b.k, unit_next(&r));
		}
		fpr = (double) hits / (double) (per * filters);
		CHECK(fabs(fpr / exact - 1) <= 0.15,
			  "m = %" PRIu64 ", n = %" PRIu64 ", k = %u: measured FPR over %" PRIu64 " filters and %" PRIu64 " probes %.5f = %.3f x Bose's exact rate %.5f (want within +-15%%)",
			  cases[c].m, cases[c].n, cases[c].k, filters, per * filters, fpr, fpr / exact, exact);
		free(buf);
	}
}

static void
test_merges(void)
{
	unit_rng	r = {400};
	/* A = h[0, 50000), B = h[30000, 80000): intersection h[30000, 50000) */
	uint64_t   *h = unit_random_hashes(&r, 80000);
	const uint64_t m = 479001;		/* 6 bits per value of the union, odd m */
	const uint32_t k = 4;
	uint8_t    *fa = new_filter(m, k, BS_FAMILY_INTEGER, 0),
			   *fb = new_filter(m, k, BS_FAMILY_NONE, 0),
			   *fu = new_filter(m, k, BS_FAMILY_INTEGER, 0),
			   *fi = new_filter(m, k, BS_FAMILY_INTEGER, 0),
			   *fb_copy;
	uint64_t	total = BS_HEADER_SIZE + bs_bloom_payload_bytes(m),
				i,
				missing = 0,
				extra_bits = 0;
	bs_bloom	a,
				b,
				u,
				in;

	add_all(fa, h, 50000);
	add_all(fb, h + 30000, 50000);
	add_all(fu, h, 80000);
	add_all(fi, h + 30000, 20000);
	fb_copy = unit_calloc(1, total);
	memcpy(fb_copy, fb, total);

	bs_bloom_view(fa, &a);
	bs_bloom_view(fb, &b);
	CHECK(bs_bloom_check_mergeable(&a, &b, NULL) == BS_OK, "filters of integer and of no keys (NONE) are mergeable");
	bs_bloom_or(&a, &b);
	CHECK(memcmp(fa, fu, total) == 0,
		  "OR of the filters of A (50000) and B (50000) is byte-equal to the filter of A u B (80000), header included");
	CHECK(memcmp(fb, fb_copy, total) == 0, "OR leaves its source unchanged");

	/* AND */
	bs_bloom_init(fa, m, k, BS_FAMILY_NONE, 0);
	add_all(fa, h, 50000);
	bs_bloom_view(fa, &a);
	bs_bloom_view(fi, &in);
	bs_bloom_and(&a, &b);
	for (i = 30000; i < 50000; i++)
		missing += !bs_bloom_contains_hash(a.bits, m, k, h[i]);
	CHECK(missing == 0, "AND of the filters of A and B contains all 20000 values of the intersection (%" PRIu64 " missing)", missing);
	for (i = 0; i < bs_bloom_payload_bytes(m); i++)
		extra_bits += (uint64_t) __builtin_popcount(in.bits[i] & ~a.bits[i]);
	CHECK(extra_bits == 0, "every bit of the filter of the intersection is set in the AND (%" PRIu64 " not)", extra_bits);
	{
		uint64_t	pa = bs_popcount(a.bits, bs_bloom_payload_bytes(m)),
					pi = bs_popcount(in.bits, bs_bloom_payload_bytes(m)),
					pu;

		bs_bloom_view(fu, &u);
		pu = bs_popcount(u.bits, bs_bloom_payload_bytes(m));
		CHECK(pa >= pi && pa < pu, "AND popcount %" PRIu64 " lies between the intersection's %" PRIu64 " and the union's %" PRIu64,
			  pa, pi, pu);
	}
	CHECK(fa[BS_OFF_FAMILY] == BS_FAMILY_NONE && a.family == BS_FAMILY_NONE,
		  "AND of two filters of NONE keys stays NONE");
	CHECK(bs_validate(fa, total, BS_KIND_BLOOM, true, NULL, NULL) == BS_OK, "the AND result passes bs_validate");

	/* check_mergeable */
	{
		uint8_t    *x = new_filter(1000, 7, BS_FAMILY_INTEGER, 0),
				   *y = new_filter(2000, 7, BS_FAMILY_INTEGER, 0),
				   *z = new_filter(1000, 6, BS_FAMILY_INTEGER, 0),
				   *s = new_filter(1000, 7, BS_FAMILY_INTEGER, 1),
				   *t = new_filter(1000, 7, BS_FAMILY_TEXT, 0),
				   *o = new_filter(1000, 7, BS_FAMILY_NONE, 0);
		bs_bloom	bx,
					by,
					bz,
					bsd,
					bt,
					bo;
		bs_error	err;
		bs_status	st;

		bs_bloom_view(x, &bx);
		bs_bloom_view(y, &by);
		bs_bloom_view(z, &bz);
		bs_bloom_view(s, &bsd);
		bs_bloom_view(t, &bt);
		bs_bloom_view(o, &bo);
		st = bs_bloom_check_mergeable(&bx, &by, &err);
		CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "1000 bits with 7 hashes") && strstr(err.msg, "2000 bits with 7 hashes"),
			  "merging 1000 and 2000 bits is BS_ERR_SHAPE naming both shapes (%s)", err.msg);
		st = bs_bloom_check_mergeable(&bx, &bz, &err);
		CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "1000 bits with 7 hashes") && strstr(err.msg, "1000 bits with 6 hashes"),
			  "merging k = 7 and k = 6 is BS_ERR_SHAPE naming both shapes (%s)", err.msg);
		st = bs_bloom_check_mergeable(&bx, &bsd, &err);
		CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "seed 0") && strstr(err.msg, "seed 1"),
			  "merging seeds 0 and 1 is BS_ERR_SHAPE naming both seeds (%s)", err.msg);
		st = bs_bloom_check_mergeable(&bx, &bt, &err);
		CHECK(st == BS_ERR_FAMILY && strstr(err.msg, "integer") && strstr(err.msg, "text"),
			  "merging integer and text filters is BS_ERR_FAMILY naming both families (%s)", err.msg);
		CHECK(bs_bloom_check_mergeable(&bo, &bt, &err) == BS_OK && bs_bloom_check_mergeable(&bt, &bo, &err) == BS_OK &&
			  bs_bloom_check_mergeable(&bx, &bx, &err) == BS_OK,
			  "NONE merges with text both ways; a filter merges with itself");
		bs_bloom_or(&bo, &bt);
		CHECK(o[BS_OFF_FAMILY] == BS_FAMILY_TEXT && bo.family == BS_FAMILY_TEXT,
			  "OR of a NONE filter with a text filter takes the text family (header byte 7 too)");
		free(x);
		free(y);
		free(z);
		free(s);
		free(t);
		free(o);
	}
	free(fa);
	free(fb);
	free(fu);
	free(fi);
	free(fb_copy);
	free(h);
}

static void
test_fold(void)
{
	/* M = 2^10 3^6 (BS_FOLD_BASE) and an odd M = 3 5 7 11 */
	static const uint64_t bigf[] = {2, 3, 4, 6, 8, 9, 12, 16, 27, 64, 729, 1024, 746496};
	static const uint64_t oddf[] = {1, 3, 5, 7, 11, 15, 21, 33, 77, 1155};
	unit_rng	r = {500};
	uint64_t   *h = unit_random_hashes(&r, 30000);
	int			pass;

	for (pass = 0; pass < 2; pass++)
	{
		uint64_t	M = pass == 0 ? BS_FOLD_BASE : 1155;
		const uint64_t *fs = pass == 0 ? bigf : oddf;
		int			nf = pass == 0 ? (int) (sizeof(bigf) / sizeof(bigf[0])) : (int) (sizeof(oddf) / sizeof(oddf[0]));
		uint64_t	nh = pass == 0 ? 30000 : 60;
		uint32_t	k = pass == 0 ? 5 : 3;
		uint8_t    *big = new_filter(M, k, BS_FAMILY_INTEGER, 0);
		int			i,
					bad = 0;
		char		list[256] = "";

		add_all(big, h, nh);
		for (i = 0; i < nf; i++)
		{
			uint64_t	mm = M / fs[i];
			uint8_t    *direct = new_filter(mm, k, BS_FAMILY_INTEGER, 0),
					   *folded = new_filter(mm, k, BS_FAMILY_INTEGER, 0);

			add_all(direct, h, nh);
			memset(folded + BS_HEADER_SIZE, 0xa5, bs_bloom_payload_bytes(mm));	/* fold must clear */
			bs_bloom_fold(big + BS_HEADER_SIZE, M, fs[i], folded + BS_HEADER_SIZE);
			if (memcmp(direct, folded, BS_HEADER_SIZE + bs_bloom_payload_bytes(mm)) != 0 ||
				bs_validate(folded, BS_HEADER_SIZE + bs_bloom_payload_bytes(mm), BS_KIND_BLOOM, true, NULL, NULL) != BS_OK)
			{
				bad++;
				snprintf(list + strlen(list), sizeof(list) - strlen(list), " f=%" PRIu64, fs[i]);
			}
			free(direct);
			free(folded);
		}
		CHECK(bad == 0,
			  "fold: a %" PRIu64 "-bit filter of %" PRIu64 " hashes folded by each of %d factors f equals the filter built with M/f bits, byte for byte%s",
			  M, nh, nf, list);
		free(big);
	}
	free(h);
}

/* bs_or_bytes (the union of filters, a word at a time) is a byte-wise OR for every length and offset. */
static void
test_or_bytes(void)
{
	uint8_t		a[80],
				b[80],
				want[80];
	int			bad = 0;
	size_t		off,
				len,
				i;

	for (off = 0; off < 8; off++)
		for (len = 0; len + off <= 72; len++)
		{
			for (i = 0; i < sizeof(a); i++)
			{
				a[i] = (uint8_t) (i * 37 + len);
				b[i] = (uint8_t) (i * 101 + off);
				want[i] = (uint8_t) (i >= off && i < off + len ? a[i] | b[i] : a[i]);
			}
			bs_or_bytes(a + off, b + off, len);
			bad += memcmp(a, want, sizeof(a)) != 0;
		}
	CHECK(bad == 0, "bs_or_bytes ORs exactly the bytes asked for, for lengths 0 to 72 at offsets 0 to 7 (%d wrong)", bad);
}

/*
 * bs_bloom_add_prefetched (dense batches) sets exactly the bits of one by
 * one adds, for any k up to the most a filter has, fewer keys than it looks
 * ahead, and more; a k past the limit still sets the bits.
 */
static void
test_add_prefetched(void)
{
	static const uint32_t ks[] = {1, 2, 7, 17, 64, 65};
	static const size_t ns[] = {0, 1, BS_BLOOM_PREFETCH_AHEAD - 1, BS_BLOOM_PREFETCH_AHEAD,
	BS_BLOOM_PREFETCH_AHEAD + 1, 3000};
	const uint64_t m = 100003;	/* odd: positions up to the last bit */
	uint64_t	h[3000];
	uint8_t    *a = calloc(1, m / 8 + 1),
			   *b = calloc(1, m / 8 + 1);
	unit_rng	r = {777};
	size_t		i,
				x,
				y;
	int			bad = 0,
				runs = 0;

	for (i = 0; i < 3000; i++)
		h[i] = unit_next(&r);
	h[3] = 0;
	for (x = 0; x < sizeof(ks) / sizeof(ks[0]); x++)
		for (y = 0; y < sizeof(ns) / sizeof(ns[0]); y++)
		{
			memset(a, 0, m / 8 + 1);
			memset(b, 0, m / 8 + 1);
			for (i = 0; i < ns[y]; i++)
				bs_bloom_add_hash(a, m, ks[x], h[i]);
			bs_bloom_add_prefetched(b, m, ks[x], h, ns[y]);
			bad += memcmp(a, b, m / 8 + 1) != 0;
			runs++;
		}
	CHECK(bad == 0, "bs_bloom_add_prefetched sets the bits of one-by-one adds: k 1 to 65, 0 to 3000 keys around the look-ahead of %d (%d of %d differ)",
		  BS_BLOOM_PREFETCH_AHEAD, bad, runs);
	free(a);
	free(b);
}

/* Messages print a double so that it reads back as itself (bs_num). */
static void
test_number_text(void)
{
	bs_error	err;
	uint64_t	m;

	CHECK(strcmp(bs_num(0.01).s, "0.01") == 0 && strcmp(bs_num(1.0000000000000002).s, "1.0000000000000002") == 0 &&
		  strcmp(bs_num(1e-300).s, "1e-300") == 0 && strcmp(bs_num(0.1 + 0.2).s, "0.30000000000000004") == 0,
		  "bs_num gives the shortest text that reads back as the same double (%s, %s)",
		  bs_num(1.0000000000000002).s, bs_num(0.1 + 0.2).s);
	err.msg[0] = '\0';
	CHECK(bs_bloom_optimal_bits(100, 1.0000000000000002, &m, &err) == BS_ERR_PARAM &&
		  strstr(err.msg, "got 1.0000000000000002") != NULL,
		  "an fpr just above 1 is named exactly, not as \"1\" (%s)", err.msg);
}

int
main(void)
{
	test_sizing();
	test_no_false_negatives();
	test_fpr_by_formula();
	test_fpr_table3();
	test_fpr_formulas();
	test_fpr_small_vs_exact();
	test_merges();
	test_fold();
	test_or_bytes();
	test_add_prefetched();
	test_number_text();
	return unit_done("bloom");
}
