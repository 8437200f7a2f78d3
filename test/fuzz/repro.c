/*
 * repro.c: reproducers of what the fuzz targets found in src/core (README.md,
 * "Findings").  Each builds a value the way SQL input (bs_validate, deep)
 * or a SQL function would accept or make it, applies what the SQL functions
 * would, and says whether the problem is still there.  Exit status 1 while any finding is present, 0 once all are
 * fixed (so this can become a regression test).
 *
 *   cc -std=c11 -O1 -g -fsanitize=address,undefined -Isrc -o /tmp/repro test/fuzz/repro.c src/core/?*.c -lm
 *   /tmp/repro [OUTDIR]
 *
 * With OUTDIR, the crafted values are also written there as fuzz inputs
 * (OUTDIR/finding1-bloom_agg_state, OUTDIR/finding2-topk,
 * OUTDIR/finding3-bloom_agg_state), to replay with a target built with
 * -DFZ_STRICT (README.md).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bloom_agg_state.h"
#include "core/endian.h"
#include "core/format.h"
#include "core/hash.h"
#include "core/topk_v1.h"

static size_t largest_alloc;
static void *blocks[256];
static int	nblocks;

static uint8_t *
repro_alloc(void *ctx, size_t len)
{
	uint8_t    *p = calloc(1, len == 0 ? 1 : len);

	(void) ctx;
	if (p == NULL || nblocks == 256)
	{
		fprintf(stderr, "out of memory (%zu bytes)\n", len);
		exit(2);
	}
	if (len > largest_alloc)
		largest_alloc = len;
	blocks[nblocks++] = p;
	return p;
}

static const bs_allocator alloc = {repro_alloc, NULL, NULL};

static const char *outdir;

static void
save(const char *name, const uint8_t *buf, size_t len)
{
	char		path[4096];
	FILE	   *f;

	if (outdir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
	{
		fprintf(stderr, "cannot write %s\n", path);
		exit(2);
	}
	printf("  written to %s\n", path);
}

static void
print_hex(const uint8_t *buf, size_t len)
{
	size_t		i;

	printf("\\x");
	for (i = 0; i < len; i++)
		printf("%02x", buf[i]);
	printf("\n");
}

/* The canonical hash of a bigint key (doc/hashing.md): XXH3-64 of int64 LE, seed 0. */
static uint64_t
bigint_hash(int64_t v)
{
	uint8_t		b[8];

	bs_store64(b, (uint64_t) v);
	return bs_hash_bytes(b, 8, BS_DEFAULT_SEED);
}

/*
 * Finding 1: bs_bloom_agg_state_check (deep) accepts an exact-phase bloom_agg_state
 * whose table holds a hash twice (or out of its probe sequence).  The first
 * add that grows the table folds the two copies into one and the state then
 * counts one hash more than it holds: bs_validate rejects the state the core
 * just made, and the final filter is sized for one value too many.
 */
static bool
finding1(void)
{
	uint8_t    *s,
			   *t,
			   *honest;
	uint64_t	dup = 0,
				m1,
				m2;
	uint32_t	k1,
				k2;
	int			i,
				to = -1;
	size_t		len;
	bs_error	err;
	bs_status	st1,
				st2;

	printf("finding 1: a bloom_agg_state holding a hash twice\n");
	if (bs_bloom_agg_state_new_auto(0.01, BS_FAMILY_INTEGER, BS_DEFAULT_SEED, &alloc, &s, NULL) != BS_OK)
		exit(2);
	for (i = 1; i <= 11; i++)
		(void) bs_bloom_agg_state_add(&s, bigint_hash(i), &alloc, NULL);	/* bloom_agg(x) over 1..11: 16 slots */
	len = bs_bloom_agg_state_size(s);
	for (i = 0; i < 16; i++)
	{
		uint64_t	v = bs_load64(s + BS_HEADER_SIZE + i * 8);

		if (v != 0 && dup == 0)
			dup = v;
		if (v == 0 && to < 0)
			to = i;
	}
	bs_store64(s + BS_HEADER_SIZE + to * 8, dup);	/* the first hash again, in the first empty slot */
	bs_store64(s + BS_OFF_N, 12);	/* and counted: n = slots used */
	st1 = bs_validate(s, len, BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
	printf("  crafted state (%zu bytes), bs_validate(deep) = %d %s:\n  ", len, (int) st1, st1 ? err.msg : "(accepted)");
	print_hex(s, len);
	save("finding1-bloom_agg_state", s, len);
	if (st1 != BS_OK)
	{
		printf("  fixed: the validator rejects it\n");
		return false;
	}

	/* bloom_agg_trans(state, 12::bigint) */
	t = s;
	(void) bs_bloom_agg_state_add(&t, bigint_hash(12), &alloc, NULL);
	st2 = bs_validate(t, bs_bloom_agg_state_size(t), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err);
	printf("  after bloom_agg_trans(state, 12::bigint): %zu bytes, bs_validate(deep) = %d %s\n",
		   bs_bloom_agg_state_size(t), (int) st2, st2 ? err.msg : "(accepted)");

	/* the final filter, against bloom_agg over 1..12 */
	if (bs_bloom_agg_state_new_auto(0.01, BS_FAMILY_INTEGER, BS_DEFAULT_SEED, &alloc, &honest, NULL) != BS_OK)
		exit(2);
	for (i = 1; i <= 12; i++)
		(void) bs_bloom_agg_state_add(&honest, bigint_hash(i), &alloc, NULL);
	(void) bs_bloom_agg_state_result_shape(t, &m1, &k1, NULL);
	(void) bs_bloom_agg_state_result_shape(honest, &m2, &k2, NULL);
	printf("  bloom_agg_final: %" PRIu64 " bits, %u hashes; bloom_agg over 1..12 gives %" PRIu64 " bits, %u hashes\n",
		   m1, k1, m2, k2);
	printf("  SQL: CREATE AGGREGATE crafted(bigint) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state,\n"
		   "         INITCOND = '<the crafted state above>');\n"
		   "       SELECT crafted(12::bigint)::text::bloom_agg_state;\n"
		   "  (expected: ERROR: bloom_agg_state counts 13 hashes but its table holds 12)\n");
	if (st2 == BS_OK && m1 == m2)
	{
		printf("  fixed\n");
		return false;
	}
	printf("  FINDING 1 PRESENT\n");
	return true;
}

/*
 * Finding 2: bs_topk_check bounds each candidate's key inside the used key
 * bytes but not their sum, so candidates may share key bytes; compact (the
 * canonical form of topk_final, topk_items, topk_add), merge and regrow copy
 * every key out.  A value of S bytes makes one of about S^2/96 bytes.
 */
static bool
finding2(void)
{
	const uint32_t k = 900,
				cap = 2 * k;
	const uint64_t heap = 48000;
	uint64_t	total,
				i,
				r = 1;
	uint8_t    *v,
			   *c;
	size_t		len,
				clen;
	bs_topk1		t;
	bs_error	err;
	bs_status	st;

	printf("finding 2: a topk value whose candidates share key bytes\n");
	if (bs_topk1_size(1, 1, k, heap, &total, NULL) != BS_OK)
		exit(2);
	len = (size_t) total;
	v = repro_alloc(NULL, len);
	bs_topk1_init(v, 1, 1, k, heap, BS_FAMILY_BYTEA, BS_DEFAULT_SEED);
	bs_topk1_view(v, len, &t);
	for (i = 0; i < heap; i++)
	{
		r = r * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		t.heap[i] = (uint8_t) (r >> 56);
	}
	/* candidate i: the key bytes from offset i to the end, all distinct, all overlapping */
	for (i = 0; i < cap; i++)
	{
		uint8_t    *slot = t.slots + i * BS_TOPK_SLOT;

		bs_store64(slot, bs_hash_bytes(t.heap + i, heap - i, BS_DEFAULT_SEED));
		bs_store64(slot + 8, 0);
		bs_store32(slot + 16, (uint32_t) i);
		bs_store32(slot + 20, (uint32_t) (heap - i));
	}
	bs_store64(v + BS_OFF_X, (uint64_t) cap | (heap << 32));
	st = bs_validate(v, len, BS_KIND_TOPK, true, NULL, &err);
	printf("  crafted value: %zu bytes (k %u, %u candidates, %" PRIu64 " key bytes), bs_validate(deep) = %d %s\n",
		   len, k, cap, heap, (int) st, st ? err.msg : "(accepted)");
	save("finding2-topk", v, len);
	if (st != BS_OK)
	{
		printf("  fixed: the validator rejects it\n");
		return false;
	}
	largest_alloc = 0;
	c = bs_topk1_compact(v, len, &alloc, &clen);
	st = bs_validate(c, clen, BS_KIND_TOPK, true, NULL, &err);
	printf("  bs_topk1_compact (topk_final, topk_items, topk_add): a %zu-byte value (%.0f times the input; bs_validate = %d), largest allocation %zu bytes\n",
		   clen, (double) clen / (double) len, (int) st, largest_alloc);
	printf("  SQL: SELECT * FROM topk_items('<the value, 2 x %zu hex digits>'::topk);  -- allocates ~%zu MB\n",
		   len, clen >> 20);
	if (clen <= len)
	{
		printf("  fixed\n");
		return false;
	}
	printf("  FINDING 2 PRESENT\n");
	return true;
}

/*
 * Finding 3: bs_bloom_agg_state_new_fixed takes the capacity as a double and stores
 * (uint64_t) capacity, so bloom_agg(x, capacity, fpr) with a capacity above
 * 2^53 stores another capacity than the one asked for, and
 * bs_bloom_agg_state_same_target (which compares the bigint argument with the stored
 * one) refuses the group's second row.  Only a rate very close to 1 keeps such
 * a filter within the size limit.
 */
static bool
finding3(void)
{
	const int64_t capacity = (INT64_C(1) << 53) + 1;
	const double fpr = 0.99999999999;
	uint8_t    *s;
	bs_error	err;
	bool		same;

	printf("finding 3: bloom_agg(x, %" PRId64 ", %.11f)\n", capacity, fpr);
	if (bs_bloom_agg_state_new_fixed((double) capacity, fpr, BS_FAMILY_INTEGER, BS_DEFAULT_SEED, &alloc, &s, &err) != BS_OK)
	{
		printf("  fixed: bs_bloom_agg_state_new_fixed refuses it: %s\n", err.msg);
		return false;
	}
	same = bs_bloom_agg_state_same_target(s, true, (uint64_t) capacity, fpr);
	printf("  state of %zu bytes stores capacity %" PRIu64 "; bs_bloom_agg_state_same_target(capacity) = %d\n",
		   bs_bloom_agg_state_size(s), bs_load64(s + BS_OFF_N), (int) same);
	/* the state with the capacity asked for: valid, and what FZ_STRICT fails on */
	bs_store64(s + BS_OFF_N, (uint64_t) capacity);
	if (bs_validate(s, bs_bloom_agg_state_size(s), BS_KIND_BLOOM_AGG_STATE, true, NULL, &err) == BS_OK)
		save("finding3-bloom_agg_state", s, bs_bloom_agg_state_size(s));
	printf("  SQL: SELECT bloom_agg(x, 9007199254740993, 0.99999999999) FROM generate_series(1, 2) x;\n"
		   "  (expected: ERROR: bloom_agg parameters must be the same for every row of a group)\n");
	if (same)
	{
		printf("  fixed\n");
		return false;
	}
	printf("  FINDING 3 PRESENT\n");
	return true;
}

int
main(int argc, char **argv)
{
	bool		any = false;

	if (argc > 1)
		outdir = argv[1];
	any |= finding1();
	any |= finding2();
	any |= finding3();
	while (nblocks > 0)
		free(blocks[--nblocks]);
	printf("repro: %s\n", any ? "findings present" : "all fixed");
	return any ? 1 : 0;
}
