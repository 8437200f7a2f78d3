/*
 * format_test.c: the binary format of src/core/format.c: header layout,
 * bs_validate() on valid and broken values of every kind (bloom,
 * bloom_agg_state, cms), a mutation fuzz of the validator (whatever it
 * accepts must be safe to use), and the hex text form.
 *
 * For an AddressSanitizer run by hand:
 *   cc -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
 *      -Isrc -o /tmp/format_test_asan test/unit/format_test.c src/core/?*.c -lm
 * (every buffer handed to the core is allocated at its exact length, so an
 * out-of-bounds read shows up).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/bloom.h"
#include "core/bloom_agg_state.h"
#include "core/cms.h"
#include "core/endian.h"
#include "core/format.h"
#include "core/hash.h"
#include "unit.h"


static unit_arena the_arena;
static const bs_allocator alloc = {unit_arena_alloc, &the_arena, NULL};

/* ---- valid values to start from ---- */

typedef struct sample
{
	const char *what;
	bs_kind		kind;
	uint8_t    *buf;
	size_t		len;
} sample;

static sample samples[32];
static int	nsamples;
static int	dense_sample;		/* index of "state auto dense" */
static int	first_cms_sample;	/* the cms samples come last */

static void
keep(const char *what, bs_kind kind, const uint8_t *buf, size_t len)
{
	sample	   *s = &samples[nsamples++];

	s->what = what;
	s->kind = kind;
	s->len = len;
	s->buf = unit_calloc(1, len);
	memcpy(s->buf, buf, len);
}

static void
keep_bloom(const char *what, uint64_t m, uint32_t k, uint8_t family, uint64_t seed,
		   int nhashes, unit_rng *r)
{
	uint64_t	total;
	uint8_t    *buf;
	int			i;

	bs_bloom_size(m, &total, NULL);
	buf = unit_calloc(1, total);
	bs_bloom_init(buf, m, k, family, seed);
	for (i = 0; i < nhashes; i++)
		bs_bloom_add_hash(buf + BS_HEADER_SIZE, m, k, unit_next(r));
	keep(what, BS_KIND_BLOOM, buf, total);
	free(buf);
}

static void
keep_auto(const char *what, double fpr, uint8_t family, int nhashes, bool zero,
		  unit_rng *r)
{
	uint8_t    *s;
	int			i;

	if (bs_bloom_agg_state_new_auto(fpr, family, 0, &alloc, &s, NULL) != BS_OK)
		exit(2);
	if (zero)
		(void) bs_bloom_agg_state_add(&s, 0, &alloc, NULL);
	for (i = 0; i < nhashes; i++)
		(void) bs_bloom_agg_state_add(&s, unit_next(r), &alloc, NULL);
	keep(what, BS_KIND_BLOOM_AGG_STATE, s, bs_bloom_agg_state_size(s));
	unit_arena_reset(&the_arena);
}

static void
keep_fixed(const char *what, double cap, double fpr, uint8_t family, int nhashes,
		   unit_rng *r)
{
	uint8_t    *s;
	int			i;

	if (bs_bloom_agg_state_new_fixed(cap, fpr, family, 0, &alloc, &s, NULL) != BS_OK)
		exit(2);
	for (i = 0; i < nhashes; i++)
		(void) bs_bloom_agg_state_add(&s, unit_next(r), &alloc, NULL);
	keep(what, BS_KIND_BLOOM_AGG_STATE, s, bs_bloom_agg_state_size(s));
	unit_arena_reset(&the_arena);
}

/* A count-min sketch of nkeys random keys with counts 1..maxcount. */
static void
keep_cms(const char *what, uint64_t width, uint32_t depth, uint8_t family, uint64_t seed,
		 int nkeys, uint64_t maxcount, unit_rng *r)
{
	uint64_t	total;
	uint8_t    *buf;
	bs_cms		c;
	int			i;

	if (bs_cms_size(width, depth, &total, NULL) != BS_OK)
		exit(2);
	buf = unit_calloc(1, total);
	bs_cms_init(buf, width, depth, family, seed);
	bs_cms_view(buf, &c);
	for (i = 0; i < nkeys; i++)
		if (bs_cms_add(&c, unit_next(r), 1 + unit_below(r, maxcount), NULL) != BS_OK)
			exit(2);
	keep(what, BS_KIND_CMS, buf, total);
	free(buf);
}

static void
make_samples(void)
{
	unit_rng	r = {600};

	keep_bloom("bloom m=1 k=1", 1, 1, BS_FAMILY_NONE, 0, 0, &r);
	keep_bloom("bloom m=13 k=3", 13, 3, BS_FAMILY_INTEGER, 0, 2, &r);
	keep_bloom("bloom m=64 k=64", 64, 64, BS_FAMILY_TEXT, 0, 1, &r);
	keep_bloom("bloom m=100 k=7", 100, 7, BS_FAMILY_INTEGER, 0, 10, &r);
	keep_bloom("bloom m=1000 k=5", 1000, 5, BS_FAMILY_UUID, 0, 100, &r);
	keep_bloom("bloom m=4099 k=2 seed=7", 4099, 2, BS_FAMILY_TIMESTAMPTZ, 7, 300, &r);
	keep_auto("state auto empty", 0.01, BS_FAMILY_NONE, 0, false, &r);
	keep_auto("state auto 5 + zero", 0.001, BS_FAMILY_INTEGER, 5, true, &r);
	keep_auto("state auto 100", 0.05, BS_FAMILY_TEXT, 100, false, &r);
	keep_fixed("state fixed 100/0.01", 100, 0.01, BS_FAMILY_INTEGER, 50, &r);
	keep_fixed("state fixed 3/0.3", 3, 0.3, BS_FAMILY_NONE, 0, &r);
	/* a dense auto state: more than BS_AGG_STATE_EXACT_LIMIT distinct hashes, at a rate whose M is one fold unit */
	dense_sample = nsamples;
	keep_auto("state auto dense", 1 - 1e-10, BS_FAMILY_BYTEA, (int) BS_AGG_STATE_EXACT_LIMIT + 5, false, &r);

	first_cms_sample = nsamples;
	keep_cms("cms 1 x 1 empty", 1, 1, BS_FAMILY_NONE, 0, 0, 1, &r);
	keep_cms("cms 4 x 2", 4, 2, BS_FAMILY_INTEGER, 0, 3, 5, &r);
	keep_cms("cms 10 x 3 seed 7", 10, 3, BS_FAMILY_TEXT, 7, 100, 1000, &r);
	keep_cms("cms 1 x 64", 1, 64, BS_FAMILY_UUID, 0, 5, 3, &r);
	keep_cms("cms 272 x 7", 272, 7, BS_FAMILY_TIMESTAMPTZ, 0, 2000, 50, &r);
	keep_cms("cms 5 x 2 total 2^63 - 1", 5, 2, BS_FAMILY_BYTEA, 0, 4, 100, &r);
	{
		/* top the last one up to the largest total */
		sample	   *s = &samples[nsamples - 1];
		bs_cms		c;

		bs_cms_view(s->buf, &c);
		if (bs_cms_add(&c, unit_next(&r), (uint64_t) INT64_MAX - c.total, NULL) != BS_OK)
			exit(2);
	}
}

/* Overwrite a little-endian field of a private copy. */
static uint8_t *
copy_with(const sample *s, size_t off, uint64_t v, int width)
{
	uint8_t    *c = unit_calloc(1, s->len);
	int			i;

	memcpy(c, s->buf, s->len);
	for (i = 0; i < width; i++)
		c[off + i] = (uint8_t) (v >> (8 * i));
	return c;
}

static bs_status
validate_with(const sample *s, size_t off, uint64_t v, int width, bool deep,
			  bs_error *err)
{
	uint8_t    *c = copy_with(s, off, v, width);
	bs_status	st = bs_validate(c, s->len, s->kind, deep, NULL, err);

	free(c);
	return st;
}

static uint64_t
dbits(double d)
{
	uint64_t	u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

static void
test_header(void)
{
	unit_rng	r = {700};
	int			i,
				bad = 0;
	uint8_t		buf[BS_HEADER_SIZE];
	bs_header	h,
				g;
	static const uint8_t want[BS_HEADER_SIZE] = {
		'B', 'S', 'K', 'T', 1, 1, 1, 2,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,	/* seed */
		0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,	/* p1 */
		0x24, 0x23, 0x22, 0x21,		/* p2 */
		0x34, 0x33, 0x32, 0x31,		/* p3 */
		0x48, 0x47, 0x46, 0x45, 0x44, 0x43, 0x42, 0x41,	/* n */
		0x58, 0x57, 0x56, 0x55, 0x54, 0x53, 0x52, 0x51,	/* x */
	};

	for (i = 0; i < 10000; i++)
	{
		memset(&h, 0, sizeof(h));
		h.version = (uint8_t) unit_next(&r);
		h.kind = (uint8_t) unit_next(&r);
		h.hash_alg = (uint8_t) unit_next(&r);
		h.family = (uint8_t) unit_next(&r);
		h.seed = unit_next(&r);
		h.p1 = unit_next(&r);
		h.p2 = (uint32_t) unit_next(&r);
		h.p3 = (uint32_t) unit_next(&r);
		h.n = unit_next(&r);
		h.x = unit_next(&r);
		bs_header_write(buf, &h);
		memset(&g, 0xee, sizeof(g));
		bs_header_read(buf, &g);
		if (g.version != h.version || g.kind != h.kind || g.hash_alg != h.hash_alg ||
			g.family != h.family || g.seed != h.seed || g.p1 != h.p1 || g.p2 != h.p2 ||
			g.p3 != h.p3 || g.n != h.n || g.x != h.x || memcmp(buf, "BSKT", 4) != 0)
			bad++;
	}
	CHECK(bad == 0, "header write/read round trip of 10,000 random headers (%d differ)", bad);

	bs_header_init(&h, BS_KIND_BLOOM, BS_FAMILY_TEXT, UINT64_C(0x0102030405060708));
	CHECK(h.version == BS_FORMAT_VERSION && h.kind == BS_KIND_BLOOM && h.hash_alg == BS_HASH_XXH3_64 &&
		  h.family == BS_FAMILY_TEXT && h.p1 == 0 && h.p2 == 0 && h.p3 == 0 && h.n == 0 && h.x == 0,
		  "bs_header_init sets version 1, kind, XXH3-64, family, seed and zeroes the rest");
	h.p1 = UINT64_C(0x1112131415161718);
	h.p2 = 0x21222324;
	h.p3 = 0x31323334;
	h.n = UINT64_C(0x4142434445464748);
	h.x = UINT64_C(0x5152535455565758);
	bs_header_write(buf, &h);
	CHECK(memcmp(buf, want, BS_HEADER_SIZE) == 0,
		  "header layout: magic BSKT, version, kind, hash, family, then seed/p1/p2/p3/n/x little-endian at 8/16/24/28/32/40");

	CHECK(strcmp(bs_kind_name(BS_KIND_BLOOM), "bloom") == 0 &&
		  strcmp(bs_kind_name(BS_KIND_BLOOM_AGG_STATE), "bloom_agg_state") == 0 &&
		  strcmp(bs_kind_name(BS_KIND_CMS), "cms") == 0 &&
		  strcmp(bs_kind_name(77), "unknown") == 0,
		  "bs_kind_name: bloom, bloom_agg_state, cms, unknown");
	CHECK(bs_family_compatible(BS_FAMILY_TEXT, BS_FAMILY_TEXT) && bs_family_compatible(BS_FAMILY_NONE, BS_FAMILY_TEXT) &&
		  bs_family_compatible(BS_FAMILY_UUID, BS_FAMILY_NONE) && !bs_family_compatible(BS_FAMILY_TEXT, BS_FAMILY_BYTEA) &&
		  bs_family_join(BS_FAMILY_NONE, BS_FAMILY_UUID) == BS_FAMILY_UUID &&
		  bs_family_join(BS_FAMILY_UUID, BS_FAMILY_NONE) == BS_FAMILY_UUID &&
		  bs_family_join(BS_FAMILY_NONE, BS_FAMILY_NONE) == BS_FAMILY_NONE,
		  "family compatibility: equal or NONE; join takes the non-NONE family");
	{
		uint64_t	total = 0;
		bs_error	err;

		CHECK(bs_total_size(100, "x", &total, &err) == BS_OK && total == 148,
			  "bs_total_size(100) = 148");
		CHECK(bs_total_size(BS_MAX_SKETCH_BYTES - BS_HEADER_SIZE, "x", &total, &err) == BS_OK &&
			  total == BS_MAX_SKETCH_BYTES,
			  "bs_total_size at the limit is the 1 GB limit exactly");
		CHECK(bs_total_size(BS_MAX_SKETCH_BYTES - BS_HEADER_SIZE + 1, "thing", &total, &err) == BS_ERR_LIMIT &&
			  strstr(err.msg, "thing") != NULL && err.hint[0] != '\0',
			  "bs_total_size one byte past the limit is BS_ERR_LIMIT naming the value, with a hint (%s)", err.msg);
		CHECK(bs_total_size(UINT64_MAX, "x", &total, &err) == BS_ERR_LIMIT,
			  "bs_total_size(UINT64_MAX) is BS_ERR_LIMIT, no wrap-around");
	}
}

static void
test_validate_valid(void)
{
	int			i,
				bad = 0;
	char		list[1024] = "";

	for (i = 0; i < nsamples; i++)
	{
		bs_header	h;
		bs_error	err;
		const sample *s = &samples[i];

		if (bs_validate(s->buf, s->len, s->kind, true, &h, &err) != BS_OK ||
			bs_validate(s->buf, s->len, s->kind, false, NULL, &err) != BS_OK ||
			h.kind != s->kind)
		{
			bad++;
			snprintf(list + strlen(list), sizeof(list) - strlen(list), " [%s: %s]", s->what, err.msg);
		}
	}
	CHECK(bad == 0, "bs_validate (deep and quick) accepts all %d sample values of the three kinds%s", nsamples, list);
	{
		bool		dense = false;

		for (i = 0; i < nsamples; i++)
			if (samples[i].kind == BS_KIND_BLOOM_AGG_STATE &&
				(bs_load32(samples[i].buf + BS_OFF_P3) & (BS_AGG_STATE_DENSE | BS_AGG_STATE_FIXED)) == BS_AGG_STATE_DENSE)
				dense = true;
		CHECK(dense, "the samples include a dense auto-sized state (made by adding %" PRIu64 " hashes)",
			  BS_AGG_STATE_EXACT_LIMIT + 5);
	}
}

static void
test_validate_rejects(void)
{
	const sample *b13 = &samples[1];	/* bloom m=13 k=3: 50 bytes */
	const sample *st = &samples[7];		/* state auto 5 + zero: exact, 16 slots */
	const sample *fx = &samples[9];		/* state fixed 100/0.01 */
	const sample *dn = &samples[dense_sample];	/* state auto dense */
	bs_error	err;
	size_t		len;
	int			bad,
				i;

	/* every truncation */
	for (i = 0; i < nsamples; i++)
	{
		const sample *s = &samples[i];

		if (s->len > 20000)
			continue;
		bad = 0;
		for (len = 0; len < s->len; len++)
		{
			uint8_t    *c = unit_calloc(1, len);

			memcpy(c, s->buf, len);
			if (bs_validate(c, len, s->kind, true, NULL, &err) != BS_ERR_FORMAT ||
				bs_validate(c, len, s->kind, false, NULL, &err) != BS_ERR_FORMAT)
				bad++;
			free(c);
		}
		CHECK(bad == 0, "%s: every truncation to 0..%zu bytes is BS_ERR_FORMAT (%d accepted)", s->what, s->len - 1, bad);
	}
	{
		/* the big dense state: a sample of truncation lengths */
		bad = 0;
		for (len = 0; len < dn->len; len += (len < 100 ? 1 : 997))
			if (bs_validate(dn->buf, len, dn->kind, true, NULL, &err) != BS_ERR_FORMAT)
				bad++;
		if (bs_validate(dn->buf, dn->len - 1, dn->kind, true, NULL, &err) != BS_ERR_FORMAT)
			bad++;
		CHECK(bad == 0, "%s (%zu bytes): truncations to 0..100 and every 997th length are BS_ERR_FORMAT (%d accepted)",
			  dn->what, dn->len, bad);
	}

	/* extension by one byte */
	bad = 0;
	for (i = 0; i < nsamples; i++)
	{
		uint8_t    *c = unit_calloc(1, samples[i].len + 1);

		memcpy(c, samples[i].buf, samples[i].len);
		if (bs_validate(c, samples[i].len + 1, samples[i].kind, true, NULL, &err) != BS_ERR_FORMAT)
			bad++;
		free(c);
	}
	CHECK(bad == 0, "payload length mismatch: every sample with one extra (zero) byte is BS_ERR_FORMAT (%d accepted)", bad);

	/* header fields, on the small bloom */
	bad = 0;
	for (i = 0; i < 4; i++)
		bad += validate_with(b13, (size_t) i, b13->buf[i] ^ 0x20, 1, true, &err) != BS_ERR_FORMAT;
	CHECK(bad == 0 && strstr(err.msg, "magic"), "bad magic (each of the 4 bytes) is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(b13, 4, 0, 1, true, &err) == BS_ERR_FORMAT &&
		  validate_with(b13, 4, 255, 1, true, &err) == BS_ERR_FORMAT &&
		  validate_with(b13, 4, 2, 1, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "version 2"),
		  "bad version 0, 2, 255 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(bs_validate(b13->buf, b13->len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "bloom") && strstr(err.msg, "bloom_agg_state"),
		  "a bloom value read as a bloom_agg_state is BS_ERR_FORMAT naming both kinds (%s)", err.msg);
	CHECK(bs_validate(st->buf, st->len, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT,
		  "a bloom_agg_state read as a bloom is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(b13, 5, 0, 1, true, &err) == BS_ERR_FORMAT && validate_with(b13, 5, 3, 1, true, &err) == BS_ERR_FORMAT,
		  "kind byte 0 or 3 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(bs_validate(b13->buf, b13->len, (bs_kind) 9, true, NULL, &err) == BS_ERR_FORMAT,
		  "asking for an unknown kind is BS_ERR_FORMAT");
	CHECK(validate_with(b13, 6, 0, 1, true, &err) == BS_ERR_FORMAT && validate_with(b13, 6, 2, 1, true, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "hash algorithm 2"),
		  "unknown hash algorithm 0 or 2 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(b13, 7, BS_FAMILY_MAX + 1, 1, true, &err) == BS_ERR_FORMAT &&
		  validate_with(b13, 7, 255, 1, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "family 255"),
		  "unknown key family %d or 255 is BS_ERR_FORMAT (%s)", BS_FAMILY_MAX + 1, err.msg);
	bad = 0;
	for (i = 0; i <= BS_FAMILY_MAX; i++)
		bad += validate_with(b13, 7, (uint64_t) i, 1, true, &err) != BS_OK;
	CHECK(bad == 0, "every known family 0..%d is accepted", BS_FAMILY_MAX);
	CHECK(validate_with(b13, 8, UINT64_C(0xfedcba9876543210), 8, true, &err) == BS_OK,
		  "any seed is accepted");

	/* m, k */
	CHECK(validate_with(b13, BS_OFF_P1, 0, 8, true, &err) == BS_ERR_FORMAT, "m = 0 is BS_ERR_FORMAT (%s)", err.msg);
	{
		uint8_t		hdr[BS_HEADER_SIZE];

		memcpy(hdr, b13->buf, BS_HEADER_SIZE);
		bs_store64(hdr + BS_OFF_P1, 0);
		CHECK(bs_validate(hdr, BS_HEADER_SIZE, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT,
			  "m = 0 with an empty payload (48 bytes) is BS_ERR_FORMAT (%s)", err.msg);
	}
	CHECK(validate_with(b13, BS_OFF_P1, BS_BLOOM_MAX_BITS + 1, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(b13, BS_OFF_P1, UINT64_MAX, 8, true, &err) == BS_ERR_FORMAT,
		  "m past BS_BLOOM_MAX_BITS and m = 2^64-1 are BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(b13, BS_OFF_P1, 17, 8, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "payload bytes"),
		  "m = 17 with 2 payload bytes (needs 3) is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(b13, BS_OFF_P1, 16, 8, true, &err) == BS_OK,
		  "m = 16 with 2 payload bytes is accepted");
	CHECK(validate_with(b13, BS_OFF_P2, 0, 4, true, &err) == BS_ERR_FORMAT, "k = 0 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(b13, BS_OFF_P2, 65, 4, true, &err) == BS_ERR_FORMAT, "k = 65 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(b13, BS_OFF_P2, 64, 4, true, &err) == BS_OK && validate_with(b13, BS_OFF_P2, 1, 4, true, &err) == BS_OK,
		  "k = 1 and k = 64 are accepted");
	CHECK(validate_with(b13, BS_OFF_P2, UINT64_C(0x100000003), 8, true, &err) == BS_ERR_FORMAT,
		  "k = 3 with a nonzero p3 next to it is BS_ERR_FORMAT");

	/* padding bits past m = 13: bits 13, 14, 15 = bits 5..7 of byte 1 */
	bad = 0;
	for (i = 5; i < 8; i++)
		bad += validate_with(b13, BS_HEADER_SIZE + 1, b13->buf[BS_HEADER_SIZE + 1] | (1u << i), 1, true, &err) != BS_ERR_FORMAT;
	CHECK(bad == 0, "a set padding bit past m (bits 13, 14, 15 of a 13-bit filter) is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(b13, BS_HEADER_SIZE + 1, 0x1f, 1, true, &err) == BS_OK,
		  "bits 8..12 of a 13-bit filter may be set");

	/* reserved fields of a bloom */
	CHECK(validate_with(b13, BS_OFF_P3, 1, 4, true, &err) == BS_ERR_FORMAT &&
		  validate_with(b13, BS_OFF_N, 1, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(b13, BS_OFF_X, UINT64_C(1) << 63, 8, true, &err) == BS_ERR_FORMAT,
		  "nonzero reserved fields p3, n, x of a bloom are BS_ERR_FORMAT (%s)", err.msg);

	/* bloom_agg_state specifics */
	CHECK(validate_with(st, BS_OFF_X, dbits(0), 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(st, BS_OFF_X, dbits(1), 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(st, BS_OFF_X, dbits(NAN), 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(st, BS_OFF_X, dbits(-0.5), 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(st, BS_OFF_X, dbits(ldexp(1, -65)), 8, true, &err) == BS_ERR_FORMAT,
		  "state with fpr 0, 1, NaN, -0.5 or 2^-65 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(st, BS_OFF_X, dbits(0.2), 8, true, &err) == BS_OK,
		  "an exact state's fpr may be any valid rate (0.2)");
	CHECK(validate_with(st, BS_OFF_P3, 0x8 | BS_AGG_STATE_HASZERO, 4, true, &err) == BS_ERR_FORMAT,
		  "state with an unknown flag 0x8 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(st, BS_OFF_P3, BS_AGG_STATE_FIXED | BS_AGG_STATE_HASZERO, 4, true, &err) == BS_ERR_FORMAT,
		  "a fixed state that is not dense is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(st, BS_OFF_P1, 8, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(st, BS_OFF_P1, 24, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(st, BS_OFF_P1, BS_AGG_STATE_MAX_SLOTS * 2, 8, true, &err) == BS_ERR_FORMAT,
		  "state table of 8, 24 or 2^22 slots is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(st, BS_OFF_P1, 32, 8, true, &err) == BS_ERR_FORMAT,
		  "state table of 32 slots in 16 slots' bytes is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(st, BS_OFF_P2, 1, 4, true, &err) == BS_ERR_FORMAT,
		  "exact state with nonzero p2 is BS_ERR_FORMAT (%s)", err.msg);
	{
		uint64_t	n = bs_load64(st->buf + BS_OFF_N);

		CHECK(validate_with(st, BS_OFF_N, n + 1, 8, true, &err) == BS_ERR_FORMAT &&
			  validate_with(st, BS_OFF_N, n - 1, 8, true, &err) == BS_ERR_FORMAT &&
			  validate_with(st, BS_OFF_N, n + 1, 8, false, &err) == BS_OK,
			  "exact state whose count (%" PRIu64 " +- 1) does not match its table: deep check BS_ERR_FORMAT, quick check accepts (%s)",
			  n, err.msg);
		CHECK(validate_with(st, BS_OFF_P3, 0, 4, true, &err) == BS_ERR_FORMAT,
			  "exact state that holds 0 but lost its HASZERO flag is BS_ERR_FORMAT");
	}
	{
		/* 13 of 16 slots used: past the 3/4 load the state keeps */
		uint8_t    *c = unit_calloc(1, BS_HEADER_SIZE + 16 * 8);

		memcpy(c, samples[6].buf, BS_HEADER_SIZE + 16 * 8);	/* the empty auto state */
		for (i = 0; i < 13; i++)
			bs_store64(c + BS_HEADER_SIZE + 8 * i, (uint64_t) i + 1);
		bs_store64(c + BS_OFF_N, 13);
		CHECK(bs_validate(c, BS_HEADER_SIZE + 16 * 8, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT,
			  "exact state with 13 of 16 slots used (over 3/4) is BS_ERR_FORMAT (%s)", err.msg);
		bs_store64(c + BS_HEADER_SIZE + 8 * 12, 0);
		bs_store64(c + BS_OFF_N, 12);
		CHECK(bs_validate(c, BS_HEADER_SIZE + 16 * 8, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK,
			  "exact state with 12 of 16 slots used is accepted");
		free(c);
	}
	CHECK(validate_with(fx, BS_OFF_N, 0, 8, true, &err) == BS_ERR_FORMAT,
		  "fixed state with capacity 0 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(fx, BS_OFF_P3, BS_AGG_STATE_DENSE | BS_AGG_STATE_FIXED | BS_AGG_STATE_HASZERO, 4, true, &err) == BS_ERR_FORMAT,
		  "dense state with HASZERO is BS_ERR_FORMAT");
	CHECK(validate_with(fx, BS_OFF_P2, 0, 4, true, &err) == BS_ERR_FORMAT &&
		  validate_with(fx, BS_OFF_P2, 65, 4, true, &err) == BS_ERR_FORMAT,
		  "fixed state with k = 0 or 65 is BS_ERR_FORMAT");
	CHECK(validate_with(dn, BS_OFF_N, 1, 8, true, &err) == BS_ERR_FORMAT,
		  "dense auto state with a nonzero count is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(dn, BS_OFF_X, dbits(0.5), 8, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "does not match"),
		  "dense auto state whose bits and hashes do not match its fpr is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(dn, BS_OFF_P2, 2, 4, true, &err) == BS_ERR_FORMAT,
		  "dense auto state with k other than round(log2(1/fpr)) is BS_ERR_FORMAT (%s)", err.msg);
	{
		/* padding bits of a dense state whose M is not a multiple of 8 cannot occur: M is a multiple of 2^10 */
		uint64_t	M = bs_load64(dn->buf + BS_OFF_P1);

		CHECK(M % BS_FOLD_BASE == 0 && dn->len == BS_HEADER_SIZE + M / 8,
			  "dense auto state: M = %" PRIu64 " is a multiple of 2^10 3^6 and the payload is M/8 bytes", M);
	}
}

/*
 * cms values: every field of the header, the payload length, rows that do
 * not sum to the total (src/core/cms.c, bs_cms_check).
 */
static void
test_validate_rejects_cms(void)
{
	const sample *cm = &samples[first_cms_sample + 2];	/* cms 10 x 3 seed 7: 288 bytes */
	const sample *big = &samples[nsamples - 1];	/* cms 5 x 2 total 2^63 - 1 */
	uint64_t	n = bs_load64(cm->buf + BS_OFF_N);
	bs_error	err;
	int			i,
				bit,
				bad = 0,
				wrong = 0;
	char		list[256] = "";

	CHECK(cm->len == 288 && bs_load64(cm->buf + BS_OFF_P1) == 10 && bs_load32(cm->buf + BS_OFF_P2) == 3 &&
		  bs_load64(big->buf + BS_OFF_N) == (uint64_t) INT64_MAX,
		  "cms samples: 10 x 3 (288 bytes, total %" PRIu64 ") and one with total 2^63 - 1", n);

	/* every bit of the header: only the seed and a family of 0..9 may change */
	for (i = 0; i < BS_HEADER_SIZE; i++)
		for (bit = 0; bit < 8; bit++)
		{
			uint8_t		v = (uint8_t) (cm->buf[i] ^ (1u << bit));
			bool		want_ok = (i >= 8 && i < 16) || (i == BS_OFF_FAMILY && v <= BS_FAMILY_MAX);
			bs_status	st = validate_with(cm, (size_t) i, v, 1, true, &err);

			if ((st == BS_OK) != want_ok || (st != BS_OK && st != BS_ERR_FORMAT))
			{
				wrong++;
				if (strlen(list) < 200)
					snprintf(list + strlen(list), sizeof(list) - strlen(list), " [byte %d bit %d]", i, bit);
			}
		}
	CHECK(wrong == 0,
		  "cms: each of the 384 single-bit flips of the 48-byte header is BS_ERR_FORMAT, except in the seed (bytes 8-15) and family values 0-9 (%d wrong)%s",
		  wrong, list);

	for (i = 0; i < 4; i++)
		bad += validate_with(cm, (size_t) i, cm->buf[i] ^ 0x20, 1, true, &err) != BS_ERR_FORMAT;
	CHECK(bad == 0 && strstr(err.msg, "magic"), "cms: bad magic (each byte) is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(cm, 4, 0, 1, true, &err) == BS_ERR_FORMAT && validate_with(cm, 4, 255, 1, true, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, 4, 2, 1, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "cms value has format version 2"),
		  "cms: format version 0, 255, 2 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(cm, 5, 0, 1, true, &err) == BS_ERR_FORMAT && validate_with(cm, 5, 4, 1, true, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, 5, 9, 1, true, &err) == BS_ERR_FORMAT && validate_with(cm, 5, 255, 1, true, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, 5, BS_KIND_BLOOM_AGG_STATE, 1, true, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, 5, BS_KIND_BLOOM, 1, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "bloom sketch, not a cms"),
		  "cms: kind byte 0, 4, 9, 255, 2 or 1 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(bs_validate(cm->buf, cm->len, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT && strstr(err.msg, "cms sketch, not a bloom") &&
		  bs_validate(cm->buf, cm->len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_ERR_FORMAT &&
		  bs_validate(samples[1].buf, samples[1].len, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT &&
		  bs_validate(samples[7].buf, samples[7].len, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT,
		  "a cms read as a bloom or a bloom_agg_state, and a bloom or a state read as a cms, are BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(cm, 6, 0, 1, true, &err) == BS_ERR_FORMAT && validate_with(cm, 6, 2, 1, true, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "hash algorithm 2"),
		  "cms: hash algorithm 0 or 2 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(cm, 7, 10, 1, true, &err) == BS_ERR_FORMAT && validate_with(cm, 7, 255, 1, true, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "key family 255"),
		  "cms: key family 10 or 255 is BS_ERR_FORMAT (%s)", err.msg);
	bad = 0;
	for (i = 0; i <= BS_FAMILY_MAX; i++)
		bad += validate_with(cm, 7, (uint64_t) i, 1, true, &err) != BS_OK;
	CHECK(bad == 0, "cms: key families 0 to 9 are accepted");
	CHECK(validate_with(cm, 8, 0, 8, true, &err) == BS_OK && validate_with(cm, 8, UINT64_MAX, 8, true, &err) == BS_OK,
		  "cms: any seed is accepted (0, 2^64 - 1)");

	/* p1 = width, p2 = depth */
	CHECK(validate_with(cm, BS_OFF_P1, 0, 8, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "width 0"),
		  "cms: width 0 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(cm, BS_OFF_P1, 9, 8, true, &err) == BS_ERR_FORMAT && validate_with(cm, BS_OFF_P1, 11, 8, false, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "264 payload bytes, has 240"),
		  "cms: width 9 or 11 for 10 x 3 counters is BS_ERR_FORMAT, quick check too (%s)", err.msg);
	CHECK(validate_with(cm, BS_OFF_P1, UINT64_MAX, 8, false, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, BS_OFF_P1, (UINT64_C(1) << 61) + 10, 8, false, &err) == BS_ERR_FORMAT,
		  "cms: width 2^64 - 1, or 2^61 + 10 (whose 24 bytes a column wrap around to exactly 240), is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(cm, BS_OFF_P2, 0, 4, true, &err) == BS_ERR_FORMAT && validate_with(cm, BS_OFF_P2, 65, 4, false, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, BS_OFF_P2, UINT32_MAX, 4, false, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, BS_OFF_P2, 2, 4, false, &err) == BS_ERR_FORMAT && validate_with(cm, BS_OFF_P2, 4, 4, false, &err) == BS_ERR_FORMAT,
		  "cms: depth 0, 65, 2^32 - 1, 2 or 4 (for 3 rows of bytes) is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_with(cm, BS_OFF_P3, 1, 4, true, &err) == BS_ERR_FORMAT && validate_with(cm, BS_OFF_P3, 0x80000000u, 4, false, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, BS_OFF_X, 1, 8, true, &err) == BS_ERR_FORMAT && validate_with(cm, BS_OFF_X, dbits(0.01), 8, false, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "reserved"),
		  "cms: nonzero reserved fields p3 and x are BS_ERR_FORMAT, quick check too (%s)", err.msg);

	/* n = total */
	CHECK(validate_with(cm, BS_OFF_N, n + 1, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, BS_OFF_N, n - 1, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, BS_OFF_N, 0, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, BS_OFF_N, n + 1, 8, false, &err) == BS_OK,
		  "cms: total N + 1, N - 1, 0 for rows summing to N is BS_ERR_FORMAT when deep; the quick check accepts it (%s)", err.msg);
	CHECK(validate_with(cm, BS_OFF_N, (uint64_t) INT64_MAX + 1, 8, false, &err) == BS_ERR_FORMAT &&
		  validate_with(cm, BS_OFF_N, UINT64_MAX, 8, false, &err) == BS_ERR_FORMAT && strstr(err.msg, "total past"),
		  "cms: total 2^63 or 2^64 - 1 is BS_ERR_FORMAT even for the quick check (%s)", err.msg);

	/* payload: every counter one higher, and one lower where it is nonzero */
	bad = 0;
	for (i = 0; i < 30; i++)
	{
		size_t		off = BS_HEADER_SIZE + 8 * (size_t) i;
		uint64_t	v = bs_load64(cm->buf + off);

		bad += validate_with(cm, off, v + 1, 8, true, &err) != BS_ERR_FORMAT;
		if (v > 0)
			bad += validate_with(cm, off, v - 1, 8, true, &err) != BS_ERR_FORMAT;
		bad += validate_with(cm, off, v + (UINT64_C(1) << 63), 8, true, &err) != BS_ERR_FORMAT;
	}
	CHECK(bad == 0, "cms: each of the 30 counters one higher, one lower or 2^63 higher makes its row miss the total: BS_ERR_FORMAT (%d accepted)",
		  bad);
	{
		/* move one unit between two counters of the same row: still consistent, still valid */
		uint8_t    *c = unit_calloc(1, cm->len);
		int			k;

		memcpy(c, cm->buf, cm->len);
		for (k = 0; k < 10 && bs_load64(c + BS_HEADER_SIZE + 8 * (size_t) k) == 0; k++)
			;
		bs_store64(c + BS_HEADER_SIZE + 8 * (size_t) k, bs_load64(c + BS_HEADER_SIZE + 8 * (size_t) k) - 1);
		bs_store64(c + BS_HEADER_SIZE + 8 * (size_t) ((k + 1) % 10),
				   bs_load64(c + BS_HEADER_SIZE + 8 * (size_t) ((k + 1) % 10)) + 1);
		CHECK(bs_validate(c, cm->len, BS_KIND_CMS, true, NULL, &err) == BS_OK,
			  "cms: a unit moved between two counters of one row keeps the row sums: accepted (the check is of consistency)");
		free(c);
	}
	{
		/* a row that sums to the total only modulo 2^64 */
		uint8_t    *c = unit_calloc(1, cm->len);

		memcpy(c, cm->buf, cm->len);
		bs_store64(c + BS_HEADER_SIZE, bs_load64(c + BS_HEADER_SIZE) + UINT64_C(0x8000000000000000));
		bs_store64(c + BS_HEADER_SIZE + 8, bs_load64(c + BS_HEADER_SIZE + 8) + UINT64_C(0x8000000000000000));
		CHECK(bs_validate(c, cm->len, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT, "cms: two counters of row 0 raised by 2^63 each (the row sum wraps around to the total) is BS_ERR_FORMAT (%s)",
			  err.msg);
		free(c);
	}

	/* length */
	{
		uint8_t    *c = unit_calloc(1, cm->len + 8);

		memcpy(c, cm->buf, cm->len);
		CHECK(bs_validate(c, cm->len + 8, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT &&
			  bs_validate(c, cm->len - 8, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT &&
			  bs_validate(c, BS_HEADER_SIZE, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT &&
			  strstr(err.msg, "must have 240 payload bytes, has 0"),
			  "cms: one counter more or less, or the header alone, is BS_ERR_FORMAT (%s)", err.msg);
		free(c);
	}
}

/* ---- mutation fuzz ---- */

typedef struct fuzz_stats
{
	long		accepted[8],
				rejected[8],
				bad_status,
				bad_size,
				bad_result,
				bad_fn,
				bad_revalidate,
				bad_message,
				bad_cms;
} fuzz_stats;

static void
exercise_bloom(uint8_t *buf, size_t len, unit_rng *r, fuzz_stats *fs)
{
	bs_bloom	b;
	int			i;
	uint64_t	pc;

	bs_bloom_view(buf, &b);
	if (len != BS_HEADER_SIZE + bs_bloom_payload_bytes(b.m))
		fs->bad_size++;
	pc = bs_popcount(b.bits, bs_bloom_payload_bytes(b.m));
	if (pc > b.m)
		fs->bad_size++;
	for (i = 0; i < 4; i++)
	{
		uint64_t	h = unit_next(r);

		(void) bs_bloom_contains(&b, h);
		bs_bloom_add(&b, h);
		if (!bs_bloom_contains(&b, h))
			fs->bad_fn++;
	}
	(void) bs_bloom_cardinality_of(&b);
	(void) bs_bloom_fpr_of(&b);
	if (bs_validate(buf, len, BS_KIND_BLOOM, true, NULL, NULL) != BS_OK)
		fs->bad_revalidate++;
}

static void
finish_and_check(const uint8_t *s, const uint64_t *added, int nadded, fuzz_stats *fs)
{
	uint64_t	m,
				total;
	uint32_t	k;
	uint8_t    *out;
	int			i;
	bs_bloom	b;

	bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
	if (bs_bloom_size(m, &total, NULL) != BS_OK ||
		bs_bloom_check_layout_shape(m, k, bs_bloom_agg_state_layout(s), NULL) != BS_OK)
	{
		fs->bad_result++;
		return;
	}
	out = unit_calloc(1, (size_t) total);
	bs_bloom_agg_state_finish(s, m, k, out);
	if (bs_validate(out, (size_t) total, BS_KIND_BLOOM, true, NULL, NULL) != BS_OK)
		fs->bad_result++;
	bs_bloom_view(out, &b);
	for (i = 0; i < nadded; i++)
		if (!bs_bloom_contains(&b, added[i]))
			fs->bad_fn++;
	free(out);
}

static void
exercise_state(uint8_t *buf, size_t len, unit_rng *r, fuzz_stats *fs)
{
	uint64_t	added[4];
	int			i;
	uint8_t    *s = buf;

	if (bs_bloom_agg_state_size(buf) != len)
		fs->bad_size++;
	finish_and_check(buf, NULL, 0, fs);
	for (i = 0; i < 4; i++)
	{
		added[i] = (i == 3) ? 0 : unit_next(r);
		(void) bs_bloom_agg_state_add(&s, added[i], &alloc, NULL);
	}
	if (bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, NULL) != BS_OK)
		fs->bad_revalidate++;
	finish_and_check(s, added, 4, fs);
	unit_arena_reset(&the_arena);
}

/*
 * An accepted cms must be usable: its length is what the header says, every
 * row sums to the total, an add raises the key's estimate by exactly its
 * count (or is refused with BS_ERR_LIMIT and changes nothing), and merges
 * and inner products work on it without overflow.
 */
static void
exercise_cms(uint8_t *buf, size_t len, unit_rng *r, fuzz_stats *fs)
{
	bs_cms		c,
				d;
	uint8_t    *copy;
	uint64_t	row,
				col,
				h = unit_next(r),
				count = 1 + unit_below(r, 1000),
				before;
	bs_u128		ip;
	bs_status	st;
	bool		fits;

	bs_cms_view(buf, &c);
	if (len != BS_HEADER_SIZE + c.width * c.depth * 8)
	{
		fs->bad_size++;
		return;
	}
	for (row = 0; row < c.depth; row++)
	{
		uint64_t	sum = 0;

		for (col = 0; col < c.width; col++)
			sum += bs_load64(c.counters + (row * c.width + col) * 8);
		if (sum != c.total)
			fs->bad_cms++;
	}
	before = bs_cms_frequency(&c, h);
	if (before > c.total)
		fs->bad_cms++;
	copy = unit_calloc(1, len);
	memcpy(copy, buf, len);
	fits = c.total <= (uint64_t) INT64_MAX - count;
	st = bs_cms_add(&c, h, count, NULL);
	if (fits)
	{
		if (st != BS_OK || bs_cms_frequency(&c, h) != before + count)
			fs->bad_cms++;
	}
	else if (st != BS_ERR_LIMIT || memcmp(copy, buf, len) != 0)
		fs->bad_cms++;
	if (bs_validate(buf, len, BS_KIND_CMS, true, NULL, NULL) != BS_OK)
		fs->bad_revalidate++;

	/* merge with a copy of itself, inner product with itself */
	memcpy(copy, buf, len);
	bs_cms_view(copy, &d);
	if (bs_cms_inner_product(&c, &d, &ip, NULL) != BS_OK ||
		bs_u128_less(ip, bs_u128_muladd((bs_u128) {0, 0}, bs_cms_frequency(&c, h), bs_cms_frequency(&c, h))))
		fs->bad_cms++;
	st = bs_cms_merge(&d, &c, NULL);
	if (c.total <= (uint64_t) INT64_MAX / 2)
	{
		if (st != BS_OK || d.total != 2 * c.total || bs_cms_frequency(&d, h) != 2 * bs_cms_frequency(&c, h) ||
			bs_validate(copy, len, BS_KIND_CMS, true, NULL, NULL) != BS_OK)
			fs->bad_cms++;
	}
	else if (st != BS_ERR_LIMIT || memcmp(copy, buf, len) != 0)
		fs->bad_cms++;
	free(copy);
}

/* For a longer run by hand: -DUNIT_FUZZ_ITERATIONS=2000000 -DUNIT_FUZZ_SEED=1 */
#ifndef UNIT_FUZZ_ITERATIONS
#define UNIT_FUZZ_ITERATIONS 200000
#endif
#ifndef UNIT_FUZZ_SEED
#define UNIT_FUZZ_SEED 800
#endif

static void
test_fuzz(void)
{
	const long	iterations = UNIT_FUZZ_ITERATIONS;
	unit_rng	r = {UNIT_FUZZ_SEED};
	fuzz_stats	fs;
	long		it;

	memset(&fs, 0, sizeof(fs));
	for (it = 0; it < iterations; it++)
	{
		const sample *s = &samples[unit_below(&r, (uint64_t) nsamples)];
		int			op = (int) unit_below(&r, 8);
		size_t		len = s->len,
					j;
		uint8_t    *c;
		bs_kind		kind = s->kind;
		bs_error	err;
		bs_status	st;
		bool		deep = true;

		/* new length */
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
			case 3:
				{
					int			nb = 1 + (int) unit_below(&r, 3);

					while (nb-- > 0)
						c[unit_below(&r, BS_HEADER_SIZE)] = (uint8_t) unit_next(&r);
				}
				break;
			case 4:				/* a header field set to an edge value */
				{
					static const uint64_t edge[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 15, 16, 17, 63, 64, 65, 255, 256,
						272, 2719, (uint64_t) INT64_MAX, (UINT64_C(1) << 61) + 10,
						BS_AGG_STATE_MAX_SLOTS, BS_AGG_STATE_EXACT_LIMIT, UINT64_MAX, UINT64_C(1) << 63,
					UINT64_C(0x3ff0000000000000), UINT64_C(0x3f847ae147ae147b)};
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
			case 7:				/* flip in the last bytes (padding, table tail) */
				c[len - 1 - unit_below(&r, len < 4 ? len : 4)] ^= (uint8_t) (1u << unit_below(&r, 8));
				break;
		}
		if (unit_below(&r, 16) == 0)	/* one of the other kinds */
			kind = (bs_kind) (kind == BS_KIND_BLOOM ? (unit_below(&r, 2) ? BS_KIND_BLOOM_AGG_STATE : BS_KIND_CMS) :
							  kind == BS_KIND_BLOOM_AGG_STATE ? (unit_below(&r, 2) ? BS_KIND_CMS : BS_KIND_BLOOM) :
							  (unit_below(&r, 2) ? BS_KIND_BLOOM : BS_KIND_BLOOM_AGG_STATE));
		if ((kind == BS_KIND_BLOOM_AGG_STATE || kind == BS_KIND_CMS) && unit_below(&r, 8) == 0)
			deep = false;

		err.msg[0] = '\0';
		st = bs_validate(c, len, kind, deep, NULL, &err);
		if (st == BS_OK)
		{
			fs.accepted[kind]++;
			if (kind == BS_KIND_BLOOM)
				exercise_bloom(c, len, &r, &fs);
			else if (kind == BS_KIND_CMS)
			{
				bs_cms		cm;

				if (deep)
					exercise_cms(c, len, &r, &fs);
				else
				{
					/* quick check only: the length is right and reads stay inside */
					bs_cms_view(c, &cm);
					if (len != BS_HEADER_SIZE + cm.width * cm.depth * 8)
						fs.bad_size++;
					(void) bs_cms_frequency(&cm, unit_next(&r));
				}
			}
			else if (deep)
				exercise_state(c, len, &r, &fs);
			else if (bs_bloom_agg_state_size(c) != len)
				fs.bad_size++;
		}
		else
		{
			fs.rejected[kind]++;
			if (st != BS_ERR_FORMAT)
				fs.bad_status++;
			if (err.msg[0] == '\0')
				fs.bad_message++;
		}
		free(c);
	}

	CHECK(fs.bad_status == 0 && fs.bad_message == 0,
		  "fuzz: %ld mutated values (bit flips, header bytes, edge values, truncations, extensions): every rejection is BS_ERR_FORMAT with a message (%ld other status, %ld without message)",
		  iterations, fs.bad_status, fs.bad_message);
	CHECK(fs.accepted[BS_KIND_BLOOM] > 1000 && fs.rejected[BS_KIND_BLOOM] > 1000 &&
		  fs.accepted[BS_KIND_BLOOM_AGG_STATE] > 1000 && fs.rejected[BS_KIND_BLOOM_AGG_STATE] > 1000 &&
		  fs.accepted[BS_KIND_CMS] > 1000 && fs.rejected[BS_KIND_CMS] > 1000,
		  "fuzz: both outcomes are exercised: bloom %ld accepted / %ld rejected, bloom_agg_state %ld accepted / %ld rejected, cms %ld accepted / %ld rejected",
		  fs.accepted[BS_KIND_BLOOM], fs.rejected[BS_KIND_BLOOM],
		  fs.accepted[BS_KIND_BLOOM_AGG_STATE], fs.rejected[BS_KIND_BLOOM_AGG_STATE],
		  fs.accepted[BS_KIND_CMS], fs.rejected[BS_KIND_CMS]);
	CHECK(fs.bad_size == 0, "fuzz: an accepted value's length is exactly what its header implies (%ld not)", fs.bad_size);
	CHECK(fs.bad_result == 0,
		  "fuzz: an accepted state's result shape fits bs_bloom_size and its finished filter passes bs_validate (%ld not)",
		  fs.bad_result);
	CHECK(fs.bad_fn == 0, "fuzz: hashes added to accepted values are found afterwards (%ld false negatives)", fs.bad_fn);
	CHECK(fs.bad_revalidate == 0, "fuzz: accepted values still pass bs_validate after adds (%ld not)", fs.bad_revalidate);
	CHECK(fs.bad_cms == 0,
		  "fuzz: accepted cms values have rows summing to the total, adds raise the estimate by exactly the count or fail with BS_ERR_LIMIT changing nothing, merges and inner products work (%ld not)",
		  fs.bad_cms);
}

/* ---- hex ---- */

static void
test_hex(void)
{
	unit_rng	r = {900};
	static const uint8_t bytes[] = {0x00, 0xab, 0xff, 0x10, 0x9c};
	char		text[64];
	uint8_t		out[64];
	size_t		outlen = 99;
	bs_error	err;
	int			i,
				bad = 0;

	CHECK(bs_hex_encoded_len(5) == 12 && bs_hex_encoded_len(0) == 2, "hex length is 2 + 2 per byte");
	bs_hex_encode(bytes, 5, text);
	CHECK(memcmp(text, "\\x00abff109c", 12) == 0, "hex encode of 00 ab ff 10 9c is \\x00abff109c (lowercase)");
	CHECK(bs_hex_decode("\\x00ABfF109c", 12, out, &outlen, &err) == BS_OK && outlen == 5 && memcmp(out, bytes, 5) == 0,
		  "hex decode accepts upper and lower case digits");
	CHECK(bs_hex_decode("\\x", 2, out, &outlen, &err) == BS_OK && outlen == 0, "hex decode of \"\\x\" is 0 bytes");

	for (i = 0; i < 2000; i++)
	{
		size_t		n = (size_t) unit_below(&r, 300),
					j,
					got = 0;
		uint8_t    *b = unit_calloc(1, n),
				   *d = unit_calloc(1, n);
		char	   *t = unit_calloc(1, bs_hex_encoded_len(n));

		for (j = 0; j < n; j++)
			b[j] = (uint8_t) unit_next(&r);
		bs_hex_encode(b, n, t);
		if (bs_hex_decode(t, bs_hex_encoded_len(n), d, &got, &err) != BS_OK || got != n || memcmp(b, d, n) != 0)
			bad++;
		free(b);
		free(d);
		free(t);
	}
	CHECK(bad == 0, "hex encode/decode round trip of 2,000 random byte strings of 0..299 bytes (%d differ)", bad);

	/* a real sketch round trips to bytes that validate */
	{
		const sample *s = &samples[8];
		char	   *t = unit_calloc(1, bs_hex_encoded_len(s->len));
		uint8_t    *d = unit_calloc(1, s->len);
		size_t		got = 0;

		bs_hex_encode(s->buf, s->len, t);
		CHECK(bs_hex_decode(t, bs_hex_encoded_len(s->len), d, &got, &err) == BS_OK && got == s->len &&
			  memcmp(d, s->buf, s->len) == 0 && bs_validate(d, got, s->kind, true, NULL, &err) == BS_OK,
			  "%s (%zu bytes) round trips through hex text and validates", s->what, s->len);
		free(t);
		free(d);
	}

	CHECK(bs_hex_decode("", 0, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("\\", 1, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("00ab", 4, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("x00a", 4, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("\\X00", 4, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("/x00", 4, out, &outlen, &err) == BS_ERR_FORMAT && strstr(err.msg, "\\x"),
		  "hex decode without a leading \\x is BS_ERR_FORMAT (\"\", \"\\\", \"00ab\", \"x00a\", \"\\X00\", \"/x00\"): %s", err.msg);
	CHECK(bs_hex_decode("\\x0", 3, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("\\x00a", 5, out, &outlen, &err) == BS_ERR_FORMAT && strstr(err.msg, "odd"),
		  "hex decode of an odd number of digits is BS_ERR_FORMAT: %s", err.msg);
	CHECK(bs_hex_decode("\\x0g", 4, out, &outlen, &err) == BS_ERR_FORMAT && strstr(err.msg, "position 4"),
		  "hex decode of \\x0g is BS_ERR_FORMAT at position 4: %s", err.msg);
	CHECK(bs_hex_decode("\\xg0", 4, out, &outlen, &err) == BS_ERR_FORMAT && strstr(err.msg, "position 3"),
		  "hex decode of \\xg0 is BS_ERR_FORMAT at position 3: %s", err.msg);
	CHECK(bs_hex_decode("\\x00 1", 6, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("\\x00\n1", 6, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("\\x0:", 4, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("\\x@0", 4, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("\\x`0", 4, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("\\xG0", 4, out, &outlen, &err) == BS_ERR_FORMAT &&
		  bs_hex_decode("\\x0\0", 4, out, &outlen, &err) == BS_ERR_FORMAT,
		  "hex decode rejects blank, newline, ':', '@', '`', 'G' and NUL as digits");
	{
		/* all 256 byte values as the first digit: exactly 0-9a-fA-F accepted */
		int			c,
					wrong = 0;

		for (c = 0; c < 256; c++)
		{
			char		t[4] = {'\\', 'x', (char) c, '0'};
			bool		want = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');

			if ((bs_hex_decode(t, 4, out, &outlen, &err) == BS_OK) != want)
				wrong++;
		}
		CHECK(wrong == 0, "hex decode accepts exactly 0-9, a-f, A-F among all 256 byte values (%d wrong)", wrong);
	}
}

/* The kind table (core/kinds.c): every kind byte in use, and nothing else. */
static void
test_kinds(void)
{
	const char *names[] = {NULL, "bloom", "bloom_agg_state", "cms", "topk", "cbloom"};
	int			bad = 0,
				kind;

	for (kind = 1; kind <= BS_KIND_CBLOOM; kind++)
	{
		const bs_kind_def *d = bs_kind_def_of(kind);

		if (d == NULL || d->check == NULL || strcmp(d->name, names[kind]) != 0 ||
			strcmp(bs_kind_name(kind), names[kind]) != 0)
			bad++;
	}
	CHECK(bad == 0, "kinds 1 to 5 each have a name and a check in the table (%d do not)", bad);
	CHECK(bs_kind_def_of(0) == NULL && bs_kind_def_of(BS_KIND_CBLOOM + 1) == NULL &&
		  bs_kind_def_of(255) == NULL && bs_kind_def_of(-1) == NULL &&
		  strcmp(bs_kind_name(6), "unknown") == 0,
		  "kind bytes 0, 6, 255 and -1 have no definition and are named unknown");
}

int
main(void)
{
	int			i;

	make_samples();
	test_header();
	test_kinds();
	test_validate_valid();
	test_validate_rejects();
	test_validate_rejects_cms();
	test_fuzz();
	test_hex();
	for (i = 0; i < nsamples; i++)
		free(samples[i].buf);
	free(the_arena.ptr);
	return unit_done("format");
}
