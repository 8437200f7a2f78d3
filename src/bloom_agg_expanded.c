/*
 * bloom_agg_expanded.c: a large bloom_agg_state in memory, as an expanded object.
 *
 * Once a group's state outgrows the CPU caches (a table of 2^21 hashes is
 * 16 MB), adding each row's hash where it belongs costs a cache miss and,
 * past a few MB, a TLB miss.  Such a state collects the hashes of its rows in
 * a batch instead, and adds a full batch at once, sorted so that it walks the
 * state in address order (bs_bloom_agg_state_add_batch in core/bloom_agg_state.h).  The state
 * then holds the same hashes or bits as if they had been added one by one, so
 * every result is the same, byte for byte (doc/performance.md has the
 * numbers).
 *
 * The batched hashes must never be lost or missed by a reader, so the state
 * is a PostgreSQL expanded object (utils/expandeddatum.h): nodeAgg and
 * WindowAgg keep a read-write expanded transition value as it is, and every
 * other reader (the output and send functions, a parallel worker's result
 * tuple, a copy) gets the flat bytes, and flattening adds the batch first.
 * The final and combine functions read the object itself.
 *
 * Flattening packs an exact state (bloom_agg_state.h): its hashes without
 * the empty slots, sorted.  That is what leaves the aggregate, so a parallel
 * worker ships 3/8 to 3/4 of the table (8 MB for a million distinct values,
 * not 16) and copies it fewer pages, and the bytes depend on the set of
 * hashes only.  The combine function makes its first state an object again,
 * unpacking it straight into the object's context
 * (bs_bloom_agg_state_merge_into), so nodeAgg copies no table.
 *
 * States for which batches do not pay (bs_bloom_agg_state_batches_pay) stay plain
 * varlenas: an expanded object costs a memory context of its own (about
 * 1 kB), and hash-by-hash adding is faster for them.
 */
#include "glue.h"

#include "utils/expandeddatum.h"
#include "utils/memutils.h"

#include "core/bloom_agg_state.h"

struct bs_bloom_agg_expanded
{
	ExpandedObjectHeader hdr;
	uint8_t    *state;			/* BS_DATA of a varlena in hdr.eoh_context */
	uint64_t   *batch;			/* hashes not yet in the state */
	size_t		n;				/* ... how many */
	size_t		cap;			/* ... room for */
	uint64_t   *scratch;		/* for sorting a batch, when the shared one is too small */
	size_t		scratch_words;
};

static Size expanded_get_flat_size(ExpandedObjectHeader *eohptr);
static void expanded_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods expanded_methods = {
	expanded_get_flat_size,
	expanded_flatten_into
};

/*
 * The object's context: one block of 1 kB for the object itself, and blocks
 * of at most 1 kB, so that every allocation past about 128 bytes (its tables
 * and batches) is a block of its own, freed to the system when the object
 * outgrows it rather than kept on the context's free lists.  A GROUP BY keeps
 * one object per group: 100,000 groups of 50 values took 611 MB with
 * ALLOCSET_SMALL_SIZES (a 1 kB table in a 2 kB block beside its smaller
 * predecessors' freed chunks), 436 MB so.
 */
#define OBJECT_CONTEXT_SIZES 0, 1024, 1024

/* New states of the object go into its own context. */
static uint8_t *
expanded_alloc(void *ctx, size_t len)
{
	bs_bloom_agg_expanded *expanded = (bs_bloom_agg_expanded *) ctx;
	MemoryContext old = MemoryContextSwitchTo(expanded->hdr.eoh_context);
	bytea	   *v = bs_new_sketch(len);

	MemoryContextSwitchTo(old);
	return BS_DATA(v);
}

/* A state replaced in the middle of a batch: nothing else points to it. */
static void
expanded_release(void *ctx, uint8_t *buf)
{
	pfree(BS_VARLENA_OF(buf));
}

/* A buffer of at least words uint64s in the object's context, replacing *buf. */
static void
expanded_reserve(bs_bloom_agg_expanded *expanded, uint64_t **buf, size_t *have, size_t words)
{
	if (*have >= words)
		return;
	if (*buf)
		pfree(*buf);
	*buf = NULL;
	*have = 0;
	*buf = MemoryContextAllocHuge(expanded->hdr.eoh_context, words * sizeof(uint64_t));
	*have = words;
}

/*
 * Scratch for sorting the batches of states that need at most
 * SHARED_SCRATCH_WORDS of it (exact tables of up to 2^17 slots, 1 MB),
 * shared by every state of the backend: a GROUP BY keeps a state per group,
 * and a scratch of its own would add the size of a batch to each (16 kB of
 * the 180 kB of a group of 10,000 distinct values).  A flush never nests and
 * leaves nothing in the scratch, so one buffer serves them all; it is made at
 * the first flush that needs it, in TopMemoryContext, and kept (128 kB).
 * Larger states, of which a query has few, keep a scratch of their own.
 */
#define SHARED_SCRATCH_WORDS ((size_t) 16384)
static uint64_t *shared_scratch = NULL;

/* Add the batch to the state; the replaced state is freed at once. */
static void
expanded_flush(bs_bloom_agg_expanded *expanded)
{
	const bs_allocator a = {expanded_alloc, expanded, expanded_release};
	uint8_t    *s = expanded->state;
	size_t		n = expanded->n;

	if (n > 0)
	{
		size_t		need = bs_bloom_agg_state_batch_scratch(expanded->state, n);
		uint64_t   *scratch;
		size_t		words;

		if (need <= SHARED_SCRATCH_WORDS)
		{
			if (shared_scratch == NULL)
				shared_scratch = MemoryContextAlloc(TopMemoryContext,
													SHARED_SCRATCH_WORDS * sizeof(uint64_t));
			scratch = shared_scratch;
			words = SHARED_SCRATCH_WORDS;
		}
		else
		{
			expanded_reserve(expanded, &expanded->scratch, &expanded->scratch_words, need);
			scratch = expanded->scratch;
			words = expanded->scratch_words;
		}
		expanded->n = 0;				/* the batch is spent, even on error */
		BS_TRY(bs_bloom_agg_state_add_batch(&s, expanded->batch, n, scratch, words, &a, BS_ERR),
			   ERRCODE_DATA_CORRUPTED);
		if (s != expanded->state)
		{
			pfree(BS_VARLENA_OF(expanded->state));
			expanded->state = s;
		}
	}
	/* the next batch's size suits the state as it is now */
	expanded_reserve(expanded, &expanded->batch, &expanded->cap, bs_bloom_agg_state_batch_hashes(expanded->state));
}

static Size
expanded_get_flat_size(ExpandedObjectHeader *eohptr)
{
	bs_bloom_agg_expanded *expanded = (bs_bloom_agg_expanded *) eohptr;

	expanded_flush(expanded);
	return VARHDRSZ + bs_bloom_agg_state_packed_size(expanded->state);
}

static void
expanded_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	bs_bloom_agg_expanded *expanded = (bs_bloom_agg_expanded *) eohptr;
	Size		size = VARHDRSZ + bs_bloom_agg_state_packed_size(expanded->state);

	/* get_flat_size ran first and added the batch */
	if (expanded->n != 0 || allocated_size != size)
		elog(ERROR, "bloom_agg_state flattened into %zu bytes, needs %zu with %zu hashes in its batch",
			 allocated_size, size, expanded->n);
	bs_bloom_agg_state_pack(expanded->state, BS_DATA(result));
	SET_VARSIZE(result, size);
}

/* Our expanded state behind datum d, read-write (or, unless rw_only, read-only), or NULL. */
static bs_bloom_agg_expanded *
expanded_of(Datum d, bool rw_only)
{
	return (bs_bloom_agg_expanded *) bs_expanded_of(d, &expanded_methods, rw_only);
}

bs_bloom_agg_expanded *
bs_bloom_agg_state_rw(FunctionCallInfo fcinfo, int argno)
{
	return expanded_of(PG_GETARG_DATUM(argno), true);
}

uint8_t *
bs_bloom_agg_state_bytes(bs_bloom_agg_expanded *expanded)
{
	return expanded->state;
}

void
bs_bloom_agg_state_append(bs_bloom_agg_expanded *expanded, uint64_t h)
{
	expanded->batch[expanded->n++] = h;
	if (expanded->n >= expanded->cap)
		expanded_flush(expanded);
}

Datum
bs_bloom_agg_state_datum(bs_bloom_agg_expanded *expanded)
{
	return EOHPGetRWDatum(&expanded->hdr);
}

/*
 * State s (a table, or packed) as a new object, or NULL when batches do not
 * pay for it or the call is not an aggregate's.
 */
static bs_bloom_agg_expanded *
expanded_new(FunctionCallInfo fcinfo, const uint8_t *s)
{
	MemoryContext aggcontext,
				cxt,
				old;
	bs_bloom_agg_expanded *expanded;
	size_t		size;

	if (!bs_bloom_agg_state_batches_pay(s) || AggCheckCallContext(fcinfo, &aggcontext) == 0)
		return NULL;

	/*
	 * A child of the aggregate context: nodeAgg and WindowAgg then keep the
	 * object instead of copying it (ExecAggTransReparent), free the replaced
	 * flat state, and free the object with its group.
	 */
	cxt = AllocSetContextCreate(aggcontext, "bloom_agg_state", OBJECT_CONTEXT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	expanded = (bs_bloom_agg_expanded *) palloc0(sizeof(bs_bloom_agg_expanded));
	size = bs_bloom_agg_state_size(s);
	EOH_init_header(&expanded->hdr, &expanded_methods, cxt);
	if (bs_bloom_agg_state_is_packed(s))
	{
		const bs_allocator a = {expanded_alloc, expanded, expanded_release};

		expanded->state = bs_bloom_agg_state_unpack(s, &a);
	}
	else
	{
		expanded->state = BS_DATA(bs_new_sketch(size));
		memcpy(expanded->state, s, size);
	}
	MemoryContextSwitchTo(old);
	expanded_flush(expanded);				/* makes the first batch */
	return expanded;
}

Datum
bs_bloom_agg_state_return(FunctionCallInfo fcinfo, uint8_t *s)
{
	bs_bloom_agg_expanded *expanded = expanded_new(fcinfo, s);

	return expanded ? EOHPGetRWDatum(&expanded->hdr) : PointerGetDatum(BS_VARLENA_OF(s));
}

Datum
bs_bloom_agg_state_merge_into(FunctionCallInfo fcinfo, const uint8_t *src)
{
	bs_bloom_agg_expanded *expanded = bs_bloom_agg_state_rw(fcinfo, 0);
	uint8_t    *dst;

	if (expanded == NULL)
	{
		dst = bs_state_arg(fcinfo, 0, BS_KIND_BLOOM_AGG_STATE);
		expanded = expanded_new(fcinfo, dst);
	}
	if (expanded == NULL)
	{
		/* small: merged in place, or into a new state nodeAgg copies */
		BS_TRY(bs_bloom_agg_state_merge(&dst, src, &bs_palloc_allocator, BS_ERR), 0);
		return PointerGetDatum(BS_VARLENA_OF(dst));
	}
	else
	{
		const bs_allocator a = {expanded_alloc, expanded, expanded_release};

		expanded_flush(expanded);
		dst = expanded->state;
		BS_TRY(bs_bloom_agg_state_merge(&dst, src, &a, BS_ERR), 0);
		if (dst != expanded->state)
		{
			pfree(BS_VARLENA_OF(expanded->state));
			expanded->state = dst;
		}
		/* the next batch's size suits the merged state */
		expanded_flush(expanded);
		return EOHPGetRWDatum(&expanded->hdr);
	}
}

void
bs_bloom_agg_state_arg(FunctionCallInfo fcinfo, int argno, bs_sketch_ref *ref)
{
	bs_bloom_agg_expanded *expanded = expanded_of(PG_GETARG_DATUM(argno), false);

	if (expanded == NULL)
	{
		bs_sketch_arg(fcinfo, argno, BS_KIND_BLOOM_AGG_STATE, ref);
		return;
	}
	/* Adding the batch keeps the value: it only moves hashes into the state. */
	expanded_flush(expanded);
	ref->data = expanded->state;
	ref->len = bs_bloom_agg_state_size(expanded->state);
	ref->to_free = NULL;
	ref->sliced = NULL;
}
