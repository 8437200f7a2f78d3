--
-- bloom_agg_expanded: large bloom_agg_state values, kept in memory as
-- expanded objects that queue a few hashes while their slots are prefetched
-- (src/builder_state.c).  Every way a state leaves its transition function
-- must see every queued hash: the final function (also repeatedly, in a
-- window), the state's text output, a HashAggregate that spills, a parallel
-- plan, a NULL row in between, and cbloom_agg's counts.
--
-- The reference is the fixed-shape form bloom_agg(x, n, p) with n the
-- number of distinct values: the same filter, byte for byte (bloom_agg_state.h),
-- which its state reaches by another path (a table that turns into the
-- filter at a tenth of its capacity).
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

SET extra_float_digits = 0;

CREATE TEMP TABLE ex AS
SELECT x::bigint AS x, 'k' || x AS t, ((x - 1) / 10000)::integer AS g
FROM generate_series(1, 40000) x;

-- 40,000 distinct values: a 512 kB exact-phase table.
SELECT bloom_agg(x) = bloom_agg(x, 40000, 0.01) AS bigint_same,
       bloom_agg(t) = bloom_agg(t, 40000, 0.01) AS text_same,
       bloom_agg(x, 0.001) = bloom_agg(x, 40000, 0.001) AS fpr_same,
       (bloom_info(bloom_agg(x))).bits = bloom_optimal_bits(40000, 0.01) AS sized_for_40000
FROM ex;

-- NULLs and duplicates between the values change nothing.
SELECT bloom_agg(v) = (SELECT bloom_agg(x, 40000, 0.01) FROM ex) AS with_nulls_and_duplicates
FROM (SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE (i % 40000) + 1 END::bigint AS v
      FROM generate_series(0, 119999) i) s;

-- The last values of a group are the ones still queued when the final
-- function runs: each prefix must be complete.
SELECT n, (SELECT bloom_agg(x) FROM ex WHERE x <= n) = (SELECT bloom_agg(x, n, 0.01) FROM ex WHERE x <= n) AS same
FROM (VALUES (8193::bigint), (12289), (24577), (39999)) v(n);

-- A window: the final function runs on every row while the state keeps
-- growing and queueing.
SELECT count(*) AS rows_checked,
       count(*) FILTER (WHERE w = (SELECT bloom_agg(x, n, 0.01) FROM ex WHERE x <= n)) AS same
FROM (SELECT x AS n, bloom_agg(x) OVER (ORDER BY x) AS w FROM ex) s
WHERE n IN (1, 6145, 6146, 6150, 12289, 20000, 40000);

-- The state itself, by a custom aggregate without a final function: its
-- text output is the flat state with every hash, packed (flag 0x20: the
-- 40,000 hashes in ascending order, 8 bytes each after the 48-byte header,
-- not the 65,536-slot table), and reads back.
CREATE AGGREGATE pg_temp.state_of(bigint) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE pg_temp.filter_of(bloom_agg_state) (
  SFUNC = bloom_agg_combine, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_final);
CREATE TEMP TABLE ex_state AS SELECT pg_temp.state_of(x) AS s FROM ex;
SELECT pg_column_size(s) AS state_bytes,
       octet_length(s::text) AS text_length,
       substr(s::text, 59, 8) AS flags_le,
       s::text::bloom_agg_state::text = s::text AS reloads
FROM ex_state;
SELECT pg_temp.filter_of(s) = (SELECT bloom_agg(x, 40000, 0.01) FROM ex) AS same_filter FROM ex_state;
-- Packed, the bytes depend on the values only, not on their order (a table
-- places colliding hashes in the order they came).
SELECT (SELECT pg_temp.state_of(x ORDER BY x) FROM ex)::text
     = (SELECT pg_temp.state_of(x ORDER BY x DESC) FROM ex)::text AS same_state_any_order,
       (SELECT pg_temp.state_of(x ORDER BY x) FROM ex)::text = (SELECT s::text FROM ex_state) AS same_as_stored;
-- Combining packed states: a merge of the two halves, and the same state
-- with itself, give the filter of all the values.
SELECT pg_temp.filter_of(s) = (SELECT bloom_agg(x, 40000, 0.01) FROM ex) AS halves_merged
FROM (SELECT pg_temp.state_of(x) AS s FROM ex GROUP BY x % 2) h;
SELECT pg_temp.filter_of(s) = (SELECT bloom_agg(x, 40000, 0.01) FROM ex) AS self_merged
FROM (SELECT s FROM ex_state UNION ALL SELECT s FROM ex_state) d;
-- A small state (at most 48 values, a table of 64 slots, under 1 kB) stays
-- a table: its flags are 0 and its size is that of its slots.  From 49
-- values (128 slots) it is packed.
SELECT n, pg_column_size(pg_temp.state_of(x)) AS state_bytes,
       substr(pg_temp.state_of(x)::text, 59, 8) AS flags_le
FROM ex, (VALUES (48), (49)) v(n) WHERE x <= n GROUP BY n ORDER BY n;
-- A packed state under 1 kB is merged as a flat state (unpacked into a table
-- that nodeAgg copies), in either order with a table.
SELECT pg_temp.filter_of(s ORDER BY o) = (SELECT bloom_agg(x, 60, 0.01) FROM ex WHERE x <= 60)
         AS small_packed_first,
       pg_temp.filter_of(s ORDER BY o DESC) = (SELECT bloom_agg(x, 60, 0.01) FROM ex WHERE x <= 60)
         AS small_table_first
FROM (SELECT 1 AS o, pg_temp.state_of(x) AS s FROM ex WHERE x <= 49
      UNION ALL SELECT 2, pg_temp.state_of(x) FROM ex WHERE x BETWEEN 40 AND 60) d;

-- bloom_agg(x, capacity, fpr) holds the exact hashes too, while their table
-- is no larger than the filter (for 1,000,000 at 1%: a 1,198,133-byte
-- payload, so tables of up to 131,072 slots, 98,304 values), and then turns
-- into the filter.  200 values leave the aggregate packed (flags 0x22, 1,648
-- bytes instead of the filter's 1,198,181), 98,304 too, 98,305 as the
-- filter; the final filter is the one bloom_empty(1000000, 0.01) gets from
-- the same values.
CREATE AGGREGATE pg_temp.fixed_state_of(bigint, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE TEMP TABLE ex_fixed AS
SELECT n, pg_temp.fixed_state_of(x, 1000000, 0.01) AS s
FROM generate_series(1, 98305) x, (VALUES (200), (98304), (98305)) v(n) WHERE x <= n GROUP BY n;
SELECT n, octet_length(s::text) / 2 - 1 AS state_bytes, substr(s::text, 59, 8) AS flags_le
FROM ex_fixed ORDER BY n;
SELECT pg_temp.filter_of(s) = (SELECT bloom_union_agg(bloom_add(bloom_empty(1000000, 0.01), x))
                               FROM generate_series(1, 200) x) AS same_as_bloom_empty
FROM ex_fixed WHERE n = 200;
SELECT (SELECT pg_temp.filter_of(s) FROM ex_fixed WHERE n = 98305)
     = bloom_union((SELECT pg_temp.filter_of(s) FROM ex_fixed WHERE n = 98304),
                   bloom_add(bloom_empty(1000000, 0.01), 98305::bigint)) AS dense_same_as_exact,
       (SELECT pg_temp.filter_of(s) FROM ex_fixed WHERE n = 98305)
     = (SELECT bloom_agg(x, 1000000, 0.01) FROM generate_series(1, 98305) x) AS same_as_aggregate;
-- Exact halves combine into the filter of all their values, and an exact
-- state with a dense one in either order.
SELECT pg_temp.filter_of(s) = (SELECT pg_temp.filter_of(s) FROM ex_fixed WHERE n = 98305) AS exact_halves
FROM (SELECT pg_temp.fixed_state_of(x, 1000000, 0.01) AS s
      FROM generate_series(1, 98305) x GROUP BY x % 2) p;
SELECT pg_temp.filter_of(s ORDER BY n) = (SELECT pg_temp.filter_of(s) FROM ex_fixed WHERE n = 98305)
         AS exact_first,
       pg_temp.filter_of(s ORDER BY n DESC) = (SELECT pg_temp.filter_of(s) FROM ex_fixed WHERE n = 98305)
         AS dense_first
FROM ex_fixed WHERE n IN (200, 98305);
DROP TABLE ex_fixed;

-- A HashAggregate over 4 groups of 10,000 values (128 kB states), one after
-- the other, that spills the later groups to disk with a small work_mem.
SET work_mem = '64kB';
SET enable_sort = off;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT g, bloom_agg(x) FROM ex GROUP BY g;
SELECT regress_plan_sum('SELECT g, bloom_agg(x) FROM ex GROUP BY g', 'HashAgg Batches') > 1 AS spilled;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE a = b) AS same
FROM (SELECT g, bloom_agg(x) AS a, bloom_agg(x, 10000, 0.01) AS b FROM ex GROUP BY g) s;
RESET work_mem;
RESET enable_sort;

-- cbloom_agg(x) keeps a count per hash in the same kind of state.
SELECT cbloom_agg(v) = cbloom_agg(v, 40000, 0.01) AS cbloom_same,
       cbloom_count(cbloom_agg(v), 7::bigint) AS count_of_7,
       cbloom_agg(v)::bloom = bloom_agg(v) AS as_bloom
FROM (SELECT (i % 40000) + 1 AS v FROM generate_series(0, 119999) i) s;

-- A parallel plan: workers send their expanded states flattened; the
-- leader's own partial state reaches the combine function as it is.
CREATE TABLE ex_par AS SELECT x FROM ex;
ALTER TABLE ex_par SET (parallel_workers = 2);
ANALYZE ex_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x) FROM ex_par;
SELECT regress_plan_sum('SELECT bloom_agg(x) FROM ex_par', 'Workers Launched') >= 1 AS workers_launched;
SELECT bloom_agg(x) = (SELECT bloom_agg(x, 40000, 0.01) FROM ex) AS parallel_same FROM ex_par;
SET parallel_leader_participation = off;
SELECT bloom_agg(x) = (SELECT bloom_agg(x, 40000, 0.01) FROM ex) AS workers_only_same FROM ex_par;
RESET parallel_leader_participation;
RESET max_parallel_workers_per_gather;
DROP TABLE ex_par;
