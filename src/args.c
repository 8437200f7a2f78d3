/*
 * args.c: the arguments that several SQL functions share, read and checked in
 * one place: counts and sizes, the Bloom layout, the Count-Min dimensions of
 * an aggregate's epsilon and delta.  Each check raises the error that names
 * the argument (22023, or 22004 for a NULL parameter).
 */
#include "glue.h"

#include "utils/builtins.h"

#include "core/bloom.h"
#include "core/cms.h"

/* cms_agg's defaults (topk_agg has its own delta: src/topk.c) */
#define CMS_DEFAULT_EPSILON 0.001
#define CMS_DEFAULT_DELTA 0.01

/* Argument argno as an int64 of at least min; else 22023 with msg (%s name, then the value). */
static int64
int64_arg_at_least(FunctionCallInfo fcinfo, int argno, int64 min, const char *name,
				   const char *msg, const char *hint)
{
	int64		v = PG_GETARG_INT64(argno);

	if (v < min)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg_internal(msg, name, v),
				 hint ? errhint("%s", hint) : 0));
	return v;
}

int64
bs_positive_int64_arg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	return int64_arg_at_least(fcinfo, argno, 1, name, "%s must be at least 1, got " INT64_FORMAT, NULL);
}

uint64_t
bs_count_arg(FunctionCallInfo fcinfo, int argno, const char *what)
{
	return (uint64_t) int64_arg_at_least(fcinfo, argno, 0, what, "%s must not be negative, got " INT64_FORMAT,
										 "Sketches only count up; to take rows out of a count-min sketch, subtract the sketch of those rows (cms_subtract).");
}

/*
 * Whether argument argno is a constant at this call site: of the aggregate
 * whose transition function this is, or of the function call.  (Not a
 * parameter: PL/pgSQL keeps a call site across values of its variables.)
 */
static bool
arg_is_constant(FunctionCallInfo fcinfo, int argno)
{
	Node	   *expr = fcinfo->flinfo->fn_expr;

	/*
	 * Without an expression the caller is not the aggregate (Citus's
	 * worker_partial_agg): its Aggref's arguments are not ours.
	 */
	if (expr == NULL)
		return false;
	if (AggCheckCallContext(fcinfo, NULL))
	{
		Aggref	   *aggref = AggGetAggref(fcinfo);

		/* the transition function's argument 0 is the state */
		return aggref != NULL && argno >= 1 && argno <= list_length(aggref->args) &&
			IsA(((TargetEntry *) list_nth(aggref->args, argno - 1))->expr, Const);
	}
	return expr != NULL && IsA(expr, FuncExpr) && argno < list_length(((FuncExpr *) expr)->args) &&
		IsA(list_nth(((FuncExpr *) expr)->args, argno), Const);
}

/*
 * The layout named by argument argno, parsed once per call site when the
 * argument is a constant (bloom_agg reads it on every row); the core's parser
 * gives the error for an unknown name.
 */
uint32_t
bs_layout_arg(FunctionCallInfo fcinfo, int argno)
{
	bs_call_head *c = (bs_call_head *) fcinfo->flinfo->fn_extra;
	text	   *t;
	uint32_t	layout;

	if (c != NULL && c->layout_ready)
		return c->layout;
	t = PG_GETARG_TEXT_PP(argno);
	BS_TRY(bs_layout_parse(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &layout, BS_ERR), 0);
	if (arg_is_constant(fcinfo, argno))
		bs_layout_remember(fcinfo, layout);
	return layout;
}

uint32_t
bs_layout_arg_or_classic(FunctionCallInfo fcinfo, int argno)
{
	return PG_NARGS() > argno ? bs_layout_arg(fcinfo, argno) : BS_LAYOUT_CLASSIC;
}

/*
 * Width and depth for the epsilon and delta arguments first and first + 1
 * (cms_agg's defaults when the call has none), memoised per call site so a
 * row does not recompute them.
 */
void
bs_cms_dims_arg(FunctionCallInfo fcinfo, int first, const char *caller,
				uint64_t *width, uint64_t *depth)
{
	double		eps = CMS_DEFAULT_EPSILON,
				delta = CMS_DEFAULT_DELTA;
	uint64_t	eb = 0,
				db = 0;

	if (PG_NARGS() > first)
	{
		if (PG_ARGISNULL(first) || PG_ARGISNULL(first + 1))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s parameters must not be NULL", caller)));
		eps = PG_GETARG_FLOAT8(first);
		delta = PG_GETARG_FLOAT8(first + 1);
		memcpy(&eb, &eps, sizeof(eb));
		memcpy(&db, &delta, sizeof(db));
	}
	if (!bs_memo_get(fcinfo, eb, db, width, depth))
	{
		uint32_t	d;

		BS_TRY(bs_cms_dims(eps, delta, width, &d, BS_ERR), 0);
		*depth = d;
		bs_memo_set(fcinfo, eb, db, *width, *depth);
	}
}
