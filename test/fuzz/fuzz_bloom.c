/*
 * fuzz_bloom.c: a bloom value from outside (bloom_in, bloom_recv, the bytea
 * cast), then everything the SQL functions do with it.
 *
 * The input is the value's bytes.  When bs_validate(deep) accepts them:
 *   - bloom_info / bloom_cardinality / bloom_fpr: popcount, the estimates;
 *   - bloom_contains / @>: probes of keys (some added before);
 *   - bloom_add: adds, after which the keys are found and the value is valid;
 *   - bloom_union / bloom_intersection (and their aggregates): with a copy of
 *     itself (x | x = x & x = x), with a valid filter of the same shape
 *     (both orders; the union holds both sides' keys), and the shape and
 *     family checks that refuse other filters;
 *   - bs_bloom_fold (what bloom_agg's final does to a dense state): onto
 *     M/f bits for some f dividing M; every key added before is still found;
 *   - every result's text form decodes to itself and passes bs_validate.
 * Every value is an exact-length buffer; hashes come from the input.
 */
#include "fuzz_common.h"

#define NKEYS 6

/* A valid empty filter of the given shape, at its exact length. */
static uint8_t *
new_bloom(uint64_t m, uint32_t k, uint8_t family, uint64_t seed, size_t *len)
{
	uint64_t	total;
	bs_error	err;
	uint8_t    *buf;

	FZ_CHECK(bs_bloom_size(m, &total, &err) == BS_OK, "bs_bloom_size(%" PRIu64 ") of an accepted filter: %s", m, err.msg);
	buf = fz_alloc(NULL, (size_t) total);
	bs_bloom_init(buf, m, k, family, seed);
	*len = (size_t) total;
	return buf;
}

static uint64_t
bits_set(const bs_bloom *b)
{
	return bs_popcount(b->bits, bs_bloom_payload_bytes(b->m));
}

static void
check_stats(const bs_bloom *b, const char *what)
{
	uint64_t	x = bits_set(b);
	double		card = bs_bloom_cardinality(b->m, b->k, x),
				fpr = bs_bloom_fpr_from_fill(b->m, b->k, x);

	FZ_CHECK(x <= b->m, "%s: %" PRIu64 " bits set of %" PRIu64, what, x, b->m);
	FZ_CHECK(card >= 0 && (x == b->m ? isinf(card) : isfinite(card)),
			 "%s: cardinality %g with %" PRIu64 " of %" PRIu64 " bits set", what, card, x, b->m);
	FZ_CHECK(fpr >= 0 && fpr <= 1, "%s: fpr %g", what, fpr);
}

static void
check_has(const bs_bloom *b, const uint64_t *keys, int n, const char *what)
{
	int			i;

	for (i = 0; i < n; i++)
		FZ_CHECK(bs_bloom_contains_hash(b->bits, b->m, b->k, keys[i]),
				 "%s: key %d (hash %016" PRIx64 ") added but not found", what, i, keys[i]);
}

/* The smallest divisor of m in [2, 64], or 0. */
static uint64_t
small_divisor(uint64_t m)
{
	uint64_t	f;

	for (f = 2; f <= 64 && f <= m; f++)
		if (m % f == 0)
			return f;
	return 0;
}

static void
fold_and_check(const bs_bloom *b, uint64_t f, const uint64_t *keys, int nkeys)
{
	size_t		len;
	uint8_t    *dst;
	bs_bloom	d;

	if (f < 2 || b->m % f != 0)
		return;
	dst = new_bloom(b->m / f, b->k, b->family, b->seed, &len);
	bs_bloom_fold(b->bits, b->m, f, dst + BS_HEADER_SIZE);
	bs_bloom_view(dst, &d);
	fz_roundtrip(dst, len, BS_KIND_BLOOM, "folded filter");
	check_has(&d, keys, nkeys, "folded filter");
	FZ_CHECK(bits_set(&d) <= bits_set(b), "folding set more bits than the filter had");
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
			   *u,
			   *in;
	size_t		clen;
	bs_bloom	bx,
				by,
				bc,
				bu,
				bi,
				other;
	uint64_t	keys[NKEYS],
				ckeys[NKEYS],
				before;
	int			i;

	if (bs_validate(data, size, BS_KIND_BLOOM, true, &h, &err) != BS_OK)
		return 0;
	r = fz_rng_for(data, size);

	/* read-only use of the value as it came (bloom_info, bloom_contains) */
	bs_bloom_view((uint8_t *) data, &bx);
	FZ_CHECK(size == BS_HEADER_SIZE + bs_bloom_payload_bytes(bx.m), "length %zu for %" PRIu64 " bits", size, bx.m);
	check_stats(&bx, "input");
	for (i = 0; i < 8; i++)
		(void) bs_bloom_contains_hash(bx.bits, bx.m, bx.k, fz_next(&r));
	before = bits_set(&bx);

	/* bloom_add */
	x = fz_dup(data, size);
	bs_bloom_view(x, &bx);
	for (i = 0; i < NKEYS; i++)
	{
		keys[i] = i == 0 ? 0 : i == 1 ? UINT64_MAX : fz_next(&r);
		bs_bloom_add_hash(bx.bits, bx.m, bx.k, keys[i]);
	}
	check_has(&bx, keys, NKEYS, "after adds");
	FZ_CHECK(bits_set(&bx) >= before, "adding cleared bits");
	check_stats(&bx, "after adds");
	fz_roundtrip(x, size, BS_KIND_BLOOM, "after adds");

	/* with itself: union and intersection of equal filters change nothing */
	y = fz_dup(x, size);
	bs_bloom_view(y, &by);
	fz_check_error(bs_bloom_check_mergeable(&by, &bx, &err), BS_OK, &err, "merge with itself");
	bs_bloom_or(&by, &bx);
	FZ_CHECK(memcmp(x, y, size) == 0, "x | x != x");
	bs_bloom_and(&by, &bx);
	FZ_CHECK(memcmp(x, y, size) == 0, "x & x != x");

	/* with a valid filter of the same shape and a compatible family */
	c = new_bloom(bx.m, bx.k, (fz_next(&r) & 1) ? bx.family : BS_FAMILY_NONE, bx.seed, &clen);
	FZ_CHECK(clen == size, "same shape, different length");
	bs_bloom_view(c, &bc);
	for (i = 0; i < NKEYS; i++)
	{
		ckeys[i] = fz_next(&r);
		bs_bloom_add_hash(bc.bits, bc.m, bc.k, ckeys[i]);
	}
	u = fz_dup(x, size);
	bs_bloom_view(u, &bu);
	fz_check_error(bs_bloom_check_mergeable(&bu, &bc, &err), BS_OK, &err, "union with a filter of its shape");
	bs_bloom_or(&bu, &bc);
	check_has(&bu, keys, NKEYS, "union");
	check_has(&bu, ckeys, NKEYS, "union");
	check_stats(&bu, "union");
	fz_roundtrip(u, size, BS_KIND_BLOOM, "union");
	in = fz_dup(c, size);
	bs_bloom_view(in, &bi);
	fz_check_error(bs_bloom_check_mergeable(&bi, &bx, &err), BS_OK, &err, "intersection with a filter of its shape");
	bs_bloom_and(&bi, &bx);
	FZ_CHECK(bits_set(&bi) <= bits_set(&bc) && bits_set(&bi) <= bits_set(&bx), "intersection has more bits than a side");
	check_stats(&bi, "intersection");
	fz_roundtrip(in, size, BS_KIND_BLOOM, "intersection");

	/* the checks that refuse other shapes and families (no bytes needed) */
	other = bx;
	other.k = bx.k % BS_BLOOM_MAX_HASHES + 1;
	fz_check_error(bs_bloom_check_mergeable(&bx, &other, &err), BS_ERR_SHAPE, &err, "other hash count");
	other = bx;
	other.m = bx.m + 1;
	fz_check_error(bs_bloom_check_mergeable(&other, &bx, &err), BS_ERR_SHAPE, &err, "other bit count");
	other = bx;
	other.seed = bx.seed + 1;
	fz_check_error(bs_bloom_check_mergeable(&bx, &other, &err), BS_ERR_SHAPE, &err, "other seed");
	if (bx.family != BS_FAMILY_NONE)
	{
		other = bx;
		other.family = fz_other_family(bx.family);
		st = bs_bloom_check_mergeable(&bx, &other, &err);
		fz_check_error(st, BS_ERR_FAMILY, &err, "other family");
	}

	/* folding onto fewer bits keeps every key */
	fold_and_check(&bu, small_divisor(bu.m), keys, NKEYS);
	fold_and_check(&bu, bu.m, keys, NKEYS);
	if (bu.m % 2 == 0 && bu.m / 2 > 1)
		fold_and_check(&bu, bu.m / 2, keys, NKEYS);

	fz_reset();
	return 0;
}
