--
-- topk_bounds: what a topk of format 2 (1.5) says of a count, and the
-- guarantee behind it.  Every value it holds has a lower bound (the
-- occurrences it counted while it held the value, also its estimate) and an
-- upper bound; every value it does not hold occurred at most untracked_max
-- times, and at most its Count-Min estimate.  The functions: topk_items(t, n)
-- and topk_items_bounds(t [, n]) for any n up to the capacity,
-- topk_bounds(t, value) and topk_upper_bound(t, value) (->) for any value.
-- The guarantee is checked for every value of a skewed and of a uniform
-- stream, in serial and parallel plans, after merges and rollups, weighted
-- and unweighted, and with topk_add.  Serial and parallel plans may list
-- other values near the bottom of the list: the bounds are compared with the
-- truth, not the bytes with each other.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/regress_plan_sum.sql

-- ---------------------------------------------------------------------------
-- The functions on a small sketch: 1..200 mod 40 with 1 and 2 repeated, k 2,
-- epsilon 0.1 (capacity 10, so 30 of the 40 values are dropped on the way)
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE tb_small AS
SELECT topk_agg(v, 2, 0.1, 0.05) AS t
FROM (SELECT x % 40 AS v FROM generate_series(1, 200) x
      UNION ALL SELECT 1 FROM generate_series(1, 30)
      UNION ALL SELECT 2 FROM generate_series(1, 20)) s;
SELECT k, capacity, candidates, untracked_max, total FROM tb_small, topk_info(t);
SELECT * FROM topk_items((SELECT t FROM tb_small));
SELECT * FROM topk_items_bounds((SELECT t FROM tb_small));
-- Any n from 1 to the capacity: the first n of one list.
SELECT * FROM topk_items_bounds((SELECT t FROM tb_small), 10);
SELECT (SELECT array_agg(value) FROM topk_items((SELECT t FROM tb_small), 5))
     = (SELECT array_agg(value) FROM (SELECT value FROM topk_items_bounds((SELECT t FROM tb_small), 10) LIMIT 5) s) AS prefix;
SELECT count(*) AS one FROM topk_items((SELECT t FROM tb_small), 1);
-- n outside 1 .. capacity: 22023; NULL: no rows (the functions are strict).
SELECT * FROM topk_items((SELECT t FROM tb_small), 11);
\echo SQLSTATE :SQLSTATE
SELECT * FROM topk_items_bounds((SELECT t FROM tb_small), 0);
\echo SQLSTATE :SQLSTATE
SELECT * FROM topk_items((SELECT t FROM tb_small), -1);
\echo SQLSTATE :SQLSTATE
SELECT count(*) AS no_rows FROM topk_items((SELECT t FROM tb_small), NULL);
-- topk_bounds and -> for any value: a held one (1), one held with a count
-- that may include some before it was held, one not held (39) and one never
-- seen (1000).
SELECT v, b.*, (SELECT t FROM tb_small) -> v AS arrow
FROM (VALUES (1), (2), (39), (1000)) s(v), topk_bounds((SELECT t FROM tb_small), v) b;
-- The true counts of these values, for comparison.
SELECT v, count(*) AS true_count
FROM (SELECT x % 40 AS v FROM generate_series(1, 200) x
      UNION ALL SELECT 1 FROM generate_series(1, 30) UNION ALL SELECT 2 FROM generate_series(1, 20)) s
WHERE v IN (1, 2, 39) GROUP BY v ORDER BY v;
-- Value types: smallint and bigint look up an integer sketch, an unknown
-- literal resolves to text; another family is 42804; NULLs give NULL.
SELECT topk_upper_bound(t, 1::smallint) = topk_upper_bound(t, 1::bigint) AS int2_is_int8 FROM tb_small;
SELECT (SELECT topk_agg(v, 2) FROM (VALUES ('x'), ('x'), ('y')) s(v)) -> 'x' AS unknown_literal,
       topk_bounds((SELECT topk_agg(v, 2) FROM (VALUES ('x'), ('x'), ('y')) s(v)), 'y') AS bounds_of_y;
SELECT topk_bounds(t, 'x'::text) FROM tb_small;
\echo SQLSTATE :SQLSTATE
SELECT t -> 1.5 FROM tb_small;
\echo SQLSTATE :SQLSTATE
SELECT topk_bounds(t, NULL::integer) IS NULL AS null_value, topk_upper_bound(NULL::topk, 1) IS NULL AS null_sketch,
       (t -> NULL::integer) IS NULL AS null_arrow
FROM tb_small;
-- -> has the precedence of the other operators: parenthesise what follows it.
SELECT t -> 1 + 1 AS plus_one_after, t -> (1 + 1) AS of_2 FROM tb_small;
-- topk_add on a format-2 sketch: a held value's counts grow exactly; a new
-- value is held, its lower bound the count added and its upper bound that
-- plus what it may have had before (untracked_max).
SELECT v, b.* FROM (VALUES (1), (500)) s(v),
       topk_bounds((SELECT topk_add(topk_add(t, 1, 7), 500, 3) FROM tb_small), v) b;
SELECT (topk_info(topk_add(t, 500, 3))).format_version, (topk_info(topk_add(t, 500, 3))).total FROM tb_small;

-- ---------------------------------------------------------------------------
-- The guarantee, for every value of a stream, held or not
-- ---------------------------------------------------------------------------
-- tb_check(sketch, table of true counts): the values whose true count lies
-- outside their bounds (topk_bounds), and the values not held that passed
-- untracked_max.  Both are always 0.
CREATE FUNCTION pg_temp.tb_check(s topk, truth regclass, OUT checked bigint, OUT outside_bounds bigint,
                                 OUT past_untracked_max bigint)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    SELECT count(*), count(*) FILTER (WHERE n NOT BETWEEN (b).lower_bound AND (b).upper_bound),
           count(*) FILTER (WHERE (b).lower_bound = 0 AND n > (topk_info($1)).untracked_max)
    FROM (SELECT n, topk_bounds($1, v) AS b FROM %s) s$q$, truth)
  INTO checked, outside_bounds, past_untracked_max USING s;
END $$;
-- Values that never occurred have an upper bound of at most untracked_max too.
CREATE FUNCTION pg_temp.tb_absent(s topk) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FILTER (WHERE topk_upper_bound(s, -x) > (topk_info(s)).untracked_max)
  FROM generate_series(1, 1000) x
$$;

-- A skewed stream: 400,000 rows over about 20,000 values, v = floor(u^-1/0.6)
-- for u uniform in (0, 1] from hashint8 (P(v = r) about 0.6 r^-1.6), and a
-- uniform stream of 400,000 rows over 20,000 values, each with a day 1..8 and
-- a weight 1..9.  Plain tables, which parallel workers can read.
CREATE TABLE tb_skew AS
SELECT i, floor(power(((hashint8(i) & 2147483647) % 1000000 + 1) / 1e6::float8, -1 / 0.6::float8))::bigint AS v,
       i % 8 + 1 AS day, (hashint8(-i) & 7) + 1 AS w
FROM generate_series(1, 400000) i;
CREATE TABLE tb_flat AS
SELECT i, 1 + (hashint8(i) & 2147483647) % 20000 AS v, i % 8 + 1 AS day, (hashint8(-i) & 7) + 1 AS w
FROM generate_series(1, 400000) i;
ALTER TABLE tb_skew SET (parallel_workers = 2);
ALTER TABLE tb_flat SET (parallel_workers = 2);
ANALYZE tb_skew;
ANALYZE tb_flat;
CREATE TEMP TABLE tb_skew_n AS SELECT v, count(*) AS n FROM tb_skew GROUP BY v;
CREATE TEMP TABLE tb_flat_n AS SELECT v, count(*) AS n FROM tb_flat GROUP BY v;
CREATE TEMP TABLE tb_skew_w AS SELECT v, sum(w) AS n FROM tb_skew GROUP BY v;
SELECT 'skewed' AS stream, count(*) AS values, max(n) AS largest FROM tb_skew_n
UNION ALL SELECT 'uniform', count(*), max(n) FROM tb_flat_n;

-- Serial plans; capacity 500 (epsilon 0.002), so both streams drop values.
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE tb_serial AS
SELECT (SELECT topk_agg(v, 10, 0.002, 0.05) FROM tb_skew) AS skew,
       (SELECT topk_agg(v, 10, 0.002, 0.05) FROM tb_flat) AS flat,
       (SELECT topk_agg_weighted(v, w, 10, 0.002, 0.05) FROM tb_skew) AS skew_w;
SELECT 'skewed' AS sketch, c.*, (topk_info(skew)).untracked_max > 0 AS dropped_values, pg_temp.tb_absent(skew) AS absent_past
FROM tb_serial, pg_temp.tb_check(skew, 'tb_skew_n') c
UNION ALL
SELECT 'uniform', c.*, (topk_info(flat)).untracked_max > 0, pg_temp.tb_absent(flat)
FROM tb_serial, pg_temp.tb_check(flat, 'tb_flat_n') c
UNION ALL
SELECT 'skewed, weighted', c.*, (topk_info(skew_w)).untracked_max > 0, pg_temp.tb_absent(skew_w)
FROM tb_serial, pg_temp.tb_check(skew_w, 'tb_skew_w') c;
-- The skewed stream's top 10 are exact; the uniform stream's listed
-- estimates are near the truth (none above it), where a Count-Min estimate
-- would be about e N / width = 800 above it.
SELECT count(*) AS listed, count(*) FILTER (WHERE i.frequency = t.n AND i.upper_bound = t.n) AS exact
FROM tb_serial, topk_items_bounds(skew) i JOIN tb_skew_n t ON t.v = i.value::bigint;
SELECT count(*) AS listed, count(*) FILTER (WHERE i.frequency > t.n) AS above_truth,
       round(avg(i.frequency::numeric / t.n), 2) AS estimate_over_truth, max(t.n) AS largest_true_count
FROM tb_serial, topk_items_bounds(flat) i JOIN tb_flat_n t ON t.v = i.value::bigint;
-- The true top 100 of the skewed stream are the sketch's first 100.
SELECT count(*) AS of_true_top_100
FROM (SELECT v FROM tb_skew_n ORDER BY n DESC, v LIMIT 100) t
WHERE t.v IN (SELECT value::bigint FROM tb_serial, topk_items(skew, 100));

-- Parallel plans: two workers and the leader each build a part, merged by
-- the combine function.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE tb_parallel AS
  SELECT (SELECT topk_agg(v, 10, 0.002, 0.05) FROM tb_skew) AS skew,
         (SELECT topk_agg(v, 10, 0.002, 0.05) FROM tb_flat) AS flat,
         (SELECT topk_agg_weighted(v, w, 10, 0.002, 0.05) FROM tb_skew) AS skew_w$$, 'Workers Launched') >= 1
  AS workers_launched;
SELECT 'skewed' AS sketch, c.* FROM tb_parallel, pg_temp.tb_check(skew, 'tb_skew_n') c
UNION ALL SELECT 'uniform', c.* FROM tb_parallel, pg_temp.tb_check(flat, 'tb_flat_n') c
UNION ALL SELECT 'skewed, weighted', c.* FROM tb_parallel, pg_temp.tb_check(skew_w, 'tb_skew_w') c;
-- The same exact top 10 as the serial plan, and the same counters (updates
-- add up); the values at the bottom of the list may differ.
SELECT (SELECT array_agg(value || '=' || frequency) FROM topk_items(p.skew))
     = (SELECT array_agg(value || '=' || frequency) FROM topk_items(s.skew)) AS same_top_10,
       substr(p.skew::bytea, 1, 40 + 8 * 1360 * 3) = substr(s.skew::bytea, 1, 40 + 8 * 1360 * 3) AS same_counters
FROM tb_serial s, tb_parallel p;

-- Grouped: a sketch per day, serial and parallel, each within its bounds.
CREATE TEMP TABLE tb_day_n AS SELECT day, v, count(*) AS n FROM tb_skew GROUP BY day, v;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE tb_daily_parallel AS SELECT day, topk_agg(v, 10, 0.002, 0.05) AS t FROM tb_skew GROUP BY day$$,
  'Workers Launched') >= 1 AS workers_launched;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE tb_daily AS SELECT day, topk_agg(v, 10, 0.002, 0.05) AS t FROM tb_skew GROUP BY day;
SELECT plan, count(DISTINCT d.day) AS days, count(*) AS checked,
       count(*) FILTER (WHERE n.n NOT BETWEEN (topk_bounds(d.t, n.v)).lower_bound AND (topk_bounds(d.t, n.v)).upper_bound)
       AS outside_bounds
FROM (SELECT 'serial' AS plan, * FROM tb_daily UNION ALL SELECT 'parallel', * FROM tb_daily_parallel) d
JOIN tb_day_n n USING (day) GROUP BY plan ORDER BY plan;

-- Rollups: the 8 daily sketches merged, serially and in parallel, hold the
-- bounds of the whole stream; so does a merge of 64 sketches of parts.
CREATE TABLE tb_daily_t AS SELECT * FROM tb_daily;
ALTER TABLE tb_daily_t SET (parallel_workers = 2);
CREATE TABLE tb_parts AS SELECT day, i / 8 % 8 AS part, topk_agg(v, 10, 0.002, 0.05) AS t FROM tb_skew GROUP BY day, i / 8 % 8;
ALTER TABLE tb_parts SET (parallel_workers = 2);
ANALYZE tb_daily_t;
ANALYZE tb_parts;
SELECT count(*) AS part_sketches FROM tb_parts;
CREATE TEMP TABLE tb_rollups AS
SELECT (SELECT topk_union_agg(t) FROM tb_daily_t) AS days,
       (SELECT topk_union_agg(t ORDER BY day DESC) FROM tb_daily_t) AS days_reversed,
       (SELECT topk_union_agg(t) FROM tb_parts) AS parts;
SET max_parallel_workers_per_gather = 2;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE tb_rollup_parallel AS SELECT topk_union_agg(t) AS u FROM tb_parts$$, 'Workers Launched') >= 1
  AS workers_launched;
SET max_parallel_workers_per_gather = 0;
SELECT 'days' AS rollup, c.* FROM tb_rollups, pg_temp.tb_check(days, 'tb_skew_n') c
UNION ALL SELECT 'days, reversed', c.* FROM tb_rollups, pg_temp.tb_check(days_reversed, 'tb_skew_n') c
UNION ALL SELECT '64 parts', c.* FROM tb_rollups, pg_temp.tb_check(parts, 'tb_skew_n') c
UNION ALL SELECT '64 parts, parallel', c.* FROM tb_rollup_parallel, pg_temp.tb_check(u, 'tb_skew_n') c;
-- Their top 10 are the exact top 10 of the whole stream, as the serial one.
SELECT (SELECT array_agg(value || '=' || frequency) FROM topk_items(r.days))
     = (SELECT array_agg(value || '=' || frequency) FROM topk_items(s.skew)) AS days_top_10,
       (SELECT array_agg(value || '=' || frequency) FROM topk_items(r.parts))
     = (SELECT array_agg(value || '=' || frequency) FROM topk_items(s.skew)) AS parts_top_10,
       (topk_info(r.days)).total = 400000 AS days_total
FROM tb_rollups r, tb_serial s;

RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
DROP TABLE tb_skew, tb_flat, tb_daily_t, tb_parts, tb_small;
