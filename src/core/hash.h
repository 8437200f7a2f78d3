/*
 * hash.h: the canonical hash and the probe positions derived from it.
 *
 * A key's canonical bytes (made by the SQL glue, see doc/hashing.md) are
 * hashed once with XXH3-64 and a seed.  Every probe position of every sketch
 * kind is derived from that one 64-bit value by a fixed mixing sequence
 * (below), and reduced to [0, m) by a multiply-shift (Lemire), which needs
 * no division and has no modulo bias beyond 2^-64 per position.  Because
 * everything derives from the 64-bit hash, a client outside the database can
 * answer lookups from bloomsketch_hash() alone, and the auto-sizing
 * aggregate can keep hashes and place them once it knows the final size.
 */
#ifndef BS_HASH_H
#define BS_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "u128.h"				/* BS_HAVE_INT128 */

/* Hash algorithms (header byte 6). */
#define BS_HASH_XXH3_64 1

/* Seed of every sketch made by this version. */
#define BS_DEFAULT_SEED UINT64_C(0)

/* Key families (header byte 7): which canonical form the keys took. */
typedef enum bs_family
{
	BS_FAMILY_NONE = 0,			/* nothing added yet */
	BS_FAMILY_INTEGER = 1,		/* int2, int4, int8 as int64 LE */
	BS_FAMILY_TEXT = 2,			/* text, varchar, bpchar (trimmed), name */
	BS_FAMILY_BYTEA = 3,
	BS_FAMILY_UUID = 4,
	BS_FAMILY_FLOAT = 5,		/* float4, float8 as canonical float8 LE */
	BS_FAMILY_NUMERIC = 6,		/* normalised decimal text */
	BS_FAMILY_DATE = 7,			/* days since 2000-01-01 as int64 LE */
	BS_FAMILY_TIMESTAMP = 8,	/* microseconds since 2000-01-01 as int64 LE */
	BS_FAMILY_TIMESTAMPTZ = 9	/* the same, in UTC */
} bs_family;

#define BS_FAMILY_MAX BS_FAMILY_TIMESTAMPTZ

/*
 * What the core knows of a family (the table in hash.c): its name, and the
 * length of every canonical key of the family, or 0 when keys vary in length.
 * A new family is a value above and a row there, plus its SQL types and
 * canonical form in src/keys.c.
 */
typedef struct bs_family_def
{
	const char *name;
	uint32_t	key_bytes;
} bs_family_def;

/* The definition of family, or NULL for a value no family has. */
const bs_family_def *bs_family_def_of(int family);

/* Its name, or "unknown". */
const char *bs_family_name(int family);

/* Whether len bytes can be a canonical key of family (a known family). */
bool		bs_family_key_length_fits(int family, uint64_t len);

static inline uint64_t
bs_hash_bytes(const void *data, size_t len, uint64_t seed)
{
	return XXH3_64bits_withSeed(data, len, seed);
}

/* Map x uniformly onto [0, range) with a multiply-shift (no division). */
static inline uint64_t
bs_reduce(uint64_t x, uint64_t range)
{
#ifdef BS_HAVE_INT128
	return (uint64_t) (((unsigned __int128) x * range) >> 64);
#else
	return bs_u128_mul64_portable(x, range).hi;
#endif
}

/*
 * Probe positions of one hash: probe i (i = 0, 1, ...) is reduce(g_i, m)
 * where g_i is splitmix64's (i+1)-th output from state h:
 *     z = h + (i + 1) * 0x9E3779B97F4A7C15
 *     z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
 *     z = (z ^ (z >> 27)) * 0x94D049BB133111EB
 *     g_i = z ^ (z >> 31)                              (all mod 2^64)
 * (bs_splitmix gives g_i.)  The g_i do not depend on m, so a filter folds
 * exactly (bloom_agg_state.h), and, unlike double hashing read through the top bits, the k probes of a key
 * are independent: no key lands on a handful of bits whatever m is.  The k
 * values have no chain between them, so the CPU computes them in parallel.
 */
static inline uint64_t
bs_splitmix(uint64_t h, uint32_t i)
{
	uint64_t	z = h + (uint64_t) (i + 1) * UINT64_C(0x9E3779B97F4A7C15);

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static inline uint64_t
bs_probe(uint64_t h, uint32_t i, uint64_t range)
{
	return bs_reduce(bs_splitmix(h, i), range);
}

#endif
