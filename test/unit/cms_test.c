/*
 * cms_test.c: the Count-Min sketch of src/core/cms.c against Cormode and
 * Muthukrishnan 2005 (doc/bibliography.md): width = ceil(e/eps),
 * depth = ceil(ln 1/delta); a point query is the minimum over the rows, never
 * below the true count f*, and at most f* + eps N with probability
 * 1 - delta.  Also its merges (exact: the sum of the sketches of the parts
 * is the sketch of the whole), its subtraction (the whole less a part is
 * the rest, byte for byte), the 64-bit overflow checks, the inner product
 * and bs_cms_check.
 *
 * Keys are 64-bit hashes from splitmix64, which never repeats within one
 * stream, so a key's true count is known exactly from its index.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/cms.h"
#include "core/endian.h"
#include "core/format.h"
#include "core/hash.h"
#include "unit.h"

#define I64MAX ((uint64_t) INT64_MAX)

/* ---- helpers ---- */

typedef struct sketch
{
	uint8_t    *buf;
	size_t		len;
	bs_cms		c;
} sketch;

static void
sk_new(sketch *s, uint64_t width, uint32_t depth, uint8_t family, uint64_t seed)
{
	uint64_t	total;
	bs_error	err;

	if (bs_cms_size(width, depth, &total, &err) != BS_OK)
	{
		fprintf(stderr, "bs_cms_size(%" PRIu64 ", %u): %s\n", width, depth, err.msg);
		exit(2);
	}
	s->len = (size_t) total;
	s->buf = unit_calloc(1, s->len);
	bs_cms_init(s->buf, width, depth, family, seed);
	bs_cms_view(s->buf, &s->c);
}

static void
sk_copy(sketch *dst, const sketch *src)
{
	dst->len = src->len;
	dst->buf = unit_calloc(1, src->len);
	memcpy(dst->buf, src->buf, src->len);
	bs_cms_view(dst->buf, &dst->c);
}

static void
sk_free(sketch *s)
{
	free(s->buf);
	s->buf = NULL;
}

static void
sk_add(sketch *s, uint64_t h, uint64_t count)
{
	bs_error	err;

	if (bs_cms_add(&s->c, h, count, &err) != BS_OK)
	{
		fprintf(stderr, "bs_cms_add: %s\n", err.msg);
		exit(2);
	}
}

/* The counter of key h in row j. */
static uint64_t
cell(const bs_cms *c, uint32_t row, uint64_t h)
{
	return bs_load64(c->counters + ((uint64_t) row * c->width + bs_probe(h, row, c->width)) * 8);
}

/* Zipf(s) over keys 0..n-1 (key i has weight 1/(i+1)^s): cumulative table. */
static double *
zipf_cdf(uint64_t n, double s)
{
	double	   *cdf = unit_calloc(n, sizeof(double));
	double		sum = 0;
	uint64_t	i;

	for (i = 0; i < n; i++)
	{
		sum += pow((double) (i + 1), -s);
		cdf[i] = sum;
	}
	for (i = 0; i < n; i++)
		cdf[i] /= sum;
	cdf[n - 1] = 1.0;
	return cdf;
}

static uint64_t
zipf_draw(const double *cdf, uint64_t n, unit_rng *r)
{
	double		u = (double) (unit_next(r) >> 11) * 0x1.0p-53;
	uint64_t	lo = 0,
				hi = n - 1;

	while (lo < hi)
	{
		uint64_t	mid = lo + (hi - lo) / 2;

		if (cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Accuracy of a sketch of a stream over keys h[0..nkeys) with true counts
 * f[]: how many estimates fall below the truth (must be none), how many lie
 * past f + eps N (eps = e / width, the shape's own epsilon), the largest
 * over-estimate, and the mean error of a single row over all keys and rows.
 */
typedef struct accuracy
{
	uint64_t	keys,
				below,
				over_bound,
				max_over,
				row_over_bound;	/* (key, row) pairs past the bound */
	double		bound,
				mean_row_error,
				mean_error;
} accuracy;

static accuracy
measure(const sketch *s, const uint64_t *h, const uint32_t *f, uint64_t nkeys)
{
	accuracy	a;
	uint64_t	i;
	double		row_err = 0,
				err = 0;
	uint32_t	j;

	memset(&a, 0, sizeof(a));
	a.bound = bs_cms_epsilon(s->c.width) * (double) s->c.total;
	for (i = 0; i < nkeys; i++)
	{
		uint64_t	est,
					over;

		if (f[i] == 0)
			continue;
		a.keys++;
		est = bs_cms_frequency(&s->c, h[i]);
		if (est < f[i])
		{
			a.below++;
			continue;
		}
		over = est - f[i];
		err += (double) over;
		if (over > a.max_over)
			a.max_over = over;
		if ((double) over > a.bound)
			a.over_bound++;
		for (j = 0; j < s->c.depth; j++)
		{
			uint64_t	v = cell(&s->c, j, h[i]) - f[i];

			row_err += (double) v;
			if ((double) v > a.bound)
				a.row_over_bound++;
		}
	}
	a.mean_row_error = row_err / ((double) a.keys * s->c.depth);
	a.mean_error = err / (double) a.keys;
	return a;
}

/* Every row sums to the total (the invariant bs_cms_check relies on). */
static bool
rows_sum_to_total(const bs_cms *c)
{
	uint32_t	j;
	uint64_t	col;

	for (j = 0; j < c->depth; j++)
	{
		uint64_t	sum = 0;

		for (col = 0; col < c->width; col++)
			sum += bs_load64(c->counters + ((uint64_t) j * c->width + col) * 8);
		if (sum != c->total)
			return false;
	}
	return true;
}

/* bs_cms_inner_product, its result as the compiler's 128-bit integer (the tests' reference type) */
static bs_status
inner_product(const bs_cms *a, const bs_cms *b, unsigned __int128 *out, bs_error *err)
{
	bs_u128		v = {0, 0};
	bs_status	st = bs_cms_inner_product(a, b, &v, err);

	*out = (unsigned __int128) v.hi << 64 | v.lo;
	return st;
}

static char *
u128_text(unsigned __int128 v, char *buf)
{
	char		tmp[48];
	int			i = 0,
				o = 0;

	do
	{
		tmp[i++] = (char) ('0' + (int) (v % 10));
		v /= 10;
	} while (v != 0);
	while (i > 0)
		buf[o++] = tmp[--i];
	buf[o] = '\0';
	return buf;
}

/* ---- dims ---- */

static void
test_dims(void)
{
	static const double eps[] = {0.5, 0.1, 0.05, 0.01, 0.003, 0.001, 0.0001, 1e-5, 0.999, 0.3};
	static const double dlt[] = {0.5, 0.1, 0.01, 0.001, 1e-6, 1e-12, 0.99, 0.3679, 0.05, 1e-20};
	uint64_t	width = 0,
				total = 0;
	uint32_t	depth = 0;
	bs_error	err;
	bs_status	st;
	int			i,
				j,
				bad = 0,
				weaker = 0;
	char		list[256] = "";

	st = bs_cms_dims(0.001, 0.01, &width, &depth, &err);
	CHECK(st == BS_OK && width == 2719 && depth == 5,
		  "bs_cms_dims(0.001, 0.01): width = ceil(e/0.001) = 2719, depth = ceil(ln 100) = 5 (got %" PRIu64 " x %u)",
		  width, depth);
	st = bs_cms_dims(0.01, 0.001, &width, &depth, &err);
	CHECK(st == BS_OK && width == 272 && depth == 7,
		  "bs_cms_dims(0.01, 0.001): 272 x 7 (got %" PRIu64 " x %u)", width, depth);
	st = bs_cms_dims(0.5, 0.5, &width, &depth, &err);
	CHECK(st == BS_OK && width == 6 && depth == 1,
		  "bs_cms_dims(0.5, 0.5): width ceil(5.44) = 6, depth ceil(0.69) = 1 (got %" PRIu64 " x %u)", width, depth);
	st = bs_cms_dims(0.999, 0.999, &width, &depth, &err);
	CHECK(st == BS_OK && width == 3 && depth == 1,
		  "bs_cms_dims(0.999, 0.999): 3 x 1, at least one row (got %" PRIu64 " x %u)", width, depth);

	/* the formulas over a grid, and the guarantee the shape gives is at least the one asked for */
	for (i = 0; i < (int) (sizeof(eps) / sizeof(eps[0])); i++)
		for (j = 0; j < (int) (sizeof(dlt) / sizeof(dlt[0])); j++)
		{
			uint64_t	ww = (uint64_t) ceil(exp(1.0) / eps[i]);
			uint32_t	dd = (uint32_t) ceil(log(1.0 / dlt[j]));

			if (dd < 1)
				dd = 1;
			if (bs_cms_dims(eps[i], dlt[j], &width, &depth, &err) != BS_OK || width != ww || depth != dd)
			{
				bad++;
				snprintf(list + strlen(list), sizeof(list) - strlen(list), " (%g, %g)", eps[i], dlt[j]);
			}
			else if (bs_cms_epsilon(width) > eps[i] || bs_cms_delta(depth) > dlt[j])
				weaker++;
		}
	CHECK(bad == 0, "bs_cms_dims = (ceil(e/eps), ceil(ln(1/delta))) for all 100 pairs of 10 epsilons and 10 deltas%s", list);
	CHECK(weaker == 0,
		  "the shape's own guarantees e/width <= eps and e^-depth <= delta for all 100 pairs (%d weaker)", weaker);
	CHECK(fabs(bs_cms_epsilon(2719) - exp(1.0) / 2719) < 1e-18 && fabs(bs_cms_delta(5) - exp(-5.0)) < 1e-18,
		  "bs_cms_epsilon(2719) = e/2719 = %.10f, bs_cms_delta(5) = e^-5 = %.10f",
		  bs_cms_epsilon(2719), bs_cms_delta(5));

	/* hostile parameters */
	{
		static const double badp[] = {0.0, 1.0, -0.1, -1.0, 1.5, NAN, INFINITY, -INFINITY, -0.0};
		int			badeps = 0,
					baddelta = 0;

		for (i = 0; i < (int) (sizeof(badp) / sizeof(badp[0])); i++)
		{
			err.msg[0] = '\0';
			if (bs_cms_dims(badp[i], 0.01, &width, &depth, &err) != BS_ERR_PARAM || !strstr(err.msg, "epsilon"))
				badeps++;
			err.msg[0] = '\0';
			if (bs_cms_dims(0.01, badp[i], &width, &depth, &err) != BS_ERR_PARAM || !strstr(err.msg, "delta"))
				baddelta++;
		}
		CHECK(badeps == 0 && baddelta == 0,
			  "epsilon or delta of 0, 1, -0.1, -1, 1.5, NaN, +inf, -inf, -0 is BS_ERR_PARAM naming the parameter (%d, %d wrong): %s",
			  badeps, baddelta, err.msg);
	}
	st = bs_cms_dims(0.5, 1e-28, &width, &depth, &err);
	CHECK(st == BS_ERR_PARAM && strstr(err.msg, "65 rows, more than the 64"),
		  "delta 1e-28 needs ceil(64.5) = 65 rows, past 64: BS_ERR_PARAM (%s)", err.msg);
	st = bs_cms_dims(0.5, 5e-324, &width, &depth, &err);
	CHECK(st == BS_ERR_PARAM && strstr(err.msg, "delta 4.94066e-324 would need more than the 64 rows"),
		  "the smallest double as delta names it and the 64-row limit, not \"inf rows\" (%s)", err.msg);
	st = bs_cms_dims(0.5, 2e-28, &width, &depth, &err);
	CHECK(st == BS_OK && depth == 64, "delta 2e-28 needs 64 rows: accepted (depth %u)", depth);
	st = bs_cms_dims(0.5, 4.9e-324, &width, &depth, &err);
	CHECK(st == BS_ERR_PARAM, "delta 4.9e-324 (denormal, 1/delta = inf) is BS_ERR_PARAM (%s)", err.msg);
	st = bs_cms_dims(1e-7, 0.01, &width, &depth, &err);
	CHECK(st == BS_ERR_LIMIT && err.hint[0] != '\0',
		  "epsilon 1e-7 (27182819 x 5 counters, 1.09 GB) is BS_ERR_LIMIT with a hint (%s)", err.msg);
	st = bs_cms_dims(4.9e-324, 0.01, &width, &depth, &err);
	CHECK(st == BS_ERR_LIMIT, "epsilon 4.9e-324 (e/eps = inf) is BS_ERR_LIMIT, no overflow (%s)", err.msg);
	st = bs_cms_dims(1e-300, 0.5, &width, &depth, &err);
	CHECK(st == BS_ERR_LIMIT, "epsilon 1e-300 is BS_ERR_LIMIT");
	{
		/* the widest sketch of 5 rows that fits: (511 MiB - 48) / 40 counters a row */
		uint64_t	wmax = (BS_MAX_SKETCH_BYTES - BS_HEADER_SIZE) / 8 / 5;

		st = bs_cms_dims(exp(1.0) / ((double) wmax - 0.5), 0.01, &width, &depth, &err);
		CHECK(st == BS_OK && width == wmax && depth == 5,
			  "epsilon e/(%" PRIu64 " - 0.5) gives the widest 5-row sketch that fits 511 MiB", wmax);
		st = bs_cms_size(wmax, 5, &total, &err);
		CHECK(st == BS_OK && total <= BS_MAX_SKETCH_BYTES,
			  "bs_cms_size(%" PRIu64 ", 5) = %" PRIu64 " bytes fits the limit of %" PRIu64, wmax, total, BS_MAX_SKETCH_BYTES);
		st = bs_cms_dims(exp(1.0) / ((double) wmax + 0.5), 0.01, &width, &depth, &err);
		CHECK(st == BS_ERR_LIMIT, "epsilon e/(%" PRIu64 " + 0.5), one counter wider, is BS_ERR_LIMIT (%s)", wmax, err.msg);
		CHECK(bs_cms_check_shape(wmax + 1, 5, &err) == BS_ERR_LIMIT && strstr(err.msg, "limit"),
			  "bs_cms_check_shape(%" PRIu64 ", 5) is BS_ERR_LIMIT (%s)", wmax + 1, err.msg);
	}

	/* shapes */
	CHECK(bs_cms_check_shape(1, 1, &err) == BS_OK && bs_cms_check_shape(1, 64, &err) == BS_OK,
		  "bs_cms_check_shape accepts 1 x 1 and 1 x 64");
	CHECK(bs_cms_check_shape(1, 0, &err) == BS_ERR_PARAM && bs_cms_check_shape(1, 65, &err) == BS_ERR_PARAM &&
		  bs_cms_check_shape(1, UINT64_MAX, &err) == BS_ERR_PARAM && bs_cms_check_shape(1, UINT64_C(1) << 32, &err) == BS_ERR_PARAM,
		  "depth 0, 65, 2^32 and 2^64-1 are BS_ERR_PARAM (%s)", err.msg);
	CHECK(bs_cms_check_shape(0, 5, &err) == BS_ERR_PARAM, "width 0 is BS_ERR_PARAM (%s)", err.msg);
	CHECK(bs_cms_check_shape(UINT64_MAX, 64, &err) == BS_ERR_LIMIT &&
		  bs_cms_check_shape(UINT64_C(1) << 61, 8, &err) == BS_ERR_LIMIT &&
		  bs_cms_check_shape(UINT64_MAX / 8 + 1, 1, &err) == BS_ERR_LIMIT,
		  "widths whose byte count would wrap around 2^64 are BS_ERR_LIMIT (%s)", err.msg);
	st = bs_cms_size(2719, 5, &total, &err);
	CHECK(st == BS_OK && total == 108808,
		  "bs_cms_size(2719, 5) = 48 + 2719 * 5 * 8 = 108808 bytes (got %" PRIu64 ")", total);
	CHECK(bs_cms_size(1, 1, &total, &err) == BS_OK && total == 56, "bs_cms_size(1, 1) = 56 bytes");
	CHECK(bs_cms_size(0, 1, &total, &err) == BS_ERR_PARAM && bs_cms_size(1, 0, &total, &err) == BS_ERR_PARAM &&
		  bs_cms_size(1, 65, &total, &err) == BS_ERR_PARAM && bs_cms_size(UINT64_MAX, 1, &total, &err) == BS_ERR_LIMIT,
		  "bs_cms_size rejects width 0, depth 0 and 65 (BS_ERR_PARAM) and width 2^64-1 (BS_ERR_LIMIT)");
}

/* ---- layout and single keys ---- */

static void
test_layout(void)
{
	sketch		s;
	bs_header	h;
	bs_error	err;
	uint64_t	key = UINT64_C(0x0123456789abcdef),
				other = UINT64_C(0xfedcba9876543210);
	uint32_t	j;
	uint64_t	nonzero = 0,
				i;
	bool		at_probe = true;

	sk_new(&s, 1000, 4, BS_FAMILY_TEXT, 7);
	CHECK(bs_validate(s.buf, s.len, BS_KIND_CMS, true, &h, &err) == BS_OK &&
		  h.kind == BS_KIND_CMS && h.family == BS_FAMILY_TEXT && h.seed == 7 && h.p1 == 1000 && h.p2 == 4 &&
		  h.p3 == 0 && h.n == 0 && h.x == 0 && s.len == BS_HEADER_SIZE + 1000 * 4 * 8,
		  "bs_cms_init: kind 3, family, seed, p1 = width, p2 = depth, total 0, 48 + 32000 bytes, valid");
	CHECK(s.c.width == 1000 && s.c.depth == 4 && s.c.total == 0 && s.c.seed == 7 && s.c.family == BS_FAMILY_TEXT &&
		  s.c.counters == s.buf + BS_HEADER_SIZE,
		  "bs_cms_view reads width, depth, total, seed, family and points at the counters");
	CHECK(bs_cms_frequency(&s.c, key) == 0 && bs_cms_frequency(&s.c, 0) == 0,
		  "an empty sketch estimates 0 for every key");
	sk_add(&s, key, 5);
	for (j = 0; j < 4; j++)
		at_probe &= cell(&s.c, j, key) == 5;
	for (i = 0; i < 4000; i++)
		nonzero += bs_load64(s.buf + BS_HEADER_SIZE + i * 8) != 0;
	CHECK(at_probe && nonzero == 4,
		  "adding 5 to a key puts 5 in exactly one counter per row, at column bs_probe(h, row, width) (%" PRIu64 " nonzero)",
		  nonzero);
	CHECK(bs_cms_frequency(&s.c, key) == 5 && bs_load64(s.buf + BS_OFF_N) == 5 && s.c.total == 5,
		  "the key's estimate is 5 and the header total (offset 32) is 5");
	sk_add(&s, key, 0);
	CHECK(bs_cms_frequency(&s.c, key) == 5 && s.c.total == 5, "adding a count of 0 changes nothing");
	sk_add(&s, other, 2);
	sk_add(&s, key, 1);
	CHECK(bs_cms_frequency(&s.c, key) >= 6 && bs_cms_frequency(&s.c, other) >= 2 && s.c.total == 8 &&
		  rows_sum_to_total(&s.c) && bs_validate(s.buf, s.len, BS_KIND_CMS, true, NULL, &err) == BS_OK,
		  "after more adds: estimates >= 6 and >= 2, total 8, every row sums to 8, still valid");
	CHECK(s.buf[BS_OFF_FAMILY] == BS_FAMILY_TEXT, "adds leave the family byte alone (the glue sets it)");
	sk_free(&s);

	/* width 1: every key shares the one counter of each row, which holds N */
	sk_new(&s, 1, 3, BS_FAMILY_INTEGER, 0);
	sk_add(&s, key, 10);
	sk_add(&s, other, 32);
	CHECK(bs_cms_frequency(&s.c, key) == 42 && bs_cms_frequency(&s.c, 12345) == 42,
		  "width 1: every estimate is the total N = 42");
	sk_free(&s);
}

/* ---- accuracy ---- */

static void
check_accuracy(const char *what, const sketch *s, const accuracy *a, double delta)
{
	CHECK(a->below == 0,
		  "%s: no estimate below the true count (%" PRIu64 " of %" PRIu64 " keys below)", what, a->below, a->keys);
	CHECK((double) a->over_bound <= delta * (double) a->keys,
		  "%s: %" PRIu64 " of %" PRIu64 " keys (%.5f%%) over f + eps N = f + %.1f, want at most delta = %.4f%%; largest over-estimate %" PRIu64 ", mean %.1f",
		  what, a->over_bound, a->keys, 100.0 * (double) a->over_bound / (double) a->keys, a->bound,
		  100 * delta, a->max_over, a->mean_error);
	(void) s;
}

static void
test_uniform(void)
{
	const uint64_t nkeys = 200000,
				n = 1000000;
	unit_rng	r = {1001};
	uint64_t   *h = unit_random_hashes(&r, nkeys);
	uint32_t   *f = unit_calloc(nkeys, sizeof(uint32_t));
	sketch		s;
	uint64_t	i,
				width;
	uint32_t	depth;
	accuracy	a;
	double		expect;

	bs_cms_dims(0.001, 0.01, &width, &depth, NULL);
	sk_new(&s, width, depth, BS_FAMILY_INTEGER, 0);
	for (i = 0; i < n; i++)
	{
		uint64_t	k = unit_below(&r, nkeys);

		f[k]++;
		sk_add(&s, h[k], 1);
	}
	a = measure(&s, h, f, nkeys);
	check_accuracy("uniform stream of 1,000,000 over 200,000 keys, eps 0.001, delta 0.01 (2719 x 5)", &s, &a, 0.01);
	/*
	 * The expected counter of one row, from the proof of the point-query
	 * bound (Cormode and Muthukrishnan 2005):
	 * E[CMS[j, h_j(x)]] = f_x + sum_{y != x} f_y / width
	 */
	expect = (double) (n - n / a.keys) / (double) width;
	CHECK(fabs(a.mean_row_error / expect - 1) <= 0.03,
		  "uniform: mean error of one row %.2f = %.4f x (N - f)/width = %.2f, the expected excess of the proof (want within 3%%)",
		  a.mean_row_error, a.mean_row_error / expect, expect);
	CHECK(a.mean_error < a.mean_row_error,
		  "uniform: the minimum over 5 rows errs less on average (%.2f) than one row (%.2f)", a.mean_error, a.mean_row_error);
	CHECK(s.c.total == n && rows_sum_to_total(&s.c) && bs_validate(s.buf, s.len, BS_KIND_CMS, true, NULL, NULL) == BS_OK,
		  "uniform: total 1,000,000, every row sums to it, the sketch passes bs_validate");
	sk_free(&s);

	/* 1,000,000 distinct keys, each once */
	free(h);
	free(f);
	h = unit_random_hashes(&r, n);
	f = unit_calloc(n, sizeof(uint32_t));
	sk_new(&s, width, depth, BS_FAMILY_INTEGER, 0);
	for (i = 0; i < n; i++)
	{
		f[i] = 1;
		sk_add(&s, h[i], 1);
	}
	a = measure(&s, h, f, n);
	check_accuracy("1,000,000 distinct keys once each, 2719 x 5", &s, &a, 0.01);
	sk_free(&s);
	free(h);
	free(f);
}

static void
test_zipf(void)
{
	static const double ss[] = {1.1, 0.8, 1.5};
	const uint64_t nkeys = 100000,
				n = 1000000;
	int			t;

	for (t = 0; t < 3; t++)
	{
		unit_rng	r = {2001 + (uint64_t) t};
		uint64_t   *h = unit_random_hashes(&r, nkeys);
		uint32_t   *f = unit_calloc(nkeys, sizeof(uint32_t));
		double	   *cdf = zipf_cdf(nkeys, ss[t]);
		sketch		s;
		uint64_t	i,
					width,
					top_ok = 0;
		uint32_t	depth;
		accuracy	a;
		char		what[160];

		bs_cms_dims(0.001, 0.01, &width, &depth, NULL);
		sk_new(&s, width, depth, BS_FAMILY_TEXT, 0);
		for (i = 0; i < n; i++)
		{
			uint64_t	k = zipf_draw(cdf, nkeys, &r);

			f[k]++;
			sk_add(&s, h[k], 1);
		}
		a = measure(&s, h, f, nkeys);
		snprintf(what, sizeof(what), "Zipf s = %.1f stream of 1,000,000 over 100,000 keys (%" PRIu64 " seen, top key %u times), 2719 x 5",
				 ss[t], a.keys, f[0]);
		check_accuracy(what, &s, &a, 0.01);
		for (i = 0; i < 10; i++)
			top_ok += bs_cms_frequency(&s.c, h[i]) >= f[i] &&
				(double) (bs_cms_frequency(&s.c, h[i]) - f[i]) <= a.bound;
		CHECK(top_ok == 10, "Zipf s = %.1f: the 10 heaviest keys are estimated within [f, f + eps N] (%" PRIu64 " are)",
			  ss[t], top_ok);
		sk_free(&s);
		free(h);
		free(f);
		free(cdf);
	}
}

/*
 * With few rows the bound is not vacuous: Markov's inequality gives each row
 * an error over eps N with probability at most 1/e, so the minimum of d rows
 * is past it for at most a fraction e^-d of keys.  Measure it at eps = 0.01
 * (272 columns) with 1, 2 and 3 rows, and on a narrow sketch where collisions
 * are heavy (width 16).
 */
static void
test_delta_small_depth(void)
{
	static const struct
	{
		uint64_t	width;
		uint32_t	depth;
		uint64_t	nkeys;
		double		zipf;
	}			cases[] = {
		{272, 1, 50000, 0}, {272, 2, 50000, 0}, {272, 3, 50000, 0},
		{16, 1, 2000, 0}, {272, 1, 50000, 1.1}, {272, 2, 50000, 1.1},
		{16, 1, 40, 1.1}, {16, 2, 40, 1.1}, {16, 3, 40, 1.1},
	};
	const uint64_t n = 1000000;
	int			c;

	for (c = 0; c < (int) (sizeof(cases) / sizeof(cases[0])); c++)
	{
		unit_rng	r = {3001 + (uint64_t) c};
		uint64_t	nkeys = cases[c].nkeys;
		uint64_t   *h = unit_random_hashes(&r, nkeys);
		uint32_t   *f = unit_calloc(nkeys, sizeof(uint32_t));
		double	   *cdf = cases[c].zipf > 0 ? zipf_cdf(nkeys, cases[c].zipf) : NULL;
		double		delta = bs_cms_delta(cases[c].depth);
		sketch		s;
		uint64_t	i;
		accuracy	a;

		sk_new(&s, cases[c].width, cases[c].depth, BS_FAMILY_INTEGER, 0);
		for (i = 0; i < n; i++)
		{
			uint64_t	k = cdf ? zipf_draw(cdf, nkeys, &r) : unit_below(&r, nkeys);

			f[k]++;
			sk_add(&s, h[k], 1);
		}
		a = measure(&s, h, f, nkeys);
		CHECK(a.below == 0 && (double) a.over_bound <= delta * (double) a.keys &&
			  (double) a.row_over_bound <= exp(-1.0) * (double) (a.keys * cases[c].depth),
			  "%s, %" PRIu64 " x %u: %" PRIu64 " of %" PRIu64 " keys (%.3f%%) over f + eps N = f + %.0f, want at most e^-%u = %.2f%%; single rows over it %.3f%% (at most 1/e = 36.8%%); none below",
			  cases[c].zipf > 0 ? "Zipf 1.1" : "uniform", cases[c].width, cases[c].depth, a.over_bound, a.keys,
			  100.0 * (double) a.over_bound / (double) a.keys, a.bound, cases[c].depth, 100 * delta,
			  100.0 * (double) a.row_over_bound / (double) (a.keys * cases[c].depth));
		sk_free(&s);
		free(h);
		free(f);
		free(cdf);
	}
}

/* ---- subtraction (cms_subtract) ---- */

static void
test_subtract(void)
{
	unit_rng	r = {4007};
	const uint64_t nkeys = 20000,
				n = 300000;
	uint64_t   *h = unit_random_hashes(&r, nkeys);
	sketch		a,
				b,
				ab,
				x,
				before,
				w;
	bs_error	err;
	bs_status	st;
	uint64_t	i;

	sk_new(&a, 2719, 5, BS_FAMILY_INTEGER, 0);
	sk_new(&b, 2719, 5, BS_FAMILY_INTEGER, 0);
	sk_new(&ab, 2719, 5, BS_FAMILY_INTEGER, 0);
	for (i = 0; i < n; i++)
	{
		uint64_t	k = h[unit_below(&r, nkeys)],
					c = 1 + unit_below(&r, 5);

		sk_add(unit_below(&r, 3) == 0 ? &b : &a, k, c);
		sk_add(&ab, k, c);
	}
	/* (a + b) - b is a, byte for byte; and (a + b) - a is b */
	sk_copy(&x, &ab);
	st = bs_cms_subtract(&x.c, &b.c, &err);
	CHECK(st == BS_OK && memcmp(x.buf, a.buf, a.len) == 0 &&
		  bs_validate(x.buf, x.len, BS_KIND_CMS, true, NULL, &err) == BS_OK,
		  "subtract: the sketch of a + b less that of b is byte-equal to the sketch of a (%" PRIu64 " adds), and valid", n);
	sk_free(&x);
	sk_copy(&x, &ab);
	st = bs_cms_subtract(&x.c, &a.c, &err);
	CHECK(st == BS_OK && memcmp(x.buf, b.buf, b.len) == 0, "subtract: (a + b) - a is b, byte for byte");
	/* x - x is the empty sketch */
	st = bs_cms_subtract(&x.c, &x.c, &err);
	CHECK(st == BS_OK && x.c.total == 0 && bs_load64(x.buf + BS_OFF_N) == 0 &&
		  bs_validate(x.buf, x.len, BS_KIND_CMS, true, NULL, &err) == BS_OK,
		  "subtract: a sketch less itself has total 0 and is valid");
	sk_free(&x);

	/* a - b when b is not a part of a: refused, nothing changed */
	sk_copy(&x, &a);
	sk_copy(&before, &a);
	st = bs_cms_subtract(&x.c, &ab.c, &err);
	CHECK(st == BS_ERR_PARAM && strstr(err.msg, "total") && memcmp(x.buf, before.buf, before.len) == 0,
		  "subtracting a larger total is BS_ERR_PARAM, nothing changed (%s)", err.msg);
	sk_free(&x);
	sk_new(&x, 2719, 5, BS_FAMILY_INTEGER, 0);
	sk_add(&x, h[0], 10);
	sk_new(&w, 2719, 5, BS_FAMILY_INTEGER, 0);
	sk_add(&w, h[1], 10);		/* same total, other cells */
	sk_free(&before);
	sk_copy(&before, &x);
	st = bs_cms_subtract(&x.c, &w.c, &err);
	CHECK(st == BS_ERR_PARAM && strstr(err.msg, "below zero") && err.hint[0] != '\0' &&
		  memcmp(x.buf, before.buf, before.len) == 0,
		  "a counter going below zero is BS_ERR_PARAM with a hint, nothing changed (%s)", err.msg);
	sk_free(&x);
	sk_free(&w);
	sk_free(&before);

	/* shapes and families as merge */
	sk_new(&w, 2718, 5, BS_FAMILY_INTEGER, 0);
	sk_copy(&x, &ab);
	st = bs_cms_subtract(&x.c, &w.c, &err);
	CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "width 2718"), "subtracting another width is BS_ERR_SHAPE (%s)", err.msg);
	sk_free(&w);
	sk_new(&w, 2719, 5, BS_FAMILY_TEXT, 0);
	st = bs_cms_subtract(&x.c, &w.c, &err);
	CHECK(st == BS_ERR_FAMILY, "subtracting a sketch of text keys from one of integer keys is BS_ERR_FAMILY (%s)", err.msg);
	sk_free(&w);
	sk_free(&x);
	sk_free(&a);
	sk_free(&b);
	sk_free(&ab);
	free(h);
}

/* ---- merges ---- */

static void
test_merge(void)
{
	unit_rng	r = {4001};
	const uint64_t nkeys = 30000,
				n = 400000;
	uint64_t   *h = unit_random_hashes(&r, nkeys);
	sketch		whole,
				part[4],
				src_copy,
				acc;
	bs_error	err;
	bs_status	st;
	uint64_t	i;
	int			p,
				unchanged = 1;

	sk_new(&whole, 2719, 5, BS_FAMILY_INTEGER, 0);
	for (p = 0; p < 4; p++)
		sk_new(&part[p], 2719, 5, p == 2 ? BS_FAMILY_NONE : BS_FAMILY_INTEGER, 0);
	for (i = 0; i < n; i++)
	{
		uint64_t	k = h[unit_below(&r, nkeys)],
					c = 1 + unit_below(&r, 3);

		sk_add(&whole, k, c);
		/* part 2 stays empty (family none), the others share the stream unevenly */
		p = (int) unit_below(&r, 7);
		sk_add(&part[p < 4 ? 0 : p < 6 ? 1 : 3], k, c);
	}

	/* acc = part0 + part1 + part2 + part3, each source checked unchanged afterwards */
	sk_copy(&acc, &part[0]);
	for (p = 1; p < 4; p++)
	{
		sk_copy(&src_copy, &part[p]);
		st = bs_cms_merge(&acc.c, &part[p].c, &err);
		if (st != BS_OK)
			fprintf(stderr, "merge: %s\n", err.msg);
		unchanged &= memcmp(src_copy.buf, part[p].buf, part[p].len) == 0;
		sk_free(&src_copy);
	}
	CHECK(memcmp(acc.buf, whole.buf, whole.len) == 0,
		  "merge: part 0 + part 1 + part 2 (empty, family none) + part 3 is byte-equal to the sketch of the whole stream of %" PRIu64 " adds, header included",
		  n);
	CHECK(unchanged, "merge never changes its source");
	CHECK(acc.c.total == whole.c.total && acc.c.family == BS_FAMILY_INTEGER &&
		  bs_validate(acc.buf, acc.len, BS_KIND_CMS, true, NULL, &err) == BS_OK,
		  "merge: total %" PRIu64 " and family integer carried in the view and the bytes; valid", acc.c.total);
	sk_free(&acc);

	/* the other order and pairwise (part3 + part1) + (part0 + part2) */
	{
		sketch		x,
					y;

		sk_copy(&x, &part[3]);
		bs_cms_merge(&x.c, &part[1].c, NULL);
		sk_copy(&y, &part[2]);	/* family none first: takes integer from part 0 */
		bs_cms_merge(&y.c, &part[0].c, NULL);
		CHECK(y.buf[BS_OFF_FAMILY] == BS_FAMILY_INTEGER && y.c.family == BS_FAMILY_INTEGER,
			  "merging an integer sketch into an empty one of family none takes family integer (byte 7 too)");
		bs_cms_merge(&x.c, &y.c, NULL);
		CHECK(memcmp(x.buf, whole.buf, whole.len) == 0, "merge is order-free: (p3 + p1) + (p2 + p0) equals the whole, byte for byte");
		sk_free(&x);
		sk_free(&y);
	}
	/* merge with itself doubles every counter */
	{
		sketch		x;
		bool		doubled = true;

		sk_copy(&x, &part[1]);
		st = bs_cms_merge(&x.c, &x.c, &err);
		for (i = 0; i < 2719 * 5; i++)
			doubled &= bs_load64(x.c.counters + i * 8) == 2 * bs_load64(part[1].c.counters + i * 8);
		CHECK(st == BS_OK && doubled && x.c.total == 2 * part[1].c.total,
			  "a sketch merged into itself has every counter and the total doubled");
		sk_free(&x);
	}

	/* mismatches */
	{
		sketch		w,
					d,
					sd,
					t;

		sk_new(&w, 2718, 5, BS_FAMILY_INTEGER, 0);
		sk_new(&d, 2719, 6, BS_FAMILY_INTEGER, 0);
		sk_new(&sd, 2719, 5, BS_FAMILY_INTEGER, 1);
		sk_new(&t, 2719, 5, BS_FAMILY_TEXT, 0);
		sk_copy(&acc, &whole);
		st = bs_cms_merge(&acc.c, &w.c, &err);
		CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "width 2719 and depth 5") && strstr(err.msg, "width 2718 and depth 5") &&
			  err.hint[0] != '\0',
			  "merging widths 2719 and 2718 is BS_ERR_SHAPE naming both shapes, with a hint (%s)", err.msg);
		st = bs_cms_merge(&acc.c, &d.c, &err);
		CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "depth 5") && strstr(err.msg, "depth 6"),
			  "merging depths 5 and 6 is BS_ERR_SHAPE naming both (%s)", err.msg);
		st = bs_cms_merge(&acc.c, &sd.c, &err);
		CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "seed 0") && strstr(err.msg, "seed 1"),
			  "merging seeds 0 and 1 is BS_ERR_SHAPE naming both seeds (%s)", err.msg);
		st = bs_cms_merge(&acc.c, &t.c, &err);
		CHECK(st == BS_ERR_FAMILY && strstr(err.msg, "integer") && strstr(err.msg, "text"),
			  "merging integer and text sketches is BS_ERR_FAMILY naming both families (%s)", err.msg);
		CHECK(memcmp(acc.buf, whole.buf, whole.len) == 0, "failed merges leave the destination unchanged");
		sk_free(&w);
		sk_free(&d);
		sk_free(&sd);
		sk_free(&t);
		sk_free(&acc);
	}
	for (p = 0; p < 4; p++)
		sk_free(&part[p]);
	sk_free(&whole);
	free(h);
}

/* ---- 64-bit overflow ---- */

static void
test_overflow(void)
{
	sketch		s,
				before,
				b;
	bs_error	err;
	bs_status	st;

	sk_new(&s, 50, 3, BS_FAMILY_INTEGER, 0);
	st = bs_cms_add(&s.c, 1, I64MAX - 10, &err);
	CHECK(st == BS_OK && bs_cms_frequency(&s.c, 1) == I64MAX - 10, "adding 2^63 - 11 at once is fine");
	sk_copy(&before, &s);
	st = bs_cms_add(&s.c, 2, 11, &err);
	CHECK(st == BS_ERR_LIMIT && strstr(err.msg, "9223372036854775807") && memcmp(s.buf, before.buf, s.len) == 0 &&
		  s.c.total == I64MAX - 10,
		  "adding 11 more (total past 2^63 - 1) is BS_ERR_LIMIT and changes nothing, view included (%s)", err.msg);
	st = bs_cms_add(&s.c, 2, UINT64_MAX, &err);
	CHECK(st == BS_ERR_LIMIT && memcmp(s.buf, before.buf, s.len) == 0,
		  "adding 2^64 - 1 (would wrap around to total - 1) is BS_ERR_LIMIT and changes nothing");
	st = bs_cms_add(&s.c, 2, 10, &err);
	CHECK(st == BS_OK && s.c.total == I64MAX && bs_cms_frequency(&s.c, 2) >= 10 &&
		  bs_validate(s.buf, s.len, BS_KIND_CMS, true, NULL, &err) == BS_OK,
		  "adding exactly up to 2^63 - 1 is fine and the sketch is valid");
	st = bs_cms_add(&s.c, 3, 0, &err);
	CHECK(st == BS_OK && s.c.total == I64MAX, "at 2^63 - 1, adding 0 is still fine");
	sk_free(&before);
	sk_copy(&before, &s);
	st = bs_cms_add(&s.c, 3, 1, &err);
	CHECK(st == BS_ERR_LIMIT && memcmp(s.buf, before.buf, s.len) == 0, "at 2^63 - 1, adding 1 is BS_ERR_LIMIT, nothing changed");
	sk_free(&s);
	sk_free(&before);

	{
		uint64_t	est = 7,
					keys[300];
		int			bad = 0;
		uint64_t	i;
		unit_rng	r = {77};

		for (i = 0; i < 300; i++)
			keys[i] = unit_next(&r);

		sk_new(&s, 50, 3, BS_FAMILY_INTEGER, 0);
		for (i = 0; i < 2000; i++)
		{
			uint64_t	h = keys[i % 300];

			if (bs_cms_add_estimate(&s.c, h, 1 + i % 5, &est, &err) != BS_OK ||
				est != bs_cms_frequency(&s.c, h))
				bad++;
		}
		sk_copy(&before, &s);
		est = 7;
		st = bs_cms_add_estimate(&s.c, 1, I64MAX, &est, &err);
		CHECK(bad == 0 && st == BS_ERR_LIMIT && est == 7 && memcmp(s.buf, before.buf, s.len) == 0,
			  "bs_cms_add_estimate gives bs_cms_frequency after the add (%d of 2000 differ), and at the total limit fails changing nothing",
			  bad);
		sk_free(&s);
		sk_free(&before);
	}

	sk_new(&s, 50, 3, BS_FAMILY_INTEGER, 0);
	st = bs_cms_add(&s.c, 1, I64MAX + 1, &err);
	CHECK(st == BS_ERR_LIMIT && s.c.total == 0 && bs_cms_frequency(&s.c, 1) == 0,
		  "adding 2^63 to an empty sketch is BS_ERR_LIMIT, nothing changed");
	sk_free(&s);

	/* merge overflow */
	sk_new(&s, 50, 3, BS_FAMILY_INTEGER, 0);
	sk_new(&b, 50, 3, BS_FAMILY_INTEGER, 0);
	sk_add(&s, 1, I64MAX / 2 + 1);
	sk_add(&b, 2, I64MAX / 2 + 1);
	sk_copy(&before, &s);
	{
		sketch		bcopy;

		sk_copy(&bcopy, &b);
		st = bs_cms_merge(&s.c, &b.c, &err);
		CHECK(st == BS_ERR_LIMIT && memcmp(s.buf, before.buf, s.len) == 0 && s.c.total == before.c.total &&
			  memcmp(b.buf, bcopy.buf, b.len) == 0,
			  "merging two sketches of total 2^62 each (sum 2^63) is BS_ERR_LIMIT; neither changes (%s)", err.msg);
		sk_free(&bcopy);
	}
	sk_free(&b);
	sk_new(&b, 50, 3, BS_FAMILY_INTEGER, 0);
	sk_add(&b, 2, I64MAX / 2);
	st = bs_cms_merge(&s.c, &b.c, &err);
	CHECK(st == BS_OK && s.c.total == I64MAX && bs_cms_frequency(&s.c, 1) >= I64MAX / 2 + 1 &&
		  bs_validate(s.buf, s.len, BS_KIND_CMS, true, NULL, &err) == BS_OK,
		  "merging up to exactly 2^63 - 1 is fine and valid");
	sk_free(&s);
	sk_free(&b);
	sk_free(&before);
}

/* ---- inner product ---- */

static void
test_inner_product(void)
{
	const int	trials = 20;
	const uint64_t nkeys = 5000,
				na = 100000,
				nb = 60000;
	uint64_t	rows = 0,
				rows_within = 0,
				est_within = 0,
				below = 0;
	double		worst = 0;
	int			t;
	bs_error	err;
	bs_status	st;
	char		b1[48],
				b2[48];

	for (t = 0; t < trials; t++)
	{
		unit_rng	r = {5001 + (uint64_t) t};
		uint64_t   *h = unit_random_hashes(&r, nkeys);
		uint32_t   *fa = unit_calloc(nkeys, sizeof(uint32_t)),
				   *fb = unit_calloc(nkeys, sizeof(uint32_t));
		double	   *cdf = zipf_cdf(nkeys, 1.0);
		sketch		a,
					b;
		unsigned __int128 truth = 0,
					est = 0;
		uint64_t	i,
					col;
		uint32_t	j;
		double		bound;

		sk_new(&a, 272, 7, BS_FAMILY_INTEGER, 0);
		sk_new(&b, 272, 7, BS_FAMILY_INTEGER, 0);
		for (i = 0; i < na; i++)
		{
			uint64_t	k = zipf_draw(cdf, nkeys, &r);

			fa[k]++;
			sk_add(&a, h[k], 1);
		}
		for (i = 0; i < nb; i++)
		{
			uint64_t	k = unit_below(&r, nkeys);

			fb[k]++;
			sk_add(&b, h[k], 1);
		}
		for (i = 0; i < nkeys; i++)
			truth += (unsigned __int128) fa[i] * fb[i];
		st = inner_product(&a.c, &b.c, &est, &err);
		bound = bs_cms_epsilon(272) * (double) na * (double) nb;
		if (st != BS_OK || est < truth)
			below++;
		else if ((double) (est - truth) <= bound)
			est_within++;
		if (st == BS_OK && est >= truth && (double) (est - truth) / bound > worst)
			worst = (double) (est - truth) / bound;
		for (j = 0; j < 7; j++)
		{
			unsigned __int128 sum = 0;

			for (col = 0; col < 272; col++)
				sum += (unsigned __int128) bs_load64(a.c.counters + ((uint64_t) j * 272 + col) * 8) *
					bs_load64(b.c.counters + ((uint64_t) j * 272 + col) * 8);
			rows++;
			if (sum >= truth && (double) (sum - truth) <= bound)
				rows_within++;
			if (sum < truth)
				below++;
		}
		sk_free(&a);
		sk_free(&b);
		free(h);
		free(fa);
		free(fb);
		free(cdf);
	}
	CHECK(below == 0, "inner product: over %d pairs of streams (Zipf 1.0, 100,000 and uniform, 60,000 over 5,000 keys, 272 x 7) neither the estimate nor any row is below the true join size (%" PRIu64 " below)",
		  trials, below);
	CHECK((double) rows_within >= (1 - exp(-1.0)) * (double) rows,
		  "inner product: %" PRIu64 " of %" PRIu64 " rows (%.1f%%) within eps N_a N_b of the truth (Markov: at least 1 - 1/e = 63.2%%)",
		  rows_within, rows, 100.0 * (double) rows_within / (double) rows);
	CHECK(est_within == (uint64_t) trials,
		  "inner product: the estimate (minimum over the rows) is within eps N_a N_b in %" PRIu64 " of %d pairs; worst error %.3f x eps N_a N_b",
		  est_within, trials, worst);

	/* exact cases */
	{
		sketch		a,
					b,
					c,
					w;
		unsigned __int128 ip = 0,
					want = (unsigned __int128) I64MAX * I64MAX;

		sk_new(&a, 64, 4, BS_FAMILY_INTEGER, 0);
		sk_new(&b, 64, 4, BS_FAMILY_NONE, 0);
		sk_add(&a, 77, 6);
		sk_add(&b, 77, 7);
		st = inner_product(&a.c, &b.c, &ip, &err);
		CHECK(st == BS_OK && ip == 42, "one shared key counted 6 and 7 times: inner product exactly 42 (got %s)", u128_text(ip, b1));
		st = inner_product(&a.c, &a.c, &ip, &err);
		CHECK(st == BS_OK && ip == 36, "a sketch with itself: F2 = 36");
		sk_free(&b);
		sk_new(&b, 64, 4, BS_FAMILY_INTEGER, 0);
		st = inner_product(&a.c, &b.c, &ip, &err);
		CHECK(st == BS_OK && ip == 0, "with an empty sketch: 0");
		sk_free(&a);
		sk_free(&b);

		sk_new(&a, 4, 2, BS_FAMILY_INTEGER, 0);
		sk_add(&a, 1, I64MAX);
		st = inner_product(&a.c, &a.c, &ip, &err);
		CHECK(st == BS_OK && ip == want,
			  "totals of 2^63 - 1: inner product (2^63 - 1)^2 = %s exactly, in 128 bits (got %s)",
			  u128_text(want, b1), u128_text(ip, b2));
		sk_new(&c, 4, 2, BS_FAMILY_TEXT, 0);
		sk_new(&w, 5, 2, BS_FAMILY_INTEGER, 0);
		CHECK(inner_product(&a.c, &c.c, &ip, &err) == BS_ERR_FAMILY && strstr(err.msg, "integer") && strstr(err.msg, "text"),
			  "inner product of integer and text sketches is BS_ERR_FAMILY (%s)", err.msg);
		CHECK(inner_product(&a.c, &w.c, &ip, &err) == BS_ERR_SHAPE && strstr(err.msg, "width 4") && strstr(err.msg, "width 5"),
			  "inner product of widths 4 and 5 is BS_ERR_SHAPE naming both (%s)", err.msg);
		sk_free(&a);
		sk_free(&c);
		sk_free(&w);
	}
}

/* ---- bs_cms_check ---- */

static uint8_t *
with64(const sketch *s, size_t off, uint64_t v)
{
	uint8_t    *c = unit_calloc(1, s->len);

	memcpy(c, s->buf, s->len);
	bs_store64(c + off, v);
	return c;
}

static bs_status
validate64(const sketch *s, size_t off, uint64_t v, bool deep, bs_error *err)
{
	uint8_t    *c = with64(s, off, v);
	bs_status	st = bs_validate(c, s->len, BS_KIND_CMS, deep, NULL, err);

	free(c);
	return st;
}

static bs_status
validate32(const sketch *s, size_t off, uint32_t v, bool deep, bs_error *err)
{
	uint8_t    *c = unit_calloc(1, s->len);
	bs_status	st;

	memcpy(c, s->buf, s->len);
	bs_store32(c + off, v);
	st = bs_validate(c, s->len, BS_KIND_CMS, deep, NULL, err);
	free(c);
	return st;
}

static void
test_check(void)
{
	unit_rng	r = {6001};
	sketch		s;
	bs_error	err;
	bs_header	h;
	uint64_t	i,
				total;
	const size_t c0 = BS_HEADER_SIZE;	/* row 0, column 0 */

	sk_new(&s, 10, 3, BS_FAMILY_INTEGER, 0);
	for (i = 0; i < 100; i++)
		sk_add(&s, unit_next(&r), 1 + unit_below(&r, 5));
	total = s.c.total;
	CHECK(bs_validate(s.buf, s.len, BS_KIND_CMS, true, &h, &err) == BS_OK && h.n == total &&
		  bs_validate(s.buf, s.len, BS_KIND_CMS, false, NULL, &err) == BS_OK,
		  "a 10 x 3 sketch of 100 adds (total %" PRIu64 ") passes the deep and the quick check", total);

	/* rows that do not sum to the total */
	{
		uint64_t	v = bs_load64(s.buf + c0);
		uint8_t    *c = with64(&s, c0, v + 1);

		CHECK(bs_validate(c, s.len, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT && strstr(err.msg, "row 0"),
			  "a counter of row 0 one higher: deep check BS_ERR_FORMAT naming the row (%s)", err.msg);
		CHECK(bs_validate(c, s.len, BS_KIND_CMS, false, NULL, &err) == BS_OK,
			  "... which the quick O(1) check does not look for (stored values only get that one)");
		free(c);
		c = with64(&s, c0 + (2 * 10 + 9) * 8, bs_load64(s.buf + c0 + (2 * 10 + 9) * 8) ^ 1);
		CHECK(bs_validate(c, s.len, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT && strstr(err.msg, "row 2"),
			  "the last counter of the last row changed: BS_ERR_FORMAT naming row 2 (%s)", err.msg);
		free(c);
	}
	CHECK(validate64(&s, BS_OFF_N, total + 1, true, &err) == BS_ERR_FORMAT &&
		  validate64(&s, BS_OFF_N, total - 1, true, &err) == BS_ERR_FORMAT &&
		  validate64(&s, BS_OFF_N, 0, true, &err) == BS_ERR_FORMAT,
		  "a total of N + 1, N - 1 or 0 for rows summing to N is BS_ERR_FORMAT (%s)", err.msg);
	{
		/* counters that wrap around 2^64 to the right sum: row 0 = [2^64 - 1, 2, 0, ...] sums to 1 mod 2^64 */
		sketch		t;
		uint8_t    *c;

		sk_new(&t, 4, 1, BS_FAMILY_INTEGER, 0);
		c = with64(&t, BS_OFF_N, 1);
		bs_store64(c + c0, UINT64_MAX);
		bs_store64(c + c0 + 8, 2);
		CHECK(bs_validate(c, t.len, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT,
			  "a row [2^64 - 1, 2, 0, 0] that sums to the total 1 only modulo 2^64 is BS_ERR_FORMAT (%s)", err.msg);
		free(c);
		c = with64(&t, BS_OFF_N, I64MAX + 1);
		bs_store64(c + c0, I64MAX + 1);
		CHECK(bs_validate(c, t.len, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT &&
			  bs_validate(c, t.len, BS_KIND_CMS, false, NULL, &err) == BS_ERR_FORMAT,
			  "a consistent sketch with total 2^63 (past the 64-bit signed limit) is BS_ERR_FORMAT, even quick (%s)", err.msg);
		bs_store64(c + BS_OFF_N, I64MAX);
		bs_store64(c + c0, I64MAX);
		CHECK(bs_validate(c, t.len, BS_KIND_CMS, true, NULL, &err) == BS_OK,
			  "the same with total 2^63 - 1 is valid");
		free(c);
		sk_free(&t);
	}

	/* bad shapes and reserved fields */
	CHECK(validate64(&s, BS_OFF_P1, 0, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "shape"),
		  "width 0 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate64(&s, BS_OFF_P1, 11, true, &err) == BS_ERR_FORMAT && validate64(&s, BS_OFF_P1, 9, true, &err) == BS_ERR_FORMAT &&
		  validate64(&s, BS_OFF_P1, 11, false, &err) == BS_ERR_FORMAT,
		  "width 11 or 9 for 10 x 3 counters' bytes is BS_ERR_FORMAT, quick too (%s)", err.msg);
	CHECK(validate64(&s, BS_OFF_P1, UINT64_MAX, true, &err) == BS_ERR_FORMAT &&
		  validate64(&s, BS_OFF_P1, UINT64_C(1) << 61, true, &err) == BS_ERR_FORMAT &&
		  validate64(&s, BS_OFF_P1, (UINT64_C(1) << 61) + 10, true, &err) == BS_ERR_FORMAT &&
		  validate64(&s, BS_OFF_P1, (UINT64_C(1) << 61) + 10, false, &err) == BS_ERR_FORMAT,
		  "huge widths are BS_ERR_FORMAT: 2^64 - 1, 2^61, and 2^61 + 10, whose 3 x 8 bytes a column wrap around to exactly the 240 bytes there are (%s)", err.msg);
	CHECK(validate32(&s, BS_OFF_P2, 0, true, &err) == BS_ERR_FORMAT && validate32(&s, BS_OFF_P2, 65, true, &err) == BS_ERR_FORMAT &&
		  validate32(&s, BS_OFF_P2, UINT32_MAX, true, &err) == BS_ERR_FORMAT && validate32(&s, BS_OFF_P2, 2, true, &err) == BS_ERR_FORMAT &&
		  validate32(&s, BS_OFF_P2, 4, false, &err) == BS_ERR_FORMAT,
		  "depth 0, 65, 2^32 - 1, or 2 or 4 for 3 rows' bytes is BS_ERR_FORMAT (%s)", err.msg);
	{
		/* same byte count, other split: 15 x 2 instead of 10 x 3 */
		uint8_t    *c = with64(&s, BS_OFF_P1, 15);

		bs_store32(c + BS_OFF_P2, 2);
		CHECK(bs_validate(c, s.len, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT,
			  "the same 30 counters read as 15 x 2 are BS_ERR_FORMAT: rows no longer sum to the total (%s)", err.msg);
		free(c);
	}
	CHECK(validate32(&s, BS_OFF_P3, 1, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "reserved") &&
		  validate32(&s, BS_OFF_P3, 0x80000000u, false, &err) == BS_ERR_FORMAT,
		  "a nonzero p3 (reserved) is BS_ERR_FORMAT, quick too (%s)", err.msg);
	CHECK(validate64(&s, BS_OFF_X, 1, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "reserved") &&
		  validate64(&s, BS_OFF_X, UINT64_C(1) << 63, false, &err) == BS_ERR_FORMAT,
		  "a nonzero x (reserved) is BS_ERR_FORMAT, quick too (%s)", err.msg);
	CHECK(validate64(&s, 8, 12345, true, &err) == BS_OK,
		  "any seed is valid (merges check that seeds match)");

	/* payload length */
	{
		int			bad = 0;
		size_t		len;

		for (len = 0; len < s.len; len++)
			if (bs_validate(s.buf, len, BS_KIND_CMS, true, NULL, &err) != BS_ERR_FORMAT ||
				bs_validate(s.buf, len, BS_KIND_CMS, false, NULL, &err) != BS_ERR_FORMAT)
				bad++;
		CHECK(bad == 0, "every truncation of the %zu-byte sketch is BS_ERR_FORMAT (%d accepted)", s.len, bad);
	}
	{
		uint8_t    *c = unit_calloc(1, s.len + 8);

		memcpy(c, s.buf, s.len);
		CHECK(bs_validate(c, s.len + 8, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT &&
			  bs_validate(c, s.len + 1, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT && strstr(err.msg, "payload bytes"),
			  "one zero counter or one byte too many is BS_ERR_FORMAT (%s)", err.msg);
		free(c);
	}

	/* kinds */
	CHECK(bs_validate(s.buf, s.len, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT && strstr(err.msg, "cms") &&
		  strstr(err.msg, "bloom"),
		  "a cms read as a bloom is BS_ERR_FORMAT naming both kinds (%s)", err.msg);
	CHECK(bs_validate(s.buf, s.len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT,
		  "a cms read as a bloom_agg_state is BS_ERR_FORMAT");
	CHECK(strcmp(bs_kind_name(BS_KIND_CMS), "cms") == 0, "bs_kind_name(BS_KIND_CMS) is \"cms\"");
	sk_free(&s);

	/* bs_cms_check directly: a deep check of one row of one counter */
	{
		bs_header	hh;
		uint8_t		payload[8];

		bs_header_init(&hh, BS_KIND_CMS, BS_FAMILY_NONE, 0);
		hh.p1 = 1;
		hh.p2 = 1;
		hh.n = 3;
		bs_store64(payload, 3);
		CHECK(bs_cms_check(&hh, payload, 8, true, &err) == BS_OK, "bs_cms_check: 1 x 1 holding 3 with total 3 is fine");
		bs_store64(payload, 4);
		CHECK(bs_cms_check(&hh, payload, 8, true, &err) == BS_ERR_FORMAT && bs_cms_check(&hh, payload, 8, false, &err) == BS_OK,
			  "bs_cms_check: 1 x 1 holding 4 with total 3 fails deep, passes quick (%s)", err.msg);
		CHECK(bs_cms_check(&hh, payload, 0, false, &err) == BS_ERR_FORMAT && bs_cms_check(&hh, payload, 16, false, &err) == BS_ERR_FORMAT,
			  "bs_cms_check: payload of 0 or 16 bytes for 1 x 1 is BS_ERR_FORMAT");
	}
}

int
main(void)
{
	test_dims();
	test_layout();
	test_uniform();
	test_zipf();
	test_delta_small_depth();
	test_merge();
	test_subtract();
	test_overflow();
	test_inner_product();
	test_check();
	return unit_done("cms");
}
