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
	CHECK(bad == 0, "bit r of slice j is bit j of row r, and slices are 0 past the rows (300 random batches, %d bad bits)", bad);
	CHECK(back == 0, "slices back to rows give the rows (%d batches differ)", back);
	return unit_done("bitslice");
}
