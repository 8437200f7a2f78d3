-- test/accuracy/cms.sql: Count-Min over-estimates against the bound eps N, on a skewed and a
-- uniform stream, for several epsilon and delta (doc/accuracy.md, section 5).
--
-- psql variables: cms_rows (N, rows of each stream).
--
-- Streams (deterministic, from row numbers i = 1 .. N):
--   zipf     key acc_zipf(i, 1.0, 10^6, 42): the stream of doc/cms.md, section 4 (key j with a
--            probability close to 1 / (j ln(10^6 + 1)))
--   uniform  key 1 + floor(acc_unit(i, 7) * 100000): 100,000 keys, each about N / 100,000 times
-- For each stream and each (epsilon, delta): one sketch cms_agg(key, epsilon, delta) of the
-- stream, then every distinct key's estimate against its true count f.  over = estimate - f;
-- bound = cms_error_bound(s) = (e / w) N, the eps N the shape guarantees.

SET work_mem = '256MB';

CREATE TABLE acc_stream (stream text, i bigint, key bigint);
INSERT INTO acc_stream SELECT 'zipf', i, acc_zipf(i, 1.0, 1000000, 42) FROM generate_series(1, :cms_rows) i;
INSERT INTO acc_stream SELECT 'uniform', i, 1 + floor(acc_unit(i, 7) * 100000)::bigint FROM generate_series(1, :cms_rows) i;
CREATE TABLE acc_truth AS SELECT stream, key, count(*) AS f FROM acc_stream GROUP BY stream, key;
ANALYZE acc_stream, acc_truth;

CREATE TABLE acc_cms (
	stream text, eps_asked double precision, delta_asked double precision,
	width bigint, depth integer, eps double precision, delta double precision, total bigint,
	bound double precision, keys bigint, below_true bigint, exact bigint, above_bound bigint,
	mean_over double precision, p50_over bigint, p90_over bigint, p99_over bigint, max_over bigint,
	absent_keys bigint, absent_above_bound bigint, absent_max bigint,
	cdf double precision[]  -- over / bound at the quantiles 0, 0.01, ..., 1 of the keys
);

CREATE FUNCTION acc_cms_point(st text, e double precision, d double precision) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	s cms;
BEGIN
	SELECT cms_agg(key, e, d) INTO s FROM acc_stream WHERE stream = st;
	INSERT INTO acc_cms
	SELECT st, e, d, i.width, i.depth, i.epsilon, i.delta, i.total, cms_error_bound(s),
	       count(*), count(*) FILTER (WHERE est < f), count(*) FILTER (WHERE est = f),
	       count(*) FILTER (WHERE est - f > cms_error_bound(s)),
	       avg(est - f), percentile_disc(0.5) WITHIN GROUP (ORDER BY est - f),
	       percentile_disc(0.9) WITHIN GROUP (ORDER BY est - f),
	       percentile_disc(0.99) WITHIN GROUP (ORDER BY est - f), max(est - f),
	       a.keys, a.above, a.mx,
	       percentile_cont((SELECT array_agg(q / 100.0) FROM generate_series(0, 100) q))
	           WITHIN GROUP (ORDER BY (est - f) / cms_error_bound(s))
	FROM (SELECT t.f, s -> t.key AS est FROM acc_truth t WHERE t.stream = st) x,
	     cms_info(s) i,
	     -- 100,000 keys that are not in the stream (negative): their estimate is all error
	     (SELECT count(*) AS keys, count(*) FILTER (WHERE s -> k > cms_error_bound(s)) AS above, max(s -> k) AS mx
	        FROM generate_series(-100000::bigint, -1) k) a
	GROUP BY i.width, i.depth, i.epsilon, i.delta, i.total, a.keys, a.above, a.mx;
END $$;

SELECT acc_cms_point(st, e, d)
FROM unnest(ARRAY['zipf', 'uniform']) WITH ORDINALITY AS ss(st, si),
     unnest(ARRAY[0.01, 0.005, 0.002, 0.001, 0.0005]::float8[]) e,
     unnest(ARRAY[0.5, 0.2, 0.05, 0.01]::float8[]) d
ORDER BY si, e DESC, d DESC \g /dev/null

-- The TSVs.  within_bound is the fraction of keys with over <= bound, to compare with 1 - delta.
CREATE VIEW acc_cms_out AS
SELECT stream, eps_asked, delta_asked, width, depth, eps, delta, total, bound, keys, below_true, exact,
       above_bound, 1 - above_bound::float8 / keys AS within_bound, 1 - delta AS one_minus_delta,
       mean_over, p50_over, p90_over, p99_over, max_over,
       mean_over / total AS mean_over_n, p99_over::float8 / total AS p99_over_n, max_over::float8 / total AS max_over_n,
       max_over / bound AS max_over_bound,
       absent_keys, absent_above_bound, absent_max
FROM acc_cms ORDER BY stream DESC, eps_asked DESC, delta_asked DESC;

CREATE VIEW acc_cms_cdf_out AS
SELECT stream, eps_asked, depth, ((q - 1) / 100.0)::float8 AS fraction_of_keys, v AS over_over_bound
FROM acc_cms, unnest(cdf) WITH ORDINALITY AS u(v, q)
ORDER BY stream DESC, eps_asked DESC, depth, q;

CREATE VIEW acc_streams_out AS
SELECT stream, sum(f) AS rows, count(*) AS distinct_keys, max(f) AS max_count,
       count(*) FILTER (WHERE f = 1) AS keys_seen_once
FROM acc_truth GROUP BY stream ORDER BY stream DESC;
