/*
 * cbloom.c: the SQL type cbloom (a counting Bloom filter), its functions and
 * cbloom_agg(value, capacity, fpr), whose state is the filter itself.  The
 * filter is src/core/cbloom.c; cbloom_agg(value [, fpr]), which sizes the
 * filter for the group, is in bloom_agg.c with the state it shares.
 */
#include "glue.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "core/bloom.h"
#include "core/cbloom.h"

#define KIND BS_KIND_CBLOOM

PG_FUNCTION_INFO_V1(cbloom_empty);
PG_FUNCTION_INFO_V1(cbloom_add);
PG_FUNCTION_INFO_V1(cbloom_remove);
PG_FUNCTION_INFO_V1(cbloom_contains);
PG_FUNCTION_INFO_V1(cbloom_contained);
PG_FUNCTION_INFO_V1(cbloom_count);
PG_FUNCTION_INFO_V1(cbloom_union);
PG_FUNCTION_INFO_V1(cbloom_union_trans);
PG_FUNCTION_INFO_V1(cbloom_subtract);
PG_FUNCTION_INFO_V1(cbloom_to_bloom);
PG_FUNCTION_INFO_V1(cbloom_info);
PG_FUNCTION_INFO_V1(cbloom_agg_capacity_trans);

BS_SKETCH_IO_FUNCTIONS(cbloom, KIND)
BS_SKETCH_BYTEA_FUNCTION(cbloom, KIND)
BS_SKETCH_EQUALITY_FUNCTIONS(cbloom, KIND)

static bytea *
new_cbloom(uint64_t m, uint32_t k, uint32_t bits, uint8_t family)
{
	uint64_t	total;
	bytea	   *v;

	BS_TRY(bs_cbloom_check_shape(m, k, bits, BS_ERR), 0);
	BS_TRY(bs_cbloom_size(m, bits, &total, BS_ERR), 0);
	v = bs_new_sketch((size_t) total);
	bs_cbloom_init(BS_DATA(v), m, k, bits, family, BS_DEFAULT_SEED);
	return v;
}

/* The shape of capacity and fpr, checked, as bloom_empty computes it. */
static void
shape_of(int64 capacity, double fpr, uint32_t bits, uint64_t *m, uint32_t *k)
{
	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be at least 1, got " INT64_FORMAT, capacity)));
	BS_TRY(bs_cbloom_optimal_shape((double) capacity, fpr, bits, m, k, BS_ERR), 0);
}

/* cbloom_empty(capacity, fpr DEFAULT 0.01, counter_bits DEFAULT 4) */
Datum
cbloom_empty(PG_FUNCTION_ARGS)
{
	int32		bits = PG_GETARG_INT32(2);
	uint64_t	m;
	uint32_t	k;

	if (bits != 4 && bits != 8)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("counter_bits must be 4 or 8, got %d", bits)));
	shape_of(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1), (uint32_t) bits, &m, &k);
	PG_RETURN_BYTEA_P(new_cbloom(m, k, (uint32_t) bits, BS_FAMILY_NONE));
}

/*
 * cbloom_add / cbloom_remove (cbloom, anyelement): a new filter.  A NULL
 * value returns the filter unchanged.  A failed removal raises before
 * anything is returned, so the stored filter stays as it was.
 */
static Datum
add_or_remove(FunctionCallInfo fcinfo, bool add)
{
	const bs_key_info *ki;
	bytea	   *v;
	bs_cbloom	c;
	uint64_t	h;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	ki = bs_key_arg(fcinfo, 1);
	v = bs_sketch_arg_copy(fcinfo, 0, KIND);
	bs_cbloom_view(BS_DATA(v), &c);
	bs_check_family(c.family, ki, "counting bloom filter");
	h = bs_key_hash(ki, PG_GETARG_DATUM(1), c.seed);
	if (add)
		bs_cbloom_add_hash(&c, h, 1);
	else
		BS_TRY(bs_cbloom_remove_hash(&c, h, BS_ERR), 0);
	c.buf[BS_OFF_FAMILY] = ki->family;
	PG_RETURN_BYTEA_P(v);
}

BS_FUNCTION_OF(cbloom_add, add_or_remove(fcinfo, true))

BS_FUNCTION_OF(cbloom_remove, add_or_remove(fcinfo, false))

/* Membership (count = false) or the count bound of the key argument. */
static uint32_t
lookup(FunctionCallInfo fcinfo, int sketch_arg, int key_arg, bool count)
{
	bs_sketch_ref ref;
	uint64_t	h = bs_lookup_hash(fcinfo, sketch_arg, key_arg, KIND, "counting bloom filter", &ref);
	bs_cbloom	c;
	uint32_t	r;

	bs_cbloom_view(ref.data, &c);
	r = count ? bs_cbloom_count_hash(&c, h) : bs_cbloom_contains_hash(&c, h);
	bs_sketch_release(&ref);
	return r;
}

Datum
cbloom_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(lookup(fcinfo, 0, 1, false) != 0);
}

Datum
cbloom_contained(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(lookup(fcinfo, 1, 0, false) != 0);
}

BS_FUNCTION_OF(cbloom_count, Int32GetDatum((int32) lookup(fcinfo, 0, 1, true)))

/* dst += (or -=) the filter of argument argno, after the shape and family checks. */
static void
merge_arg(FunctionCallInfo fcinfo, bs_cbloom *dst, int argno, bool add)
{
	bs_sketch_ref ref;
	bs_cbloom	src;

	bs_sketch_arg(fcinfo, argno, KIND, &ref);
	bs_cbloom_view(ref.data, &src);
	BS_TRY(bs_cbloom_check_compatible(dst, &src, add ? "merge" : "subtract", BS_ERR), 0);
	if (add)
		bs_cbloom_add_counters(dst, &src);
	else
		BS_TRY(bs_cbloom_subtract(dst, &src, BS_ERR), 0);
	bs_sketch_release(&ref);
}

/* A copy of argument 0 with argument 1 added to it, or subtracted from it. */
static bytea *
combined_copy(FunctionCallInfo fcinfo, bool add)
{
	bytea	   *v = bs_sketch_arg_copy(fcinfo, 0, KIND);
	bs_cbloom	dst;

	bs_cbloom_view(BS_DATA(v), &dst);
	merge_arg(fcinfo, &dst, 1, add);
	return v;
}

BS_FUNCTION_OF(cbloom_union, PointerGetDatum(combined_copy(fcinfo, true)))

/* cbloom_subtract(a, b): a with b's values removed (b a part of a). */
BS_FUNCTION_OF(cbloom_subtract, PointerGetDatum(combined_copy(fcinfo, false)))

/* Transition and combine function of cbloom_union_agg, combine of cbloom_agg(x, capacity, fpr): adds in place. */
Datum
cbloom_union_trans(PG_FUNCTION_ARGS)
{
	uint8_t    *s;
	bs_cbloom	dst;

	bs_require_agg_context(fcinfo, "cbloom_union_trans");
	s = bs_state_arg(fcinfo, 0, KIND);
	bs_cbloom_view(s, &dst);
	merge_arg(fcinfo, &dst, 1, true);
	PG_RETURN_POINTER(BS_VARLENA_OF(s));
}

/* The cast to bloom: bit j set where counter j > 0. */
Datum
cbloom_to_bloom(PG_FUNCTION_ARGS)
{
	bs_sketch_ref ref;
	bs_cbloom	c;
	uint64_t	total;
	bytea	   *v;

	bs_sketch_arg(fcinfo, 0, KIND, &ref);
	bs_cbloom_view(ref.data, &c);
	BS_TRY(bs_bloom_size(c.m, &total, BS_ERR), 0);
	v = bs_new_sketch((size_t) total);
	bs_cbloom_to_bloom(&c, BS_DATA(v));
	bs_sketch_release(&ref);
	PG_RETURN_BYTEA_P(v);
}

Datum
cbloom_info(PG_FUNCTION_ARGS)
{
	bs_sketch_ref ref;
	bs_cbloom	c;
	TupleDesc	tupdesc;
	Datum		values[14];
	bool		nulls[14] = {0};
	uint64_t	zero,
				saturated;

	tupdesc = bs_info_begin(fcinfo, KIND, &ref);
	bs_cbloom_view(ref.data, &c);
	bs_cbloom_stats(&c, &zero, &saturated);
	values[0] = Int64GetDatum((int64) c.m);
	values[1] = Int32GetDatum((int32) c.k);
	values[2] = Int32GetDatum((int32) c.bits);
	values[3] = Int64GetDatum((int64) zero);
	values[4] = Int64GetDatum((int64) saturated);
	values[5] = Float8GetDatum((double) (c.m - zero) / (double) c.m);
	values[6] = Float8GetDatum(bs_bloom_cardinality(c.m, c.k, c.m - zero));
	values[7] = Float8GetDatum(bs_bloom_fpr_from_fill(c.m, c.k, c.m - zero));
	values[13] = Int32GetDatum((int32) c.max);
	PG_RETURN_DATUM(bs_info_end(tupdesc, values, nulls, 8, &ref, true));
}

/*
 * cbloom_agg(value, capacity, fpr [, counter_bits]): the state is a filter
 * of the cbloom_empty(capacity, fpr, counter_bits) shape, updated in place.
 * Not strict: a NULL value skips the row, and the parameters are checked
 * (and their shape memoised) before the first state exists.
 */
Datum
cbloom_agg_capacity_trans(PG_FUNCTION_ARGS)
{
	uint64_t	m,
				k64;
	uint64_t	cap_bits,
				fpr_bits;
	int64		capacity;
	double		fpr;
	int32		bits = BS_CBLOOM_DEFAULT_BITS;
	const bs_key_info *ki;
	uint8_t    *s;
	bs_cbloom	c;

	bs_require_agg_context(fcinfo, "cbloom_agg_capacity_trans");
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3) || (PG_NARGS() > 4 && PG_ARGISNULL(4)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("cbloom_agg parameters must not be NULL")));
	capacity = PG_GETARG_INT64(2);
	fpr = PG_GETARG_FLOAT8(3);
	if (PG_NARGS() > 4)
		bits = PG_GETARG_INT32(4);
	if (bits != 4 && bits != 8)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("counter_bits must be 4 or 8, got %d", bits)));
	cap_bits = (uint64_t) capacity;
	memcpy(&fpr_bits, &fpr, sizeof(fpr_bits));
	if (!bs_memo_get(fcinfo, cap_bits, fpr_bits, &m, &k64))
	{
		uint32_t	k;

		shape_of(capacity, fpr, (uint32_t) bits, &m, &k);
		k64 = k;
		bs_memo_set(fcinfo, cap_bits, fpr_bits, m, k64);
	}
	ki = bs_key_arg(fcinfo, 1);

	if (PG_ARGISNULL(0))
	{
		uint64_t	total;

		BS_TRY(bs_cbloom_size(m, (uint32_t) bits, &total, BS_ERR), 0);
		if (PG_ARGISNULL(1))
			PG_RETURN_NULL();	/* parameters are fine; no value yet */
		s = BS_DATA(new_cbloom(m, (uint32_t) k64, (uint32_t) bits, ki->family));
	}
	else
	{
		s = bs_state_arg(fcinfo, 0, KIND);
		bs_cbloom_view(s, &c);
		if (c.m != m || c.k != k64 || c.bits != (uint32_t) bits)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cbloom_agg parameters must be the same for every row of a group")));
		if (PG_ARGISNULL(1))
			PG_RETURN_POINTER(BS_VARLENA_OF(s));
	}
	bs_cbloom_view(s, &c);
	bs_cbloom_add_hash(&c, bs_key_hash(ki, PG_GETARG_DATUM(1), c.seed), 1);
	PG_RETURN_POINTER(BS_VARLENA_OF(s));
}
