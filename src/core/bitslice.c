/*
 * bitslice.c: rows to bit slices and back (bitslice.h).
 */
#include "bitslice.h"

#include <string.h>

/*
 * Transpose an 8 x 8 bit matrix held in a word, byte i being row i and bit
 * j of it column j (Warren, Hacker's Delight, 7-3): afterwards byte j holds
 * column j, bit i of it from row i.  Its own inverse.
 */
static inline uint64_t
transpose8(uint64_t x)
{
	uint64_t	t;

	t = (x ^ (x >> 7)) & UINT64_C(0x00AA00AA00AA00AA);
	x = x ^ t ^ (t << 7);
	t = (x ^ (x >> 14)) & UINT64_C(0x0000CCCC0000CCCC);
	x = x ^ t ^ (t << 14);
	t = (x ^ (x >> 28)) & UINT64_C(0x00000000F0F0F0F0);
	x = x ^ t ^ (t << 28);
	return x;
}

void
bs_slices_from_rows(const uint8_t *rows, size_t n, size_t fbytes, uint64_t m,
					uint8_t *slices, size_t sb)
{
	size_t		groups = (n + 7) / 8,
				g,
				b;

	for (g = 0; g < groups; g++)
	{
		const uint8_t *r = rows + g * 8 * fbytes;
		size_t		count = n - g * 8 < 8 ? n - g * 8 : 8;

		for (b = 0; b < fbytes; b++)
		{
			uint64_t	x = 0;
			size_t		i,
						t;

			for (i = 0; i < count; i++)
				x |= (uint64_t) r[i * fbytes + b] << (8 * i);
			if (x == 0)
				continue;
			x = transpose8(x);
			for (t = 0; t < 8; t++)
			{
				uint64_t	j = (uint64_t) b * 8 + t;

				if (j < m)
					slices[j * sb + g] = (uint8_t) (x >> (8 * t));
			}
		}
	}
}

void
bs_rows_from_slices(const uint8_t *slices, size_t sb, uint64_t m, size_t n,
					uint8_t *rows, size_t fbytes)
{
	size_t		groups = (n + 7) / 8,
				g,
				b;

	memset(rows, 0, n * fbytes);
	for (g = 0; g < groups; g++)
	{
		uint8_t    *r = rows + g * 8 * fbytes;
		size_t		count = n - g * 8 < 8 ? n - g * 8 : 8;

		for (b = 0; b < fbytes; b++)
		{
			uint64_t	x = 0;
			size_t		i,
						t;

			for (t = 0; t < 8; t++)
			{
				uint64_t	j = (uint64_t) b * 8 + t;

				if (j < m)
					x |= (uint64_t) slices[j * sb + g] << (8 * t);
			}
			if (x == 0)
				continue;
			x = transpose8(x);
			for (i = 0; i < count; i++)
				r[i * fbytes + b] = (uint8_t) (x >> (8 * i));
		}
	}
}

void
bs_bits_append(uint8_t *dst, uint64_t at, const uint8_t *src, uint64_t nbits)
{
	uint8_t    *d = dst + at / 8;
	unsigned	shift = (unsigned) (at % 8);
	uint64_t	whole = nbits / 8,
				i;
	unsigned	rest = (unsigned) (nbits % 8);

	if (shift == 0)
	{
		memcpy(d, src, whole);
		if (rest)
			d[whole] = (uint8_t) (src[whole] & ((1u << rest) - 1));
		return;
	}
	for (i = 0; i < whole; i++)
	{
		d[i] |= (uint8_t) (src[i] << shift);
		d[i + 1] = (uint8_t) (src[i] >> (8 - shift));
	}
	if (rest)
	{
		unsigned	v = src[whole] & ((1u << rest) - 1);

		d[whole] |= (uint8_t) (v << shift);
		if (shift + rest > 8)
			d[whole + 1] = (uint8_t) (v >> (8 - shift));
	}
}

uint64_t
bs_bits_append_kept(uint8_t *dst, uint64_t at, const uint8_t *src, const uint8_t *keep,
					uint64_t n)
{
	uint64_t	acc = 0,
				out = at,
				i;
	unsigned	accn = 0;
	uint8_t		b[4];

	for (i = 0; i < (n + 7) / 8; i++)
	{
		unsigned	m = keep[i],
					v = src[i],
					t;

		if (i == n / 8)
			m &= (1u << (n % 8)) - 1;
		if (m == 0xFF)
		{
			acc |= (uint64_t) v << accn;
			accn += 8;
		}
		else
			for (t = 0; t < 8; t++)
				if (m & (1u << t))
					acc |= (uint64_t) ((v >> t) & 1) << accn++;
		if (accn >= 32)
		{
			b[0] = (uint8_t) acc;
			b[1] = (uint8_t) (acc >> 8);
			b[2] = (uint8_t) (acc >> 16);
			b[3] = (uint8_t) (acc >> 24);
			bs_bits_append(dst, out, b, 32);
			out += 32;
			acc >>= 32;
			accn -= 32;
		}
	}
	if (accn > 0)
	{
		b[0] = (uint8_t) acc;
		b[1] = (uint8_t) (acc >> 8);
		b[2] = (uint8_t) (acc >> 16);
		b[3] = (uint8_t) (acc >> 24);
		bs_bits_append(dst, out, b, accn);
		out += accn;
	}
	return out - at;
}
