/*
 * endian.h: little-endian loads and stores at any alignment.
 *
 * The binary format is little-endian whatever the machine (doc/architecture.md,
 * section 2), and sketch payloads inside varlenas are not 8-byte aligned, so
 * every multi-byte field goes through memcpy (a single mov on x86-64).
 */
#ifndef BS_ENDIAN_H
#define BS_ENDIAN_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BS_BSWAP64(x) __builtin_bswap64(x)
#define BS_BSWAP32(x) __builtin_bswap32(x)
#else
#define BS_BSWAP64(x) (x)
#define BS_BSWAP32(x) (x)
#endif

static inline uint64_t
bs_load64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, sizeof(v));
	return BS_BSWAP64(v);
}

static inline uint32_t
bs_load32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, sizeof(v));
	return BS_BSWAP32(v);
}

static inline void
bs_store64(uint8_t *p, uint64_t v)
{
	v = BS_BSWAP64(v);
	memcpy(p, &v, sizeof(v));
}

static inline void
bs_store32(uint8_t *p, uint32_t v)
{
	v = BS_BSWAP32(v);
	memcpy(p, &v, sizeof(v));
}

/* A double's IEEE 754 binary64 bits and back (header fields that hold a rate). */
static inline double
bs_f64_from_bits(uint64_t x)
{
	double		d;

	memcpy(&d, &x, sizeof(d));
	return d;
}

static inline uint64_t
bs_bits_of_f64(double d)
{
	uint64_t	x;

	memcpy(&x, &d, sizeof(x));
	return x;
}

#endif
