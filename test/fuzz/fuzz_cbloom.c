/*
 * fuzz_cbloom.c: a cbloom value from outside (cbloom_in, cbloom_recv, the
 * bytea cast, or the state of cbloom_agg(x, capacity, fpr)), then what the
 * SQL functions do with it.
 *
 * The input is the value's bytes.  When bs_validate(deep) accepts them:
 *   - cbloom_info: counter statistics, cardinality and fpr from the fill;
 *   - cbloom_contains / cbloom_count: probes of keys;
 *   - cbloom_add / cbloom_agg: adds; the key is then present and counts at
 *     least 1; the value stays valid;
 *   - cbloom_remove: of a key just added (succeeds) and of random keys
 *     (succeeds, or BS_ERR_ABSENT with nothing changed);
 *   - cbloom_union / cbloom_union_agg: with a copy of itself and with a
 *     valid filter of the same shape (both orders, equal results), and the
 *     refusals of another shape or family;
 *   - cbloom_subtract: (x + c) - c gives back x on every unsaturated counter;
 *     x - x leaves only saturated counters; a refused subtraction changes
 *     nothing;
 *   - the cast to bloom: a valid filter with bit j set where counter j > 0;
 *   - every value made goes through its text form and bs_validate.
 */
#include "fuzz_common.h"

static size_t
payload_of(const bs_cbloom *c)
{
	return (size_t) (c->bits == 8 ? c->m : c->m / 2 + c->m % 2);
}

static void
check_info(const bs_cbloom *c, const char *what)
{
	uint64_t	zero,
				sat;
	double		card,
				fpr;

	bs_cbloom_stats(c, &zero, &sat);
	FZ_CHECK(zero <= c->m && sat <= c->m && zero + sat <= c->m, "%s: %" PRIu64 " zero and %" PRIu64 " saturated of %" PRIu64,
			 what, zero, sat, c->m);
	card = bs_bloom_cardinality(c->m, c->k, c->m - zero);
	fpr = bs_bloom_fpr_from_fill(c->m, c->k, c->m - zero);
	FZ_CHECK(card >= 0 && fpr >= 0 && fpr <= 1, "%s: cardinality %g, fpr %g", what, card, fpr);
}

/* The cast to bloom, checked bit by bit. */
static void
to_bloom_checked(const bs_cbloom *c, const char *what)
{
	uint64_t	total,
				j;
	bs_error	err;
	uint8_t    *out;

	FZ_CHECK(bs_bloom_size(c->m, &total, &err) == BS_OK, "%s: bs_bloom_size(%" PRIu64 "): %s", what, c->m, err.msg);
	out = fz_alloc(NULL, (size_t) total);
	bs_cbloom_to_bloom(c, out);
	fz_roundtrip(out, (size_t) total, BS_KIND_BLOOM, what);
	for (j = 0; j < c->m; j++)
		FZ_CHECK(((out[BS_HEADER_SIZE + (j >> 3)] >> (j & 7)) & 1) == (bs_cbloom_get(c, j) != 0),
				 "%s: bit %" PRIu64 " disagrees with its counter", what, j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bs_header	h;
	bs_error	err;
	bs_status	st;
	fz_rng		r;
	bs_cbloom	cx,
				cy,
				cc,
				ca,
				cb,
				other;
	uint8_t    *x,
			   *y,
			   *c,
			   *a,
			   *b;
	uint64_t	keys[6],
				j;
	int			i;

	if (bs_validate(data, size, BS_KIND_CBLOOM, true, &h, &err) != BS_OK)
		return 0;
	r = fz_rng_for(data, size);

	/* read-only: cbloom_info, cbloom_contains, cbloom_count, the cast */
	bs_cbloom_view((uint8_t *) data, &cx);
	FZ_CHECK((cx.bits == 4 || cx.bits == 8) && size == BS_HEADER_SIZE + payload_of(&cx),
			 "length %zu for %" PRIu64 " %u-bit counters", size, cx.m, cx.bits);
	check_info(&cx, "input");
	for (i = 0; i < 8; i++)
	{
		uint64_t	hh = fz_next(&r);
		uint32_t	n = bs_cbloom_count_hash(&cx, hh);

		FZ_CHECK((n > 0) <= bs_cbloom_contains_hash(&cx, hh) && n <= cx.max, "count %u of an absent key", n);
	}
	to_bloom_checked(&cx, "cast to bloom");

	/* cbloom_add, then cbloom_remove of what was added */
	x = fz_dup(data, size);
	bs_cbloom_view(x, &cx);
	for (i = 0; i < 6; i++)
	{
		keys[i] = i == 0 ? 0 : fz_next(&r);
		bs_cbloom_add_hash(&cx, keys[i], i == 5 ? 1 + fz_below(&r, 300) : 1);
		FZ_CHECK(bs_cbloom_contains_hash(&cx, keys[i]) && bs_cbloom_count_hash(&cx, keys[i]) >= 1,
				 "added key %d not found", i);
	}
	fz_roundtrip(x, size, BS_KIND_CBLOOM, "after adds");
	check_info(&cx, "after adds");
	y = fz_dup(x, size);
	bs_cbloom_view(y, &cy);
	fz_check_error(bs_cbloom_remove_hash(&cy, keys[1], &err), BS_OK, &err, "remove an added key");
	fz_roundtrip(y, size, BS_KIND_CBLOOM, "after a remove");
	for (i = 0; i < 4; i++)
	{
		uint8_t    *before = fz_dup(y, size);

		st = bs_cbloom_remove_hash(&cy, fz_next(&r), &err);
		if (st == BS_OK)
			fz_roundtrip(y, size, BS_KIND_CBLOOM, "after removing a key");
		else
		{
			fz_check_error(st, BS_ERR_ABSENT, &err, "remove a key not added");
			FZ_CHECK(memcmp(before, y, size) == 0, "a refused remove changed the filter");
		}
	}

	/* union with a copy of itself */
	y = fz_dup(x, size);
	bs_cbloom_view(y, &cy);
	fz_check_error(bs_cbloom_check_compatible(&cy, &cx, "merge", &err), BS_OK, &err, "merge with itself");
	bs_cbloom_add_counters(&cy, &cx);
	for (j = 0; j < cx.m; j++)
	{
		uint32_t	v = bs_cbloom_get(&cx, j),
					w = bs_cbloom_get(&cy, j);

		FZ_CHECK(w == (2 * v > cx.max ? cx.max : 2 * v), "x + x: counter %" PRIu64 " is %u, was %u", j, w, v);
	}
	fz_roundtrip(y, size, BS_KIND_CBLOOM, "merge with itself");

	/* x - x: only saturated counters stay */
	y = fz_dup(x, size);
	bs_cbloom_view(y, &cy);
	fz_check_error(bs_cbloom_check_compatible(&cy, &cx, "subtract", &err), BS_OK, &err, "subtract itself");
	fz_check_error(bs_cbloom_subtract(&cy, &cx, &err), BS_OK, &err, "subtract itself");
	for (j = 0; j < cx.m; j++)
		FZ_CHECK(bs_cbloom_get(&cy, j) == (bs_cbloom_get(&cx, j) == cx.max ? cx.max : 0),
				 "x - x: counter %" PRIu64 " is %u", j, bs_cbloom_get(&cy, j));
	fz_roundtrip(y, size, BS_KIND_CBLOOM, "subtract itself");

	/* with a valid filter of the same shape, both orders */
	c = fz_alloc(NULL, size);
	bs_cbloom_init(c, cx.m, cx.k, cx.bits, (fz_next(&r) & 1) ? cx.family : BS_FAMILY_NONE, cx.seed);
	bs_cbloom_view(c, &cc);
	for (i = 0; i < 6; i++)
		bs_cbloom_add_hash(&cc, fz_next(&r), 1 + fz_below(&r, 3));
	a = fz_dup(x, size);
	b = fz_dup(c, size);
	bs_cbloom_view(a, &ca);
	bs_cbloom_view(b, &cb);
	fz_check_error(bs_cbloom_check_compatible(&ca, &cc, "merge", &err), BS_OK, &err, "merge with a filter of its shape");
	bs_cbloom_add_counters(&ca, &cc);
	fz_check_error(bs_cbloom_check_compatible(&cb, &cx, "merge", &err), BS_OK, &err, "merge into a filter of its shape");
	bs_cbloom_add_counters(&cb, &cx);
	FZ_CHECK(memcmp(a, b, size) == 0, "x + c and c + x differ");
	fz_roundtrip(a, size, BS_KIND_CBLOOM, "merge");
	check_info(&ca, "merge");
	to_bloom_checked(&ca, "cast of a merge");

	/* (x + c) - c: x again wherever the sum did not saturate */
	fz_check_error(bs_cbloom_subtract(&ca, &cc, &err), BS_OK, &err, "subtract a part");
	for (j = 0; j < cx.m; j++)
	{
		uint32_t	v = bs_cbloom_get(&cx, j),
					w = bs_cbloom_get(&cc, j),
					got = bs_cbloom_get(&ca, j);

		if (v + w < cx.max)
			FZ_CHECK(got == v, "(x + c) - c: counter %" PRIu64 " is %u, x had %u", j, got, v);
		else
			FZ_CHECK(got == cx.max, "(x + c) - c: saturated counter %" PRIu64 " is %u", j, got);
	}
	fz_roundtrip(a, size, BS_KIND_CBLOOM, "subtract a part");

	/* c - x: succeeds, or is refused (BS_ERR_ABSENT) changing nothing */
	b = fz_dup(c, size);
	bs_cbloom_view(b, &cb);
	st = bs_cbloom_subtract(&cb, &cx, &err);
	if (st == BS_OK)
		fz_roundtrip(b, size, BS_KIND_CBLOOM, "subtract");
	else
	{
		fz_check_error(st, BS_ERR_ABSENT, &err, "subtract");
		FZ_CHECK(memcmp(b, c, size) == 0, "a refused subtraction changed the filter");
	}

	/* refusals (no bytes needed) */
	other = cx;
	other.m = cx.m + 1;
	fz_check_error(bs_cbloom_check_compatible(&other, &cx, "merge", &err), BS_ERR_SHAPE, &err, "other counter count");
	other = cx;
	other.k = cx.k % BS_BLOOM_MAX_HASHES + 1;
	fz_check_error(bs_cbloom_check_compatible(&cx, &other, "subtract", &err), BS_ERR_SHAPE, &err, "other hash count");
	other = cx;
	other.bits = cx.bits == 4 ? 8 : 4;
	fz_check_error(bs_cbloom_check_compatible(&cx, &other, "merge", &err), BS_ERR_SHAPE, &err, "other counter width");
	other = cx;
	other.seed = cx.seed + 1;
	fz_check_error(bs_cbloom_check_compatible(&cx, &other, "merge", &err), BS_ERR_SHAPE, &err, "other seed");
	if (cx.family != BS_FAMILY_NONE)
	{
		other = cx;
		other.family = fz_other_family(cx.family);
		fz_check_error(bs_cbloom_check_compatible(&cx, &other, "merge", &err), BS_ERR_FAMILY, &err, "other family");
	}

	fz_reset();
	return 0;
}
