/*
 * call_cache.c: per-call-site facts kept in fn_extra (DESIGN.md 6).
 *
 * A function called once per row keeps here what does not change between
 * rows: the key family of its value argument, and the detoasted copy of a
 * sketch argument that is the same stored value on every row (a filter read
 * once by an InitPlan, a constant).  An out-of-line value is identified by
 * its TOAST pointer (relation and value OID), which names exactly one
 * immutable value; an inline compressed value (cms and topk compress) by its
 * compressed bytes, compared in full.  Either way the cache can never answer
 * with another sketch's bytes.
 */
#include "glue.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/inval.h"
#include "utils/syscache.h"

/* One cached detoasted sketch per sketch argument position. */
#define BS_CACHED_ARGS 2

typedef struct bs_cached_sketch
{
	bool		ready;
	struct varatt_external toast_id;	/* when the value was out of line */
	struct varlena *compressed;	/* a copy, when it was inline compressed */
	struct varlena *sketch;		/* detoasted, in fn_mcxt */
} bs_cached_sketch;

typedef struct bs_call_cache
{
	bs_call_head head;			/* first: glue.h's inline functions read it */
	bs_cached_sketch sketches[BS_CACHED_ARGS];
} bs_call_cache;

static bs_call_cache *
get_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(bs_call_cache));
	return (bs_call_cache *) fcinfo->flinfo->fn_extra;
}

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
 * argument) tells the type.  Such a caller builds a new FmgrInfo for every
 * row, so this runs once per row there, never in a plain aggregate.
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

const bs_key_info *
bs_key_arg_resolve(FunctionCallInfo fcinfo, int argno)
{
	bs_call_cache *c = get_cache(fcinfo);

	if (!c->head.key_ready)
	{
		Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, argno);

		if (!OidIsValid(typid))
			typid = key_type_from_aggregate(fcinfo, argno);
		if (!OidIsValid(typid))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("could not determine the data type of the key argument")));
		key_info_cached(&c->head.key, typid);
		c->head.key_ready = true;
	}
	return &c->head.key;
}

void
bs_memo_set(FunctionCallInfo fcinfo, uint64_t a, uint64_t b, uint64_t x, uint64_t y)
{
	bs_call_cache *c = get_cache(fcinfo);

	c->head.memo_in[0] = a;
	c->head.memo_in[1] = b;
	c->head.memo_out[0] = x;
	c->head.memo_out[1] = y;
	c->head.memo_ready = true;
}

static void
quick_check(const uint8_t *data, size_t len, bs_kind kind)
{
	BS_TRY(bs_validate(data, len, kind, false, NULL, BS_ERR),
		   ERRCODE_DATA_CORRUPTED);
}

void
bs_sketch_arg(FunctionCallInfo fcinfo, int argno, bs_kind kind, bs_sketch_ref *ref)
{
	struct varlena *raw = (struct varlena *) PG_GETARG_POINTER(argno);
	struct varlena *v;

	if (argno < BS_CACHED_ARGS &&
		(VARATT_IS_EXTERNAL_ONDISK(raw) || VARATT_IS_COMPRESSED(raw)))
	{
		bs_cached_sketch *c = &get_cache(fcinfo)->sketches[argno];
		struct varatt_external id;
		bool		same;

		if (VARATT_IS_EXTERNAL_ONDISK(raw))
		{
			VARATT_EXTERNAL_GET_POINTER(id, raw);
			same = c->ready && c->compressed == NULL &&
				memcmp(&id, &c->toast_id, sizeof(id)) == 0;
		}
		else
			same = c->ready && c->compressed != NULL &&
				VARSIZE(c->compressed) == VARSIZE(raw) &&
				memcmp(c->compressed, raw, VARSIZE(raw)) == 0;
		if (!same)
		{
			MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

			c->ready = false;
			if (c->sketch)
				pfree(c->sketch);
			if (c->compressed)
				pfree(c->compressed);
			c->sketch = NULL;
			c->compressed = NULL;
			c->sketch = detoast_attr(raw);
			if (VARATT_IS_EXTERNAL_ONDISK(raw))
				c->toast_id = id;
			else
			{
				c->compressed = palloc(VARSIZE(raw));
				memcpy(c->compressed, raw, VARSIZE(raw));
			}
			MemoryContextSwitchTo(old);
			quick_check((uint8_t *) VARDATA_ANY(c->sketch),
						VARSIZE_ANY_EXHDR(c->sketch), kind);
			c->ready = true;
		}
		ref->data = (uint8_t *) VARDATA_ANY(c->sketch);
		ref->len = VARSIZE_ANY_EXHDR(c->sketch);
		ref->to_free = NULL;
		return;
	}

	/* Inline and not compressed: no copy. */
	v = pg_detoast_datum_packed(raw);
	ref->data = (uint8_t *) VARDATA_ANY(v);
	ref->len = VARSIZE_ANY_EXHDR(v);
	ref->to_free = (v != raw) ? v : NULL;
	quick_check(ref->data, ref->len, kind);
}

void
bs_sketch_release(bs_sketch_ref *ref)
{
	if (ref->to_free)
		pfree(ref->to_free);
	ref->to_free = NULL;
}

bytea *
bs_sketch_arg_copy(FunctionCallInfo fcinfo, int argno, bs_kind kind)
{
	/* One detoast that is also the copy; 4-byte header, writable. */
	bytea	   *copy = (bytea *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(argno));

	quick_check(BS_DATA(copy), VARSIZE(copy) - VARHDRSZ, kind);
	return copy;
}
