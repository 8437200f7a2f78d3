/*
 * call_cache.c: per-call-site facts kept in fn_extra (doc/architecture.md,
 * section 5).
 *
 * A function called once per row keeps here what does not change between
 * rows: the key family of its value argument (found by key_arg.c), and the
 * detoasted copy of a
 * sketch argument that is the same stored value on every row (a filter read
 * once by an InitPlan, a constant).  An out-of-line value is identified by
 * its TOAST pointer (relation and value OID), which names exactly one
 * immutable value; an inline compressed value (cms and topk compress) by its
 * compressed bytes, compared in full.  Either way the cache can never answer
 * with another sketch's bytes.
 */
#include "glue.h"

#include <sys/mman.h>

#include "access/detoast.h"
#include "utils/memutils.h"

/* One cached detoasted sketch per sketch argument position. */
#define BS_CACHED_ARGS 2

typedef struct bs_cached_sketch
{
	bool		ready;
	struct varatt_external toast_id;	/* when the value was out of line */
	struct varlena *compressed;	/* a copy, when it was inline compressed */
	struct varlena *sketch;		/* detoasted, in fn_mcxt */
	void	   *alloc;			/* what to pfree for sketch, when not sketch */
} bs_cached_sketch;

typedef struct bs_call_cache
{
	bs_call_head head;			/* first: glue.h's inline functions read it */
	bs_cached_sketch sketches[BS_CACHED_ARGS];
	void	   *slots[BS_CACHED_ARGS];	/* sliced.c's state, per argument */
} bs_call_cache;

static bs_call_cache *
get_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(bs_call_cache));
	return (bs_call_cache *) fcinfo->flinfo->fn_extra;
}

const bs_key_info *
bs_key_arg_resolve(FunctionCallInfo fcinfo, int argno)
{
	bs_call_cache *c = get_cache(fcinfo);

	if (!c->head.key_ready)
	{
		bs_key_info_of_arg(fcinfo, argno, &c->head.key);
		c->head.key_ready = true;
	}
	return &c->head.key;
}

void	  **
bs_call_slot(FunctionCallInfo fcinfo, int argno)
{
	if (argno < 0 || argno >= BS_CACHED_ARGS)
		return NULL;
	return &get_cache(fcinfo)->slots[argno];
}

void
bs_memo_set(FunctionCallInfo fcinfo, uint64_t a, uint64_t b, uint64_t x, uint64_t y)
{
	bs_call_cache *c = get_cache(fcinfo);

	c->head.memo_in[0] = a;
	c->head.memo_in[1] = b;
	c->head.memo_out[0] = x;
	c->head.memo_out[1] = y;
	c->head.memo_ready = true;
}

/*
 * A large cached sketch is read at random on every row (a semi-join probes
 * one filter for each row): with 4 kB pages most probes also miss the TLB.
 * So a copy of 4 MB or more moves to memory that the kernel is asked to back
 * with 2 MB pages (MADV_HUGEPAGE, which transparent_hugepage=madvise honours;
 * without it, or where madvise fails, nothing changes but the copy).
 */
#define HUGE_PAGE (2 * 1024 * 1024)
#define HUGE_COPY_MIN (4 * 1024 * 1024)

static void
huge_page_copy(bs_cached_sketch *c)
{
#ifdef MADV_HUGEPAGE
	Size		len = VARSIZE_ANY(c->sketch);
	char	   *mem,
			   *aligned;

	if (len < HUGE_COPY_MIN)
		return;
	mem = MemoryContextAllocHuge(CurrentMemoryContext, len + HUGE_PAGE);
	aligned = (char *) TYPEALIGN(HUGE_PAGE, mem);
	/* before the first touch, so that the pages are faulted in huge */
	(void) madvise(aligned, TYPEALIGN_DOWN(HUGE_PAGE, len), MADV_HUGEPAGE);
	memcpy(aligned, c->sketch, len);
	pfree(c->sketch);
	c->sketch = (struct varlena *) aligned;
	c->alloc = mem;
#else
	(void) c;
#endif
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

	if (argno < BS_CACHED_ARGS &&
		(VARATT_IS_EXTERNAL_ONDISK(raw) || VARATT_IS_COMPRESSED(raw)))
	{
		bs_cached_sketch *c = &get_cache(fcinfo)->sketches[argno];
		struct varatt_external id;
		bool		same;

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
			huge_page_copy(c);
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
