/*
 * topk.c: the SQL type topk (heavy hitters), its aggregates topk_agg,
 * topk_agg_weighted and topk_union_agg, and the functions that list and
 * look up its values.  The sketch is src/core/topk.c (format 2, built since
 * 1.5) and src/core/topk_v1.c (format 1, 1.0 to 1.4, still read, merged
 * with its own format and added to).  The aggregates' state is an expanded
 * object around the core's bs_topk_state (topk_state.c); their final
 * function returns the canonical form, so equal states give equal bytes.
 */
#include "glue.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "core/endian.h"
#include "core/topk.h"
#include "core/topk_v1.h"

#define KIND BS_KIND_TOPK
#define DEFAULT_EPSILON 0.001
#define DEFAULT_DELTA 0.05

PG_FUNCTION_INFO_V1(topk_agg_trans);
PG_FUNCTION_INFO_V1(topk_agg_weighted_trans);
PG_FUNCTION_INFO_V1(topk_merge_trans);
PG_FUNCTION_INFO_V1(topk_final);
PG_FUNCTION_INFO_V1(topk_add);
PG_FUNCTION_INFO_V1(topk_items);
PG_FUNCTION_INFO_V1(topk_items_bounds);
PG_FUNCTION_INFO_V1(topk_bounds);
PG_FUNCTION_INFO_V1(topk_upper_bound);
PG_FUNCTION_INFO_V1(topk_info);

BS_SKETCH_IO_FUNCTIONS(topk, KIND)
BS_SKETCH_BYTEA_FUNCTION(topk, KIND)
BS_SKETCH_EQUALITY_FUNCTIONS(topk, KIND)

static int
format_of(const uint8_t *data)
{
	return data[4];
}

/* Add count for the key argument to a format-2 state. */
static void
add_value(FunctionCallInfo fcinfo, bs_topk_state *st, const bs_key_info *ki, int key_arg,
		  uint64_t count)
{
	bs_key_bytes kb;
	bs_error	err;
	bs_status	s;

	bs_key_canonical(ki, PG_GETARG_DATUM(key_arg), &kb);
	s = bs_topk_state_add(st, bs_hash_bytes(kb.data, kb.len, st->cms.seed), kb.data,
						  (uint32_t) kb.len, ki->family, count, &err);
	bs_key_bytes_release(&kb);
	if (s != BS_OK)
		bs_report(s, &err, 0);
}

/* The canonical form of a valid value of either format, in a new varlena. */
static bytea *
canonical(const uint8_t *data, size_t len)
{
	size_t		outlen;
	bs_topk_state st;

	if (format_of(data) == BS_TOPK_FORMAT_V1)
		return BS_VARLENA_OF(bs_topk1_compact(data, len, &bs_palloc_allocator, &outlen));
	bs_topk_state_load(&st, data, len, &bs_palloc_allocator);
	return BS_VARLENA_OF(bs_topk_state_write(&st, true, &bs_palloc_allocator, &outlen));
}

/* A new state holding sketch argument argno (format 2 only; not changed). */
static bs_topk_expanded *
state_of_value(FunctionCallInfo fcinfo, int argno, const char *name)
{
	bs_sketch_ref ref;
	bs_topk_expanded *expanded;

	bs_sketch_arg(fcinfo, argno, KIND, &ref);
	if (format_of(ref.data) != BS_TOPK_FORMAT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s cannot continue a topk state of format %d", name, format_of(ref.data)),
				 errhint("States of format 1 come from bloomsketch 1.4 or earlier; run the aggregate on one version.")));
	expanded = bs_topk_state_load_value(fcinfo, ref.data, ref.len);
	bs_sketch_release(&ref);
	return expanded;
}

/*
 * topk_agg_trans(state, value, k [, epsilon, delta]) and
 * topk_agg_weighted_trans(state, value, weight, k [, epsilon, delta]).  Not
 * strict: a NULL value or weight skips the row, a weight of 0 counts nothing
 * (as in cms_agg_weighted), a negative weight is an error; the parameters are
 * checked before the first state, and then compared with the state's as
 * given, without recomputing the shape.
 */
static Datum
agg_trans(FunctionCallInfo fcinfo, bool weighted)
{
	const char *name = weighted ? "topk_agg_weighted" : "topk_agg";
	int			k_arg = weighted ? 3 : 2;
	bool		has_eps = PG_NARGS() > k_arg + 1;
	double		eps = DEFAULT_EPSILON,
				delta = DEFAULT_DELTA;
	uint64		eb,
				db;
	int32		k;
	uint64_t	count = 1;
	const bs_key_info *ki;
	bs_topk_expanded *expanded;
	bool		skip;

	bs_require_agg_context(fcinfo, name);
	if (PG_ARGISNULL(k_arg) || (has_eps && (PG_ARGISNULL(k_arg + 1) || PG_ARGISNULL(k_arg + 2))))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s parameters must not be NULL", name)));
	k = PG_GETARG_INT32(k_arg);
	if (has_eps)
	{
		eps = PG_GETARG_FLOAT8(k_arg + 1);
		delta = PG_GETARG_FLOAT8(k_arg + 2);
	}
	memcpy(&eb, &eps, sizeof(eb));
	memcpy(&db, &delta, sizeof(db));
	skip = PG_ARGISNULL(1) || (weighted && PG_ARGISNULL(2));
	if (weighted && !PG_ARGISNULL(2))
		count = bs_count_arg(fcinfo, 2, "weight");
	ki = bs_key_arg(fcinfo, 1);

	expanded = bs_topk_state_rw(fcinfo, 0);
	if (expanded == NULL || !bs_topk_state_args_are(expanded, k, eb, db))
	{
		bs_topk_params p;

		BS_TRY(bs_topk_params_for(k, eps, delta, &p, BS_ERR), 0);
		if (expanded == NULL && !PG_ARGISNULL(0))
			expanded = state_of_value(fcinfo, 0, name);
		if (expanded == NULL)
		{
			if (skip)
				PG_RETURN_NULL();	/* parameters are fine; no value yet */
			expanded = bs_topk_state_new(fcinfo, &p, ki->family);
		}
		else
		{
			const bs_topk_params *q = &bs_topk_expanded_state(expanded)->params;

			if (q->k != p.k || q->capacity != p.capacity || q->width != p.width ||
				q->depth != p.depth)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s parameters must be the same for every row of a group", name)));
		}
		bs_topk_state_set_args(expanded, k, eb, db);
	}
	if (!skip)
		add_value(fcinfo, bs_topk_expanded_state(expanded), ki, 1, count);
	PG_RETURN_DATUM(bs_topk_state_datum(expanded));
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
 * topk_union_agg: the state (made from the first argument the first time)
 * with the second argument merged in; that argument is not changed.  Format-1
 * values merge with each other as they did in 1.4, into a flat value.
 */
Datum
topk_merge_trans(PG_FUNCTION_ARGS)
{
	bs_topk_expanded *expanded;
	bs_sketch_ref b;

	bs_require_agg_context(fcinfo, "topk_merge_trans");
	expanded = bs_topk_state_rw(fcinfo, 0);
	bs_sketch_arg(fcinfo, 1, KIND, &b);
	if (expanded == NULL)
	{
		bs_sketch_ref a;

		bs_sketch_arg(fcinfo, 0, KIND, &a);
		BS_TRY(bs_topk_check_same_format(format_of(a.data), format_of(b.data), BS_ERR), 0);
		if (format_of(a.data) == BS_TOPK_FORMAT_V1)
		{
			size_t		outlen;
			uint8_t    *r;

			BS_TRY(bs_topk1_merge(a.data, a.len, b.data, b.len, &bs_palloc_allocator,
								  &r, &outlen, BS_ERR), 0);
			bs_sketch_release(&a);
			bs_sketch_release(&b);
			PG_RETURN_POINTER(BS_VARLENA_OF(r));
		}
		expanded = bs_topk_state_load_value(fcinfo, a.data, a.len);
		bs_sketch_release(&a);
	}
	else
		BS_TRY(bs_topk_check_same_format(BS_TOPK_FORMAT, format_of(b.data), BS_ERR), 0);
	BS_TRY(bs_topk_state_merge(bs_topk_expanded_state(expanded), b.data, b.len, BS_ERR), 0);
	bs_sketch_release(&b);
	PG_RETURN_DATUM(bs_topk_state_datum(expanded));
}

/* Final function of the aggregates: the canonical form; the state is left as it is. */
Datum
topk_final(PG_FUNCTION_ARGS)
{
	bs_topk_expanded *expanded = bs_topk_state_of(fcinfo, 0);
	bs_sketch_ref s;
	bytea	   *v;
	size_t		len;

	if (expanded != NULL)
		PG_RETURN_BYTEA_P(BS_VARLENA_OF(bs_topk_state_write(bs_topk_expanded_state(expanded), true,
															&bs_palloc_allocator, &len)));
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
	bs_sketch_ref ref;
	bytea	   *v;

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
	bs_sketch_arg(fcinfo, 0, KIND, &ref);
	bs_check_family(ref.data[BS_OFF_FAMILY], ki, "topk sketch");
	if (format_of(ref.data) == BS_TOPK_FORMAT_V1)
	{
		bs_key_bytes kb;
		size_t		len = ref.len;
		uint8_t    *s = BS_DATA(bs_new_sketch(len));

		memcpy(s, ref.data, len);
		bs_key_canonical(ki, PG_GETARG_DATUM(1), &kb);
		BS_TRY(bs_topk1_add(&s, &len, bs_hash_bytes(kb.data, kb.len, bs_load64(s + BS_OFF_SEED)),
							kb.data, (uint32_t) kb.len, ki->family, (uint64_t) count,
							&bs_palloc_allocator, BS_ERR), 0);
		bs_key_bytes_release(&kb);
		v = canonical(s, len);
	}
	else
	{
		bs_topk_state st;
		size_t		len;

		bs_topk_state_load(&st, ref.data, ref.len, &bs_palloc_allocator);
		add_value(fcinfo, &st, ki, 1, (uint64_t) count);
		v = BS_VARLENA_OF(bs_topk_state_write(&st, true, &bs_palloc_allocator, &len));
	}
	bs_sketch_release(&ref);
	PG_RETURN_BYTEA_P(v);
}

/* How many values to list: k, or argument 1, between 1 and the capacity. */
static uint32_t
items_wanted(FunctionCallInfo fcinfo, const bs_topk_info *info)
{
	int32		n;

	if (PG_NARGS() < 2)
		return info->params.k;
	n = PG_GETARG_INT32(1);
	if (n < 1 || (uint32_t) n > info->params.capacity)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be between 1 and the sketch's capacity %u, got %d",
						info->params.capacity, n),
				 errhint("A sketch lists at most the values it tracks (topk_info(t).capacity); build it with a smaller epsilon or a larger k to list more.")));
	return (uint32_t) n;
}

/*
 * topk_items(topk [, n]) and topk_items_bounds(topk [, n]): the n (default
 * k) best values, best first, with their estimates (and bounds).
 */
static Datum
list_items(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bs_sketch_ref ref;
	bs_topk_info info;
	bs_topk_row *rows;
	uint32_t	n,
				want,
				i;

	InitMaterializedSRF(fcinfo, 0);
	bs_sketch_arg(fcinfo, 0, KIND, &ref);
	bs_topk_describe(ref.data, ref.len, &info);
	want = items_wanted(fcinfo, &info);
	rows = bs_topk_ranked(ref.data, ref.len, &bs_palloc_allocator, &n);
	for (i = 0; i < n && i < want; i++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = CStringGetTextDatum(bs_key_text(ref.data[BS_OFF_FAMILY], rows[i].key, rows[i].len));
		values[1] = Int64GetDatum((int64) rows[i].estimate);
		values[2] = Int64GetDatum((int64) rows[i].lower);
		values[3] = Int64GetDatum((int64) rows[i].upper);
		/* topk_items' rows have the first two columns only */
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	bs_sketch_release(&ref);
	return (Datum) 0;
}

Datum
topk_items(PG_FUNCTION_ARGS)
{
	return list_items(fcinfo);
}

Datum
topk_items_bounds(PG_FUNCTION_ARGS)
{
	return list_items(fcinfo);
}

/* The counts of value argument 1 in sketch argument 0. */
static void
lookup(FunctionCallInfo fcinfo, bs_topk_row *row)
{
	const bs_key_info *ki = bs_key_arg(fcinfo, 1);
	bs_sketch_ref ref;
	bs_key_bytes kb;

	bs_sketch_arg(fcinfo, 0, KIND, &ref);
	bs_check_family(ref.data[BS_OFF_FAMILY], ki, "topk sketch");
	bs_key_canonical(ki, PG_GETARG_DATUM(1), &kb);
	bs_topk_lookup(ref.data, ref.len, bs_hash_bytes(kb.data, kb.len, bs_load64(ref.data + BS_OFF_SEED)),
				   kb.data, (uint32_t) kb.len, row);
	bs_key_bytes_release(&kb);
	bs_sketch_release(&ref);
}

/* topk_bounds(topk, value): frequency, lower_bound and upper_bound of any value. */
Datum
topk_bounds(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	bs_topk_row row;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "topk_bounds must return a composite type");
	lookup(fcinfo, &row);
	values[0] = Int64GetDatum((int64) row.estimate);
	values[1] = Int64GetDatum((int64) row.lower);
	values[2] = Int64GetDatum((int64) row.upper);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/* topk_upper_bound(topk, value), the operator ->: never below the value's true count. */
Datum
topk_upper_bound(PG_FUNCTION_ARGS)
{
	bs_topk_row row;

	lookup(fcinfo, &row);
	PG_RETURN_INT64((int64) row.upper);
}

Datum
topk_info(PG_FUNCTION_ARGS)
{
	bs_sketch_ref ref;
	bs_topk_info info;
	TupleDesc	tupdesc;
	Datum		values[12];
	bool		nulls[12] = {0};

	tupdesc = bs_info_begin(fcinfo, KIND, &ref);
	bs_topk_describe(ref.data, ref.len, &info);
	values[0] = Int32GetDatum((int32) info.params.k);
	values[1] = Int64GetDatum((int64) info.params.width);
	values[2] = Int32GetDatum((int32) info.params.depth);
	values[3] = Float8GetDatum(bs_cms_epsilon(info.params.width));
	values[4] = Float8GetDatum(bs_cms_delta(info.params.depth));
	values[5] = Int64GetDatum((int64) info.total);
	values[6] = Int32GetDatum((int32) info.held);
	/* 7 to 9: bytes, key_family, format_version (bs_info_end) */
	values[10] = Int32GetDatum((int32) info.params.capacity);
	values[11] = Int64GetDatum((int64) info.floor);
	nulls[11] = !info.has_floor;
	PG_RETURN_DATUM(bs_info_end(tupdesc, values, nulls, 7, &ref, false));
}
