/*
 * hash_test.c: the canonical hash (XXH3-64), the multiply-shift reduction and
 * the enhanced double hashing probe sequence of src/core/hash.h.
 */
#include <inttypes.h>
#include <string.h>

#include "core/bloom.h"
#include "core/hash.h"
#include "unit.h"

/* Reference reduction: floor(x * range / 2^64) with a 128-bit product. */
static uint64_t
ref_reduce(uint64_t x, uint64_t range)
{
#ifdef __SIZEOF_INT128__
	return (uint64_t) (((unsigned __int128) x * range) >> 64);
#else
	/* schoolbook on 32-bit limbs */
	uint64_t	xl = x & 0xffffffffu,
				xh = x >> 32,
				rl = range & 0xffffffffu,
				rh = range >> 32;
	uint64_t	ll = xl * rl,
				lh = xl * rh,
				hl = xh * rl,
				hh = xh * rh;
	uint64_t	mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);

	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/* Reference probe sequence, written from the comment in hash.h. */
static void
ref_probes(uint64_t h, uint64_t m, uint32_t k, uint64_t *pos)
{
	/* splitmix64 from state h: the (i+1)-th output, then reduced. */
	uint64_t	state = h;
	uint32_t	i;

	for (i = 0; i < k; i++)
	{
		uint64_t	z = (state += UINT64_C(0x9E3779B97F4A7C15));

		z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
		pos[i] = ref_reduce(z ^ (z >> 31), m);
	}
}

static void
test_reduce(void)
{
	static const struct
	{
		uint64_t	x,
					range,
					want;
	}			known[] = {
		{0, 1000, 0},
		{UINT64_MAX, 1000, 999},
		{UINT64_MAX, 1, 0},
		{UINT64_C(1) << 63, 1000, 500},
		{UINT64_C(1) << 63, 3, 1},
		{UINT64_C(1) << 62, 10, 2},		/* 2.5 floored */
		{UINT64_C(0xc000000000000000), 10, 7},	/* 7.5 floored */
		{UINT64_C(0x123456789abcdef0), UINT64_C(1) << 32, UINT64_C(0x12345678)},
		{UINT64_C(0xffffffff00000000), UINT64_C(0x100000000), UINT64_C(0xffffffff)},
		{UINT64_MAX, UINT64_MAX, UINT64_MAX - 1},
		{UINT64_C(12345), UINT64_MAX, UINT64_C(12344)},
	};
	unit_rng	r = {1};
	int			i,
				bad_known = -1,
				bad_range = 0,
				bad_ref = 0;
	uint64_t	bucket[10] = {0};

	for (i = 0; i < (int) (sizeof(known) / sizeof(known[0])); i++)
		if (bs_reduce(known[i].x, known[i].range) != known[i].want && bad_known < 0)
			bad_known = i;
	CHECK(bad_known < 0, "bs_reduce matches %d hand-computed values of floor(x*m/2^64)%s",
		  (int) (sizeof(known) / sizeof(known[0])),
		  bad_known < 0 ? "" : " (a value differs)");

	for (i = 0; i < 1000000; i++)
	{
		uint64_t	x = unit_next(&r),
					m;
		uint64_t	got;

		switch (i % 4)
		{
			case 0:
				m = 1 + unit_below(&r, 100);
				break;
			case 1:
				m = 1 + unit_below(&r, UINT64_C(1) << 33);
				break;
			case 2:
				m = unit_next(&r) | 1;
				break;
			default:
				m = (uint64_t) BS_BLOOM_MAX_BITS - unit_below(&r, 1000);
				break;
		}
		got = bs_reduce(x, m);
		if (got >= m)
			bad_range++;
		if (got != ref_reduce(x, m))
			bad_ref++;
	}
	CHECK(bad_range == 0, "bs_reduce(x, m) < m for 1,000,000 random (x, m) (%d out of range)", bad_range);
	CHECK(bad_ref == 0, "bs_reduce(x, m) == (x*m)>>64 (128-bit reference) for 1,000,000 random (x, m) (%d differ)", bad_ref);

	/* Uniformity: 1,000,000 random x onto 10 buckets, each within 2% of 100,000. */
	for (i = 0; i < 1000000; i++)
		bucket[bs_reduce(unit_next(&r), 10)]++;
	{
		uint64_t	lo = UINT64_MAX,
					hi = 0;

		for (i = 0; i < 10; i++)
		{
			lo = bucket[i] < lo ? bucket[i] : lo;
			hi = bucket[i] > hi ? bucket[i] : hi;
		}
		CHECK(lo >= 98000 && hi <= 102000,
			  "bs_reduce spreads 1,000,000 random x evenly over 10 buckets (min %" PRIu64 ", max %" PRIu64 ", want 98000..102000)",
			  lo, hi);
	}
}

static void
test_probes(void)
{
	unit_rng	r = {2};
	int			i,
				bad_seq = 0,
				bad_range = 0,
				bad_det = 0,
				bad_bits = 0;

	for (i = 0; i < 20000; i++)
	{
		uint64_t	h = unit_next(&r),
					m = 1 + unit_below(&r, (i % 2) ? 1000 : UINT64_C(1) << 40);
		uint32_t	k = 1 + (uint32_t) unit_below(&r, BS_BLOOM_MAX_HASHES);
		uint64_t	want[BS_BLOOM_MAX_HASHES],
					got1[BS_BLOOM_MAX_HASHES],
					got2[BS_BLOOM_MAX_HASHES];
		uint32_t	j;

		ref_probes(h, m, k, want);
		for (j = 0; j < k; j++)
		{
			got1[j] = bs_probe(h, j, m);
			if (got1[j] >= m)
				bad_range++;
		}
		for (j = k; j-- > 0;)
			got2[j] = bs_probe(h, j, m);
		if (memcmp(got1, want, k * sizeof(uint64_t)) != 0)
			bad_seq++;
		if (memcmp(got1, got2, k * sizeof(uint64_t)) != 0)
			bad_det++;
	}
	CHECK(bad_seq == 0, "probe i is reduce(splitmix64 output i+1 from state h, m) for 20,000 random (h, m, k) (%d differ)", bad_seq);
	CHECK(bad_det == 0, "probes are deterministic and independent of the order they are computed in (%d differ)", bad_det);
	CHECK(bad_range == 0, "every probe position lies in [0, m) (%d out of range)", bad_range);

	/*
	 * Published splitmix64 outputs from state 0 (0xe220a8397b1dcdaf,
	 * 0x6e789e6aa1b965f4, 0x06c45d188009454f): over m = 2^32 the positions
	 * are their top 32 bits.
	 */
	{
		uint64_t	m = UINT64_C(1) << 32;
		uint64_t	got[3] = {bs_probe(0, 0, m), bs_probe(0, 1, m), bs_probe(0, 2, m)};

		CHECK(got[0] == UINT64_C(0xe220a839) && got[1] == UINT64_C(0x6e789e6a) &&
			  got[2] == UINT64_C(0x06c45d18),
			  "probe positions of h = 0 over m = 2^32 are the top halves of splitmix64's first outputs (got %" PRIx64 ", %" PRIx64 ", %" PRIx64 ")",
			  got[0], got[1], got[2]);
	}

	/* bs_bloom_add_hash sets exactly the probe positions, contains sees them. */
	for (i = 0; i < 2000; i++)
	{
		uint64_t	m = 1 + unit_below(&r, 4096),
					h = unit_next(&r),
					pos[BS_BLOOM_MAX_HASHES],
					j;
		uint32_t	k = 1 + (uint32_t) unit_below(&r, BS_BLOOM_MAX_HASHES),
					q;
		uint8_t		bits[512],
					want[512];

		memset(bits, 0, sizeof(bits));
		memset(want, 0, sizeof(want));
		ref_probes(h, m, k, pos);
		for (q = 0; q < k; q++)
			want[pos[q] >> 3] |= (uint8_t) (1u << (pos[q] & 7));
		bs_bloom_add_hash(bits, m, k, h);
		if (memcmp(bits, want, sizeof(bits)) != 0 || !bs_bloom_contains_hash(bits, m, k, h))
			bad_bits++;
		/* clearing any one probed bit makes contains false */
		j = pos[unit_below(&r, k)];
		bits[j >> 3] &= (uint8_t) ~(1u << (j & 7));
		if (bs_bloom_contains_hash(bits, m, k, h))
			bad_bits++;
	}
	CHECK(bad_bits == 0, "bs_bloom_add_hash sets exactly the k probe bits and contains needs all of them (2,000 cases, %d bad)", bad_bits);

	/*
	 * The k probes of one key must not collapse onto a few bits more often
	 * than k independent positions would (that raises the false-positive
	 * rate of small filters).  For k = 10 positions in m = 144 bits, 5 or
	 * fewer distinct positions happen about once in 10^6 keys with
	 * independent positions, and never with textbook enhanced double hashing
	 * mod m; we allow 1 in 10^4.
	 */
	{
		static const struct
		{
			uint64_t	m;
			uint32_t	k;
		}			shapes[] = {{96, 7}, {144, 10}, {1000, 10}};
		int			s;

		for (s = 0; s < 3; s++)
		{
			unit_rng	rr = {3};
			long		few = 0;
			const long	keys = 1000000;
			long		t;

			for (t = 0; t < keys; t++)
			{
				uint64_t	pos[BS_BLOOM_MAX_HASHES];
				uint32_t	a,
							b,
							distinct = 0;

				uint64_t	h = unit_next(&rr);

				for (a = 0; a < shapes[s].k; a++)
				{
					pos[a] = bs_probe(h, a, shapes[s].m);
					for (b = 0; b < a && pos[b] != pos[a]; b++)
						;
					distinct += b == a;
				}
				few += distinct <= shapes[s].k / 2;
			}
			CHECK(few <= keys / 10000,
				  "probes do not collapse: of 1,000,000 random keys with m = %" PRIu64 ", k = %u, %ld (%.4f%%) have <= %u distinct positions (want <= 0.01%%; e.g. h = 0x80000000 probes 0, 72, 0, 72, ... at m = 144)",
				  shapes[s].m, shapes[s].k, few, 100.0 * few / keys, shapes[s].k / 2);
		}
	}

	/* m = 1: every probe is bit 0. */
	{
		uint8_t		b = 0;

		bs_bloom_add_hash(&b, 1, 64, UINT64_C(0xdeadbeefcafef00d));
		CHECK(b == 1, "with m = 1 every probe lands on bit 0 (byte 0x%02x)", b);
	}
}

static void
test_xxh3(void)
{
	uint8_t		le42[8] = {42, 0, 0, 0, 0, 0, 0, 0};
	int64_t		i42 = 42;
	uint8_t		native[8];
	uint64_t	h42 = bs_hash_bytes(le42, 8, BS_DEFAULT_SEED),
				habc = bs_hash_bytes("abc", 3, BS_DEFAULT_SEED);

	/* Values returned by SELECT bloomsketch_hash(42::int8) and ('abc'::text) on a running server. */
	CHECK(h42 == (uint64_t) INT64_C(-3051478158665635896),
		  "XXH3-64 seed 0 of int64 42 as 8 LE bytes = -3051478158665635896 as int64 (got %" PRId64 ")",
		  (int64_t) h42);
	CHECK(habc == UINT64_C(8696274497037089104),
		  "XXH3-64 seed 0 of \"abc\" = 8696274497037089104 (got %" PRIu64 ")", habc);
	CHECK(bs_hash_bytes("abc", 3, 0) == XXH3_64bits("abc", 3),
		  "bs_hash_bytes with seed 0 equals plain XXH3_64bits");
	CHECK(bs_hash_bytes("abc", 3, 1) != habc,
		  "a different seed gives a different hash of \"abc\"");
	CHECK(bs_hash_bytes("abc", 3, BS_DEFAULT_SEED) == habc && bs_hash_bytes(le42, 8, 0) == h42,
		  "bs_hash_bytes is deterministic");

	/* On a little-endian machine the native int64 bytes are the canonical ones. */
	memcpy(native, &i42, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	CHECK(memcmp(native, le42, 8) == 0, "this machine is little-endian: int64 42 in memory is the canonical key");
#endif
	CHECK(strcmp(bs_family_name(BS_FAMILY_INTEGER), "integer") == 0 &&
		  strcmp(bs_family_name(BS_FAMILY_TEXT), "text") == 0 &&
		  strcmp(bs_family_name(BS_FAMILY_NONE), "none") == 0 &&
		  strcmp(bs_family_name(BS_FAMILY_MAX + 1), "unknown") == 0,
		  "bs_family_name names integer, text, none and unknown families");
}

/* The family table (hash.c): names and canonical key lengths, as doc/hashing.md gives them. */
static void
test_families(void)
{
	const struct
	{
		int			family;
		const char *name;
		uint32_t	bytes;
	}			want[] = {
		{BS_FAMILY_NONE, "none", 0}, {BS_FAMILY_INTEGER, "integer", 8},
		{BS_FAMILY_TEXT, "text", 0}, {BS_FAMILY_BYTEA, "bytea", 0},
		{BS_FAMILY_UUID, "uuid", 16}, {BS_FAMILY_FLOAT, "float", 8},
		{BS_FAMILY_NUMERIC, "numeric", 0}, {BS_FAMILY_DATE, "date", 8},
		{BS_FAMILY_TIMESTAMP, "timestamp", 8}, {BS_FAMILY_TIMESTAMPTZ, "timestamptz", 8},
	};
	int			bad = 0;
	size_t		i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
	{
		const bs_family_def *d = bs_family_def_of(want[i].family);
		uint32_t	b = want[i].bytes;

		if (d == NULL || strcmp(d->name, want[i].name) != 0 || d->key_bytes != b ||
			strcmp(bs_family_name(want[i].family), want[i].name) != 0 ||
			!bs_family_key_length_fits(want[i].family, b ? b : 3) ||
			(b && bs_family_key_length_fits(want[i].family, b - 1)) ||
			(b && bs_family_key_length_fits(want[i].family, b + 1)))
			bad++;
	}
	CHECK(bad == 0 && sizeof(want) / sizeof(want[0]) == BS_FAMILY_MAX + 1,
		  "families 0 to %d: name, canonical key length, and only that length fits (%d wrong)",
		  BS_FAMILY_MAX, bad);
	CHECK(bs_family_def_of(BS_FAMILY_MAX + 1) == NULL && bs_family_def_of(-1) == NULL &&
		  strcmp(bs_family_name(BS_FAMILY_MAX + 1), "unknown") == 0 &&
		  !bs_family_key_length_fits(BS_FAMILY_MAX + 1, 8),
		  "a family past the last has no definition, is named unknown, and fits no key");
}

int
main(void)
{
	test_families();
	test_reduce();
	test_probes();
	test_xxh3();
	return unit_done("hash");
}
