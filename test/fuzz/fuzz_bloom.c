/*
 * fuzz_bloom.c: a bloom value from outside (bloom_in, bloom_recv, the bytea
 * cast), then everything the SQL functions do with it.
 *
 * The input is the value's bytes, of either layout (classic or blocked,
 * header p3; growable values are fuzz_growable's).  When bs_validate(deep)
 * accepts them:
 *   - bloom_info / bloom_cardinality / bloom_fpr: popcount, the estimates of
 *     the value's layout (bs_bloom_cardinality_of, bs_bloom_fpr_of);
 *   - bloom_contains / @>: probes of keys (some added before), through
 *     bs_bloom_contains, which follows the layout;
 *   - bloom_add: adds, after which the keys are found and the value is valid;
 *     in a blocked filter each key's bits are all in its own block;
 *   - bloom_union / bloom_intersection (and their aggregates): with a copy of
 *     itself (x | x = x & x = x), with a valid filter of the same shape and
 *     layout (both orders; the union holds both sides' keys), and the shape,
 *     layout and family checks that refuse other filters (a blocked filter
 *     and a classic one of the same m and k do not merge);
 *   - folding (what bloom_agg's final does to a dense state): bs_bloom_fold
 *     onto M/f bits (f dividing M) of a classic filter, bs_blocked_fold onto
 *     M/f bits (f dividing the blocks) of a blocked one; every key added
 *     before is still found, and the fold of a filter of the keys is the
 *     filter built directly at M/f bits, byte for byte;
 *   - every result's text form decodes to itself and passes bs_validate.
 * Every value is an exact-length buffer; hashes come from the input.
 */
#include "fuzz_common.h"
#include "core/bloom_value.h"
#include "core/growable.h"

#define NKEYS 6

/* A valid empty filter of the given shape and layout, at its exact length. */
static uint8_t *
new_bloom(uint64_t m, uint32_t k, uint32_t layout, uint8_t family, uint64_t seed, size_t *len)
{
	uint64_t	total;
	bs_error	err;
	uint8_t    *buf;

	FZ_CHECK(bs_bloom_check_layout_shape(m, k, layout, &err) == BS_OK,
			 "the shape of an accepted filter (%" PRIu64 " bits, %u hashes, %s) is refused: %s",
			 m, k, bs_layout_name(layout), err.msg);
	FZ_CHECK(bs_bloom_size(m, &total, &err) == BS_OK, "bs_bloom_size(%" PRIu64 ") of an accepted filter: %s", m, err.msg);
	buf = fz_alloc(NULL, (size_t) total);
	bs_bloom_init_layout(buf, m, k, layout, family, seed);
	*len = (size_t) total;
	return buf;
}

static uint64_t
bits_set(const bs_bloom *b)
{
	return bs_popcount(b->bits, bs_bloom_payload_bytes(b->m));
}

/* Is some bit run (the whole filter, or a block of a blocked one) full? */
static bool
saturated(const bs_bloom *b)
{
	uint64_t	i;

	if (b->layout != BS_LAYOUT_BLOCKED)
		return bits_set(b) == b->m;
	for (i = 0; i < b->m / BS_BLOCK_BITS; i++)
		if (bs_popcount(b->bits + i * BS_BLOCK_BYTES, BS_BLOCK_BYTES) == BS_BLOCK_BITS)
			return true;
	return false;
}

static void
check_stats(const bs_bloom *b, const char *what)
{
	uint64_t	x = bits_set(b);
	double		card = bs_bloom_cardinality_of(b),
				fpr = bs_bloom_fpr_of(b);

	FZ_CHECK(x <= b->m, "%s: %" PRIu64 " bits set of %" PRIu64, what, x, b->m);
	FZ_CHECK(card >= 0 && (saturated(b) ? isinf(card) : isfinite(card)),
			 "%s: %s cardinality %g with %" PRIu64 " of %" PRIu64 " bits set", what,
			 bs_layout_name(b->layout), card, x, b->m);
	FZ_CHECK(fpr >= 0 && fpr <= 1, "%s: %s fpr %g", what, bs_layout_name(b->layout), fpr);
	/* (the rate may underflow to 0 with few bits set and many hashes) */
	FZ_CHECK(x == 0 ? fpr == 0 && card == 0 : card > 0,
			 "%s: %s fpr %g and cardinality %g with %" PRIu64 " bits set", what,
			 bs_layout_name(b->layout), fpr, card, x);
}

static void
check_has(const bs_bloom *b, const uint64_t *keys, int n, const char *what)
{
	int			i;

	for (i = 0; i < n; i++)
		FZ_CHECK(bs_bloom_contains(b, keys[i]),
				 "%s: key %d (hash %016" PRIx64 ") added to a %s filter but not found", what, i,
				 keys[i], bs_layout_name(b->layout));
}

/* A blocked key sets bits in its own block only (blocked.h): add it to an empty copy. */
static void
check_one_block(const bs_bloom *b, uint64_t h)
{
	size_t		len;
	uint8_t    *e = new_bloom(b->m, b->k, b->layout, b->family, b->seed, &len);
	bs_bloom	eb;
	uint64_t	blk,
				set;

	bs_bloom_view(e, &eb);
	bs_bloom_add(&eb, h);
	blk = bs_reduce(h, b->m / BS_BLOCK_BITS);
	set = bs_popcount(eb.bits + blk * BS_BLOCK_BYTES, BS_BLOCK_BYTES);
	FZ_CHECK(set >= 1 && set <= b->k && set == bits_set(&eb),
			 "blocked key %016" PRIx64 " set %" PRIu64 " bits in its block %" PRIu64 " and %" PRIu64 " in all (k = %u)",
			 h, set, blk, bits_set(&eb), b->k);
	FZ_CHECK(bs_blocked_block(eb.bits, eb.m, h) == eb.bits + blk * BS_BLOCK_BYTES,
			 "bs_blocked_block disagrees with bs_reduce");
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

/* The fold of the layout: bit j to j / f (classic), block b to b / f (blocked). */
static void
fold(const bs_bloom *b, uint64_t f, uint8_t *dst_bits)
{
	if (b->layout == BS_LAYOUT_BLOCKED)
		bs_blocked_fold(b->bits, b->m, f, dst_bits);
	else
		bs_bloom_fold(b->bits, b->m, f, dst_bits);
}

/* The unit a filter folds by: a bit (classic) or a block (blocked). */
static uint64_t
fold_units(const bs_bloom *b)
{
	return b->layout == BS_LAYOUT_BLOCKED ? b->m / BS_BLOCK_BITS : b->m;
}

static void
fold_and_check(const bs_bloom *b, uint64_t f, const uint64_t *keys, int nkeys)
{
	size_t		len,
				dlen;
	uint8_t    *dst,
			   *only,
			   *fo,
			   *direct;
	bs_bloom	d,
				bo,
				bd;
	int			i;

	if (f < 2 || fold_units(b) % f != 0)
		return;
	dst = new_bloom(b->m / f, b->k, b->layout, b->family, b->seed, &len);
	fold(b, f, dst + BS_HEADER_SIZE);
	bs_bloom_view(dst, &d);
	fz_roundtrip(dst, len, BS_KIND_BLOOM, "folded filter");
	check_has(&d, keys, nkeys, "folded filter");
	FZ_CHECK(bits_set(&d) <= bits_set(b), "folding set more bits than the filter had");
	check_stats(&d, "folded filter");

	/* the keys alone, folded, are the filter of the keys built at M/f bits (bloom_agg_state.h) */
	only = new_bloom(b->m, b->k, b->layout, b->family, b->seed, &len);
	bs_bloom_view(only, &bo);
	fo = new_bloom(b->m / f, b->k, b->layout, b->family, b->seed, &dlen);
	direct = new_bloom(b->m / f, b->k, b->layout, b->family, b->seed, &dlen);
	bs_bloom_view(direct, &bd);
	for (i = 0; i < nkeys; i++)
	{
		bs_bloom_add(&bo, keys[i]);
		bs_bloom_add(&bd, keys[i]);
	}
	fold(&bo, f, fo + BS_HEADER_SIZE);
	FZ_CHECK(memcmp(fo, direct, dlen) == 0,
			 "a %s filter of %d keys folded from %" PRIu64 " to %" PRIu64 " bits differs from the filter of the keys built at %" PRIu64 " bits",
			 bs_layout_name(b->layout), nkeys, b->m, b->m / f, b->m / f);
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

	/* growable values (p3 & 2) have stages instead of one filter: fuzz_growable.c */
	if (bs_validate(data, size, BS_KIND_BLOOM, true, &h, &err) != BS_OK || bs_bloom_is_growable(data))
		return 0;
	r = fz_rng_for(data, size);

	/* read-only use of the value as it came (bloom_info, bloom_contains) */
	bs_bloom_view((uint8_t *) data, &bx);
	FZ_CHECK(size == BS_HEADER_SIZE + bs_bloom_payload_bytes(bx.m), "length %zu for %" PRIu64 " bits", size, bx.m);
	check_stats(&bx, "input");
	FZ_CHECK(bx.layout <= BS_LAYOUT_MAX && (bx.layout != BS_LAYOUT_BLOCKED || bx.m % BS_BLOCK_BITS == 0),
			 "accepted a %s filter (layout %u) of %" PRIu64 " bits", bs_layout_name(bx.layout), bx.layout, bx.m);
	for (i = 0; i < 8; i++)
		(void) bs_bloom_contains(&bx, fz_next(&r));
	before = bits_set(&bx);

	/* bloom_add */
	x = fz_dup(data, size);
	bs_bloom_view(x, &bx);
	for (i = 0; i < NKEYS; i++)
	{
		keys[i] = i == 0 ? 0 : i == 1 ? UINT64_MAX : fz_next(&r);
		bs_bloom_add(&bx, keys[i]);
		if (bx.layout == BS_LAYOUT_BLOCKED && i < 3)
			check_one_block(&bx, keys[i]);
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
	c = new_bloom(bx.m, bx.k, bx.layout, (fz_next(&r) & 1) ? bx.family : BS_FAMILY_NONE, bx.seed, &clen);
	FZ_CHECK(clen == size, "same shape, different length");
	bs_bloom_view(c, &bc);
	for (i = 0; i < NKEYS; i++)
	{
		ckeys[i] = fz_next(&r);
		bs_bloom_add(&bc, ckeys[i]);
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
	for (i = 0; i < NKEYS; i++)
		FZ_CHECK(bs_bloom_contains(&bi, keys[i]) == bs_bloom_contains(&bc, keys[i]) &&
				 bs_bloom_contains(&bi, ckeys[i]) == bs_bloom_contains(&bx, ckeys[i]),
				 "the intersection answers for a key of one side otherwise than the other side");
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
	/* the same m and k in the other layout (a real filter when m allows it) */
	if (bx.m % BS_BLOCK_BITS == 0)
	{
		size_t		olen;
		uint8_t    *o = new_bloom(bx.m, bx.k, bx.layout ^ 1, bx.family, bx.seed, &olen);
		bs_bloom	ob;

		bs_bloom_view(o, &ob);
		fz_check_error(bs_bloom_check_mergeable(&bx, &ob, &err), BS_ERR_SHAPE, &err, "a filter of the other layout");
		fz_check_error(bs_bloom_check_mergeable(&ob, &bx, &err), BS_ERR_SHAPE, &err, "into a filter of the other layout");
	}
	else
	{
		other = bx;
		other.layout = BS_LAYOUT_BLOCKED;
		fz_check_error(bs_bloom_check_mergeable(&bx, &other, &err), BS_ERR_SHAPE, &err, "other layout");
	}
	if (bx.family != BS_FAMILY_NONE)
	{
		other = bx;
		other.family = fz_other_family(bx.family);
		st = bs_bloom_check_mergeable(&bx, &other, &err);
		fz_check_error(st, BS_ERR_FAMILY, &err, "other family");
	}

	/* folding onto fewer bits (classic) or blocks (blocked) keeps every key */
	fold_and_check(&bu, small_divisor(fold_units(&bu)), keys, NKEYS);
	fold_and_check(&bu, fold_units(&bu), keys, NKEYS);
	if (fold_units(&bu) % 2 == 0 && fold_units(&bu) / 2 > 1)
		fold_and_check(&bu, fold_units(&bu) / 2, keys, NKEYS);

	fz_reset();
	return 0;
}
