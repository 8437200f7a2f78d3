/*
 * growable_test.c: the growable (scalable) Bloom filter of
 * src/core/growable.c: the first stage and its shape, stages opened exactly
 * when the last one holds its capacity, at the shape of n0 s^i keys and rate
 * P 2^-(i+1), no false negatives, held keys changing nothing, the stage and
 * size limits, unions (bits, counts, extra stages, families), the merge
 * refusals, the estimates, and the format check against every corrupted
 * field.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "core/bloom_value.h"
#include "core/bloom.h"
#include "core/endian.h"
#include "core/format.h"
#include "core/growable.h"
#include "core/probe_ranges.h"
#include "unit.h"

static unit_arena the_arena;
static const bs_allocator alloc = {unit_arena_alloc, &the_arena, NULL};

/* Directory entry i's fields (growable.h). */
#define ENTRY(buf, i) ((buf) + BS_HEADER_SIZE + (size_t) (i) * BS_GROWABLE_ENTRY_BYTES)

static const uint32_t layouts[] = {BS_LAYOUT_CLASSIC, BS_LAYOUT_BLOCKED};

static uint64_t
bits_of(double d)
{
	uint64_t	x;

	memcpy(&x, &d, sizeof(x));
	return x;
}

/* Deep and quick check of a whole growable value; 0 or the first failure. */
static bs_status
check_value(const uint8_t *buf, uint64_t len, bs_error *err)
{
	bs_status	st = bs_validate(buf, (size_t) len, BS_KIND_BLOOM, true, NULL, err);

	if (st == BS_OK)
		st = bs_validate(buf, (size_t) len, BS_KIND_BLOOM, false, NULL, err);
	return st;
}

/* A new growable filter viewed in g (from the arena); exits on failure. */
static void
new_growable(uint64_t n0, double fpr, uint32_t growth, uint32_t layout, uint8_t family,
			 bs_growable *g)
{
	uint8_t    *buf;
	uint64_t	len;
	bs_error	err;

	if (bs_growable_new(n0, fpr, growth, layout, family, BS_DEFAULT_SEED, &alloc, &buf, &len,
						&err) != BS_OK)
	{
		printf("# bs_growable_new(%" PRIu64 ", %g, %u, %u): %s\n", n0, fpr, growth, layout, err.msg);
		exit(2);
	}
	bs_growable_view(buf, g);
}

/* Add h, exit on error (the caller means a filter far from its limits). */
static bool
add_ok(bs_growable *g, uint64_t h)
{
	bool		grown;
	bs_error	err;

	if (bs_growable_add(g, h, &alloc, &grown, &err) != BS_OK)
	{
		printf("# bs_growable_add: %s\n", err.msg);
		exit(2);
	}
	return grown;
}

/* A writable copy of g's bytes in the arena, viewed in out. */
static void
copy_growable(const bs_growable *g, bs_growable *out)
{
	uint8_t    *c = alloc.alloc(alloc.ctx, (size_t) g->len);

	memcpy(c, g->buf, g->len);
	bs_growable_view(c, out);
}

/* ---------- a new filter ---------- */

static void
test_new(void)
{
	static const struct
	{
		uint64_t	n0;
		double		fpr;
		uint32_t	growth;
	}			cases[] = {{1, 0.5, 1}, {1000, 0.01, 2}, {777, 0.001, 4}, {20, 0.3, 64}, {100000, 1e-6, 3}};
	size_t		c,
				l;
	int			bad = 0,
				n = 0;

	for (l = 0; l < 2; l++)
		for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		{
			uint32_t	layout = layouts[l],
						k = 0;
			uint64_t	m = 0,
						len = 0;
			uint8_t    *buf = NULL;
			bs_growable g;
			bs_header	h;
			bs_error	err;
			bool		ok;

			n++;
			ok = bs_bloom_shape_for((double) cases[c].n0, cases[c].fpr / 2, layout, &m, &k, NULL) == BS_OK &&
				bs_growable_new(cases[c].n0, cases[c].fpr, cases[c].growth, layout, BS_FAMILY_TEXT, 7,
								&alloc, &buf, &len, &err) == BS_OK;
			if (!ok)
			{
				bad++;
				continue;
			}
			bs_growable_view(buf, &g);
			ok = len == BS_HEADER_SIZE + BS_GROWABLE_ENTRY_BYTES + bs_bloom_payload_bytes(m) &&
				bs_validate(buf, (size_t) len, BS_KIND_BLOOM, true, &h, &err) == BS_OK &&
				bs_validate(buf, (size_t) len, BS_KIND_BLOOM, false, NULL, &err) == BS_OK &&
				bs_bloom_is_growable(buf) &&
				h.family == BS_FAMILY_TEXT && h.seed == 7 && h.p1 == cases[c].n0 &&
				h.p2 == cases[c].growth && h.p3 == (BS_BLOOM_GROWABLE | layout) && h.n == 1 &&
				h.x == bits_of(cases[c].fpr) &&
				bs_load64(ENTRY(buf, 0)) == m && bs_load32(ENTRY(buf, 0) + 8) == k &&
				bs_load32(ENTRY(buf, 0) + 12) == 0 && bs_load64(ENTRY(buf, 0) + 16) == 0 &&
				bs_popcount(buf + BS_HEADER_SIZE + BS_GROWABLE_ENTRY_BYTES, bs_bloom_payload_bytes(m)) == 0 &&
				g.nstages == 1 && g.len == len && g.n0 == cases[c].n0 && g.growth == cases[c].growth &&
				g.layout == layout && g.fpr == cases[c].fpr && g.count[0] == 0 &&
				g.stage[0].m == m && g.stage[0].k == k && g.stage[0].layout == layout &&
				g.stage[0].bits == buf + BS_HEADER_SIZE + BS_GROWABLE_ENTRY_BYTES;
			if (!ok)
			{
				bad++;
				printf("# %s n0 %" PRIu64 " fpr %g growth %u: %" PRIu64 " bytes, stage 0 %" PRIu64 " bits %u hashes (want %" PRIu64 ", %u)\n",
					   bs_layout_name(layout), cases[c].n0, cases[c].fpr, cases[c].growth, len,
					   g.stage[0].m, g.stage[0].k, m, k);
			}
		}
	CHECK(bad == 0, "bs_growable_new: %d filters of both layouts are one empty stage of bs_bloom_shape_for(n0, P/2, layout), header p1 n0, p2 s, p3 2|layout, n 1, x P, valid deep and quick (%d bad)",
		  n, bad);

	/* the parameter errors */
	{
		uint8_t    *buf;
		uint64_t	len;
		bs_error	e1,
					e2,
					e3,
					e4,
					e5,
					e6,
					e7;

		CHECK(bs_growable_new(0, 0.01, 2, 0, 0, 0, &alloc, &buf, &len, &e1) == BS_ERR_PARAM &&
			  bs_growable_new(BS_GROWABLE_MAX_COUNT + 1, 0.01, 2, 0, 0, 0, &alloc, &buf, &len, &e2) == BS_ERR_PARAM &&
			  strstr(e1.msg, "capacity") && strstr(e2.msg, "9007199254740993"),
			  "capacity 0 and 2^53 + 1 are refused: %s / %s", e1.msg, e2.msg);
		CHECK(bs_growable_new(10, 0.01, 0, 0, 0, 0, &alloc, &buf, &len, &e3) == BS_ERR_PARAM &&
			  bs_growable_new(10, 0.01, 65, 0, 0, 0, &alloc, &buf, &len, &e4) == BS_ERR_PARAM &&
			  strcmp(e4.msg, "growth must be between 1 and 64, got 65") == 0 &&
			  bs_growable_check_growth(-1, NULL) == BS_ERR_PARAM &&
			  bs_growable_check_growth(1, NULL) == BS_OK && bs_growable_check_growth(64, NULL) == BS_OK,
			  "growth 0 and 65 are refused, 1 and 64 accepted: %s / %s", e3.msg, e4.msg);
		CHECK(bs_growable_new(10, 0.01, 2, 2, 0, 0, &alloc, &buf, &len, &e5) == BS_ERR_PARAM &&
			  strstr(e5.msg, "layout"),
			  "layout 2 is refused: %s", e5.msg);
		CHECK(bs_growable_new(10, 0.0, 2, 0, 0, 0, &alloc, &buf, &len, &e6) == BS_ERR_PARAM &&
			  bs_growable_new(10, 1.0, 2, 0, 0, 0, &alloc, &buf, &len, NULL) == BS_ERR_PARAM &&
			  bs_growable_new(10, NAN, 2, 0, 0, 0, &alloc, &buf, &len, NULL) == BS_ERR_PARAM &&
			  bs_growable_new(10, -0.5, 2, 0, 0, 0, &alloc, &buf, &len, NULL) == BS_ERR_PARAM &&
			  strstr(e6.msg, "false-positive rate"),
			  "rates 0, 1, NaN and -0.5 are refused: %s", e6.msg);
		/* stage 0 at 2^-65 needs 65 hashes; 2^40 keys at 1% more bits than a sketch may have */
		CHECK(bs_growable_new(1, 0x1p-64, 2, 0, 0, 0, &alloc, &buf, &len, &e7) == BS_ERR_PARAM &&
			  strstr(e7.msg, "65 hashes"),
			  "stage 0 at 2^-65 would need 65 hashes: %s", e7.msg);
		CHECK(bs_growable_new(UINT64_C(1) << 40, 0.01, 2, 0, 0, 0, &alloc, &buf, &len, &e7) == BS_ERR_LIMIT &&
			  bs_growable_new(UINT64_C(1) << 40, 0.01, 2, 1, 0, 0, &alloc, &buf, &len, &e1) == BS_ERR_LIMIT,
			  "2^40 keys at 1%% are past the size limit in both layouts: %s / %s", e7.msg, e1.msg);
		/* the message names the rate asked for first, then stage 0's half of it */
		CHECK(bs_growable_new(420000000, 0.01, 2, 0, 0, 0, &alloc, &buf, &len, &e7) == BS_ERR_LIMIT &&
			  strstr(e7.msg, "capacity 420000000 at false-positive rate 0.01 cannot make its stage 0") == e7.msg + strlen("a growable bloom filter of ") &&
			  strstr(e7.msg, "at rate 0.005 (fpr / 2^1)") != NULL && e7.detail[0] != '\0' && e7.hint[0] != '\0',
			  "capacity 420000000 at 1%%: the error names the filter's capacity and rate, then its stage 0's: %s", e7.msg);
	}
	unit_arena_reset(&the_arena);
}

/* ---------- growing ---------- */

/*
 * Add nkeys random keys (and every tenth one again) one at a time, checking
 * after each add what it must have done.
 */
static void
grow_and_check(uint64_t n0, double fpr, uint32_t growth, uint32_t layout, int nkeys,
			   uint32_t min_stages)
{
	unit_rng	r = {n0 * 131 + growth * 7 + layout};
	uint64_t   *keys = unit_random_hashes(&r, (size_t) nkeys),
				counted = 0;
	bs_growable g,
				before;
	uint64_t	opened_at[BS_GROWABLE_MAX_STAGES] = {0};
	int			i,
				bad_valid = 0,
				bad_open = 0,
				bad_count = 0,
				bad_held = 0,
				bad_old = 0,
				missing = 0,
				adds = 0,
				held = 0;
	uint32_t	s,
				bad_shape = 0;
	char		what[96];
	bs_error	err;

	snprintf(what, sizeof(what), "%s, n0 %" PRIu64 ", P %g, growth %u, %d keys",
			 bs_layout_name(layout), n0, fpr, growth, nkeys);
	new_growable(n0, fpr, growth, layout, BS_FAMILY_INTEGER, &g);
	for (i = 0; i < nkeys + nkeys / 10; i++)
	{
		uint64_t	h = i < nkeys ? keys[i] : keys[(i - nkeys) * 10];
		uint8_t    *old = unit_calloc(1, (size_t) g.len);
		bool		was_held = bs_growable_contains(&g, h),
					grown;
		uint32_t	last = g.nstages - 1;
		uint64_t	cap = 0;
		double		p;

		memcpy(old, g.buf, g.len);
		before = g;
		(void) bs_growable_stage_target(n0, growth, fpr, last, &cap, &p, NULL);
		if (bs_growable_add(&g, h, &alloc, &grown, &err) != BS_OK)
		{
			printf("# %s: add %d: %s\n", what, i, err.msg);
			bad_valid++;
			free(old);
			break;
		}
		adds++;
		if (was_held)
		{
			/* a held key (or a false positive) changes no byte and is not counted */
			held++;
			bad_held += grown || g.buf != before.buf || g.len != before.len ||
				memcmp(old, g.buf, g.len) != 0;
		}
		else
		{
			counted++;
			/* a stage opens exactly when the last one holds its capacity */
			if (grown != (before.count[last] >= cap) ||
				(grown ? g.nstages != before.nstages + 1 || before.count[last] != cap ||
				 g.count[last + 1] != 1 || g.buf == before.buf
				 : g.nstages != before.nstages || g.count[last] != before.count[last] + 1 ||
				 g.buf != before.buf))
				bad_open++;
			if (grown)
			{
				opened_at[g.nstages - 1] = counted;
				/* the old stages' bits and counts are copied unchanged */
				for (s = 0; s < before.nstages; s++)
					bad_old += g.count[s] != before.count[s] ||
						memcmp(g.stage[s].bits, before.stage[s].bits,
							   bs_bloom_payload_bytes(before.stage[s].m)) != 0;
			}
		}
		bad_valid += !bs_growable_contains(&g, h) || check_value(g.buf, g.len, &err) != BS_OK;
		free(old);
	}
	for (i = 0; i < nkeys; i++)
		missing += !bs_growable_contains(&g, keys[i]);
	{
		uint64_t	sum = 0;

		for (s = 0; s < g.nstages; s++)
			sum += g.count[s];
		bad_count = sum != counted;
	}
	/* every stage at the shape of n0 s^i keys at P 2^-(i+1), counts read back from the bytes */
	for (s = 0; s < g.nstages; s++)
	{
		uint64_t	m = 0,
					cap = 0;
		uint32_t	k = 0;
		double		p = 0;

		if (bs_growable_stage_target(n0, growth, fpr, s, &cap, &p, NULL) != BS_OK ||
			bs_bloom_shape_for((double) cap, p, layout, &m, &k, NULL) != BS_OK ||
			p != ldexp(fpr, -(int) (s + 1)) || cap != n0 * (uint64_t) pow(growth, s) ||
			g.stage[s].m != m || g.stage[s].k != k ||
			bs_load64(ENTRY(g.buf, s)) != m || bs_load32(ENTRY(g.buf, s) + 8) != k ||
			bs_load64(ENTRY(g.buf, s) + 16) != g.count[s] ||
			(s + 1 < g.nstages && g.count[s] != cap) || g.count[s] > cap)
		{
			bad_shape++;
			printf("# %s: stage %u: %" PRIu64 " bits, %u hashes, %" PRIu64 " keys; want %" PRIu64 ", %u, capacity %" PRIu64 "\n",
				   what, s, g.stage[s].m, g.stage[s].k, g.count[s], m, k, cap);
		}
	}
	/* stage s opened with the first new key past n0 (1 + s + ... + s^(i-1)) */
	{
		uint64_t	want = 0,
					cap = n0;

		for (s = 1; s < g.nstages; s++)
		{
			want += cap;
			cap *= growth;
			bad_open += opened_at[s] != want + 1;
		}
	}
	/* as many stages as the counted keys need (false positives are not counted) */
	{
		uint64_t	room = 0,
					cap = n0;
		uint32_t	want_stages = 0;

		while (room < counted)
		{
			room += cap;
			cap *= growth;
			want_stages++;
		}
		CHECK(g.nstages == want_stages && g.nstages >= min_stages,
			  "%s: %u stages, as the %" PRIu64 " keys counted need (%u, at least %u)",
			  what, g.nstages, counted, want_stages, min_stages);
	}
	CHECK(bad_open == 0, "%s: a stage opens exactly when a new key finds the last stage at its capacity n0 s^i (%d adds wrong)", what, bad_open);
	CHECK(bad_shape == 0, "%s: every stage has bs_bloom_shape_for(n0 s^i, ldexp(P, -(i+1))) and the full ones hold exactly their capacity (%u wrong)", what, bad_shape);
	CHECK(bad_old == 0, "%s: opening a stage keeps the older stages' bits and counts (%d differ)", what, bad_old);
	CHECK(bad_held == 0 && held >= nkeys / 10, "%s: %d adds of held keys change no byte (%d did)", what, held, bad_held);
	CHECK(bad_count == 0, "%s: the stage counts add up to the %" PRIu64 " keys not already held", what, counted);
	CHECK(bad_valid == 0 && missing == 0, "%s: after each of %d adds the value passes bs_validate and finds its key; at the end all keys are found (%d bad, %d missing)",
		  what, adds, bad_valid, missing);
	free(keys);
	unit_arena_reset(&the_arena);
}

/* ---------- the limits ---------- */

static void
test_stage_target(void)
{
	uint64_t	cap = 0;
	double		p = 0;
	bs_error	err;

	CHECK(bs_growable_stage_target(1000, 3, 0.01, 0, &cap, &p, NULL) == BS_OK && cap == 1000 && p == 0.005 &&
		  bs_growable_stage_target(1000, 3, 0.01, 4, &cap, &p, NULL) == BS_OK && cap == 81000 &&
		  p == 0.01 / 32,
		  "stage_target: stage 0 n0 at P/2, stage 4 n0 3^4 at P/32");
	CHECK(bs_growable_stage_target(1, 1, 0.5, 63, &cap, &p, NULL) == BS_OK && cap == 1 && p == 0x1p-65 &&
		  bs_growable_stage_target(1, 1, 0.5, 64, &cap, &p, &err) == BS_ERR_LIMIT &&
		  strstr(err.msg, "at most 64 stages") && err.hint[0] != '\0',
		  "stage_target: stage 63 exists, stage 64 is BS_ERR_LIMIT: %s (%s)", err.msg, err.hint);
	CHECK(bs_growable_stage_target(1, 2, 0.5, 53, &cap, &p, NULL) == BS_OK && cap == BS_GROWABLE_MAX_COUNT &&
		  bs_growable_stage_target(1, 2, 0.5, 54, &cap, &p, &err) == BS_ERR_LIMIT &&
		  strstr(err.msg, "stage 54") && strstr(err.msg, "more than 9007199254740992 keys"),
		  "stage_target: 2^53 keys is the largest stage, 2^54 is BS_ERR_LIMIT: %s", err.msg);
	CHECK(bs_growable_stage_target(BS_GROWABLE_MAX_COUNT, 1, 0.5, 63, &cap, &p, NULL) == BS_OK &&
		  cap == BS_GROWABLE_MAX_COUNT &&
		  bs_growable_stage_target(BS_GROWABLE_MAX_COUNT, 2, 0.5, 1, &cap, &p, NULL) == BS_ERR_LIMIT &&
		  bs_growable_stage_target(UINT64_C(1) << 5, 64, 0.5, 8, &cap, &p, NULL) == BS_OK &&
		  cap == UINT64_C(1) << 53 &&
		  bs_growable_stage_target((UINT64_C(1) << 5) + 1, 64, 0.5, 8, &cap, &p, NULL) == BS_ERR_LIMIT &&
		  bs_growable_stage_target(UINT64_MAX, 64, 0.5, 1, &cap, &p, NULL) == BS_ERR_LIMIT,
		  "stage_target: growth 1 keeps 2^53; 2^5 64^8 = 2^53 but (2^5 + 1) 64^8 overflows; no wrap-around at 2^64");
}

/* Add distinct keys until an add fails; returns that status (the filter untouched). */
static bs_status
grow_until_error(bs_growable *g, uint64_t seed, int *adds, bool *unchanged, bs_error *err)
{
	unit_rng	r = {seed};
	bs_status	st = BS_OK;
	int			tries;

	*adds = 0;
	*unchanged = false;
	/* bounded: a filter that holds every key would never fail */
	for (tries = 0; tries < 100000; tries++)
	{
		uint64_t	h = unit_next(&r);
		uint8_t    *old,
				   *oldbuf = g->buf;
		uint64_t	oldlen = g->len;
		bool		grown = true;

		if (bs_growable_contains(g, h))
			continue;
		old = unit_calloc(1, (size_t) g->len);
		memcpy(old, g->buf, g->len);
		st = bs_growable_add(g, h, &alloc, &grown, err);
		if (st != BS_OK)
		{
			*unchanged = !grown && g->buf == oldbuf && g->len == oldlen &&
				memcmp(old, g->buf, g->len) == 0 && !bs_growable_contains(g, h);
			free(old);
			return st;
		}
		free(old);
		(*adds)++;
	}
	return st;
}

static void
test_limits(void)
{
	bs_growable g;
	bs_error	err;
	int			adds;
	bool		unchanged;
	bs_status	st;

	/* one key a stage, each at half the rate: the 65th new key finds 64 stages */
	new_growable(1, 0.99, 1, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, &g);
	st = grow_until_error(&g, 5, &adds, &unchanged, &err);
	CHECK(st == BS_ERR_LIMIT && adds == 64 && g.nstages == 64 && unchanged &&
		  strstr(err.msg, "at most 64 stages") && strstr(err.detail, "The growable filter is full: its 64 stages") &&
		  err.hint[0] != '\0' && check_value(g.buf, g.len, NULL) == BS_OK,
		  "n0 1, growth 1, P 0.99: 64 keys open 64 stages (valid), the next is BS_ERR_LIMIT and changes nothing: %s %s (%d adds)",
		  err.msg, err.detail, adds);
	CHECK(g.stage[63].k == 64 && g.stage[0].k == 1,
		  "... stage 63, at rate 0.99 2^-64, has 64 hashes (%u), stage 0 one (%u)", g.stage[63].k, g.stage[0].k);
	unit_arena_reset(&the_arena);

	/* at 2^-60 stage i has about 61 + i hashes: stage 4 would need 65 */
	new_growable(1, 0x1p-60, 1, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, &g);
	st = grow_until_error(&g, 6, &adds, &unchanged, &err);
	CHECK(st == BS_ERR_LIMIT && adds == 4 && g.nstages == 4 && unchanged && g.stage[3].k == 64 &&
		  strstr(err.msg, "would need 65 hashes, more than the 64") &&
		  strstr(err.detail, "its 4 stages hold 4 keys") && strstr(err.detail, "stage 4 cannot be made"),
		  "n0 1, growth 1, P 2^-60: the 5th key's stage would need 65 hashes: BS_ERR_LIMIT (the filter is full), nothing changed: %s %s",
		  err.msg, err.detail);
	unit_arena_reset(&the_arena);

	/* the next stage past the size limit: count the stage full by hand, then add */
	{
		uint64_t	n0 = UINT64_C(1) << 25;

		new_growable(n0, 0.9, 64, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, &g);
		bs_store64(ENTRY(g.buf, 0) + 16, n0);
		bs_growable_view(g.buf, &g);
		CHECK(check_value(g.buf, g.len, &err) == BS_OK,
			  "a filter of 2^25 keys at 0.9 and growth 64 with stage 0 counted full is valid (%" PRIu64 " bytes)", g.len);
		st = grow_until_error(&g, 7, &adds, &unchanged, &err);
		CHECK(st == BS_ERR_LIMIT && adds == 0 && unchanged && g.nstages == 1 &&
			  strstr(err.msg, "more than the limit") && strstr(err.detail, "The growable filter is full"),
			  "... its next key would open a stage of 2^31 keys past the size limit: BS_ERR_LIMIT, nothing changed: %s",
			  err.msg);
		unit_arena_reset(&the_arena);
	}

	/* blocked stages grow in blocks: the rate halves until the limit */
	new_growable(1, 0.5, 1, BS_LAYOUT_BLOCKED, BS_FAMILY_INTEGER, &g);
	st = grow_until_error(&g, 8, &adds, &unchanged, &err);
	{
		uint64_t	m = 0,
					cap;
		uint32_t	k = 0;
		double		p;
		bs_error	want;
		bs_status	wst;

		/* the first stage bs_bloom_shape_for refuses is where adding fails, with its message */
		(void) bs_growable_stage_target(1, 1, 0.5, g.nstages, &cap, &p, NULL);
		wst = g.nstages < 64 ? bs_bloom_shape_for((double) cap, p, BS_LAYOUT_BLOCKED, &m, &k, &want) : BS_ERR_LIMIT;
		CHECK(st != BS_OK && st == wst && unchanged && (int) g.nstages == adds &&
			  (g.nstages == 64 || strcmp(err.msg, want.msg) == 0) &&
			  check_value(g.buf, g.len, NULL) == BS_OK,
			  "n0 1, growth 1, P 0.5, blocked: %d stages open, then the status and message of the first stage bs_bloom_shape_for or the 64-stage limit refuses (%d): %s", adds, (int) st, err.msg);
	}
	unit_arena_reset(&the_arena);
}

/* ---------- unions ---------- */

/* The count a merged stage must get (growable.h): max(a, b, round(e)), 2^53 past it. */
static uint64_t
want_count(uint64_t a, uint64_t b, double e)
{
	uint64_t	hi = a > b ? a : b,
				r;

	if (!(e < 9007199254740992.0))
		return BS_GROWABLE_MAX_COUNT;
	r = (uint64_t) floor(e + 0.5);
	return r > hi ? r : hi;
}

static bool
any_bit(const uint8_t *bits, uint64_t nbytes)
{
	uint64_t	j;

	for (j = 0; j < nbytes; j++)
		if (bits[j])
			return true;
	return false;
}

/* Checks dst (a copy of a, then |= b) against a and b, stage by stage. */
static int
union_mismatches(const bs_growable *u, const bs_growable *a, const bs_growable *b)
{
	uint32_t	s;
	int			bad = 0;

	if (u->nstages != a->nstages || u->len != a->len ||
		memcmp(u->buf + 8, a->buf + 8, BS_HEADER_SIZE - 8) != 0 ||
		u->buf[BS_OFF_FAMILY] != bs_family_join(a->family, b->family) ||
		u->family != u->buf[BS_OFF_FAMILY])
		bad++;
	for (s = 0; s < u->nstages; s++)
	{
		uint64_t	j,
					nbytes = bs_bloom_payload_bytes(u->stage[s].m),
					want;
		double		e = bs_bloom_cardinality_of(&u->stage[s]);

		if (u->stage[s].family != u->family)
			bad++;
		if (s >= b->nstages)
		{
			/* a's stages past b's last are a's, bits and count */
			bad += memcmp(u->stage[s].bits, a->stage[s].bits, nbytes) != 0 ||
				u->count[s] != a->count[s] || bs_load64(ENTRY(u->buf, s) + 16) != a->count[s];
			continue;
		}
		for (j = 0; j < nbytes; j++)
			bad += u->stage[s].bits[j] != (a->stage[s].bits[j] | b->stage[s].bits[j]);
		if (b->count[s] == 0 && !any_bit(b->stage[s].bits, nbytes))
			want = a->count[s];		/* an empty stage takes no part */
		else if (a->count[s] == 0 && !any_bit(a->stage[s].bits, nbytes))
			want = b->count[s];
		else
			want = want_count(a->count[s], b->count[s], e);
		if (u->count[s] != want || bs_load64(ENTRY(u->buf, s) + 16) != want)
		{
			bad++;
			printf("# stage %u: counts %" PRIu64 " and %" PRIu64 ", estimate %.3f: got %" PRIu64 ", want %" PRIu64 "\n",
				   s, a->count[s], b->count[s], e, u->count[s], want);
		}
	}
	return bad;
}

static void
test_union(uint32_t layout)
{
	unit_rng	r = {40 + layout};
	uint64_t   *ka = unit_random_hashes(&r, 1500),
			   *kb = unit_random_hashes(&r, 300);
	bs_growable a,
				b,
				u,
				v,
				e;
	int			i,
				missing = 0,
				bad;
	bs_error	err;

	new_growable(100, 0.02, 2, layout, BS_FAMILY_INTEGER, &a);
	new_growable(100, 0.02, 2, layout, BS_FAMILY_NONE, &b);
	for (i = 0; i < 1500; i++)
		(void) add_ok(&a, ka[i]);
	/* b shares its first 100 keys with a */
	for (i = 0; i < 300; i++)
		(void) add_ok(&b, i < 100 ? ka[i] : kb[i]);
	CHECK(a.nstages == 4 && b.nstages == 2,
		  "%s: 1,500 keys make 4 stages, 300 make 2 (%u, %u)", bs_layout_name(layout), a.nstages, b.nstages);
	CHECK(bs_growable_check_mergeable(&a, &b, &err) == BS_OK &&
		  bs_growable_check_mergeable(&b, &a, &err) == BS_OK,
		  "%s: filters of the same parameters merge, whatever their stages", bs_layout_name(layout));

	copy_growable(&a, &u);
	bs_growable_or(&u, &b);
	bad = union_mismatches(&u, &a, &b);
	for (i = 0; i < 1500; i++)
		missing += !bs_growable_contains(&u, ka[i]);
	for (i = 100; i < 300; i++)
		missing += !bs_growable_contains(&u, kb[i]);
	CHECK(bad == 0 && missing == 0 && check_value(u.buf, u.len, &err) == BS_OK,
		  "%s: a | b: stages 0-1 OR-ed with counts max(a, b, floor(est + 0.5)), stages 2-3 a's, family joined, valid, every key found (%d wrong, %d missing)",
		  bs_layout_name(layout), bad, missing);
	CHECK(u.count[0] >= 100 && u.count[0] <= 110 && u.count[1] >= 380 && u.count[1] <= 420 &&
		  u.family == BS_FAMILY_INTEGER,
		  "%s: stage 0 (the same 100 keys) counts %" PRIu64 ", stage 1 (200 and 200 distinct) %" PRIu64,
		  bs_layout_name(layout), u.count[0], u.count[1]);

	/* b | a into a copy of the longer side: the same bytes */
	copy_growable(&a, &v);
	bs_growable_or(&v, &b);
	CHECK(memcmp(u.buf, v.buf, u.len) == 0, "%s: the union is deterministic", bs_layout_name(layout));

	/* into the shorter dst's family: NONE joined with INTEGER is INTEGER */
	new_growable(100, 0.02, 2, layout, BS_FAMILY_NONE, &e);
	copy_growable(&a, &v);
	bs_growable_or(&v, &e);
	CHECK(union_mismatches(&v, &a, &e) == 0 && memcmp(v.buf, a.buf, a.len) == 0,
		  "%s: a | empty = a, byte for byte", bs_layout_name(layout));
	/* a dst of no family takes src's, in its header and in every stage's view */
	copy_growable(&b, &v);
	v.buf[BS_OFF_FAMILY] = BS_FAMILY_NONE;
	bs_growable_view(v.buf, &v);
	bs_growable_or(&v, &a);
	CHECK(v.family == BS_FAMILY_INTEGER && v.buf[BS_OFF_FAMILY] == BS_FAMILY_INTEGER &&
		  v.stage[0].family == BS_FAMILY_INTEGER && v.stage[1].family == BS_FAMILY_INTEGER,
		  "%s: a dst of no family takes src's family (header and stages)", bs_layout_name(layout));

	/*
	 * x | x keeps x's bits, each count raised to its bits' estimate when that
	 * is larger; after that, (x | x) | x = x | x byte for byte.
	 */
	copy_growable(&a, &u);
	bs_growable_or(&u, &a);
	bad = union_mismatches(&u, &a, &a);
	copy_growable(&u, &v);
	bs_growable_or(&v, &a);
	CHECK(bad == 0 && memcmp(v.buf, u.buf, u.len) == 0,
		  "%s: x | x: x's bits, counts max(count, estimate); (x | x) | x = x | x (%d wrong)",
		  bs_layout_name(layout), bad);

	/*
	 * The caps: counts of 2^53 merge to 2^53; a full stage's infinite
	 * estimate gives 2^53.  u's stage 1 is all ones but its bit 0, and v's stage 0
	 * is b's (not within a's), so that neither stage holds the other's.
	 */
	copy_growable(&a, &u);
	copy_growable(&a, &v);
	memcpy(v.stage[0].bits, b.stage[0].bits, bs_bloom_payload_bytes(v.stage[0].m));
	bs_store64(ENTRY(u.buf, 0) + 16, BS_GROWABLE_MAX_COUNT);
	bs_store64(ENTRY(v.buf, 0) + 16, BS_GROWABLE_MAX_COUNT - 1);
	bs_store64(ENTRY(v.buf, 1) + 16, BS_GROWABLE_MAX_COUNT - 3);
	memset(u.stage[1].bits, 0xff, bs_bloom_payload_bytes(u.stage[1].m));
	if (u.stage[1].m % 8)
		u.stage[1].bits[u.stage[1].m / 8] = (uint8_t) ((1u << (u.stage[1].m % 8)) - 1);
	u.stage[1].bits[0] &= (uint8_t) ~1u;
	v.stage[1].bits[0] |= 1u;
	bs_growable_view(u.buf, &u);
	bs_growable_view(v.buf, &v);
	CHECK(check_value(u.buf, u.len, &err) == BS_OK, "%s: count 2^53 and a stage of all ones are valid", bs_layout_name(layout));
	{
		bs_growable w;

		copy_growable(&u, &w);
		bs_growable_or(&w, &v);
		CHECK(w.count[0] == BS_GROWABLE_MAX_COUNT && union_mismatches(&w, &u, &v) == 0 &&
			  check_value(w.buf, w.len, &err) == BS_OK,
			  "%s: counts 2^53 and 2^53 - 1 merge to 2^53 (%" PRIu64 ")", bs_layout_name(layout), w.count[0]);
		bs_growable z;

		/* z: a with only bit 0 in stage 1, the bit u lacks */
		copy_growable(&a, &z);
		memset(z.stage[1].bits, 0, bs_bloom_payload_bytes(z.stage[1].m));
		z.stage[1].bits[0] = 1;
		copy_growable(&u, &w);
		bs_growable_or(&w, &z);
		CHECK(isinf(bs_bloom_cardinality_of(&w.stage[1])) && w.count[1] == BS_GROWABLE_MAX_COUNT,
			  "%s: a full stage's infinite estimate gives 2^53 (%" PRIu64 ")",
			  bs_layout_name(layout), w.count[1]);
		copy_growable(&u, &w);
		bs_growable_or(&w, &v);
		CHECK(w.count[1] == BS_GROWABLE_MAX_COUNT && check_value(w.buf, w.len, &err) == BS_OK,
			  "%s: ... and with counts near 2^53 too (%" PRIu64 ")", bs_layout_name(layout), w.count[1]);
	}
	free(ka);
	free(kb);
	unit_arena_reset(&the_arena);
}

/* a | b as bloom_value.c makes it: into a copy of the filter with more stages. */
static void
union_of(const bs_growable *a, const bs_growable *b, bs_growable *out)
{
	const bs_growable *big = a->nstages >= b->nstages ? a : b;

	copy_growable(big, out);
	bs_growable_or(out, big == a ? b : a);
}

/*
 * A union of several filters has the same bytes whatever the order and the
 * shape of the merges (a serial fold, a parallel plan's pairs, a Citus
 * coordinator's arrival order): a stage two or more inputs hold counts
 * max(their counts, the estimate of the final bits), one that one input holds
 * keeps its count.  a and c split b's keys, so a | c has b's bits: a rule that
 * treats "one side's bits hold the other's" apart (1.4) gives b's count or
 * the estimate depending on the order.  d has a second stage of its own.
 */
static void
test_union_order(uint32_t layout)
{
	static const int perm[24][4] = {
		{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {0, 3, 2, 1},
		{1, 0, 2, 3}, {1, 0, 3, 2}, {1, 2, 0, 3}, {1, 2, 3, 0}, {1, 3, 0, 2}, {1, 3, 2, 0},
		{2, 0, 1, 3}, {2, 0, 3, 1}, {2, 1, 0, 3}, {2, 1, 3, 0}, {2, 3, 0, 1}, {2, 3, 1, 0},
		{3, 0, 1, 2}, {3, 0, 2, 1}, {3, 1, 0, 2}, {3, 1, 2, 0}, {3, 2, 0, 1}, {3, 2, 1, 0}};
	/* first key and number of keys of a, b, c, d */
	static const int from[4] = {0, 0, 200, 300},
				nkeys[4] = {200, 400, 200, 1250};
	int			seed,
				differ = 0,
				bad = 0;

	for (seed = 0; seed < 8; seed++)
	{
		unit_rng	r = {70 + 10 * seed + layout};
		uint64_t   *keys = unit_random_hashes(&r, 1550);
		bs_growable f[4],
					first,
					acc,
					t,
					l,
					rr;
		int			p,
					i;
		uint32_t	s;

		for (i = 0; i < 4; i++)
		{
			int			j;

			new_growable(1000, 0.02, 2, layout, BS_FAMILY_INTEGER, &f[i]);
			for (j = 0; j < nkeys[i]; j++)
				(void) add_ok(&f[i], keys[from[i] + j]);
		}
		for (p = 0; p < 24; p++)
		{
			union_of(&f[perm[p][0]], &f[perm[p][1]], &acc);
			for (i = 2; i < 4; i++)
			{
				union_of(&acc, &f[perm[p][i]], &t);
				acc = t;
			}
			if (p == 0)
				first = acc;
			else
				differ += acc.len != first.len || memcmp(acc.buf, first.buf, acc.len) != 0;
			/* and as two pairs, as two parallel workers and a leader merge */
			union_of(&f[perm[p][0]], &f[perm[p][1]], &l);
			union_of(&f[perm[p][2]], &f[perm[p][3]], &rr);
			union_of(&l, &rr, &t);
			differ += t.len != first.len || memcmp(t.buf, first.buf, t.len) != 0;
		}
		for (s = 0; s < first.nstages; s++)
		{
			uint64_t	want = 0;
			int			holders = 0;
			double		e = bs_bloom_cardinality_of(&first.stage[s]);

			for (i = 0; i < 4; i++)
				if (s < f[i].nstages && f[i].count[s] > 0)
				{
					holders++;
					want = f[i].count[s] > want ? f[i].count[s] : want;
				}
			bad += first.count[s] != (holders > 1 ? want_count(want, 0, e) : want);
		}
		bad += first.nstages != 2;
		free(keys);
		unit_arena_reset(&the_arena);
	}
	CHECK(differ == 0 && bad == 0,
		  "%s: the union of 4 filters has the same bytes in 24 orders, folded and as pairs, 8 key sets (%d differ), counts max(inputs, estimate) (%d wrong)",
		  bs_layout_name(layout), differ, bad);
}

static void
test_mergeable(void)
{
	bs_growable a,
				o;
	bs_error	err;

	new_growable(100, 0.02, 2, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, &a);
	new_growable(101, 0.02, 2, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, &o);
	CHECK(bs_growable_check_mergeable(&a, &o, &err) == BS_ERR_SHAPE &&
		  strstr(err.msg, "different parameters: capacity 100, fpr 0.02, growth 2, classic stages (seed 0) and capacity 101,") &&
		  err.hint[0] != '\0',
		  "another capacity: %s", err.msg);
	new_growable(100, 0.02, 3, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, &o);
	CHECK(bs_growable_check_mergeable(&a, &o, &err) == BS_ERR_SHAPE && strstr(err.msg, "growth 3"),
		  "another growth: %s", err.msg);
	new_growable(100, 0.020000000000000004, 2, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, &o);
	CHECK(bs_growable_check_mergeable(&a, &o, &err) == BS_ERR_SHAPE && strstr(err.msg, "fpr 0.020000000000000004"),
		  "a rate one ulp off: %s", err.msg);
	new_growable(100, 0.02, 2, BS_LAYOUT_BLOCKED, BS_FAMILY_INTEGER, &o);
	CHECK(bs_growable_check_mergeable(&o, &a, &err) == BS_ERR_SHAPE && strstr(err.msg, "blocked stages") &&
		  strstr(err.msg, "classic stages"),
		  "another layout: %s", err.msg);
	new_growable(100, 0.02, 2, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, &o);
	o.seed = 9;
	CHECK(bs_growable_check_mergeable(&a, &o, &err) == BS_ERR_SHAPE && strstr(err.msg, "(seed 9)"),
		  "another seed: %s", err.msg);
	o.seed = a.seed;
	o.stage[0].m += 8;
	CHECK(bs_growable_check_mergeable(&a, &o, &err) == BS_ERR_SHAPE &&
		  strstr(err.msg, "whose stage 0 differs") && strstr(err.msg, "hashes and"),
		  "another stage shape: %s", err.msg);
	o.stage[0].m -= 8;
	o.stage[0].k++;
	CHECK(bs_growable_check_mergeable(&a, &o, &err) == BS_ERR_SHAPE && strstr(err.msg, "whose stage 0 differs"),
		  "another stage hash count: %s", err.msg);
	o.stage[0].k--;
	o.family = BS_FAMILY_TEXT;
	CHECK(bs_growable_check_mergeable(&a, &o, &err) == BS_ERR_FAMILY &&
		  strstr(err.msg, "integer") && strstr(err.msg, "text"),
		  "another family: %s", err.msg);
	o.family = BS_FAMILY_NONE;
	CHECK(bs_growable_check_mergeable(&a, &o, &err) == BS_OK &&
		  bs_growable_check_mergeable(&o, &a, &err) == BS_OK,
		  "no family merges with any");
	unit_arena_reset(&the_arena);
}

/* ---------- the estimates ---------- */

static void
test_estimates(uint32_t layout)
{
	unit_rng	r = {77 + layout};
	bs_growable g;
	int			i;
	uint32_t	s;
	double		n = 0,
				miss = 1;
	uint64_t	m = 0,
				x = 0;

	new_growable(200, 0.01, 3, layout, BS_FAMILY_INTEGER, &g);
	bs_growable_bits(&g, &m, &x);
	CHECK(bs_growable_cardinality(&g) == 0 && bs_growable_fpr(&g) == 0 && m > 0 && x == 0,
		  "%s: an empty filter estimates 0 keys at rate 0", bs_layout_name(layout));
	m = x = 0;
	for (i = 0; i < 5000; i++)
		(void) add_ok(&g, unit_next(&r));
	for (s = 0; s < g.nstages; s++)
	{
		uint64_t	xs = bs_popcount(g.stage[s].bits, bs_bloom_payload_bytes(g.stage[s].m));

		/* each stage by its layout's own formula */
		if (layout == BS_LAYOUT_CLASSIC)
		{
			n += -((double) g.stage[s].m / g.stage[s].k) * log1p(-(double) xs / g.stage[s].m);
			miss *= 1.0 - pow((double) xs / g.stage[s].m, g.stage[s].k);
		}
		else
		{
			n += bs_blocked_cardinality(g.stage[s].bits, g.stage[s].m, g.stage[s].k);
			miss *= 1.0 - bs_blocked_fpr_from_fill(g.stage[s].bits, g.stage[s].m, g.stage[s].k);
		}
		m += g.stage[s].m;
		x += xs;
	}
	{
		uint64_t	gm,
					gx;

		bs_growable_bits(&g, &gm, &gx);
		CHECK(g.nstages == 4 && gm == m && gx == x,
			  "%s: 5,000 keys, 4 stages: bits %" PRIu64 " and bits set %" PRIu64 " are the stages' sums",
			  bs_layout_name(layout), m, x);
	}
	CHECK(fabs(bs_growable_cardinality(&g) - n) <= 1e-9 * n && fabs(bs_growable_cardinality(&g) - 5000) < 150,
		  "%s: cardinality %.3f is the sum of the stages' estimates %.3f (near 5,000)",
		  bs_layout_name(layout), bs_growable_cardinality(&g), n);
	CHECK(fabs(bs_growable_fpr(&g) - (1 - miss)) <= 1e-12 && bs_growable_fpr(&g) < 0.01 &&
		  bs_growable_fpr(&g) > 0.001,
		  "%s: rate %.6g is 1 - prod(1 - rate_i) = %.6g, below P = 0.01",
		  bs_layout_name(layout), bs_growable_fpr(&g), 1 - miss);
	unit_arena_reset(&the_arena);
}

/* ---------- the format check ---------- */

typedef struct corruption
{
	const char *what;
	int			field;			/* header offset, or -1 for a directory field */
	int			size;			/* 4 or 8 bytes */
	uint32_t	stage;			/* directory entry, field at entry offset "entry" */
	int			entry;
	uint64_t	value;
	const char *msg;			/* a part of the message */
} corruption;

/* Store value at (field or stage entry) of a copy of buf and validate it. */
static bs_status
validate_corrupted(const uint8_t *buf, uint64_t len, const corruption *c, bs_error *err,
				   bs_status *quick)
{
	uint8_t    *x = unit_calloc(1, (size_t) len);
	uint8_t    *at;
	bs_status	st;

	memcpy(x, buf, len);
	snprintf(err->msg, sizeof(err->msg), "accepted");
	at = c->field >= 0 ? x + c->field : ENTRY(x, c->stage) + c->entry;
	if (c->size == 8)
		bs_store64(at, c->value);
	else
		bs_store32(at, (uint32_t) c->value);
	st = bs_validate(x, (size_t) len, BS_KIND_BLOOM, true, NULL, err);
	*quick = bs_validate(x, (size_t) len, BS_KIND_BLOOM, false, NULL, NULL);
	free(x);
	return st;
}

static void
test_check(void)
{
	unit_rng	r = {3};
	bs_growable g,
				gb;
	bs_error	err;
	int			i;
	uint32_t	odd = 0;

	/* classic, 3 stages; n0 = 97 gives stages of bit counts not all multiples of 8 */
	new_growable(97, 0.01, 2, BS_LAYOUT_CLASSIC, BS_FAMILY_INTEGER, &g);
	for (i = 0; i < 400; i++)
		(void) add_ok(&g, unit_next(&r));
	new_growable(97, 0.01, 2, BS_LAYOUT_BLOCKED, BS_FAMILY_INTEGER, &gb);
	for (i = 0; i < 400; i++)
		(void) add_ok(&gb, unit_next(&r));
	while (odd < g.nstages && g.stage[odd].m % 8 == 0)
		odd++;
	CHECK(g.nstages == 3 && gb.nstages == 3 && odd < g.nstages &&
		  check_value(g.buf, g.len, &err) == BS_OK && check_value(gb.buf, gb.len, &err) == BS_OK &&
		  (bs_load32(g.buf + BS_OFF_P3) == 2 && bs_load32(gb.buf + BS_OFF_P3) == 3),
		  "3-stage growable filters of p3 = 2 (classic) and 3 (blocked) are valid; classic stage %u has %" PRIu64 " bits",
		  odd, odd < g.nstages ? g.stage[odd].m : 0);
	if (odd >= g.nstages)
		return;

	{
		const corruption cases[] = {
			{"capacity 0", BS_OFF_P1, 8, 0, 0, 0, "invalid capacity 0"},
			{"capacity 2^53 + 1", BS_OFF_P1, 8, 0, 0, BS_GROWABLE_MAX_COUNT + 1, "invalid capacity 9007199254740993"},
			{"growth 0", BS_OFF_P2, 4, 0, 0, 0, "invalid growth 0"},
			{"growth 65", BS_OFF_P2, 4, 0, 0, 65, "invalid growth 65"},
			{"0 stages", BS_OFF_N, 8, 0, 0, 0, "invalid stage count 0"},
			{"65 stages", BS_OFF_N, 8, 0, 0, 65, "invalid stage count 65"},
			{"2^32 + 3 stages", BS_OFF_N, 8, 0, 0, (UINT64_C(1) << 32) + 3, "invalid stage count"},
			{"4 stages in a 3-stage value", BS_OFF_N, 8, 0, 0, 4, ""},
			{"2 stages in a 3-stage value", BS_OFF_N, 8, 0, 0, 2, ""},
			{"rate 0", BS_OFF_X, 8, 0, 0, 0, "invalid false-positive rate 0"},
			{"rate 1", BS_OFF_X, 8, 0, 0, UINT64_C(0x3ff0000000000000), "invalid false-positive rate 1"},
			{"rate NaN", BS_OFF_X, 8, 0, 0, UINT64_C(0x7ff8000000000000), "invalid false-positive rate"},
			{"rate inf", BS_OFF_X, 8, 0, 0, UINT64_C(0x7ff0000000000000), "invalid false-positive rate"},
			{"rate -0.01", BS_OFF_X, 8, 0, 0, UINT64_C(0xbf847ae147ae147b), "invalid false-positive rate -0.01"},
			{"rate -0", BS_OFF_X, 8, 0, 0, UINT64_C(0x8000000000000000), "invalid false-positive rate"},
			{"n0 s^2 = 2^54", BS_OFF_P1, 8, 0, 0, UINT64_C(1) << 52, "3 stages, more than its capacity"},
			{"stage 1 of 0 bits", -1, 8, 1, 0, 0, "invalid stage 1"},
			{"stage 2 of 65 hashes", -1, 4, 2, 8, 65, "invalid stage 2"},
			{"stage 0 of 0 hashes", -1, 4, 0, 8, 0, "invalid stage 0"},
			{"stage 0 past the bit limit", -1, 8, 0, 0, BS_BLOOM_MAX_BITS + 1, "invalid stage 0"},
			{"stage 1 reserved field", -1, 4, 1, 12, 1, "nonzero reserved field in stage 1"},
			{"stage 2 count 2^53 + 1", -1, 8, 2, 16, BS_GROWABLE_MAX_COUNT + 1, "invalid key count 9007199254740993 in stage 2"},
			{"stage 0 count 2^64 - 1", -1, 8, 0, 16, UINT64_MAX, "invalid key count"},
			{"stage 0 one byte longer", -1, 8, 0, 0, 0 /* set below */ , ""},
			{"p3 4", BS_OFF_P3, 4, 0, 0, 4, "unknown layout 4"},
			{"p3 6", BS_OFF_P3, 4, 0, 0, 6, "unknown layout 6"},
			{"p3 7", BS_OFF_P3, 4, 0, 0, 7, "unknown layout 7"},
			{"p3 2^31 + 2", BS_OFF_P3, 4, 0, 0, 0x80000002u, "unknown layout"},
		};
		corruption	cs[sizeof(cases) / sizeof(cases[0])];
		size_t		c;

		memcpy(cs, cases, sizeof(cases));
		for (c = 0; c < sizeof(cs) / sizeof(cs[0]); c++)
		{
			bs_status	st,
						quick;

			if (strcmp(cs[c].what, "stage 0 one byte longer") == 0)
				cs[c].value = g.stage[0].m + 8;
			st = validate_corrupted(g.buf, g.len, &cs[c], &err, &quick);
			CHECK(st == BS_ERR_FORMAT && quick == BS_ERR_FORMAT && (strstr(err.msg, "growable bloom value") != NULL) ==
				  (strncmp(cs[c].what, "p3", 2) != 0) && strstr(err.msg, cs[c].msg) != NULL,
				  "%s is BS_ERR_FORMAT, deep and quick: %s", cs[c].what, err.msg);
		}
	}
	/* the boundaries are accepted: they are what the refusals are measured against */
	{
		const corruption ok[] = {
			{"stage 2 count 2^53", -1, 8, 2, 16, BS_GROWABLE_MAX_COUNT, ""},
			{"stage 0 count 0", -1, 8, 0, 16, 0, ""},
			{"stage 1 of 64 hashes", -1, 4, 1, 8, 64, ""},
			{"rate 1 - 2^-53", BS_OFF_X, 8, 0, 0, UINT64_C(0x3fefffffffffffff), ""},
		};
		size_t		c;

		for (c = 0; c < sizeof(ok) / sizeof(ok[0]); c++)
		{
			bs_status	quick;
			uint8_t    *x = unit_calloc(1, (size_t) g.len);
			bs_status	st;

			/* growth 64 needs a capacity whose stage 2 stays within 2^53 */
			memcpy(x, g.buf, g.len);
			if (ok[c].field == BS_OFF_P2)
				bs_store64(x + BS_OFF_P1, 1);
			{
				corruption	one = ok[c];

				st = validate_corrupted(x, g.len, &one, &err, &quick);
			}
			CHECK(st == BS_OK && quick == BS_OK, "%s is accepted%s%s", ok[c].what,
				  st == BS_OK ? "" : ": ", st == BS_OK ? "" : err.msg);
			free(x);
		}
	}
	/*
	 * Header boundaries that pass the header's own checks, in a filter whose
	 * stages were sized for capacity 1000 at 1%: the stages are then far
	 * smaller than the growth rule gives those headers, so the stage check
	 * refuses them (no writer can make such a value).
	 */
	{
		const corruption rule[] = {
			{"capacity 2^51 (2^53 keys in stage 2)", BS_OFF_P1, 8, 0, 0, UINT64_C(1) << 51, "stage 0 of"},
			{"growth 64 with capacity 1", BS_OFF_P2, 4, 0, 0, 64, "stage 2 of"},
			{"rate 2^-1074", BS_OFF_X, 8, 0, 0, 1, "stage 0 of"},
		};
		size_t		c;

		for (c = 0; c < sizeof(rule) / sizeof(rule[0]); c++)
		{
			bs_status	quick;
			uint8_t    *x = unit_calloc(1, (size_t) g.len);
			bs_status	st;
			corruption	one = rule[c];

			memcpy(x, g.buf, g.len);
			if (one.field == BS_OFF_P2)
				bs_store64(x + BS_OFF_P1, 1);
			st = validate_corrupted(x, g.len, &one, &err, &quick);
			CHECK(st == BS_ERR_FORMAT && quick == BS_ERR_FORMAT && strstr(err.msg, one.msg) != NULL &&
				  strstr(err.msg, "fewer than its growth rule gives") != NULL,
				  "%s passes the header checks and is refused by the growth rule: %s", one.what, err.msg);
			free(x);
		}
	}
	/* lengths: one byte short, one byte long */
	{
		uint8_t    *x = unit_calloc(1, (size_t) g.len + 1);
		bs_error	e2;

		memcpy(x, g.buf, g.len);
		CHECK(bs_validate(x, (size_t) g.len - 1, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT &&
			  bs_validate(x, (size_t) g.len - 1, BS_KIND_BLOOM, false, NULL, NULL) == BS_ERR_FORMAT &&
			  strstr(err.msg, "too short for its stage 2"),
			  "a payload one byte short is refused: %s", err.msg);
		CHECK(bs_validate(x, (size_t) g.len + 1, BS_KIND_BLOOM, true, NULL, &e2) == BS_ERR_FORMAT &&
			  bs_validate(x, (size_t) g.len + 1, BS_KIND_BLOOM, false, NULL, NULL) == BS_ERR_FORMAT &&
			  strstr(e2.msg, "of 3 stages must have"),
			  "a payload one byte long is refused: %s", e2.msg);
		CHECK(bs_validate(x, BS_HEADER_SIZE + 3 * BS_GROWABLE_ENTRY_BYTES - 1, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT &&
			  strstr(err.msg, "at least 72 payload bytes"),
			  "a payload shorter than the directory is refused: %s", err.msg);
		free(x);
	}
	/* a bit past the last bit of a stage whose bits end inside a byte */
	{
		uint8_t    *x = unit_calloc(1, (size_t) g.len),
				   *bits = x + (g.stage[odd].bits - g.buf);
		uint64_t	m = g.stage[odd].m;
		char		want[80];

		memcpy(x, g.buf, g.len);
		bits[m / 8] |= 0x80;
		snprintf(want, sizeof(want), "bits set past the last bit %" PRIu64 " of stage %u", m - 1, odd);
		CHECK(bs_validate(x, (size_t) g.len, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT &&
			  bs_validate(x, (size_t) g.len, BS_KIND_BLOOM, false, NULL, NULL) == BS_ERR_FORMAT &&
			  strstr(err.msg, want),
			  "a bit set past stage %u's last bit is refused: %s", odd, err.msg);
		/* every bit up to the last one is fine */
		memset(bits, 0xff, (size_t) (m / 8));
		bits[m / 8] = (uint8_t) ((1u << (m % 8)) - 1);
		CHECK(bs_validate(x, (size_t) g.len, BS_KIND_BLOOM, true, NULL, &err) == BS_OK,
			  "... and stage %u with every bit up to its last set is accepted", odd);
		free(x);
	}
	/* blocked stages must have whole blocks */
	{
		corruption	c = {"blocked stage 1 of 1000 bits", -1, 8, 1, 0, 1000, "multiple of 512"};
		corruption	c2 = {"blocked stage 1 one block more", -1, 8, 1, 0, 0, ""};
		bs_status	st,
					quick;

		st = validate_corrupted(gb.buf, gb.len, &c, &err, &quick);
		CHECK(st == BS_ERR_FORMAT && quick == BS_ERR_FORMAT && strstr(err.msg, "invalid stage 1") &&
			  strstr(err.msg, c.msg),
			  "%s is refused: %s", c.what, err.msg);
		c2.value = gb.stage[1].m + BS_BLOCK_BITS;
		st = validate_corrupted(gb.buf, gb.len, &c2, &err, &quick);
		CHECK(st == BS_ERR_FORMAT && quick == BS_ERR_FORMAT && strstr(err.msg, "too short for its stage 2"),
			  "%s (the lengths no longer add up) is refused: %s", c2.what, err.msg);
	}
	/* p3 = 2 and 3 are growable; a plain bloom value with p3 = 1 is not */
	CHECK(bs_bloom_is_growable(g.buf) && bs_bloom_is_growable(gb.buf),
		  "p3 = 2 and p3 = 3 are growable");
	{
		uint8_t    *x = unit_calloc(1, (size_t) g.len);

		memcpy(x, g.buf, g.len);
		bs_store32(x + BS_OFF_P3, BS_LAYOUT_BLOCKED);
		CHECK(!bs_bloom_is_growable(x) &&
			  bs_validate(x, (size_t) g.len, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT,
			  "the same bytes with p3 = 1 are a plain blocked filter, refused: %s", err.msg);
		/* classic stages with p3 = 3 claim blocked stages: refused unless whole blocks */
		bs_store32(x + BS_OFF_P3, BS_BLOOM_GROWABLE | BS_LAYOUT_BLOCKED);
		CHECK(bs_validate(x, (size_t) g.len, BS_KIND_BLOOM, true, NULL, &err) == BS_ERR_FORMAT &&
			  strstr(err.msg, "multiple of 512"),
			  "classic stages under p3 = 3 are refused: %s", err.msg);
		free(x);
	}
	unit_arena_reset(&the_arena);
}

/* ---------- probe ranges ---------- */

static void
test_probe_ranges(void)
{
	size_t		l;
	int			bad = 0;

	for (l = 0; l < 2; l++)
	{
		bs_growable g;
		bs_header	h;
		bs_byte_range r[BS_PROBE_RANGES_MAX];
		unit_rng	keys = {l + 1};
		int			i;

		new_growable(50, 0.05, 2, layouts[l], BS_FAMILY_INTEGER, &g);
		for (i = 0; i < 200; i++)
			(void) add_ok(&g, unit_next(&keys));
		if (bs_validate(g.buf, (size_t) g.len, BS_KIND_BLOOM, true, &h, NULL) != BS_OK)
		{
			bad++;
			continue;
		}
		keys.s = l + 1;
		for (i = 0; i < 300; i++)
			bad += bs_probe_ranges(&h, unit_next(&keys), r) != 0;
	}
	CHECK(bad == 0, "bs_probe_ranges lists no ranges for growable values of either layout: they are read whole (%d lookups listed some)", bad);
	unit_arena_reset(&the_arena);
}

int
main(void)
{
	test_new();
	grow_and_check(50, 0.01, 2, BS_LAYOUT_CLASSIC, 1200, 5);
	grow_and_check(50, 0.01, 2, BS_LAYOUT_BLOCKED, 1200, 5);
	grow_and_check(30, 0.05, 3, BS_LAYOUT_CLASSIC, 1500, 5);
	grow_and_check(30, 0.05, 3, BS_LAYOUT_BLOCKED, 1500, 5);
	grow_and_check(40, 0.1, 1, BS_LAYOUT_CLASSIC, 300, 7);
	grow_and_check(1, 0.001, 2, BS_LAYOUT_BLOCKED, 100, 7);
	test_stage_target();
	test_limits();
	test_union(BS_LAYOUT_CLASSIC);
	test_union(BS_LAYOUT_BLOCKED);
	test_union_order(BS_LAYOUT_CLASSIC);
	test_union_order(BS_LAYOUT_BLOCKED);
	test_mergeable();
	test_estimates(BS_LAYOUT_CLASSIC);
	test_estimates(BS_LAYOUT_BLOCKED);
	test_check();
	test_probe_ranges();
	return unit_done("growable");
}
