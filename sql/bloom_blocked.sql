--
-- bloom_blocked: the cache-blocked layout (version 1.3): bloom_empty and
-- bloom_empty_bits with a layout, bloom_agg(value, capacity, fpr, layout) for
-- every key type (capacity NULL: auto-sized), lookups, merges, estimates, the
-- planning helpers, the text, binary and bytea forms, equality, parallel
-- plans byte-identical to serial ones, and the errors.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/regress_plan_sum.sql

-- ---------------------------------------------------------------------------
-- Shapes: a multiple of 512 bits, a few percent more than classic
-- ---------------------------------------------------------------------------
SELECT p, bloom_optimal_bits(100000, p) AS classic_bits,
       bloom_optimal_bits(100000, p, 'blocked') AS blocked_bits,
       bloom_optimal_bits(100000, p, 'blocked') % 512 AS rem,
       round(bloom_optimal_bits(100000, p, 'blocked')::numeric / bloom_optimal_bits(100000, p), 3) AS ratio,
       bloom_optimal_hashes(bloom_optimal_bits(100000, p, 'blocked'), 100000, 'blocked') AS k,
       bloom_fpr_estimate(bloom_optimal_bits(100000, p, 'blocked'), 100000,
                          bloom_optimal_hashes(bloom_optimal_bits(100000, p, 'blocked'), 100000, 'blocked'),
                          'blocked') <= p AS meets_p,
       bloom_fpr_estimate(bloom_optimal_bits(100000, p, 'blocked') - 512, 100000,
                          bloom_optimal_hashes(bloom_optimal_bits(100000, p, 'blocked') - 512, 100000, 'blocked'),
                          'blocked') > p AS one_block_less_misses
FROM unnest(ARRAY[0.1, 0.01, 0.001, 0.0001]) p;
SELECT (bloom_info(f)).bits, (bloom_info(f)).hashes, (bloom_info(f)).layout, (bloom_info(f)).bytes,
       (bloom_info(f)).bits = bloom_optimal_bits(1000, 0.01, 'blocked') AS planned
FROM (SELECT bloom_empty(1000, 0.01, 'blocked') AS f) s;
SELECT (bloom_info(bloom_empty(1000, 0.01, 'classic'))).layout AS classic,
       bloom_empty(1000, 0.01, 'classic') = bloom_empty(1000, 0.01) AS same_as_default,
       (bloom_info(bloom_empty(1))).layout AS default_layout,
       (bloom_info(bloom_empty(1, 0.01, 'blocked'))).bits AS one_key_one_block;
SELECT (bloom_info(bloom_empty_bits(1024, 3, 'blocked'))).*;
-- classic estimates unchanged by the new argument
SELECT bloom_fpr_estimate(10000, 1000, 7) = bloom_fpr_estimate(10000, 1000, 7, 'classic') AS same_estimate,
       bloom_optimal_hashes(10000, 1000) = bloom_optimal_hashes(10000, 1000, 'classic') AS same_k;

-- ---------------------------------------------------------------------------
-- Errors
-- ---------------------------------------------------------------------------
SELECT bloom_empty(1000, 0.01, 'Blocked');
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 0.01, '');
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 0.01, NULL) IS NULL AS strict;
SELECT bloom_empty_bits(1000, 3, 'blocked');
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(0, 0.01, 'blocked');
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(1000, 1.5, 'blocked');
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(4000000000, 0.000001, 'blocked');
\echo SQLSTATE :SQLSTATE
SELECT bloom_fpr_estimate(1000, 10, 3, 'blocked');
\echo SQLSTATE :SQLSTATE
SELECT bloom_optimal_hashes(1000, 10, 'blocked');
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10, 0.01, 'blocked') | bloom_empty_bits(512, 7);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10, 0.01, 'blocked') & bloom_empty(10, 0.01);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty_bits(1024, 3, 'blocked') | bloom_empty_bits(1024, 3);
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 100, 0.01, 'cache') FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 100, 0.01, NULL) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 100, 0.01, CASE WHEN x < 3 THEN 'blocked' ELSE 'classic' END) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, CASE WHEN x < 3 THEN 100 END, 0.01, 'blocked') FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- the 1.2 forms keep their meaning: a quoted fpr is still an fpr
SELECT (bloom_info(bloom_agg(x, 100, '0.01'))).layout FROM generate_series(1, 3) x;

-- ---------------------------------------------------------------------------
-- Lookups: no false negatives, a rate near the formula
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE blk AS
SELECT bloom_agg(x, 20000, 0.01, 'blocked') AS f,
       bloom_agg(x, NULL, 0.01, 'blocked') AS a,
       bloom_agg(x, 20000, 0.01) AS c
FROM generate_series(1, 20000) x;
SELECT count(*) FILTER (WHERE NOT f @> x) AS fixed_missing,
       count(*) FILTER (WHERE NOT a @> x) AS auto_missing,
       count(*) FILTER (WHERE NOT x <@ f) AS contained_missing
FROM blk, generate_series(1, 20000) x;
SELECT (bloom_info(a)).bits = bloom_optimal_bits(20000, 0.01, 'blocked') AS auto_sized_for_20000,
       (bloom_info(a)).hashes = (bloom_info(f)).hashes AS same_k,
       a = f AS auto_equals_fixed,
       (bloom_info(f)).layout, (bloom_info(c)).layout AS classic_layout
FROM blk;
SELECT count(*) FILTER (WHERE f @> x) BETWEEN 1600 AND 2400 AS rate_near_1pct,
       count(*) FILTER (WHERE a @> x) BETWEEN 1600 AND 2400 AS auto_rate_near_1pct
FROM blk, generate_series(1000001, 1200000) x;
SELECT round(bloom_cardinality(f)) BETWEEN 19600 AND 20400 AS cardinality_near_20000,
       bloom_fpr(f) BETWEEN 0.008 AND 0.012 AS fpr_near_1pct,
       abs((bloom_info(f)).estimated_fpr - bloom_fpr(f)) < 1e-12 AS info_agrees
FROM blk;
-- the same bytes as bloom_empty + bloom_add, in any order
SELECT (SELECT f FROM blk) = (
  WITH RECURSIVE r(i, g) AS (
    SELECT 0, bloom_empty(20000, 0.01, 'blocked')
    UNION ALL SELECT i + 1, bloom_add(g, (20000 - i)) FROM r WHERE i < 20000)
  SELECT g FROM r WHERE i = 20000) AS agg_equals_adds;

-- every key type has the layout overload
SELECT bloom_agg(7::smallint, 10, 0.01, 'blocked') @> 7::smallint AS smallint_,
       bloom_agg(7::integer, 10, 0.01, 'blocked') @> 7 AS integer_,
       bloom_agg(7::bigint, 10, 0.01, 'blocked') @> 7::bigint AS bigint_,
       (bloom_info(bloom_agg(7::bigint, 10, 0.01, 'blocked'))).layout;
SELECT bloom_agg('a'::text, 10, 0.01, 'blocked') @> 'a'::text AS text_,
       bloom_agg('a'::bytea, 10, 0.01, 'blocked') @> 'a'::bytea AS bytea_,
       bloom_agg('00000000-0000-0000-0000-000000000001'::uuid, 10, 0.01, 'blocked')
         @> '00000000-0000-0000-0000-000000000001'::uuid AS uuid_,
       bloom_agg(1.5::float8, 10, 0.01, 'blocked') @> 1.5::float8 AS float8_,
       bloom_agg(1.5::numeric, 10, 0.01, 'blocked') @> 1.5::numeric AS numeric_,
       bloom_agg('2024-01-01'::date, 10, 0.01, 'blocked') @> '2024-01-01'::date AS date_,
       bloom_agg('2024-01-01'::timestamp, 10, 0.01, 'blocked') @> '2024-01-01'::timestamp AS timestamp_,
       bloom_agg('2024-01-01'::timestamptz, 10, 0.01, 'blocked') @> '2024-01-01'::timestamptz AS timestamptz_,
       bloom_agg('a'::text, NULL, 0.01, 'blocked') @> 'a'::text AS text_auto;

-- ---------------------------------------------------------------------------
-- Merges between filters of the same shape and layout
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE blk_parts AS
SELECT x % 4 AS part, bloom_agg(x, 20000, 0.01, 'blocked') AS f
FROM generate_series(1, 20000) x GROUP BY x % 4;
SELECT bloom_union_agg(f) = (SELECT f FROM blk) AS union_is_whole,
       (SELECT f FROM blk_parts WHERE part = 0) | (SELECT f FROM blk_parts WHERE part = 1)
         = bloom_union((SELECT f FROM blk_parts WHERE part = 0), (SELECT f FROM blk_parts WHERE part = 1)) AS operator_is_function,
       (bloom_info(bloom_intersection_agg(f))).layout,
       bloom_intersection_agg(f) @> 1 AS intersection_has_no_common_key_or_fp
FROM blk_parts;
SELECT bloom_union_agg(f) FROM (SELECT f FROM blk_parts UNION ALL SELECT bloom_agg(1, 20000, 0.01) ) s;
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Text and bytea forms (the binary form is the bytea's bytes); equality and hashing
-- ---------------------------------------------------------------------------
SELECT f::text::bloom = f AS text_round_trip, f::bytea::bloom = f AS bytea_round_trip,
       substr(f::bytea, 29, 4) = '\x01000000'::bytea AS layout_field_is_1,
       substr(c::bytea, 29, 4) = '\x00000000'::bytea AS classic_field_is_0
FROM blk;
SELECT count(*) AS distinct_filters FROM (SELECT f FROM blk UNION SELECT a FROM blk UNION SELECT c FROM blk) s;
SELECT f = c AS blocked_equals_classic FROM blk;
-- ---------------------------------------------------------------------------
-- A stored filter of 4.9 MB probed for every row: read once, kept by the
-- call site (on 2 MB pages where the kernel gives them, src/call_cache.c)
-- ---------------------------------------------------------------------------
CREATE TABLE blk_big AS SELECT bloom_agg(x, 4000000, 0.01, 'blocked') AS f FROM generate_series(1, 8000000, 2) x;
SELECT octet_length(f::bytea) AS bytes FROM blk_big;
SELECT count(*) FILTER (WHERE u % 2 = 1 AND NOT (SELECT f FROM blk_big) @> u) AS false_negatives,
       count(*) FILTER (WHERE u % 2 = 0 AND (SELECT f FROM blk_big) @> u) BETWEEN 140 AND 260 AS rate_near_1pct_of_20000
FROM generate_series(1, 40000) u;
DROP TABLE blk_big;

-- ---------------------------------------------------------------------------
-- Parallel plans give the serial bytes
-- ---------------------------------------------------------------------------
CREATE TABLE blk_par AS SELECT x::bigint AS x, 'v' || x AS t FROM generate_series(1, 200000) x;
ANALYZE blk_par;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE blk_serial AS
SELECT bloom_agg(x, 200000, 0.01, 'blocked') AS f, bloom_agg(x, NULL, 0.001, 'blocked') AS a,
       bloom_agg(t, NULL, 0.01, 'blocked') AS t
FROM blk_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT bloom_agg(x, 200000, 0.01, 'blocked') FROM blk_par;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE blk_parallel AS
  SELECT bloom_agg(x, 200000, 0.01, 'blocked') AS f, bloom_agg(x, NULL, 0.001, 'blocked') AS a,
         bloom_agg(t, NULL, 0.01, 'blocked') AS t
  FROM blk_par$$, 'Workers Launched') >= 1 AS workers_launched;
SELECT s.f = p.f AS fixed_identical, s.a = p.a AS auto_identical, s.t = p.t AS text_identical
FROM blk_serial s, blk_parallel p;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE blk_par;
