/*
 * fuzz_topk.c: a topk value from outside (topk_in, topk_recv, the bytea
 * cast, or a state of a user's aggregate over topk_agg_trans or
 * topk_merge_trans), then what the SQL functions do with it.  The input is
 * the value's bytes; when bs_validate(deep) accepts them, the value is of
 * format 1 (bloomsketch 1.0 to 1.4, topk_v1.h) or format 2 (1.5 on, topk.h)
 * and gets what SQL does with a value of its format.
 *
 * Format 1:
 *   - topk_info, topk_items, topk_bounds: bs_topk_describe agrees with the
 *     view, bs_topk_ranked lists the canonical candidates in order (estimate
 *     = upper = the Count-Min estimate, lower 0), bs_topk_lookup of each
 *     listed key and of other keys gives the Count-Min estimate; each
 *     candidate's key hashes to its candidate's hash;
 *   - topk_final: bs_topk1_compact; the result is valid, canonical (compact
 *     of it is the same bytes) and sorted by estimate;
 *   - topk_add: a candidate's own key (the update path), new keys of the
 *     value's family (a key family is taken if it had none), count 0, up to
 *     and past the largest total, a key of another family, of a wrong length,
 *     too long, of no family (refused, nothing changed); the value stays
 *     valid and the key's estimate is at least its count;
 *   - topk_merge_trans: with itself, with its canonical form and with a
 *     valid value of the same shape (both orders), and the refusals of
 *     another k, shape, seed or family, and of a format-2 value
 *     (bs_topk_check_same_format); results are valid.
 *
 * Format 2 (the aggregates' state is a bs_topk_state; here its allocator
 * releases, as the glue's does, so ASan sees a use after a release):
 *   - the readers on every value (the input and each one the core makes):
 *     bs_topk_describe agrees with the header; bs_topk_ranked lists every
 *     value held once, best first (lower count, then upper, then hash), its
 *     key inside the value, 1 <= lower = estimate <= upper <= min(N, its
 *     Count-Min estimate); bs_topk_lookup of each listed key and of each
 *     record's key finds it with its counts (lookups agree with the rows),
 *     of keys not held gives 0 and min(floor, Count-Min estimate), also for
 *     a key with a held value's hash (a 64-bit collision);
 *   - topk_final, topk_items of a state: bs_topk_state_load then
 *     bs_topk_state_write gives the input's bytes back (and
 *     bs_topk_state_size its length); the canonical form holds the best
 *     min(held, C) values (the first C rows), its floor raised to the largest
 *     upper bound dropped, is the input itself when it holds at most C, and
 *     is a fixed point (loaded and written, canonical or not: the same bytes);
 *   - topk_add / topk_agg_trans / topk_agg_weighted_trans on a loaded state:
 *     a held key (its lower count grows by exactly the count, its upper by
 *     at least the count), new keys of the family (inserted with lower =
 *     the count), count 0 (nothing changes), counts up to the largest total
 *     and past it (near and at INT64_MAX, UINT64_MAX), keys of another
 *     family, of a wrong length, too long, of no family or of an unknown one
 *     (each refused with its status and a message, the state unchanged: its
 *     bs_topk_state_write bytes compared), the collision rule (a key with a
 *     held value's hash is not held; floor covers it), and adds of new keys
 *     until 2C values are held and one more (the best C kept);
 *   - topk_merge_trans on a loaded state: with itself, with its canonical
 *     form, after the adds, with a valid value of the same parameters made
 *     by the core (some of the input's keys and new ones, up to 2C values),
 *     with an empty one (the result is the canonical form), with totals up
 *     to and past INT64_MAX, each in both orders where both are values (a +
 *     b and b + a: the same bytes); the source never changes; the refusals of
 *     another k, capacity, width, depth, seed, family and format leave the
 *     state unchanged;
 *   - every value made is valid (deep and quick), goes through its text form
 *     and the readers; a merge gives at most C values, N and the counters
 *     the sums, floor at least the sum of the floors; and the guarantee step
 *     by step: for a set of keys (every key held by any value involved, the
 *     keys added, keys never added), after an add of c to a key or a merge
 *     of a and b, lower <= lower(a) [+ lower(b)] [+ c] and upper >= upper(a)
 *     [+ upper(b)] [+ c], so that every true count the inputs allowed is
 *     still allowed; a merge's held values have exactly the lower counts of
 *     the sides that held them.
 *   These are invariants of the core: with FZ_STRICT (the default) a broken
 *   one fails the run; without it the input is dropped (values made after a
 *   broken invariant may be invalid, and the readers trust their input), so
 *   the run goes on looking for memory errors.
 *
 * Every value made goes through its text form and bs_validate.
 */
#include <setjmp.h>

#include "fuzz_common.h"

#define FZ_TOPK_LIVE_MAX ((uint64_t) 4 << 20)

/* Canonical key length of a family (0: any length). */
static uint32_t
key_len_of(uint8_t family)
{
	switch (family)
	{
		case BS_FAMILY_INTEGER:
		case BS_FAMILY_FLOAT:
		case BS_FAMILY_DATE:
		case BS_FAMILY_TIMESTAMP:
		case BS_FAMILY_TIMESTAMPTZ:
			return 8;
		case BS_FAMILY_UUID:
			return 16;
	}
	return 0;
}

/* A key of the family in key[0..*len) (variable-length families: 0 to 24 bytes). */
static void
make_key(uint8_t family, fz_rng *r, uint8_t *key, uint32_t *len)
{
	uint32_t	n = key_len_of(family),
				i;

	if (n == 0)
		n = (uint32_t) fz_below(r, 25);
	for (i = 0; i < n; i++)
		key[i] = (uint8_t) (family == BS_FAMILY_TEXT ? 'a' + fz_below(r, 4) : fz_next(r));
	*len = n;
}

static void
check_value(const uint8_t *buf, size_t len, const char *what)
{
	bs_error	err;

	FZ_CHECK(bs_validate(buf, len, BS_KIND_TOPK, true, NULL, &err) == BS_OK,
			 "%s: the value the core made is rejected: %s", what, err.msg);
	fz_roundtrip(buf, len, BS_KIND_TOPK, what);
}

/* bs_topk_check_same_format: formats 1 and 2 never merge, in either order. */
static void
check_formats_refused(void)
{
	bs_error	err;
	bs_status	st;
	int			a;

	for (a = 1; a <= 2; a++)
	{
		memset(&err, 0, sizeof(err));
		st = bs_topk_check_same_format(a, 3 - a, &err);
		fz_check_error(st, BS_ERR_SHAPE, &err, "merge of formats 1 and 2");
		FZ_CHECK(strstr(err.msg, "format") != NULL && err.detail[0] != '\0' && err.hint[0] != '\0',
				 "the refusal of formats %d and %d does not explain itself: %s", a, 3 - a, err.msg);
		FZ_CHECK(bs_topk_check_same_format(a, a, &err) == BS_OK, "format %d refused with itself", a);
	}
}

/* ======================== format 1 ======================== */

/* topk_final / the canonical copy topk_items reads: valid, canonical, sorted. */
static uint8_t *
compact_checked(const uint8_t *buf, size_t len, size_t *outlen, const char *what)
{
	uint8_t    *c = bs_topk1_compact(buf, len, &fz_allocator, outlen),
			   *cc;
	size_t		cclen;
	bs_topk1	t;
	uint32_t	i;

	check_value(c, *outlen, what);
	cc = bs_topk1_compact(c, *outlen, &fz_allocator, &cclen);
	FZ_CHECK(cclen == *outlen && memcmp(cc, c, cclen) == 0, "%s: compact of a compact value differs", what);
	bs_topk1_view(c, *outlen, &t);
	/* topk_items: the first min(ncand, k) candidates and their keys */
	for (i = 0; i < t.ncand; i++)
	{
		bs_topk1_item it,
					prev;

		bs_topk1_item_at(&t, i, &it);
		FZ_CHECK(bs_hash_bytes(it.key, it.len, t.cms.seed) == it.hash, "%s: candidate %u's key does not hash to it", what, i);
		FZ_CHECK(it.count == bs_cms_frequency(&t.cms, it.hash), "%s: candidate %u's estimate is not the sketch's", what, i);
		if (i > 0)
		{
			bs_topk1_item_at(&t, i - 1, &prev);
			FZ_CHECK(prev.count > it.count || (prev.count == it.count && prev.hash < it.hash),
					 "%s: candidates %u and %u are out of order", what, i - 1, i);
		}
	}
	return c;
}

/*
 * topk_info, topk_items, topk_bounds of a format-1 value through the readers
 * of either format: describe agrees with the view, the rows are the
 * canonical candidates in order, lookups give the Count-Min estimate.
 */
static void
readers_v1(const uint8_t *buf, size_t len, fz_rng *r, const char *what)
{
	bs_topk1	t,
				tc;
	bs_topk_info info;
	bs_topk_row *rows,
				row;
	uint32_t	n = 0,
				i,
				klen;
	size_t		clen;
	uint8_t    *c,
				key[32];

	bs_topk1_view((uint8_t *) buf, len, &t);
	memset(&info, 0xa5, sizeof(info));
	bs_topk_describe(buf, len, &info);
	FZ_CHECK(info.version == 1 && info.params.k == t.k && info.params.capacity == t.cap &&
			 info.params.width == t.cms.width && info.params.depth == t.cms.depth &&
			 info.total == t.cms.total && info.held == t.ncand && !info.has_floor && info.floor == 0,
			 "%s: bs_topk_describe of a format-1 value disagrees with its view", what);
	c = bs_topk1_compact(buf, len, &fz_allocator, &clen);
	bs_topk1_view(c, clen, &tc);
	rows = bs_topk_ranked(buf, len, &fz_allocator, &n);
	FZ_CHECK(n == tc.ncand, "%s: %u rows of a format-1 value holding %u candidates", what, n, tc.ncand);
	for (i = 0; i < n; i++)
	{
		bs_topk1_item it;
		uint64_t	h,
					f;

		bs_topk1_item_at(&tc, i, &it);
		h = bs_hash_bytes(rows[i].key, rows[i].len, t.cms.seed);
		f = bs_cms_frequency(&t.cms, h);
		FZ_CHECK(rows[i].len == it.len && memcmp(rows[i].key, it.key, it.len) == 0 &&
				 rows[i].estimate == it.count && rows[i].upper == it.count && rows[i].lower == 0 &&
				 it.count == f,
				 "%s: format-1 row %u is not the canonical candidate %u (estimate %" PRIu64 ", sketch %" PRIu64 ")",
				 what, i, i, rows[i].estimate, f);
		FZ_CHECK(bs_topk_lookup(buf, len, h, rows[i].key, rows[i].len, &row) &&
				 row.estimate == f && row.upper == f && row.lower == 0 && row.key == rows[i].key,
				 "%s: the lookup of format-1 row %u's key disagrees", what, i);
	}
	for (i = 0; i < 4; i++)
	{
		uint64_t	h;

		make_key((uint8_t) (1 + fz_below(r, BS_FAMILY_MAX)), r, key, &klen);
		h = bs_hash_bytes(key, klen, t.cms.seed);
		if (bs_topk_lookup(buf, len, h, key, klen, &row))
		{
			uint32_t	j;
			bool		cand = false;

			for (j = 0; j < t.ncand && !cand; j++)
			{
				bs_topk1_item it;

				bs_topk1_item_at(&t, j, &it);
				cand = it.hash == h && it.len == klen && memcmp(it.key, key, klen) == 0;
			}
			FZ_CHECK(cand, "%s: a format-1 lookup holds a key no candidate has", what);
		}
		FZ_CHECK(row.estimate == bs_cms_frequency(&t.cms, h) && row.upper == row.estimate &&
				 row.lower == 0 && row.key == key && row.len == klen,
				 "%s: a format-1 lookup is not the Count-Min estimate", what);
	}
}

/* topk_add on a copy; returns the new value (or NULL when refused, value unchanged). */
static uint8_t *
add_checked(const uint8_t *buf, size_t len, size_t *outlen, const uint8_t *key, uint32_t keylen,
			uint8_t family, uint64_t count, bs_status want, const char *what)
{
	uint8_t    *v = fz_dup(buf, len),
			   *res;
	size_t		vlen = len;
	uint64_t	seed = bs_load64(buf + 8),
				h = bs_hash_bytes(key, keylen, seed);
	bs_error	err;
	bs_status	st = BS_OK;
	bs_topk1	t;

	res = v;
	st = bs_topk1_add(&res, &vlen, h, key, keylen, family, count, &fz_allocator, &err);
	if (want != BS_OK)
	{
		FZ_CHECK(st != BS_OK && res == v, "%s: a refused add returned a value", what);
		fz_check_error(st, want, &err, what);
		FZ_CHECK(vlen == len && memcmp(v, buf, len) == 0, "%s: a refused add changed the value", what);
		return NULL;
	}
	if (st != BS_OK)
	{
		/* only the total's limit may refuse a valid add */
		fz_check_error(st, BS_ERR_LIMIT, &err, what);
		FZ_CHECK(memcmp(v, buf, len) == 0, "%s: a refused add changed the value", what);
		return NULL;
	}
	fz_check_error(st, BS_OK, &err, what);
	check_value(res, vlen, what);
	bs_topk1_view(res, vlen, &t);
	FZ_CHECK(bs_cms_frequency(&t.cms, h) >= count, "%s: estimate below the count added", what);
	*outlen = vlen;
	return res;
}

static uint8_t *
merge_checked(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, size_t *outlen,
			  const char *what)
{
	bs_error	err;
	uint8_t    *a2 = fz_dup(a, alen),
			   *b2 = fz_dup(b, blen),
			   *m = NULL;
	bs_status	st = bs_topk1_merge(a2, alen, b2, blen, &fz_allocator, &m, outlen, &err);

	FZ_CHECK(memcmp(a2, a, alen) == 0 && memcmp(b2, b, blen) == 0, "%s: a merge changed a source", what);
	if (st != BS_OK)
	{
		/* two valid values of one shape: only the total's limit may refuse */
		fz_check_error(st, BS_ERR_LIMIT, &err, what);
		return NULL;
	}
	fz_check_error(st, BS_OK, &err, what);
	check_value(m, *outlen, what);
	return m;
}

static void
merge_refused(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, bs_status want,
			  const char *what)
{
	bs_error	err;
	size_t		outlen = 0;
	uint8_t    *m = NULL;
	bs_status	st = bs_topk1_merge(a, alen, b, blen, &fz_allocator, &m, &outlen, &err);

	FZ_CHECK(st != BS_OK && m == NULL, "%s: merge succeeded", what);
	fz_check_error(st, want, &err, what);
}

static void
fuzz_v1(const uint8_t *data, size_t size, const bs_header *hp, fz_rng *rp)
{
	bs_header	h = *hp;
	fz_rng		r = *rp;
	bs_error	err;
	bs_topk1	t;
	uint8_t    *canon,
			   *v,
			   *c,
			   *res;
	size_t		clen,
				vlen,
				olen,
				clen2;
	uint8_t		family;
	static uint8_t key[BS_TOPK_MAX_KEY + 1];
	uint32_t	keylen,
				i;
	uint64_t	total;

	/* topk_info and the candidates as they came */
	bs_topk1_view((uint8_t *) data, size, &t);
	FZ_CHECK(t.ncand <= t.cap && t.heap_used <= t.heap_cap &&
			 size == BS_HEADER_SIZE + t.cms.width * t.cms.depth * 8 + (uint64_t) t.cap * BS_TOPK_SLOT + t.heap_cap,
			 "topk view does not add up to its %zu bytes", size);
	for (i = 0; i < t.ncand; i++)
	{
		bs_topk1_item it;

		bs_topk1_item_at(&t, i, &it);
		FZ_CHECK(bs_hash_bytes(it.key, it.len, t.cms.seed) == it.hash, "input candidate %u's key does not hash to it", i);
	}

	/*
	 * Candidates may share key bytes (the deep check bounds each key, not
	 * their sum), and the canonical form, merges and regrown values copy
	 * every key out: an input of S bytes can make a value of about S^2/96
	 * (finding 2 in README.md).  FZ_STRICT fails on that; otherwise inputs
	 * whose keys add up to more than FZ_TOPK_LIVE_MAX are only read.
	 */
	{
		uint64_t	live = 0,
					canon_len;

		for (i = 0; i < t.ncand; i++)
			live += bs_load32(t.slots + (uint64_t) i * BS_TOPK_SLOT + 20);
		canon_len = (uint64_t) (t.heap - data) + live;
#ifdef FZ_STRICT
		FZ_CHECK(canon_len <= size,
				 "the canonical form of this %zu-byte topk value would take %" PRIu64 " bytes: its %u candidates share key bytes (%" PRIu64 " key bytes in all, %u used)",
				 size, canon_len, t.ncand, live, t.heap_used);
#else
		if (live > FZ_TOPK_LIVE_MAX)
			return;
#endif
		(void) canon_len;
	}

	/* topk_final, topk_items, topk_info, topk_bounds */
	canon = compact_checked(data, size, &clen, "compact");
	readers_v1(data, size, &r, "format-1 input");

	/* topk_add: a candidate's own key, new keys, count 0, the refusals */
	family = h.family != BS_FAMILY_NONE ? h.family : (uint8_t) (1 + fz_below(&r, BS_FAMILY_MAX));
	v = fz_dup(data, size);
	vlen = size;
	if (t.ncand > 0)
	{
		bs_topk1_item it;

		bs_topk1_item_at(&t, (uint32_t) fz_below(&r, t.ncand), &it);
		memcpy(key, it.key, it.len);
		res = add_checked(v, vlen, &olen, key, it.len, family, 1 + fz_below(&r, 3), BS_OK, "add a candidate's key");
		if (res)
		{
			v = res;
			vlen = olen;
		}
	}
	for (i = 0; i < 5; i++)
	{
		make_key(family, &r, key, &keylen);
		res = add_checked(v, vlen, &olen, key, keylen, family, 1 + fz_below(&r, i == 4 ? 1000000 : 3), BS_OK, "add a key");
		if (res)
		{
			v = res;
			vlen = olen;
		}
	}
	make_key(family, &r, key, &keylen);
	(void) add_checked(v, vlen, &olen, key, keylen, family, 0, BS_OK, "add count 0");
	bs_topk1_view(v, vlen, &t);
	(void) add_checked(v, vlen, &olen, key, keylen, family, BS_CMS_MAX_COUNT - t.cms.total, BS_OK, "add up to the largest total");
	(void) add_checked(v, vlen, &olen, key, keylen, family, BS_CMS_MAX_COUNT - t.cms.total + 1, BS_ERR_LIMIT, "add past the largest total");
	{
		uint8_t		of = fz_other_family(family);

		make_key(of, &r, key, &keylen);
		(void) add_checked(v, vlen, &olen, key, keylen, of, 1,
						   bs_family_compatible(v[BS_OFF_FAMILY], of) ? BS_OK : BS_ERR_FAMILY,
						   "add a key of another family");
	}
	/* a fixed-size family's key of another length: refused before the family check */
	(void) add_checked(v, vlen, &olen, key, 3, key_len_of(family) ? family : BS_FAMILY_INTEGER,
					   1, BS_ERR_PARAM, "add a key of a wrong length");
	memset(key, 'k', sizeof(key));
	(void) add_checked(v, vlen, &olen, key, BS_TOPK_MAX_KEY + 1, BS_FAMILY_TEXT, 1, BS_ERR_LIMIT, "add a key too long");
	(void) add_checked(v, vlen, &olen, key, 0, BS_FAMILY_NONE, 1, BS_ERR_PARAM, "add a key of no family");
	(void) compact_checked(v, vlen, &olen, "compact after adds");
	readers_v1(v, vlen, &r, "format-1 value after adds");

	/* topk_merge_trans: with itself, with its canonical form, after adds */
	(void) merge_checked(data, size, data, size, &olen, "merge with itself");
	(void) merge_checked(canon, clen, data, size, &olen, "merge with its canonical form");
	(void) merge_checked(data, size, v, vlen, &olen, "merge with itself after adds");

	/* with a valid value of the same shape, both orders */
	bs_topk1_view((uint8_t *) data, size, &t);
	FZ_CHECK(bs_topk1_size(t.cms.width, t.cms.depth, t.k, 32, &total, &err) == BS_OK,
			 "bs_topk1_size of an accepted value's shape: %s", err.msg);
	FZ_CHECK(total <= size + 32 + BS_HEADER_SIZE, "an empty value of the shape is larger than the input");
	c = fz_alloc(NULL, (size_t) total);
	clen2 = (size_t) total;
	bs_topk1_init(c, t.cms.width, t.cms.depth, t.k, 32, (fz_next(&r) & 1) ? h.family : BS_FAMILY_NONE, h.seed);
	for (i = 0; i < 4; i++)
	{
		make_key(family, &r, key, &keylen);
		res = add_checked(c, clen2, &olen, key, keylen, family, 1 + fz_below(&r, 5), BS_OK, "add to the other value");
		if (res)
		{
			c = res;
			clen2 = olen;
		}
	}
	{
		size_t		l1 = 0,
					l2 = 0;
		uint8_t    *m1 = merge_checked(data, size, c, clen2, &l1, "merge with a value of its shape"),
				   *m2 = merge_checked(c, clen2, data, size, &l2, "merge into a value of its shape");

		FZ_CHECK((m1 == NULL) == (m2 == NULL), "a merge and its reverse disagree on the limit");
		if (m1 != NULL)
		{
			FZ_CHECK(l1 == l2 && memcmp(m1 + BS_HEADER_SIZE, m2 + BS_HEADER_SIZE, l1 - BS_HEADER_SIZE) == 0,
					 "a merge and its reverse differ");
			readers_v1(m1, l1, &r, "format-1 merge");
		}
	}

	/* refusals: another k, another shape, another seed, another family, format 2 */
	{
		uint32_t	ok = t.k % BS_TOPK_MAX_K + 1;
		uint64_t	ow = t.cms.width == 1 ? 2 : t.cms.width - 1;
		uint8_t    *ob;

		FZ_CHECK(bs_topk1_size(t.cms.width, t.cms.depth, ok, 0, &total, &err) == BS_OK, "size: %s", err.msg);
		if (total <= 2 * size + 4096)
		{
			ob = fz_alloc(NULL, (size_t) total);
			bs_topk1_init(ob, t.cms.width, t.cms.depth, ok, 0, h.family, h.seed);
			merge_refused(data, size, ob, (size_t) total, BS_ERR_SHAPE, "merge with another k");
		}
		FZ_CHECK(bs_topk1_size(ow, t.cms.depth, t.k, 0, &total, &err) == BS_OK, "size: %s", err.msg);
		ob = fz_alloc(NULL, (size_t) total);
		bs_topk1_init(ob, ow, t.cms.depth, t.k, 0, h.family, h.seed);
		merge_refused(ob, (size_t) total, data, size, BS_ERR_SHAPE, "merge with another width");
		FZ_CHECK(bs_topk1_size(t.cms.width, t.cms.depth, t.k, 0, &total, &err) == BS_OK, "size: %s", err.msg);
		ob = fz_alloc(NULL, (size_t) total);
		bs_topk1_init(ob, t.cms.width, t.cms.depth, t.k, 0, h.family, h.seed + 1);
		merge_refused(data, size, ob, (size_t) total, BS_ERR_SHAPE, "merge with another seed");
		if (h.family != BS_FAMILY_NONE)
		{
			ob = fz_alloc(NULL, (size_t) total);
			bs_topk1_init(ob, t.cms.width, t.cms.depth, t.k, 0, fz_other_family(h.family), h.seed);
			merge_refused(data, size, ob, (size_t) total, BS_ERR_FAMILY, "merge with another family");
		}
		check_formats_refused();
	}
}

/* ======================== format 2 ======================== */

#ifdef FZ_STRICT
#define FZ_INV(cond, ...) FZ_CHECK(cond, __VA_ARGS__)
#else
static jmp_buf fz_drop;

#define FZ_INV(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			if (0) \
				fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
			longjmp(fz_drop, 1); \
		} \
	} while (0)
#endif

/* Keys of variable-length families made here are at most this long. */
#define KEY_MAX 32

/* Most keys followed by check_sound, and the bytes of the keys made here. */
#define KS_MAX 1024
#define KS_POOL (KS_MAX * KEY_MAX)

/* Adds to reach 2C values are made only when at most this many are needed. */
#define FILL_MAX 1200

static inline uint64_t
min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* A format-2 value as the spec (topk.h) lays it out, read here without the core's view. */
typedef struct raw2
{
	uint8_t		family;
	uint64_t	seed,
				width,
				total,
				floor,
				key_bytes;
	uint32_t	depth,
				k,
				cap,
				held;
	const uint8_t *counters,
			   *rec,
			   *keys;
} raw2;

static void
raw2_read(const uint8_t *buf, size_t len, raw2 *r)
{
	uint64_t	x = bs_load64(buf + BS_OFF_X),
				cbytes;

	r->family = buf[BS_OFF_FAMILY];
	r->seed = bs_load64(buf + 8);
	r->width = bs_load64(buf + BS_OFF_P1);
	r->depth = bs_load32(buf + BS_OFF_P2);
	r->k = bs_load32(buf + BS_OFF_P3);
	r->total = bs_load64(buf + BS_OFF_N);
	r->cap = (uint32_t) (x & 0xffffffffu);
	r->held = (uint32_t) (x >> 32);
	cbytes = r->width * r->depth * 8;
	r->counters = buf + BS_HEADER_SIZE;
	r->floor = bs_load64(r->counters + cbytes);
	r->rec = r->counters + cbytes + 8;
	r->keys = r->rec + (uint64_t) r->held * BS_TOPK_RECORD;
	r->key_bytes = r->held == 0 ? 0 : bs_load32(r->rec + (uint64_t) (r->held - 1) * BS_TOPK_RECORD + 16);
	FZ_INV(buf[4] == BS_TOPK_FORMAT && len == (size_t) (r->keys - buf) + r->key_bytes,
		   "a format-2 value of %zu bytes: %u values and %" PRIu64 " key bytes do not add up", len,
		   r->held, r->key_bytes);
}

/* Value i: its counts and key. */
static void
raw2_at(const raw2 *r, uint32_t i, uint64_t *lower, uint64_t *upper, const uint8_t **key,
		uint32_t *len)
{
	const uint8_t *p = r->rec + (uint64_t) i * BS_TOPK_RECORD;
	uint32_t	start = i == 0 ? 0 : bs_load32(p - BS_TOPK_RECORD + 16);

	*lower = bs_load64(p);
	*upper = bs_load64(p + 8);
	*key = r->keys + start;
	*len = bs_load32(p + 16) - start;
}

/* The Count-Min estimate of hash h in a format-2 value (its header is a cms header). */
static uint64_t
est_in(const uint8_t *buf, uint64_t h)
{
	bs_cms		c;

	bs_cms_view((uint8_t *) buf, &c);
	return bs_cms_frequency(&c, h);
}

static bool
same_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	return al == bl && memcmp(a, b, al) == 0;
}

/*
 * topk_info, topk_items / topk_items_bounds, topk_bounds of a valid
 * format-2 value: describe agrees with the header; the rows are the values
 * held, each once, best first, each key inside the value, 1 <= lower =
 * estimate <= upper <= min(N, Count-Min estimate); the lookup of each row's
 * key and of each record's key finds it with its counts.
 */
static void
readers_v2(const uint8_t *buf, size_t len, const char *what)
{
	raw2		r;
	bs_topk_info info;
	bs_topk_row *rows,
				row;
	uint32_t	n = 0,
				i;
	uint64_t	sum_rows = 0,
				sum_recs = 0,
				x_rows = 0,
				x_recs = 0,
				prev_h = 0;

	raw2_read(buf, len, &r);
	memset(&info, 0xa5, sizeof(info));
	bs_topk_describe(buf, len, &info);
	FZ_INV(info.version == 2 && info.params.k == r.k && info.params.capacity == r.cap &&
		   info.params.width == r.width && info.params.depth == r.depth && info.total == r.total &&
		   info.held == r.held && info.has_floor && info.floor == r.floor,
		   "%s: bs_topk_describe disagrees with the header (k %u, C %u, %" PRIu64 " x %u, N %" PRIu64 ", %u held, floor %" PRIu64 ")",
		   what, r.k, r.cap, r.width, r.depth, r.total, r.held, r.floor);
	rows = bs_topk_ranked(buf, len, &fz_releasing_allocator, &n);
	FZ_INV(n == r.held, "%s: %u rows of a value holding %u", what, n, r.held);
	for (i = 0; i < n; i++)
	{
		const bs_topk_row *w = &rows[i];
		uintptr_t	k0 = (uintptr_t) r.keys,
					kw = (uintptr_t) w->key;
		uint64_t	h;

		FZ_INV(kw >= k0 && w->len <= r.key_bytes && kw - k0 <= r.key_bytes - w->len,
			   "%s: row %u's key (%u bytes) lies outside the value's %" PRIu64 " key bytes", what, i,
			   w->len, r.key_bytes);
		h = bs_hash_bytes(w->key, w->len, r.seed);
		FZ_INV(w->estimate == w->lower && w->lower >= 1 && w->lower <= w->upper && w->upper <= r.total &&
			   w->upper <= est_in(buf, h),
			   "%s: row %u counts %" PRIu64 " (estimate %" PRIu64 ") to %" PRIu64 ", N %" PRIu64 ", Count-Min %" PRIu64,
			   what, i, w->lower, w->estimate, w->upper, r.total, est_in(buf, h));
		if (i > 0)
		{
			const bs_topk_row *p = &rows[i - 1];

			FZ_INV(p->lower > w->lower ||
				   (p->lower == w->lower && (p->upper > w->upper || (p->upper == w->upper && prev_h < h))),
				   "%s: rows %u (%" PRIu64 "..%" PRIu64 ") and %u (%" PRIu64 "..%" PRIu64 ") are out of order",
				   what, i - 1, p->lower, p->upper, i, w->lower, w->upper);
		}
		memset(&row, 0xa5, sizeof(row));
		FZ_INV(bs_topk_lookup(buf, len, h, w->key, w->len, &row) && row.key == w->key && row.len == w->len &&
			   row.lower == w->lower && row.upper == w->upper && row.estimate == w->estimate,
			   "%s: the lookup of row %u's key disagrees with the row", what, i);
		sum_rows += w->lower;
		x_rows ^= h;
		prev_h = h;
	}
	for (i = 0; i < r.held; i++)
	{
		uint64_t	lo,
					up,
					h;
		const uint8_t *key;
		uint32_t	klen;

		raw2_at(&r, i, &lo, &up, &key, &klen);
		h = bs_hash_bytes(key, klen, r.seed);
		memset(&row, 0xa5, sizeof(row));
		FZ_INV(bs_topk_lookup(buf, len, h, key, klen, &row) && row.lower == lo && row.upper == up &&
			   row.estimate == lo,
			   "%s: the lookup of value %u's key does not find its counts %" PRIu64 "..%" PRIu64, what, i, lo, up);
		sum_recs += lo;
		x_recs ^= h;
	}
	FZ_INV(sum_rows == sum_recs && x_rows == x_recs && sum_recs <= r.total,
		   "%s: the rows are not the values held", what);
}

/*
 * topk_bounds / topk_upper_bound of any key: held (then a record with its
 * bytes, hash and counts), or lower = estimate = 0 and upper = min(floor,
 * its Count-Min estimate).
 */
static bool
lookup_v2(const uint8_t *buf, size_t len, const uint8_t *key, uint32_t klen, uint64_t h,
		  bs_topk_row *row, const char *what)
{
	raw2		r;
	bool		held;

	raw2_read(buf, len, &r);
	memset(row, 0xa5, sizeof(*row));
	held = bs_topk_lookup(buf, len, h, key, klen, row);
	FZ_INV(row->key == key && row->len == klen, "%s: a lookup's row does not name its key", what);
	if (!held)
		FZ_INV(row->lower == 0 && row->estimate == 0 && row->upper == min_u64(r.floor, est_in(buf, h)),
			   "%s: a key not held has counts %" PRIu64 " (estimate %" PRIu64 ") to %" PRIu64 ", not 0 to min(floor %" PRIu64 ", Count-Min %" PRIu64 ")",
			   what, row->lower, row->estimate, row->upper, r.floor, est_in(buf, h));
	else
	{
		uint32_t	i;
		bool		ok = false;

		for (i = 0; i < r.held; i++)
		{
			uint64_t	lo,
						up;
			const uint8_t *k;
			uint32_t	kl;

			raw2_at(&r, i, &lo, &up, &k, &kl);
			if (kl == klen && memcmp(k, key, klen) == 0)
			{
				ok = bs_hash_bytes(k, kl, r.seed) == h && row->lower == lo && row->upper == up &&
					row->estimate == lo;
				break;
			}
		}
		FZ_INV(ok, "%s: a lookup holds a key (hash %016" PRIx64 ") that no value of the sketch is", what, h);
	}
	return held;
}

/* A value the core made: valid (deep and quick), its text form, the readers. */
static void
check_result_v2(const uint8_t *buf, size_t len, const char *what)
{
	bs_error	err;
	bs_status	st;

	memset(&err, 0, sizeof(err));
	st = bs_validate(buf, len, BS_KIND_TOPK, true, NULL, &err);
	FZ_INV(st == BS_OK, "%s: the format-2 value the core made (%zu bytes) is rejected: %s", what, len, err.msg);
	FZ_INV(buf[4] == BS_TOPK_FORMAT, "%s: the core made a value of format %d", what, buf[4]);
	fz_roundtrip(buf, len, BS_KIND_TOPK, what);
	readers_v2(buf, len, what);
}

/* ---- keys followed through adds and merges ---- */

typedef struct fz_key
{
	const uint8_t *key;
	uint32_t	len;
	uint64_t	h;
	uint64_t	added;			/* counted into the state since the last ks_zero */
} fz_key;

typedef struct keyset
{
	fz_key	   *k;
	uint32_t	n;
	uint32_t   *slot;			/* by hash: index + 1, 0 empty (2 KS_MAX slots) */
	uint8_t    *pool;
	size_t		used;
	uint64_t	seed;
} keyset;

static void
ks_init(keyset *ks, uint64_t seed)
{
	ks->k = (fz_key *) fz_alloc(NULL, KS_MAX * sizeof(fz_key));
	ks->slot = (uint32_t *) fz_alloc(NULL, 2 * KS_MAX * sizeof(uint32_t));
	ks->pool = fz_alloc(NULL, KS_POOL);
	ks->n = 0;
	ks->used = 0;
	ks->seed = seed;
}

/*
 * The entry of key (copied into the pool when copy, else it must outlive
 * the input), once per key; NULL when the set is full.
 */
static fz_key *
ks_add(keyset *ks, const uint8_t *key, uint32_t len, bool copy)
{
	uint64_t	h = bs_hash_bytes(key, len, ks->seed);
	uint32_t	pos = (uint32_t) h & (2 * KS_MAX - 1);
	fz_key	   *e;

	while (ks->slot[pos] != 0)
	{
		e = &ks->k[ks->slot[pos] - 1];
		if (e->h == h && e->len == len && memcmp(e->key, key, len) == 0)
			return e;
		pos = (pos + 1) & (2 * KS_MAX - 1);
	}
	if (ks->n == KS_MAX || (copy && len > KS_POOL - ks->used))
		return NULL;
	e = &ks->k[ks->n];
	if (copy)
	{
		memcpy(ks->pool + ks->used, key, len);
		key = ks->pool + ks->used;
		ks->used += len;
	}
	e->key = key;
	e->len = len;
	e->h = h;
	e->added = 0;
	ks->slot[pos] = ++ks->n;
	return e;
}

/* Every key a valid format-2 value holds (buf must outlive the input). */
static void
ks_add_held(keyset *ks, const uint8_t *buf, size_t len)
{
	raw2		r;
	uint32_t	i;

	raw2_read(buf, len, &r);
	for (i = 0; i < r.held; i++)
	{
		uint64_t	lo,
					up;
		const uint8_t *key;
		uint32_t	klen;

		raw2_at(&r, i, &lo, &up, &key, &klen);
		(void) ks_add(ks, key, klen, false);
	}
}

static void
ks_zero(keyset *ks)
{
	uint32_t	i;

	for (i = 0; i < ks->n; i++)
		ks->k[i].added = 0;
}

/* A key of the family that is likely new: the counter n in its first bytes. */
static void
make_new_key(uint8_t family, fz_rng *r, uint32_t n, uint8_t *key, uint32_t *len)
{
	uint32_t	l = key_len_of(family),
				i;

	if (l == 0)
		l = 4 + (uint32_t) fz_below(r, 9);
	for (i = 0; i < l; i++)
		key[i] = (uint8_t) fz_next(r);
	bs_store32(key, n ^ UINT32_C(0x5bd1e995));
	*len = l;
}

/*
 * The guarantee, step by step.  after was made from a (and b, a merge) by
 * adds of ks's added counts (0 for a merge); for every key of ks, every
 * true count a and b allowed must still be allowed: lower(after) <=
 * lower(a) + lower(b) + added and upper(after) >= upper(a) + upper(b) +
 * added; and lower <= upper <= N in after.  For a merge (exact), a value
 * held after was held by a side, with the sum of the sides' lower counts.
 */
static void
check_sound(const uint8_t *after, size_t alen, const uint8_t *a, size_t al, const uint8_t *b,
			size_t bl, const keyset *ks, bool exact, const char *what)
{
	uint64_t	total = bs_load64(after + BS_OFF_N);
	uint32_t	i;

	for (i = 0; i < ks->n; i++)
	{
		const fz_key *e = &ks->k[i];
		bs_topk_row rx,
					ra,
					rb;
		bool		hx,
					ha,
					hb = false;
		uint64_t	lo,
					up;

		hx = bs_topk_lookup(after, alen, e->h, e->key, e->len, &rx);
		ha = bs_topk_lookup(a, al, e->h, e->key, e->len, &ra);
		lo = ra.lower + e->added;
		up = ra.upper + e->added;
		if (b != NULL)
		{
			hb = bs_topk_lookup(b, bl, e->h, e->key, e->len, &rb);
			lo += rb.lower;
			up += rb.upper;
		}
		FZ_INV(rx.lower <= rx.upper && rx.upper <= total,
			   "%s: key %u counts %" PRIu64 " to %" PRIu64 " of a total %" PRIu64, what, i, rx.lower, rx.upper, total);
		FZ_INV(rx.lower <= lo && rx.upper >= up,
			   "%s: key %u (%u bytes, %sheld) was within %" PRIu64 "..%" PRIu64 " (%s%s, %" PRIu64 " added) and is now within %" PRIu64 "..%" PRIu64 ": a true count the inputs allowed is no longer allowed",
			   what, i, e->len, hx ? "" : "not ", lo, up, ha ? "held" : "not held",
			   b == NULL ? "" : hb ? " and held" : " and not held", e->added, rx.lower, rx.upper);
		if (exact && hx)
			FZ_INV((ha || hb) && rx.lower == lo,
				   "%s: key %u is held after the merge with lower %" PRIu64 ", the sides held it with %" PRIu64 " (%d, %d)",
				   what, i, rx.lower, lo, (int) ha, (int) hb);
	}
}

/* ---- states ---- */

static uint8_t *
st_write(const bs_topk_state *st, bool canonical, size_t *len)
{
	return bs_topk_state_write(st, canonical, &fz_releasing_allocator, len);
}

/* A state holding a valid value: it writes back as the same bytes. */
static void
st_load(bs_topk_state *st, const uint8_t *buf, size_t len, const char *what)
{
	size_t		wl;
	uint8_t    *w;
	raw2		r;

	bs_topk_state_load(st, buf, len, &fz_releasing_allocator);
	raw2_read(buf, len, &r);
	FZ_INV(st->n == r.held && st->floor == r.floor && st->cms.total == r.total && st->params.k == r.k &&
		   st->params.capacity == r.cap && st->params.width == r.width && st->params.depth == r.depth &&
		   st->cms.seed == r.seed && st->cms.family == r.family,
		   "%s: the state loaded disagrees with the value", what);
	FZ_INV(bs_topk_state_size(st) == len, "%s: bs_topk_state_size %zu of a state of a %zu-byte value",
		   what, bs_topk_state_size(st), len);
	w = st_write(st, false, &wl);
	FZ_INV(same_bytes(w, wl, buf, len), "%s: a value loaded and written is not the same bytes (%zu, %zu)",
		   what, wl, len);
}

/*
 * topk_final, and topk_add's result: the canonical form of st, which writes
 * as v (every value held), and st still writes as v after.  Valid; the best min(held, C) values of v (its
 * first C rows) with their counts, floor raised to the largest upper bound
 * dropped, everything else v's; v itself when v holds at most C; and a
 * fixed point: loaded and written, canonical or not, the same bytes.
 */
static uint8_t *
check_canonical(const bs_topk_state *st, const uint8_t *v, size_t vlen, size_t *clen,
				const char *what)
{
	uint8_t    *c = st_write(st, true, clen),
			   *w;
	raw2		rv,
				rc;
	size_t		wl;
	bs_topk_state s2;

	w = st_write(st, false, &wl);
	FZ_INV(same_bytes(w, wl, v, vlen), "%s: writing the canonical form changed the state", what);
	check_result_v2(c, *clen, what);
	raw2_read(v, vlen, &rv);
	raw2_read(c, *clen, &rc);
	FZ_INV(rc.held == min_u64(rv.held, rv.cap) && rc.held <= rc.cap,
		   "%s: the canonical form of a state of %u values holds %u (capacity %u)", what, rv.held,
		   rc.held, rv.cap);
	FZ_INV(memcmp(c, v, BS_OFF_X) == 0 && (uint32_t) bs_load64(c + BS_OFF_X) == rv.cap &&
		   memcmp(rc.counters, rv.counters, (size_t) (rv.width * rv.depth * 8)) == 0,
		   "%s: the canonical form has another header or other counters", what);
	if (rv.held <= rv.cap)
		FZ_INV(same_bytes(c, *clen, v, vlen), "%s: the canonical form of a value of %u values (C %u) is not itself",
			   what, rv.held, rv.cap);
	else
	{
		uint32_t	n,
					i;
		bs_topk_row *rows = bs_topk_ranked(v, vlen, &fz_releasing_allocator, &n),
					row;
		uint64_t	floor = rv.floor;

		for (i = rv.cap; i < n; i++)
			floor = rows[i].upper > floor ? rows[i].upper : floor;
		FZ_INV(rc.floor == floor, "%s: the canonical form's floor is %" PRIu64 ", not %" PRIu64 " (the largest of %" PRIu64 " and the upper bounds dropped)",
			   what, rc.floor, floor, rv.floor);
		for (i = 0; i < rv.cap && i < n; i++)
			FZ_INV(bs_topk_lookup(c, *clen, bs_hash_bytes(rows[i].key, rows[i].len, rv.seed), rows[i].key,
								  rows[i].len, &row) &&
				   row.lower == rows[i].lower && row.upper == rows[i].upper,
				   "%s: the canonical form does not keep row %u of %u (C %u) with its counts", what, i, n, rv.cap);
	}
	bs_topk_state_load(&s2, c, *clen, &fz_releasing_allocator);
	w = st_write(&s2, true, &wl);
	FZ_INV(same_bytes(w, wl, c, *clen), "%s: the canonical form, loaded, has another canonical form", what);
	w = st_write(&s2, false, &wl);
	FZ_INV(same_bytes(w, wl, c, *clen), "%s: the canonical form, loaded, writes other bytes", what);
	bs_topk_state_release(&s2);
	return c;
}

/* What bs_topk_state_add must answer (the order of its checks, topk.h). */
static bs_status
add_expected(const bs_topk_state *st, uint32_t len, uint8_t family, uint64_t count)
{
	if (len > BS_TOPK_MAX_KEY)
		return BS_ERR_LIMIT;
	if (family == BS_FAMILY_NONE || family > BS_FAMILY_MAX || !bs_family_key_length_fits(family, len))
		return BS_ERR_PARAM;
	if (!bs_family_compatible(st->cms.family, family))
		return BS_ERR_FAMILY;
	if (count == 0)
		return BS_OK;
	if (count > BS_CMS_MAX_COUNT - st->cms.total)
		return BS_ERR_LIMIT;
	return BS_OK;
}

/*
 * topk_add / topk_agg_trans / topk_agg_weighted_trans: add count for key,
 * hash h (its own, or another value's to test the collision rule), and check
 * what the add did: the status it must have, refused or of count 0 nothing
 * changed; else the state valid, N grown by count, at most 2C values, the
 * family joined, floor not lower, and (own hash) the key held, its lower
 * count grown by exactly count (0 if it was not held) and its upper bound
 * by at least count.  fk, when not NULL, counts the add for check_sound.
 */
static bs_status
st_add(bs_topk_state *st, fz_key *fk, const uint8_t *key, uint32_t len, uint64_t h, uint8_t family,
	   uint64_t count, const char *what)
{
	size_t		blen,
				alen;
	uint8_t    *before = st_write(st, false, &blen),
			   *after;
	bs_status	want = add_expected(st, len, family, count),
				s;
	bs_error	err;
	bs_topk_row rb,
				ra;
	bool		hb;
	raw2		b,
				a;

	hb = bs_topk_lookup(before, blen, h, key, len, &rb);
	memset(&err, 0, sizeof(err));
	s = bs_topk_state_add(st, h, key, len, family, count, &err);
	FZ_INV(s == want, "%s: status %d, expected %d (%s)", what, (int) s, (int) want,
		   s != BS_OK ? err.msg : "no error");
	FZ_INV(s == BS_OK || (memchr(err.msg, '\0', sizeof(err.msg)) != NULL && err.msg[0] != '\0'),
		   "%s: error %d without a message", what, (int) s);
	after = st_write(st, false, &alen);
	if (s != BS_OK || count == 0)
	{
		FZ_INV(same_bytes(after, alen, before, blen), "%s: an add %s changed the state", what,
			   s != BS_OK ? "refused" : "of count 0");
		return s;
	}
	if (fk != NULL)
		fk->added += count;
	check_result_v2(after, alen, what);
	raw2_read(before, blen, &b);
	raw2_read(after, alen, &a);
	FZ_INV(a.total == b.total + count && a.held <= 2 * (uint64_t) a.cap && st->n == a.held &&
		   a.family == bs_family_join(b.family, family) && a.floor >= b.floor,
		   "%s: after an add of %" PRIu64 ": N %" PRIu64 " (was %" PRIu64 "), %u values (C %u), family %u (was %u), floor %" PRIu64 " (was %" PRIu64 ")",
		   what, count, a.total, b.total, a.held, a.cap, a.family, b.family, a.floor, b.floor);
	if (h == bs_hash_bytes(key, len, st->cms.seed))
	{
		FZ_INV(lookup_v2(after, alen, key, len, h, &ra, what), "%s: the key added is not held", what);
		FZ_INV(ra.lower == (hb ? rb.lower : 0) + count && ra.upper >= rb.upper + count,
			   "%s: a key %sheld with %" PRIu64 "..%" PRIu64 " counts %" PRIu64 "..%" PRIu64 " after an add of %" PRIu64,
			   what, hb ? "" : "not ", rb.lower, rb.upper, ra.lower, ra.upper, count);
	}
	return s;
}

/*
 * topk_merge_trans: merge src (valid) into st.  want: the refusal expected,
 * or BS_OK for a merge that must succeed unless the totals pass 2^63 - 1
 * (BS_ERR_LIMIT).  src never changes; refused, st is unchanged; done, the
 * result is valid with at most C values (so its canonical form is itself),
 * N and every counter the sums, floor at least the sum of the floors, the
 * family joined, and check_sound (exact) over ks.  Returns st's bytes after,
 * or NULL when refused.
 */
static uint8_t *
st_merge(bs_topk_state *st, const uint8_t *src, size_t srclen, bs_status want, const keyset *ks,
		 size_t *outlen, const char *what)
{
	size_t		blen,
				alen,
				clen;
	uint8_t    *before = st_write(st, false, &blen),
			   *copy = fz_dup(src, srclen),
			   *after,
			   *c;
	bs_error	err;
	bs_status	s;
	raw2		b,
				x,
				a;
	uint64_t	i,
				cells;

	raw2_read(before, blen, &b);
	raw2_read(src, srclen, &x);
	if (want == BS_OK && x.total > BS_CMS_MAX_COUNT - b.total)
		want = BS_ERR_LIMIT;
	memset(&err, 0, sizeof(err));
	s = bs_topk_state_merge(st, src, srclen, &err);
	FZ_INV(same_bytes(copy, srclen, src, srclen), "%s: a merge changed its source", what);
	FZ_INV(s == want, "%s: status %d, expected %d (%s)", what, (int) s, (int) want,
		   s != BS_OK ? err.msg : "no error");
	after = st_write(st, false, &alen);
	if (s != BS_OK)
	{
		FZ_INV(memchr(err.msg, '\0', sizeof(err.msg)) != NULL && err.msg[0] != '\0',
			   "%s: error %d without a message", what, (int) s);
		FZ_INV(same_bytes(after, alen, before, blen), "%s: a refused merge changed the state", what);
		return NULL;
	}
	check_result_v2(after, alen, what);
	raw2_read(after, alen, &a);
	FZ_INV(a.held <= a.cap && st->n == a.held,
		   "%s: a merge holds %u values, more than its capacity %u", what, a.held, a.cap);
	c = st_write(st, true, &clen);
	FZ_INV(same_bytes(c, clen, after, alen), "%s: the canonical form of a merge is not itself", what);
	FZ_INV(a.total == b.total + x.total && a.floor >= b.floor + x.floor &&
		   a.family == bs_family_join(b.family, x.family),
		   "%s: merge of N %" PRIu64 " and %" PRIu64 " (floors %" PRIu64 ", %" PRIu64 ", families %u, %u) gives N %" PRIu64 ", floor %" PRIu64 ", family %u",
		   what, b.total, x.total, b.floor, x.floor, b.family, x.family, a.total, a.floor, a.family);
	cells = a.width * a.depth;
	for (i = 0; i < cells; i++)
		FZ_INV(bs_load64(a.counters + 8 * i) == bs_load64(b.counters + 8 * i) + bs_load64(x.counters + 8 * i),
			   "%s: counter %" PRIu64 " of a merge is not the sum", what, i);
	if (ks != NULL)
		check_sound(after, alen, before, blen, src, srclen, ks, true, what);
	*outlen = alen;
	return after;
}

/* a + b and b + a (values of the same parameters): the same status and the same bytes. */
static uint8_t *
merge_both(const uint8_t *a, size_t al, const uint8_t *b, size_t bl, const keyset *ks, size_t *outlen,
		   const char *what)
{
	bs_topk_state sa,
				sb;
	size_t		l1 = 0,
				l2 = 0;
	uint8_t    *m1,
			   *m2;

	st_load(&sa, a, al, what);
	st_load(&sb, b, bl, what);
	m1 = st_merge(&sa, b, bl, BS_OK, ks, &l1, what);
	m2 = st_merge(&sb, a, al, BS_OK, ks, &l2, what);
	FZ_INV((m1 == NULL) == (m2 == NULL), "%s: a merge and its reverse disagree on the limit", what);
	if (m1 != NULL)
		FZ_INV(same_bytes(m1, l1, m2, l2), "%s: a + b and b + a differ (%zu and %zu bytes)", what, l1, l2);
	bs_topk_state_release(&sa);
	bs_topk_state_release(&sb);
	*outlen = l1;
	return m1;
}

/* A new value of these parameters (empty, or with count added for key). */
static uint8_t *
new_value(const bs_topk_params *p, uint8_t family, uint64_t seed, const uint8_t *key, uint32_t klen,
		  uint8_t kfamily, uint64_t count, size_t *len, const char *what)
{
	bs_topk_state s;
	bs_error	err;
	uint8_t    *v;

	memset(&err, 0, sizeof(err));
	FZ_INV(bs_topk_state_init(&s, p, family, seed, &fz_releasing_allocator, &err) == BS_OK,
		   "%s: bs_topk_state_init of an accepted value's parameters: %s", what, err.msg);
	if (key != NULL)
		FZ_INV(bs_topk_state_add(&s, bs_hash_bytes(key, klen, seed), key, klen, kfamily, count, &err) == BS_OK,
			   "%s: add to a new value: %s", what, err.msg);
	v = st_write(&s, false, len);
	bs_topk_state_release(&s);
	check_result_v2(v, *len, what);
	return v;
}

/* A merge refused with want (another k, capacity, shape, seed or family): st unchanged. */
static void
refused(const uint8_t *data, size_t size, const bs_topk_params *p, uint8_t family, uint64_t seed,
		bs_status want, const char *what)
{
	bs_topk_state st;
	size_t		olen,
				vlen;
	uint8_t    *v;

	if (bs_cms_check_shape(p->width, p->depth, NULL) != BS_OK)
		return;
	v = new_value(p, family, seed, NULL, 0, 0, 0, &vlen, what);
	st_load(&st, data, size, what);
	(void) st_merge(&st, v, vlen, want, NULL, &olen, what);
	bs_topk_state_release(&st);
}

static void
fuzz_v2(const uint8_t *data, size_t size, fz_rng *r)
{
	raw2		x;
	keyset		ks;
	bs_topk_state st,
				s2;
	bs_topk_params p;
	bs_topk_row row;
	uint8_t		family,
				key[KEY_MAX],
			   *canon,
			   *after,
			   *y,
			   *m;
	static uint8_t big[BS_TOPK_MAX_KEY + 1];
	size_t		clen,
				alen,
				ylen,
				mlen;
	uint32_t	i,
				klen,
				serial = 0;
	fz_key	   *fk;

	raw2_read(data, size, &x);
	readers_v2(data, size, "format-2 input");
	ks_init(&ks, x.seed);
	ks_add_held(&ks, data, size);
	family = x.family != BS_FAMILY_NONE ? x.family : (uint8_t) (1 + fz_below(r, BS_FAMILY_MAX));
	p.k = x.k;
	p.capacity = x.cap;
	p.width = x.width;
	p.depth = x.depth;

	/* topk_bounds of keys never added, and of keys with a held value's hash */
	for (i = 0; i < 6; i++)
	{
		make_key(family, r, key, &klen);
		(void) lookup_v2(data, size, key, klen, bs_hash_bytes(key, klen, x.seed), &row, "lookup of a key");
		(void) ks_add(&ks, key, klen, true);
	}
	for (i = 0; i < 3 && i < x.held; i++)
	{
		uint64_t	lo,
					up;
		const uint8_t *k;
		uint32_t	kl;

		raw2_at(&x, (uint32_t) fz_below(r, x.held), &lo, &up, &k, &kl);
		make_key(family, r, key, &klen);
		if (klen == kl && memcmp(key, k, kl) == 0)
			continue;
		FZ_INV(!lookup_v2(data, size, key, klen, bs_hash_bytes(k, kl, x.seed), &row, "lookup of a colliding key"),
			   "a key with a held value's hash (not its bytes) is held");
	}

	/* topk_final, topk_items: a state of the value, its canonical form */
	st_load(&st, data, size, "load");
	canon = check_canonical(&st, data, size, &clen, "canonical form");
	bs_topk_state_release(&st);

	/* topk_add / topk_agg_trans on a state of the value */
	st_load(&st, data, size, "load for adds");
	ks_zero(&ks);
	if (x.held > 0)
	{
		uint64_t	lo,
					up;
		const uint8_t *k;
		uint32_t	kl;

		raw2_at(&x, (uint32_t) fz_below(r, x.held), &lo, &up, &k, &kl);
		(void) st_add(&st, ks_add(&ks, k, kl, false), k, kl, bs_hash_bytes(k, kl, x.seed), family,
					  1 + fz_below(r, 3), "add of a held key");
	}
	for (i = 0; i < 5; i++)
	{
		if (fz_next(r) & 1)
			make_key(family, r, key, &klen);
		else
			make_new_key(family, r, serial++, key, &klen);
		(void) st_add(&st, ks_add(&ks, key, klen, true), key, klen, bs_hash_bytes(key, klen, x.seed), family,
					  1 + fz_below(r, i == 4 ? 1000000 : 3), "add of a key");
	}
	make_key(family, r, key, &klen);
	fk = ks_add(&ks, key, klen, true);
	(void) st_add(&st, fk, key, klen, bs_hash_bytes(key, klen, x.seed), family, 0, "add of count 0");
	(void) st_add(&st, fk, key, klen, bs_hash_bytes(key, klen, x.seed), family, UINT64_MAX,
				  "add of count 2^64 - 1");
	(void) st_add(&st, fk, key, klen, bs_hash_bytes(key, klen, x.seed), family, (uint64_t) INT64_MAX,
				  "add of count 2^63 - 1");
	{
		uint8_t		of = fz_other_family(family);

		make_key(of, r, key, &klen);
		(void) st_add(&st, ks_add(&ks, key, klen, true), key, klen, bs_hash_bytes(key, klen, x.seed), of, 1,
					  "add of a key of another family");
	}
	(void) st_add(&st, NULL, key, 3, bs_hash_bytes(key, 3, x.seed),
				  key_len_of(family) ? family : BS_FAMILY_UUID, 1, "add of a key of a wrong length");
	(void) st_add(&st, NULL, key, 0, bs_hash_bytes(key, 0, x.seed), BS_FAMILY_NONE, 1, "add of a key of no family");
	(void) st_add(&st, NULL, key, 0, bs_hash_bytes(key, 0, x.seed), (uint8_t) (BS_FAMILY_MAX + 1 + fz_below(r, 200)),
				  1, "add of a key of an unknown family");
	memset(big, 'k', sizeof(big));
	(void) st_add(&st, NULL, big, BS_TOPK_MAX_KEY + 1, bs_hash_bytes(big, BS_TOPK_MAX_KEY + 1, x.seed),
				  BS_FAMILY_TEXT, 1, "add of a key too long");
	if (fz_next(r) & 1)
		(void) st_add(&st, ks_add(&ks, big, BS_TOPK_MAX_KEY, false), big, BS_TOPK_MAX_KEY,
					  bs_hash_bytes(big, BS_TOPK_MAX_KEY, x.seed), BS_FAMILY_TEXT, 1, "add of a key of 65536 bytes");

	/* new keys until 2C values are held, and one more: the best C stay */
	if (2 * (uint64_t) x.cap - st.n <= FILL_MAX)
	{
		uint32_t	tries = 0;
		bool		room = true;

		while (room && tries++ < 2 * FILL_MAX)
		{
			bs_error	err;
			bs_status	s,
						want;
			uint64_t	count = 1 + fz_below(r, 4);

			room = st.n < 2 * x.cap;
			make_new_key(family, r, serial++, key, &klen);
			want = add_expected(&st, klen, family, count);
			fk = ks_add(&ks, key, klen, true);
			s = bs_topk_state_add(&st, bs_hash_bytes(key, klen, x.seed), key, klen, family, count, &err);
			FZ_INV(s == want, "add to fill: status %d, expected %d (%s)", (int) s, (int) want,
				   s != BS_OK ? err.msg : "no error");
			if (s != BS_OK)
				break;
			if (fk != NULL)
				fk->added += count;
			FZ_INV(st.n <= 2 * x.cap, "a state holds %u values, capacity %u", st.n, x.cap);
		}
	}
	after = st_write(&st, false, &alen);
	check_result_v2(after, alen, "after adds");
	check_sound(after, alen, data, size, NULL, 0, &ks, false, "after adds");
	(void) check_canonical(&st, after, alen, &mlen, "topk_add's result");

	/* the collision rule: a key with a held value's hash is counted as dropped */
	if (x.held > 0)
	{
		uint64_t	lo,
					up,
					h,
					c = 1 + fz_below(r, 5);
		const uint8_t *k;
		uint32_t	kl;
		uint8_t    *b,
				   *a;
		size_t		bl,
					al;
		bs_topk_row rb,
					ra,
					rk;
		raw2		rb2,
					ra2;

		raw2_at(&x, (uint32_t) fz_below(r, x.held), &lo, &up, &k, &kl);
		h = bs_hash_bytes(k, kl, x.seed);
		memcpy(key, k, kl < KEY_MAX ? kl : KEY_MAX);
		klen = kl;
		if (kl > KEY_MAX || (key_len_of(family) == 0 && kl == KEY_MAX))
			klen = 0;			/* a long key: the empty one instead */
		else if (kl == 0 || (key_len_of(family) == 0 && (fz_next(r) & 1)))
			key[klen++] = 'x';
		else
			key[fz_below(r, kl)] ^= (uint8_t) (1 + fz_below(r, 255));
		if (bs_family_key_length_fits(family, klen))
		{
			st_load(&s2, data, size, "load for the collision rule");
			b = st_write(&s2, false, &bl);
			(void) bs_topk_lookup(b, bl, h, key, klen, &rb);
			if (st_add(&s2, NULL, key, klen, h, family, c, "add of a key with a held value's hash") == BS_OK)
			{
				a = st_write(&s2, false, &al);
				raw2_read(b, bl, &rb2);
				raw2_read(a, al, &ra2);
				FZ_INV(ra2.held == rb2.held, "a key with a held value's hash was held");
				FZ_INV(!lookup_v2(a, al, key, klen, h, &ra, "collision") && ra.upper >= rb.upper + c,
					   "a key with a held value's hash: upper %" PRIu64 ", was %" PRIu64 ", %" PRIu64 " added",
					   ra.upper, rb.upper, c);
				FZ_INV(lookup_v2(a, al, k, kl, h, &rk, "collision") && rk.lower == lo && rk.upper == up,
					   "the holder of a hash changed its counts when another key with its hash was added");
			}
			bs_topk_state_release(&s2);
		}
	}

	/* up to the largest total, and past it */
	st_load(&s2, data, size, "load for the largest total");
	make_key(family, r, key, &klen);
	if (x.total < BS_CMS_MAX_COUNT)
		(void) st_add(&s2, NULL, key, klen, bs_hash_bytes(key, klen, x.seed), family, BS_CMS_MAX_COUNT - x.total,
					  "add up to the largest total");
	(void) st_add(&s2, NULL, key, klen, bs_hash_bytes(key, klen, x.seed), family, 1, "add past the largest total");
	(void) st_merge(&s2, data, size, BS_OK, NULL, &mlen, "merge past the largest total");
	bs_topk_state_release(&s2);

	/* topk_merge_trans: with itself, its canonical form, after the adds */
	ks_add_held(&ks, after, alen);
	ks_zero(&ks);
	st_load(&s2, data, size, "load for merges");
	(void) st_merge(&s2, data, size, BS_OK, &ks, &mlen, "merge with itself");
	bs_topk_state_release(&s2);
	(void) merge_both(data, size, canon, clen, &ks, &mlen, "merge with its canonical form");
	(void) st_merge(&st, data, size, BS_OK, &ks, &mlen, "merge after adds");
	bs_topk_state_release(&st);

	/* with an empty value of its parameters: the canonical form */
	y = new_value(&p, (fz_next(r) & 1) ? x.family : BS_FAMILY_NONE, x.seed, NULL, 0, 0, 0, &ylen, "empty value");
	m = merge_both(data, size, y, ylen, &ks, &mlen, "merge with an empty value");
	FZ_INV(m != NULL && same_bytes(m, mlen, canon, clen), "a merge with an empty value is not the canonical form");

	/* with a valid value of its parameters (some of its keys, new ones, up to 2C), both orders */
	{
		bs_topk_state sy;
		bs_error	err;
		uint32_t	n = 3 + (uint32_t) fz_below(r, 6);

		memset(&err, 0, sizeof(err));
		FZ_INV(bs_topk_state_init(&sy, &p, (fz_next(r) & 1) ? x.family : BS_FAMILY_NONE, x.seed,
								  &fz_releasing_allocator, &err) == BS_OK,
			   "bs_topk_state_init of an accepted value's parameters: %s", err.msg);
		if (x.cap <= 64 && (fz_next(r) & 1))
			n = x.cap + (uint32_t) fz_below(r, x.cap + 2);
		for (i = 0; i < n; i++)
		{
			uint64_t	count = 1 + fz_below(r, 5);
			const uint8_t *k;
			uint32_t	kl;

			if (x.held > 0 && fz_below(r, 3) == 0)
			{
				uint64_t	lo,
							up;

				raw2_at(&x, (uint32_t) fz_below(r, x.held), &lo, &up, &k, &kl);
			}
			else
			{
				make_new_key(family, r, serial++, key, &klen);
				k = key;
				kl = klen;
			}
			if (add_expected(&sy, kl, family, count) == BS_OK)
				FZ_INV(bs_topk_state_add(&sy, bs_hash_bytes(k, kl, x.seed), k, kl, family, count, &err) == BS_OK,
					   "add to the other value: %s", err.msg);
		}
		y = st_write(&sy, !(fz_next(r) & 3), &ylen);
		bs_topk_state_release(&sy);
		check_result_v2(y, ylen, "the other value");
		ks_add_held(&ks, y, ylen);
		(void) merge_both(data, size, y, ylen, &ks, &mlen, "merge with a value of its parameters");
	}

	/* totals: up to 2^63 - 1, and one past */
	make_new_key(family, r, serial++, key, &klen);
	y = new_value(&p, x.family, x.seed, key, klen, family, BS_CMS_MAX_COUNT - x.total, &ylen,
				  "a value of a large total");
	FZ_INV(merge_both(data, size, y, ylen, NULL, &mlen, "merge up to the largest total") != NULL,
		   "a merge up to the largest total was refused");
	if (x.total >= 1)
	{
		y = new_value(&p, x.family, x.seed, key, klen, family, BS_CMS_MAX_COUNT - x.total + 1, &ylen,
					  "a value past the total");
		FZ_INV(merge_both(data, size, y, ylen, NULL, &mlen, "merge past the largest total") == NULL,
			   "a merge past the largest total succeeded");
	}

	/* refusals: another k, capacity, width, depth, seed, family; format 1 */
	{
		bs_topk_params q = p;

		q.k = p.k % BS_TOPK_MAX_K + 1;
		if (q.capacity < 2 * q.k)
			q.capacity = 2 * q.k;
		refused(data, size, &q, x.family, x.seed, BS_ERR_SHAPE, "merge with another k");
		q = p;
		q.capacity = p.capacity < BS_TOPK_MAX_CAPACITY ? p.capacity + 1 : p.capacity - 1;
		refused(data, size, &q, x.family, x.seed, BS_ERR_SHAPE, "merge with another capacity");
		q = p;
		if (p.width > 1 && (fz_next(r) & 1))
			q.width = p.width - 1;
		else
			q.width = p.width + 1;
		refused(data, size, &q, x.family, x.seed, BS_ERR_SHAPE, "merge with another width");
		q = p;
		if (p.depth == BS_CMS_MAX_DEPTH || (p.depth > 1 && (fz_next(r) & 1)))
			q.depth = p.depth - 1;
		else
			q.depth = p.depth + 1;
		refused(data, size, &q, x.family, x.seed, BS_ERR_SHAPE, "merge with another depth");
		refused(data, size, &p, x.family, x.seed ^ (1 + fz_below(r, UINT64_MAX)), BS_ERR_SHAPE, "merge with another seed");
		if (x.family != BS_FAMILY_NONE)
			refused(data, size, &p, fz_other_family(x.family), x.seed, BS_ERR_FAMILY, "merge with another family");
		check_formats_refused();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bs_header	h;
	bs_error	err;
	fz_rng		r;

	if (bs_validate(data, size, BS_KIND_TOPK, true, &h, &err) != BS_OK)
		return 0;
	r = fz_rng_for(data, size);
	if (h.version == BS_TOPK_FORMAT_V1)
		fuzz_v1(data, size, &h, &r);
	else
	{
		FZ_CHECK(h.version == BS_TOPK_FORMAT, "bs_validate accepted a topk value of format %d", h.version);
#ifndef FZ_STRICT
		if (setjmp(fz_drop) == 0)
#endif
			fuzz_v2(data, size, &r);
	}
	fz_reset();
	return 0;
}
