/*
 * growable.h: the growable Bloom filter (Almeida, Baquero, Preguica and
 * Hutchison, "Scalable Bloom Filters", 2007; doc/bibliography.md): a list of
 * stages, each a plain filter (bloom.h) of its own shape.  When the last
 * stage holds its capacity of keys, the next new key opens a stage for
 * growth times as many keys at half the rate, so the expected rate stays
 * below the target for any number of keys; one filter's rate scatters a few
 * percent around its expectation (doc/accuracy.md, section 11).
 *
 * It is a bloom value whose header p3 has BS_BLOOM_GROWABLE set
 * (doc/format.md, section 3.1):
 *
 *   p1 = n0, capacity of stage 0        p2 = growth s
 *   p3 = 2 | layout of the stages       n  = number of stages S
 *   x  = target rate P (IEEE 754 binary64 bits)
 *
 * and its payload is a directory of S entries of 24 bytes
 *
 *   off size
 *     0    8 m_i, bits of stage i
 *     8    4 k_i, hashes of stage i
 *    12    4 reserved, 0
 *    16    8 c_i, keys counted into stage i
 *
 * followed by the bits of stage 0, 1, ..., S - 1, ceil(m_i / 8) bytes each.
 * Stage i is meant for n0 s^i keys at rate P 2^-(i+1); its shape is that of
 * bloom_empty(n0 s^i, P 2^-(i+1), layout) (bs_bloom_shape_for), but a reader
 * takes m_i and k_i from the directory and needs no sizing code.
 */
#ifndef BS_GROWABLE_H
#define BS_GROWABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "bloom.h"

/* The flag of header p3 that marks a growable bloom value; the low bit stays the stages' layout. */
#define BS_BLOOM_GROWABLE 2

#define BS_GROWABLE_MAX_STAGES 64
#define BS_GROWABLE_MAX_GROWTH 64
/* Largest stage capacity and key count: exact in a double. */
#define BS_GROWABLE_MAX_COUNT ((uint64_t) 1 << 53)
#define BS_GROWABLE_ENTRY_BYTES 24

/* A decoded growable filter pointing into a buffer, with a view of each stage. */
typedef struct bs_growable
{
	uint64_t	n0;
	uint32_t	growth;
	uint32_t	layout;			/* of the stages: BS_LAYOUT_CLASSIC or _BLOCKED */
	uint32_t	nstages;
	double		fpr;
	uint8_t		family;
	uint64_t	seed;
	uint8_t    *buf;
	uint64_t	len;			/* the whole sketch, header first */
	bs_bloom	stage[BS_GROWABLE_MAX_STAGES];
	uint64_t	count[BS_GROWABLE_MAX_STAGES];
} bs_growable;

/* "growth must be ..." unless 1 <= growth <= BS_GROWABLE_MAX_GROWTH. */
bs_status	bs_growable_check_growth(int64_t growth, bs_error *err);

/* Capacity n0 s^i and rate P 2^-(i+1) of stage i; BS_ERR_LIMIT past the limits. */
bs_status	bs_growable_stage_target(uint64_t n0, uint32_t growth, double fpr,
									 uint32_t i, uint64_t *capacity, double *p,
									 bs_error *err);

/* A new growable filter with its first stage, from a->alloc. */
bs_status	bs_growable_new(uint64_t n0, double fpr, uint32_t growth, uint32_t layout,
							uint8_t family, uint64_t seed, const bs_allocator *a,
							uint8_t **out, uint64_t *len, bs_error *err);

/* View trusted bytes (checked by bs_validate, or made here). */
void		bs_growable_view(uint8_t *buf, bs_growable *g);

/* Whether some stage holds h. */
bool		bs_growable_contains(const bs_growable *g, uint64_t h);

/*
 * Add h, in place: nothing when a stage already holds it, else into the last
 * stage, after opening a new stage (a new buffer from a->alloc; g then views
 * it) when the last one is full.  *grown tells whether g->buf is new.
 */
bs_status	bs_growable_add(bs_growable *g, uint64_t h, const bs_allocator *a,
							bool *grown, bs_error *err);

/* Why a and b cannot be merged, naming what differs; BS_OK when they can. */
bs_status	bs_growable_check_mergeable(const bs_growable *a, const bs_growable *b,
										bs_error *err);

/*
 * dst |= src stage by stage, in place; dst must have at least as many stages
 * (bs_growable_check_mergeable first).  A stage that both hold counts the
 * larger of the two counts and the estimate from its merged bits (rounded);
 * one that only one holds (the other's empty: no key, no bit) keeps its
 * count.  So a union of several filters has the same bytes whatever the
 * order of the merges.
 */
void		bs_growable_or(bs_growable *dst, const bs_growable *src);

/* Sums over the stages, and the compound rate 1 - prod(1 - rate_i), from each stage's fill. */
void		bs_growable_bits(const bs_growable *g, uint64_t *bits, uint64_t *bits_set);
double		bs_growable_cardinality(const bs_growable *g);
double		bs_growable_fpr(const bs_growable *g);

/* The kind check of a growable bloom value (from bs_bloom_check); O(stages). */
bs_status	bs_growable_check(const bs_header *h, const uint8_t *payload,
							  uint64_t plen, bs_error *err);

#endif
