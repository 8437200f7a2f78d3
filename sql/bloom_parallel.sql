--
-- bloom_parallel: parallel plans (Partial Aggregate, Gather, Finalize
-- Aggregate) for bloom_agg and bloom_union_agg, and results byte-identical
-- to the serial plan, including a group past the exact phase (more than
-- 1,048,576 distinct values: the dense phase, src/core/bloom_agg_state.h).
--
-- Parallel workers cannot read temporary tables, so the data are in regular
-- tables (dropped at the end); results go to temporary tables.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- The test helper regress_plan_sum(statement, counter), not part of the
-- extension: sql/include/regress_plan_sum.sql.
\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/regress_plan_sum.sql

CREATE TABLE par_data AS
SELECT x::bigint AS x, (x % 10)::integer AS g, 'v' || x AS t
FROM generate_series(1, 300000) x;
ANALYZE par_data;

-- ---------------------------------------------------------------------------
-- Serial results
-- ---------------------------------------------------------------------------
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE par_serial AS
SELECT bloom_agg(x) AS a, bloom_agg(x, 0.001) AS b, bloom_agg(x, 300000, 0.01) AS c,
       bloom_agg(t) AS d, bloom_agg(t, 500000, 0.02) AS e
FROM par_data;
CREATE TEMP TABLE par_serial_g AS
SELECT g, bloom_agg(x) AS a, bloom_agg(x, 0.001) AS b, bloom_agg(x, 30000, 0.01) AS c, bloom_agg(t) AS d
FROM par_data GROUP BY g;

-- ---------------------------------------------------------------------------
-- Parallel plans
-- ---------------------------------------------------------------------------
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x) FROM par_data;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 0.001) FROM par_data;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 300000, 0.01) FROM par_data;
EXPLAIN (COSTS OFF) SELECT bloom_agg(t) FROM par_data;
EXPLAIN (COSTS OFF) SELECT g, bloom_agg(x) FROM par_data GROUP BY g;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE par_parallel AS
  SELECT bloom_agg(x) AS a, bloom_agg(x, 0.001) AS b, bloom_agg(x, 300000, 0.01) AS c,
         bloom_agg(t) AS d, bloom_agg(t, 500000, 0.02) AS e
  FROM par_data$$, 'Workers Launched') >= 1 AS workers_launched;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE par_parallel_g AS
  SELECT g, bloom_agg(x) AS a, bloom_agg(x, 0.001) AS b, bloom_agg(x, 30000, 0.01) AS c, bloom_agg(t) AS d
  FROM par_data GROUP BY g$$, 'Workers Launched') >= 1 AS workers_launched;
-- Byte-identical to the serial plan.
SELECT s.a = p.a AS auto, s.b = p.b AS fpr, s.c = p.c AS capacity, s.d = p.d AS text_auto, s.e = p.e AS text_capacity,
       (bloom_info(p.a)).bits = bloom_optimal_bits(300000, 0.01) AS sized_for_300000
FROM par_serial s, par_parallel p;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.a = p.a AND s.b = p.b AND s.c = p.c AND s.d = p.d) AS identical
FROM par_serial_g s JOIN par_parallel_g p USING (g);
-- No false negatives in the parallel results.
SELECT count(*) FILTER (WHERE NOT (a @> x AND b @> x AND c @> x AND d @> t AND e @> t)) AS false_negatives
FROM par_parallel, par_data;

-- ---------------------------------------------------------------------------
-- bloom_union_agg in parallel
-- ---------------------------------------------------------------------------
RESET max_parallel_workers_per_gather;
SET max_parallel_workers_per_gather = 0;
-- 500 filters of the parts of 1..30000, each with the whole's shape.
CREATE TABLE par_filters AS
SELECT x % 500 AS part, bloom_agg(x, 30000, 0.01) AS f FROM par_data WHERE x <= 30000 GROUP BY x % 500;
ALTER TABLE par_filters SET (parallel_workers = 2);
ANALYZE par_filters;
CREATE TEMP TABLE par_union_serial AS
SELECT bloom_union_agg(f) AS u, bloom_intersection_agg(f) AS i,
       (SELECT bloom_agg(x, 30000, 0.01) FROM par_data WHERE x <= 30000) AS whole
FROM par_filters;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(f) FROM par_filters;
EXPLAIN (COSTS OFF) SELECT bloom_intersection_agg(f) FROM par_filters;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE par_union_parallel AS
  SELECT bloom_union_agg(f) AS u, bloom_intersection_agg(f) AS i FROM par_filters$$, 'Workers Launched') >= 1 AS workers_launched;
SELECT s.u = p.u AS union_identical, s.i = p.i AS intersection_identical,
       p.u = s.whole AS union_is_filter_of_whole
FROM par_union_serial s, par_union_parallel p;
DROP TABLE par_filters;

-- ---------------------------------------------------------------------------
-- A group of 1,200,000 distinct values: the dense phase
-- ---------------------------------------------------------------------------
CREATE TABLE par_big AS SELECT x::bigint AS x FROM generate_series(1, 1200000) x;
ANALYZE par_big;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE par_big_serial AS SELECT bloom_agg(x) AS a, bloom_agg(x, 0.001) AS b FROM par_big;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x), bloom_agg(x, 0.001) FROM par_big;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE par_big_parallel AS SELECT bloom_agg(x) AS a, bloom_agg(x, 0.001) AS b FROM par_big$$, 'Workers Launched')
  >= 1 AS workers_launched;
SELECT s.a = p.a AS auto_identical, s.b = p.b AS fpr_identical FROM par_big_serial s, par_big_parallel p;
-- Past the exact phase the filter is folded to a size that keeps the rate:
-- at most 1.5 x the optimal bits, and a measured rate <= 1.2 x the target
-- over 200000 absent keys; no false negatives.
SELECT p, i.bits <= 1.5 * bloom_optimal_bits(1200000, p) AS within_1_5x,
       i.bits >= bloom_optimal_bits(1200000, p) AS at_least_optimal, i.key_family
FROM (SELECT 0.01::float8 AS p, a AS f FROM par_big_parallel
      UNION ALL SELECT 0.001, b FROM par_big_parallel) s, bloom_info(f) i ORDER BY p DESC;
SELECT count(*) FILTER (WHERE a @> -y) <= 0.012 * count(*) AS fpr_ok_1pct,
       count(*) FILTER (WHERE b @> -y) <= 0.0012 * count(*) AS fpr_ok_0_1pct
FROM par_big_parallel, generate_series(1, 200000) y;
SELECT count(*) FILTER (WHERE NOT (a @> x AND b @> x)) AS false_negatives
FROM par_big_parallel, par_big;
SELECT abs(bloom_cardinality(a) - 1200000) <= 60000 AS cardinality_within_5pct FROM par_big_parallel;
DROP TABLE par_big;

RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
DROP TABLE par_data;
