#include "bits.h"

#include <string.h>

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

void
bs_or_bytes(uint8_t *dst, const uint8_t *src, uint64_t nbytes)
{
	uint64_t	i = 0;

	for (; i + 8 <= nbytes; i += 8)
	{
		uint64_t	a,
					b;

		memcpy(&a, dst + i, 8);
		memcpy(&b, src + i, 8);
		a |= b;
		memcpy(dst + i, &a, 8);
	}
	for (; i < nbytes; i++)
		dst[i] |= src[i];
}

#define RADIX_BITS (BS_RADIX_SORT_BITS / 2)
#define RADIX (1u << RADIX_BITS)

/*
 * Both digits are counted in one read of v; then each pass moves the
 * values by its digit.  After the two passes the result is back in v.
 */
void
bs_radix_sort22(uint64_t *v, uint64_t *tmp, size_t n, unsigned shift)
{
	size_t		count[2][RADIX];
	uint64_t   *src = v,
			   *dst = tmp,
			   *t;
	size_t		i;
	unsigned	pass;

	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++)
	{
		count[0][(src[i] >> shift) & (RADIX - 1)]++;
		count[1][(src[i] >> (shift + RADIX_BITS)) & (RADIX - 1)]++;
	}
	for (pass = 0; pass < 2; pass++)
	{
		unsigned	sh = shift + pass * RADIX_BITS;
		size_t	   *c = count[pass],
					sum = 0;

		for (i = 0; i < RADIX; i++)
		{
			size_t		x = c[i];

			c[i] = sum;
			sum += x;
		}
		for (i = 0; i < n; i++)
			dst[c[(src[i] >> sh) & (RADIX - 1)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
}
