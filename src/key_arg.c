/*
 * key_arg.c: the key type of a function's value argument, and its key info.
 *
 * Usually the call's expression tree names the type (get_fn_expr_argtype).
 * A caller that calls our transition functions through fmgr alone (Citus's
 * worker_partial_agg) gives no tree, so the type comes from the aggregate the
 * call names; such a caller also builds a new FmgrInfo for every row, so the
 * catalog answers are kept for the backend.  The result goes into fn_extra
 * (call_cache.c), so a plain aggregate runs this once per call site, or for
 * such a caller into its AggState's table of call sites: once per query.
 */
#include "glue.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/*
 * Catalog answers that a caller building a new FmgrInfo for every row (Citus,
 * below) would otherwise look up on every row: the key argument types of our
 * aggregates and the key info of a type.  Kept for the backend, emptied when
 * pg_aggregate, pg_proc or pg_type change (a syscache invalidation).
 */
#define BS_BACKEND_CACHE 16

typedef struct bs_agg_arg_entry
{
	Oid			aggfnoid;
	Oid			transfn;
	int			argno;
	Oid			typid;			/* InvalidOid: not one of ours */
} bs_agg_arg_entry;

static bs_agg_arg_entry agg_arg_cache[BS_BACKEND_CACHE];
static int	agg_arg_used;
static struct
{
	Oid			typid;			/* the type asked for (a domain, or its base) */
	bs_key_info key;
}			type_key_cache[BS_BACKEND_CACHE];
static int	type_key_used;
static bool backend_cache_hooked;

static void
backend_cache_reset(Datum arg, int cacheid, uint32 hashvalue)
{
	agg_arg_used = 0;
	type_key_used = 0;
	bs_call_sites_forget_keys();
}

static void
backend_cache_hook(void)
{
	if (backend_cache_hooked)
		return;
	CacheRegisterSyscacheCallback(AGGFNOID, backend_cache_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(PROCOID, backend_cache_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(TYPEOID, backend_cache_reset, (Datum) 0);
	backend_cache_hooked = true;
}

/* bs_key_info_init through the backend cache. */
static void
key_info_cached(bs_key_info *ki, Oid typid)
{
	int			i;

	backend_cache_hook();
	for (i = 0; i < type_key_used; i++)
		if (type_key_cache[i].typid == typid)
		{
			*ki = type_key_cache[i].key;
			return;
		}
	bs_key_info_init(ki, typid);
	if (type_key_used < BS_BACKEND_CACHE)
	{
		type_key_cache[type_key_used].typid = typid;
		type_key_cache[type_key_used].key = *ki;
		type_key_used++;
	}
}

static Oid	aggregate_arg_type_lookup(Oid aggfnoid, Oid transfn, int argno);

/*
 * The declared type of argument argno of an aggregate whose transition
 * function is the one running, or InvalidOid.
 */
static Oid
aggregate_arg_type(Oid aggfnoid, Oid transfn, int argno)
{
	int			i;
	Oid			typid;

	backend_cache_hook();
	for (i = 0; i < agg_arg_used; i++)
		if (agg_arg_cache[i].aggfnoid == aggfnoid && agg_arg_cache[i].transfn == transfn &&
			agg_arg_cache[i].argno == argno)
			return agg_arg_cache[i].typid;
	typid = aggregate_arg_type_lookup(aggfnoid, transfn, argno);
	if (agg_arg_used < BS_BACKEND_CACHE)
		agg_arg_cache[agg_arg_used++] = (bs_agg_arg_entry) {aggfnoid, transfn, argno, typid};
	return typid;
}

static Oid
aggregate_arg_type_lookup(Oid aggfnoid, Oid transfn, int argno)
{
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	Oid			transfn_of_agg;
	Oid		   *argtypes;
	int			nargs;
	Oid			typid = InvalidOid;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	transfn_of_agg = ((Form_pg_aggregate) GETSTRUCT(tup))->aggtransfn;
	ReleaseSysCache(tup);
	if (transfn_of_agg != transfn)
		return InvalidOid;
	get_func_signature(aggfnoid, &argtypes, &nargs);
	/* the transition function's argno is the aggregate's argno - 1 */
	if (argno >= 1 && argno <= nargs && !IsPolymorphicType(argtypes[argno - 1]))
		typid = argtypes[argno - 1];
	pfree(argtypes);
	return typid;
}

/*
 * The key type of a transition function called without an expression tree.
 * Citus's worker_partial_agg(our_aggregate::regprocedure, value) calls our
 * transition function through fmgr_info alone, so get_fn_expr_argtype knows
 * nothing; our aggregates declare concrete argument types, so the aggregate
 * that the calling Aggref names (itself, or as a regprocedure or oid constant
 * argument) tells the type.  Runs once per call site of such a caller
 * (call_cache.c), never in a plain aggregate.
 */
static Oid
key_type_from_aggregate(FunctionCallInfo fcinfo, int argno)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	Oid			transfn = fcinfo->flinfo->fn_oid;
	Oid			typid;
	ListCell   *lc;

	if (aggref == NULL)
		return InvalidOid;
	typid = aggregate_arg_type(aggref->aggfnoid, transfn, argno);
	if (OidIsValid(typid))
		return typid;
	foreach(lc, aggref->args)
	{
		TargetEntry *te = lfirst_node(TargetEntry, lc);
		Const	   *c = (Const *) te->expr;
		Node	   *value;

		if (!IsA(c, Const) || c->constisnull ||
			(c->consttype != REGPROCEDUREOID && c->consttype != OIDOID))
			continue;
		typid = aggregate_arg_type(DatumGetObjectId(c->constvalue), transfn, argno);
		if (!OidIsValid(typid) || lnext(aggref->args, lc) == NULL)
			continue;

		/*
		 * Trust the named aggregate only when the value passed beside it has
		 * its type (alone, or as field argno of a ROW of all the arguments):
		 * a value of another type would be misread.
		 */
		value = (Node *) lfirst_node(TargetEntry, lnext(aggref->args, lc))->expr;
		if (IsA(value, RowExpr) && argno <= list_length(((RowExpr *) value)->args))
			value = (Node *) list_nth(((RowExpr *) value)->args, argno - 1);
		if (exprType(value) == typid)
			return typid;
	}
	return InvalidOid;
}

void
bs_key_info_of_arg(FunctionCallInfo fcinfo, int argno, bs_key_info *ki)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, argno);

	if (!OidIsValid(typid))
		typid = key_type_from_aggregate(fcinfo, argno);
	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("could not determine the data type of the key argument")));
	key_info_cached(ki, typid);
}
