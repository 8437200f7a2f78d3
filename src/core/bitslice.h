/*
 * bitslice.h: filters stored transposed (bit slices), for the bloom_slices
 * index (src/bloom_slices*.c; BitFunnel, Goodwin et al. 2017; COBS, Bingmann
 * et al. 2019).  n filters of m bits each, as rows, become m slices of n
 * bits: bit r of slice j is bit j of row r, so a lookup of a key whose k bit
 * positions are p_1..p_k ANDs slices p_1..p_k and reads the rows that hold
 * the key off the bits left set.
 *
 * Rows are fbytes bytes each (bit j of a row is bits[j / 8] bit j % 8, as
 * bits.h stores a filter); a slice is sb bytes (sb >= ceil(n / 8)), bit r
 * at byte r / 8, bit r % 8.  Transposing works on 8 x 8 bit blocks (one
 * 64-bit word each), so a batch of rows is transposed in O(n m / 64).
 */
#ifndef BS_BITSLICE_H
#define BS_BITSLICE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Slices j = 0..m-1 of rows[0..n): slices[j * sb .. + sb), which the
 * caller has zeroed; bits of rows past m are ignored.
 */
void		bs_slices_from_rows(const uint8_t *rows, size_t n, size_t fbytes,
								uint64_t m, uint8_t *slices, size_t sb);

/* The inverse: rows[0..n) of fbytes bytes each (bits past m left 0). */
void		bs_rows_from_slices(const uint8_t *slices, size_t sb, uint64_t m,
								size_t n, uint8_t *rows, size_t fbytes);

/*
 * Bits src[0..nbits) ORed into dst at bits at .. at + nbits: how the slices
 * of several runs of rows are laid end to end into one slice.  dst must be
 * zero from bit at on; src bits past nbits are ignored.
 */
void		bs_bits_append(uint8_t *dst, uint64_t at, const uint8_t *src, uint64_t nbits);

/*
 * The bits r < n of src whose bit r of keep is set, in order, ORed into dst
 * from bit at on (zero from there): a slice without its dead rows.  Returns
 * the bits appended.
 */
uint64_t	bs_bits_append_kept(uint8_t *dst, uint64_t at, const uint8_t *src,
								const uint8_t *keep, uint64_t n);

#endif
