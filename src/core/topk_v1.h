/*
 * topk_v1.h: format 1 of the topk kind, the heavy hitters that bloomsketch
 * 1.0 to 1.4 built (Count-Min estimates plus a bounded set of candidate
 * items, after Cormode and Muthukrishnan 2005, doc/bibliography.md).  Since
 * 1.5 the aggregates build format 2 (topk.h); values of format 1 keep their
 * bytes and answers: they are still read, merged with each other and added
 * to here.
 *
 * A topk value is a Count-Min sketch (cms.h: the same header fields, the same
 * counters) followed by up to 2k candidates, each the canonical key bytes of
 * an item with its last estimate.  A row adds to the sketch and reads the
 * item's estimate; the item enters the candidates when there is room or when
 * its estimate beats the smallest candidate's.  Because the sketch remembers
 * every count, an item that leaves the candidates and comes back returns with
 * its full estimate.  The k most frequent items are the k candidates with the
 * largest estimates; an item whose true count is the j-th largest is found as
 * long as the 2k candidates hold it (any item with a count above N / (2k)
 * plus the sketch's error eps N is held).
 *
 * Layout: header with p1 = width, p2 = depth, n = total N (as cms), p3 = k,
 * x = candidates (low 32 bits) | key bytes used (high 32 bits); payload: the
 * counters, then 2k candidate slots of 24 bytes {hash u64, estimate u64,
 * offset u32, length u32}, then the key bytes (any room left is the heap's
 * capacity).  The canonical form (bs_topk1_compact) has candidates sorted by
 * estimate (highest first, then hash), estimates read from the sketch, unused
 * slots zero, and no spare or stale key bytes.
 */
#ifndef BS_TOPK_V1_H
#define BS_TOPK_V1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "cms.h"
#include "format.h"
#include "topk.h"

#define BS_TOPK_SLOT 24

typedef struct bs_topk1
{
	bs_cms		cms;			/* buf, counters, width, depth, total, family, seed */
	uint32_t	k;
	uint32_t	cap;			/* 2k candidate slots */
	uint32_t	ncand;
	uint32_t	heap_used;
	uint64_t	heap_cap;
	uint8_t    *slots;
	uint8_t    *heap;
} bs_topk1;

/* One candidate, decoded. */
typedef struct bs_topk1_item
{
	uint64_t	hash;
	uint64_t	count;
	const uint8_t *key;
	uint32_t	len;
} bs_topk1_item;

bs_status	bs_topk1_size(uint64_t width, uint32_t depth, uint32_t k, uint64_t heap_cap,
						 uint64_t *total, bs_error *err);
void		bs_topk1_init(uint8_t *buf, uint64_t width, uint32_t depth, uint32_t k,
						 uint64_t heap_cap, uint8_t family, uint64_t seed);
void		bs_topk1_view(uint8_t *buf, size_t len, bs_topk1 *t);
void		bs_topk1_item_at(const bs_topk1 *t, uint32_t i, bs_topk1_item *it);

/*
 * Add count for the item with hash h and canonical bytes key[0..len) of the
 * given key family (the value takes the family if it had none).  On success
 * *buf is the value or a new buffer (*len updated) when the key bytes needed
 * room; on error nothing is changed.
 */
bs_status	bs_topk1_add(uint8_t **buf, size_t *len, uint64_t h, const uint8_t *key,
						uint32_t keylen, uint8_t family, uint64_t count,
						const bs_allocator *a, bs_error *err);

/* A new canonical value holding dst + src (neither changed) into *out, *outlen on success. */
bs_status	bs_topk1_merge(const uint8_t *dst, size_t dlen, const uint8_t *src,
						  size_t slen, const bs_allocator *a, uint8_t **out,
						  size_t *outlen, bs_error *err);

/* The canonical form of a value, in a new buffer. */
uint8_t    *bs_topk1_compact(const uint8_t *buf, size_t len, const bs_allocator *a,
							size_t *outlen);

/* The kind check of a format-1 value (bs_topk_check calls it). */
bs_status	bs_topk1_check(const bs_header *h, const uint8_t *payload,
						  uint64_t plen, bool deep, bs_error *err);

#endif
