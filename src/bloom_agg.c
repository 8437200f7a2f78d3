/*
 * bloom_agg.c: bloom_agg and its transition state type bloom_agg_state,
 * which cbloom_agg(value [, fpr]) shares in its counting form (bloom_agg_state.h).
 *
 * The state is a real varlena type (not internal) so that parallel workers,
 * postgres_fdw and Citus can ship it as text or binary (doc/architecture.md,
 * section 4).  The transition function updates the state in place and
 * returns the same pointer, so PostgreSQL copies nothing per row; when the
 * state must grow (src/core/bloom_agg_state.h) the new one is made in the per-tuple
 * context and returned, and nodeAgg copies it into the aggregate context
 * once.  A state that outgrows the CPU caches becomes an expanded object that
 * adds hashes in sorted batches (bloom_agg_expanded.c) and grows inside its own
 * memory context.
 */
#include "glue.h"

#include <math.h>

#include "core/bloom.h"
#include "core/bloom_agg_state.h"
#include "core/cbloom.h"

#define KIND BS_KIND_BLOOM_AGG_STATE
#define DEFAULT_FPR 0.01

PG_FUNCTION_INFO_V1(bloom_agg_trans);
PG_FUNCTION_INFO_V1(bloom_agg_layout_trans);
PG_FUNCTION_INFO_V1(bloom_agg_combine);
PG_FUNCTION_INFO_V1(bloom_agg_final);
PG_FUNCTION_INFO_V1(cbloom_agg_trans);
PG_FUNCTION_INFO_V1(cbloom_agg_final);

BS_SKETCH_IO_FUNCTIONS(bloom_agg_state, KIND)

/*
 * The fixed state's shape for (capacity, fpr, layout).  A blocked shape takes
 * a search (bs_blocked_optimal), so the call site keeps the last one in its
 * memo; the memo only ever holds blocked shapes.
 */
static bs_status
fixed_shape(FunctionCallInfo fcinfo, int64 capacity, double fpr, uint32_t layout,
			uint64_t *m, uint32_t *k, bs_error *err)
{
	uint64_t	fbits,
				mm,
				kk;
	bs_status	st;

	if (layout != BS_LAYOUT_BLOCKED)
		return bs_bloom_shape_for((double) capacity, fpr, layout, m, k, err);
	memcpy(&fbits, &fpr, sizeof(fbits));
	if (bs_memo_get(fcinfo, (uint64_t) capacity, fbits, &mm, &kk))
	{
		*m = mm;
		*k = (uint32_t) kk;
		return BS_OK;
	}
	st = bs_bloom_shape_for((double) capacity, fpr, layout, m, k, err);
	if (st == BS_OK)
		bs_memo_set(fcinfo, (uint64_t) capacity, fbits, *m, *k);
	return st;
}

/*
 * bloom_agg_trans(state, value [, fpr]) or (state, value, capacity, fpr),
 * bloom_agg_layout_trans(state, value, capacity, fpr, layout), capacity NULL
 * for the auto-sized filter, and cbloom_agg_trans(state, value [, fpr])
 * (counting).  Not strict: a NULL value leaves the state as it is, and the
 * parameters are checked before the first state exists.
 */
static Datum
bloom_agg_state_trans(FunctionCallInfo fcinfo, bool counting, bool has_layout)
{
	const char *name = counting ? "cbloom_agg" : "bloom_agg";
	int			nparams = PG_NARGS() - (has_layout ? 1 : 0);
	/* with a layout, a NULL capacity asks for the auto-sized filter */
	bool		fixed = !counting && nparams == 4 && !(has_layout && PG_ARGISNULL(2));
	int			fpr_arg = nparams - 1;
	double		fpr = DEFAULT_FPR;
	int64		capacity = 0;
	uint32_t	layout = BS_LAYOUT_CLASSIC;
	const bs_key_info *ki;
	uint8_t    *s;
	bs_bloom_agg_expanded *expanded = NULL;
	uint64_t	h;

	bs_require_agg_context(fcinfo, counting ? "cbloom_agg_trans" : "bloom_agg_trans");
	if (nparams >= 3)
	{
		if (PG_ARGISNULL(fpr_arg) || (fixed && PG_ARGISNULL(2)) ||
			(has_layout && PG_ARGISNULL(nparams)))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s parameters must not be NULL", name)));
		fpr = PG_GETARG_FLOAT8(fpr_arg);
		if (fixed)
			capacity = PG_GETARG_INT64(2);
		if (has_layout)
			layout = bs_layout_arg(fcinfo, nparams);
	}

	if (PG_ARGISNULL(0))
	{
		bs_status	st;
		bs_error	err;

		ki = bs_key_arg(fcinfo, 1);
		if (fixed && capacity < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("capacity must be at least 1, got " INT64_FORMAT, capacity)));
		if (fixed)
		{
			uint64_t	m = 0;
			uint32_t	k = 0;

			st = fixed_shape(fcinfo, capacity, fpr, layout, &m, &k, &err);
			if (st == BS_OK)
				st = bs_bloom_agg_state_new_fixed_shape((double) capacity, fpr, layout, m, k,
												ki->family, BS_DEFAULT_SEED,
												&bs_palloc_allocator, &s, &err);
		}
		else if (counting)
			st = bs_bloom_agg_state_new_counting(fpr, ki->family, BS_DEFAULT_SEED,
										 &bs_palloc_allocator, &s, &err);
		else
			st = bs_bloom_agg_state_new_auto_layout(fpr, layout, ki->family, BS_DEFAULT_SEED,
											&bs_palloc_allocator, &s, &err);
		if (st != BS_OK)
			bs_report(st, &err, 0);
		if (PG_ARGISNULL(1))
			PG_RETURN_NULL();	/* parameters are fine; no value yet */
	}
	else
	{
		expanded = bs_bloom_agg_state_rw(fcinfo, 0);
		s = expanded ? bs_bloom_agg_state_bytes(expanded) : bs_state_arg(fcinfo, 0, KIND);
		if (!bs_bloom_agg_state_fits(s, fixed, (uint64_t) capacity, fpr, counting, layout))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s parameters must be the same for every row of a group", name)));
		if (PG_ARGISNULL(1))
			PG_RETURN_DATUM(expanded ? bs_bloom_agg_state_datum(expanded) : PointerGetDatum(BS_VARLENA_OF(s)));
		ki = bs_key_arg(fcinfo, 1);
		if (s[BS_OFF_FAMILY] != ki->family)		/* a crafted initial state */
			bs_check_family(s[BS_OFF_FAMILY], ki, "bloom_agg state");
	}

	h = bs_key_hash(ki, PG_GETARG_DATUM(1), BS_DEFAULT_SEED);
	if (expanded)
	{
		bs_bloom_agg_state_append(expanded, h);
		PG_RETURN_DATUM(bs_bloom_agg_state_datum(expanded));
	}
	BS_TRY(bs_bloom_agg_state_add(&s, h, &bs_palloc_allocator, BS_ERR), 0);
	PG_RETURN_DATUM(bs_bloom_agg_state_return(fcinfo, s));
}

Datum
bloom_agg_trans(PG_FUNCTION_ARGS)
{
	return bloom_agg_state_trans(fcinfo, false, false);
}

Datum
bloom_agg_layout_trans(PG_FUNCTION_ARGS)
{
	return bloom_agg_state_trans(fcinfo, false, true);
}

Datum
cbloom_agg_trans(PG_FUNCTION_ARGS)
{
	return bloom_agg_state_trans(fcinfo, true, false);
}

/* Combine: merges the second state into the first, never changing the second. */
Datum
bloom_agg_combine(PG_FUNCTION_ARGS)
{
	bs_sketch_ref src;
	Datum		result;

	bs_require_agg_context(fcinfo, "bloom_agg_combine");
	bs_sketch_arg(fcinfo, 1, KIND, &src);
	result = bs_bloom_agg_state_merge_into(fcinfo, src.data);
	bs_sketch_release(&src);
	PG_RETURN_DATUM(result);
}

/*
 * A filter cannot grow without its keys, so an auto-sized group past the
 * dense phase's capacity (bloom_agg_state.h) misses its rate.  Say so, with the fix.
 * Only dense-phase states are checked: there the rate estimated from the
 * fill of millions of bits is exact enough not to warn by chance.
 */
static void
warn_if_overfull(const uint8_t *state, uint8_t *filter)
{
	bs_header	sh;
	bs_bloom	b;
	double		target,
				fpr;

	bs_header_read(state, &sh);
	if ((sh.p3 & (BS_AGG_STATE_DENSE | BS_AGG_STATE_FIXED)) != BS_AGG_STATE_DENSE)
		return;
	memcpy(&target, &sh.x, sizeof(target));
	bs_bloom_view(filter, &b);
	fpr = bs_bloom_fpr_of(&b);
	if (fpr > 1.2 * target)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("bloom_agg: about %.0f distinct values exceed what an automatically sized filter holds at fpr %s; its false-positive rate is about %.3g",
						bs_bloom_cardinality_of(&b), bs_num(target).s, fpr),
				 errhint("Pass a capacity for the group: bloom_agg(x, capacity, fpr).")));
}

/*
 * The final filter of a state, sized as bloom_agg_state.h says (the state is
 * left as it is): a bloom filter, or for cbloom_agg(value [, fpr]) a counting
 * filter of 4-bit counters of the same shape, each value added as many times
 * as it occurred.
 */
static bytea *
final_filter(FunctionCallInfo fcinfo, bool counting)
{
	bs_sketch_ref s;
	uint64_t	m,
				total,
				capacity;
	uint32_t	k,
				layout;
	double		fpr;
	bytea	   *v;

	bs_bloom_agg_state_arg(fcinfo, 0, &s);
	if (counting && !bs_bloom_agg_state_is_counting(s.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cbloom_agg_final needs a counting bloom_agg_state, made by cbloom_agg")));
	/* an exact fixed state's shape is its capacity's, kept by the call for the next group */
	if (bs_bloom_agg_state_fixed_exact(s.data, &capacity, &fpr, &layout))
		BS_TRY(fixed_shape(fcinfo, (int64) capacity, fpr, layout, &m, &k, BS_ERR), 0);
	else
		BS_TRY(bs_bloom_agg_state_result_shape(s.data, &m, &k, BS_ERR), 0);
	if (counting)
		BS_TRY(bs_cbloom_size(m, BS_CBLOOM_DEFAULT_BITS, &total, BS_ERR), 0);
	else
		BS_TRY(bs_bloom_size(m, &total, BS_ERR), 0);
	v = bs_new_sketch((size_t) total);
	if (counting)
		bs_bloom_agg_state_finish_counting(s.data, m, k, BS_CBLOOM_DEFAULT_BITS, BS_DATA(v));
	else
	{
		bs_bloom_agg_state_finish(s.data, m, k, BS_DATA(v));
		warn_if_overfull(s.data, BS_DATA(v));
	}
	bs_sketch_release(&s);
	return v;
}

BS_FUNCTION_OF(bloom_agg_final, PointerGetDatum(final_filter(fcinfo, false)))

BS_FUNCTION_OF(cbloom_agg_final, PointerGetDatum(final_filter(fcinfo, true)))
