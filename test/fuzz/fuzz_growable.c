/*
 * fuzz_growable.c: a growable bloom value from outside (bloom_in, bloom_recv,
 * the bytea cast: a bloom value with the growable bit in p3,
 * src/core/growable.h), then everything the SQL functions do with it.
 *
 * When bs_validate(deep) accepts the input and it is growable:
 *   - the view: the stages lie end to end inside the value, each of a shape
 *     its layout allows; bloom_info / bloom_stages / bloom_cardinality /
 *     bloom_fpr: the sums of the stages' estimates and the compound rate;
 *   - bloom_contains / @>: lookups, read-only, on the input's own bytes;
 *   - bloom_add: new keys (found after, counted in the last stage), a held
 *     key (no byte changes), and a key that opens a stage (the last stage
 *     counted full by hand, which leaves a valid value): the new stage has
 *     the shape of n0 s^S keys at P 2^-(S+1) and the old stages are copied
 *     unchanged; or, past the limits, an error with a message and the value
 *     unchanged.  A stage larger than FZ_STAGE_MAX bytes is not opened (the
 *     directory need not match the sizing, so a small value may ask for a
 *     large next stage, as bloom_empty may; doc/format.md);
 *   - bloom_union (and bloom_union_agg): with itself (bits unchanged, counts
 *     by the rule of growable.h, (x | x) | x = x | x), with a valid filter of the same parameters
 *     and more or fewer stages (into the longer one, as src/bloom.c does; the
 *     union holds both sides' keys), and the refusals of other parameters,
 *     another stage shape and another family;
 *   - every result's text form decodes to itself and passes bs_validate.
 * Every value is an exact-length buffer; hashes come from the input.
 */
#include "fuzz_common.h"
#include "core/bloom_value.h"
#include "core/growable.h"

#define NKEYS 6
/* the largest stage a target opens (bytes of bits) */
#define FZ_STAGE_MAX ((uint64_t) 1 << 20)

/* Count a merged stage gets (growable.h), computed here independently. */
static uint64_t
want_count(uint64_t a, uint64_t b, double e)
{
	uint64_t	hi = a > b ? a : b,
				r;

	if (!(e < 9007199254740992.0))
		return BS_GROWABLE_MAX_COUNT;
	r = (uint64_t) floor(e + 0.5);
	return r > hi ? r : hi;
}

static bool
empty_stage(const bs_growable *g, uint32_t i)
{
	uint64_t	j,
				nbytes = bs_bloom_payload_bytes(g->stage[i].m);

	if (g->count[i] != 0)
		return false;
	for (j = 0; j < nbytes; j++)
		if (g->stage[i].bits[j])
			return false;
	return true;
}

static void
check_view(const bs_growable *g, size_t size, const char *what)
{
	uint64_t	off = BS_HEADER_SIZE + (uint64_t) g->nstages * BS_GROWABLE_ENTRY_BYTES;
	uint32_t	i;
	bs_error	err;

	FZ_CHECK(g->nstages >= 1 && g->nstages <= BS_GROWABLE_MAX_STAGES && g->layout <= BS_LAYOUT_MAX &&
			 g->growth >= 1 && g->growth <= BS_GROWABLE_MAX_GROWTH && g->n0 >= 1 &&
			 g->n0 <= BS_GROWABLE_MAX_COUNT && g->fpr > 0 && g->fpr < 1,
			 "%s: accepted %u stages, layout %u, growth %u, capacity %" PRIu64 ", rate %g", what,
			 g->nstages, g->layout, g->growth, g->n0, g->fpr);
	for (i = 0; i < g->nstages; i++)
	{
		const bs_bloom *s = &g->stage[i];

		FZ_CHECK(s->bits == g->buf + off, "%s: stage %u does not follow the one before", what, i);
		FZ_CHECK(bs_bloom_check_layout_shape(s->m, s->k, g->layout, &err) == BS_OK,
				 "%s: stage %u of %" PRIu64 " bits and %u hashes accepted: %s", what, i, s->m, s->k, err.msg);
		FZ_CHECK(g->count[i] <= BS_GROWABLE_MAX_COUNT, "%s: stage %u counts %" PRIu64, what, i, g->count[i]);
		off += bs_bloom_payload_bytes(s->m);
	}
	FZ_CHECK(off == size && g->len == size, "%s: stages end at %" PRIu64 ", view length %" PRIu64 ", value %zu bytes",
			 what, off, g->len, size);
}

static void
check_stats(const bs_growable *g, const char *what)
{
	double		n = 0,
				miss = 1,
				card = bs_growable_cardinality(g),
				fpr = bs_growable_fpr(g);
	uint64_t	m = 0,
				x = 0,
				gm,
				gx;
	uint32_t	i;

	for (i = 0; i < g->nstages; i++)
	{
		n += bs_bloom_cardinality_of(&g->stage[i]);
		miss *= 1.0 - bs_bloom_fpr_of(&g->stage[i]);
		m += g->stage[i].m;
		x += bs_popcount(g->stage[i].bits, bs_bloom_payload_bytes(g->stage[i].m));
	}
	bs_growable_bits(g, &gm, &gx);
	FZ_CHECK(gm == m && gx == x && x <= m,
			 "%s: %" PRIu64 " of %" PRIu64 " bits set, the stages sum to %" PRIu64 " of %" PRIu64, what,
			 gx, gm, x, m);
	FZ_CHECK(card >= 0 && (card == n || (isinf(card) && isinf(n))),
			 "%s: cardinality %g, the stages' sum %g", what, card, n);
	FZ_CHECK(fpr >= 0 && fpr <= 1 && fpr == 1 - miss, "%s: rate %g, compound of the stages %g", what, fpr, 1 - miss);
}

static void
check_has(const bs_growable *g, const uint64_t *keys, int n, const char *what)
{
	int			i;

	for (i = 0; i < n; i++)
		FZ_CHECK(bs_growable_contains(g, keys[i]), "%s: key %d (hash %016" PRIx64 ") added but not found",
				 what, i, keys[i]);
}

static void
dup_view(const bs_growable *g, bs_growable *out)
{
	bs_growable_view(fz_dup(g->buf, (size_t) g->len), out);
}

/* The bytes of the next stage, or 0 when the sizing refuses it. */
static uint64_t
next_stage_bytes(const bs_growable *g, uint64_t *m, uint32_t *k)
{
	uint64_t	cap;
	double		p;

	if (bs_growable_stage_target(g->n0, g->growth, g->fpr, g->nstages, &cap, &p, NULL) != BS_OK ||
		bs_bloom_shape_for((double) cap, p, g->layout, m, k, NULL) != BS_OK)
		return 0;
	return bs_bloom_payload_bytes(*m);
}

/*
 * Add h to g; checks what the add did against before.  Returns false when
 * it failed (past the limits), which leaves g as it was.
 */
static bool
add_and_check(bs_growable *g, uint64_t h, const char *what)
{
	bs_growable before = *g;
	uint8_t    *old = fz_dup(g->buf, (size_t) g->len);
	bool		held = bs_growable_contains(g, h),
				grown = true;
	uint32_t	last = g->nstages - 1,
				i;
	uint64_t	cap = 0;
	double		p;
	bs_error	err;
	bs_status	st,
				tst;

	tst = bs_growable_stage_target(g->n0, g->growth, g->fpr, last, &cap, &p, &err);
	FZ_CHECK(tst == BS_OK, "%s: the last stage %u of an accepted value has no target: %s", what, last, err.msg);
	st = bs_growable_add(g, h, &fz_allocator, &grown, &err);
	if (st != BS_OK)
	{
		fz_check_error(st, st, &err, what);
		FZ_CHECK(!held && before.count[last] >= cap && !grown && g->buf == before.buf &&
				 memcmp(old, g->buf, (size_t) g->len) == 0,
				 "%s: a failed add (%s) of a %s key changed the value or was not opening a stage", what,
				 err.msg, held ? "held" : "new");
		return false;
	}
	FZ_CHECK(bs_growable_contains(g, h), "%s: key %016" PRIx64 " added but not found", what, h);
	if (held)
	{
		FZ_CHECK(!grown && g->buf == before.buf && memcmp(old, g->buf, (size_t) g->len) == 0,
				 "%s: adding a held key changed the value", what);
		return true;
	}
	FZ_CHECK(grown == (before.count[last] >= cap), "%s: a stage %s with %" PRIu64 " keys in a last stage for %" PRIu64,
			 what, grown ? "opened" : "did not open", before.count[last], cap);
	if (grown)
	{
		uint64_t	m = 0;
		uint32_t	k = 0;

		FZ_CHECK(next_stage_bytes(&before, &m, &k) != 0 && g->nstages == before.nstages + 1 &&
				 g->stage[last + 1].m == m && g->stage[last + 1].k == k && g->count[last + 1] == 1,
				 "%s: stage %u opened with %" PRIu64 " bits and %u hashes, the sizing gives %" PRIu64 " and %u",
				 what, last + 1, g->stage[last + 1].m, g->stage[last + 1].k, m, k);
		FZ_CHECK(memcmp(g->buf, old, BS_OFF_N) == 0 && memcmp(g->buf + BS_OFF_X, old + BS_OFF_X, 8) == 0,
				 "%s: opening a stage changed the header", what);
		for (i = 0; i < before.nstages; i++)
			FZ_CHECK(g->count[i] == before.count[i] && g->stage[i].m == before.stage[i].m &&
					 g->stage[i].k == before.stage[i].k &&
					 memcmp(g->stage[i].bits, before.stage[i].bits, bs_bloom_payload_bytes(g->stage[i].m)) == 0,
					 "%s: opening a stage changed stage %u", what, i);
	}
	else
		FZ_CHECK(g->nstages == before.nstages && g->count[last] == before.count[last] + 1,
				 "%s: a new key was not counted once in the last stage", what);
	check_view(g, (size_t) g->len, what);
	fz_roundtrip(g->buf, (size_t) g->len, BS_KIND_BLOOM, what);
	return true;
}

/* dst | src as src/bloom.c makes it: into a copy of the side with more stages. */
static void
union_and_check(const bs_growable *a, const bs_growable *b, bs_growable *u, const char *what)
{
	const bs_growable *dst = a->nstages >= b->nstages ? a : b,
			   *src = a->nstages >= b->nstages ? b : a;
	bs_error	err;
	uint32_t	i;

	fz_check_error(bs_growable_check_mergeable(a, b, &err), BS_OK, &err, what);
	fz_check_error(bs_growable_check_mergeable(b, a, &err), BS_OK, &err, what);
	dup_view(dst, u);
	bs_growable_or(u, src);
	FZ_CHECK(u->nstages == dst->nstages && u->len == dst->len &&
			 u->family == bs_family_join(a->family, b->family) && u->buf[BS_OFF_FAMILY] == u->family,
			 "%s: the union has %u stages, family %d", what, u->nstages, u->buf[BS_OFF_FAMILY]);
	for (i = 0; i < u->nstages; i++)
	{
		uint64_t	j,
					nbytes = bs_bloom_payload_bytes(u->stage[i].m);

		if (i >= src->nstages)
		{
			FZ_CHECK(u->count[i] == dst->count[i] &&
					 memcmp(u->stage[i].bits, dst->stage[i].bits, nbytes) == 0,
					 "%s: stage %u, past the shorter side, changed", what, i);
			continue;
		}
		for (j = 0; j < nbytes; j++)
			FZ_CHECK(u->stage[i].bits[j] == (dst->stage[i].bits[j] | src->stage[i].bits[j]),
					 "%s: stage %u byte %" PRIu64 " is not the OR of both", what, i, j);
		/* an empty stage takes no part, else the rule */
		if (empty_stage(src, i) || empty_stage(dst, i))
			FZ_CHECK(u->count[i] == (empty_stage(src, i) ? dst->count[i] : src->count[i]),
					 "%s: stage %u counts %" PRIu64 " after merging %" PRIu64 " and %" PRIu64 ", one empty",
					 what, i, u->count[i], dst->count[i], src->count[i]);
		else
			FZ_CHECK(u->count[i] == want_count(dst->count[i], src->count[i], bs_bloom_cardinality_of(&u->stage[i])),
				 "%s: stage %u counts %" PRIu64 " after merging %" PRIu64 " and %" PRIu64, what, i,
				 u->count[i], dst->count[i], src->count[i]);
	}
	check_view(u, (size_t) u->len, what);
	check_stats(u, what);
	fz_roundtrip(u->buf, (size_t) u->len, BS_KIND_BLOOM, what);
}

/* The refusals of check_mergeable, on views changed in memory. */
static void
check_refusals(const bs_growable *x)
{
	bs_growable *o = (bs_growable *) fz_alloc(NULL, sizeof(bs_growable));
	bs_error	err;

	*o = *x;
	o->n0 = x->n0 % BS_GROWABLE_MAX_COUNT + 1;
	fz_check_error(bs_growable_check_mergeable(x, o, &err), BS_ERR_SHAPE, &err, "other capacity");
	*o = *x;
	o->growth = x->growth % BS_GROWABLE_MAX_GROWTH + 1;
	fz_check_error(bs_growable_check_mergeable(o, x, &err), BS_ERR_SHAPE, &err, "other growth");
	*o = *x;
	o->fpr = nextafter(x->fpr, 1.0);
	fz_check_error(bs_growable_check_mergeable(x, o, &err), BS_ERR_SHAPE, &err, "other rate");
	*o = *x;
	o->layout = x->layout ^ 1;
	fz_check_error(bs_growable_check_mergeable(x, o, &err), BS_ERR_SHAPE, &err, "other layout");
	*o = *x;
	o->seed = x->seed + 1;
	fz_check_error(bs_growable_check_mergeable(x, o, &err), BS_ERR_SHAPE, &err, "other seed");
	*o = *x;
	o->stage[o->nstages - 1].m++;
	fz_check_error(bs_growable_check_mergeable(x, o, &err), BS_ERR_SHAPE, &err, "other last stage shape");
	*o = *x;
	o->stage[0].k = x->stage[0].k % BS_BLOOM_MAX_HASHES + 1;
	fz_check_error(bs_growable_check_mergeable(o, x, &err), BS_ERR_SHAPE, &err, "other stage 0 hashes");
	if (x->family != BS_FAMILY_NONE)
	{
		*o = *x;
		o->family = fz_other_family(x->family);
		fz_check_error(bs_growable_check_mergeable(x, o, &err), BS_ERR_FAMILY, &err, "other family");
	}
}

/* A valid filter of x's parameters with some keys, or false when x's first stage is not the sizing's. */
static bool
companion(const bs_growable *x, fz_rng *r, uint64_t *keys, bs_growable *c)
{
	uint64_t	m = 0,
				len,
				cap;
	uint32_t	k = 0;
	double		p;
	uint8_t    *buf;
	bs_error	err;
	int			i;

	if (bs_growable_stage_target(x->n0, x->growth, x->fpr, 0, &cap, &p, NULL) != BS_OK ||
		bs_bloom_shape_for((double) cap, p, x->layout, &m, &k, NULL) != BS_OK ||
		m != x->stage[0].m || k != x->stage[0].k)
		return false;
	fz_check_error(bs_growable_new(x->n0, x->fpr, x->growth, x->layout,
								   (fz_next(r) & 1) ? x->family : BS_FAMILY_NONE, x->seed,
								   &fz_allocator, &buf, &len, &err), BS_OK, &err, "companion");
	bs_growable_view(buf, c);
	for (i = 0; i < NKEYS; i++)
	{
		keys[i] = fz_next(r);
		if (!add_and_check(c, keys[i], "companion add"))
			return false;
	}
	/* x's later stages need not be the sizing's (the reader takes them from the directory) */
	for (i = 1; i < (int) c->nstages && i < (int) x->nstages; i++)
		if (c->stage[i].m != x->stage[i].m || c->stage[i].k != x->stage[i].k)
			return false;
	return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bs_header	h;
	bs_error	err;
	fz_rng		r;
	bs_growable *g,
			   *x,
			   *y,
			   *c,
			   *u;
	uint64_t	keys[NKEYS + 1],
				ckeys[NKEYS],
				m = 0;
	uint32_t	k = 0,
				i,
				last;
	int			j,
				nkeys = 0,
				nx;

	if (bs_validate(data, size, BS_KIND_BLOOM, true, &h, &err) != BS_OK ||
		!bs_bloom_is_growable(data))
		return 0;
	/* the views are large (64 stages): in the arena, not on the stack */
	g = (bs_growable *) fz_alloc(NULL, 5 * sizeof(bs_growable));
	x = g + 1;
	y = g + 2;
	c = g + 3;
	u = g + 4;
	r = fz_rng_for(data, size);

	/* read-only use of the value as it came (bloom_info, bloom_stages, @>) */
	bs_growable_view((uint8_t *) data, g);
	FZ_CHECK(g->nstages == h.n && g->n0 == h.p1 && g->growth == h.p2 &&
			 g->layout == (h.p3 & ~(uint32_t) BS_BLOOM_GROWABLE),
			 "the view disagrees with the header");
	check_view(g, size, "input");
	check_stats(g, "input");
	for (j = 0; j < 8; j++)
		(void) bs_growable_contains(g, fz_next(&r));
	for (i = 0; i < g->nstages; i++)
	{
		uint64_t	cap;
		double		p;

		FZ_CHECK(bs_growable_stage_target(g->n0, g->growth, g->fpr, i, &cap, &p, &err) == BS_OK,
				 "stage %u of an accepted value has no target: %s", i, err.msg);
	}

	/* bloom_add: new keys, then a held one */
	dup_view(g, x);
	for (j = 0; j < NKEYS; j++)
	{
		uint64_t	hk = j == 0 ? 0 : j == 1 ? UINT64_MAX : fz_next(&r),
					cap;
		double		p;

		/* an add that would open too large a stage is not made */
		(void) bs_growable_stage_target(x->n0, x->growth, x->fpr, x->nstages - 1, &cap, &p, NULL);
		if (!bs_growable_contains(x, hk) && x->count[x->nstages - 1] >= cap &&
			next_stage_bytes(x, &m, &k) > FZ_STAGE_MAX)
			continue;
		if (add_and_check(x, hk, "add"))
			keys[nkeys++] = hk;
	}
	if (nkeys > 0)
	{
		bs_growable before = *x;

		FZ_CHECK(add_and_check(x, keys[0], "add held") && x->buf == before.buf, "adding a held key failed");
	}
	check_has(x, keys, nkeys, "after adds");
	check_stats(x, "after adds");
	nx = nkeys;

	/* bloom_add that opens a stage: the last stage counted full by hand */
	last = x->nstages - 1;
	{
		uint64_t	cap;
		double		p;
		uint64_t	nb = next_stage_bytes(x, &m, &k),
					hk;

		(void) bs_growable_stage_target(x->n0, x->growth, x->fpr, last, &cap, &p, NULL);
		dup_view(x, y);
		bs_store64(y->buf + BS_HEADER_SIZE + (uint64_t) last * BS_GROWABLE_ENTRY_BYTES + 16, cap);
		bs_growable_view(y->buf, y);
		fz_roundtrip(y->buf, (size_t) y->len, BS_KIND_BLOOM, "last stage counted full");
		/* a new key (a value with a stage of all ones holds every key) */
		hk = fz_next(&r);
		for (j = 0; j < 64 && bs_growable_contains(y, hk); j++)
			hk = fz_next(&r);
		if (nb <= FZ_STAGE_MAX && !bs_growable_contains(y, hk))
		{
			bool		ok;

			ok = add_and_check(y, hk, "add opening a stage");
			FZ_CHECK(ok == (nb != 0 && last + 1 < BS_GROWABLE_MAX_STAGES) && (!ok || y->nstages == last + 2),
					 "opening stage %u (%" PRIu64 " bytes) %s", last + 1, nb, ok ? "succeeded" : "failed");
			if (ok)
			{
				keys[nkeys++] = hk;
				check_has(y, keys, nkeys, "after opening a stage");
				check_stats(y, "after opening a stage");
			}
		}
	}

	/* bloom_union with itself: x's bits, the rule's counts, and it settles */
	fz_check_error(bs_growable_check_mergeable(x, x, &err), BS_OK, &err, "merge with itself");
	union_and_check(x, x, u, "x | x");
	{
		bs_growable u2;

		union_and_check(u, x, &u2, "(x | x) | x");
		FZ_CHECK(u2.len == u->len && memcmp(u2.buf, u->buf, (size_t) u->len) == 0,
				 "(x | x) | x is not x | x, byte for byte");
	}

	/* with y, x with a stage more (or the same when none could open) */
	union_and_check(x, y, u, "x | y");
	check_has(u, keys, nkeys, "x | y");

	/* with a valid filter of the same parameters and the sizing's stages */
	if (companion(x, &r, ckeys, c))
	{
		union_and_check(x, c, u, "x | companion");
		check_has(u, keys, nx, "x | companion");
		check_has(u, ckeys, NKEYS, "x | companion");
		union_and_check(c, x, u, "companion | x");
		check_has(u, ckeys, NKEYS, "companion | x");
	}
	check_refusals(x);

	fz_reset();
	return 0;
}
