#include "bloom_value.h"

#include "bloom.h"
#include "endian.h"
#include "growable.h"

bool
bs_bloom_is_growable(const uint8_t *buf)
{
	return (bs_load32(buf + BS_OFF_P3) & BS_BLOOM_GROWABLE) != 0;
}

uint32_t
bs_bloom_value_layout(const bs_header *h)
{
	return h->p3 & ~(uint32_t) BS_BLOOM_GROWABLE;
}

bs_status
bs_bloom_check(const bs_header *h, const uint8_t *payload, uint64_t plen,
			   bool deep, bs_error *err)
{
	(void) deep;				/* a filter's checks are O(1), a growable one's O(stages) */
	if (h->p3 > (BS_BLOOM_GROWABLE | BS_LAYOUT_MAX))
		return bs_fail(err, BS_ERR_FORMAT,
					   "bloom value has an unknown layout %u (0 classic, 1 blocked, 2 and 3 growable)",
					   h->p3);
	if (h->p3 & BS_BLOOM_GROWABLE)
		return bs_growable_check(h, payload, plen, err);
	return bs_bloom_check_named(h, payload, plen, "bloom value", err);
}
