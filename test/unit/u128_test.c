/*
 * u128_test.c: the 128-bit sums of src/core/u128.h without unsigned __int128.
 *
 * This file defines BS_NO_INT128, so its bs_u128_muladd() is the portable
 * one that a compiler without __int128 builds (the core, compiled without
 * the define, uses the native one).  Checked against the compiler's
 * unsigned __int128 on extreme and random inputs, and against the core's
 * bs_cms_inner_product() on sketches with extreme counters.
 */
#define BS_NO_INT128
#include <inttypes.h>
#include <string.h>

#include "core/cms.h"
#include "core/u128.h"
#include "unit.h"

#ifdef BS_HAVE_INT128
#error "BS_NO_INT128 must select the portable functions"
#endif

static const uint64_t extreme[] = {
	0, 1, 2, 3, 9, 10, UINT64_C(0xffffffff), UINT64_C(0x100000000), UINT64_C(0x100000001),
	UINT64_C(0x7fffffffffffffff), UINT64_C(0x8000000000000000), UINT64_C(0xfffffffffffffffe),
	UINT64_MAX, UINT64_C(0xffffffff00000000), UINT64_C(0x00000000ffffffff) << 16,
};

#define NEXTREME (sizeof(extreme) / sizeof(extreme[0]))

static int
same(bs_u128 a, bs_u128 b)
{
	return a.hi == b.hi && a.lo == b.lo;
}

#ifdef __SIZEOF_INT128__
static bs_u128
from_native(unsigned __int128 v)
{
	bs_u128		r = {(uint64_t) (v >> 64), (uint64_t) v};

	return r;
}

/* Decimal digits of v, by the compiler's 128-bit division. */
static const char *
native_text(unsigned __int128 v, char *buf)
{
	char	   *p = buf + BS_U128_DIGITS;

	*p = '\0';
	do
	{
		*--p = (char) ('0' + (int) (v % 10));
		v /= 10;
	} while (v != 0);
	return p;
}
#endif

static void
test_text(void)
{
	char		buf[BS_U128_DIGITS + 1];
	bs_u128		zero = {0, 0},
				two64 = {1, 0},
				max = {UINT64_MAX, UINT64_MAX},
				sq = bs_u128_muladd((bs_u128) {0, 0}, UINT64_C(0x7fffffffffffffff), UINT64_C(0x7fffffffffffffff));

	CHECK(strcmp(bs_u128_text(zero, buf), "0") == 0, "0 prints as 0");
	CHECK(strcmp(bs_u128_text(two64, buf), "18446744073709551616") == 0, "2^64 prints as 18446744073709551616");
	CHECK(strcmp(bs_u128_text(max, buf), "340282366920938463463374607431768211455") == 0,
		  "2^128 - 1 prints with all its 39 digits");
	CHECK(strcmp(bs_u128_text(sq, buf), "85070591730234615847396907784232501249") == 0,
		  "(2^63 - 1)^2, the largest inner product of two sketches, prints as 85070591730234615847396907784232501249 (got %s)",
		  bs_u128_text(sq, buf));
}

#ifdef __SIZEOF_INT128__
static void
test_against_native(void)
{
	unit_rng	r = {128};
	size_t		i,
				j;
	long		bad_mul = 0,
				bad_sum = 0,
				bad_less = 0,
				bad_text = 0,
				n = 0;
	char		b1[BS_U128_DIGITS + 1],
				b2[BS_U128_DIGITS + 1];

	/* every pair of extreme factors, added to extreme and random sums */
	for (i = 0; i < NEXTREME; i++)
		for (j = 0; j < NEXTREME; j++)
		{
			unsigned __int128 acc[4] = {0, ((unsigned __int128) UINT64_MAX << 64) | UINT64_MAX,
				(unsigned __int128) extreme[j] << 64 | extreme[i],
			(unsigned __int128) unit_next(&r) << 64 | unit_next(&r)};
			int			a;

			if (!same(bs_u128_mul64_portable(extreme[i], extreme[j]),
					  from_native((unsigned __int128) extreme[i] * extreme[j])))
				bad_mul++;
			for (a = 0; a < 4; a++)
			{
				unsigned __int128 want = acc[a] + (unsigned __int128) extreme[i] * extreme[j];

				n++;
				if (!same(bs_u128_muladd(from_native(acc[a]), extreme[i], extreme[j]), from_native(want)))
					bad_sum++;
			}
		}
	CHECK(bad_mul == 0 && bad_sum == 0,
		  "portable a * b and acc + a * b (mod 2^128) equal unsigned __int128 for all %zu x %zu extreme factors and %ld sums (%ld, %ld differ)",
		  NEXTREME, NEXTREME, n, bad_mul, bad_sum);

	/* random factors of random sizes, summed as the inner product sums */
	for (n = 0; n < 200000; n++)
	{
		int			sa = (int) unit_below(&r, 65),
					sb = (int) unit_below(&r, 65);
		/* sa, sb significant bits: 0 to 64 */
		uint64_t	a = sa == 0 ? 0 : unit_next(&r) >> (64 - sa),
					b = sb == 0 ? 0 : unit_next(&r) >> (64 - sb);
		unsigned __int128 x = (unsigned __int128) unit_next(&r) << 64 | unit_next(&r),
					y = (unsigned __int128) unit_next(&r) << (unit_below(&r, 64)) | unit_next(&r);
		bs_u128		px = from_native(x),
					py = from_native(y),
					s = bs_u128_muladd(px, a, b);

		if (!same(s, from_native(x + (unsigned __int128) a * b)))
			bad_sum++;
		if (bs_u128_less(px, py) != (x < y) || bs_u128_less(py, px) != (y < x) || bs_u128_less(px, px))
			bad_less++;
		if (n % 16 == 0 && strcmp(bs_u128_text(px, b1), native_text(x, b2)) != 0)
			bad_text++;
	}
	CHECK(bad_sum == 0 && bad_less == 0 && bad_text == 0,
		  "200,000 random sums, comparisons and (1 in 16) decimal forms equal unsigned __int128's (%ld, %ld, %ld differ)",
		  bad_sum, bad_less, bad_text);
}

/* Two sketches of one shape with the given counters in every row. */
static void
cms_pair(uint8_t **a, uint8_t **b, bs_cms *ca, bs_cms *cb, uint64_t width, uint32_t depth)
{
	uint64_t	total;

	bs_cms_size(width, depth, &total, NULL);
	*a = unit_calloc(1, total);
	*b = unit_calloc(1, total);
	bs_cms_init(*a, width, depth, BS_FAMILY_INTEGER, 0);
	bs_cms_init(*b, width, depth, BS_FAMILY_INTEGER, 0);
	bs_cms_view(*a, ca);
	bs_cms_view(*b, cb);
}

static void
test_inner_product(void)
{
	unit_rng	r = {129};
	int			t,
				bad = 0;

	/* random and extreme counters (the function does not care that rows do not sum to a total) */
	for (t = 0; t < 300; t++)
	{
		uint64_t	width = 1 + unit_below(&r, 300),
					col;
		uint32_t	depth = 1 + (uint32_t) unit_below(&r, 8),
					row;
		uint8_t    *a,
				   *b;
		bs_cms		ca,
					cb;
		bs_u128		got,
					want = {0, 0};

		cms_pair(&a, &b, &ca, &cb, width, depth);
		for (row = 0; row < depth; row++)
		{
			bs_u128		sum = {0, 0};

			for (col = 0; col < width; col++)
			{
				uint64_t	x = t % 3 == 0 ? extreme[unit_below(&r, NEXTREME)] >> 1 : unit_next(&r) >> (1 + unit_below(&r, 63)),
							y = t % 3 == 1 ? extreme[unit_below(&r, NEXTREME)] >> 1 : unit_next(&r) >> (1 + unit_below(&r, 63));

				bs_store64(ca.counters + (row * width + col) * 8, x);
				bs_store64(cb.counters + (row * width + col) * 8, y);
				sum = bs_u128_muladd(sum, x, y);	/* portable */
			}
			if (row == 0 || bs_u128_less(sum, want))
				want = sum;
		}
		if (bs_cms_inner_product(&ca, &cb, &got, NULL) != BS_OK || !same(got, want))
			bad++;
		free(a);
		free(b);
	}
	CHECK(bad == 0,
		  "the portable sums give bs_cms_inner_product's result (the core's native one) on 300 random shapes with random and extreme counters (%d differ)",
		  bad);
}
#endif

int
main(void)
{
	test_text();
#ifdef __SIZEOF_INT128__
	test_against_native();
	test_inner_product();
#endif
	return unit_done("u128");
}
