/*
 * fuzz_cms.c: a cms value from outside (cms_in, cms_recv, the bytea cast),
 * then what the SQL functions do with it.
 *
 * The input is the value's bytes.  When bs_validate(deep) accepts them:
 *   - cms_frequency / cms_total / cms_error_bound / cms_info: estimates of
 *     keys (never above the total), epsilon and delta;
 *   - cms_add / cms_agg / cms_agg_weighted: counts 0, 1, a few, exactly up to
 *     the largest total, and one past it (refused with BS_ERR_LIMIT, nothing
 *     changed); an accepted add raises the key's estimate by its count;
 *   - cms_union / cms_union_agg: with a copy of itself (the total doubles or
 *     the merge is refused unchanged) and with a valid sketch of the same
 *     shape (both orders, equal results), and the refusals of another shape
 *     or family;
 *   - cms_subtract: (x + c) - c is x, x - c is exact or refused unchanged,
 *     x - x is empty;
 *   - cms_inner_product: with itself and with the other sketch (symmetric);
 *   - every sketch made goes through its text form and bs_validate.
 */
#include "fuzz_common.h"

static void
check_rows(const bs_cms *c, const char *what)
{
	uint64_t	row,
				col;

	for (row = 0; row < c->depth; row++)
	{
		unsigned __int128 sum = 0;

		for (col = 0; col < c->width; col++)
			sum += bs_load64(c->counters + (row * c->width + col) * 8);
		FZ_CHECK(sum == c->total, "%s: row %" PRIu64 " does not sum to the total %" PRIu64, what, row, c->total);
	}
}

/* cms_add: on success the estimate rises by count; on BS_ERR_LIMIT nothing changes. */
static void
add_checked(uint8_t *buf, size_t len, uint64_t h, uint64_t count, const char *what)
{
	bs_cms		c;
	uint8_t    *before = fz_dup(buf, len);
	uint64_t	f0;
	bool		fits;
	bs_error	err;
	bs_status	st;

	bs_cms_view(buf, &c);
	f0 = bs_cms_frequency(&c, h);
	fits = count <= BS_CMS_MAX_COUNT - c.total;
	st = bs_cms_add(&c, h, count, &err);
	if (fits)
	{
		fz_check_error(st, BS_OK, &err, what);
		FZ_CHECK(bs_cms_frequency(&c, h) >= f0 + count && c.total == bs_load64(buf + BS_OFF_N),
				 "%s: estimate %" PRIu64 " after adding %" PRIu64 " to %" PRIu64, what,
				 bs_cms_frequency(&c, h), count, f0);
		fz_roundtrip(buf, len, BS_KIND_CMS, what);
	}
	else
	{
		fz_check_error(st, BS_ERR_LIMIT, &err, what);
		FZ_CHECK(memcmp(before, buf, len) == 0, "%s: a refused add changed the sketch", what);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bs_header	h;
	bs_error	err;
	bs_status	st;
	fz_rng		r;
	uint8_t    *x,
			   *y,
			   *c,
			   *a,
			   *b;
	bs_cms		cx,
				cy,
				cc,
				ca,
				cb,
				other;
	uint64_t	total,
				keys[4];
	bs_u128		ip1,
				ip2;
	int			i;

	if (bs_validate(data, size, BS_KIND_CMS, true, &h, &err) != BS_OK)
		return 0;
	r = fz_rng_for(data, size);

	/* read-only: cms_frequency, cms_total, cms_error_bound, cms_info */
	bs_cms_view((uint8_t *) data, &cx);
	FZ_CHECK(size == BS_HEADER_SIZE + cx.width * cx.depth * 8, "length %zu for width %" PRIu64 ", depth %u",
			 size, cx.width, cx.depth);
	check_rows(&cx, "input");
	for (i = 0; i < 8; i++)
	{
		uint64_t	f = bs_cms_frequency(&cx, fz_next(&r));

		FZ_CHECK(f <= cx.total, "estimate %" PRIu64 " above the total %" PRIu64, f, cx.total);
	}
	FZ_CHECK(isfinite(bs_cms_epsilon(cx.width) * (double) cx.total) && bs_cms_delta(cx.depth) > 0,
			 "epsilon or delta not finite");

	/* cms_add and the aggregates' adds */
	x = fz_dup(data, size);
	for (i = 0; i < 4; i++)
		keys[i] = fz_next(&r);
	add_checked(x, size, keys[0], 0, "add 0");
	add_checked(x, size, keys[1], 1, "add 1");
	add_checked(x, size, keys[2], 1 + fz_below(&r, 1000), "add a few");
	y = fz_dup(x, size);
	bs_cms_view(y, &cy);
	add_checked(y, size, keys[3], BS_CMS_MAX_COUNT - cy.total, "add up to the largest total");
	add_checked(y, size, keys[3], 1, "add past the largest total");
	add_checked(x, size, keys[3], UINT64_MAX, "add 2^64 - 1");
	bs_cms_view(x, &cx);
	check_rows(&cx, "after adds");

	/* cms_union with a copy of itself */
	y = fz_dup(x, size);
	bs_cms_view(y, &cy);
	total = cx.total;
	st = bs_cms_merge(&cy, &cx, &err);
	if (total <= BS_CMS_MAX_COUNT / 2)
	{
		fz_check_error(st, BS_OK, &err, "merge with itself");
		FZ_CHECK(cy.total == 2 * total && bs_cms_frequency(&cy, keys[2]) == 2 * bs_cms_frequency(&cx, keys[2]),
				 "x + x is not twice x");
		fz_roundtrip(y, size, BS_KIND_CMS, "merge with itself");
	}
	else
	{
		fz_check_error(st, BS_ERR_LIMIT, &err, "merge with itself past the largest total");
		FZ_CHECK(memcmp(x, y, size) == 0, "a refused merge changed the sketch");
	}

	/* with a valid sketch of the same shape and a compatible family, both orders */
	c = fz_alloc(NULL, size);
	bs_cms_init(c, cx.width, cx.depth, (fz_next(&r) & 1) ? cx.family : BS_FAMILY_NONE, cx.seed);
	bs_cms_view(c, &cc);
	for (i = 0; i < 4; i++)
		fz_check_error(bs_cms_add(&cc, fz_next(&r), 1 + fz_below(&r, 50), &err), BS_OK, &err, "add to the other sketch");
	a = fz_dup(x, size);
	b = fz_dup(c, size);
	bs_cms_view(a, &ca);
	bs_cms_view(b, &cb);
	st = bs_cms_merge(&ca, &cc, &err);
	fz_check_error(bs_cms_merge(&cb, &cx, &err), st, &err, "reverse merge");
	if (st == BS_OK)
	{
		FZ_CHECK(memcmp(a + BS_HEADER_SIZE, b + BS_HEADER_SIZE, size - BS_HEADER_SIZE) == 0 &&
				 ca.total == cb.total && a[BS_OFF_FAMILY] == b[BS_OFF_FAMILY],
				 "x + c and c + x differ");
		fz_roundtrip(a, size, BS_KIND_CMS, "merge");
		fz_roundtrip(b, size, BS_KIND_CMS, "reverse merge");
	}
	else
		FZ_CHECK(st == BS_ERR_LIMIT && memcmp(a, x, size) == 0, "refused merge (%d) changed the sketch", (int) st);

	/*
	 * cms_subtract: (x + c) - c is x, byte for byte but the family (x + c
	 * has c's family when x had none); x - c is refused unchanged or leaves
	 * valid rows; x - x is empty.
	 */
	if (st == BS_OK)
	{
		bs_cms		cd;
		uint8_t    *d = fz_dup(a, size);

		bs_cms_view(d, &cd);
		fz_check_error(bs_cms_subtract(&cd, &cc, &err), BS_OK, &err, "(x + c) - c");
		FZ_CHECK(memcmp(d + BS_HEADER_SIZE, x + BS_HEADER_SIZE, size - BS_HEADER_SIZE) == 0 &&
				 cd.total == cx.total, "(x + c) - c is not x");
		fz_roundtrip(d, size, BS_KIND_CMS, "subtract");
	}
	{
		bs_cms		cd;
		uint8_t    *d = fz_dup(x, size);

		bs_cms_view(d, &cd);
		st = bs_cms_subtract(&cd, &cc, &err);
		if (st == BS_OK)
		{
			check_rows(&cd, "after subtract");
			fz_roundtrip(d, size, BS_KIND_CMS, "subtract");
		}
		else
			FZ_CHECK(st == BS_ERR_PARAM && memcmp(d, x, size) == 0,
					 "refused subtract (%d) changed the sketch", (int) st);
		d = fz_dup(x, size);
		bs_cms_view(d, &cd);
		fz_check_error(bs_cms_subtract(&cd, &cx, &err), BS_OK, &err, "x - x");
		FZ_CHECK(cd.total == 0 && bs_cms_frequency(&cd, keys[2]) == 0, "x - x is not empty");
		fz_roundtrip(d, size, BS_KIND_CMS, "x - x");
	}

	/* cms_inner_product */
	fz_check_error(bs_cms_inner_product(&cx, &cx, &ip1, &err), BS_OK, &err, "inner product with itself");
	fz_check_error(bs_cms_inner_product(&cx, &cc, &ip1, &err), BS_OK, &err, "inner product");
	fz_check_error(bs_cms_inner_product(&cc, &cx, &ip2, &err), BS_OK, &err, "reverse inner product");
	FZ_CHECK(ip1.hi == ip2.hi && ip1.lo == ip2.lo, "the inner product is not symmetric");

	/* refusals (no bytes needed) */
	other = cx;
	other.width = cx.width + 1;
	fz_check_error(bs_cms_merge(&other, &cx, &err), BS_ERR_SHAPE, &err, "other width");
	other = cx;
	other.depth = cx.depth % BS_CMS_MAX_DEPTH + 1;
	fz_check_error(bs_cms_inner_product(&cx, &other, &ip1, &err), BS_ERR_SHAPE, &err, "other depth");
	other = cx;
	other.seed = cx.seed ^ 1;
	fz_check_error(bs_cms_merge(&other, &cx, &err), BS_ERR_SHAPE, &err, "other seed");
	if (cx.family != BS_FAMILY_NONE)
	{
		other = cx;
		other.family = fz_other_family(cx.family);
		fz_check_error(bs_cms_inner_product(&other, &cx, &ip1, &err), BS_ERR_FAMILY, &err, "other family");
	}

	fz_reset();
	return 0;
}
