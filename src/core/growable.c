#include "growable.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "bits.h"
#include "endian.h"

/* Directory entry fields (growable.h). */
#define ENTRY_M 0
#define ENTRY_K 8
#define ENTRY_RESERVED 12
#define ENTRY_COUNT 16

static uint8_t *
entry_of(const bs_growable *g, uint32_t i)
{
	return g->buf + BS_HEADER_SIZE + (uint64_t) i * BS_GROWABLE_ENTRY_BYTES;
}

bs_status
bs_growable_check_growth(int64_t growth, bs_error *err)
{
	if (growth < 1 || growth > BS_GROWABLE_MAX_GROWTH)
		return bs_fail(err, BS_ERR_PARAM,
					   "growth must be between 1 and %d, got %" PRId64,
					   BS_GROWABLE_MAX_GROWTH, growth);
	return BS_OK;
}

bs_status
bs_growable_stage_target(uint64_t n0, uint32_t growth, double fpr, uint32_t i,
						 uint64_t *capacity, double *p, bs_error *err)
{
	uint64_t	c = n0;
	uint32_t	j;

	if (i >= BS_GROWABLE_MAX_STAGES)
	{
		bs_fail(err, BS_ERR_LIMIT,
				"a growable bloom filter has at most %d stages",
				BS_GROWABLE_MAX_STAGES);
		bs_error_hint(err, "Make the filter with a larger capacity or growth.");
		return BS_ERR_LIMIT;
	}
	for (j = 0; j < i; j++)
	{
		if (c > BS_GROWABLE_MAX_COUNT / growth)
		{
			bs_fail(err, BS_ERR_LIMIT,
					"stage %u of a growable bloom filter of capacity %" PRIu64 " and growth %u would hold more than %" PRIu64 " keys",
					i, n0, growth, BS_GROWABLE_MAX_COUNT);
			return BS_ERR_LIMIT;
		}
		c *= growth;
	}
	*capacity = c;
	*p = ldexp(fpr, -(int) (i + 1));
	return BS_OK;
}

/*
 * Shape of stage i.  The error names the filter's own capacity and rate
 * first: the sizing's message names the stage's, which a user never asked for.
 */
static bs_status
stage_shape(uint64_t n0, uint32_t growth, double fpr, uint32_t layout, uint32_t i,
			uint64_t *m, uint32_t *k, bs_error *err)
{
	uint64_t	cap;
	double		p;
	bs_status	st;
	bs_error	inner;

	if ((st = bs_growable_stage_target(n0, growth, fpr, i, &cap, &p, err)) != BS_OK)
		return st;
	if ((st = bs_bloom_shape_for((double) cap, p, layout, m, k, &inner)) == BS_OK)
		return BS_OK;
	bs_fail(err, st,
			"a growable bloom filter of capacity %" PRIu64 " at false-positive rate %s cannot make its stage %u, sized for %" PRIu64 " values at rate %s (fpr / 2^%u): %s",
			n0, bs_num(fpr).s, i, cap, bs_num(p).s, i + 1, inner.msg);
	if (err != NULL)
	{
		memcpy(err->detail, inner.detail, sizeof err->detail);
		memcpy(err->hint, inner.hint, sizeof err->hint);
	}
	return st;
}

static void
write_entry(uint8_t *e, uint64_t m, uint32_t k, uint64_t count)
{
	bs_store64(e + ENTRY_M, m);
	bs_store32(e + ENTRY_K, k);
	bs_store32(e + ENTRY_RESERVED, 0);
	bs_store64(e + ENTRY_COUNT, count);
}

bs_status
bs_growable_new(uint64_t n0, double fpr, uint32_t growth, uint32_t layout,
				uint8_t family, uint64_t seed, const bs_allocator *a,
				uint8_t **out, uint64_t *len, bs_error *err)
{
	bs_header	h;
	uint64_t	m,
				total;
	uint32_t	k;
	bs_status	st;
	uint8_t    *buf;

	if (n0 < 1 || n0 > BS_GROWABLE_MAX_COUNT)
		return bs_fail(err, BS_ERR_PARAM,
					   "capacity of a growable bloom filter must be between 1 and %" PRIu64 ", got %" PRIu64,
					   BS_GROWABLE_MAX_COUNT, n0);
	if ((st = bs_growable_check_growth(growth, err)) != BS_OK)
		return st;
	if (layout > BS_LAYOUT_MAX)
		return bs_fail(err, BS_ERR_PARAM, "unknown bloom filter layout %u", layout);
	if (!(fpr > 0.0 && fpr < 1.0))
		return bs_fail(err, BS_ERR_PARAM,
					   "false-positive rate must be between 0 and 1 (exclusive), got %s",
					   bs_num(fpr).s);
	if ((st = stage_shape(n0, growth, fpr, layout, 0, &m, &k, err)) != BS_OK)
		return st;
	if ((st = bs_total_size(BS_GROWABLE_ENTRY_BYTES + bs_bloom_payload_bytes(m),
							"growable bloom filter", &total, err)) != BS_OK)
		return st;
	buf = a->alloc(a->ctx, (size_t) total);
	bs_header_init(&h, BS_KIND_BLOOM, family, seed);
	h.p1 = n0;
	h.p2 = growth;
	h.p3 = BS_BLOOM_GROWABLE | layout;
	h.n = 1;
	h.x = bs_bits_of_f64(fpr);
	bs_header_write(buf, &h);
	write_entry(buf + BS_HEADER_SIZE, m, k, 0);
	memset(buf + BS_HEADER_SIZE + BS_GROWABLE_ENTRY_BYTES, 0, bs_bloom_payload_bytes(m));
	*out = buf;
	*len = total;
	return BS_OK;
}

void
bs_growable_view(uint8_t *buf, bs_growable *g)
{
	uint64_t	off;
	uint32_t	i;

	g->buf = buf;
	g->family = buf[BS_OFF_FAMILY];
	g->seed = bs_load64(buf + BS_OFF_SEED);
	g->n0 = bs_load64(buf + BS_OFF_P1);
	g->growth = bs_load32(buf + BS_OFF_P2);
	g->layout = bs_load32(buf + BS_OFF_P3) & ~(uint32_t) BS_BLOOM_GROWABLE;
	g->nstages = (uint32_t) bs_load64(buf + BS_OFF_N);
	g->fpr = bs_f64_from_bits(bs_load64(buf + BS_OFF_X));
	off = BS_HEADER_SIZE + (uint64_t) g->nstages * BS_GROWABLE_ENTRY_BYTES;
	for (i = 0; i < g->nstages; i++)
	{
		const uint8_t *e = entry_of(g, i);
		bs_bloom   *s = &g->stage[i];

		s->m = bs_load64(e + ENTRY_M);
		s->k = bs_load32(e + ENTRY_K);
		s->layout = g->layout;
		s->family = g->family;
		s->seed = g->seed;
		s->buf = buf;
		s->bits = buf + off;
		g->count[i] = bs_load64(e + ENTRY_COUNT);
		off += bs_bloom_payload_bytes(s->m);
	}
	g->len = off;
}

bool
bs_growable_contains(const bs_growable *g, uint64_t h)
{
	uint32_t	i;

	/* the newest stage first: it is the largest and holds the most keys */
	for (i = g->nstages; i-- > 0;)
		if (bs_bloom_contains(&g->stage[i], h))
			return true;
	return false;
}

/* Append stage S (the next one) to a copy of g's buffer; g views the copy. */
static bs_status
open_stage(bs_growable *g, const bs_allocator *a, bs_error *err)
{
	uint32_t	s = g->nstages;
	uint64_t	m,
				total,
				dir_end = BS_HEADER_SIZE + (uint64_t) s * BS_GROWABLE_ENTRY_BYTES;
	uint32_t	k;
	bs_status	st;
	uint8_t    *buf;

	/* whatever stops the next stage, the filter is full: a limit (54000) */
	if (stage_shape(g->n0, g->growth, g->fpr, g->layout, s, &m, &k, err) != BS_OK)
	{
		uint64_t	held = 0;
		uint32_t	i;

		for (i = 0; i < s; i++)
			held += g->count[i];
		bs_error_detail(err, "The growable filter is full: its %u stages hold %" PRIu64 " keys, and stage %u cannot be made.",
						s, held, s);
		bs_error_hint(err, "Make a new filter with a larger capacity, growth or false-positive rate.");
		return BS_ERR_LIMIT;
	}
	if ((st = bs_total_size(g->len - BS_HEADER_SIZE + BS_GROWABLE_ENTRY_BYTES +
							bs_bloom_payload_bytes(m),
							"growable bloom filter", &total, err)) != BS_OK)
		return st;
	buf = a->alloc(a->ctx, (size_t) total);
	memcpy(buf, g->buf, dir_end);
	write_entry(buf + dir_end, m, k, 0);
	memcpy(buf + dir_end + BS_GROWABLE_ENTRY_BYTES, g->buf + dir_end, g->len - dir_end);
	memset(buf + g->len + BS_GROWABLE_ENTRY_BYTES, 0, bs_bloom_payload_bytes(m));
	bs_store64(buf + BS_OFF_N, (uint64_t) s + 1);
	bs_growable_view(buf, g);
	return BS_OK;
}

bs_status
bs_growable_add(bs_growable *g, uint64_t h, const bs_allocator *a, bool *grown,
				bs_error *err)
{
	uint32_t	last = g->nstages - 1;
	uint64_t	cap;
	double		p;
	bs_status	st;

	*grown = false;
	if (bs_growable_contains(g, h))
		return BS_OK;
	if ((st = bs_growable_stage_target(g->n0, g->growth, g->fpr, last, &cap, &p, err)) != BS_OK)
		return st;
	if (g->count[last] >= cap)
	{
		if ((st = open_stage(g, a, err)) != BS_OK)
			return st;
		*grown = true;
		last++;
	}
	bs_bloom_add(&g->stage[last], h);
	g->count[last]++;
	bs_store64(entry_of(g, last) + ENTRY_COUNT, g->count[last]);
	return BS_OK;
}

bs_status
bs_growable_check_mergeable(const bs_growable *a, const bs_growable *b, bs_error *err)
{
	uint32_t	i,
				common = a->nstages < b->nstages ? a->nstages : b->nstages;

	if (a->n0 != b->n0 || a->growth != b->growth ||
		bs_bits_of_f64(a->fpr) != bs_bits_of_f64(b->fpr) ||
		a->layout != b->layout || a->seed != b->seed)
	{
		bs_fail(err, BS_ERR_SHAPE,
				"cannot merge growable bloom filters made with different parameters: capacity %" PRIu64 ", fpr %s, growth %u, %s stages (seed %" PRIu64 ") and capacity %" PRIu64 ", fpr %s, growth %u, %s stages (seed %" PRIu64 ")",
				a->n0, bs_num(a->fpr).s, a->growth, bs_layout_name(a->layout), a->seed,
				b->n0, bs_num(b->fpr).s, b->growth, bs_layout_name(b->layout), b->seed);
		bs_error_hint(err, "Growable filters merge only with filters made by the same bloom_empty(capacity, fpr, growth, layout) call.");
		return BS_ERR_SHAPE;
	}
	for (i = 0; i < common; i++)
		if (a->stage[i].m != b->stage[i].m || a->stage[i].k != b->stage[i].k)
		{
			bs_fail(err, BS_ERR_SHAPE,
					"cannot merge growable bloom filters whose stage %u differs: %" PRIu64 " bits with %u hashes and %" PRIu64 " bits with %u hashes",
					i, a->stage[i].m, a->stage[i].k, b->stage[i].m, b->stage[i].k);
			return BS_ERR_SHAPE;
		}
	return bs_check_merge_families(a->family, b->family,
								   "cannot merge a bloom filter of %s keys with a bloom filter of %s keys",
								   err);
}

/*
 * The count of a stage merged from two non-empty ones: max(a, b, e), e the
 * estimate from the merged bits rounded to the nearest integer (floor(e +
 * 0.5), which a client reproduces exactly), or the cap when the bits are too
 * full to estimate.  e grows with the bits set and a union's bits are those
 * of all its inputs, so a stage merged from several non-empty ones counts
 * max(their counts, e of the final bits) whatever the order of the merges:
 * the same bytes from a serial, a parallel or a Citus plan.  Never below
 * either count, so a stage never looks emptier than one of its inputs.
 */
static uint64_t
merged_count(uint64_t a, uint64_t b, double estimate)
{
	uint64_t	hi = a > b ? a : b,
				e;

	if (!(estimate < (double) BS_GROWABLE_MAX_COUNT))
		return BS_GROWABLE_MAX_COUNT;
	e = (uint64_t) floor(estimate + 0.5);
	return e > hi ? e : hi;
}

void
bs_growable_or(bs_growable *dst, const bs_growable *src)
{
	uint32_t	i;

	for (i = 0; i < src->nstages; i++)
	{
		bs_bloom   *d = &dst->stage[i];
		const uint8_t *sb = src->stage[i].bits;
		uint64_t	nbytes = bs_bloom_payload_bytes(d->m);

		/*
		 * An empty stage (no key, no bit) takes no part: a | empty = a, and a
		 * stage held by one input keeps that input's count.  Only a count of
		 * 0 needs its bits read to tell.
		 */
		bool		theirs_empty = src->count[i] == 0 && bs_popcount(sb, nbytes) == 0,
					mine_empty = dst->count[i] == 0 && bs_popcount(d->bits, nbytes) == 0;

		bs_or_bytes(d->bits, sb, nbytes);
		if (theirs_empty)
			continue;
		if (mine_empty)
			dst->count[i] = src->count[i];
		else
			dst->count[i] = merged_count(dst->count[i], src->count[i],
										 bs_bloom_cardinality_of(d));
		bs_store64(entry_of(dst, i) + ENTRY_COUNT, dst->count[i]);
	}
	dst->family = bs_family_join(dst->family, src->family);
	dst->buf[BS_OFF_FAMILY] = dst->family;
	for (i = 0; i < dst->nstages; i++)
		dst->stage[i].family = dst->family;
}

void
bs_growable_bits(const bs_growable *g, uint64_t *bits, uint64_t *bits_set)
{
	uint32_t	i;

	*bits = *bits_set = 0;
	for (i = 0; i < g->nstages; i++)
	{
		*bits += g->stage[i].m;
		*bits_set += bs_popcount(g->stage[i].bits, bs_bloom_payload_bytes(g->stage[i].m));
	}
}

double
bs_growable_cardinality(const bs_growable *g)
{
	double		n = 0.0;
	uint32_t	i;

	for (i = 0; i < g->nstages; i++)
		n += bs_bloom_cardinality_of(&g->stage[i]);
	return n;
}

double
bs_growable_fpr(const bs_growable *g)
{
	double		miss = 1.0;		/* probability that no stage answers yes */
	uint32_t	i;

	for (i = 0; i < g->nstages; i++)
		miss *= 1.0 - bs_bloom_fpr_of(&g->stage[i]);
	return 1.0 - miss;
}

/*
 * Whether stage i has fewer bits than the rule of growable.h gives it: at
 * least the classic sizing's bits for its capacity and rate, less one block
 * (a blocked stage may round down to whole blocks) and a millionth (so that
 * another machine's log() cannot refuse a value this one made).  The next
 * stage is sized by the rule, so this keeps it within about growth times the
 * last: a crafted stage of a few bytes claiming a large capacity would
 * otherwise make one bloom_add allocate hundreds of MB.
 */
static bool
stage_too_small(const bs_header *h, double fpr, uint32_t i, uint64_t m)
{
	uint64_t	cap,
				need;
	double		p;

	if (bs_growable_stage_target(h->p1, h->p2, fpr, i, &cap, &p, NULL) != BS_OK ||
		bs_bloom_optimal_bits((double) cap, p, &need, NULL) != BS_OK)
		return true;
	return (double) m + BS_BLOCK_BITS < (double) need * (1.0 - 1e-6);
}

bs_status
bs_growable_check(const bs_header *h, const uint8_t *payload, uint64_t plen,
				  bs_error *err)
{
	const char *what = "growable bloom value";
	uint32_t	layout = h->p3 & ~(uint32_t) BS_BLOOM_GROWABLE,
				i;
	double		fpr = bs_f64_from_bits(h->x);
	uint64_t	cap,
				dir,
				off;
	double		p;

	if (h->p1 < 1 || h->p1 > BS_GROWABLE_MAX_COUNT)
		return bs_fail(err, BS_ERR_FORMAT, "%s has an invalid capacity %" PRIu64, what, h->p1);
	if (h->p2 < 1 || h->p2 > BS_GROWABLE_MAX_GROWTH)
		return bs_fail(err, BS_ERR_FORMAT, "%s has an invalid growth %u (must be 1 to %d)",
					   what, h->p2, BS_GROWABLE_MAX_GROWTH);
	if (h->n < 1 || h->n > BS_GROWABLE_MAX_STAGES)
		return bs_fail(err, BS_ERR_FORMAT, "%s has an invalid stage count %" PRIu64 " (must be 1 to %d)",
					   what, h->n, BS_GROWABLE_MAX_STAGES);
	if (!(fpr > 0.0 && fpr < 1.0))
		return bs_fail(err, BS_ERR_FORMAT, "%s has an invalid false-positive rate %s",
					   what, bs_num(fpr).s);
	if (bs_growable_stage_target(h->p1, h->p2, fpr, (uint32_t) h->n - 1, &cap, &p, err) != BS_OK)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s has %" PRIu64 " stages, more than its capacity %" PRIu64 " and growth %u allow",
					   what, h->n, h->p1, h->p2);
	dir = h->n * BS_GROWABLE_ENTRY_BYTES;
	if (plen < dir)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s of %" PRIu64 " stages must have at least %" PRIu64 " payload bytes, has %" PRIu64,
					   what, h->n, dir, plen);
	off = dir;
	for (i = 0; i < h->n; i++)
	{
		const uint8_t *e = payload + (uint64_t) i * BS_GROWABLE_ENTRY_BYTES;
		uint64_t	m = bs_load64(e + ENTRY_M),
					count = bs_load64(e + ENTRY_COUNT),
					nbytes;
		uint32_t	k = bs_load32(e + ENTRY_K);
		bs_error	shape_err;

		if (bs_bloom_check_layout_shape(m, k, layout, &shape_err) != BS_OK)
			return bs_fail(err, BS_ERR_FORMAT, "%s has an invalid stage %u: %s",
						   what, i, shape_err.msg);
		if (bs_load32(e + ENTRY_RESERVED) != 0)
			return bs_fail(err, BS_ERR_FORMAT, "%s has a nonzero reserved field in stage %u",
						   what, i);
		if (count > BS_GROWABLE_MAX_COUNT)
			return bs_fail(err, BS_ERR_FORMAT, "%s has an invalid key count %" PRIu64 " in stage %u",
						   what, count, i);
		if (stage_too_small(h, fpr, i, m))
			return bs_fail(err, BS_ERR_FORMAT,
						   "%s has a stage %u of %" PRIu64 " bits, fewer than its growth rule gives a stage for its capacity",
						   what, i, m);
		nbytes = bs_bloom_payload_bytes(m);
		if (nbytes > plen - off)
			return bs_fail(err, BS_ERR_FORMAT,
						   "%s is too short for its stage %u of %" PRIu64 " bits",
						   what, i, m);
		off += nbytes;
		if (m % 8 != 0 && (payload[off - 1] >> (m % 8)) != 0)
			return bs_fail(err, BS_ERR_FORMAT,
						   "%s has bits set past the last bit %" PRIu64 " of stage %u",
						   what, m - 1, i);
	}
	if (off != plen)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s of %" PRIu64 " stages must have %" PRIu64 " payload bytes, has %" PRIu64,
					   what, h->n, off, plen);
	return BS_OK;
}
