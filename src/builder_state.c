/*
 * builder_state.c: a large bloom_agg_state in memory, as an expanded object.
 *
 * Once a group's state outgrows the CPU caches (a table of 2^21 hashes is
 * 16 MB), adding each row's hash where it belongs costs a cache miss and,
 * past a few MB, a TLB miss.  Such a state collects the hashes of its rows in
 * a batch instead, and adds a full batch at once, sorted so that it walks the
 * state in address order (bs_builder_add_batch in core/builder.h).  The state
 * then holds the same hashes or bits as if they had been added one by one, so
 * every result is the same, byte for byte (doc/performance.md has the
 * numbers).
 *
 * The batched hashes must never be lost or missed by a reader, so the state
 * is a PostgreSQL expanded object (utils/expandeddatum.h): nodeAgg and
 * WindowAgg keep a read-write expanded transition value as it is, and every
 * other reader (the final and combine functions, the output and send
 * functions, a parallel worker's result tuple, a copy) gets the flat bytes,
 * and flattening adds the batch first.  The flat format (doc/format.md) does
 * not change.
 *
 * States for which batches do not pay (bs_builder_batches_pay) stay plain
 * varlenas: an expanded object costs a memory context of its own (about
 * 1 kB), and hash-by-hash adding is faster for them.
 */
#include "glue.h"

#include "utils/expandeddatum.h"
#include "utils/memutils.h"

#include "core/builder.h"

struct bs_builder_eo
{
	ExpandedObjectHeader hdr;
	uint8_t    *state;			/* BS_DATA of a varlena in hdr.eoh_context */
	uint64_t   *batch;			/* hashes not yet in the state */
	size_t		n;				/* ... how many */
	size_t		cap;			/* ... room for */
	uint64_t   *scratch;		/* for sorting a batch (bs_builder_add_batch) */
	size_t		scratch_words;
};

static Size eo_get_flat_size(ExpandedObjectHeader *eohptr);
static void eo_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods eo_methods = {
	eo_get_flat_size,
	eo_flatten_into
};

/* New states of the object go into its own context. */
static uint8_t *
eo_alloc(void *ctx, size_t len)
{
	bs_builder_eo *eo = (bs_builder_eo *) ctx;
	MemoryContext old = MemoryContextSwitchTo(eo->hdr.eoh_context);
	bytea	   *v = bs_new_sketch(len);

	MemoryContextSwitchTo(old);
	return BS_DATA(v);
}

/* A state replaced in the middle of a batch: nothing else points to it. */
static void
eo_release(void *ctx, uint8_t *buf)
{
	pfree(BS_VARLENA_OF(buf));
}

/* A buffer of at least words uint64s in the object's context, replacing *buf. */
static void
eo_reserve(bs_builder_eo *eo, uint64_t **buf, size_t *have, size_t words)
{
	if (*have >= words)
		return;
	if (*buf)
		pfree(*buf);
	*buf = NULL;
	*have = 0;
	*buf = MemoryContextAllocHuge(eo->hdr.eoh_context, words * sizeof(uint64_t));
	*have = words;
}

/* Add the batch to the state; the replaced state is freed at once. */
static void
eo_flush(bs_builder_eo *eo)
{
	const bs_allocator a = {eo_alloc, eo, eo_release};
	uint8_t    *s = eo->state;
	size_t		n = eo->n;

	if (n > 0)
	{
		eo_reserve(eo, &eo->scratch, &eo->scratch_words,
				   bs_builder_batch_scratch(eo->state, n));
		eo->n = 0;				/* the batch is spent, even on error */
		BS_TRY(bs_builder_add_batch(&s, eo->batch, n, eo->scratch,
									eo->scratch_words, &a, BS_ERR),
			   ERRCODE_DATA_CORRUPTED);
		if (s != eo->state)
		{
			pfree(BS_VARLENA_OF(eo->state));
			eo->state = s;
		}
	}
	/* the next batch's size suits the state as it is now */
	eo_reserve(eo, &eo->batch, &eo->cap, bs_builder_batch_hashes(eo->state));
}

static Size
eo_get_flat_size(ExpandedObjectHeader *eohptr)
{
	bs_builder_eo *eo = (bs_builder_eo *) eohptr;

	eo_flush(eo);
	return VARHDRSZ + bs_builder_size(eo->state);
}

static void
eo_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	bs_builder_eo *eo = (bs_builder_eo *) eohptr;
	Size		size = VARHDRSZ + bs_builder_size(eo->state);

	/* get_flat_size ran first and added the batch */
	if (eo->n != 0 || allocated_size != size)
		elog(ERROR, "bloom_agg_state flattened into %zu bytes, needs %zu with %zu hashes in its batch",
			 allocated_size, size, eo->n);
	memcpy(result, BS_VARLENA_OF(eo->state), size);
	SET_VARSIZE(result, size);
}

/* Our expanded state behind datum d, read-write or read-only, or NULL. */
static bs_builder_eo *
eo_of(Datum d)
{
	return (bs_builder_eo *) bs_expanded_of(d, &eo_methods);
}

bs_builder_eo *
bs_builder_state_rw(FunctionCallInfo fcinfo, int argno)
{
	Datum		d = PG_GETARG_DATUM(argno);

	return VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)) ? eo_of(d) : NULL;
}

uint8_t *
bs_builder_state_bytes(bs_builder_eo *eo)
{
	return eo->state;
}

void
bs_builder_state_add(bs_builder_eo *eo, uint64_t h)
{
	eo->batch[eo->n++] = h;
	if (eo->n >= eo->cap)
		eo_flush(eo);
}

Datum
bs_builder_state_datum(bs_builder_eo *eo)
{
	return EOHPGetRWDatum(&eo->hdr);
}

Datum
bs_builder_state_return(FunctionCallInfo fcinfo, uint8_t *s)
{
	MemoryContext aggcontext,
				cxt,
				old;
	bs_builder_eo *eo;
	size_t		size;

	if (!bs_builder_batches_pay(s) || AggCheckCallContext(fcinfo, &aggcontext) == 0)
		return PointerGetDatum(BS_VARLENA_OF(s));

	/*
	 * A child of the aggregate context: nodeAgg and WindowAgg then keep the
	 * object instead of copying it (ExecAggTransReparent), free the replaced
	 * flat state, and free the object with its group.
	 */
	cxt = AllocSetContextCreate(aggcontext, "bloom_agg_state", ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	eo = (bs_builder_eo *) palloc0(sizeof(bs_builder_eo));
	size = bs_builder_size(s);
	EOH_init_header(&eo->hdr, &eo_methods, cxt);
	eo->state = BS_DATA(bs_new_sketch(size));
	memcpy(eo->state, s, size);
	MemoryContextSwitchTo(old);
	eo_flush(eo);				/* makes the first batch */
	return EOHPGetRWDatum(&eo->hdr);
}

void
bs_builder_state_arg(FunctionCallInfo fcinfo, int argno, bs_sketch_ref *ref)
{
	bs_builder_eo *eo = eo_of(PG_GETARG_DATUM(argno));

	if (eo == NULL)
	{
		bs_sketch_arg(fcinfo, argno, BS_KIND_BLOOM_STATE, ref);
		return;
	}
	/* Adding the batch keeps the value: it only moves hashes into the state. */
	eo_flush(eo);
	ref->data = eo->state;
	ref->len = bs_builder_size(eo->state);
	ref->to_free = NULL;
	ref->sliced = NULL;
}
