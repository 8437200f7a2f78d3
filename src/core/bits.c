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
#define RADIX_SORT22(T, v, tmp, n, shift) \
	do { \
		size_t		count_[2][RADIX]; \
		T		   *src_ = (v), \
				   *dst_ = (tmp), \
				   *t_; \
		size_t		i_; \
		unsigned	pass_; \
		memset(count_, 0, sizeof(count_)); \
		for (i_ = 0; i_ < (n); i_++) \
		{ \
			count_[0][(src_[i_] >> (shift)) & (RADIX - 1)]++; \
			count_[1][(src_[i_] >> ((shift) + RADIX_BITS)) & (RADIX - 1)]++; \
		} \
		for (pass_ = 0; pass_ < 2; pass_++) \
		{ \
			unsigned	sh_ = (shift) + pass_ * RADIX_BITS; \
			size_t	   *c_ = count_[pass_], \
						sum_ = 0; \
			for (i_ = 0; i_ < RADIX; i_++) \
			{ \
				size_t		x_ = c_[i_]; \
				c_[i_] = sum_; \
				sum_ += x_; \
			} \
			for (i_ = 0; i_ < (n); i_++) \
				dst_[c_[(src_[i_] >> sh_) & (RADIX - 1)]++] = src_[i_]; \
			t_ = src_; \
			src_ = dst_; \
			dst_ = t_; \
		} \
	} while (0)

void
bs_radix_sort22(uint64_t *v, uint64_t *tmp, size_t n, unsigned shift)
{
	RADIX_SORT22(uint64_t, v, tmp, n, shift);
}

void
bs_radix_sort22_32(uint32_t *v, uint32_t *tmp, size_t n, unsigned shift)
{
	RADIX_SORT22(uint32_t, v, tmp, n, shift);
}
