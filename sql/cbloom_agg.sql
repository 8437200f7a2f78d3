--
-- cbloom_agg: the aggregates cbloom_agg(x), cbloom_agg(x, fpr),
-- cbloom_agg(x, capacity, fpr [, counter_bits]) and cbloom_union_agg:
-- overloads and their resolution, the bit view against bloom_agg, counts of
-- repeated values, parameters, NULLs, GROUP BY, window use, roll-ups and
-- taking a day out of them again (cbloom_remove, cbloom_subtract), parallel
-- plans (byte-identical to serial ones), and the limit of the automatically
-- sized form (2^20 distinct values per group).
--
-- Errors are followed by "\echo SQLSTATE :SQLSTATE".  All data are
-- deterministic (generate_series and Knuth's multiplicative hash of it), so
-- every count printed here is stable.
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
-- The aggregates: concrete argument types (those of bloom_agg), a combine
-- function, PARALLEL SAFE
-- ---------------------------------------------------------------------------
SELECT p.proname AS aggregate, p.pronargs AS args, count(*) AS overloads,
       string_agg(DISTINCT a.aggtransfn::regprocedure::text, ', ') AS transfn,
       string_agg(DISTINCT a.aggcombinefn::regprocedure::text, ', ') AS combinefn,
       string_agg(DISTINCT a.aggtranstype::regtype::text, ', ') AS state,
       string_agg(DISTINCT a.aggfinalfn::text, ', ') AS finalfn,
       string_agg(DISTINCT a.aggfinalmodify::text, ', ') AS finalmodify,
       string_agg(DISTINCT p.proparallel::text, ', ') AS parallel,
       bool_and(a.agginitval IS NULL) AS no_initval
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proname IN ('cbloom_agg', 'cbloom_union_agg')
GROUP BY p.proname, p.pronargs ORDER BY p.proname COLLATE "C", p.pronargs;
-- cbloom_agg has an overload of each arity for exactly the key types of
-- bloom_agg(x); the parameters are fpr double precision, or capacity bigint,
-- fpr double precision [, counter_bits integer].
SELECT n, (SELECT string_agg(format_type(c.proargtypes[0], NULL), ', ' ORDER BY c.proargtypes[0])
           FROM pg_proc c WHERE c.proname = 'cbloom_agg' AND c.pronargs = n) AS key_types,
       (SELECT array_agg(c.proargtypes[0] ORDER BY c.proargtypes[0]) FROM pg_proc c WHERE c.proname = 'cbloom_agg' AND c.pronargs = n)
       = (SELECT array_agg(b.proargtypes[0] ORDER BY b.proargtypes[0]) FROM pg_proc b WHERE b.proname = 'bloom_agg' AND b.pronargs = 1)
         AS same_as_bloom_agg,
       (SELECT string_agg(DISTINCT format_type(t, NULL), ', ')
        FROM pg_proc c, unnest(c.proargtypes[1:]) WITH ORDINALITY a(t, i)
        WHERE c.proname = 'cbloom_agg' AND c.pronargs = n) AS parameter_types,
       (SELECT count(*) FROM pg_proc c WHERE c.proname = 'cbloom_agg' AND c.pronargs = n
          AND c.proargtypes[1:] = CASE n WHEN 1 THEN '{}'::oid[] WHEN 2 THEN '{float8}'::regtype[]::oid[]
                                    WHEN 3 THEN '{int8,float8}'::regtype[]::oid[] ELSE '{int8,float8,int4}'::regtype[]::oid[] END)
         AS with_these_parameters
FROM generate_series(1, 4) n ORDER BY n;

-- ---------------------------------------------------------------------------
-- Every key type: 1000 distinct values, value x in 1 + x % 4 rows
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_vals AS
SELECT x, 1 + x % 4 AS mult,
       x::smallint AS i2, x::integer AS i4, x::bigint AS i8,
       'k' || x AS t, ('k' || x)::varchar(20) AS vc, ('k' || x)::char(20) AS ch, ('k' || x)::name AS nm,
       int4send(x) AS b, md5(x::text)::uuid AS u,
       x / 8.0::real AS r, x / 8.0::float8 AS f8, x / 8.0 AS n,
       '2000-01-01'::date + x AS d,
       '2000-01-01'::timestamp + x * interval '1 min' AS ts,
       '2000-01-01 00:00+00'::timestamptz + x * interval '1 min' AS tstz
FROM generate_series(1, 1000) x;
CREATE TEMP TABLE agg_rows AS SELECT v.* FROM agg_vals v, generate_series(1, 4) rep WHERE rep <= v.mult;
SELECT count(*) AS rows, count(DISTINCT x) AS distinct_values FROM agg_rows;
-- For each type: the automatically sized form (a), with an fpr (p), with a
-- capacity (c), with a capacity and 8-bit counters (c8); and bloom_agg of
-- the same rows.
CREATE TEMP TABLE agg_by_type AS
SELECT 'smallint' AS type, cbloom_agg(i2) AS a, cbloom_agg(i2, 0.001) AS p, cbloom_agg(i2, 2000, 0.02) AS c,
       cbloom_agg(i2, 2000, 0.02, 8) AS c8, bloom_agg(i2) AS ba, bloom_agg(i2, 0.001) AS bp, bloom_agg(i2, 2000, 0.02) AS bc
FROM agg_rows
UNION ALL SELECT 'integer', cbloom_agg(i4), cbloom_agg(i4, 0.001), cbloom_agg(i4, 2000, 0.02),
       cbloom_agg(i4, 2000, 0.02, 8), bloom_agg(i4), bloom_agg(i4, 0.001), bloom_agg(i4, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'bigint', cbloom_agg(i8), cbloom_agg(i8, 0.001), cbloom_agg(i8, 2000, 0.02),
       cbloom_agg(i8, 2000, 0.02, 8), bloom_agg(i8), bloom_agg(i8, 0.001), bloom_agg(i8, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'text', cbloom_agg(t), cbloom_agg(t, 0.001), cbloom_agg(t, 2000, 0.02),
       cbloom_agg(t, 2000, 0.02, 8), bloom_agg(t), bloom_agg(t, 0.001), bloom_agg(t, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'varchar', cbloom_agg(vc), cbloom_agg(vc, 0.001), cbloom_agg(vc, 2000, 0.02),
       cbloom_agg(vc, 2000, 0.02, 8), bloom_agg(vc), bloom_agg(vc, 0.001), bloom_agg(vc, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'char', cbloom_agg(ch), cbloom_agg(ch, 0.001), cbloom_agg(ch, 2000, 0.02),
       cbloom_agg(ch, 2000, 0.02, 8), bloom_agg(ch), bloom_agg(ch, 0.001), bloom_agg(ch, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'name', cbloom_agg(nm), cbloom_agg(nm, 0.001), cbloom_agg(nm, 2000, 0.02),
       cbloom_agg(nm, 2000, 0.02, 8), bloom_agg(nm), bloom_agg(nm, 0.001), bloom_agg(nm, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'bytea', cbloom_agg(b), cbloom_agg(b, 0.001), cbloom_agg(b, 2000, 0.02),
       cbloom_agg(b, 2000, 0.02, 8), bloom_agg(b), bloom_agg(b, 0.001), bloom_agg(b, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'uuid', cbloom_agg(u), cbloom_agg(u, 0.001), cbloom_agg(u, 2000, 0.02),
       cbloom_agg(u, 2000, 0.02, 8), bloom_agg(u), bloom_agg(u, 0.001), bloom_agg(u, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'real', cbloom_agg(r), cbloom_agg(r, 0.001), cbloom_agg(r, 2000, 0.02),
       cbloom_agg(r, 2000, 0.02, 8), bloom_agg(r), bloom_agg(r, 0.001), bloom_agg(r, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'double precision', cbloom_agg(f8), cbloom_agg(f8, 0.001), cbloom_agg(f8, 2000, 0.02),
       cbloom_agg(f8, 2000, 0.02, 8), bloom_agg(f8), bloom_agg(f8, 0.001), bloom_agg(f8, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'numeric', cbloom_agg(n), cbloom_agg(n, 0.001), cbloom_agg(n, 2000, 0.02),
       cbloom_agg(n, 2000, 0.02, 8), bloom_agg(n), bloom_agg(n, 0.001), bloom_agg(n, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'date', cbloom_agg(d), cbloom_agg(d, 0.001), cbloom_agg(d, 2000, 0.02),
       cbloom_agg(d, 2000, 0.02, 8), bloom_agg(d), bloom_agg(d, 0.001), bloom_agg(d, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'timestamp', cbloom_agg(ts), cbloom_agg(ts, 0.001), cbloom_agg(ts, 2000, 0.02),
       cbloom_agg(ts, 2000, 0.02, 8), bloom_agg(ts), bloom_agg(ts, 0.001), bloom_agg(ts, 2000, 0.02) FROM agg_rows
UNION ALL SELECT 'timestamptz', cbloom_agg(tstz), cbloom_agg(tstz, 0.001), cbloom_agg(tstz, 2000, 0.02),
       cbloom_agg(tstz, 2000, 0.02, 8), bloom_agg(tstz), bloom_agg(tstz, 0.001), bloom_agg(tstz, 2000, 0.02) FROM agg_rows;
-- Sized for the 1000 distinct values (the rows do not count), with 4-bit
-- counters; the bit views are bloom_agg's filters, byte for byte.
SELECT type, ia.key_family, ia.counters, ia.hashes, ia.counter_bits, ip.counters AS counters_p, ic.counters AS counters_c,
       i8.counter_bits AS bits_c8, i8.key_family = ia.key_family AS family_c8,
       a::bloom = ba AS auto_is_bloom_agg, p::bloom = bp AS fpr_is_bloom_agg, c::bloom = bc AS capacity_is_bloom_agg,
       c8::bloom = bc AS c8_is_bloom_agg
FROM agg_by_type, cbloom_info(a) ia, cbloom_info(p) ip, cbloom_info(c) ic, cbloom_info(c8) i8 ORDER BY type COLLATE "C";
-- No value is counted fewer times than it occurs (so none is missing); in
-- these filters at capacity a few counts are over, in the 2000-capacity
-- filters fewer.
CREATE TEMP TABLE agg_counts AS
SELECT a.type, v.mult, CASE a.type
    WHEN 'smallint' THEN cbloom_count(a.a, v.i2) WHEN 'integer' THEN cbloom_count(a.a, v.i4)
    WHEN 'bigint' THEN cbloom_count(a.a, v.i8) WHEN 'text' THEN cbloom_count(a.a, v.t)
    WHEN 'varchar' THEN cbloom_count(a.a, v.vc) WHEN 'char' THEN cbloom_count(a.a, v.ch)
    WHEN 'name' THEN cbloom_count(a.a, v.nm) WHEN 'bytea' THEN cbloom_count(a.a, v.b)
    WHEN 'uuid' THEN cbloom_count(a.a, v.u) WHEN 'real' THEN cbloom_count(a.a, v.r)
    WHEN 'double precision' THEN cbloom_count(a.a, v.f8) WHEN 'numeric' THEN cbloom_count(a.a, v.n)
    WHEN 'date' THEN cbloom_count(a.a, v.d) WHEN 'timestamp' THEN cbloom_count(a.a, v.ts)
    WHEN 'timestamptz' THEN cbloom_count(a.a, v.tstz) END AS count_a,
  CASE a.type
    WHEN 'smallint' THEN cbloom_count(a.c, v.i2) WHEN 'integer' THEN cbloom_count(a.c, v.i4)
    WHEN 'bigint' THEN cbloom_count(a.c, v.i8) WHEN 'text' THEN cbloom_count(a.c, v.t)
    WHEN 'varchar' THEN cbloom_count(a.c, v.vc) WHEN 'char' THEN cbloom_count(a.c, v.ch)
    WHEN 'name' THEN cbloom_count(a.c, v.nm) WHEN 'bytea' THEN cbloom_count(a.c, v.b)
    WHEN 'uuid' THEN cbloom_count(a.c, v.u) WHEN 'real' THEN cbloom_count(a.c, v.r)
    WHEN 'double precision' THEN cbloom_count(a.c, v.f8) WHEN 'numeric' THEN cbloom_count(a.c, v.n)
    WHEN 'date' THEN cbloom_count(a.c, v.d) WHEN 'timestamp' THEN cbloom_count(a.c, v.ts)
    WHEN 'timestamptz' THEN cbloom_count(a.c, v.tstz) END AS count_c
FROM agg_by_type a, agg_vals v;
SELECT type, count(*) AS values, count(*) FILTER (WHERE count_a < mult) AS below_a, count(*) FILTER (WHERE count_c < mult) AS below_c,
       count(*) FILTER (WHERE count_a = mult) AS exact_a, count(*) FILTER (WHERE count_c = mult) AS exact_c
FROM agg_counts GROUP BY type ORDER BY type COLLATE "C";
DROP TABLE agg_counts;
-- Types of one family give byte-identical filters.
SELECT (SELECT a FROM agg_by_type WHERE type = 'smallint') = (SELECT a FROM agg_by_type WHERE type = 'bigint') AS int2_int8,
       (SELECT c FROM agg_by_type WHERE type = 'integer') = (SELECT c FROM agg_by_type WHERE type = 'bigint') AS int4_int8,
       (SELECT a FROM agg_by_type WHERE type = 'varchar') = (SELECT a FROM agg_by_type WHERE type = 'text') AS varchar_text,
       (SELECT p FROM agg_by_type WHERE type = 'char') = (SELECT p FROM agg_by_type WHERE type = 'text') AS char_text,
       (SELECT c FROM agg_by_type WHERE type = 'name') = (SELECT c FROM agg_by_type WHERE type = 'text') AS name_text,
       (SELECT a FROM agg_by_type WHERE type = 'real') = (SELECT a FROM agg_by_type WHERE type = 'double precision') AS real_float8;
-- The automatically sized form is the capacity form with the distinct count
-- as the capacity; the capacity form is cbloom_empty(capacity, fpr) with
-- every row added.
SELECT cbloom_agg(i8) = cbloom_agg(i8, 1000, 0.01) AS auto_is_capacity_1000,
       cbloom_agg(t, 0.001) = cbloom_agg(t, 1000, 0.001) AS fpr_is_capacity_1000,
       cbloom_agg(i8, 2000, 0.02) = cbloom_union_agg(cbloom_add(cbloom_empty(2000, 0.02), i8)) AS capacity_is_adds,
       cbloom_agg(u, 5000, 0.01) = cbloom_union_agg(cbloom_add(cbloom_empty(5000), u)) AS uuid_capacity_is_adds,
       cbloom_agg(i8, 2000, 0.02, 4) = cbloom_agg(i8, 2000, 0.02) AS bits_4_is_default,
       cbloom_agg(t, 2000, 0.02, 8) = cbloom_union_agg(cbloom_add(cbloom_empty(2000, 0.02, 8), t)) AS capacity_8bit_is_adds
FROM agg_rows;

-- ---------------------------------------------------------------------------
-- Counts of repeated values: value v (1..20) in v rows.  In a sparse filter
-- the count is exact up to 15 (then 15, the saturated maximum); in the
-- automatically sized filter (192 counters for the 20 values) it is never
-- below that.
-- ---------------------------------------------------------------------------
SELECT v, least(v, 15) AS expected, cbloom_count(s.sparse, v) AS sparse, cbloom_count(s.auto, v) AS auto,
       cbloom_count(s.auto, v) >= least(v, 15) AS auto_not_below, cbloom_count(s.sparse8, v) AS sparse_8bit
FROM (SELECT cbloom_agg(v, 10000, 0.01) AS sparse, cbloom_agg(v) AS auto, cbloom_agg(v, 10000, 0.01, 8) AS sparse8
      FROM generate_series(1, 20) v, generate_series(1, 20) r WHERE r <= v) s,
     generate_series(1, 20) v ORDER BY v;
-- With 8-bit counters (cbloom_agg(x, capacity, fpr, 8)) up to 255.
SELECT v, cbloom_count(f, v) AS count_8bit, cbloom_count(f4, v) AS count_4bit
FROM (SELECT cbloom_agg(v, 1000, 0.01, 8) AS f, cbloom_agg(v, 1000, 0.01, 4) AS f4
      FROM (VALUES (1), (100), (254), (255), (256), (300)) v(v), generate_series(1, 300) r WHERE r <= v) s,
     (VALUES (1), (100), (254), (255), (256), (300), (301)) v(v) ORDER BY v;

-- ---------------------------------------------------------------------------
-- Overload resolution: the common argument types pick a concrete overload
-- (EXPLAIN VERBOSE shows the coercions), and the key family follows
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_resolve (i2 smallint, i4 integer, vc varchar(10), ch char(3), nm name, r real, n numeric, d date);
EXPLAIN (VERBOSE, COSTS OFF)
SELECT cbloom_agg(i2), cbloom_agg(vc), cbloom_agg(ch), cbloom_agg(nm), cbloom_agg('lit'), cbloom_agg(r), cbloom_agg(d)
FROM agg_resolve;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT cbloom_agg(i2, 0.05), cbloom_agg(vc, 100, 0.05), cbloom_agg(i4, 100::integer, 0.05::real), cbloom_agg('lit', 0.1)
FROM agg_resolve;
INSERT INTO agg_resolve VALUES (1, 1, 'a', 'a', 'a', 1.5, 1.5, '2024-01-01');
SELECT (cbloom_info(cbloom_agg(i2))).key_family AS int2, (cbloom_info(cbloom_agg(vc))).key_family AS varchar,
       (cbloom_info(cbloom_agg(ch))).key_family AS char, (cbloom_info(cbloom_agg(nm))).key_family AS name,
       (cbloom_info(cbloom_agg('lit'))).key_family AS unknown, (cbloom_info(cbloom_agg(r))).key_family AS real,
       (cbloom_info(cbloom_agg(n, 10, 0.1))).key_family AS numeric, (cbloom_info(cbloom_agg(d, 0.1))).key_family AS date
FROM agg_resolve;
SELECT cbloom_agg(1.5) @> 1.50 AS numeric_literal, cbloom_agg(42) @> 42::bigint AS integer_literal,
       cbloom_agg('abc') @> 'abc' AS unknown_literal, cbloom_count(cbloom_agg('abc'), 'abc') AS count;
-- No overload for other types; the parameters have fixed types.
SELECT cbloom_agg(true);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x::inet) FROM (VALUES ('10.0.0.1')) v(x);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(1, 100::numeric, 0.01);
\echo SQLSTATE :SQLSTATE
DROP TABLE agg_resolve;

-- ---------------------------------------------------------------------------
-- NULLs: NULL values are skipped; no value at all gives NULL
-- ---------------------------------------------------------------------------
SELECT cbloom_agg(x) IS NULL AS all_null, cbloom_agg(x, 0.1) IS NULL AS all_null_fpr,
       cbloom_agg(x, 10, 0.1) IS NULL AS all_null_capacity
FROM (VALUES (NULL::integer), (NULL)) v(x);
SELECT cbloom_agg(x) IS NULL AS no_rows, cbloom_agg(x, 0.1) IS NULL AS no_rows_fpr,
       cbloom_agg(x, 10, 0.1) IS NULL AS no_rows_capacity, cbloom_union_agg(NULL::cbloom) IS NULL AS no_rows_union
FROM generate_series(1, 10) x WHERE false;
-- (301 rows: 1..100 twice each, and 101 NULLs, the first rows among them)
CREATE TEMP TABLE agg_nulls AS
SELECT y, CASE WHEN y % 3 = 0 THEN NULL ELSE y / 3 + 1 END AS x FROM generate_series(0, 299) y
UNION ALL SELECT -1, NULL;
SELECT (SELECT cbloom_agg(x ORDER BY y) FROM agg_nulls) = (SELECT cbloom_agg(x ORDER BY y) FROM agg_nulls WHERE x IS NOT NULL) AS nulls_skipped,
       (SELECT cbloom_agg(x, 0.001 ORDER BY y) FROM agg_nulls) = (SELECT cbloom_agg(x, 0.001) FROM agg_nulls WHERE x IS NOT NULL) AS nulls_skipped_fpr,
       (SELECT cbloom_agg(x, 1000, 0.01 ORDER BY y) FROM agg_nulls) = (SELECT cbloom_agg(x, 1000, 0.01) FROM agg_nulls WHERE x IS NOT NULL) AS nulls_skipped_capacity,
       (SELECT cbloom_agg(x ORDER BY y) FROM agg_nulls) = (SELECT cbloom_agg(y, 100, 0.01) FROM generate_series(1, 100) y, generate_series(1, 2) r) AS sized_for_100,
       (SELECT cbloom_count(cbloom_agg(x), 50) FROM agg_nulls) AS count_50;
DROP TABLE agg_nulls;
SELECT cbloom_agg(x) = cbloom_agg(x, 1, 0.01) AS null_first, cbloom_count(cbloom_agg(x), 7) AS count
FROM (VALUES (NULL::integer), (NULL), (7), (NULL), (7)) v(x);

-- ---------------------------------------------------------------------------
-- Parameter validation: checked before the first value, even when every
-- value is NULL (as for bloom_agg); without rows the aggregate never runs
-- ---------------------------------------------------------------------------
SELECT cbloom_agg(x, 0, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, -1, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 0.0) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 1.0) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, -0.1) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 'NaN') FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 'Infinity') FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, 0) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, 1.5) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, 'NaN') FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, NULL) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, NULL, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, NULL) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, 0.01, 0) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, 0.01, 5) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, 0.01, NULL) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- an fpr that needs more than 64 hashes (the capacity form's message speaks
-- of bits, as bloom_empty's: only the SQLSTATE is shown)
SELECT cbloom_agg(x, 1e-20) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
\set VERBOSITY sqlstate
SELECT cbloom_agg(x, 100, 1e-20) FROM generate_series(1, 3) x;
\set VERBOSITY default
-- a capacity whose filter would be past the 511 MiB limit: 54000
SELECT cbloom_agg(x, 200000000, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100000000, 0.01, 8) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- checked even when every value is NULL ...
SELECT cbloom_agg(x, 0.0) FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, NULL) FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 0, 0.5) FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 10, 'NaN') FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, NULL, 0.5) FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 200000000, 0.01) FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 10, 0.01, 16) FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 10, 0.01, NULL) FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
-- ... as by bloom_agg
SELECT bloom_agg(x, 0, 0.5) FROM (VALUES (NULL::integer)) v(x);
\echo SQLSTATE :SQLSTATE
-- ... but not without rows: NULL.
SELECT cbloom_agg(x, 0, 0.01) IS NULL AS no_rows, cbloom_agg(x, 'NaN') IS NULL AS no_rows_fpr
FROM generate_series(1, 0) x;
-- Parameters must be the same for every row of a group ...
SELECT cbloom_agg(x, CASE WHEN x = 1 THEN 0.01 ELSE 0.02 END) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, x, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, CASE WHEN x < 3 THEN 0.01 ELSE 0.5 END) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, CASE WHEN x = 2 THEN NULL ELSE 0.01 END) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, CASE WHEN x = 2 THEN NULL ELSE 0.01 END) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, 0.01, CASE WHEN x = 3 THEN 8 ELSE 4 END) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg(x, 100, 0.01, CASE WHEN x = 3 THEN 5 ELSE 4 END) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- ... (parameters that give the same shape are the same parameters) ...
SELECT (cbloom_info(cbloom_agg(x, 100, CASE WHEN x < 3 THEN 0.01 ELSE 0.0100000001 END))).counters AS same_shape_is_fine
FROM generate_series(1, 3) x;
-- ... but may differ between groups.
SELECT g, (cbloom_info(cbloom_agg(x, g / 10.0))).counters AS auto, (cbloom_info(cbloom_agg(x, 100 * g, 0.01))).counters AS capacity,
       (cbloom_info(cbloom_agg(x, 100, 0.01, 4 * (g % 2 + 1)))).counter_bits AS bits
FROM generate_series(1, 3) g, generate_series(1, 100) x GROUP BY g ORDER BY g;
-- The transition and final functions only work inside an aggregate, and
-- the final function only on a counting state.
SELECT cbloom_agg_trans(NULL, 1);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg_trans(NULL, 1, 0.01::float8);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg_capacity_trans(NULL, 1, 100::bigint, 0.01::float8);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg_capacity_trans(NULL, 1, 100::bigint, 0.01::float8, 8);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_union_trans(cbloom_empty(10), cbloom_empty(10));
\echo SQLSTATE :SQLSTATE
SELECT cbloom_agg_final(('\x42534b5401020100' || '0000000000000000' || '1000000000000000' || '00000000'
        || '00000000' || '0000000000000000' || '7b14ae47e17a843f' || repeat('00', 128))::bloom_agg_state);
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Input order, GROUP BY (hashed, sorted, spilled) and window use
-- ---------------------------------------------------------------------------
SELECT cbloom_agg(x % 700 ORDER BY x) = cbloom_agg(x % 700 ORDER BY x DESC) AS auto_order,
       cbloom_agg(x % 700, 0.001 ORDER BY md5(x::text)) = cbloom_agg(x % 700, 0.001 ORDER BY x) AS fpr_order,
       cbloom_agg(x % 700, 5000, 0.01 ORDER BY x DESC) = cbloom_agg(x % 700, 5000, 0.01 ORDER BY md5(x::text)) AS capacity_order
FROM generate_series(1, 20000) x;
CREATE TEMP TABLE agg_groups_data AS
SELECT g, g * 1000 + i % 40 AS x FROM generate_series(1, 2000) g, generate_series(0, 59) i;
SET enable_sort = off;
CREATE TEMP TABLE agg_hashed AS SELECT g, cbloom_agg(x) AS a, cbloom_agg(x, 100, 0.01) AS c FROM agg_groups_data GROUP BY g;
RESET enable_sort;
SET enable_hashagg = off;
CREATE TEMP TABLE agg_sorted AS SELECT g, cbloom_agg(x) AS a, cbloom_agg(x, 100, 0.01) AS c FROM agg_groups_data GROUP BY g;
RESET enable_hashagg;
SET work_mem = '64kB';
SET enable_sort = off;
CREATE TEMP TABLE agg_spilled AS SELECT g, cbloom_agg(x) AS a, cbloom_agg(x, 100, 0.01) AS c FROM agg_groups_data GROUP BY g;
RESET enable_sort;
RESET work_mem;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE h.a = s.a AND h.c = s.c) AS hashed_eq_sorted,
       count(*) FILTER (WHERE p.a = s.a AND p.c = s.c) AS spilled_eq_sorted,
       count(*) FILTER (WHERE (cbloom_info(s.a)).counters = bloom_optimal_bits(40, 0.01)) AS sized_for_40
FROM agg_sorted s JOIN agg_hashed h USING (g) JOIN agg_spilled p USING (g);
-- Each key of a group is in 1 or 2 of its 60 rows: counted at least that often.
SELECT count(*) AS keys, count(*) FILTER (WHERE cbloom_count(s.a, d.x) >= d.n AND cbloom_count(s.c, d.x) >= d.n) AS counted
FROM agg_sorted s JOIN (SELECT g, x, count(*) AS n FROM agg_groups_data GROUP BY g, x) d USING (g);
DROP TABLE agg_groups_data, agg_hashed, agg_sorted, agg_spilled;
-- Window aggregates: the running filter of each prefix (the final function
-- leaves the state alone; the capacity form's state is returned as a copy).
SELECT x, cbloom_count(cbloom_agg(x) OVER w, 1) AS count_1, cbloom_count(cbloom_agg(x, 100, 0.01) OVER w, 1) AS count_1_capacity,
       cbloom_agg(x, 100, 0.01) OVER w @> 3 AS has_3, (cbloom_info(cbloom_agg(x) OVER w)).counters AS counters
FROM (VALUES (1, 1), (2, 1), (3, 2), (4, 1), (5, 3), (6, 1)) v(o, x)
WINDOW w AS (ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) ORDER BY o;
-- The default frame (peers share a result).
SELECT o, x, cbloom_count(cbloom_agg(x, 100, 0.01) OVER w, 1) AS count_capacity, cbloom_count(cbloom_agg(x) OVER w, 1) AS count_auto,
       cbloom_count(cbloom_union_agg(cbloom_add(cbloom_empty(100), x)) OVER w, 1) AS count_union
FROM (VALUES (1, 1), (1, 1), (2, 1), (2, 2), (3, 1)) v(o, x) WINDOW w AS (ORDER BY o) ORDER BY o, x;
-- A sliding frame of cbloom_union_agg: each frame has its own sum.
SELECT o, cbloom_count(u, o) AS count_self, cbloom_count(u, o - 1) AS count_previous, u @> (o - 2) AS has_two_back
FROM (SELECT o, cbloom_union_agg(f) OVER (ORDER BY o ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS u
      FROM (SELECT o, cbloom_add(cbloom_add(cbloom_empty(10), o), o) AS f FROM generate_series(1, 4) o) s) w
ORDER BY o;

-- ---------------------------------------------------------------------------
-- Roll-ups: daily filters of one capacity add up to the filter of the week;
-- one day's rows can then be taken out of the roll-up again, with
-- cbloom_remove for every row or with - (cbloom_subtract) of the day's
-- filter, without a false negative for the other days, even where counters
-- saturated
-- ---------------------------------------------------------------------------
-- 7 days of 3000 visits by users 1..10000 (Knuth's hash of the visit
-- number); users 1..5 visit 5 times every day (35 visits) and user 0 visits
-- 20 times on day 3 only: their counters saturate in the 4-bit filters.
CREATE TEMP TABLE agg_visits AS
SELECT d, ((v::bigint * 2654435761) % 4294967296 % 10000 + 1)::bigint AS user_id
FROM generate_series(1, 7) d, generate_series(d * 3000, d * 3000 + 2999) v
UNION ALL SELECT d, u FROM generate_series(1, 7) d, generate_series(1, 5) u, generate_series(1, 5) r
UNION ALL SELECT 3, 0 FROM generate_series(1, 20) r;
CREATE TEMP TABLE agg_daily AS
SELECT d, cbloom_agg(user_id, 20000, 0.01) AS f, cbloom_agg(user_id, 20000, 0.01, 8) AS f8
FROM agg_visits GROUP BY d;
CREATE TEMP TABLE agg_rollup AS SELECT cbloom_union_agg(f) AS f, cbloom_union_agg(f8) AS f8 FROM agg_daily;
SELECT r.f = (SELECT cbloom_agg(user_id, 20000, 0.01) FROM agg_visits) AS rollup_is_week,
       r.f8 = (SELECT cbloom_agg(user_id, 20000, 0.01, 8) FROM agg_visits) AS rollup_is_week_8bit,
       r.f = (SELECT cbloom_union_agg(f ORDER BY d DESC) FROM agg_daily) AS order_free,
       (cbloom_info(r.f)).counters_saturated > 0 AS saturated_4bit, (cbloom_info(r.f8)).counters_saturated AS saturated_8bit,
       cbloom_count(r.f, 1) AS count_user_1, cbloom_count(r.f8, 1) AS count_user_1_8bit,
       (SELECT count(*) FROM agg_visits WHERE user_id = 1) AS visits_user_1
FROM agg_rollup r;
-- Take day 3 out: every visit removed once, and the day's filter subtracted.
CREATE FUNCTION pg_temp.remove_all(f cbloom, vals bigint[]) RETURNS cbloom LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  FOREACH v IN ARRAY vals LOOP f := cbloom_remove(f, v); END LOOP;
  RETURN f;
END $$;
CREATE TEMP TABLE agg_without_3 AS
SELECT pg_temp.remove_all(r.f, (SELECT array_agg(user_id ORDER BY user_id) FROM agg_visits WHERE d = 3)) AS removed,
       r.f - (SELECT f FROM agg_daily WHERE d = 3) AS subtracted,
       r.f8 - (SELECT f8 FROM agg_daily WHERE d = 3) AS subtracted_8bit
FROM agg_rollup r;
CREATE TEMP TABLE agg_other_days AS SELECT cbloom_union_agg(f) AS f, cbloom_union_agg(f8) AS f8 FROM agg_daily WHERE d <> 3;
-- Removal and subtraction agree; with 8-bit counters (none saturated) the
-- result is the roll-up of the other days, byte for byte.  With 4-bit
-- counters it differs only in saturated counters (the unsaturated counters
-- of w - o are all zero): user 0's day-3 visits stay in them.
SELECT w.removed = w.subtracted AS remove_eq_subtract,
       w.subtracted_8bit = o.f8 AS identical_8bit,
       w.subtracted = o.f AS identical_4bit,
       (SELECT counters - counters_zero - counters_saturated FROM cbloom_info(w.subtracted - o.f)) AS unsaturated_differing,
       w.subtracted::bloom = o.f::bloom AS same_bit_view,
       w.subtracted @> 0 AS user_0_still_found, cbloom_count(w.subtracted, 0) AS count_user_0,
       w.subtracted_8bit @> 0 AS user_0_found_8bit
FROM agg_without_3 w, agg_other_days o;
-- No false negatives for the users of the other days, and counts never below
-- their visits on the other days.
SELECT count(*) AS users_of_other_days,
       count(*) FILTER (WHERE NOT w.subtracted @> u.user_id) AS false_negatives,
       count(*) FILTER (WHERE NOT w.subtracted_8bit @> u.user_id) AS false_negatives_8bit,
       count(*) FILTER (WHERE cbloom_count(w.subtracted, u.user_id) < least(u.n, 15)) AS counts_too_low,
       count(*) FILTER (WHERE cbloom_count(w.subtracted_8bit, u.user_id) < u.n) AS counts_too_low_8bit
FROM agg_without_3 w, (SELECT user_id, count(*) AS n FROM agg_visits WHERE d <> 3 GROUP BY user_id) u;
-- Users seen only on day 3 are gone, but for false positives (and user 0).
SELECT count(*) AS day_3_only_users, count(*) FILTER (WHERE w.subtracted @> u.user_id) AS still_found,
       count(*) FILTER (WHERE w.subtracted_8bit @> u.user_id) AS still_found_8bit
FROM agg_without_3 w, (SELECT user_id FROM agg_visits GROUP BY user_id HAVING bool_and(d = 3)) u;
-- Subtracting a day that was never added is an ERROR (22023), unless every
-- counter it would lower is saturated.
SELECT o.f - (SELECT f FROM agg_daily WHERE d = 3) FROM agg_other_days o;
\echo SQLSTATE :SQLSTATE
DROP TABLE agg_visits, agg_daily, agg_rollup, agg_without_3, agg_other_days;
DROP TABLE agg_vals, agg_rows, agg_by_type;

-- ---------------------------------------------------------------------------
-- The automatically sized form holds at most 2^20 = 1,048,576 distinct values
-- per group (its state counts each one); one more is an ERROR (54000) with a
-- hint to pass a capacity.  Repeats do not count.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE agg_2_20 AS SELECT cbloom_agg(x) AS f FROM generate_series(1, 1048576) x;
SELECT counters = bloom_optimal_bits(1048576, 0.01) AS sized_for_2_20, hashes FROM agg_2_20, cbloom_info(f);
SELECT cbloom_agg(x) FROM generate_series(1, 1048577) x;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_count(cbloom_agg(x % 1048576), 0) AS repeats_do_not_count FROM generate_series(1, 1100000) x;
SELECT (cbloom_info(cbloom_agg(x, 1048577, 0.01))).counters = bloom_optimal_bits(1048577, 0.01) AS capacity_form_fits
FROM generate_series(1, 1048577) x;

-- ---------------------------------------------------------------------------
-- Parallel plans (Partial Aggregate, Gather, Finalize Aggregate) give
-- results byte-identical to the serial plan.  Parallel workers cannot read
-- temporary tables, so the data are in regular tables (dropped at the end).
-- ---------------------------------------------------------------------------
CREATE TABLE cpar_data AS
SELECT (x % 100000)::bigint AS x, (x % 10)::integer AS g, 'v' || (x % 100000) AS t
FROM generate_series(1, 200000) x;
ANALYZE cpar_data;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE cpar_serial AS
SELECT cbloom_agg(x) AS a, cbloom_agg(x, 0.001) AS b, cbloom_agg(x, 200000, 0.01) AS c,
       cbloom_agg(t) AS d, cbloom_agg(t, 100000, 0.02) AS e, cbloom_agg(x, 200000, 0.01, 8) AS h
FROM cpar_data;
CREATE TEMP TABLE cpar_serial_g AS
SELECT g, cbloom_agg(x) AS a, cbloom_agg(x, 0.001) AS b, cbloom_agg(x, 20000, 0.01) AS c, cbloom_agg(t) AS d
FROM cpar_data GROUP BY g;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT cbloom_agg(x) FROM cpar_data;
EXPLAIN (COSTS OFF) SELECT cbloom_agg(x, 0.001) FROM cpar_data;
EXPLAIN (COSTS OFF) SELECT cbloom_agg(x, 200000, 0.01) FROM cpar_data;
EXPLAIN (COSTS OFF) SELECT cbloom_agg(x, 200000, 0.01, 8) FROM cpar_data;
EXPLAIN (COSTS OFF) SELECT g, cbloom_agg(x) FROM cpar_data GROUP BY g;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE cpar_parallel AS
  SELECT cbloom_agg(x) AS a, cbloom_agg(x, 0.001) AS b, cbloom_agg(x, 200000, 0.01) AS c,
         cbloom_agg(t) AS d, cbloom_agg(t, 100000, 0.02) AS e, cbloom_agg(x, 200000, 0.01, 8) AS h
  FROM cpar_data$$, 'Workers Launched') >= 1 AS workers_launched;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE cpar_parallel_g AS
  SELECT g, cbloom_agg(x) AS a, cbloom_agg(x, 0.001) AS b, cbloom_agg(x, 20000, 0.01) AS c, cbloom_agg(t) AS d
  FROM cpar_data GROUP BY g$$, 'Workers Launched') >= 1 AS workers_launched;
-- Byte-identical to the serial plan; every value counted twice.
SELECT s.a = p.a AS auto, s.b = p.b AS fpr, s.c = p.c AS capacity, s.d = p.d AS text_auto, s.e = p.e AS text_capacity,
       s.h = p.h AS capacity_8bit,
       (cbloom_info(p.a)).counters = bloom_optimal_bits(100000, 0.01) AS sized_for_100000
FROM cpar_serial s, cpar_parallel p;
SELECT count(*) AS groups, count(*) FILTER (WHERE s.a = p.a AND s.b = p.b AND s.c = p.c AND s.d = p.d) AS identical
FROM cpar_serial_g s JOIN cpar_parallel_g p USING (g);
SELECT count(*) AS values, count(*) FILTER (WHERE cbloom_count(a, x) >= 2 AND cbloom_count(c, x) >= 2 AND cbloom_count(d, t) >= 2) AS counted_twice,
       count(*) FILTER (WHERE cbloom_count(h, x) = 2) AS counted_exactly_twice_8bit
FROM cpar_parallel, (SELECT DISTINCT x, t FROM cpar_data) v;
-- cbloom_union_agg in parallel: 200 filters of parts of 1..10000 (each
-- value twice).
SET max_parallel_workers_per_gather = 0;
CREATE TABLE cpar_filters AS
SELECT x % 200 AS part, cbloom_agg(x, 10000, 0.01) AS f FROM cpar_data WHERE x <= 10000 GROUP BY x % 200;
ALTER TABLE cpar_filters SET (parallel_workers = 2);
ANALYZE cpar_filters;
CREATE TEMP TABLE cpar_union_serial AS
SELECT cbloom_union_agg(f) AS u, (SELECT cbloom_agg(x, 10000, 0.01) FROM cpar_data WHERE x <= 10000) AS whole
FROM cpar_filters;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT cbloom_union_agg(f) FROM cpar_filters;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE cpar_union_parallel AS SELECT cbloom_union_agg(f) AS u FROM cpar_filters$$, 'Workers Launched') >= 1 AS workers_launched;
SELECT s.u = p.u AS union_identical, p.u = s.whole AS union_is_filter_of_whole, cbloom_count(p.u, 5000) AS count_5000
FROM cpar_union_serial s, cpar_union_parallel p;
DROP TABLE cpar_filters;
-- The 2^20 limit holds for the merged partial states too: parts under the
-- limit whose merge is over it raise the same ERROR.
CREATE TABLE cpar_big AS SELECT x::bigint AS x FROM generate_series(1, 1048577) x;
ANALYZE cpar_big;
EXPLAIN (COSTS OFF) SELECT cbloom_agg(x) FROM cpar_big;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE cpar_big_parallel AS SELECT cbloom_agg(x) AS a FROM cpar_big WHERE x <= 1048576$$, 'Workers Launched') >= 1 AS workers_launched;
SELECT cbloom_agg(x) FROM cpar_big;
\echo SQLSTATE :SQLSTATE
SELECT p.a = s.f AS identical_at_2_20 FROM cpar_big_parallel p, agg_2_20 s;
DROP TABLE cpar_big, agg_2_20;

RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
DROP TABLE cpar_data;
