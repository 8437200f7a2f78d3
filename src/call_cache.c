/*
 * call_cache.c: per-call-site facts kept in fn_extra (doc/architecture.md,
 * section 5).
 *
 * A function called once per row keeps here what does not change between
 * rows: the key family of its value argument (found by key_arg.c), the memo
 * of its parameters, and per sketch argument the slots of sketch_arg.c (the
 * detoasted copy of a value that is the same on every row, the state of a
 * sliced read).
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

static bs_call_cache *
get_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
			MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(bs_call_cache));
	return (bs_call_cache *) fcinfo->flinfo->fn_extra;
}

const bs_key_info *
bs_key_arg_resolve(FunctionCallInfo fcinfo, int argno)
{
	bs_call_cache *c = get_cache(fcinfo);

	if (!c->head.key_ready)
	{
		bs_key_info_of_arg(fcinfo, argno, &c->head.key);
		c->head.key_ready = true;
	}
	return &c->head.key;
}

void	  **
bs_call_slot(FunctionCallInfo fcinfo, int argno, bs_slot_kind kind)
{
	if (argno < 0 || argno >= BS_CACHED_ARGS)
		return NULL;
	return &get_cache(fcinfo)->slots[kind][argno];
}

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
	bs_call_cache *c = get_cache(fcinfo);

	c->head.memo_in[0] = a;
	c->head.memo_in[1] = b;
	c->head.memo_out[0] = x;
	c->head.memo_out[1] = y;
	c->head.memo_ready = true;
}
