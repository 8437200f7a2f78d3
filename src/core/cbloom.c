#include "cbloom.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "bits.h"
#include "bloom.h"
#include "endian.h"

static uint64_t
payload_bytes(uint64_t m, uint32_t bits)
{
	return bits == 8 ? m : m / 2 + (m % 2);
}

uint64_t
bs_cbloom_max_counters(uint32_t bits)
{
	uint64_t	bytes = BS_MAX_SKETCH_BYTES - BS_HEADER_SIZE;

	return bits == 8 ? bytes : bytes * 2;
}

static bs_status
check_bits(uint64_t bits, bs_error *err)
{
	if (bits != 4 && bits != 8)
		return bs_fail(err, BS_ERR_PARAM,
					   "counter bits must be 4 or 8, got %" PRIu64, bits);
	return BS_OK;
}

/* The size-limit hint: 4-bit counters only when m of them would fit. */
static void
limit_hint(bs_error *err, uint64_t m, uint32_t bits)
{
	bs_error_hint(err, "Ask for a smaller capacity or a larger false-positive rate%s.",
				  bits == 8 && m <= bs_cbloom_max_counters(4) ? ", or 4-bit counters" : "");
}

bs_status
bs_cbloom_check_shape(uint64_t m, uint64_t k, uint64_t bits, bs_error *err)
{
	if (check_bits(bits, err) != BS_OK)
		return BS_ERR_PARAM;
	if (m < 1 || m > bs_cbloom_max_counters((uint32_t) bits))
	{
		bs_fail(err, m < 1 ? BS_ERR_PARAM : BS_ERR_LIMIT,
				"a counting bloom filter of %" PRIu64 "-bit counters must have between 1 and %" PRIu64 " counters, got %" PRIu64,
				bits, bs_cbloom_max_counters((uint32_t) bits), m);
		if (m >= 1)
		{
			bs_error_detail(err, "That filter would take %" PRIu64 " bytes. " BS_LIMIT_TEXT,
							payload_bytes(m, (uint32_t) bits) + BS_HEADER_SIZE);
			limit_hint(err, m, (uint32_t) bits);
		}
		return m < 1 ? BS_ERR_PARAM : BS_ERR_LIMIT;
	}
	if (k < 1 || k > BS_BLOOM_MAX_HASHES)
		return bs_fail(err, BS_ERR_PARAM,
					   "a counting bloom filter must have between 1 and %d hashes, got %" PRIu64,
					   BS_BLOOM_MAX_HASHES, k);
	return BS_OK;
}

bs_status
bs_cbloom_optimal_shape(double n, double p, uint32_t bits, uint64_t *m,
						uint32_t *k, bs_error *err)
{
	bs_status	st;

	if (check_bits(bits, err) != BS_OK)
		return BS_ERR_PARAM;
	st = bs_bloom_optimal_bits(n, p, m, err);
	if (st == BS_ERR_LIMIT)
	{
		/* Past even a bit array's limit: say it in counters. */
		double		need = ceil(-n * log(p) / (0.69314718055994530942 * 0.69314718055994530942));

		bs_fail(err, BS_ERR_LIMIT,
				"a counting bloom filter for %.0f values at false-positive rate %s would need %.0f counters, more than the limit of %" PRIu64,
				n, bs_num(p).s, need, bs_cbloom_max_counters(bits));
		bs_error_detail(err, "That filter would take about %.0f bytes. " BS_LIMIT_TEXT,
						need * bits / 8 + BS_HEADER_SIZE);
		bs_error_hint(err, "Ask for a smaller capacity or a larger false-positive rate.");
		return st;
	}
	if (st != BS_OK)
		return st;
	if (*m > bs_cbloom_max_counters(bits))
	{
		bs_fail(err, BS_ERR_LIMIT,
				"a counting bloom filter for %.0f values at false-positive rate %s would need %" PRIu64 " counters of %u bits, more than the limit of %" PRIu64,
				n, bs_num(p).s, *m, bits, bs_cbloom_max_counters(bits));
		bs_error_detail(err, "That filter would take %" PRIu64 " bytes. " BS_LIMIT_TEXT,
						payload_bytes(*m, bits) + BS_HEADER_SIZE);
		limit_hint(err, *m, bits);
		return BS_ERR_LIMIT;
	}
	st = bs_bloom_optimal_hashes(*m, n, k, err);
	if (st != BS_OK)
	{
		/* Only a tiny rate gets here: say it in the counting filter's terms. */
		bs_fail(err, st,
				"a counting bloom filter at false-positive rate %s would need more than the %d hashes a filter may have",
				bs_num(p).s, BS_BLOOM_MAX_HASHES);
		bs_error_hint(err, "Ask for a false-positive rate of at least about 1e-19.");
	}
	return st;
}

bs_status
bs_cbloom_size(uint64_t m, uint32_t bits, uint64_t *total, bs_error *err)
{
	bs_status	st = bs_cbloom_check_shape(m, 1, bits, err);

	if (st != BS_OK)
		return st;
	return bs_total_size(payload_bytes(m, bits), "counting bloom filter", total, err);
}

void
bs_cbloom_init(uint8_t *buf, uint64_t m, uint32_t k, uint32_t bits,
			   uint8_t family, uint64_t seed)
{
	bs_sketch_init(buf, BS_KIND_CBLOOM, family, seed, m, k, bits, payload_bytes(m, bits));
}

void
bs_cbloom_view(uint8_t *buf, bs_cbloom *c)
{
	c->m = bs_load64(buf + BS_OFF_P1);
	c->k = bs_load32(buf + BS_OFF_P2);
	c->bits = bs_load32(buf + BS_OFF_P3);
	c->max = c->bits == 8 ? 255u : 15u;
	c->family = buf[BS_OFF_FAMILY];
	c->seed = bs_load64(buf + BS_OFF_SEED);
	c->buf = buf;
	c->counters = buf + BS_HEADER_SIZE;
}

void
bs_cbloom_add_hash(bs_cbloom *c, uint64_t h, uint64_t count)
{
	uint32_t	i;

	for (i = 0; i < c->k; i++)
	{
		uint64_t	j = bs_probe(h, i, c->m);
		uint32_t	v = bs_cbloom_get(c, j);

		bs_cbloom_set(c, j, count >= c->max - v ? c->max : v + (uint32_t) count);
	}
}

void
bs_cbloom_add_prefetched(bs_cbloom *c, const uint64_t *h, const uint32_t *counts, size_t n)
{
	uint64_t	ring[BS_CBLOOM_PREFETCH_AHEAD + 1][BS_BLOOM_MAX_HASHES];
	size_t		i;
	uint32_t	j;

	if (c->k > BS_BLOOM_MAX_HASHES)
	{
		/* no filter that passes bs_cbloom_check_shape: add anyway */
		for (i = 0; i < n; i++)
			bs_cbloom_add_hash(c, h[i], counts[i]);
		return;
	}
	for (i = 0; i < n + BS_CBLOOM_PREFETCH_AHEAD; i++)
	{
		if (i >= BS_CBLOOM_PREFETCH_AHEAD)
		{
			size_t		q = i - BS_CBLOOM_PREFETCH_AHEAD;
			const uint64_t *pos = ring[q % (BS_CBLOOM_PREFETCH_AHEAD + 1)];

			for (j = 0; j < c->k; j++)
			{
				uint32_t	v = bs_cbloom_get(c, pos[j]);

				bs_cbloom_set(c, pos[j], counts[q] >= c->max - v ? c->max : v + counts[q]);
			}
		}
		if (i < n)
		{
			uint64_t   *pos = ring[i % (BS_CBLOOM_PREFETCH_AHEAD + 1)];

			for (j = 0; j < c->k; j++)
			{
				pos[j] = bs_probe(h[i], j, c->m);
				bs_prefetch_write(c->counters + (c->bits == 8 ? pos[j] : pos[j] >> 1));
			}
		}
	}
}

/* Probe positions of h, and how many of them land on each one's counter. */
static void
probes(const bs_cbloom *c, uint64_t h, uint64_t *pos, uint32_t *mult)
{
	uint32_t	i,
				j;

	for (i = 0; i < c->k; i++)
		pos[i] = bs_probe(h, i, c->m);
	for (i = 0; i < c->k; i++)
	{
		mult[i] = 0;
		for (j = 0; j < c->k; j++)
			mult[i] += pos[j] == pos[i];
	}
}

/* Is probe i the first of the value's probes on its counter? */
static bool
first_on_counter(const uint64_t *pos, uint32_t i)
{
	uint32_t	j;

	for (j = 0; j < i; j++)
		if (pos[j] == pos[i])
			return false;
	return true;
}

bs_status
bs_cbloom_remove_hash(bs_cbloom *c, uint64_t h, bs_error *err)
{
	uint64_t	pos[BS_BLOOM_MAX_HASHES];
	uint32_t	mult[BS_BLOOM_MAX_HASHES];
	uint32_t	i,
				low = 0,
				counters = 0;

	probes(c, h, pos, mult);
	for (i = 0; i < c->k; i++)
	{
		uint32_t	v = bs_cbloom_get(c, pos[i]);

		if (!first_on_counter(pos, i))
			continue;
		counters++;
		if (v != c->max && v < mult[i])
			low++;
	}
	if (low > 0)
	{
		bs_fail(err, BS_ERR_ABSENT,
				"cannot remove a value that the counting bloom filter does not hold");
		bs_error_detail(err, "%u of the value's %u counters %s too low for it ever to have been added.",
						low, counters, low == 1 ? "is" : "are");
		bs_error_hint(err, "Remove only values that were added; test with @> first to skip absent values.");
		return BS_ERR_ABSENT;
	}
	for (i = 0; i < c->k; i++)
	{
		uint32_t	v = bs_cbloom_get(c, pos[i]);

		if (v != c->max)
			bs_cbloom_set(c, pos[i], v - 1);
	}
	return BS_OK;
}

uint32_t
bs_cbloom_count_hash(const bs_cbloom *c, uint64_t h)
{
	uint64_t	pos[BS_BLOOM_MAX_HASHES];
	uint32_t	mult[BS_BLOOM_MAX_HASHES];
	uint32_t	i,
				best = c->max;

	probes(c, h, pos, mult);
	for (i = 0; i < c->k; i++)
	{
		uint32_t	v = bs_cbloom_get(c, pos[i]);

		if (v != c->max && v / mult[i] < best)
			best = v / mult[i];
	}
	return best;
}

/* "9586 4-bit counters with 7 hashes (seed 0)" */
#define SHAPE_FMT "%" PRIu64 " %u-bit counters with %u hashes (seed %" PRIu64 ")"
#define SHAPE_ARGS(c) (c)->m, (c)->bits, (c)->k, (c)->seed

bs_status
bs_cbloom_check_compatible(const bs_cbloom *a, const bs_cbloom *b,
						   const char *verb, bs_error *err)
{
	if (a->m != b->m || a->k != b->k || a->bits != b->bits || a->seed != b->seed)
	{
		bs_fail(err, BS_ERR_SHAPE,
				"cannot %s counting bloom filters of different shapes: " SHAPE_FMT " and " SHAPE_FMT,
				verb, SHAPE_ARGS(a), SHAPE_ARGS(b));
		bs_error_hint(err, "Use filters built with the same capacity, fpr and counter bits.");
		return BS_ERR_SHAPE;
	}
	if (!bs_family_compatible(a->family, b->family))
		return bs_fail(err, BS_ERR_FAMILY,
					   "cannot %s a counting bloom filter of %s keys and one of %s keys",
					   verb, bs_family_name(a->family), bs_family_name(b->family));
	return BS_OK;
}

void
bs_cbloom_add_counters(bs_cbloom *dst, const bs_cbloom *src)
{
	uint64_t	i,
				nbytes = payload_bytes(dst->m, dst->bits);

	if (dst->bits == 8)
		for (i = 0; i < nbytes; i++)
		{
			unsigned	s = (unsigned) dst->counters[i] + src->counters[i];

			dst->counters[i] = (uint8_t) (s > 255 ? 255 : s);
		}
	else
		for (i = 0; i < nbytes; i++)
		{
			unsigned	lo = (dst->counters[i] & 15u) + (src->counters[i] & 15u),
						hi = (dst->counters[i] >> 4) + (src->counters[i] >> 4);

			dst->counters[i] = (uint8_t) ((lo > 15 ? 15 : lo) | (hi > 15 ? 15 : hi) << 4);
		}
	dst->family = bs_family_join(dst->family, src->family);
	dst->buf[BS_OFF_FAMILY] = dst->family;
}

bs_status
bs_cbloom_subtract(bs_cbloom *dst, const bs_cbloom *src, bs_error *err)
{
	uint64_t	j,
				bad = 0;

	for (j = 0; j < dst->m; j++)
	{
		uint32_t	d = bs_cbloom_get(dst, j);

		bad += d != dst->max && bs_cbloom_get(src, j) > d;
	}
	if (bad > 0)
	{
		bs_fail(err, BS_ERR_ABSENT,
				"cannot subtract a counting bloom filter that holds values the other does not");
		bs_error_detail(err, "%" PRIu64 " of %" PRIu64 " counters of the filter subtracted are greater than the unsaturated counters they would be subtracted from.",
						bad, dst->m);
		bs_error_hint(err, "Subtract only a filter of values that were added to the first one, such as an earlier part of it.");
		return BS_ERR_ABSENT;
	}
	for (j = 0; j < dst->m; j++)
	{
		uint32_t	d = bs_cbloom_get(dst, j);

		if (d != dst->max)
			bs_cbloom_set(dst, j, d - bs_cbloom_get(src, j));
	}
	return BS_OK;
}

void
bs_cbloom_stats(const bs_cbloom *c, uint64_t *zero, uint64_t *saturated)
{
	uint64_t	j,
				z = 0,
				s = 0;

	for (j = 0; j < c->m; j++)
	{
		uint32_t	v = bs_cbloom_get(c, j);

		z += v == 0;
		s += v == c->max;
	}
	*zero = z;
	*saturated = s;
}

void
bs_cbloom_to_bloom(const bs_cbloom *c, uint8_t *out)
{
	uint8_t    *bits = out + BS_HEADER_SIZE;
	uint64_t	j;

	bs_bloom_init(out, c->m, c->k, c->family, c->seed);
	for (j = 0; j < c->m; j++)
		if (bs_cbloom_get(c, j) != 0)
			bits[j >> 3] |= (uint8_t) (1u << (j & 7));
}

bs_status
bs_cbloom_check(const bs_header *h, const uint8_t *payload, uint64_t plen,
				bool deep, bs_error *err)
{
	uint64_t	need;

	(void) deep;				/* a counting filter's checks are all O(1) */

	if (h->p3 != 4 && h->p3 != 8)
		return bs_fail(err, BS_ERR_FORMAT,
					   "cbloom value has invalid counter bits %u (must be 4 or 8)", h->p3);
	if (h->p1 < 1 || h->p1 > bs_cbloom_max_counters(h->p3))
		return bs_fail(err, BS_ERR_FORMAT,
					   "cbloom value has an invalid counter count %" PRIu64, h->p1);
	if (h->p2 < 1 || h->p2 > BS_BLOOM_MAX_HASHES)
		return bs_fail(err, BS_ERR_FORMAT,
					   "cbloom value has an invalid hash count %u (must be 1 to %d)",
					   h->p2, BS_BLOOM_MAX_HASHES);
	if (h->n != 0 || h->x != 0)
		return bs_fail(err, BS_ERR_FORMAT,
					   "cbloom value has nonzero reserved header fields");
	need = payload_bytes(h->p1, h->p3);
	if (plen != need)
		return bs_fail(err, BS_ERR_FORMAT,
					   "cbloom value of %" PRIu64 " %u-bit counters must have %" PRIu64 " payload bytes, has %" PRIu64,
					   h->p1, h->p3, need, plen);
	if (h->p3 == 4 && h->p1 % 2 != 0 && (payload[plen - 1] >> 4) != 0)
		return bs_fail(err, BS_ERR_FORMAT,
					   "cbloom value has a nonzero unused half byte after its last counter");
	return BS_OK;
}
