/*
 * probe_ranges_test.c: bs_probe_ranges (src/core/probe_ranges.c) lists every
 * byte a lookup reads.
 *
 * For each kind and shape (odd and even sizes, 4- and 8-bit counters, one
 * and many probes), a sketch is filled with keys; then, for member and
 * non-member hashes, the lookup runs on two sparse copies that hold only the
 * header and the listed ranges, the rest poisoned with 0x00 in one and 0xff
 * in the other.  Both must answer as the lookup on the whole sketch: a byte
 * the lookup reads but the ranges miss turns a member into a non-member
 * (0x00), a non-member into a member (0xff), or moves a count.  Every range
 * must lie inside the sketch and inside the payload.
 */
#include <inttypes.h>
#include <string.h>

#include "core/bloom.h"
#include "core/bloom_value.h"
#include "core/cbloom.h"
#include "core/cms.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/probe_ranges.h"
#include "unit.h"

#define KEYS 2000
#define LOOKUPS 4000

typedef uint64_t (*lookup_fn) (uint8_t *buf, uint64_t h);

static uint64_t
bloom_lookup(uint8_t *buf, uint64_t h)
{
	bs_bloom	b;

	bs_bloom_view(buf, &b);
	return bs_bloom_contains(&b, h);
}

static uint64_t
cbloom_contains_lookup(uint8_t *buf, uint64_t h)
{
	bs_cbloom	c;

	bs_cbloom_view(buf, &c);
	return bs_cbloom_contains_hash(&c, h);
}

static uint64_t
cbloom_count_lookup(uint8_t *buf, uint64_t h)
{
	bs_cbloom	c;

	bs_cbloom_view(buf, &c);
	return bs_cbloom_count_hash(&c, h);
}

static uint64_t
cms_lookup(uint8_t *buf, uint64_t h)
{
	bs_cms		c;

	bs_cms_view(buf, &c);
	return bs_cms_frequency(&c, h);
}

/* The header and the listed ranges of full, the rest poison; false if a range is outside. */
static bool
sparse_copy(const uint8_t *full, size_t len, const bs_header *hd, uint64_t h,
			uint8_t poison, uint8_t *out, size_t *nranges)
{
	bs_byte_range r[BS_PROBE_RANGES_MAX];
	size_t		n = bs_probe_ranges(hd, h, r),
				i;

	memset(out, poison, len);
	memcpy(out, full, BS_HEADER_SIZE);
	*nranges = n;
	for (i = 0; i < n; i++)
	{
		if (r[i].off < BS_HEADER_SIZE || r[i].len == 0 || r[i].off > len ||
			r[i].len > len - r[i].off)
			return false;
		memcpy(out + r[i].off, full + r[i].off, r[i].len);
	}
	return true;
}

/* Lookups of members (the first KEYS hashes of seed) and of random hashes. */
static void
check_lookups(const char *what, uint8_t *full, size_t len, lookup_fn fn, uint32_t probes,
			  uint64_t seed)
{
	uint8_t    *lo = unit_calloc(len, 1),
			   *hi = unit_calloc(len, 1);
	bs_header	hd;
	unit_rng	keys = {seed},
				other = {~seed};
	int			i,
				bad_range = 0,
				wrong = 0,
				bad_count = 0,
				members = 0;

	if (!CHECK(bs_validate(full, len, (bs_kind) full[5], true, &hd, NULL) == BS_OK,
			   "%s: the sketch is valid", what))
		goto done;
	for (i = 0; i < KEYS + LOOKUPS; i++)
	{
		uint64_t	h = i < KEYS ? unit_next(&keys) : unit_next(&other),
					want = fn(full, h);
		size_t		n1,
					n2;

		if (!sparse_copy(full, len, &hd, h, 0x00, lo, &n1) ||
			!sparse_copy(full, len, &hd, h, 0xff, hi, &n2))
		{
			bad_range++;
			continue;
		}
		if (n1 != probes)
			bad_count++;
		if (fn(lo, h) != want || fn(hi, h) != want)
			wrong++;
		members += i < KEYS && want != 0;
	}
	CHECK(bad_range == 0, "%s: every range lies inside the payload (%d outside)", what, bad_range);
	CHECK(bad_count == 0, "%s: one range per probe, %u (%d lookups differ)", what, probes, bad_count);
	CHECK(wrong == 0, "%s: %d lookups answer from the listed bytes alone as from the whole sketch (%d differ)",
		  what, KEYS + LOOKUPS, wrong);
	CHECK(members == KEYS, "%s: every added key is found (%d of %d)", what, members, KEYS);
done:
	free(lo);
	free(hi);
}

static void
test_bloom(uint64_t m, uint32_t k, uint32_t layout)
{
	uint64_t	total;
	uint8_t    *buf;
	bs_bloom	b;
	unit_rng	keys = {m * 31 + k};
	char		what[80];
	int			i;

	if (bs_bloom_size(m, &total, NULL) != BS_OK)
		exit(2);
	buf = unit_calloc(total, 1);
	bs_bloom_init_layout(buf, m, k, layout, 1, 0);
	bs_bloom_view(buf, &b);
	for (i = 0; i < KEYS; i++)
		bs_bloom_add(&b, unit_next(&keys));
	snprintf(what, sizeof(what), "bloom %s m=%" PRIu64 " k=%u", bs_layout_name(layout), m, k);
	/* a blocked lookup reads one range, its key's block */
	check_lookups(what, buf, total, bloom_lookup, layout == BS_LAYOUT_BLOCKED ? 1 : k, m * 31 + k);
	free(buf);
}

static void
test_cbloom(uint64_t m, uint32_t k, uint32_t bits)
{
	uint64_t	total;
	uint8_t    *buf;
	bs_cbloom	c;
	unit_rng	keys = {m * 37 + k + bits};
	char		what[80];
	int			i;

	if (bs_cbloom_size(m, bits, &total, NULL) != BS_OK)
		exit(2);
	buf = unit_calloc(total, 1);
	bs_cbloom_init(buf, m, k, bits, 1, 0);
	bs_cbloom_view(buf, &c);
	for (i = 0; i < KEYS; i++)
		bs_cbloom_add_hash(&c, unit_next(&keys), 1 + (uint64_t) i % 3);
	snprintf(what, sizeof(what), "cbloom contains m=%" PRIu64 " k=%u bits=%u", m, k, bits);
	check_lookups(what, buf, total, cbloom_contains_lookup, k, m * 37 + k + bits);
	snprintf(what, sizeof(what), "cbloom count m=%" PRIu64 " k=%u bits=%u", m, k, bits);
	check_lookups(what, buf, total, cbloom_count_lookup, k, m * 37 + k + bits);
	free(buf);
}

static void
test_cms(uint64_t width, uint32_t depth)
{
	uint64_t	total;
	uint8_t    *buf;
	bs_cms		c;
	unit_rng	keys = {width * 41 + depth};
	char		what[80];
	int			i;

	if (bs_cms_size(width, depth, &total, NULL) != BS_OK)
		exit(2);
	buf = unit_calloc(total, 1);
	bs_cms_init(buf, width, depth, 1, 0);
	bs_cms_view(buf, &c);
	for (i = 0; i < KEYS; i++)
		if (bs_cms_add(&c, unit_next(&keys), 1 + (uint64_t) i % 5, NULL) != BS_OK)
			exit(2);
	snprintf(what, sizeof(what), "cms width=%" PRIu64 " depth=%u", width, depth);
	check_lookups(what, buf, total, cms_lookup, depth, width * 41 + depth);
	free(buf);
}

int
main(void)
{
	bs_header	hd;
	bs_byte_range r[BS_PROBE_RANGES_MAX];

	test_bloom(1, 1, BS_LAYOUT_CLASSIC);
	test_bloom(13, 3, BS_LAYOUT_CLASSIC);
	test_bloom(19171, 7, BS_LAYOUT_CLASSIC);
	test_bloom(65536, 64, BS_LAYOUT_CLASSIC);
	test_bloom(1000003, 5, BS_LAYOUT_CLASSIC);
	test_bloom(512, 7, BS_LAYOUT_BLOCKED);
	test_bloom(20480, 6, BS_LAYOUT_BLOCKED);
	test_bloom(1048576, 64, BS_LAYOUT_BLOCKED);
	test_cbloom(1, 1, 4);
	test_cbloom(19171, 7, 4);
	test_cbloom(19172, 7, 4);
	test_cbloom(19171, 7, 8);
	test_cbloom(4099, 64, 8);
	test_cms(1, 1);
	test_cms(2719, 5);
	test_cms(27183, 64);

	/* kinds without per-key lookups list nothing */
	memset(&hd, 0, sizeof(hd));
	hd.kind = BS_KIND_TOPK;
	hd.p1 = 100;
	hd.p2 = 5;
	CHECK(bs_probe_ranges(&hd, 42, r) == 0, "topk: no ranges");
	hd.kind = BS_KIND_BLOOM_AGG_STATE;
	CHECK(bs_probe_ranges(&hd, 42, r) == 0, "bloom_agg_state: no ranges");

	/*
	 * Whether the ranges suffice for a sliced read (src/sketch_arg.c): for a
	 * fixed filter of either layout, a cbloom and a cms, not for a growable
	 * filter, whose lookup reads every stage (and which lists no ranges).
	 */
	{
		bool		fixed_ok,
					others_ok,
					growable_ok;

		memset(&hd, 0, sizeof(hd));
		hd.kind = BS_KIND_BLOOM;
		hd.p1 = 1024;
		hd.p2 = 3;
		hd.p3 = BS_LAYOUT_CLASSIC;
		fixed_ok = bs_probe_ranges_suffice(&hd);
		hd.p3 = BS_LAYOUT_BLOCKED;
		fixed_ok &= bs_probe_ranges_suffice(&hd);
		hd.kind = BS_KIND_CBLOOM;
		hd.p3 = 4;
		others_ok = bs_probe_ranges_suffice(&hd);
		hd.kind = BS_KIND_CMS;
		hd.p3 = 0;
		others_ok &= bs_probe_ranges_suffice(&hd);
		hd.kind = BS_KIND_BLOOM;
		hd.p3 = BS_BLOOM_GROWABLE | BS_LAYOUT_CLASSIC;
		growable_ok = bs_probe_ranges_suffice(&hd);
		CHECK(bs_probe_ranges(&hd, 42, r) == 0 && !growable_ok,
			  "a growable filter lists no ranges and is read whole");
		hd.p3 = BS_BLOOM_GROWABLE | BS_LAYOUT_BLOCKED;
		CHECK(fixed_ok && others_ok && !bs_probe_ranges_suffice(&hd),
			  "ranges suffice for fixed filters of both layouts, cbloom and cms; not for growable filters of either layout");
	}
	return unit_done("probe_ranges");
}
