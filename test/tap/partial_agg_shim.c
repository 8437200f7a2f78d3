/*
 * partial_agg_shim.c: FOR TESTING ONLY (test/tap/007_partial_agg_protocol.pl).
 *
 * It imitates the calling convention that Citus uses to distribute a custom
 * aggregate, so that bloomsketch's aggregates can be tested under it without
 * a Citus installation.  Written from scratch for this test, not copied from
 * Citus.  What it imitates:
 *
 *   on a worker:      partial_agg(agg regprocedure, value)     -> text
 *       value is the aggregate's only argument, or ROW(arg1, ..., argN) when
 *       the aggregate takes N > 1 arguments; as Citus checks, their types
 *       must be the aggregate's declared argument types.
 *       For every row the aggregate's transition function is looked up in
 *       pg_aggregate and called through a NEW FmgrInfo from fmgr_info() (so
 *       fn_expr and fn_extra are NULL on every call), with context = the
 *       AggState of partial_agg itself; the final function prints the
 *       transition state with the state type's output function.
 *
 *   on a coordinator: combine_agg(agg regprocedure, state text, NULL::result)
 *       parses every state with the state type's input function, merges them
 *       with the aggregate's combine function and applies its final function
 *       (or returns the state when there is none), both again through bare
 *       fmgr_info() calls.  The NULL::result must be of the result type.
 *
 * Transition values are kept as nodeAgg keeps them: a by-reference result
 * that is not the previous value is copied into the aggregate context and
 * the previous value is freed; a strict transition or combine function skips
 * NULL inputs and takes the first non-NULL input as the state.
 *
 * raw_partial_agg(transfn regprocedure, agg regprocedure, value) calls the
 * FUNCTION transfn (not the aggregate's) on every row, with the aggregate as
 * a mere constant argument: a transition function called by a caller that
 * names no usable aggregate (the negative test).  Its value is checked only
 * against the function's non-polymorphic argument types.
 *
 * Built by the test with
 *   cc -shared -fPIC -O2 -I$(pg_config --includedir-server) -o partial_agg_shim.so partial_agg_shim.c
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/expandeddatum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(partial_agg_sfunc);
PG_FUNCTION_INFO_V1(raw_partial_agg_sfunc);
PG_FUNCTION_INFO_V1(partial_agg_ffunc);
PG_FUNCTION_INFO_V1(combine_agg_sfunc);
PG_FUNCTION_INFO_V1(combine_agg_ffunc);

typedef struct ShimState
{
	Oid			agg;			/* the aggregate, or InvalidOid (raw) */
	Oid			transfn;
	Oid			combinefn;
	Oid			finalfn;
	bool		finalextra;
	Oid			transtype;
	int16		typlen;
	bool		typbyval;
	int			nargs;			/* the aggregate's arguments */
	Oid		   *argtypes;
	bool		initialized;	/* a state value (maybe NULL) has been set */
	bool		isnull;
	Datum		value;
} ShimState;

static MemoryContext
agg_context(FunctionCallInfo fcinfo)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "partial_agg_shim: called outside an aggregate");
	return cxt;
}

/* A new state for the aggregate aggoid, in the aggregate context. */
static ShimState *
new_state(FunctionCallInfo fcinfo, Oid aggoid)
{
	MemoryContext cxt = agg_context(fcinfo);
	ShimState  *st = MemoryContextAllocZero(cxt, sizeof(ShimState));
	HeapTuple	tup;
	Form_pg_aggregate agg;
	Datum		initval;
	bool		initnull;
	Oid		   *argtypes;

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggoid));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partial_agg_shim: %u is not an aggregate", aggoid)));
	agg = (Form_pg_aggregate) GETSTRUCT(tup);
	st->agg = aggoid;
	st->transfn = agg->aggtransfn;
	st->combinefn = agg->aggcombinefn;
	st->finalfn = agg->aggfinalfn;
	st->finalextra = agg->aggfinalextra;
	st->transtype = agg->aggtranstype;
	if (st->transtype == INTERNALOID)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("partial_agg_shim: state type internal has no text form")));
	get_typlenbyval(st->transtype, &st->typlen, &st->typbyval);
	st->isnull = true;
	initval = SysCacheGetAttr(AGGFNOID, tup, Anum_pg_aggregate_agginitval, &initnull);
	if (!initnull)
	{
		Oid			typinput,
					ioparam;
		char	   *s = TextDatumGetCString(initval);
		MemoryContext old;

		getTypeInputInfo(st->transtype, &typinput, &ioparam);
		old = MemoryContextSwitchTo(cxt);
		st->value = OidInputFunctionCall(typinput, s, ioparam, -1);
		MemoryContextSwitchTo(old);
		st->isnull = false;
		st->initialized = true;
	}
	ReleaseSysCache(tup);

	get_func_signature(aggoid, &argtypes, &st->nargs);
	st->argtypes = MemoryContextAlloc(cxt, sizeof(Oid) * Max(st->nargs, 1));
	memcpy(st->argtypes, argtypes, sizeof(Oid) * st->nargs);
	pfree(argtypes);
	return st;
}

/* A state that calls the function fnoid (raw_partial_agg); its result type is the state. */
static ShimState *
new_raw_state(FunctionCallInfo fcinfo, Oid fnoid)
{
	MemoryContext cxt = agg_context(fcinfo);
	ShimState  *st = MemoryContextAllocZero(cxt, sizeof(ShimState));
	Oid		   *argtypes;

	st->transfn = fnoid;
	st->transtype = get_func_signature(fnoid, &argtypes, &st->nargs);
	if (st->nargs < 2 || argtypes[0] != st->transtype)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partial_agg_shim: %u is not a transition function", fnoid)));
	/* the transition function's arguments after the state */
	st->nargs--;
	st->argtypes = MemoryContextAlloc(cxt, sizeof(Oid) * st->nargs);
	memcpy(st->argtypes, argtypes + 1, sizeof(Oid) * st->nargs);
	pfree(argtypes);
	get_typlenbyval(st->transtype, &st->typlen, &st->typbyval);
	st->isnull = true;
	return st;
}

/* Keep newval as the state, as nodeAgg does (copy into the aggregate context, free the old). */
static void
set_state(FunctionCallInfo fcinfo, ShimState *st, Datum newval, bool newnull)
{
	if (!st->typbyval && DatumGetPointer(newval) != DatumGetPointer(st->value))
	{
		if (!newnull)
		{
			MemoryContext old = MemoryContextSwitchTo(agg_context(fcinfo));

			if (!(DatumIsReadWriteExpandedObject(newval, false, st->typlen) &&
				  MemoryContextGetParent(DatumGetEOHP(newval)->eoh_context) == CurrentMemoryContext))
				newval = datumCopy(newval, false, st->typlen);
			MemoryContextSwitchTo(old);
		}
		if (!st->isnull)
		{
			if (DatumIsReadWriteExpandedObject(st->value, false, st->typlen))
				DeleteExpandedObject(st->value);
			else
				pfree(DatumGetPointer(st->value));
		}
	}
	st->value = newnull ? (Datum) 0 : newval;
	st->isnull = newnull;
	st->initialized = true;
}

/*
 * A strict function (transition or combine) given first: skip a NULL input;
 * the first non-NULL input becomes the state.  True when the function is to
 * be called.
 */
static bool
strict_prologue(FunctionCallInfo fcinfo, ShimState *st, NullableDatum *in, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		if (in[i].isnull)
			return false;
	if (!st->initialized)
	{
		MemoryContext old = MemoryContextSwitchTo(agg_context(fcinfo));

		st->value = datumCopy(in[0].value, st->typbyval, st->typlen);
		MemoryContextSwitchTo(old);
		st->isnull = false;
		st->initialized = true;
		return false;
	}
	return !st->isnull;
}

/*
 * The aggregate's arguments of this row: the value itself, or the fields of
 * the ROW that carries them.  As Citus does, the types must be the
 * aggregate's declared argument types (the Aggref's arguments are coerced to
 * them), except where the aggregate declares a polymorphic type.
 */
static int
row_arguments(FunctionCallInfo fcinfo, ShimState *st, int valarg, NullableDatum *out)
{
	Oid			valtype = get_fn_expr_argtype(fcinfo->flinfo, valarg);
	HeapTupleHeader th;
	TupleDesc	td;
	HeapTupleData tuple;
	Datum	   *values;
	bool	   *nulls;
	int			i;

	if (st->nargs == 1)
	{
		if (!IsPolymorphicType(st->argtypes[0]) && valtype != st->argtypes[0])
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("partial_agg_shim: the value is of type %s, the aggregate takes %s",
							format_type_be(valtype), format_type_be(st->argtypes[0]))));
		out[0].value = PG_GETARG_DATUM(valarg);
		out[0].isnull = PG_ARGISNULL(valarg);
		return 1;
	}
	if (valtype != RECORDOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("partial_agg_shim: the aggregate takes %d arguments: pass ROW(...)",
						st->nargs)));
	if (PG_ARGISNULL(valarg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partial_agg_shim: the ROW of arguments must not be NULL")));
	th = PG_GETARG_HEAPTUPLEHEADER(valarg);
	td = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(th), HeapTupleHeaderGetTypMod(th));
	if (td->natts != st->nargs)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("partial_agg_shim: the aggregate takes %d arguments, the ROW has %d",
						st->nargs, td->natts)));
	for (i = 0; i < st->nargs; i++)
		if (!IsPolymorphicType(st->argtypes[i]) &&
			TupleDescAttr(td, i)->atttypid != st->argtypes[i])
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("partial_agg_shim: field %d of the ROW is of type %s, the aggregate takes %s",
							i + 1, format_type_be(TupleDescAttr(td, i)->atttypid),
							format_type_be(st->argtypes[i]))));
	tuple.t_len = HeapTupleHeaderGetDatumLength(th);
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = InvalidOid;
	tuple.t_data = th;
	values = palloc(sizeof(Datum) * st->nargs);
	nulls = palloc(sizeof(bool) * st->nargs);
	heap_deform_tuple(&tuple, td, values, nulls);
	ReleaseTupleDesc(td);
	for (i = 0; i < st->nargs; i++)
	{
		out[i].value = values[i];
		out[i].isnull = nulls[i];
	}
	return st->nargs;
}

/* One row: the transition function through a fresh FmgrInfo, no expression. */
static void
transition(FunctionCallInfo fcinfo, ShimState *st, int valarg)
{
	LOCAL_FCINFO(inner, FUNC_MAX_ARGS);
	NullableDatum args[FUNC_MAX_ARGS];
	FmgrInfo	info;
	Datum		newval;
	int			n,
				i;

	n = row_arguments(fcinfo, st, valarg, args);
	fmgr_info(st->transfn, &info);
	if (info.fn_strict && !strict_prologue(fcinfo, st, args, n))
		return;
	InitFunctionCallInfoData(*inner, &info, n + 1, fcinfo->fncollation,
							 fcinfo->context, fcinfo->resultinfo);
	inner->args[0].value = st->value;
	inner->args[0].isnull = st->isnull;
	for (i = 0; i < n; i++)
		inner->args[i + 1] = args[i];
	newval = FunctionCallInvoke(inner);
	set_state(fcinfo, st, newval, inner->isnull);
}

/* partial_agg_sfunc(internal, regprocedure agg, anyelement value_or_row) */
Datum
partial_agg_sfunc(PG_FUNCTION_ARGS)
{
	ShimState  *st;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partial_agg_shim: the aggregate must not be NULL")));
	if (PG_ARGISNULL(0))
		st = new_state(fcinfo, PG_GETARG_OID(1));
	else
		st = (ShimState *) PG_GETARG_POINTER(0);
	if (st->agg != PG_GETARG_OID(1))
		elog(ERROR, "partial_agg_shim: the aggregate changed within a group");
	transition(fcinfo, st, 2);
	PG_RETURN_POINTER(st);
}

/* raw_partial_agg_sfunc(internal, regprocedure transfn, regprocedure agg, anyelement value_or_row) */
Datum
raw_partial_agg_sfunc(PG_FUNCTION_ARGS)
{
	ShimState  *st;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partial_agg_shim: the transition function must not be NULL")));
	if (PG_ARGISNULL(0))
		st = new_raw_state(fcinfo, PG_GETARG_OID(1));
	else
		st = (ShimState *) PG_GETARG_POINTER(0);
	transition(fcinfo, st, 3);
	PG_RETURN_POINTER(st);
}

/* partial_agg_ffunc(internal) RETURNS text: the state's text form, or NULL. */
Datum
partial_agg_ffunc(PG_FUNCTION_ARGS)
{
	LOCAL_FCINFO(inner, 1);
	ShimState  *st = PG_ARGISNULL(0) ? NULL : (ShimState *) PG_GETARG_POINTER(0);
	FmgrInfo	info;
	Oid			typoutput;
	bool		isvarlena;
	Datum		s;

	if (st == NULL || st->isnull)
		PG_RETURN_NULL();
	getTypeOutputInfo(st->transtype, &typoutput, &isvarlena);
	fmgr_info(typoutput, &info);
	InitFunctionCallInfoData(*inner, &info, 1, fcinfo->fncollation,
							 fcinfo->context, fcinfo->resultinfo);
	inner->args[0].value = st->value;
	inner->args[0].isnull = false;
	s = FunctionCallInvoke(inner);
	if (inner->isnull)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(DatumGetCString(s)));
}

/* combine_agg_sfunc(internal, regprocedure agg, text state, anyelement) */
Datum
combine_agg_sfunc(PG_FUNCTION_ARGS)
{
	LOCAL_FCINFO(inner, 2);
	ShimState  *st;
	FmgrInfo	info;
	NullableDatum in[1];
	Datum		newval;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("partial_agg_shim: the aggregate must not be NULL")));
	if (PG_ARGISNULL(0))
	{
		st = new_state(fcinfo, PG_GETARG_OID(1));
		if (!OidIsValid(st->combinefn))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("partial_agg_shim: aggregate %u has no combine function", st->agg)));
	}
	else
		st = (ShimState *) PG_GETARG_POINTER(0);

	in[0].isnull = PG_ARGISNULL(2);
	in[0].value = (Datum) 0;
	if (!in[0].isnull)
	{
		Oid			typinput,
					ioparam;

		getTypeInputInfo(st->transtype, &typinput, &ioparam);
		in[0].value = OidInputFunctionCall(typinput, text_to_cstring(PG_GETARG_TEXT_PP(2)),
										   ioparam, -1);
	}

	fmgr_info(st->combinefn, &info);
	if (info.fn_strict && !strict_prologue(fcinfo, st, in, 1))
		PG_RETURN_POINTER(st);
	InitFunctionCallInfoData(*inner, &info, 2, fcinfo->fncollation,
							 fcinfo->context, fcinfo->resultinfo);
	inner->args[0].value = st->value;
	inner->args[0].isnull = st->isnull;
	inner->args[1] = in[0];
	newval = FunctionCallInvoke(inner);
	set_state(fcinfo, st, newval, inner->isnull);
	PG_RETURN_POINTER(st);
}

/* combine_agg_ffunc(internal, regprocedure, text, anyelement) RETURNS anyelement */
Datum
combine_agg_ffunc(PG_FUNCTION_ARGS)
{
	LOCAL_FCINFO(inner, FUNC_MAX_ARGS);
	ShimState  *st = PG_ARGISNULL(0) ? NULL : (ShimState *) PG_GETARG_POINTER(0);
	FmgrInfo	info;
	Datum		result;
	int			n,
				i;

	if (st == NULL)
		PG_RETURN_NULL();
	/* the NULL::type argument must be the aggregate's result type */
	if (get_fn_expr_argtype(fcinfo->flinfo, 3) !=
		(OidIsValid(st->finalfn) ? get_func_rettype(st->finalfn) : st->transtype))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("partial_agg_shim: the last argument must be NULL of the aggregate's result type")));
	if (!OidIsValid(st->finalfn))
	{
		if (st->isnull)
			PG_RETURN_NULL();
		PG_RETURN_DATUM(st->value);
	}
	fmgr_info(st->finalfn, &info);
	if (info.fn_strict && st->isnull)
		PG_RETURN_NULL();
	/* FINALFUNC_EXTRA: the state and one NULL per aggregate argument */
	n = st->finalextra ? st->nargs + 1 : 1;
	InitFunctionCallInfoData(*inner, &info, n, fcinfo->fncollation,
							 fcinfo->context, fcinfo->resultinfo);
	inner->args[0].value = st->value;
	inner->args[0].isnull = st->isnull;
	for (i = 1; i < n; i++)
	{
		inner->args[i].value = (Datum) 0;
		inner->args[i].isnull = true;
	}
	result = FunctionCallInvoke(inner);
	fcinfo->isnull = inner->isnull;
	return result;
}
