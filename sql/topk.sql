--
-- topk: heavy hitters (src/topk.c, src/core/topk.c).  topk_agg and its
-- overload resolution, topk_items for every key family, topk_add,
-- topk_info, topk_union_agg, parameter errors, value limits, and accuracy on
-- a skewed stream of 1,000,000 rows in serial and parallel plans and through
-- rollups.  Every sketch here is of format 2 (1.5): the bounds of its counts
-- and their guarantee are in topk_bounds, values of format 1 (1.0 to 1.4)
-- in topk_v1, the text, binary and bytea forms and their validation in
-- topk_io.
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

-- topk_items prints values as their type prints them: fix the settings that
-- change that.
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;
-- The header without x (capacity and values held) and the counters of a
-- sketch: equal for sketches of the same rows, however they were split.
CREATE FUNCTION pg_temp.topk_counters(t topk) RETURNS bytea LANGUAGE sql AS $$
  SELECT substr(t::bytea, 1, 40) || substr(t::bytea, 49, (SELECT (width * depth * 8)::integer FROM topk_info(t)))
$$;

-- ---------------------------------------------------------------------------
-- Catalog: 22 concrete topk_agg overloads (11 key types, with and without
-- epsilon and delta) and topk_union_agg, all with a combine function, the
-- state type topk (not internal), PARALLEL SAFE and a read-only final
-- function.
-- ---------------------------------------------------------------------------
SELECT p.proname, count(*) AS overloads,
       count(*) FILTER (WHERE a.aggcombinefn <> 0) AS with_combine,
       count(*) FILTER (WHERE a.aggtranstype = 'topk'::regtype) AS state_topk,
       count(*) FILTER (WHERE p.proparallel = 's') AS parallel_safe,
       count(*) FILTER (WHERE a.aggfinalmodify = 'r') AS final_read_only,
       min(a.aggtransspace) AS sspace, string_agg(DISTINCT a.aggfinalfn::text, ',') AS finalfn,
       string_agg(DISTINCT a.aggcombinefn::text, ',') AS combinefn
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proname IN ('topk_agg', 'topk_union_agg')
GROUP BY p.proname ORDER BY p.proname;
SELECT string_agg(format_type(p.proargtypes[0], NULL), ', ' ORDER BY format_type(p.proargtypes[0], NULL) COLLATE "C")
       AS topk_agg_key_types
FROM pg_proc p WHERE p.proname = 'topk_agg' AND p.pronargs = 2;
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict, p.proretset
FROM pg_proc p
WHERE p.proname IN ('topk_add', 'topk_items', 'topk_info', 'topk_merge_trans', 'topk_final', 'topk_agg_trans',
                    'topk_in', 'topk_out', 'topk_recv', 'topk_send', 'topk_from_bytea',
                    'topk_items_bounds', 'topk_bounds', 'topk_upper_bound')
ORDER BY p.oid::regprocedure::text COLLATE "C";

-- ---------------------------------------------------------------------------
-- A first look
-- ---------------------------------------------------------------------------
-- 1..100 mod 7: residues 1 and 2 occur 15 times, the others 14 times.
SELECT * FROM topk_items((SELECT topk_agg(x % 7, 3) FROM generate_series(1, 100) x));
SELECT * FROM topk_info((SELECT topk_agg(x % 7, 3) FROM generate_series(1, 100) x));
-- topk_items returns k rows at most (the sketch tracks max(2k, 1 / epsilon)
-- values, 1000 by default), most frequent first; a sketch with fewer distinct
-- values returns fewer rows.
SELECT * FROM topk_items((SELECT topk_agg(v, 2) FROM unnest(ARRAY['a', 'b', 'b', 'c', 'c', 'c', 'd', 'd', 'd', 'd']) v));
SELECT * FROM topk_items((SELECT topk_agg(v, 10) FROM unnest(ARRAY['a', 'b', 'b']) v));
SELECT (topk_info(t)).candidates, (SELECT count(*) FROM topk_items(t)) AS items
FROM (SELECT topk_agg(x, 3) AS t FROM generate_series(1, 50) x) s;

-- ---------------------------------------------------------------------------
-- Overload resolution: every common argument type finds one aggregate, and
-- equal values of different types give the same sketch, byte for byte.
-- ---------------------------------------------------------------------------
CREATE DOMAIN topk_posint AS integer CHECK (VALUE > 0);
SELECT typ, (topk_info(t)).key_family
FROM (SELECT 'smallint' AS typ, topk_agg(x::smallint, 2) AS t FROM generate_series(1, 3) x
      UNION ALL SELECT 'integer', topk_agg(x::integer, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'bigint', topk_agg(x::bigint, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'domain over integer', topk_agg(x::topk_posint, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'text', topk_agg(x::text, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'varchar', topk_agg(x::varchar, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'char(3)', topk_agg(x::char(3), 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'name', topk_agg(x::text::name, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'bytea', topk_agg(int4send(x), 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'uuid', topk_agg(md5(x::text)::uuid, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'real', topk_agg(x::real, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'double precision', topk_agg(x::float8, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'numeric', topk_agg(x::numeric, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'date', topk_agg(date '2024-01-01' + x, 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'timestamp', topk_agg(timestamp '2024-01-01' + x * interval '1 h', 2) FROM generate_series(1, 3) x
      UNION ALL SELECT 'timestamptz', topk_agg(timestamptz '2024-01-01 00:00+00' + x * interval '1 h', 2) FROM generate_series(1, 3) x) s;
-- Unknown literals resolve to text, with and without epsilon and delta.
SELECT (topk_info(topk_agg('a', 2))).key_family AS one_literal,
       (topk_info(topk_agg('a', 2, 0.01, 0.01))).key_family AS with_parameters;
SELECT * FROM topk_items((SELECT topk_agg(v, 2) FROM (VALUES ('x'), ('y'), ('y')) t(v)));
-- Byte-equal sketches across the types of a family.
SELECT topk_agg(x::smallint, 5)::bytea = topk_agg(x::bigint, 5)::bytea AS int2_eq_int8,
       topk_agg(x::integer, 5)::bytea = topk_agg(x::bigint, 5)::bytea AS int4_eq_int8,
       topk_agg(x::varchar, 5)::bytea = topk_agg(x::text, 5)::bytea AS varchar_eq_text,
       topk_agg(x::char(4), 5)::bytea = topk_agg(x::text, 5)::bytea AS char_eq_text,
       topk_agg(x::text::name, 5)::bytea = topk_agg(x::text, 5)::bytea AS name_eq_text,
       topk_agg((x / 4.0)::real, 5)::bytea = topk_agg((x / 4.0)::float8, 5)::bytea AS real_eq_float8,
       topk_agg((x / 4.0)::numeric(10, 4), 5)::bytea = topk_agg((x / 4.0)::numeric, 5)::bytea AS numeric_scale_ignored
FROM generate_series(-20, 20) x;
-- k may be any integer type that casts implicitly to integer; bigint does not.
SELECT (topk_info(topk_agg(x, 2::smallint))).k FROM generate_series(1, 3) x;
SELECT topk_agg(x, 2::bigint) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- Types outside the key families have no aggregate.
SELECT topk_agg(x::boolean, 2) FROM generate_series(0, 1) x;
\echo SQLSTATE :SQLSTATE
SELECT * FROM topk_items((SELECT topk_agg(x::boolean::text, 2) FROM generate_series(0, 2) x));

-- ---------------------------------------------------------------------------
-- topk_items prints values as their type prints them
-- ---------------------------------------------------------------------------
-- integers (int2, int4, int8 are one family: 7 counted 3 times)
SELECT * FROM topk_items((SELECT topk_agg(v, 4) FROM (VALUES (7::bigint), (-9223372036854775808), (9223372036854775807),
                                                               (7), (7), (0), (-1), (-1)) t(v)));
SELECT * FROM topk_items(topk_add(topk_add((SELECT topk_agg(x::smallint, 3) FROM generate_series(1, 2) x), 7::integer), 7::bigint, 5));
-- text: empty string, multibyte, tab, backslash and quotes come back as they went in
SELECT value, length(value) AS chars, frequency
FROM topk_items((SELECT topk_agg(v, 5) FROM (VALUES (''), (''), ('héllo wörld'), (E'tab\there'), ('back\slash "quoted"'), ('')) t(v)));
-- char(n) without its trailing blanks, varchar and text as one value
SELECT * FROM topk_items((SELECT topk_agg(v, 3) FROM (VALUES ('ab  '::char(4)), ('ab'::char(2))) t(v)));
SELECT * FROM topk_items(topk_add(topk_add((SELECT topk_agg('ab'::char(4), 3)), 'ab'::varchar), 'ab'::text));
-- bytea, in the bytea_output format
SELECT * FROM topk_items((SELECT topk_agg(v, 3) FROM (VALUES ('\x00ff'::bytea), ('\x'), ('\x'), ('\xdeadbeef')) t(v)));
SET bytea_output = 'escape';
SELECT * FROM topk_items((SELECT topk_agg(v, 3) FROM (VALUES ('\x00ff41'::bytea)) t(v)));
RESET bytea_output;
-- uuid
SELECT * FROM topk_items((SELECT topk_agg(v, 3) FROM (VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
                                                               ('A0EEBC999C0B4EF8BB6D6BB9BD380A11'::uuid),
                                                               ('00000000-0000-0000-0000-000000000000')) t(v)));
-- double precision: -0 and 0 are one value, one NaN, infinities; real values
-- are printed through float8 (0.1::real is 0.10000000149011612)
SELECT * FROM topk_items((SELECT topk_agg(v, 8) FROM (VALUES (0.0::float8), (-0.0::float8), ('NaN'), ('NaN'), ('NaN'),
                                                               ('Infinity'), ('-Infinity'), (0.1), (1e300), (-2.5e-310)) t(v)));
SELECT * FROM topk_items((SELECT topk_agg(v, 3) FROM (VALUES (0.1::real), (0.5::real), (0.5::real)) t(v)));
-- numeric in its canonical form: 1.50 and 1.5 are one value, printed 1.5;
-- trailing zeros go, -0 is 0, large and small values keep their digits
SELECT * FROM topk_items((SELECT topk_agg(v, 8) FROM (VALUES (1.50), (1.5), (1.500000), (2.0), (100), (-0.00),
                                                               (0.000001), (123456789012345678901234567890.5), ('NaN')) t(v)));
-- date, timestamp, timestamptz (with infinities)
SELECT * FROM topk_items((SELECT topk_agg(v, 3) FROM (VALUES ('2024-02-29'::date), ('2024-02-29'), ('infinity'), ('4713-01-01 BC')) t(v)));
SELECT * FROM topk_items((SELECT topk_agg(v, 3) FROM (VALUES ('2024-02-29 23:59:59.999999'::timestamp),
                                                               ('2024-02-29 23:59:59.999999'), ('-infinity')) t(v)));
SELECT * FROM topk_items((SELECT topk_agg(v, 3) FROM (VALUES ('2024-02-29 10:00+02'::timestamptz),
                                                               ('2024-02-29 08:00Z'), ('2024-02-29 08:00:00.5Z')) t(v)));
-- ... which print as the session's settings say, like the types themselves
SET TimeZone = 'America/New_York';
SET DateStyle = 'Postgres, MDY';
SELECT * FROM topk_items((SELECT topk_agg(v, 3) FROM (VALUES ('2024-02-29 10:00+02'::timestamptz), ('2024-02-29 08:00Z')) t(v)));
SELECT value, value = '2024-02-29 10:00+02'::timestamptz::text AS as_timestamptz_prints
FROM topk_items((SELECT topk_agg('2024-02-29 10:00+02'::timestamptz, 1)));
SELECT * FROM topk_items((SELECT topk_agg('2024-02-29'::date, 1)));
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';

-- ---------------------------------------------------------------------------
-- NULLs and empty groups
-- ---------------------------------------------------------------------------
SELECT topk_agg(x, 3) IS NULL AS no_rows FROM generate_series(1, 0) x;
SELECT topk_agg(x, 3) IS NULL AS only_nulls FROM (VALUES (NULL::bigint), (NULL)) t(x);
SELECT * FROM topk_items((SELECT topk_agg(x, 3) FROM (VALUES (1), (NULL), (2), (2), (NULL)) t(x)));
SELECT (topk_info(topk_agg(x, 3))).total AS nulls_not_counted FROM (VALUES (1), (NULL), (2), (2), (NULL)) t(x);
SELECT count(*) AS items_of_null FROM topk_items(NULL);
SELECT topk_info(NULL) IS NULL AS info_of_null;

-- ---------------------------------------------------------------------------
-- topk_add
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE topk_t AS
SELECT topk_agg(x % 5, 2) AS i, topk_agg((x % 5)::text, 2) AS t, topk_agg(x % 5, 3) AS i3,
       topk_agg(x % 5, 2, 0.01, 0.01) AS i_eps, topk_agg(x % 5, 2, 0.001, 0.01) AS i_delta
FROM generate_series(1, 100) x;
SELECT * FROM topk_items((SELECT i FROM topk_t));
-- A value added with a count; the default count is 1; an integer sketch takes
-- smallint, integer and bigint values; a text sketch takes unknown literals.
SELECT * FROM topk_items((SELECT topk_add(i, 4::smallint, 100) FROM topk_t));
SELECT * FROM topk_items((SELECT topk_add(topk_add(i, 9), 9::bigint) FROM topk_t));
SELECT * FROM topk_items((SELECT topk_add(t, 'new', 30) FROM topk_t));
SELECT (topk_info(topk_add(i, 4, 100))).total FROM topk_t;
-- topk_add returns a new value: the stored one is unchanged.
SELECT (topk_info(i)).total AS stored_total FROM topk_t;
-- NULL value or count: the sketch unchanged; NULL sketch: NULL.
SELECT topk_add(i, NULL::integer)::bytea = i::bytea AS null_value_unchanged,
       topk_add(i, 4, NULL)::bytea = i::bytea AS null_count_unchanged,
       topk_add(NULL::topk, 4) IS NULL AS null_sketch, topk_add(NULL, 'x') IS NULL AS null_sketch_text
FROM topk_t;
-- A count of 0 adds nothing: the value is not tracked (it would be listed
-- with frequency 0 although it never occurred).
SELECT * FROM topk_items(topk_add((SELECT topk_agg(x, 3) FROM generate_series(1, 2) x), 77, 0));
SELECT topk_add(t, 77, 0)::bytea = t::bytea AS adding_0_changes_nothing
FROM (SELECT topk_agg(x, 3) AS t FROM generate_series(1, 2) x) s;
-- Errors: negative count (22023), value of another family (42804), a type
-- that is no key (42804), a total past 2^63 - 1 (54000).
SELECT topk_add(i, 4, -1) FROM topk_t;
\echo SQLSTATE :SQLSTATE
SELECT topk_add(i, 'x'::text) FROM topk_t;
\echo SQLSTATE :SQLSTATE
SELECT topk_add(t, 4) FROM topk_t;
\echo SQLSTATE :SQLSTATE
SELECT topk_add(i, 4.0) FROM topk_t;
\echo SQLSTATE :SQLSTATE
SELECT topk_add(i, true) FROM topk_t;
\echo SQLSTATE :SQLSTATE
SELECT topk_add(i, 4, 9223372036854775807) FROM topk_t;
\echo SQLSTATE :SQLSTATE
SELECT * FROM topk_items((SELECT topk_add(i, 4, 9223372036854775807 - 100) FROM topk_t));

-- ---------------------------------------------------------------------------
-- topk_info
-- ---------------------------------------------------------------------------
SELECT 'default' AS form, * FROM topk_info((SELECT i FROM topk_t))
UNION ALL SELECT 'epsilon 0.01', * FROM topk_info((SELECT i_eps FROM topk_t))
UNION ALL SELECT 'delta 0.01', * FROM topk_info((SELECT i_delta FROM topk_t))
UNION ALL SELECT 'text', * FROM topk_info((SELECT t FROM topk_t));
-- bytes = 4-byte varlena header + 48-byte header + counters + the 8-byte
-- floor + a 20-byte record and the key bytes of each value held
SELECT bytes = 4 + 48 + width * depth * 8 + 8 + 20 * candidates + 8 * candidates AS size_formula,
       length(i::bytea) = bytes - 4 AS bytea_length
FROM topk_t, topk_info(i);
-- k = 10000 is the largest: it tracks 2k = 20000 values
SELECT k, capacity, candidates, bytes, untracked_max FROM topk_info((SELECT topk_agg(x, 10000) FROM generate_series(1, 30000) x));

-- ---------------------------------------------------------------------------
-- topk_union_agg
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE topk_parts AS
SELECT g, topk_agg(v, 3) AS t
FROM (SELECT x % 4 AS g, (x * x) % 10 AS v FROM generate_series(1, 400) x) s GROUP BY g;
SELECT g, array_agg(value ORDER BY n) AS top, array_agg(frequency ORDER BY n) AS freq
FROM topk_parts, topk_items(t) WITH ORDINALITY AS i(value, frequency, n) GROUP BY g ORDER BY g;
-- The merge has the counters of the sketch of the whole, and its items.
SELECT * FROM topk_items((SELECT topk_union_agg(t) FROM topk_parts));
SELECT * FROM topk_items((SELECT topk_agg((x * x) % 10, 3) FROM generate_series(1, 400) x));
SELECT pg_temp.topk_counters(topk_union_agg(t)) =
       pg_temp.topk_counters((SELECT topk_agg((x * x) % 10, 3) FROM generate_series(1, 400) x)) AS same_header_and_counters
FROM topk_parts;
-- ... whatever the order of its inputs, byte for byte (the candidates here
-- are all the values)
SELECT (SELECT topk_union_agg(t ORDER BY g) FROM topk_parts)::bytea = (SELECT topk_union_agg(t ORDER BY g DESC) FROM topk_parts)::bytea
       AS order_independent,
       (SELECT topk_union_agg(t ORDER BY g) FROM topk_parts)::bytea = (SELECT topk_agg((x * x) % 10, 3) FROM generate_series(1, 400) x)::bytea
       AS equals_sketch_of_whole;
-- NULL sketches are skipped; none at all gives NULL.
SELECT (topk_info(topk_union_agg(t))).total FROM (SELECT t FROM topk_parts UNION ALL SELECT NULL) s;
SELECT topk_union_agg(t) IS NULL AS no_rows FROM topk_parts WHERE false;
-- As a window function: a running merge.
SELECT g, (topk_info(topk_union_agg(t) OVER (ORDER BY g))).total AS running_total FROM topk_parts ORDER BY g;
-- topk_agg as a window function (the final function leaves the state as it is).
SELECT x, (SELECT string_agg(value || ':' || frequency, ' ') FROM topk_items(w)) AS running_top
FROM (SELECT x, topk_agg(x % 3, 2) OVER (ORDER BY x) AS w FROM generate_series(1, 6) x) s ORDER BY x;
-- Sketches of different k or shape do not merge (22023, naming both); of
-- different key families neither (42804).
SELECT topk_union_agg(v) FROM (SELECT i FROM topk_t UNION ALL SELECT i3 FROM topk_t) s(v);
\echo SQLSTATE :SQLSTATE
SELECT topk_union_agg(v) FROM (SELECT i FROM topk_t UNION ALL SELECT i_eps FROM topk_t) s(v);
\echo SQLSTATE :SQLSTATE
SELECT topk_union_agg(v) FROM (SELECT i FROM topk_t UNION ALL SELECT i_delta FROM topk_t) s(v);
\echo SQLSTATE :SQLSTATE
SELECT topk_union_agg(v) FROM (SELECT i FROM topk_t UNION ALL SELECT t FROM topk_t) s(v);
\echo SQLSTATE :SQLSTATE
-- topk_merge_trans is an aggregate support function only.
SELECT topk_merge_trans(i, i) FROM topk_t;
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Hostile parameters: a clear ERROR, never a crash
-- ---------------------------------------------------------------------------
-- k outside 1..10000
SELECT topk_agg(x, 0) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, -1) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, -2147483648) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 10001) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 2147483647, 0.5, 0.5) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- NULL parameters: 22004
SELECT topk_agg(x, NULL) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, NULL, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 0.01, NULL) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- epsilon and delta outside (0, 1), NaN, infinities: 22023
SELECT topk_agg(x, 3, 0, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 1, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, -0.001, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 0.01, 0) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 0.01, 1) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 0.01, 1.5) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 'NaN', 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 0.01, 'NaN') FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 'Infinity', 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, '-Infinity', 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 0.01, 'Infinity') FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- a delta that needs more than 64 rows: 22023; an epsilon whose counters
-- pass the 511 MiB limit, or that would track more than 1,000,000 values:
-- 54000
SELECT topk_agg(x, 3, 0.01, 1e-30) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 1e-9, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 10000, 1e-7, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 1e-7, 0.5) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT (topk_info(topk_agg(x, 3, 1e-6, 0.5))).capacity FROM generate_series(1, 3) x;
-- parameters that change within a group: 22023
SELECT topk_agg(x, x::integer) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, x / 100.0, 0.01) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 0.01, x / 10.0) FROM generate_series(1, 3) x;
\echo SQLSTATE :SQLSTATE
-- Parameters are checked at the first row of a group, NULL value or not; a
-- group without rows checks nothing.
SELECT topk_agg(x, 0) IS NULL AS not_checked FROM generate_series(1, 0) x;
SELECT topk_agg(x, 0) FROM (VALUES (NULL::integer)) t(x);
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(x, 3, 2, 0.01) FROM (VALUES (NULL::integer)) t(x);
\echo SQLSTATE :SQLSTATE
-- Values longer than 65536 bytes cannot be tracked: 54000.  65536 can.
SELECT topk_agg(repeat('x', 65537), 2);
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(v, 2) FROM (VALUES ('short'), (repeat('y', 70000))) t(v);
\echo SQLSTATE :SQLSTATE
SELECT topk_agg(decode(repeat('ab', 65537), 'hex'), 2);
\echo SQLSTATE :SQLSTATE
SELECT topk_add((SELECT t FROM topk_t), repeat('z', 65537));
\echo SQLSTATE :SQLSTATE
SELECT length(value), frequency FROM topk_items((SELECT topk_agg(v, 2) FROM (VALUES (repeat('x', 65536)), (repeat('x', 65536)), ('short')) t(v)));
-- ... and a long value that is stored compressed or out of line is tracked by its bytes
CREATE TEMP TABLE topk_long (v text);
INSERT INTO topk_long SELECT repeat(md5(x::text), 2000) FROM generate_series(1, 3) x, generate_series(1, x);
SELECT length(value) AS len, left(value, 8) AS starts, frequency
FROM topk_items((SELECT topk_agg(v, 3) FROM topk_long));

DROP TABLE topk_t, topk_parts, topk_long;
DROP DOMAIN topk_posint;

-- ---------------------------------------------------------------------------
-- Accuracy on a skewed stream of 1,000,000 rows
-- ---------------------------------------------------------------------------
-- A Zipf-like stream made from hashes of generate_series (no random()):
-- u = a 20-bit uniform value in (0, 1] from hashint8(i), v = floor(u^(-1/0.35)),
-- so P(v = r) is about 0.35 r^-1.35.  Value 1 is about a fifth of the rows.
-- Parallel workers cannot read temporary tables: regular tables, dropped at
-- the end.
CREATE TABLE topk_zipf AS
SELECT i, v, 'https://example.org/page/' || v AS url, date '2026-11-01' + (i % 7)::integer AS day
FROM (SELECT i, floor(power(((hashint8(i)::bigint & 2147483647) % 1000000 + 1) / 1e6::float8, -1 / 0.35::float8))::bigint AS v
      FROM generate_series(1, 1000000) i) s;
ANALYZE topk_zipf;
SELECT count(*) AS rows, count(DISTINCT v) AS distinct_values FROM topk_zipf;
CREATE TEMP TABLE topk_truth AS
SELECT v, count(*) AS n FROM topk_zipf GROUP BY v;
-- The true top 11 by count: the 10th and 11th are more than eps N = 1000 apart.
SELECT array_agg(v ORDER BY n DESC) AS true_top_11, array_agg(n ORDER BY n DESC) AS counts
FROM (SELECT v, n FROM topk_truth ORDER BY n DESC LIMIT 11) s;

SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE topk_serial AS
SELECT topk_agg(v, 10, 0.001, 0.01) AS t10, topk_agg(v, 100, 0.001, 0.01) AS t100,
       topk_agg(url, 10) AS u10
FROM topk_zipf;
-- The sketch's top 10 are the true top 10, in the same order, with their
-- true counts: the heavy hitters are tracked from their first rows on.
SELECT (SELECT array_agg(value::bigint ORDER BY n) FROM topk_items(t10) WITH ORDINALITY AS i(value, frequency, n)) AS sketch_top_10,
       (SELECT array_agg(frequency ORDER BY n) FROM topk_items(t10) WITH ORDINALITY AS i(value, frequency, n)) AS estimates,
       (SELECT array_agg(value::bigint ORDER BY n) FROM topk_items(t10) WITH ORDINALITY AS i(value, frequency, n)) =
       (SELECT array_agg(v ORDER BY n DESC) FROM (SELECT v, n FROM topk_truth ORDER BY n DESC LIMIT 10) s) AS is_true_top_10
FROM topk_serial;
SELECT (SELECT array_agg(value ORDER BY n) FROM topk_items(u10) WITH ORDINALITY AS i(value, frequency, n)) =
       (SELECT array_agg('https://example.org/page/' || v ORDER BY n DESC) FROM (SELECT v, n FROM topk_truth ORDER BY n DESC LIMIT 10) s)
       AS text_values_true_top_10
FROM topk_serial;
-- Over the 100 items of a k = 100 sketch (whose top 10 are the same): every
-- true count between its bounds, no estimate above the true count, and the
-- estimates exact.
SELECT count(*) AS items, count(*) FILTER (WHERE t.n NOT BETWEEN i.lower_bound AND i.upper_bound) AS outside_bounds,
       count(*) FILTER (WHERE i.frequency > t.n) AS above_truth,
       count(*) FILTER (WHERE i.frequency = t.n) AS exact
FROM topk_serial, topk_items_bounds(t100) i JOIN topk_truth t ON t.v = i.value::bigint;
SELECT (SELECT array_agg(value ORDER BY n) FROM topk_items(t100) WITH ORDINALITY AS i(value, frequency, n) WHERE n <= 10) =
       (SELECT array_agg(value ORDER BY n) FROM topk_items(t10) WITH ORDINALITY AS i(value, frequency, n)) AS k100_starts_with_k10
FROM topk_serial;
-- The heaviest values arriving last (rows sorted by their value's count,
-- rarest first) or first: the same top 10 and the same estimates.
SELECT (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(t10) WITH ORDINALITY AS i(value, frequency, n)) =
       (SELECT array_agg(value || '=' || frequency ORDER BY n)
        FROM topk_items((SELECT topk_agg(z.v, 10, 0.001, 0.01 ORDER BY t.n, z.v) FROM topk_zipf z JOIN topk_truth t USING (v)))
             WITH ORDINALITY AS i(value, frequency, n)) AS heaviest_last,
       (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(t10) WITH ORDINALITY AS i(value, frequency, n)) =
       (SELECT array_agg(value || '=' || frequency ORDER BY n)
        FROM topk_items((SELECT topk_agg(z.v, 10, 0.001, 0.01 ORDER BY t.n DESC, z.v) FROM topk_zipf z JOIN topk_truth t USING (v)))
             WITH ORDINALITY AS i(value, frequency, n)) AS heaviest_first
FROM topk_serial;

-- ---------------------------------------------------------------------------
-- Parallel plans: Partial Aggregate in the workers, Finalize Aggregate
-- ---------------------------------------------------------------------------
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT topk_agg(v, 10, 0.001, 0.01) FROM topk_zipf;
EXPLAIN (COSTS OFF) SELECT day, topk_agg(url, 10) FROM topk_zipf GROUP BY day;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE topk_parallel AS
  SELECT topk_agg(v, 10, 0.001, 0.01) AS t10, topk_agg(v, 100, 0.001, 0.01) AS t100,
         topk_agg(url, 10) AS u10
  FROM topk_zipf$$, 'Workers Launched') >= 1 AS workers_launched;
-- The same top 10 with the same estimates, and the same counters byte for
-- byte (updates add up); the candidates past the top may differ.
SELECT (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(p.t10) WITH ORDINALITY AS i(value, frequency, n)) =
       (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(s.t10) WITH ORDINALITY AS i(value, frequency, n))
       AS same_top_10,
       (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(p.u10) WITH ORDINALITY AS i(value, frequency, n)) =
       (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(s.u10) WITH ORDINALITY AS i(value, frequency, n))
       AS same_text_top_10,
       (SELECT array_agg(value ORDER BY n) FROM topk_items(p.t100) WITH ORDINALITY AS i(value, frequency, n) WHERE n <= 10) =
       (SELECT array_agg(value ORDER BY n) FROM topk_items(s.t100) WITH ORDINALITY AS i(value, frequency, n) WHERE n <= 10)
       AS same_top_10_of_k100,
       pg_temp.topk_counters(p.t10) = pg_temp.topk_counters(s.t10) AS same_counters
FROM topk_serial s, topk_parallel p;
SELECT count(*) FILTER (WHERE t.n NOT BETWEEN i.lower_bound AND i.upper_bound) AS parallel_outside_bounds
FROM topk_parallel, topk_items_bounds(t100) i JOIN topk_truth t ON t.v = i.value::bigint;
-- Grouped, in parallel: the top 3 pages of each day equal the serial ones.
SELECT regress_plan_sum($$
  CREATE TEMP TABLE topk_daily_parallel AS SELECT day, topk_agg(url, 3) AS t FROM topk_zipf GROUP BY day$$, 'Workers Launched') >= 1
  AS workers_launched;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE topk_daily_serial AS SELECT day, topk_agg(url, 3) AS t FROM topk_zipf GROUP BY day;
SELECT count(*) AS days,
       count(*) FILTER (WHERE (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(p.t) WITH ORDINALITY AS i(value, frequency, n)) =
                              (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(s.t) WITH ORDINALITY AS i(value, frequency, n)))
       AS same_top_3
FROM topk_daily_serial s JOIN topk_daily_parallel p USING (day);

-- ---------------------------------------------------------------------------
-- Rollup: a table of top pages per day, merged with topk_union_agg
-- ---------------------------------------------------------------------------
CREATE TABLE topk_daily AS
SELECT day, topk_agg(url, 10) AS pages FROM topk_zipf GROUP BY day;
ALTER TABLE topk_daily SET (parallel_workers = 2);
ANALYZE topk_daily;
SELECT day, value AS top_page, frequency
FROM topk_daily, topk_items(pages) WITH ORDINALITY AS i(value, frequency, n) WHERE n = 1 ORDER BY day;
-- The week's heavy hitters from the daily sketches equal those of one sketch
-- of the whole week, and the truth.
SELECT (SELECT array_agg(value || '=' || frequency ORDER BY n)
        FROM topk_items((SELECT topk_union_agg(pages) FROM topk_daily)) WITH ORDINALITY AS i(value, frequency, n)) =
       (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(u10) WITH ORDINALITY AS i(value, frequency, n))
       AS union_equals_whole,
       (SELECT array_agg(value ORDER BY n)
        FROM topk_items((SELECT topk_union_agg(pages) FROM topk_daily)) WITH ORDINALITY AS i(value, frequency, n)) =
       (SELECT array_agg('https://example.org/page/' || v ORDER BY n DESC) FROM (SELECT v, n FROM topk_truth ORDER BY n DESC LIMIT 10) s)
       AS union_is_true_top_10,
       pg_temp.topk_counters((SELECT topk_union_agg(pages) FROM topk_daily)) = pg_temp.topk_counters(u10)
       AS union_counters_equal_whole
FROM topk_serial;
-- 70 sketches of parts (day x i % 10), merged serially and in parallel.
CREATE TABLE topk_parts AS
SELECT day, i % 10 AS part, topk_agg(url, 10) AS pages FROM topk_zipf GROUP BY day, i % 10;
ALTER TABLE topk_parts SET (parallel_workers = 2);
ANALYZE topk_parts;
CREATE TEMP TABLE topk_parts_serial AS SELECT topk_union_agg(pages) AS u FROM topk_parts;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT topk_union_agg(pages) FROM topk_parts;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE topk_parts_parallel AS SELECT topk_union_agg(pages) AS u FROM topk_parts$$, 'Workers Launched') >= 1 AS workers_launched;
SELECT (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(p.u) WITH ORDINALITY AS i(value, frequency, n)) =
       (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(s.u) WITH ORDINALITY AS i(value, frequency, n))
       AS parallel_equals_serial,
       (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(p.u) WITH ORDINALITY AS i(value, frequency, n)) =
       (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(w.u10) WITH ORDINALITY AS i(value, frequency, n))
       AS equals_whole,
       pg_temp.topk_counters(p.u) = pg_temp.topk_counters(w.u10) AS same_counters
FROM topk_parts_serial s, topk_parts_parallel p, topk_serial w;

RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
DROP TABLE topk_zipf, topk_daily, topk_parts;
RESET TimeZone;
RESET DateStyle;
RESET extra_float_digits;

-- Equality and hashing (1.2): = and <> compare the bytes, topk_hash agrees
-- with =, and the hash operator class lets GROUP BY, DISTINCT and hash joins
-- use topk values.  The odd and the even numbers of 1..60 give x % 3 the same
-- counts in another order, and no value is dropped (3 values, room for
-- 1000), so their canonical sketches are equal.
CREATE TEMP TABLE topk_eq_parts AS
SELECT x % 2 AS half, topk_agg(x % 3, 2) AS t FROM generate_series(1, 60) x GROUP BY x % 2;
SELECT a.t = b.t AS halves_equal, a.t <> b.t AS halves_differ,
       topk_hash(a.t) = topk_hash(b.t) AS hashes_equal,
       a.t = topk_add(b.t, 1) AS one_more_equal, a.t <> topk_add(b.t, 1) AS one_more_differs
FROM topk_eq_parts a, topk_eq_parts b WHERE a.half = 0 AND b.half = 1;
SELECT topk_agg(x % 3, 2) = topk_agg(x % 3, 1) AS other_k_equal,
       topk_agg(x % 3, 2) = topk_agg((x % 3)::text, 2) AS other_family_equal
FROM generate_series(1, 30) x;
SELECT count(*) AS sketches, count(DISTINCT topk_hash(t)) AS hashes FROM topk_eq_parts;
SELECT count(*) AS groups FROM (SELECT t FROM topk_eq_parts GROUP BY t) g;
SELECT count(*) AS distinct_sketches FROM (SELECT DISTINCT t FROM topk_eq_parts) d;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM topk_eq_parts a JOIN topk_eq_parts b ON a.t = b.t;
SELECT count(*) AS joined_pairs FROM topk_eq_parts a JOIN topk_eq_parts b ON a.t = b.t;
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT NULL::topk = topk_agg(1, 2) AS null_equal, topk_hash(NULL) IS NULL AS null_hash;
DROP TABLE topk_eq_parts;
