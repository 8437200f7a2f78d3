/*
 * bits.h: bit arrays as the Bloom filters store them: bit j is bit (j mod 8)
 * of byte j / 8 (doc/format.md), and the bytes they take; counting set bits.
 * The lowest layer of the Bloom filter (doc/architecture.md, section 2).
 */
#ifndef BS_BITS_H
#define BS_BITS_H

#include <stdint.h>

/* Bytes of m bits: ceil(m / 8). */
static inline uint64_t
bs_bloom_payload_bytes(uint64_t m)
{
	return m / 8 + (m % 8 != 0);
}

/* Set bits in bytes[0 .. nbytes). */
uint64_t	bs_popcount(const uint8_t *bytes, uint64_t nbytes);

/* Index of the lowest set bit of w != 0. */
static inline unsigned
bs_lowest_bit(uint64_t w)
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

#endif
