/*
 * topk_v1_sizes.c: the topk design of bloomsketch 1.0 to 1.4 (format 1: a
 * Count-Min sketch plus 2k candidates, src/core/topk_v1.c) on the streams of
 * test/accuracy/topk_sizes.sql, for doc/accuracy.md's section on top-k against
 * sketch size.  The server builds format 2 only since 1.5, so this program
 * calls the format-1 code of the core the way 1.4's SQL functions did
 * (src/topk.c at 1.4): topk_agg started a value of bs_topk1_size(w, d, k, 256)
 * bytes (INITIAL_KEY_BYTES 256), added every row with bs_topk1_add (the
 * canonical bytes of a bigint, int64 little-endian, hashed with the default
 * seed), and returned bs_topk1_compact of it; topk_union_agg took its first
 * value as it was and bs_topk1_merge'd every next one into it; topk_items
 * listed the first min(candidates, k) of the compact form with their
 * Count-Min estimates.  Built and run by test/accuracy/run.sh:
 *
 *   cc -O2 -Isrc -o topk_v1_sizes test/accuracy/topk_v1_sizes.c src/core/?*.c -lxxhash -lm
 *   topk_v1_sizes ZIPF UNIFORM ID:K:EPSILON:DELTA...
 *
 * ZIPF holds the lines "day<TAB>key" of the skewed stream in row order (the
 * days are the 30 parts of the rollup), UNIFORM the lines "key" of the
 * uniform stream.  For each ID:K:EPSILON:DELTA (a row of acc_tks_grid): one
 * sketch of the whole skewed stream, the merge of the 30 sketches of its days
 * (in the order of the days) and one sketch of the uniform stream.  Output,
 * for COPY acc_tks_rows FROM STDIN: one line per listed value,
 *   id, stream, how, capacity (2k), raw bytes (the compact value's length,
 *   octet_length(t::bytea) in 1.4), seconds, rank, value, frequency
 * tab-separated.  Exit status 1 with a message on stderr on any error.
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cms.h"
#include "core/endian.h"
#include "core/hash.h"
#include "core/topk_v1.h"

#define INITIAL_KEY_BYTES 256	/* src/topk.c of 1.4 */
#define DAYS 30

static void
die(const char *what, const char *detail)
{
	fprintf(stderr, "topk_v1_sizes: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	exit(1);
}

/* ---- memory: every block the core gets is listed, so that scratch can be freed ---- */

typedef struct pool
{
	uint8_t   **blocks;
	size_t		n,
				cap;
} pool;

static pool mem;

static uint8_t *
pool_alloc(void *ctx, size_t len)
{
	pool	   *p = ctx;
	uint8_t    *b = calloc(1, len ? len : 1);

	if (b == NULL)
		die("out of memory", NULL);
	if (p->n == p->cap)
	{
		p->cap = p->cap ? 2 * p->cap : 64;
		p->blocks = realloc(p->blocks, p->cap * sizeof(*p->blocks));
		if (p->blocks == NULL)
			die("out of memory", NULL);
	}
	p->blocks[p->n++] = b;
	return b;
}

/* Free block b (the most recent blocks are searched first). */
static void
pool_free(pool *p, uint8_t *b)
{
	size_t		i;

	for (i = p->n; i-- > 0;)
		if (p->blocks[i] == b)
		{
			free(b);
			p->blocks[i] = p->blocks[--p->n];
			return;
		}
	die("internal error", "freeing a block that is not in the pool");
}

/* Free every block but the first nkeep of keep[]. */
static void
pool_free_all_but(pool *p, uint8_t *const *keep, size_t nkeep)
{
	size_t		i,
				j,
				n = 0;

	for (i = 0; i < p->n; i++)
	{
		for (j = 0; j < nkeep; j++)
			if (p->blocks[i] == keep[j])
				break;
		if (j < nkeep)
			p->blocks[n++] = p->blocks[i];
		else
			free(p->blocks[i]);
	}
	p->n = n;
}

static const bs_allocator alloc = {pool_alloc, &mem, NULL};

/* ---- input ---- */

typedef struct stream
{
	int64_t    *keys;
	int		   *days;			/* NULL for a stream without days */
	size_t		n,
				cap;
} stream;

static void
read_stream(const char *path, stream *s, int with_days)
{
	FILE	   *f = fopen(path, "r");
	char		line[128];

	if (f == NULL)
		die(path, strerror(errno));
	memset(s, 0, sizeof(*s));
	while (fgets(line, sizeof(line), f) != NULL)
	{
		char	   *p = line,
				   *end;
		long		day = 0;
		long long	key;

		if (with_days)
		{
			errno = 0;
			day = strtol(p, &end, 10);
			if (errno != 0 || end == p || *end != '\t' || day < 0 || day >= DAYS)
				die(path, "expected lines \"day<TAB>key\" with a day from 0 to 29");
			p = end + 1;
		}
		errno = 0;
		key = strtoll(p, &end, 10);
		if (errno != 0 || end == p || (*end != '\n' && *end != '\0'))
			die(path, "a key is not a bigint");
		if (s->n == s->cap)
		{
			s->cap = s->cap ? 2 * s->cap : 1 << 20;
			s->keys = realloc(s->keys, s->cap * sizeof(*s->keys));
			if (with_days)
				s->days = realloc(s->days, s->cap * sizeof(*s->days));
			if (s->keys == NULL || (with_days && s->days == NULL))
				die("out of memory", NULL);
		}
		s->keys[s->n] = key;
		if (with_days)
			s->days[s->n] = (int) day;
		s->n++;
	}
	if (ferror(f))
		die(path, strerror(errno));
	fclose(f);
	if (s->n == 0)
		die(path, "no rows");
}

/* ---- the sketches, as 1.4's SQL functions made them ---- */

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* topk_agg(key, k, epsilon, delta) over keys[0..n): the compact value (*len bytes). */
static uint8_t *
build(const int64_t *keys, size_t n, uint64_t width, uint32_t depth, uint32_t k, size_t *len)
{
	uint64_t	total;
	size_t		cur;
	uint8_t    *buf,
			   *out;
	bs_error	err;
	size_t		i;

	if (bs_topk1_size(width, depth, k, INITIAL_KEY_BYTES, &total, &err) != BS_OK)
		die("bs_topk1_size", err.msg);
	cur = (size_t) total;
	buf = pool_alloc(&mem, cur);
	bs_topk1_init(buf, width, depth, k, INITIAL_KEY_BYTES, BS_FAMILY_INTEGER, BS_DEFAULT_SEED);
	for (i = 0; i < n; i++)
	{
		uint8_t		kb[8];
		uint8_t    *r;

		bs_store64(kb, (uint64_t) keys[i]);
		r = buf;
		if (bs_topk1_add(&r, &cur, bs_hash_bytes(kb, 8, BS_DEFAULT_SEED), kb, 8,
						 BS_FAMILY_INTEGER, 1, &alloc, &err) != BS_OK)
			die("bs_topk1_add", err.msg);
		if (r != buf)
		{
			pool_free(&mem, buf);	/* the aggregate's old state, freed by nodeAgg */
			buf = r;
		}
	}
	out = bs_topk1_compact(buf, cur, &alloc, len);
	pool_free(&mem, buf);
	return out;
}

/* topk_items(t): the first min(candidates, k) of the compact form. */
static void
list(const char *id, const char *stream_name, const char *how, uint8_t *value, size_t len,
	 double seconds)
{
	uint8_t    *c;
	size_t		clen;
	bs_topk1	t;
	uint32_t	i;

	c = bs_topk1_compact(value, len, &alloc, &clen);
	bs_topk1_view(c, clen, &t);
	for (i = 0; i < t.ncand && i < t.k; i++)
	{
		bs_topk1_item it;

		bs_topk1_item_at(&t, i, &it);
		if (it.len != 8)
			die("internal error", "a listed key is not 8 bytes");
		printf("%s\t%s\t%s\t%u\t%zu\t%.3f\t%u\t%" PRId64 "\t%" PRIu64 "\n",
			   id, stream_name, how, t.cap, len, seconds, i + 1,
			   (int64_t) bs_load64(it.key), it.count);
	}
	pool_free(&mem, c);
}

int
main(int argc, char **argv)
{
	stream		zipf,
				uniform;
	int64_t    *day_keys[DAYS];
	size_t		day_n[DAYS] = {0};
	size_t		i;
	int			a,
				d;

	if (argc < 4)
	{
		fprintf(stderr, "usage: topk_v1_sizes ZIPF UNIFORM ID:K:EPSILON:DELTA...\n");
		return 2;
	}
	read_stream(argv[1], &zipf, 1);
	read_stream(argv[2], &uniform, 0);

	/* the rows of each day, in stream order */
	for (i = 0; i < zipf.n; i++)
		day_n[zipf.days[i]]++;
	for (d = 0; d < DAYS; d++)
	{
		day_keys[d] = malloc((day_n[d] ? day_n[d] : 1) * sizeof(int64_t));
		if (day_keys[d] == NULL)
			die("out of memory", NULL);
		day_n[d] = 0;
	}
	for (i = 0; i < zipf.n; i++)
		day_keys[zipf.days[i]][day_n[zipf.days[i]]++] = zipf.keys[i];

	for (a = 3; a < argc; a++)
	{
		char		id[32];
		unsigned	k;
		double		epsilon,
					delta,
					t0;
		uint64_t	width;
		uint32_t	depth;
		bs_error	err;
		uint8_t    *v,
				   *state;
		size_t		len,
					slen;

		if (sscanf(argv[a], "%31[0-9]:%u:%lf:%lf", id, &k, &epsilon, &delta) != 4)
			die(argv[a], "expected ID:K:EPSILON:DELTA");
		if (bs_cms_dims(epsilon, delta, &width, &depth, &err) != BS_OK)
			die("bs_cms_dims", err.msg);

		/* the whole skewed stream */
		t0 = now();
		v = build(zipf.keys, zipf.n, width, depth, k, &len);
		list(id, "zipf", "single", v, len, now() - t0);
		pool_free(&mem, v);

		/* 30 daily sketches, then topk_union_agg(t ORDER BY day) */
		t0 = now();
		state = NULL;
		slen = 0;
		for (d = 0; d < DAYS; d++)
		{
			size_t		dlen;
			uint8_t    *day = build(day_keys[d], day_n[d], width, depth, k, &dlen);

			if (state == NULL)
			{
				state = day;
				slen = dlen;
			}
			else
			{
				size_t		mlen;
				uint8_t    *m;

				if (bs_topk1_merge(state, slen, day, dlen, &alloc, &m, &mlen, &err) != BS_OK)
					die("bs_topk1_merge", err.msg);
				pool_free_all_but(&mem, &m, 1);	/* state, day and the merge's scratch */
				state = m;
				slen = mlen;
			}
		}
		v = bs_topk1_compact(state, slen, &alloc, &len);	/* topk_final */
		pool_free(&mem, state);
		list(id, "zipf", "rollup", v, len, now() - t0);
		pool_free(&mem, v);

		/* the uniform stream */
		t0 = now();
		v = build(uniform.keys, uniform.n, width, depth, k, &len);
		list(id, "uniform", "single", v, len, now() - t0);
		pool_free_all_but(&mem, NULL, 0);
		fflush(stdout);
	}
	if (ferror(stdout))
		die("stdout", strerror(errno));
	return 0;
}
