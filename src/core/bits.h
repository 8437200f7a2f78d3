/*
 * bits.h: bit arrays as the Bloom filters store them: bit j is bit (j mod 8)
 * of byte j / 8 (doc/format.md), and the bytes they take; counting set bits;
 * OR-ing arrays; sorting bit positions (or hashes) by their top bits.
 * The lowest layer of the Bloom filter (doc/architecture.md, section 2).
 */
#ifndef BS_BITS_H
#define BS_BITS_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of m bits: ceil(m / 8). */
static inline uint64_t
bs_bloom_payload_bytes(uint64_t m)
{
	return m / 8 + (m % 8 != 0);
}

/* Set bits in bytes[0 .. nbytes). */
uint64_t	bs_popcount(const uint8_t *bytes, uint64_t nbytes);

/* dst[i] |= src[i] for i < nbytes (a union of filters), a word at a time. */
void		bs_or_bytes(uint8_t *dst, const uint8_t *src, uint64_t nbytes);

/* The bits bs_radix_sort22 sorts by. */
#define BS_RADIX_SORT_BITS 22

/*
 * Sort v[0..n) by bits [shift, shift + 22) of each value, using tmp[0..n):
 * LSD radix, two 11-bit digits, so that a batch of hashes walks a table in
 * address order.
 */
void		bs_radix_sort22(uint64_t *v, uint64_t *tmp, size_t n, unsigned shift);

/* A hint that the line at p will be written soon (nothing where unsupported). */
static inline void
bs_prefetch_write(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(p, 1, 3);
#else
	(void) p;
#endif
}

/* A hint that the line at p will be read soon. */
static inline void
bs_prefetch_read(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(p, 0, 3);
#else
	(void) p;
#endif
}

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
