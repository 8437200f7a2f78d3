/*
 * call_cache.c: per-call-site facts kept in fn_extra (doc/architecture.md,
 * section 5).
 *
 * A function called once per row keeps here what does not change between
 * rows: the key family of its value argument (found by key_arg.c), the memo
 * of its parameters, and per sketch argument the slots of sketch_arg.c (the
 * detoasted copy of a value that is the same on every row, the state of a
 * sliced read).
 *
 * A caller that calls a transition function with a new FmgrInfo on every
 * row (Citus's worker_partial_agg: no expression, fn_extra NULL, context its
 * own AggState) would make every row start from nothing.  For such a call
 * the head (key, memo) lives in a table of the calling AggState instead,
 * one entry per (transition function, Aggref of the caller): within one
 * AggState these name the same call site on every row, so the key type
 * resolved once holds for all of them, and the memo holds its own inputs.
 * The table is allocated in the executor's query context and forgotten when
 * that context goes (a reset callback), so a later query whose AggState or
 * Aggref happens to have the same address never finds it; a syscache
 * invalidation forgets the keys (bs_call_sites_forget_keys).
 */
#include "glue.h"

#include "utils/memutils.h"

/* Sketch arguments with slots: the first two (the sketch of every per-row function). */
#define BS_CACHED_ARGS 2

typedef struct bs_call_cache
{
	bs_call_head head;			/* first: glue.h's inline functions read it */
	void	   *slots[BS_SLOT_KINDS][BS_CACHED_ARGS];	/* sketch_arg.c's, per argument */
} bs_call_cache;

/* One call site of a caller without an expression tree (allocated once, never moved). */
typedef struct bs_call_site
{
	struct bs_call_site *next;
	Oid			fn_oid;
	Aggref	   *aggref;
	bs_call_head head;
} bs_call_site;

/* The call sites of one AggState, in its executor's query context. */
typedef struct bs_call_sites
{
	struct bs_call_sites *next;
	AggState   *aggstate;
	bs_call_site *sites;
	MemoryContextCallback forget;
} bs_call_sites;

/* The tables of the AggStates alive in this backend (usually one). */
static bs_call_sites *live_sites;

/* The query context of t's AggState goes: unlink t (its memory goes with the context). */
static void
sites_forget(void *arg)
{
	bs_call_sites **p;

	for (p = &live_sites; *p != NULL; p = &(*p)->next)
		if (*p == (bs_call_sites *) arg)
		{
			*p = (*p)->next;
			return;
		}
}

void
bs_call_sites_forget_keys(void)
{
	bs_call_sites *t;
	bs_call_site *s;

	for (t = live_sites; t != NULL; t = t->next)
		for (s = t->sites; s != NULL; s = s->next)
			s->head.key_ready = false;
}

/*
 * The head of a call without an expression tree inside an aggregate (see
 * above), found in its AggState's table; created when create.  NULL for any
 * other call (fn_extra holds its head), or when not found and !create.
 */
static bs_call_head *
site_head(FunctionCallInfo fcinfo, bool create)
{
	Node	   *context = fcinfo->context;
	Oid			fn_oid = fcinfo->flinfo->fn_oid;
	AggState   *aggstate;
	Aggref	   *aggref;
	bs_call_sites *t;
	bs_call_site *s;
	MemoryContext cxt;

	if (context == NULL || !IsA(context, AggState) || fcinfo->flinfo->fn_expr != NULL)
		return NULL;
	aggstate = (AggState *) context;
	aggref = AggGetAggref(fcinfo);
	if (aggref == NULL)
		return NULL;
	for (t = live_sites; t != NULL; t = t->next)
		if (t->aggstate == aggstate)
		{
			for (s = t->sites; s != NULL; s = s->next)
				if (s->aggref == aggref && s->fn_oid == fn_oid)
					return &s->head;
			break;
		}
	if (!create)
		return NULL;
	cxt = aggstate->ss.ps.state->es_query_cxt;
	if (t == NULL)
	{
		t = MemoryContextAllocZero(cxt, sizeof(bs_call_sites));
		t->aggstate = aggstate;
		t->forget.func = sites_forget;
		t->forget.arg = t;
		MemoryContextRegisterResetCallback(cxt, &t->forget);
		t->next = live_sites;
		live_sites = t;
	}
	s = MemoryContextAllocZero(cxt, sizeof(bs_call_site));
	s->fn_oid = fn_oid;
	s->aggref = aggref;
	s->next = t->sites;
	t->sites = s;
	return &s->head;
}

static bs_call_cache *
get_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(bs_call_cache));
	return (bs_call_cache *) fcinfo->flinfo->fn_extra;
}

/* The head of this call: fn_extra's, else the call site's (site_head), else a new fn_extra. */
static bs_call_head *
get_head(FunctionCallInfo fcinfo)
{
	bs_call_head *h;

	if (fcinfo->flinfo->fn_extra != NULL)
		return (bs_call_head *) fcinfo->flinfo->fn_extra;
	h = site_head(fcinfo, true);
	return h != NULL ? h : &get_cache(fcinfo)->head;
}

bs_call_head *
bs_call_head_if_any(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra != NULL)
		return (bs_call_head *) fcinfo->flinfo->fn_extra;
	return site_head(fcinfo, false);
}

const bs_key_info *
bs_key_arg_resolve(FunctionCallInfo fcinfo, int argno)
{
	bs_call_head *h = get_head(fcinfo);

	if (!h->key_ready)
	{
		bs_key_info_of_arg(fcinfo, argno, &h->key);
		h->key_ready = true;
	}
	return &h->key;
}

void	  **
bs_call_slot(FunctionCallInfo fcinfo, int argno, bs_slot_kind kind)
{
	if (argno < 0 || argno >= BS_CACHED_ARGS)
		return NULL;
	return &get_cache(fcinfo)->slots[kind][argno];
}

/* Only for a constant argument (args.c), which a call without an expression never has. */
void
bs_layout_remember(FunctionCallInfo fcinfo, uint32_t layout)
{
	bs_call_cache *c = get_cache(fcinfo);

	c->head.layout = layout;
	c->head.layout_ready = true;
}

void
bs_memo_set(FunctionCallInfo fcinfo, uint64_t a, uint64_t b, uint64_t x, uint64_t y)
{
	bs_call_head *h = get_head(fcinfo);

	h->memo_in[0] = a;
	h->memo_in[1] = b;
	h->memo_out[0] = x;
	h->memo_out[1] = y;
	h->memo_ready = true;
}
