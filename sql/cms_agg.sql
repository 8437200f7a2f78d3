--
-- cms_agg: the aggregates cms_agg, cms_agg_weighted and cms_union_agg:
-- overloads and their resolution, parameters, weights, NULLs, 64-bit limits,
-- merges (the sum of the sketches of the parts is the sketch of the whole,
-- byte for byte), window use, accuracy on a skewed stream of 1,000,000 rows
-- against exact GROUP BY counts, inner products against exact join sizes,
-- and parallel plans whose results are byte-identical to the serial ones.
--
-- All data are generated deterministically (Knuth's multiplicative hash of
-- generate_series, no random()), so every count printed here is stable.
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

SET max_parallel_workers_per_gather = 0;

-- ---------------------------------------------------------------------------
-- The aggregates: concrete argument types for the 11 key families' types,
-- a combine function, PARALLEL SAFE, the sketch itself as the state
-- ---------------------------------------------------------------------------
SELECT p.proname AS aggregate, count(*) AS overloads,
       string_agg(DISTINCT a.aggtransfn::regprocedure::text, ', ') AS transfn,
       string_agg(DISTINCT a.aggcombinefn::regprocedure::text, ', ') AS combinefn,
       string_agg(DISTINCT a.aggtranstype::regtype::text, ', ') AS state,
       string_agg(DISTINCT a.aggtransspace::text, ', ') AS sspace,
       string_agg(DISTINCT a.aggfinalfn::text, ', ') AS finalfn,
       string_agg(DISTINCT p.proparallel::text, ', ') AS parallel,
       bool_and(a.agginitval IS NULL) AS no_initval
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proname IN ('cms_agg', 'cms_agg_weighted', 'cms_union_agg')
GROUP BY p.proname ORDER BY p.proname COLLATE "C";
-- cms_agg(x) exists for exactly these argument types (cms_agg(x, epsilon,
-- delta), cms_agg_weighted(x, weight) and cms_agg_weighted(x, weight,
-- epsilon, delta) for the same ones).
SELECT string_agg(format_type(p.proargtypes[0], NULL), ', ' ORDER BY p.proargtypes[0]) AS key_types,
       count(*) FILTER (WHERE p.pronargs = 1) AS cms_agg_1,
       (SELECT count(*) FROM pg_proc q WHERE q.proname = 'cms_agg' AND q.pronargs = 3
          AND q.proargtypes[1] = 'float8'::regtype AND q.proargtypes[2] = 'float8'::regtype) AS cms_agg_3,
       (SELECT count(*) FROM pg_proc q WHERE q.proname = 'cms_agg_weighted' AND q.pronargs = 2
          AND q.proargtypes[1] = 'int8'::regtype) AS weighted_2,
       (SELECT count(*) FROM pg_proc q WHERE q.proname = 'cms_agg_weighted' AND q.pronargs = 4
          AND q.proargtypes[1] = 'int8'::regtype) AS weighted_4,
       (SELECT count(*) FROM pg_proc q WHERE q.proname IN ('cms_agg', 'cms_agg_weighted')
          AND 'anyelement'::regtype = ANY (q.proargtypes::oid[])) AS polymorphic
FROM pg_proc p WHERE p.proname = 'cms_agg' AND p.pronargs = 1;

-- ---------------------------------------------------------------------------
-- One overload per key type; the sketch counts its values exactly here
-- (1000 values, 2719 x 5 counters)
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_vals AS
SELECT x,
       (x % 100)::smallint AS i2, (x % 100)::integer AS i4, (x % 100)::bigint AS i8,
       'k' || (x % 100) AS t, ('k' || (x % 100))::varchar(20) AS vc, ('k' || (x % 100))::char(20) AS ch,
       ('k' || (x % 100))::name AS nm,
       int4send(x % 100) AS b, md5((x % 100)::text)::uuid AS u,
       (x % 100) / 8.0::real AS r, (x % 100) / 8.0::float8 AS f8, (x % 100) / 8.0 AS n,
       '2000-01-01'::date + x % 100 AS d,
       '2000-01-01'::timestamp + (x % 100) * interval '1 min' AS ts,
       '2000-01-01 00:00+00'::timestamptz + (x % 100) * interval '1 min' AS tstz
FROM generate_series(1, 1000) x;
CREATE TEMP TABLE agg_by_type AS
SELECT 'smallint' AS type, cms_agg(i2) AS c FROM agg_vals
UNION ALL SELECT 'integer', cms_agg(i4) FROM agg_vals
UNION ALL SELECT 'bigint', cms_agg(i8) FROM agg_vals
UNION ALL SELECT 'text', cms_agg(t) FROM agg_vals
UNION ALL SELECT 'varchar', cms_agg(vc) FROM agg_vals
UNION ALL SELECT 'char', cms_agg(ch) FROM agg_vals
UNION ALL SELECT 'name', cms_agg(nm) FROM agg_vals
UNION ALL SELECT 'bytea', cms_agg(b) FROM agg_vals
UNION ALL SELECT 'uuid', cms_agg(u) FROM agg_vals
UNION ALL SELECT 'real', cms_agg(r) FROM agg_vals
UNION ALL SELECT 'double precision', cms_agg(f8) FROM agg_vals
UNION ALL SELECT 'numeric', cms_agg(n) FROM agg_vals
UNION ALL SELECT 'date', cms_agg(d) FROM agg_vals
UNION ALL SELECT 'timestamp', cms_agg(ts) FROM agg_vals
UNION ALL SELECT 'timestamptz', cms_agg(tstz) FROM agg_vals;
-- 100 distinct values, each 10 times: every estimate is 10 (none below).
SELECT a.type, i.key_family, i.width, i.depth, i.total,
       min(CASE a.type
    WHEN 'smallint' THEN c -> v.i2 WHEN 'integer' THEN c -> v.i4 WHEN 'bigint' THEN c -> v.i8
    WHEN 'text' THEN c -> v.t WHEN 'varchar' THEN c -> v.vc WHEN 'char' THEN c -> v.ch
    WHEN 'name' THEN c -> v.nm WHEN 'bytea' THEN c -> v.b WHEN 'uuid' THEN c -> v.u
    WHEN 'real' THEN c -> v.r WHEN 'double precision' THEN c -> v.f8 WHEN 'numeric' THEN c -> v.n
    WHEN 'date' THEN c -> v.d WHEN 'timestamp' THEN c -> v.ts WHEN 'timestamptz' THEN c -> v.tstz
  END) AS min_estimate,
       max(CASE a.type
    WHEN 'smallint' THEN c -> v.i2 WHEN 'integer' THEN c -> v.i4 WHEN 'bigint' THEN c -> v.i8
    WHEN 'text' THEN c -> v.t WHEN 'varchar' THEN c -> v.vc WHEN 'char' THEN c -> v.ch
    WHEN 'name' THEN c -> v.nm WHEN 'bytea' THEN c -> v.b WHEN 'uuid' THEN c -> v.u
    WHEN 'real' THEN c -> v.r WHEN 'double precision' THEN c -> v.f8 WHEN 'numeric' THEN c -> v.n
    WHEN 'date' THEN c -> v.d WHEN 'timestamp' THEN c -> v.ts WHEN 'timestamptz' THEN c -> v.tstz
  END) AS max_estimate
FROM agg_by_type a CROSS JOIN LATERAL cms_info(a.c) i, agg_vals v
GROUP BY a.type, i.key_family, i.width, i.depth, i.total ORDER BY a.type COLLATE "C";
-- Types of one family give byte-identical sketches.
SELECT (SELECT c FROM agg_by_type WHERE type = 'smallint') = (SELECT c FROM agg_by_type WHERE type = 'bigint') AS int2_int8,
       (SELECT c FROM agg_by_type WHERE type = 'integer') = (SELECT c FROM agg_by_type WHERE type = 'bigint') AS int4_int8,
       (SELECT c FROM agg_by_type WHERE type = 'varchar') = (SELECT c FROM agg_by_type WHERE type = 'text') AS varchar_text,
       (SELECT c FROM agg_by_type WHERE type = 'char') = (SELECT c FROM agg_by_type WHERE type = 'text') AS char_text,
       (SELECT c FROM agg_by_type WHERE type = 'name') = (SELECT c FROM agg_by_type WHERE type = 'text') AS name_text,
       (SELECT c FROM agg_by_type WHERE type = 'real') = (SELECT c FROM agg_by_type WHERE type = 'double precision') AS real_float8;
-- The aggregate's sketch equals adding the values one by one (cms_add).
CREATE FUNCTION pg_temp.fold_adds(vals bigint[], eps float8, dlt float8) RETURNS cms LANGUAGE plpgsql AS $$
DECLARE
  c cms := cms_empty(eps, dlt);
  v bigint;
BEGIN
  FOREACH v IN ARRAY vals LOOP c := cms_add(c, v); END LOOP;
  RETURN c;
END $$;
SELECT cms_agg(i8, 0.01, 0.1) = pg_temp.fold_adds(array_agg(i8 ORDER BY x), 0.01, 0.1) AS agg_eq_adds
FROM agg_vals;
-- Equal counts are byte-equal sketches whatever the order of the rows.
SELECT (SELECT cms_agg(t ORDER BY x) FROM agg_vals) = (SELECT cms_agg(t ORDER BY x DESC) FROM agg_vals) AS order_free;

-- ---------------------------------------------------------------------------
-- Overload resolution: the common argument types pick a concrete overload
-- (EXPLAIN VERBOSE shows the coercions), and the key family follows
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_resolve (i2 smallint, i4 integer, i8 bigint, vc varchar(10), ch char(3), nm name,
                               r real, n numeric, d date, w integer);
EXPLAIN (VERBOSE, COSTS OFF)
SELECT cms_agg(i2), cms_agg(i4), cms_agg(i8), cms_agg(vc), cms_agg(ch), cms_agg(nm),
       cms_agg('lit'), cms_agg(r), cms_agg(n), cms_agg(d)
FROM agg_resolve;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT cms_agg(i2, 0.01, 0.01), cms_agg(vc, 0.01, 0.01), cms_agg('lit', 0.1, 0.1::real),
       cms_agg_weighted(i2, 2), cms_agg_weighted(i4, w), cms_agg_weighted(ch, i2, 0.01, 0.01),
       cms_agg_weighted('lit', 5, 0.1, 0.1), cms_union_agg(NULL)
FROM agg_resolve;
INSERT INTO agg_resolve VALUES (1, 1, 1, 'a', 'a', 'a', 1.5, 1.5, '2024-01-01', 3);
SELECT (cms_info(cms_agg(i2))).key_family AS int2, (cms_info(cms_agg(i4))).key_family AS int4,
       (cms_info(cms_agg(i8))).key_family AS int8, (cms_info(cms_agg(vc))).key_family AS varchar,
       (cms_info(cms_agg(ch))).key_family AS char, (cms_info(cms_agg(nm))).key_family AS name,
       (cms_info(cms_agg('lit'))).key_family AS unknown, (cms_info(cms_agg(r))).key_family AS real,
       (cms_info(cms_agg(n))).key_family AS numeric, (cms_info(cms_agg(d))).key_family AS date,
       cms_agg_weighted(i4, w) -> 1 AS weighted_int4_weight
FROM agg_resolve;
-- A NULL literal resolves to text and is skipped; other types have no overload.
SELECT cms_agg(NULL) IS NULL AS null_literal FROM agg_resolve;
SELECT cms_agg(true) FROM agg_resolve;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg(i4::oid) FROM agg_resolve;
\echo SQLSTATE :SQLSTATE
DROP TABLE agg_resolve;

-- ---------------------------------------------------------------------------
-- Parameters: the shape of cms_empty(epsilon, delta); checked before the
-- first row is added, even when every value is NULL
-- ---------------------------------------------------------------------------
SELECT eps, dlt, i.width, i.depth, cms_total(cms_agg(x, eps, dlt)) AS total,
       cms_agg(x, eps, dlt) = cms_union_agg(cms_add(cms_empty(eps, dlt), x)) AS eq_adds
FROM (VALUES (0.1::float8, 0.5::float8), (0.01, 0.01), (0.001, 0.01), (0.0005, 0.0001)) p(eps, dlt)
     CROSS JOIN generate_series(1, 100) x
     CROSS JOIN LATERAL cms_info(cms_empty(eps, dlt)) i
GROUP BY eps, dlt, i.width, i.depth ORDER BY eps DESC;
SELECT cms_agg(x) = cms_agg(x, 0.001, 0.01) AS defaults FROM generate_series(1, 100) x;
SELECT cms_agg(x, 0, 0.01) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg(x, 1, 0.01) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg(x, 'NaN', 0.01) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg(x, 0.01, 'Infinity') FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg(x, 0.01, -0.01) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg(x, 0.5, 1e-30) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg(x, 1e-8, 0.01) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg_weighted(x, 1, 0.01, 0) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg(x, NULL, 0.01) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg_weighted(x, 1, 0.01, NULL) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
-- checked even when every value is NULL ...
SELECT cms_agg(NULL::integer, 2, 0.01) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
-- ... but not without rows (the aggregate never runs): NULL.
SELECT cms_agg(x, 2, 0.01) IS NULL AS no_rows FROM generate_series(1, 0) x;
-- Parameters must be the same for every row of a group.
SELECT cms_agg(x, CASE WHEN x < 5 THEN 0.01 ELSE 0.02 END, 0.01) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT (cms_info(cms_agg(x, CASE WHEN x < 5 THEN 0.01 ELSE 0.0100000001 END, 0.01))).width AS same_shape_is_fine
FROM generate_series(1, 10) x;

-- ---------------------------------------------------------------------------
-- NULLs: a NULL value is skipped; a group of only NULLs gives NULL
-- ---------------------------------------------------------------------------
SELECT cms_agg(CASE WHEN x % 3 = 0 THEN NULL ELSE x END) = cms_agg(x) FILTER (WHERE x % 3 <> 0) AS nulls_skipped,
       cms_total(cms_agg(CASE WHEN x % 3 = 0 THEN NULL ELSE x END)) AS total
FROM generate_series(1, 30) x;
SELECT cms_agg(NULL::bigint) IS NULL AS all_null, cms_agg(x) IS NULL AS no_rows
FROM (SELECT NULL::bigint AS x WHERE false) s;
SELECT g, cms_total(cms_agg(CASE WHEN g = 1 THEN NULL ELSE x END)) AS total
FROM generate_series(1, 10) x, generate_series(1, 2) g GROUP BY g ORDER BY g;

-- ---------------------------------------------------------------------------
-- cms_agg_weighted: the sum of the non-negative weights of each value
-- ---------------------------------------------------------------------------
-- Weight w is the same as w rows of the value, byte for byte.
SELECT (SELECT cms_agg_weighted(x, x) FROM generate_series(1, 50) x)
       = (SELECT cms_agg(x) FROM generate_series(1, 50) x, generate_series(1, 50) r WHERE r <= x) AS weight_is_repetition,
       (SELECT cms_agg_weighted(t, 3, 0.01, 0.01) FROM (VALUES ('a'), ('b'), ('a')) v(t))
       = cms_add(cms_add(cms_empty(0.01, 0.01), 'a', 6), 'b', 3) AS weighted_with_params;
SELECT cms_total(c) AS total, c -> 10 AS f10, c -> 50 AS f50, c -> 51 AS f51
FROM (SELECT cms_agg_weighted(x, x) AS c FROM generate_series(1, 50) x) s;
-- Weight 0 counts nothing (the family is set); a NULL weight skips the row.
SELECT total, key_family FROM cms_info((SELECT cms_agg_weighted(x, 0) FROM generate_series(1, 5) x));
SELECT cms_agg_weighted(x, CASE WHEN x > 3 THEN NULL ELSE 1 END) = cms_agg(x) FILTER (WHERE x <= 3) AS null_weight_skips
FROM generate_series(1, 10) x;
SELECT cms_agg_weighted(x, NULL::bigint) IS NULL AS all_null_weights FROM generate_series(1, 10) x;
-- Negative weights: 22023.
SELECT cms_agg_weighted(x, 5 - x) FROM generate_series(1, 10) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg_weighted('a', -9223372036854775808);
\echo SQLSTATE :SQLSTATE
-- Totals past 2^63 - 1: 54000, never a wrap-around; exactly 2^63 - 1 is fine.
SELECT cms_agg_weighted(x, 4611686018427387904) FROM generate_series(1, 2) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_agg_weighted(x, 9223372036854775807) FROM generate_series(1, 2) x;
\echo SQLSTATE :SQLSTATE
SELECT cms_total(c) AS total, c -> 1 AS f1, c -> 2 AS f2
FROM (SELECT cms_agg_weighted(x, CASE x WHEN 1 THEN 9223372036854775000 ELSE 807 END) AS c
      FROM generate_series(1, 2) x) s;
-- The transition functions only work inside an aggregate.
SELECT cms_agg_trans(cms_empty(), 1);
\echo SQLSTATE :SQLSTATE
SELECT cms_agg_weighted_trans(NULL, 1, 1::bigint);
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- GROUP BY, and merges: the sum of the sketches of the parts is the sketch
-- of the whole, byte for byte (cms_union_agg, +, cms_union)
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_stream AS
SELECT g, (g % 7)::integer AS part, ((g * 2654435761) % 4294967296 % 1000)::bigint AS x, 'u' || (g % 300) AS t
FROM generate_series(1, 70000) g;
CREATE TEMP TABLE agg_parts AS
SELECT part, cms_agg(x, 0.01, 0.01) AS c, cms_agg(t) AS ct, cms_agg_weighted(x, part, 0.01, 0.01) AS cw, count(*) AS n
FROM agg_stream GROUP BY part;
CREATE TEMP TABLE agg_parts_before AS SELECT part, c::text AS c, ct::text AS ct, cw::text AS cw FROM agg_parts;
SELECT part, n, cms_total(c) AS total, cms_total(cw) AS weighted_total FROM agg_parts ORDER BY part;
SELECT (SELECT cms_union_agg(c) FROM agg_parts) = (SELECT cms_agg(x, 0.01, 0.01) FROM agg_stream) AS union_agg_is_whole,
       (SELECT cms_union_agg(ct) FROM agg_parts) = (SELECT cms_agg(t) FROM agg_stream) AS text_union_agg_is_whole,
       (SELECT cms_union_agg(cw) FROM agg_parts) = (SELECT cms_agg_weighted(x, part, 0.01, 0.01) FROM agg_stream) AS weighted_is_whole,
       (SELECT cms_union_agg(c ORDER BY part DESC) FROM agg_parts) = (SELECT cms_union_agg(c ORDER BY part) FROM agg_parts) AS order_free,
       (SELECT a.c + b.c FROM agg_parts a, agg_parts b WHERE a.part = 0 AND b.part = 1)
         = (SELECT cms_agg(x, 0.01, 0.01) FROM agg_stream WHERE part IN (0, 1)) AS plus_is_whole;
-- Merging never modifies the sketches it reads (the stored parts).
SELECT count(*) FILTER (WHERE p.c::text = b.c AND p.ct::text = b.ct AND p.cw::text = b.cw) AS unchanged, count(*) AS parts
FROM agg_parts p JOIN agg_parts_before b USING (part);
-- cms_union_agg: NULL sketches are skipped; a group of NULLs gives NULL.
SELECT cms_union_agg(c) IS NULL AS all_null FROM (SELECT NULL::cms AS c FROM generate_series(1, 3)) s;
SELECT cms_union_agg(c) = (SELECT c FROM agg_parts WHERE part = 3) AS nulls_skipped
FROM (SELECT c FROM agg_parts WHERE part = 3 UNION ALL SELECT NULL) s;
-- An empty sketch (family none) merges with any family.
SELECT cms_union_agg(c) = (SELECT ct FROM agg_parts WHERE part = 2) AS empty_merges
FROM (SELECT cms_empty() AS c UNION ALL SELECT ct FROM agg_parts WHERE part = 2) s;
-- Shapes and families must match: 22023 / 42804 naming both; 54000 past 2^63 - 1.
SELECT cms_union_agg(c) FROM (SELECT c FROM agg_parts UNION ALL SELECT ct FROM agg_parts) s;
\echo SQLSTATE :SQLSTATE
SELECT cms_union_agg(c) FROM (SELECT ct AS c FROM agg_parts UNION ALL SELECT cms_agg(x) FROM agg_stream) s;
\echo SQLSTATE :SQLSTATE
SELECT cms_union_agg(c) FROM (SELECT cms_add(cms_empty(0.1, 0.1), x, 3074457345618258603) AS c
                              FROM generate_series(1, 3) x) s;
\echo SQLSTATE :SQLSTATE
-- Roll-ups: per-part sketches of per-(part, g % 3) groups add up to the per-part sketches.
SELECT count(*) AS parts, count(*) FILTER (WHERE r.c = p.c) AS rollups_equal
FROM (SELECT part, cms_union_agg(c) AS c
      FROM (SELECT part, g % 3 AS sub, cms_agg(x, 0.01, 0.01) AS c FROM agg_stream GROUP BY 1, 2) s
      GROUP BY part) r JOIN agg_parts p USING (part);
-- A hash aggregate that spills to disk (7 states of 108808 bytes in 64kB of
-- work_mem) gives the same sketches.
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SET enable_sort = off;
SELECT regress_plan_sum($$CREATE TEMP TABLE agg_spilled AS
                          SELECT part, cms_agg(t) AS ct, cms_agg_weighted(x, part, 0.01, 0.01) AS cw
                          FROM agg_stream GROUP BY part$$, 'HashAgg Batches') > 1 AS spilled;
RESET enable_sort;
RESET hash_mem_multiplier;
RESET work_mem;
SELECT count(*) AS parts, count(*) FILTER (WHERE s.ct = p.ct AND s.cw = p.cw) AS identical
FROM agg_spilled s JOIN agg_parts p USING (part);
DROP TABLE agg_spilled;
-- cms_agg as a window aggregate: the running sketch of each prefix.
SELECT g, cms_total(c) AS total, c -> 1 AS f1, c -> 2 AS f2
FROM (SELECT g, cms_agg(g % 3, 0.1, 0.1) OVER (ORDER BY g) AS c FROM generate_series(1, 6) g) s ORDER BY g;
SELECT g, cms_total(c) AS total
FROM (SELECT g, cms_union_agg(c) OVER (ORDER BY g ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c
      FROM (SELECT g, cms_add(cms_empty(0.1, 0.1), g, g) AS c FROM generate_series(1, 5) g) s) w ORDER BY g;
DROP TABLE agg_vals, agg_by_type, agg_stream, agg_parts, agg_parts_before;

-- ---------------------------------------------------------------------------
-- Accuracy on a skewed stream of 1,000,000 rows, against exact counts
-- ---------------------------------------------------------------------------
-- Key x = floor(N^u) with u uniform in [0, 1) (u from Knuth's
-- multiplicative hash of the row number, so the stream is the same
-- everywhere): P(x = k) = ln(1 + 1/k) / ln N, a Zipf law of exponent 1
-- over 1..N = 1,000,000.  (A regular table: the parallel tests below use it.)
CREATE TABLE agg_zipf AS
SELECT g, floor(exp(ln(1000000::float8) * ((g * 2654435761) % 4294967296)::float8 / 4294967296))::bigint AS x,
       (g % 10)::integer AS part, (g % 7)::bigint AS w
FROM generate_series(1, 1000000) g;
ANALYZE agg_zipf;
CREATE TEMP TABLE agg_zipf_truth AS SELECT x, count(*) AS f FROM agg_zipf GROUP BY x;
CREATE TEMP TABLE agg_zipf_sketch AS
SELECT cms_agg(x, 0.001, 0.01) AS c, cms_agg(x, 0.01, 0.01) AS c_narrow FROM agg_zipf;
SELECT count(*) AS distinct_keys, sum(f) AS n, max(f) AS top_count,
       count(*) FILTER (WHERE f = 1) AS keys_seen_once FROM agg_zipf_truth;
-- epsilon 0.001, delta 0.01 (2719 x 5): eps N = e/2719 * 10^6 = 999.7.  No
-- estimate is below the true count; at most delta = 1% of the keys may be
-- over f + eps N.
CREATE FUNCTION pg_temp.accuracy(which text)
RETURNS TABLE (sketch text, width bigint, depth integer, eps_n numeric, keys bigint, below bigint,
               exact bigint, over_bound bigint, over_bound_pct numeric, max_over bigint, mean_over numeric,
               at_most_delta boolean)
LANGUAGE sql AS $$
  WITH s AS (SELECT CASE which WHEN 'narrow' THEN c_narrow ELSE c END AS c FROM agg_zipf_sketch),
       e AS (SELECT t.x, t.f, s.c -> t.x AS est, cms_error_bound(s.c) AS bound FROM agg_zipf_truth t, s)
  SELECT which, i.width, i.depth, round(min(e.bound)::numeric, 1), count(*),
         count(*) FILTER (WHERE est < f), count(*) FILTER (WHERE est = f),
         count(*) FILTER (WHERE est > f + bound),
         round(100.0 * count(*) FILTER (WHERE est > f + bound) / count(*), 3),
         max(est - f), round(avg(est - f), 2),
         count(*) FILTER (WHERE est > f + bound) <= i.delta * count(*)
  FROM e, s CROSS JOIN LATERAL cms_info(s.c) i
  GROUP BY i.width, i.depth, i.delta $$;
SELECT * FROM pg_temp.accuracy('default');
-- epsilon 0.01, delta 0.01 (272 x 5): eps N = 9993.7; the error is visible.
SELECT * FROM pg_temp.accuracy('narrow');
-- The ten most frequent keys: estimate within [f, f + eps N].
SELECT t.x, t.f, c -> t.x AS estimate, c_narrow -> t.x AS narrow_estimate,
       c -> t.x BETWEEN t.f AND t.f + cms_error_bound(c) AS within, c_narrow -> t.x BETWEEN t.f AND t.f + cms_error_bound(c_narrow) AS narrow_within
FROM agg_zipf_truth t, agg_zipf_sketch ORDER BY t.f DESC, t.x LIMIT 10;
-- Keys never added: estimates are bounded by eps N too (here for 10,000 absent keys).
SELECT count(*) AS absent_keys, max(c -> -k) AS max_estimate, count(*) FILTER (WHERE c -> -k > cms_error_bound(c)) AS over_bound
FROM agg_zipf_sketch, generate_series(1, 10000) k;

-- ---------------------------------------------------------------------------
-- Inner product: the size of an equi-join, never below the true size, at
-- most eps N_a N_b above it (with probability 1 - delta)
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_other AS
SELECT floor(exp(ln(1000::float8) * ((g::bigint * 40503) % 65536)::float8 / 65536))::bigint AS x FROM generate_series(1, 200000) g;
-- The true join size, sum over keys of f_a * f_b (a join would have billions of rows).
CREATE TEMP TABLE agg_join AS
SELECT (SELECT sum(t.f * o.f) FROM agg_zipf_truth t JOIN (SELECT x, count(*) AS f FROM agg_other GROUP BY x) o USING (x))
         AS true_join_size,
       a.c AS a, b.c AS b
FROM (SELECT c FROM agg_zipf_sketch) a, (SELECT cms_agg(x, 0.001, 0.01) AS c FROM agg_other) b;
SELECT true_join_size, cms_inner_product(a, b) AS estimate, cms_inner_product(a, b) >= true_join_size AS not_below,
       cms_inner_product(a, b) - true_join_size AS over,
       round((cms_info(a)).epsilon::numeric * cms_total(a) * cms_total(b)) AS eps_na_nb,
       cms_inner_product(a, b) - true_join_size <= (cms_info(a)).epsilon::numeric * cms_total(a) * cms_total(b) AS within_eps_na_nb
FROM agg_join;
-- The self-join size (the second frequency moment F2).
SELECT (SELECT sum(f * f) FROM agg_zipf_truth) AS true_f2, cms_inner_product(c, c) AS estimate,
       cms_inner_product(c, c) >= (SELECT sum(f * f) FROM agg_zipf_truth) AS not_below
FROM agg_zipf_sketch;
DROP TABLE agg_other, agg_join, agg_zipf_truth;

-- ---------------------------------------------------------------------------
-- Parallel plans (Partial Aggregate, Gather, Finalize Aggregate) give
-- results byte-identical to the serial plan
-- ---------------------------------------------------------------------------
-- (plan_sum(q, 'Workers Launched') counts the parallel workers q launched.)
CREATE TEMP TABLE agg_serial AS
SELECT cms_agg(x) AS a, cms_agg(x, 0.01, 0.001) AS b, cms_agg_weighted(x, w) AS c,
       cms_agg_weighted(x, w, 0.05, 0.1) AS d, cms_agg(x::text) AS e
FROM agg_zipf;
CREATE TEMP TABLE agg_serial_g AS
SELECT part, cms_agg(x) AS a, cms_agg(x, 0.01, 0.001) AS b, cms_agg_weighted(x, w) AS c
FROM agg_zipf GROUP BY part;
-- The serial sketch is the one of the accuracy test.
SELECT agg_serial.a = agg_zipf_sketch.c AS same_as_accuracy_sketch FROM agg_serial, agg_zipf_sketch;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT cms_agg(x) FROM agg_zipf;
EXPLAIN (COSTS OFF) SELECT cms_agg(x, 0.01, 0.001), cms_agg_weighted(x, w), cms_agg_weighted(x, w, 0.05, 0.1) FROM agg_zipf;
EXPLAIN (COSTS OFF) SELECT part, cms_agg(x) FROM agg_zipf GROUP BY part;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE agg_parallel AS
  SELECT cms_agg(x) AS a, cms_agg(x, 0.01, 0.001) AS b, cms_agg_weighted(x, w) AS c,
         cms_agg_weighted(x, w, 0.05, 0.1) AS d, cms_agg(x::text) AS e
  FROM agg_zipf$$, 'Workers Launched') >= 1 AS workers_launched;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE agg_parallel_g AS
  SELECT part, cms_agg(x) AS a, cms_agg(x, 0.01, 0.001) AS b, cms_agg_weighted(x, w) AS c
  FROM agg_zipf GROUP BY part$$, 'Workers Launched') >= 1 AS workers_launched;
-- Byte-identical to the serial plan.
SELECT s.a = p.a AS cms_agg, s.b = p.b AS with_params, s.c = p.c AS weighted, s.d = p.d AS weighted_params,
       s.e = p.e AS text_keys, cms_total(p.a) AS total, cms_total(p.c) AS weighted_total
FROM agg_serial s, agg_parallel p;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.a = p.a AND s.b = p.b AND s.c = p.c) AS identical
FROM agg_serial_g s JOIN agg_parallel_g p USING (part);
-- The per-part sketches add up to the whole.
SELECT (SELECT cms_union_agg(a) FROM agg_parallel_g) = a AS parts_sum_to_whole,
       (SELECT cms_union_agg(c) FROM agg_parallel_g) = c AS weighted_parts_sum_to_whole
FROM agg_parallel;

-- cms_union_agg in parallel: 1000 sketches of the parts of the stream.
SET max_parallel_workers_per_gather = 0;
CREATE TABLE agg_sketches AS
SELECT g % 1000 AS part, cms_agg(x, 0.01, 0.01) AS c FROM agg_zipf GROUP BY g % 1000;
ALTER TABLE agg_sketches SET (parallel_workers = 2);
ANALYZE agg_sketches;
CREATE TEMP TABLE agg_union_serial AS SELECT cms_union_agg(c) AS u FROM agg_sketches;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT cms_union_agg(c) FROM agg_sketches;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE agg_union_parallel AS SELECT cms_union_agg(c) AS u FROM agg_sketches$$, 'Workers Launched') >= 1 AS workers_launched;
SELECT s.u = p.u AS union_identical, p.u = (SELECT c_narrow FROM agg_zipf_sketch) AS union_is_sketch_of_whole,
       cms_total(p.u) AS total
FROM agg_union_serial s, agg_union_parallel p;
DROP TABLE agg_sketches;

RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
DROP TABLE agg_zipf;
