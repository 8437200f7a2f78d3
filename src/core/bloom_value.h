/*
 * bloom_value.h: a bloom value as stored, the facade over the two kinds of
 * filter it can be: fixed (bloom.h, one bit array) or growable (growable.h,
 * a list of fixed stages).  Header p3 holds the layout in its low bit and
 * BS_BLOOM_GROWABLE when the value is growable: a property of the value, not
 * a layout (layout.h).  What takes a bloom value from outside (the kind
 * check, probe ranges, the glue) asks here which it is.
 */
#ifndef BS_BLOOM_VALUE_H
#define BS_BLOOM_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "format.h"

/* The flag of header p3 that marks a growable value (doc/format.md, section 3.1). */
#define BS_BLOOM_GROWABLE 2

/* Whether a (checked) bloom value is growable. */
bool		bs_bloom_is_growable(const uint8_t *buf);

/* The layout of a value's bits (of its stages, when growable). */
uint32_t	bs_bloom_value_layout(const bs_header *h);

/* Kind check (bs_kind_check, core/kinds.c): O(1) fixed, O(stages) growable. */
bs_status	bs_bloom_check(const bs_header *h, const uint8_t *payload,
						   uint64_t plen, bool deep, bs_error *err);

#endif
