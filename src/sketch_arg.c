/*
 * sketch_arg.c: every way a SQL function gets a sketch argument
 * (doc/architecture.md, section 5.2).
 *
 * bs_sketch_arg: the whole value, detoasted.  A value that is the same on
 * every row (a filter read once by an InitPlan, a constant) is detoasted
 * once per call site and kept in fn_extra: an out-of-line value is known by
 * its TOAST pointer (relation and value OID), which names exactly one
 * immutable value, an inline compressed one (cms and topk compress) by its
 * compressed bytes, compared in full, so the cache can never answer with
 * another sketch's bytes.  bs_sketch_arg_copy: a writable copy.
 * bs_state_arg: an aggregate's state, in place.  bs_sketch_arg_lookup and
 * bs_sketch_ref_probe: a few TOAST chunks of a large stored value, for a
 * lookup of one key (below).  Each checks the bytes (bs_validate, quick)
 * before any other code reads them.
 *
 * Sliced lookups read a few TOAST chunks, not the whole value.
 *
 * A lookup of one key (bloom and cbloom membership and counts, cms
 * frequency) reads the header and, per probe, a byte or eight of the
 * payload.  For a value stored out of line and uncompressed (bloom and
 * cbloom are STORAGE external; a cms can be too), PostgreSQL stores the
 * bytes in chunks of TOAST_MAX_CHUNK_SIZE, so the chunk that holds byte i
 * is i / TOAST_MAX_CHUNK_SIZE and can be fetched alone.  A lookup here:
 *
 *   1. fetches the first chunk (the header) and the last one (the last
 *      payload byte, which the quick check reads), into a buffer of the
 *      value's size kept per call site;
 *   2. runs the quick bs_validate on that buffer with the size the TOAST
 *      pointer records: the header must imply exactly the stored size, or
 *      the lookup fails with XX001 before anything else is read;
 *   3. after the caller has hashed the key with the header's seed,
 *      bs_sketch_ref_probe fetches the chunks that hold the bytes
 *      bs_probe_ranges lists for the hash, each chunk once, neighbours in one
 *      fetch; the caller's lookup then runs on the buffer unchanged.
 *
 * Every fetch goes through table_relation_fetch_toast_slice, PostgreSQL's
 * own chunk reader (an index scan of the TOAST relation on value id and
 * chunk number), which checks the number and size of every chunk it returns
 * and raises XX001 for a missing or malformed one.  So a truncated value is
 * an error, and no byte past the stored size is read.
 *
 * Everything else takes the full read of bs_sketch_arg: inline or compressed
 * values, growable bloom filters, values of fewer than BS_SLICED_MIN_CHUNKS chunks (a full read is
 * then as fast), and a value probed again right after a sliced lookup
 * of it at the same call site, as in WHERE (SELECT f FROM ...) @> u: from
 * its second probe on, it is detoasted once and kept in fn_extra.
 */
#include "glue.h"

#include <sys/mman.h>

#include "access/detoast.h"
#include "access/heaptoast.h"
#include "access/table.h"
#include "access/tableam.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "core/probe_ranges.h"


/* The detoasted copy of one sketch argument, kept in fn_extra (BS_SLOT_DETOASTED). */
typedef struct bs_cached_sketch
{
	bool		ready;
	struct varatt_external toast_id;	/* when the value was out of line */
	struct varlena *compressed;	/* a copy, when it was inline compressed */
	struct varlena *sketch;		/* detoasted, in fn_mcxt */
	void	   *alloc;			/* what to pfree for sketch, when not sketch */
} bs_cached_sketch;

/*
 * The cached copy is read at random on every row (a semi-join probes one
 * filter for each row), so it is placed for that:
 *
 * - its payload starts on a cache line.  The payload follows the varlena
 *   header and the sketch header (VARHDRSZ + BS_HEADER_SIZE = 52 bytes), so
 *   a palloc'd copy put a blocked filter's 64-byte blocks across two lines
 *   each, and most lookups of "one line per key" touched two (a key's k bits
 *   miss the first line's 12 bytes with probability (52/64)^k, 29% at k 6).
 * - a copy of 4 MB or more is in memory that the kernel is asked to back
 *   with 2 MB pages (MADV_HUGEPAGE, which transparent_hugepage=madvise
 *   honours; without it, or where madvise fails, nothing changes but the
 *   copy): with 4 kB pages most probes of a large filter also miss the TLB.
 *
 * A copy below PLACED_COPY_MIN stays as detoast_attr made it: it is read
 * from L1 or L2, and a query over many small stored sketches would pay one
 * more copy per row.
 */
#define CACHE_LINE 64
#define HUGE_PAGE (2 * 1024 * 1024)
#define HUGE_COPY_MIN (4 * 1024 * 1024)
#define PLACED_COPY_MIN (16 * 1024)
/* where the varlena goes after an aligned address, so that its payload starts a line */
#define PAYLOAD_SKEW ((CACHE_LINE - (VARHDRSZ + BS_HEADER_SIZE) % CACHE_LINE) % CACHE_LINE)

static void
placed_copy(bs_cached_sketch *c)
{
	Size		len = VARSIZE_ANY(c->sketch);
	Size		align = CACHE_LINE;
	char	   *mem,
			   *aligned;

	/* detoast_attr gives a 4-byte header; anything else stays where it is */
	if (VARATT_IS_SHORT(c->sketch) || len < PLACED_COPY_MIN)
		return;
#ifdef MADV_HUGEPAGE
	if (len >= HUGE_COPY_MIN)
		align = HUGE_PAGE;
#endif
	mem = MemoryContextAllocHuge(CurrentMemoryContext, len + align + PAYLOAD_SKEW);
	aligned = (char *) TYPEALIGN(align, mem);
#ifdef MADV_HUGEPAGE
	/* before the first touch, so that the pages are faulted in huge */
	if (align == HUGE_PAGE)
		(void) madvise(aligned, TYPEALIGN_DOWN(HUGE_PAGE, len), MADV_HUGEPAGE);
#endif
	memcpy(aligned + PAYLOAD_SKEW, c->sketch, len);
	pfree(c->sketch);
	c->sketch = (struct varlena *) (aligned + PAYLOAD_SKEW);
	c->alloc = mem;
}

static void
quick_check(const uint8_t *data, size_t len, bs_kind kind)
{
	BS_TRY(bs_validate(data, len, kind, false, NULL, BS_ERR),
		   ERRCODE_DATA_CORRUPTED);
}

void
bs_sketch_arg(FunctionCallInfo fcinfo, int argno, bs_kind kind, bs_sketch_ref *ref)
{
	struct varlena *raw = (struct varlena *) PG_GETARG_POINTER(argno);
	struct varlena *v;

	void	  **slot;

	if ((VARATT_IS_EXTERNAL_ONDISK(raw) || VARATT_IS_COMPRESSED(raw)) &&
		(slot = bs_call_slot(fcinfo, argno, BS_SLOT_DETOASTED)) != NULL)
	{
		bs_cached_sketch *c;
		struct varatt_external id;
		bool		same;

		if (*slot == NULL)
			*slot = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(bs_cached_sketch));
		c = (bs_cached_sketch *) *slot;

		if (VARATT_IS_EXTERNAL_ONDISK(raw))
		{
			VARATT_EXTERNAL_GET_POINTER(id, raw);
			same = c->ready && c->compressed == NULL &&
				memcmp(&id, &c->toast_id, sizeof(id)) == 0;
		}
		else
			same = c->ready && c->compressed != NULL &&
				VARSIZE(c->compressed) == VARSIZE(raw) &&
				memcmp(c->compressed, raw, VARSIZE(raw)) == 0;
		if (!same)
		{
			MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

			c->ready = false;
			if (c->sketch)
				pfree(c->alloc ? c->alloc : c->sketch);
			if (c->compressed)
				pfree(c->compressed);
			c->sketch = NULL;
			c->alloc = NULL;
			c->compressed = NULL;
			c->sketch = detoast_attr(raw);
			placed_copy(c);
			if (VARATT_IS_EXTERNAL_ONDISK(raw))
				c->toast_id = id;
			else
			{
				c->compressed = palloc(VARSIZE(raw));
				memcpy(c->compressed, raw, VARSIZE(raw));
			}
			MemoryContextSwitchTo(old);
			quick_check((uint8_t *) VARDATA_ANY(c->sketch),
						VARSIZE_ANY_EXHDR(c->sketch), kind);
			c->ready = true;
		}
		ref->data = (uint8_t *) VARDATA_ANY(c->sketch);
		ref->len = VARSIZE_ANY_EXHDR(c->sketch);
		ref->to_free = NULL;
		ref->sliced = NULL;
		return;
	}

	/* Inline and not compressed: no copy. */
	v = pg_detoast_datum_packed(raw);
	ref->data = (uint8_t *) VARDATA_ANY(v);
	ref->len = VARSIZE_ANY_EXHDR(v);
	ref->to_free = (v != raw) ? v : NULL;
	ref->sliced = NULL;
	quick_check(ref->data, ref->len, kind);
}

void
bs_sketch_release(bs_sketch_ref *ref)
{
	if (ref->to_free)
		pfree(ref->to_free);
	ref->to_free = NULL;
}

bytea *
bs_sketch_arg_copy(FunctionCallInfo fcinfo, int argno, bs_kind kind)
{
	/* One detoast that is also the copy; 4-byte header, writable. */
	bytea	   *copy = (bytea *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(argno));

	quick_check(BS_DATA(copy), VARSIZE(copy) - VARHDRSZ, kind);
	return copy;
}

uint8_t *
bs_state_arg(FunctionCallInfo fcinfo, int argno, bs_kind kind)
{
	struct varlena *state = (struct varlena *) PG_GETARG_POINTER(argno);

	if (VARATT_IS_EXTENDED(state))
		state = (struct varlena *) bs_sketch_arg_copy(fcinfo, argno, kind);
	return BS_DATA(state);
}

/* ---- sliced lookups ---- */

/*
 * Values with fewer chunks are read whole (128 chunks are about 250 kB).  A
 * sliced lookup costs about ten index scans of the TOAST relation (the first
 * and last chunks, one per probe), each about as dear as reading ten chunks
 * in one scan, so below about a hundred chunks the full read is as fast.
 */
#define BS_SLICED_MIN_CHUNKS 128

/* Chunks one lookup fetches: the first, the last, and two per probe range. */
#define BS_SLICED_MAX_CHUNKS (2 + 2 * BS_PROBE_RANGES_MAX)

struct bs_sliced
{
	bool		has_last;
	struct varatt_external last;	/* the value of the latest sliced lookup */
	uint8_t    *buf;			/* in fn_mcxt: the value's bytes where fetched */
	size_t		cap;
	size_t		len;			/* the value's size */
	int			nhave;			/* chunks fetched for this lookup */
	int32		have[BS_SLICED_MAX_CHUNKS];
};

static int32
chunk_of(uint64_t off)
{
	return (int32) (off / TOAST_MAX_CHUNK_SIZE);
}

static int
cmp_int32(const void *a, const void *b)
{
	int32		x = *(const int32 *) a,
				y = *(const int32 *) b;

	return (x > y) - (x < y);
}

/*
 * Fetch chunks want[0..n) (sorted, distinct) of the value into s->buf, runs
 * of neighbouring chunks in one fetch each.
 */
static void
fetch_chunks(bs_sliced *s, const struct varatt_external *tp, const int32 *want, int n)
{
	Relation	toastrel;
	struct varlena *scratch = NULL;
	size_t		scratch_len = 0;
	int			i = 0;

	toastrel = table_open(tp->va_toastrelid, AccessShareLock);
	while (i < n)
	{
		int			j = i;
		size_t		off,
					end;

		while (j + 1 < n && want[j + 1] == want[j] + 1)
			j++;
		off = (size_t) want[i] * TOAST_MAX_CHUNK_SIZE;
		end = Min(s->len, ((size_t) want[j] + 1) * TOAST_MAX_CHUNK_SIZE);
		if (end - off > scratch_len)
		{
			if (scratch)
				pfree(scratch);
			scratch_len = end - off;
			scratch = (struct varlena *) palloc(VARHDRSZ + scratch_len);
		}
		SET_VARSIZE(scratch, VARHDRSZ + end - off);
		table_relation_fetch_toast_slice(toastrel, tp->va_valueid, (int32) s->len,
										 (int32) off, (int32) (end - off), scratch);
		memcpy(s->buf + off, VARDATA(scratch), end - off);
		i = j + 1;
	}
	table_close(toastrel, AccessShareLock);
	if (scratch)
		pfree(scratch);
}

void
bs_sketch_arg_lookup(FunctionCallInfo fcinfo, int argno, bs_kind kind, bs_sketch_ref *ref)
{
	struct varlena *raw = (struct varlena *) PG_GETARG_POINTER(argno);
	struct varatt_external tp;
	void	  **slot;
	bs_sliced  *s;
	size_t		len;
	int32		want[2];
	bs_header	hd;

	if (!VARATT_IS_EXTERNAL_ONDISK(raw) || (slot = bs_call_slot(fcinfo, argno, BS_SLOT_SLICED)) == NULL)
		goto full;
	VARATT_EXTERNAL_GET_POINTER(tp, raw);
	len = VARATT_EXTERNAL_GET_EXTSIZE(tp);
	/* compressed when the stored size is below the raw size (VARATT_EXTERNAL_IS_COMPRESSED) */
	if (tp.va_rawsize < VARHDRSZ || (size_t) tp.va_rawsize - VARHDRSZ != len ||
		len > BS_MAX_SKETCH_BYTES ||
		len < (size_t) BS_SLICED_MIN_CHUNKS * TOAST_MAX_CHUNK_SIZE)
		goto full;				/* the full read reports what is wrong, if anything */

	if (*slot == NULL)
		*slot = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(bs_sliced));
	s = (bs_sliced *) *slot;
	if (s->has_last && memcmp(&tp, &s->last, sizeof(tp)) == 0)
		goto full;				/* probed again: read it once, cached from now on */
	s->last = tp;
	s->has_last = true;

	if (len > s->cap)
	{
		if (s->buf)
			pfree(s->buf);
		s->buf = NULL;
		s->cap = 0;
		s->buf = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, len);
		s->cap = len;
	}
	s->len = len;
	want[0] = 0;
	want[1] = chunk_of(len - 1);
	fetch_chunks(s, &tp, want, 2);
	s->nhave = 2;
	s->have[0] = want[0];
	s->have[1] = want[1];
	/* a value whose check or lookup reads more than that is read whole */
	bs_header_read(s->buf, &hd);
	if (!bs_probe_ranges_suffice(&hd))
		goto full;
	BS_TRY(bs_validate(s->buf, len, kind, false, NULL, BS_ERR), ERRCODE_DATA_CORRUPTED);

	ref->data = s->buf;
	ref->len = len;
	ref->to_free = NULL;
	ref->sliced = s;
	return;

full:
	bs_sketch_arg(fcinfo, argno, kind, ref);
}

uint64_t
bs_lookup_hash(FunctionCallInfo fcinfo, int sketch_arg, int key_arg, bs_kind kind,
			   const char *what, bs_sketch_ref *ref)
{
	const bs_key_info *ki = bs_key_arg(fcinfo, key_arg);
	bs_header	hd;
	uint64_t	h;

	bs_sketch_arg_lookup(fcinfo, sketch_arg, kind, ref);
	bs_header_read(ref->data, &hd);
	bs_check_family(hd.family, ki, what);
	h = bs_key_hash(ki, PG_GETARG_DATUM(key_arg), hd.seed);
	bs_sketch_ref_probe(ref, h);
	return h;
}

void
bs_sketch_ref_probe(bs_sketch_ref *ref, uint64_t h)
{
	bs_sliced  *s = ref->sliced;
	bs_byte_range r[BS_PROBE_RANGES_MAX];
	int32		want[BS_SLICED_MAX_CHUNKS];
	bs_header	hd;
	size_t		n,
				i;
	int			nwant = 0,
				k;

	if (s == NULL)
		return;
	bs_header_read(s->buf, &hd);	/* checked by bs_sketch_arg_lookup */
	n = bs_probe_ranges(&hd, h, r);
	for (i = 0; i < n; i++)
	{
		int32		c;

		if (r[i].len == 0 || r[i].off > s->len || r[i].len > s->len - r[i].off)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("probe range [%llu, +%llu) lies outside the %s value of %zu bytes",
							(unsigned long long) r[i].off, (unsigned long long) r[i].len,
							bs_kind_name(hd.kind), s->len)));
		for (c = chunk_of(r[i].off); c <= chunk_of(r[i].off + r[i].len - 1); c++)
		{
			bool		seen = false;

			for (k = 0; k < s->nhave && !seen; k++)
				seen = s->have[k] == c;
			for (k = 0; k < nwant && !seen; k++)
				seen = want[k] == c;
			if (!seen)
				want[nwant++] = c;
		}
	}
	if (nwant == 0)
		return;
	qsort(want, nwant, sizeof(int32), cmp_int32);
	fetch_chunks(s, &s->last, want, nwant);
	for (k = 0; k < nwant && s->nhave < BS_SLICED_MAX_CHUNKS; k++)
		s->have[s->nhave++] = want[k];
}
