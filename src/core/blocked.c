#include "blocked.h"

#include <inttypes.h>
#include <stdbool.h>
#include <math.h>
#include <string.h>

#include "classic.h"

#define LN2 0.69314718055994530942
/* the binomial sum stops this many standard deviations (plus a margin) from its mean */
#define TAIL_SDS 12.0
/* up to this k the block rate is a sum of k + 1 exponentials; above, a dynamic programme */
#define TERMS_MAX_K BS_BLOCKED_MAX_HASHES
/* after this many throws into 512 bits, P(a bit is still clear) < 512 e^-40 */
#define FULL_THROWS (40 * BS_BLOCK_BITS)
/* keys between a block's prefetch and its use */
#define PREFETCH_AHEAD 8

/*
 * The exact rate of one block that holds i keys: a probe's k positions are
 * uniform and independent, so it is E[(X / 512)^k], X the bits set by the
 * t = i k positions of those keys.  (The textbook term
 * (1 - (1 - 1/512)^t)^k puts the mean of X in place of X; the k-th power
 * of a varying fill is larger on average, by 1% at k = 6 and 4% at k = 13,
 * which would make filters miss the rate they were sized for.)
 *
 * k <= TERMS_MAX_K: if the k probes hit j distinct bits (probability P(j),
 * a Stirling-number law), they are all set with probability
 * sum over l of (-1)^l C(j, l) (1 - l/512)^t (inclusion-exclusion), so the
 * rate is sum over l of c_l (1 - l/512)^t with
 * c_l = (-1)^l sum over j of P(j) C(j, l).  Its terms cancel, leaving an
 * absolute error of about 2^k 1e-16 (1e-10 at k = 20), so a sum below
 * 2^k 1e-12 (a nearly empty block) is redone by the dynamic programme, whose
 * few throws then cost little.
 * Larger k: the law of X after t throws, one throw at a time.
 */
typedef struct block_rate
{
	uint32_t	k;
	double		c[TERMS_MAX_K + 1];		/* k <= TERMS_MAX_K */
	double		log_keep[TERMS_MAX_K + 1];	/* ln(1 - l/512) */
	double		exact_below;	/* ... a sum below this is redone by the programme */
	bool		law_ready;		/* the programme's state: */
	double		pw[BS_BLOCK_BITS + 1];	/* (x/512)^k */
	double		law[BS_BLOCK_BITS + 1]; /* P(X = x) after `throws` throws */
	uint64_t	throws;
} block_rate;

static void
block_rate_init(block_rate *br, uint32_t k)
{
	const double b = BS_BLOCK_BITS;
	uint32_t	j,
				l,
				p;

	br->k = k;
	br->law_ready = false;
	if (k <= TERMS_MAX_K)
	{
		double		P[TERMS_MAX_K + 1] = {1.0};

		/* P[j]: the probes so far hit j distinct bits */
		for (p = 0; p < k; p++)
		{
			for (j = p + 1; j >= 1; j--)
				P[j] = P[j] * (j / b) + P[j - 1] * ((b - (j - 1)) / b);
			P[0] = 0.0;
		}
		for (l = 0; l <= k; l++)
		{
			double		sum = 0.0,
						binom = 1.0;	/* C(j, l), from j = l up */

			for (j = l; j <= k; j++)
			{
				sum += P[j] * binom;
				binom = binom * (j + 1) / (j + 1 - l);
			}
			br->c[l] = (l % 2 == 0) ? sum : -sum;
			br->log_keep[l] = log1p(-(double) l / b);
		}
		/* the sum's rounding error is about 2^k 1e-16; keep it below 1e-4 of the result */
		br->exact_below = ldexp(1e-12, (int) k);
	}
}

/* The throw-by-throw law of X up to t throws (t never decreases between calls). */
static double
block_rate_programme(block_rate *br, double t)
{
	double		r = 0.0;
	uint32_t	x;

	if (t >= FULL_THROWS)
		return 1.0;
	if (!br->law_ready)
	{
		for (x = 0; x <= BS_BLOCK_BITS; x++)
		{
			br->pw[x] = pow(x / (double) BS_BLOCK_BITS, (double) br->k);
			br->law[x] = 0.0;
		}
		br->law[0] = 1.0;
		br->throws = 0;
		br->law_ready = true;
	}
	for (; (double) br->throws < t; br->throws++)
	{
		/* a throw keeps x bits with probability x/512, or sets one more */
		uint32_t	top = br->throws + 1 < BS_BLOCK_BITS ? (uint32_t) br->throws + 1 : BS_BLOCK_BITS;

		for (x = top; x >= 1; x--)
			br->law[x] = br->law[x] * (x / (double) BS_BLOCK_BITS) +
				br->law[x - 1] * ((BS_BLOCK_BITS - x + 1) / (double) BS_BLOCK_BITS);
		br->law[0] = 0.0;
	}
	for (x = 0; x <= BS_BLOCK_BITS; x++)
		r += br->law[x] * br->pw[x];
	return r;
}

/*
 * The rate of a block holding i keys; i never decreases between calls.  A
 * sum too small to trust (a nearly empty block, where the programme is
 * short) is redone by the programme.
 */
static double
block_rate_at(block_rate *br, double i)
{
	double		t = i * br->k,
				r = 0.0;
	uint32_t	l;

	if (br->k <= TERMS_MAX_K)
	{
		for (l = 0; l <= br->k; l++)
			r += br->c[l] * exp(t * br->log_keep[l]);
		if (r >= br->exact_below)
			return r;
	}
	return block_rate_programme(br, t);
}

/*
 * Binomial probabilities without cancellation (Loader 2000, as in R's
 * dbinom): lgamma differences lose all precision for n near 2^53.
 */
static double
stirlerr(double n)
{
	const double S0 = 1.0 / 12,
				S1 = 1.0 / 360,
				S2 = 1.0 / 1260,
				S3 = 1.0 / 1680,
				S4 = 1.0 / 1188;
	double		nn = n * n;

	if (n <= 15.0)
		return lgamma(n + 1.0) - (n + 0.5) * log(n) + n - 0.918938533204672741780;
	if (n > 500)
		return (S0 - S1 / nn) / n;
	if (n > 80)
		return (S0 - (S1 - S2 / nn) / nn) / n;
	if (n > 35)
		return (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n;
	return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n;
}

/* x ln(x / np) + np - x, accurately when x is near np */
static double
bd0(double x, double np)
{
	if (fabs(x - np) < 0.1 * (x + np))
	{
		double		v = (x - np) / (x + np),
					s = (x - np) * v,
					ej = 2 * x * v,
					s1;
		int			j;

		v = v * v;
		for (j = 1; j < 1000; j++)
		{
			ej *= v;
			s1 = s + ej / (2 * j + 1);
			if (s1 == s)
				return s1;
			s = s1;
		}
		return s;
	}
	return x * log(x / np) + np - x;
}

/* P(X = x) for X binomial (n, p), q = 1 - p, 0 < p < 1 */
static double
dbinom(double x, double n, double p, double q)
{
	double		lc;

	if (x == 0)
		return exp(p < 0.1 ? -bd0(n, n * q) - n * p : n * log(q));
	if (x == n)
		return exp(q < 0.1 ? -bd0(n, n * p) - n * q : n * log(p));
	lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * p) - bd0(n - x, n * q);
	return exp(lc) / sqrt(2 * 3.14159265358979323846 * x * (1.0 - x / n));
}

double
bs_blocked_fpr(uint64_t m, double n, uint32_t k)
{
	double		B = (double) (m / BS_BLOCK_BITS),
				q,
				mean,
				sd,
				lo,
				hi,
				full,
				w,
				mass = 0.0,
				sum = 0.0,
				i;
	block_rate	br;

	if (!(n > 0.0) || B < 1.0 || k < 1)
		return 0.0;
	block_rate_init(&br, k);
	if (B == 1.0)
		return block_rate_at(&br, n);
	q = 1.0 / B;
	mean = n * q;
	sd = sqrt(n * q * (1.0 - q));
	lo = fmax(0.0, floor(mean - TAIL_SDS * sd - TAIL_SDS));
	hi = fmin(n, ceil(mean + TAIL_SDS * sd + TAIL_SDS));
	/* a block of FULL_THROWS / k keys or more is full (rate 1): at most that many terms */
	full = ceil((double) FULL_THROWS / k);
	if (lo >= full)
		return 1.0;
	/* binomial (n, 1/B) probabilities from lo up, by their ratios */
	w = dbinom(lo, n, q, 1.0 - q);
	for (i = lo; i <= hi && i < full; i += 1.0)
	{
		sum += w * block_rate_at(&br, i);
		mass += w;
		w *= (n - i) / (i + 1.0) * q / (1.0 - q);
	}
	if (hi >= full && mass < 1.0)
		sum += 1.0 - mass;		/* the blocks at least that full */
	return sum > 1.0 ? 1.0 : sum;
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
	if (k0 > BS_BLOCKED_MAX_HASHES)
		k0 = BS_BLOCKED_MAX_HASHES;
	best = (uint32_t) k0;
	fbest = bs_blocked_fpr(m, n, best);
	/* the rate is unimodal in k: walk down, then up, while it falls */
	for (k = best - 1; k >= 1 && (f = bs_blocked_fpr(m, n, k)) < fbest; k--)
	{
		best = k;
		fbest = f;
	}
	if (best == (uint32_t) k0)
		for (k = best + 1; k <= BS_BLOCKED_MAX_HASHES && (f = bs_blocked_fpr(m, n, k)) < fbest; k++)
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

void
bs_blocked_foldable(double n, double p, uint64_t *m, uint32_t *k)
{
	uint64_t	opt = 0;

	if (bs_blocked_optimal(n, p, &opt, k, NULL) != BS_OK)
	{
		/* not for bloom_agg: its 2^24 keys at a rate down to 2^-64 fit the limit */
		opt = BS_BLOCK_BITS;
		*k = 1;
	}
	*m = (opt / BS_BLOCK_BITS + BS_BLOCKED_FOLD_BASE - 1) / BS_BLOCKED_FOLD_BASE *
		BS_BLOCKED_FOLD_BASE * BS_BLOCK_BITS;
}

/*
 * Asking for the line PREFETCH_AHEAD keys early keeps that many misses in
 * flight.  Sorting the hashes first (they would then walk the blocks in
 * order) measured no faster for 1.2 MB to 12 MB filters.
 */
void
bs_blocked_add_prefetched(uint8_t *bits, uint64_t m, uint32_t k, const uint64_t *h, size_t n)
{
	size_t		i;

	for (i = 0; i < n; i++)
	{
		if (i + PREFETCH_AHEAD < n)
			bs_prefetch_write(bs_blocked_block(bits, m, h[i + PREFETCH_AHEAD]));
		bs_blocked_add_hash(bits, m, k, h[i]);
	}
}
