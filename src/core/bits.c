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

#define RADIX_BITS (BS_RADIX_SORT_BITS / 2)
#define RADIX (1u << RADIX_BITS)

void
bs_radix_sort22(uint64_t *v, uint64_t *tmp, size_t n, unsigned shift)
{
	size_t		count[RADIX];
	uint64_t   *src = v,
			   *dst = tmp,
			   *t;
	unsigned	pass;

	for (pass = 0; pass < 2; pass++)
	{
		unsigned	sh = shift + pass * RADIX_BITS;
		size_t		i,
					sum = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i] >> sh) & (RADIX - 1)]++;
		for (i = 0; i < RADIX; i++)
		{
			size_t		c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i] >> sh) & (RADIX - 1)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	/* after an even number of passes the result is back in v */
}
