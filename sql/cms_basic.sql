--
-- cms_basic: the Count-Min sketch type cms (Cormode and Muthukrishnan
-- 2005): shapes from epsilon and delta, cms_add, cms_frequency and
-- ->, key families, cms_total, cms_error_bound, cms_union and +,
-- cms_inner_product, cms_info, = and <>, the 64-bit counters' limits, and
-- every parameter error.
--
-- Errors are followed by "\echo SQLSTATE :SQLSTATE" so that the expected
-- output records the SQLSTATE without the file:line of VERBOSITY verbose.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- ---------------------------------------------------------------------------
-- Empty sketches and their shapes
-- ---------------------------------------------------------------------------
-- cms_empty(epsilon DEFAULT 0.001, delta DEFAULT 0.01): width = ceil(e/eps),
-- depth = ceil(ln(1/delta)); 48-byte header + 8 bytes a counter + the 4-byte
-- varlena header.  cms_info reports the guarantees the shape gives:
-- epsilon = e/width <= the epsilon asked for, delta = e^-depth <= delta.
SELECT width, depth, epsilon, delta, total, bytes, key_family, format_version, hash_algorithm, seed
FROM cms_info(cms_empty());
SELECT eps, dlt, i.width, i.depth,
       i.width = ceil(exp(1::float8) / eps) AS width_is_ceil_e_over_eps,
       i.depth = greatest(1, ceil(ln(1 / dlt))) AS depth_is_ceil_ln_1_over_delta,
       i.bytes = 4 + 48 + 8 * i.width * i.depth AS bytes_ok,
       i.epsilon <= eps AS eps_kept, i.delta <= dlt AS delta_kept
FROM (VALUES (0.001::float8, 0.01::float8), (0.01, 0.001), (0.1, 0.5), (0.5, 0.99), (0.999, 0.999),
             (0.0001, 1e-6), (0.05, 0.3679), (0.3, 2e-28)) v(eps, dlt),
     cms_info(cms_empty(eps, dlt)) i
ORDER BY eps, dlt;
-- Named and default arguments.
SELECT (cms_info(cms_empty(epsilon => 0.01))).depth AS default_delta_depth,
       (cms_info(cms_empty(delta => 0.5))).width AS default_epsilon_width,
       cms_empty() = cms_empty(0.001, 0.01) AS defaults;
-- cms_empty_dims(width, depth): exactly that shape.
SELECT width, depth, epsilon, delta, total, bytes, key_family FROM cms_info(cms_empty_dims(1, 1));
SELECT width, depth, bytes FROM cms_info(cms_empty_dims(100, 64));
SELECT cms_empty_dims(2719, 5) = cms_empty() AS same_as_default;
-- The format bytes of a small empty sketch: magic "BSKT", version 1, kind 3
-- (cms), hash algorithm 1 (xxh3_64), family 0 (none), seed 0, width 2,
-- depth 1, reserved p3 = 0, total 0, reserved x = 0, then 2 zero counters.
SELECT cms_empty_dims(2, 1);
-- Empty sketches estimate 0 for everything.
SELECT cms_empty() -> 1 AS f_int, cms_empty() -> 'a' AS f_text, cms_frequency(cms_empty(), now()) AS f_tstz,
       cms_total(cms_empty()) AS total, cms_error_bound(cms_empty()) AS error_bound;
-- NULL arguments of the strict constructors.
SELECT cms_empty(NULL) IS NULL AS a, cms_empty(0.1, NULL) IS NULL AS b,
       cms_empty_dims(NULL, 1) IS NULL AS c, cms_empty_dims(8, NULL) IS NULL AS d;

-- ---------------------------------------------------------------------------
-- Hostile parameters: 22023 (invalid_parameter_value), 54000 past the
-- 511 MiB limit; never a crash or a huge allocation
-- ---------------------------------------------------------------------------
SELECT cms_empty(0);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty(1);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty(-0.001);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty(1.5);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty('NaN');
\echo SQLSTATE :SQLSTATE
SELECT cms_empty('Infinity');
\echo SQLSTATE :SQLSTATE
SELECT cms_empty('-Infinity');
\echo SQLSTATE :SQLSTATE
SELECT cms_empty(0.001, 0);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty(0.001, 1);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty(0.001, -0.5);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty(0.001, 'NaN');
\echo SQLSTATE :SQLSTATE
SELECT cms_empty(0.001, 'Infinity');
\echo SQLSTATE :SQLSTATE
-- delta so small that it needs more than 64 rows: ln(1e28) = 64.5
SELECT cms_empty(0.5, 1e-28);
\echo SQLSTATE :SQLSTATE
SELECT (cms_info(cms_empty(0.5, 2e-28))).depth AS depth_64_is_the_most;
SELECT cms_empty(0.5, 1e-300);
\echo SQLSTATE :SQLSTATE
-- epsilon so small that the sketch would pass 511 MiB: 54000
SELECT cms_empty(1e-7);
\echo SQLSTATE :SQLSTATE
-- (only the SQLSTATE here: the message prints the width with all its 301 digits)
\set VERBOSITY sqlstate
SELECT cms_empty(1e-300, 0.5);
\set VERBOSITY default
-- cms_empty_dims: width and depth at least 1, depth at most 64, size at most 511 MiB
SELECT cms_empty_dims(0, 5);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty_dims(5, 0);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty_dims(-1, 5);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty_dims(5, -2147483648);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty_dims(1, 65);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty_dims(13395558, 5);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty_dims(2147483647, 64);
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- cms_add returns a new sketch and leaves its input alone
-- ---------------------------------------------------------------------------
-- The bytes of 4 x 2 counters after adding 42 once and 7 three times: the
-- total (offset 32) is 4, family 1 (integer); each row sums to 4.  They pin
-- the counter positions (src/core/hash.h), which clients can compute from
-- bloomsketch_hash().
SELECT cms_add(cms_add(cms_empty_dims(4, 2), 42), 7, 3) AS sketch;
CREATE TEMP TABLE basic_c (id integer, c cms);
INSERT INTO basic_c VALUES (1, cms_empty(0.01, 0.01));
CREATE TEMP TABLE basic_c_before AS SELECT id, c::text AS t FROM basic_c;
SELECT cms_add(c, 42) -> 42 AS added, c -> 42 AS input, cms_add(c, 42) = c AS same,
       cms_total(cms_add(c, 42, 5)) AS total_after, cms_total(c) AS total_input
FROM basic_c;
SELECT b.c::text = a.t AS input_unchanged FROM basic_c b JOIN basic_c_before a USING (id);
-- Counts add up; the default count is 1.
SELECT cms_add(cms_add(c, 42), 42) = cms_add(c, 42, 2) AS twice_is_count_2,
       cms_add(cms_add(c, 1, 3), 2, 4) = cms_add(cms_add(c, 2, 4), 1, 3) AS order_free,
       cms_add(cms_add(c, 42), 42) -> 42 AS estimate
FROM basic_c;
-- Incremental maintenance of a stored sketch.
UPDATE basic_c SET c = cms_add(c, 7);
UPDATE basic_c SET c = cms_add(c, 7, 10);
UPDATE basic_c SET c = cms_add(c, 8);
SELECT c -> 7 AS f7, c -> 8 AS f8, c -> 9 AS f9, cms_total(c) AS total, (cms_info(c)).key_family FROM basic_c;
-- A NULL value or count returns the sketch unchanged (it never turns it into
-- NULL), whatever the type of the NULL; the family stays what it was.
SELECT cms_add(c, NULL::integer) = c AS null_int, cms_add(c, NULL::text) = c AS null_text,
       cms_add(c, NULL) = c AS null_unknown, cms_add(c, NULL::uuid) = c AS null_uuid_other_family,
       cms_add(c, 7, NULL) = c AS null_count, cms_add(c, NULL::integer, NULL) = c AS both_null
FROM basic_c;
SELECT key_family, total FROM cms_info(cms_add(cms_empty(0.1, 0.1), NULL::integer));
UPDATE basic_c SET c = cms_add(c, NULL::bigint);
SELECT c IS NOT NULL AS still_there, c -> 7 AS f7 FROM basic_c;
-- A NULL sketch gives NULL.
SELECT cms_add(NULL::cms, 1) IS NULL AS a, cms_add(NULL, 'x') IS NULL AS b,
       cms_add(NULL::cms, NULL::integer) IS NULL AS c;
-- A count of 0 adds nothing but fixes the family.
SELECT total, key_family FROM cms_info(cms_add(cms_empty(0.1, 0.1), 'x', 0));
-- Lookups are strict.
SELECT cms_frequency(NULL, 1) IS NULL AS a, (NULL::cms -> 1) IS NULL AS b,
       (cms_empty() -> NULL::integer) IS NULL AS c, cms_total(NULL) IS NULL AS d,
       cms_error_bound(NULL) IS NULL AS e;
DROP TABLE basic_c, basic_c_before;

-- ---------------------------------------------------------------------------
-- Counts are non-negative 64-bit integers: a negative count is 22023, a
-- total past 2^63 - 1 is 54000; neither changes anything
-- ---------------------------------------------------------------------------
SELECT cms_add(cms_empty(0.1, 0.1), 1, -1);
\echo SQLSTATE :SQLSTATE
SELECT cms_add(cms_empty(0.1, 0.1), 'x', -9223372036854775808);
\echo SQLSTATE :SQLSTATE
-- A count of 0 is fine, and so is a total of up to 2^63 - 1.
SELECT cms_add(cms_empty(0.1, 0.1), 1, 0) IS NOT NULL AS zero_is_fine;
SELECT cms_total(c) AS total, c -> 1 AS f1, c -> 2 AS f2
FROM (SELECT cms_add(cms_add(cms_empty(0.1, 0.1), 1, 9223372036854775806), 2) AS c) s;
SELECT cms_add(cms_add(cms_empty(0.1, 0.1), 1, 9223372036854775807), 2);
\echo SQLSTATE :SQLSTATE
SELECT cms_add(cms_add(cms_empty(0.1, 0.1), 1, 4611686018427387904), 2, 4611686018427387904);
\echo SQLSTATE :SQLSTATE
-- A failed add leaves the sketch it was given unchanged: a PL/pgSQL variable
-- passed to cms_add (which could be scribbled on in place) keeps its bytes.
DO $$
DECLARE
  c cms := cms_add(cms_empty(0.01, 0.01), 'a', 9223372036854775800);
  saved text := c::text;
BEGIN
  BEGIN
    c := cms_add(c, 'b', 8);
    RAISE NOTICE 'no error';
  EXCEPTION WHEN program_limit_exceeded THEN
    RAISE NOTICE 'caught %: %', SQLSTATE, SQLERRM;
  END;
  RAISE NOTICE 'unchanged: %, total %, b -> %', c::text = saved, cms_total(c), c -> 'b';
  BEGIN
    PERFORM cms_add(c, 'b', -1);
  EXCEPTION WHEN invalid_parameter_value THEN
    RAISE NOTICE 'caught %: %', SQLSTATE, SQLERRM;
  END;
  RAISE NOTICE 'unchanged: %', c::text = saved;
  c := cms_add(c, 'b', 7);
  RAISE NOTICE 'up to the limit: total %, a -> %, b -> %', cms_total(c), c -> 'a', c -> 'b';
END $$;
-- The same in a table: the failed UPDATE changes no row.
CREATE TEMP TABLE basic_big AS SELECT cms_add(cms_empty(0.1, 0.1), 1, 9223372036854775000) AS c;
UPDATE basic_big SET c = cms_add(c, 2, 1000);
\echo SQLSTATE :SQLSTATE
SELECT cms_total(c), c -> 1 AS f1, c -> 2 AS f2 FROM basic_big;
DROP TABLE basic_big;

-- ---------------------------------------------------------------------------
-- Every key type: an estimate is never below the true count (exact here:
-- a 2719 x 5 sketch with two keys has no collisions); the key family
-- ---------------------------------------------------------------------------
\set e 'cms_empty()'
SELECT 'smallint' AS type, cms_add(cms_add(:e, 7::smallint, 3), 8::smallint) -> 7::smallint AS f1,
       cms_add(cms_add(:e, 7::smallint, 3), 8::smallint) -> 8::smallint AS f2,
       cms_add(:e, 7::smallint, 3) -> 9::smallint AS absent, (cms_info(cms_add(:e, 7::smallint))).key_family
UNION ALL
SELECT 'integer', cms_add(cms_add(:e, -2147483648, 3), 2147483647) -> -2147483648,
       cms_add(cms_add(:e, -2147483648, 3), 2147483647) -> 2147483647,
       cms_add(:e, -2147483648, 3) -> 0, (cms_info(cms_add(:e, 1))).key_family
UNION ALL
SELECT 'bigint', cms_add(cms_add(:e, 9223372036854775807, 3), 1::bigint) -> 9223372036854775807,
       cms_add(cms_add(:e, 9223372036854775807, 3), 1::bigint) -> 1::bigint,
       cms_add(:e, 9223372036854775807, 3) -> 9223372036854775806, (cms_info(cms_add(:e, 1::bigint))).key_family
UNION ALL
SELECT 'text', cms_add(cms_add(:e, 'hello'::text, 3), 'world'::text) -> 'hello'::text,
       cms_add(cms_add(:e, 'hello'::text, 3), 'world'::text) -> 'world'::text,
       cms_add(:e, 'hello'::text, 3) -> 'Hello'::text, (cms_info(cms_add(:e, 'x'::text))).key_family
UNION ALL
SELECT 'varchar', cms_add(cms_add(:e, 'hello'::varchar(10), 3), 'h'::varchar) -> 'hello'::varchar,
       cms_add(cms_add(:e, 'hello'::varchar(10), 3), 'h'::varchar) -> 'h'::varchar,
       cms_add(:e, 'hello'::varchar, 3) -> 'hell'::varchar, (cms_info(cms_add(:e, 'x'::varchar))).key_family
UNION ALL
SELECT 'char(n)', cms_add(cms_add(:e, 'ab'::char(5), 3), 'ba'::char(5)) -> 'ab   '::char(5),
       cms_add(cms_add(:e, 'ab'::char(5), 3), 'ba'::char(5)) -> 'ba'::char(2),
       cms_add(:e, 'ab'::char(5), 3) -> 'abc'::char(5), (cms_info(cms_add(:e, 'x'::char(3)))).key_family
UNION ALL
SELECT 'name', cms_add(cms_add(:e, 'pg_class'::name, 3), 'pg_proc'::name) -> 'pg_class'::name,
       cms_add(cms_add(:e, 'pg_class'::name, 3), 'pg_proc'::name) -> 'pg_proc'::name,
       cms_add(:e, 'pg_class'::name, 3) -> 'pg_type'::name, (cms_info(cms_add(:e, 'x'::name))).key_family
UNION ALL
SELECT 'bytea', cms_add(cms_add(:e, '\x00ff'::bytea, 3), '\x'::bytea) -> '\x00ff'::bytea,
       cms_add(cms_add(:e, '\x00ff'::bytea, 3), '\x'::bytea) -> '\x'::bytea,
       cms_add(:e, '\x00ff'::bytea, 3) -> '\x00fe'::bytea, (cms_info(cms_add(:e, '\x'::bytea))).key_family
UNION ALL
SELECT 'uuid', cms_add(cms_add(:e, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 3), '00000000-0000-0000-0000-000000000000'::uuid)
                 -> 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid,
       cms_add(cms_add(:e, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 3), '00000000-0000-0000-0000-000000000000'::uuid)
                 -> '00000000-0000-0000-0000-000000000000'::uuid,
       cms_add(:e, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 3) -> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'::uuid,
       (cms_info(cms_add(:e, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid))).key_family
UNION ALL
SELECT 'real', cms_add(cms_add(:e, 1.5::real, 3), 'NaN'::real) -> 1.5::real,
       cms_add(cms_add(:e, 1.5::real, 3), 'NaN'::real) -> 'NaN'::real,
       cms_add(:e, 1.5::real, 3) -> 2.5::real, (cms_info(cms_add(:e, 1.5::real))).key_family
UNION ALL
SELECT 'double precision', cms_add(cms_add(:e, 1e300::float8, 3), (-0.0)::float8) -> 1e300::float8,
       cms_add(cms_add(:e, 1e300::float8, 3), (-0.0)::float8) -> 0.0::float8,
       cms_add(:e, 1e300::float8, 3) -> 1e299::float8, (cms_info(cms_add(:e, 1::float8))).key_family
UNION ALL
SELECT 'numeric', cms_add(cms_add(:e, 1.5::numeric, 3), 100::numeric) -> 1.50::numeric,
       cms_add(cms_add(:e, 1.5::numeric, 3), 100::numeric) -> 1e2::numeric,
       cms_add(:e, 1.5::numeric, 3) -> 1.05::numeric, (cms_info(cms_add(:e, 1::numeric))).key_family
UNION ALL
SELECT 'date', cms_add(cms_add(:e, '2024-02-29'::date, 3), 'infinity'::date) -> '2024-02-29'::date,
       cms_add(cms_add(:e, '2024-02-29'::date, 3), 'infinity'::date) -> 'infinity'::date,
       cms_add(:e, '2024-02-29'::date, 3) -> '2024-03-01'::date, (cms_info(cms_add(:e, '2024-02-29'::date))).key_family
UNION ALL
SELECT 'timestamp', cms_add(cms_add(:e, '2024-01-01 10:00:00.000001'::timestamp, 3), '2024-01-01'::timestamp) -> '2024-01-01 10:00:00.000001'::timestamp,
       cms_add(cms_add(:e, '2024-01-01 10:00:00.000001'::timestamp, 3), '2024-01-01'::timestamp) -> '2024-01-01 00:00'::timestamp,
       cms_add(:e, '2024-01-01 10:00:00.000001'::timestamp, 3) -> '2024-01-01 10:00:00'::timestamp,
       (cms_info(cms_add(:e, '2024-01-01'::timestamp))).key_family
UNION ALL
SELECT 'timestamptz', cms_add(cms_add(:e, '2024-01-01 10:00:00+00'::timestamptz, 3), '2024-01-01 10:00:00+02'::timestamptz) -> '2024-01-01 12:00:00+02'::timestamptz,
       cms_add(cms_add(:e, '2024-01-01 10:00:00+00'::timestamptz, 3), '2024-01-01 10:00:00+02'::timestamptz) -> '2024-01-01 08:00:00+00'::timestamptz,
       cms_add(:e, '2024-01-01 10:00:00+00'::timestamptz, 3) -> '2024-01-01 10:00:00+02'::timestamptz,
       (cms_info(cms_add(:e, now()))).key_family;

-- ---------------------------------------------------------------------------
-- Equal values of different types of one family are one key
-- ---------------------------------------------------------------------------
SELECT cms_add(cms_add(cms_add(:e, 42::smallint), 42), 42::bigint) -> 42::smallint AS int2_int4_int8,
       cms_add(cms_add(cms_add(cms_add(:e, 'abc'::varchar), 'abc  '::char(5)), 'abc'::name), 'abc') -> 'abc'::text
         AS varchar_char_name_unknown,
       cms_add(cms_add(:e, 2.5::real), 2.5::float8) -> 2.5::float8 AS real_float8,
       cms_add(cms_add(:e, 1.5::numeric), 1.50::numeric) -> 1.500 AS numeric_scale;
SELECT cms_add(:e, 42::smallint) = cms_add(:e, 42::bigint) AS int2_eq_int8,
       cms_add(:e, 'abc'::varchar) = cms_add(:e, 'abc  '::char(5)) AS varchar_eq_char,
       cms_add(:e, 'abc'::name) = cms_add(:e, 'abc') AS name_eq_unknown;

-- ---------------------------------------------------------------------------
-- Overload resolution: unknown literals are text; int2, int4, varchar and
-- char(n) values find their family without a cast
-- ---------------------------------------------------------------------------
-- The function or operator each expression resolves to, read from the
-- dependencies of a view made of it.
CREATE FUNCTION pg_temp.resolved(expr text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  EXECUTE 'CREATE TEMP VIEW basic_resolve AS SELECT ' || expr || ' AS a';
  SELECT string_agg(coalesce(d.refobjid::regprocedure::text, ''), ', ' ORDER BY d.refobjid::regprocedure::text COLLATE "C")
  INTO r
  FROM pg_depend d JOIN pg_rewrite w ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid
  WHERE w.ev_class = 'basic_resolve'::regclass AND d.refclassid = 'pg_proc'::regclass
    AND d.refobjid::regproc::text NOT IN ('cms_empty', 'cms_empty_dims');
  SELECT concat_ws(', ', r, string_agg(d.refobjid::regoperator::text, ', '))
  INTO r
  FROM pg_depend d JOIN pg_rewrite w ON d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid
  WHERE w.ev_class = 'basic_resolve'::regclass AND d.refclassid = 'pg_operator'::regclass;
  DROP VIEW basic_resolve;
  RETURN r;
END $$;
SELECT expr, pg_temp.resolved(expr) AS resolves_to
FROM unnest(ARRAY[
  $$cms_add(cms_empty(), 'a')$$, $$cms_add(cms_empty(), 'a', 2)$$, $$cms_add(cms_empty(), 'a'::varchar)$$,
  $$cms_add(cms_empty(), 'a'::char(3))$$, $$cms_add(cms_empty(), 1)$$, $$cms_add(cms_empty(), 1::smallint, 2::smallint)$$,
  $$cms_add(cms_empty(), NULL)$$,
  $$cms_frequency(cms_empty(), 'a')$$, $$cms_frequency(cms_empty(), 1::smallint)$$, $$cms_frequency(cms_empty(), 'a'::varchar)$$,
  $$cms_empty() -> 'a'$$, $$cms_empty() -> 'a'::char(2)$$, $$cms_empty() -> 1$$, $$cms_empty() -> 1::smallint$$,
  $$cms_empty() + cms_empty()$$, $$cms_empty() = cms_empty()$$, $$cms_empty() <> cms_empty()$$]) expr;
-- A text sketch read with unknown literals, both ways.
CREATE TEMP TABLE basic_txt AS SELECT cms_add(cms_add(:e, 'abc', 2), 'déjà vu') AS c;
SELECT c -> 'abc' AS a, cms_frequency(c, 'abc') AS b, c -> 'déjà vu' AS utf8, c -> 'abd' AS other,
       (cms_info(c)).key_family
FROM basic_txt;
DROP TABLE basic_txt;

-- ---------------------------------------------------------------------------
-- A key of another family is an ERROR naming both families (42804), never
-- a silent 0; so is an unsupported key type
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_fam AS
SELECT cms_add(:e, 42) AS ci, cms_add(:e, 'abc'::text) AS ct, cms_add(:e, '2024-01-01'::date) AS cd;
SELECT ci -> 'abc'::text FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT ci -> 'abc' FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT cms_frequency(ct, 42) FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT ci -> 42.0 FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT ci -> 42::float8 FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT cd -> '2024-01-01 00:00'::timestamp FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT cms_add(ci, 'abc'::varchar) FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT cms_add(ct, '\x01'::bytea, 5) FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT cms_add(:e, true);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty() -> ARRAY[1, 2];
\echo SQLSTATE :SQLSTATE
SELECT cms_add(:e, '1 day'::interval);
\echo SQLSTATE :SQLSTATE
-- A NULL of another family is not looked at.
SELECT cms_add(ci, NULL::text) = ci AS null_text_ok FROM basic_fam;
DROP TABLE basic_fam;

-- ---------------------------------------------------------------------------
-- cms_total and cms_error_bound = eps N with eps = e / width
-- ---------------------------------------------------------------------------
SELECT cms_total(c) AS total, cms_error_bound(c) AS error_bound,
       abs(cms_error_bound(c) - exp(1::float8) / 2719 * 1000000) < 1e-9 AS is_e_over_width_times_n,
       cms_error_bound(c) <= 0.001 * 1000000 AS within_eps_n
FROM (SELECT cms_add(cms_add(:e, 1, 999999), 2) AS c) s;
SELECT cms_error_bound(cms_add(cms_empty_dims(1, 1), 'x', 10)) AS width_1_bound_is_e_n;

-- ---------------------------------------------------------------------------
-- cms_union and +: the counter-wise sum, exactly the sketch of both streams
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_u AS
SELECT cms_add(cms_add(cms_empty(0.01, 0.01), 1, 5), 2, 3) AS a,
       cms_add(cms_add(cms_empty(0.01, 0.01), 2, 4), 3, 1) AS b,
       cms_add(cms_add(cms_add(cms_add(cms_empty(0.01, 0.01), 1, 5), 2, 3), 2, 4), 3, 1) AS whole;
SELECT a + b = whole AS sum_is_whole, b + a = whole AS commutative, cms_union(a, b) = a + b AS same_as_plus,
       (a + b) -> 2 AS f2, cms_total(a + b) AS total,
       (a + cms_empty(0.01, 0.01)) = a AS empty_is_neutral,
       (cms_empty(0.01, 0.01) + a) = a AS empty_none_family_takes_integer
FROM basic_u;
-- + returns a new sketch: its arguments are unchanged.
SELECT cms_total(a) AS a_total, cms_total(b) AS b_total, cms_total(a + b + a) AS aba_total, a -> 1 AS a1 FROM basic_u;
SELECT (NULL::cms + a) IS NULL AS a, cms_union(a, NULL) IS NULL AS b FROM basic_u;
-- Shapes, seeds and families must match: 22023 naming both shapes, 42804 naming both families.
SELECT a + cms_empty(0.01, 0.001) FROM basic_u;
\echo SQLSTATE :SQLSTATE
SELECT a + cms_empty_dims(271, 5) FROM basic_u;
\echo SQLSTATE :SQLSTATE
SELECT a + set_byte(a::bytea, 8, 1)::cms FROM basic_u;
\echo SQLSTATE :SQLSTATE
SELECT a + cms_add(cms_empty(0.01, 0.01), 'x') FROM basic_u;
\echo SQLSTATE :SQLSTATE
SELECT cms_union(cms_add(cms_empty(0.01, 0.01), now()), cms_add(cms_empty(0.01, 0.01), now()::timestamp));
\echo SQLSTATE :SQLSTATE
-- The sum of two totals past 2^63 - 1: 54000.
SELECT cms_add(cms_empty(0.1, 0.1), 1, 4611686018427387904) + cms_add(cms_empty(0.1, 0.1), 2, 4611686018427387904);
\echo SQLSTATE :SQLSTATE
SELECT cms_total(cms_add(cms_empty(0.1, 0.1), 1, 4611686018427387904) + cms_add(cms_empty(0.1, 0.1), 2, 4611686018427387903))
  AS total_up_to_the_limit;
-- cms_union_trans adds in place, so it only works inside an aggregate.
SELECT cms_union_trans(a, b) FROM basic_u;
\echo SQLSTATE :SQLSTATE
DROP TABLE basic_u;

-- ---------------------------------------------------------------------------
-- cms_inner_product: numeric, never below the true join size
-- ---------------------------------------------------------------------------
-- a = {1: 3, 2: 5}, b = {1: 2, 3: 4}: true inner product 3 * 2 = 6.
SELECT cms_inner_product(a, b) AS estimate, cms_inner_product(a, b) >= 6 AS not_below,
       cms_inner_product(a, a) AS f2_a, pg_typeof(cms_inner_product(a, b))
FROM (SELECT cms_add(cms_add(:e, 1, 3), 2, 5) AS a, cms_add(cms_add(:e, 1, 2), 3, 4) AS b) s;
SELECT cms_inner_product(:e, :e) AS empty;
-- The product of two totals of 2^63 - 1 is past bigint: (2^63 - 1)^2 exactly.
SELECT cms_inner_product(c, c) AS ip, cms_inner_product(c, c) = 9223372036854775807::numeric ^ 2 AS exact
FROM (SELECT cms_add(cms_empty_dims(4, 2), 'x', 9223372036854775807) AS c) s;
SELECT cms_inner_product(cms_empty(0.01), cms_empty(0.02));
\echo SQLSTATE :SQLSTATE
SELECT cms_inner_product(cms_add(:e, 1), cms_add(:e, 'one'));
\echo SQLSTATE :SQLSTATE
SELECT cms_inner_product(NULL, :e) IS NULL AS strict;

-- ---------------------------------------------------------------------------
-- cms_info
-- ---------------------------------------------------------------------------
SELECT * FROM cms_info(cms_add(cms_add(cms_empty(0.05, 0.1), 'x', 7), 'y'));
SELECT (cms_info(cms_add(cms_empty_dims(10, 3), 1::bigint))).*;
SELECT cms_info(NULL) IS NULL AS strict;

-- ---------------------------------------------------------------------------
-- = and <>: byte equality, with a hash operator class (DISTINCT, GROUP BY,
-- hash joins)
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_eq AS
SELECT x, cms_add(cms_empty(0.1, 0.1), x % 3) AS c FROM generate_series(1, 9) x;
SELECT count(*) AS distinct_sketches FROM (SELECT DISTINCT c FROM basic_eq) d;
SELECT c -> 0 AS f0, c -> 1 AS f1, c -> 2 AS f2, count(*) FROM basic_eq GROUP BY c ORDER BY 1, 2, 3;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM basic_eq a JOIN basic_eq b ON a.c = b.c;
SELECT count(*) AS pairs FROM basic_eq a JOIN basic_eq b ON a.c = b.c;
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT cms_add(:e, 1) = cms_add(:e, 1) AS eq, cms_add(:e, 1) <> cms_add(:e, 2) AS ne,
       cms_add(:e, 1) = cms_add(:e, 1, 2) AS other_count_eq,
       cms_empty(0.1) = cms_empty(0.2) AS other_shape_eq,
       cms_add(:e, 1, 0) = :e AS other_family_eq;
DROP TABLE basic_eq;

-- ---------------------------------------------------------------------------
-- The objects of the cms API, looked up by signature
-- ---------------------------------------------------------------------------
SELECT sig, to_regprocedure(sig) IS NOT NULL AS present
FROM unnest(ARRAY[
  'cms_empty(double precision,double precision)', 'cms_empty_dims(integer,integer)',
  'cms_add(cms,anyelement,bigint)', 'cms_add(cms,text,bigint)',
  'cms_frequency(cms,anyelement)', 'cms_frequency(cms,text)',
  'cms_total(cms)', 'cms_error_bound(cms)', 'cms_union(cms,cms)', 'cms_union_agg(cms)',
  'cms_inner_product(cms,cms)', 'cms_info(cms)', 'cms_eq(cms,cms)', 'cms_ne(cms,cms)', 'cms_hash(cms)',
  'cms_from_bytea(bytea)', 'cms_in(cstring)', 'cms_out(cms)', 'cms_recv(internal)', 'cms_send(cms)']) AS sig
ORDER BY sig COLLATE "C";
SELECT oprname, oprleft::regtype, oprright::regtype, oprcode::regprocedure, oprresult::regtype,
       oprcom::regoperator AS commutator, oprnegate::regoperator AS negator, oprcanhash
FROM pg_operator
WHERE oprleft = 'cms'::regtype OR oprright = 'cms'::regtype
ORDER BY oprname COLLATE "C", oprleft::regtype::text COLLATE "C", oprright::regtype::text COLLATE "C";
SELECT castsource::regtype, casttarget::regtype, castfunc::regprocedure, castcontext, castmethod
FROM pg_cast
WHERE castsource = 'cms'::regtype OR casttarget = 'cms'::regtype
ORDER BY castsource::regtype::text COLLATE "C", casttarget::regtype::text COLLATE "C";
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p
WHERE p.proname LIKE 'cms\_%' AND p.prokind = 'f'
ORDER BY p.oid::regprocedure::text COLLATE "C";
