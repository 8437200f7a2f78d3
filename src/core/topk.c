#include "topk.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "endian.h"
#include "hash.h"
#include "topk_v1.h"

#define INITIAL_ITEMS 64
#define INITIAL_KEY_BYTES 256

bs_status
bs_topk_check_k(int64_t k, bs_error *err)
{
	if (k < 1 || k > BS_TOPK_MAX_K)
		return bs_fail(err, BS_ERR_PARAM,
					   "k must be between 1 and %d, got %" PRId64, BS_TOPK_MAX_K, k);
	return BS_OK;
}

bs_status
bs_topk_params_for(int64_t k, double epsilon, double delta, bs_topk_params *p,
				   bs_error *err)
{
	bs_status	st;
	double		c;

	if ((st = bs_topk_check_k(k, err)) != BS_OK ||
		(st = bs_cms_dims(epsilon, delta, &p->width, &p->depth, err)) != BS_OK)
		return st;
	c = ceil(1.0 / epsilon);
	if (c > BS_TOPK_MAX_CAPACITY)
	{
		bs_fail(err, BS_ERR_LIMIT,
				"epsilon %s would track %.15g values, more than the %d a topk sketch may track",
				bs_num(epsilon).s, c, BS_TOPK_MAX_CAPACITY);
		bs_error_hint(err, "Ask for an epsilon of at least 0.000001.");
		return BS_ERR_LIMIT;
	}
	p->k = (uint32_t) k;
	p->capacity = (uint32_t) c > 2 * p->k ? (uint32_t) c : 2 * p->k;
	return BS_OK;
}

/* ---- ranking ---- */

/* The better value first: larger lower count, then larger upper bound, then smaller hash. */
static inline bool
better(const bs_topk_entry *a, const bs_topk_entry *b)
{
	if (a->lower != b->lower)
		return a->lower > b->lower;
	if (a->upper != b->upper)
		return a->upper > b->upper;
	return a->hash < b->hash;
}

static int
rank_cmp(const void *pa, const void *pb)
{
	const bs_topk_entry *a = pa,
			   *b = pb;

	return better(a, b) ? -1 : better(b, a) ? 1 : 0;
}

static int
hash_cmp(const void *pa, const void *pb)
{
	const bs_topk_entry *a = pa,
			   *b = pb;

	return a->hash < b->hash ? -1 : a->hash > b->hash;
}

static inline void
swap_entries(bs_topk_entry *a, bs_topk_entry *b)
{
	bs_topk_entry t = *a;

	*a = *b;
	*b = t;
}

/*
 * Reorder v[0..n) so that v[0..limit) are the best limit entries (in no
 * order): quickselect, O(n) on average, its pivot the median of three
 * entries at pseudo-random places (a previous partition leaves runs in
 * order, on which fixed places pick the second best again and again), and a
 * sort of what is left once the range is small or, should the partitions
 * stop shrinking, past 4 log2 n rounds, so the worst case stays O(n log n).
 * Which entries are kept does not depend on the pivots: the order is total.
 */
static void
select_best(bs_topk_entry *v, uint32_t n, uint32_t limit)
{
	uint32_t	lo = 0,
				hi = n,
				rounds = 8;
	uint64_t	r = n;

	if (limit >= n)
		return;
	for (uint32_t m = n; m > 1; m >>= 1)
		rounds += 4;
	while (hi - lo > 1)
	{
		uint32_t	mid = lo + (hi - lo) / 2,
					i,
					store;

		if (hi - lo <= 32 || rounds-- == 0)
		{
			qsort(v + lo, hi - lo, sizeof(bs_topk_entry), rank_cmp);
			return;
		}
		swap_entries(&v[lo], &v[lo + bs_splitmix(r, 0) % (hi - lo)]);
		swap_entries(&v[mid], &v[lo + bs_splitmix(r, 1) % (hi - lo)]);
		swap_entries(&v[hi - 1], &v[lo + bs_splitmix(r, 2) % (hi - lo)]);
		r += 3;
		/* median of three to v[hi - 1], the pivot */
		if (better(&v[mid], &v[lo]))
			swap_entries(&v[mid], &v[lo]);
		if (better(&v[hi - 1], &v[lo]))
			swap_entries(&v[hi - 1], &v[lo]);
		if (better(&v[mid], &v[hi - 1]))
			swap_entries(&v[mid], &v[hi - 1]);
		store = lo;
		for (i = lo; i < hi - 1; i++)
			if (better(&v[i], &v[hi - 1]))
				swap_entries(&v[i], &v[store++]);
		swap_entries(&v[store], &v[hi - 1]);
		/* v[lo..store) better than the pivot at store, v(store..hi) not */
		if (store == limit || store + 1 == limit)
			return;
		if (store > limit)
			hi = store;
		else
			lo = store + 1;
	}
}

/* ---- memory ---- */

/* len bytes from the allocator at an 8-byte boundary; *raw is what to release. */
static void *
alloc_aligned(const bs_allocator *a, size_t len, uint8_t **raw)
{
	*raw = a->alloc(a->ctx, len + 8);
	return (void *) (((uintptr_t) *raw + 7) & ~(uintptr_t) 7);
}

static void
release(const bs_allocator *a, uint8_t *raw)
{
	if (raw != NULL && a->release != NULL)
		a->release(a->ctx, raw);
}

/*
 * The raw pointers of the aligned arrays sit right before them: alloc_aligned
 * moved each by less than 8 bytes from its raw block, whose address we keep
 * in the word before the array.
 */
static void *
array_new(const bs_allocator *a, size_t len)
{
	uint8_t    *raw;
	uint8_t    *p = (uint8_t *) alloc_aligned(a, len + 8, &raw) + 8;

	memcpy(p - 8, &raw, sizeof(raw));
	return p;
}

static void
array_free(const bs_allocator *a, void *p)
{
	uint8_t    *raw;

	if (p == NULL)
		return;
	memcpy(&raw, (uint8_t *) p - 8, sizeof(raw));
	release(a, raw);
}

static void
rebuild_index(bs_topk_state *st)
{
	uint32_t	i;

	memset(st->index, 0, ((size_t) st->index_mask + 1) * sizeof(uint32_t));
	for (i = 0; i < st->n; i++)
	{
		uint32_t	pos = (uint32_t) st->items[i].hash & st->index_mask;

		while (st->index[pos] != 0)
			pos = (pos + 1) & st->index_mask;
		st->index[pos] = i + 1;
	}
}

/* Room for cap items (2C when adding, up to 4C while merging), the index at most half full. */
static void
reserve_items(bs_topk_state *st, uint32_t cap)
{
	bs_topk_entry *items;
	uint32_t	slots = 16;

	if (cap <= st->items_cap)
		return;
	while (slots < 2 * (uint64_t) cap)
		slots *= 2;
	items = array_new(&st->alloc, (size_t) cap * sizeof(bs_topk_entry));
	if (st->n > 0)
		memcpy(items, st->items, (size_t) st->n * sizeof(bs_topk_entry));
	array_free(&st->alloc, st->items);
	st->items = items;
	st->items_cap = cap;
	array_free(&st->alloc, st->index);
	st->index = array_new(&st->alloc, (size_t) slots * sizeof(uint32_t));
	st->index_mask = slots - 1;
	rebuild_index(st);
}

/* Room for extra more key bytes: doubled, or packed to the held values' keys. */
static void
reserve_keys(bs_topk_state *st, uint64_t extra, bool pack)
{
	uint64_t	live = 0,
				cap,
				off = 0;
	uint8_t    *keys;
	uint32_t	i;

	if (!pack && st->keys_used + extra <= st->keys_cap)
		return;
	for (i = 0; i < st->n; i++)
		live += st->items[i].key_len;
	cap = 2 * (live + extra);
	if (cap < INITIAL_KEY_BYTES)
		cap = INITIAL_KEY_BYTES;
	keys = st->alloc.alloc(st->alloc.ctx, (size_t) cap);
	for (i = 0; i < st->n; i++)
	{
		memcpy(keys + off, st->keys + st->items[i].key_off, st->items[i].key_len);
		st->items[i].key_off = (uint32_t) off;
		off += st->items[i].key_len;
	}
	release(&st->alloc, st->keys);
	st->keys = keys;
	st->keys_used = off;
	st->keys_cap = cap;
}

/* Keep the best limit values; floor rises to the largest upper bound dropped. */
static void
keep_best(bs_topk_state *st, uint32_t limit)
{
	uint32_t	i;

	if (st->n <= limit)
		return;
	select_best(st->items, st->n, limit);
	for (i = limit; i < st->n; i++)
		if (st->items[i].upper > st->floor)
			st->floor = st->items[i].upper;
	st->n = limit;
	reserve_keys(st, 0, true);
	rebuild_index(st);
}

/*
 * The index position of the value (h, key): *found 1 if it is held there,
 * -1 if another value with hash h is (a 64-bit collision), 0 if neither
 * (the position is then an empty slot, where it would go).
 */
static uint32_t
find(const bs_topk_state *st, uint64_t h, const uint8_t *key, uint32_t len, int *found)
{
	uint32_t	pos = (uint32_t) h & st->index_mask;

	for (;;)
	{
		uint32_t	v = st->index[pos];
		const bs_topk_entry *e;

		if (v == 0)
		{
			*found = 0;
			return pos;
		}
		e = &st->items[v - 1];
		if (e->hash == h)
		{
			*found = e->key_len == len && memcmp(st->keys + e->key_off, key, len) == 0 ? 1 : -1;
			return pos;
		}
		pos = (pos + 1) & st->index_mask;
	}
}

/* Hold a new value at index position pos (room reserved). */
static void
insert(bs_topk_state *st, uint32_t pos, uint64_t h, const uint8_t *key, uint32_t len,
	   uint64_t lower, uint64_t upper)
{
	bs_topk_entry *e = &st->items[st->n];

	e->hash = h;
	e->lower = lower;
	e->upper = upper;
	e->key_off = (uint32_t) st->keys_used;
	e->key_len = len;
	memcpy(st->keys + st->keys_used, key, len);
	st->keys_used += len;
	st->index[pos] = ++st->n;
}

/* ---- building ---- */

static uint64_t
counters_bytes(uint64_t width, uint32_t depth)
{
	return width * depth * 8;
}

/* Bytes of a format-2 value of these parameters with n values of keys key bytes. */
static uint64_t
value_size(const bs_topk_params *p, uint64_t n, uint64_t keys)
{
	return BS_HEADER_SIZE + counters_bytes(p->width, p->depth) + 8 + n * BS_TOPK_RECORD + keys;
}

static void
init_arrays(bs_topk_state *st, const bs_topk_params *p, const bs_allocator *a)
{
	memset(st, 0, sizeof(*st));
	st->params = *p;
	st->alloc = *a;
	reserve_items(st, p->capacity < INITIAL_ITEMS / 2 ? 2 * p->capacity : INITIAL_ITEMS);
	st->keys = a->alloc(a->ctx, INITIAL_KEY_BYTES);
	st->keys_cap = INITIAL_KEY_BYTES;
}

bs_status
bs_topk_state_init(bs_topk_state *st, const bs_topk_params *p, uint8_t family,
				   uint64_t seed, const bs_allocator *a, bs_error *err)
{
	bs_status	s;
	uint64_t	total;

	if ((s = bs_cms_size(p->width, p->depth, &total, err)) != BS_OK)
		return s;
	if (value_size(p, 0, 0) > BS_MAX_SKETCH_BYTES)
		return bs_total_size(value_size(p, 0, 0), "topk sketch", &total, err);
	init_arrays(st, p, a);
	st->cmsbuf = a->alloc(a->ctx, (size_t) total);
	bs_cms_init(st->cmsbuf, p->width, p->depth, family, seed);
	bs_cms_view(st->cmsbuf, &st->cms);
	return BS_OK;
}

void
bs_topk_state_release(bs_topk_state *st)
{
	array_free(&st->alloc, st->items);
	array_free(&st->alloc, st->index);
	release(&st->alloc, st->keys);
	release(&st->alloc, st->cmsbuf);
	memset(st, 0, sizeof(*st));
}

static void
set_family(bs_topk_state *st, uint8_t family)
{
	st->cms.family = bs_family_join(st->cms.family, family);
	st->cmsbuf[BS_OFF_FAMILY] = st->cms.family;
}

bs_status
bs_topk_check_key(uint32_t len, uint8_t family, uint8_t sketch_family, bs_error *err)
{
	if (len > BS_TOPK_MAX_KEY)
		return bs_fail(err, BS_ERR_LIMIT,
					   "a topk value of %u bytes is longer than the %d bytes a tracked value may have",
					   len, BS_TOPK_MAX_KEY);
	if (family == BS_FAMILY_NONE || family > BS_FAMILY_MAX || !bs_family_key_length_fits(family, len))
		return bs_fail(err, BS_ERR_PARAM,
					   "a topk key of %u bytes is not a canonical %s key", len,
					   bs_family_name(family));
	if (!bs_family_compatible(sketch_family, family))
		return bs_fail(err, BS_ERR_FAMILY,
					   "cannot add a %s key to a topk sketch of %s keys",
					   bs_family_name(family), bs_family_name(sketch_family));
	return BS_OK;
}

bs_status
bs_topk_state_add(bs_topk_state *st, uint64_t h, const uint8_t *key, uint32_t len,
				  uint8_t family, uint64_t count, bs_error *err)
{
	uint64_t	est,
				upper;
	uint32_t	pos;
	int			found;
	bs_status	s;

	if ((s = bs_topk_check_key(len, family, st->cms.family, err)) != BS_OK)
		return s;
	if (count == 0)
		return BS_OK;			/* nothing counted, nothing to hold */
	pos = find(st, h, key, len, &found);
	if (found == 0 &&
		value_size(&st->params, (uint64_t) st->n + 1, st->keys_used + len) > BS_MAX_SKETCH_BYTES)
	{
		bs_fail(err, BS_ERR_LIMIT,
				"a topk sketch holding %u more values of %" PRIu64 " key bytes would pass the size limit",
				st->n + 1, st->keys_used + len);
		bs_error_hint(err, BS_LIMIT_TEXT " Ask for a larger epsilon.");
		return BS_ERR_LIMIT;
	}
	if ((s = bs_cms_add_estimate(&st->cms, h, count, &est, err)) != BS_OK)
		return s;
	set_family(st, family);
	if (found == 1)
	{
		bs_topk_entry *e = &st->items[st->index[pos] - 1];

		e->lower += count;
		e->upper = e->upper + count < est ? e->upper + count : est;
		return BS_OK;
	}
	/* not held so far, so it occurred at most floor times before this row */
	upper = st->floor + count < est ? st->floor + count : est;
	if (found < 0)
	{
		/* another value holds its hash: count it as dropped at once */
		if (upper > st->floor)
			st->floor = upper;
		return BS_OK;
	}
	if (st->n == st->items_cap || st->n == 2 * st->params.capacity)
	{
		if (st->n == 2 * st->params.capacity)
			keep_best(st, st->params.capacity);
		else
			reserve_items(st, st->items_cap < st->params.capacity
						  ? st->items_cap * 2 : 2 * st->params.capacity);
		pos = find(st, h, key, len, &found);
	}
	reserve_keys(st, len, false);
	insert(st, pos, h, key, len, count, upper);
	return BS_OK;
}

/* ---- reading format 2 ---- */

typedef struct view2
{
	bs_cms		cms;
	bs_topk_params params;
	uint32_t	held;
	uint64_t	floor;
	const uint8_t *records;
	const uint8_t *keys;
} view2;

static void
view_v2(const uint8_t *buf, view2 *v)
{
	uint64_t	x = bs_load64(buf + BS_OFF_X);

	bs_cms_view((uint8_t *) buf, &v->cms);
	v->params.width = v->cms.width;
	v->params.depth = v->cms.depth;
	v->params.k = bs_load32(buf + BS_OFF_P3);
	v->params.capacity = (uint32_t) (x & 0xffffffffu);
	v->held = (uint32_t) (x >> 32);
	v->floor = bs_load64(v->cms.counters + counters_bytes(v->cms.width, v->cms.depth));
	v->records = v->cms.counters + counters_bytes(v->cms.width, v->cms.depth) + 8;
	v->keys = v->records + (uint64_t) v->held * BS_TOPK_RECORD;
}

/* The key bytes of a format-2 value: where its last record ends its key. */
static uint64_t
view_key_bytes(const view2 *v)
{
	return v->held == 0 ? 0 : bs_load32(v->records + (uint64_t) (v->held - 1) * BS_TOPK_RECORD + 16);
}

/* Record i of a format-2 value: its counts and key. */
static inline void
record_at(const view2 *v, uint32_t i, bs_topk_entry *e, const uint8_t **key)
{
	const uint8_t *r = v->records + (uint64_t) i * BS_TOPK_RECORD;
	uint32_t	start = i == 0 ? 0 : bs_load32(r - BS_TOPK_RECORD + 16);

	e->lower = bs_load64(r);
	e->upper = bs_load64(r + 8);
	e->key_off = start;
	e->key_len = bs_load32(r + 16) - start;
	*key = v->keys + start;
	e->hash = bs_hash_bytes(*key, e->key_len, v->cms.seed);
}

/* Record i of v, and where st holds (or would hold) its value (find). */
static uint32_t
find_record(const bs_topk_state *st, const view2 *v, uint32_t i, bs_topk_entry *e,
			const uint8_t **key, int *found)
{
	record_at(v, i, e, key);
	return find(st, e->hash, *key, e->key_len, found);
}

void
bs_topk_state_load(bs_topk_state *st, const uint8_t *buf, size_t len,
				   const bs_allocator *a)
{
	view2		v;
	uint32_t	i;
	uint64_t	keys;

	(void) len;
	view_v2(buf, &v);
	init_arrays(st, &v.params, a);
	st->cmsbuf = a->alloc(a->ctx, (size_t) (BS_HEADER_SIZE + counters_bytes(v.cms.width, v.cms.depth)));
	bs_cms_init(st->cmsbuf, v.cms.width, v.cms.depth, v.cms.family, v.cms.seed);
	memcpy(st->cmsbuf + BS_HEADER_SIZE, v.cms.counters, counters_bytes(v.cms.width, v.cms.depth));
	bs_store64(st->cmsbuf + BS_OFF_N, v.cms.total);
	bs_cms_view(st->cmsbuf, &st->cms);
	st->floor = v.floor;
	keys = view_key_bytes(&v);
	reserve_items(st, v.held > st->items_cap ? v.held : st->items_cap);
	reserve_keys(st, keys, false);
	for (i = 0; i < v.held; i++)
	{
		bs_topk_entry e;
		const uint8_t *key;
		int			found;
		uint32_t	pos = find_record(st, &v, i, &e, &key, &found);

		if (found != 0)
		{
			/*
			 * A hash held twice: only a damaged stored value, which passed
			 * the quick check, has one.  Count the second as dropped, as a
			 * collision is counted, so what is written stays valid.
			 */
			if (e.upper > st->floor)
				st->floor = e.upper;
			continue;
		}
		insert(st, pos, e.hash, key, e.key_len, e.lower, e.upper);
	}
}

/* ---- merging ---- */

static bs_status
check_mergeable(const bs_topk_params *a, uint64_t seed_a, const bs_topk_params *b,
				uint64_t seed_b, bs_error *err)
{
	if (a->k != b->k)
		return bs_fail(err, BS_ERR_SHAPE,
					   "cannot merge topk sketches that track different numbers of items: k = %u and k = %u",
					   a->k, b->k);
	if (a->width != b->width || a->depth != b->depth || seed_a != seed_b)
	{
		bs_fail(err, BS_ERR_SHAPE,
				"cannot merge topk sketches of different shapes: width %" PRIu64 " and depth %u (seed %" PRIu64 ") and width %" PRIu64 " and depth %u (seed %" PRIu64 ")",
				a->width, a->depth, seed_a, b->width, b->depth, seed_b);
		bs_error_hint(err, "Merge sketches built with the same epsilon and delta.");
		return BS_ERR_SHAPE;
	}
	if (a->capacity != b->capacity)
	{
		bs_fail(err, BS_ERR_SHAPE,
				"cannot merge topk sketches of different capacities: %u and %u values",
				a->capacity, b->capacity);
		bs_error_hint(err, "Merge sketches built with the same k and epsilon.");
		return BS_ERR_SHAPE;
	}
	return BS_OK;
}

static inline uint64_t
min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

bs_status
bs_topk_state_merge(bs_topk_state *st, const uint8_t *src, size_t srclen,
					bs_error *err)
{
	view2		v;
	uint8_t    *seen;
	uint32_t	i,
				n0 = st->n;
	uint64_t	src_keys,
				floor_src,
				extra_floor = 0;
	bs_status	s;

	(void) srclen;
	view_v2(src, &v);
	if ((s = check_mergeable(&st->params, st->cms.seed, &v.params, v.cms.seed, err)) != BS_OK)
		return s;
	if (!bs_family_compatible(st->cms.family, v.cms.family))
		return bs_fail(err, BS_ERR_FAMILY,
					   "cannot merge a topk sketch of %s keys with one of %s keys",
					   bs_family_name(st->cms.family), bs_family_name(v.cms.family));
	if (v.cms.total > BS_CMS_MAX_COUNT - st->cms.total)
		return bs_fail(err, BS_ERR_LIMIT,
					   "count-min sketch total would pass %" PRIu64 " (%" PRIu64 " + %" PRIu64 ")",
					   BS_CMS_MAX_COUNT, st->cms.total, v.cms.total);

	src_keys = view_key_bytes(&v);
	if (value_size(&st->params, (uint64_t) n0 + v.held, st->keys_used + src_keys) > BS_MAX_SKETCH_BYTES)
	{
		bs_fail(err, BS_ERR_LIMIT,
				"a merge of topk sketches holding %u and %u values of %" PRIu64 " key bytes would pass the size limit",
				n0, v.held, st->keys_used + src_keys);
		bs_error_hint(err, BS_LIMIT_TEXT " Ask for a larger epsilon.");
		return BS_ERR_LIMIT;
	}

	/* From here on nothing fails: make room for every value of both first. */
	reserve_items(st, n0 + v.held);
	reserve_keys(st, src_keys, false);
	seen = st->alloc.alloc(st->alloc.ctx, (size_t) n0 + 1);

	/*
	 * A value held by one side only occurred on the other side at most as
	 * often as that side's floor and its Count-Min estimate there allow.
	 */
	for (i = 0; i < v.held; i++)
	{
		bs_topk_entry e;
		const uint8_t *key;
		int			found;
		uint32_t	pos = find_record(st, &v, i, &e, &key, &found);

		if (found == 1)
		{
			uint32_t	at = st->index[pos] - 1;
			bs_topk_entry *d = &st->items[at];

			if (at < n0)
				seen[at] = 1;	/* (a damaged src may name a value twice) */
			d->lower += e.lower;
			d->upper += e.upper;
			continue;
		}
		e.upper += min64(st->floor, bs_cms_frequency(&st->cms, e.hash));
		if (found < 0)
		{
			/* another value holds its hash here: count it as dropped */
			if (e.upper > extra_floor)
				extra_floor = e.upper;
			continue;
		}
		insert(st, pos, e.hash, key, e.key_len, e.lower, e.upper);
	}
	for (i = 0; i < n0; i++)
		if (!seen[i])
			st->items[i].upper += min64(v.floor, bs_cms_frequency(&v.cms, st->items[i].hash));
	release(&st->alloc, seen);

	floor_src = v.floor;
	if (bs_cms_merge(&st->cms, &v.cms, NULL) != BS_OK)
		return BS_ERR_LIMIT;	/* checked above: cannot happen */
	set_family(st, v.cms.family);
	st->floor += floor_src;
	if (extra_floor > st->floor)
		st->floor = extra_floor;
	for (i = 0; i < st->n; i++)
		st->items[i].upper = min64(st->items[i].upper, bs_cms_frequency(&st->cms, st->items[i].hash));
	keep_best(st, st->params.capacity);
	return BS_OK;
}

/* ---- writing format 2 ---- */

size_t
bs_topk_state_size(const bs_topk_state *st)
{
	return (size_t) value_size(&st->params, st->n, st->keys_used);
}

/*
 * The state as a format-2 value, into out when given (of exactly
 * bs_topk_state_size(st) bytes; not canonical), else into a new buffer from
 * a.  The sorting buffer comes from scratch, which takes it back.
 */
static uint8_t *
write_value(const bs_topk_state *st, bool canonical, const bs_allocator *scratch,
			const bs_allocator *a, uint8_t *out, size_t *outlen)
{
	bs_topk_entry *v;
	uint8_t    *raw,
			   *rec,
			   *keys;
	uint32_t	i,
				m = st->n;
	uint64_t	floor = st->floor,
				key_bytes = 0,
				cbytes = counters_bytes(st->params.width, st->params.depth);
	bs_header	h;

	v = alloc_aligned(scratch, (size_t) st->n * sizeof(bs_topk_entry) + 1, &raw);
	memcpy(v, st->items, (size_t) st->n * sizeof(bs_topk_entry));
	if (canonical && m > st->params.capacity)
	{
		m = st->params.capacity;
		select_best(v, st->n, m);
		for (i = m; i < st->n; i++)
			if (v[i].upper > floor)
				floor = v[i].upper;
	}
	qsort(v, m, sizeof(bs_topk_entry), hash_cmp);
	for (i = 0; i < m; i++)
		key_bytes += v[i].key_len;

	*outlen = (size_t) value_size(&st->params, m, key_bytes);
	if (out == NULL)
		out = a->alloc(a->ctx, *outlen);
	bs_header_init(&h, BS_KIND_TOPK, st->cms.family, st->cms.seed);
	h.version = BS_TOPK_FORMAT;
	h.p1 = st->params.width;
	h.p2 = st->params.depth;
	h.p3 = st->params.k;
	h.n = st->cms.total;
	h.x = (uint64_t) st->params.capacity | (uint64_t) m << 32;
	bs_header_write(out, &h);
	memcpy(out + BS_HEADER_SIZE, st->cms.counters, (size_t) cbytes);
	bs_store64(out + BS_HEADER_SIZE + cbytes, floor);
	rec = out + BS_HEADER_SIZE + cbytes + 8;
	keys = rec + (uint64_t) m * BS_TOPK_RECORD;
	key_bytes = 0;
	for (i = 0; i < m; i++, rec += BS_TOPK_RECORD)
	{
		memcpy(keys + key_bytes, st->keys + v[i].key_off, v[i].key_len);
		key_bytes += v[i].key_len;
		bs_store64(rec, v[i].lower);
		bs_store64(rec + 8, v[i].upper);
		bs_store32(rec + 16, (uint32_t) key_bytes);
	}
	release(scratch, raw);
	return out;
}

uint8_t *
bs_topk_state_write(const bs_topk_state *st, bool canonical, const bs_allocator *a,
					size_t *outlen)
{
	return write_value(st, canonical, a, a, NULL, outlen);
}

void
bs_topk_state_write_into(const bs_topk_state *st, const bs_allocator *scratch, uint8_t *out)
{
	size_t		len;

	write_value(st, false, scratch, NULL, out, &len);
}

/* ---- reading either format ---- */

bs_topk_row *
bs_topk_ranked(const uint8_t *buf, size_t len, const bs_allocator *a, uint32_t *n)
{
	bs_topk_row *rows;
	uint8_t    *raw;
	uint32_t	i;

	if (buf[4] == BS_TOPK_FORMAT_V1)
	{
		size_t		clen;
		uint8_t    *c = bs_topk1_compact(buf, len, a, &clen);
		bs_topk1	t;

		bs_topk1_view(c, clen, &t);
		rows = alloc_aligned(a, (size_t) t.ncand * sizeof(bs_topk_row) + 1, &raw);
		for (i = 0; i < t.ncand; i++)
		{
			bs_topk1_item it;

			bs_topk1_item_at(&t, i, &it);
			rows[i].key = it.key;
			rows[i].len = it.len;
			rows[i].estimate = rows[i].upper = it.count;
			rows[i].lower = 0;
		}
		*n = t.ncand;
		return rows;
	}
	else
	{
		view2		v;
		bs_topk_entry *e;
		uint8_t    *eraw;

		view_v2(buf, &v);
		e = alloc_aligned(a, (size_t) v.held * sizeof(bs_topk_entry) + 1, &eraw);
		for (i = 0; i < v.held; i++)
		{
			const uint8_t *key;

			record_at(&v, i, &e[i], &key);
		}
		qsort(e, v.held, sizeof(bs_topk_entry), rank_cmp);
		rows = alloc_aligned(a, (size_t) v.held * sizeof(bs_topk_row) + 1, &raw);
		for (i = 0; i < v.held; i++)
		{
			rows[i].key = v.keys + e[i].key_off;
			rows[i].len = e[i].key_len;
			rows[i].estimate = rows[i].lower = e[i].lower;
			rows[i].upper = e[i].upper;
		}
		release(a, eraw);
		*n = v.held;
		return rows;
	}
}

bool
bs_topk_lookup(const uint8_t *buf, size_t len, uint64_t h, const uint8_t *key,
			   uint32_t klen, bs_topk_row *row)
{
	view2		v;
	uint32_t	lo = 0,
				hi;

	row->key = key;
	row->len = klen;
	if (buf[4] == BS_TOPK_FORMAT_V1)
	{
		bs_topk1	t;
		uint32_t	i;

		bs_topk1_view((uint8_t *) buf, len, &t);
		row->estimate = row->upper = bs_cms_frequency(&t.cms, h);
		row->lower = 0;
		for (i = 0; i < t.ncand; i++)
		{
			bs_topk1_item it;

			bs_topk1_item_at(&t, i, &it);
			if (it.hash == h && it.len == klen && memcmp(it.key, key, klen) == 0)
				return true;
		}
		return false;
	}
	view_v2(buf, &v);
	hi = v.held;
	/* records are in increasing order of hash */
	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;
		bs_topk_entry e;
		const uint8_t *k;

		record_at(&v, mid, &e, &k);
		if (e.hash == h)
		{
			if (e.key_len != klen || memcmp(k, key, klen) != 0)
				break;			/* another value with its hash: not held */
			row->estimate = row->lower = e.lower;
			row->upper = e.upper;
			return true;
		}
		if (e.hash < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	row->estimate = row->lower = 0;
	row->upper = min64(v.floor, bs_cms_frequency(&v.cms, h));
	return false;
}

void
bs_topk_describe(const uint8_t *buf, size_t len, bs_topk_info *info)
{
	info->version = buf[4];
	if (info->version == BS_TOPK_FORMAT_V1)
	{
		bs_topk1	t;

		bs_topk1_view((uint8_t *) buf, len, &t);
		info->params.k = t.k;
		info->params.capacity = t.cap;
		info->params.width = t.cms.width;
		info->params.depth = t.cms.depth;
		info->total = t.cms.total;
		info->held = t.ncand;
		info->has_floor = false;
		info->floor = 0;
	}
	else
	{
		view2		v;

		view_v2(buf, &v);
		info->params = v.params;
		info->total = v.cms.total;
		info->held = v.held;
		info->has_floor = true;
		info->floor = v.floor;
	}
}

bs_status
bs_topk_check_same_format(int a, int b, bs_error *err)
{
	if (a == b)
		return BS_OK;
	bs_fail(err, BS_ERR_SHAPE,
			"cannot merge a topk sketch of format %d with one of format %d", a, b);
	bs_error_detail(err, "Format 1 holds Count-Min candidates (bloomsketch 1.0 to 1.4); format 2 counts its candidates (1.5 on).");
	bs_error_hint(err, "Rebuild the format-1 sketch from its rows with topk_agg, or merge sketches of one format only; topk_info(t).format_version tells which.");
	return BS_ERR_SHAPE;
}

/* ---- validation ---- */

bs_status
bs_topk_check_header(const bs_header *h, bs_error *err)
{
	if (bs_topk_check_k(h->p3, NULL) != BS_OK)
		return bs_fail(err, BS_ERR_FORMAT, "topk value has an invalid k %u (1 to %d)",
					   h->p3, BS_TOPK_MAX_K);
	if (bs_cms_check_shape(h->p1, h->p2, NULL) != BS_OK)
		return bs_fail(err, BS_ERR_FORMAT,
					   "topk value has an invalid shape: width %" PRIu64 ", depth %u", h->p1, h->p2);
	if (h->n > BS_CMS_MAX_COUNT)
		return bs_fail(err, BS_ERR_FORMAT, "topk value has a total past %" PRIu64, BS_CMS_MAX_COUNT);
	return BS_OK;
}

static bs_status
check_v2(const bs_header *h, const uint8_t *payload, uint64_t plen, bool deep,
		 bs_error *err)
{
	uint32_t	cap = (uint32_t) (h->x & 0xffffffffu),
				held = (uint32_t) (h->x >> 32),
				i,
				prev_end = 0;
	uint64_t	cbytes,
				fixed,
				key_bytes,
				floor,
				sum_lower = 0,
				prev_hash = 0;
	const uint8_t *rec,
			   *keys;
	const bs_family_def *fam = bs_family_def_of(h->family);
	bs_cms		cms;

	if (bs_topk_check_header(h, err) != BS_OK)
		return BS_ERR_FORMAT;
	if (cap < 2 * h->p3 || cap > BS_TOPK_MAX_CAPACITY)
		return bs_fail(err, BS_ERR_FORMAT,
					   "topk value has an invalid capacity %u for k %u (2k to %d)",
					   cap, h->p3, BS_TOPK_MAX_CAPACITY);
	if (held > 2 * cap)
		return bs_fail(err, BS_ERR_FORMAT,
					   "topk value holds %u values, more than twice its capacity %u", held, cap);
	cbytes = counters_bytes(h->p1, h->p2);
	fixed = cbytes + 8 + (uint64_t) held * BS_TOPK_RECORD;
	if (plen < fixed)
		return bs_fail(err, BS_ERR_FORMAT,
					   "topk value of width %" PRIu64 ", depth %u holding %u values needs at least %" PRIu64 " payload bytes, has %" PRIu64,
					   h->p1, h->p2, held, fixed, plen);
	key_bytes = plen - fixed;
	if (held > 0 && h->family == BS_FAMILY_NONE)
		return bs_fail(err, BS_ERR_FORMAT, "topk value holds values but no key family");
	floor = bs_load64(payload + cbytes);
	if (floor > h->n)
		return bs_fail(err, BS_ERR_FORMAT,
					   "topk value's bound of values not held, %" PRIu64 ", is past its total %" PRIu64,
					   floor, h->n);
	rec = payload + cbytes + 8;
	keys = rec + (uint64_t) held * BS_TOPK_RECORD;
	cms.width = h->p1;
	cms.depth = h->p2;
	cms.counters = (uint8_t *) payload;
	for (i = 0; i < held; i++, rec += BS_TOPK_RECORD)
	{
		uint64_t	lower = bs_load64(rec),
					upper = bs_load64(rec + 8);
		uint32_t	end = bs_load32(rec + 16),
					len;

		if (end < prev_end || end > key_bytes)
			return bs_fail(err, BS_ERR_FORMAT,
						   "topk value's entry %u ends its key at byte %u, outside %u to %" PRIu64,
						   i, end, prev_end, key_bytes);
		len = end - prev_end;
		/* (the family's fixed key length looked up once: this loop runs on every read of a value) */
		if (len > BS_TOPK_MAX_KEY || fam == NULL || (fam->key_bytes != 0 && len != fam->key_bytes))
			return bs_fail(err, BS_ERR_FORMAT,
						   "topk value's entry %u has %u key bytes, wrong for %s keys",
						   i, len, bs_family_name(h->family));
		if (lower < 1 || lower > upper || upper > h->n)
			return bs_fail(err, BS_ERR_FORMAT,
						   "topk value's entry %u counts %" PRIu64 " to %" PRIu64 ", not within 1 to its total %" PRIu64,
						   i, lower, upper, h->n);
		sum_lower += lower;
		if (sum_lower > h->n)
			return bs_fail(err, BS_ERR_FORMAT,
						   "topk value's lower counts sum past its total %" PRIu64, h->n);
		if (deep)
		{
			uint64_t	hash = bs_hash_bytes(keys + prev_end, len, h->seed);

			if (i > 0 && hash <= prev_hash)
				return bs_fail(err, BS_ERR_FORMAT,
							   "topk value's entries are not in increasing order of hash at entry %u", i);
			if (upper > bs_cms_frequency(&cms, hash))
				return bs_fail(err, BS_ERR_FORMAT,
							   "topk value's entry %u has an upper bound %" PRIu64 " past its Count-Min estimate %" PRIu64,
							   i, upper, bs_cms_frequency(&cms, hash));
			prev_hash = hash;
		}
		prev_end = end;
	}
	if (prev_end != key_bytes)
		return bs_fail(err, BS_ERR_FORMAT,
					   "topk value has %" PRIu64 " key bytes, its entries use %u", key_bytes, prev_end);
	if (deep)
		return bs_cms_check_rows(payload, h->p1, h->p2, h->n, "topk", err);
	return BS_OK;
}

bs_status
bs_topk_check(const bs_header *h, const uint8_t *payload, uint64_t plen, bool deep,
			  bs_error *err)
{
	if (h->version == BS_TOPK_FORMAT_V1)
		return bs_topk1_check(h, payload, plen, deep, err);
	return check_v2(h, payload, plen, deep, err);
}
