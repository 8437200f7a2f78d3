/*
 * topk_state.c: the transition state of topk_agg, topk_agg_weighted and
 * topk_union_agg, as an expanded object.
 *
 * A row looks its value up in a hash table of the values held (core/topk.h,
 * bs_topk_state), which the flat format does not store: the format keeps the
 * values in hash order, without the table.  So the state lives in memory as
 * a PostgreSQL expanded object (utils/expandeddatum.h): nodeAgg, WindowAgg
 * and Citus's worker_partial_agg keep a read-write expanded transition value
 * as it is, so a row costs no copy, and every other reader (a parallel
 * worker's result, the output and send functions, a copy) gets the flat
 * format-2 bytes of every value held (bs_topk_state_write).
 *
 * The object also keeps the aggregate's arguments as given (k, and the bits
 * of epsilon and delta), so a row checks them against its group's with three
 * comparisons, without recomputing the shape: under Citus every row comes
 * with a new FmgrInfo, and nothing cached in fn_extra survives.
 */
#include "glue.h"

#include "utils/expandeddatum.h"
#include "utils/memutils.h"

struct bs_topk_expanded
{
	ExpandedObjectHeader hdr;
	bs_topk_state st;
	bool		has_args;
	int32		k;
	uint64		eps_bits;
	uint64		delta_bits;
};

static Size expanded_get_flat_size(ExpandedObjectHeader *eohptr);
static void expanded_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods expanded_methods = {
	expanded_get_flat_size,
	expanded_flatten_into
};

/* The core's arrays, in the object's own context (huge: a state can pass 1 GB of keys only past the limit). */
static uint8_t *
expanded_alloc(void *ctx, size_t len)
{
	return MemoryContextAllocExtended((MemoryContext) ctx, len, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

static void
expanded_release(void *ctx, uint8_t *buf)
{
	pfree(buf);
}

static Size
expanded_get_flat_size(ExpandedObjectHeader *eohptr)
{
	bs_topk_expanded *expanded = (bs_topk_expanded *) eohptr;

	return VARHDRSZ + bs_topk_state_size(&expanded->st);
}

/*
 * Written straight into result: PostgreSQL may flatten in a memory context
 * that cannot free (PostgreSQL 17's tuplesort copies tuples into a bump
 * context), so nothing here is allocated in the current context; the sorting
 * buffer comes from the object's own.
 */
static void
expanded_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	bs_topk_expanded *expanded = (bs_topk_expanded *) eohptr;
	size_t		len = bs_topk_state_size(&expanded->st);
	const bs_allocator scratch = {expanded_alloc, expanded->hdr.eoh_context, expanded_release};

	if (allocated_size != VARHDRSZ + len)
		elog(ERROR, "topk state flattened into %zu bytes, needs %zu",
			 allocated_size, VARHDRSZ + len);
	SET_VARSIZE(result, allocated_size);
	bs_topk_state_write_into(&expanded->st, &scratch, BS_DATA(result));
}

/* Our expanded state behind datum d, read-write (or, unless rw_only, read-only), or NULL. */
static bs_topk_expanded *
expanded_of(Datum d, bool rw_only)
{
	return (bs_topk_expanded *) bs_expanded_of(d, &expanded_methods, rw_only);
}

bs_topk_expanded *
bs_topk_state_rw(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : expanded_of(PG_GETARG_DATUM(argno), true);
}

bs_topk_expanded *
bs_topk_state_of(FunctionCallInfo fcinfo, int argno)
{
	return PG_ARGISNULL(argno) ? NULL : expanded_of(PG_GETARG_DATUM(argno), false);
}

bs_topk_state *
bs_topk_expanded_state(bs_topk_expanded *expanded)
{
	return &expanded->st;
}

/*
 * A new object in a context of its own under the aggregate context, so that
 * nodeAgg keeps it rather than copy it (ExecAggTransReparent) and frees it
 * with its group.
 */
static bs_topk_expanded *
expanded_new(FunctionCallInfo fcinfo, bs_allocator *a)
{
	MemoryContext aggcontext,
				cxt;
	bs_topk_expanded *expanded;

	if (AggCheckCallContext(fcinfo, &aggcontext) == 0)
		elog(ERROR, "topk state made outside an aggregate");
	cxt = AllocSetContextCreate(aggcontext, "topk state", ALLOCSET_DEFAULT_SIZES);
	expanded = (bs_topk_expanded *) MemoryContextAllocZero(cxt, sizeof(bs_topk_expanded));
	EOH_init_header(&expanded->hdr, &expanded_methods, cxt);
	a->alloc = expanded_alloc;
	a->ctx = cxt;
	a->release = expanded_release;
	return expanded;
}

bs_topk_expanded *
bs_topk_state_new(FunctionCallInfo fcinfo, const bs_topk_params *p, uint8_t family)
{
	bs_allocator a;
	bs_topk_expanded *expanded = expanded_new(fcinfo, &a);

	BS_TRY(bs_topk_state_init(&expanded->st, p, family, BS_DEFAULT_SEED, &a, BS_ERR), 0);
	return expanded;
}

bs_topk_expanded *
bs_topk_state_load_value(FunctionCallInfo fcinfo, const uint8_t *data, size_t len)
{
	bs_allocator a;
	bs_topk_expanded *expanded = expanded_new(fcinfo, &a);

	bs_topk_state_load(&expanded->st, data, len, &a);
	return expanded;
}

bool
bs_topk_state_args_are(bs_topk_expanded *expanded, int32 k, uint64 eps_bits, uint64 delta_bits)
{
	return expanded->has_args && expanded->k == k && expanded->eps_bits == eps_bits && expanded->delta_bits == delta_bits;
}

void
bs_topk_state_set_args(bs_topk_expanded *expanded, int32 k, uint64 eps_bits, uint64 delta_bits)
{
	expanded->has_args = true;
	expanded->k = k;
	expanded->eps_bits = eps_bits;
	expanded->delta_bits = delta_bits;
}

Datum
bs_topk_state_datum(bs_topk_expanded *expanded)
{
	return EOHPGetRWDatum(&expanded->hdr);
}
