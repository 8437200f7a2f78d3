/*
 * cms.c: the SQL type cms (a Count-Min sketch), its functions and cms_agg.
 * The sketch itself is src/core/cms.c.  cms_agg's state is the sketch: its
 * size is fixed by epsilon and delta, so the transition function adds in
 * place and no final function is needed.
 */
#include "glue.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/numeric.h"

#include "core/cms.h"

#define KIND BS_KIND_CMS

PG_FUNCTION_INFO_V1(cms_empty);
PG_FUNCTION_INFO_V1(cms_empty_dims);
PG_FUNCTION_INFO_V1(cms_add);
PG_FUNCTION_INFO_V1(cms_frequency);
PG_FUNCTION_INFO_V1(cms_total);
PG_FUNCTION_INFO_V1(cms_error_bound);
PG_FUNCTION_INFO_V1(cms_union);
PG_FUNCTION_INFO_V1(cms_union_trans);
PG_FUNCTION_INFO_V1(cms_subtract);
PG_FUNCTION_INFO_V1(cms_inner_product);
PG_FUNCTION_INFO_V1(cms_info);
PG_FUNCTION_INFO_V1(cms_agg_trans);
PG_FUNCTION_INFO_V1(cms_agg_weighted_trans);

BS_SKETCH_IO_FUNCTIONS(cms, KIND)
BS_SKETCH_BYTEA_FUNCTION(cms, KIND)
BS_SKETCH_EQUALITY_FUNCTIONS(cms, KIND)

static bytea *
new_cms(uint64_t width, uint32_t depth, uint8_t family)
{
	uint64_t	total;
	bytea	   *v;

	BS_TRY(bs_cms_size(width, depth, &total, BS_ERR), 0);
	v = bs_new_sketch((size_t) total);
	bs_cms_init(BS_DATA(v), width, depth, family, BS_DEFAULT_SEED);
	return v;
}

Datum
cms_empty(PG_FUNCTION_ARGS)
{
	uint64_t	width;
	uint32_t	depth;

	BS_TRY(bs_cms_dims(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1), &width, &depth, BS_ERR), 0);
	PG_RETURN_BYTEA_P(new_cms(width, depth, BS_FAMILY_NONE));
}

Datum
cms_empty_dims(PG_FUNCTION_ARGS)
{
	int32		width = PG_GETARG_INT32(0);
	int32		depth = PG_GETARG_INT32(1);

	if (width < 1 || depth < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("width and depth must be at least 1, got width %d and depth %d",
						width, depth)));
	PG_RETURN_BYTEA_P(new_cms((uint64_t) width, (uint32_t) depth, BS_FAMILY_NONE));
}

static void
add_key(FunctionCallInfo fcinfo, bs_cms *c, const bs_key_info *ki, int key_arg,
		uint64_t count)
{
	BS_TRY(bs_cms_add(c, bs_key_hash(ki, PG_GETARG_DATUM(key_arg), c->seed), count, BS_ERR), 0);
}

/* cms_add(cms, anyelement, count bigint DEFAULT 1): a new sketch. */
Datum
cms_add(PG_FUNCTION_ARGS)
{
	const bs_key_info *ki;
	uint64_t	count;
	bytea	   *v;
	bs_cms		c;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	ki = bs_key_arg(fcinfo, 1);
	count = bs_count_arg(fcinfo, 2, "count");
	v = bs_sketch_arg_copy(fcinfo, 0, KIND);
	bs_cms_view(BS_DATA(v), &c);
	bs_check_family(c.family, ki, "count-min sketch");
	add_key(fcinfo, &c, ki, 1, count);
	c.buf[BS_OFF_FAMILY] = ki->family;
	PG_RETURN_BYTEA_P(v);
}

Datum
cms_frequency(PG_FUNCTION_ARGS)
{
	bs_sketch_ref ref;
	uint64_t	h = bs_lookup_hash(fcinfo, 0, 1, KIND, "count-min sketch", &ref);
	bs_cms		c;
	uint64_t	f;

	bs_cms_view(ref.data, &c);
	f = bs_cms_frequency(&c, h);
	bs_sketch_release(&ref);
	PG_RETURN_INT64((int64) f);
}

/* Argument 0's shape and total (its counters are not to be read: released). */
static bs_cms
cms_params_arg(FunctionCallInfo fcinfo)
{
	bs_sketch_ref ref;
	bs_cms		c;

	bs_sketch_arg(fcinfo, 0, KIND, &ref);
	bs_cms_view(ref.data, &c);
	bs_sketch_release(&ref);
	c.buf = NULL;
	c.counters = NULL;
	return c;
}

BS_FUNCTION_OF(cms_total, Int64GetDatum((int64) cms_params_arg(fcinfo).total))

static double
cms_error_bound_of(FunctionCallInfo fcinfo)
{
	bs_cms		c = cms_params_arg(fcinfo);

	return bs_cms_epsilon(c.width) * (double) c.total;
}

BS_FUNCTION_OF(cms_error_bound, Float8GetDatum(cms_error_bound_of(fcinfo)))

/* A new sketch: a copy of argument 0 with argument 1 added or subtracted by op. */
static Datum
combine_new(FunctionCallInfo fcinfo, bs_status (*op) (bs_cms *, const bs_cms *, bs_error *))
{
	bytea	   *v = bs_sketch_arg_copy(fcinfo, 0, KIND);
	bs_sketch_ref ref;
	bs_cms		dst,
				src;

	bs_cms_view(BS_DATA(v), &dst);
	bs_sketch_arg(fcinfo, 1, KIND, &ref);
	bs_cms_view(ref.data, &src);
	BS_TRY(op(&dst, &src, BS_ERR), 0);
	bs_sketch_release(&ref);
	PG_RETURN_BYTEA_P(v);
}

BS_FUNCTION_OF(cms_union, combine_new(fcinfo, bs_cms_merge))

/*
 * cms_subtract(a, b) and a - b: a new sketch, a's counters less b's; exact
 * when b is the sketch of a part of a's stream, an error when the shapes
 * differ or a counter would go below zero.
 */
BS_FUNCTION_OF(cms_subtract, combine_new(fcinfo, bs_cms_subtract))

/* Transition and combine function of cms_union_agg, and combine of cms_agg: adds in place. */
Datum
cms_union_trans(PG_FUNCTION_ARGS)
{
	uint8_t    *s;
	bs_sketch_ref ref;
	bs_cms		dst,
				src;

	bs_require_agg_context(fcinfo, "cms_union_trans");
	s = bs_state_arg(fcinfo, 0, KIND);
	bs_cms_view(s, &dst);
	bs_sketch_arg(fcinfo, 1, KIND, &ref);
	bs_cms_view(ref.data, &src);
	BS_TRY(bs_cms_merge(&dst, &src, BS_ERR), 0);
	bs_sketch_release(&ref);
	PG_RETURN_POINTER(BS_VARLENA_OF(s));
}

/* Exact as numeric: the product of two totals can pass bigint. */
Datum
cms_inner_product(PG_FUNCTION_ARGS)
{
	bs_sketch_ref ra,
				rb;
	bs_cms		a,
				b;
	bs_u128		ip;
	char		digits[BS_U128_DIGITS + 1];

	bs_sketch_arg(fcinfo, 0, KIND, &ra);
	bs_sketch_arg(fcinfo, 1, KIND, &rb);
	bs_cms_view(ra.data, &a);
	bs_cms_view(rb.data, &b);
	BS_TRY(bs_cms_inner_product(&a, &b, &ip, BS_ERR), 0);
	bs_sketch_release(&ra);
	bs_sketch_release(&rb);
	PG_RETURN_DATUM(DirectFunctionCall3(numeric_in, CStringGetDatum(bs_u128_text(ip, digits)),
										ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
}

Datum
cms_info(PG_FUNCTION_ARGS)
{
	bs_sketch_ref ref;
	bs_cms		c;
	TupleDesc	tupdesc;
	Datum		values[10];
	bool		nulls[10] = {0};

	tupdesc = bs_info_begin(fcinfo, KIND, &ref);
	bs_cms_view(ref.data, &c);
	values[0] = Int64GetDatum((int64) c.width);
	values[1] = Int32GetDatum((int32) c.depth);
	values[2] = Float8GetDatum(bs_cms_epsilon(c.width));
	values[3] = Float8GetDatum(bs_cms_delta(c.depth));
	values[4] = Int64GetDatum((int64) c.total);
	PG_RETURN_DATUM(bs_info_end(tupdesc, values, nulls, 5, &ref, true));
}

/*
 * cms_agg(value [, epsilon, delta]) and cms_agg_weighted(value, weight
 * [, epsilon, delta]).  Not strict: a NULL value or weight skips the row, and
 * the parameters are checked before the first state exists.
 */
static Datum
agg_trans(FunctionCallInfo fcinfo, bool weighted)
{
	int			first_param = weighted ? 3 : 2;
	uint64_t	width,
				depth,
				count = 1;
	const bs_key_info *ki;
	uint8_t    *s;
	bs_cms		c;
	bool		skip;

	bs_require_agg_context(fcinfo, weighted ? "cms_agg_weighted" : "cms_agg");
	bs_cms_dims_arg(fcinfo, first_param, weighted ? "cms_agg_weighted" : "cms_agg",
					&width, &depth);

	skip = PG_ARGISNULL(1) || (weighted && PG_ARGISNULL(2));
	if (weighted && !PG_ARGISNULL(2))
		count = bs_count_arg(fcinfo, 2, "weight");
	ki = bs_key_arg(fcinfo, 1);

	if (PG_ARGISNULL(0))
	{
		uint64_t	total;

		BS_TRY(bs_cms_size(width, (uint32_t) depth, &total, BS_ERR), 0);
		if (skip)
			PG_RETURN_NULL();	/* parameters are fine; no value yet */
		s = BS_DATA(new_cms(width, (uint32_t) depth, ki->family));
	}
	else
	{
		s = bs_state_arg(fcinfo, 0, KIND);
		bs_cms_view(s, &c);
		if (c.width != width || c.depth != depth)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s parameters must be the same for every row of a group",
							weighted ? "cms_agg_weighted" : "cms_agg")));
		if (skip)
			PG_RETURN_POINTER(BS_VARLENA_OF(s));
	}
	if (PG_ARGISNULL(0))
		bs_cms_view(s, &c);
	add_key(fcinfo, &c, ki, 1, count);
	PG_RETURN_POINTER(BS_VARLENA_OF(s));
}

BS_FUNCTION_OF(cms_agg_trans, agg_trans(fcinfo, false))

BS_FUNCTION_OF(cms_agg_weighted_trans, agg_trans(fcinfo, true))
