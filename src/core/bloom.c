#include "bloom.h"

#include <inttypes.h>
#include <math.h>

#include "endian.h"
#include "growable.h"

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
bs_bloom_check_layout_shape(uint64_t m, uint64_t k, uint32_t layout, bs_error *err)
{
	bs_status	st;

	if ((st = bs_bloom_check_shape(m, k, err)) != BS_OK)
		return st;
	if (layout > BS_LAYOUT_MAX)
		return bs_fail(err, BS_ERR_PARAM, "unknown bloom filter layout %u", layout);
	if (layout == BS_LAYOUT_BLOCKED && m % BS_BLOCK_BITS != 0)
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
	bs_header	h;

	bs_header_init(&h, BS_KIND_BLOOM, family, seed);
	h.p1 = m;
	h.p2 = k;
	h.p3 = layout;
	bs_header_write(buf, &h);
	memset(buf + BS_HEADER_SIZE, 0, bs_bloom_payload_bytes(m));
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
	if (!bs_family_compatible(a->family, b->family))
		return bs_fail(err, BS_ERR_FAMILY,
					   "cannot merge a bloom filter of %s keys with a bloom filter of %s keys",
					   bs_family_name(a->family), bs_family_name(b->family));
	return BS_OK;
}

void
bs_bloom_or(bs_bloom *dst, const bs_bloom *src)
{
	uint64_t	i,
				nbytes = bs_bloom_payload_bytes(dst->m);

	for (i = 0; i < nbytes; i++)
		dst->bits[i] |= src->bits[i];
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

uint64_t
bs_popcount(const uint8_t *bytes, uint64_t nbytes)
{
	uint64_t	count = 0,
				i = 0;

	for (; i + 8 <= nbytes; i += 8)
	{
		uint64_t	w;

		memcpy(&w, bytes + i, 8);
		count += (uint64_t) __builtin_popcountll(w);
	}
	for (; i < nbytes; i++)
		count += (uint64_t) __builtin_popcount(bytes[i]);
	return count;
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

double
bs_bloom_cardinality_of(const bs_bloom *b)
{
	if (b->layout == BS_LAYOUT_BLOCKED)
		return bs_blocked_cardinality(b->bits, b->m, b->k);
	return bs_bloom_cardinality(b->m, b->k, bs_popcount(b->bits, bs_bloom_payload_bytes(b->m)));
}

double
bs_bloom_fpr_of(const bs_bloom *b)
{
	if (b->layout == BS_LAYOUT_BLOCKED)
		return bs_blocked_fpr_from_fill(b->bits, b->m, b->k);
	return bs_bloom_fpr_from_fill(b->m, b->k, bs_popcount(b->bits, bs_bloom_payload_bytes(b->m)));
}

/* Index of the lowest set bit of w != 0. */
static inline unsigned
lowest_bit(uint64_t w)
{
#if defined(__GNUC__) || defined(__clang__)
	return (unsigned) __builtin_ctzll(w);
#else
	unsigned	b = 0;

	while ((w & 1) == 0)
	{
		w >>= 1;
		b++;
	}
	return b;
#endif
}

/*
 * Folding maps bit p of the M-bit filter to bit p / f (builder.h), so the
 * folded filter is made from the set bits alone, a 64-bit word at a time.
 * p / f is a multiply by ceil(2^64 / f) kept in the high word (bs_reduce):
 * exact, because p < 2^36 and f < 2^20 keep its error p / 2^64 below 1/f.
 */
void
bs_bloom_fold(const uint8_t *src, uint64_t M, uint64_t f, uint8_t *dst)
{
	uint64_t	mm = M / f,
				nbytes = bs_bloom_payload_bytes(M),
				inv = f > 1 ? UINT64_MAX / f + 1 : 0,
				i;

	memset(dst, 0, bs_bloom_payload_bytes(mm));
	for (i = 0; i < nbytes; i += 8)
	{
		uint64_t	w = 0,
					j;

		for (j = 0; j < 8 && i + j < nbytes; j++)
			w |= (uint64_t) src[i + j] << (8 * j);
		while (w != 0)
		{
			uint64_t	p = i * 8 + lowest_bit(w),
						t = f > 1 ? bs_reduce(p, inv) : p;

			w &= w - 1;
			if (t < mm)			/* bits past M - M % f have no place */
				dst[t >> 3] |= (uint8_t) (1u << (t & 7));
		}
	}
}

bs_status
bs_bloom_check(const bs_header *h, const uint8_t *payload, uint64_t plen,
			   bool deep, bs_error *err)
{
	(void) deep;				/* a filter's checks are O(1), a growable one's O(stages) */
	if (h->p3 > (BS_LAYOUT_GROWABLE | BS_LAYOUT_MAX))
		return bs_fail(err, BS_ERR_FORMAT,
					   "bloom value has an unknown layout %u (0 classic, 1 blocked, 2 and 3 growable)",
					   h->p3);
	if (h->p3 & BS_LAYOUT_GROWABLE)
		return bs_growable_check(h, payload, plen, err);
	return bs_bloom_check_named(h, payload, plen, "bloom value", err);
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
	if (h->p3 == BS_LAYOUT_BLOCKED && h->p1 % BS_BLOCK_BITS != 0)
		return bs_fail(err, BS_ERR_FORMAT,
					   "blocked %s has %" PRIu64 " bits, not a multiple of the block size %d",
					   what, h->p1, BS_BLOCK_BITS);
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
