/*
 * make_corpus.c: the seed corpus of the fuzz targets, made by the core's own
 * constructors (bs_bloom_init, bs_growable_new and bs_growable_add,
 * bs_bloom_agg_state_new_* and bs_bloom_agg_state_add,
 * bs_cms_init and bs_cms_add, bs_topk1_init / bs_topk1_add / bs_topk1_compact
 * (topk format 1), bs_topk_state_init / bs_topk_state_add /
 * bs_topk_state_merge / bs_topk_state_write (topk format 2),
 * bs_cbloom_init / bs_cbloom_add_hash, bs_bloom_agg_state_finish_counting), so every
 * file is a valid value of its kind and shape variant.  Deterministic: the
 * keys come from splitmix64, so a rerun writes the same bytes.
 *
 *   make fuzz-corpus                  (= build this, then run it on test/fuzz/corpus)
 *   cc -std=c11 -O2 -Isrc -o /tmp/make_corpus test/fuzz/make_corpus.c src/core/?*.c -lm
 *   /tmp/make_corpus test/fuzz/corpus
 *
 * Writes OUTDIR/<target>/<name> for the targets bloom, bloom_agg_state, cms,
 * topk, cbloom (values of that kind, of both bloom layouts), growable
 * (growable bloom values of both stage layouts, 1 to 64 stages), validate (all
 * values up to 64 kB), hex (the text form of the small ones, plus edge
 * texts) and blocked (fuzz_blocked's inputs: a shape and hashes).
 * Every value is checked with bs_validate(deep) before it is written.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/bloom.h"
#include "core/bloom_agg_state.h"
#include "core/cbloom.h"
#include "core/cms.h"
#include "core/endian.h"
#include "core/format.h"
#include "core/growable.h"
#include "core/hash.h"
#include "core/topk.h"
#include "core/topk_v1.h"

/* Values at most this long also go to validate/; at most HEX_MAX to hex/. */
#define VALIDATE_MAX 65536
#define HEX_MAX 1024

static const char *outdir;
static int	nfiles;
static size_t nbytes;

static void die(const char *fmt, const char *arg) __attribute__((noreturn));

static void
die(const char *fmt, const char *arg)
{
	fprintf(stderr, "make_corpus: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

/* ---- memory: everything is kept until exit ---- */

static uint8_t *
gen_alloc(void *ctx, size_t len)
{
	uint8_t    *p = calloc(1, len == 0 ? 1 : len);

	(void) ctx;
	if (p == NULL)
		die("out of memory%s", "");
	return p;
}

static const bs_allocator alloc = {gen_alloc, NULL, NULL};

/* ---- deterministic keys (splitmix64) ---- */

static uint64_t rng_state = 20240601;

static uint64_t
next(void)
{
	uint64_t	z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static uint64_t
below(uint64_t n)
{
	return next() % n;
}

/* ---- writing ---- */

static void
mkdir_p(const char *path)
{
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		die("cannot create %s", path);
}

static void
write_file(const char *target, const char *name, const void *buf, size_t len)
{
	char		path[4096];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, target);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		die("cannot write %s", path);
	nfiles++;
	nbytes += len;
}

static const char *
target_of(bs_kind kind)
{
	return kind == BS_KIND_BLOOM_AGG_STATE ? "bloom_agg_state" : bs_kind_name(kind);
}

/* Check a value and write it to target's corpus, validate/ and hex/. */
static void
keep_in(const char *target, bs_kind kind, const char *name, const uint8_t *buf, size_t len)
{
	bs_error	err;
	char		vname[256];

	if (bs_validate(buf, len, kind, true, NULL, &err) != BS_OK)
	{
		fprintf(stderr, "make_corpus: %s %s is not valid: %s\n", bs_kind_name(kind), name, err.msg);
		exit(1);
	}
	write_file(target, name, buf, len);
	snprintf(vname, sizeof(vname), "%s-%s", target, name);
	if (len <= VALIDATE_MAX)
		write_file("validate", vname, buf, len);
	if (len <= HEX_MAX)
	{
		char	   *text = malloc(bs_hex_encoded_len(len));

		bs_hex_encode(buf, len, text);
		write_file("hex", vname, text, bs_hex_encoded_len(len));
		free(text);
	}
}

/* Check a value and write it to its kind's corpus, validate/ and hex/. */
static void
keep(bs_kind kind, const char *name, const uint8_t *buf, size_t len)
{
	keep_in(target_of(kind), kind, name, buf, len);
}

/* ---- bloom ---- */

static uint8_t *
new_bloom(uint64_t m, uint32_t k, uint8_t family, uint64_t seed, size_t *len)
{
	uint64_t	total;
	uint8_t    *buf;

	if (bs_bloom_check_shape(m, k, NULL) != BS_OK || bs_bloom_size(m, &total, NULL) != BS_OK)
		die("bad bloom shape%s", "");
	buf = gen_alloc(NULL, (size_t) total);
	bs_bloom_init(buf, m, k, family, seed);
	*len = (size_t) total;
	return buf;
}

static void
bloom(const char *name, uint64_t m, uint32_t k, uint8_t family, uint64_t seed, int nkeys)
{
	size_t		len;
	uint8_t    *buf = new_bloom(m, k, family, seed, &len);
	int			i;

	for (i = 0; i < nkeys; i++)
		bs_bloom_add_hash(buf + BS_HEADER_SIZE, m, k, next());
	keep(BS_KIND_BLOOM, name, buf, len);
}

/* bloom_empty(capacity, fpr) with keys added. */
static void
bloom_for(const char *name, double capacity, double fpr, uint8_t family, int nkeys)
{
	uint64_t	m;
	uint32_t	k;

	if (bs_bloom_optimal_bits(capacity, fpr, &m, NULL) != BS_OK ||
		bs_bloom_optimal_hashes(m, capacity, &k, NULL) != BS_OK)
		die("bad bloom parameters for %s", name);
	bloom(name, m, k, family, BS_DEFAULT_SEED, nkeys);
}

static void
make_bloom(void)
{
	bloom("m1-k1-empty", 1, 1, BS_FAMILY_NONE, 0, 0);
	bloom("m13-k3-int", 13, 3, BS_FAMILY_INTEGER, 0, 2);
	bloom("m64-k64-text", 64, 64, BS_FAMILY_TEXT, 0, 1);
	bloom("m100-k7-int", 100, 7, BS_FAMILY_INTEGER, 0, 10);
	bloom("m720-k4-bytea", 720, 4, BS_FAMILY_BYTEA, 0, 30);
	bloom("m1000-k5-uuid", 1000, 5, BS_FAMILY_UUID, 0, 100);
	bloom("m4099-k2-seed7-timestamptz", 4099, 2, BS_FAMILY_TIMESTAMPTZ, 7, 300);
	bloom("m8-k3-full-float", 8, 3, BS_FAMILY_FLOAT, 0, 100);
	bloom("m4096-k1-date", 4096, 1, BS_FAMILY_DATE, 0, 20);
	bloom_for("cap1000-fpr0.01-numeric", 1000, 0.01, BS_FAMILY_NUMERIC, 300);
	bloom_for("cap10-fpr1e-19-timestamp", 10, 1e-19, BS_FAMILY_TIMESTAMP, 10);
}

/* ---- bloom_agg_state ---- */

static void
add_hash(uint8_t **s, uint64_t h)
{
	if (bs_bloom_agg_state_add(s, h, &alloc, NULL) != BS_OK)
		die("state full%s", "");
}

static uint8_t *
add_hashes(uint8_t *s, int n, bool zero, int repeat)
{
	int			i,
				j;

	if (zero)
		for (j = 0; j < repeat; j++)
			add_hash(&s, 0);
	for (i = 0; i < n; i++)
	{
		uint64_t	h = next();

		for (j = 0; j < repeat; j++)
			add_hash(&s, h);
	}
	return s;
}

static void
state_auto(const char *name, double fpr, uint8_t family, uint64_t seed, int n, bool zero)
{
	uint8_t    *s;

	if (bs_bloom_agg_state_new_auto(fpr, family, seed, &alloc, &s, NULL) != BS_OK)
		die("bs_bloom_agg_state_new_auto for %s", name);
	s = add_hashes(s, n, zero, 1);
	keep(BS_KIND_BLOOM_AGG_STATE, name, s, bs_bloom_agg_state_size(s));
}

static void
state_counting(const char *name, double fpr, uint8_t family, int n, bool zero, int repeat,
			   int saturated)
{
	uint8_t    *s;
	int			i;

	if (bs_bloom_agg_state_new_counting(fpr, family, 0, &alloc, &s, NULL) != BS_OK)
		die("bs_bloom_agg_state_new_counting for %s", name);
	s = add_hashes(s, n, zero, repeat);
	if (saturated)
	{
		uint64_t	h = next();

		for (i = 0; i < saturated; i++)
			add_hash(&s, h);
	}
	keep(BS_KIND_BLOOM_AGG_STATE, name, s, bs_bloom_agg_state_size(s));
}

static void
state_fixed(const char *name, double capacity, double fpr, uint8_t family, int n)
{
	uint8_t    *s;

	if (bs_bloom_agg_state_new_fixed(capacity, fpr, family, 0, &alloc, &s, NULL) != BS_OK)
		die("bs_bloom_agg_state_new_fixed for %s", name);
	s = add_hashes(s, n, false, 1);
	keep(BS_KIND_BLOOM_AGG_STATE, name, s, bs_bloom_agg_state_size(s));
}

/*
 * Fixed states in their exact phase (a table no larger than the filter):
 * plain, packed, and blocked.
 */
static void
make_state_fixed_exact(void)
{
	uint8_t    *s,
			   *p;
	uint64_t	m;
	uint32_t	k;

	state_fixed("fixed-exact-100000-0.01-int", 100000, 0.01, BS_FAMILY_INTEGER, 500);
	if (bs_bloom_agg_state_new_fixed(100000, 0.01, BS_FAMILY_TEXT, 0, &alloc, &s, NULL) != BS_OK)
		die("bs_bloom_agg_state_new_fixed for %s", "fixed-exact-packed");
	s = add_hashes(s, 300, true, 1);
	p = alloc.alloc(alloc.ctx, bs_bloom_agg_state_packed_size(s));
	bs_bloom_agg_state_pack(s, p);
	keep(BS_KIND_BLOOM_AGG_STATE, "fixed-exact-packed-300-zero", p, bs_bloom_agg_state_packed_size(s));
	if (bs_bloom_shape_for(20000, 0.01, BS_LAYOUT_BLOCKED, &m, &k, NULL) != BS_OK ||
		bs_bloom_agg_state_new_fixed_shape(20000, 0.01, BS_LAYOUT_BLOCKED, m, k, BS_FAMILY_INTEGER, 0,
										   &alloc, &s, NULL) != BS_OK)
		die("bs_bloom_agg_state_new_fixed_shape for %s", "blocked-fixed-exact");
	s = add_hashes(s, 100, false, 1);
	keep(BS_KIND_BLOOM_AGG_STATE, "blocked-fixed-exact-20000-0.01-int", s, bs_bloom_agg_state_size(s));
}

/* An exact state of n hashes (counting: each twice), packed as a large one leaves its aggregate. */
static void
state_packed(const char *name, bool counting, int n, bool zero)
{
	uint8_t    *s,
			   *p;

	if ((counting ? bs_bloom_agg_state_new_counting(0.01, BS_FAMILY_INTEGER, 0, &alloc, &s, NULL) :
		 bs_bloom_agg_state_new_auto(0.01, BS_FAMILY_INTEGER, 0, &alloc, &s, NULL)) != BS_OK)
		die("bs_bloom_agg_state_new_* for %s", name);
	s = add_hashes(s, n, zero, counting ? 2 : 1);
	p = alloc.alloc(alloc.ctx, bs_bloom_agg_state_packed_size(s));
	bs_bloom_agg_state_pack(s, p);
	keep(BS_KIND_BLOOM_AGG_STATE, name, p, bs_bloom_agg_state_packed_size(s));
}

/* Packed states (1.5), made after every other seed: their keys must not move the others'. */
static void
make_state_packed(void)
{
	state_packed("packed-200-zero", false, 200, true);
	state_packed("packed-empty", false, 0, false);
	state_packed("packed-counting-50x2", true, 50, false);
}

static void
make_state(void)
{
	state_auto("auto-empty-0.01", 0.01, BS_FAMILY_NONE, 0, 0, false);
	state_auto("auto-5-zero-0.001-int", 0.001, BS_FAMILY_INTEGER, 0, 5, true);
	state_auto("auto-100-0.05-text", 0.05, BS_FAMILY_TEXT, 0, 100, false);
	state_auto("auto-300-0.01-uuid-seed3", 0.01, BS_FAMILY_UUID, 3, 300, true);
	state_auto("auto-12-fpr2pow-64-bytea", 0x1p-64, BS_FAMILY_BYTEA, 0, 12, false);
	state_auto("auto-7-0.9-float", 0.9, BS_FAMILY_FLOAT, 0, 7, true);
	state_counting("counting-empty", 0.01, BS_FAMILY_NONE, 0, false, 1, 0);
	state_counting("counting-5-zero-int", 0.01, BS_FAMILY_INTEGER, 5, true, 1, 0);
	state_counting("counting-20x3-zero-saturated-text", 0.02, BS_FAMILY_TEXT, 20, true, 3, 300);
	state_counting("counting-60-0.001-date", 0.001, BS_FAMILY_DATE, 60, false, 2, 16);
	state_fixed("fixed-100-0.01-int", 100, 0.01, BS_FAMILY_INTEGER, 50);
	state_fixed("fixed-3-0.3-empty", 3, 0.3, BS_FAMILY_NONE, 0);
	state_fixed("fixed-1-0.5-text", 1, 0.5, BS_FAMILY_TEXT, 1);
	state_fixed("fixed-1000-0.001-timestamptz", 1000, 0.001, BS_FAMILY_TIMESTAMPTZ, 700);
	/*
	 * A dense auto-sized state: more than BS_AGG_STATE_EXACT_LIMIT distinct
	 * hashes at a rate whose M is one fold unit (746496 bits, 93360 bytes),
	 * the smallest a dense auto state can be.  Only in bloom_agg_state/.
	 */
	state_auto("dense-auto-1-1e-10-numeric", 1 - 1e-10, BS_FAMILY_NUMERIC, 0,
			   (int) BS_AGG_STATE_EXACT_LIMIT + 5, false);
}

/* ---- cms ---- */

static void
cms(const char *name, uint64_t width, uint32_t depth, uint8_t family, uint64_t seed, int nkeys,
	uint64_t maxcount, uint64_t topup)
{
	uint64_t	total;
	uint8_t    *buf;
	bs_cms		c;
	int			i;

	if (bs_cms_size(width, depth, &total, NULL) != BS_OK)
		die("bad cms shape for %s", name);
	buf = gen_alloc(NULL, (size_t) total);
	bs_cms_init(buf, width, depth, family, seed);
	bs_cms_view(buf, &c);
	for (i = 0; i < nkeys; i++)
	{
		uint64_t	h = next(),
					count = 1 + below(maxcount);	/* in this order: the corpus must not depend on the compiler */

		if (bs_cms_add(&c, h, count, NULL) != BS_OK)
			die("cms add for %s", name);
	}
	if (topup && bs_cms_add(&c, next(), topup - c.total, NULL) != BS_OK)
		die("cms top-up for %s", name);
	keep(BS_KIND_CMS, name, buf, (size_t) total);
}

static void
make_cms(void)
{
	cms("1x1-empty", 1, 1, BS_FAMILY_NONE, 0, 0, 1, 0);
	cms("4x2-int", 4, 2, BS_FAMILY_INTEGER, 0, 3, 5, 0);
	cms("10x3-seed7-text", 10, 3, BS_FAMILY_TEXT, 7, 100, 1000, 0);
	cms("1x64-uuid", 1, 64, BS_FAMILY_UUID, 0, 5, 3, 0);
	cms("272x7-timestamptz", 272, 7, BS_FAMILY_TIMESTAMPTZ, 0, 2000, 50, 0);
	cms("5x2-bytea-total-2pow63-1", 5, 2, BS_FAMILY_BYTEA, 0, 4, 100, (uint64_t) INT64_MAX);
	cms("3x3-float-total-2pow62", 3, 3, BS_FAMILY_FLOAT, 0, 2, 10, UINT64_C(1) << 62);
	cms("64x5-empty-date", 64, 5, BS_FAMILY_DATE, 0, 0, 1, 0);
}

/* ---- topk ---- */

#define KEY_MAX 128

static uint32_t
key_for(uint8_t family, uint64_t i, uint8_t *key)
{
	uint64_t	h = i * UINT64_C(0x9e3779b97f4a7c15);

	switch (family)
	{
		case BS_FAMILY_UUID:
			bs_store64(key, h);
			bs_store64(key + 8, ~h);
			return 16;
		case BS_FAMILY_TEXT:
		case BS_FAMILY_NUMERIC:
			{
				int			n = snprintf((char *) key, KEY_MAX, family == BS_FAMILY_TEXT ? "key%" PRIu64 : "%" PRIu64 ".5", i);

				return n < 0 ? 0 : n >= KEY_MAX ? KEY_MAX - 1 : (uint32_t) n;
			}
		case BS_FAMILY_BYTEA:
			{
				uint32_t	n = (uint32_t) (i % 13),
							j;

				for (j = 0; j < n; j++)
					key[j] = (uint8_t) (h >> (8 * (j % 8)));
				return n;
			}
		default:
			bs_store64(key, i);
			return 8;
	}
}

static void
topk(const char *name, uint64_t width, uint32_t depth, uint32_t k, uint64_t heap_cap,
	 uint8_t family, uint64_t seed, int nadds, int distinct, bool canonical, uint64_t bigcount)
{
	uint64_t	total;
	uint8_t    *buf;
	size_t		len;
	int			i;

	if (bs_topk1_size(width, depth, k, heap_cap, &total, NULL) != BS_OK)
		die("bad topk shape for %s", name);
	len = (size_t) total;
	buf = gen_alloc(NULL, len);
	bs_topk1_init(buf, width, depth, k, heap_cap, family, seed);
	for (i = 0; i < nadds; i++)
	{
		uint8_t		key[KEY_MAX];
		/* skewed: the smaller of two uniform draws */
		uint64_t	a = below((uint64_t) distinct),
					b = below((uint64_t) distinct),
					item = a < b ? a : b;
		uint32_t	klen = key_for(family, item, key);
		bs_error	err;
		uint64_t	count = (i == 0 && bigcount) ? bigcount : 1 + below(3);

		if (bs_topk1_add(&buf, &len, bs_hash_bytes(key, klen, seed), key, klen, family, count,
						 &alloc, &err) != BS_OK)
			die("topk add: %s", err.msg);
	}
	if (canonical)
		buf = bs_topk1_compact(buf, len, &alloc, &len);
	keep(BS_KIND_TOPK, name, buf, len);
}

static void
make_topk(void)
{
	topk("empty-k1-1x1-int", 1, 1, 1, 0, BS_FAMILY_INTEGER, 0, 0, 1, false, 0);
	topk("empty-k2-5x2-text-spare", 5, 2, 2, 32, BS_FAMILY_TEXT, 0, 0, 1, false, 0);
	topk("empty-k3-4x2-none", 4, 2, 3, 0, BS_FAMILY_NONE, 0, 0, 1, true, 0);
	topk("int-k1-3x1-canon", 3, 1, 1, 0, BS_FAMILY_INTEGER, 0, 5, 3, true, 0);
	topk("int-k2-7x3-state", 7, 3, 2, 16, BS_FAMILY_INTEGER, 0, 30, 9, false, 0);
	topk("int-k3-16x4-canon", 16, 4, 3, 0, BS_FAMILY_INTEGER, 0, 60, 20, true, 0);
	topk("text-k2-9x2-state", 9, 2, 2, 8, BS_FAMILY_TEXT, 0, 40, 12, false, 0);
	topk("text-k4-20x3-canon", 20, 3, 4, 0, BS_FAMILY_TEXT, 0, 80, 30, true, 0);
	topk("text-k5-32x2-seed9-canon", 32, 2, 5, 0, BS_FAMILY_TEXT, 9, 50, 8, true, 0);
	topk("bytea-k3-11x3-state", 11, 3, 3, 40, BS_FAMILY_BYTEA, 0, 100, 40, false, 0);
	topk("uuid-k2-8x2-canon", 8, 2, 2, 0, BS_FAMILY_UUID, 0, 20, 6, true, 0);
	topk("uuid-k3-13x5-state", 13, 5, 3, 0, BS_FAMILY_UUID, 0, 40, 10, false, 0);
	topk("float-k1-2x2-canon", 2, 2, 1, 0, BS_FAMILY_FLOAT, 0, 10, 4, true, 0);
	topk("date-k6-64x1-canon", 64, 1, 6, 0, BS_FAMILY_DATE, 0, 200, 60, true, 0);
	topk("timestamptz-k2-6x2-state", 6, 2, 2, 100, BS_FAMILY_TIMESTAMPTZ, 0, 12, 5, false, 0);
	topk("timestamp-k2-4x2-canon", 4, 2, 2, 0, BS_FAMILY_TIMESTAMP, 0, 15, 7, true, 0);
	topk("numeric-k3-10x2-state", 10, 2, 3, 24, BS_FAMILY_NUMERIC, 0, 40, 15, false, 0);
	topk("int-k2-4x2-total-near-max", 4, 2, 2, 0, BS_FAMILY_INTEGER, 0, 6, 4, true,
		 (uint64_t) INT64_MAX - 100);
	topk("text-k50-8x2-canon", 8, 2, 50, 0, BS_FAMILY_TEXT, 0, 600, 200, true, 0);
}

/* ---- topk, format 2 ---- */

/* How a format-2 seed is written. */
typedef enum topk2_form
{
	CANONICAL,					/* bs_topk_state_write(canonical): at most C values */
	STATE,						/* the state as it is: up to 2C values */
	AT_2C,						/* new keys added until the state holds exactly 2C values */
	AT_C						/* new keys added until it holds exactly C, written canonical */
} topk2_form;

static void
topk2_add(bs_topk_state *st, uint8_t family, uint64_t seed, uint64_t item, uint64_t count,
		  const char *name)
{
	uint8_t		key[KEY_MAX];
	uint32_t	klen = key_for(family, item, key);
	bs_error	err;

	if (bs_topk_state_add(st, bs_hash_bytes(key, klen, seed), key, klen, family, count, &err) != BS_OK)
		die("topk add: %s", err.msg);
	(void) name;
}

/*
 * A format-2 state of parameters p: nadds skewed adds over distinct items
 * (the first of count bigcount when not 0); topk2_keep writes it.
 */
static bs_topk_state *
topk2_state(const char *name, const bs_topk_params *p, uint8_t family, uint64_t seed, int nadds,
			int distinct, uint64_t bigcount)
{
	bs_topk_state *st = (bs_topk_state *) gen_alloc(NULL, sizeof(bs_topk_state));
	bs_error	err;
	int			i;

	if (bs_topk_state_init(st, p, family, seed, &alloc, &err) != BS_OK)
		die("topk state: %s", err.msg);
	for (i = 0; i < nadds; i++)
	{
		/* skewed: the smaller of two uniform draws; counts drawn in order (not compiler-dependent) */
		uint64_t	a = below((uint64_t) distinct),
					b = below((uint64_t) distinct),
					count = (i == 0 && bigcount) ? bigcount : 1 + below(3);

		topk2_add(st, family, seed, a < b ? a : b, count, name);
	}
	return st;
}

static void
topk2_keep(const char *name, bs_topk_state *st, topk2_form form, uint8_t family, uint64_t seed)
{
	uint8_t    *buf;
	size_t		len;
	uint64_t	item = 1000000;
	uint32_t	want = form == AT_2C ? 2 * st->params.capacity : st->params.capacity;

	/* (a canonical form of a state holding more than C holds exactly C) */
	if (form == AT_2C || form == AT_C)
		while (st->n < want)
			topk2_add(st, family, seed, item++, 1 + below(2), name);
	buf = bs_topk_state_write(st, form == CANONICAL || form == AT_C, &alloc, &len);
	keep(BS_KIND_TOPK, name, buf, len);
}

static void
topk2(const char *name, uint32_t k, uint32_t cap, uint64_t width, uint32_t depth, uint8_t family,
	  uint64_t seed, int nadds, int distinct, topk2_form form, uint64_t bigcount)
{
	bs_topk_params p;

	p.k = k;
	p.capacity = cap;
	p.width = width;
	p.depth = depth;
	topk2_keep(name, topk2_state(name, &p, family, seed, nadds, distinct, bigcount), form, family, seed);
}

/* topk_agg(x, k, epsilon, delta)'s parameters. */
static void
topk2_for(const char *name, uint32_t k, double eps, double delta, uint8_t family, int nadds,
		  int distinct, topk2_form form)
{
	bs_topk_params p;

	if (bs_topk_params_for(k, eps, delta, &p, NULL) != BS_OK)
		die("bad topk parameters for %s", name);
	topk2_keep(name, topk2_state(name, &p, family, 0, nadds, distinct, 0), form, family, 0);
}

/* topk_union_agg of two parts: a merged state, written canonical. */
static void
topk2_merged(const char *name, uint32_t k, uint32_t cap, uint64_t width, uint32_t depth,
			 uint8_t family, int nadds, int distinct)
{
	bs_topk_params p;
	bs_topk_state *a,
			   *b;
	uint8_t    *bv;
	size_t		blen;
	bs_error	err;

	p.k = k;
	p.capacity = cap;
	p.width = width;
	p.depth = depth;
	a = topk2_state(name, &p, family, 0, nadds, distinct, 0);
	b = topk2_state(name, &p, family, 0, nadds, distinct * 2, 0);
	bv = bs_topk_state_write(b, false, &alloc, &blen);
	if (bs_topk_state_merge(a, bv, blen, &err) != BS_OK)
		die("topk merge: %s", err.msg);
	topk2_keep(name, a, CANONICAL, family, 0);
}

static void
make_topk2(void)
{
	const uint64_t near_max = (uint64_t) INT64_MAX - 100;

	topk2("v2-empty-k1-c2-1x1-none", 1, 2, 1, 1, BS_FAMILY_NONE, 0, 0, 1, CANONICAL, 0);
	topk2("v2-empty-k2-c4-5x2-text", 2, 4, 5, 2, BS_FAMILY_TEXT, 0, 0, 1, CANONICAL, 0);
	topk2("v2-empty-k10000-c20000-1x1-int", BS_TOPK_MAX_K, 2 * BS_TOPK_MAX_K, 1, 1, BS_FAMILY_INTEGER, 0, 0, 1,
		  CANONICAL, 0);
	topk2("v2-empty-k1-c1000000-2x3-uuid", 1, BS_TOPK_MAX_CAPACITY, 2, 3, BS_FAMILY_UUID, 0, 0, 1, CANONICAL, 0);
	topk2("v2-int-k1-c2-3x1-canon", 1, 2, 3, 1, BS_FAMILY_INTEGER, 0, 5, 3, CANONICAL, 0);
	topk2("v2-int-k1-c2-1x64-canon", 1, 2, 1, 64, BS_FAMILY_INTEGER, 0, 9, 4, CANONICAL, 0);
	topk2("v2-int-k2-c4-7x3-2C-floor0", 2, 4, 7, 3, BS_FAMILY_INTEGER, 0, 0, 1, AT_2C, 0);
	topk2("v2-int-k2-c4-7x3-2C-floor", 2, 4, 7, 3, BS_FAMILY_INTEGER, 0, 60, 30, AT_2C, 0);
	topk2("v2-text-k4-c8-20x3-canon-floor", 4, 8, 20, 3, BS_FAMILY_TEXT, 0, 80, 30, CANONICAL, 0);
	topk2("v2-text-k5-c10-32x2-seed9-canon", 5, 10, 32, 2, BS_FAMILY_TEXT, 9, 50, 8, CANONICAL, 0);
	topk2("v2-bytea-k3-c6-11x3-state", 3, 6, 11, 3, BS_FAMILY_BYTEA, 0, 100, 40, STATE, 0);
	topk2("v2-uuid-k2-c4-8x2-at-capacity", 2, 4, 8, 2, BS_FAMILY_UUID, 0, 0, 1, AT_C, 0);
	topk2("v2-uuid-k3-c9-13x5-at-capacity-floor", 3, 9, 13, 5, BS_FAMILY_UUID, 0, 60, 25, AT_C, 0);
	topk2("v2-float-k1-c2-2x2-canon", 1, 2, 2, 2, BS_FAMILY_FLOAT, 0, 10, 4, CANONICAL, 0);
	topk2("v2-date-k6-c12-64x1-canon", 6, 12, 64, 1, BS_FAMILY_DATE, 0, 200, 60, CANONICAL, 0);
	topk2("v2-timestamptz-k2-c5-6x2-state", 2, 5, 6, 2, BS_FAMILY_TIMESTAMPTZ, 0, 12, 5, STATE, 0);
	topk2("v2-timestamp-k2-c4-4x2-canon", 2, 4, 4, 2, BS_FAMILY_TIMESTAMP, 0, 15, 7, CANONICAL, 0);
	topk2("v2-numeric-k3-c7-10x2-state", 3, 7, 10, 2, BS_FAMILY_NUMERIC, 0, 40, 15, STATE, 0);
	topk2("v2-int-k2-c4-4x2-total-near-max", 2, 4, 4, 2, BS_FAMILY_INTEGER, 0, 6, 4, CANONICAL, near_max);
	topk2("v2-text-k50-c100-8x2-canon", 50, 100, 8, 2, BS_FAMILY_TEXT, 0, 600, 200, CANONICAL, 0);
	topk2("v2-text-k20-c40-16x2-2C", 20, 40, 16, 2, BS_FAMILY_TEXT, 0, 300, 150, AT_2C, 0);
	topk2_for("v2-int-k3-eps0.1-delta0.01-2C", 3, 0.1, 0.01, BS_FAMILY_INTEGER, 500, 100, AT_2C);
	topk2_for("v2-bytea-k10-eps0.05-delta0.1-state", 10, 0.05, 0.1, BS_FAMILY_BYTEA, 400, 120, STATE);
	/* topk_agg(x, 10): the default epsilon 0.001 and delta 0.05, 2719 x 3; past validate/'s 64 kB */
	topk2_for("v2-int-k10-default-canon", 10, 0.001, 0.05, BS_FAMILY_INTEGER, 300, 100, CANONICAL);
	topk2_merged("v2-text-k3-c6-9x2-merged", 3, 6, 9, 2, BS_FAMILY_TEXT, 40, 12);
	topk2_merged("v2-int-k4-c16-24x3-merged", 4, 16, 24, 3, BS_FAMILY_INTEGER, 200, 50);
}

/* ---- cbloom ---- */

static uint8_t *
new_cbloom(uint64_t m, uint32_t k, uint32_t bits, uint8_t family, uint64_t seed, size_t *len)
{
	uint64_t	total;
	uint8_t    *buf;

	if (bs_cbloom_check_shape(m, k, bits, NULL) != BS_OK || bs_cbloom_size(m, bits, &total, NULL) != BS_OK)
		die("bad cbloom shape%s", "");
	buf = gen_alloc(NULL, (size_t) total);
	bs_cbloom_init(buf, m, k, bits, family, seed);
	*len = (size_t) total;
	return buf;
}

static void
cbloom(const char *name, uint64_t m, uint32_t k, uint32_t bits, uint8_t family, uint64_t seed,
	   int nkeys, uint64_t maxcount, int removes)
{
	size_t		len;
	uint8_t    *buf = new_cbloom(m, k, bits, family, seed, &len);
	bs_cbloom	c;
	uint64_t	first = 0;
	int			i;

	bs_cbloom_view(buf, &c);
	for (i = 0; i < nkeys; i++)
	{
		uint64_t	h = next();

		if (i == 0)
			first = h;
		bs_cbloom_add_hash(&c, h, 1 + below(maxcount));
	}
	for (i = 0; i < removes; i++)
		if (bs_cbloom_remove_hash(&c, first, NULL) != BS_OK)
			break;
	keep(BS_KIND_CBLOOM, name, buf, len);
}

static void
cbloom_from_state(const char *name, int n)
{
	uint8_t    *s,
			   *out;
	uint64_t	m,
				total;
	uint32_t	k;

	if (bs_bloom_agg_state_new_counting(0.01, BS_FAMILY_TEXT, 0, &alloc, &s, NULL) != BS_OK)
		die("bs_bloom_agg_state_new_counting for %s", name);
	s = add_hashes(s, n, true, 2);
	(void) bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
	if (bs_cbloom_size(m, BS_CBLOOM_DEFAULT_BITS, &total, NULL) != BS_OK)
		die("bad counting result shape for %s", name);
	out = gen_alloc(NULL, (size_t) total);
	bs_bloom_agg_state_finish_counting(s, m, k, BS_CBLOOM_DEFAULT_BITS, out);
	keep(BS_KIND_CBLOOM, name, out, (size_t) total);
}

static void
make_cbloom(void)
{
	uint64_t	m;
	uint32_t	k;

	cbloom("4bit-m1-k1-empty", 1, 1, 4, BS_FAMILY_NONE, 0, 0, 1, 0);
	cbloom("4bit-m13-k3-int", 13, 3, 4, BS_FAMILY_INTEGER, 0, 4, 2, 0);
	cbloom("8bit-m100-k7-text", 100, 7, 8, BS_FAMILY_TEXT, 0, 10, 3, 0);
	cbloom("4bit-m20-k2-saturated-uuid", 20, 2, 4, BS_FAMILY_UUID, 0, 3, 40, 0);
	cbloom("8bit-m16-k3-saturated-float", 16, 3, 8, BS_FAMILY_FLOAT, 0, 4, 400, 0);
	cbloom("4bit-m77-k5-seed7-removed-bytea", 77, 5, 4, BS_FAMILY_BYTEA, 7, 12, 3, 2);
	cbloom("8bit-m1-k64-date", 1, 64, 8, BS_FAMILY_DATE, 0, 1, 1, 0);
	if (bs_cbloom_optimal_shape(1000, 0.01, 4, &m, &k, NULL) != BS_OK)
		die("cbloom shape%s", "");
	cbloom("4bit-cap1000-fpr0.01-timestamptz", m, k, 4, BS_FAMILY_TIMESTAMPTZ, 0, 300, 2, 0);
	cbloom_from_state("4bit-from-counting-state-text", 40);
}

/* ---- the blocked layout (header p3 = 1; bloom_agg_state flag 0x10) ---- */

static void
bloom_blocked(const char *name, uint64_t m, uint32_t k, uint8_t family, uint64_t seed, int nkeys)
{
	uint64_t	total;
	uint8_t    *buf;
	bs_bloom	b;
	int			i;

	if (bs_bloom_check_layout_shape(m, k, BS_LAYOUT_BLOCKED, NULL) != BS_OK ||
		bs_bloom_size(m, &total, NULL) != BS_OK)
		die("bad blocked shape for %s", name);
	buf = gen_alloc(NULL, (size_t) total);
	bs_bloom_init_layout(buf, m, k, BS_LAYOUT_BLOCKED, family, seed);
	bs_bloom_view(buf, &b);
	for (i = 0; i < nkeys; i++)
		bs_bloom_add(&b, next());
	keep(BS_KIND_BLOOM, name, buf, (size_t) total);
}

/* bloom_empty(capacity, fpr, 'blocked') with keys added. */
static void
bloom_blocked_for(const char *name, double capacity, double fpr, uint8_t family, int nkeys)
{
	uint64_t	m;
	uint32_t	k;

	if (bs_bloom_shape_for(capacity, fpr, BS_LAYOUT_BLOCKED, &m, &k, NULL) != BS_OK)
		die("bad blocked parameters for %s", name);
	bloom_blocked(name, m, k, family, BS_DEFAULT_SEED, nkeys);
}

static void
state_blocked_auto(const char *name, double fpr, uint8_t family, uint64_t seed, int n, bool zero)
{
	uint8_t    *s;

	if (bs_bloom_agg_state_new_auto_layout(fpr, BS_LAYOUT_BLOCKED, family, seed, &alloc, &s, NULL) != BS_OK)
		die("bs_bloom_agg_state_new_auto_layout for %s", name);
	s = add_hashes(s, n, zero, 1);
	keep(BS_KIND_BLOOM_AGG_STATE, name, s, bs_bloom_agg_state_size(s));
}

static void
state_blocked_fixed(const char *name, double capacity, double fpr, uint8_t family, int n)
{
	uint8_t    *s;
	uint64_t	m;
	uint32_t	k;

	if (bs_bloom_shape_for(capacity, fpr, BS_LAYOUT_BLOCKED, &m, &k, NULL) != BS_OK ||
		bs_bloom_agg_state_new_fixed_shape(capacity, fpr, BS_LAYOUT_BLOCKED, m, k, family, 0, &alloc, &s,
								   NULL) != BS_OK)
		die("bs_bloom_agg_state_new_fixed_shape for %s", name);
	s = add_hashes(s, n, false, 1);
	keep(BS_KIND_BLOOM_AGG_STATE, name, s, bs_bloom_agg_state_size(s));
}

/*
 * An input of fuzz_blocked: 2 bytes the block count - 1, 1 byte k - 1, 1
 * byte of options (bit 0 a seed, bits 1-3 the rate's index), 2 bytes the
 * capacity - 1, then nkeys hashes (special: 0 and 2^64 - 1 first, then
 * repeats of the first few when dup).
 */
static void
blocked_input(const char *name, unsigned blocks, unsigned k, unsigned options, unsigned capacity,
			  int nkeys, bool special, bool dup)
{
	uint8_t		buf[6 + 64 * 8];
	int			i;

	buf[0] = (uint8_t) ((blocks - 1) & 0xff);
	buf[1] = (uint8_t) ((blocks - 1) >> 8);
	buf[2] = (uint8_t) (k - 1);
	buf[3] = (uint8_t) options;
	buf[4] = (uint8_t) ((capacity - 1) & 0xff);
	buf[5] = (uint8_t) ((capacity - 1) >> 8);
	for (i = 0; i < nkeys && i < 64; i++)
	{
		uint64_t	h = special && i == 0 ? 0 : special && i == 1 ? UINT64_MAX :
			dup && i >= 4 ? bs_load64(buf + 6 + (i % 4) * 8) : next();

		bs_store64(buf + 6 + i * 8, h);
	}
	write_file("blocked", name, buf, 6 + (size_t) (i * 8));
}

static void
make_blocked(void)
{
	bloom_blocked("blocked-m512-k1-empty", 512, 1, BS_FAMILY_NONE, 0, 0);
	bloom_blocked("blocked-m512-k3-int", 512, 3, BS_FAMILY_INTEGER, 0, 2);
	bloom_blocked("blocked-m1024-k7-text", 1024, 7, BS_FAMILY_TEXT, 0, 30);
	bloom_blocked("blocked-m1536-k16-seed5-uuid", 1536, 16, BS_FAMILY_UUID, 5, 50);
	bloom_blocked("blocked-m4096-k64-bytea", 4096, 64, BS_FAMILY_BYTEA, 0, 20);
	bloom_blocked("blocked-m512-k8-full-float", 512, 8, BS_FAMILY_FLOAT, 0, 400);
	bloom_blocked("blocked-m62464-k5-timestamptz", 62464, 5, BS_FAMILY_TIMESTAMPTZ, 0, 2000);
	/* 1152 blocks (2^7 3^2): folds by every 3-smooth factor up to 1152; past validate/'s 64 kB */
	bloom_blocked("blocked-m589824-k6-int", 589824, 6, BS_FAMILY_INTEGER, 0, 5000);
	bloom_blocked_for("blocked-cap1000-fpr0.01-numeric", 1000, 0.01, BS_FAMILY_NUMERIC, 300);
	bloom_blocked_for("blocked-cap100-fpr1e-10-date", 100, 1e-10, BS_FAMILY_DATE, 100);

	state_blocked_auto("blocked-auto-empty-0.01", 0.01, BS_FAMILY_NONE, 0, 0, false);
	state_blocked_auto("blocked-auto-5-zero-0.001-int", 0.001, BS_FAMILY_INTEGER, 0, 5, true);
	state_blocked_auto("blocked-auto-300-0.05-seed3-text", 0.05, BS_FAMILY_TEXT, 3, 300, false);
	state_blocked_auto("blocked-auto-12-fpr2pow-64-bytea", 0x1p-64, BS_FAMILY_BYTEA, 0, 12, false);
	state_blocked_fixed("blocked-fixed-100-0.01-int", 100, 0.01, BS_FAMILY_INTEGER, 50);
	state_blocked_fixed("blocked-fixed-1-0.5-text", 1, 0.5, BS_FAMILY_TEXT, 1);
	state_blocked_fixed("blocked-fixed-3000-0.001-timestamptz", 3000, 0.001, BS_FAMILY_TIMESTAMPTZ, 2000);
	/* a dense auto-sized blocked state has at least 663,552 bytes, past -max_len: none here */

	blocked_input("b1-k1-none", 1, 1, 0, 1, 0, false, false);
	blocked_input("b1-k64-special", 1, 64, 0, 1, 3, true, false);
	blocked_input("b2-k7-seed-fpr0.2", 2, 7, 1 | 1 << 1, 10, 10, false, false);
	blocked_input("b12-k16-fpr0.01", 12, 16, 4 << 1, 100, 30, true, false);
	blocked_input("b144-k3-cap2000-fpr1e-6", 144, 3, 6 << 1, 2000, 64, false, false);
	blocked_input("b256-k64-fpr2pow-60-dup", 256, 64, 1 | 7 << 1, 500, 40, true, true);
	blocked_input("b96-k9-fpr0.5-dup", 96, 9, 0, 30, 20, false, true);
}

/* ---- growable bloom values (growable.h) ---- */

/*
 * bloom_empty(n0, fpr, growth => s, layout) with nkeys distinct keys added
 * (nkeys past n0 opens stages, up to the limits); full_last counts the last stage full by hand,
 * so that the next new key opens a stage.
 */
static void
growable(const char *name, uint64_t n0, double fpr, uint32_t growth, uint32_t layout,
		 uint8_t family, uint64_t seed, int nkeys, bool full_last)
{
	bs_growable *g = (bs_growable *) gen_alloc(NULL, sizeof(bs_growable));
	uint8_t    *buf;
	uint64_t	len;
	bool		grown;
	int			i;

	if (bs_growable_new(n0, fpr, growth, layout, family, seed, &alloc, &buf, &len, NULL) != BS_OK)
		die("bs_growable_new for %s", name);
	bs_growable_view(buf, g);
	/* an add fails only when a stage would be past the limits: the value is full */
	for (i = 0; i < nkeys; i++)
		if (bs_growable_add(g, next(), &alloc, &grown, NULL) != BS_OK)
			break;
	if (full_last)
	{
		uint64_t	cap;
		double		p;

		if (bs_growable_stage_target(n0, growth, fpr, g->nstages - 1, &cap, &p, NULL) != BS_OK)
			die("bs_growable_stage_target for %s", name);
		bs_store64(g->buf + BS_HEADER_SIZE + (uint64_t) (g->nstages - 1) * BS_GROWABLE_ENTRY_BYTES + 16, cap);
	}
	keep_in("growable", BS_KIND_BLOOM, name, g->buf, (size_t) g->len);
}

static void
make_growable(void)
{
	growable("classic-1-0.01-s2-empty", 1, 0.01, 2, BS_LAYOUT_CLASSIC, BS_FAMILY_NONE, 0, 0, false);
	growable("classic-100-0.01-s2-int", 100, 0.01, 2, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, 0, 50, false);
	growable("classic-20-0.05-s2-4stages-text", 20, 0.05, 2, BS_LAYOUT_CLASSIC, BS_FAMILY_TEXT, 0, 250, false);
	growable("classic-10-0.1-s3-5stages-seed9-uuid", 10, 0.1, 3, BS_LAYOUT_CLASSIC, BS_FAMILY_UUID, 9, 500, false);
	growable("classic-5-0.3-s1-7stages-float", 5, 0.3, 1, BS_LAYOUT_CLASSIC, BS_FAMILY_FLOAT, 0, 40, false);
	growable("classic-1-0.99-s1-64stages-int", 1, 0.99, 1, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, 0, 100000, false);
	growable("classic-1-2pow-60-s1-4stages-date", 1, 0x1p-60, 1, BS_LAYOUT_CLASSIC, BS_FAMILY_DATE, 0, 4, true);
	growable("classic-50-0.01-s64-full-bytea", 50, 0.01, 64, BS_LAYOUT_CLASSIC, BS_FAMILY_BYTEA, 0, 10, true);
	growable("classic-8-0.5-s8-3stages-int", 8, 0.5, 8, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, 0, 600, false);
	growable("blocked-1-0.01-s2-empty", 1, 0.01, 2, BS_LAYOUT_BLOCKED, BS_FAMILY_NONE, 0, 0, false);
	growable("blocked-100-0.01-s2-int", 100, 0.01, 2, BS_LAYOUT_BLOCKED, BS_FAMILY_INTEGER, 0, 50, false);
	growable("blocked-50-0.02-s2-4stages-text", 50, 0.02, 2, BS_LAYOUT_BLOCKED, BS_FAMILY_TEXT, 0, 700, false);
	growable("blocked-8-0.1-s4-4stages-seed3-timestamptz", 8, 0.1, 4, BS_LAYOUT_BLOCKED, BS_FAMILY_TIMESTAMPTZ, 3, 500, false);
	growable("blocked-30-0.01-s2-3stages-full-numeric", 30, 0.01, 2, BS_LAYOUT_BLOCKED, BS_FAMILY_NUMERIC, 0, 150, true);
	growable("blocked-1-0.5-s1-20stages-timestamp", 1, 0.5, 1, BS_LAYOUT_BLOCKED, BS_FAMILY_TIMESTAMP, 0, 20, false);
}

/* ---- hex edge texts ---- */

static void
make_hex_edges(void)
{
	static const char *const edges[] = {
		"", "\\", "\\x", "\\x0", "\\x00", "\\xAbCd", "\\xg0", "x\\00", "\\X00", "\\x0\n",
		"\\x42534b5401010100", "\\x42534B54010101000000000000000000"
	};
	size_t		i;
	char		name[32];

	for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
	{
		snprintf(name, sizeof(name), "edge-%02zu", i);
		write_file("hex", name, edges[i], strlen(edges[i]));
	}
}

int
main(int argc, char **argv)
{
	if (argc != 2)
	{
		fprintf(stderr, "usage: %s OUTDIR   (writes OUTDIR/<target>/<name>)\n", argv[0]);
		return 2;
	}
	outdir = argv[1];
	mkdir_p(outdir);
	make_bloom();
	make_state();
	make_cms();
	make_topk();
	make_cbloom();
	make_blocked();
	make_growable();
	make_topk2();				/* last: its keys must not move the others' (the corpus stays as it was) */
	make_state_packed();		/* after it, for the same reason */
	make_state_fixed_exact();	/* and after that */
	make_hex_edges();
	printf("make_corpus: %d files, %zu bytes in %s\n", nfiles, nbytes, outdir);
	return 0;
}
