/*
 * topk_v1_test.c: the heavy hitters of format 1 (bloomsketch 1.0 to 1.4),
 * src/core/topk_v1.c: Count-Min estimates plus a bounded set of candidate
 * items, after Cormode and Muthukrishnan 2005.
 *
 * A skewed stream of 1,000,000 keys drawn from a Zipf law (exponent 1.35 over
 * 100,000 items) is fed to a sketch of epsilon 0.001 and delta 0.01 (width
 * 2719, depth 5) that tracks k = 10 items in 2k = 20 candidates.  Checked:
 * the sketch's top 10 are the top 10 by true count, in order; no estimate is
 * below the true count; merges of the sketches of 2, 3 and 4 parts, in
 * different orders, find the same top 10, have the counters of the whole and
 * leave their sources unchanged; bs_topk1_merge gives the bytes of the old
 * quadratic merge (kept here as the reference) on thousands of random pairs
 * and at k = 10,000; bs_topk1_compact is canonical; the key bytes
 * regrow; bs_validate rejects every kind of corruption of a topk value; and a
 * mutation fuzz: whatever the validator accepts, compact, add and merge
 * handle.
 *
 * Every buffer handed to the core is allocated at its exact length, so an
 * AddressSanitizer build sees any read past a value:
 *   cc -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
 *      -Isrc -o /tmp/topk_test_asan test/unit/topk_test.c src/core/?*.c -lm
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime */

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "core/cms.h"
#include "core/endian.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/topk_v1.h"
#include "unit.h"

/* ---- an allocator whose blocks can be freed one by one ---- */

/*
 * The core allocates its results and scratch space (the ranking arrays and
 * the summed counters of a merge) from the allocator and never frees; the
 * caller owns them.  Results are freed by the tests as they go; scratch is
 * freed by pool_reset().  pool_allocs counts every allocation (a regrow of
 * the key bytes is one).
 */
static unit_arena pool;
static long pool_allocs;

static uint8_t *
pool_alloc(void *ctx, size_t len)
{
	pool_allocs++;
	return unit_arena_alloc(ctx, len);
}

static const bs_allocator alloc = {pool_alloc, &pool, NULL};

/* Take p out of the pool, so that pool_reset() keeps it (the most recent blocks are searched first). */
static void
pool_forget(void *p)
{
	size_t		i;

	for (i = pool.n; i-- > 0;)
		if (pool.ptr[i] == p)
		{
			pool.ptr[i] = pool.ptr[--pool.n];
			return;
		}
}

/* Free one block, from the pool or forgotten. */
static void
pool_free(void *p)
{
	if (p == NULL)
		return;
	pool_forget(p);
	free(p);
}

/* Free the scratch space the core allocated (every block not freed or forgotten). */
static void
pool_reset(void)
{
	unit_arena_reset(&pool);
}

/* ---- topk values ---- */

typedef struct tk
{
	uint8_t    *buf;
	size_t		len;
} tk;

static tk
tk_new(uint64_t width, uint32_t depth, uint32_t k, uint64_t heap_cap, uint8_t family,
	   uint64_t seed)
{
	uint64_t	total;
	bs_error	err;
	tk			t;

	if (bs_topk1_size(width, depth, k, heap_cap, &total, &err) != BS_OK)
	{
		fprintf(stderr, "bs_topk1_size(%" PRIu64 ", %u, %u, %" PRIu64 "): %s\n",
				width, depth, k, heap_cap, err.msg);
		exit(2);
	}
	t.len = (size_t) total;
	t.buf = alloc.alloc(alloc.ctx, t.len);
	bs_topk1_init(t.buf, width, depth, k, heap_cap, family, seed);
	return t;
}

static tk
tk_copy(const tk *s)
{
	tk			t;

	t.len = s->len;
	t.buf = alloc.alloc(alloc.ctx, t.len);
	memcpy(t.buf, s->buf, t.len);
	return t;
}

static void
tk_free(tk *t)
{
	pool_free(t->buf);
	t->buf = NULL;
	t->len = 0;
}

static uint64_t
tk_seed(const tk *t)
{
	return bs_load64(t->buf + 8);
}

/* Add count for key; the old buffer is freed when the key bytes regrew. */
static bs_status
tk_add(tk *t, const void *key, uint32_t keylen, uint64_t count, bs_error *err)
{
	bs_status	st;
	uint8_t    *old = t->buf,
			   *r;

	uint8_t		family = t->buf[BS_OFF_FAMILY];

	/* keys of a value with no family yet are taken as bytea (any length) */
	if (family == BS_FAMILY_NONE)
		family = BS_FAMILY_BYTEA;
	r = t->buf;
	st = bs_topk1_add(&r, &t->len, bs_hash_bytes(key, keylen, tk_seed(t)),
					  (const uint8_t *) key, keylen, family, count, &alloc, err);
	if (st != BS_OK)
		return st;
	if (r != old)
	{
		pool_free(old);
		t->buf = r;
	}
	return BS_OK;
}

static void
tk_add_ok(tk *t, const void *key, uint32_t keylen, uint64_t count)
{
	bs_error	err;

	if (tk_add(t, key, keylen, count, &err) != BS_OK)
	{
		fprintf(stderr, "bs_topk1_add: %s\n", err.msg);
		exit(2);
	}
}

/* dst + src as a new value (out->buf NULL and the status on error). */
static bs_status
tk_merge(const tk *a, const tk *b, tk *out, bs_error *err)
{
	bs_status	st;

	out->buf = NULL;
	st = bs_topk1_merge(a->buf, a->len, b->buf, b->len, &alloc, &out->buf, &out->len, err);
	if (st != BS_OK)
		out->len = 0;
	return st;
}

static tk
tk_merge_ok(const tk *a, const tk *b)
{
	tk			out;
	bs_error	err;

	if (tk_merge(a, b, &out, &err) != BS_OK)
	{
		fprintf(stderr, "bs_topk1_merge: %s\n", err.msg);
		exit(2);
	}
	return out;
}

static tk
tk_compact(const tk *a)
{
	tk			out;

	out.buf = bs_topk1_compact(a->buf, a->len, &alloc, &out.len);
	return out;
}

static bool
tk_valid(const tk *t, bool deep, bs_error *err)
{
	return bs_validate(t->buf, t->len, BS_KIND_TOPK, deep, NULL, err) == BS_OK;
}

static uint64_t
counters_bytes(const tk *t)
{
	return bs_load64(t->buf + BS_OFF_P1) * bs_load32(t->buf + BS_OFF_P2) * 8;
}

/* Same header (but for x: candidates and key bytes) and the same counters. */
static bool
same_counters(const tk *a, const tk *b)
{
	uint64_t	cb = counters_bytes(a);

	return counters_bytes(b) == cb && memcmp(a->buf, b->buf, BS_OFF_X) == 0 &&
		memcmp(a->buf + BS_HEADER_SIZE, b->buf + BS_HEADER_SIZE, (size_t) cb) == 0;
}

static bool
same_bytes(const tk *a, const tk *b)
{
	return a->len == b->len && memcmp(a->buf, b->buf, a->len) == 0;
}

/* The candidates' hashes, sorted, for comparing candidate sets. */
static int
cmp_u64(const void *pa, const void *pb)
{
	uint64_t	a = *(const uint64_t *) pa,
				b = *(const uint64_t *) pb;

	return a < b ? -1 : a > b;
}

static bool
same_candidate_set(const tk *a, const tk *b)
{
	bs_topk1		ta,
				tb;
	uint64_t	ha[2 * BS_TOPK_MAX_K],
				hb[2 * BS_TOPK_MAX_K];
	uint32_t	i;

	bs_topk1_view(a->buf, a->len, &ta);
	bs_topk1_view(b->buf, b->len, &tb);
	if (ta.ncand != tb.ncand)
		return false;
	for (i = 0; i < ta.ncand; i++)
	{
		bs_topk1_item it;

		bs_topk1_item_at(&ta, i, &it);
		ha[i] = it.hash;
		bs_topk1_item_at(&tb, i, &it);
		hb[i] = it.hash;
	}
	qsort(ha, ta.ncand, sizeof(uint64_t), cmp_u64);
	qsort(hb, tb.ncand, sizeof(uint64_t), cmp_u64);
	return memcmp(ha, hb, ta.ncand * sizeof(uint64_t)) == 0;
}

static double
seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double) (t1.tv_sec - t0->tv_sec) + (double) (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---- the skewed stream ---- */

#define UNIVERSE 100000
#define STREAM 1000000
#define ZIPF_S 1.35
#define TOP 10

/*
 * Item r (1-based rank) has the text key "/page/<r>" followed by r % 13
 * bytes of a query string, 7 to 30 bytes: variable lengths exercise the key
 * bytes.  The rank is read back from a candidate's key.
 */
static uint32_t
item_key(uint32_t r, char *key)
{
	static const char tail[] = "?utm_source=x";

	return (uint32_t) sprintf(key, "/page/%u%.*s", r, (int) (r % 13), tail);
}

static uint32_t
key_rank(const uint8_t *key, uint32_t len)
{
	char		buf[64];

	if (len < 7 || len >= sizeof(buf) || memcmp(key, "/page/", 6) != 0)
		return 0;
	memcpy(buf, key, len);
	buf[len] = '\0';
	return (uint32_t) strtoul(buf + 6, NULL, 10);
}

static uint64_t
item_hash(uint32_t r, uint64_t seed)
{
	char		key[64];
	uint32_t	len = item_key(r, key);

	return bs_hash_bytes(key, len, seed);
}

typedef struct stream
{
	uint32_t   *rank;			/* STREAM draws */
	uint64_t   *count;			/* true count of each rank, [0, UNIVERSE] */
	uint32_t	top[TOP + 1];	/* ranks by true count, highest first */
} stream;

static stream zs;

static int
cmp_by_count_desc(const void *pa, const void *pb)
{
	uint32_t	a = *(const uint32_t *) pa,
				b = *(const uint32_t *) pb;

	if (zs.count[a] != zs.count[b])
		return zs.count[a] > zs.count[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

static void
make_stream(void)
{
	double	   *cdf = unit_calloc(UNIVERSE + 1, sizeof(double));
	uint32_t   *order = unit_calloc(UNIVERSE, sizeof(uint32_t));
	unit_rng	r = {1100};
	double		sum = 0;
	uint32_t	i;

	for (i = 1; i <= UNIVERSE; i++)
		cdf[i] = (sum += pow((double) i, -ZIPF_S));
	zs.rank = unit_calloc(STREAM, sizeof(uint32_t));
	zs.count = unit_calloc(UNIVERSE + 1, sizeof(uint64_t));
	for (i = 0; i < STREAM; i++)
	{
		double		u = (double) (unit_next(&r) >> 11) * 0x1p-53 * sum;
		uint32_t	lo = 1,
					hi = UNIVERSE;

		while (lo < hi)			/* the first rank whose cdf exceeds u */
		{
			uint32_t	mid = lo + (hi - lo) / 2;

			if (cdf[mid] > u)
				hi = mid;
			else
				lo = mid + 1;
		}
		zs.rank[i] = lo;
		zs.count[lo]++;
	}
	for (i = 0; i < UNIVERSE; i++)
		order[i] = i + 1;
	qsort(order, UNIVERSE, sizeof(uint32_t), cmp_by_count_desc);
	memcpy(zs.top, order, sizeof(zs.top));
	free(order);
	free(cdf);
}

/* Default shape of topk_agg: epsilon 0.001, delta 0.01. */
static uint64_t zwidth;
static uint32_t zdepth;

static tk
zipf_sketch(const uint32_t *ranks, size_t n, uint32_t k)
{
	tk			t = tk_new(zwidth, zdepth, k, 256, BS_FAMILY_TEXT, BS_DEFAULT_SEED);
	char		key[64];
	size_t		i;

	for (i = 0; i < n; i++)
	{
		uint32_t	len = item_key(ranks[i], key);

		tk_add_ok(&t, key, len, 1);
	}
	return t;
}

/* The ranks of the first `top` candidates of the canonical form of t. */
static void
sketch_top(const tk *t, uint32_t *ranks, uint32_t top)
{
	tk			c = tk_compact(t);
	bs_topk1		v;
	uint32_t	i;

	bs_topk1_view(c.buf, c.len, &v);
	for (i = 0; i < top; i++)
	{
		bs_topk1_item it;

		ranks[i] = 0;
		if (i < v.ncand)
		{
			bs_topk1_item_at(&v, i, &it);
			ranks[i] = key_rank(it.key, it.len);
		}
	}
	tk_free(&c);
}

static bool
top_is_true_top(const tk *t, char *desc, size_t desclen)
{
	uint32_t	got[TOP];
	int			i;
	size_t		used = 0;

	sketch_top(t, got, TOP);
	desc[0] = '\0';
	for (i = 0; i < TOP && used + 16 < desclen; i++)
		used += (size_t) snprintf(desc + used, desclen - used, "%s%u", i ? "," : "", got[i]);
	return memcmp(got, zs.top, sizeof(got)) == 0;
}

/* ---- tests ---- */

static void
test_params(void)
{
	bs_error	err;
	bs_status	st;
	uint64_t	total = 0,
				w;
	uint32_t	d;
	tk			t;
	bs_topk1		v;

	CHECK(bs_topk_check_k(1, &err) == BS_OK && bs_topk_check_k(BS_TOPK_MAX_K, &err) == BS_OK,
		  "k = 1 and k = 10000 are accepted");
	CHECK(bs_topk_check_k(0, &err) == BS_ERR_PARAM && strstr(err.msg, "between 1 and 10000, got 0") &&
		  bs_topk_check_k(10001, &err) == BS_ERR_PARAM && strstr(err.msg, "got 10001") &&
		  bs_topk_check_k(-1, &err) == BS_ERR_PARAM && bs_topk_check_k(INT64_MIN, &err) == BS_ERR_PARAM &&
		  bs_topk_check_k((int64_t) 1 << 32, &err) == BS_ERR_PARAM,
		  "k = 0, 10001, -1, INT64_MIN and 2^32 are BS_ERR_PARAM naming the range (%s)", err.msg);

	w = 0;
	d = 0;
	st = bs_cms_dims(0.001, 0.01, &w, &d, &err);
	CHECK(st == BS_OK && w == 2719 && d == 5,
		  "epsilon 0.001, delta 0.01: width ceil(e / 0.001) = 2719, depth ceil(ln 100) = 5 (got %" PRIu64 " x %u)", w, d);
	zwidth = w;
	zdepth = d;

	st = bs_topk1_size(2719, 5, 10, 256, &total, &err);
	CHECK(st == BS_OK && total == BS_HEADER_SIZE + 2719 * 5 * 8 + 20 * BS_TOPK_SLOT + 256,
		  "bs_topk1_size(2719, 5, k = 10, 256 key bytes) = 48 + 108760 + 20 x 24 + 256 = %" PRIu64, total);
	CHECK(bs_topk1_size(2719, 5, 0, 0, &total, &err) == BS_ERR_PARAM &&
		  bs_topk1_size(2719, 5, 10001, 0, &total, &err) == BS_ERR_PARAM &&
		  bs_topk1_size(0, 5, 10, 0, &total, &err) == BS_ERR_PARAM &&
		  bs_topk1_size(10, 0, 10, 0, &total, &err) == BS_ERR_PARAM &&
		  bs_topk1_size(10, 65, 10, 0, &total, &err) == BS_ERR_PARAM,
		  "bs_topk1_size: k 0 or 10001, width 0, depth 0 or 65 are BS_ERR_PARAM");
	CHECK(bs_topk1_size(10, 5, 10, BS_MAX_SKETCH_BYTES, &total, &err) == BS_ERR_LIMIT &&
		  bs_topk1_size(10, 5, 10, UINT64_MAX, &total, &err) == BS_ERR_LIMIT &&
		  bs_topk1_size((BS_MAX_SKETCH_BYTES - BS_HEADER_SIZE) / 8 / 5, 5, 10000, 0, &total, &err) == BS_ERR_LIMIT &&
		  bs_topk1_size(UINT64_MAX / 4, 64, 10, 0, &total, &err) == BS_ERR_LIMIT,
		  "bs_topk1_size past 511 MiB (key bytes of 511 MiB or 2^64 - 1, counters at the limit plus 20000 slots, width 2^62) is BS_ERR_LIMIT, no wrap-around (%s)",
		  err.msg);

	t = tk_new(7, 3, 2, 10, BS_FAMILY_TEXT, 5);
	bs_topk1_view(t.buf, t.len, &v);
	CHECK(t.len == BS_HEADER_SIZE + 7 * 3 * 8 + 4 * 24 + 10 && t.buf[5] == BS_KIND_TOPK &&
		  v.k == 2 && v.cap == 4 && v.ncand == 0 && v.heap_used == 0 && v.heap_cap == 10 &&
		  v.cms.width == 7 && v.cms.depth == 3 && v.cms.total == 0 && v.cms.seed == 5 &&
		  v.cms.family == BS_FAMILY_TEXT && bs_load32(t.buf + BS_OFF_P3) == 2 && bs_load64(t.buf + BS_OFF_X) == 0,
		  "bs_topk1_init: kind 4, p1 width, p2 depth, p3 k, n 0, x 0; 2k slots and the spare key bytes; the view reads them back");
	CHECK(tk_valid(&t, true, &err) && tk_valid(&t, false, &err),
		  "an empty topk value passes bs_validate, deep and quick");
	tk_free(&t);
}

static void
test_small(void)
{
	tk			t = tk_new(1000, 4, 2, 0, BS_FAMILY_TEXT, 0),
				c,
				before;
	bs_topk1		v;
	bs_topk1_item it;
	bs_error	err;
	bs_status	st;
	char	   *big = unit_calloc(1, BS_TOPK_MAX_KEY + 2);

	tk_add_ok(&t, "apple", 5, 3);
	tk_add_ok(&t, "pear", 4, 1);
	tk_add_ok(&t, "apple", 5, 1);
	tk_add_ok(&t, "", 0, 2);
	bs_topk1_view(t.buf, t.len, &v);
	CHECK(v.ncand == 3 && v.cms.total == 7 && v.heap_used == 9,
		  "3 distinct keys (one empty) with counts 4, 1, 2: 3 candidates, total 7, 9 key bytes (got %u, %" PRIu64 ", %u)",
		  v.ncand, v.cms.total, v.heap_used);
	c = tk_compact(&t);
	bs_topk1_view(c.buf, c.len, &v);
	{
		bs_topk1_item a,
					b,
					e;

		bs_topk1_item_at(&v, 0, &a);
		bs_topk1_item_at(&v, 1, &b);
		bs_topk1_item_at(&v, 2, &e);
		CHECK(a.count == 4 && a.len == 5 && memcmp(a.key, "apple", 5) == 0 &&
			  b.count == 2 && b.len == 0 && e.count == 1 && e.len == 4 && memcmp(e.key, "pear", 4) == 0 &&
			  a.hash == bs_hash_bytes("apple", 5, 0) && b.hash == bs_hash_bytes("", 0, 0),
			  "compact form: apple 4, '' 2, pear 1, most frequent first, with their keys and hashes");
		CHECK(c.len == BS_HEADER_SIZE + 1000 * 4 * 8 + 4 * 24 + 9 && v.heap_used == 9,
			  "compact form is exactly header + counters + 2k slots + the 9 live key bytes (%zu bytes)", c.len);
	}
	tk_free(&c);

	/* a fourth key fills the last slot; a fifth with a higher count replaces the weakest */
	tk_add_ok(&t, "plum", 4, 1);
	tk_add_ok(&t, "fig", 3, 5);
	bs_topk1_view(t.buf, t.len, &v);
	{
		int			found_fig = 0,
					found_pear_or_plum = 0;
		uint32_t	i;

		for (i = 0; i < v.ncand; i++)
		{
			bs_topk1_item_at(&v, i, &it);
			found_fig += it.len == 3 && memcmp(it.key, "fig", 3) == 0;
			found_pear_or_plum += it.len == 4 && (memcmp(it.key, "pear", 4) == 0 || memcmp(it.key, "plum", 4) == 0);
		}
		CHECK(v.ncand == 4 && found_fig == 1 && found_pear_or_plum == 1,
			  "k = 2 keeps 2k = 4 candidates: 'fig' (5) replaces one of the two weakest (pear 1, plum 1)");
	}
	/* a key that does not beat the weakest stays out, but is counted */
	tk_add_ok(&t, "kiwi", 4, 1);
	bs_topk1_view(t.buf, t.len, &v);
	CHECK(v.ncand == 4 && v.cms.total == 14 && bs_cms_frequency(&v.cms, bs_hash_bytes("kiwi", 4, 0)) >= 1,
		  "'kiwi' (1) does not beat the weakest candidate (1): not a candidate, but counted (total 14)");
	/* an evicted key comes back with its full count */
	tk_add_ok(&t, "pear", 4, 10);
	c = tk_compact(&t);
	bs_topk1_view(c.buf, c.len, &v);
	bs_topk1_item_at(&v, 0, &it);
	CHECK(it.len == 4 && memcmp(it.key, "pear", 4) == 0 && it.count == 11,
		  "'pear' evicted or not, after 10 more it leads with its full count 11 (got %" PRIu64 ")", it.count);
	tk_free(&c);

	/* key length limit and total overflow leave the value unchanged */
	before = tk_copy(&t);
	memset(big, 'x', BS_TOPK_MAX_KEY + 1);
	st = tk_add(&t, big, BS_TOPK_MAX_KEY + 1, 1, &err);
	CHECK(st == BS_ERR_LIMIT && strstr(err.msg, "65537") && strstr(err.msg, "65536") && same_bytes(&t, &before),
		  "a key of 65537 bytes is BS_ERR_LIMIT naming its length and the limit; nothing changed (%s)", err.msg);
	st = tk_add(&t, big, BS_TOPK_MAX_KEY, 100, &err);
	bs_topk1_view(t.buf, t.len, &v);
	CHECK(st == BS_OK && tk_valid(&t, true, &err) && v.heap_used >= BS_TOPK_MAX_KEY,
		  "a key of exactly 65536 bytes is tracked; the value grows its key bytes and stays valid");
	tk_free(&before);
	before = tk_copy(&t);
	st = tk_add(&t, "apple", 5, (uint64_t) INT64_MAX, &err);
	CHECK(st == BS_ERR_LIMIT && same_bytes(&t, &before),
		  "an add that would take the total past 2^63 - 1 is BS_ERR_LIMIT; nothing changed (%s)", err.msg);
	tk_free(&before);
	tk_free(&t);

	/* the largest total is fine */
	t = tk_new(3, 1, 1, 0, BS_FAMILY_INTEGER, 0);
	{
		uint8_t		k8[8] = {42};

		tk_add_ok(&t, k8, 8, (uint64_t) INT64_MAX);
		bs_topk1_view(t.buf, t.len, &v);
		bs_topk1_item_at(&v, 0, &it);
		CHECK(v.cms.total == (uint64_t) INT64_MAX && it.count == (uint64_t) INT64_MAX && tk_valid(&t, true, &err) &&
			  tk_add(&t, k8, 8, 1, &err) == BS_ERR_LIMIT,
			  "a count of 2^63 - 1 is the largest total: valid, and one more is BS_ERR_LIMIT");
	}
	tk_free(&t);
	free(big);
	pool_reset();
}

static tk	zwhole;				/* the sketch of the whole stream, k = 10 */

static void
test_zipf(void)
{
	struct timespec t0;
	double		secs;
	tk			t,
				asc,
				desc;
	bs_topk1		v;
	bs_error	err;
	char		got[256];
	uint64_t	below = 0,
				over_eps = 0,
				max_over = 0,
				distinct = 0,
				eps_n;
	uint32_t	r,
				i;
	long		allocs;
	uint32_t   *sorted;

	make_stream();
	for (r = 1; r <= UNIVERSE; r++)
		distinct += zs.count[r] > 0;
	CHECK(zs.count[zs.top[TOP - 1]] > zs.count[zs.top[TOP]] + 1000,
		  "the stream: %d draws of %" PRIu64 " distinct items, Zipf s = %.2f; true top 10 by count %u (%" PRIu64 ") ... %u (%" PRIu64 "), 11th %u (%" PRIu64 "): a gap above eps N = 1000",
		  STREAM, distinct, ZIPF_S, zs.top[0], zs.count[zs.top[0]], zs.top[TOP - 1], zs.count[zs.top[TOP - 1]],
		  zs.top[TOP], zs.count[zs.top[TOP]]);

	allocs = pool_allocs;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t = zipf_sketch(zs.rank, STREAM, TOP);
	secs = seconds_since(&t0);
	bs_topk1_view(t.buf, t.len, &v);
	CHECK(v.cms.total == STREAM && v.ncand == 2 * TOP && tk_valid(&t, true, &err),
		  "1,000,000 adds into width %" PRIu64 ", depth %u, k = 10 in %.3f s (%.0f ns per add; %ld key-byte regrows): total 1000000, 20 candidates, valid",
		  zwidth, zdepth, secs, secs * 1e9 / STREAM, pool_allocs - allocs - 1);
	CHECK(top_is_true_top(&t, got, sizeof(got)),
		  "the sketch's top 10 are the true top 10 by count, in order (%s)", got);

	/* no estimate below the truth, for every item of the universe */
	eps_n = (uint64_t) ceil(bs_cms_epsilon(zwidth) * STREAM);
	for (r = 1; r <= UNIVERSE; r++)
	{
		uint64_t	est = bs_cms_frequency(&v.cms, item_hash(r, 0));

		if (est < zs.count[r])
			below++;
		if (est - zs.count[r] > max_over)
			max_over = est - zs.count[r];
		if (est > zs.count[r] + eps_n)
			over_eps++;
	}
	CHECK(below == 0, "no estimate below the true count, over all %d items (%" PRIu64 " below)", UNIVERSE, below);
	CHECK((double) over_eps / UNIVERSE <= bs_cms_delta(zdepth),
		  "estimates above truth + eps N (eps N = %" PRIu64 "): %" PRIu64 " of %d items = %.5f, at most delta = e^-5 = %.5f (largest overestimate %" PRIu64 ")",
		  eps_n, over_eps, UNIVERSE, (double) over_eps / UNIVERSE, bs_cms_delta(zdepth), max_over);
	{
		int			bad = 0;

		for (i = 0; i < v.ncand; i++)
		{
			bs_topk1_item it;

			bs_topk1_item_at(&v, i, &it);
			r = key_rank(it.key, it.len);
			if (r == 0 || it.hash != item_hash(r, 0) || it.count < zs.count[r] ||
				it.count > bs_cms_frequency(&v.cms, it.hash))
				bad++;
		}
		CHECK(bad == 0,
			  "every candidate's key is an item whose hash it carries, and its stored estimate lies between its true count and the sketch's current estimate (%d not)",
			  bad);
	}

	/* the same multiset, heavy items last and heavy items first */
	sorted = unit_calloc(STREAM, sizeof(uint32_t));
	memcpy(sorted, zs.rank, STREAM * sizeof(uint32_t));
	{
		/* counting sort by true count, ascending: rarest items first */
		uint32_t   *order = unit_calloc(UNIVERSE, sizeof(uint32_t));
		size_t		pos = 0;
		uint64_t	j;

		for (i = 0; i < UNIVERSE; i++)
			order[i] = i + 1;
		qsort(order, UNIVERSE, sizeof(uint32_t), cmp_by_count_desc);
		for (i = UNIVERSE; i-- > 0;)
			for (j = 0; j < zs.count[order[i]]; j++)
				sorted[pos++] = order[i];
		free(order);
	}
	asc = zipf_sketch(sorted, STREAM, TOP);
	for (i = 0; i < STREAM / 2; i++)
	{
		uint32_t	x = sorted[i];

		sorted[i] = sorted[STREAM - 1 - i];
		sorted[STREAM - 1 - i] = x;
	}
	desc = zipf_sketch(sorted, STREAM, TOP);
	CHECK(top_is_true_top(&asc, got, sizeof(got)),
		  "rarest items first, the 10 heaviest arriving last (after 35%% of the stream): still the true top 10, in order (%s)", got);
	CHECK(top_is_true_top(&desc, got, sizeof(got)),
		  "heaviest items first: the true top 10, in order (%s)", got);
	CHECK(same_counters(&t, &asc) && same_counters(&t, &desc),
		  "the counters do not depend on the order of the stream (byte-equal for the three orders)");
	free(sorted);
	tk_free(&asc);
	tk_free(&desc);

	/* the same stream in reverse: same counters; canonical forms equal when the candidates agree */
	{
		uint32_t   *rev = unit_calloc(STREAM, sizeof(uint32_t));
		tk			b,
					ca,
					cb;

		for (i = 0; i < STREAM; i++)
			rev[i] = zs.rank[STREAM - 1 - i];
		b = zipf_sketch(rev, STREAM, TOP);
		ca = tk_compact(&t);
		cb = tk_compact(&b);
		CHECK(same_counters(&t, &b) && top_is_true_top(&b, got, sizeof(got)),
			  "the stream in reverse order: the same counters and the true top 10 (%s)", got);
		CHECK(!same_candidate_set(&ca, &cb) || same_bytes(&ca, &cb),
			  "... and when the 20 candidates agree (%s), the compact forms are byte-equal",
			  same_candidate_set(&ca, &cb) ? "they do" : "they do not");
		tk_free(&b);
		tk_free(&ca);
		tk_free(&cb);
		free(rev);
	}

	/* larger k: the top 10 of a k = 50 sketch are the same */
	{
		tk			b = zipf_sketch(zs.rank, STREAM, 50);

		CHECK(top_is_true_top(&b, got, sizeof(got)), "with k = 50 (100 candidates) the first 10 are the true top 10 (%s)", got);
		tk_free(&b);
	}
	zwhole = t;
	pool_forget(zwhole.buf);
	pool_reset();
}

static void
test_merge(void)
{
	static const int parts[] = {2, 3, 4};
	int			pi;
	bs_error	err;
	char		got[256];

	for (pi = 0; pi < 3; pi++)
	{
		int			p = parts[pi],
					j,
					interleaved;

		for (interleaved = 0; interleaved < 2; interleaved++)
		{
			/* zeroed: GCC 14 cannot see that p >= 2 parts are always made (maybe-uninitialized) */
			tk			part[4] = {{NULL, 0}},
						saved[4] = {{NULL, 0}},
						m[3] = {{NULL, 0}};
			uint32_t   *buf = unit_calloc(STREAM, sizeof(uint32_t));
			int			bad_top = 0,
						bad_counters = 0,
						bad_valid = 0,
						unchanged = 1;
			char		tops[512] = "";

			for (j = 0; j < p; j++)
			{
				size_t		n = 0,
							i;

				for (i = 0; i < STREAM; i++)
					if (interleaved ? (int) (i % (size_t) p) == j : (int) (i * (size_t) p / STREAM) == j)
						buf[n++] = zs.rank[i];
				part[j] = zipf_sketch(buf, n, TOP);
				saved[j] = tk_copy(&part[j]);
			}
			/* left fold, right fold, and (p = 4) a tree; p = 3 also starts in the middle */
			m[0] = tk_copy(&part[0]);
			for (j = 1; j < p; j++)
			{
				tk			x = tk_merge_ok(&m[0], &part[j]);

				tk_free(&m[0]);
				m[0] = x;
			}
			m[1] = tk_copy(&part[p - 1]);
			for (j = p - 2; j >= 0; j--)
			{
				tk			x = tk_merge_ok(&m[1], &part[j]);

				tk_free(&m[1]);
				m[1] = x;
			}
			if (p == 4)
			{
				tk			l = tk_merge_ok(&part[0], &part[1]),
							r = tk_merge_ok(&part[2], &part[3]);

				m[2] = tk_merge_ok(&r, &l);
				tk_free(&l);
				tk_free(&r);
			}
			else if (p == 3)
			{
				tk			x = tk_merge_ok(&part[1], &part[0]);

				m[2] = tk_merge_ok(&x, &part[2]);
				tk_free(&x);
			}
			else
				m[2] = tk_merge_ok(&part[1], &part[0]);
			for (j = 0; j < 3; j++)
			{
				bad_top += !top_is_true_top(&m[j], got, sizeof(got));
				if (strlen(tops) < 400)
					snprintf(tops + strlen(tops), sizeof(tops) - strlen(tops), "%s%s", j ? " / " : "", got);
				bad_counters += !same_counters(&m[j], &zwhole);
				bad_valid += !tk_valid(&m[j], true, &err);
			}
			for (j = 0; j < p; j++)
				unchanged &= same_bytes(&part[j], &saved[j]);
			CHECK(bad_top == 0 && bad_counters == 0 && bad_valid == 0,
				  "%d %s parts, merged in 3 orders: the true top 10 each time (%s), the counters of the whole sketch, valid (%d, %d, %d wrong)",
				  p, interleaved ? "interleaved" : "contiguous", tops, bad_top, bad_counters, bad_valid);
			CHECK(unchanged, "%d %s parts: bs_topk1_merge left every source unchanged", p, interleaved ? "interleaved" : "contiguous");
			if (p == 2)
			{
				tk			ab = tk_merge_ok(&part[0], &part[1]),
							ba = tk_merge_ok(&part[1], &part[0]),
							self = tk_merge_ok(&part[0], &part[0]);
				bs_topk1		v,
							s;

				CHECK(same_bytes(&ab, &ba), "2 %s parts: merge(a, b) and merge(b, a) are byte-equal",
					  interleaved ? "interleaved" : "contiguous");
				bs_topk1_view(self.buf, self.len, &v);
				bs_topk1_view(part[0].buf, part[0].len, &s);
				CHECK(v.cms.total == 2 * s.cms.total && tk_valid(&self, true, &err) && same_bytes(&part[0], &saved[0]),
					  "a part merged with itself doubles its total, is valid, and the part is unchanged");
				tk_free(&ab);
				tk_free(&ba);
				tk_free(&self);
			}
			for (j = 0; j < p; j++)
			{
				tk_free(&part[j]);
				tk_free(&saved[j]);
			}
			for (j = 0; j < 3; j++)
				tk_free(&m[j]);
			free(buf);
			pool_reset();
		}
	}
}

/* Merging with an empty sketch of the same shape is compacting. */
static void
test_merge_edges(void)
{
	tk			empty = tk_new(zwidth, zdepth, TOP, 0, BS_FAMILY_TEXT, 0),
				a = tk_compact(&zwhole),
				m,
				m2,
				saved = tk_copy(&zwhole),
				other;
	bs_error	err;
	bs_status	st;
	char		key1[64];
	uint32_t	key1len = item_key(1, key1);

	m = tk_merge_ok(&zwhole, &empty);
	m2 = tk_merge_ok(&empty, &zwhole);
	CHECK(same_bytes(&m, &a) && same_bytes(&m2, &a),
		  "merging with an empty sketch of the same shape, either way round, gives the compact form");
	tk_free(&m);
	tk_free(&m2);

	other = tk_new(zwidth, zdepth, TOP + 1, 0, BS_FAMILY_TEXT, 0);
	st = tk_merge(&zwhole, &other, &m, &err);
	CHECK(st == BS_ERR_SHAPE && m.buf == NULL && strstr(err.msg, "k = 10") && strstr(err.msg, "k = 11") &&
		  same_bytes(&zwhole, &saved),
		  "merging k = 10 with k = 11 is BS_ERR_SHAPE naming both, nothing returned, nothing changed (%s)", err.msg);
	tk_free(&other);
	other = tk_new(zwidth + 1, zdepth, TOP, 0, BS_FAMILY_TEXT, 0);
	st = tk_merge(&zwhole, &other, &m, &err);
	CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "width 2719") && strstr(err.msg, "width 2720") && same_bytes(&zwhole, &saved),
		  "merging width 2719 with width 2720 is BS_ERR_SHAPE naming both (%s)", err.msg);
	tk_free(&other);
	other = tk_new(zwidth, zdepth + 1, TOP, 0, BS_FAMILY_TEXT, 0);
	st = tk_merge(&other, &zwhole, &m, &err);
	CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "depth 6") && strstr(err.msg, "depth 5") && same_bytes(&zwhole, &saved),
		  "merging depth 6 with depth 5 is BS_ERR_SHAPE naming both (%s)", err.msg);
	tk_free(&other);
	other = tk_new(zwidth, zdepth, TOP, 0, BS_FAMILY_TEXT, 1);
	st = tk_merge(&zwhole, &other, &m, &err);
	CHECK(st == BS_ERR_SHAPE && strstr(err.msg, "seed 0") && strstr(err.msg, "seed 1"),
		  "merging seeds 0 and 1 is BS_ERR_SHAPE naming both (%s)", err.msg);
	tk_free(&other);
	other = tk_new(zwidth, zdepth, TOP, 0, BS_FAMILY_BYTEA, 0);
	tk_add_ok(&other, "x", 1, 1);
	st = tk_merge(&zwhole, &other, &m, &err);
	CHECK(st == BS_ERR_FAMILY && strstr(err.msg, "text") && strstr(err.msg, "bytea") && same_bytes(&zwhole, &saved),
		  "merging text and bytea sketches is BS_ERR_FAMILY naming both families (%s)", err.msg);
	tk_free(&other);
	other = tk_new(zwidth, zdepth, TOP, 0, BS_FAMILY_TEXT, 0);
	tk_add_ok(&other, key1, key1len, (uint64_t) INT64_MAX - STREAM + 1);
	st = tk_merge(&zwhole, &other, &m, &err);
	CHECK(st == BS_ERR_LIMIT && same_bytes(&zwhole, &saved),
		  "a merge whose total would pass 2^63 - 1 is BS_ERR_LIMIT (%s)", err.msg);
	tk_free(&other);
	other = tk_new(zwidth, zdepth, TOP, 0, BS_FAMILY_TEXT, 0);
	tk_add_ok(&other, key1, key1len, (uint64_t) INT64_MAX - STREAM);
	m = tk_merge_ok(&zwhole, &other);
	{
		bs_topk1		v;
		bs_topk1_item it;

		bs_topk1_view(m.buf, m.len, &v);
		bs_topk1_item_at(&v, 0, &it);
		bs_topk1		w;
		uint64_t	whole_est;

		bs_topk1_view(zwhole.buf, zwhole.len, &w);
		whole_est = bs_cms_frequency(&w.cms, item_hash(1, 0));
		CHECK(v.cms.total == (uint64_t) INT64_MAX && it.count == (uint64_t) INT64_MAX - STREAM + whole_est &&
			  it.len == key1len && memcmp(it.key, key1, key1len) == 0 && tk_valid(&m, true, &err),
			  "a merge reaching exactly 2^63 - 1 works; the top item leads with the sum of its two estimates");
	}
	tk_free(&m);
	tk_free(&other);
	tk_free(&empty);
	tk_free(&a);
	tk_free(&saved);
}

/* ---- the merge against the quadratic reference ---- */

/*
 * REFERENCE ONLY: bs_topk1_merge as it was before it sorted to deduplicate
 * (src/core/topk.c at 5de14c2), copied with its static helpers.  Each
 * candidate of dst then src is looked up in the ones kept so far (quadratic)
 * and kept if new; the kept ones are ranked by estimate (highest first), then
 * hash.  The merge must give these bytes for every input.
 */
typedef struct ref_ranked
{
	uint64_t	est;
	uint64_t	hash;
	const uint8_t *key;
	uint32_t	len;
} ref_ranked;

static int
ref_rank_cmp(const void *pa, const void *pb)
{
	const ref_ranked *a = pa,
			   *b = pb;

	if (a->est != b->est)
		return a->est > b->est ? -1 : 1;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return 0;
}

static uint64_t
ref_counters_bytes(uint64_t width, uint32_t depth)
{
	return width * depth * 8;
}

static void
ref_set_slot(bs_topk1 *t, uint32_t i, uint64_t hash, uint64_t count, uint32_t off,
			 uint32_t len)
{
	uint8_t    *s = t->slots + (uint64_t) i * BS_TOPK_SLOT;

	bs_store64(s, hash);
	bs_store64(s + 8, count);
	bs_store32(s + 16, off);
	bs_store32(s + 20, len);
}

static ref_ranked *
ref_ranked_array(const bs_allocator *a, size_t n)
{
	uint8_t    *raw = a->alloc(a->ctx, n * sizeof(ref_ranked) + 8);

	return (ref_ranked *) (((uintptr_t) raw + 7) & ~(uintptr_t) 7);
}

static uint8_t *
ref_write_canonical(const uint8_t *header_src, const uint8_t *counters, ref_ranked *r,
					size_t n, const bs_allocator *a, size_t *outlen)
{
	bs_topk1		t;
	uint64_t	width = bs_load64(header_src + BS_OFF_P1);
	uint32_t	depth = bs_load32(header_src + BS_OFF_P2),
				k = bs_load32(header_src + BS_OFF_P3),
				cap = 2 * k,
				i;
	uint64_t	live = 0,
				off = 0,
				fixed = BS_HEADER_SIZE + ref_counters_bytes(width, depth) + (uint64_t) cap * BS_TOPK_SLOT;
	uint8_t    *out;

	if (n > cap)
		n = cap;
	for (i = 0; i < n; i++)
		live += r[i].len;
	*outlen = (size_t) (fixed + live);
	out = a->alloc(a->ctx, *outlen);
	memcpy(out, header_src, BS_HEADER_SIZE);
	memcpy(out + BS_HEADER_SIZE, counters, ref_counters_bytes(width, depth));
	bs_topk1_view(out, *outlen, &t);
	for (i = 0; i < n; i++)
	{
		memcpy(t.heap + off, r[i].key, r[i].len);
		ref_set_slot(&t, i, r[i].hash, r[i].est, (uint32_t) off, r[i].len);
		off += r[i].len;
	}
	t.ncand = (uint32_t) n;
	t.heap_used = (uint32_t) off;
	bs_store64(t.cms.buf + BS_OFF_X, (uint64_t) t.ncand | ((uint64_t) t.heap_used << 32));
	return out;
}

static uint8_t *
reference_merge_quadratic(const uint8_t *dst, size_t dlen, const uint8_t *src, size_t slen,
						  const bs_allocator *a, size_t *outlen, bs_error *err,
						  bs_status *status)
{
	bs_topk1		d,
				s;
	bs_cms		sum;
	uint8_t    *tmp;
	ref_ranked *r;
	size_t		n = 0;
	uint32_t	i;
	uint64_t	cbytes;

	bs_topk1_view((uint8_t *) dst, dlen, &d);
	bs_topk1_view((uint8_t *) src, slen, &s);
	if (d.k != s.k)
	{
		*status = bs_fail(err, BS_ERR_SHAPE, "k differs");
		return NULL;
	}
	if (d.cms.width != s.cms.width || d.cms.depth != s.cms.depth || d.cms.seed != s.cms.seed)
	{
		*status = bs_fail(err, BS_ERR_SHAPE, "shapes differ");
		return NULL;
	}
	cbytes = ref_counters_bytes(d.cms.width, d.cms.depth);
	tmp = a->alloc(a->ctx, (size_t) (BS_HEADER_SIZE + cbytes));
	memcpy(tmp, dst, (size_t) (BS_HEADER_SIZE + cbytes));
	bs_cms_view(tmp, &sum);
	if ((*status = bs_cms_merge(&sum, &s.cms, err)) != BS_OK)
		return NULL;

	r = ref_ranked_array(a, (size_t) d.ncand + s.ncand + 1);
	for (i = 0; i < d.ncand + s.ncand; i++)
	{
		bs_topk1_item it;
		size_t		j;

		bs_topk1_item_at(i < d.ncand ? &d : &s, i < d.ncand ? i : i - d.ncand, &it);
		for (j = 0; j < n && r[j].hash != it.hash; j++)
			;
		if (j < n)
			continue;
		r[n].hash = it.hash;
		r[n].est = bs_cms_frequency(&sum, it.hash);
		r[n].key = it.key;
		r[n].len = it.len;
		n++;
	}
	qsort(r, n, sizeof(ref_ranked), ref_rank_cmp);
	return ref_write_canonical(tmp, sum.counters, r, n, a, outlen);
}

/*
 * The key of id in a family: the same id gives the same bytes on either side.
 * Text, bytea and numeric keys have 0 to 40 bytes (short ones of different
 * ids may be equal), or with unique 8 to 40, each beginning with the id.
 */
static void
ref_key(uint8_t family, uint64_t id, bool unique, uint8_t *key, uint32_t *len)
{
	unit_rng	kr = {id * UINT64_C(0x9e3779b97f4a7c15) + family};
	int			i;

	for (i = 0; i < 40; i += 8)
	{
		uint64_t	x = unit_next(&kr);

		memcpy(key + i, &x, 8);
	}
	if (unique)
		memcpy(key, &id, 8);
	if (family == BS_FAMILY_UUID)
		*len = 16;
	else if (family == BS_FAMILY_TEXT || family == BS_FAMILY_BYTEA || family == BS_FAMILY_NUMERIC)
		*len = unique ? 8 + (uint32_t) (id % 33) : (uint32_t) (id % 41);
	else
		*len = 8;
}

/*
 * A value of k with n candidates of family, key ids first_id + 0 .. n - 1
 * (n <= 2k), counted 1 + (id * mul) % mod times each, written directly:
 * bs_topk1_add scans the candidates once per add, too slow at k = 10,000.
 * The slots are in id order with estimates from the final counters, and the
 * heap has spare room: a value of the add path.
 */
static tk
ref_direct(uint64_t width, uint32_t depth, uint32_t k, uint8_t family, uint64_t first_id,
		   uint32_t n, uint64_t mul, uint64_t mod)
{
	tk			t = tk_new(width, depth, k, (uint64_t) n * 40 + 16, family, 0);
	bs_topk1		v;
	uint64_t	used = 0;
	uint32_t	i;
	bs_error	err;

	bs_topk1_view(t.buf, t.len, &v);
	for (i = 0; i < n; i++)
	{
		uint8_t		key[40];
		uint32_t	len;

		ref_key(family, first_id + i, true, key, &len);
		if (bs_cms_add(&v.cms, bs_hash_bytes(key, len, 0), 1 + ((first_id + i) * mul) % mod, &err) != BS_OK)
			exit(2);
	}
	for (i = 0; i < n; i++)
	{
		uint8_t		key[40];
		uint32_t	len;
		uint64_t	h;

		ref_key(family, first_id + i, true, key, &len);
		h = bs_hash_bytes(key, len, 0);
		memcpy(v.heap + used, key, len);
		ref_set_slot(&v, i, h, bs_cms_frequency(&v.cms, h), (uint32_t) used, len);
		used += len;
	}
	bs_store64(t.buf + BS_OFF_X, (uint64_t) n | (used << 32));
	return t;
}

typedef struct ref_stats
{
	long		merges,
				errors,
				differ,
				changed,
				shared,			/* merges where a hash is on both sides */
				ties,			/* merges with two kept candidates of one estimate */
				truncated,		/* more distinct candidates than 2k */
				forged,			/* one hash, different key bytes, on purpose */
				self,
				empty;
} ref_stats;

/* How many different values h[0..n) holds (sorts h). */
static uint64_t
distinct_hashes(uint64_t *h, size_t n)
{
	uint64_t	d = 0;
	size_t		i;

	qsort(h, n, sizeof(uint64_t), cmp_u64);
	for (i = 0; i < n; i++)
		d += i == 0 || h[i] != h[i - 1];
	return d;
}

/* Merge a with b by bs_topk1_merge and by the reference; count what differs. */
static void
ref_compare(const tk *a, const tk *b, ref_stats *rs)
{
	tk			got,
				want,
				sa = tk_copy(a),
				sb = tk_copy(b);
	bs_error	err;
	bs_status	st_got = BS_OK,
				st_want = BS_OK;

	got.buf = NULL;
	st_got = bs_topk1_merge(a->buf, a->len, b->buf, b->len, &alloc, &got.buf, &got.len, &err);
	want.buf = reference_merge_quadratic(a->buf, a->len, b->buf, b->len, &alloc, &want.len, &err, &st_want);
	rs->merges++;
	if (got.buf == NULL || want.buf == NULL)
	{
		rs->errors++;
		if (got.buf != want.buf || st_got != st_want)
			rs->differ++;
	}
	else
	{
		bs_topk1		v,
					va,
					vb;
		uint32_t	i,
					j;
		uint64_t	distinct,
					distinct_a,
					distinct_b;

		if (!same_bytes(&got, &want))
			rs->differ++;
		bs_topk1_view(want.buf, want.len, &v);
		for (i = 1; i < v.ncand; i++)
			if (bs_load64(v.slots + (size_t) i * BS_TOPK_SLOT + 8) ==
				bs_load64(v.slots + (size_t) (i - 1) * BS_TOPK_SLOT + 8))
				break;
		rs->ties += i < v.ncand;
		bs_topk1_view(a->buf, a->len, &va);
		bs_topk1_view(b->buf, b->len, &vb);
		{
			uint64_t   *h = unit_calloc((size_t) va.ncand + vb.ncand, sizeof(uint64_t));

			for (j = 0; j < va.ncand; j++)
				h[j] = bs_load64(va.slots + (size_t) j * BS_TOPK_SLOT);
			distinct_a = distinct_hashes(h, va.ncand);
			for (j = 0; j < vb.ncand; j++)
				h[j] = bs_load64(vb.slots + (size_t) j * BS_TOPK_SLOT);
			distinct_b = distinct_hashes(h, vb.ncand);
			for (j = 0; j < va.ncand; j++)
				h[vb.ncand + j] = bs_load64(va.slots + (size_t) j * BS_TOPK_SLOT);
			distinct = distinct_hashes(h, (size_t) va.ncand + vb.ncand);
			free(h);
		}
		rs->shared += distinct < distinct_a + distinct_b;
		rs->truncated += distinct > v.cap;
		tk_free(&got);
		tk_free(&want);
	}
	if (!same_bytes(a, &sa) || !same_bytes(b, &sb))
		rs->changed++;
	tk_free(&sa);
	tk_free(&sb);
}

/*
 * Random pairs of values of one shape: k from 1 to 300, narrow and wide
 * counters (narrow ones make many equal estimates, so the hash tie break
 * decides), keys of every length class, disjoint, overlapping and equal key
 * sets, add-path and compact values, empty sides, a value merged with
 * itself, and forged values (accepted by the quick check only) where one
 * hash has two different keys, within dst or across dst and src: the copy
 * kept must be the first in dst then src.
 */
static void
test_merge_reference(void)
{
	static const uint8_t families[] = {BS_FAMILY_INTEGER, BS_FAMILY_TEXT, BS_FAMILY_BYTEA,
	BS_FAMILY_UUID, BS_FAMILY_FLOAT, BS_FAMILY_NUMERIC, BS_FAMILY_DATE, BS_FAMILY_TIMESTAMPTZ};
	static const uint64_t widths[] = {1, 2, 3, 7, 50, 500};
	unit_rng	r = {1500};
	ref_stats	rs;
	int			iter;

	memset(&rs, 0, sizeof(rs));
	for (iter = 0; iter < 3000; iter++)
	{
		uint32_t	k = (iter % 10 == 9) ? 100 + (uint32_t) unit_below(&r, 201) :
			1 + (uint32_t) unit_below(&r, iter % 2 ? 40 : 4);
		uint64_t	width = widths[unit_below(&r, sizeof(widths) / sizeof(widths[0]))];
		uint32_t	depth = 1 + (uint32_t) unit_below(&r, 4);
		uint8_t		family = families[unit_below(&r, sizeof(families) / sizeof(families[0]))];
		int			mode = (int) unit_below(&r, 8);
		uint64_t	universe = 1 + unit_below(&r, 4 * (uint64_t) k + 6),
					base_b;
		tk			side[2];
		int			s;

		/* 0, 1: overlapping, 2: disjoint, 3: the same keys, 4: dst empty, 5: src empty, 6: self, 7: forged */
		base_b = mode == 2 ? UINT64_C(1) << 40 : mode == 3 ? 0 : unit_below(&r, universe + 1);
		for (s = 0; s < 2; s++)
		{
			bool		empty = (mode == 4 && s == 0) || (mode == 5 && s == 1);
			uint64_t	adds = empty ? 0 : unit_below(&r, 6 * universe + 1),
						j;
			uint64_t	big = unit_below(&r, 4) == 0 ? 1000 : 2;

			side[s] = tk_new(width, depth, k, unit_below(&r, 65),
							 empty && unit_below(&r, 2) ? BS_FAMILY_NONE : family, 0);
			for (j = 0; j < adds; j++)
			{
				uint8_t		key[40];
				uint32_t	len;
				uint64_t	id = (s ? base_b : 0) + unit_below(&r, universe) * unit_below(&r, universe) / universe;

				ref_key(family, id, false, key, &len);
				tk_add_ok(&side[s], key, len, 1 + unit_below(&r, big));
			}
			if (unit_below(&r, 3) == 0)
			{
				tk			c = tk_compact(&side[s]);

				tk_free(&side[s]);
				side[s] = c;
			}
		}
		if (mode == 7)
		{
			bs_topk1		va,
						vb;

			bs_topk1_view(side[0].buf, side[0].len, &va);
			bs_topk1_view(side[1].buf, side[1].len, &vb);
			/* a src slot takes a dst hash (its own key bytes stay) */
			if (va.ncand > 0 && vb.ncand > 0)
				bs_store64(vb.slots + unit_below(&r, vb.ncand) * BS_TOPK_SLOT,
						   bs_load64(va.slots + unit_below(&r, va.ncand) * BS_TOPK_SLOT));
			/* a dst slot takes the hash of another dst slot, earlier or later */
			if (va.ncand > 1)
				bs_store64(va.slots + unit_below(&r, va.ncand) * BS_TOPK_SLOT,
						   bs_load64(va.slots + unit_below(&r, va.ncand) * BS_TOPK_SLOT));
			rs.forged++;
		}
		if (mode == 6)
		{
			ref_compare(&side[0], &side[0], &rs);
			rs.self++;
		}
		else
		{
			ref_compare(&side[0], &side[1], &rs);
			ref_compare(&side[1], &side[0], &rs);
			rs.empty += mode == 4 || mode == 5;
		}
		tk_free(&side[0]);
		tk_free(&side[1]);
		pool_reset();
	}
	/* shape and family errors: the same status either way */
	{
		tk			a = tk_new(7, 2, 3, 0, BS_FAMILY_TEXT, 0),
					b = tk_new(7, 2, 4, 0, BS_FAMILY_TEXT, 0),
					c = tk_new(7, 2, 3, 0, BS_FAMILY_BYTEA, 0);

		tk_add_ok(&a, "a", 1, 1);
		tk_add_ok(&c, "c", 1, 1);
		ref_compare(&a, &b, &rs);
		ref_compare(&a, &c, &rs);
		tk_free(&a);
		tk_free(&b);
		tk_free(&c);
		pool_reset();
	}
	CHECK(rs.differ == 0 && rs.changed == 0,
		  "merge = the quadratic reference, byte for byte, on %ld random merges (k 1 to 300; %ld with a hash on both sides, %ld with tied estimates, %ld cut to 2k, %ld with forged duplicate hashes, %ld of a value with itself, %ld with an empty side, %ld errors): %ld differ, %ld changed a source",
		  rs.merges, rs.shared, rs.ties, rs.truncated, rs.forged, rs.self, rs.empty, rs.errors,
		  rs.differ, rs.changed);
	CHECK(rs.shared > 1000 && rs.ties > 1000 && rs.truncated > 100 && rs.forged > 100 &&
		  rs.self > 100 && rs.empty > 100 && rs.errors >= 2 && rs.merges - rs.errors - rs.shared > 500,
		  "the random merges cover shared and disjoint candidates, ties, truncation, forged duplicates, self merges, empty sides and errors");

	/* k = 10,000: 20,000 candidates a side, 10,000 of them shared, estimates tied in 7s */
	{
		tk			a = ref_direct(2719, 5, BS_TOPK_MAX_K, BS_FAMILY_TEXT, 0, 2 * BS_TOPK_MAX_K, 1, 7),
					b = ref_direct(2719, 5, BS_TOPK_MAX_K, BS_FAMILY_TEXT, BS_TOPK_MAX_K, 2 * BS_TOPK_MAX_K, 3, 5);
		bs_error	err;

		memset(&rs, 0, sizeof(rs));
		ref_compare(&a, &b, &rs);
		ref_compare(&b, &a, &rs);
		ref_compare(&a, &a, &rs);
		CHECK(tk_valid(&a, true, &err) && tk_valid(&b, true, &err) &&
			  rs.merges == 3 && rs.errors == 0 && rs.differ == 0 && rs.changed == 0 && rs.truncated == 2 && rs.ties == 3,
			  "k = 10,000, 20,000 candidates a side with 10,000 shared: merge(a, b), merge(b, a) and merge(a, a) equal the quadratic reference byte for byte (%ld differ)",
			  rs.differ);
		tk_free(&a);
		tk_free(&b);
		pool_reset();
	}
}

static void
test_compact(void)
{
	/* 12 keys, k = 8: never more than 2k distinct, so the candidates always agree */
	tk			a = tk_new(50, 3, 8, 0, BS_FAMILY_BYTEA, 0),
				b = tk_new(50, 3, 8, 64, BS_FAMILY_BYTEA, 0),
				ca,
				cb,
				cc,
				before;
	unit_rng	r = {1200};
	uint8_t		keys[12][12];
	uint32_t	lens[12];
	int			i,
				order_ok = 1,
				est_ok = 1,
				slots_zero = 1;
	bs_topk1		v;
	bs_error	err;

	for (i = 0; i < 12; i++)
	{
		uint64_t	x = unit_next(&r);

		lens[i] = (uint32_t) (i % 12);
		memcpy(keys[i], &x, 8);
		memcpy(keys[i] + 8, &x, 4);
	}
	for (i = 0; i < 600; i++)
	{
		int			ka = (int) (unit_below(&r, 12) * unit_below(&r, 12) / 11);

		tk_add_ok(&a, keys[ka], lens[ka], 1 + (uint64_t) i % 3);
		tk_add_ok(&b, keys[ka], lens[ka], 1 + (uint64_t) i % 3);
	}
	/* b again, the same adds in reverse order, into a fresh value */
	tk_free(&b);
	b = tk_new(50, 3, 8, 64, BS_FAMILY_BYTEA, 0);
	{
		unit_rng	r2 = {1200};
		int			seq[600];

		for (i = 0; i < 12; i++)
			unit_next(&r2);
		for (i = 0; i < 600; i++)
			seq[i] = (int) (unit_below(&r2, 12) * unit_below(&r2, 12) / 11);
		for (i = 599; i >= 0; i--)
			tk_add_ok(&b, keys[seq[i]], lens[seq[i]], 1 + (uint64_t) i % 3);
	}
	before = tk_copy(&a);
	ca = tk_compact(&a);
	cb = tk_compact(&b);
	CHECK(same_bytes(&a, &before), "bs_topk1_compact leaves its input unchanged");
	CHECK(!same_bytes(&a, &b) && same_candidate_set(&a, &b) && same_bytes(&ca, &cb),
		  "12 keys added in two different orders, with different spare key bytes: the values differ, the candidates agree, the compact forms are byte-equal (%zu bytes)",
		  ca.len);
	cc = tk_compact(&ca);
	CHECK(same_bytes(&cc, &ca), "compacting a compact form changes nothing");
	bs_topk1_view(ca.buf, ca.len, &v);
	for (i = 0; i < (int) v.cap; i++)
	{
		bs_topk1_item it,
					prev;

		if (i >= (int) v.ncand)
		{
			static const uint8_t zero[BS_TOPK_SLOT];

			slots_zero &= memcmp(v.slots + (size_t) i * BS_TOPK_SLOT, zero, BS_TOPK_SLOT) == 0;
			continue;
		}
		bs_topk1_item_at(&v, (uint32_t) i, &it);
		est_ok &= it.count == bs_cms_frequency(&v.cms, it.hash);
		if (i > 0)
		{
			bs_topk1_item_at(&v, (uint32_t) i - 1, &prev);
			order_ok &= prev.count > it.count || (prev.count == it.count && prev.hash < it.hash);
		}
	}
	CHECK(v.ncand == 12 && order_ok && est_ok && slots_zero && tk_valid(&ca, true, &err),
		  "compact form: 12 candidates by estimate (highest first) then hash, estimates read from the counters, unused slots zero, valid");
	{
		uint64_t	live = 0;

		for (i = 0; i < 12; i++)
			live += lens[i];
		CHECK(v.heap_used == live && ca.len == BS_HEADER_SIZE + 50 * 3 * 8 + 16 * BS_TOPK_SLOT + live,
			  "compact form keeps exactly the %" PRIu64 " live key bytes and no spare room", live);
	}
	tk_free(&a);
	tk_free(&b);
	tk_free(&ca);
	tk_free(&cb);
	tk_free(&cc);
	tk_free(&before);

	/* the compact form of the 1,000,000-key sketch */
	ca = tk_compact(&zwhole);
	bs_topk1_view(ca.buf, ca.len, &v);
	{
		bs_topk1		w;
		uint64_t	live = 0;
		uint32_t	j;

		bs_topk1_view(zwhole.buf, zwhole.len, &w);
		for (j = 0; j < w.ncand; j++)
		{
			bs_topk1_item it;

			bs_topk1_item_at(&w, j, &it);
			live += it.len;
		}
		CHECK(same_counters(&ca, &zwhole) && v.ncand == w.ncand && v.heap_used == live &&
			  ca.len == BS_HEADER_SIZE + counters_bytes(&ca) + 20 * BS_TOPK_SLOT + live &&
			  tk_valid(&ca, true, &err) && ca.len < zwhole.len,
			  "compact form of the 1,000,000-key sketch: same counters and candidates, %" PRIu64 " live key bytes, %zu bytes (the aggregate state had %zu, %u key bytes used)",
			  live, ca.len, zwhole.len, w.heap_used);
	}
	tk_free(&ca);
}

static void
test_regrow(void)
{
	tk			t = tk_new(64, 2, 2, 0, BS_FAMILY_TEXT, 0);
	uint8_t    *first = t.buf;
	bs_topk1		v;
	bs_error	err;
	char		key[200];
	int			i,
				regrows = 0,
				over = 0,
				invalid = 0,
				packed = 0;
	uint32_t	max_used = 0;

	/* no room at all: the first key regrows */
	memset(key, 'a', 100);
	tk_add_ok(&t, key, 100, 1);
	bs_topk1_view(t.buf, t.len, &v);
	CHECK(t.buf != first && v.heap_used == 100 && v.heap_cap >= 100 && tk_valid(&t, true, &err),
		  "a value with no spare key bytes regrows on its first key: %u of %" PRIu64 " key bytes used, valid", v.heap_used, v.heap_cap);

	/* 400 distinct keys of rising counts: each one evicts, stale key bytes pile up until a regrow packs them */
	for (i = 0; i < 400; i++)
	{
		uint8_t    *old = t.buf;
		uint32_t	len = 20 + (uint32_t) (i % 150);
		uint32_t	prev_used;

		bs_topk1_view(t.buf, t.len, &v);
		prev_used = v.heap_used;
		memset(key, 'b', sizeof(key));
		sprintf(key, "%d:", i);
		key[strlen(key)] = 'b';
		tk_add_ok(&t, key, len, (uint64_t) i + 2);
		bs_topk1_view(t.buf, t.len, &v);
		if (t.buf != old)
		{
			uint64_t	live = 0;
			uint32_t	j;

			regrows++;
			for (j = 0; j < v.ncand; j++)
			{
				bs_topk1_item it;

				bs_topk1_item_at(&v, j, &it);
				live += it.len;
			}
			/* after a regrow only the live keys remain, the new one included */
			packed += v.heap_used == live || v.heap_used < prev_used + len;
		}
		over += v.heap_used > v.heap_cap;
		invalid += !tk_valid(&t, true, &err);
		if (v.heap_used > max_used)
			max_used = v.heap_used;
	}
	CHECK(regrows > 3 && packed == regrows && over == 0 && invalid == 0 && v.ncand == 4,
		  "400 evicting keys of 20 to 169 bytes: %d regrows, each packing the live keys (%d did); key bytes never past their room (%d), valid after every add (%d not); at most %u key bytes used",
		  regrows, packed, over, invalid, max_used);

	/* two slots, keys of the maximum length */
	tk_free(&t);
	t = tk_new(16, 2, 1, 0, BS_FAMILY_BYTEA, 0);
	{
		uint8_t    *big = unit_calloc(1, BS_TOPK_MAX_KEY);

		for (i = 0; i < 5; i++)
		{
			memset(big, 'A' + i, BS_TOPK_MAX_KEY);
			tk_add_ok(&t, big, BS_TOPK_MAX_KEY, (uint64_t) i + 1);
		}
		bs_topk1_view(t.buf, t.len, &v);
		CHECK(v.ncand == 2 && tk_valid(&t, true, &err) && v.heap_used <= v.heap_cap,
			  "k = 1 with five keys of 65536 bytes: 2 candidates, valid, %u of %" PRIu64 " key bytes used", v.heap_used, v.heap_cap);
		free(big);
	}
	tk_free(&t);
	pool_reset();
}

/* ---- validation ---- */

static tk	sample_canon;		/* compact, text keys */
static tk	sample_state;		/* an add-path value: spare key bytes and stale ones */

static void
make_check_samples(void)
{
	tk			t = tk_new(10, 3, 3, 16, BS_FAMILY_TEXT, 0);
	int			i;
	char		key[16];

	for (i = 0; i < 40; i++)
	{
		int			n = sprintf(key, "key%d", (i * 7) % 9);

		tk_add_ok(&t, key, (uint32_t) n, 1 + (uint64_t) (i % 4));
	}
	sample_state = t;
	sample_canon = tk_compact(&t);
	pool_forget(sample_state.buf);
	pool_forget(sample_canon.buf);
	pool_reset();
}

static tk
mutated(const tk *s, size_t off, uint64_t v, int width)
{
	tk			c = tk_copy(s);
	int			i;

	for (i = 0; i < width; i++)
		c.buf[off + i] = (uint8_t) (v >> (8 * i));
	return c;
}

static bs_status
validate_mutated(const tk *s, size_t off, uint64_t v, int width, bool deep, bs_error *err)
{
	tk			c = mutated(s, off, v, width);
	bs_status	st = bs_validate(c.buf, c.len, BS_KIND_TOPK, deep, NULL, err);

	tk_free(&c);
	return st;
}

/* Offset of field f (0 hash, 8 estimate, 16 offset, 20 length) of slot i. */
static size_t
slot_off(const tk *t, uint32_t i, int f)
{
	return (size_t) (BS_HEADER_SIZE + counters_bytes(t) + (uint64_t) i * BS_TOPK_SLOT + (uint64_t) f);
}

static void
test_check(void)
{
	const tk   *c = &sample_canon,
			   *s = &sample_state;
	bs_topk1		v;
	bs_error	err;
	uint64_t	n;
	uint32_t	ncand,
				used;
	int			i,
				bad = 0;

	make_check_samples();
	bs_topk1_view(c->buf, c->len, &v);
	ncand = v.ncand;
	used = v.heap_used;
	n = v.cms.total;
	CHECK(tk_valid(c, true, &err) && tk_valid(s, true, &err) && ncand == 6 && s->len > c->len,
		  "check samples: a compact value (k = 3, 6 candidates, %u key bytes, %zu bytes) and the add-path value it came from (%zu bytes, spare and stale key bytes) are valid",
		  used, c->len, s->len);

	/* header: magic, version, kind, hash, family */
	for (i = 0; i < 4; i++)
		bad += validate_mutated(c, (size_t) i, c->buf[i] ^ 0x20, 1, true, &err) != BS_ERR_FORMAT;
	CHECK(bad == 0 &&
		  validate_mutated(c, 4, 2, 1, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, 5, BS_KIND_CMS, 1, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "cms sketch, not a topk") &&
		  validate_mutated(c, 5, 5, 1, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, 6, 2, 1, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, 7, 10, 1, true, &err) == BS_ERR_FORMAT,
		  "topk: bad magic, version 2, kind 3 (cms) or 5, hash algorithm 2, family 10 are BS_ERR_FORMAT (%s)", err.msg);
	CHECK(bs_validate(c->buf, c->len, BS_KIND_CMS, true, NULL, &err) == BS_ERR_FORMAT &&
		  bs_validate(c->buf, c->len, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT,
		  "a topk read as a cms or a bloom is BS_ERR_FORMAT (%s)", err.msg);
	{
		/* a cms value with the topk kind byte: its payload lacks the slots */
		uint64_t	total;
		uint8_t    *cm;

		bs_cms_size(10, 3, &total, NULL);
		cm = unit_calloc(1, total);
		bs_cms_init(cm, 10, 3, BS_FAMILY_TEXT, 0);
		cm[5] = BS_KIND_TOPK;
		CHECK(bs_validate(cm, total, BS_KIND_TOPK, true, NULL, &err) == BS_ERR_FORMAT,
			  "a cms relabelled as topk (k = 0, no slots) is BS_ERR_FORMAT (%s)", err.msg);
		free(cm);
	}

	/* k */
	CHECK(validate_mutated(c, BS_OFF_P3, 0, 4, true, &err) == BS_ERR_FORMAT && strstr(err.msg, "invalid k 0") &&
		  validate_mutated(c, BS_OFF_P3, 10001, 4, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_P3, UINT32_MAX, 4, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_P3, UINT32_C(0x80000003), 4, false, &err) == BS_ERR_FORMAT,
		  "topk with k = 0, 10001, 2^32 - 1 or 2^31 + 3 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_mutated(c, BS_OFF_P3, 4, 4, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_P3, 2, 4, true, &err) == BS_ERR_FORMAT,
		  "topk with k = 4 or 2 in the bytes of k = 3 (slots and key bytes do not line up, 6 candidates in 4 slots) is BS_ERR_FORMAT (%s)",
		  err.msg);
	/* shape */
	CHECK(validate_mutated(c, BS_OFF_P1, 0, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_P2, 0, 4, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_P2, 65, 4, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_P1, UINT64_MAX, 8, false, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_P1, UINT64_C(1) << 61, 8, false, &err) == BS_ERR_FORMAT,
		  "topk with width 0, depth 0, depth 65, width 2^64 - 1 or 2^61 is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_mutated(c, BS_OFF_P1, 11, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_P1, 9, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_P2, 4, 4, false, &err) == BS_ERR_FORMAT,
		  "topk with width 11 or 9, or depth 4, in the bytes of 10 x 3 is BS_ERR_FORMAT, deep (and quick for depth 4: no room) (%s)",
		  err.msg);
	/* total */
	CHECK(validate_mutated(c, BS_OFF_N, (uint64_t) INT64_MAX + 1, 8, false, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_N, UINT64_MAX, 8, false, &err) == BS_ERR_FORMAT,
		  "topk with a total past 2^63 - 1 is BS_ERR_FORMAT, quick check too (%s)", err.msg);
	CHECK(validate_mutated(c, BS_OFF_N, n + 1, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_N, n - 1, 8, true, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_N, n + 1, 8, false, &err) == BS_OK,
		  "topk whose counter rows do not sum to its total (%" PRIu64 " +- 1): deep check BS_ERR_FORMAT, quick check accepts (%s)",
		  n, err.msg);
	{
		/* one counter moved to another column: rows still sum to N, so only its row's sum is unchanged */
		tk			m = tk_copy(c);
		uint64_t	c0 = bs_load64(m.buf + BS_HEADER_SIZE);

		bs_store64(m.buf + BS_HEADER_SIZE, c0 + 1);
		CHECK(bs_validate(m.buf, m.len, BS_KIND_TOPK, true, NULL, &err) == BS_ERR_FORMAT && strstr(err.msg, "row 0"),
			  "a counter raised by one: row 0 no longer sums to the total, BS_ERR_FORMAT (%s)", err.msg);
		bs_store64(m.buf + BS_HEADER_SIZE, n + 1);
		CHECK(bs_validate(m.buf, m.len, BS_KIND_TOPK, true, NULL, &err) == BS_ERR_FORMAT,
			  "a counter above the total is BS_ERR_FORMAT (%s)", err.msg);
		tk_free(&m);
	}
	/* x: candidates and key bytes */
	CHECK(validate_mutated(c, BS_OFF_X, ((uint64_t) used << 32) | 7, 8, false, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_X, ((uint64_t) used << 32) | UINT32_MAX, 8, false, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "candidates"),
		  "topk claiming 7 or 2^32 - 1 candidates in 2k = 6 slots is BS_ERR_FORMAT, quick check too (%s)", err.msg);
	CHECK(validate_mutated(c, BS_OFF_X, ((uint64_t) (used + 1) << 32) | ncand, 8, false, &err) == BS_ERR_FORMAT &&
		  validate_mutated(c, BS_OFF_X, ((uint64_t) UINT32_MAX << 32) | ncand, 8, false, &err) == BS_ERR_FORMAT,
		  "topk claiming more key bytes than it has (%u + 1, 2^32 - 1) is BS_ERR_FORMAT, quick check too (%s)", used, err.msg);
	CHECK(validate_mutated(c, BS_OFF_X, ((uint64_t) used << 32) | (ncand - 1), 8, true, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "unused candidate slot"),
		  "topk claiming one candidate less than its slots hold (data in an unused slot) is BS_ERR_FORMAT (%s)", err.msg);
	CHECK(validate_mutated(c, BS_OFF_X, ((uint64_t) (used - 1) << 32) | ncand, 8, true, &err) == BS_ERR_FORMAT,
		  "topk claiming one key byte less than its candidates use is BS_ERR_FORMAT (%s)", err.msg);
	/* candidate slots */
	{
		bs_topk1_item last;
		uint32_t	li = ncand - 1;

		bs_topk1_item_at(&v, li, &last);
		CHECK(validate_mutated(c, slot_off(c, li, 16), used, 4, false, &err) == BS_ERR_FORMAT &&
			  strstr(err.msg, "outside its key bytes") &&
			  validate_mutated(c, slot_off(c, li, 16), used + 1, 4, false, &err) == BS_ERR_FORMAT &&
			  validate_mutated(c, slot_off(c, li, 16), UINT32_MAX, 4, false, &err) == BS_ERR_FORMAT &&
			  validate_mutated(c, slot_off(c, li, 20), last.len + 1, 4, false, &err) == BS_ERR_FORMAT &&
			  validate_mutated(c, slot_off(c, li, 20), UINT32_MAX, 4, false, &err) == BS_ERR_FORMAT &&
			  validate_mutated(c, slot_off(c, 0, 16), UINT32_MAX - 1, 4, false, &err) == BS_ERR_FORMAT,
			  "a candidate whose key runs past the key bytes in use (offset %u of %u bytes with its length, offset past the end, 2^32 - 1, length + 1, length 2^32 - 1, offset 2^32 - 2) is BS_ERR_FORMAT, quick check too (%s)",
			  used, used, err.msg);
		CHECK(validate_mutated(c, slot_off(c, li, 8), n + 1, 8, false, &err) == BS_ERR_FORMAT &&
			  strstr(err.msg, "counts more than the total") &&
			  validate_mutated(c, slot_off(c, li, 8), UINT64_MAX, 8, false, &err) == BS_ERR_FORMAT &&
			  validate_mutated(c, slot_off(c, li, 8), n, 8, true, &err) == BS_OK,
			  "a candidate counting more than the total (N + 1, 2^64 - 1) is BS_ERR_FORMAT, quick check too; N itself is accepted (%s)",
			  err.msg);
		CHECK(validate_mutated(c, slot_off(c, li, 0), last.hash ^ 1, 8, true, &err) == BS_ERR_FORMAT &&
			  strstr(err.msg, "does not match its hash") &&
			  validate_mutated(c, slot_off(c, li, 0), last.hash ^ 1, 8, false, &err) == BS_OK,
			  "a candidate whose hash is not its key's: deep check BS_ERR_FORMAT, quick check accepts (%s)", err.msg);
		CHECK(validate_mutated(c, (size_t) (last.key - c->buf), last.key[0] ^ 1, 1, true, &err) == BS_ERR_FORMAT &&
			  validate_mutated(c, slot_off(c, li, 20), last.len - 1, 4, true, &err) == BS_ERR_FORMAT,
			  "a candidate whose key bytes changed (one bit, one byte shorter) no longer matches its hash: BS_ERR_FORMAT (%s)", err.msg);
	}
	{
		/* k = 4 with 3 candidates: slots 3 to 7 are unused and must be zero */
		tk			u = tk_new(10, 2, 4, 0, BS_FAMILY_TEXT, 0),
					m;
		int			wrong = 0;
		uint32_t	sl;

		tk_add_ok(&u, "a", 1, 1);
		tk_add_ok(&u, "b", 1, 2);
		tk_add_ok(&u, "c", 1, 3);
		m = tk_compact(&u);
		for (sl = 3; sl < 8; sl++)
			for (i = 0; i < BS_TOPK_SLOT; i++)
				wrong += validate_mutated(&m, slot_off(&m, sl, i), 1, 1, true, &err) != BS_ERR_FORMAT ||
					validate_mutated(&m, slot_off(&m, sl, i), 1, 1, false, &err) != BS_OK;
		CHECK(tk_valid(&m, true, &err) && wrong == 0,
			  "a nonzero byte anywhere in the 5 unused slots of a k = 4 value with 3 candidates: deep check BS_ERR_FORMAT, quick check accepts (%d of 120 wrong; %s)",
			  wrong, err.msg);
		tk_free(&m);
		tk_free(&u);
	}
	{
		/* two slots swapped: still valid (the order is a property of the compact form only) */
		tk			m = tk_copy(c);
		uint8_t		tmp[BS_TOPK_SLOT];

		memcpy(tmp, m.buf + slot_off(&m, 0, 0), BS_TOPK_SLOT);
		memcpy(m.buf + slot_off(&m, 0, 0), m.buf + slot_off(&m, 1, 0), BS_TOPK_SLOT);
		memcpy(m.buf + slot_off(&m, 1, 0), tmp, BS_TOPK_SLOT);
		CHECK(bs_validate(m.buf, m.len, BS_KIND_TOPK, true, NULL, &err) == BS_OK,
			  "two candidate slots swapped: still a valid (non-canonical) value");
		tk_free(&m);
	}
	{
		/* a candidate key longer than 65536 bytes, consistent otherwise */
		tk			m = tk_new(4, 1, 1, BS_TOPK_MAX_KEY + 1, BS_FAMILY_BYTEA, 0);
		uint8_t    *key;

		bs_topk1_view(m.buf, m.len, &v);
		key = v.heap;
		memset(key, 'z', BS_TOPK_MAX_KEY + 1);
		bs_store64(m.buf + slot_off(&m, 0, 0), bs_hash_bytes(key, BS_TOPK_MAX_KEY + 1, 0));
		bs_store64(m.buf + slot_off(&m, 0, 8), 1);
		bs_store32(m.buf + slot_off(&m, 0, 16), 0);
		bs_store32(m.buf + slot_off(&m, 0, 20), BS_TOPK_MAX_KEY + 1);
		bs_store64(m.buf + BS_OFF_X, ((uint64_t) (BS_TOPK_MAX_KEY + 1) << 32) | 1);
		bs_store64(m.buf + BS_OFF_N, 1);
		bs_store64(m.buf + BS_HEADER_SIZE + 8 * bs_probe(bs_hash_bytes(key, BS_TOPK_MAX_KEY + 1, 0), 0, 4), 1);
		CHECK(bs_validate(m.buf, m.len, BS_KIND_TOPK, false, NULL, &err) == BS_ERR_FORMAT,
			  "a candidate key of 65537 bytes (otherwise consistent) is BS_ERR_FORMAT (%s)", err.msg);
		bs_store32(m.buf + slot_off(&m, 0, 20), BS_TOPK_MAX_KEY);
		bs_store64(m.buf + BS_OFF_X, ((uint64_t) BS_TOPK_MAX_KEY << 32) | 1);
		bs_store64(m.buf + slot_off(&m, 0, 0), bs_hash_bytes(key, BS_TOPK_MAX_KEY, 0));
		bs_store64(m.buf + BS_HEADER_SIZE + 8 * bs_probe(bs_hash_bytes(key, BS_TOPK_MAX_KEY + 1, 0), 0, 4), 0);
		bs_store64(m.buf + BS_HEADER_SIZE + 8 * bs_probe(bs_hash_bytes(key, BS_TOPK_MAX_KEY, 0), 0, 4), 1);
		CHECK(bs_validate(m.buf, m.len, BS_KIND_TOPK, true, NULL, &err) == BS_OK,
			  "the same value with a key of 65536 bytes is valid");
		tk_free(&m);
	}

	/* truncations and extensions */
	bad = 0;
	{
		size_t		len;
		int			accepted = 0,
					wrong = 0;
		uint64_t	fixed = BS_HEADER_SIZE + counters_bytes(s) + 6 * BS_TOPK_SLOT;

		for (len = 0; len < c->len; len++)
			bad += bs_validate(c->buf, len, BS_KIND_TOPK, true, NULL, &err) != BS_ERR_FORMAT;
		CHECK(bad == 0, "every truncation of the compact value (0 to %zu bytes) is BS_ERR_FORMAT (%d not)", c->len - 1, bad);
		bs_topk1_view(s->buf, s->len, &v);
		for (len = 0; len < s->len; len++)
		{
			bool		ok = bs_validate(s->buf, len, BS_KIND_TOPK, true, NULL, &err) == BS_OK;

			accepted += ok;
			wrong += ok != (len >= fixed + v.heap_used);
		}
		CHECK(wrong == 0,
			  "truncations of the add-path value: accepted exactly while the %u key bytes in use remain (%d lengths accepted, %d wrong)",
			  v.heap_used, accepted, wrong);
		{
			tk			e;

			e.len = c->len + 5;
			e.buf = alloc.alloc(alloc.ctx, e.len);
			memcpy(e.buf, c->buf, c->len);
			CHECK(bs_validate(e.buf, e.len, BS_KIND_TOPK, true, NULL, &err) == BS_OK,
				  "5 bytes appended to the compact value are spare key room: valid");
			tk_free(&e);
		}
	}

	/*
	 * What the validator lets through and topk_items then mishandles: two
	 * slots for the same item (topk_items lists it twice), and a key whose
	 * length does not fit a fixed-size family (topk_items of a uuid sketch
	 * copies 16 bytes from a key of 0 bytes at the end of the value).
	 */
	{
		tk			m = tk_copy(c);

		memcpy(m.buf + slot_off(&m, 1, 0), m.buf + slot_off(&m, 0, 0), BS_TOPK_SLOT);
		CHECK(bs_validate(m.buf, m.len, BS_KIND_TOPK, true, NULL, &err) == BS_ERR_FORMAT,
			  "two candidate slots holding the same item (slot 0 copied onto slot 1) are BS_ERR_FORMAT");
		tk_free(&m);
	}
	{
		static const uint8_t ukey[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
		static const uint8_t ikey[8] = {7};
		static const uint8_t ikey8[8] = {9};
		tk			u = tk_new(10, 2, 1, 0, BS_FAMILY_UUID, 0),
					m;

		tk_add_ok(&u, ukey, 16, 2);
		m = tk_compact(&u);
		bs_topk1_view(m.buf, m.len, &v);
		/* a second candidate: 0 key bytes at the end of the key bytes, with the hash of 0 bytes */
		bs_store64(m.buf + slot_off(&m, 1, 0), bs_hash_bytes("", 0, 0));
		bs_store64(m.buf + slot_off(&m, 1, 8), 1);
		bs_store32(m.buf + slot_off(&m, 1, 16), 16);
		bs_store32(m.buf + slot_off(&m, 1, 20), 0);
		bs_store64(m.buf + BS_OFF_X, ((uint64_t) 16 << 32) | 2);
		CHECK(bs_validate(m.buf, m.len, BS_KIND_TOPK, true, NULL, &err) == BS_ERR_FORMAT,
			  "a uuid sketch with a candidate key of 0 bytes (not 16) is BS_ERR_FORMAT");
		tk_free(&m);
		tk_free(&u);
		u = tk_new(10, 2, 1, 0, BS_FAMILY_INTEGER, 0);
		{
			tk			before = tk_copy(&u);

			CHECK(tk_add(&u, ikey, 3, 1, &err) == BS_ERR_PARAM && same_bytes(&u, &before),
				  "adding a key of 3 bytes (not 8) to an integer sketch is BS_ERR_PARAM and changes nothing (%s)", err.msg);
			tk_free(&before);
		}
		tk_add_ok(&u, ikey8, 8, 1);
		bs_store32(u.buf + slot_off(&u, 0, 20), 3);
		CHECK(bs_validate(u.buf, u.len, BS_KIND_TOPK, false, NULL, &err) == BS_ERR_FORMAT,
			  "an integer sketch whose candidate has 3 key bytes (not 8) fails even the quick check (%s)", err.msg);
		tk_free(&u);
	}
}

/* ---- mutation fuzz ---- */

typedef struct sample
{
	const char *what;
	tk			t;
} sample;

static sample samples[24];
static int	nsamples;

static void
key_for(uint8_t family, unit_rng *r, uint8_t *key, uint32_t *len)
{
	uint64_t	a = unit_next(r),
				b = unit_next(r);

	memcpy(key, &a, 8);
	memcpy(key + 8, &b, 8);
	switch (family)
	{
		case BS_FAMILY_UUID:
			*len = 16;
			break;
		case BS_FAMILY_TEXT:
		case BS_FAMILY_BYTEA:
			*len = (uint32_t) unit_below(r, 17);
			break;
		default:
			*len = 8;
			break;
	}
}

static void
keep(const char *what, uint64_t width, uint32_t depth, uint32_t k, uint64_t heap, uint8_t family,
	 uint64_t seed, int adds, int distinct, bool compact, unit_rng *r)
{
	sample	   *s = &samples[nsamples++];
	tk			t = tk_new(width, depth, k, heap, family, seed);
	uint8_t		keys[64][16];
	uint32_t	lens[64];
	int			i;

	for (i = 0; i < distinct; i++)
		key_for(family, r, keys[i], &lens[i]);
	for (i = 0; i < adds; i++)
	{
		int			j = (int) (unit_below(r, (uint64_t) distinct) * unit_below(r, (uint64_t) distinct) / (uint64_t) distinct);

		tk_add_ok(&t, keys[j], lens[j], 1 + unit_below(r, 3));
	}
	s->what = what;
	if (compact)
	{
		s->t = tk_compact(&t);
		tk_free(&t);
	}
	else
		s->t = t;
	pool_forget(s->t.buf);
	pool_reset();
}

static void
make_fuzz_samples(void)
{
	unit_rng	r = {1300};

	keep("empty k=1 1x1", 1, 1, 1, 0, BS_FAMILY_INTEGER, 0, 0, 1, false, &r);
	keep("empty k=2 5x2 spare", 5, 2, 2, 32, BS_FAMILY_TEXT, 0, 0, 1, false, &r);
	keep("int k=1 3x1", 3, 1, 1, 0, BS_FAMILY_INTEGER, 0, 5, 3, true, &r);
	keep("int k=2 7x3 state", 7, 3, 2, 16, BS_FAMILY_INTEGER, 0, 30, 9, false, &r);
	keep("int k=3 16x4 canon", 16, 4, 3, 0, BS_FAMILY_INTEGER, 0, 60, 20, true, &r);
	keep("text k=2 9x2 state", 9, 2, 2, 8, BS_FAMILY_TEXT, 0, 40, 12, false, &r);
	keep("text k=4 20x3 canon", 20, 3, 4, 0, BS_FAMILY_TEXT, 0, 80, 30, true, &r);
	keep("text k=5 32x2 seed 9", 32, 2, 5, 0, BS_FAMILY_TEXT, 9, 50, 8, true, &r);
	keep("bytea k=3 11x3 state", 11, 3, 3, 40, BS_FAMILY_BYTEA, 0, 100, 40, false, &r);
	keep("uuid k=2 8x2 canon", 8, 2, 2, 0, BS_FAMILY_UUID, 0, 20, 6, true, &r);
	keep("uuid k=3 13x5 state", 13, 5, 3, 0, BS_FAMILY_UUID, 0, 40, 10, false, &r);
	keep("float k=1 2x2 canon", 2, 2, 1, 0, BS_FAMILY_FLOAT, 0, 10, 4, true, &r);
	keep("date k=6 64x1 canon", 64, 1, 6, 0, BS_FAMILY_DATE, 0, 200, 60, true, &r);
	keep("timestamptz k=2 6x2 state", 6, 2, 2, 100, BS_FAMILY_TIMESTAMPTZ, 0, 12, 5, false, &r);
}

/*
 * What the validator accepts but topk_agg never writes (see test_check):
 * 1 = two candidates with one hash, 2 = a key length that does not fit a
 * fixed-size family, 4 = candidates in a sketch of family none.
 */
static int
odd_candidates(const tk *t)
{
	bs_topk1		v;
	uint32_t	i,
				j;
	int			odd = 0;
	uint8_t		family = t->buf[BS_OFF_FAMILY];
	uint32_t	want = family == BS_FAMILY_UUID ? 16 :
		(family == BS_FAMILY_TEXT || family == BS_FAMILY_BYTEA || family == BS_FAMILY_NUMERIC ||
		 family == BS_FAMILY_NONE) ? 0 : 8;

	bs_topk1_view(t->buf, t->len, &v);
	if (family == BS_FAMILY_NONE && v.ncand > 0)
		odd |= 4;
	for (i = 0; i < v.ncand; i++)
	{
		bs_topk1_item a,
					b;

		bs_topk1_item_at(&v, i, &a);
		if (want != 0 && a.len != want)
			odd |= 2;
		for (j = i + 1; j < v.ncand; j++)
		{
			bs_topk1_item_at(&v, j, &b);
			if (a.hash == b.hash)
				odd |= 1;
		}
	}
	return odd;
}

typedef struct fuzz_stats
{
	long		odd_duplicate,
				odd_length,
				odd_none,
				accepted,
				rejected,
				quick_only,
				bad_status,
				bad_message,
				bad_compact,
				bad_add,
				bad_merge,
				bad_source,
				bad_estimate;
} fuzz_stats;

/* Compact, add to and merge an accepted value; deep = it passed the deep check. */
static void
exercise(const tk *in, bool deep, unit_rng *r, fuzz_stats *fs)
{
	tk			v = tk_copy(in),
				saved = tk_copy(in),
				c,
				m;
	bs_topk1		tv;
	bs_error	err;
	bs_status	st;
	uint8_t		family = in->buf[BS_OFF_FAMILY];
	int			i;

	c = tk_compact(&v);
	if (deep)
	{
		tk			cc = tk_compact(&c);

		bs_topk1_view(c.buf, c.len, &tv);
		if (!tk_valid(&c, true, &err) || !same_bytes(&cc, &c) ||
			c.len != BS_HEADER_SIZE + counters_bytes(&c) + (size_t) tv.cap * BS_TOPK_SLOT + tv.heap_used)
			fs->bad_compact++;
		tk_free(&cc);
	}
	if (!same_bytes(&v, &saved))
		fs->bad_source++;

	/* merges: with itself, and with its compact form */
	st = tk_merge(&v, &saved, &m, &err);
	if (st == BS_OK)
	{
		if (deep && !tk_valid(&m, true, &err))
			fs->bad_merge++;
		tk_free(&m);
	}
	else if (st != BS_ERR_LIMIT)
		fs->bad_merge++;
	st = tk_merge(&c, &v, &m, &err);
	if (st == BS_OK)
		tk_free(&m);
	else if (st != BS_ERR_LIMIT)
		fs->bad_merge++;
	if (!same_bytes(&v, &saved))
		fs->bad_source++;

	/* adds, of keys of the family's size */
	for (i = 0; i < 4; i++)
	{
		uint8_t		key[16];
		uint32_t	len;
		uint64_t	count = 1 + unit_below(r, 3);

		key_for(family, r, key, &len);
		st = tk_add(&v, key, len, count, &err);
		if (st == BS_OK)
		{
			bs_topk1_view(v.buf, v.len, &tv);
			if (deep && bs_cms_frequency(&tv.cms, bs_hash_bytes(key, len, tk_seed(&v))) < count)
				fs->bad_estimate++;
		}
		else if (st != BS_ERR_LIMIT)
			fs->bad_add++;
	}
	if (deep && !tk_valid(&v, true, &err))
		fs->bad_add++;
	{
		tk			c2 = tk_compact(&v);

		if (deep && !tk_valid(&c2, true, &err))
			fs->bad_compact++;
		tk_free(&c2);
	}
	tk_free(&c);
	tk_free(&v);
	tk_free(&saved);
}

#ifndef UNIT_FUZZ_ITERATIONS
#define UNIT_FUZZ_ITERATIONS 200000
#endif
#ifndef UNIT_FUZZ_SEED
#define UNIT_FUZZ_SEED 1400
#endif

static void
test_fuzz(void)
{
	const long	iterations = UNIT_FUZZ_ITERATIONS;
	unit_rng	r = {UNIT_FUZZ_SEED};
	fuzz_stats	fs;
	long		it;
	struct timespec t0;

	make_fuzz_samples();
	memset(&fs, 0, sizeof(fs));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (it = 0; it < iterations; it++)
	{
		const sample *s = &samples[unit_below(&r, (uint64_t) nsamples)];
		int			op = (int) unit_below(&r, 11);
		tk			c;
		size_t		j;
		bs_error	err;
		bs_status	st;
		uint64_t	cb = counters_bytes(&s->t);
		uint32_t	cap = 2 * bs_load32(s->t.buf + BS_OFF_P3);

		c.len = s->t.len;
		if (op == 5)
			c.len = (size_t) unit_below(&r, s->t.len);	/* truncate */
		else if (op == 6)
			c.len = s->t.len + 1 + (size_t) unit_below(&r, 24);	/* extend */
		c.buf = alloc.alloc(alloc.ctx, c.len);
		memcpy(c.buf, s->t.buf, c.len < s->t.len ? c.len : s->t.len);
		for (j = s->t.len; j < c.len; j++)
			c.buf[j] = (uint8_t) (unit_below(&r, 2) ? unit_next(&r) : 0);

		switch (op)
		{
			case 0:				/* flip bits anywhere */
			case 1:
				{
					int			nflip = 1 + (int) unit_below(&r, 4);

					while (nflip-- > 0)
						c.buf[unit_below(&r, c.len)] ^= (uint8_t) (1u << unit_below(&r, 8));
				}
				break;
			case 2:				/* random bytes in the header */
				{
					int			nb = 1 + (int) unit_below(&r, 3);

					while (nb-- > 0)
						c.buf[unit_below(&r, BS_HEADER_SIZE)] = (uint8_t) unit_next(&r);
				}
				break;
			case 3:				/* a header field set to an edge value */
				{
					static const uint64_t edge[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17, 64, 65, 255, 256,
						10000, 10001, 65536, 65537, UINT32_MAX, UINT64_C(1) << 32, (uint64_t) INT64_MAX,
					UINT64_MAX, UINT64_C(1) << 63};
					static const int offs[] = {4, 5, 6, 7, BS_OFF_P1, BS_OFF_P2, BS_OFF_P3, BS_OFF_N, BS_OFF_X, BS_OFF_X + 4};
					static const int width[] = {1, 1, 1, 1, 8, 4, 4, 8, 4, 4};
					int			f = (int) unit_below(&r, 10);
					uint64_t	v = edge[unit_below(&r, sizeof(edge) / sizeof(edge[0]))];
					int			b;

					for (b = 0; b < width[f]; b++)
						c.buf[offs[f] + b] = (uint8_t) (v >> (8 * b));
				}
				break;
			case 4:				/* a slot field set to an edge or nearby value */
			case 7:
				if (c.len >= BS_HEADER_SIZE + cb + (uint64_t) cap * BS_TOPK_SLOT)
				{
					uint32_t	i = (uint32_t) unit_below(&r, cap);
					uint8_t    *sl = c.buf + BS_HEADER_SIZE + cb + (uint64_t) i * BS_TOPK_SLOT;
					uint32_t	used = bs_load32(c.buf + BS_OFF_X + 4);
					int			f = (int) unit_below(&r, 4);
					uint64_t	choices[] = {0, 1, used, used + 1, used - 1, UINT32_MAX, bs_load64(c.buf + BS_OFF_N),
					bs_load64(c.buf + BS_OFF_N) + 1, unit_next(&r), bs_load64(sl) ^ 1};
					uint64_t	v = choices[unit_below(&r, 10)];

					if (f == 0)
						bs_store64(sl, v);
					else if (f == 1)
						bs_store64(sl + 8, v);
					else
						bs_store32(sl + 8 + 4 * f, (uint32_t) v);
				}
				break;
			case 8:				/* one slot copied onto another */
				if (c.len >= BS_HEADER_SIZE + cb + (uint64_t) cap * BS_TOPK_SLOT)
				{
					uint8_t    *sl = c.buf + BS_HEADER_SIZE + cb;

					memcpy(sl + unit_below(&r, cap) * BS_TOPK_SLOT, sl + unit_below(&r, cap) * BS_TOPK_SLOT, BS_TOPK_SLOT);
				}
				break;
			case 9:				/* the candidate count or key bytes used moved by a little */
				{
					uint8_t    *xp = c.buf + BS_OFF_X + 4 * unit_below(&r, 2);

					bs_store32(xp, bs_load32(xp) + (uint32_t) unit_below(&r, 5) - 2);
				}
				break;
			case 5:
			case 6:
				break;
			case 10:			/* flip in the last bytes (key bytes) */
				if (c.len > 0)
					c.buf[c.len - 1 - unit_below(&r, c.len < 8 ? c.len : 8)] ^= (uint8_t) (1u << unit_below(&r, 8));
				break;
		}

		err.msg[0] = '\0';
		st = bs_validate(c.buf, c.len, BS_KIND_TOPK, true, NULL, &err);
		if (st == BS_OK)
		{
			int			odd = odd_candidates(&c);

			fs.accepted++;
			fs.odd_duplicate += (odd & 1) != 0;
			fs.odd_length += (odd & 2) != 0;
			fs.odd_none += (odd & 4) != 0;
			exercise(&c, true, &r, &fs);
		}
		else
		{
			fs.rejected++;
			if (st != BS_ERR_FORMAT)
				fs.bad_status++;
			if (err.msg[0] == '\0')
				fs.bad_message++;
			/* stored values get the quick check only: what it accepts must be safe too */
			if (bs_validate(c.buf, c.len, BS_KIND_TOPK, false, NULL, &err) == BS_OK)
			{
				fs.quick_only++;
				exercise(&c, false, &r, &fs);
			}
		}
		tk_free(&c);
		if (pool.n > 256)
			pool_reset();
	}
	CHECK(fs.bad_status == 0 && fs.bad_message == 0,
		  "fuzz: %ld mutated topk values (bit flips, header bytes, edge values in header and slot fields, slots copied, counts moved, truncations, extensions) in %.1f s: every rejection is BS_ERR_FORMAT with a message (%ld other status, %ld without message)",
		  iterations, seconds_since(&t0), fs.bad_status, fs.bad_message);
	CHECK(fs.accepted > 1000 && fs.rejected > 1000 && fs.quick_only > 1000,
		  "fuzz: both outcomes are exercised: %ld accepted, %ld rejected (%ld of them pass the quick check and were exercised too); of the accepted, %ld have two candidates of one hash, %ld a key length that does not fit the family, %ld candidates in a sketch of family none",
		  fs.accepted, fs.rejected, fs.quick_only, fs.odd_duplicate, fs.odd_length, fs.odd_none);
	CHECK(fs.bad_compact == 0, "fuzz: the compact form of an accepted value (and after adds) is valid, exactly sized and stable (%ld not)", fs.bad_compact);
	CHECK(fs.bad_add == 0 && fs.bad_estimate == 0,
		  "fuzz: adds to accepted values succeed (or hit the total limit), leave them valid, and count the key (%ld, %ld not)",
		  fs.bad_add, fs.bad_estimate);
	CHECK(fs.bad_merge == 0, "fuzz: merges of accepted values with themselves and their compact forms succeed (or hit the total limit) and are valid (%ld not)", fs.bad_merge);
	CHECK(fs.bad_source == 0, "fuzz: compact and merge never change their inputs (%ld did)", fs.bad_source);
}

int
main(void)
{
	int			i;

	test_params();
	test_small();
	test_zipf();
	test_merge();
	test_merge_edges();
	test_merge_reference();
	test_compact();
	test_regrow();
	test_check();
	test_fuzz();
	for (i = 0; i < nsamples; i++)
		tk_free(&samples[i].t);
	tk_free(&sample_canon);
	tk_free(&sample_state);
	tk_free(&zwhole);
	pool_reset();
	free(pool.ptr);
	free(zs.rank);
	free(zs.count);
	return unit_done("topk_v1");
}
