-- test/accuracy/topk.sql: recall of topk_agg, the fraction of the true top k that it lists,
-- against k and the skew of the stream (doc/accuracy.md, section 6).
--
-- psql variables: topk_rows (N, rows of each stream).
--
-- Stream s (s = 0.8, 1.0, 1.2, 1.5): key acc_zipf(i, s, 10^6, 42) for i = 1 .. N, so key j
-- occurs with a probability close to j^-s / H(10^6, s); s = 1.0 is the stream of doc/topk.md.
-- For each stream and k: one sketch topk_agg(key, k) (epsilon 0.001, delta 0.01, the defaults)
-- and its k listed values (topk_items).  With ties: f_k is the k-th largest true count, and a
-- listed value counts as found when its true count is at least f_k (any of the tied values is
-- a correct k-th).  recall = found / k.  guaranteed = the values with f > N / (2k) + eps N,
-- which doc/topk.md, section 3.2, says are always candidates (at most k of them), over k.
-- clear_total: the true top-k values whose count is at least eps N above the (k+1)-th largest
-- (an estimate can be up to about eps N high, so only those cannot be overtaken by the values
-- just below the cut); clear_found: how many of them are listed.

SET work_mem = '256MB';

CREATE TABLE acc_topk_stream (s double precision, key bigint);
INSERT INTO acc_topk_stream
SELECT s, acc_zipf(i, s, 1000000, 42)
FROM unnest(ARRAY[0.8, 1.0, 1.2, 1.5]::float8[]) s, generate_series(1, :topk_rows) i;
CREATE TABLE acc_topk_truth AS
SELECT s, key, f, row_number() OVER (PARTITION BY s ORDER BY f DESC, key) AS rank
FROM (SELECT s, key, count(*) AS f FROM acc_topk_stream GROUP BY s, key) t;
CREATE INDEX ON acc_topk_truth (s, key);
CREATE INDEX ON acc_topk_truth (s, rank);
CREATE INDEX ON acc_topk_truth (s, f);
ANALYZE acc_topk_stream, acc_topk_truth;

CREATE TABLE acc_topk (
	s double precision, k integer, n bigint, distinct_keys bigint, eps double precision,
	f_k bigint, f_k1 bigint, listed integer, found integer, exact_order boolean,
	guaranteed integer, clear_total integer, clear_found integer,
	below_true integer, max_over bigint, top_share double precision,
	seconds double precision
);

CREATE FUNCTION acc_topk_point(st double precision, kk integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	t topk;
	t0 timestamptz := clock_timestamp();
	secs double precision;
BEGIN
	SELECT topk_agg(key, kk) INTO t FROM acc_topk_stream WHERE s = st;
	secs := extract(epoch FROM clock_timestamp() - t0);
	INSERT INTO acc_topk
	SELECT st, kk, info.total,
	       (SELECT count(*) FROM acc_topk_truth WHERE s = st),
	       info.epsilon, fk.f, fk1.f,
	       count(*), count(*) FILTER (WHERE tr.f >= fk.f),
	       -- listed in the true order: the i-th listed value has the i-th largest true count
	       bool_and(tr.f = (SELECT f FROM acc_topk_truth WHERE s = st AND rank = it.ord)),
	       (SELECT least(kk, count(*)) FROM acc_topk_truth
	         WHERE s = st AND f > info.total / (2.0 * kk) + info.epsilon * info.total),
	       -- "clear" values: in the true top k and at least eps N above the (k+1)-th count
	       (SELECT count(*) FROM acc_topk_truth
	         WHERE s = st AND rank <= kk AND f >= fk1.f + info.epsilon * info.total),
	       count(*) FILTER (WHERE tr.f >= fk1.f + info.epsilon * info.total),
	       count(*) FILTER (WHERE it.frequency < tr.f),
	       max(it.frequency - tr.f),
	       (SELECT sum(f)::float8 / info.total FROM acc_topk_truth WHERE s = st AND rank <= kk),
	       secs
	FROM topk_items(t) WITH ORDINALITY AS it(value, frequency, ord)
	     JOIN acc_topk_truth tr ON tr.s = st AND tr.key = it.value::bigint,
	     topk_info(t) info,
	     (SELECT f FROM acc_topk_truth WHERE s = st AND rank = kk) fk,
	     (SELECT f FROM acc_topk_truth WHERE s = st AND rank = kk + 1) fk1
	GROUP BY info.total, info.epsilon, fk.f, fk1.f;
END $$;

SELECT acc_topk_point(s, k)
FROM unnest(ARRAY[0.8, 1.0, 1.2, 1.5]::float8[]) s,
     unnest(ARRAY[1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]) k
ORDER BY s, k \g /dev/null

-- The TSV.
CREATE VIEW acc_topk_out AS
SELECT s, k, n, distinct_keys, eps, f_k, f_k1, listed, found, found::float8 / k AS recall,
       exact_order, guaranteed, guaranteed::float8 / k AS guaranteed_fraction,
       clear_total, clear_found,
       below_true, max_over, max_over / (eps * n) AS max_over_bound, top_share,
       (n / (2.0 * k) + eps * n)::bigint AS threshold, seconds
FROM acc_topk ORDER BY s, k;
