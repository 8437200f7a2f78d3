-- test/accuracy/topk.sql: recall of topk_agg, the fraction of the true top k that it lists,
-- against k and the skew of the stream, and its bounds against the true counts
-- (doc/accuracy.md, section 6).
--
-- psql variables: topk_rows (N, rows of each stream).
--
-- Stream s (s = 0.8, 1.0, 1.2, 1.5): key acc_zipf(i, s, 10^6, 42) for i = 1 .. N, so key j
-- occurs with a probability close to j^-s / H(10^6, s); s = 1.0 is the stream of doc/topk.md.
-- For each stream and k: one sketch topk_agg(key, k) (the defaults: epsilon 0.001, delta
-- 0.05; it tracks C = max(2k, 1000) values), built by a serial plan in row order, and its k
-- listed values (topk_items_bounds: frequency, the lower bound, and the upper bound).
-- With ties: f_k is the k-th largest true count, and a listed value counts as found when its
-- true count is at least f_k (any of the tied values is a correct k-th).  recall = found / k.
-- Columns (eps N: eps = topk_info's epsilon, e / width; N the total):
--   exact_order     the i-th listed value has the i-th largest true count, for every i
--   certified       listed values whose lower bound is at least the upper bound of every value
--                   not listed (the larger of untracked_max and the upper bounds of the held
--                   values ranked below k): the sketch itself proves they are in the top k
--   clear_total     true top-k values whose count is at least eps N above the (k+1)-th largest;
--   clear_found     how many of them are listed
--   exact           listed values whose frequency is their true count
--   exact_known     listed values whose lower and upper bounds are equal (known exactly)
--   outside_bounds  listed values whose true count is outside [lower_bound, upper_bound]
--   outside_bounds_all  the same for every distinct key of the stream, by topk_bounds (held or not)
--   max_under       the largest true count - frequency over the listed values (frequency is a
--                   lower bound); max_under_bound the same over eps N
--   max_width_bound the largest upper_bound - lower_bound of a listed value, over eps N
--   untracked_max   topk_info's bound on the count of any value not held; _bound over eps N
--   top_share       the share of N of the true top k
--   bytes           topk_info's bytes (with the 4-byte length word); seconds, to build the sketch

SET work_mem = '256MB';
SET max_parallel_workers_per_gather = 0;
SET synchronize_seqscans = off;

CREATE TABLE acc_topk_stream (s double precision, key bigint);
INSERT INTO acc_topk_stream
SELECT s, acc_zipf(i, s, 1000000, 42)
FROM unnest(ARRAY[0.8, 1.0, 1.2, 1.5]::float8[]) s, generate_series(1, :topk_rows) i;
CREATE INDEX ON acc_topk_stream (s);
CREATE TABLE acc_topk_truth AS
SELECT s, key, f, row_number() OVER (PARTITION BY s ORDER BY f DESC, key) AS rank
FROM (SELECT s, key, count(*) AS f FROM acc_topk_stream GROUP BY s, key) t;
CREATE INDEX ON acc_topk_truth (s, key);
CREATE INDEX ON acc_topk_truth (s, rank);
CREATE INDEX ON acc_topk_truth (s, f);
ANALYZE acc_topk_stream, acc_topk_truth;

CREATE TABLE acc_topk (
	s double precision, k integer, n bigint, distinct_keys bigint, eps double precision,
	capacity integer, f_k bigint, f_k1 bigint, listed integer, found integer,
	exact_order boolean, certified integer, clear_total integer, clear_found integer,
	exact integer, exact_known integer, outside_bounds integer, outside_bounds_all bigint,
	max_under bigint, max_width bigint, untracked_max bigint, top_share double precision,
	bytes integer, seconds double precision
);

CREATE TABLE acc_topk_sketch (t topk);

CREATE FUNCTION acc_topk_point(st double precision, kk integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	t topk;
	t0 timestamptz := clock_timestamp();
	secs double precision;
	info record;
	unlisted_max bigint;
BEGIN
	-- one serial scan of the stream's rows, in the order they were written
	SELECT topk_agg(key, kk) INTO t FROM acc_topk_stream WHERE s = st;
	secs := extract(epoch FROM clock_timestamp() - t0);
	SELECT * INTO info FROM topk_info(t);
	-- the lookups of every key read it from a table: a stored (compressed or toasted) value is
	-- checked once per query, one in a variable at every call
	DELETE FROM acc_topk_sketch;
	INSERT INTO acc_topk_sketch VALUES (t);
	-- the most a value not listed can have occurred
	SELECT greatest(info.untracked_max, max(b.upper_bound)) INTO unlisted_max
	FROM topk_items_bounds(t, info.capacity) WITH ORDINALITY AS b(value, frequency, lower_bound, upper_bound, ord)
	WHERE b.ord > kk;
	INSERT INTO acc_topk
	SELECT st, kk, info.total,
	       (SELECT count(*) FROM acc_topk_truth WHERE s = st),
	       info.epsilon, info.capacity, fk.f, fk1.f,
	       count(*), count(*) FILTER (WHERE tr.f >= fk.f),
	       -- listed in the true order: the i-th listed value has the i-th largest true count
	       bool_and(tr.f = (SELECT f FROM acc_topk_truth WHERE s = st AND rank = it.ord)),
	       count(*) FILTER (WHERE it.lower_bound >= unlisted_max),
	       -- "clear" values: in the true top k and at least eps N above the (k+1)-th count
	       (SELECT count(*) FROM acc_topk_truth
	         WHERE s = st AND rank <= kk AND f >= fk1.f + info.epsilon * info.total),
	       count(*) FILTER (WHERE tr.f >= fk1.f + info.epsilon * info.total),
	       count(*) FILTER (WHERE it.frequency = tr.f),
	       count(*) FILTER (WHERE it.lower_bound = it.upper_bound),
	       count(*) FILTER (WHERE tr.f NOT BETWEEN it.lower_bound AND it.upper_bound),
	       (SELECT count(*) FROM acc_topk_truth a, acc_topk_sketch sk, topk_bounds(sk.t, a.key) b
	         WHERE a.s = st AND a.f NOT BETWEEN b.lower_bound AND b.upper_bound),
	       max(tr.f - it.frequency),
	       max(it.upper_bound - it.lower_bound),
	       info.untracked_max,
	       (SELECT sum(f)::float8 / info.total FROM acc_topk_truth WHERE s = st AND rank <= kk),
	       info.bytes, secs
	FROM topk_items_bounds(t) WITH ORDINALITY AS it(value, frequency, lower_bound, upper_bound, ord)
	     JOIN acc_topk_truth tr ON tr.s = st AND tr.key = it.value::bigint,
	     (SELECT f FROM acc_topk_truth WHERE s = st AND rank = kk) fk,
	     (SELECT f FROM acc_topk_truth WHERE s = st AND rank = kk + 1) fk1
	GROUP BY fk.f, fk1.f;
END $$;

SELECT acc_topk_point(s, k)
FROM unnest(ARRAY[0.8, 1.0, 1.2, 1.5]::float8[]) s,
     unnest(ARRAY[1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]) k
ORDER BY s, k \g /dev/null

-- The TSV.
CREATE VIEW acc_topk_out AS
SELECT s, k, n, distinct_keys, eps, capacity, f_k, f_k1, listed, found,
       found::float8 / k AS recall, exact_order, certified, certified::float8 / k AS certified_fraction,
       clear_total, clear_found, exact, exact_known, outside_bounds, outside_bounds_all,
       max_under, max_under / (eps * n) AS max_under_bound, max_width / (eps * n) AS max_width_bound,
       untracked_max, untracked_max / (eps * n) AS untracked_max_bound, top_share, bytes, seconds
FROM acc_topk ORDER BY s, k;
