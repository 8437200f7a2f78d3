#include "topk_v1.h"

#include <inttypes.h>
#include <stdlib.h>

#include "endian.h"
#include "hash.h"

static uint64_t
counters_bytes(uint64_t width, uint32_t depth)
{
	return width * depth * 8;
}

bs_status
bs_topk1_size(uint64_t width, uint32_t depth, uint32_t k, uint64_t heap_cap,
			 uint64_t *total, bs_error *err)
{
	bs_status	st;
	uint64_t	fixed;

	if ((st = bs_cms_check_shape(width, depth, err)) != BS_OK ||
		(st = bs_topk_check_k(k, err)) != BS_OK)
		return st;
	fixed = counters_bytes(width, depth) + (uint64_t) 2 * k * BS_TOPK_SLOT;
	st = bs_total_size(heap_cap > UINT64_MAX - fixed ? UINT64_MAX : fixed + heap_cap,
					   "topk sketch", total, err);
	if (st == BS_ERR_LIMIT)
		bs_error_hint(err, "Sketches are limited to 511 MiB so that their text form fits PostgreSQL's 1 GB limit and pg_dump can dump them. Ask for a smaller k or larger epsilon and delta.");
	return st;
}

void
bs_topk1_init(uint8_t *buf, uint64_t width, uint32_t depth, uint32_t k,
			 uint64_t heap_cap, uint8_t family, uint64_t seed)
{
	bs_sketch_init(buf, BS_KIND_TOPK, family, seed, width, depth, k,
				   counters_bytes(width, depth) + (uint64_t) 2 * k * BS_TOPK_SLOT + heap_cap);
}

void
bs_topk1_view(uint8_t *buf, size_t len, bs_topk1 *t)
{
	uint64_t	x = bs_load64(buf + BS_OFF_X);

	bs_cms_view(buf, &t->cms);
	t->k = bs_load32(buf + BS_OFF_P3);
	t->cap = 2 * t->k;
	t->ncand = (uint32_t) (x & 0xffffffffu);
	t->heap_used = (uint32_t) (x >> 32);
	t->slots = t->cms.counters + counters_bytes(t->cms.width, t->cms.depth);
	t->heap = t->slots + (uint64_t) t->cap * BS_TOPK_SLOT;
	t->heap_cap = len - (uint64_t) (t->heap - buf);
}

static void
store_counts(bs_topk1 *t)
{
	bs_store64(t->cms.buf + BS_OFF_X, (uint64_t) t->ncand | ((uint64_t) t->heap_used << 32));
}

void
bs_topk1_item_at(const bs_topk1 *t, uint32_t i, bs_topk1_item *it)
{
	const uint8_t *s = t->slots + (uint64_t) i * BS_TOPK_SLOT;

	it->hash = bs_load64(s);
	it->count = bs_load64(s + 8);
	it->key = t->heap + bs_load32(s + 16);
	it->len = bs_load32(s + 20);
}

static void
set_slot(bs_topk1 *t, uint32_t i, uint64_t hash, uint64_t count, uint32_t off,
		 uint32_t len)
{
	uint8_t    *s = t->slots + (uint64_t) i * BS_TOPK_SLOT;

	bs_store64(s, hash);
	bs_store64(s + 8, count);
	bs_store32(s + 16, off);
	bs_store32(s + 20, len);
}

/* A copy of t with its live key bytes packed and room for extra more. */
static uint8_t *
regrow(const bs_topk1 *t, uint64_t extra, const bs_allocator *a, size_t *len)
{
	uint64_t	live = 0,
				heap_cap,
				off = 0,
				fixed;
	uint32_t	i;
	uint8_t    *out;
	bs_topk1		n;

	for (i = 0; i < t->ncand; i++)
		live += bs_load32(t->slots + (uint64_t) i * BS_TOPK_SLOT + 20);
	heap_cap = 2 * (live + extra) + 64;
	fixed = (uint64_t) (t->heap - t->cms.buf);
	*len = (size_t) (fixed + heap_cap);
	out = a->alloc(a->ctx, *len);
	memcpy(out, t->cms.buf, (size_t) fixed);
	bs_topk1_view(out, *len, &n);
	for (i = 0; i < t->ncand; i++)
	{
		bs_topk1_item it;

		bs_topk1_item_at(t, i, &it);
		memcpy(n.heap + off, it.key, it.len);
		set_slot(&n, i, it.hash, it.count, (uint32_t) off, it.len);
		off += it.len;
	}
	n.heap_used = (uint32_t) off;
	store_counts(&n);
	return out;
}

bs_status
bs_topk1_add(uint8_t **bufp, size_t *len, uint64_t h, const uint8_t *key,
			uint32_t keylen, uint8_t family, uint64_t count,
			const bs_allocator *a, bs_error *err)
{
	uint8_t    *buf = *bufp;
	bs_topk1		t;
	bs_status	st;
	uint64_t	est,
				min_count = UINT64_MAX,
				min_hash = 0;
	uint32_t	i,
				target,
				min_i = 0;

	if ((st = bs_topk_check_key(keylen, family, buf[BS_OFF_FAMILY], err)) != BS_OK)
		return st;
	if (count == 0)
		return BS_OK;			/* nothing counted, nothing to track */
	bs_topk1_view(buf, *len, &t);
	if ((st = bs_cms_add_estimate(&t.cms, h, count, &est, err)) != BS_OK)
		return st;

	for (i = 0; i < t.ncand; i++)
	{
		const uint8_t *s = t.slots + (uint64_t) i * BS_TOPK_SLOT;
		uint64_t	sh = bs_load64(s),
					c = bs_load64(s + 8);

		if (sh == h)
		{
			bs_store64((uint8_t *) s + 8, est);
			return BS_OK;
		}
		/* the weakest candidate: lowest estimate, then highest hash */
		if (c < min_count || (c == min_count && sh > min_hash))
		{
			min_count = c;
			min_hash = sh;
			min_i = i;
		}
	}
	if (t.ncand < t.cap)
		target = t.ncand;
	else if (est > min_count)
		target = min_i;
	else
		return BS_OK;

	if ((uint64_t) t.heap_used + keylen > t.heap_cap)
	{
		buf = regrow(&t, keylen, a, len);
		bs_topk1_view(buf, *len, &t);
	}
	buf[BS_OFF_FAMILY] = family;
	memcpy(t.heap + t.heap_used, key, keylen);
	set_slot(&t, target, h, est, t.heap_used, keylen);
	t.heap_used += keylen;
	if (target == t.ncand)
		t.ncand++;
	store_counts(&t);
	*bufp = buf;
	return BS_OK;
}

/* Candidates being ranked: estimate first (highest), then hash (lowest). */
typedef struct ranked
{
	uint64_t	est;
	uint64_t	hash;
	const uint8_t *key;
	uint32_t	len;
	uint32_t	pos;			/* merge: dst's slots, then src's (tie break) */
} ranked;

static int
rank_cmp(const void *pa, const void *pb)
{
	const ranked *a = pa,
			   *b = pb;

	if (a->est != b->est)
		return a->est > b->est ? -1 : 1;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return 0;
}

/*
 * rank_cmp, then the position: one hash has one estimate, so its copies are
 * neighbours, and the first of them is the one met first in dst then src.
 */
static int
merge_cmp(const void *pa, const void *pb)
{
	const ranked *a = pa,
			   *b = pb;
	int			c = rank_cmp(pa, pb);

	if (c != 0)
		return c;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static ranked *
ranked_array(const bs_allocator *a, size_t n)
{
	uint8_t    *raw = a->alloc(a->ctx, n * sizeof(ranked) + 8);

	return (ranked *) (((uintptr_t) raw + 7) & ~(uintptr_t) 7);
}

/* Write a canonical value: counters from cms_src, the first min(n, cap) of r. */
static uint8_t *
write_canonical(const uint8_t *header_src, const uint8_t *counters, ranked *r,
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
				fixed = BS_HEADER_SIZE + counters_bytes(width, depth) + (uint64_t) cap * BS_TOPK_SLOT;
	uint8_t    *out;

	if (n > cap)
		n = cap;
	for (i = 0; i < n; i++)
		live += r[i].len;
	*outlen = (size_t) (fixed + live);
	out = a->alloc(a->ctx, *outlen);
	memcpy(out, header_src, BS_HEADER_SIZE);
	memcpy(out + BS_HEADER_SIZE, counters, counters_bytes(width, depth));
	bs_topk1_view(out, *outlen, &t);
	for (i = 0; i < n; i++)
	{
		memcpy(t.heap + off, r[i].key, r[i].len);
		set_slot(&t, i, r[i].hash, r[i].est, (uint32_t) off, r[i].len);
		off += r[i].len;
	}
	t.ncand = (uint32_t) n;
	t.heap_used = (uint32_t) off;
	store_counts(&t);
	return out;
}

uint8_t *
bs_topk1_compact(const uint8_t *buf, size_t len, const bs_allocator *a, size_t *outlen)
{
	bs_topk1		t;
	ranked	   *r;
	uint32_t	i;
	size_t		n;

	bs_topk1_view((uint8_t *) buf, len, &t);
	r = ranked_array(a, t.ncand + 1);
	for (i = 0; i < t.ncand; i++)
	{
		bs_topk1_item it;

		bs_topk1_item_at(&t, i, &it);
		r[i].hash = it.hash;
		r[i].est = bs_cms_frequency(&t.cms, it.hash);
		r[i].key = it.key;
		r[i].len = it.len;
	}
	qsort(r, t.ncand, sizeof(ranked), rank_cmp);
	n = 0;
	for (i = 0; i < t.ncand; i++)
		if (n == 0 || r[n - 1].hash != r[i].hash)
			r[n++] = r[i];
	return write_canonical(buf, t.cms.counters, r, n, a, outlen);
}

bs_status
bs_topk1_merge(const uint8_t *dst, size_t dlen, const uint8_t *src, size_t slen,
			  const bs_allocator *a, uint8_t **out, size_t *outlen, bs_error *err)
{
	bs_topk1		d,
				s;
	bs_cms		sum;
	bs_status	st;
	uint8_t    *tmp;
	ranked	   *r;
	size_t		n = 0,
				total,
				i;
	uint64_t	cbytes;

	bs_topk1_view((uint8_t *) dst, dlen, &d);
	bs_topk1_view((uint8_t *) src, slen, &s);
	if (d.k != s.k)
		return bs_fail(err, BS_ERR_SHAPE,
					   "cannot merge topk sketches that track different numbers of items: k = %u and k = %u",
					   d.k, s.k);
	if (d.cms.width != s.cms.width || d.cms.depth != s.cms.depth || d.cms.seed != s.cms.seed)
	{
		st = bs_fail(err, BS_ERR_SHAPE,
					 "cannot merge topk sketches of different shapes: width %" PRIu64 " and depth %u (seed %" PRIu64 ") and width %" PRIu64 " and depth %u (seed %" PRIu64 ")",
					 d.cms.width, d.cms.depth, d.cms.seed, s.cms.width, s.cms.depth, s.cms.seed);
		bs_error_hint(err, "Merge sketches built with the same epsilon and delta.");
		return st;
	}
	/* The counters: dst's plus src's, checked as count-min sketches. */
	cbytes = counters_bytes(d.cms.width, d.cms.depth);
	tmp = a->alloc(a->ctx, (size_t) (BS_HEADER_SIZE + cbytes));
	memcpy(tmp, dst, (size_t) (BS_HEADER_SIZE + cbytes));
	bs_cms_view(tmp, &sum);
	if ((st = bs_cms_merge(&sum, &s.cms, err)) != BS_OK)
		return st;

	/*
	 * The candidates of both, once each, ranked by the merged estimates: sort
	 * all of them (O(n log n), not a scan per candidate), then keep the first
	 * of each run of one hash.  By merge_cmp that first is the copy met first
	 * in dst's slots then src's, as the old first-seen scan kept it (same key
	 * bytes).  Validated values have ncand <= 2k, so total <= 4 * BS_TOPK_MAX_K
	 * and neither total, pos nor the array's size can overflow.
	 */
	total = (size_t) d.ncand + s.ncand;
	r = ranked_array(a, total + 1);
	for (i = 0; i < total; i++)
	{
		bs_topk1_item it;

		bs_topk1_item_at(i < d.ncand ? &d : &s, (uint32_t) (i < d.ncand ? i : i - d.ncand), &it);
		r[i].hash = it.hash;
		r[i].est = bs_cms_frequency(&sum, it.hash);
		r[i].key = it.key;
		r[i].len = it.len;
		r[i].pos = (uint32_t) i;
	}
	qsort(r, total, sizeof(ranked), merge_cmp);
	for (i = 0; i < total; i++)
		if (n == 0 || r[n - 1].hash != r[i].hash)
			r[n++] = r[i];
	*out = write_canonical(tmp, sum.counters, r, n, a, outlen);
	return BS_OK;
}

static void
sift(uint64_t *v, size_t root, size_t n)
{
	for (;;)
	{
		size_t		c = 2 * root + 1;
		uint64_t	t;

		if (c >= n)
			return;
		if (c + 1 < n && v[c + 1] > v[c])
			c++;
		if (v[root] >= v[c])
			return;
		t = v[root];
		v[root] = v[c];
		v[c] = t;
		root = c;
	}
}

/* Sort v[0..n): insertion sort for the few hashes of a bucket, else heapsort. */
static void
sort_hashes(uint64_t *v, size_t n)
{
	size_t		i;

	if (n <= 8)
	{
		for (i = 1; i < n; i++)
		{
			uint64_t	t = v[i];
			size_t		j = i;

			for (; j > 0 && v[j - 1] > t; j--)
				v[j] = v[j - 1];
			v[j] = t;
		}
		return;
	}
	for (i = n / 2; i-- > 0;)
		sift(v, i, n);
	for (i = n; i-- > 1;)
	{
		uint64_t	t = v[0];

		v[0] = v[i];
		v[i] = t;
		sift(v, 0, i);
	}
}

/*
 * has_duplicate_hash works in blocks of up to DUP_BLOCK hashes on the stack
 * (16 kB and a 4 kB index): the 2k candidates of a k up to 1024 in one
 * block, the 20,000 of the largest k in 10.  A block is sorted by bucket
 * (the top bits of a hash, about one hash a bucket), then within each
 * bucket; first[] indexes the buckets, so that looking a hash up reads the
 * one or two hashes of its bucket.
 */
#define DUP_BITS 11
#define DUP_BLOCK (1 << DUP_BITS)

/*
 * Does any hash repeat among the candidates?  The core keeps no state
 * between calls and cannot allocate here, so it works block by block in a
 * bounded buffer: sort a block, look for a repeat inside it, then look up
 * every later candidate in it.
 */
static bool
has_duplicate_hash(const uint8_t *slots, uint32_t n)
{
	uint64_t	v[DUP_BLOCK];
	uint16_t	first[DUP_BLOCK + 1];	/* bucket b is v[first[b]..first[b + 1]) */
	size_t		start,
				len,
				nb,
				i,
				b;
	int			bits;

	for (start = 0; start < n; start += len)
	{
		len = n - start < DUP_BLOCK ? n - start : DUP_BLOCK;
		for (bits = 1; ((size_t) 1 << bits) < len; bits++)
			;
		nb = (size_t) 1 << bits;

		/* counting sort by bucket: sizes, starts, then each hash placed */
		memset(first, 0, (nb + 1) * sizeof(first[0]));
		for (i = start; i < start + len; i++)
			first[(bs_load64(slots + i * BS_TOPK_SLOT) >> (64 - bits)) + 1]++;
		for (b = 1; b <= nb; b++)
			first[b] += first[b - 1];
		for (i = start; i < start + len; i++)
		{
			uint64_t	h = bs_load64(slots + i * BS_TOPK_SLOT);

			v[first[h >> (64 - bits)]++] = h;
		}
		/* each first[b] moved to its bucket's end, which is where b + 1 starts */
		memmove(first + 1, first, nb * sizeof(first[0]));
		first[0] = 0;
		for (b = 0; b < nb; b++)
			sort_hashes(v + first[b], first[b + 1] - first[b]);
		for (i = 1; i < len; i++)
			if (v[i] == v[i - 1])
				return true;
		for (i = start + len; i < n; i++)
		{
			uint64_t	h = bs_load64(slots + i * BS_TOPK_SLOT);
			size_t		lo = first[h >> (64 - bits)],
						hi = first[(h >> (64 - bits)) + 1];

			/* halve a crowded bucket (hashes chosen to share their top bits) */
			while (hi - lo > 4)
			{
				size_t		mid = lo + (hi - lo) / 2;

				if (v[mid] <= h)
					lo = mid;
				else
					hi = mid;
			}
			for (; lo < hi; lo++)
				if (v[lo] == h)
					return true;
		}
	}
	return false;
}

bs_status
bs_topk1_check(const bs_header *h, const uint8_t *payload, uint64_t plen,
			  bool deep, bs_error *err)
{
	uint64_t	cbytes,
				fixed,
				heap_cap,
				key_total = 0;
	uint32_t	cap,
				ncand = (uint32_t) (h->x & 0xffffffffu),
				heap_used = (uint32_t) (h->x >> 32),
				i;
	const uint8_t *slots,
			   *heap;

	if (bs_topk_check_header(h, err) != BS_OK)
		return BS_ERR_FORMAT;
	cap = 2 * h->p3;
	cbytes = counters_bytes(h->p1, h->p2);
	fixed = cbytes + (uint64_t) cap * BS_TOPK_SLOT;
	if (plen < fixed)
		return bs_fail(err, BS_ERR_FORMAT,
					   "topk value of width %" PRIu64 ", depth %u and k %u needs at least %" PRIu64 " payload bytes, has %" PRIu64,
					   h->p1, h->p2, h->p3, fixed, plen);
	heap_cap = plen - fixed;
	if (ncand > cap || heap_used > heap_cap)
		return bs_fail(err, BS_ERR_FORMAT,
					   "topk value claims %u candidates and %u key bytes in room for %u and %" PRIu64,
					   ncand, heap_used, cap, heap_cap);
	if (ncand > 0 && h->family == BS_FAMILY_NONE)
		return bs_fail(err, BS_ERR_FORMAT,
					   "topk value holds candidates but no key family");
	slots = payload + cbytes;
	heap = slots + (uint64_t) cap * BS_TOPK_SLOT;
	for (i = 0; i < ncand; i++)
	{
		const uint8_t *s = slots + (uint64_t) i * BS_TOPK_SLOT;
		uint32_t	off = bs_load32(s + 16),
					len = bs_load32(s + 20);

		if (off > heap_used || len > heap_used - off || len > BS_TOPK_MAX_KEY)
			return bs_fail(err, BS_ERR_FORMAT,
						   "topk value's candidate %u lies outside its key bytes", i);
		/* keys may not share bytes: copies of them (compaction, merges) stay within the value's size */
		key_total += len;
		if (key_total > heap_used)
			return bs_fail(err, BS_ERR_FORMAT,
						   "topk value's candidates hold more key bytes than its %u bytes of keys",
						   heap_used);
		if (!bs_family_key_length_fits(h->family, len))
			return bs_fail(err, BS_ERR_FORMAT,
						   "topk value's candidate %u has %u key bytes, wrong for %s keys",
						   i, len, bs_family_name(h->family));
		if (bs_load64(s + 8) > h->n)
			return bs_fail(err, BS_ERR_FORMAT,
						   "topk value's candidate %u counts more than the total", i);
		if (deep && bs_hash_bytes(heap + off, len, h->seed) != bs_load64(s))
			return bs_fail(err, BS_ERR_FORMAT,
						   "topk value's candidate %u does not match its hash", i);
	}
	if (deep)
	{

		if (has_duplicate_hash(slots, ncand))
			return bs_fail(err, BS_ERR_FORMAT, "topk value holds a candidate twice");

		for (i = ncand; i < cap; i++)
		{
			const uint8_t *s = slots + (uint64_t) i * BS_TOPK_SLOT;

			if (bs_load64(s) || bs_load64(s + 8) || bs_load64(s + 16))
				return bs_fail(err, BS_ERR_FORMAT, "topk value has data in unused candidate slot %u", i);
		}
		return bs_cms_check_rows(payload, h->p1, h->p2, h->n, "topk", err);
	}
	return BS_OK;
}
