/*
 * cbloom_test.c: the counting Bloom filter of src/core/cbloom.c and the
 * counting exact phase of the bloom_agg state (src/core/bloom_agg_state.c) that
 * cbloom_agg uses.
 *
 * Parts: the byte layout (nibble packing, header, a worked example), add /
 * contains / count / remove (coinciding probes included), saturation, churn
 * (false-positive rate after many adds and removes against the formula),
 * union, the bit view, the validator with a mutation fuzz, and the counting
 * bloom_agg_state (equal to direct adds, split- and order-independent, its checks
 * and its limit).
 *
 * For an AddressSanitizer run by hand:
 *   cc -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
 *      -Isrc -o /tmp/cbloom_test_asan test/unit/cbloom_test.c src/core/?*.c -lm
 * (every filter handed to the core is allocated at its exact length).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/bloom.h"
#include "core/bloom_agg_state.h"
#include "core/cbloom.h"
#include "core/endian.h"
#include "core/format.h"
#include "core/hash.h"
#include "unit.h"


static unit_arena the_arena;
static const bs_allocator alloc = {unit_arena_alloc, &the_arena, NULL};

/* ---- helpers ---- */

static uint64_t
payload_len(uint64_t m, uint32_t bits)
{
	return bits == 8 ? m : (m + 1) / 2;
}

static size_t
cb_total(uint64_t m, uint32_t bits)
{
	uint64_t	total;
	bs_error	err;

	if (bs_cbloom_size(m, bits, &total, &err) != BS_OK)
	{
		fprintf(stderr, "bs_cbloom_size(%" PRIu64 ", %u): %s\n", m, bits, err.msg);
		exit(2);
	}
	return (size_t) total;
}

/* A new empty filter at its exact length, viewed into *c (if not NULL). */
static uint8_t *
new_cb(uint64_t m, uint32_t k, uint32_t bits, uint8_t family, uint64_t seed, bs_cbloom *c)
{
	size_t		len = cb_total(m, bits);
	uint8_t    *b = unit_calloc(1, len);

	memset(b, 0xa5, len);		/* init must write every byte */
	bs_cbloom_init(b, m, k, bits, family, seed);
	if (c)
		bs_cbloom_view(b, c);
	return b;
}

static size_t
cb_len(const uint8_t *buf)
{
	return BS_HEADER_SIZE + (size_t) payload_len(bs_load64(buf + BS_OFF_P1), bs_load32(buf + BS_OFF_P3));
}

static uint8_t *
dup_bytes(const uint8_t *p, size_t len)
{
	uint8_t    *c = unit_calloc(1, len);

	memcpy(c, p, len);
	return c;
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

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

static void
add_all(bs_cbloom *c, const uint64_t *h, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
		bs_cbloom_add_hash(c, h[i], 1);
}

static uint64_t
count_missing(const bs_cbloom *c, const uint64_t *h, size_t n)
{
	uint64_t	missing = 0;
	size_t		i;

	for (i = 0; i < n; i++)
		missing += !bs_cbloom_contains_hash(c, h[i]);
	return missing;
}

/* Remove every hash once; returns how many removals failed. */
static uint64_t
remove_all(bs_cbloom *c, const uint64_t *h, size_t n)
{
	uint64_t	failed = 0;
	size_t		i;

	for (i = 0; i < n; i++)
		failed += bs_cbloom_remove_hash(c, h[i], NULL) != BS_OK;
	return failed;
}

/* How many of the k probes of h land on position j. */
static uint32_t
mult_at(uint64_t h, uint32_t k, uint64_t m, uint64_t j)
{
	uint32_t	i,
				n = 0;

	for (i = 0; i < k; i++)
		n += bs_probe(h, i, m) == j;
	return n;
}

/* Largest number of h's probes on one position. */
static uint32_t
max_mult(uint64_t h, uint32_t k, uint64_t m)
{
	uint32_t	i,
				best = 0;

	for (i = 0; i < k; i++)
	{
		uint32_t	n = mult_at(h, k, m, bs_probe(h, i, m));

		if (n > best)
			best = n;
	}
	return best;
}

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

/* ---- 1. layout ---- */

static void
test_layout(void)
{
	static const uint8_t hdr[BS_HEADER_SIZE] = {
		'B', 'S', 'K', 'T', 1, 5, 1, BS_FAMILY_INTEGER,
		0x2a, 0, 0, 0, 0, 0, 0, 0,	/* seed 42 */
		5, 0, 0, 0, 0, 0, 0, 0,	/* p1 = m = 5 */
		3, 0, 0, 0,				/* p2 = k = 3 */
		4, 0, 0, 0,				/* p3 = counter bits 4 */
		0, 0, 0, 0, 0, 0, 0, 0,	/* n */
	0, 0, 0, 0, 0, 0, 0, 0};	/* x */
	uint64_t	total;
	bs_status	s0,
				s3,
				sl,
				sl8;
	bs_error	err;
	uint64_t	max4 = bs_cbloom_max_counters(4),
				max8 = bs_cbloom_max_counters(8),
				t4 = 0,
				t8 = 0;
	bool		sizes_ok = true;
	char		list[256] = "";
	static const struct
	{
		uint64_t	m;
		uint32_t	bits;
		uint64_t	total;
	}			sizes[] = {{1, 4, 49}, {2, 4, 49}, {5, 4, 51}, {6, 4, 51}, {7, 4, 52}, {1, 8, 49}, {5, 8, 53}, {6, 8, 54}};
	int			i;

	for (i = 0; i < (int) (sizeof(sizes) / sizeof(sizes[0])); i++)
	{
		total = 0;
		if (bs_cbloom_size(sizes[i].m, sizes[i].bits, &total, NULL) != BS_OK || total != sizes[i].total)
			sizes_ok = false;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), " m=%" PRIu64 "/%u:%" PRIu64,
				 sizes[i].m, sizes[i].bits, total);
	}
	CHECK(sizes_ok, "bs_cbloom_size is 48 + ceil(m/2) bytes for 4-bit and 48 + m for 8-bit counters:%s", list);
	s0 = bs_cbloom_size(0, 4, &total, &err);
	s3 = bs_cbloom_size(5, 3, &total, &err);
	CHECK(s0 == BS_ERR_PARAM && s3 == BS_ERR_PARAM && bs_cbloom_size(5, 16, &total, NULL) == BS_ERR_PARAM,
		  "bs_cbloom_size: m = 0 and counter bits 3 or 16 are BS_ERR_PARAM (%s)", err.msg);
	sl = bs_cbloom_size(max4 + 1, 4, &total, &err);
	sl8 = bs_cbloom_size(max8 + 1, 8, &total, NULL);
	CHECK(bs_cbloom_size(max4, 4, &t4, NULL) == BS_OK && bs_cbloom_size(max8, 8, &t8, NULL) == BS_OK &&
		  t4 == BS_MAX_SKETCH_BYTES && t8 == BS_MAX_SKETCH_BYTES && sl == BS_ERR_LIMIT && sl8 == BS_ERR_LIMIT &&
		  max4 == 2 * max8,
		  "the largest filters (%" PRIu64 " 4-bit or %" PRIu64 " 8-bit counters) take exactly 511 MiB; one counter more is BS_ERR_LIMIT (%s)",
		  max4, max8, err.msg);

	/* header */
	{
		bs_cbloom	c;
		uint8_t    *b = new_cb(5, 3, 4, BS_FAMILY_INTEGER, 42, &c);

		CHECK(memcmp(b, hdr, BS_HEADER_SIZE) == 0 && all_zero(b + BS_HEADER_SIZE, 3),
			  "bs_cbloom_init(m = 5, k = 3, 4 bits, integer, seed 42) writes the documented header (kind 5, p1 = m, p2 = k, p3 = 4, n = x = 0) and 3 zero bytes");
		CHECK(c.m == 5 && c.k == 3 && c.bits == 4 && c.max == 15 && c.family == BS_FAMILY_INTEGER && c.seed == 42 &&
			  c.buf == b && c.counters == b + BS_HEADER_SIZE,
			  "bs_cbloom_view decodes m, k, bits, max 15, family and seed");
		free(b);
		b = new_cb(6, 2, 8, BS_FAMILY_TEXT, 0, &c);
		CHECK(bs_load64(b + BS_OFF_P1) == 6 && bs_load32(b + BS_OFF_P2) == 2 && bs_load32(b + BS_OFF_P3) == 8 &&
			  bs_load64(b + BS_OFF_N) == 0 && bs_load64(b + BS_OFF_X) == 0 && b[5] == BS_KIND_CBLOOM &&
			  c.max == 255 && all_zero(b + BS_HEADER_SIZE, 6),
			  "an 8-bit filter has p3 = 8, max 255 and m zero bytes");
		free(b);
	}

	/* packing */
	{
		static const uint8_t want4[] = {0x21, 0x43, 0x65, 0x07};
		static const uint8_t want4b[] = {0x21, 0xf3, 0x05, 0x07};
		static const uint8_t want8[] = {1, 11, 21, 31, 41};
		bs_cbloom	c;
		uint8_t    *b = new_cb(7, 1, 4, 0, 0, &c);
		uint64_t	j;
		bool		gets = true;

		for (j = 0; j < 7; j++)
			bs_cbloom_set(&c, j, (uint32_t) j + 1);
		for (j = 0; j < 7; j++)
			gets &= bs_cbloom_get(&c, j) == j + 1;
		CHECK(memcmp(b + BS_HEADER_SIZE, want4, 4) == 0 && gets,
			  "4-bit packing: counters 1..7 of m = 7 are bytes 21 43 65 07 (counter j in byte j/2, even j low nibble, the unused high nibble zero); got %02x %02x %02x %02x",
			  b[48], b[49], b[50], b[51]);
		bs_cbloom_set(&c, 3, 15);
		bs_cbloom_set(&c, 4, 0);
		bs_cbloom_set(&c, 5, 0);
		bs_cbloom_set(&c, 4, 5);
		CHECK(memcmp(b + BS_HEADER_SIZE, want4b, 4) == 0 && bs_cbloom_get(&c, 2) == 3 && bs_cbloom_get(&c, 3) == 15,
			  "setting one nibble leaves its neighbour alone (21 f3 05 07; got %02x %02x %02x %02x)",
			  b[48], b[49], b[50], b[51]);
		b[48] = 0xa5;
		CHECK(bs_cbloom_get(&c, 0) == 5 && bs_cbloom_get(&c, 1) == 10,
			  "bs_cbloom_get reads byte a5 as counter 0 = 5 (low nibble), counter 1 = 10 (high nibble)");
		free(b);
		b = new_cb(5, 1, 8, 0, 0, &c);
		for (j = 0; j < 5; j++)
			bs_cbloom_set(&c, j, 10 * (uint32_t) j + 1);
		bs_cbloom_set(&c, 2, 255);
		bs_cbloom_set(&c, 2, 21);
		CHECK(memcmp(b + BS_HEADER_SIZE, want8, 5) == 0 && bs_cbloom_get(&c, 4) == 41,
			  "8-bit packing: counter j is byte j (1 11 21 31 41)");
		free(b);
	}

	/* a worked example: m = 5, k = 3, hashes 1, 2, 0, 0xdeadbeef twice */
	{
		static const uint64_t hs[] = {1, 2, 0, UINT64_C(0xdeadbeef), UINT64_C(0xdeadbeef)};
		uint32_t	cnt[5] = {0};
		uint8_t		want[BS_HEADER_SIZE + 5];
		uint8_t    *b4,
				   *b8;
		bs_cbloom	c4,
					c8;
		int			w;
		uint32_t	i2;
		size_t		j;

		for (j = 0; j < 5; j++)
			for (i2 = 0; i2 < 3; i2++)
				cnt[bs_probe(hs[j], i2, 5)]++;
		b4 = new_cb(5, 3, 4, BS_FAMILY_INTEGER, 42, &c4);
		b8 = new_cb(5, 3, 8, BS_FAMILY_INTEGER, 42, &c8);
		for (j = 0; j < 5; j++)
		{
			bs_cbloom_add_hash(&c4, hs[j], 1);
			bs_cbloom_add_hash(&c8, hs[j], 1);
		}
		memcpy(want, hdr, BS_HEADER_SIZE);
		memset(want + BS_HEADER_SIZE, 0, 5);
		for (w = 0; w < 5; w++)
			want[BS_HEADER_SIZE + w / 2] |= (uint8_t) (cnt[w] << (4 * (w & 1)));
		CHECK(memcmp(b4, want, BS_HEADER_SIZE + 3) == 0,
			  "worked example, m = 5, k = 3, 4 bits: after adding 1, 2, 0 and 0xdeadbeef twice the counters are %u %u %u %u %u and the payload is exactly %02x %02x %02x (got %02x %02x %02x)",
			  cnt[0], cnt[1], cnt[2], cnt[3], cnt[4], want[48], want[49], want[50], b4[48], b4[49], b4[50]);
		want[BS_OFF_P3] = 8;
		for (w = 0; w < 5; w++)
			want[BS_HEADER_SIZE + w] = (uint8_t) cnt[w];
		CHECK(memcmp(b8, want, BS_HEADER_SIZE + 5) == 0,
			  "worked example, 8 bits: the payload is exactly the counters %u %u %u %u %u, one byte each",
			  cnt[0], cnt[1], cnt[2], cnt[3], cnt[4]);
		free(b4);
		free(b8);
	}

	/* sizing */
	{
		uint64_t	m,
					bm;
		uint32_t	k,
					bk;
		bs_status	st,
					st8,
					stb;
		bs_error	e8,
					eb;

		bs_bloom_optimal_bits(2000, 0.01, &bm, NULL);
		bs_bloom_optimal_hashes(bm, 2000, &bk, NULL);
		st = bs_cbloom_optimal_shape(2000, 0.01, 4, &m, &k, NULL);
		CHECK(st == BS_OK && m == bm && k == bk,
			  "bs_cbloom_optimal_shape(2000, 0.01) = bloom_empty's shape: %" PRIu64 " counters, k = %u", m, k);
		st8 = bs_cbloom_optimal_shape(1e8, 0.01, 8, &m, &k, &e8);
		st = bs_cbloom_optimal_shape(1e8, 0.01, 4, &m, &k, NULL);
		stb = bs_cbloom_optimal_shape(1e9, 0.01, 4, &m, &k, &eb);
		CHECK(st8 == BS_ERR_LIMIT && st == BS_OK && stb == BS_ERR_LIMIT && strstr(e8.msg, "counters") && strstr(eb.msg, "counters"),
			  "1e8 values at 0.01 fit 4-bit counters but not 8-bit ones (%s); 1e9 fit neither (%s)", e8.msg, eb.msg);
		CHECK(bs_cbloom_optimal_shape(100, 0.01, 5, &m, &k, NULL) == BS_ERR_PARAM &&
			  bs_cbloom_optimal_shape(0, 0.01, 4, &m, &k, NULL) == BS_ERR_PARAM &&
			  bs_cbloom_optimal_shape(100, 1, 4, &m, &k, NULL) == BS_ERR_PARAM,
			  "bs_cbloom_optimal_shape with 5-bit counters, capacity 0 or fpr 1 is BS_ERR_PARAM");
		CHECK(bs_cbloom_check_shape(1, 1, 4, NULL) == BS_OK && bs_cbloom_check_shape(10, 64, 8, NULL) == BS_OK &&
			  bs_cbloom_check_shape(10, 0, 4, NULL) == BS_ERR_PARAM && bs_cbloom_check_shape(10, 65, 4, NULL) == BS_ERR_PARAM &&
			  bs_cbloom_check_shape(0, 3, 4, NULL) == BS_ERR_PARAM && bs_cbloom_check_shape(max8 + 1, 3, 8, NULL) == BS_ERR_LIMIT &&
			  bs_cbloom_check_shape(max8 + 1, 3, 4, NULL) == BS_OK,
			  "bs_cbloom_check_shape: k from 1 to 64, m from 1 to the width's limit");
	}
}

/* ---- 2. add / contains / count / remove ---- */

static void
test_add_remove(void)
{
	unit_rng	r = {2000};
	const size_t n = 10000;
	uint64_t   *h = unit_random_hashes(&r, n);
	uint32_t	bits;

	h[123] = 0;
	for (bits = 4; bits <= 8; bits += 4)
	{
		uint64_t	m,
					missing,
					missing_half,
					fail1,
					fail2,
					zero,
					sat;
		uint32_t	k;
		bs_cbloom	c;
		uint8_t    *b,
				   *empty;
		size_t		len;
		uint64_t   *order = unit_calloc(n, sizeof(uint64_t));

		bs_cbloom_optimal_shape((double) n, 0.01, bits, &m, &k, NULL);
		b = new_cb(m, k, bits, BS_FAMILY_INTEGER, 0, &c);
		len = cb_len(b);
		empty = dup_bytes(b, len);
		add_all(&c, h, n);
		missing = count_missing(&c, h, n);
		bs_cbloom_stats(&c, &zero, &sat);
		CHECK(missing == 0 && sat == 0 && zero < m,
			  "%u-bit, m = %" PRIu64 ", k = %u: no false negatives among %zu added hashes (%" PRIu64 " missing); %" PRIu64 " counters zero, %" PRIu64 " saturated",
			  bits, m, k, n, missing, zero, sat);
		memcpy(order, h, n * sizeof(uint64_t));
		shuffle(order, n, &r);
		fail1 = remove_all(&c, order, n / 2);
		missing_half = count_missing(&c, order + n / 2, n - n / 2);
		fail2 = remove_all(&c, order + n / 2, n - n / 2);
		CHECK(fail1 + fail2 == 0 && missing_half == 0 && memcmp(b, empty, len) == 0 && all_zero(b + BS_HEADER_SIZE, len - BS_HEADER_SIZE),
			  "%u-bit: removing the %zu values in another order never fails (%" PRIu64 " failed), keeps the other half (%" PRIu64 " missing after half) and ends byte-identical to the empty filter",
			  bits, n, fail1 + fail2, missing_half);
		free(b);
		free(empty);
		free(order);
	}

	/* count equals the number of adds in an otherwise empty filter */
	for (bits = 4; bits <= 8; bits += 4)
	{
		uint32_t	max = bits == 8 ? 255 : 15,
					t,
					v;
		long		bad = 0,
					steps = 0;

		for (v = 0; v < 20; v++)
		{
			bs_cbloom	c;
			uint8_t    *b = new_cb(1000, 5, bits, 0, 0, &c);
			uint64_t	x = unit_next(&r);
			bs_status	st;

			while (max_mult(x, 5, 1000) > 1)
				x = unit_next(&r);
			for (t = 1; t < max; t++, steps++)
			{
				bs_cbloom_add_hash(&c, x, 1);
				bad += bs_cbloom_count_hash(&c, x) != t || !bs_cbloom_contains_hash(&c, x);
			}
			for (t = max - 1; t > 0; t--, steps++)
			{
				st = bs_cbloom_remove_hash(&c, x, NULL);
				bad += st != BS_OK || bs_cbloom_count_hash(&c, x) != t - 1 || bs_cbloom_contains_hash(&c, x) != (t > 1);
			}
			bad += !all_zero(b + BS_HEADER_SIZE, cb_len(b) - BS_HEADER_SIZE);
			for (t = 1; t < max + 5; t++, steps++)
			{
				bs_cbloom_add_hash(&c, x, 1);
				bad += bs_cbloom_count_hash(&c, x) != (t < max ? t : max);
			}
			/* bulk add: count c at once equals c single adds */
			bs_cbloom_init(b, 1000, 5, bits, 0, 0);
			bs_cbloom_add_hash(&c, x, 7);
			bad += bs_cbloom_count_hash(&c, x) != 7;
			bs_cbloom_add_hash(&c, x, UINT64_MAX);
			bad += bs_cbloom_count_hash(&c, x) != max;
			free(b);
		}
		CHECK(bad == 0,
			  "%u-bit: in an otherwise empty filter count = number of adds net of removals for 1..%u adds, contains iff count > 0, count stays %u once saturated, bulk add of 7 and of 2^64-1 (%ld of %ld steps wrong)",
			  bits, max - 1, max, bad, steps);
	}

	/* count is an upper bound in a loaded filter */
	for (bits = 4; bits <= 8; bits += 4)
	{
		uint64_t	m,
					under = 0,
					exact = 0,
					absent_pos = 0,
					incons = 0,
					probes = 100000,
					i;
		uint32_t	k;
		bs_cbloom	c;
		uint8_t    *b;
		uint8_t    *mult = unit_calloc(n, 1);

		bs_cbloom_optimal_shape((double) n, 0.01, bits, &m, &k, NULL);
		b = new_cb(m, k, bits, 0, 0, &c);
		for (i = 0; i < n; i++)
		{
			mult[i] = (uint8_t) (1 + unit_below(&r, 3));
			bs_cbloom_add_hash(&c, h[i], mult[i]);
		}
		for (i = 0; i < n; i++)
		{
			uint32_t	e = bs_cbloom_count_hash(&c, h[i]);

			under += e < mult[i];
			exact += e == mult[i];
		}
		for (i = 0; i < probes; i++)
		{
			uint64_t	x = unit_next(&r);
			uint32_t	e = bs_cbloom_count_hash(&c, x);

			absent_pos += e > 0;
			incons += e > 0 && !bs_cbloom_contains_hash(&c, x);
		}
		CHECK(under == 0 && incons == 0 && exact > n * 9 / 10 && absent_pos < probes / 20,
			  "%u-bit: %zu values added 1 to 3 times each: count is never below the true count (%" PRIu64 " below), exact for %" PRIu64 "; %" PRIu64 " of %" PRIu64 " never-added values have count > 0, each of them contained (%" PRIu64 " not)",
			  bits, n, under, exact, absent_pos, probes, incons);

		/* removing absent values (a zero counter) */
		{
			size_t		len = cb_len(b);
			uint8_t    *before = dup_bytes(b, len);
			long		tried = 0,
						wrong = 0,
						changed = 0;
			bs_error	err;

			while (tried < 1000)
			{
				uint64_t	x = unit_next(&r);
				bs_status	st;

				if (bs_cbloom_contains_hash(&c, x))
					continue;
				tried++;
				err.msg[0] = '\0';
				st = bs_cbloom_remove_hash(&c, x, &err);
				wrong += st != BS_ERR_ABSENT || err.msg[0] == '\0';
				changed += memcmp(b, before, len) != 0;
			}
			CHECK(wrong == 0 && changed == 0,
				  "%u-bit: removing %ld values that are not contained is BS_ERR_ABSENT with a message every time (%ld not) and changes no byte (%ld changed): %s",
				  bits, tried, wrong, changed, err.msg);
			free(before);
		}
		free(b);
		free(mult);
	}
	{
		bs_cbloom	c;
		uint8_t    *b = new_cb(100, 3, 4, 0, 0, &c);
		bs_error	err;

		CHECK(bs_cbloom_remove_hash(&c, 0, &err) == BS_ERR_ABSENT && bs_cbloom_remove_hash(&c, 42, &err) == BS_ERR_ABSENT &&
			  all_zero(b + BS_HEADER_SIZE, 50) && strstr(err.detail, "3 of the value's 3 counters"),
			  "removing from an empty filter is BS_ERR_ABSENT and leaves it empty (%s / %s)", err.msg, err.detail);
		free(b);
	}
	free(h);
}

/* Coinciding probes in tiny filters. */
static void
test_coinciding(void)
{
	uint64_t	m;
	uint32_t	k,
				bits;
	long		cases = 0,
				bad = 0,
				all_same = 0;

	for (bits = 4; bits <= 8; bits += 4)
		for (m = 1; m <= 4; m++)
			for (k = 2; k <= 5; k++)
			{
				uint64_t	x;
				int			found = 0;

				/* hashes whose probes coincide somewhere, with and without all on one counter */
				for (x = 1; x < 100000 && found < 6; x++)
				{
					uint32_t	mm = max_mult(x, k, m);
					bs_cbloom	c;
					uint8_t    *b;
					uint32_t	max = bits == 8 ? 255 : 15,
								t;

					if (mm < 2 || (found < 3) != (mm == k))
						continue;
					found++;
					cases++;
					all_same += mm == k;
					b = new_cb(m, k, bits, 0, 0, &c);
					bs_cbloom_add_hash(&c, x, 1);
					bad += !bs_cbloom_contains_hash(&c, x) || bs_cbloom_count_hash(&c, x) != 1;
					bad += bs_cbloom_remove_hash(&c, x, NULL) != BS_OK;
					bad += !all_zero(b + BS_HEADER_SIZE, cb_len(b) - BS_HEADER_SIZE);
					bad += bs_cbloom_remove_hash(&c, x, NULL) != BS_ERR_ABSENT;
					/* count divides by the multiplicity until a counter saturates */
					for (t = 1; t * mm < max; t++)
					{
						bs_cbloom_add_hash(&c, x, 1);
						bad += bs_cbloom_count_hash(&c, x) != t;
					}
					for (t = t - 1; t > 0; t--)
						bad += bs_cbloom_remove_hash(&c, x, NULL) != BS_OK || bs_cbloom_count_hash(&c, x) != t - 1;
					bad += !all_zero(b + BS_HEADER_SIZE, cb_len(b) - BS_HEADER_SIZE);
					free(b);
				}
			}
	CHECK(bad == 0 && cases > 40 && all_same > 20,
		  "coinciding probes (m = 1..4, k = 2..5, both widths, %ld hashes, %ld with all probes on one counter): add once / remove once returns to all-zero, a second remove is BS_ERR_ABSENT, count = adds while no counter saturates (%ld wrong)",
		  cases, all_same, bad);

	/* mixed multiplicities: count takes the minimum of counter / multiplicity */
	{
		uint64_t	x1 = 0,
					x2 = 0,
					t;
		bs_cbloom	c;
		uint8_t    *b = new_cb(8, 3, 4, 0, 0, &c);
		uint32_t	got[6];
		bs_status	st1,
					st2,
					st3;

		/* x1: probe 0 alone, probes 1 and 2 together; x2: probes 0 and 1 together, probe 2 alone */
		for (t = 1; x1 == 0 || x2 == 0; t++)
		{
			uint64_t	p0 = bs_probe(t, 0, 8),
						p1 = bs_probe(t, 1, 8),
						p2 = bs_probe(t, 2, 8);

			if (x1 == 0 && p1 == p2 && p0 != p1)
				x1 = t;
			if (x2 == 0 && p0 == p1 && p2 != p0)
				x2 = t;
		}
		bs_cbloom_set(&c, bs_probe(x1, 0, 8), 3);
		bs_cbloom_set(&c, bs_probe(x1, 1, 8), 4);
		got[0] = bs_cbloom_count_hash(&c, x1);	/* min(3, 4/2) = 2 */
		bs_cbloom_set(&c, bs_probe(x1, 1, 8), 7);
		got[1] = bs_cbloom_count_hash(&c, x1);	/* min(3, 7/2) = 3 */
		bs_cbloom_set(&c, bs_probe(x1, 1, 8), 15);
		got[2] = bs_cbloom_count_hash(&c, x1);	/* the saturated counter bounds nothing: 3 */
		bs_cbloom_set(&c, bs_probe(x1, 1, 8), 4);
		st1 = bs_cbloom_remove_hash(&c, x1, NULL);	/* 3, 4 -> 2, 2 */
		got[3] = bs_cbloom_count_hash(&c, x1);	/* 1 */
		st2 = bs_cbloom_remove_hash(&c, x1, NULL);	/* 2, 2 -> 1, 0 */
		st3 = bs_cbloom_remove_hash(&c, x1, NULL);	/* absent */
		CHECK(got[0] == 2 && got[1] == 3 && got[2] == 3 && got[3] == 1 && st1 == BS_OK && st2 == BS_OK && st3 == BS_ERR_ABSENT &&
			  bs_cbloom_get(&c, bs_probe(x1, 0, 8)) == 1 && bs_cbloom_get(&c, bs_probe(x1, 1, 8)) == 0,
			  "hash %" PRIu64 " (one probe alone, two on one counter): count = min(3, 4/2) = 2 (got %u), min(3, 7/2) = 3 (got %u), 3 with the shared counter saturated (got %u); removals take 3,4 to 2,2 (count %u) then 1,0, then BS_ERR_ABSENT",
			  x1, got[0], got[1], got[2], got[3]);
		bs_cbloom_init(b, 8, 3, 4, 0, 0);
		bs_cbloom_set(&c, bs_probe(x2, 0, 8), 4);
		bs_cbloom_set(&c, bs_probe(x2, 2, 8), 3);
		got[4] = bs_cbloom_count_hash(&c, x2);
		bs_cbloom_set(&c, bs_probe(x2, 0, 8), 1);
		got[5] = bs_cbloom_count_hash(&c, x2);
		st1 = bs_cbloom_remove_hash(&c, x2, NULL);
		CHECK(got[4] == 2 && got[5] == 0 && st1 == BS_ERR_ABSENT && bs_cbloom_get(&c, bs_probe(x2, 0, 8)) == 1 &&
			  bs_cbloom_get(&c, bs_probe(x2, 2, 8)) == 3,
			  "hash %" PRIu64 " (two probes on one counter first): count = min(4/2, 3) = 2 (got %u); with that counter at 1, count 0 (got %u) and remove is BS_ERR_ABSENT changing nothing",
			  x2, got[4], got[5]);
		free(b);
	}

	/* a counter of 1 that two probes of the value land on */
	{
		uint64_t	x = 0,
					g = 0,
					j = 0,
					t;
		bs_cbloom	c;
		uint8_t    *b,
				   *before;
		bs_status	st;
		bs_error	err;
		bool		ok_after;

		for (t = 1; x == 0; t++)
			if (bs_probe(t, 0, 4) == bs_probe(t, 1, 4))
				x = t;
		j = bs_probe(x, 0, 4);
		for (t = 1; g == 0; t++)
			if (bs_probe(t, 0, 4) != bs_probe(t, 1, 4) && mult_at(t, 2, 4, j) == 1)
				g = t;
		b = new_cb(4, 2, 4, 0, 0, &c);
		bs_cbloom_add_hash(&c, g, 1);
		before = dup_bytes(b, cb_len(b));
		err.detail[0] = '\0';
		st = bs_cbloom_remove_hash(&c, x, &err);
		CHECK(bs_cbloom_get(&c, j) == 1 && !bs_cbloom_contains_hash(&c, x) && bs_cbloom_count_hash(&c, x) == 0 &&
			  st == BS_ERR_ABSENT && memcmp(b, before, cb_len(b)) == 0,
			  "m = 4, k = 2: hash %" PRIu64 " has both probes on counter %" PRIu64 ", which holds 1 (from hash %" PRIu64 "): it is not contained (the counter holds fewer than its 2 probes), count is 0, and removing it is BS_ERR_ABSENT changing nothing (%s)",
			  x, j, g, err.detail);
		bs_cbloom_add_hash(&c, g, 1);
		st = bs_cbloom_remove_hash(&c, x, &err);
		ok_after = st == BS_OK && bs_cbloom_get(&c, j) == 0;
		CHECK(ok_after,
			  "with that counter at 2 the removal is allowed (the filter cannot tell) and takes the counter down by 2 to 0");
		free(b);
		free(before);
	}
}

/* ---- 3. saturation ---- */

/*
 * Membership and count agree on any counters, crafted ones included: a
 * value is present exactly when its count is at least 1 (a counter that
 * several of its probes share must hold that many).  Small filters with
 * random counters, so that probes often coincide on counters of 1 or 2.
 */
static void
test_contains_agrees_with_count(void)
{
	unit_rng	r = {2700};
	long		cases = 0,
				shared = 0,
				bad = 0;
	uint32_t	bits;

	for (bits = 4; bits <= 8; bits += 4)
	{
		int			round;

		for (round = 0; round < 2000; round++)
		{
			uint64_t	m = 1 + unit_below(&r, 6),
						j,
						x;
			uint32_t	k = 1 + (uint32_t) unit_below(&r, 6),
						top = 1 + (uint32_t) unit_below(&r, 4);
			bs_cbloom	c;
			uint8_t    *b = new_cb(m, k, bits, 0, 0, &c);

			for (j = 0; j < m; j++)
				bs_cbloom_set(&c, j, (uint32_t) unit_below(&r, top + 1));
			for (x = 1; x <= 50; x++)
			{
				bool		in = bs_cbloom_contains_hash(&c, x),
							nonzero = true;
				uint32_t	n = bs_cbloom_count_hash(&c, x),
							i;

				for (i = 0; i < k; i++)
					nonzero &= bs_cbloom_get(&c, bs_probe(x, i, m)) != 0;
				cases++;
				/* what the plain rule (all counters non-zero) got wrong */
				shared += nonzero && !in;
				bad += in != (n >= 1);
			}
			free(b);
		}
	}
	CHECK(bad == 0 && shared > 100,
		  "contains(f, x) = (count(f, x) >= 1) on random counters (m 1..6, k 1..6, counters 0..4, both widths): %ld values, %ld with all counters non-zero but absent through a shared counter, %ld disagree",
		  cases, shared, bad);
}

static void
test_saturation(void)
{
	unit_rng	r = {3000};
	uint32_t	bits;

	for (bits = 4; bits <= 8; bits += 4)
	{
		uint64_t	m,
					v = unit_next(&r),
					i,
					nw = 0,
					sharers = 0,
					fn_steps = 0,
					bad_status = 0,
					missing,
					not_sat = 0,
					fail_w;
		uint32_t	k,
					max = bits == 8 ? 255 : 15,
					t;
		bs_cbloom	c;
		uint8_t    *b,
				   *snap;
		size_t		len;
		uint64_t   *w = unit_calloc(1100, sizeof(uint64_t));

		bs_cbloom_optimal_shape(1000, 0.01, bits, &m, &k, NULL);
		b = new_cb(m, k, bits, BS_FAMILY_TEXT, 0, &c);
		len = cb_len(b);
		/* 1000 random values and 100 that share a counter with v */
		while (nw < 1100)
		{
			uint64_t	x = unit_next(&r);
			bool		shares = false;
			uint32_t	a;

			for (a = 0; a < k; a++)
				shares |= mult_at(v, k, m, bs_probe(x, a, m)) > 0;
			if (nw >= 1000 && !shares)
				continue;
			sharers += shares;
			w[nw++] = x;
		}
		add_all(&c, w, nw);
		snap = dup_bytes(b, len);
		for (t = 1; t <= 40; t++)
		{
			bs_cbloom_add_hash(&c, v, 1);
			fn_steps += !bs_cbloom_contains_hash(&c, v);
		}
		for (i = 0; i < k; i++)
			not_sat += bs_cbloom_get(&c, bs_probe(v, (uint32_t) i, m)) != max && bits == 4;
		for (t = 1; t <= 40; t++)
		{
			bad_status += bs_cbloom_remove_hash(&c, v, NULL) != BS_OK;
			if (t < 40 || bits == 4)
				fn_steps += !bs_cbloom_contains_hash(&c, v);
		}
		missing = count_missing(&c, w, nw);
		if (bits == 4)
		{
			for (i = 0; i < k; i++)
				not_sat += bs_cbloom_get(&c, bs_probe(v, (uint32_t) i, m)) != 15;
			CHECK(fn_steps == 0 && bad_status == 0 && not_sat == 0 && bs_cbloom_count_hash(&c, v) == 15 && missing == 0,
				  "4-bit: one value added 40 times then removed 40 times: contained at every step (%" PRIu64 " false negatives), every removal OK (%" PRIu64 " not), its %u counters saturate at 15 and stay (%" PRIu64 " not), count says 15; none of the %" PRIu64 " other values (%" PRIu64 " sharing a counter with it) is lost (%" PRIu64 " missing)",
				  fn_steps, bad_status, k, not_sat, nw, sharers, missing);
			/* the other values can still all be removed */
			fail_w = remove_all(&c, w, nw);
			CHECK(fail_w == 0 && bs_cbloom_contains_hash(&c, v),
				  "4-bit: afterwards all %" PRIu64 " other values are removed without error (%" PRIu64 " failed); the saturated counters keep the value present",
				  nw, fail_w);
		}
		else
		{
			uint64_t	peak = 0;

			CHECK(fn_steps == 0 && bad_status == 0 && missing == 0 && memcmp(b, snap, len) == 0,
				  "8-bit: one value added 40 times then removed 40 times: contained at every step before the last removal (%" PRIu64 " false negatives), every removal OK (%" PRIu64 " not), the filter ends byte-identical to before, no other value lost (%" PRIu64 " missing of %" PRIu64 ", %" PRIu64 " sharing a counter)",
				  fn_steps, bad_status, missing, nw, sharers);
			/* 300 adds saturate 8-bit counters; 300 removals keep them */
			for (t = 0; t < 300; t++)
				bs_cbloom_add_hash(&c, v, 1);
			for (t = 0; t < 300; t++)
			{
				bad_status += bs_cbloom_remove_hash(&c, v, NULL) != BS_OK;
				fn_steps += !bs_cbloom_contains_hash(&c, v);
			}
			for (i = 0; i < k; i++)
				peak += bs_cbloom_get(&c, bs_probe(v, (uint32_t) i, m)) == 255;
			missing = count_missing(&c, w, nw);
			CHECK(fn_steps == 0 && bad_status == 0 && peak == k && bs_cbloom_count_hash(&c, v) == 255 && missing == 0,
				  "8-bit: 300 adds and 300 removals: counters saturate at 255 and stay (%" PRIu64 " of %u), always contained, no other value lost (%" PRIu64 " missing)",
				  peak, k, missing);
		}
		free(b);
		free(snap);
		free(w);
	}
}

/* ---- 4. churn ---- */

static void
test_churn(void)
{
	uint32_t	bits;

	for (bits = 4; bits <= 8; bits += 4)
	{
		unit_rng	r = {4000 + bits};
		const size_t cap = 2000,
					total_adds = 20000,
					batch = 100;
		uint64_t   *all = unit_random_hashes(&r, total_adds);
		uint64_t   *present = unit_calloc(cap + batch, sizeof(uint64_t));
		uint64_t   *removed = unit_calloc(total_adds, sizeof(uint64_t));
		size_t		npresent = 0,
					nremoved = 0,
					next = 0;
		uint64_t	m,
					fail = 0,
					missing,
					fp_removed = 0,
					fp_never = 0,
					probes = 200000,
					zero,
					sat,
					i;
		uint32_t	k;
		bs_cbloom	c,
					f;
		uint8_t    *b,
				   *fresh;
		double		formula,
					rate_removed,
					rate_never;

		bs_cbloom_optimal_shape((double) cap, 0.01, bits, &m, &k, NULL);
		b = new_cb(m, k, bits, BS_FAMILY_INTEGER, 0, &c);
		/* fill to capacity, then batches of 100 fresh adds and 100 removals of random present values */
		while (next < cap)
		{
			bs_cbloom_add_hash(&c, all[next], 1);
			present[npresent++] = all[next++];
		}
		while (next < total_adds)
		{
			for (i = 0; i < batch; i++)
			{
				bs_cbloom_add_hash(&c, all[next], 1);
				present[npresent++] = all[next++];
			}
			for (i = 0; i < batch; i++)
			{
				size_t		j = (size_t) unit_below(&r, npresent);

				fail += bs_cbloom_remove_hash(&c, present[j], NULL) != BS_OK;
				removed[nremoved++] = present[j];
				present[j] = present[--npresent];
			}
		}
		missing = count_missing(&c, present, npresent);
		for (i = 0; i < nremoved; i++)
			fp_removed += bs_cbloom_contains_hash(&c, removed[i]);
		for (i = 0; i < probes; i++)
			fp_never += bs_cbloom_contains_hash(&c, unit_next(&r));
		formula = bs_bloom_fpr_approx((double) m, (double) npresent, k);
		rate_removed = (double) fp_removed / (double) nremoved;
		rate_never = (double) fp_never / (double) probes;
		bs_cbloom_stats(&c, &zero, &sat);
		CHECK(fail == 0 && missing == 0 && npresent == cap && nremoved == total_adds - cap,
			  "churn, %u-bit, m = %" PRIu64 ", k = %u: %zu adds and %zu removals in batches of %zu, every removal OK (%" PRIu64 " failed), no false negative among the %zu present (%" PRIu64 " missing)",
			  bits, m, k, total_adds, nremoved, batch, fail, npresent, missing);
		CHECK(rate_removed < 1.5 * formula && rate_removed > formula / 1.5 &&
			  rate_never < 1.5 * formula && rate_never > formula / 1.5,
			  "churn, %u-bit: false-positive rate among the %zu removed values %.5f (%" PRIu64 " hits) and among %" PRIu64 " never-added values %.5f (%" PRIu64 " hits) vs the formula (1 - e^{-kn/m})^k = %.5f for n = %zu: ratios %.3f and %.3f (want within 1.5x)",
			  bits, nremoved, rate_removed, fp_removed, probes, rate_never, fp_never, formula, npresent,
			  rate_removed / formula, rate_never / formula);
		fresh = new_cb(m, k, bits, BS_FAMILY_INTEGER, 0, &f);
		add_all(&f, present, npresent);
		CHECK(sat == 0 && memcmp(b, fresh, cb_len(b)) == 0,
			  "churn, %u-bit: with no counter saturated (%" PRIu64 ") the filter is byte-identical to a fresh one holding only the %zu present values",
			  bits, sat, npresent);
		free(b);
		free(fresh);
		free(all);
		free(present);
		free(removed);
	}
}

/* ---- 5. union ---- */

static void
test_union(void)
{
	unit_rng	r = {5000};
	uint32_t	bits;
	uint64_t   *h = unit_random_hashes(&r, 5000);

	for (bits = 4; bits <= 8; bits += 4)
	{
		const uint64_t m = 1001;
		uint32_t	max = bits == 8 ? 255 : 15;
		bs_cbloom	a,
					b2;
		uint8_t    *ba = new_cb(m, 3, bits, BS_FAMILY_NONE, 0, &a),
				   *bb = new_cb(m, 3, bits, BS_FAMILY_TEXT, 0, &b2),
				   *ca,
				   *cb;
		bs_cbloom	olda;
		uint64_t	j,
					wrong = 0,
					saturated = 0;
		size_t		len = cb_len(ba);

		for (j = 0; j < m; j++)
		{
			/* a mix of small values and values near the maximum */
			bs_cbloom_set(&a, j, (uint32_t) (unit_below(&r, 2) ? unit_below(&r, 4) : unit_below(&r, max + 1)));
			bs_cbloom_set(&b2, j, (uint32_t) (unit_below(&r, 2) ? unit_below(&r, 4) : unit_below(&r, max + 1)));
		}
		ca = dup_bytes(ba, len);
		cb = dup_bytes(bb, len);
		bs_cbloom_view(ca, &olda);
		bs_cbloom_add_counters(&a, &b2);
		for (j = 0; j < m; j++)
		{
			uint32_t	s = bs_cbloom_get(&olda, j) + bs_cbloom_get(&b2, j);

			saturated += s >= max;
			wrong += bs_cbloom_get(&a, j) != (s > max ? max : s);
		}
		CHECK(wrong == 0 && saturated > 50 && memcmp(bb, cb, len) == 0 && (bits == 8 || (ba[len - 1] >> 4) == 0) &&
			  ba[BS_OFF_FAMILY] == BS_FAMILY_TEXT && a.family == BS_FAMILY_TEXT &&
			  bs_validate(ba, len, BS_KIND_CBLOOM, true, NULL, NULL) == BS_OK,
			  "%u-bit union of random counters (m = 1001): every counter is min(%u, a + b) (%" PRIu64 " wrong, %" PRIu64 " at the maximum), the source is unchanged, NONE takes the text family, the result validates",
			  bits, max, wrong, saturated);
		free(ba);
		free(bb);
		free(ca);
		free(cb);
	}

	for (bits = 4; bits <= 8; bits += 4)
	{
		uint64_t	m;
		uint32_t	k;
		bs_cbloom	a,
					b2,
					u;
		uint8_t    *ba,
				   *bb,
				   *bu;

		bs_cbloom_optimal_shape(5000, 0.01, bits, &m, &k, NULL);
		ba = new_cb(m, k, bits, BS_FAMILY_INTEGER, 0, &a);
		bb = new_cb(m, k, bits, BS_FAMILY_NONE, 0, &b2);
		bu = new_cb(m, k, bits, BS_FAMILY_INTEGER, 0, &u);
		add_all(&a, h, 3000);
		add_all(&b2, h + 2000, 3000);
		add_all(&u, h, 3000);
		add_all(&u, h + 2000, 3000);
		CHECK(bs_cbloom_check_compatible(&a, &b2, "merge", NULL) == BS_OK, "%u-bit: filters of integer and NONE keys are mergeable", bits);
		bs_cbloom_add_counters(&a, &b2);
		CHECK(memcmp(ba, bu, cb_len(ba)) == 0 && remove_all(&a, h, 2000) == 0 && remove_all(&a, h + 2000, 1000) == 0 &&
			  count_missing(&a, h + 2000, 3000) == 0,
			  "%u-bit: union of A (3000 values) and B (3000, 1000 shared) equals the filter of all 6000 adds byte for byte; the shared values then survive removing A", bits);
		free(ba);
		free(bb);
		free(bu);
	}

	/* check_compatible for a merge */
	{
		uint8_t    *x = new_cb(1000, 7, 4, BS_FAMILY_INTEGER, 0, NULL),
				   *y = new_cb(2000, 7, 4, BS_FAMILY_INTEGER, 0, NULL),
				   *z = new_cb(1000, 6, 4, BS_FAMILY_INTEGER, 0, NULL),
				   *e = new_cb(1000, 7, 8, BS_FAMILY_INTEGER, 0, NULL),
				   *s = new_cb(1000, 7, 4, BS_FAMILY_INTEGER, 1, NULL),
				   *t = new_cb(1000, 7, 4, BS_FAMILY_TEXT, 0, NULL),
				   *o = new_cb(1000, 7, 4, BS_FAMILY_NONE, 0, NULL);
		bs_cbloom	cx,
					cy,
					cz,
					ce,
					cs,
					ct,
					co;
		bs_error	err;
		bs_status	st;

		bs_cbloom_view(x, &cx);
		bs_cbloom_view(y, &cy);
		bs_cbloom_view(z, &cz);
		bs_cbloom_view(e, &ce);
		bs_cbloom_view(s, &cs);
		bs_cbloom_view(t, &ct);
		bs_cbloom_view(o, &co);
		st = bs_cbloom_check_compatible(&cx, &cy, "merge", &err);
		CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "1000 4-bit counters with 7 hashes") && strstr(err.msg, "2000 4-bit counters with 7 hashes"),
			  "merging 1000 and 2000 counters is BS_ERR_SHAPE naming both shapes (%s)", err.msg);
		st = bs_cbloom_check_compatible(&cx, &cz, "merge", &err);
		CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "with 7 hashes") && strstr(err.msg, "with 6 hashes"),
			  "merging k = 7 and k = 6 is BS_ERR_SHAPE naming both (%s)", err.msg);
		st = bs_cbloom_check_compatible(&cx, &ce, "merge", &err);
		CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "4-bit") && strstr(err.msg, "8-bit"),
			  "merging 4-bit and 8-bit counters is BS_ERR_SHAPE naming both widths (%s)", err.msg);
		st = bs_cbloom_check_compatible(&cx, &cs, "merge", &err);
		CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "seed 0") && strstr(err.msg, "seed 1"),
			  "merging seeds 0 and 1 is BS_ERR_SHAPE naming both (%s)", err.msg);
		st = bs_cbloom_check_compatible(&cx, &ct, "merge", &err);
		CHECK(st == BS_ERR_FAMILY && strstr(err.msg, "integer") && strstr(err.msg, "text"),
			  "merging integer and text filters is BS_ERR_FAMILY naming both families (%s)", err.msg);
		CHECK(bs_cbloom_check_compatible(&co, &ct, "merge", &err) == BS_OK && bs_cbloom_check_compatible(&ct, &co, "merge", &err) == BS_OK &&
			  bs_cbloom_check_compatible(&cx, &cx, "merge", &err) == BS_OK,
			  "NONE merges with text both ways; a filter merges with itself");
		bs_cbloom_add_counters(&ct, &co);
		CHECK(t[BS_OFF_FAMILY] == BS_FAMILY_TEXT && ct.family == BS_FAMILY_TEXT,
			  "adding a NONE filter to a text filter keeps the text family");
		free(x);
		free(y);
		free(z);
		free(e);
		free(s);
		free(t);
		free(o);
	}
	free(h);
}

/* ---- 6. to_bloom ---- */

static void
test_to_bloom(void)
{
	unit_rng	r = {6000};
	uint64_t   *h = unit_random_hashes(&r, 6000);
	uint32_t	bits;

	h[10] = 0;
	for (bits = 4; bits <= 8; bits += 4)
	{
		const uint64_t m = 57503;	/* odd, not a multiple of 8 */
		const uint32_t k = 6;
		bs_cbloom	c;
		uint8_t    *b = new_cb(m, k, bits, BS_FAMILY_TEXT, 7, &c),
				   *out,
				   *want,
				   *out2;
		uint64_t	blen;
		bool		ok1,
					ok2;

		bs_bloom_size(m, &blen, NULL);
		out = unit_calloc(1, (size_t) blen);
		out2 = unit_calloc(1, (size_t) blen);
		want = unit_calloc(1, (size_t) blen);
		memset(out, 0xa5, (size_t) blen);
		bs_bloom_init(want, m, k, BS_FAMILY_TEXT, 7);
		add_all(&c, h, 5000);
		bs_cbloom_add_hash(&c, h[0], 3);
		for (size_t i = 0; i < 5000; i++)
			bs_bloom_add_hash(want + BS_HEADER_SIZE, m, k, h[i]);
		bs_cbloom_to_bloom(&c, out);
		ok1 = memcmp(out, want, (size_t) blen) == 0 && bs_validate(out, (size_t) blen, BS_KIND_BLOOM, true, NULL, NULL) == BS_OK;
		/* after adding and removing 1000 more values the view is the same */
		add_all(&c, h + 5000, 1000);
		ok2 = remove_all(&c, h + 5000, 1000) == 0;
		memset(out2, 0x5a, (size_t) blen);
		bs_cbloom_to_bloom(&c, out2);
		ok2 &= memcmp(out2, want, (size_t) blen) == 0;
		CHECK(ok1 && ok2,
			  "%u-bit to_bloom (m = %" PRIu64 ", k = %u, text, seed 7): equals the bloom filter of the same 5000 hashes byte for byte, header included, over a dirty buffer; still so after 1000 more values are added and removed",
			  bits, m, k);
		free(b);
		free(out);
		free(out2);
		free(want);
	}
	free(h);
}

/* ---- 7. validator ---- */

static bs_status
val(const uint8_t *b, size_t len, bs_error *err)
{
	if (err)
		err->msg[0] = '\0';
	return bs_validate(b, len, BS_KIND_CBLOOM, true, NULL, err);
}

static void
test_validate(void)
{
	unit_rng	r = {7000};
	static const uint64_t ms[] = {1, 2, 5, 6, 957, 958};
	uint32_t	bits;
	int			i,
				bad = 0;
	bs_error	err;

	for (bits = 4; bits <= 8; bits += 4)
		for (i = 0; i < (int) (sizeof(ms) / sizeof(ms[0])); i++)
		{
			bs_cbloom	c;
			uint8_t    *b = new_cb(ms[i], 7, bits, BS_FAMILY_UUID, 3, &c);
			bs_header	hd;
			uint64_t	j;

			for (j = 0; j < 50; j++)
				bs_cbloom_add_hash(&c, unit_next(&r), 1 + unit_below(&r, 20));
			if (bs_validate(b, cb_len(b), BS_KIND_CBLOOM, true, &hd, NULL) != BS_OK ||
				bs_validate(b, cb_len(b), BS_KIND_CBLOOM, false, NULL, NULL) != BS_OK ||
				hd.p1 != ms[i] || hd.p2 != 7 || hd.p3 != bits || hd.family != BS_FAMILY_UUID || hd.seed != 3)
				bad++;
			free(b);
		}
	CHECK(bad == 0, "filled filters of m = 1, 2, 5, 6, 957, 958 with 4- and 8-bit counters validate (deep and quick) and give back their header (%d not)", bad);

	{
		bs_cbloom	c;
		uint8_t    *b = new_cb(5, 3, 4, BS_FAMILY_INTEGER, 0, &c),
				   *b8 = new_cb(5, 3, 8, BS_FAMILY_INTEGER, 0, NULL),
				   *ev = new_cb(6, 3, 4, BS_FAMILY_INTEGER, 0, NULL),
				   *big = unit_calloc(1, 52),
				   *bl;
		size_t		len = cb_len(b);
		bs_status	s0,
					s5,
					s16,
					sm,
					sk0,
					sk65,
					sk64,
					sn,
					sx,
					sshort,
					slong,
					snib,
					snib_ev,
					sw,
					sbig,
					sbl,
					skind;
		char		m0[512],
					mb[512],
					mk[512],
					mr[512],
					ml[512],
					mn[512];
		uint64_t	blen;

		bs_cbloom_add_hash(&c, 99, 2);
		b[28] = 0;
		s0 = val(b, len, &err);
		snprintf(mb, sizeof(mb), "%s", err.msg);
		b[28] = 5;
		s5 = val(b, len, NULL);
		b[28] = 16;
		s16 = val(b, len, NULL);
		b[28] = 4;
		bs_store64(b + BS_OFF_P1, 0);
		sm = val(b, len, &err);
		snprintf(m0, sizeof(m0), "%s", err.msg);
		bs_store64(b + BS_OFF_P1, 5);
		bs_store32(b + BS_OFF_P2, 0);
		sk0 = val(b, len, &err);
		snprintf(mk, sizeof(mk), "%s", err.msg);
		bs_store32(b + BS_OFF_P2, 65);
		sk65 = val(b, len, NULL);
		bs_store32(b + BS_OFF_P2, 64);
		sk64 = val(b, len, NULL);
		bs_store32(b + BS_OFF_P2, 3);
		bs_store64(b + BS_OFF_N, 1);
		sn = val(b, len, &err);
		snprintf(mr, sizeof(mr), "%s", err.msg);
		bs_store64(b + BS_OFF_N, 0);
		bs_store64(b + BS_OFF_X, UINT64_C(1) << 63);
		sx = val(b, len, NULL);
		bs_store64(b + BS_OFF_X, 0);
		sshort = val(b, len - 1, &err);
		snprintf(ml, sizeof(ml), "%s", err.msg);
		memcpy(big, b, len);
		slong = val(big, len + 1, NULL);
		CHECK(s0 == BS_ERR_FORMAT && s5 == BS_ERR_FORMAT && s16 == BS_ERR_FORMAT,
			  "counter bits 0, 5 and 16 are BS_ERR_FORMAT (%s)", mb);
		CHECK(sm == BS_ERR_FORMAT, "m = 0 is BS_ERR_FORMAT (%s)", m0);
		CHECK(sk0 == BS_ERR_FORMAT && sk65 == BS_ERR_FORMAT && sk64 == BS_OK,
			  "k = 0 and k = 65 are BS_ERR_FORMAT, k = 64 is accepted (%s)", mk);
		CHECK(sn == BS_ERR_FORMAT && sx == BS_ERR_FORMAT, "nonzero reserved n or x is BS_ERR_FORMAT (%s)", mr);
		CHECK(sshort == BS_ERR_FORMAT && slong == BS_ERR_FORMAT && val(b, len, NULL) == BS_OK,
			  "a payload one byte short or long is BS_ERR_FORMAT; restored, the filter validates (%s)", ml);

		/* the unused high nibble of an odd 4-bit filter */
		b[len - 1] |= 0x10;
		snib = val(b, len, &err);
		snprintf(mn, sizeof(mn), "%s", err.msg);
		b[len - 1] &= 0x0f;
		ev[cb_len(ev) - 1] = 0xf0;	/* counter 5 of m = 6: a real counter */
		snib_ev = val(ev, cb_len(ev), NULL);
		b8[cb_len(b8) - 1] = 0xff;	/* 8 bits: the last byte is counter 4 */
		CHECK(snib == BS_ERR_FORMAT && snib_ev == BS_OK && val(b8, cb_len(b8), NULL) == BS_OK && val(b, len, NULL) == BS_OK,
			  "m = 5, 4-bit: a nonzero unused high nibble is BS_ERR_FORMAT (%s); the same nibble is a counter for m = 6, and any last byte is fine with 8 bits", mn);

		/* relabelling the width or m */
		b[28] = 8;
		sw = val(b, len, NULL);
		b[28] = 4;
		bs_store64(big + BS_OFF_P1, bs_cbloom_max_counters(4) + 1);
		sbig = val(big, len, NULL);
		bs_store64(big + BS_OFF_P1, UINT64_MAX);
		sbig = sbig == BS_ERR_FORMAT ? val(big, len, NULL) : BS_OK;
		bs_store64(b + BS_OFF_P1, 6);
		CHECK(sw == BS_ERR_FORMAT && sbig == BS_ERR_FORMAT && val(b, len, NULL) == BS_OK,
			  "a 4-bit m = 5 filter relabelled 8-bit, or with m past the limit or 2^64-1, is BS_ERR_FORMAT; relabelled m = 6 (same length) it is valid");
		bs_store64(b + BS_OFF_P1, 5);

		/* kinds */
		bs_bloom_size(40, &blen, NULL);
		bl = unit_calloc(1, (size_t) blen);
		bs_bloom_init(bl, 40, 3, 0, 0);
		sbl = bs_validate(bl, (size_t) blen, BS_KIND_CBLOOM, true, NULL, &err);
		skind = bs_validate(b, len, BS_KIND_BLOOM, true, NULL, NULL);
		CHECK(sbl == BS_ERR_FORMAT && skind == BS_ERR_FORMAT && strstr(err.msg, "bloom sketch, not a cbloom"),
			  "a bloom filter is not a cbloom and vice versa (%s)", err.msg);
		CHECK(strcmp(bs_kind_name(BS_KIND_CBLOOM), "cbloom") == 0, "kind 5 is named cbloom");
		free(b);
		free(b8);
		free(ev);
		free(big);
		free(bl);
	}
}

/* ---- 7b. mutation fuzz ---- */

typedef struct cfuzz
{
	long		accepted,
				rejected,
				bad_status,
				bad_message,
				bad_size,
				bad_use,
				bad_revalidate;
} cfuzz;

typedef struct csample
{
	uint8_t    *buf;
	size_t		len;
} csample;

/*
 * An accepted value must be usable: its length is what its header implies;
 * an added value is contained and counted, removing it right away succeeds
 * and leaves only saturated counters changed; the bit view and a union with
 * itself work and the results validate.
 */
static void
exercise(uint8_t *buf, size_t len, unit_rng *r, cfuzz *fs)
{
	bs_cbloom	c,
				d;
	uint64_t	zero,
				sat,
				blen,
				j;
	uint8_t    *copy,
			   *bl;
	int			i;

	bs_cbloom_view(buf, &c);
	if (len != BS_HEADER_SIZE + payload_len(c.m, c.bits) || (c.bits != 4 && c.bits != 8) || c.k < 1 || c.k > 64)
	{
		fs->bad_size++;
		return;
	}
	bs_cbloom_stats(&c, &zero, &sat);
	if (zero + sat > c.m)
		fs->bad_use++;
	copy = unit_calloc(1, len);
	for (i = 0; i < 3; i++)
	{
		uint64_t	h = unit_next(r);
		bs_status	st;

		(void) bs_cbloom_contains_hash(&c, h);
		(void) bs_cbloom_count_hash(&c, h);
		memcpy(copy, buf, len);
		bs_cbloom_add_hash(&c, h, 1);
		if (!bs_cbloom_contains_hash(&c, h) || bs_cbloom_count_hash(&c, h) == 0)
			fs->bad_use++;
		st = bs_cbloom_remove_hash(&c, h, NULL);
		if (st != BS_OK)
			fs->bad_use++;
		/* what differs from before the add can only be saturated counters */
		bs_cbloom_view(copy, &d);
		for (j = 0; j < c.m; j++)
			if (bs_cbloom_get(&c, j) != bs_cbloom_get(&d, j) && bs_cbloom_get(&c, j) != c.max)
				fs->bad_use++;
		if (memcmp(copy, buf, BS_HEADER_SIZE) != 0)
			fs->bad_use++;
	}
	if (bs_validate(buf, len, BS_KIND_CBLOOM, true, NULL, NULL) != BS_OK)
		fs->bad_revalidate++;
	if (bs_bloom_size(c.m, &blen, NULL) != BS_OK)
		fs->bad_use++;
	else
	{
		bl = unit_calloc(1, (size_t) blen);
		bs_cbloom_to_bloom(&c, bl);
		bs_cbloom_stats(&c, &zero, &sat);	/* recount: the adds may have saturated counters */
		if (bs_validate(bl, (size_t) blen, BS_KIND_BLOOM, true, NULL, NULL) != BS_OK ||
			bs_popcount(bl + BS_HEADER_SIZE, bs_bloom_payload_bytes(c.m)) != c.m - zero)
			fs->bad_use++;
		free(bl);
	}
	/* union with itself */
	memcpy(copy, buf, len);
	bs_cbloom_view(copy, &d);
	if (bs_cbloom_check_compatible(&d, &c, "merge", NULL) != BS_OK)
		fs->bad_use++;
	bs_cbloom_add_counters(&d, &c);
	for (j = 0; j < c.m; j++)
	{
		uint32_t	v = bs_cbloom_get(&c, j);

		if (bs_cbloom_get(&d, j) != (2 * v > c.max ? c.max : 2 * v))
			fs->bad_use++;
	}
	if (bs_validate(copy, len, BS_KIND_CBLOOM, true, NULL, NULL) != BS_OK)
		fs->bad_revalidate++;
	free(copy);
}

#ifndef UNIT_FUZZ_ITERATIONS
#define UNIT_FUZZ_ITERATIONS 100000
#endif

static void
test_fuzz(void)
{
	unit_rng	r = {7700};
	csample		samples[10];
	int			ns = 0,
				si;
	long		it;
	cfuzz		fs;
	static const struct
	{
		uint64_t	m;
		uint32_t	k,
					bits;
		int			nvals;
		uint32_t	count;
	}			shapes[] = {
		{1, 1, 4, 0, 1}, {5, 3, 4, 4, 1}, {958, 7, 4, 100, 1}, {33, 3, 4, 10, 20}, {2, 64, 4, 1, 1},
		{7, 2, 8, 3, 1}, {1000, 5, 8, 150, 1}, {9, 4, 8, 5, 300}, {64, 64, 8, 3, 2}, {6, 2, 4, 3, 2}
	};

	for (si = 0; si < (int) (sizeof(shapes) / sizeof(shapes[0])); si++)
	{
		bs_cbloom	c;
		uint8_t    *b = new_cb(shapes[si].m, shapes[si].k, shapes[si].bits, (uint8_t) (si % 10), (uint64_t) si, &c);
		int			v;

		for (v = 0; v < shapes[si].nvals; v++)
			bs_cbloom_add_hash(&c, unit_next(&r), shapes[si].count);
		samples[ns].buf = b;
		samples[ns++].len = cb_len(b);
	}

	memset(&fs, 0, sizeof(fs));
	for (it = 0; it < UNIT_FUZZ_ITERATIONS; it++)
	{
		const csample *s = &samples[unit_below(&r, (uint64_t) ns)];
		int			op = (int) unit_below(&r, 9);
		size_t		len = s->len,
					j,
					plen;
		uint8_t    *c;
		bs_error	err;
		bs_status	st;

		if (op == 5)
			len = (size_t) unit_below(&r, s->len);	/* truncate */
		else if (op == 6)
			len = s->len + 1 + (size_t) unit_below(&r, 16);	/* extend */
		c = unit_calloc(1, len);
		memcpy(c, s->buf, len < s->len ? len : s->len);
		for (j = s->len; j < len; j++)
			c[j] = (uint8_t) (unit_below(&r, 2) ? unit_next(&r) : 0);
		switch (op)
		{
			case 0:				/* flip bits anywhere */
			case 1:
				{
					int			nflip = 1 + (int) unit_below(&r, 4);

					while (nflip-- > 0)
						c[unit_below(&r, len)] ^= (uint8_t) (1u << unit_below(&r, 8));
				}
				break;
			case 2:				/* random bytes in the header */
				{
					int			nb = 1 + (int) unit_below(&r, 3);

					while (nb-- > 0)
						c[unit_below(&r, BS_HEADER_SIZE)] = (uint8_t) unit_next(&r);
				}
				break;
			case 3:				/* random payload bytes */
				if (len > BS_HEADER_SIZE)
				{
					int			nb = 1 + (int) unit_below(&r, 8);

					while (nb-- > 0)
						c[BS_HEADER_SIZE + unit_below(&r, len - BS_HEADER_SIZE)] = (uint8_t) unit_next(&r);
				}
				break;
			case 4:				/* a header field set to an edge value */
				{
					static const uint64_t edge[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 256,
						957, 958, 959, 1000, 1001, 2000, (uint64_t) INT64_MAX, UINT64_MAX, UINT64_C(1) << 63,
						UINT64_C(1) << 32, (UINT64_C(1) << 32) + 4, (UINT64_C(1) << 32) + 8,
					(uint64_t) (511 * 1024 * 1024 - 48) * 2, (uint64_t) (511 * 1024 * 1024 - 48) * 2 + 1};
					static const int offs[] = {4, 5, 6, 7, BS_OFF_P1, BS_OFF_P2, BS_OFF_P3, BS_OFF_N, BS_OFF_X};
					static const int width[] = {1, 1, 1, 1, 8, 4, 4, 8, 8};
					int			f = (int) unit_below(&r, 9);
					uint64_t	v = edge[unit_below(&r, sizeof(edge) / sizeof(edge[0]))];
					int			b;

					for (b = 0; b < width[f]; b++)
						c[offs[f] + b] = (uint8_t) (v >> (8 * b));
				}
				break;
			case 5:
			case 6:
				break;
			case 7:				/* reinterpret: a width and an m that fit the payload length */
				if (len >= BS_HEADER_SIZE)
				{
					uint32_t	w = unit_below(&r, 2) ? 4 : 8;
					uint64_t	m;

					plen = len - BS_HEADER_SIZE;
					m = w == 8 ? plen : 2 * plen - unit_below(&r, 2);
					if (unit_below(&r, 4) == 0)
						m += unit_below(&r, 2) ? 1 : (uint64_t) -1;
					bs_store32(c + BS_OFF_P3, w);
					bs_store64(c + BS_OFF_P1, m);
					if (unit_below(&r, 2))
						bs_store32(c + BS_OFF_P2, 1 + (uint32_t) unit_below(&r, 64));
				}
				break;
			case 8:				/* flip in the last bytes (the odd nibble) */
				c[len - 1 - unit_below(&r, len < 4 ? len : 4)] ^= (uint8_t) (1u << unit_below(&r, 8));
				break;
		}
		err.msg[0] = '\0';
		st = bs_validate(c, len, BS_KIND_CBLOOM, unit_below(&r, 2), NULL, &err);
		if (st == BS_OK)
		{
			fs.accepted++;
			exercise(c, len, &r, &fs);
		}
		else
		{
			fs.rejected++;
			fs.bad_status += st != BS_ERR_FORMAT;
			fs.bad_message += err.msg[0] == '\0';
		}
		free(c);
	}
	CHECK(fs.bad_status == 0 && fs.bad_message == 0 && fs.accepted > 5000 && fs.rejected > 5000,
		  "fuzz: %d mutated cbloom values (bit flips, header and payload bytes, edge values, reinterpreted width and m, truncations, extensions): %ld accepted, %ld rejected, every rejection BS_ERR_FORMAT with a message (%ld other status, %ld without message)",
		  UNIT_FUZZ_ITERATIONS, fs.accepted, fs.rejected, fs.bad_status, fs.bad_message);
	CHECK(fs.bad_size == 0 && fs.bad_use == 0 && fs.bad_revalidate == 0,
		  "fuzz: every accepted value has the length its header implies (%ld not) and is usable: add then contains and count, remove right after succeeds changing only saturated counters, to_bloom and self-union give valid, consistent results (%ld problems, %ld failed revalidation)",
		  fs.bad_size, fs.bad_use, fs.bad_revalidate);
	for (si = 0; si < ns; si++)
		free(samples[si].buf);
}

/* ---- 8. counting bloom_agg_state ---- */

static uint8_t *
new_counting(double fpr, uint8_t family)
{
	uint8_t    *s;
	bs_error	err;

	if (bs_bloom_agg_state_new_counting(fpr, family, 0, &alloc, &s, &err) != BS_OK)
	{
		fprintf(stderr, "bs_bloom_agg_state_new_counting: %s\n", err.msg);
		exit(2);
	}
	return s;
}

/* Add a stream; NULL if the state filled up (then *at is the index that failed). */
static uint8_t *
sadd_all(uint8_t *s, const uint64_t *h, size_t n, size_t *at)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		uint8_t    *t = s;

		if (bs_bloom_agg_state_add(&t, h[i], &alloc, NULL) != BS_OK)
		{
			if (at)
				*at = i;
			return NULL;
		}
		if (t != s)
			arena_drop(&the_arena, s);
		s = t;
	}
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

/* The counting state's final filter (result shape) into the arena. */
static uint8_t *
finish_counting(const uint8_t *s, uint32_t bits, size_t *len)
{
	uint64_t	m;
	uint32_t	k;
	uint8_t    *out;

	bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
	*len = cb_total(m, bits);
	out = unit_arena_alloc(&the_arena, *len);
	memset(out, 0xa5, *len);
	bs_bloom_agg_state_finish_counting(s, m, k, bits, out);
	return out;
}

static int64_t
find_slot(const uint8_t *s, uint64_t h)
{
	uint64_t	slots = bs_load64(s + BS_OFF_P1),
				i;

	for (i = 0; i < slots; i++)
		if (bs_load64(s + BS_HEADER_SIZE + i * 8) == h)
			return (int64_t) i;
	return -1;
}

static uint8_t
slot_count(const uint8_t *s, int64_t i)
{
	return s[BS_HEADER_SIZE + bs_load64(s + BS_OFF_P1) * 8 + (uint64_t) i];
}

/* A shuffled stream: nd distinct hashes (the hash 0 among them if zero), each 1..maxmult times, nheavy of them heavy times. */
static uint64_t *
make_stream(unit_rng *r, size_t nd, bool zero, uint32_t maxmult, size_t nheavy, uint32_t heavy, size_t *ns)
{
	uint64_t   *d = unit_random_hashes(r, nd);
	size_t		cap = 16,
				n = 0,
				i;
	uint64_t   *s = unit_calloc(cap, sizeof(uint64_t));

	if (zero && nd > 0)
		d[nd / 2] = 0;
	for (i = 0; i < nd; i++)
	{
		uint32_t	c = i < nheavy ? heavy : 1 + (uint32_t) unit_below(r, maxmult),
					j;

		if (zero && i == nd / 2 && nheavy > 0)
			c = heavy + 5;
		for (j = 0; j < c; j++)
		{
			if (n == cap)
			{
				cap *= 2;
				s = realloc(s, cap * sizeof(uint64_t));
				if (s == NULL)
					exit(2);
			}
			s[n++] = d[i];
		}
	}
	free(d);
	shuffle(s, n, r);
	*ns = n;
	return s;
}

static void
test_agg_state_direct(void)
{
	unit_rng	r = {8000};
	static const struct
	{
		size_t		nd;
		bool		zero;
		uint32_t	maxmult;
		size_t		nheavy;
		uint32_t	heavy;
	}			cases[] = {
		{0, false, 1, 0, 0}, {1, true, 3, 0, 0}, {1, false, 1, 1, 300}, {7, true, 4, 0, 0},
		{1000, true, 4, 5, 300}, {6000, true, 3, 0, 0}
	};
	int			ci;
	long		bad_equal = 0,
				bad_n = 0,
				bad_valid = 0,
				bad_bloom = 0;
	char		list[512] = "";

	for (ci = 0; ci < (int) (sizeof(cases) / sizeof(cases[0])); ci++)
	{
		size_t		ns,
					i;
		uint64_t   *stream = make_stream(&r, cases[ci].nd, cases[ci].zero, cases[ci].maxmult,
										 cases[ci].nheavy, cases[ci].heavy, &ns);
		uint8_t    *s = sadd_all(new_counting(0.01, BS_FAMILY_INTEGER), stream, ns, NULL);
		uint64_t	m;
		uint32_t	k,
					bits;

		if (s == NULL || bs_load64(s + BS_OFF_N) != cases[ci].nd)
		{
			bad_n++;
			free(stream);
			continue;
		}
		if (bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) != BS_OK)
			bad_valid++;
		bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
		snprintf(list + strlen(list), sizeof(list) - strlen(list), " %zu distinct/%zu adds: m=%" PRIu64 " k=%u;",
				 cases[ci].nd, ns, m, k);
		for (bits = 4; bits <= 8; bits += 4)
		{
			size_t		flen;
			uint8_t    *f = finish_counting(s, bits, &flen);
			bs_cbloom	direct;
			uint8_t    *db = new_cb(m, k, bits, BS_FAMILY_INTEGER, 0, &direct);

			for (i = 0; i < ns; i++)
				bs_cbloom_add_hash(&direct, stream[i], 1);
			if (flen != cb_len(db) || memcmp(f, db, flen) != 0 ||
				bs_validate(f, flen, BS_KIND_CBLOOM, true, NULL, NULL) != BS_OK)
				bad_equal++;
			if (bits == 4)
			{
				/* cbloom_agg(x)::bloom = bloom_agg(x) */
				uint64_t	blen;
				uint8_t    *b1,
						   *b2,
						   *plain;
				uint64_t	pm;
				uint32_t	pk;

				bs_bloom_size(m, &blen, NULL);
				b1 = unit_arena_alloc(&the_arena, (size_t) blen);
				b2 = unit_arena_alloc(&the_arena, (size_t) blen);
				bs_cbloom_to_bloom(&direct, b1);
				bs_bloom_agg_state_finish(s, m, k, b2);
				if (bs_bloom_agg_state_new_auto(0.01, BS_FAMILY_INTEGER, 0, &alloc, &plain, NULL) != BS_OK)
					exit(2);
				plain = sadd_all(plain, stream, ns, NULL);
				bs_bloom_agg_state_result_shape(plain, &pm, &pk, NULL);
				if (memcmp(b1, b2, (size_t) blen) != 0 || pm != m || pk != k)
					bad_bloom++;
				else
				{
					uint8_t    *b3 = unit_arena_alloc(&the_arena, (size_t) blen);

					bs_bloom_agg_state_finish(plain, pm, pk, b3);
					bad_bloom += memcmp(b1, b3, (size_t) blen) != 0;
				}
			}
			free(db);
		}
		free(stream);
		unit_arena_reset(&the_arena);
	}
	CHECK(bad_n == 0 && bad_valid == 0,
		  "counting states count the distinct hashes of 6 multisets (with repeats and the hash 0) and pass the deep check (%ld wrong count, %ld invalid)",
		  bad_n, bad_valid);
	CHECK(bad_equal == 0,
		  "bs_bloom_agg_state_finish_counting (4 and 8 bits) equals a cbloom of the result shape with every occurrence added directly, byte for byte, for every multiset (%ld differ):%s",
		  bad_equal, list);
	CHECK(bad_bloom == 0,
		  "the counting state's bit view, bs_bloom_agg_state_finish of it and of a plain auto state of the same input are the same bloom filter (%ld differ)",
		  bad_bloom);
}

static void
test_agg_state_split(void)
{
	unit_rng	r = {8100};
	size_t		ns,
				i;
	uint64_t   *stream = make_stream(&r, 3000, true, 4, 3, 200, &ns);
	uint8_t    *whole = sadd_all(new_counting(0.001, BS_FAMILY_INTEGER), stream, ns, NULL),
			   *parts[3],
			   *w4,
			   *w8;
	size_t		l4,
				l8;
	int			perm,
				runs = 0,
				bad = 0,
				bad_src = 0;
	static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

	w4 = finish_counting(whole, 4, &l4);
	w8 = finish_counting(whole, 8, &l8);
	parts[0] = new_counting(0.001, BS_FAMILY_NONE);
	parts[1] = new_counting(0.001, BS_FAMILY_INTEGER);
	parts[2] = new_counting(0.001, BS_FAMILY_INTEGER);
	for (i = 0; i < ns; i++)
	{
		int			p = (int) unit_below(&r, 3);
		uint8_t    *t = parts[p];

		(void) bs_bloom_agg_state_add(&t, stream[i], &alloc, NULL);
		if (t != parts[p])
			arena_drop(&the_arena, parts[p]);
		parts[p] = t;
	}
	for (perm = 0; perm < 7; perm++)
	{
		uint8_t    *acc;
		bs_status	st = BS_OK,
					st2 = BS_OK;
		size_t		la,
					lb;
		uint8_t    *fa,
				   *fb;
		uint8_t    *before[3];
		int			p;

		for (p = 0; p < 3; p++)
			before[p] = copy_state(parts[p]);
		if (perm < 6)
		{
			acc = copy_state(parts[perms[perm][0]]);
			st = bs_bloom_agg_state_merge(&acc, parts[perms[perm][1]], &alloc, NULL);
			if (st == BS_OK)
				st2 = bs_bloom_agg_state_merge(&acc, parts[perms[perm][2]], &alloc, NULL);
		}
		else
		{
			/* 0 + (1 + 2) */
			uint8_t    *right = copy_state(parts[1]);

			st = bs_bloom_agg_state_merge(&right, parts[2], &alloc, NULL);
			acc = st == BS_OK ? copy_state(parts[0]) : NULL;
			if (acc)
				st2 = bs_bloom_agg_state_merge(&acc, right, &alloc, NULL);
		}
		runs++;
		for (p = 0; p < 3; p++)
			bad_src += memcmp(before[p], parts[p], bs_bloom_agg_state_size(parts[p])) != 0;
		if (acc == NULL || st != BS_OK || st2 != BS_OK)
		{
			bad++;
			continue;
		}
		fa = finish_counting(acc, 4, &la);
		fb = finish_counting(acc, 8, &lb);
		bad += la != l4 || memcmp(fa, w4, l4) != 0 || lb != l8 || memcmp(fb, w8, l8) != 0 ||
			bs_validate(acc, bs_bloom_agg_state_size(acc), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) != BS_OK;
	}
	CHECK(bad == 0 && bad_src == 0 && w4[BS_OFF_FAMILY] == BS_FAMILY_INTEGER,
		  "%zu adds (3000 distinct, repeats, heavy hitters, the hash 0) split at random into 3 counting states, merged in %d orders: every final cbloom (4 and 8 bits) equals the one-state one byte for byte (%d differ), sources unchanged (%d modified)",
		  ns, runs, bad, bad_src);
	free(stream);
	unit_arena_reset(&the_arena);
}

static void
test_agg_state_counts(void)
{
	unit_rng	r = {8200};
	uint64_t	x = unit_next(&r),
				y = unit_next(&r);
	uint8_t    *a = new_counting(0.01, BS_FAMILY_TEXT),
			   *b = new_counting(0.01, BS_FAMILY_TEXT),
			   *plain,
			   *dst,
			   *res;
	int			i;
	int64_t		sx;
	bs_status	st;
	bs_error	err;

	for (i = 0; i < 300; i++)
	{
		a = sadd_all(a, (uint64_t[]) {x, 0}, 2, NULL);
		if (i < 200)
			b = sadd_all(b, (uint64_t[]) {y}, 1, NULL);
		if (i < 100)
			b = sadd_all(b, (uint64_t[]) {x, 0}, 2, NULL);
	}
	sx = find_slot(a, x);
	CHECK(sx >= 0 && slot_count(a, sx) == 255 && bs_load32(a + BS_OFF_P2) == 255 && bs_load64(a + BS_OFF_N) == 2 &&
		  (bs_load32(a + BS_OFF_P3) & BS_AGG_STATE_HASZERO) &&
		  bs_validate(a, bs_bloom_agg_state_size(a), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) == BS_OK,
		  "a hash and the hash 0 added 300 times each: their counts saturate at 255 (slot %d, header p2 %u), 2 distinct, the state validates",
		  sx >= 0 ? slot_count(a, sx) : -1, bs_load32(a + BS_OFF_P2));
	{
		int64_t		sy = find_slot(b, y),
					sbx = find_slot(b, x);
		bool		before = sy >= 0 && sbx >= 0 && slot_count(b, sy) == 200 && slot_count(b, sbx) == 100 &&
			bs_load32(b + BS_OFF_P2) == 100;
		uint8_t    *m1 = copy_state(b);
		int64_t		my,
					mx;

		st = bs_bloom_agg_state_merge(&m1, b, &alloc, NULL);
		my = st == BS_OK ? find_slot(m1, y) : -1;
		mx = st == BS_OK ? find_slot(m1, x) : -1;
		CHECK(before && st == BS_OK && my >= 0 && mx >= 0 && slot_count(m1, my) == 255 && slot_count(m1, mx) == 200 &&
			  bs_load32(m1 + BS_OFF_P2) == 200,
			  "merging a counting state (counts 200, 100 and the hash 0 at 100) with itself adds the counts: 255 (saturated), 200, 200");
	}
	res = copy_state(b);
	st = bs_bloom_agg_state_merge(&res, a, &alloc, NULL);
	sx = res ? find_slot(res, x) : -1;
	CHECK(res && st == BS_OK && sx >= 0 && slot_count(res, sx) == 255 && bs_load32(res + BS_OFF_P2) == 255 &&
		  bs_load64(res + BS_OFF_N) == 3,
		  "merging counts 100 and 255 saturates at 255 (hash and zero hash)");

	/* counting and plain states do not merge */
	bs_bloom_agg_state_new_auto(0.01, BS_FAMILY_TEXT, 0, &alloc, &plain, NULL);
	res = dst = copy_state(a);
	st = bs_bloom_agg_state_merge(&res, plain, &alloc, &err);
	CHECK(res == dst && st == BS_ERR_SHAPE && strstr(err.msg, "counting"),
		  "merging a plain state into a counting one is BS_ERR_SHAPE (%s)", err.msg);
	res = plain;
	st = bs_bloom_agg_state_merge(&res, a, &alloc, &err);
	CHECK(res == plain && st == BS_ERR_SHAPE && strstr(err.msg, "counting"),
		  "merging a counting state into a plain one is BS_ERR_SHAPE (%s)", err.msg);
	{
		uint8_t    *fixed;

		bs_bloom_agg_state_new_fixed(100, 0.01, BS_FAMILY_TEXT, 0, &alloc, &fixed, NULL);
		res = dst = copy_state(a);
		st = bs_bloom_agg_state_merge(&res, fixed, &alloc, &err);
		CHECK(res == dst && st == BS_ERR_SHAPE, "merging a fixed state into a counting one is BS_ERR_SHAPE (%s)", err.msg);
	}
	CHECK(bs_bloom_agg_state_is_counting(a) && !bs_bloom_agg_state_is_counting(plain), "bs_bloom_agg_state_is_counting tells them apart");
	{
		uint8_t    *e;

		CHECK(bs_bloom_agg_state_new_counting(0, 0, 0, &alloc, &e, &err) == BS_ERR_PARAM &&
			  bs_bloom_agg_state_new_counting(1, 0, 0, &alloc, &e, &err) == BS_ERR_PARAM &&
			  bs_bloom_agg_state_new_counting(NAN, 0, 0, &alloc, &e, &err) == BS_ERR_PARAM &&
			  bs_bloom_agg_state_new_counting(ldexp(1, -65), 0, 0, &alloc, &e, &err) == BS_ERR_PARAM &&
			  bs_bloom_agg_state_new_counting(0.01, BS_FAMILY_UUID, 9, &alloc, &e, &err) == BS_OK &&
			  bs_bloom_agg_state_size(e) == BS_HEADER_SIZE + BS_AGG_STATE_MIN_SLOTS * 9 && e[BS_OFF_FAMILY] == BS_FAMILY_UUID &&
			  bs_load64(e + 8) == 9 && bs_load32(e + BS_OFF_P3) == BS_AGG_STATE_COUNTED &&
			  bs_validate(e, bs_bloom_agg_state_size(e), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) == BS_OK,
			  "bs_bloom_agg_state_new_counting: fpr 0, 1, NaN or 2^-65 is BS_ERR_PARAM; a new state has 16 slots of 9 bytes, only the COUNTED flag, its family and seed, and validates");
	}
	unit_arena_reset(&the_arena);
}

static void
test_agg_state_check(void)
{
	unit_rng	r = {8300};
	uint64_t   *h = unit_random_hashes(&r, 10);
	uint8_t    *s = new_counting(0.01, BS_FAMILY_INTEGER),
			   *nz,
			   *c;
	size_t		len;
	uint64_t	slots,
				i,
				full = 0,
				empty = 0;
	bs_error	err;
	bs_status	st,
				stq;
	char		msg[512];

	s = sadd_all(s, h, 10, NULL);
	s = sadd_all(s, h, 3, NULL);
	nz = copy_state(s);			/* without the hash 0 */
	s = sadd_all(s, (uint64_t[]) {0, 0}, 2, NULL);
	len = bs_bloom_agg_state_size(s);
	slots = bs_load64(s + BS_OFF_P1);
	for (i = 0; i < slots; i++)
	{
		if (bs_load64(s + BS_HEADER_SIZE + i * 8) != 0)
			full = i;
		else
			empty = i;
	}
	CHECK(len == BS_HEADER_SIZE + slots * 9 && bs_validate(s, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK &&
		  bs_load32(s + BS_OFF_P2) == 2 && bs_load64(s + BS_OFF_N) == 11,
		  "a counting state of 10 hashes and the hash 0 (twice) has %" PRIu64 " slots of 8 + 1 bytes, zero-hash count 2 in p2, n = 11, and validates",
		  slots);

	c = copy_state(s);
	c[BS_HEADER_SIZE + slots * 8 + full] = 0;
	st = bs_validate(c, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
	snprintf(msg, sizeof(msg), "%s", err.msg);
	stq = bs_validate(c, len, BS_KIND_BLOOM_AGG_STATE, false, NULL, NULL);
	CHECK(st == BS_ERR_FORMAT && strstr(msg, "count of 0") && stq == BS_OK,
		  "deep check: a slot with a hash and a count of 0 is BS_ERR_FORMAT (%s); the quick check does not read slots", msg);
	c = copy_state(s);
	c[BS_HEADER_SIZE + slots * 8 + empty] = 1;
	st = bs_validate(c, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
	CHECK(st == BS_ERR_FORMAT && strstr(err.msg, "count but no hash"),
		  "deep check: a count in an empty slot is BS_ERR_FORMAT (%s)", err.msg);

	c = copy_state(s);
	bs_store32(c + BS_OFF_P3, bs_load32(c + BS_OFF_P3) & ~BS_AGG_STATE_HASZERO);
	bs_store64(c + BS_OFF_N, 10);
	st = bs_validate(c, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
	stq = bs_validate(c, len, BS_KIND_BLOOM_AGG_STATE, false, NULL, NULL);
	CHECK(st == BS_ERR_FORMAT && stq == BS_ERR_FORMAT && strstr(err.msg, "zero-hash count"),
		  "a zero-hash count without the zero-hash flag is BS_ERR_FORMAT, quick check too (%s)", err.msg);
	c = copy_state(s);
	bs_store32(c + BS_OFF_P2, 0);
	st = bs_validate(c, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
	CHECK(st == BS_ERR_FORMAT && strstr(err.msg, "zero-hash count"),
		  "the zero-hash flag with a count of 0 is BS_ERR_FORMAT (%s)", err.msg);
	c = copy_state(nz);
	bs_store32(c + BS_OFF_P2, 3);
	st = bs_validate(c, bs_bloom_agg_state_size(c), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
	CHECK(st == BS_ERR_FORMAT && bs_validate(nz, bs_bloom_agg_state_size(nz), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) == BS_OK,
		  "a state without the hash 0 but a zero-hash count of 3 is BS_ERR_FORMAT (%s)", err.msg);
	c = copy_state(s);
	bs_store32(c + BS_OFF_P2, 256);
	st = bs_validate(c, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
	CHECK(st == BS_ERR_FORMAT && strstr(err.msg, "256"), "a zero-hash count of 256 is BS_ERR_FORMAT (%s)", err.msg);

	c = copy_state(s);
	bs_store32(c + BS_OFF_P3, bs_load32(c + BS_OFF_P3) | BS_AGG_STATE_DENSE);
	st = bs_validate(c, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
	snprintf(msg, sizeof(msg), "%s", err.msg);
	bs_store32(c + BS_OFF_P3, (bs_load32(c + BS_OFF_P3) & ~BS_AGG_STATE_DENSE) | BS_AGG_STATE_FIXED);
	stq = bs_validate(c, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
	CHECK(st == BS_ERR_FORMAT && stq == BS_ERR_FORMAT && strstr(msg, "exact phase"),
		  "counting with the DENSE or FIXED flag is BS_ERR_FORMAT (%s)", msg);

	/* a plain state relabelled counting, and the reverse */
	{
		uint8_t    *p;
		size_t		plen;

		bs_bloom_agg_state_new_auto(0.01, BS_FAMILY_INTEGER, 0, &alloc, &p, NULL);
		p = sadd_all(p, h, 10, NULL);
		plen = bs_bloom_agg_state_size(p);
		bs_store32(p + BS_OFF_P3, bs_load32(p + BS_OFF_P3) | BS_AGG_STATE_COUNTED);
		st = bs_validate(p, plen, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
		c = copy_state(nz);
		bs_store32(c + BS_OFF_P3, bs_load32(c + BS_OFF_P3) & ~BS_AGG_STATE_COUNTED);
		stq = bs_validate(c, bs_bloom_agg_state_size(nz), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL);
		CHECK(st == BS_ERR_FORMAT && stq == BS_ERR_FORMAT,
			  "a plain state relabelled counting (or the reverse) has the wrong payload length: BS_ERR_FORMAT (%s)", err.msg);
	}
	free(h);
	unit_arena_reset(&the_arena);
}

/*
 * Mutation fuzz of counting states: whatever the deep check accepts must be
 * usable: its length is what bs_bloom_agg_state_size says, its finished cbloom (4
 * and 8 bits) validates and holds every hash of the table, adding hashes
 * (the hash 0 too) and merging it with itself keep it valid.
 */
static void
test_agg_state_fuzz(void)
{
	unit_rng	r = {8500};
	uint8_t    *samples[4];
	size_t		slen[4];
	int			ns = 0,
				i;
	long		it,
				accepted = 0,
				rejected = 0,
				bad_status = 0,
				bad_use = 0;
	const long	iterations = UNIT_FUZZ_ITERATIONS / 5;

	/* samples outside the arena, which is emptied every iteration */
	for (i = 0; i < 4; i++)
	{
		static const int sizes[] = {0, 1, 10, 100};
		uint8_t    *st = new_counting(i == 3 ? 0.001 : 0.01, (uint8_t) i);
		int			j;

		for (j = 0; j < sizes[i]; j++)
		{
			uint64_t	x = (i == 1 || j == 3) ? 0 : unit_next(&r);
			uint32_t	c = 1 + (uint32_t) unit_below(&r, j % 7 == 0 ? 300 : 3),
						t;

			for (t = 0; t < c; t++)
				st = sadd_all(st, &x, 1, NULL);
		}
		slen[ns] = bs_bloom_agg_state_size(st);
		samples[ns] = dup_bytes(st, slen[ns]);
		ns++;
		unit_arena_reset(&the_arena);
	}

	for (it = 0; it < iterations; it++)
	{
		int			si = (int) unit_below(&r, (uint64_t) ns),
					op = (int) unit_below(&r, 6);
		size_t		len = slen[si],
					j;
		uint8_t    *c;
		uint64_t	slots = bs_load64(samples[si] + BS_OFF_P1);
		bs_error	err;
		bs_status	st;

		if (op == 4)
			len = (size_t) unit_below(&r, len);
		c = unit_arena_alloc(&the_arena, len);
		memcpy(c, samples[si], len);
		switch (op)
		{
			case 0:				/* bit flips anywhere */
				for (j = 1 + unit_below(&r, 3); j > 0; j--)
					c[unit_below(&r, len)] ^= (uint8_t) (1u << unit_below(&r, 8));
				break;
			case 1:				/* count bytes set to 0, 1, 255 or random */
			case 2:
				for (j = 1 + unit_below(&r, 3); j > 0; j--)
				{
					static const uint8_t v[] = {0, 1, 255, 2};
					uint8_t		b = unit_below(&r, 2) ? v[unit_below(&r, 4)] : (uint8_t) unit_next(&r);

					c[BS_HEADER_SIZE + slots * 8 + unit_below(&r, slots)] = b;
				}
				break;
			case 3:				/* header fields: p2 (zero count), p3 (flags), n */
				{
					static const uint64_t edge[] = {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 100, 101, 255, 256, 0xc, 0x8, 0xd, 0x9};
					int			f = (int) unit_below(&r, 3);
					uint64_t	v = edge[unit_below(&r, sizeof(edge) / sizeof(edge[0]))];

					if (f == 0)
						bs_store32(c + BS_OFF_P2, (uint32_t) v);
					else if (f == 1)
						bs_store32(c + BS_OFF_P3, (uint32_t) v);
					else
						bs_store64(c + BS_OFF_N, v);
				}
				break;
			case 4:
				break;
			case 5:				/* a random hash word in a slot */
				bs_store64(c + BS_HEADER_SIZE + unit_below(&r, slots) * 8, unit_below(&r, 2) ? 0 : unit_next(&r));
				break;
		}
		err.msg[0] = '\0';
		st = bs_validate(c, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
		if (st != BS_OK)
		{
			rejected++;
			bad_status += st != BS_ERR_FORMAT || err.msg[0] == '\0';
		}
		else
		{
			uint64_t	m,
						sl,
						q;
			uint32_t	k,
						bits;
			uint8_t    *s2,
					   *mg;

			accepted++;
			if (bs_bloom_agg_state_size(c) != len || !bs_bloom_agg_state_is_counting(c))
			{
				bad_use++;
				unit_arena_reset(&the_arena);
				continue;
			}
			sl = bs_load64(c + BS_OFF_P1);
			bs_bloom_agg_state_result_shape(c, &m, &k, NULL);
			for (bits = 4; bits <= 8; bits += 4)
			{
				size_t		flen;
				uint8_t    *f;
				bs_cbloom	cb;

				if (bs_cbloom_check_shape(m, k, bits, NULL) != BS_OK)
				{
					bad_use++;
					continue;
				}
				f = finish_counting(c, bits, &flen);
				bs_cbloom_view(f, &cb);
				if (bs_validate(f, flen, BS_KIND_CBLOOM, true, NULL, NULL) != BS_OK)
					bad_use++;
				for (q = 0; q < sl; q++)
				{
					uint64_t	x = bs_load64(c + BS_HEADER_SIZE + q * 8);

					if (x != 0 && !bs_cbloom_contains_hash(&cb, x))
						bad_use++;
				}
				if ((bs_load32(c + BS_OFF_P3) & BS_AGG_STATE_HASZERO) && !bs_cbloom_contains_hash(&cb, 0))
					bad_use++;
			}
			s2 = copy_state(c);
			for (q = 0; q < 4; q++)
			{
				uint64_t	x = q == 0 ? 0 : unit_next(&r);

				if (s2 != NULL && bs_bloom_agg_state_add(&s2, x, &alloc, NULL) != BS_OK)
					s2 = NULL;
			}
			if (s2 == NULL || bs_validate(s2, bs_bloom_agg_state_size(s2), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) != BS_OK)
				bad_use++;
			mg = copy_state(c);
			st = bs_bloom_agg_state_merge(&mg, c, &alloc, NULL);
			if (mg == NULL || st != BS_OK || bs_validate(mg, bs_bloom_agg_state_size(mg), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) != BS_OK)
				bad_use++;
		}
		unit_arena_reset(&the_arena);
	}
	CHECK(bad_status == 0 && accepted > 1000 && rejected > 1000 && bad_use == 0,
		  "fuzz: %ld mutated counting states (bit flips, count bytes, zero count, flags, n, hash words, truncations): %ld accepted, %ld rejected, every rejection BS_ERR_FORMAT with a message (%ld not); every accepted one finishes to valid cbloom filters holding its hashes, takes adds and merges with itself staying valid (%ld problems)",
		  iterations, accepted, rejected, bad_status, bad_use);
	for (i = 0; i < ns; i++)
		free(samples[i]);
}

static void
test_agg_state_limit(void)
{
	unit_rng	r = {8400};
	const size_t n = BS_AGG_STATE_EXACT_LIMIT + 1;
	uint64_t   *h = unit_random_hashes(&r, n);
	uint8_t    *s = new_counting(0.05, BS_FAMILY_INTEGER),
			   *t,
			   *one,
			   *res;
	size_t		at = 0;
	bs_error	err;
	bs_status	st;
	uint64_t	slots;

	h[1000] = 0;
	s = sadd_all(s, h, n - 1, &at);
	CHECK(s != NULL && bs_load64(s + BS_OFF_N) == BS_AGG_STATE_EXACT_LIMIT &&
		  bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) == BS_OK,
		  "a counting state takes 2^20 distinct hashes (the hash 0 among them), %" PRIu64 " slots, and validates",
		  s ? bs_load64(s + BS_OFF_P1) : 0);
	if (s == NULL)
	{
		free(h);
		unit_arena_reset(&the_arena);
		return;
	}
	slots = bs_load64(s + BS_OFF_P1);
	t = s;
	st = bs_bloom_agg_state_add(&t, h[n - 1], &alloc, &err);
	CHECK(t == s && st == BS_ERR_LIMIT && strstr(err.msg, "1048576") && strstr(err.hint, "capacity") &&
		  bs_load64(s + BS_OFF_N) == BS_AGG_STATE_EXACT_LIMIT && bs_load64(s + BS_OFF_P1) == slots,
		  "the 2^20 + 1st distinct hash is BS_ERR_LIMIT naming the limit and a capacity, the state unchanged (%s %s)",
		  err.msg, err.hint);
	t = s;
	st = bs_bloom_agg_state_add(&t, h[5], &alloc, &err);
	if (st == BS_OK)
		st = bs_bloom_agg_state_add(&t, 0, &alloc, &err);
	CHECK(st == BS_OK && t == s && find_slot(s, h[5]) >= 0 && slot_count(s, find_slot(s, h[5])) == 2 && bs_load32(s + BS_OFF_P2) == 2,
		  "a full counting state still counts repeats of hashes it holds (count 2, zero-hash count 2)");
	one = sadd_all(new_counting(0.05, BS_FAMILY_INTEGER), (uint64_t[]) {h[n - 1]}, 1, NULL);
	res = s;
	st = bs_bloom_agg_state_merge(&res, one, &alloc, &err);
	CHECK(res == s && st == BS_ERR_LIMIT, "merging a new hash into a full counting state is BS_ERR_LIMIT (%s)", err.msg);
	free(h);
	unit_arena_reset(&the_arena);
}

/*
 * Subtraction: sliding a window (w + newest - oldest) equals rebuilding it
 * while nothing saturates; a part holding a value the filter does not hold
 * is refused with no byte changed; saturated counters stay.
 */
static void
test_subtract(void)
{
	unit_rng	r = {9100};
	uint32_t	bits;

	for (bits = 4; bits <= 8; bits += 4)
	{
		const uint64_t m = 30011;
		uint64_t   *h = unit_random_hashes(&r, 4000);
		bs_cbloom	day[4],
					w,
					rebuilt,
					absent,
					sat,
					part;
		uint8_t    *bd[4],
				   *bw = new_cb(m, 5, bits, BS_FAMILY_INTEGER, 0, &w),
				   *br = new_cb(m, 5, bits, BS_FAMILY_INTEGER, 0, &rebuilt),
				   *ba = new_cb(m, 5, bits, BS_FAMILY_INTEGER, 0, &absent),
				   *bs = new_cb(m, 5, bits, BS_FAMILY_INTEGER, 0, &sat),
				   *bp = new_cb(m, 5, bits, BS_FAMILY_INTEGER, 0, &part),
				   *copy;
		bs_error	err;
		bs_status	st;
		size_t		len = cb_len(bw);
		int			d,
					i,
					missing = 0;

		for (d = 0; d < 4; d++)
		{
			bd[d] = new_cb(m, 5, bits, BS_FAMILY_INTEGER, 0, &day[d]);
			add_all(&day[d], h + d * 1000, 1000);
		}
		for (d = 0; d < 3; d++)
			bs_cbloom_add_counters(&w, &day[d]);
		for (d = 1; d < 4; d++)
			bs_cbloom_add_counters(&rebuilt, &day[d]);
		bs_cbloom_add_counters(&w, &day[3]);
		st = bs_cbloom_subtract(&w, &day[0], &err);
		CHECK(st == BS_OK && memcmp(bw, br, len) == 0,
			  "%u-bit: days 1-3 + day 4 - day 1 is byte-identical to days 2-4", bits);
		for (i = 1000; i < 4000; i++)
			missing += !bs_cbloom_contains_hash(&w, h[i]);
		CHECK(missing == 0, "%u-bit: no false negative in the slid window (%d missing of 3000)", bits, missing);

		/* a part with a value the window does not hold (day 1 again, now gone) */
		add_all(&absent, h, 1);
		copy = dup_bytes(bw, len);
		st = bs_cbloom_subtract(&w, &absent, &err);
		CHECK(st == BS_ERR_ABSENT && memcmp(copy, bw, len) == 0 &&
			  strstr(err.msg, "cannot subtract") != NULL,
			  "%u-bit: subtracting a part holding an absent value is refused, nothing changed: %s",
			  bits, err.msg);
		free(copy);

		/* saturated counters stay: a value added 300 times, a part of it 100 times */
		for (i = 0; i < 300; i++)
			bs_cbloom_add_hash(&sat, h[0], 1);
		bs_cbloom_add_hash(&part, h[0], 100);
		st = bs_cbloom_subtract(&sat, &part, &err);
		CHECK(st == BS_OK && bs_cbloom_contains_hash(&sat, h[0]) &&
			  bs_cbloom_count_hash(&sat, h[0]) == sat.max,
			  "%u-bit: after 300 adds less a part of 100 the saturated value is still present (count %u)",
			  bits, bs_cbloom_count_hash(&sat, h[0]));
		/* an unsaturated counter below a saturated one of the part is refused */
		bs_cbloom_init(bs, m, 5, bits, BS_FAMILY_INTEGER, 0);
		bs_cbloom_add_hash(&sat, h[1], 3);
		st = bs_cbloom_subtract(&sat, &part, &err);
		CHECK(st == BS_ERR_ABSENT,
			  "%u-bit: a part whose counters exceed the filter's unsaturated ones is refused", bits);

		for (d = 0; d < 4; d++)
			free(bd[d]);
		free(bw);
		free(br);
		free(ba);
		free(bs);
		free(bp);
		free(h);
	}
}

/*
 * bs_cbloom_add_prefetched (cbloom_agg's final function) leaves the counters
 * of one-by-one adds: 4- and 8-bit counters, k up to 64, counts that
 * saturate, fewer values than it looks ahead and more.
 */
static void
test_add_prefetched(void)
{
	static const uint32_t ks[] = {1, 7, 23, 64};
	static const size_t ns[] = {0, 1, BS_CBLOOM_PREFETCH_AHEAD, BS_CBLOOM_PREFETCH_AHEAD + 1, 2000};
	const uint64_t m = 20011;	/* odd: the last byte's high nibble stays 0 */
	uint64_t	h[2000];
	uint32_t	counts[2000];
	unit_rng	r = {4242};
	int			bad = 0,
				runs = 0;
	size_t		i,
				x,
				y;
	uint32_t	bits;

	for (i = 0; i < 2000; i++)
	{
		h[i] = unit_next(&r);
		counts[i] = i % 50 == 0 ? 300 : (uint32_t) (1 + i % 4);
	}
	for (bits = 4; bits <= 8; bits += 4)
		for (x = 0; x < sizeof(ks) / sizeof(ks[0]); x++)
			for (y = 0; y < sizeof(ns) / sizeof(ns[0]); y++)
			{
				uint64_t	total;
				uint8_t    *a,
						   *b;
				bs_cbloom	ca,
							cb;

				if (bs_cbloom_size(m, bits, &total, NULL) != BS_OK)
					exit(2);
				a = calloc(1, total);
				b = calloc(1, total);
				bs_cbloom_init(a, m, ks[x], bits, BS_FAMILY_INTEGER, 0);
				bs_cbloom_init(b, m, ks[x], bits, BS_FAMILY_INTEGER, 0);
				bs_cbloom_view(a, &ca);
				bs_cbloom_view(b, &cb);
				for (i = 0; i < ns[y]; i++)
					bs_cbloom_add_hash(&ca, h[i], counts[i]);
				bs_cbloom_add_prefetched(&cb, h, counts, ns[y]);
				bad += memcmp(a, b, total) != 0;
				runs++;
				free(a);
				free(b);
			}
	CHECK(bad == 0, "bs_cbloom_add_prefetched leaves the counters of one-by-one adds: 4 and 8 bits, k 1 to 64, 0 to 2000 values, saturating counts (%d of %d differ)",
		  bad, runs);
}

int
main(void)
{
	test_layout();
	test_add_remove();
	test_coinciding();
	test_contains_agrees_with_count();
	test_saturation();
	test_add_prefetched();
	test_churn();
	test_union();
	test_subtract();
	test_to_bloom();
	test_validate();
	test_fuzz();
	test_agg_state_direct();
	test_agg_state_split();
	test_agg_state_counts();
	test_agg_state_check();
	test_agg_state_fuzz();
	test_agg_state_limit();
	free(the_arena.ptr);
	return unit_done("cbloom");
}
