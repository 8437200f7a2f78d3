#include "bloom_value.h"

#include <string.h>

#include "endian.h"

bool
bs_bloom_is_growable(const uint8_t *buf)
{
	return (bs_load32(buf + BS_OFF_P3) & BS_BLOOM_GROWABLE) != 0;
}

uint32_t
bs_bloom_value_layout(const bs_header *h)
{
	return h->p3 & ~(uint32_t) BS_BLOOM_GROWABLE;
}

bs_status
bs_bloom_check(const bs_header *h, const uint8_t *payload, uint64_t plen,
			   bool deep, bs_error *err)
{
	(void) deep;				/* a filter's checks are O(1), a growable one's O(stages) */
	if (h->p3 > (BS_BLOOM_GROWABLE | BS_LAYOUT_MAX))
		return bs_fail(err, BS_ERR_FORMAT,
					   "bloom value has an unknown layout %u (0 classic, 1 blocked, 2 and 3 growable)",
					   h->p3);
	if (h->p3 & BS_BLOOM_GROWABLE)
		return bs_growable_check(h, payload, plen, err);
	return bs_bloom_check_named(h, payload, plen, "bloom value", err);
}

void
bs_bloom_value_view(uint8_t *buf, bs_bloom_value *v)
{
	v->growable = bs_bloom_is_growable(buf);
	v->buf = buf;
	if (v->growable)
	{
		bs_growable_view(buf, &v->grow);
		v->family = v->grow.family;
		v->seed = v->grow.seed;
	}
	else
	{
		bs_bloom_view(buf, &v->fixed);
		v->family = v->fixed.family;
		v->seed = v->fixed.seed;
	}
}

bs_status
bs_bloom_value_add(bs_bloom_value *v, uint64_t h, uint8_t family,
				   const bs_allocator *a, bs_error *err)
{
	if (v->growable)
	{
		uint8_t    *before = v->buf;
		bool		grown;
		bs_status	st;

		if ((st = bs_growable_add(&v->grow, h, a, &grown, err)) != BS_OK)
			return st;
		v->buf = v->grow.buf;
		if (grown && a->release)
			a->release(a->ctx, before);
	}
	else
		bs_bloom_add(&v->fixed, h);
	v->family = family;
	v->buf[BS_OFF_FAMILY] = family;
	return BS_OK;
}

/* A union of growable filters: in place when dst has as many stages as src, else into a copy of src. */
static bs_status
growable_union(bs_bloom_value *dst, uint8_t *src_buf, const bs_allocator *a, bs_error *err)
{
	bs_growable s;
	bs_status	st;

	bs_growable_view(src_buf, &s);
	if ((st = bs_growable_check_mergeable(&dst->grow, &s, err)) != BS_OK)
		return st;
	if (dst->grow.nstages < s.nstages)
	{
		uint8_t    *copy = a->alloc(a->ctx, (size_t) s.len);
		bs_growable mine = dst->grow;

		memcpy(copy, src_buf, s.len);
		bs_growable_view(copy, &dst->grow);
		bs_growable_or(&dst->grow, &mine);
	}
	else
		bs_growable_or(&dst->grow, &s);
	dst->buf = dst->grow.buf;
	dst->family = dst->grow.family;
	return BS_OK;
}

bs_status
bs_bloom_value_merge(bs_bloom_value *dst, uint8_t *src_buf, bool is_union,
					 const bs_allocator *a, bs_error *err)
{
	bool		src_growable = bs_bloom_is_growable(src_buf);
	bs_bloom	src;
	bs_status	st;

	if (dst->growable || src_growable)
	{
		if (!is_union)
		{
			bs_fail(err, BS_ERR_UNSUPPORTED,
					"the intersection of growable bloom filters is not defined");
			bs_error_detail(err, "A key's bits lie in one stage of each filter, and the two filters need not hold it in the same stage, so an intersection stage by stage would lose keys.");
			bs_error_hint(err, "Test membership in both instead: f1 @> x AND f2 @> x.");
			return BS_ERR_UNSUPPORTED;
		}
		if (!dst->growable || !src_growable)
		{
			bs_fail(err, BS_ERR_SHAPE, "cannot merge a growable bloom filter with a fixed one");
			bs_error_hint(err, "Growable filters merge only with filters made by the same bloom_empty(capacity, fpr, growth, layout) call.");
			return BS_ERR_SHAPE;
		}
		return growable_union(dst, src_buf, a, err);
	}
	bs_bloom_view(src_buf, &src);
	if ((st = bs_bloom_check_mergeable(&dst->fixed, &src, err)) != BS_OK)
		return st;
	if (is_union)
		bs_bloom_or(&dst->fixed, &src);
	else
		bs_bloom_and(&dst->fixed, &src);
	dst->family = dst->fixed.family;
	return BS_OK;
}

double
bs_bloom_value_cardinality(const bs_bloom_value *v)
{
	return v->growable ? bs_growable_cardinality(&v->grow) : bs_bloom_cardinality_of(&v->fixed);
}

double
bs_bloom_value_fpr(const bs_bloom_value *v)
{
	return v->growable ? bs_growable_fpr(&v->grow) : bs_bloom_fpr_of(&v->fixed);
}

void
bs_bloom_value_bits(const bs_bloom_value *v, uint64_t *bits, uint64_t *bits_set)
{
	if (v->growable)
		bs_growable_bits(&v->grow, bits, bits_set);
	else
	{
		*bits = v->fixed.m;
		*bits_set = bs_popcount(v->fixed.bits, bs_bloom_payload_bytes(v->fixed.m));
	}
}
