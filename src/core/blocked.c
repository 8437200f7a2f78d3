#include "blocked.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "bloom.h"

#define LN2 0.69314718055994530942
/* the binomial sum stops this many standard deviations (plus a margin) from its mean */
#define TAIL_SDS 12.0

double
bs_blocked_fpr(uint64_t m, double n, uint32_t k)
{
	double		B = (double) (m / BS_BLOCK_BITS),
				keep = (double) k * log1p(-1.0 / BS_BLOCK_BITS),
				q,
				mean,
				sd,
				lo,
				hi,
				mode,
				pm,
				p,
				sum,
				i;

	/* (1 - (1 - 1/512)^(i k))^k: the rate in a block holding i keys */
#define INNER(i) pow(-expm1((i) * keep), (double) k)
	if (!(n > 0.0) || B < 1.0)
		return 0.0;
	if (B == 1.0)
		return INNER(n);
	q = 1.0 / B;
	mean = n * q;
	sd = sqrt(n * q * (1.0 - q));
	lo = fmax(0.0, floor(mean - TAIL_SDS * sd - TAIL_SDS));
	hi = fmin(n, ceil(mean + TAIL_SDS * sd + TAIL_SDS));
	mode = fmin(n, floor((n + 1.0) * q));
	pm = exp(lgamma(n + 1.0) - lgamma(mode + 1.0) - lgamma(n - mode + 1.0) +
			 mode * log(q) + (n - mode) * log1p(-q));
	sum = pm * INNER(mode);
	/* the binomial probabilities on either side of the mode, by their ratios */
	for (p = pm, i = mode; i < hi && p > 0.0; i += 1.0)
	{
		p *= (n - i) / (i + 1.0) * q / (1.0 - q);
		sum += p * INNER(i + 1.0);
	}
	for (p = pm, i = mode; i > lo && p > 0.0; i -= 1.0)
	{
		p *= i / (n - i + 1.0) * (1.0 - q) / q;
		sum += p * INNER(i - 1.0);
	}
#undef INNER
	return sum;
}

uint32_t
bs_blocked_best_hashes(uint64_t m, double n)
{
	double		k0 = round((double) m / n * LN2);
	uint32_t	k,
				best;
	double		f,
				fbest;

	if (!(k0 >= 1.0))
		k0 = 1.0;
	if (k0 > BS_BLOOM_MAX_HASHES)
		k0 = BS_BLOOM_MAX_HASHES;
	best = (uint32_t) k0;
	fbest = bs_blocked_fpr(m, n, best);
	/* the rate is unimodal in k: walk down, then up, while it falls */
	for (k = best - 1; k >= 1 && (f = bs_blocked_fpr(m, n, k)) < fbest; k--)
	{
		best = k;
		fbest = f;
	}
	if (best == (uint32_t) k0)
		for (k = best + 1; k <= BS_BLOOM_MAX_HASHES && (f = bs_blocked_fpr(m, n, k)) < fbest; k++)
		{
			best = k;
			fbest = f;
		}
	return best;
}

static bool
meets(uint64_t blocks, double n, double p)
{
	uint64_t	m = blocks * BS_BLOCK_BITS;

	return bs_blocked_fpr(m, n, bs_blocked_best_hashes(m, n)) <= p;
}

bs_status
bs_blocked_optimal(double n, double p, uint64_t *m, uint32_t *k, bs_error *err)
{
	uint64_t	classic,
				lo,
				hi,
				max_blocks = BS_BLOOM_MAX_BITS / BS_BLOCK_BITS;
	bs_status	st;

	/* a blocked filter needs at least the bits of a classic one */
	if ((st = bs_bloom_optimal_bits(n, p, &classic, err)) != BS_OK)
		return st;
	lo = classic / BS_BLOCK_BITS;
	if (lo < 1)
		lo = 1;
	hi = lo;
	if (!meets(hi, n, p))
	{
		/* lo fails; double hi until it meets p, then bisect (lo, hi] */
		do
		{
			lo = hi;
			hi = hi * 2 > max_blocks ? max_blocks : hi * 2;
			if (hi == lo)
			{
				bs_fail(err, BS_ERR_LIMIT,
						"a blocked bloom filter for %.0f values at false-positive rate %s would need more than %" PRIu64 " bits, the limit",
						n, bs_num(p).s, (uint64_t) BS_BLOOM_MAX_BITS);
				bs_error_detail(err, BS_LIMIT_TEXT);
				bs_error_hint(err, "Ask for a smaller capacity or a larger false-positive rate, or use layout 'classic', which needs fewer bits.");
				return BS_ERR_LIMIT;
			}
		} while (!meets(hi, n, p));
		while (hi - lo > 1)
		{
			uint64_t	mid = lo + (hi - lo) / 2;

			if (meets(mid, n, p))
				hi = mid;
			else
				lo = mid;
		}
	}
	*m = hi * BS_BLOCK_BITS;
	*k = bs_blocked_best_hashes(*m, n);
	return BS_OK;
}

/* Set bits of each 64-byte block, one at a time. */
#define FOR_EACH_BLOCK_FILL(bits, m, x, body) \
	do { \
		uint64_t	b_, blocks_ = (m) / BS_BLOCK_BITS; \
		for (b_ = 0; b_ < blocks_; b_++) \
		{ \
			unsigned	x = (unsigned) bs_popcount((bits) + b_ * BS_BLOCK_BYTES, BS_BLOCK_BYTES); \
			body; \
		} \
	} while (0)

double
bs_blocked_cardinality(const uint8_t *bits, uint64_t m, uint32_t k)
{
	double		per[BS_BLOCK_BITS + 1],
				n = 0.0;
	unsigned	x;

	/* a block with x bits set: -(512/k) ln(1 - x/512) keys (Swamidass and Baldi) */
	for (x = 0; x < BS_BLOCK_BITS; x++)
		per[x] = -((double) BS_BLOCK_BITS / k) * log1p(-(double) x / BS_BLOCK_BITS);
	per[BS_BLOCK_BITS] = INFINITY;
	FOR_EACH_BLOCK_FILL(bits, m, fill, n += per[fill]);
	return n;
}

double
bs_blocked_fpr_from_fill(const uint8_t *bits, uint64_t m, uint32_t k)
{
	double		per[BS_BLOCK_BITS + 1],
				sum = 0.0;
	unsigned	x;

	/* a key not in the filter picks a block uniformly, then needs its k bits set */
	for (x = 0; x <= BS_BLOCK_BITS; x++)
		per[x] = pow((double) x / BS_BLOCK_BITS, k);
	FOR_EACH_BLOCK_FILL(bits, m, fill, sum += per[fill]);
	return sum / (double) (m / BS_BLOCK_BITS);
}

void
bs_blocked_fold(const uint8_t *src, uint64_t m, uint64_t f, uint8_t *dst)
{
	uint64_t	out_blocks = m / BS_BLOCK_BITS / f,
				b,
				j,
				w;

	for (b = 0; b < out_blocks; b++)
	{
		uint64_t	acc[BS_BLOCK_BYTES / 8] = {0};

		for (j = 0; j < f; j++)
			for (w = 0; w < BS_BLOCK_BYTES / 8; w++)
			{
				uint64_t	v;

				memcpy(&v, src + ((b * f + j) * BS_BLOCK_BYTES) + w * 8, 8);
				acc[w] |= v;
			}
		memcpy(dst + b * BS_BLOCK_BYTES, acc, BS_BLOCK_BYTES);
	}
}
