/*
 * bloom_value.h: a bloom value as stored, the facade over the two kinds of
 * filter it can be: fixed (bloom.h, one bit array) or growable (growable.h,
 * a list of fixed stages).  Header p3 holds the layout in its low bit and
 * BS_BLOOM_GROWABLE (growable.h) when the value is growable: a property of
 * the value, not a layout (layout.h).  What takes a bloom value from outside (the kind
 * check, probe ranges, the glue) asks here which it is.
 */
#ifndef BS_BLOOM_VALUE_H
#define BS_BLOOM_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "bloom.h"
#include "format.h"
#include "growable.h"

/* Whether a (checked) bloom value is growable. */
bool		bs_bloom_is_growable(const uint8_t *buf);

/* The layout of a value's bits (of its stages, when growable). */
uint32_t	bs_bloom_value_layout(const bs_header *h);

/*
 * A decoded bloom value of either kind, pointing into its buffer.  What the
 * SQL functions do to a bloom value goes through these, so none of them asks
 * which kind it is.  (About 4 kB: the growable view holds 64 stages.)
 */
typedef struct bs_bloom_value
{
	bool		growable;
	uint8_t		family;
	uint64_t	seed;
	uint8_t    *buf;			/* the whole value, header first */
	bs_bloom	fixed;			/* when not growable */
	bs_growable grow;			/* when growable */
} bs_bloom_value;

/* View trusted bytes (validated, or made by us). */
void		bs_bloom_value_view(uint8_t *buf, bs_bloom_value *v);

/* Whether the value may hold h: some stage does, for a growable one. */
static inline bool
bs_bloom_value_contains(const bs_bloom_value *v, uint64_t h)
{
	if (v->growable)
		return bs_growable_contains(&v->grow, h);
	return bs_bloom_contains(&v->fixed, h);
}

/*
 * Add h, of a key of the given family (the value takes it).  A growable
 * value may need a new stage: v->buf is then a new buffer from a, and the
 * old one goes to a->release when it is set.
 */
bs_status	bs_bloom_value_add(bs_bloom_value *v, uint64_t h, uint8_t family,
							   const bs_allocator *a, bs_error *err);

/*
 * dst |= src (is_union) or dst &= src, after the checks that both can merge
 * (the message says what differs): fixed with fixed of the same shape,
 * growable with growable of the same parameters (a union only: an
 * intersection stage by stage would lose keys, BS_ERR_UNSUPPORTED).  When src
 * has more stages, dst->buf becomes a new buffer from a (the old one is
 * left to the caller).  src is not changed.
 */
bs_status	bs_bloom_value_merge(bs_bloom_value *dst, uint8_t *src, bool is_union,
								 const bs_allocator *a, bs_error *err);

/* Estimates from the fill: distinct values, the current rate; bits in all and set. */
double		bs_bloom_value_cardinality(const bs_bloom_value *v);
double		bs_bloom_value_fpr(const bs_bloom_value *v);
void		bs_bloom_value_bits(const bs_bloom_value *v, uint64_t *bits, uint64_t *bits_set);

/* Kind check (bs_kind_check, core/kinds.c): O(1) fixed, O(stages) growable. */
bs_status	bs_bloom_check(const bs_header *h, const uint8_t *payload,
						   uint64_t plen, bool deep, bs_error *err);

#endif
