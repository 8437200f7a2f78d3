--
-- bloom_agg: overloads and their resolution, parameters, NULLs, auto-sizing
-- (exact phase: up to 1,048,576 distinct values; the dense phase is in
-- bloom_parallel), accuracy, GROUP BY, window use.
--
-- Hashing is deterministic, so counts of false positives over a fixed data
-- set are stable; they are still printed as comparisons against the bounds
-- the design promises, so that a legitimate change of the hashing does not
-- need a new expected file.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

SET max_parallel_workers_per_gather = 0;

-- ---------------------------------------------------------------------------
-- One overload per key type; the filter finds its values
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_vals AS
SELECT x,
       x::smallint AS i2, x::integer AS i4, x::bigint AS i8,
       'k' || x AS t, ('k' || x)::varchar(20) AS vc, ('k' || x)::char(20) AS ch, ('k' || x)::name AS nm,
       int4send(x) AS b, md5(x::text)::uuid AS u,
       x / 8.0::real AS r, x / 8.0::float8 AS f8, x / 8.0 AS n,
       '2000-01-01'::date + x AS d,
       '2000-01-01'::timestamp + x * interval '1 min' AS ts,
       '2000-01-01 00:00+00'::timestamptz + x * interval '1 min' AS tstz
FROM generate_series(1, 1000) x;
CREATE TEMP TABLE agg_by_type AS
SELECT 'smallint' AS type, bloom_agg(i2) AS f FROM agg_vals
UNION ALL SELECT 'integer', bloom_agg(i4) FROM agg_vals
UNION ALL SELECT 'bigint', bloom_agg(i8) FROM agg_vals
UNION ALL SELECT 'text', bloom_agg(t) FROM agg_vals
UNION ALL SELECT 'varchar', bloom_agg(vc) FROM agg_vals
UNION ALL SELECT 'char', bloom_agg(ch) FROM agg_vals
UNION ALL SELECT 'name', bloom_agg(nm) FROM agg_vals
UNION ALL SELECT 'bytea', bloom_agg(b) FROM agg_vals
UNION ALL SELECT 'uuid', bloom_agg(u) FROM agg_vals
UNION ALL SELECT 'real', bloom_agg(r) FROM agg_vals
UNION ALL SELECT 'double precision', bloom_agg(f8) FROM agg_vals
UNION ALL SELECT 'numeric', bloom_agg(n) FROM agg_vals
UNION ALL SELECT 'date', bloom_agg(d) FROM agg_vals
UNION ALL SELECT 'timestamp', bloom_agg(ts) FROM agg_vals
UNION ALL SELECT 'timestamptz', bloom_agg(tstz) FROM agg_vals;
-- 1000 distinct values at 1%: bloom_empty(1000, 0.01)'s shape, 9586 bits.
SELECT type, i.key_family, i.bits, i.hashes
FROM agg_by_type, bloom_info(f) i ORDER BY type COLLATE "C";
-- No false negatives for any type.
SELECT a.type, count(*) FILTER (WHERE CASE a.type
    WHEN 'smallint' THEN f @> v.i2 WHEN 'integer' THEN f @> v.i4 WHEN 'bigint' THEN f @> v.i8
    WHEN 'text' THEN f @> v.t WHEN 'varchar' THEN f @> v.vc WHEN 'char' THEN f @> v.ch
    WHEN 'name' THEN f @> v.nm WHEN 'bytea' THEN f @> v.b WHEN 'uuid' THEN f @> v.u
    WHEN 'real' THEN f @> v.r WHEN 'double precision' THEN f @> v.f8 WHEN 'numeric' THEN f @> v.n
    WHEN 'date' THEN f @> v.d WHEN 'timestamp' THEN f @> v.ts WHEN 'timestamptz' THEN f @> v.tstz
  END) AS found
FROM agg_by_type a, agg_vals v GROUP BY a.type ORDER BY a.type COLLATE "C";
-- Types of one family give byte-identical filters.
SELECT (SELECT f FROM agg_by_type WHERE type = 'smallint') = (SELECT f FROM agg_by_type WHERE type = 'bigint') AS int2_int8,
       (SELECT f FROM agg_by_type WHERE type = 'integer') = (SELECT f FROM agg_by_type WHERE type = 'bigint') AS int4_int8,
       (SELECT f FROM agg_by_type WHERE type = 'varchar') = (SELECT f FROM agg_by_type WHERE type = 'text') AS varchar_text,
       (SELECT f FROM agg_by_type WHERE type = 'char') = (SELECT f FROM agg_by_type WHERE type = 'text') AS char_text,
       (SELECT f FROM agg_by_type WHERE type = 'name') = (SELECT f FROM agg_by_type WHERE type = 'text') AS name_text,
       (SELECT f FROM agg_by_type WHERE type = 'real') = (SELECT f FROM agg_by_type WHERE type = 'double precision') AS real_float8;
-- ... and the aggregate's filter equals adding the values one by one.
SELECT bloom_agg(i4, 1000, 0.01) = bloom_union_agg(bloom_add(bloom_empty(1000, 0.01), i4)) AS agg_eq_adds
FROM agg_vals;

-- ---------------------------------------------------------------------------
-- Overload resolution: the common argument types pick a concrete overload
-- (EXPLAIN VERBOSE shows the coercions), and the key family follows.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_resolve (i2 smallint, i4 integer, i8 bigint, vc varchar(10), ch char(3), nm name,
                               r real, n numeric, d date);
EXPLAIN (VERBOSE, COSTS OFF)
SELECT bloom_agg(i2), bloom_agg(i4), bloom_agg(i8), bloom_agg(vc), bloom_agg(ch), bloom_agg(nm),
       bloom_agg('lit'), bloom_agg(r), bloom_agg(n), bloom_agg(d)
FROM agg_resolve;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT bloom_agg(i2, 0.05), bloom_agg(vc, 100, 0.05), bloom_agg(r, 100, 0.05::real), bloom_agg('lit', 0.1)
FROM agg_resolve;
INSERT INTO agg_resolve VALUES (1, 1, 1, 'a', 'a', 'a', 1.5, 1.5, '2024-01-01');
SELECT (bloom_info(bloom_agg(i2))).key_family AS int2, (bloom_info(bloom_agg(i4))).key_family AS int4,
       (bloom_info(bloom_agg(i8))).key_family AS int8, (bloom_info(bloom_agg(vc))).key_family AS varchar,
       (bloom_info(bloom_agg(ch))).key_family AS char, (bloom_info(bloom_agg(nm))).key_family AS name,
       (bloom_info(bloom_agg('lit'))).key_family AS unknown, (bloom_info(bloom_agg(r))).key_family AS real,
       (bloom_info(bloom_agg(n))).key_family AS numeric, (bloom_info(bloom_agg(d))).key_family AS date
FROM agg_resolve;
SELECT bloom_agg(1.5) @> 1.50 AS numeric_literal, bloom_agg(1.5::float8) @> 1.5::real AS float_literal,
       bloom_agg(42) @> 42::bigint AS integer_literal, bloom_agg('abc') @> 'abc' AS unknown_literal;
-- No overload for other types.
SELECT bloom_agg(true);
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x::inet) FROM (VALUES ('10.0.0.1')) v(x);
\echo SQLSTATE :SQLSTATE
-- The parameters have fixed types: a numeric capacity is not implicitly a
-- bigint.
SELECT bloom_agg(1, 100::numeric, 0.01);
\echo SQLSTATE :SQLSTATE
DROP TABLE agg_resolve;

-- ---------------------------------------------------------------------------
-- bloom_agg(x, fpr) and bloom_agg(x, capacity, fpr)
-- ---------------------------------------------------------------------------
-- fpr: sized for the distinct count (100) at that rate, like bloom_empty(100, fpr).
SELECT p, i.bits, i.hashes,
       i.bits = (bloom_info(bloom_empty(100, p))).bits AS bits_like_empty,
       i.hashes = (bloom_info(bloom_empty(100, p))).hashes AS hashes_like_empty
FROM (VALUES (0.5::float8), (0.1), (0.01), (0.001), (1e-6)) v(p),
     LATERAL (SELECT bloom_agg(x, p) AS f FROM generate_series(1, 100) x) a,
     bloom_info(a.f) i ORDER BY p DESC;
-- capacity and fpr: exactly bloom_empty(capacity, fpr)'s shape, whatever the data.
SELECT cap, p, n, i.bits = e.bits AND i.hashes = e.hashes AS shape_of_bloom_empty, i.bits, i.hashes
FROM (VALUES (100::bigint, 0.01::float8, 10), (100, 0.01, 1000), (5000, 0.001, 100), (1, 0.5, 1)) v(cap, p, n),
     LATERAL (SELECT bloom_agg(x, cap, p) AS f FROM generate_series(1, n) x) a,
     bloom_info(a.f) i, bloom_info(bloom_empty(cap, p)) e
ORDER BY cap, p, n;
-- A fixed-capacity filter of the values equals bloom_empty(...) filled by union.
SELECT bloom_agg(x, 500, 0.02) = bloom_union_agg(bloom_add(bloom_empty(500, 0.02), x)) AS eq_filled_empty
FROM generate_series(1, 300) x;
-- Overloads with parameters exist for every key type.
SELECT (bloom_info(bloom_agg(t, 0.1))).key_family AS text_fpr, (bloom_info(bloom_agg(b, 50, 0.1))).key_family AS bytea_cap,
       (bloom_info(bloom_agg(u, 0.1))).key_family AS uuid_fpr, (bloom_info(bloom_agg(tstz, 50, 0.1))).key_family AS tstz_cap,
       (bloom_info(bloom_agg(i2, 50, 0.1))).key_family AS int2_cap, (bloom_info(bloom_agg(d, 0.1))).key_family AS date_fpr
FROM agg_vals;

-- ---------------------------------------------------------------------------
-- NULLs
-- ---------------------------------------------------------------------------
-- All-NULL input and no input give NULL.
SELECT bloom_agg(x) IS NULL AS all_null FROM (VALUES (NULL::integer), (NULL)) v(x);
SELECT bloom_agg(x, 0.1) IS NULL AS all_null_fpr FROM (VALUES (NULL::text), (NULL)) v(x);
SELECT bloom_agg(x, 10, 0.1) IS NULL AS all_null_cap FROM (VALUES (NULL::bigint), (NULL)) v(x);
SELECT bloom_agg(x) IS NULL AS no_rows FROM generate_series(1, 10) x WHERE false;
-- NULL values are skipped: the same filter as without them.
SELECT bloom_agg(x) = (SELECT bloom_agg(y) FROM generate_series(1, 100) y) AS nulls_skipped,
       bloom_agg(x, 1000, 0.01) = (SELECT bloom_agg(y, 1000, 0.01) FROM generate_series(1, 100) y) AS nulls_skipped_cap
FROM (SELECT CASE WHEN y % 3 = 0 THEN NULL ELSE y / 3 + 1 END FROM generate_series(0, 299) y
      UNION ALL SELECT NULL) s(x);
SELECT (bloom_info(bloom_agg(x))).bits = bloom_optimal_bits(1, 0.01) AS null_first
FROM (VALUES (NULL::integer), (NULL), (7)) v(x);

-- ---------------------------------------------------------------------------
-- Parameter validation
-- ---------------------------------------------------------------------------
SELECT bloom_agg(x, 0, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, -1, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 0.0) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 1.0) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, -0.1) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 1.5) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 'NaN') FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 'Infinity') FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, NULL) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 100, 0) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 100, 'NaN') FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, NULL, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 100, NULL) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- fpr that needs more than 64 hashes
SELECT bloom_agg(x, 1e-20) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 100, 1e-20) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- a capacity whose filter would exceed 1 GB
SELECT bloom_agg(x, 10000000000, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- parameters are checked even when every value is NULL
SELECT bloom_agg(x, 0.0) FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 0, 0.5) FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
-- parameters must be the same for every row of a group
SELECT bloom_agg(x, CASE WHEN x = 1 THEN 0.01 ELSE 0.02 END) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, x, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, 100, CASE WHEN x < 3 THEN 0.01 ELSE 0.5 END) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg(x, CASE WHEN x = 2 THEN NULL ELSE 0.01 END) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- ... but may differ between groups.
SELECT g, (bloom_info(bloom_agg(x, g / 10.0))).bits
FROM generate_series(1, 3) g, generate_series(1, 100) x GROUP BY g ORDER BY g;
-- The transition function only works inside an aggregate.
SELECT bloom_agg_trans(NULL, 1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_agg_trans(NULL, 1, 100::bigint, 0.01::float8);
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Auto-sizing: the filter is sized for the distinct count of the group
-- ---------------------------------------------------------------------------
-- Duplicates do not count: 10000 rows of 10 distinct values.
SELECT (bloom_info(bloom_agg(x % 10))).bits AS bits, bloom_optimal_bits(10, 0.01) AS for_10
FROM generate_series(1, 10000) x;
-- Nor do equal values of another form: -0.0 = 0.0, NaN = NaN, 1.5 = 1.50, 'a' = 'a  '::char.
SELECT (bloom_info(bloom_agg(v))).bits = bloom_optimal_bits(2, 0.01) AS float_two
FROM (VALUES (0.0::float8), ((-0.0)::float8), ('NaN'), ('NaN'::float8 + 1)) t(v);
SELECT (bloom_info(bloom_agg(v))).bits = bloom_optimal_bits(1, 0.01) AS numeric_one
FROM (VALUES (1.5::numeric), (1.50), (1.500)) t(v);
SELECT (bloom_info(bloom_agg(v))).bits = bloom_optimal_bits(1, 0.01) AS char_one
FROM (VALUES ('a'::char(1)), ('a  '::char(3))) t(v);
-- Groups of 10 ... 1,000,000 distinct bigints: in the exact phase the filter
-- has exactly bloom_empty(n, 0.01)'s shape (so bits <= 1.5 x optimal).
CREATE TEMP TABLE agg_sized AS
SELECT n, bloom_agg(x) AS f
FROM (VALUES (10), (100), (1000), (10000), (100000), (1000000)) v(n),
     LATERAL generate_series(1::bigint, n) x
GROUP BY n;
SELECT n, i.bits, i.hashes, bloom_optimal_bits(n, 0.01) AS optimal_bits,
       i.bits <= 1.5 * bloom_optimal_bits(n, 0.01) AS within_1_5x, i.key_family
FROM agg_sized, bloom_info(f) i ORDER BY n;
-- No false negatives, up to 1M values.
SELECT n, (SELECT count(*) FILTER (WHERE NOT f @> x) FROM generate_series(1::bigint, n) x) AS false_negatives
FROM agg_sized ORDER BY n;
-- Measured false-positive rate over 100000 absent keys <= 1.2 x 0.01 for
-- groups of 1000 and more (one filter is a large enough sample there).
SELECT n, (SELECT count(*) FILTER (WHERE f @> -y) FROM generate_series(1, 100000) y) <= 1200 AS fpr_ok
FROM agg_sized WHERE n >= 1000 ORDER BY n;
-- For small groups the rate of one filter depends on its fill, so measure the
-- average over many groups: 10000 groups of 10 and 1000 groups of 100, with
-- 200 (resp. 100) absent keys each (2,000,000 and 100,000 probes).  Ideal
-- hashing gives 1.09% (bloom_fpr_exact(96, 10, 7)) and 1.01%.
SELECT 10 AS n, count(*) AS probes,
       count(*) FILTER (WHERE f @> (-g * 1000 - y)) <= 0.012 * count(*) AS fpr_ok
FROM (SELECT g, bloom_agg(x) AS f FROM generate_series(1, 10000) g, generate_series(g * 10, g * 10 + 9) x GROUP BY g) s,
     generate_series(1, 200) y;
SELECT 100 AS n, count(*) AS probes,
       count(*) FILTER (WHERE f @> (-g * 1000 - y)) <= 0.012 * count(*) AS fpr_ok
FROM (SELECT g, bloom_agg(x) AS f FROM generate_series(1, 1000) g, generate_series(g * 100, g * 100 + 99) x GROUP BY g) s,
     generate_series(1, 100) y;
-- The estimate from the fill agrees with the real count within 5%.
SELECT n, abs(bloom_cardinality(f) - n) <= 0.05 * n AS cardinality_within_5pct,
       abs(bloom_fpr(f) - 0.01) <= 0.002 AS fill_fpr_near_1pct
FROM agg_sized WHERE n >= 1000 ORDER BY n;
DROP TABLE agg_sized;
-- The boundary of the exact phase: 1,048,576 distinct values are still
-- counted exactly; one more switches to the dense phase (a filter folded to
-- keep the rate), without a jump in size or rate.
CREATE TEMP TABLE agg_boundary AS
SELECT n, bloom_agg(x) AS f
FROM (VALUES (1048576), (1048577)) v(n), LATERAL generate_series(1::bigint, n) x
GROUP BY n;
SELECT n, i.bits = bloom_optimal_bits(n, 0.01) AS optimal_bits,
       i.bits <= 1.5 * bloom_optimal_bits(n, 0.01) AS within_1_5x,
       (SELECT count(*) FILTER (WHERE f @> -y) FROM generate_series(1, 200000) y) <= 0.012 * 200000 AS fpr_ok,
       (SELECT count(*) FILTER (WHERE NOT f @> x) FROM generate_series(1::bigint, n) x) AS false_negatives
FROM agg_boundary, bloom_info(f) i ORDER BY n;
DROP TABLE agg_boundary;

-- ---------------------------------------------------------------------------
-- Fixed capacity: bloom_empty(n, p)-shaped filters filled with n distinct
-- keys have a measured rate within +-25% of p (200000 absent keys)
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_fixed AS
SELECT p, bloom_agg(x, 100000, p) AS f
FROM (VALUES (0.01::float8), (0.001)) v(p), generate_series(1, 100000) x
GROUP BY p;
SELECT p, i.bits = (bloom_info(bloom_empty(100000, p))).bits AS shape_ok,
       (SELECT count(*) FILTER (WHERE f @> -y) FROM generate_series(1, 200000) y)
         BETWEEN 0.75 * p * 200000 AND 1.25 * p * 200000 AS fpr_within_25pct,
       (SELECT count(*) FILTER (WHERE NOT f @> x) FROM generate_series(1, 100000) x) AS false_negatives,
       abs(bloom_cardinality(f) - 100000) <= 5000 AS cardinality_within_5pct
FROM agg_fixed, bloom_info(f) i ORDER BY p DESC;
DROP TABLE agg_fixed;

-- ---------------------------------------------------------------------------
-- GROUP BY with many groups, hashed and sorted, with and without spilling
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_groups_data AS
SELECT g, g * 1000 + i AS x FROM generate_series(1, 2000) g, generate_series(0, 49) i;
SET enable_sort = off;
CREATE TEMP TABLE agg_hashed AS SELECT g, bloom_agg(x) AS f FROM agg_groups_data GROUP BY g;
RESET enable_sort;
SET enable_hashagg = off;
CREATE TEMP TABLE agg_sorted AS SELECT g, bloom_agg(x) AS f FROM agg_groups_data GROUP BY g;
RESET enable_hashagg;
SET work_mem = '64kB';
SET enable_sort = off;
CREATE TEMP TABLE agg_spilled AS SELECT g, bloom_agg(x) AS f FROM agg_groups_data GROUP BY g;
RESET enable_sort;
RESET work_mem;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE h.f = s.f) AS hashed_eq_sorted,
       count(*) FILTER (WHERE p.f = s.f) AS spilled_eq_sorted,
       count(*) FILTER (WHERE (bloom_info(s.f)).bits = bloom_optimal_bits(50, 0.01)) AS sized_for_50
FROM agg_sorted s JOIN agg_hashed h USING (g) JOIN agg_spilled p USING (g);
-- Every group's filter has its own keys, and (nearly) none of the next group's.
SELECT count(*) FILTER (WHERE f @> d.x) AS own_found, count(*) AS own_keys
FROM agg_sorted s JOIN agg_groups_data d USING (g);
SELECT count(*) FILTER (WHERE f @> d.x) < 0.012 * count(*) AS others_rarely_found
FROM agg_sorted s JOIN agg_groups_data d ON d.g = s.g % 2000 + 1;
DROP TABLE agg_groups_data, agg_hashed, agg_sorted, agg_spilled;

-- ---------------------------------------------------------------------------
-- Window aggregate: the final function leaves the state alone (READ_ONLY)
-- ---------------------------------------------------------------------------
-- (Absent keys are probed in a 1e-9 filter, so a false positive cannot
-- masquerade as a frame error.)
SELECT x, bloom_agg(x, 1e-9) OVER w @> 3 AS has_3, bloom_agg(x) OVER w @> x AS has_self,
       (bloom_info(bloom_agg(x) OVER w)).bits AS bits,
       (bloom_info(bloom_agg(x) OVER w)).bits = bloom_optimal_bits(x, 0.01) AS sized_for_rows_so_far
FROM generate_series(1, 6) x WINDOW w AS (ORDER BY x) ORDER BY x;
-- Sliding frames restart the aggregate; each frame has its own filter.
SELECT x, bloom_agg(x) OVER w = bloom_agg(x, 0.01) OVER w AS fpr_overload_same,
       bloom_agg(x) OVER w @> (x - 1) AS has_previous, bloom_agg(x, 1e-9) OVER w @> (x - 2) AS has_two_back
FROM generate_series(1, 5) x WINDOW w AS (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) ORDER BY x;
-- A running filter over many rows: every row's filter has every earlier key.
SELECT count(*) FILTER (WHERE f @> 1 AND f @> x) AS rows_ok, count(*) AS rows
FROM (SELECT x, bloom_agg(x) OVER (ORDER BY x) AS f FROM generate_series(1, 3000) x) s;
-- Partitioned windows.
SELECT g, count(*) FILTER (WHERE f @> (g * 100)) AS rows_with_first_key
FROM (SELECT g, bloom_agg(x) OVER (PARTITION BY g ORDER BY x) AS f
      FROM generate_series(1, 3) g, generate_series(g * 100, g * 100 + 9) x) s
GROUP BY g ORDER BY g;

-- ---------------------------------------------------------------------------
-- Input order does not matter: byte-identical filters
-- ---------------------------------------------------------------------------
SELECT bloom_agg(x ORDER BY x) = bloom_agg(x ORDER BY x DESC) AS auto_order,
       bloom_agg(x, 0.001 ORDER BY md5(x::text)) = bloom_agg(x, 0.001 ORDER BY x) AS fpr_order,
       bloom_agg(x, 50000, 0.01 ORDER BY x DESC) = bloom_agg(x, 50000, 0.01 ORDER BY x) AS cap_order
FROM generate_series(1, 50000) x;

DROP TABLE agg_vals, agg_by_type;
RESET max_parallel_workers_per_gather;

-- Past the dense phase's capacity (16 x 2^20 distinct values) an automatically
-- sized filter cannot meet its rate: the final function says so with a
-- WARNING and the fix; 15,000,000 values still meet it and do not warn.
SELECT bloom_fpr(f) > 0.012 AS over_rate FROM (SELECT bloom_agg(g) AS f FROM generate_series(1, 20000000) g) s;
SELECT bloom_fpr(f) <= 0.01 AS within_rate FROM (SELECT bloom_agg(g) AS f FROM generate_series(1, 15000000) g) s;
