/*
 * topk_test.c: the heavy hitters of format 2, src/core/topk.c: candidates
 * counted by a mergeable counter-based summary, with lower and upper counts,
 * beside Count-Min rows.
 *
 * Streams of integer keys (8 little-endian bytes, as the integer family's
 * canonical bytes) with their exact counts kept beside: a Zipf-like stream
 * (key floor(M^u), u uniform, as the floor(1e6 ^ random())) and a
 * uniform one.  Checked: the parameters; that every held value's true count
 * lies between its lower and upper counts and every other value's below the
 * floor and its Count-Min estimate (the guarantee, on every stream, after
 * every merge); that the heavy hitters of the skewed stream are exact; that
 * listed estimates of the uniform stream are near the truth; merges in both
 * orders, of parts, refused merges that change nothing; the collision rule;
 * writing, loading and the canonical form; lookups; every corruption the
 * validator refuses; and a mutation fuzz of what it accepts.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/cms.h"
#include "core/endian.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/topk.h"
#include "core/topk_v1.h"
#include "unit.h"

/* ---- an allocator that releases, counting what is live ---- */

static long live_blocks;

static uint8_t *
heap_alloc(void *ctx, size_t len)
{
	(void) ctx;
	live_blocks++;
	return unit_calloc(1, len);
}

static void
heap_release(void *ctx, uint8_t *buf)
{
	(void) ctx;
	live_blocks--;
	free(buf);
}

static const bs_allocator heap = {heap_alloc, NULL, heap_release};

/* Without release, as bs_palloc_allocator: blocks go back with the arena. */
static unit_arena arena;
static const bs_allocator arena_alloc = {unit_arena_alloc, &arena, NULL};

static void
free_state(bs_topk_state *st)
{
	bs_topk_state_release(st);
}

/* ---- streams with their truth ---- */

#define M 100000				/* distinct keys 1..M */

static uint64_t truth[M + 1];

static void
key_of(uint64_t v, uint8_t *key)
{
	bs_store64(key, v);
}

static uint64_t
hash_of(uint64_t v, uint64_t seed)
{
	uint8_t		key[8];

	key_of(v, key);
	return bs_hash_bytes(key, 8, seed);
}

static uint64_t
zipf_key(unit_rng *r)
{
	double		u = (double) (unit_next(r) >> 11) / 9007199254740992.0;
	uint64_t	v = (uint64_t) floor(exp(u * log((double) M)));

	return v < 1 ? 1 : v > M ? M : v;
}

static uint64_t
uniform_key(unit_rng *r)
{
	return 1 + unit_below(r, M);
}

static void
add_key(bs_topk_state *st, uint64_t v, uint64_t count)
{
	uint8_t		key[8];
	bs_error	err;

	key_of(v, key);
	if (bs_topk_state_add(st, bs_hash_bytes(key, 8, st->cms.seed), key, 8,
						  BS_FAMILY_INTEGER, count, &err) != BS_OK)
	{
		fprintf(stderr, "add failed: %s\n", err.msg);
		exit(2);
	}
}

static void
new_state(bs_topk_state *st, uint32_t k, double eps, double delta, uint64_t seed)
{
	bs_topk_params p;
	bs_error	err;

	if (bs_topk_params_for(k, eps, delta, &p, &err) != BS_OK ||
		bs_topk_state_init(st, &p, BS_FAMILY_NONE, seed, &heap, &err) != BS_OK)
	{
		fprintf(stderr, "new_state: %s\n", err.msg);
		exit(2);
	}
}

typedef struct value
{
	uint8_t    *buf;
	size_t		len;
} value;

static value
write_state(const bs_topk_state *st, bool canonical)
{
	value		v;

	v.buf = bs_topk_state_write(st, canonical, &heap, &v.len);
	return v;
}

static void
free_value(value v)
{
	heap_release(NULL, v.buf);
}

static bool
same(value a, value b)
{
	return a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0;
}

/* Does the state write as v (without its canonical pruning)? */
static bool
state_is(const bs_topk_state *st, value v)
{
	value		w = write_state(st, false);
	bool		eq = same(v, w);

	free_value(w);
	return eq;
}

static bool
valid(value v)
{
	bs_error	err;
	bool		ok = bs_validate(v.buf, v.len, BS_KIND_TOPK, true, NULL, &err) == BS_OK;

	if (!ok)
		printf("# invalid: %s\n", err.msg);
	return ok;
}

/*
 * The guarantee over a value and the truth (counts in truth[] scaled by
 * mult): every held value's count between its lower and upper counts, every
 * key not held at most the smaller of floor and its Count-Min estimate.
 */
static bool
bounds_hold(value v, const uint64_t *t)
{
	uint64_t	x;
	bool		ok = true;

	for (x = 1; x <= M; x++)
	{
		uint8_t		key[8];
		bs_topk_row row;

		key_of(x, key);
		bs_topk_lookup(v.buf, v.len, hash_of(x, bs_load64(v.buf + 8)), key, 8, &row);
		if (t[x] < row.lower || t[x] > row.upper)
		{
			if (ok)
				printf("# key %" PRIu64 ": true %" PRIu64 " outside %" PRIu64 "..%" PRIu64 "\n",
					   x, t[x], row.lower, row.upper);
			ok = false;
		}
	}
	return ok;
}

/* The k true heaviest keys, ties by key (counts in t). */
static void
true_top(const uint64_t *t, uint32_t k, uint64_t *top)
{
	uint32_t	i;
	uint64_t	x;

	for (i = 0; i < k; i++)
		top[i] = 0;
	for (x = 1; x <= M; x++)
	{
		uint64_t	c = x;

		for (i = 0; i < k; i++)
			if (c == 0)
				break;
			else if (top[i] == 0 || t[c] > t[top[i]] || (t[c] == t[top[i]] && c < top[i]))
			{
				uint64_t	s = top[i];

				top[i] = c;
				c = s;
			}
	}
}

static uint64_t
row_key(const bs_topk_row *r)
{
	return bs_load64(r->key);
}

/* ---- the tests ---- */

static void
test_params(void)
{
	bs_topk_params p;
	bs_error	err;

	CHECK(bs_topk_params_for(10, 0.001, 0.01, &p, &err) == BS_OK && p.k == 10 &&
		  p.capacity == 1000 && p.width == 2719 && p.depth == 5,
		  "topk_agg(v, 10) tracks max(2k, 1/epsilon) = 1000 values beside a 2719 x 5 Count-Min sketch");
	CHECK(bs_topk_params_for(1000, 0.01, 0.05, &p, &err) == BS_OK && p.capacity == 2000 &&
		  p.width == 272 && p.depth == 3,
		  "k = 1000 at epsilon 0.01: 2k = 2000 values, width 272, depth 3");
	CHECK(bs_topk_params_for(10000, 0.5, 0.5, &p, &err) == BS_OK && p.capacity == 20000,
		  "k = 10000: 20000 values");
	CHECK(bs_topk_params_for(0, 0.01, 0.01, &p, &err) == BS_ERR_PARAM &&
		  strstr(err.msg, "k must be between 1 and 10000, got 0"),
		  "k = 0 refused: %s", err.msg);
	CHECK(bs_topk_params_for(10, 0, 0.01, &p, &err) == BS_ERR_PARAM &&
		  strstr(err.msg, "epsilon must be between 0 and 1"),
		  "epsilon 0 refused: %s", err.msg);
	CHECK(bs_topk_params_for(10, 1e-7, 0.5, &p, &err) == BS_ERR_LIMIT &&
		  strstr(err.msg, "epsilon 1e-07 would track 10000000 values, more than the 1000000") &&
		  strstr(err.hint, "at least 0.000001"),
		  "epsilon 1e-7 refused: %s", err.msg);
	CHECK(bs_topk_params_for(10, 1e-6, 0.5, &p, &err) == BS_OK && p.capacity == 1000000,
		  "epsilon 1e-6 tracks 1,000,000 values");
}

/* A sketch of the skewed stream, whose top 10 and top 100 are exact. */
static void
test_skewed(void)
{
	bs_topk_state st;
	unit_rng	r = {1};
	uint64_t	top[100];
	uint32_t	n,
				i,
				hits = 0;
	bs_topk_row *rows;
	value		all,
				canon,
				again;
	bool		exact = true;
	bs_topk_state back;

	memset(truth, 0, sizeof(truth));
	new_state(&st, 10, 0.004, 0.05, 0);		/* capacity 250, 680 x 3 */
	for (i = 0; i < 1000000; i++)
	{
		uint64_t	x = zipf_key(&r);

		truth[x]++;
		add_key(&st, x, 1);
	}
	CHECK(st.n <= 500 && st.floor > 0 && st.cms.total == 1000000,
		  "1,000,000 skewed rows: %u values held (at most 2C = 500), floor %" PRIu64, st.n, st.floor);
	all = write_state(&st, false);
	canon = write_state(&st, true);
	CHECK(valid(all) && valid(canon), "the value and its canonical form pass the deep check");
	CHECK(bounds_hold(all, truth) && bounds_hold(canon, truth),
		  "every key's true count lies within its bounds, held or not");
	CHECK(bs_load64(canon.buf + BS_OFF_X) >> 32 == 250 &&
		  bs_load64(canon.buf + 48 + 680 * 3 * 8) >= st.floor,
		  "the canonical form holds C = 250 values and a floor at least the state's");

	rows = bs_topk_ranked(canon.buf, canon.len, &arena_alloc, &n);
	true_top(truth, 100, top);
	for (i = 0; i < 10; i++)
		if (row_key(&rows[i]) != top[i] || rows[i].lower != truth[top[i]] ||
			rows[i].upper != truth[top[i]] || rows[i].estimate != rows[i].lower)
			exact = false;
	CHECK(n == 250 && exact, "the top 10, in order, with lower = upper = the true count");
	for (i = 0; i < 100; i++)
	{
		uint32_t	j;

		for (j = 0; j < 100; j++)
			if (row_key(&rows[i]) == top[j])
				hits++;
	}
	/* the 100th and 101st keys differ by about 9 of 1,000,000 rows */
	CHECK(hits >= 99, "the top 100 listed hold %u of the true top 100", hits);
	for (i = 1; i < n; i++)
		if (rows[i].lower > rows[i - 1].lower ||
			(rows[i].lower == rows[i - 1].lower && rows[i].upper > rows[i - 1].upper))
			break;
	CHECK(i == n, "ranked by lower count, then upper bound");

	{
		uint8_t    *into = malloc(all.len);
		long		blocks = live_blocks;

		/* a caller's buffer of garbage: every byte must be written */
		memset(into, 0xA5, all.len);
		bs_topk_state_write_into(&st, &heap, into);
		CHECK(bs_topk_state_size(&st) == all.len && memcmp(into, all.buf, all.len) == 0 &&
			  live_blocks == blocks,
			  "write_into fills a buffer of bs_topk_state_size bytes as write does, and gives its sorting buffer back");
		free(into);
	}

	bs_topk_state_load(&back, all.buf, all.len, &heap);
	again = write_state(&back, false);
	CHECK(same(all, again), "load then write gives the same bytes");
	free_value(again);
	again = write_state(&back, true);
	CHECK(same(canon, again), "and the same canonical form");
	free_value(again);
	free_state(&back);
	bs_topk_state_load(&back, canon.buf, canon.len, &heap);
	again = write_state(&back, true);
	CHECK(same(canon, again), "the canonical form of a canonical value is itself");
	free_value(again);
	free_state(&back);

	free_value(all);
	free_value(canon);
	free_state(&st);
	unit_arena_reset(&arena);
}

/* Uniform data: no heavy hitters; the listed estimates stay near the truth. */
static void
test_uniform(void)
{
	bs_topk_state st;
	unit_rng	r = {2};
	uint32_t	n,
				i;
	bs_topk_row *rows;
	value		canon;
	double		ratio = 0;

	memset(truth, 0, sizeof(truth));
	new_state(&st, 10, 0.002, 0.05, 0);
	for (i = 0; i < 1000000; i++)
	{
		uint64_t	x = uniform_key(&r);

		truth[x]++;
		add_key(&st, x, 1);
	}
	canon = write_state(&st, true);
	CHECK(valid(canon) && bounds_hold(canon, truth),
		  "uniform stream: the bounds hold for every key");
	rows = bs_topk_ranked(canon.buf, canon.len, &arena_alloc, &n);
	for (i = 0; i < 10; i++)
		ratio += (double) rows[i].estimate / (double) truth[row_key(&rows[i])];
	ratio /= 10;
	CHECK(ratio > 0.5 && ratio <= 1.0,
		  "the top 10 listed: estimate / true count %.3f on average (never above the truth)", ratio);
	free_value(canon);
	free_state(&st);
	unit_arena_reset(&arena);
}

/* Parts merged in two orders; the counts of weighted adds. */
static void
test_merge(void)
{
	bs_topk_state part[4],
				ab,
				ba,
				all;
	value		pv[4],
				a,
				b,
				before;
	unit_rng	r = {3};
	uint64_t	top[10];
	uint32_t	i,
				j,
				n;
	bs_topk_row *rows;
	bs_error	err;
	bool		exact = true;

	memset(truth, 0, sizeof(truth));
	for (j = 0; j < 4; j++)
		new_state(&part[j], 10, 0.004, 0.05, 0);
	new_state(&all, 10, 0.004, 0.05, 0);
	for (i = 0; i < 800000; i++)
	{
		uint64_t	x = zipf_key(&r),
					w = 1 + (x % 3);	/* weighted */

		truth[x] += w;
		add_key(&part[i % 4 == 3 ? 3 : i * 4 / 800000 % 3], x, w);
		add_key(&all, x, w);
	}
	for (j = 0; j < 4; j++)
		pv[j] = write_state(&part[j], true);

	/* ab = ((p0 + p1) + p2) + p3, ba = ((p3 + p2) + p1) + p0 */
	bs_topk_state_load(&ab, pv[0].buf, pv[0].len, &heap);
	bs_topk_state_load(&ba, pv[3].buf, pv[3].len, &heap);
	for (j = 1; j < 4; j++)
	{
		before = write_state(&part[j], true);
		CHECK(bs_topk_state_merge(&ab, pv[j].buf, pv[j].len, &err) == BS_OK &&
			  bs_topk_state_merge(&ba, pv[3 - j].buf, pv[3 - j].len, &err) == BS_OK &&
			  same(before, pv[j]), "merge %u in both orders, the source unchanged", j);
		free_value(before);
	}
	a = write_state(&ab, true);
	b = write_state(&ba, true);
	CHECK(valid(a) && valid(b) && bounds_hold(a, truth) && bounds_hold(b, truth),
		  "merged in either order: the bounds hold for every key");
	before = write_state(&all, true);
	CHECK(memcmp(a.buf + 48, before.buf + 48, 680 * 3 * 8) == 0 &&
		  bs_load64(a.buf + BS_OFF_N) == all.cms.total,
		  "the merged counters and total are those of one sketch of all rows");
	free_value(before);
	rows = bs_topk_ranked(a.buf, a.len, &arena_alloc, &n);
	true_top(truth, 10, top);
	for (i = 0; i < 10; i++)
		if (row_key(&rows[i]) != top[i] || rows[i].lower != truth[top[i]] || rows[i].upper != truth[top[i]])
			exact = false;
	CHECK(exact, "the merge's top 10 are exact");
	free_value(a);
	free_value(b);

	/* two parts merge the same in either order, byte for byte */
	free_state(&ab);
	free_state(&ba);
	bs_topk_state_load(&ab, pv[0].buf, pv[0].len, &heap);
	bs_topk_state_load(&ba, pv[1].buf, pv[1].len, &heap);
	bs_topk_state_merge(&ab, pv[1].buf, pv[1].len, &err);
	bs_topk_state_merge(&ba, pv[0].buf, pv[0].len, &err);
	a = write_state(&ab, true);
	b = write_state(&ba, true);
	CHECK(same(a, b), "a + b and b + a have the same bytes");
	free_value(a);
	free_value(b);

	/* refusals change nothing */
	{
		struct
		{
			uint32_t	k;
			double		eps,
						delta;
			uint64_t	seed;
			bs_status	want;
			const char *msg;
		}			bad[] = {
			{11, 0.004, 0.05, 0, BS_ERR_SHAPE, "track different numbers of items: k = 10 and k = 11"},
			{10, 0.002, 0.05, 0, BS_ERR_SHAPE, "different shapes: width 680 and depth 3 (seed 0) and width 1360"},
			{10, 0.004, 0.01, 0, BS_ERR_SHAPE, "different shapes"},
			{10, 0.004, 0.05, 7, BS_ERR_SHAPE, "(seed 7)"},
			{130, 0.004, 0.05, 0, BS_ERR_SHAPE, "k = 10 and k = 130"},
		};

		before = write_state(&ab, false);
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		{
			bs_topk_state o;
			value		ov;

			new_state(&o, bad[i].k, bad[i].eps, bad[i].delta, bad[i].seed);
			add_key(&o, 1, 1);
			ov = write_state(&o, true);
			CHECK(bs_topk_state_merge(&ab, ov.buf, ov.len, &err) == bad[i].want &&
				  strstr(err.msg, bad[i].msg) && state_is(&ab, before),
				  "refused, nothing changed: %s", err.msg);
			free_value(ov);
			free_state(&o);
		}
	}
	{
		/* same k and shape, another capacity: possible only from a crafted value */
		value		cv = write_state(&part[0], true);
		uint64_t	x = bs_load64(cv.buf + BS_OFF_X);

		bs_store64(cv.buf + BS_OFF_X, (x & ~(uint64_t) 0xffffffff) | 300);
		CHECK(valid(cv) && bs_topk_state_merge(&ab, cv.buf, cv.len, &err) == BS_ERR_SHAPE &&
			  strstr(err.msg, "different capacities: 250 and 300 values") &&
			  strstr(err.hint, "same k and epsilon"), "another capacity refused: %s", err.msg);
		free_value(cv);
	}
	{
		bs_topk_state o;
		value		ov;
		uint8_t		t[1] = {'x'};

		new_state(&o, 10, 0.004, 0.05, 0);
		bs_topk_state_add(&o, bs_hash_bytes(t, 1, 0), t, 1, BS_FAMILY_TEXT, 1, &err);
		ov = write_state(&o, true);
		CHECK(bs_topk_state_merge(&ab, ov.buf, ov.len, &err) == BS_ERR_FAMILY &&
			  strstr(err.msg, "topk sketch of integer keys with one of text keys") &&
			  state_is(&ab, before), "another family refused: %s", err.msg);
		free_value(ov);
		free_state(&o);

		new_state(&o, 10, 0.004, 0.05, 0);
		add_key(&o, 5, (uint64_t) INT64_MAX - 1000);
		ov = write_state(&o, true);
		CHECK(bs_topk_state_merge(&ab, ov.buf, ov.len, &err) == BS_ERR_LIMIT &&
			  strstr(err.msg, "total would pass 9223372036854775807") &&
			  state_is(&ab, before), "a total past 2^63 - 1 refused: %s", err.msg);
		free_value(ov);
		free_state(&o);

		new_state(&o, 10, 0.004, 0.05, 0);
		ov = write_state(&o, true);
		CHECK(bs_topk_state_merge(&ab, ov.buf, ov.len, &err) == BS_OK &&
			  state_is(&ab, before), "merging an empty sketch changes nothing");
		free_value(ov);
		free_state(&o);
	}
	free_value(before);
	for (j = 0; j < 4; j++)
	{
		free_value(pv[j]);
		free_state(&part[j]);
	}
	free_state(&ab);
	free_state(&ba);
	free_state(&all);
	unit_arena_reset(&arena);
}

/* Adds that are refused, or count nothing; the collision rule. */
static void
test_add_rules(void)
{
	bs_topk_state st;
	bs_error	err;
	static uint8_t big[BS_TOPK_MAX_KEY + 1];
	uint8_t		key[8];
	value		before,
				v;
	bs_topk_row row;

	new_state(&st, 2, 0.3, 0.5, 0);	/* capacity 4, width 10, depth 1 */
	add_key(&st, 1, 5);
	before = write_state(&st, false);
	key_of(2, key);
	CHECK(bs_topk_state_add(&st, hash_of(2, 0), key, 8, BS_FAMILY_INTEGER, 0, &err) == BS_OK &&
		  state_is(&st, before), "a count of 0 changes nothing");
	CHECK(bs_topk_state_add(&st, hash_of(2, 0), key, 8, BS_FAMILY_INTEGER,
							(uint64_t) INT64_MAX, &err) == BS_ERR_LIMIT &&
		  strstr(err.msg, "total would pass") && state_is(&st, before),
		  "a total past 2^63 - 1 refused, nothing changed: %s", err.msg);
	CHECK(bs_topk_state_add(&st, 1, big, BS_TOPK_MAX_KEY + 1, BS_FAMILY_TEXT, 1, &err) == BS_ERR_LIMIT &&
		  strstr(err.msg, "65537 bytes is longer than the 65536"), "a 65537-byte key refused");
	CHECK(bs_topk_state_add(&st, 1, big, 3, BS_FAMILY_TEXT, 1, &err) == BS_ERR_FAMILY &&
		  strstr(err.msg, "cannot add a text key to a topk sketch of integer keys"),
		  "a key of another family refused: %s", err.msg);
	CHECK(bs_topk_state_add(&st, 1, big, 7, BS_FAMILY_INTEGER, 1, &err) == BS_ERR_PARAM &&
		  strstr(err.msg, "7 bytes is not a canonical integer key"), "a 7-byte integer key refused");
	CHECK(state_is(&st, before), "the refused adds changed nothing");

	/* a second value with the first one's hash is counted as dropped at once */
	key_of(99, key);
	CHECK(bs_topk_state_add(&st, hash_of(1, 0), key, 8, BS_FAMILY_INTEGER, 3, &err) == BS_OK &&
		  st.n == 1 && st.floor == 3, "a value whose hash another holds is not held; floor = its 3");
	v = write_state(&st, true);
	CHECK(bs_topk_lookup(v.buf, v.len, hash_of(1, 0), key, 8, &row) == false &&
		  row.lower == 0 && row.upper == 3, "looked up, it is not held, with upper bound 3");
	key_of(1, key);
	CHECK(bs_topk_lookup(v.buf, v.len, hash_of(1, 0), key, 8, &row) == true &&
		  row.lower == 5 && row.estimate == 5 && row.upper == 5, "the holder keeps its own counts");
	key_of(42, key);
	CHECK(bs_topk_lookup(v.buf, v.len, hash_of(42, 0), key, 8, &row) == false &&
		  row.upper <= 3, "a key never added: upper bound at most floor (%" PRIu64 ")", row.upper);
	free_value(v);
	free_value(before);

	/* the 2C-th value makes room: the best C stay */
	for (uint64_t x = 10; x < 20; x++)
		add_key(&st, x, 20 - x);
	CHECK(st.n <= 8, "10 more values: at most 2C = 8 held (%u)", st.n);
	v = write_state(&st, true);
	CHECK(valid(v) && bs_load64(v.buf + BS_OFF_X) >> 32 == 4, "its canonical form holds 4");
	free_value(v);
	free_state(&st);
	CHECK(live_blocks == 0, "every block the states took was released (%ld live)", live_blocks);
}

/* The same sketch read through the format-1 functions' counterparts. */
static void
test_reading_v1(void)
{
	uint64_t	total;
	uint8_t    *buf;
	size_t		len = 0;
	bs_topk1	t;
	bs_topk_row row,
			   *rows;
	uint32_t	n;
	bs_error	err;
	uint8_t		key[8];
	bs_topk_info info;

	bs_topk1_size(16, 2, 2, 64, &total, NULL);
	len = (size_t) total;
	buf = unit_arena_alloc(&arena, len);
	bs_topk1_init(buf, 16, 2, 2, 64, BS_FAMILY_INTEGER, 0);
	for (uint64_t x = 1; x <= 5; x++)
	{
		key_of(x, key);
		(void) bs_topk1_add(&buf, &len, hash_of(x, 0), key, 8, BS_FAMILY_INTEGER, x * 10,
							&arena_alloc, &err);
	}
	bs_topk1_view(buf, len, &t);
	rows = bs_topk_ranked(buf, len, &arena_alloc, &n);
	CHECK(n == 4 && row_key(&rows[0]) == 5 && rows[0].estimate >= 50 &&
		  rows[0].upper == rows[0].estimate && rows[0].lower == 0,
		  "format 1: 2k = 4 candidates ranked, estimate = upper = Count-Min, lower 0");
	key_of(5, key);
	CHECK(bs_topk_lookup(buf, len, hash_of(5, 0), key, 8, &row) &&
		  row.upper == bs_cms_frequency(&t.cms, hash_of(5, 0)) && row.lower == 0,
		  "format 1 lookup: the Count-Min estimate");
	bs_topk_describe(buf, len, &info);
	CHECK(info.version == 1 && info.params.k == 2 && info.params.capacity == 4 &&
		  !info.has_floor && info.total == 150 && info.held == 4, "format 1 described");
	{
		bs_topk_state s2;
		value		v;

		new_state(&s2, 2, 0.3, 0.5, 0);
		v = write_state(&s2, true);
		CHECK(bs_topk_check_same_format(buf[4], v.buf[4], &err) == BS_ERR_SHAPE &&
			  strstr(err.msg, "format 1 with one of format 2") && strstr(err.hint, "Rebuild") &&
			  bs_topk_check_same_format(2, 2, &err) == BS_OK,
			  "formats 1 and 2 do not merge: %s", err.msg);
		bs_topk_describe(v.buf, v.len, &info);
		CHECK(info.version == 2 && info.params.capacity == 4 && info.has_floor && info.held == 0,
			  "format 2 described");
		free_value(v);
		free_state(&s2);
	}
	unit_arena_reset(&arena);
}

/* A small value and what the validator says of each corruption of it. */
static void
test_validation(void)
{
	bs_topk_state st;
	value		v,
				c;
	bs_error	err;
	size_t		cb = 48 + 10 * 1 * 8;	/* header, counters */
	size_t		rec = cb + 8;
	struct
	{
		size_t		off;
		int			size;
		uint64_t	val;
		bool		deep_only;
		const char *msg;
		size_t		off2;		/* and an upper bound there, when not 0 */
	}			cases[] = {
		{4, 1, 3, false, "format version 3; this version reads versions 1 to 2", 0},
		{4, 1, 0, false, "format version 0", 0},
		{28, 4, 0, false, "invalid k 0", 0},
		{40, 4, 3, false, "invalid capacity 3 for k 2", 0},
		{40, 4, 1000001, false, "invalid capacity 1000001", 0},
		{44, 4, 9, false, "holds 9 values, more than twice its capacity 4", 0},
		{44, 4, 8, false, "needs at least", 0},
		{cb, 8, 100, false, "bound of values not held, 100, is past its total 6", 0},
		{rec, 8, 0, false, "entry 0 counts 0 to", 0},
		{rec + 8, 8, 0, false, "not within 1 to its total 6", 0},
		{rec + 8, 8, 7, false, "to 7, not within", 0},
		{rec + 16, 4, 25, false, "ends its key at byte 25, outside 0 to 24", 0},
		{rec + 16, 4, 7, false, "entry 0 has 7 key bytes, wrong for integer keys", 0},
		{rec + 20 + 16, 4, 4, false, "ends its key at byte 4, outside 8 to 24", 0},
		{rec + 40, 8, 5, false, "lower counts sum past its total 6", rec + 48},
		{7, 1, 0, false, "holds values but no key family", 0},
		{32, 8, 7, true, "row 0 sums to 6, not its total 7", 0},
		{48, 8, 1000, true, "row 0 counts more than its total 6", 0},
	};

	new_state(&st, 2, 0.3, 0.5, 0);	/* 10 x 1 */
	add_key(&st, 1, 1);
	add_key(&st, 2, 2);
	add_key(&st, 3, 3);
	v = write_state(&st, true);
	CHECK(v.len == rec + 3 * 20 + 24 && valid(v), "a 3-value sketch of 220 bytes is valid");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		bs_status	quick,
					deep;

		c.len = v.len;
		c.buf = unit_arena_alloc(&arena, c.len);
		memcpy(c.buf, v.buf, v.len);
		if (cases[i].size == 1)
			c.buf[cases[i].off] = (uint8_t) cases[i].val;
		else if (cases[i].size == 4)
			bs_store32(c.buf + cases[i].off, (uint32_t) cases[i].val);
		else
			bs_store64(c.buf + cases[i].off, cases[i].val);
		if (cases[i].off2 != 0)
			bs_store64(c.buf + cases[i].off2, 6);
		quick = bs_validate(c.buf, c.len, BS_KIND_TOPK, false, NULL, &err);
		deep = bs_validate(c.buf, c.len, BS_KIND_TOPK, true, NULL, &err);
		CHECK(deep == BS_ERR_FORMAT && strstr(err.msg, cases[i].msg) &&
			  (cases[i].deep_only ? quick == BS_OK : quick == BS_ERR_FORMAT),
			  "corruption %zu refused (%s): %s", i, cases[i].deep_only ? "deep check" : "both checks", err.msg);
	}
	/* two records swapped (and their keys): not in hash order */
	c.len = v.len;
	c.buf = unit_arena_alloc(&arena, c.len);
	memcpy(c.buf, v.buf, v.len);
	{
		uint8_t		r0[20],
					k0[8];

		memcpy(r0, c.buf + rec, 16);
		memcpy(c.buf + rec, c.buf + rec + 20, 16);
		memcpy(c.buf + rec + 20, r0, 16);
		memcpy(k0, c.buf + rec + 60, 8);
		memcpy(c.buf + rec + 60, c.buf + rec + 68, 8);
		memcpy(c.buf + rec + 68, k0, 8);
	}
	CHECK(bs_validate(c.buf, c.len, BS_KIND_TOPK, false, NULL, &err) == BS_OK &&
		  bs_validate(c.buf, c.len, BS_KIND_TOPK, true, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "not in increasing order of hash at entry 1"),
		  "entries out of hash order: refused by the deep check: %s", err.msg);
	/* an upper bound past the value's Count-Min estimate */
	memcpy(c.buf, v.buf, v.len);
	bs_store64(c.buf + rec + 8, 6);
	CHECK(bs_validate(c.buf, c.len, BS_KIND_TOPK, true, NULL, &err) == BS_ERR_FORMAT &&
		  strstr(err.msg, "upper bound 6 past its Count-Min estimate"),
		  "an upper bound past the Count-Min estimate refused: %s", err.msg);
	/* every prefix and a longer value */
	{
		size_t		bad = 0;

		for (size_t l = 0; l < v.len; l++)
			if (bs_validate(v.buf, l, BS_KIND_TOPK, false, NULL, &err) != BS_ERR_FORMAT)
				bad++;
		CHECK(bad == 0, "every one of the %zu shorter prefixes is refused", v.len);
		c.len = v.len + 1;
		c.buf = unit_arena_alloc(&arena, c.len);
		memcpy(c.buf, v.buf, v.len);
		CHECK(bs_validate(c.buf, c.len, BS_KIND_TOPK, false, NULL, &err) == BS_ERR_FORMAT &&
			  strstr(err.msg, "has 25 key bytes, its entries use 24"), "a byte appended is refused: %s", err.msg);
	}
	free_value(v);
	free_state(&st);
	unit_arena_reset(&arena);
}

/* Whatever the validator accepts, loading, adding, merging and writing handle, validly. */
static void
test_mutations(void)
{
	bs_topk_state st;
	value		v;
	unit_rng	r = {9};
	uint32_t	accepted = 0,
				results_valid = 0;
	int			i;

	new_state(&st, 3, 0.2, 0.2, 0);	/* capacity 6, 14 x 2 */
	for (i = 0; i < 200; i++)
		add_key(&st, zipf_key(&r) % 40 + 1, 1 + (uint64_t) i % 2);
	v = write_state(&st, false);
	for (i = 0; i < 20000; i++)
	{
		value		m;
		int			flips = 1 + (int) unit_below(&r, 3);
		bs_error	err;

		m.len = v.len;
		m.buf = unit_arena_alloc(&arena, m.len);
		memcpy(m.buf, v.buf, v.len);
		while (flips-- > 0)
			m.buf[unit_below(&r, m.len)] ^= (uint8_t) (1 + unit_below(&r, 255));
		if (bs_validate(m.buf, m.len, BS_KIND_TOPK, true, NULL, &err) != BS_OK)
			continue;
		accepted++;
		{
			bs_topk_state s;
			value		w;
			uint8_t		key[8];

			bs_topk_state_load(&s, m.buf, m.len, &heap);
			key_of(7, key);
			(void) bs_topk_state_add(&s, hash_of(7, s.cms.seed), key, 8, BS_FAMILY_INTEGER, 2, &err);
			(void) bs_topk_state_merge(&s, m.buf, m.len, &err);
			(void) bs_topk_state_merge(&s, v.buf, v.len, &err);
			w = write_state(&s, true);
			if (bs_validate(w.buf, w.len, BS_KIND_TOPK, true, NULL, &err) == BS_OK)
				results_valid++;
			else
				printf("# mutation %d: result invalid: %s\n", i, err.msg);
			free_value(w);
			free_state(&s);
		}
	}
	CHECK(accepted > 0 && results_valid == accepted,
		  "20000 mutations: %u accepted, and the add, merges and canonical form of each are valid",
		  accepted);
	free_value(v);
	free_state(&st);
	unit_arena_reset(&arena);
	CHECK(live_blocks == 0, "no block left behind (%ld live)", live_blocks);
}

int
main(void)
{
	test_params();
	test_skewed();
	test_uniform();
	test_merge();
	test_add_rules();
	test_reading_v1();
	test_validation();
	test_mutations();
	return unit_done("topk");
}
