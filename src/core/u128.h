/*
 * u128.h: unsigned 128-bit sums of 64-bit products, for the Count-Min inner
 * product (each term below 2^126 in all, cms.h).
 *
 * C has no 128-bit integer; GCC and Clang have unsigned __int128 on 64-bit
 * targets.  The core uses it (here and in bs_reduce() of hash.h) only where
 * the compiler defines __SIZEOF_INT128__ and BS_NO_INT128 is not defined,
 * and 64-bit words with carries elsewhere.  The portable functions are
 * compiled everywhere, so the unit tests compare them with the native ones.
 */
#ifndef BS_U128_H
#define BS_U128_H

#include <stdint.h>

#if defined(__SIZEOF_INT128__) && !defined(BS_NO_INT128)
#define BS_HAVE_INT128 1
#endif

typedef struct bs_u128
{
	uint64_t	hi;
	uint64_t	lo;
} bs_u128;

/* Decimal digits of the largest value, 2^128 - 1. */
#define BS_U128_DIGITS 39

/* a * b, on 32-bit halves (schoolbook). */
static inline bs_u128
bs_u128_mul64_portable(uint64_t a, uint64_t b)
{
	uint64_t	al = a & 0xffffffffu,
				ah = a >> 32,
				bl = b & 0xffffffffu,
				bh = b >> 32;
	uint64_t	ll = al * bl,
				lh = al * bh,
				hl = ah * bl,
				hh = ah * bh;
	/* at most 3 (2^32 - 1): no overflow */
	uint64_t	mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
	bs_u128		r;

	r.lo = (mid << 32) | (ll & 0xffffffffu);
	r.hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	return r;
}

/* acc + a * b, modulo 2^128 (as unsigned __int128 wraps). */
static inline bs_u128
bs_u128_muladd_portable(bs_u128 acc, uint64_t a, uint64_t b)
{
	bs_u128		p = bs_u128_mul64_portable(a, b);

	acc.lo += p.lo;
	acc.hi += p.hi + (acc.lo < p.lo);
	return acc;
}

static inline bs_u128
bs_u128_muladd(bs_u128 acc, uint64_t a, uint64_t b)
{
#ifdef BS_HAVE_INT128
	unsigned __int128 s = ((unsigned __int128) acc.hi << 64 | acc.lo) +
		(unsigned __int128) a * b;

	acc.hi = (uint64_t) (s >> 64);
	acc.lo = (uint64_t) s;
	return acc;
#else
	return bs_u128_muladd_portable(acc, a, b);
#endif
}

/* a < b */
static inline int
bs_u128_less(bs_u128 a, bs_u128 b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

/*
 * The decimal form of v, written to the end of buf (BS_U128_DIGITS + 1
 * bytes); returns where it starts.  Long division by 10 on 32-bit pieces:
 * each step divides a value below 10 * 2^32, so 64 bits suffice.
 */
static inline char *
bs_u128_text(bs_u128 v, char *buf)
{
	char	   *p = buf + BS_U128_DIGITS;

	*p = '\0';
	do
	{
		uint32_t	part[4] = {(uint32_t) (v.hi >> 32), (uint32_t) v.hi,
		(uint32_t) (v.lo >> 32), (uint32_t) v.lo};
		uint64_t	rem = 0;
		int			i;

		for (i = 0; i < 4; i++)
		{
			uint64_t	cur = (rem << 32) | part[i];

			part[i] = (uint32_t) (cur / 10);
			rem = cur % 10;
		}
		v.hi = ((uint64_t) part[0] << 32) | part[1];
		v.lo = ((uint64_t) part[2] << 32) | part[3];
		*--p = (char) ('0' + rem);
	} while (v.hi != 0 || v.lo != 0);
	return p;
}

#endif
