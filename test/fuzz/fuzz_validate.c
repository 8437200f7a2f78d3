/*
 * fuzz_validate.c: bs_validate() on arbitrary bytes, as every kind.
 *
 * Each input is checked as each of the five kinds (and as two kinds that do
 * not exist), with the deep check (what text input, binary receive and the
 * bytea cast use) and the quick one (what stored values get).  Checked:
 *   - a rejection is BS_ERR_FORMAT with a message;
 *   - whatever the deep check accepts, the quick one accepts;
 *   - an accepted value is of the kind asked for, its header is the one
 *     bs_header_read() decodes, and its length is what its header implies;
 *   - the quick check's promise (format.h): every read the parameters imply
 *     stays inside the value.  Each accepted value is read through the
 *     core's views (probes of either bloom layout, the blocks' fills,
 *     candidate keys, counters) without the deep check, the buffer being
 *     libFuzzer's exact-length copy of the input.  A topk value of format 2
 *     is also read as SQL reads a stored value (quick check only):
 *     bs_topk_describe, bs_topk_ranked (every row's key inside the value's
 *     key bytes), bs_topk_lookup of each value's key and of others, and
 *     bs_topk_state_load, _write (both forms), _merge with itself and _add;
 *     what the deep check accepts must also read back consistently (each
 *     value found by its key with its counts, the rows best first, the
 *     state's values valid);
 *   - a bloom's layout is known and a blocked one has whole blocks, a
 *     growable one's stages lie end to end and fill the value; a state
 *     makes a filter of its layout's shape, a dense blocked state has whole
 *     blocks (a multiple of BS_BLOCKED_FOLD_BASE of them unless fixed), and
 *     no counting state is blocked.
 * The operations on accepted values are in the per-kind targets.
 */
#include "fuzz_common.h"
#include "core/bloom_value.h"
#include "core/growable.h"

/* A growable bloom value (growable.h): its stages end to end, each of a shape its layout allows. */
static void
check_growable(const uint8_t *data, size_t size, fz_rng *r)
{
	static bs_growable g;		/* large: 64 stage views */
	uint64_t	off;
	uint32_t	i;
	int			j;
	bs_error	err;

	bs_growable_view((uint8_t *) data, &g);
	off = BS_HEADER_SIZE + (uint64_t) g.nstages * BS_GROWABLE_ENTRY_BYTES;
	FZ_CHECK(g.nstages >= 1 && g.nstages <= BS_GROWABLE_MAX_STAGES && g.layout <= BS_LAYOUT_MAX,
			 "growable bloom of %u stages, layout %u accepted", g.nstages, g.layout);
	for (i = 0; i < g.nstages; i++)
	{
		FZ_CHECK(g.stage[i].bits == data + off &&
				 bs_bloom_check_layout_shape(g.stage[i].m, g.stage[i].k, g.layout, &err) == BS_OK,
				 "growable bloom stage %u of %" PRIu64 " bits, %u hashes accepted", i, g.stage[i].m, g.stage[i].k);
		off += bs_bloom_payload_bytes(g.stage[i].m);
	}
	FZ_CHECK(off == size && g.len == size, "growable bloom of %" PRIu64 " bytes accepted at %zu bytes", off, size);
	{
		uint64_t	m,
					x;

		bs_growable_bits(&g, &m, &x);
		FZ_CHECK(x <= m, "growable bloom has more bits set than it has");
	}
	for (j = 0; j < 4; j++)
		(void) bs_growable_contains(&g, fz_next(r));
	(void) bs_growable_contains(&g, 0);
	(void) bs_growable_contains(&g, UINT64_MAX);
	(void) bs_growable_cardinality(&g);
	(void) bs_growable_fpr(&g);
}

static void
check_bloom(const uint8_t *data, size_t size, fz_rng *r)
{
	bs_bloom	b;
	int			i;

	if (bs_bloom_is_growable(data))
	{
		check_growable(data, size, r);
		return;
	}
	bs_bloom_view((uint8_t *) data, &b);
	FZ_CHECK(size == BS_HEADER_SIZE + bs_bloom_payload_bytes(b.m),
			 "bloom of %" PRIu64 " bits accepted at %zu bytes", b.m, size);
	FZ_CHECK(b.layout <= BS_LAYOUT_MAX, "bloom of unknown layout %u accepted", b.layout);
	FZ_CHECK(b.layout != BS_LAYOUT_BLOCKED || (b.m % BS_BLOCK_BITS == 0 && b.m >= BS_BLOCK_BITS),
			 "blocked bloom of %" PRIu64 " bits accepted", b.m);
	FZ_CHECK(bs_popcount(b.bits, bs_bloom_payload_bytes(b.m)) <= b.m, "bloom has more bits set than it has");
	/* reads that follow the layout: probes in one block or over all bits, the fill estimates */
	for (i = 0; i < 4; i++)
		(void) bs_bloom_contains(&b, fz_next(r));
	(void) bs_bloom_contains(&b, 0);
	(void) bs_bloom_contains(&b, UINT64_MAX);
	(void) bs_bloom_cardinality_of(&b);
	(void) bs_bloom_fpr_of(&b);
}

static void
check_state(const uint8_t *data, size_t size, const bs_header *h)
{
	uint64_t	m,
				total;
	uint32_t	k;
	bs_error	err;

	FZ_CHECK(bs_bloom_agg_state_size(data) == size, "bloom_agg_state accepted at %zu bytes, its header says %zu",
			 size, bs_bloom_agg_state_size(data));
	(void) fz_touch(data + BS_HEADER_SIZE, size - BS_HEADER_SIZE);
	/* The final function's first steps: the shape must be one bs_bloom_size accepts. */
	FZ_CHECK(bs_bloom_agg_state_result_shape(data, &m, &k, &err) == BS_OK,
			 "a validated bloom_agg_state (flags 0x%x, n %" PRIu64 ") has no result shape: %s", h->p3, h->n, err.msg);
	FZ_CHECK(bs_bloom_check_layout_shape(m, k, bs_bloom_agg_state_layout(data), &err) == BS_OK &&
			 bs_bloom_size(m, &total, &err) == BS_OK,
			 "%s bloom_agg_state (flags 0x%x, p1 %" PRIu64 ", n %" PRIu64 ") gives an invalid result shape %" PRIu64 " bits, %u hashes: %s",
			 bs_layout_name(bs_bloom_agg_state_layout(data)), h->p3, h->p1, h->n, m, k, err.msg);
	FZ_CHECK(bs_bloom_agg_state_layout(data) == ((h->p3 & BS_AGG_STATE_BLOCKED) ? BS_LAYOUT_BLOCKED : BS_LAYOUT_CLASSIC),
			 "bs_bloom_agg_state_layout disagrees with the flags 0x%x", h->p3);
	if ((h->p3 & BS_AGG_STATE_DENSE) && (h->p3 & BS_AGG_STATE_BLOCKED))
		FZ_CHECK(h->p1 % BS_BLOCK_BITS == 0 && ((h->p3 & BS_AGG_STATE_FIXED) ||
												(h->p1 / BS_BLOCK_BITS) % BS_BLOCKED_FOLD_BASE == 0),
				 "dense blocked bloom_agg_state (flags 0x%x) of %" PRIu64 " bits accepted", h->p3, h->p1);
	if (bs_bloom_agg_state_is_counting(data))
	{
		FZ_CHECK(!(h->p3 & BS_AGG_STATE_BLOCKED), "a counting blocked bloom_agg_state accepted (flags 0x%x)", h->p3);
		FZ_CHECK(bs_cbloom_size(m, BS_CBLOOM_DEFAULT_BITS, &total, &err) == BS_OK,
				 "counting bloom_agg_state gives %" PRIu64 " counters, refused by bs_cbloom_size: %s", m, err.msg);
	}
}

static void
check_cms(const uint8_t *data, size_t size, bool deep, fz_rng *r)
{
	bs_cms		c;
	uint64_t	row,
				col;
	int			i;

	bs_cms_view((uint8_t *) data, &c);
	FZ_CHECK(size == BS_HEADER_SIZE + c.width * c.depth * 8,
			 "cms of width %" PRIu64 " and depth %u accepted at %zu bytes", c.width, c.depth, size);
	for (i = 0; i < 4; i++)
	{
		uint64_t	f = bs_cms_frequency(&c, fz_next(r));

		FZ_CHECK(!deep || f <= c.total, "cms estimate %" PRIu64 " above its total %" PRIu64, f, c.total);
	}
	if (deep)
		for (row = 0; row < c.depth; row++)
		{
			unsigned __int128 sum = 0;

			for (col = 0; col < c.width; col++)
				sum += bs_load64(c.counters + (row * c.width + col) * 8);
			FZ_CHECK(sum == c.total, "cms row %" PRIu64 " does not sum to the total", row);
		}
}

/*
 * A topk value of format 2 (topk.h): its layout read here from the header,
 * then through the readers and a state, as SQL reads a stored value.
 */
static void
check_topk2(const uint8_t *data, size_t size, bool deep, fz_rng *r)
{
	uint64_t	x = bs_load64(data + BS_OFF_X),
				width = bs_load64(data + BS_OFF_P1),
				total = bs_load64(data + BS_OFF_N),
				seed = bs_load64(data + 8),
				cbytes,
				key_bytes,
				sum = 0;
	uint32_t	depth = bs_load32(data + BS_OFF_P2),
				k = bs_load32(data + BS_OFF_P3),
				cap = (uint32_t) (x & 0xffffffffu),
				held = (uint32_t) (x >> 32),
				prev = 0,
				n = 0,
				i;
	const uint8_t *rec,
			   *keys;
	bs_topk_info info;
	bs_topk_row *rows,
				row;
	bs_topk_state st;
	bs_error	err;
	bs_status	s;
	uint8_t    *w,
				key[16];
	size_t		wl;

	FZ_CHECK(k >= 1 && k <= BS_TOPK_MAX_K && cap >= 2 * k && cap <= BS_TOPK_MAX_CAPACITY && held <= 2 * cap &&
			 depth >= 1 && depth <= BS_CMS_MAX_DEPTH && width >= 1 && total <= BS_CMS_MAX_COUNT,
			 "topk format 2 of k %u, capacity %u, %u held, %" PRIu64 " x %u, N %" PRIu64 " accepted",
			 k, cap, held, width, depth, total);
	cbytes = width * depth * 8;
	FZ_CHECK(cbytes + 8 + (uint64_t) held * BS_TOPK_RECORD <= size - BS_HEADER_SIZE,
			 "topk format 2 of %" PRIu64 " x %u holding %u accepted at %zu bytes", width, depth, held, size);
	rec = data + BS_HEADER_SIZE + cbytes + 8;
	keys = rec + (uint64_t) held * BS_TOPK_RECORD;
	key_bytes = held == 0 ? 0 : bs_load32(rec + (uint64_t) (held - 1) * BS_TOPK_RECORD + 16);
	FZ_CHECK((size_t) (keys - data) + key_bytes == size, "topk format 2 of %zu bytes has %" PRIu64 " key bytes after its records",
			 size, key_bytes);
	FZ_CHECK(bs_load64(data + BS_HEADER_SIZE + cbytes) <= total, "topk format 2 with a floor past its total accepted");
	for (i = 0; i < held; i++)
	{
		const uint8_t *p = rec + (uint64_t) i * BS_TOPK_RECORD;
		uint64_t	lower = bs_load64(p),
					upper = bs_load64(p + 8);
		uint32_t	end = bs_load32(p + 16);

		FZ_CHECK(end >= prev && end <= key_bytes && lower >= 1 && lower <= upper && upper <= total,
				 "topk format 2 value %u (key end %u, counts %" PRIu64 "..%" PRIu64 ") accepted", i, end, lower, upper);
		sum += lower;
		(void) fz_touch(keys + prev, end - prev);
		memset(&row, 0, sizeof(row));
		if (bs_topk_lookup(data, size, bs_hash_bytes(keys + prev, end - prev, seed), keys + prev, end - prev, &row))
			FZ_CHECK(!deep || (row.lower == lower && row.upper == upper),
					 "topk format 2 value %u looked up by its key: %" PRIu64 "..%" PRIu64 ", not %" PRIu64 "..%" PRIu64,
					 i, row.lower, row.upper, lower, upper);
		else
			FZ_CHECK(!deep, "topk format 2 value %u is not found by its key", i);
		prev = end;
	}
	FZ_CHECK(sum <= total, "topk format 2 whose lower counts sum past its total accepted");

	memset(&info, 0, sizeof(info));
	bs_topk_describe(data, size, &info);
	FZ_CHECK(info.version == 2 && info.params.k == k && info.params.capacity == cap && info.params.width == width &&
			 info.params.depth == depth && info.total == total && info.held == held && info.has_floor,
			 "bs_topk_describe disagrees with the header of a format-2 value");
	rows = bs_topk_ranked(data, size, &fz_releasing_allocator, &n);
	FZ_CHECK(n == held, "bs_topk_ranked lists %u rows of %u values", n, held);
	for (i = 0; i < n; i++)
	{
		FZ_CHECK((uintptr_t) rows[i].key >= (uintptr_t) keys && rows[i].len <= key_bytes &&
				 (uintptr_t) rows[i].key - (uintptr_t) keys <= key_bytes - rows[i].len,
				 "topk format 2 row %u's key lies outside the value's key bytes", i);
		(void) fz_touch(rows[i].key, rows[i].len);
		if (deep && i > 0)
			FZ_CHECK(rows[i - 1].lower > rows[i].lower ||
					 (rows[i - 1].lower == rows[i].lower && rows[i - 1].upper >= rows[i].upper),
					 "topk format 2 rows %u and %u out of order", i - 1, i);
	}
	for (i = 0; i < 4; i++)
	{
		uint32_t	klen = (uint32_t) fz_below(r, sizeof(key) + 1),
					j;

		for (j = 0; j < klen; j++)
			key[j] = (uint8_t) fz_next(r);
		(void) bs_topk_lookup(data, size, i == 0 ? 0 : i == 1 ? UINT64_MAX : fz_next(r), key, klen, &row);
		FZ_CHECK(row.lower <= row.upper && row.upper <= total, "a topk format 2 lookup counts %" PRIu64 "..%" PRIu64 " of a total %" PRIu64,
				 row.lower, row.upper, total);
	}

	/* what SQL does with a stored value: topk_final, topk_add, topk_merge_trans */
	bs_topk_state_load(&st, data, size, &fz_releasing_allocator);
	FZ_CHECK(st.n <= held, "a state of a value holding %u holds %u", held, st.n);
	w = bs_topk_state_write(&st, false, &fz_releasing_allocator, &wl);
	FZ_CHECK(!deep || (wl == size && memcmp(w, data, size) == 0), "a topk format 2 value loaded and written is not itself");
	w = bs_topk_state_write(&st, true, &fz_releasing_allocator, &wl);
	FZ_CHECK(!deep || bs_validate(w, wl, BS_KIND_TOPK, true, NULL, &err) == BS_OK, "the canonical form of a topk format 2 value is invalid: %s", err.msg);
	(void) fz_touch(w, wl);
	s = bs_topk_state_merge(&st, data, size, &err);
	FZ_CHECK(s == BS_OK || s == BS_ERR_LIMIT, "a topk format 2 value merged with itself: status %d", (int) s);
	if (bs_family_def_of(st.cms.family) != NULL && st.cms.family != BS_FAMILY_NONE &&
		bs_family_def_of(st.cms.family)->key_bytes <= sizeof(key))
	{
		uint32_t	klen = bs_family_def_of(st.cms.family)->key_bytes;

		if (klen == 0)
			klen = (uint32_t) fz_below(r, sizeof(key) + 1);
		for (i = 0; i < klen; i++)
			key[i] = (uint8_t) fz_next(r);
		s = bs_topk_state_add(&st, bs_hash_bytes(key, klen, seed), key, klen, st.cms.family, 1 + fz_below(r, 3), &err);
		FZ_CHECK(s == BS_OK || s == BS_ERR_LIMIT, "an add to a topk format 2 state: status %d (%s)", (int) s, err.msg);
	}
	w = bs_topk_state_write(&st, !(fz_next(r) & 1), &fz_releasing_allocator, &wl);
	FZ_CHECK(!deep || bs_validate(w, wl, BS_KIND_TOPK, true, NULL, &err) == BS_OK, "a topk format 2 state after a merge and an add is invalid: %s", err.msg);
	(void) fz_touch(w, wl);
	bs_topk_state_release(&st);
}

static void
check_topk(const uint8_t *data, size_t size, bool deep, fz_rng *r)
{
	bs_topk1		t;
	uint32_t	i;

	if (data[4] != BS_TOPK_FORMAT_V1)
	{
		FZ_CHECK(data[4] == BS_TOPK_FORMAT, "a topk value of format %d accepted", data[4]);
		check_topk2(data, size, deep, r);
		return;
	}

	bs_topk1_view((uint8_t *) data, size, &t);
	FZ_CHECK(t.heap >= data && (size_t) (t.heap - data) <= size && t.ncand <= t.cap &&
			 t.heap_used <= t.heap_cap && t.k >= 1 && t.k <= BS_TOPK_MAX_K,
			 "topk view out of its value: %u of %u candidates, %u of %" PRIu64 " key bytes",
			 t.ncand, t.cap, t.heap_used, t.heap_cap);
	(void) bs_cms_frequency(&t.cms, fz_next(r));
	for (i = 0; i < t.ncand; i++)
	{
		bs_topk1_item it;

		bs_topk1_item_at(&t, i, &it);
		FZ_CHECK(it.key >= t.heap && it.key + it.len <= t.heap + t.heap_used,
				 "topk candidate %u's key lies outside the used key bytes", i);
		(void) fz_touch(it.key, it.len);
		if (deep)
		{
			FZ_CHECK(bs_hash_bytes(it.key, it.len, t.cms.seed) == it.hash,
					 "topk candidate %u accepted with a wrong hash", i);
			FZ_CHECK(it.count <= t.cms.total, "topk candidate %u counts past the total", i);
		}
	}
}

static void
check_cbloom(const uint8_t *data, size_t size, fz_rng *r)
{
	bs_cbloom	c;
	uint64_t	need;
	int			i;

	bs_cbloom_view((uint8_t *) data, &c);
	need = c.bits == 8 ? c.m : c.m / 2 + c.m % 2;
	FZ_CHECK((c.bits == 4 || c.bits == 8) && size == BS_HEADER_SIZE + need,
			 "cbloom of %" PRIu64 " %u-bit counters accepted at %zu bytes", c.m, c.bits, size);
	(void) bs_cbloom_get(&c, 0);
	(void) bs_cbloom_get(&c, c.m - 1);
	for (i = 0; i < 4; i++)
	{
		uint64_t	h = fz_next(r);

		(void) bs_cbloom_contains_hash(&c, h);
		FZ_CHECK(bs_cbloom_count_hash(&c, h) <= c.max, "cbloom count above the counter maximum");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int kinds[] = {BS_KIND_BLOOM, BS_KIND_BLOOM_AGG_STATE, BS_KIND_CMS,
	BS_KIND_TOPK, BS_KIND_CBLOOM, 0, 6};
	size_t		ki;

	for (ki = 0; ki < sizeof(kinds) / sizeof(kinds[0]); ki++)
	{
		bs_kind		kind = (bs_kind) kinds[ki];
		int			d;
		bs_status	st[2];

		for (d = 0; d < 2; d++)
		{
			bool		deep = d == 0;
			bs_header	h,
						raw;
			bs_error	err;
			fz_rng		r = fz_rng_for(data, size);

			memset(&err, 0, sizeof(err));
			st[d] = bs_validate(data, size, kind, deep, &h, &err);
			if (st[d] != BS_OK)
			{
				fz_check_rejection(st[d], &err, bs_kind_name(kind));
				continue;
			}
			FZ_CHECK(kind >= BS_KIND_BLOOM && kind <= BS_KIND_CBLOOM,
					 "bs_validate accepted a value as kind %d", (int) kind);
			bs_header_read(data, &raw);
			FZ_CHECK(raw.version == h.version && raw.kind == h.kind && raw.hash_alg == h.hash_alg &&
					 raw.family == h.family && raw.seed == h.seed && raw.p1 == h.p1 && raw.p2 == h.p2 &&
					 raw.p3 == h.p3 && raw.n == h.n && raw.x == h.x && h.kind == kind,
					 "bs_validate's header differs from bs_header_read's");
			switch (kind)
			{
				case BS_KIND_BLOOM:
					check_bloom(data, size, &r);
					break;
				case BS_KIND_BLOOM_AGG_STATE:
					check_state(data, size, &h);
					break;
				case BS_KIND_CMS:
					check_cms(data, size, deep, &r);
					break;
				case BS_KIND_TOPK:
					check_topk(data, size, deep, &r);
					break;
				case BS_KIND_CBLOOM:
					check_cbloom(data, size, &r);
					break;
			}
		}
		FZ_CHECK(st[0] != BS_OK || st[1] == BS_OK,
				 "%s value passes the deep check but fails the quick one", bs_kind_name(kind));
	}
	fz_reset();
	return 0;
}
