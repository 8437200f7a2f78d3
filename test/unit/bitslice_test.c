/*
 * bitslice_test.c: rows to bit slices and back (src/core/bitslice.h),
 * against the definition, bit by bit.
 */
#include <string.h>

#include "core/bitslice.h"
#include "unit.h"

static int
bit(const uint8_t *p, uint64_t i)
{
	return (p[i >> 3] >> (i & 7)) & 1;
}

int
main(void)
{
	unit_rng	r = {11};
	int			bad = 0,
				back = 0,
				c;

	for (c = 0; c < 300; c++)
	{
		size_t		n = 1 + (size_t) unit_below(&r, 70),
					m = 1 + (size_t) unit_below(&r, 300),
					fbytes = (m + 7) / 8,
					sb = (n + 7) / 8 + (size_t) unit_below(&r, 3),
					i,
					j;
		uint8_t    *rows = calloc(n * fbytes, 1),
				   *slices = calloc(m * sb, 1),
				   *again = calloc(n * fbytes, 1);

		for (i = 0; i < n * fbytes; i++)
			rows[i] = (uint8_t) unit_next(&r);
		/* bits past m are not part of a filter */
		for (i = 0; i < n; i++)
			for (j = m; j < fbytes * 8; j++)
				rows[i * fbytes + j / 8] &= (uint8_t) ~(1u << (j % 8));
		bs_slices_from_rows(rows, n, fbytes, m, slices, sb);
		for (j = 0; j < m; j++)
		{
			for (i = 0; i < n; i++)
				if (bit(slices + j * sb, i) != bit(rows + i * fbytes, j))
					bad++;
			for (i = n; i < sb * 8; i++)
				if (bit(slices + j * sb, i))
					bad++;
		}
		bs_rows_from_slices(slices, sb, m, n, again, fbytes);
		if (memcmp(rows, again, n * fbytes) != 0)
			back++;
		free(rows);
		free(slices);
		free(again);
	}
	/* runs of any lengths laid end to end, against bit-by-bit copying */
	{
		int			wrong = 0;

		for (c = 0; c < 2000; c++)
		{
			uint8_t		dst[80],
						want[80],
						src[24];
			uint64_t	at = 0,
						i;
			int			runs = 1 + (int) unit_below(&r, 4),
						x;

			memset(dst, 0, sizeof(dst));
			memset(want, 0, sizeof(want));
			for (x = 0; x < runs; x++)
			{
				uint64_t	nbits = unit_below(&r, 150);

				for (i = 0; i < sizeof(src); i++)
					src[i] = (uint8_t) unit_next(&r);
				bs_bits_append(dst, at, src, nbits);
				for (i = 0; i < nbits; i++)
					if (bit(src, i))
						want[(at + i) / 8] |= (uint8_t) (1u << ((at + i) % 8));
				at += nbits;
			}
			if (memcmp(dst, want, sizeof(dst)) != 0)
				wrong++;
		}
		CHECK(wrong == 0, "bs_bits_append lays runs of 0-149 bits end to end at any bit offset, nothing past them (2,000 cases, %d wrong)", wrong);
	}
	/* the kept bits of a slice appended after other bits, against bit-by-bit copying */
	{
		int			wrong = 0;

		for (c = 0; c < 2000; c++)
		{
			uint8_t		dst[48],
						want[48],
						src[24],
						keep[24];
			uint64_t	at = unit_below(&r, 100),
						n = unit_below(&r, 190),
						got,
						i,
						w = 0;
			int			density = (int) unit_below(&r, 4);

			memset(dst, 0, sizeof(dst));
			memset(want, 0, sizeof(want));
			for (i = 0; i < sizeof(src); i++)
			{
				src[i] = (uint8_t) unit_next(&r);
				/* all kept, all dead, or mixed bytes */
				keep[i] = density == 0 ? 0xFF : density == 1 ? 0 : (uint8_t) unit_next(&r);
			}
			for (i = 0; i < at; i++)
				if (unit_next(&r) & 1)
					dst[i / 8] |= (uint8_t) (1u << (i % 8)), want[i / 8] |= (uint8_t) (1u << (i % 8));
			got = bs_bits_append_kept(dst, at, src, keep, n);
			for (i = 0; i < n; i++)
				if (bit(keep, i))
				{
					if (bit(src, i))
						want[(at + w) / 8] |= (uint8_t) (1u << ((at + w) % 8));
					w++;
				}
			if (got != w || memcmp(dst, want, sizeof(dst)) != 0)
				wrong++;
		}
		CHECK(wrong == 0, "bs_bits_append_kept appends exactly the kept bits of 0-189, in order, after 0-99 bits (2,000 cases, %d wrong)", wrong);
	}
	CHECK(bad == 0, "bit r of slice j is bit j of row r, and slices are 0 past the rows (300 random batches, %d bad bits)", bad);
	CHECK(back == 0, "slices back to rows give the rows (%d batches differ)", back);
	return unit_done("bitslice");
}
