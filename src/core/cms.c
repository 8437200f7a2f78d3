#include "cms.h"

#include <inttypes.h>
#include <math.h>

#include "endian.h"

#define E 2.71828182845904523536

static inline uint8_t *
counter(const bs_cms *c, uint32_t row, uint64_t col)
{
	return c->counters + ((uint64_t) row * c->width + col) * 8;
}

bs_status
bs_cms_check_shape(uint64_t width, uint64_t depth, bs_error *err)
{
	if (depth < 1 || depth > BS_CMS_MAX_DEPTH)
		return bs_fail(err, BS_ERR_PARAM,
					   "a count-min sketch must have between 1 and %d rows (depth), got %" PRIu64,
					   BS_CMS_MAX_DEPTH, depth);
	if (width < 1)
		return bs_fail(err, BS_ERR_PARAM,
					   "a count-min sketch must have a width of at least 1, got %" PRIu64, width);
	if (width > (BS_MAX_SKETCH_BYTES - BS_HEADER_SIZE) / 8 / depth)
	{
		bs_fail(err, BS_ERR_LIMIT,
				"a count-min sketch of width %" PRIu64 " and depth %" PRIu64 " would take more than the limit of %" PRIu64 " bytes",
				width, depth, BS_MAX_SKETCH_BYTES);
		bs_error_detail(err, "That sketch would take about %.15g bytes. " BS_LIMIT_TEXT,
						(double) width * (double) depth * 8 + BS_HEADER_SIZE);
		bs_error_hint(err, "Use a smaller width or fewer rows (a larger epsilon or delta).");
		return BS_ERR_LIMIT;
	}
	return BS_OK;
}

bs_status
bs_cms_dims(double epsilon, double delta, uint64_t *width, uint32_t *depth,
			bs_error *err)
{
	double		w,
				d;

	if (!(epsilon > 0.0 && epsilon < 1.0))
		return bs_fail(err, BS_ERR_PARAM,
					   "epsilon must be between 0 and 1 (exclusive), got %s", bs_num(epsilon).s);
	if (!(delta > 0.0 && delta < 1.0))
		return bs_fail(err, BS_ERR_PARAM,
					   "delta must be between 0 and 1 (exclusive), got %s", bs_num(delta).s);
	w = ceil(E / epsilon);
	d = ceil(log(1.0 / delta));
	if (d < 1)
		d = 1;
	if (d > BS_CMS_MAX_DEPTH)
	{
		if (!isfinite(d))		/* a subnormal delta: 1/delta overflows */
			return bs_fail(err, BS_ERR_PARAM,
						   "delta %s would need more than the %d rows a count-min sketch may have",
						   bs_num(delta).s, BS_CMS_MAX_DEPTH);
		return bs_fail(err, BS_ERR_PARAM,
					   "delta %s would need %.0f rows, more than the %d a count-min sketch may have",
					   bs_num(delta).s, d, BS_CMS_MAX_DEPTH);
	}
	if (w * d * 8 > (double) (BS_MAX_SKETCH_BYTES - BS_HEADER_SIZE))
	{
		bs_fail(err, BS_ERR_LIMIT,
				"a count-min sketch for epsilon %s and delta %s would need a width of %.15g and %.0f rows, more than the size limit",
				bs_num(epsilon).s, bs_num(delta).s, w, d);
		bs_error_detail(err, "That sketch would take about %.15g bytes. " BS_LIMIT_TEXT,
						w * d * 8 + BS_HEADER_SIZE);
		bs_error_hint(err, "Ask for a larger epsilon.");
		return BS_ERR_LIMIT;
	}
	*width = (uint64_t) w;
	*depth = (uint32_t) d;
	return bs_cms_check_shape(*width, *depth, err);
}

bs_status
bs_cms_size(uint64_t width, uint32_t depth, uint64_t *total, bs_error *err)
{
	bs_status	st;

	if ((st = bs_cms_check_shape(width, depth, err)) != BS_OK)
		return st;
	return bs_total_size(width * depth * 8, "count-min sketch", total, err);
}

void
bs_cms_init(uint8_t *buf, uint64_t width, uint32_t depth, uint8_t family,
			uint64_t seed)
{
	bs_sketch_init(buf, BS_KIND_CMS, family, seed, width, depth, 0, width * depth * 8);
}

double
bs_cms_epsilon(uint64_t width)
{
	return E / (double) width;
}

double
bs_cms_delta(uint32_t depth)
{
	return exp(-(double) depth);
}

static bs_status
check_total(uint64_t a, uint64_t b, bs_error *err)
{
	if (b > BS_CMS_MAX_COUNT - a)
		return bs_fail(err, BS_ERR_LIMIT,
					   "count-min sketch total would pass %" PRIu64 " (%" PRIu64 " + %" PRIu64 ")",
					   BS_CMS_MAX_COUNT, a, b);
	return BS_OK;
}

bs_status
bs_cms_add_estimate(bs_cms *c, uint64_t h, uint64_t count, uint64_t *est, bs_error *err)
{
	uint64_t	best = UINT64_MAX;
	uint32_t	row;

	if (check_total(c->total, count, err) != BS_OK)
		return BS_ERR_LIMIT;
	for (row = 0; row < c->depth; row++)
	{
		uint8_t    *p = counter(c, row, bs_probe(h, row, c->width));
		uint64_t	v = bs_load64(p) + count;

		bs_store64(p, v);
		if (v < best)
			best = v;
	}
	c->total += count;
	bs_store64(c->buf + BS_OFF_N, c->total);
	*est = best;
	return BS_OK;
}

bs_status
bs_cms_add(bs_cms *c, uint64_t h, uint64_t count, bs_error *err)
{
	uint64_t	est;

	return bs_cms_add_estimate(c, h, count, &est, err);
}

uint64_t
bs_cms_frequency(const bs_cms *c, uint64_t h)
{
	uint64_t	best = UINT64_MAX;
	uint32_t	row;

	for (row = 0; row < c->depth; row++)
	{
		uint64_t	v = bs_load64(counter(c, row, bs_probe(h, row, c->width)));

		if (v < best)
			best = v;
	}
	return best;
}

static bs_status
check_mergeable(const bs_cms *a, const bs_cms *b, bs_error *err)
{
	if (a->width != b->width || a->depth != b->depth || a->seed != b->seed)
	{
		bs_fail(err, BS_ERR_SHAPE,
				"cannot combine count-min sketches of different shapes: width %" PRIu64 " and depth %u (seed %" PRIu64 ") and width %" PRIu64 " and depth %u (seed %" PRIu64 ")",
				a->width, a->depth, a->seed, b->width, b->depth, b->seed);
		bs_error_hint(err, "Combine sketches built with the same epsilon and delta, or the same width and depth.");
		return BS_ERR_SHAPE;
	}
	return bs_check_merge_families(a->family, b->family,
								   "cannot combine a count-min sketch of %s keys with one of %s keys",
								   err);
}

bs_status
bs_cms_merge(bs_cms *dst, const bs_cms *src, bs_error *err)
{
	uint64_t	i,
				cells;
	bs_status	st;

	if ((st = check_mergeable(dst, src, err)) != BS_OK ||
		(st = check_total(dst->total, src->total, err)) != BS_OK)
		return st;
	cells = dst->width * dst->depth;
	for (i = 0; i < cells; i++)
		bs_store64(dst->counters + i * 8,
				   bs_load64(dst->counters + i * 8) + bs_load64(src->counters + i * 8));
	dst->total += src->total;
	bs_store64(dst->buf + BS_OFF_N, dst->total);
	dst->family = bs_family_join(dst->family, src->family);
	dst->buf[BS_OFF_FAMILY] = dst->family;
	return BS_OK;
}

bs_status
bs_cms_subtract(bs_cms *dst, const bs_cms *src, bs_error *err)
{
	uint64_t	i,
				cells;
	bs_status	st;

	if ((st = check_mergeable(dst, src, err)) != BS_OK)
		return st;
	if (src->total > dst->total)
	{
		bs_fail(err, BS_ERR_PARAM,
				"cannot subtract a count-min sketch of total %" PRIu64 " from one of total %" PRIu64,
				src->total, dst->total);
		bs_error_hint(err, "Subtract the sketch of a part of the stream the first sketch counted.");
		return BS_ERR_PARAM;
	}
	/* Check every counter before changing any, so a refused call changes nothing. */
	cells = dst->width * dst->depth;
	for (i = 0; i < cells; i++)
	{
		uint64_t	a = bs_load64(dst->counters + i * 8),
					b = bs_load64(src->counters + i * 8);

		if (b > a)
		{
			bs_fail(err, BS_ERR_PARAM,
					"cannot subtract: counter %" PRIu64 " of row %" PRIu64 " would go below zero (%" PRIu64 " - %" PRIu64 ")",
					i % dst->width, i / dst->width, a, b);
			bs_error_detail(err, "The second sketch counts more in that cell than the first, so it did not count a part of the first one's stream.");
			bs_error_hint(err, "Subtract the sketch of a part of the stream the first sketch counted.");
			return BS_ERR_PARAM;
		}
	}
	/* Each row of both sums to its total, so each row of the difference sums to the new total. */
	for (i = 0; i < cells; i++)
		bs_store64(dst->counters + i * 8,
				   bs_load64(dst->counters + i * 8) - bs_load64(src->counters + i * 8));
	dst->total -= src->total;
	bs_store64(dst->buf + BS_OFF_N, dst->total);
	dst->family = bs_family_join(dst->family, src->family);
	dst->buf[BS_OFF_FAMILY] = dst->family;
	return BS_OK;
}

bs_status
bs_cms_inner_product(const bs_cms *a, const bs_cms *b, bs_u128 *out,
					 bs_error *err)
{
	bs_u128		best = {0, 0};
	uint32_t	row;
	bs_status	st;

	if ((st = check_mergeable(a, b, err)) != BS_OK)
		return st;
	for (row = 0; row < a->depth; row++)
	{
		bs_u128		sum = {0, 0};
		uint64_t	col;

		/* Each term is at most N_a N_b < 2^126 in all: no overflow. */
		for (col = 0; col < a->width; col++)
			sum = bs_u128_muladd(sum, bs_load64(counter(a, row, col)),
								 bs_load64(counter(b, row, col)));
		if (row == 0 || bs_u128_less(sum, best))
			best = sum;
	}
	*out = best;
	return BS_OK;
}

bs_status
bs_cms_check(const bs_header *h, const uint8_t *payload, uint64_t plen,
			 bool deep, bs_error *err)
{
	if (bs_cms_check_shape(h->p1, h->p2, NULL) != BS_OK)
		return bs_fail(err, BS_ERR_FORMAT,
					   "cms value has an invalid shape: width %" PRIu64 ", depth %u", h->p1, h->p2);
	if (h->p3 != 0 || h->x != 0)
		return bs_fail(err, BS_ERR_FORMAT, "cms value has nonzero reserved header fields");
	if (h->n > BS_CMS_MAX_COUNT)
		return bs_fail(err, BS_ERR_FORMAT, "cms value has a total past %" PRIu64, BS_CMS_MAX_COUNT);
	if (plen != h->p1 * h->p2 * 8)
		return bs_fail(err, BS_ERR_FORMAT,
					   "cms value of width %" PRIu64 " and depth %u must have %" PRIu64 " payload bytes, has %" PRIu64,
					   h->p1, h->p2, h->p1 * h->p2 * 8, plen);
	if (!deep)
		return BS_OK;
	return bs_cms_check_rows(payload, h->p1, h->p2, h->n, "cms", err);
}

bs_status
bs_cms_check_rows(const uint8_t *counters, uint64_t width, uint32_t depth,
				  uint64_t total, const char *kind, bs_error *err)
{
	uint64_t	row,
				col;

	/* Every row counts every added unit once: each row sums to the total. */
	for (row = 0; row < depth; row++)
	{
		uint64_t	sum = 0;

		for (col = 0; col < width; col++)
		{
			uint64_t	v = bs_load64(counters + (row * width + col) * 8);

			if (v > total - sum)
				return bs_fail(err, BS_ERR_FORMAT,
							   "%s value's counter row %" PRIu64 " counts more than its total %" PRIu64,
							   kind, row, total);
			sum += v;
		}
		if (sum != total)
			return bs_fail(err, BS_ERR_FORMAT,
						   "%s value's counter row %" PRIu64 " sums to %" PRIu64 ", not its total %" PRIu64,
						   kind, row, sum, total);
	}
	return BS_OK;
}
