/*
 * topk.c: the SQL type topk (heavy hitters), topk_agg, topk_agg_weighted and
 * topk_items.  The sketch is src/core/topk.c.  The aggregates' state is a
 * topk value with room for candidate keys; their final function returns the
 * canonical (compact, sorted) form, so equal inputs give equal bytes however
 * they were split.
 */
#include "glue.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"

#include "core/topk.h"

#define KIND BS_KIND_TOPK
#define INITIAL_KEY_BYTES 256

PG_FUNCTION_INFO_V1(topk_agg_trans);
PG_FUNCTION_INFO_V1(topk_agg_weighted_trans);
PG_FUNCTION_INFO_V1(topk_merge_trans);
PG_FUNCTION_INFO_V1(topk_final);
PG_FUNCTION_INFO_V1(topk_add);
PG_FUNCTION_INFO_V1(topk_items);
PG_FUNCTION_INFO_V1(topk_info);

BS_SKETCH_IO_FUNCTIONS(topk, KIND)
BS_SKETCH_BYTEA_FUNCTION(topk, KIND)
BS_SKETCH_EQUALITY_FUNCTIONS(topk, KIND)

static size_t
data_len(const uint8_t *data)
{
	return VARSIZE(BS_VARLENA_OF(data)) - VARHDRSZ;
}

/* A canonical copy of sketch bytes, as a varlena. */
static bytea *
canonical(const uint8_t *data, size_t len)
{
	size_t		outlen;

	return BS_VARLENA_OF(bs_topk_compact(data, len, &bs_palloc_allocator, &outlen));
}

/* Add count for the key argument to a writable value; returns it (or its grown copy). */
static uint8_t *
add_value(FunctionCallInfo fcinfo, uint8_t *s, const bs_key_info *ki, int key_arg,
		  uint64_t count)
{
	bs_key_bytes kb;
	size_t		len = data_len(s);
	uint64_t	seed = bs_load64(s + 8);	/* the header's seed (bs_cms_view) */
	bs_error	err;
	bs_status	st;
	uint8_t    *r;

	bs_key_canonical(ki, PG_GETARG_DATUM(key_arg), &kb);
	r = bs_topk_add(s, &len, bs_hash_bytes(kb.data, kb.len, seed), kb.data,
					(uint32_t) kb.len, ki->family, count, &bs_palloc_allocator, &err, &st);
	bs_key_bytes_release(&kb);
	if (r == NULL)
		bs_report(st, &err, 0);
	return r;
}

/*
 * topk_agg_trans(state, value, k [, epsilon, delta]) and
 * topk_agg_weighted_trans(state, value, weight, k [, epsilon, delta]).  Not
 * strict: a NULL value or weight skips the row, a weight of 0 counts nothing
 * (as in cms_agg_weighted), a negative weight is an error; the parameters are
 * checked before the first state.
 */
static Datum
agg_trans(FunctionCallInfo fcinfo, bool weighted)
{
	const char *name = weighted ? "topk_agg_weighted" : "topk_agg";
	int			k_arg = weighted ? 3 : 2;
	uint64_t	width,
				depth,
				count = 1;
	int32		k;
	const bs_key_info *ki;
	uint8_t    *s;
	bs_topk		t;
	bool		skip;

	bs_require_agg_context(fcinfo, name);
	if (PG_ARGISNULL(k_arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s parameters must not be NULL", name)));
	k = PG_GETARG_INT32(k_arg);
	BS_TRY(bs_topk_check_k(k, BS_ERR), 0);
	bs_cms_dims_arg(fcinfo, k_arg + 1, name, &width, &depth);
	skip = PG_ARGISNULL(1) || (weighted && PG_ARGISNULL(2));
	if (weighted && !PG_ARGISNULL(2))
		count = bs_count_arg(fcinfo, 2, "weight");
	ki = bs_key_arg(fcinfo, 1);

	if (PG_ARGISNULL(0))
	{
		uint64_t	total;

		BS_TRY(bs_topk_size(width, (uint32_t) depth, (uint32_t) k, INITIAL_KEY_BYTES,
							&total, BS_ERR), 0);
		if (skip)
			PG_RETURN_NULL();	/* parameters are fine; no value yet */
		s = BS_DATA(bs_new_sketch((size_t) total));
		bs_topk_init(s, width, (uint32_t) depth, (uint32_t) k, INITIAL_KEY_BYTES,
					 ki->family, BS_DEFAULT_SEED);
	}
	else
	{
		s = bs_state_arg(fcinfo, 0, KIND);
		bs_topk_view(s, data_len(s), &t);
		if (t.cms.width != width || t.cms.depth != depth || t.k != (uint32_t) k)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s parameters must be the same for every row of a group", name)));
		if (skip)
			PG_RETURN_POINTER(BS_VARLENA_OF(s));
	}
	s = add_value(fcinfo, s, ki, 1, count);
	PG_RETURN_POINTER(BS_VARLENA_OF(s));
}

Datum
topk_agg_trans(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, false);
}

Datum
topk_agg_weighted_trans(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, true);
}

/*
 * Combine function of topk_agg and transition and combine function of
 * topk_union_agg: a new canonical value holding both (neither is changed).
 */
Datum
topk_merge_trans(PG_FUNCTION_ARGS)
{
	bs_sketch_ref a,
				b;
	uint8_t    *r;
	size_t		outlen;
	bs_error	err;
	bs_status	st;

	bs_require_agg_context(fcinfo, "topk_merge_trans");
	bs_sketch_arg(fcinfo, 0, KIND, &a);
	bs_sketch_arg(fcinfo, 1, KIND, &b);
	r = bs_topk_merge(a.data, a.len, b.data, b.len, &bs_palloc_allocator, &outlen,
					  &err, &st);
	if (r == NULL)
		bs_report(st, &err, 0);
	bs_sketch_release(&a);
	bs_sketch_release(&b);
	PG_RETURN_POINTER(BS_VARLENA_OF(r));
}

/* Final function of topk_agg: the canonical form; the state is left as it is. */
Datum
topk_final(PG_FUNCTION_ARGS)
{
	bs_sketch_ref s;
	bytea	   *v;

	bs_sketch_arg(fcinfo, 0, KIND, &s);
	v = canonical(s.data, s.len);
	bs_sketch_release(&s);
	PG_RETURN_BYTEA_P(v);
}

/* topk_add(topk, anyelement, count bigint DEFAULT 1): a new canonical value. */
Datum
topk_add(PG_FUNCTION_ARGS)
{
	const bs_key_info *ki;
	int64		count;
	uint8_t    *s;
	bs_topk		t;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	ki = bs_key_arg(fcinfo, 1);
	count = PG_GETARG_INT64(2);
	if (count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("count must not be negative, got " INT64_FORMAT, count)));
	s = BS_DATA(bs_sketch_arg_copy(fcinfo, 0, KIND));
	bs_topk_view(s, data_len(s), &t);
	bs_check_family(t.cms.family, ki, "topk sketch");
	s = add_value(fcinfo, s, ki, 1, (uint64_t) count);
	PG_RETURN_BYTEA_P(canonical(s, data_len(s)));
}

/* topk_items(topk): the k most frequent values, most frequent first. */
Datum
topk_items(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bs_sketch_ref ref;
	uint8_t    *c;
	bs_topk		t;
	uint32_t	i;

	InitMaterializedSRF(fcinfo, 0);
	bs_sketch_arg(fcinfo, 0, KIND, &ref);
	c = BS_DATA(canonical(ref.data, ref.len));
	bs_topk_view(c, data_len(c), &t);
	for (i = 0; i < t.ncand && i < t.k; i++)
	{
		bs_topk_item it;
		Datum		values[2];
		bool		nulls[2] = {false, false};

		bs_topk_item_at(&t, i, &it);
		values[0] = CStringGetTextDatum(bs_key_text(t.cms.family, it.key, it.len));
		values[1] = Int64GetDatum((int64) it.count);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	bs_sketch_release(&ref);
	return (Datum) 0;
}

Datum
topk_info(PG_FUNCTION_ARGS)
{
	bs_sketch_ref ref;
	bs_topk		t;
	TupleDesc	tupdesc;
	Datum		values[10];
	bool		nulls[10] = {0};

	tupdesc = bs_info_begin(fcinfo, KIND, &ref);
	bs_topk_view(ref.data, ref.len, &t);
	values[0] = Int32GetDatum((int32) t.k);
	values[1] = Int64GetDatum((int64) t.cms.width);
	values[2] = Int32GetDatum((int32) t.cms.depth);
	values[3] = Float8GetDatum(bs_cms_epsilon(t.cms.width));
	values[4] = Float8GetDatum(bs_cms_delta(t.cms.depth));
	values[5] = Int64GetDatum((int64) t.cms.total);
	values[6] = Int32GetDatum((int32) t.ncand);
	PG_RETURN_DATUM(bs_info_end(tupdesc, values, nulls, 7, &ref, false));
}
