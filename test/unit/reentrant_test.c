/*
 * reentrant_test.c: the core keeps no state between calls, so calls may
 * interleave and run in threads at once.
 *
 * Two functions used to work in static buffers: the topk validator's search
 * for a repeated candidate hash (160 kB) and bs_bloom_fpr_exact's occupancy
 * distribution (80 kB).  The first now works block by block on the stack,
 * the second in the caller's work space.  Checked: repeats found wherever
 * they sit relative to the blocks, validations of different values in turn,
 * and the same calls from two threads at once giving the results of one
 * thread alone (with the static buffers they read each other's data).
 */
#include <inttypes.h>
#include <pthread.h>
#include <string.h>

#include "core/bloom.h"
#include "core/topk_v1.h"
#include "unit.h"

/*
 * ---- topk values with n integer candidates: keys base, base + 1, ..., or,
 * crowded, the next keys from base whose hashes share their top 11 bits
 * (what an attacker can choose, to fill one bucket of the validator) ----
 */

typedef struct tval
{
	uint8_t    *buf;
	size_t		len;
} tval;

static tval
topk_of(uint32_t k, uint32_t n, uint64_t base, bool crowded)
{
	uint64_t	total;
	tval		v;
	bs_topk1		t;
	uint32_t	i;

	if (bs_topk1_size(16, 2, k, (uint64_t) n * 8, &total, NULL) != BS_OK || n > 2 * k)
	{
		fprintf(stderr, "topk_of(%u, %u): bad shape\n", k, n);
		exit(2);
	}
	v.len = (size_t) total;
	v.buf = unit_calloc(1, v.len);
	bs_topk1_init(v.buf, 16, 2, k, (uint64_t) n * 8, BS_FAMILY_INTEGER, 0);
	bs_topk1_view(v.buf, v.len, &t);
	for (i = 0; i < n; i++)
	{
		uint8_t    *key = t.heap + (uint64_t) i * 8,
				   *s = t.slots + (uint64_t) i * BS_TOPK_SLOT;
		uint64_t	h;

		do
		{
			bs_store64(key, base++);
			h = bs_hash_bytes(key, 8, 0);
		} while (crowded && (h >> 53) != 0);
		bs_cms_add(&t.cms, h, 1, NULL);
		bs_store64(s, h);
		bs_store64(s + 8, 1);
		bs_store32(s + 16, i * 8);
		bs_store32(s + 20, 8);
	}
	bs_store64(v.buf + BS_OFF_X, (uint64_t) n | ((uint64_t) n * 8) << 32);
	return v;
}

/* A copy of v whose candidate slot `to` repeats slot `from` (the same item twice). */
static tval
with_repeat(const tval *v, uint32_t from, uint32_t to)
{
	tval		c;
	bs_topk1		t;

	c.len = v->len;
	c.buf = unit_calloc(1, c.len);
	memcpy(c.buf, v->buf, c.len);
	bs_topk1_view(c.buf, c.len, &t);
	memcpy(t.slots + (uint64_t) to * BS_TOPK_SLOT, t.slots + (uint64_t) from * BS_TOPK_SLOT, BS_TOPK_SLOT);
	return c;
}

static bs_status
validate(const tval *v, bs_error *err)
{
	return bs_validate(v->buf, v->len, BS_KIND_TOPK, true, NULL, err);
}

static bool
rejected_as_repeat(const tval *v)
{
	bs_error	err;

	err.msg[0] = '\0';
	return validate(v, &err) == BS_ERR_FORMAT && strstr(err.msg, "twice") != NULL;
}

static void
test_repeats(void)
{
	/*
	 * sizes around the validator's blocks of 2048 hashes, up to the largest
	 * k; the 5000 hashes all in one bucket
	 */
	static const uint32_t sizes[] = {2, 3, 2047, 2048, 2049, 4096, 4097, 5000, 20000};
	size_t		s;
	long		valid_bad = 0,
				repeat_bad = 0,
				tried = 0;
	unit_rng	r = {18};

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	{
		uint32_t	n = sizes[s];
		tval		v = topk_of((n + 1) / 2, n, 1000, n == 5000);
		uint32_t	pairs[][2] = {{0, 1}, {1, 0}, {0, n - 1}, {n - 1, 0}, {n - 2, n - 1},
		{2047 % n, 2048 % n}, {2048 % n, 2047 % n}, {4095 % n, 4096 % n}, {n / 2, n / 3}};
		size_t		p;
		int			i;

		if (validate(&v, NULL) != BS_OK)
			valid_bad++;
		for (p = 0; p < sizeof(pairs) / sizeof(pairs[0]) + 20; p++)
		{
			uint32_t	from,
						to;
			tval		c;

			if (p < sizeof(pairs) / sizeof(pairs[0]))
			{
				from = pairs[p][0];
				to = pairs[p][1];
			}
			else
			{
				from = (uint32_t) unit_below(&r, n);
				to = (uint32_t) unit_below(&r, n);
			}
			if (from == to)
				continue;
			c = with_repeat(&v, from, to);
			tried++;
			if (!rejected_as_repeat(&c))
			{
				repeat_bad++;
				printf("# %u candidates: slot %u copied onto slot %u not rejected\n", n, from, to);
			}
			free(c.buf);
		}
		/* a value with no repeat stays valid after the rejected ones */
		for (i = 0; i < 2; i++)
			if (validate(&v, NULL) != BS_OK)
				valid_bad++;
		free(v.buf);
	}
	CHECK(repeat_bad == 0,
		  "a repeated candidate is rejected wherever it sits, inside a block of 2048 hashes or across blocks (%ld placements in values of 2 to 20,000 candidates, and of 5000 whose hashes share their top 11 bits; %ld missed)",
		  tried, repeat_bad);
	CHECK(valid_bad == 0, "the same values without the repeat are valid, before and after (%ld not)", valid_bad);
}

/* Validations of different values in turn give each value's own result. */
static void
test_interleaved(void)
{
	tval		a = topk_of(10000, 20000, 0, false),
				b = topk_of(10000, 20000, 1u << 20, false),
				ra = with_repeat(&a, 19999, 3),
				rb = with_repeat(&b, 2, 17000),
				small = topk_of(5, 10, 77, false),
				rsmall = with_repeat(&small, 0, 9);
	const tval *seq[] = {&a, &ra, &b, &rb, &small, &rsmall, &ra, &a, &rsmall, &b, &small, &rb};
	const bool	want_ok[] = {true, false, true, false, true, false, false, true, false, true, true, false};
	int			round,
				i,
				bad = 0;

	for (round = 0; round < 3; round++)
		for (i = 0; i < (int) (sizeof(seq) / sizeof(seq[0])); i++)
			if ((validate(seq[i], NULL) == BS_OK) != want_ok[i] ||
				(!want_ok[i] && !rejected_as_repeat(seq[i])))
				bad++;
	CHECK(bad == 0,
		  "validations of six values (20,000 and 10 candidates, with and without a repeat) in turn, three rounds: each gives its own result (%d not)",
		  bad);
	free(a.buf);
	free(b.buf);
	free(ra.buf);
	free(rb.buf);
	free(small.buf);
	free(rsmall.buf);
}

/* ---- two threads at once ---- */

typedef struct job
{
	const tval *ok;				/* valid */
	const tval *repeat;			/* rejected: a repeated candidate */
	uint64_t	m,
				n;				/* bs_bloom_fpr_exact(m, n, 7) */
	double		fpr;			/* its result in one thread alone */
	int			rounds;
	long		wrong;
} job;

static void *
run_job(void *arg)
{
	job		   *j = arg;
	double	   *work = unit_calloc(BS_FPR_EXACT_WORK_LEN, sizeof(double));
	int			i;

	for (i = 0; i < j->rounds; i++)
	{
		double		p = -1;

		if (validate(j->ok, NULL) != BS_OK)
			j->wrong++;
		if (!rejected_as_repeat(j->repeat))
			j->wrong++;
		if (bs_bloom_fpr_exact(j->m, j->n, 7, work, &p, NULL) != BS_OK || p != j->fpr)
			j->wrong++;
	}
	free(work);
	return NULL;
}

static void
test_threads(void)
{
	tval		a = topk_of(10000, 20000, 0, false),
				b = topk_of(10000, 20000, 1u << 20, false),
				ra = with_repeat(&a, 0, 1),
				rb = with_repeat(&b, 19999, 10000);
	job			jobs[2] = {
		{&a, &rb, 1000, 100, 0, 60, 0},
		{&b, &ra, 1500, 150, 0, 60, 0},
	};
	pthread_t	th[2];
	double	   *work = unit_calloc(BS_FPR_EXACT_WORK_LEN, sizeof(double));
	int			i,
				started = 0;

	for (i = 0; i < 2; i++)
		bs_bloom_fpr_exact(jobs[i].m, jobs[i].n, 7, work, &jobs[i].fpr, NULL);
	free(work);
	for (i = 0; i < 2; i++)
		started += pthread_create(&th[i], NULL, run_job, &jobs[i]) == 0;
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	CHECK(started == 2 && jobs[0].wrong == 0 && jobs[1].wrong == 0,
		  "two threads at once, each validating a value of 20,000 candidates and one with a repeat and computing an exact false-positive rate, %d times: every result as in one thread alone (%ld and %ld wrong)",
		  jobs[0].rounds, jobs[0].wrong, jobs[1].wrong);
	free(a.buf);
	free(b.buf);
	free(ra.buf);
	free(rb.buf);
}

int
main(void)
{
	test_repeats();
	test_interleaved();
	test_threads();
	return unit_done("reentrant");
}
