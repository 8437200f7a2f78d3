/*
 * bloom.c: the SQL type bloom (a Bloom filter) and its functions.
 * The filter itself is the core's Bloom layer (src/core/bloom_value.h and
 * the files it names); this file turns SQL arguments into core calls and
 * core errors into ereport.  A bloom value is fixed or growable
 * (src/core/growable.c); the functions go through bs_bloom_value_* and do not
 * ask which, except bloom_info and bloom_stages, which show a growable
 * filter's own fields.
 */
#include "glue.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "core/bloom.h"
#include "core/bloom_value.h"

#define KIND BS_KIND_BLOOM

PG_FUNCTION_INFO_V1(bloom_empty);
PG_FUNCTION_INFO_V1(bloom_empty_bits);
PG_FUNCTION_INFO_V1(bloom_empty_growable);
PG_FUNCTION_INFO_V1(bloom_stages);
PG_FUNCTION_INFO_V1(bloom_add);
PG_FUNCTION_INFO_V1(bloom_add_all);
PG_FUNCTION_INFO_V1(bloom_contains);
PG_FUNCTION_INFO_V1(bloom_contained);
PG_FUNCTION_INFO_V1(bloom_union);
PG_FUNCTION_INFO_V1(bloom_intersection);
PG_FUNCTION_INFO_V1(bloom_union_trans);
PG_FUNCTION_INFO_V1(bloom_intersection_trans);
PG_FUNCTION_INFO_V1(bloom_cardinality);
PG_FUNCTION_INFO_V1(bloom_fpr);
PG_FUNCTION_INFO_V1(bloom_info);
PG_FUNCTION_INFO_V1(bloom_optimal_bits);
PG_FUNCTION_INFO_V1(bloom_optimal_hashes);
PG_FUNCTION_INFO_V1(bloom_fpr_estimate);
PG_FUNCTION_INFO_V1(bloom_fpr_exact);
PG_FUNCTION_INFO_V1(bloomsketch_hash);

BS_SKETCH_IO_FUNCTIONS(bloom, KIND)
BS_SKETCH_BYTEA_FUNCTION(bloom, KIND)
BS_SKETCH_EQUALITY_FUNCTIONS(bloom, KIND)

static bytea *
new_bloom(uint64_t m, uint32_t k, uint32_t layout, uint8_t family)
{
	uint64_t	total;
	bytea	   *v;

	BS_TRY(bs_bloom_check_layout_shape(m, k, layout, BS_ERR), 0);
	BS_TRY(bs_bloom_size(m, &total, BS_ERR), 0);
	v = bs_new_sketch((size_t) total);
	bs_bloom_init_layout(BS_DATA(v), m, k, layout, family, BS_DEFAULT_SEED);
	return v;
}

/* bloom_empty(capacity, fpr [, layout]) */
Datum
bloom_empty(PG_FUNCTION_ARGS)
{
	double		n = (double) bs_positive_int64_arg(fcinfo, 0, "capacity");
	double		p = PG_GETARG_FLOAT8(1);
	uint32_t	layout = bs_layout_arg_or_classic(fcinfo, 2);
	uint64_t	m;
	uint32_t	k;

	BS_TRY(bs_bloom_shape_for(n, p, layout, &m, &k, BS_ERR), 0);
	PG_RETURN_BYTEA_P(new_bloom(m, k, layout, BS_FAMILY_NONE));
}

/* bloom_empty(capacity, fpr, growth, layout): a growable filter */
Datum
bloom_empty_growable(PG_FUNCTION_ARGS)
{
	int64		n0 = bs_positive_int64_arg(fcinfo, 0, "capacity");
	int32		growth = PG_GETARG_INT32(2);
	uint32_t	layout = bs_layout_arg(fcinfo, 3);
	uint8_t    *buf;
	uint64_t	len;

	BS_TRY(bs_growable_check_growth(growth, BS_ERR), 0);
	BS_TRY(bs_growable_new((uint64_t) n0, PG_GETARG_FLOAT8(1), (uint32_t) growth, layout,
						   BS_FAMILY_NONE, BS_DEFAULT_SEED, &bs_palloc_allocator,
						   &buf, &len, BS_ERR), 0);
	PG_RETURN_BYTEA_P(BS_VARLENA_OF(buf));
}

/* bloom_empty_bits(bits, hashes [, layout]) */
Datum
bloom_empty_bits(PG_FUNCTION_ARGS)
{
	int64		m = bs_positive_int64_arg(fcinfo, 0, "bits");
	int32		k = PG_GETARG_INT32(1);
	uint32_t	layout = bs_layout_arg_or_classic(fcinfo, 2);

	if (k < 1 || k > BS_BLOOM_MAX_HASHES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("hashes must be between 1 and %d, got %d",
						BS_BLOOM_MAX_HASHES, k)));
	PG_RETURN_BYTEA_P(new_bloom((uint64_t) m, (uint32_t) k, layout, BS_FAMILY_NONE));
}

/* bloom_add(bloom, anyelement): a new filter with the value added. */
Datum
bloom_add(PG_FUNCTION_ARGS)
{
	const bs_key_info *ki;
	bs_bloom_value f;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	ki = bs_key_arg(fcinfo, 1);
	bs_bloom_value_view(BS_DATA(bs_sketch_arg_copy(fcinfo, 0, KIND)), &f);
	bs_check_family(f.family, ki, "bloom filter");
	BS_TRY(bs_bloom_value_add(&f, bs_key_hash(ki, PG_GETARG_DATUM(1), f.seed), ki->family,
							  &bs_palloc_releasing_allocator, BS_ERR), 0);
	PG_RETURN_BYTEA_P(BS_VARLENA_OF(f.buf));
}

/*
 * bloom_add_all(bloom, anyarray): a new filter with every non-NULL element
 * added, in array order, as that many bloom_add calls would make it, but
 * with one copy of the filter instead of one per element.
 */
Datum
bloom_add_all(PG_FUNCTION_ARGS)
{
	ArrayType  *arr;
	bs_key_info ki;
	Datum	   *elems;
	bool	   *elem_nulls;
	int			n,
				i;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	bs_bloom_value f;
	uint8_t		family;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	arr = PG_GETARG_ARRAYTYPE_P(1);
	get_typlenbyvalalign(ARR_ELEMTYPE(arr), &typlen, &typbyval, &typalign);
	deconstruct_array(arr, ARR_ELEMTYPE(arr), typlen, typbyval, typalign,
					  &elems, &elem_nulls, &n);
	/* as n bloom_add calls: with no value to add, f unchanged, whatever the type */
	for (i = 0; i < n && elem_nulls[i]; i++)
		;
	if (i == n)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	bs_key_info_init(&ki, ARR_ELEMTYPE(arr));
	bs_bloom_value_view(BS_DATA(bs_sketch_arg_copy(fcinfo, 0, KIND)), &f);
	family = f.family;
	bs_check_family(family, &ki, "bloom filter");
	for (i = 0; i < n; i++)
	{
		/* before the NULL test, which would otherwise skip it */
		if ((i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		if (elem_nulls[i])
			continue;
		/* as bloom_add: the first value gives an empty filter its family */
		family = ki.family;
		BS_TRY(bs_bloom_value_add(&f, bs_key_hash(&ki, elems[i], f.seed), family,
								  &bs_palloc_releasing_allocator, BS_ERR), 0);
	}
	PG_RETURN_BYTEA_P(BS_VARLENA_OF(f.buf));
}

static bool
contains(FunctionCallInfo fcinfo, int sketch_arg, int key_arg)
{
	bs_sketch_ref ref;
	uint64_t	h = bs_lookup_hash(fcinfo, sketch_arg, key_arg, KIND, "bloom filter", &ref);
	bs_bloom_value f;
	bool		found;

	bs_bloom_value_view(ref.data, &f);
	found = bs_bloom_value_contains(&f, h);
	bs_sketch_release(&ref);
	return found;
}

BS_FUNCTION_OF(bloom_contains, BoolGetDatum(contains(fcinfo, 0, 1)))

BS_FUNCTION_OF(bloom_contained, BoolGetDatum(contains(fcinfo, 1, 0)))

/* dst, a filter of ours, merged with argument 1; the result's bytes (dst's or new). */
static uint8_t *
merge_arg(FunctionCallInfo fcinfo, uint8_t *dst, bool is_union)
{
	bs_bloom_value f;
	bs_sketch_ref ref;

	bs_bloom_value_view(dst, &f);
	bs_sketch_arg(fcinfo, 1, KIND, &ref);
	BS_TRY(bs_bloom_value_merge(&f, ref.data, is_union, &bs_palloc_allocator, BS_ERR), 0);
	bs_sketch_release(&ref);
	return f.buf;
}

static Datum
merge_new(FunctionCallInfo fcinfo, bool is_union)
{
	PG_RETURN_BYTEA_P(BS_VARLENA_OF(merge_arg(fcinfo, BS_DATA(bs_sketch_arg_copy(fcinfo, 0, KIND)),
											  is_union)));
}

BS_FUNCTION_OF(bloom_union, merge_new(fcinfo, true))

BS_FUNCTION_OF(bloom_intersection, merge_new(fcinfo, false))

/*
 * Transition and combine function of bloom_union_agg / bloom_intersection_agg:
 * merges the second argument into the state in place (the state is ours, in
 * the aggregate context), so no row copies the filter.
 */
static Datum
merge_trans(FunctionCallInfo fcinfo, bool is_union)
{
	bs_require_agg_context(fcinfo, is_union ? "bloom_union_trans" : "bloom_intersection_trans");

	/*
	 * A growable union may need a larger state; nodeAgg copies a new state
	 * into the aggregate's context and frees the old one.
	 */
	PG_RETURN_POINTER(BS_VARLENA_OF(merge_arg(fcinfo, bs_state_arg(fcinfo, 0, KIND), is_union)));
}

BS_FUNCTION_OF(bloom_union_trans, merge_trans(fcinfo, true))

BS_FUNCTION_OF(bloom_intersection_trans, merge_trans(fcinfo, false))

static uint64_t
bits_set(const bs_bloom *b)
{
	return bs_popcount(b->bits, bs_bloom_payload_bytes(b->m));
}

/* bloom_fpr (want_fpr) or bloom_cardinality of argument 0, from the fill. */
static double
fill_estimate(FunctionCallInfo fcinfo, bool want_fpr)
{
	bs_sketch_ref ref;
	bs_bloom_value f;
	double		v;

	bs_sketch_arg(fcinfo, 0, KIND, &ref);
	bs_bloom_value_view(ref.data, &f);
	v = want_fpr ? bs_bloom_value_fpr(&f) : bs_bloom_value_cardinality(&f);
	bs_sketch_release(&ref);
	return v;
}

BS_FUNCTION_OF(bloom_cardinality, Float8GetDatum(fill_estimate(fcinfo, false)))

BS_FUNCTION_OF(bloom_fpr, Float8GetDatum(fill_estimate(fcinfo, true)))

Datum
bloom_info(PG_FUNCTION_ARGS)
{
	bs_sketch_ref ref;
	bs_bloom	b;
	TupleDesc	tupdesc;
	Datum		values[14];
	bool		nulls[14] = {0};
	uint64_t	x;

	tupdesc = bs_info_begin(fcinfo, KIND, &ref);
	if (bs_bloom_is_growable(ref.data))
	{
		bs_growable *g = palloc(sizeof(bs_growable));
		uint64_t	m;

		bs_growable_view(ref.data, g);
		bs_growable_bits(g, &m, &x);
		values[0] = Int64GetDatum((int64) m);
		nulls[1] = true;		/* each stage has its own: bloom_stages */
		values[2] = Int64GetDatum((int64) x);
		values[3] = Float8GetDatum((double) x / (double) m);
		values[4] = Float8GetDatum(bs_growable_cardinality(g));
		values[5] = Float8GetDatum(bs_growable_fpr(g));
		values[11] = CStringGetTextDatum(bs_layout_name(g->layout));
		values[12] = Int32GetDatum((int32) g->growth);
		values[13] = Int32GetDatum((int32) g->nstages);
		pfree(g);
	}
	else
	{
		bs_bloom_view(ref.data, &b);
		x = bits_set(&b);
		values[0] = Int64GetDatum((int64) b.m);
		values[1] = Int32GetDatum((int32) b.k);
		values[2] = Int64GetDatum((int64) x);
		values[3] = Float8GetDatum((double) x / (double) b.m);
		values[4] = Float8GetDatum(bs_bloom_cardinality_of(&b));
		values[5] = Float8GetDatum(bs_bloom_fpr_of(&b));
		values[11] = CStringGetTextDatum(bs_layout_name(b.layout));
		nulls[12] = true;
		values[13] = Int32GetDatum(1);
	}
	/*
	 * layout is a column since 1.3, growth and stages since 1.4; an older
	 * catalog's row ends before them, and heap_form_tuple takes its columns.
	 */
	PG_RETURN_DATUM(bs_info_end(tupdesc, values, nulls, 6, &ref, true));
}

/* One row of bloom_stages: a stage's shape, target, count and estimates. */
static void
put_stage(ReturnSetInfo *rsinfo, uint32_t i, const bs_bloom *s, bool growable,
		  uint64_t capacity, double target, uint64_t count)
{
	Datum		values[9];
	bool		nulls[9] = {0};
	uint64_t	x = bits_set(s);

	values[0] = Int32GetDatum((int32) i);
	values[1] = Int64GetDatum((int64) capacity);
	values[2] = Float8GetDatum(target);
	values[3] = Int64GetDatum((int64) s->m);
	values[4] = Int32GetDatum((int32) s->k);
	values[5] = Int64GetDatum((int64) count);
	values[6] = Int64GetDatum((int64) x);
	values[7] = Float8GetDatum(bs_bloom_cardinality_of(s));
	values[8] = Float8GetDatum(bs_bloom_fpr_of(s));
	/* a fixed filter has no target and counts no keys */
	nulls[1] = nulls[2] = nulls[5] = !growable;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* bloom_stages(bloom): the stages of a growable filter; one row for a fixed one. */
Datum
bloom_stages(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bs_sketch_ref ref;

	InitMaterializedSRF(fcinfo, 0);
	bs_sketch_arg(fcinfo, 0, KIND, &ref);
	if (bs_bloom_is_growable(ref.data))
	{
		bs_growable *g = palloc(sizeof(bs_growable));
		uint32_t	i;

		bs_growable_view(ref.data, g);
		for (i = 0; i < g->nstages; i++)
		{
			uint64_t	cap;
			double		p;

			/* the check of the value proved every stage's target computable */
			BS_TRY(bs_growable_stage_target(g->n0, g->growth, g->fpr, i, &cap, &p, BS_ERR),
				   ERRCODE_DATA_CORRUPTED);
			put_stage(rsinfo, i, &g->stage[i], true, cap, p, g->count[i]);
		}
		pfree(g);
	}
	else
	{
		bs_bloom	b;

		bs_bloom_view(ref.data, &b);
		put_stage(rsinfo, 0, &b, false, 0, 0.0, 0);
	}
	bs_sketch_release(&ref);
	return (Datum) 0;
}

/* --- planning helpers --- */

/* bloom_optimal_bits(capacity, fpr [, layout]): the bits of bloom_empty's filter */
Datum
bloom_optimal_bits(PG_FUNCTION_ARGS)
{
	double		n = (double) bs_positive_int64_arg(fcinfo, 0, "capacity");
	uint32_t	layout = bs_layout_arg_or_classic(fcinfo, 2);
	uint64_t	m;

	BS_TRY(bs_layout_optimal_bits(layout, n, PG_GETARG_FLOAT8(1), &m, BS_ERR), 0);
	PG_RETURN_INT64((int64) m);
}

/* bloom_optimal_hashes(bits, capacity [, layout]): the k with the lowest rate */
Datum
bloom_optimal_hashes(PG_FUNCTION_ARGS)
{
	int64		m = bs_positive_int64_arg(fcinfo, 0, "bits");
	double		n = (double) bs_positive_int64_arg(fcinfo, 1, "capacity");
	uint32_t	layout = bs_layout_arg_or_classic(fcinfo, 2),
				k;

	BS_TRY(bs_layout_best_hashes(layout, (uint64_t) m, n, &k, BS_ERR), 0);
	PG_RETURN_INT32((int32) k);
}

/* bits >= 1, capacity >= 0, 1 <= hashes <= 64; bits within the size limit when a filter must exist. */
static void
planning_args(FunctionCallInfo fcinfo, bool buildable, uint64_t *m, uint64_t *n,
			  uint32_t *k)
{
	int64		bits = bs_positive_int64_arg(fcinfo, 0, "bits");
	int64		capacity = PG_GETARG_INT64(1);
	int32		hashes = PG_GETARG_INT32(2);

	if (capacity < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must not be negative, got " INT64_FORMAT, capacity)));
	if (hashes < 1 || hashes > BS_BLOOM_MAX_HASHES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("hashes must be between 1 and %d, got %d",
						BS_BLOOM_MAX_HASHES, hashes)));
	if (buildable)
		BS_TRY(bs_bloom_check_shape((uint64_t) bits, (uint64_t) hashes, BS_ERR), 0);
	*m = (uint64_t) bits;
	*n = (uint64_t) capacity;
	*k = (uint32_t) hashes;
}

Datum
bloom_fpr_estimate(PG_FUNCTION_ARGS)
{
	uint64_t	m,
				n;
	uint32_t	k;

	uint32_t	layout = bs_layout_arg_or_classic(fcinfo, 3);

	planning_args(fcinfo, false, &m, &n, &k);
	BS_TRY(bs_layout_check_estimate(layout, m, k, BS_ERR), 0);
	PG_RETURN_FLOAT8(bs_bloom_fpr_layout(layout, m, (double) n, k));
}

Datum
bloom_fpr_exact(PG_FUNCTION_ARGS)
{
	uint64_t	m,
				n;
	uint32_t	k;
	double		p,
			   *work = palloc(BS_FPR_EXACT_WORK_LEN * sizeof(double));

	planning_args(fcinfo, true, &m, &n, &k);
	BS_TRY(bs_bloom_fpr_exact(m, n, k, work, &p, BS_ERR), 0);
	pfree(work);
	PG_RETURN_FLOAT8(p);
}

/* The documented canonical hash, as a signed bigint. */
Datum
bloomsketch_hash(PG_FUNCTION_ARGS)
{
	const bs_key_info *ki = bs_key_arg(fcinfo, 0);

	PG_RETURN_INT64((int64) bs_key_hash(ki, PG_GETARG_DATUM(0), BS_DEFAULT_SEED));
}
