/*
 * selectivity.c: bloomsketch_contsel, the restriction selectivity estimator
 * of the membership operators filter @> value and value <@ filter, for bloom
 * (fixed and growable) and cbloom filters (doc/reference.md, "Row estimates of
 * @> and <@").
 *
 * When the filter is a constant at plan time (a literal, or a stable
 * expression or parameter value that estimate_expression_value folds) and
 * the value side is a column with statistics, the estimate is
 *
 *   sel = mcv_hit + rest * (q + (1 - q) * fpr)
 *
 * where mcv_hit is the sum of the frequencies of the most common values the
 * filter contains (each MCV hashed as the operator hashes the column's
 * values, and looked up), rest = 1 - nullfrac - (sum of all MCV
 * frequencies) the fraction of rows whose value is neither NULL nor an MCV,
 * fpr the filter's false-positive rate from its fill, and q the fraction of
 * the other distinct values that the filter holds:
 *
 *   q = clamp((cardinality - members among the MCVs) / (ndistinct - MCVs), 0, 1)
 *
 * with the filter's own cardinality estimate from its fill.  The MCVs it
 * contains include about fpr * MCVs false positives, which are not keys of
 * the filter: members among the MCVs = (hits - fpr * MCVs) / (1 - fpr),
 * between 0 and hits.  The pg_statistic frequencies are fractions of all
 * rows, NULLs included, so the NULL fraction is already outside both terms.
 * This assumes the filter's keys are values of the column (a filter built
 * from the column, or from another table's values of it); keys that the
 * column does not have make the estimate too high.
 *
 * ANALYZE's n_distinct of a skewed column is low (its sample of 300 rows per
 * unit of statistics target misses most rare values), which makes q several
 * times too high.  The histogram's bounds, when there are 100 or more, are a
 * sample of the rest's rows, and the share of them the filter contains
 * estimates q + (1 - q) * fpr without n_distinct, but a small sample says
 * little about a small share: the n_distinct estimate stands unless it lies
 * outside the 95% Wilson interval of the histogram's share, and then becomes
 * the interval's nearer end.
 *
 * Fallbacks, never an error (a mismatch the operator reports at run time is
 * not the planner's to report):
 *   - a NULL constant filter: 0 (the operators are strict);
 *   - no estimate of the column's distinct values (no statistics, and no
 *     unique index or type to tell): the filter is taken as an IN list of
 *     cardinality values, each DEFAULT_EQ_SEL as PostgreSQL estimates one
 *     element of x = ANY(array) without statistics,
 *     sel = (1 - (1 - DEFAULT_EQ_SEL)^cardinality, plus the fpr of the
 *     rest) * (1 - nullfrac);
 *   - MCVs and histogram the user may not see (statistic_proc_security_check:
 *     no SELECT right on the column, or row security), or whose type is not a
 *     key type of the column's family: ndistinct and nullfrac alone;
 *   - BS_DEFAULT_CONTAINS_SEL (DEFAULT_EQ_SEL, as PostgreSQL's default for
 *     the array containment operators) when the filter is not a constant
 *     (an InitPlan result, a parameter of a generic plan, a column of
 *     filters), when the value side is not one column or expression of one
 *     relation, when its type is not a key type or not of the filter's key
 *     family, or when the constant's bytes are not a valid filter.
 *
 * The join selectivity is left to PostgreSQL's default (the operators have
 * no JOIN estimator).
 */
#include "glue.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "nodes/pathnodes.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "core/bloom_value.h"
#include "core/cbloom.h"
#include "core/classic.h"

PG_FUNCTION_INFO_V1(bloomsketch_contsel);

/* What the planner assumes of a filter it cannot see. */
#define BS_DEFAULT_CONTAINS_SEL DEFAULT_EQ_SEL

/* The input functions of the filter types (bloom.c, cbloom.c), which name the types. */
extern PGDLLEXPORT Datum bloom_in(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum cbloom_in(PG_FUNCTION_ARGS);

/* A constant filter as the estimator reads it. */
typedef struct bs_filter
{
	bs_kind		kind;
	uint8_t		family;
	uint64_t	seed;
	double		cardinality;
	double		fpr;
	bs_bloom_value *bloom;		/* kind BLOOM, fixed or growable */
	bs_cbloom	cbloom;			/* kind CBLOOM */
} bs_filter;

/*
 * The filter kind of an operator argument's declared type, or 0 when it is
 * not bloom or cbloom: known by its input function, whatever schema the type
 * is in.  (Only the operator's declared types are asked: their input
 * functions are ours or built in, so no other library is loaded.)
 */
static bs_kind
filter_kind_of_type(Oid typid)
{
	HeapTuple	tp;
	Oid			typinput;
	FmgrInfo	finfo;

	if (!OidIsValid(typid) || get_typlen(typid) != -1)
		return 0;
	tp = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	if (!HeapTupleIsValid(tp))
		return 0;
	typinput = ((Form_pg_type) GETSTRUCT(tp))->typinput;
	ReleaseSysCache(tp);
	if (!OidIsValid(typinput))
		return 0;
	fmgr_info(typinput, &finfo);
	if (finfo.fn_addr == bloom_in)
		return BS_KIND_BLOOM;
	if (finfo.fn_addr == cbloom_in)
		return BS_KIND_CBLOOM;
	return 0;
}

/*
 * Read a constant filter of kind; false when its bytes are not a valid one.
 * f points into *copy, a detoasted copy of d or NULL.
 */
static bool
filter_read(Datum d, bs_kind kind, bs_filter *f, struct varlena **copy)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varlena *v = pg_detoast_datum_packed(raw);
	uint8_t    *data = (uint8_t *) VARDATA_ANY(v);
	size_t		len = VARSIZE_ANY_EXHDR(v);
	bs_header	hd;
	bs_error	err;

	*copy = v != raw ? v : NULL;
	f->bloom = NULL;
	/* the check that every function runs before it reads a stored value */
	if (bs_validate(data, len, kind, false, &hd, &err) != BS_OK)
		return false;
	f->kind = kind;
	f->family = hd.family;
	f->seed = hd.seed;
	if (kind == BS_KIND_BLOOM)
	{
		f->bloom = palloc(sizeof(bs_bloom_value));
		bs_bloom_value_view(data, f->bloom);
		f->cardinality = bs_bloom_value_cardinality(f->bloom);
		f->fpr = bs_bloom_value_fpr(f->bloom);
	}
	else
	{
		uint64_t	zero,
					saturated;

		bs_cbloom_view(data, &f->cbloom);
		bs_cbloom_stats(&f->cbloom, &zero, &saturated);
		/* as cbloom_info: the estimates of its bit view */
		f->cardinality = bs_bloom_cardinality(f->cbloom.m, f->cbloom.k, f->cbloom.m - zero);
		f->fpr = bs_bloom_fpr_from_fill(f->cbloom.m, f->cbloom.k, f->cbloom.m - zero);
	}
	/* every bit set: cardinality +Infinity and rate 1; nothing else is out of range */
	if (!(f->cardinality >= 0.0))
		f->cardinality = 0.0;
	if (!(f->fpr >= 0.0))
		f->fpr = 0.0;
	if (f->fpr > 1.0)
		f->fpr = 1.0;
	return true;
}

static bool
filter_contains(const bs_filter *f, uint64_t h)
{
	if (f->kind == BS_KIND_BLOOM)
		return bs_bloom_value_contains(f->bloom, h);
	return bs_cbloom_contains_hash(&f->cbloom, h);
}

static double
clamp01(double x)
{
	if (!(x > 0.0))
		return 0.0;
	return x > 1.0 ? 1.0 : x;
}

/*
 * Look up every value of a statistics slot of vardata's (values of a key
 * type of key's family, else false): how many the filter contains, and the
 * sum of their numbers (frequencies) and of all numbers, when numbered.
 */
static bool
slot_hits(VariableStatData *vardata, int stakind, bool numbered, const bs_filter *f,
		  const bs_key_info *key, double *nvalues, double *hits, double *hit_freq,
		  double *all_freq)
{
	AttStatsSlot sslot;
	bs_key_info slot_key;
	bool		ok;
	int			i;

	*nvalues = *hits = *hit_freq = *all_freq = 0.0;
	if (!get_attstatsslot(&sslot, vardata->statsTuple, stakind, InvalidOid,
						  ATTSTATSSLOT_VALUES | (numbered ? ATTSTATSSLOT_NUMBERS : 0)))
		return false;

	/*
	 * The values are of the column's type, which may be a relabeled form of
	 * the operator's argument (varchar as text): hashed with their own
	 * type's key, of the same family, as the canonical bytes make equal
	 * values of the family's types hash equal.
	 */
	ok = (!numbered || sslot.nnumbers == sslot.nvalues) &&
		bs_key_info_find(&slot_key, sslot.valuetype) && slot_key.family == key->family;
	for (i = 0; ok && i < sslot.nvalues; i++)
	{
		double		freq = numbered ? clamp01(sslot.numbers[i]) : 0.0;

		*all_freq += freq;
		if (filter_contains(f, bs_key_hash(&slot_key, sslot.values[i], f->seed)))
		{
			*hits += 1.0;
			*hit_freq += freq;
		}
	}
	if (ok)
		*nvalues = sslot.nvalues;
	free_attstatsslot(&sslot);
	return ok;
}

/*
 * The 95% Wilson score interval of a proportion seen hits times in n draws
 * (Wilson 1927, doc/bibliography.md).
 */
#define BS_WILSON_Z 1.96

static void
wilson_interval(double hits, double n, double *lo, double *hi)
{
	double		z2 = BS_WILSON_Z * BS_WILSON_Z,
				p = hits / n,
				d = 1.0 + z2 / n,
				c = (p + z2 / (2.0 * n)) / d,
				w = BS_WILSON_Z * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / d;

	*lo = c - w;
	*hi = c + w;
}

/* Histograms shorter than this say too little (PostgreSQL's generic estimators use 100 too). */
#define BS_MIN_HISTOGRAM 100

/* The estimate for a constant filter f and the value side vardata (of key type key). */
static double
contains_selectivity(VariableStatData *vardata, Oid operator, const bs_filter *f,
					 const bs_key_info *key)
{
	double		nullfrac = 0.0,
				nmcv = 0.0,
				hits = 0.0,		/* MCVs the filter contains */
				mcv_hit = 0.0,	/* and their frequency */
				mcv_all = 0.0,	/* frequency of all MCVs */
				nhist = 0.0,
				hist_hits = 0.0,
				unused,
				nd,
				members,
				rest,
				q,
				p,
				lo,
				hi;
	bool		isdefault,
				have_hist = false;

	if (HeapTupleIsValid(vardata->statsTuple))
	{
		nullfrac = clamp01(((Form_pg_statistic) GETSTRUCT(vardata->statsTuple))->stanullfrac);
		/* values the user may not read are not looked at (as eqsel does) */
		if (statistic_proc_security_check(vardata, get_opcode(operator)))
		{
			if (!slot_hits(vardata, STATISTIC_KIND_MCV, true, f, key, &nmcv, &hits,
						   &mcv_hit, &mcv_all))
				nmcv = hits = mcv_hit = mcv_all = 0.0;
			have_hist = slot_hits(vardata, STATISTIC_KIND_HISTOGRAM, false, f, key,
								  &nhist, &hist_hits, &unused, &unused) &&
				nhist >= BS_MIN_HISTOGRAM;
		}
	}

	nd = get_variable_numdistinct(vardata, &isdefault);
	if (isdefault)
	{
		/* no idea of the distinct values: an IN list of cardinality values */
		double		s = 1.0 - pow(1.0 - DEFAULT_EQ_SEL, f->cardinality);

		return clamp01((s + (1.0 - s) * f->fpr) * (1.0 - nullfrac));
	}

	/* the filter's keys among the MCVs: the hits less their expected false positives */
	members = hits;
	if (f->fpr < 1.0)
		members = Min(hits, Max(0.0, (hits - f->fpr * nmcv) / (1.0 - f->fpr)));
	rest = clamp01(1.0 - nullfrac - mcv_all);
	q = clamp01((f->cardinality - members) / Max(1.0, nd - nmcv));
	p = q + (1.0 - q) * f->fpr;

	/*
	 * The histogram's bounds are a sample of the rest's rows, so the share
	 * the filter contains estimates p without n_distinct, which ANALYZE
	 * underestimates for a skewed column (its sample misses most rare
	 * values, and q comes out several times too high).  A hundred bounds are
	 * a small sample: p stands unless it lies outside the 95% interval of
	 * that share, and then becomes the interval's nearer end.
	 */
	if (have_hist)
	{
		wilson_interval(hist_hits, nhist, &lo, &hi);
		p = Max(p, lo);
		p = Min(p, hi);
	}
	return clamp01(mcv_hit + rest * p);
}

static double
estimate(VariableStatData *vardata, Node *other, bool varonleft, Oid operator)
{
	Oid			ltype,
				rtype;
	bs_kind		kind;
	Const	   *c;
	bs_key_info key;
	bs_filter	f;
	struct varlena *copy;
	double		sel;

	/* the constant side must be the operator's filter argument */
	op_input_types(operator, &ltype, &rtype);
	kind = filter_kind_of_type(varonleft ? rtype : ltype);
	if (kind == 0 || filter_kind_of_type(varonleft ? ltype : rtype) != 0)
		return BS_DEFAULT_CONTAINS_SEL; /* a column of filters and a key, or not our operator */
	if (!IsA(other, Const))
		return BS_DEFAULT_CONTAINS_SEL; /* a filter not known at plan time */
	c = (Const *) other;
	if (c->constisnull)
		return 0.0;				/* strict operators: NULL, no row */
	/* the operator hashes the value as its expression's type: a key type of the filter's family */
	if (!bs_key_info_find(&key, vardata->vartype))
		return BS_DEFAULT_CONTAINS_SEL;
	if (!filter_read(c->constvalue, kind, &f, &copy))
		sel = BS_DEFAULT_CONTAINS_SEL;
	else if (f.family != BS_FAMILY_NONE && f.family != key.family)
		sel = BS_DEFAULT_CONTAINS_SEL;
	else
		sel = contains_selectivity(vardata, operator, &f, &key);
	if (f.bloom)
		pfree(f.bloom);
	if (copy)
		pfree(copy);
	return sel;
}

/* bloomsketch_contsel(internal, oid, internal, integer): RESTRICT of @> and <@ */
Datum
bloomsketch_contsel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	double		sel;

	if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
		PG_RETURN_FLOAT8(BS_DEFAULT_CONTAINS_SEL);
	sel = estimate(&vardata, other, varonleft, operator);
	ReleaseVariableStats(vardata);
	PG_RETURN_FLOAT8(sel);
}
