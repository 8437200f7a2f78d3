-- test/accuracy/topk_weighted.sql: recall of topk_agg_weighted, the fraction of the k values
-- with the largest sums of weights that it lists, against k and the weights (doc/accuracy.md,
-- section "Weighted top-k").
--
-- psql variables: topk_rows (rows of each stream).
--
-- Keys: acc_zipf(i, 1.0, 10^6, 42) for i = 1 .. topk_rows (the s = 1.0 stream of topk.sql).
-- Weights, three streams:
--   uniform  1 + floor(100 u), u = acc_unit(i, 7): independent of the key, 1 .. 100
--   pareto   floor(u^(-1/1.2)), capped at 10^6: heavy-tailed (a few rows weigh thousands), so
--            a rare key can win by one heavy row
--   sqrt     ceil(sqrt(key)): rare keys weigh more, so the sums fall as about j^-0.5 instead
--            of j^-1: a flatter top than the counts
-- For each stream and k: topk_agg_weighted(key, w, k) (the defaults: epsilon 0.001, delta
-- 0.05, C = max(2k, 1000) values tracked), built by a serial plan in row order, and its k
-- listed values against the true sums, with the definitions of topk.sql (ties at the cut count
-- as found; certified values are proven in the top k by the bounds; clear values are at least
-- eps N above the (k+1)-th sum; frequency is a lower bound; outside_bounds counts the listed
-- values whose true sum is outside [lower_bound, upper_bound], outside_bounds_all every
-- distinct key's through topk_bounds; N is the sum of weights).

SET work_mem = '256MB';
SET max_parallel_workers_per_gather = 0;
SET synchronize_seqscans = off;

CREATE TABLE acc_topkw_stream (weights text, key bigint, w bigint);
INSERT INTO acc_topkw_stream
SELECT 'uniform', acc_zipf(i, 1.0, 1000000, 42), 1 + floor(100 * acc_unit(i, 7))::bigint
FROM generate_series(1, :topk_rows) i;
INSERT INTO acc_topkw_stream
SELECT 'pareto', acc_zipf(i, 1.0, 1000000, 42), least(1000000, floor(power(acc_unit(i, 7), -1 / 1.2)))::bigint
FROM generate_series(1, :topk_rows) i;
INSERT INTO acc_topkw_stream
SELECT 'sqrt', key, ceil(sqrt(key))::bigint
FROM (SELECT acc_zipf(i, 1.0, 1000000, 42) AS key FROM generate_series(1, :topk_rows) i) t;
CREATE TABLE acc_topkw_truth AS
SELECT weights, key, f, row_number() OVER (PARTITION BY weights ORDER BY f DESC, key) AS rank
FROM (SELECT weights, key, sum(w)::bigint AS f FROM acc_topkw_stream GROUP BY weights, key) t;
CREATE INDEX ON acc_topkw_truth (weights, key);
CREATE INDEX ON acc_topkw_truth (weights, rank);
CREATE INDEX ON acc_topkw_stream (weights);
ANALYZE acc_topkw_stream, acc_topkw_truth;

CREATE TABLE acc_topkw (
	weights text, k integer, rows bigint, n bigint, distinct_keys bigint, eps double precision,
	capacity integer, f_k bigint, f_k1 bigint, listed integer, found integer, certified integer,
	clear_total integer, clear_found integer, exact integer, outside_bounds integer,
	outside_bounds_all bigint, max_under bigint, max_width bigint, untracked_max bigint,
	seconds double precision
);

CREATE TABLE acc_topkw_sketch (t topk);

CREATE FUNCTION acc_topkw_point(ws text, kk integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	t topk;
	t0 timestamptz := clock_timestamp();
	secs double precision;
	info record;
	unlisted_max bigint;
BEGIN
	SELECT topk_agg_weighted(key, w, kk) INTO t FROM acc_topkw_stream WHERE weights = ws;
	secs := extract(epoch FROM clock_timestamp() - t0);
	SELECT * INTO info FROM topk_info(t);
	-- the lookups of every key read it from a table: a stored (compressed or toasted) value is
	-- checked once per query, one in a variable at every call
	DELETE FROM acc_topkw_sketch;
	INSERT INTO acc_topkw_sketch VALUES (t);
	SELECT greatest(info.untracked_max, max(b.upper_bound)) INTO unlisted_max
	FROM topk_items_bounds(t, info.capacity) WITH ORDINALITY AS b(value, frequency, lower_bound, upper_bound, ord)
	WHERE b.ord > kk;
	INSERT INTO acc_topkw
	SELECT ws, kk, (SELECT count(*) FROM acc_topkw_stream WHERE weights = ws), info.total,
	       (SELECT count(*) FROM acc_topkw_truth WHERE weights = ws),
	       info.epsilon, info.capacity, fk.f, fk1.f,
	       count(*), count(*) FILTER (WHERE tr.f >= fk.f),
	       count(*) FILTER (WHERE it.lower_bound >= unlisted_max),
	       (SELECT count(*) FROM acc_topkw_truth
	         WHERE weights = ws AND rank <= kk AND f >= fk1.f + info.epsilon * info.total),
	       count(*) FILTER (WHERE tr.f >= fk1.f + info.epsilon * info.total),
	       count(*) FILTER (WHERE it.frequency = tr.f),
	       count(*) FILTER (WHERE tr.f NOT BETWEEN it.lower_bound AND it.upper_bound),
	       (SELECT count(*) FROM acc_topkw_truth a, acc_topkw_sketch sk, topk_bounds(sk.t, a.key) b
	         WHERE a.weights = ws AND a.f NOT BETWEEN b.lower_bound AND b.upper_bound),
	       max(tr.f - it.frequency),
	       max(it.upper_bound - it.lower_bound),
	       info.untracked_max,
	       secs
	FROM topk_items_bounds(t) WITH ORDINALITY AS it(value, frequency, lower_bound, upper_bound, ord)
	     JOIN acc_topkw_truth tr ON tr.weights = ws AND tr.key = it.value::bigint,
	     (SELECT f FROM acc_topkw_truth WHERE weights = ws AND rank = kk) fk,
	     (SELECT f FROM acc_topkw_truth WHERE weights = ws AND rank = kk + 1) fk1
	GROUP BY fk.f, fk1.f;
END $$;

SELECT acc_topkw_point(ws, k)
FROM unnest(ARRAY['uniform', 'pareto', 'sqrt']) ws,
     unnest(ARRAY[1, 10, 100, 1000]) k
ORDER BY ws, k \g /dev/null

-- The TSV.
CREATE VIEW acc_topkw_out AS
SELECT weights, k, rows, n, distinct_keys, eps, capacity, f_k, f_k1, listed, found,
       found::float8 / k AS recall, certified, clear_total, clear_found, exact, outside_bounds,
       outside_bounds_all, max_under, max_under / (eps * n) AS max_under_bound,
       max_width / (eps * n) AS max_width_bound, untracked_max,
       untracked_max / (eps * n) AS untracked_max_bound, seconds
FROM acc_topkw ORDER BY weights, k;
