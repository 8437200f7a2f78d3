/*
 * fuzz_topk.c: a topk value from outside (topk_in, topk_recv, the bytea
 * cast, or a state of a user's aggregate over topk_agg_trans), then what
 * the SQL functions do with it.
 *
 * The input is the value's bytes.  When bs_validate(deep) accepts them:
 *   - topk_info, topk_items: the view, the candidates and their key bytes
 *     (each key hashes to its candidate's hash), on the canonical form;
 *   - topk_final: bs_topk1_compact; the result is valid, canonical (compact
 *     of it is the same bytes) and sorted by estimate;
 *   - topk_add / topk_agg_trans: a candidate's own key (the update path),
 *     new keys of the value's family (a key family is taken if it had none),
 *     count 0, a key of another family and a key too long (both refused,
 *     nothing changed); the value stays valid and the key's estimate is at
 *     least its count;
 *   - topk_merge_trans: with itself, with its canonical form and with a
 *     valid value of the same shape (both orders), and the refusals of
 *     another k, shape or family; results are valid;
 *   - every value made goes through its text form and bs_validate.
 */
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

/* topk_final / the canonical copy topk_items reads: valid, canonical, sorted. */
static uint8_t *
compact_checked(const uint8_t *buf, size_t len, size_t *outlen, const char *what)
{
	uint8_t    *c = bs_topk1_compact(buf, len, &fz_allocator, outlen),
			   *cc;
	size_t		cclen;
	bs_topk1		t;
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
	bs_topk1		t;

	res = bs_topk1_add(v, &vlen, h, key, keylen, family, count, &fz_allocator, &err, &st);
	if (want != BS_OK)
	{
		FZ_CHECK(res == NULL, "%s: a refused add returned a value", what);
		fz_check_error(st, want, &err, what);
		FZ_CHECK(vlen == len && memcmp(v, buf, len) == 0, "%s: a refused add changed the value", what);
		return NULL;
	}
	if (res == NULL)
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
	bs_status	st = BS_OK;
	uint8_t    *a2 = fz_dup(a, alen),
			   *b2 = fz_dup(b, blen),
			   *m = bs_topk1_merge(a2, alen, b2, blen, &fz_allocator, outlen, &err, &st);

	FZ_CHECK(memcmp(a2, a, alen) == 0 && memcmp(b2, b, blen) == 0, "%s: a merge changed a source", what);
	if (m == NULL)
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
	bs_status	st = BS_OK;
	size_t		outlen = 0;
	uint8_t    *m = bs_topk1_merge(a, alen, b, blen, &fz_allocator, &outlen, &err, &st);

	FZ_CHECK(m == NULL, "%s: merge succeeded", what);
	fz_check_error(st, want, &err, what);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bs_header	h;
	bs_error	err;
	fz_rng		r;
	bs_topk1		t;
	uint8_t    *canon,
			   *v,
			   *c,
			   *res;
	size_t		clen,
				vlen,
				olen,
				clen2;
	uint8_t		family,
				key[BS_TOPK_MAX_KEY + 1];
	uint32_t	keylen,
				i;
	uint64_t	total;

	if (bs_validate(data, size, BS_KIND_TOPK, true, &h, &err) != BS_OK)
		return 0;
	r = fz_rng_for(data, size);

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
			return 0;
#endif
		(void) canon_len;
	}

	/* topk_final, topk_items */
	canon = compact_checked(data, size, &clen, "compact");

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
			FZ_CHECK(l1 == l2 && memcmp(m1 + BS_HEADER_SIZE, m2 + BS_HEADER_SIZE, l1 - BS_HEADER_SIZE) == 0,
					 "a merge and its reverse differ");
	}

	/* refusals: another k, another shape, another seed, another family */
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
	}

	fz_reset();
	return 0;
}
