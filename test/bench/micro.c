/*
 * test/bench/micro.c: C micro-benchmark of the core Bloom filter's insert and
 * lookup against Debian's libbloom (libbloom-dev), same n, same FPR, and of
 * the core's two layouts against each other (classic and blocked).
 *
 *   make test/bench/micro && test/bench/micro [-r REPS] [-p FPR] [-t] [-H] [N ...]
 *
 * N defaults to 10000 1000000 10000000 100000000: filters of about 12 KB
 * (in L1/L2), 1.2 MB (L2/L3), 12 MB and 120 MB (past most L3 caches).
 *
 * For each N both filters are sized for N keys at FPR:
 *   ours      bs_bloom_optimal_bits/hashes (m = ceil(-n ln p / ln^2 2),
 *             k = round(m/n ln 2)); a key is hashed once with bs_hash_bytes
 *             (XXH3-64, seed 0) and its k probe positions come from bs_probe
 *             (splitmix64 outputs reduced by multiply-shift), as in the
 *             extension: bs_bloom_add_hash / bs_bloom_contains_hash, inline.
 *   libbloom  bloom_init(&b, n, p) (bits = (int)(n * bpe), k = ceil(bpe ln 2));
 *             bloom_add/bloom_check hash the key twice with 32-bit
 *             murmurhash2 and probe (a + i b) mod bits (double hashing), via
 *             a shared-library call.
 *   blocked   the core's blocked layout (blocked.h), sized as bloom_empty(n,
 *             p, 'blocked') sizes it (bs_bloom_shape_for): the same hash,
 *             then bs_blocked_add_hash / bs_blocked_contains_hash, inline,
 *             one 64-byte block per key.
 * The keys are the same for both: an array of N distinct 64-bit integers
 * (splitmix64's bijective mixer of 1..N), each passed as its 8 bytes (the
 * canonical bytes of an int8 in the extension); the absent keys are the
 * mixer of N+1..2N, so none was inserted.
 *
 * Each repetition clears the three filters (memset, bloom_reset) and times,
 * in turn, the N inserts, the N lookups of present keys and the N lookups of
 * absent keys of each implementation (which one goes first rotates).  The
 * result is the median over the repetitions, in ns per operation, and the
 * ratios libbloom / ours and classic / blocked (above 1: the second is
 * faster).  A lookup of a present
 * key that answers "absent" is a bug and makes the program fail; the share
 * of absent keys answered "present" is the measured false-positive rate.
 *
 * -H puts the core's two filters (not libbloom's) on transparent huge pages
 * (madvise; the kernel must allow it: /sys/kernel/mm/transparent_hugepage):
 * past the caches each probe also misses the TLB with 4 kB pages.
 *
 * -t prints tab-separated lines (for test/bench/run.sh) instead of the table:
 *   n fpr bytes_ours bytes_libbloom k_ours k_libbloom op ns_ours ns_libbloom ratio
 *   (op: insert, lookup_present, lookup_absent; an extra op "fpr" gives the
 *   measured rates in the ns columns), then the blocked layout against the
 *   classic one in the same columns:
 *   n fpr bytes_blocked bytes_classic k_blocked k_classic blocked.op
 *   ns_blocked ns_classic ratio (op as above, and blocked.fpr).
 */
#define _DEFAULT_SOURCE			/* madvise, MADV_HUGEPAGE */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

/* ours (with -iquote src): src/core/bloom.h */
#include "core/bloom.h"
/* libbloom's header is also called bloom.h; -iquote keeps src out of <> */
#include <bloom.h>

#define MAX_REPS 99

static volatile uint64_t sink;

/* -H: the core's filters on transparent huge pages (madvise), where the kernel allows */
static int	huge_pages = 0;
#define HUGE_PAGE_BYTES (2 * 1024 * 1024)

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* splitmix64's finaliser: a bijection of 64-bit integers. */
static inline uint64_t
mix64(uint64_t z)
{
	z += UINT64_C(0x9E3779B97F4A7C15);
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	double		tmp[MAX_REPS];

	memcpy(tmp, v, sizeof(double) * n);
	qsort(tmp, n, sizeof(double), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* --- ours ------------------------------------------------------------------ */

typedef struct ours
{
	uint8_t    *buf;
	bs_bloom	b;
	uint64_t	bytes;			/* payload bytes (the bits) */
} ours;

/* A core filter of the layout sized for n keys at rate p, as bloom_empty(n, p, layout). */
static void
ours_init(ours *o, uint64_t n, double p, uint32_t layout)
{
	bs_error	err;
	uint64_t	m,
				total;
	uint32_t	k;

	if (bs_bloom_shape_for((double) n, p, layout, &m, &k, &err) != BS_OK ||
		bs_bloom_size(m, &total, &err) != BS_OK)
	{
		fprintf(stderr, "micro: cannot size our filter: %s\n", err.msg);
		exit(2);
	}
	if (huge_pages)
	{
		/* whole 2 MB pages, so that the header's offset does not matter */
		uint64_t	len = (total + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
		void	   *p = NULL;

		if (posix_memalign(&p, HUGE_PAGE_BYTES, len) != 0)
			p = NULL;
#ifdef MADV_HUGEPAGE
		if (p != NULL && madvise(p, len, MADV_HUGEPAGE) != 0)
			fprintf(stderr, "micro: madvise(MADV_HUGEPAGE) failed: %s\n", strerror(errno));
#endif
		o->buf = p;
	}
	else
		o->buf = malloc(total);
	if (o->buf == NULL)
	{
		fprintf(stderr, "micro: out of memory (%" PRIu64 " bytes)\n", total);
		exit(2);
	}
	bs_bloom_init_layout(o->buf, m, k, layout, BS_FAMILY_INTEGER, BS_DEFAULT_SEED);
	bs_bloom_view(o->buf, &o->b);
	o->bytes = bs_bloom_payload_bytes(m);
}

static void
ours_reset(ours *o)
{
	memset(o->b.bits, 0, o->bytes);
}

static double
ours_insert(ours *o, const uint64_t *keys, uint64_t n)
{
	uint8_t    *bits = o->b.bits;
	uint64_t	m = o->b.m;
	uint32_t	k = o->b.k;
	double		t0 = now_ns();

	for (uint64_t i = 0; i < n; i++)
		bs_bloom_add_hash(bits, m, k, bs_hash_bytes(&keys[i], sizeof(uint64_t), BS_DEFAULT_SEED));
	return now_ns() - t0;
}

static double
ours_lookup(ours *o, const uint64_t *keys, uint64_t n, uint64_t *hits)
{
	const uint8_t *bits = o->b.bits;
	uint64_t	m = o->b.m;
	uint32_t	k = o->b.k;
	uint64_t	h = 0;
	double		t0 = now_ns();

	for (uint64_t i = 0; i < n; i++)
		h += bs_bloom_contains_hash(bits, m, k,
									bs_hash_bytes(&keys[i], sizeof(uint64_t), BS_DEFAULT_SEED));
	t0 = now_ns() - t0;
	*hits = h;
	return t0;
}

static double
blocked_insert(ours *o, const uint64_t *keys, uint64_t n)
{
	uint8_t    *bits = o->b.bits;
	uint64_t	m = o->b.m;
	uint32_t	k = o->b.k;
	double		t0 = now_ns();

	for (uint64_t i = 0; i < n; i++)
		bs_blocked_add_hash(bits, m, k, bs_hash_bytes(&keys[i], sizeof(uint64_t), BS_DEFAULT_SEED));
	return now_ns() - t0;
}

static double
blocked_lookup(ours *o, const uint64_t *keys, uint64_t n, uint64_t *hits)
{
	const uint8_t *bits = o->b.bits;
	uint64_t	m = o->b.m;
	uint32_t	k = o->b.k;
	uint64_t	h = 0;
	double		t0 = now_ns();

	for (uint64_t i = 0; i < n; i++)
		h += bs_blocked_contains_hash(bits, m, k,
									  bs_hash_bytes(&keys[i], sizeof(uint64_t), BS_DEFAULT_SEED));
	t0 = now_ns() - t0;
	*hits = h;
	return t0;
}

/* --- libbloom -------------------------------------------------------------- */

static double
lib_insert(struct bloom *b, const uint64_t *keys, uint64_t n)
{
	double		t0 = now_ns();

	for (uint64_t i = 0; i < n; i++)
		bloom_add(b, &keys[i], (int) sizeof(uint64_t));
	return now_ns() - t0;
}

static double
lib_lookup(struct bloom *b, const uint64_t *keys, uint64_t n, uint64_t *hits)
{
	uint64_t	h = 0;
	double		t0 = now_ns();

	for (uint64_t i = 0; i < n; i++)
		h += bloom_check(b, &keys[i], (int) sizeof(uint64_t)) == 1;
	t0 = now_ns() - t0;
	*hits = h;
	return t0;
}

/* --- driver ---------------------------------------------------------------- */

static void
usage(void)
{
	fprintf(stderr,
			"usage: micro [-r REPS] [-p FPR] [-t] [-H] [N ...]\n"
			"  -r REPS  repetitions, the median is reported (default 5; 3 for N >= 10M)\n"
			"  -p FPR   false-positive rate of both filters (default 0.01)\n"
			"  -t       tab-separated output\n"
			"  -H       the core's two filters on transparent huge pages (madvise)\n"
			"  N        keys per filter, 1000 to 2000000000 (default 10000 1000000 10000000 100000000)\n");
	exit(2);
}

static const char *
human_bytes(double b, char *out, size_t len)
{
	if (b >= 1024.0 * 1024)
		snprintf(out, len, "%.1f MB", b / (1024.0 * 1024));
	else
		snprintf(out, len, "%.1f KB", b / 1024.0);
	return out;
}

int
main(int argc, char **argv)
{
	int			reps_opt = 0;
	double		fpr = 0.01;
	int			tsv = 0;
	uint64_t	ns[16];
	int			nn = 0;
	int			failed = 0;

	for (int a = 1; a < argc; a++)
	{
		if (strcmp(argv[a], "-r") == 0 && a + 1 < argc)
		{
			reps_opt = atoi(argv[++a]);
			if (reps_opt < 1 || reps_opt > MAX_REPS)
				usage();
		}
		else if (strcmp(argv[a], "-p") == 0 && a + 1 < argc)
		{
			fpr = strtod(argv[++a], NULL);
			if (!(fpr > 0 && fpr < 1))
				usage();
		}
		else if (strcmp(argv[a], "-t") == 0)
			tsv = 1;
		else if (strcmp(argv[a], "-H") == 0)
			huge_pages = 1;
		else if (argv[a][0] >= '0' && argv[a][0] <= '9' && nn < 16)
		{
			char	   *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(argv[a], &end, 10);
			if (errno || *end || v < 1000 || v > 2000000000ULL)
				usage();
			ns[nn++] = v;
		}
		else
			usage();
	}
	if (nn == 0)
	{
		ns[nn++] = 10000;
		ns[nn++] = 1000000;
		ns[nn++] = 10000000;
		ns[nn++] = 100000000;
	}

	if (!tsv)
	{
		printf("bloomsketch core vs libbloom %s: ns per operation, median of repetitions\n",
			   bloom_version());
		printf("ours: XXH3-64 of the 8-byte key once, k probes by splitmix64 + multiply-shift (inline)\n");
		printf("libbloom: murmurhash2 (32-bit) twice, probes (a + i*b) mod bits (library call)\n");
		printf("blocked: ours in the blocked layout, the k probes in one 64-byte block (inline)\n");
		printf("%-10s %-9s %-18s %-3s %-15s %9s %9s %7s\n",
			   "n", "fpr", "bytes ours/lib", "k", "operation", "ours ns", "lib ns", "lib/ours");
	}

	for (int t = 0; t < nn; t++)
	{
		uint64_t	n = ns[t];
		int			reps = reps_opt ? reps_opt : (n >= 10000000 ? 3 : 5);
		uint64_t   *present = malloc(n * sizeof(uint64_t));
		uint64_t   *absent = malloc(n * sizeof(uint64_t));
		ours		o,
					ob;
		struct bloom lb;

		/* [impl][rep], impl 0: ours (classic), 1: libbloom, 2: blocked */
		double		t_ins[3][MAX_REPS],
					t_hit[3][MAX_REPS],
					t_miss[3][MAX_REPS];
		uint64_t	fp[3] = {0, 0, 0};
		const char *ops[3] = {"insert", "lookup_present", "lookup_absent"};
		const char *names[3] = {"ours", "libbloom", "blocked"};
		double		med[3][3];
		char		b1[32],
					b2[32];

		if (present == NULL || absent == NULL)
		{
			fprintf(stderr, "micro: out of memory for %" PRIu64 " keys\n", n);
			return 2;
		}
		for (uint64_t i = 0; i < n; i++)
		{
			present[i] = mix64(i + 1);
			absent[i] = mix64(n + 1 + i);
		}
		ours_init(&o, n, fpr, BS_LAYOUT_CLASSIC);
		ours_init(&ob, n, fpr, BS_LAYOUT_BLOCKED);
		if (bloom_init(&lb, (int) n, fpr) != 0)
		{
			fprintf(stderr, "micro: libbloom's bloom_init(%" PRIu64 ", %g) failed\n", n, fpr);
			return 2;
		}

		for (int r = 0; r < reps; r++)
		{
			uint64_t	hits;

			/* clearing also faults the pages in before the first timing */
			ours_reset(&o);
			ours_reset(&ob);
			bloom_reset(&lb);
			for (int turn = 0; turn < 3; turn++)
			{
				int			impl = (turn + r) % 3;	/* rotate who goes first */

				switch (impl)
				{
					case 0:
						t_ins[0][r] = ours_insert(&o, present, n);
						t_hit[0][r] = ours_lookup(&o, present, n, &hits);
						break;
					case 1:
						t_ins[1][r] = lib_insert(&lb, present, n);
						t_hit[1][r] = lib_lookup(&lb, present, n, &hits);
						break;
					default:
						t_ins[2][r] = blocked_insert(&ob, present, n);
						t_hit[2][r] = blocked_lookup(&ob, present, n, &hits);
						break;
				}
				if (hits != n)
				{
					fprintf(stderr, "micro: %s: %" PRIu64 " of %" PRIu64 " inserted keys not found\n",
							names[impl], n - hits, n);
					failed = 1;
				}
				switch (impl)
				{
					case 0:
						t_miss[0][r] = ours_lookup(&o, absent, n, &hits);
						break;
					case 1:
						t_miss[1][r] = lib_lookup(&lb, absent, n, &hits);
						break;
					default:
						t_miss[2][r] = blocked_lookup(&ob, absent, n, &hits);
						break;
				}
				fp[impl] = hits;
				sink += hits;
			}
		}
		for (int impl = 0; impl < 3; impl++)
		{
			med[0][impl] = median(t_ins[impl], reps) / (double) n;
			med[1][impl] = median(t_hit[impl], reps) / (double) n;
			med[2][impl] = median(t_miss[impl], reps) / (double) n;
		}

		for (int op = 0; op < 3; op++)
		{
			if (tsv)
				printf("%" PRIu64 "\t%g\t%" PRIu64 "\t%d\t%" PRIu32 "\t%d\t%s\t%.2f\t%.2f\t%.2f\n",
					   n, fpr, o.bytes, lb.bytes, o.b.k, lb.hashes, ops[op],
					   med[op][0], med[op][1], med[op][1] / med[op][0]);
			else
			{
				char		bytes[80];

				snprintf(bytes, sizeof(bytes), "%s/%s",
						 human_bytes((double) o.bytes, b1, sizeof(b1)),
						 human_bytes((double) lb.bytes, b2, sizeof(b2)));
				printf("%-10" PRIu64 " %-9g %-18s %" PRIu32 "/%d %-15s %9.2f %9.2f %7.2f\n",
					   n, fpr, op == 0 ? bytes : "", o.b.k, lb.hashes, ops[op],
					   med[op][0], med[op][1], med[op][1] / med[op][0]);
			}
		}
		if (tsv)
			printf("%" PRIu64 "\t%g\t%" PRIu64 "\t%d\t%" PRIu32 "\t%d\tfpr\t%.5f\t%.5f\t\n",
				   n, fpr, o.bytes, lb.bytes, o.b.k, lb.hashes,
				   (double) fp[0] / (double) n, (double) fp[1] / (double) n);
		else
			printf("%-10s %-9s %-18s %-3s %-15s %9.5f %9.5f   (measured false-positive rate, %d reps)\n",
				   "", "", "", "", "fpr", (double) fp[0] / (double) n,
				   (double) fp[1] / (double) n, reps);

		/* the blocked layout against the classic one */
		if (!tsv)
			printf("%-10s %-9s %-18s %-3s %-15s %9s %9s %7s\n",
				   "", "", "bytes blk/classic", "k", "", "blk ns", "cls ns", "cls/blk");
		for (int op = 0; op < 3; op++)
		{
			if (tsv)
				printf("%" PRIu64 "\t%g\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\tblocked.%s\t%.2f\t%.2f\t%.2f\n",
					   n, fpr, ob.bytes, o.bytes, ob.b.k, o.b.k, ops[op],
					   med[op][2], med[op][0], med[op][0] / med[op][2]);
			else
			{
				char		bytes[80];

				snprintf(bytes, sizeof(bytes), "%s/%s",
						 human_bytes((double) ob.bytes, b1, sizeof(b1)),
						 human_bytes((double) o.bytes, b2, sizeof(b2)));
				printf("%-10s %-9s %-18s %" PRIu32 "/%" PRIu32 " %-15s %9.2f %9.2f %7.2f\n",
					   "", "", op == 0 ? bytes : "", ob.b.k, o.b.k, ops[op],
					   med[op][2], med[op][0], med[op][0] / med[op][2]);
			}
		}
		if (tsv)
			printf("%" PRIu64 "\t%g\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\tblocked.fpr\t%.5f\t%.5f\t\n",
				   n, fpr, ob.bytes, o.bytes, ob.b.k, o.b.k,
				   (double) fp[2] / (double) n, (double) fp[0] / (double) n);
		else
			printf("%-10s %-9s %-18s %-3s %-15s %9.5f %9.5f   (measured false-positive rate, blocked/classic)\n",
				   "", "", "", "", "fpr", (double) fp[2] / (double) n,
				   (double) fp[0] / (double) n);
		fflush(stdout);

		bloom_free(&lb);
		free(o.buf);
		free(ob.buf);
		free(present);
		free(absent);
	}
	return failed;
}
