#include "layout.h"

#include <inttypes.h>
#include <string.h>

#include "probe_ranges.h"

bs_status
bs_bloom_check_layout_shape(uint64_t m, uint64_t k, uint32_t layout, bs_error *err)
{
	bs_status	st;

	if ((st = bs_bloom_check_shape(m, k, err)) != BS_OK)
		return st;
	if (layout > BS_LAYOUT_MAX)
		return bs_fail(err, BS_ERR_PARAM, "unknown bloom filter layout %u", layout);
	if (!bs_layout_fits(layout, m))
	{
		bs_fail(err, BS_ERR_PARAM,
				"a blocked bloom filter must have a multiple of %d bits, got %" PRIu64,
				BS_BLOCK_BITS, m);
		bs_error_hint(err, "Use %" PRIu64 " bits.",
					  (m / BS_BLOCK_BITS + 1) * BS_BLOCK_BITS);
		return BS_ERR_PARAM;
	}
	return BS_OK;
}

const char *
bs_layout_name(uint32_t layout)
{
	switch (layout)
	{
		case BS_LAYOUT_CLASSIC:
			return "classic";
		case BS_LAYOUT_BLOCKED:
			return "blocked";
	}
	return "unknown";
}

bs_status
bs_layout_parse(const char *text, size_t len, uint32_t *layout, bs_error *err)
{
	uint32_t	l;

	for (l = 0; l <= BS_LAYOUT_MAX; l++)
		if (strlen(bs_layout_name(l)) == len && memcmp(text, bs_layout_name(l), len) == 0)
		{
			*layout = l;
			return BS_OK;
		}
	bs_fail(err, BS_ERR_PARAM, "unknown bloom filter layout \"%.*s\"",
			len > 64 ? 64 : (int) len, text);
	bs_error_hint(err, "The layouts are 'classic' (the default) and 'blocked' (one cache line per key).");
	return BS_ERR_PARAM;
}

bs_status
bs_bloom_shape_for(double n, double p, uint32_t layout, uint64_t *m, uint32_t *k,
				   bs_error *err)
{
	bs_status	st;

	if (layout == BS_LAYOUT_BLOCKED)
		return bs_blocked_optimal(n, p, m, k, err);
	if ((st = bs_bloom_optimal_bits(n, p, m, err)) != BS_OK)
		return st;
	return bs_bloom_optimal_hashes(*m, n, k, err);
}

double
bs_bloom_fpr_layout(uint32_t layout, uint64_t m, double n, uint32_t k)
{
	if (layout == BS_LAYOUT_BLOCKED)
		return bs_blocked_fpr(m, n, k);
	return bs_bloom_fpr_approx((double) m, n, (double) k);
}

double
bs_layout_cardinality(uint32_t layout, const uint8_t *bits, uint64_t m, uint32_t k)
{
	if (layout == BS_LAYOUT_BLOCKED)
		return bs_blocked_cardinality(bits, m, k);
	return bs_bloom_cardinality(m, k, bs_popcount(bits, bs_bloom_payload_bytes(m)));
}

double
bs_layout_fpr_of(uint32_t layout, const uint8_t *bits, uint64_t m, uint32_t k)
{
	if (layout == BS_LAYOUT_BLOCKED)
		return bs_blocked_fpr_from_fill(bits, m, k);
	return bs_bloom_fpr_from_fill(m, k, bs_popcount(bits, bs_bloom_payload_bytes(m)));
}

void
bs_layout_fold(uint32_t layout, const uint8_t *src, uint64_t m, uint64_t f, uint8_t *dst)
{
	if (layout == BS_LAYOUT_BLOCKED)
		bs_blocked_fold(src, m, f, dst);
	else
		bs_bloom_fold(src, m, f, dst);
}

bool
bs_layout_fits(uint32_t layout, uint64_t m)
{
	return layout != BS_LAYOUT_BLOCKED || m % BS_BLOCK_BITS == 0;
}

bs_status
bs_layout_optimal_bits(uint32_t layout, double n, double p, uint64_t *m, bs_error *err)
{
	uint32_t	k;

	if (layout == BS_LAYOUT_BLOCKED)
		return bs_blocked_optimal(n, p, m, &k, err);
	return bs_bloom_optimal_bits(n, p, m, err);
}

bs_status
bs_layout_best_hashes(uint32_t layout, uint64_t m, double n, uint32_t *k, bs_error *err)
{
	bs_status	st;

	if (layout != BS_LAYOUT_BLOCKED)
		return bs_bloom_optimal_hashes(m, n, k, err);
	if ((st = bs_bloom_check_layout_shape(m, 1, layout, err)) != BS_OK)
		return st;
	*k = bs_blocked_best_hashes(m, n);
	return BS_OK;
}

bs_status
bs_layout_check_estimate(uint32_t layout, uint64_t m, uint32_t k, bs_error *err)
{
	if (layout == BS_LAYOUT_CLASSIC)
		return BS_OK;
	return bs_bloom_check_layout_shape(m, k, layout, err);
}

size_t
bs_layout_probe_ranges(uint32_t layout, uint64_t m, uint32_t k, uint64_t h,
					   bs_byte_range *out)
{
	uint32_t	i;

	if (layout == BS_LAYOUT_BLOCKED)
	{
		out[0].off = BS_HEADER_SIZE + bs_blocked_block_index(m, h) * BS_BLOCK_BYTES;
		out[0].len = BS_BLOCK_BYTES;
		return 1;
	}
	for (i = 0; i < k && i < BS_PROBE_RANGES_MAX; i++)
	{
		out[i].off = BS_HEADER_SIZE + (bs_probe(h, i, m) >> 3);
		out[i].len = 1;
	}
	return i;
}

void
bs_layout_foldable_shape(uint32_t layout, double n, double p, uint64_t *m, uint32_t *k)
{
	if (layout == BS_LAYOUT_BLOCKED)
		bs_blocked_foldable(n, p, m, k);
	else
	{
		*k = bs_bloom_foldable_hashes(p);
		*m = bs_bloom_foldable_bits(n, p, *k);
	}
}

void
bs_layout_fold_base(uint32_t layout, int *twos, int *threes)
{
	if (layout == BS_LAYOUT_BLOCKED)
	{
		*twos = BS_BLOCKED_FOLD_TWOS;
		*threes = BS_BLOCKED_FOLD_THREES;
	}
	else
	{
		*twos = BS_FOLD_TWOS;
		*threes = BS_FOLD_THREES;
	}
}

bool
bs_layout_sizing_is_search(uint32_t layout)
{
	return layout == BS_LAYOUT_BLOCKED;
}

size_t
bs_layout_batch_min_bytes(uint32_t layout)
{
	if (layout == BS_LAYOUT_BLOCKED)
		return BS_BLOCKED_BATCH_MIN_BYTES;
	return BS_BLOOM_BATCH_MIN_BYTES;
}

void
bs_layout_add_batch(uint32_t layout, uint8_t *bits, uint64_t m, uint32_t k,
					const uint64_t *h, size_t n)
{
	if (layout == BS_LAYOUT_BLOCKED)
		bs_blocked_add_prefetched(bits, m, k, h, n);
	else
		bs_bloom_add_prefetched(bits, m, k, h, n);
}
