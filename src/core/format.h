/*
 * format.h: the versioned binary format shared by every sketch kind.
 *
 * A sketch is a 48-byte little-endian header followed by a kind-specific
 * payload (doc/format.md):
 *
 *   off size field
 *     0    4 magic "BSKT"
 *     4    1 format version (1; topk also 2)
 *     5    1 kind (bs_kind)
 *     6    1 hash algorithm (BS_HASH_XXH3_64)
 *     7    1 key family (bs_family)
 *     8    8 seed
 *    16    8 p1   kind parameter (bloom: bits m; cbloom: counters m; cms: width)
 *    24    4 p2   kind parameter (bloom: hashes k; cms: depth)
 *    28    4 p3   per kind (cbloom: counter bits; topk: k; bloom_agg_state: flags)
 *    32    8 n    kind counter (cms: total count N)
 *    40    8 x    kind parameter (aggregate state: target fpr as float8 bits)
 *    48      payload
 *
 * bs_validate() is the one routine that decides whether bytes from outside
 * (text input, binary receive, bytea cast) are a sketch of the expected
 * kind; it checks every length and parameter before anything reads the
 * payload.
 */
#ifndef BS_FORMAT_H
#define BS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define BS_MAGIC_0 'B'
#define BS_MAGIC_1 'S'
#define BS_MAGIC_2 'K'
#define BS_MAGIC_3 'T'
#define BS_FORMAT_VERSION 1
#define BS_HEADER_SIZE 48

/*
 * Largest sketch in bytes: 511 MiB, so that its text form (two hexadecimal
 * digits a byte) fits PostgreSQL's 1 GB limit with room for the other columns
 * of a COPY line.  pg_dump dumps through COPY's text form, so a larger value
 * could be stored but never backed up.
 */
#define BS_MAX_SKETCH_BYTES ((uint64_t) 511 * 1024 * 1024)
#define BS_LIMIT_TEXT "Sketches are limited to 511 MiB so that their text form fits PostgreSQL's 1 GB limit and pg_dump can dump them."

typedef enum bs_kind
{
	BS_KIND_BLOOM = 1,
	BS_KIND_BLOOM_AGG_STATE = 2,	/* bloom_agg transition state */
	BS_KIND_CMS = 3,			/* count-min sketch */
	BS_KIND_TOPK = 4,			/* heavy hitters: count-min plus candidates */
	BS_KIND_CBLOOM = 5			/* counting Bloom filter */
} bs_kind;

typedef struct bs_header
{
	uint8_t		version;
	uint8_t		kind;
	uint8_t		hash_alg;
	uint8_t		family;
	uint64_t	seed;
	uint64_t	p1;
	uint32_t	p2;
	uint32_t	p3;
	uint64_t	n;
	uint64_t	x;
} bs_header;

/* Byte offsets of the fields that per-row code reads and writes in place. */
#define BS_OFF_FAMILY 7
#define BS_OFF_SEED 8
#define BS_OFF_P1 16
#define BS_OFF_P2 24
#define BS_OFF_P3 28
#define BS_OFF_N 32
#define BS_OFF_X 40

/*
 * A sketch kind as the core knows it: its name, and the check of its payload
 * that bs_validate runs after the checks common to all kinds (header, hash
 * algorithm, family, length).  deep as for bs_validate.  The kinds are listed
 * in one table, core/kinds.c, the only core file that includes every kind's
 * header: a new kind is a row there.
 */
typedef bs_status (*bs_kind_check) (const bs_header *h, const uint8_t *payload,
									uint64_t plen, bool deep, bs_error *err);

typedef struct bs_kind_def
{
	const char *name;
	bs_kind_check check;
	int			max_version;	/* format versions 1 to this are read */
} bs_kind_def;

/* The definition of kind, or NULL for a value no kind has. */
const bs_kind_def *bs_kind_def_of(int kind);

/* Its name, or "unknown". */
const char *bs_kind_name(int kind);

void		bs_header_init(bs_header *h, bs_kind kind, uint8_t family, uint64_t seed);
void		bs_header_write(uint8_t *buf, const bs_header *h);

/*
 * A new sketch in buf: the header of kind with these parameters (n and x
 * zero), then payload_bytes zero bytes.  Every kind's init is this.
 */
void		bs_sketch_init(uint8_t *buf, bs_kind kind, uint8_t family, uint64_t seed,
						   uint64_t p1, uint32_t p2, uint32_t p3, uint64_t payload_bytes);

/* Decode a header without checking more than its length; for trusted bytes. */
void		bs_header_read(const uint8_t *buf, bs_header *h);

/*
 * Check that buf[0..len) is a complete, consistent sketch of the given kind.
 * On success fills *h (if not NULL).  deep = true also checks what needs a
 * pass over the payload (O(payload)); deep = false is O(1) and still proves
 * that every read the parameters imply stays inside buf.  Bytes from outside
 * get deep checks; values already stored get the quick one.
 */
bs_status	bs_validate(const uint8_t *buf, size_t len, bs_kind kind, bool deep,
						bs_header *h, bs_error *err);

/* Family bookkeeping shared by all kinds: NONE joins with anything. */
bool		bs_family_compatible(uint8_t a, uint8_t b);

/*
 * BS_ERR_FAMILY unless the key families a and b may be merged; msg is the
 * error's text, with a %s for each family's name (a's first).
 */
bs_status	bs_check_merge_families(uint8_t a, uint8_t b, const char *msg, bs_error *err);
uint8_t		bs_family_join(uint8_t a, uint8_t b);

/* Overflow-checked total = HEADER + payload; BS_ERR_LIMIT past BS_MAX_SKETCH_BYTES. */
bs_status	bs_total_size(uint64_t payload, const char *what, uint64_t *total,
						  bs_error *err);

/* Hex text form: "\x" followed by 2 lowercase hex digits per byte. */
size_t		bs_hex_encoded_len(size_t len);
void		bs_hex_encode(const uint8_t *buf, size_t len, char *out);

/* Decodes into out (capacity (strlen-2)/2); returns BS_ERR_FORMAT on bad text. */
bs_status	bs_hex_decode(const char *text, size_t textlen, uint8_t *out,
						  size_t *outlen, bs_error *err);

#endif
