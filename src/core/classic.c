#include "classic.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#define LN2 0.69314718055994530942

static bs_status
check_capacity_fpr(double n, double p, bs_error *err)
{
	if (!(n >= 1.0) || !isfinite(n))
		return bs_fail(err, BS_ERR_PARAM,
					   "capacity must be at least 1, got %s", bs_num(n).s);
	if (!(p > 0.0 && p < 1.0))
		return bs_fail(err, BS_ERR_PARAM,
					   "false-positive rate must be between 0 and 1 (exclusive), got %s", bs_num(p).s);
	return BS_OK;
}

bs_status
bs_bloom_check_shape(uint64_t m, uint64_t k, bs_error *err)
{
	if (m < 1 || m > BS_BLOOM_MAX_BITS)
	{
		bs_fail(err, m < 1 ? BS_ERR_PARAM : BS_ERR_LIMIT,
				"a bloom filter must have between 1 and %" PRIu64 " bits, got %" PRIu64,
				(uint64_t) BS_BLOOM_MAX_BITS, m);
		if (m > BS_BLOOM_MAX_BITS)
			bs_error_detail(err, "That filter would take %" PRIu64 " bytes. " BS_LIMIT_TEXT,
							bs_bloom_payload_bytes(m) + BS_HEADER_SIZE);
		return m < 1 ? BS_ERR_PARAM : BS_ERR_LIMIT;
	}
	if (k < 1 || k > BS_BLOOM_MAX_HASHES)
		return bs_fail(err, BS_ERR_PARAM,
					   "a bloom filter must have between 1 and %d hashes, got %" PRIu64,
					   BS_BLOOM_MAX_HASHES, k);
	return BS_OK;
}

bs_status
bs_bloom_optimal_bits(double n, double p, uint64_t *m, bs_error *err)
{
	double		bits;

	if (check_capacity_fpr(n, p, err) != BS_OK)
		return BS_ERR_PARAM;
	bits = ceil(-n * log(p) / (LN2 * LN2));
	if (bits > (double) BS_BLOOM_MAX_BITS)
	{
		bs_fail(err, BS_ERR_LIMIT,
				"a bloom filter for %.0f values at false-positive rate %s would need %.0f bits, more than the limit of %" PRIu64,
				n, bs_num(p).s, bits, (uint64_t) BS_BLOOM_MAX_BITS);
		bs_error_detail(err, "That filter would take about %.0f bytes. " BS_LIMIT_TEXT,
						bits / 8 + BS_HEADER_SIZE);
		bs_error_hint(err, "Ask for a smaller capacity or a larger false-positive rate, or split the set.");
		return BS_ERR_LIMIT;
	}
	*m = bits < 1 ? 1 : (uint64_t) bits;
	return BS_OK;
}

bs_status
bs_bloom_optimal_hashes(uint64_t m, double n, uint32_t *k, bs_error *err)
{
	double		kk;

	if (m < 1)
		return bs_fail(err, BS_ERR_PARAM, "bits must be at least 1, got %" PRIu64, m);
	if (!(n >= 1.0) || !isfinite(n))
		return bs_fail(err, BS_ERR_PARAM, "capacity must be at least 1, got %s", bs_num(n).s);
	kk = round((double) m / n * LN2);
	if (kk < 1)
		kk = 1;
	if (kk > BS_BLOOM_MAX_HASHES)
	{
		bs_fail(err, BS_ERR_PARAM,
				"%" PRIu64 " bits for %.0f values would need %.0f hashes, more than the %d a filter may have",
				m, n, kk, BS_BLOOM_MAX_HASHES);
		bs_error_hint(err, "Use fewer bits per value (a false-positive rate above 1e-19).");
		return BS_ERR_PARAM;
	}
	*k = (uint32_t) kk;
	return BS_OK;
}

double
bs_bloom_fpr_approx(double m, double n, double k)
{
	return pow(-expm1(-k * n / m), k);
}

bs_status
bs_bloom_fpr_exact(uint64_t m, uint64_t n, uint32_t k, double *work, double *out,
				   bs_error *err)
{
	/* P[i]: probability that exactly i distinct bits are set. */
	double	   *P = work;
	double		throws,
				width,
				fpr = 0.0;
	uint64_t	t,
				top,
				i;

	bs_status	st;

	if ((st = bs_bloom_check_shape(m, k, err)) != BS_OK)
		return st;
	throws = (double) n * k;
	width = throws < (double) m ? throws : (double) m;
	/* the second test follows from the first; it bounds work's use here */
	if (throws * width > BS_FPR_EXACT_MAX_WORK || width >= BS_FPR_EXACT_WORK_LEN)
	{
		bs_fail(err, BS_ERR_LIMIT,
				"the exact false-positive rate of %" PRIu64 " bits, %" PRIu64 " values and %u hashes needs %.0f steps, more than the limit of %.0f",
				m, n, k, throws * width, BS_FPR_EXACT_MAX_WORK);
		bs_error_hint(err, "Use bloom_fpr_estimate(); for large filters it agrees with the exact rate (Bose et al.).");
		return BS_ERR_LIMIT;
	}
	top = (uint64_t) width;
	P[0] = 1.0;
	for (i = 1; i <= top; i++)
		P[i] = 0.0;
	/* Each throw keeps i bits with probability i/m or sets a new one. */
	for (t = 1; t <= (uint64_t) throws; t++)
	{
		uint64_t	hi = t < top ? t : top;

		for (i = hi; i >= 1; i--)
			P[i] = P[i] * ((double) i / m) + P[i - 1] * ((double) (m - i + 1) / m);
		P[0] = 0.0;
	}
	for (i = 1; i <= top; i++)
		fpr += P[i] * pow((double) i / m, k);
	*out = fpr;
	return BS_OK;
}

double
bs_bloom_cardinality(uint64_t m, uint32_t k, uint64_t bits_set)
{
	if (bits_set >= m)
		return INFINITY;
	return -((double) m / k) * log1p(-(double) bits_set / m);
}

double
bs_bloom_fpr_from_fill(uint64_t m, uint32_t k, uint64_t bits_set)
{
	return pow((double) bits_set / m, k);
}

/*
 * Folding maps bit p of the M-bit filter to bit p / f (bloom_agg_state.h).
 * Fold factors up to FOLD_TABLE_MAX go an output byte at a time: its 8 f
 * source bits are f whole source bytes, and table[r][v] is what the r-th of
 * them, of value v, sets in it (source bit 8 r + i goes to output bit
 * (8 r + i) / f).  That is a lookup per source byte where walking the set
 * bits costs a division per bit; a dense bloom_agg state folds by more only
 * when it holds under a sixteenth of its capacity, so its bits are sparse.
 */
#define FOLD_TABLE_MAX 16

/*
 * Source bits [from, to) onto dst, from the set bits alone, a 64-bit word at
 * a time.  p / f is a multiply by ceil(2^64 / f) kept in the high word
 * (bs_reduce): exact, because p < 2^36 and f < 2^20 keep its error p / 2^64
 * below 1/f.
 */
static void
fold_set_bits(const uint8_t *src, uint64_t from, uint64_t to, uint64_t f, uint8_t *dst)
{
	uint64_t	inv = f > 1 ? UINT64_MAX / f + 1 : 0,
				p;

	for (p = from; p < to;)
	{
		uint64_t	i = p >> 3,
					w = 0,
					j;

		/* the (up to) 8 bytes from p's byte, without bits below p or from to on */
		for (j = 0; j < 8 && i * 8 + j * 8 < to; j++)
			w |= (uint64_t) src[i + j] << (8 * j);
		w &= UINT64_MAX << (p & 7);
		if (to - i * 8 < 64)
			w &= (UINT64_C(1) << (to - i * 8)) - 1;
		while (w != 0)
		{
			uint64_t	b = i * 8 + bs_lowest_bit(w),
						t = f > 1 ? bs_reduce(b, inv) : b;

			w &= w - 1;
			dst[t >> 3] |= (uint8_t) (1u << (t & 7));
		}
		p = i * 8 + 64;
	}
}

void
bs_bloom_fold(const uint8_t *src, uint64_t M, uint64_t f, uint8_t *dst)
{
	uint64_t	mm = M / f,
				full = mm / 8,
				o;
	uint8_t		table[FOLD_TABLE_MAX][256];
	unsigned	r,
				v,
				i;

	memset(dst, 0, bs_bloom_payload_bytes(mm));
	/* bits past mm f (M - M % f) have no place */
	if (f > FOLD_TABLE_MAX)
	{
		fold_set_bits(src, 0, mm * f, f, dst);
		return;
	}
	for (r = 0; r < f; r++)
		for (v = 0; v < 256; v++)
		{
			unsigned	t = 0;

			for (i = 0; i < 8; i++)
				if (v & (1u << i))
					t |= 1u << ((8 * r + i) / f);
			table[r][v] = (uint8_t) t;
		}
	for (o = 0; o < full; o++)
	{
		const uint8_t *s = src + o * f;
		unsigned	acc = 0;

		for (r = 0; r < f; r++)
			acc |= table[r][s[r]];
		dst[o] = (uint8_t) acc;
	}
	fold_set_bits(src, full * 8 * f, mm * f, f, dst);
}

uint32_t
bs_bloom_foldable_hashes(double p)
{
	double		k = round(-log2(p));

	if (k < 1)
		k = 1;
	if (k > BS_BLOOM_MAX_HASHES)
		k = BS_BLOOM_MAX_HASHES;
	return (uint32_t) k;
}

uint64_t
bs_bloom_foldable_bits(double n, double p, uint32_t k)
{
	double		need = ceil(-(double) k * n / log1p(-pow(p, 1.0 / k)));
	double		units = ceil(need / (double) BS_FOLD_BASE);

	return (uint64_t) units * BS_FOLD_BASE;
}

_Static_assert(BS_BLOOM_MAX_BITS <= (UINT64_C(1) << 32), "bit positions must fit in 32 bits");

/*
 * Sorting each batch's positions first, so that the bits were set in address
 * order, took twice as long for filters of 1.2 MB to 120 MB (4M keys into
 * 20 MB: 400-500 ms sorted, 190-260 ms prefetched; one by one 810-960 ms).
 * A ring keeps the positions of the keys asked for but not yet set.
 */
void
bs_bloom_add_prefetched(uint8_t *bits, uint64_t m, uint32_t k, const uint64_t *h, size_t n)
{
	uint32_t	ring[BS_BLOOM_PREFETCH_AHEAD + 1][BS_BLOOM_MAX_HASHES];
	size_t		i;
	uint32_t	j;

	if (k > BS_BLOOM_MAX_HASHES)
	{
		/* no filter that passes bs_bloom_check_shape: set its bits anyway */
		for (i = 0; i < n; i++)
			bs_bloom_add_hash(bits, m, k, h[i]);
		return;
	}
	for (i = 0; i < n + BS_BLOOM_PREFETCH_AHEAD; i++)
	{
		if (i >= BS_BLOOM_PREFETCH_AHEAD)
		{
			const uint32_t *pos = ring[(i - BS_BLOOM_PREFETCH_AHEAD) % (BS_BLOOM_PREFETCH_AHEAD + 1)];

			for (j = 0; j < k; j++)
				bits[pos[j] >> 3] |= (uint8_t) (1u << (pos[j] & 7));
		}
		if (i < n)
		{
			uint32_t   *pos = ring[i % (BS_BLOOM_PREFETCH_AHEAD + 1)];

			for (j = 0; j < k; j++)
			{
				pos[j] = (uint32_t) bs_probe(h[i], j, m);
				bs_prefetch_write(bits + (pos[j] >> 3));
			}
		}
	}
}
