#include "bloom.h"

#include <inttypes.h>
#include <string.h>

#include "endian.h"

bs_status
bs_bloom_size(uint64_t m, uint64_t *total, bs_error *err)
{
	if (m < 1 || m > BS_BLOOM_MAX_BITS)
		return bs_bloom_check_shape(m, 1, err);
	return bs_total_size(bs_bloom_payload_bytes(m), "bloom filter", total, err);
}

void
bs_bloom_init(uint8_t *buf, uint64_t m, uint32_t k, uint8_t family, uint64_t seed)
{
	bs_bloom_init_layout(buf, m, k, BS_LAYOUT_CLASSIC, family, seed);
}

void
bs_bloom_init_layout(uint8_t *buf, uint64_t m, uint32_t k, uint32_t layout,
					 uint8_t family, uint64_t seed)
{
	bs_sketch_init(buf, BS_KIND_BLOOM, family, seed, m, k, layout, bs_bloom_payload_bytes(m));
}

void
bs_bloom_view(uint8_t *buf, bs_bloom *b)
{
	b->family = buf[BS_OFF_FAMILY];
	b->seed = bs_load64(buf + BS_OFF_SEED);
	b->m = bs_load64(buf + BS_OFF_P1);
	b->k = bs_load32(buf + BS_OFF_P2);
	b->layout = bs_load32(buf + BS_OFF_P3);
	b->buf = buf;
	b->bits = buf + BS_HEADER_SIZE;
}

bs_status
bs_bloom_check_mergeable(const bs_bloom *a, const bs_bloom *b, bs_error *err)
{
	if (a->layout != b->layout)
	{
		bs_fail(err, BS_ERR_SHAPE,
				"cannot merge a %s bloom filter with a %s bloom filter",
				bs_layout_name(a->layout), bs_layout_name(b->layout));
		bs_error_detail(err, "The first has %" PRIu64 " bits and %u hashes, the second %" PRIu64 " bits and %u hashes.",
						a->m, a->k, b->m, b->k);
		bs_error_hint(err, "Filters merge only with filters of the same layout and shape: build both with the same capacity, fpr and layout.");
		return BS_ERR_SHAPE;
	}
	if (a->m != b->m || a->k != b->k || a->seed != b->seed)
	{
		bs_fail(err, BS_ERR_SHAPE,
				"cannot merge bloom filters of different shapes: %" PRIu64 " bits with %u hashes (seed %" PRIu64 ") and %" PRIu64 " bits with %u hashes (seed %" PRIu64 ")",
				a->m, a->k, a->seed, b->m, b->k, b->seed);
		bs_error_hint(err, "Merge filters built with the same capacity and fpr, or the same bits and hashes. bloom_agg(x) without a capacity sizes each group's filter for that group alone; build filters you will merge with bloom_agg(x, capacity, fpr), the capacity fitting the merged set.");
		return BS_ERR_SHAPE;
	}
	return bs_check_merge_families(a->family, b->family,
								   "cannot merge a bloom filter of %s keys with a bloom filter of %s keys",
								   err);
}

void
bs_bloom_or(bs_bloom *dst, const bs_bloom *src)
{
	bs_or_bytes(dst->bits, src->bits, bs_bloom_payload_bytes(dst->m));
	dst->family = bs_family_join(dst->family, src->family);
	dst->buf[BS_OFF_FAMILY] = dst->family;
}

void
bs_bloom_and(bs_bloom *dst, const bs_bloom *src)
{
	uint64_t	i,
				nbytes = bs_bloom_payload_bytes(dst->m);

	for (i = 0; i < nbytes; i++)
		dst->bits[i] &= src->bits[i];
	dst->family = bs_family_join(dst->family, src->family);
	dst->buf[BS_OFF_FAMILY] = dst->family;
}

double
bs_bloom_cardinality_of(const bs_bloom *b)
{
	return bs_layout_cardinality(b->layout, b->bits, b->m, b->k);
}

double
bs_bloom_fpr_of(const bs_bloom *b)
{
	return bs_layout_fpr_of(b->layout, b->bits, b->m, b->k);
}

bs_status
bs_bloom_check_named(const bs_header *h, const uint8_t *payload, uint64_t plen,
			   const char *what, bs_error *err)
{
	uint64_t	need;

	if (h->p1 < 1 || h->p1 > BS_BLOOM_MAX_BITS)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s has an invalid bit count %" PRIu64, what, h->p1);
	if (h->p2 < 1 || h->p2 > BS_BLOOM_MAX_HASHES)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s has an invalid hash count %u (must be 1 to %d)",
					   what, h->p2, BS_BLOOM_MAX_HASHES);
	if (h->n != 0 || h->x != 0)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s has nonzero reserved header fields", what);
	if (h->p3 > BS_LAYOUT_MAX)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s has an unknown layout %u (0 classic, 1 blocked)", what, h->p3);
	if (!bs_layout_fits(h->p3, h->p1))
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s %s has %" PRIu64 " bits, not a multiple of the block size %d",
					   bs_layout_name(h->p3), what, h->p1, BS_BLOCK_BITS);
	need = bs_bloom_payload_bytes(h->p1);
	if (plen != need)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s of %" PRIu64 " bits must have %" PRIu64 " payload bytes, has %" PRIu64,
					   what, h->p1, need, plen);
	if (h->p1 % 8 != 0 && (payload[plen - 1] >> (h->p1 % 8)) != 0)
		return bs_fail(err, BS_ERR_FORMAT,
					   "%s has bits set past its last bit %" PRIu64, what, h->p1 - 1);
	return BS_OK;
}
