/*
 * vectors_test.c: the core against the test vectors of test/vectors/, which
 * were made by a live server (test/vectors/generate.py).
 *
 * hash.tsv: for every row, XXH3-64 of the canonical key bytes must be the
 * listed hash (unsigned and as bloomsketch_hash's signed bigint), and
 * bs_probe must give the listed probe positions in order, which are also
 * the bits bs_bloom_add_hash sets.
 *
 * sketches.txt: for every record, bs_validate must accept the server's bytes
 * (deep and quick), the core's own functions must build exactly those bytes
 * from the listed keys (following the record's build line, with its layout:
 * classic or blocked), and the server's sketch must hold every listed key.
 * There must be records of the blocked layout, of a bloom and of a state,
 * and growable filters (bloom_empty with a growth, then bloom_add key by key,
 * and bloom_union of two), built here with bs_growable_new, bs_growable_add
 * and bs_growable_or: of classic and blocked stages, one of 3 stages or
 * more, and a union.
 *
 * topk records are of two formats.  Those of build topk1_agg are format 1,
 * made by bloomsketch 1.4 and frozen (no server makes them any more): built
 * here with bs_topk1_init, bs_topk1_add and bs_topk1_compact.  The others
 * are format 2, built as the aggregates build them (bs_topk_params_for,
 * bs_topk_state_init, bs_topk_state_add, bs_topk_state_merge for
 * topk_union_agg, and bs_topk_state_write of the canonical form): of
 * topk_agg, topk_agg_weighted and topk_union_agg, and one with values
 * dropped (floor > 0) at least.  For every topk record, what a client reads
 * must be what the server read when the file was made: bs_topk_ranked gives
 * the record's items (the values, best first, with their estimates and
 * bounds), and bs_topk_lookup its bounds (of values held, dropped and never
 * added).
 *
 * The vectors are found, in this order, in $BS_VECTORS_DIR, in the directory
 * given as the first argument, next to this source file (test/unit/../vectors
 * from where the compiler ran), or in test/vectors or vectors in a parent
 * directory of the binary (test/unit/ or test/fuzz/bin/unit/), so the test
 * runs from any working directory.  Missing files are a failed check.
 */
#define _DEFAULT_SOURCE			/* readlink */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "core/bloom_value.h"
#include "core/bloom.h"
#include "core/bloom_agg_state.h"
#include "core/cbloom.h"
#include "core/cms.h"
#include "core/endian.h"
#include "core/format.h"
#include "core/growable.h"
#include "core/hash.h"
#include "core/topk.h"
#include "core/topk_v1.h"
#include "unit.h"

#define HASH_FILE "hash.tsv"
#define SKETCH_FILE "sketches.txt"
#define TOPK_INITIAL_KEY_BYTES 256	/* as src/topk.c; the canonical form does not depend on it */

/* ---------- small helpers ---------- */

static char *
read_all(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf = NULL;
	size_t		cap = 0,
				n = 0;

	if (f == NULL)
		return NULL;
	for (;;)
	{
		size_t		got;

		if (cap - n < 4096)
		{
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			if (buf == NULL)
				exit(2);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f))
	{
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static bool
readable(const char *dir)
{
	char		path[PATH_MAX + 32];
	FILE	   *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, HASH_FILE) >= (int) sizeof(path))
		return false;
	f = fopen(path, "rb");
	if (f == NULL)
		return false;
	fclose(f);
	return true;
}

/* The directory of the vector files, into buf; false if none is found. */
static bool
find_vectors(int argc, char **argv, char *buf, size_t buflen)
{
	const char *env = getenv("BS_VECTORS_DIR");
	char		exe[PATH_MAX];
	ssize_t		n;
	char	   *slash;

	if (env != NULL && *env != '\0')
	{
		snprintf(buf, buflen, "%s", env);
		return readable(buf);	/* an explicit choice is not second-guessed */
	}
	if (argc > 1)
	{
		snprintf(buf, buflen, "%s", argv[1]);
		return readable(buf);
	}
	/* next to this source file, as the compiler saw it */
	snprintf(buf, buflen, "%s", __FILE__);
	slash = strrchr(buf, '/');
	if (slash != NULL)
	{
		snprintf(slash, buflen - (size_t) (slash - buf), "/../vectors");
		if (readable(buf))
			return true;
	}
	else
	{
		snprintf(buf, buflen, "../vectors");
		if (readable(buf))
			return true;
	}
	/* upwards from the binary */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
	{
		if (argc < 1 || argv[0] == NULL || realpath(argv[0], exe) == NULL)
			return false;
	}
	else
		exe[n] = '\0';
	while ((slash = strrchr(exe, '/')) != NULL)
	{
		*slash = '\0';
		if (snprintf(buf, buflen, "%s/test/vectors", exe) < (int) buflen && readable(buf))
			return true;
		if (snprintf(buf, buflen, "%s/vectors", exe) < (int) buflen && readable(buf))
			return true;
	}
	return false;
}

/* Split s in place at each sep; returns the number of fields (at most max). */
static int
split(char *s, char sep, char **fields, int max)
{
	int			n = 0;

	for (;;)
	{
		char	   *e = strchr(s, sep);

		if (n == max)
			return max + 1;		/* too many */
		fields[n++] = s;
		if (e == NULL)
			return n;
		*e = '\0';
		s = e + 1;
	}
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex of length n into a new buffer (free it); "" (two quotes) is no bytes. */
static bool
hex_decode(const char *s, size_t n, uint8_t **out, size_t *outlen)
{
	size_t		i;

	*out = NULL;
	*outlen = 0;
	if (n == 2 && s[0] == '"' && s[1] == '"')
		n = 0;
	if (n % 2 != 0)
		return false;
	*out = unit_calloc(n / 2, 1);
	for (i = 0; i < n; i += 2)
	{
		int			hi = hexval(s[i]),
					lo = hexval(s[i + 1]);

		if (hi < 0 || lo < 0)
		{
			free(*out);
			*out = NULL;
			return false;
		}
		(*out)[i / 2] = (uint8_t) (hi << 4 | lo);
	}
	*outlen = n / 2;
	return true;
}

static bool
parse_u64(const char *s, int base, uint64_t *v)
{
	char	   *end;

	if (*s == '\0' || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno == 0 && *end == '\0';
}

static bool
parse_i64(const char *s, int64_t *v)
{
	char	   *end;

	if (*s == '\0' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0';
}

static bool
parse_double(const char *s, double *v)
{
	char	   *end;

	if (*s == '\0')
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return errno == 0 && *end == '\0';
}

/* "N name": the family number N, whose name must be name. */
static bool
parse_family(const char *s, int64_t *family)
{
	char		num[24];
	const char *sp = strchr(s, ' ');

	if (sp == NULL || (size_t) (sp - s) >= sizeof(num))
		return false;
	memcpy(num, s, (size_t) (sp - s));
	num[sp - s] = '\0';
	return parse_i64(num, family) && *family >= 0 && *family <= BS_FAMILY_MAX &&
		strcmp(sp + 1, bs_family_name((int) *family)) == 0;
}

static int
key_length_of(int family)
{
	switch (family)
	{
		case BS_FAMILY_INTEGER:
		case BS_FAMILY_FLOAT:
		case BS_FAMILY_DATE:
		case BS_FAMILY_TIMESTAMP:
		case BS_FAMILY_TIMESTAMPTZ:
			return 8;
		case BS_FAMILY_UUID:
			return 16;
	}
	return -1;
}

/* ---------- hash.tsv ---------- */

static void
test_hash_vectors(const char *dir)
{
	char		path[PATH_MAX + 32];
	size_t		len;
	char	   *text,
			   *line,
			   *next;
	int			lineno = 0,
				rows = 0,
				bad_rows = 0,
				bad_len = 0,
				family_rows[BS_FAMILY_MAX + 1] = {0},
				f;
	bool		header = false,
				all_families = true;

	snprintf(path, sizeof(path), "%s/%s", dir, HASH_FILE);
	text = read_all(path, &len);
	if (!CHECK(text != NULL, "hash vectors: %s is readable", path))
		return;

	for (line = text; line != NULL; line = next)
	{
		char	   *fields[10];
		int			nf;
		uint8_t    *key = NULL;
		size_t		keylen = 0;
		uint64_t	hash_u = 0,
					m = 0,
					k = 0,
					want[BS_BLOOM_MAX_HASHES];
		int64_t		hash_s = 0,
					family = -1;
		int			nprobes = 0;
		bool		ok;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		if (*line == '#' || *line == '\0')
			continue;
		if (strncmp(line, "type\t", 5) == 0)
		{
			header = true;
			continue;
		}
		rows++;
		nf = split(line, '\t', fields, 9);
		ok = nf == 9 &&
			parse_i64(fields[2], &family) && family >= 1 && family <= BS_FAMILY_MAX &&
			hex_decode(fields[3], strlen(fields[3]), &key, &keylen) &&
			parse_i64(fields[4], &hash_s) &&
			strlen(fields[5]) == 16 && parse_u64(fields[5], 16, &hash_u) &&
			parse_u64(fields[6], 10, &m) && m >= 1 &&
			parse_u64(fields[7], 10, &k) && k >= 1 && k <= BS_BLOOM_MAX_HASHES;
		if (ok)
		{
			char	   *probe_fields[BS_BLOOM_MAX_HASHES + 1];
			int			i;

			nprobes = split(fields[8], ',', probe_fields, BS_BLOOM_MAX_HASHES);
			for (i = 0; ok && i < nprobes && i < BS_BLOOM_MAX_HASHES; i++)
				ok = parse_u64(probe_fields[i], 10, &want[i]);
			ok = ok && nprobes == (int) k;
		}
		if (!ok)
		{
			bad_rows++;
			CHECK(false, "hash.tsv line %d is a row of 9 valid fields (%d fields)", lineno, nf);
			free(key);
			continue;
		}
		family_rows[family]++;
		if (key_length_of((int) family) >= 0 && (int) keylen != key_length_of((int) family))
			bad_len++;

		/* the hash: XXH3-64 of the key bytes, seed 0; SQL shows it signed */
		{
			uint64_t	got = bs_hash_bytes(key, keylen, 0);

			CHECK(got == hash_u && (uint64_t) hash_s == hash_u,
				  "hash.tsv line %d (%s %s): XXH3-64 of the %zu key bytes is %016" PRIx64 " = %" PRId64,
				  lineno, fields[0], fields[1], keylen, got, (int64_t) got);
		}

		/* the probes of the listed hash, in order, and the bits they set */
		{
			uint64_t	nbytes = bs_bloom_payload_bytes(m),
						setbits,
						distinct = 0;
			uint8_t    *bits = unit_calloc((size_t) nbytes, 1);
			int			i,
						j,
						first_bad = -1;
			bool		bits_ok;

			for (i = 0; i < (int) k; i++)
				if (bs_probe(hash_u, (uint32_t) i, m) != want[i] && first_bad < 0)
					first_bad = i;
			bs_bloom_add_hash(bits, m, (uint32_t) k, hash_u);
			setbits = bs_popcount(bits, nbytes);
			for (i = 0; i < (int) k; i++)
			{
				for (j = 0; j < i && want[j] != want[i]; j++)
					;
				distinct += j == i;
			}
			bits_ok = setbits == distinct &&
				bs_bloom_contains_hash(bits, m, (uint32_t) k, hash_u);
			for (i = 0; bits_ok && i < (int) k; i++)
				bits_ok = want[i] < m && (bits[want[i] >> 3] >> (want[i] & 7) & 1);
			CHECK(first_bad < 0 && bits_ok,
				  "hash.tsv line %d (%s %s): probes 0 to %d in [0, %" PRIu64 ") and the bits they set%s",
				  lineno, fields[0], fields[1], (int) k - 1, m,
				  first_bad >= 0 ? " (a probe differs)" : bits_ok ? "" : " (other bits set)");
			if (first_bad >= 0)
				printf("#   probe %d is %" PRIu64 ", the file says %" PRIu64 "\n", first_bad,
					   bs_probe(hash_u, (uint32_t) first_bad, m), want[first_bad]);
			free(bits);
		}
		free(key);
	}
	free(text);

	for (f = 1; f <= BS_FAMILY_MAX; f++)
		all_families = all_families && family_rows[f] > 0;
	CHECK(header && rows >= 50 && bad_rows == 0 && all_families,
		  "hash.tsv: header and %d rows (at least 50), every key family 1 to %d present", rows,
		  BS_FAMILY_MAX);
	CHECK(bad_len == 0,
		  "hash.tsv: integer, float, date and timestamp keys have 8 bytes, uuid keys 16 (%d do not)",
		  bad_len);
}

/* ---------- sketches.txt ---------- */

/* Records of the blocked layout (a bloom of p3 = 1, a state with flag 0x10), by kind. */
static int	blocked_seen[BS_KIND_CBLOOM + 1];

/* Growable records by stage layout, of 3 stages or more, and unions. */
static int	growable_seen[BS_LAYOUT_MAX + 1];
static int	growable_3_stages;
static int	growable_unions;

/* topk records by format; format-2 records with floor > 0, weighted, unions. */
static int	topk_seen[BS_TOPK_FORMAT + 1];
static int	topk_frozen_v1;
static int	topk_dropped;
static int	topk_weighted;
static int	topk_unions;

typedef struct op
{
	bool		remove;
	uint8_t    *key;
	size_t		len;
	uint64_t	count;
	uint64_t	hash;
} op;

typedef struct record
{
	int			line;
	const char *name,
			   *kind,
			   *build,
			   *family,
			   *keys,
			   *bytes,
			   *hex,
			   *items,
			   *bounds;
} record;

/* A value's counts as a topk record lists them: key bytes, estimate, bounds. */
typedef struct counts
{
	uint8_t    *key;
	size_t		len;
	uint64_t	estimate;
	uint64_t	lower;
	uint64_t	upper;
} counts;

static int
kind_of(const char *s)
{
	int			k;

	for (k = BS_KIND_BLOOM; k <= BS_KIND_CBLOOM; k++)
		if (strcmp(s, bs_kind_name(k)) == 0)
			return k;
	return 0;
}

/* Parse "HEX", "HEX*N", "-HEX" tokens; returns the count or -1. */
static int
parse_ops(const char *keys, op **out)
{
	char	   *copy,
			   *tok,
			   *save = NULL;
	int			n = 0,
				cap = 16;
	op		   *ops = unit_calloc((size_t) cap, sizeof(op));

	*out = ops;
	if (strcmp(keys, "(none)") == 0)
		return 0;
	copy = unit_calloc(strlen(keys) + 1, 1);
	memcpy(copy, keys, strlen(keys));
	for (tok = strtok_r(copy, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save))
	{
		op		   *o;
		char	   *star;

		if (n == cap)
		{
			ops = realloc(ops, (size_t) cap * 2 * sizeof(op));
			if (ops == NULL)
				exit(2);
			memset(ops + cap, 0, (size_t) cap * sizeof(op));
			cap *= 2;
			*out = ops;
		}
		o = &ops[n];
		o->count = 1;
		if (*tok == '-')
		{
			o->remove = true;
			tok++;
		}
		star = strchr(tok, '*');
		if (star != NULL)
		{
			*star = '\0';
			if (!parse_u64(star + 1, 10, &o->count) || o->count == 0)
				goto bad;
		}
		if (*tok == '\0' || !hex_decode(tok, strlen(tok), &o->key, &o->len))
			goto bad;
		o->hash = bs_hash_bytes(o->key, o->len, 0);
		n++;
	}
	free(copy);
	return n;
bad:
	free(copy);
	for (cap = 0; cap < n; cap++)
		free(ops[cap].key);
	n = 0;
	return -1;
}

static void
free_ops(op *ops, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		free(ops[i].key);
	free(ops);
}

static void
free_counts(counts *c, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		free(c[i].key);
	free(c);
}

/* Parse "HEX:ESTIMATE:LOWER:UPPER" tokens ("(none)": none); returns the count or -1. */
static int
parse_counts(const char *field, counts **out)
{
	char	   *copy,
			   *tok,
			   *save = NULL;
	int			n = 0,
				cap = 16;
	counts	   *c = unit_calloc((size_t) cap, sizeof(counts));

	*out = c;
	if (strcmp(field, "(none)") == 0)
		return 0;
	copy = unit_calloc(strlen(field) + 1, 1);
	memcpy(copy, field, strlen(field));
	for (tok = strtok_r(copy, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save))
	{
		char	   *parts[5];

		if (n == cap)
		{
			c = realloc(c, (size_t) cap * 2 * sizeof(counts));
			if (c == NULL)
				exit(2);
			memset(c + cap, 0, (size_t) cap * sizeof(counts));
			cap *= 2;
			*out = c;
		}
		if (split(tok, ':', parts, 4) != 4 ||
			!hex_decode(parts[0], strlen(parts[0]), &c[n].key, &c[n].len) ||
			!parse_u64(parts[1], 10, &c[n].estimate) ||
			!parse_u64(parts[2], 10, &c[n].lower) ||
			!parse_u64(parts[3], 10, &c[n].upper))
		{
			free(copy);
			free_counts(c, n + 1);
			*out = NULL;
			return -1;
		}
		n++;
	}
	free(copy);
	return n;
}

/*
 * A format-2 topk as the aggregates make it, from build line fn K EPSILON
 * DELTA [SPLIT]: topk_agg adds a key's rows one by one (HEX*N: N rows),
 * topk_agg_weighted adds a key once with its weight N; every sketch is
 * finished in the canonical form (topk_final).  topk_union_agg is the union
 * of the topk_agg sketch of the first SPLIT keys and that of the others, in
 * that order: topk_merge_trans loads the first and merges the second into it.
 */
static uint8_t *
build_topk(const char *fn, const double *d, int nargs, uint8_t family, const op *ops,
		   int nops, const bs_allocator *a, size_t *outlen, char *why, size_t whylen)
{
	bool		weighted = strcmp(fn, "topk_agg_weighted") == 0,
				is_union = strcmp(fn, "topk_union_agg") == 0;
	int			split = nops,
				side,
				i;
	uint64_t	c;
	uint8_t    *sides[2] = {NULL, NULL};
	size_t		lens[2] = {0, 0};
	bs_topk_params p;
	bs_topk_state st;
	bs_error	err;

	if (nargs != (is_union ? 4 : 3))
	{
		snprintf(why, whylen, "%s takes %d arguments", fn, is_union ? 4 : 3);
		return NULL;
	}
	if (is_union)
	{
		split = (int) d[3];
		if (d[3] != split || split < 0 || split > nops)
		{
			snprintf(why, whylen, "topk_union_agg splits %d keys at %g", nops, d[3]);
			return NULL;
		}
	}
	if (bs_topk_params_for((int64_t) d[0], d[1], d[2], &p, &err) != BS_OK)
	{
		snprintf(why, whylen, "bs_topk_params_for: %s", err.msg);
		return NULL;
	}
	/* side 0 the first split keys, side 1 the others (a union's second sketch) */
	for (side = 0; side < (is_union ? 2 : 1); side++)
	{
		int			lo = side == 0 ? 0 : split,
					hi = side == 0 ? split : nops;

		if (bs_topk_state_init(&st, &p, family, BS_DEFAULT_SEED, a, &err) != BS_OK)
		{
			snprintf(why, whylen, "bs_topk_state_init: %s", err.msg);
			return NULL;
		}
		for (i = lo; i < hi; i++)
			for (c = 0; c < (weighted ? 1 : ops[i].count); c++)
				if (bs_topk_state_add(&st, ops[i].hash, ops[i].key, (uint32_t) ops[i].len, family,
									  weighted ? ops[i].count : 1, &err) != BS_OK)
				{
					snprintf(why, whylen, "bs_topk_state_add: %s", err.msg);
					return NULL;
				}
		sides[side] = bs_topk_state_write(&st, true, a, &lens[side]);
	}
	if (!is_union)
	{
		*outlen = lens[0];
		return sides[0];
	}
	bs_topk_state_load(&st, sides[0], lens[0], a);
	if (bs_topk_state_merge(&st, sides[1], lens[1], &err) != BS_OK)
	{
		snprintf(why, whylen, "bs_topk_state_merge: %s", err.msg);
		return NULL;
	}
	return bs_topk_state_write(&st, true, a, outlen);
}

/*
 * Build the record's sketch with the core.  Returns the bytes (in the arena)
 * and their length, or NULL with a reason in why.
 */
static uint8_t *
build(const record *r, int kind, uint8_t family, const op *ops, int nops,
	  const bs_allocator *a, size_t *outlen, char *why, size_t whylen)
{
	char		copy[256];
	char	   *argv[8];
	int			argc,
				i;
	double		d[4] = {0};
	bs_error	err;
	bs_status	st = BS_OK;
	uint64_t	c;
	uint32_t	layout = BS_LAYOUT_CLASSIC;
	const char *fn;

	snprintf(copy, sizeof(copy), "%s", r->build);
	argc = split(copy, ' ', argv, 7);
	if (argc > 7)
	{
		snprintf(why, whylen, "build line has too many words");
		return NULL;
	}
	/* a bloom or bloom_agg form may end with its layout: "bloom_empty_bits 512 3 blocked" */
	if (argc > 1 && bs_layout_parse(argv[argc - 1], strlen(argv[argc - 1]), &layout, NULL) == BS_OK)
	{
		if (strncmp(argv[0], "bloom_", 6) != 0)
		{
			snprintf(why, whylen, "only a bloom or bloom_agg build line names a layout");
			return NULL;
		}
		argc--;
	}
	for (i = 1; i < argc; i++)
		if (!parse_double(argv[i], &d[i - 1]))
		{
			snprintf(why, whylen, "build argument %d (%s) is not a number", i, argv[i]);
			return NULL;
		}
	fn = argv[0];
	for (i = 0; i < nops; i++)
		if (ops[i].remove && kind != BS_KIND_CBLOOM)
		{
			snprintf(why, whylen, "only a cbloom removes keys");
			return NULL;
		}

#define NEED_ARGS(n) \
	do { if (argc != (n) + 1) { snprintf(why, whylen, "%s takes %d arguments", fn, (n)); return NULL; } } while (0)
#define TRY(call) \
	do { if ((st = (call)) != BS_OK) { snprintf(why, whylen, "%s: %s", fn, err.msg); return NULL; } } while (0)

	/* growable: bloom_empty CAPACITY FPR GROWTH, bloom_union CAPACITY FPR GROWTH SPLIT */
	if ((strcmp(fn, "bloom_empty") == 0 && argc == 4) || strcmp(fn, "bloom_union") == 0)
	{
		bool		is_union = fn[6] == 'u';
		int			split = nops,
					side;
		bs_growable *g = unit_calloc(2, sizeof(bs_growable));
		uint8_t    *out;

		NEED_ARGS(is_union ? 4 : 3);
		if (kind != BS_KIND_BLOOM)
			goto wrong_kind;
		if (is_union)
		{
			split = (int) d[3];
			if (d[3] != split || split < 0 || split > nops)
			{
				free(g);
				snprintf(why, whylen, "bloom_union splits %d keys at %g", nops, d[3]);
				return NULL;
			}
		}
		/* side 0 the first split keys, side 1 the rest (a union's second filter) */
		for (side = 0; side < (is_union ? 2 : 1); side++)
		{
			uint8_t    *buf;
			uint64_t	len;
			bool		grown;
			int			lo = side == 0 ? 0 : split,
						hi = side == 0 ? split : nops;

			/* bloom_empty has no family; bloom_add gives it the keys' */
			if ((st = bs_growable_new((uint64_t) d[0], d[1], (uint32_t) d[2], layout,
									  hi > lo ? family : BS_FAMILY_NONE, BS_DEFAULT_SEED, a,
									  &buf, &len, &err)) != BS_OK)
			{
				free(g);
				snprintf(why, whylen, "%s: %s", fn, err.msg);
				return NULL;
			}
			bs_growable_view(buf, &g[side]);
			for (i = lo; i < hi; i++)
				if ((st = bs_growable_add(&g[side], ops[i].hash, a, &grown, &err)) != BS_OK)
				{
					free(g);
					snprintf(why, whylen, "bs_growable_add: %s", err.msg);
					return NULL;
				}
		}
		if (is_union)
		{
			/* as src/bloom.c: into a copy of the side with more stages */
			int			dst = g[0].nstages >= g[1].nstages ? 0 : 1;

			if ((st = bs_growable_check_mergeable(&g[0], &g[1], &err)) != BS_OK)
			{
				free(g);
				snprintf(why, whylen, "bs_growable_check_mergeable: %s", err.msg);
				return NULL;
			}
			bs_growable_or(&g[dst], &g[1 - dst]);
			g[0] = g[dst];
			growable_unions++;
		}
		out = g[0].buf;
		*outlen = (size_t) g[0].len;
		free(g);
		return out;
	}
	if (strcmp(fn, "bloom_empty_bits") == 0 || strcmp(fn, "bloom_empty") == 0)
	{
		uint64_t	m,
					total;
		uint32_t	k;
		uint8_t    *buf;
		bs_bloom	b;

		NEED_ARGS(2);
		if (kind != BS_KIND_BLOOM)
			goto wrong_kind;
		if (strcmp(fn, "bloom_empty_bits") == 0)
		{
			m = (uint64_t) d[0];
			k = (uint32_t) d[1];
			TRY(bs_bloom_check_layout_shape(m, k, layout, &err));
		}
		else
			TRY(bs_bloom_shape_for(d[0], d[1], layout, &m, &k, &err));
		TRY(bs_bloom_size(m, &total, &err));
		buf = a->alloc(a->ctx, (size_t) total);
		bs_bloom_init_layout(buf, m, k, layout, family, BS_DEFAULT_SEED);
		bs_bloom_view(buf, &b);
		for (i = 0; i < nops; i++)
			bs_bloom_add(&b, ops[i].hash);
		*outlen = (size_t) total;
		return buf;
	}
	if (strcmp(fn, "bloom_agg") == 0 || strcmp(fn, "bloom_agg_state") == 0 ||
		strcmp(fn, "cbloom_agg") == 0 || strcmp(fn, "cbloom_agg_state") == 0)
	{
		bool		counting = fn[0] == 'c',
					state_only = strstr(fn, "_state") != NULL;
		uint8_t    *s;
		uint64_t	m,
					total;
		uint32_t	k;
		uint8_t    *out;

		if (state_only ? kind != BS_KIND_BLOOM_AGG_STATE
			: kind != (counting ? BS_KIND_CBLOOM : BS_KIND_BLOOM))
			goto wrong_kind;
		if (counting && layout != BS_LAYOUT_CLASSIC)
		{
			snprintf(why, whylen, "a counting state has no layout");
			return NULL;
		}
		if (argc == 3 && !counting)
		{
			TRY(bs_bloom_shape_for(d[0], d[1], layout, &m, &k, &err));
			TRY(bs_bloom_agg_state_new_fixed_shape(d[0], d[1], layout, m, k, family, BS_DEFAULT_SEED,
										   a, &s, &err));
		}
		else
		{
			NEED_ARGS(1);
			if (counting)
				TRY(bs_bloom_agg_state_new_counting(d[0], family, BS_DEFAULT_SEED, a, &s, &err));
			else
				TRY(bs_bloom_agg_state_new_auto_layout(d[0], layout, family, BS_DEFAULT_SEED, a, &s, &err));
		}
		for (i = 0; i < nops; i++)
			for (c = 0; c < ops[i].count; c++)
				if (bs_bloom_agg_state_add(&s, ops[i].hash, a, NULL) != BS_OK)
				{
					snprintf(why, whylen, "bs_bloom_agg_state_add failed");
					return NULL;
				}
		if (state_only)
		{
			*outlen = bs_bloom_agg_state_size(s);
			return s;
		}
		bs_bloom_agg_state_result_shape(s, &m, &k, NULL);
		if (counting)
		{
			TRY(bs_cbloom_size(m, BS_CBLOOM_DEFAULT_BITS, &total, &err));
			out = a->alloc(a->ctx, (size_t) total);
			bs_bloom_agg_state_finish_counting(s, m, k, BS_CBLOOM_DEFAULT_BITS, out);
		}
		else
		{
			TRY(bs_bloom_size(m, &total, &err));
			out = a->alloc(a->ctx, (size_t) total);
			bs_bloom_agg_state_finish(s, m, k, out);
		}
		*outlen = (size_t) total;
		return out;
	}
	if (strcmp(fn, "cbloom_empty") == 0)
	{
		uint64_t	m,
					total;
		uint32_t	k;
		uint8_t    *buf;
		bs_cbloom	cb;

		NEED_ARGS(3);
		if (kind != BS_KIND_CBLOOM)
			goto wrong_kind;
		TRY(bs_cbloom_optimal_shape(d[0], d[1], (uint32_t) d[2], &m, &k, &err));
		TRY(bs_cbloom_size(m, (uint32_t) d[2], &total, &err));
		buf = a->alloc(a->ctx, (size_t) total);
		bs_cbloom_init(buf, m, k, (uint32_t) d[2], family, BS_DEFAULT_SEED);
		bs_cbloom_view(buf, &cb);
		for (i = 0; i < nops; i++)
		{
			if (ops[i].remove)
				TRY(bs_cbloom_remove_hash(&cb, ops[i].hash, &err));
			else
				bs_cbloom_add_hash(&cb, ops[i].hash, ops[i].count);
		}
		*outlen = (size_t) total;
		return buf;
	}
	if (strcmp(fn, "topk_agg") == 0 || strcmp(fn, "topk_agg_weighted") == 0 ||
		strcmp(fn, "topk_union_agg") == 0)
	{
		if (kind != BS_KIND_TOPK)
			goto wrong_kind;
		return build_topk(fn, d, argc - 1, family, ops, nops, a, outlen, why, whylen);
	}
	/* format 1, as bloomsketch 1.4 made it: the Count-Min candidates, compacted */
	if (strcmp(fn, "cms_empty_dims") == 0 || strcmp(fn, "cms_empty") == 0 ||
		strcmp(fn, "topk1_agg") == 0)
	{
		bool		topk = fn[0] == 't';
		uint64_t	width,
					total;
		uint32_t	depth;
		uint8_t    *buf;

		if (kind != (topk ? BS_KIND_TOPK : BS_KIND_CMS))
			goto wrong_kind;
		if (strcmp(fn, "cms_empty_dims") == 0)
		{
			NEED_ARGS(2);
			width = (uint64_t) d[0];
			depth = (uint32_t) d[1];
			TRY(bs_cms_check_shape(width, depth, &err));
		}
		else
		{
			NEED_ARGS(topk ? 3 : 2);
			TRY(bs_cms_dims(d[topk], d[topk + 1], &width, &depth, &err));
		}
		if (!topk)
		{
			bs_cms		cm;

			TRY(bs_cms_size(width, depth, &total, &err));
			buf = a->alloc(a->ctx, (size_t) total);
			bs_cms_init(buf, width, depth, family, BS_DEFAULT_SEED);
			bs_cms_view(buf, &cm);
			for (i = 0; i < nops; i++)
				TRY(bs_cms_add(&cm, ops[i].hash, ops[i].count, &err));
			*outlen = (size_t) total;
			return buf;
		}
		else
		{
			uint32_t	k = (uint32_t) d[0];
			size_t		len;

			TRY(bs_topk_check_k((int64_t) d[0], &err));
			TRY(bs_topk1_size(width, depth, k, TOPK_INITIAL_KEY_BYTES, &total, &err));
			buf = a->alloc(a->ctx, (size_t) total);
			len = (size_t) total;
			bs_topk1_init(buf, width, depth, k, TOPK_INITIAL_KEY_BYTES, family, BS_DEFAULT_SEED);
			for (i = 0; i < nops; i++)
			{
				if ((st = bs_topk1_add(&buf, &len, ops[i].hash, ops[i].key, (uint32_t) ops[i].len,
									   family, ops[i].count, a, &err)) != BS_OK)
				{
					snprintf(why, whylen, "bs_topk1_add: %s", err.msg);
					return NULL;
				}
			}
			return bs_topk1_compact(buf, len, a, outlen);
		}
	}
	snprintf(why, whylen, "unknown build function %s", fn);
	return NULL;
wrong_kind:
	snprintf(why, whylen, "%s does not make a %s", fn, r->kind);
	return NULL;
#undef NEED_ARGS
#undef TRY
}

/* Net count of each op's key over all ops (adds minus removes). */
static int64_t
net_count(const op *ops, int nops, int i)
{
	int64_t		n = 0;
	int			j;

	for (j = 0; j < nops; j++)
		if (ops[j].hash == ops[i].hash)
			n += ops[j].remove ? -1 : (int64_t) ops[j].count;
	return n;
}

/*
 * What a client reads of the valid topk value buf: bs_topk_ranked must list
 * the record's items, bs_topk_lookup give its bounds.
 */
static void
test_topk_reading(const record *r, const uint8_t *buf, size_t len, const bs_allocator *a)
{
	counts	   *items = NULL,
			   *bounds = NULL;
	int			nitems = r->items ? parse_counts(r->items, &items) : -1,
				nbounds = r->bounds ? parse_counts(r->bounds, &bounds) : -1,
				i,
				bad = -1;
	uint32_t	n;
	bs_topk_row *rows;

	if (!CHECK(nitems >= 0 && nbounds >= 1,
			   "%s: the topk record lists its items and at least one value's bounds", r->name))
	{
		if (nitems >= 0)
			free_counts(items, nitems);
		if (nbounds >= 0)
			free_counts(bounds, nbounds);
		return;
	}
	rows = bs_topk_ranked(buf, len, a, &n);
	for (i = 0; bad < 0 && i < nitems && i < (int) n; i++)
		if (rows[i].len != items[i].len || memcmp(rows[i].key, items[i].key, items[i].len) != 0 ||
			rows[i].estimate != items[i].estimate || rows[i].lower != items[i].lower ||
			rows[i].upper != items[i].upper)
			bad = i;
	CHECK(bad < 0 && (int) n == nitems,
		  "%s: bs_topk_ranked lists the record's %d items, best first, with their estimates and bounds (%u listed%s)",
		  r->name, nitems, n, bad < 0 ? "" : ", one differs");
	if (bad >= 0)
		printf("#   item %d: %" PRIu64 ", %" PRIu64 ", %" PRIu64 "; the file says %" PRIu64 ", %" PRIu64 ", %" PRIu64 "\n",
			   bad, rows[bad].estimate, rows[bad].lower, rows[bad].upper,
			   items[bad].estimate, items[bad].lower, items[bad].upper);

	bad = -1;
	for (i = 0; bad < 0 && i < nbounds; i++)
	{
		bs_topk_row row;

		bs_topk_lookup(buf, len, bs_hash_bytes(bounds[i].key, bounds[i].len, bs_load64(buf + 8)),
					   bounds[i].key, (uint32_t) bounds[i].len, &row);
		if (row.estimate != bounds[i].estimate || row.lower != bounds[i].lower ||
			row.upper != bounds[i].upper)
		{
			bad = i;
			printf("#   bounds %d: %" PRIu64 ", %" PRIu64 ", %" PRIu64 "; the file says %" PRIu64 ", %" PRIu64 ", %" PRIu64 "\n",
				   i, row.estimate, row.lower, row.upper,
				   bounds[i].estimate, bounds[i].lower, bounds[i].upper);
		}
	}
	CHECK(bad < 0, "%s: bs_topk_lookup gives the record's bounds of %d values, held or not",
		  r->name, nbounds);
	free_counts(items, nitems);
	free_counts(bounds, nbounds);
}

/* Does the server's sketch hold every listed key (or, with none, nothing)? */
static bool
holds_keys(int kind, uint8_t *buf, size_t len, const op *ops, int nops,
		   const bs_allocator *a, char *why, size_t whylen)
{
	int			i;

	if (kind == BS_KIND_BLOOM_AGG_STATE)
	{
		uint64_t	m;
		uint32_t	k;
		uint8_t    *f;
		bs_header	h;

		/* the filter the state finishes to */
		bs_header_read(buf, &h);
		bs_bloom_agg_state_result_shape(buf, &m, &k, NULL);
		if (h.p3 & BS_AGG_STATE_COUNTED)
		{
			f = a->alloc(a->ctx, BS_HEADER_SIZE + (size_t) m);
			bs_bloom_agg_state_finish_counting(buf, m, k, 8, f);
			kind = BS_KIND_CBLOOM;
			len = BS_HEADER_SIZE + (size_t) m;
		}
		else
		{
			f = a->alloc(a->ctx, BS_HEADER_SIZE + (size_t) bs_bloom_payload_bytes(m));
			bs_bloom_agg_state_finish(buf, m, k, f);
			kind = BS_KIND_BLOOM;
			len = BS_HEADER_SIZE + (size_t) bs_bloom_payload_bytes(m);
		}
		buf = f;
	}
	if (kind == BS_KIND_BLOOM && bs_bloom_is_growable(buf))
	{
		bs_growable *g = unit_calloc(1, sizeof(bs_growable));
		bool		ok;
		uint64_t	m,
					x;

		bs_growable_view(buf, g);
		bs_growable_bits(g, &m, &x);
		ok = nops > 0 || x == 0;
		for (i = 0; ok && i < nops; i++)
			if (!bs_growable_contains(g, ops[i].hash))
			{
				snprintf(why, whylen, " (key %d is missing)", i);
				ok = false;
			}
		if (nops == 0 && !ok)
			snprintf(why, whylen, " (it holds something)");
		free(g);
		return ok;
	}
	if (nops == 0)
	{
		bs_header	h;
		bool		empty;

		bs_header_read(buf, &h);
		empty = (kind == BS_KIND_BLOOM || kind == BS_KIND_CBLOOM)
			? bs_popcount(buf + BS_HEADER_SIZE, len - BS_HEADER_SIZE) == 0
			: h.n == 0 && bs_popcount(buf + BS_HEADER_SIZE, len - BS_HEADER_SIZE) == 0;
		if (!empty)
			snprintf(why, whylen, " (it holds something)");
		return empty;
	}
	for (i = 0; i < nops; i++)
	{
		int64_t		want = net_count(ops, nops, i);
		bool		ok = true;

		if (want <= 0)
			continue;			/* removed: may still be a false positive */
		switch (kind)
		{
			case BS_KIND_BLOOM:
				{
					bs_bloom	b;

					bs_bloom_view(buf, &b);
					ok = bs_bloom_contains(&b, ops[i].hash);
					break;
				}
			case BS_KIND_CBLOOM:
				{
					bs_cbloom	c;
					uint32_t	need;

					bs_cbloom_view(buf, &c);
					need = (uint64_t) want < c.max ? (uint32_t) want : c.max;
					ok = bs_cbloom_contains_hash(&c, ops[i].hash) &&
						bs_cbloom_count_hash(&c, ops[i].hash) >= need;
					break;
				}
			case BS_KIND_CMS:
				{
					bs_cms		c;

					bs_cms_view(buf, &c);
					ok = bs_cms_frequency(&c, ops[i].hash) >= (uint64_t) want;
					break;
				}
			case BS_KIND_TOPK:
				{
					bs_topk_row row;

					/* the true count is within the bounds (format 1: 0 and the estimate) */
					bs_topk_lookup(buf, len, ops[i].hash, ops[i].key, (uint32_t) ops[i].len, &row);
					ok = row.lower <= (uint64_t) want && (uint64_t) want <= row.upper;
					break;
				}
		}
		if (!ok)
		{
			snprintf(why, whylen, " (key %d is missing or under-counted)", i);
			return false;
		}
	}
	return true;
}

static void
test_record(const record *r, int *kinds_seen)
{
	int			kind = kind_of(r->kind);
	uint8_t    *want = NULL,
			   *got;
	size_t		wantlen = 0,
				gotlen = 0;
	uint64_t	bytes = 0;
	int64_t		family = -1;
	op		   *ops = NULL;
	int			nops;
	bs_header	h;
	bs_error	err;
	bs_status	deep,
				quick;
	char		why[600] = "";
	unit_arena	arena = {0};
	bs_allocator a = {unit_arena_alloc, &arena, NULL};

	nops = r->keys ? parse_ops(r->keys, &ops) : -1;
	if (!CHECK(kind != 0 && r->name && r->build && r->family && r->keys && r->bytes && r->hex &&
			   parse_family(r->family, &family) && parse_u64(r->bytes, 10, &bytes) &&
			   hex_decode(r->hex, strlen(r->hex), &want, &wantlen) && wantlen == bytes &&
			   nops >= 0,
			   "sketches.txt line %d (%s): a complete record of a known kind, family, length and keys",
			   r->line, r->name ? r->name : "?"))
	{
		free_ops(ops, nops > 0 ? nops : 0);
		free(want);
		return;
	}
	kinds_seen[kind]++;
	if (wantlen >= BS_HEADER_SIZE &&
		((kind == BS_KIND_BLOOM && bs_load32(want + BS_OFF_P3) == BS_LAYOUT_BLOCKED) ||
		 (kind == BS_KIND_BLOOM_AGG_STATE && (bs_load32(want + BS_OFF_P3) & BS_AGG_STATE_BLOCKED))))
		blocked_seen[kind]++;
	if (wantlen >= BS_HEADER_SIZE && kind == BS_KIND_BLOOM && bs_bloom_is_growable(want))
	{
		growable_seen[bs_load32(want + BS_OFF_P3) & BS_LAYOUT_MAX]++;
		growable_3_stages += bs_load64(want + BS_OFF_N) >= 3;
	}
	if (wantlen >= BS_HEADER_SIZE && kind == BS_KIND_TOPK && want[4] <= BS_TOPK_FORMAT)
	{
		topk_seen[want[4]]++;
		topk_frozen_v1 += want[4] == BS_TOPK_FORMAT_V1 && strncmp(r->build, "topk1_agg ", 10) == 0;
		topk_weighted += strncmp(r->build, "topk_agg_weighted ", 18) == 0;
		topk_unions += strncmp(r->build, "topk_union_agg ", 15) == 0;
	}

	/* 1. the validator accepts the server's bytes */
	deep = bs_validate(want, wantlen, kind, true, &h, &err);
	if (deep == BS_OK)
		quick = bs_validate(want, wantlen, kind, false, NULL, &err);
	else
		quick = deep;
	CHECK(deep == BS_OK && quick == BS_OK && h.family == family,
		  "%s: bs_validate accepts the server's %zu bytes as a %s of family %d (deep and quick)%s%s",
		  r->name, wantlen, r->kind, (int) family, deep == BS_OK && quick == BS_OK ? "" : ": ",
		  deep == BS_OK && quick == BS_OK ? "" : err.msg);

	/* 2. the core builds the same bytes from the keys */
	got = build(r, kind, (uint8_t) family, ops, nops, &a, &gotlen, why, sizeof(why));
	if (got != NULL && (gotlen != wantlen || memcmp(got, want, wantlen) != 0))
	{
		size_t		i,
					n = gotlen < wantlen ? gotlen : wantlen;

		for (i = 0; i < n && got[i] == want[i]; i++)
			;
		if (i < n)
			snprintf(why, sizeof(why), "%zu bytes built, first difference at byte %zu: %02x, the server's %02x",
					 gotlen, i, got[i], want[i]);
		else
			snprintf(why, sizeof(why), "%zu bytes built, the server's %zu", gotlen, wantlen);
		got = NULL;
	}
	CHECK(got != NULL, "%s: %s with %d keys builds the server's %zu bytes%s%s",
		  r->name, r->build, nops, wantlen, got ? "" : ": ", got ? "" : why);

	/* 3. the server's sketch holds the keys */
	why[0] = '\0';
	if (deep == BS_OK)
		CHECK(holds_keys(kind, want, wantlen, ops, nops, &a, why, sizeof(why)),
			  "%s: the server's sketch holds %s%s", r->name,
			  nops ? "every listed key" : "nothing", why);
	else
		CHECK(false, "%s: the server's sketch holds the keys (not read: invalid)", r->name);

	/* 4. a topk reads as the server read it */
	if (kind == BS_KIND_TOPK && deep == BS_OK)
	{
		bs_topk_info info;

		bs_topk_describe(want, wantlen, &info);
		topk_dropped += info.has_floor && info.floor > 0;
		test_topk_reading(r, want, wantlen, &a);
	}
	else if (kind == BS_KIND_TOPK || r->items != NULL || r->bounds != NULL)
		CHECK(false, "%s: %s", r->name, kind == BS_KIND_TOPK
			  ? "the topk's reading is not checked (invalid)"
			  : "items and bounds belong in a topk record only");

	free_ops(ops, nops);
	free(want);
	unit_arena_reset(&arena);
	free(arena.ptr);
}

static void
test_sketch_vectors(const char *dir)
{
	char		path[PATH_MAX + 32];
	size_t		len;
	char	   *text,
			   *line,
			   *next;
	int			lineno = 0,
				records = 0,
				kinds_seen[BS_KIND_CBLOOM + 1] = {0},
				k,
				unknown = 0;
	bool		in_record = false,
				all_kinds = true;
	record		r = {0};

	snprintf(path, sizeof(path), "%s/%s", dir, SKETCH_FILE);
	text = read_all(path, &len);
	if (!CHECK(text != NULL, "format vectors: %s is readable", path))
		return;

	for (line = text; line != NULL; line = next)
	{
		char	   *tab;
		const char *value;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		if (*line == '#')
			continue;
		if (*line == '\0')
		{
			/* a blank line ends a record */
			if (in_record)
			{
				test_record(&r, kinds_seen);
				records++;
			}
			in_record = false;
			memset(&r, 0, sizeof(r));
			continue;
		}
		if (!in_record)
			r.line = lineno;
		in_record = true;
		tab = strchr(line, '\t');
		if (tab == NULL)
		{
			unknown++;
			continue;
		}
		*tab = '\0';
		value = tab + 1;
		if (strcmp(line, "name") == 0)
			r.name = value;
		else if (strcmp(line, "kind") == 0)
			r.kind = value;
		else if (strcmp(line, "build") == 0)
			r.build = value;
		else if (strcmp(line, "family") == 0)
			r.family = value;
		else if (strcmp(line, "keys") == 0)
			r.keys = value;
		else if (strcmp(line, "bytes") == 0)
			r.bytes = value;
		else if (strcmp(line, "hex") == 0)
			r.hex = value;
		else if (strcmp(line, "items") == 0)
			r.items = value;
		else if (strcmp(line, "bounds") == 0)
			r.bounds = value;
		else if (strcmp(line, "sql") != 0 && strcmp(line, "values") != 0)
			unknown++;
	}
	if (in_record)				/* the last record, without a blank line after it */
	{
		test_record(&r, kinds_seen);
		records++;
	}
	free(text);

	for (k = BS_KIND_BLOOM; k <= BS_KIND_CBLOOM; k++)
		all_kinds = all_kinds && kinds_seen[k] > 0;
	CHECK(records >= 10 && all_kinds && unknown == 0,
		  "sketches.txt: %d records (at least 10) with every kind (bloom %d, bloom_agg_state %d, cms %d, topk %d, cbloom %d) and no unknown fields (%d)",
		  records, kinds_seen[BS_KIND_BLOOM], kinds_seen[BS_KIND_BLOOM_AGG_STATE],
		  kinds_seen[BS_KIND_CMS], kinds_seen[BS_KIND_TOPK], kinds_seen[BS_KIND_CBLOOM], unknown);
	CHECK(blocked_seen[BS_KIND_BLOOM] >= 1 && blocked_seen[BS_KIND_BLOOM_AGG_STATE] >= 1,
		  "sketches.txt: blocked-layout records of bloom (%d) and bloom_agg_state (%d)",
		  blocked_seen[BS_KIND_BLOOM], blocked_seen[BS_KIND_BLOOM_AGG_STATE]);
	CHECK(growable_seen[BS_LAYOUT_CLASSIC] >= 1 && growable_seen[BS_LAYOUT_BLOCKED] >= 1 &&
		  growable_3_stages >= 1 && growable_unions >= 1,
		  "sketches.txt: growable filters of classic (%d) and blocked (%d) stages, %d of 3 stages or more, %d unions",
		  growable_seen[BS_LAYOUT_CLASSIC], growable_seen[BS_LAYOUT_BLOCKED], growable_3_stages,
		  growable_unions);
	CHECK(topk_seen[BS_TOPK_FORMAT_V1] >= 4 && topk_frozen_v1 == topk_seen[BS_TOPK_FORMAT_V1] &&
		  topk_seen[BS_TOPK_FORMAT] >= 5 && topk_dropped >= 2 && topk_weighted >= 1 && topk_unions >= 1,
		  "sketches.txt: topk records of format 1 (%d, %d of them topk1_agg) and format 2 (%d): %d with values dropped, %d weighted, %d unions",
		  topk_seen[BS_TOPK_FORMAT_V1], topk_frozen_v1, topk_seen[BS_TOPK_FORMAT], topk_dropped,
		  topk_weighted, topk_unions);
}

int
main(int argc, char **argv)
{
	char		dir[PATH_MAX];

	if (CHECK(find_vectors(argc, argv, dir, sizeof(dir)),
			  "the test vectors are found (in %s)", dir))
	{
		test_hash_vectors(dir);
		test_sketch_vectors(dir);
	}
	return unit_done("vectors");
}
