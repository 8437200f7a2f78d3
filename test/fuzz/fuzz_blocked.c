/*
 * fuzz_blocked.c: the blocked layout (src/core/blocked.h) built from
 * parameters and hashes, against a reference written here and against its
 * own properties.  The other targets get blocked values as inputs (bloom,
 * bloom_agg_state, validate); this one reaches every shape and every hash.
 *
 * Input: 2 bytes the block count B (1 to 256), 1 byte k (1 to 64), 1 byte of
 * options (a seed, the target rate of the states), 2 bytes a capacity (1 to
 * 2000), then the hashes, 8 bytes each little-endian (up to 64; a few from
 * the input's hash when there are none).  Hash i goes to filter A (i mod 3 =
 * 0), C (1) or both (2).  Checked:
 *   - placement: a hash sets exactly the bits a reference computes here,
 *     block reduce(h, B), bit i = bits 9 (i mod 7) .. 9 (i mod 7) + 8 of
 *     splitmix(h, i div 7), all in one block;
 *   - no false negatives: every hash added to a filter is found in it;
 *   - union and intersection of two blocked filters of the same shape: A | C
 *     is the filter of all the hashes, byte for byte; A & C holds the hashes
 *     added to both, and has no bit that A or C lacks;
 *   - folding: for every f dividing B, bs_blocked_fold of the filter of the
 *     hashes onto B / f blocks is the filter of the hashes built at B / f
 *     blocks, byte for byte (the reason blocked dense states fold exactly);
 *   - the fill estimates: bs_bloom_cardinality_of and bs_bloom_fpr_of of a
 *     blocked filter are the sums, block by block, of the classic formulas
 *     for one 512-bit block (exactly, the same double operations);
 *   - refusals: a classic filter of the same m and k, a blocked one of
 *     another block count or hash count do not merge with it (BS_ERR_SHAPE),
 *     a blocked shape of m not a multiple of 512 is refused (BS_ERR_PARAM);
 *   - the states of bloom_agg(x, NULL, fpr, 'blocked') and bloom_agg(x, capacity,
 *     fpr, 'blocked'): the final filter is blocked, is the filter of the
 *     hashes at the shape bs_bloom_shape_for gives, and is the same when the
 *     hashes are split over two states merged in either order; a blocked
 *     state and a classic one of the same target do not merge;
 *   - the rate and the sizing: bs_blocked_fpr is in [0, 1] (up to 1e-9: its
 *     binomial weights come from lgamma) and does not fall as keys are added; bs_blocked_optimal's shape meets its rate with
 *     the k of bs_blocked_best_hashes.
 * Every value made passes bs_validate (deep and quick) and its text form.
 */
#include "fuzz_common.h"

#define MAX_BLOCKS 256
#define MAX_KEYS 64

static const double fprs[8] = {0.5, 0.2, 0.1, 0.05, 0.01, 0.001, 1e-6, 0x1p-60};

/* ---- the reference ---- */

static uint64_t
ref_splitmix(uint64_t h, uint64_t i)
{
	uint64_t	z = h + (i + 1) * UINT64_C(0x9E3779B97F4A7C15);

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* The k bit positions of h in a blocked filter of B blocks (blocked.h, by the book). */
static void
ref_positions(uint64_t h, uint64_t B, uint32_t k, uint64_t *pos)
{
	uint64_t	block = (uint64_t) (((unsigned __int128) h * B) >> 64);
	uint32_t	i;

	for (i = 0; i < k; i++)
		pos[i] = block * 512 + ((ref_splitmix(h, i / 7) >> (9 * (i % 7))) & 511);
}

/* ---- filters ---- */

static uint8_t *
new_filter(uint64_t m, uint32_t k, uint32_t layout, uint64_t seed, size_t *len, bs_bloom *b)
{
	uint64_t	total;
	bs_error	err;
	uint8_t    *buf;

	FZ_CHECK(bs_bloom_check_layout_shape(m, k, layout, &err) == BS_OK && bs_bloom_size(m, &total, &err) == BS_OK,
			 "%s shape %" PRIu64 " bits, %u hashes refused: %s", bs_layout_name(layout), m, k, err.msg);
	buf = fz_alloc(NULL, (size_t) total);
	bs_bloom_init_layout(buf, m, k, layout, BS_FAMILY_INTEGER, seed);
	bs_bloom_view(buf, b);
	*len = (size_t) total;
	return buf;
}

/* The blocked filter of B blocks holding the hashes h[i] for which pick(i). */
static uint8_t *
filter_of(uint64_t B, uint32_t k, uint64_t seed, const uint64_t *h, int n, int which,
		  size_t *len, bs_bloom *b)
{
	uint8_t    *buf = new_filter(B * BS_BLOCK_BITS, k, BS_LAYOUT_BLOCKED, seed, len, b);
	int			i;

	for (i = 0; i < n; i++)
		if (which < 0 || i % 3 == which || i % 3 == 2)
			bs_bloom_add(b, h[i]);
	return buf;
}

static void
check_placement(uint64_t B, uint32_t k, uint64_t seed, uint64_t h)
{
	size_t		len;
	bs_bloom	b;
	uint64_t	pos[BS_BLOOM_MAX_HASHES],
				j,
				want = 0;
	uint32_t	i;

	new_filter(B * BS_BLOCK_BITS, k, BS_LAYOUT_BLOCKED, seed, &len, &b);
	bs_bloom_add(&b, h);
	ref_positions(h, B, k, pos);
	for (i = 0; i < k; i++)
	{
		FZ_CHECK(pos[i] / BS_BLOCK_BITS == pos[0] / BS_BLOCK_BITS, "the reference left the block");
		FZ_CHECK(b.bits[pos[i] >> 3] & (1u << (pos[i] & 7)),
				 "hash %016" PRIx64 " (B %" PRIu64 ", k %u): probe %u's bit %" PRIu64 " is not set",
				 h, B, k, i, pos[i]);
	}
	/* and no other bit: count the distinct positions */
	for (j = 0; j < B * BS_BLOCK_BITS; j++)
	{
		bool		listed = false;

		if (b.bits[j >> 3] == 0)
		{
			j |= 7;				/* the next byte */
			continue;
		}
		if (!(b.bits[j >> 3] & (1u << (j & 7))))
			continue;
		for (i = 0; i < k && !listed; i++)
			listed = pos[i] == j;
		FZ_CHECK(listed, "hash %016" PRIx64 " (B %" PRIu64 ", k %u) set bit %" PRIu64 ", which no probe names",
				 h, B, k, j);
		want++;
	}
	FZ_CHECK(want >= 1 && want <= k, "hash %016" PRIx64 " set %" PRIu64 " bits for %u probes", h, want, k);
	FZ_CHECK(bs_blocked_contains_hash(b.bits, b.m, b.k, h) && bs_bloom_contains(&b, h),
			 "hash %016" PRIx64 " not found right after its add", h);
}

static void
check_estimates(const bs_bloom *b, const char *what)
{
	uint64_t	B = b->m / BS_BLOCK_BITS,
				i;
	double		card = 0,
				fpr = 0,
				c = bs_bloom_cardinality_of(b),
				f = bs_bloom_fpr_of(b);

	for (i = 0; i < B; i++)
	{
		uint64_t	x = bs_popcount(b->bits + i * BS_BLOCK_BYTES, BS_BLOCK_BYTES);

		card += bs_bloom_cardinality(BS_BLOCK_BITS, b->k, x);
		fpr += bs_bloom_fpr_from_fill(BS_BLOCK_BITS, b->k, x);
	}
	fpr /= (double) B;
	FZ_CHECK((c == card || (isinf(c) && isinf(card))) && f == fpr,
			 "%s: blocked estimates cardinality %.17g, fpr %.17g; block by block %.17g, %.17g",
			 what, c, f, card, fpr);
	FZ_CHECK(f >= 0 && f <= 1 && c >= 0, "%s: fpr %g, cardinality %g", what, f, c);
}

static void
check_has(const bs_bloom *b, const uint64_t *h, int n, int which, const char *what)
{
	int			i;

	for (i = 0; i < n; i++)
		if (which < 0 || i % 3 == which || i % 3 == 2)
			FZ_CHECK(bs_bloom_contains(b, h[i]), "%s: hash %d (%016" PRIx64 ") added but not found", what, i, h[i]);
}

/* ---- states ---- */

static uint8_t *
state_add_all(uint8_t *s, const uint64_t *h, int n, int which)
{
	int			i;

	for (i = 0; i < n; i++)
		if (which < 0 || i % 3 == which || i % 3 == 2)
		{
			FZ_CHECK(bs_bloom_agg_state_add(&s, h[i], &fz_allocator, NULL) == BS_OK,
					 "a blocked state refused a hash");
		}
	return s;
}

static uint8_t *
finish(const uint8_t *s, size_t *len)
{
	uint64_t	m,
				total;
	uint32_t	k;
	bs_error	err;
	uint8_t    *out;

	FZ_CHECK(bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK,
			 "a blocked state made by the core is rejected: %s", err.msg);
	fz_roundtrip(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, "blocked state");
	(void) bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
	FZ_CHECK(bs_bloom_check_layout_shape(m, k, BS_LAYOUT_BLOCKED, &err) == BS_OK &&
			 bs_bloom_size(m, &total, &err) == BS_OK,
			 "blocked state's result shape %" PRIu64 " bits, %u hashes: %s", m, k, err.msg);
	out = fz_alloc(NULL, (size_t) total);
	bs_bloom_agg_state_finish(s, m, k, out);
	*len = (size_t) total;
	fz_roundtrip(out, *len, BS_KIND_BLOOM, "final filter of a blocked state");
	FZ_CHECK(bs_load32(out + BS_OFF_P3) == BS_LAYOUT_BLOCKED, "a blocked state made a classic filter");
	return out;
}

static uint8_t *
merged(const uint8_t *a, const uint8_t *b)
{
	bs_error	err;
	uint8_t    *r = fz_dup(a, bs_bloom_agg_state_size(a));
	bs_status	st = bs_bloom_agg_state_merge(&r, b, &fz_allocator, &err);

	FZ_CHECK(st == BS_OK, "merge of blocked states of one target failed: %s", err.msg);
	return r;
}

/*
 * A state of the target (fixed: capacity, fpr; else auto at fpr) in the
 * layout; its final filter after all the hashes, also split over two states
 * merged in both orders, against the filter of the hashes at the shape of
 * bs_bloom_shape_for.
 */
static void
check_states(bool fixed, double capacity, double fpr, uint64_t seed, const uint64_t *h, int n)
{
	uint8_t    *s,
			   *s1,
			   *s2,
			   *cl,
			   *f,
			   *g,
			   *direct;
	size_t		flen,
				glen,
				dlen;
	uint64_t	m,
				distinct = 0,
				i,
				j;
	uint32_t	k;
	bs_error	err;
	bs_status	st = BS_OK;
	bs_bloom	d;
	uint8_t    *copy,
			   *dst;

#define NEW(out, layout) \
	do { \
		if (fixed) \
		{ \
			FZ_CHECK(bs_bloom_shape_for(capacity, fpr, (layout), &m, &k, &err) == BS_OK, \
					 "shape for %g at %g: %s", capacity, fpr, err.msg); \
			FZ_CHECK(bs_bloom_agg_state_new_fixed_shape(capacity, fpr, (layout), m, k, BS_FAMILY_INTEGER, seed, \
												&fz_allocator, &(out), &err) == BS_OK, "new fixed state: %s", err.msg); \
		} \
		else \
			FZ_CHECK(bs_bloom_agg_state_new_auto_layout(fpr, (layout), BS_FAMILY_INTEGER, seed, &fz_allocator, \
												&(out), &err) == BS_OK, "new state: %s", err.msg); \
	} while (0)

	NEW(s, BS_LAYOUT_BLOCKED);
	FZ_CHECK(bs_bloom_agg_state_layout(s) == BS_LAYOUT_BLOCKED, "a new blocked state is not blocked");
	s = state_add_all(s, h, n, -1);
	f = finish(s, &flen);

	/* the filter of the hashes at the shape the final function must pick */
	for (i = 0; i < (uint64_t) n; i++)
	{
		for (j = 0; j < i && h[j] != h[i]; j++)
			;
		distinct += j == i;
	}
	if (fixed)
		FZ_CHECK(bs_bloom_shape_for(capacity, fpr, BS_LAYOUT_BLOCKED, &m, &k, &err) == BS_OK, "shape: %s", err.msg);
	else
		FZ_CHECK(bs_bloom_shape_for(distinct ? (double) distinct : 1.0, fpr, BS_LAYOUT_BLOCKED, &m, &k, &err) == BS_OK,
				 "shape for %" PRIu64 " distinct at %g: %s", distinct, fpr, err.msg);
	direct = new_filter(m, k, BS_LAYOUT_BLOCKED, seed, &dlen, &d);
	for (i = 0; i < (uint64_t) n; i++)
		bs_bloom_add(&d, h[i]);
	FZ_CHECK(dlen == flen && memcmp(direct, f, flen) == 0,
			 "the final filter of a blocked %s state of %d hashes (%" PRIu64 " distinct) is not the filter of the hashes at %" PRIu64 " bits, %u hashes",
			 fixed ? "fixed" : "auto", n, distinct, m, k);

	/* split over two states, merged both ways */
	NEW(s1, BS_LAYOUT_BLOCKED);
	NEW(s2, BS_LAYOUT_BLOCKED);
	s1 = state_add_all(s1, h, n, 0);
	s2 = state_add_all(s2, h, n, 1);
	g = finish(merged(s1, s2), &glen);
	FZ_CHECK(glen == flen && memcmp(g, f, flen) == 0, "merging two blocked states changed the final filter");
	g = finish(merged(s2, s1), &glen);
	FZ_CHECK(glen == flen && memcmp(g, f, flen) == 0, "merging two blocked states the other way changed the final filter");

	/* a classic state of the same target does not merge, either way, and nothing changes */
	NEW(cl, BS_LAYOUT_CLASSIC);
	cl = state_add_all(cl, h, n, 0);
	copy = dst = fz_dup(s, bs_bloom_agg_state_size(s));
	st = bs_bloom_agg_state_merge(&dst, cl, &fz_allocator, &err);
	FZ_CHECK(dst == copy && st == BS_ERR_SHAPE,
			 "a classic state merged into a blocked one (status %d)", (int) st);
	FZ_CHECK(memcmp(copy, s, bs_bloom_agg_state_size(s)) == 0, "a refused merge changed the blocked state");
	fz_check_error(st, BS_ERR_SHAPE, &err, "classic into blocked state");
	copy = dst = fz_dup(cl, bs_bloom_agg_state_size(cl));
	st = bs_bloom_agg_state_merge(&dst, s, &fz_allocator, &err);
	FZ_CHECK(dst == copy && st == BS_ERR_SHAPE,
			 "a blocked state merged into a classic one (status %d)", (int) st);
	fz_check_error(st, BS_ERR_SHAPE, &err, "blocked into classic state");
#undef NEW
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_rng		r = fz_rng_for(data, size);
	uint64_t	B,
				seed,
				h[MAX_KEYS],
				f;
	uint32_t	k;
	double		fpr,
				capacity;
	int			n = 0,
				i;
	size_t		len,
				clen,
				ulen;
	uint8_t    *a,
			   *c,
			   *u,
			   *in,
			   *all;
	bs_bloom	ba,
				bc,
				bu,
				bi,
				bl,
				bo;
	bs_error	err;

	if (size < 6)
		return 0;
	B = 1 + (uint64_t) ((data[0] | data[1] << 8) % MAX_BLOCKS);
	k = 1 + data[2] % BS_BLOOM_MAX_HASHES;
	seed = (data[3] & 1) ? fz_next(&r) : 0;
	fpr = fprs[(data[3] >> 1) & 7];
	capacity = 1 + (data[4] | data[5] << 8) % 2000;
	for (i = 6; i + 8 <= (int) size && n < MAX_KEYS; i += 8)
		h[n++] = bs_load64(data + i);
	if (n == 0)
		for (; n < 5; n++)
			h[n] = fz_next(&r);

	/* placement against the reference */
	for (i = 0; i < n && i < 8; i++)
		check_placement(B, k, seed, h[i]);

	/* A, C and the filter of all: no false negatives */
	a = filter_of(B, k, seed, h, n, 0, &len, &ba);
	c = filter_of(B, k, seed, h, n, 1, &clen, &bc);
	all = filter_of(B, k, seed, h, n, -1, &ulen, &bl);
	check_has(&ba, h, n, 0, "A");
	check_has(&bc, h, n, 1, "C");
	check_has(&bl, h, n, -1, "all");
	fz_roundtrip(a, len, BS_KIND_BLOOM, "blocked A");
	fz_roundtrip(c, clen, BS_KIND_BLOOM, "blocked C");
	check_estimates(&ba, "A");
	check_estimates(&bl, "all");

	/* union and intersection */
	u = fz_dup(a, len);
	bs_bloom_view(u, &bu);
	fz_check_error(bs_bloom_check_mergeable(&bu, &bc, &err), BS_OK, &err, "A | C");
	bs_bloom_or(&bu, &bc);
	FZ_CHECK(memcmp(u, all, len) == 0, "A | C is not the blocked filter of all the hashes");
	in = fz_dup(a, len);
	bs_bloom_view(in, &bi);
	fz_check_error(bs_bloom_check_mergeable(&bi, &bc, &err), BS_OK, &err, "A & C");
	bs_bloom_and(&bi, &bc);
	for (i = 2; i < n; i += 3)
		FZ_CHECK(bs_bloom_contains(&bi, h[i]), "A & C lost hash %d, added to both", i);
	for (f = 0; f < len - BS_HEADER_SIZE; f++)
		FZ_CHECK((bi.bits[f] & ~(ba.bits[f] & bc.bits[f])) == 0, "A & C has a bit A or C lacks");
	fz_roundtrip(in, len, BS_KIND_BLOOM, "A & C");
	check_estimates(&bi, "A & C");

	/* folding: for every f dividing B, the fold is the filter built at B / f blocks */
	for (f = 2; f <= B; f++)
	{
		size_t		dlen;
		uint8_t    *folded,
				   *direct;
		bs_bloom	bd;

		if (B % f != 0)
			continue;
		folded = new_filter(B / f * BS_BLOCK_BITS, k, BS_LAYOUT_BLOCKED, seed, &dlen, &bd);
		bs_blocked_fold(bl.bits, bl.m, f, folded + BS_HEADER_SIZE);
		direct = filter_of(B / f, k, seed, h, n, -1, &dlen, &bd);
		FZ_CHECK(memcmp(folded, direct, dlen) == 0,
				 "%" PRIu64 " blocks folded by %" PRIu64 " differ from the filter built at %" PRIu64 " blocks",
				 B, f, B / f);
		fz_roundtrip(folded, dlen, BS_KIND_BLOOM, "folded blocked filter");
	}

	/* refusals */
	(void) new_filter(B * BS_BLOCK_BITS, k, BS_LAYOUT_CLASSIC, seed, &len, &bo);
	fz_check_error(bs_bloom_check_mergeable(&ba, &bo, &err), BS_ERR_SHAPE, &err, "blocked with classic");
	fz_check_error(bs_bloom_check_mergeable(&bo, &ba, &err), BS_ERR_SHAPE, &err, "classic with blocked");
	(void) new_filter((B % MAX_BLOCKS + 1) * BS_BLOCK_BITS, k, BS_LAYOUT_BLOCKED, seed, &len, &bo);
	fz_check_error(bs_bloom_check_mergeable(&ba, &bo, &err), BS_ERR_SHAPE, &err, "another block count");
	(void) new_filter(B * BS_BLOCK_BITS, k % BS_BLOOM_MAX_HASHES + 1, BS_LAYOUT_BLOCKED, seed, &len, &bo);
	fz_check_error(bs_bloom_check_mergeable(&ba, &bo, &err), BS_ERR_SHAPE, &err, "another hash count");
	fz_check_error(bs_bloom_check_layout_shape(B * BS_BLOCK_BITS + 1 + data[2] % 511, k, BS_LAYOUT_BLOCKED, &err),
				   BS_ERR_PARAM, &err, "a blocked shape of part of a block");
	fz_check_error(bs_bloom_check_layout_shape(B * BS_BLOCK_BITS, k, BS_LAYOUT_MAX + 1 + data[3], &err),
				   BS_ERR_PARAM, &err, "an unknown layout");

	/* the states */
	check_states(false, 0, fpr, seed, h, n);
	check_states(true, capacity, fpr, seed, h, n);

	/* the rate and the sizing */
	{
		double		prev = 0;
		uint64_t	m;
		uint32_t	kk;

		for (i = 0; i <= 4; i++)
		{
			double		keys = (double) (i * (int) capacity),
						p = bs_blocked_fpr(B * BS_BLOCK_BITS, keys, k);

			/*
			 * The binomial weights come from lgamma, good to about 1e-12
			 * relative here: a full filter's rate may pass 1 by that much.
			 */
			FZ_CHECK(p >= 0 && p <= 1 + 1e-9, "bs_blocked_fpr(%" PRIu64 " bits, %g keys, %u) = %.17g",
					 B * BS_BLOCK_BITS, keys, k, p);
			FZ_CHECK(p >= prev * (1 - 1e-9), "bs_blocked_fpr fell from %g to %g at %g keys", prev, p, keys);
			prev = p;
		}
		FZ_CHECK(bs_blocked_optimal(capacity, fpr, &m, &kk, &err) == BS_OK, "bs_blocked_optimal(%g, %g): %s",
				 capacity, fpr, err.msg);
		FZ_CHECK(m % BS_BLOCK_BITS == 0 && kk >= 1 && kk <= BS_BLOOM_MAX_HASHES &&
				 kk == bs_blocked_best_hashes(m, capacity) && bs_blocked_fpr(m, capacity, kk) <= fpr,
				 "bs_blocked_optimal(%g, %g) = %" PRIu64 " bits, %u hashes, rate %g", capacity, fpr, m, kk,
				 bs_blocked_fpr(m, capacity, kk));
	}

	fz_reset();
	return 0;
}
