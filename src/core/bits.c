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
