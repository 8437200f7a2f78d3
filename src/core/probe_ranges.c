/*
 * probe_ranges.c: the bytes a lookup of one key reads, per kind
 * (probe_ranges.h).  Each function mirrors the lookup it describes:
 * bs_bloom_contains (bloom.h, both layouts), bs_cbloom_contains_hash and
 * bs_cbloom_count_hash (cbloom.h), bs_cms_frequency (cms.c).
 */
#include "probe_ranges.h"

#include "bloom.h"
#include "bloom_value.h"
#include "hash.h"

static size_t
one_range(bs_byte_range *out, uint64_t payload_off, uint64_t len)
{
	out->off = BS_HEADER_SIZE + payload_off;
	out->len = len;
	return 1;
}

/* Where a fixed filter's lookup reads depends on its layout (layout.h). */
size_t
bs_bloom_probe_ranges(const bs_header *hd, uint64_t h, bs_byte_range *out)
{
	/* growable (growable.h): read whole, never sliced (src/sketch_arg.c) */
	if (bs_bloom_value_layout(hd) != hd->p3)
		return 0;
	return bs_layout_probe_ranges(hd->p3, hd->p1, hd->p2, h, out);
}

/* Counter j of p3 = 8 bits is payload byte j; of 4 bits, a half of byte j / 2. */
size_t
bs_cbloom_probe_ranges(const bs_header *hd, uint64_t h, bs_byte_range *out)
{
	size_t		n = 0;
	uint32_t	i;

	for (i = 0; i < hd->p2 && i < BS_PROBE_RANGES_MAX; i++)
	{
		uint64_t	j = bs_probe(h, i, hd->p1);

		n += one_range(out + n, hd->p3 == 8 ? j : j >> 1, 1);
	}
	return n;
}

/* Row r's counter for h is the 8 bytes at (r * width + probe r) * 8, width = p1. */
size_t
bs_cms_probe_ranges(const bs_header *hd, uint64_t h, bs_byte_range *out)
{
	size_t		n = 0;
	uint32_t	row;

	for (row = 0; row < hd->p2 && row < BS_PROBE_RANGES_MAX; row++)
		n += one_range(out + n,
					   ((uint64_t) row * hd->p1 + bs_probe(h, row, hd->p1)) * 8, 8);
	return n;
}

size_t
bs_probe_ranges(const bs_header *hd, uint64_t h, bs_byte_range *out)
{
	switch (hd->kind)
	{
		case BS_KIND_BLOOM:
			return bs_bloom_probe_ranges(hd, h, out);
		case BS_KIND_CBLOOM:
			return bs_cbloom_probe_ranges(hd, h, out);
		case BS_KIND_CMS:
			return bs_cms_probe_ranges(hd, h, out);
		default:
			return 0;
	}
}

bool
bs_probe_ranges_suffice(const bs_header *hd)
{
	return !(hd->kind == BS_KIND_BLOOM && (hd->p3 & BS_BLOOM_GROWABLE));
}
