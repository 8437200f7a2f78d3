/*
 * probe_ranges.h: which bytes of a sketch a lookup of one key reads.
 *
 * A lookup (bloom and cbloom membership and counts, cms frequency) reads the
 * header and, for each probe of the key's hash, a few payload bytes.  The
 * glue uses this to fetch only those bytes of a large stored sketch
 * (src/sketch_arg.c, doc/architecture.md section 5.2); the lookup itself then
 * runs unchanged on a buffer where those bytes, and the header, are filled.
 * So this file is the one place that must know, per kind and per layout,
 * where a lookup reads: a layout whose probes land elsewhere needs its branch
 * here, and test/unit/probe_ranges_test.c checks that every lookup's answer
 * depends only on the bytes listed.
 */
#ifndef BS_PROBE_RANGES_H
#define BS_PROBE_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* A byte range [off, off + len) of a sketch, offsets counted from its first header byte. */
typedef struct bs_byte_range
{
	uint64_t	off;
	uint64_t	len;
} bs_byte_range;

/*
 * Most ranges one lookup reads: one per probe, and a kind has at most 64
 * probes (BS_BLOOM_MAX_HASHES hashes, BS_CMS_MAX_DEPTH rows).
 */
#define BS_PROBE_RANGES_MAX 64

/*
 * The payload bytes that a lookup of hash h reads in a sketch whose header
 * is *hd, which bs_validate accepted for a value of that header's size:
 * writes at most BS_PROBE_RANGES_MAX ranges to out, in probe order (they may
 * repeat and overlap), and returns their number; 0 for a kind without
 * per-key lookups.  Every range lies inside the sketch that *hd describes.
 */
size_t		bs_probe_ranges(const bs_header *hd, uint64_t h, bs_byte_range *out);

/*
 * Whether the header, the last byte and the ranges of bs_probe_ranges are
 * all that the quick check (bs_validate, not deep) and a lookup read of a
 * value with this header (decoded, not yet checked): not for a growable
 * bloom filter, whose lookup reads every stage and whose check reads each
 * stage's last byte.
 */
bool		bs_probe_ranges_suffice(const bs_header *hd);

/* The same for each kind, called by bs_probe_ranges. */
size_t		bs_bloom_probe_ranges(const bs_header *hd, uint64_t h, bs_byte_range *out);
size_t		bs_cbloom_probe_ranges(const bs_header *hd, uint64_t h, bs_byte_range *out);
size_t		bs_cms_probe_ranges(const bs_header *hd, uint64_t h, bs_byte_range *out);

#endif
