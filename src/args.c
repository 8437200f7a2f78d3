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

int64
bs_positive_int64_arg(FunctionCallInfo fcinfo, int argno, const char *name)
{
	int64		v = PG_GETARG_INT64(argno);

	if (v < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be at least 1, got " INT64_FORMAT, name, v)));
	return v;
}

uint64_t
bs_count_arg(FunctionCallInfo fcinfo, int argno, const char *what)
{
	int64		c = PG_GETARG_INT64(argno);

	if (c < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must not be negative, got " INT64_FORMAT, what, c),
				 errhint("Sketches only count up; to take rows out of a count-min sketch, subtract the sketch of those rows (cms_subtract).")));
	return (uint64_t) c;
}

/*
 * The two names are compared first, because bloom_agg reads its layout
 * argument on every row; anything else goes to the core's parser, which
 * gives the error.
 */
uint32_t
bs_layout_arg(FunctionCallInfo fcinfo, int argno)
{
	text	   *t = PG_GETARG_TEXT_PP(argno);
	const char *s = VARDATA_ANY(t);
	size_t		len = VARSIZE_ANY_EXHDR(t);
	uint32_t	layout;

	if (len == 7 && memcmp(s, "blocked", 7) == 0)
		return BS_LAYOUT_BLOCKED;
	if (len == 7 && memcmp(s, "classic", 7) == 0)
		return BS_LAYOUT_CLASSIC;
	BS_TRY(bs_layout_parse(s, len, &layout, BS_ERR), 0);
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
