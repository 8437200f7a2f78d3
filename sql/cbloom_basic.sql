--
-- cbloom_basic: the counting Bloom filter type cbloom (src/cbloom.c,
-- src/core/cbloom.h): empty filters and their shapes, cbloom_add and
-- cbloom_remove (new values; a failed removal changes nothing), lookups and
-- key families, cbloom_count, saturation, churn of a stored column,
-- merges (cbloom_union, +, cbloom_union_agg), the cast to bloom,
-- cbloom_info, equality and hashing.
--
-- Errors are followed by "\echo SQLSTATE :SQLSTATE" so that the expected
-- output records the SQLSTATE without the file:line of VERBOSITY verbose.
-- All data are deterministic (generate_series, md5), so every count printed
-- here is stable.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

SET max_parallel_workers_per_gather = 0;

-- ---------------------------------------------------------------------------
-- Empty filters and their shapes
-- ---------------------------------------------------------------------------
-- cbloom_empty(capacity, fpr DEFAULT 0.01, counter_bits DEFAULT 4) has the
-- shape of bloom_empty(capacity, fpr): as many counters as that filter has
-- bits, and as many hashes.  48-byte header + ceil(m/2) payload bytes for
-- 4-bit counters (m for 8-bit ones) + the 4-byte varlena header.
SELECT * FROM cbloom_info(cbloom_empty(1000));
SELECT cap, p, c.counters, c.hashes, b.bits, b.hashes AS bloom_hashes,
       c.counters = b.bits AND c.hashes = b.hashes AS shape_of_bloom_empty,
       c.bytes AS bytes_4bit, c8.bytes AS bytes_8bit,
       c.bytes = 52 + (c.counters + 1) / 2 AS size_4bit_ok, c8.bytes = 52 + c8.counters AS size_8bit_ok,
       c8.counters = c.counters AND c8.hashes = c.hashes AS same_shape_8bit
FROM (VALUES (1::bigint, 0.5::float8), (1, 0.01), (3, 0.5), (100, 0.1), (1000, 0.01), (1000, 0.001),
             (5000, 0.01), (100000, 0.05)) v(cap, p),
     cbloom_info(cbloom_empty(cap, p)) c, cbloom_info(cbloom_empty(cap, p, 8)) c8, bloom_info(bloom_empty(cap, p)) b
ORDER BY cap, p DESC;
-- The defaults: fpr 0.01 and 4-bit counters.
SELECT cbloom_empty(1000) = cbloom_empty(1000, 0.01) AS default_fpr,
       cbloom_empty(1000, 0.01) = cbloom_empty(1000, 0.01, 4) AS default_bits,
       cbloom_empty(1000, 0.01, 4) <> cbloom_empty(1000, 0.01, 8) AS widths_differ;
SELECT counters, hashes, counter_bits, counters_zero, counters_saturated, bytes, key_family, counter_max
FROM cbloom_info(cbloom_empty(1000, 0.01, 8));
-- The format bytes of small empty filters: magic "BSKT", version 1, kind 5
-- (cbloom), hash algorithm 1 (xxh3_64), family 0 (none), seed 0, m = 5
-- counters, k = 1, counter bits 4 (resp. 8), reserved zeros, then 3 (resp. 5)
-- zero payload bytes.
SELECT cbloom_empty(3, 0.5) AS four_bit;
SELECT cbloom_empty(3, 0.5, 8) AS eight_bit;
-- A filter of one counter.
SELECT counters, hashes, bytes FROM cbloom_info(cbloom_empty(1, 0.9));
-- Empty filters contain nothing and count nothing.
SELECT cbloom_empty(100) @> 1 AS has_int, cbloom_empty(100) @> 'a'::text AS has_text,
       cbloom_count(cbloom_empty(100), 1) AS count_int, cbloom_count(cbloom_empty(100, 0.01, 8), 'a') AS count_text;

-- Parameter errors: capacity, fpr, counter_bits (22023), and sizes past the
-- 511 MiB limit (54000, with the size in the message).
SELECT cbloom_empty(0);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(-5);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(-9223372036854775808);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, 0);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, 1);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, 1.5);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, -0.01);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, 'NaN');
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, 'Infinity');
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, '-Infinity');
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, 0.01, 0);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, 0.01, 5);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, 0.01, 16);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100, 0.01, -4);
\echo SQLSTATE :SQLSTATE
-- an fpr that needs more than 64 hashes (only the SQLSTATE is shown: the
-- message, shared with bloom_empty, speaks of bits, not counters)
\set VERBOSITY sqlstate
SELECT cbloom_empty(10, 1e-30);
\set VERBOSITY default
-- too large: 200,000,000 values at 1% need 1,917,011,676 counters, which fit
-- a bit array (bloom_empty) but not 4-bit counters; 100,000,000 values fit
-- 4-bit but not 8-bit counters (the hint then suggests 4-bit counters).
SELECT cbloom_empty(200000000, 0.01);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(100000000, 0.01, 8);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(1000000000000, 0.01);
\echo SQLSTATE :SQLSTATE
SELECT (bloom_info(bloom_empty(200000000, 0.01))).bits AS bloom_bits_fit;
-- The constructor is strict: a NULL argument gives NULL, not an error.
SELECT cbloom_empty(NULL) IS NULL AS null_capacity, cbloom_empty(10, NULL) IS NULL AS null_fpr,
       cbloom_empty(10, 0.01, NULL) IS NULL AS null_bits, cbloom_empty(0, 0.01, NULL) IS NULL AS null_bits_bad_capacity;

-- ---------------------------------------------------------------------------
-- cbloom_add and cbloom_remove return new values and leave their input alone
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_f (id integer, f cbloom);
INSERT INTO basic_f VALUES (1, cbloom_add(cbloom_empty(100), 1)), (2, cbloom_add(cbloom_empty(100, 0.01, 8), 1));
CREATE TEMP TABLE basic_f_before AS SELECT id, f::text AS t FROM basic_f;
SELECT id, cbloom_add(f, 42) @> 42 AS added_has_42, f @> 42 AS input_has_42,
       cbloom_count(cbloom_add(cbloom_add(f, 42), 42), 42) AS twice,
       cbloom_remove(cbloom_add(f, 42), 42) = f AS add_then_remove_is_input,
       cbloom_remove(f, 1) @> 1 AS removed_has_1, f @> 1 AS input_has_1,
       (cbloom_info(cbloom_remove(f, 1))).counters_zero = (cbloom_info(f)).counters AS removed_is_all_zero
FROM basic_f ORDER BY id;
SELECT b.id, b.f::text = a.t AS input_unchanged FROM basic_f b JOIN basic_f_before a USING (id) ORDER BY id;
-- Adding is not idempotent: the counters count.
SELECT id, cbloom_add(cbloom_add(f, 42), 42) <> cbloom_add(f, 42) AS not_idempotent,
       cbloom_remove(cbloom_add(cbloom_add(f, 42), 42), 42) = cbloom_add(f, 42) AS remove_once
FROM basic_f ORDER BY id;
-- Incremental maintenance of a stored filter.
UPDATE basic_f SET f = cbloom_add(f, 7);
UPDATE basic_f SET f = cbloom_add(f, 7);
UPDATE basic_f SET f = cbloom_add(f, 8);
UPDATE basic_f SET f = cbloom_remove(f, 7);
SELECT id, f @> 7 AS has_7, f @> 8 AS has_8, 7 <@ f AS has_7_commuted, cbloom_count(f, 7) AS count_7,
       cbloom_count(f, 8) AS count_8, (cbloom_info(f)).key_family
FROM basic_f ORDER BY id;
-- A NULL value returns the filter unchanged (never NULL), whatever the type
-- of the NULL; the family stays what it was.
SELECT id, cbloom_add(f, NULL::integer) = f AS add_null_int, cbloom_add(f, NULL::text) = f AS add_null_text,
       cbloom_add(f, NULL) = f AS add_null_unknown, cbloom_add(f, NULL::uuid) = f AS add_null_other_family,
       cbloom_remove(f, NULL::integer) = f AS remove_null_int, cbloom_remove(f, NULL) = f AS remove_null_unknown,
       cbloom_remove(f, NULL::date) = f AS remove_null_other_family
FROM basic_f ORDER BY id;
SELECT key_family FROM cbloom_info(cbloom_add(cbloom_empty(10), NULL::integer));
UPDATE basic_f SET f = cbloom_remove(f, NULL::bigint);
SELECT id, f IS NOT NULL AS still_there, f @> 8 AS has_8 FROM basic_f ORDER BY id;
-- A NULL filter gives NULL.
SELECT cbloom_add(NULL::cbloom, 1) IS NULL AS a, cbloom_add(NULL, 'x') IS NULL AS b,
       cbloom_add(NULL::cbloom, NULL::integer) IS NULL AS c, cbloom_remove(NULL::cbloom, 1) IS NULL AS d,
       cbloom_remove(NULL, 'x') IS NULL AS e, cbloom_add(NULL, NULL) IS NULL AS f;
-- Lookups are strict.
SELECT cbloom_contains(NULL, 1) IS NULL AS a, (NULL::cbloom @> 1) IS NULL AS b,
       (cbloom_empty(10) @> NULL::integer) IS NULL AS c, (NULL::integer <@ cbloom_empty(10)) IS NULL AS d,
       cbloom_count(NULL, 1) IS NULL AS e, cbloom_count(cbloom_empty(10), NULL::integer) IS NULL AS f;

-- Removing a value that is certainly absent is an ERROR (22023), and the
-- filter is not changed: a failed UPDATE leaves the stored row as it was.
SELECT cbloom_remove(cbloom_empty(100), 5);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_remove(cbloom_empty(100), 'abc');
\echo SQLSTATE :SQLSTATE
SELECT cbloom_remove(cbloom_remove(cbloom_add(cbloom_empty(100, 0.01, 8), 5), 5), 5);
\echo SQLSTATE :SQLSTATE
TRUNCATE basic_f_before;
INSERT INTO basic_f_before SELECT id, f::text FROM basic_f;
UPDATE basic_f SET f = cbloom_remove(f, 9999);
\echo SQLSTATE :SQLSTATE
-- Both rows hold 1 once, 7 once (added twice, removed once) and 8 once:
-- removing 8 twice fails at the second removal.
UPDATE basic_f SET f = cbloom_remove(cbloom_remove(f, 8), 8);
\echo SQLSTATE :SQLSTATE
-- A multi-row UPDATE in which only one row fails changes no row at all.
UPDATE basic_f SET f = CASE WHEN id = 1 THEN cbloom_remove(f, 8) ELSE cbloom_remove(f, 9999) END;
\echo SQLSTATE :SQLSTATE
SELECT b.id, b.f::text = a.t AS row_unchanged, b.f @> 8 AS has_8, cbloom_count(b.f, 8) AS count_8
FROM basic_f b JOIN basic_f_before a USING (id) ORDER BY id;
-- The error can be caught, and a guarded removal skips absent values.
DO $$
BEGIN
  PERFORM cbloom_remove(cbloom_empty(10), 42);
  RAISE NOTICE 'no error';
EXCEPTION WHEN invalid_parameter_value THEN
  RAISE NOTICE 'caught %: %', SQLSTATE, SQLERRM;
END $$;
UPDATE basic_f SET f = cbloom_remove(f, 9999) WHERE f @> 9999;
SELECT count(*) FILTER (WHERE b.f::text = a.t) AS rows_unchanged FROM basic_f b JOIN basic_f_before a USING (id);
DROP TABLE basic_f, basic_f_before;

-- ---------------------------------------------------------------------------
-- cbloom_contains, cbloom_contained, @> and <@ agree
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_ints AS
SELECT cbloom_add(cbloom_add(cbloom_add(cbloom_empty(100), 1), 2), 3) AS f;
SELECT x, cbloom_contains(f, x) AS contains, cbloom_contained(x, f) AS contained,
       f @> x AS op_contains, x <@ f AS op_contained, cbloom_count(f, x) AS count
FROM basic_ints, generate_series(0, 5) x ORDER BY x;
DROP TABLE basic_ints;

-- ---------------------------------------------------------------------------
-- Unknown literals resolve to the text overloads
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_txt AS SELECT cbloom_add(cbloom_add(cbloom_add(cbloom_empty(1000), 'abc'), 'déjà vu'), 'abc') AS f;
SELECT f @> 'abc' AS a, 'abc' <@ f AS b, cbloom_contains(f, 'abc') AS c, cbloom_contained('abc', f) AS d,
       cbloom_count(f, 'abc') AS count_abc, f @> 'déjà vu' AS utf8, f @> 'abd' AS other,
       cbloom_count(cbloom_remove(f, 'abc'), 'abc') AS count_after_remove,
       cbloom_remove(cbloom_remove(f, 'abc'), 'abc') @> 'abc' AS removed_twice,
       (cbloom_info(f)).key_family
FROM basic_txt;
-- ... and the text overloads are the same functions as for a text value.
SELECT cbloom_add(cbloom_empty(1000), 'abc') = cbloom_add(cbloom_empty(1000), 'abc'::text) AS unknown_is_text,
       cbloom_add(cbloom_empty(1000), 'abc'::varchar) = cbloom_add(cbloom_empty(1000), 'abc  '::char(5)) AS varchar_is_char;
DROP TABLE basic_txt;

-- ---------------------------------------------------------------------------
-- Equal values of different types of one family are one key
-- ---------------------------------------------------------------------------
\set e 'cbloom_empty(10000)'
SELECT cbloom_add(:e, 42::smallint) = cbloom_add(:e, 42) AS int2_eq_int4,
       cbloom_add(:e, 42::smallint) = cbloom_add(:e, 42::bigint) AS int2_eq_int8,
       cbloom_add(:e, 42::smallint) @> 42::bigint AS int2_has_int8,
       cbloom_count(cbloom_add(cbloom_add(cbloom_add(:e, 42::smallint), 42), 42::bigint), 42::smallint) AS count_mixed,
       cbloom_remove(cbloom_add(:e, 42::bigint), 42::smallint) @> 42 AS removed_by_int2,
       cbloom_add(:e, 2.5::real) = cbloom_add(:e, 2.5::float8) AS real_eq_float8,
       cbloom_add(:e, 1.5::numeric) = cbloom_add(:e, 1.50::numeric) AS numeric_scale;
-- Every key type: what was added is found, another value is not; the
-- family of the key is the filter's.
SELECT type, added, other, count, key_family FROM (
SELECT 1 AS o, 'smallint' AS type, cbloom_add(:e, 7::smallint) @> 7::smallint AS added,
       cbloom_add(:e, 7::smallint) @> 8::smallint AS other, cbloom_count(cbloom_add(:e, 7::smallint), 7::smallint) AS count,
       (cbloom_info(cbloom_add(:e, 7::smallint))).key_family
UNION ALL SELECT 2, 'integer', cbloom_add(:e, -2147483648) @> -2147483648, cbloom_add(:e, -2147483648) @> 2147483647,
       cbloom_count(cbloom_add(:e, 1), 1), (cbloom_info(cbloom_add(:e, 1))).key_family
UNION ALL SELECT 3, 'bigint', cbloom_add(:e, 9223372036854775807) @> 9223372036854775807,
       cbloom_add(:e, 9223372036854775807) @> 9223372036854775806,
       cbloom_count(cbloom_add(:e, 1::bigint), 1::bigint), (cbloom_info(cbloom_add(:e, 1::bigint))).key_family
UNION ALL SELECT 4, 'text', cbloom_add(:e, 'hello'::text) @> 'hello'::text, cbloom_add(:e, 'hello'::text) @> 'Hello'::text,
       cbloom_count(cbloom_add(:e, 'hello'::text), 'hello'), (cbloom_info(cbloom_add(:e, 'hello'::text))).key_family
UNION ALL SELECT 5, 'varchar', cbloom_add(:e, 'hello'::varchar) @> 'hello'::varchar, cbloom_add(:e, 'hello'::varchar) @> 'hell'::varchar,
       cbloom_count(cbloom_add(:e, 'hello'::varchar), 'hello'::varchar), (cbloom_info(cbloom_add(:e, 'hello'::varchar))).key_family
UNION ALL SELECT 6, 'bytea', cbloom_add(:e, '\x00ff'::bytea) @> '\x00ff'::bytea, cbloom_add(:e, '\x00ff'::bytea) @> '\x00fe'::bytea,
       cbloom_count(cbloom_add(:e, '\x00ff'::bytea), '\x00ff'::bytea), (cbloom_info(cbloom_add(:e, '\x'::bytea))).key_family
UNION ALL SELECT 7, 'uuid', cbloom_add(:e, md5('a')::uuid) @> md5('a')::uuid, cbloom_add(:e, md5('a')::uuid) @> md5('b')::uuid,
       cbloom_count(cbloom_add(:e, md5('a')::uuid), md5('a')::uuid), (cbloom_info(cbloom_add(:e, md5('a')::uuid))).key_family
UNION ALL SELECT 8, 'real', cbloom_add(:e, 1.5::real) @> 1.5::real, cbloom_add(:e, 1.5::real) @> 2.5::real,
       cbloom_count(cbloom_add(:e, 1.5::real), 1.5::float8), (cbloom_info(cbloom_add(:e, 1.5::real))).key_family
UNION ALL SELECT 9, 'double precision', cbloom_add(:e, 1e300::float8) @> 1e300::float8, cbloom_add(:e, 1e300::float8) @> 1e299::float8,
       cbloom_count(cbloom_add(:e, 1e300::float8), 1e300::float8), (cbloom_info(cbloom_add(:e, 1::float8))).key_family
UNION ALL SELECT 10, 'numeric', cbloom_add(:e, 1.5::numeric) @> 1.50::numeric, cbloom_add(:e, 1.5::numeric) @> 1.05::numeric,
       cbloom_count(cbloom_add(:e, 1.5::numeric), 1.500::numeric), (cbloom_info(cbloom_add(:e, 1::numeric))).key_family
UNION ALL SELECT 11, 'date', cbloom_add(:e, '2024-02-29'::date) @> '2024-02-29'::date, cbloom_add(:e, '2024-02-29'::date) @> '2024-03-01'::date,
       cbloom_count(cbloom_add(:e, '2024-02-29'::date), '2024-02-29'::date), (cbloom_info(cbloom_add(:e, '2024-02-29'::date))).key_family
UNION ALL SELECT 12, 'timestamp', cbloom_add(:e, '2024-01-01 10:00'::timestamp) @> '2024-01-01 10:00'::timestamp,
       cbloom_add(:e, '2024-01-01 10:00'::timestamp) @> '2024-01-01 10:01'::timestamp,
       cbloom_count(cbloom_add(:e, '2024-01-01 10:00'::timestamp), '2024-01-01 10:00'::timestamp),
       (cbloom_info(cbloom_add(:e, '2024-01-01 10:00'::timestamp))).key_family
UNION ALL SELECT 13, 'timestamptz', cbloom_add(:e, '2024-01-01 10:00+00'::timestamptz) @> '2024-01-01 12:00+02'::timestamptz,
       cbloom_add(:e, '2024-01-01 10:00+00'::timestamptz) @> '2024-01-01 10:00+02'::timestamptz,
       cbloom_count(cbloom_add(:e, '2024-01-01 10:00+00'::timestamptz), '2024-01-01 11:00+01'::timestamptz),
       (cbloom_info(cbloom_add(:e, '2024-01-01 10:00+00'::timestamptz))).key_family
) s ORDER BY o;

-- ---------------------------------------------------------------------------
-- A key of another family is an ERROR (42804) naming both families, never
-- false, for every function that takes a key
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_fam AS
SELECT cbloom_add(:e, 42) AS fi, cbloom_add(:e, 'abc'::text) AS ft, cbloom_add(:e, '2024-01-01'::date) AS fd;
SELECT fi @> 'abc'::text FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT fi @> 'abc' FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT '42' <@ fi FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT ft @> 42 FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT fi @> 42.0 FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT fd @> '2024-01-01 00:00'::timestamp FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_add(fi, 'abc'::varchar) FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_remove(fi, 'abc') FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_remove(ft, 42) FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_count(fi, 42::float8) FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_count(ft, 'abc'::bytea) FROM basic_fam;
\echo SQLSTATE :SQLSTATE
-- Unsupported key types.
SELECT cbloom_add(cbloom_empty(10), true);
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(10) @> '10.0.0.1'::inet;
\echo SQLSTATE :SQLSTATE
DROP TABLE basic_fam;

-- ---------------------------------------------------------------------------
-- cbloom_count: exact for a value added N times to an empty filter, up to
-- the counter maximum (15 for 4-bit counters, 255 for 8-bit ones), which
-- then means that the value's counters saturated: present, count unknown
-- ---------------------------------------------------------------------------
-- A sparse filter (959 counters, 7 hashes), 4- and 8-bit, and a tiny one
-- (10 counters, 7 hashes) in which probes of one value land on the same
-- counter (the multiplicities of the probes of 7 there are shown).
SELECT j, (get_byte(f::bytea, 48 + j / 2) >> (4 * (j % 2))) & 15 AS counter
FROM (SELECT cbloom_add(cbloom_empty(1, 0.01), 7) AS f) s, generate_series(0, 9) j
WHERE (get_byte(f::bytea, 48 + j / 2) >> (4 * (j % 2))) & 15 > 0 ORDER BY j;
CREATE TEMP TABLE basic_counts AS
WITH RECURSIVE s(n, f4, f8, ft) AS (
  SELECT 0, cbloom_empty(100), cbloom_empty(100, 0.01, 8), cbloom_empty(1, 0.01)
  UNION ALL
  SELECT n + 1, cbloom_add(f4, 7), cbloom_add(f8, 7), cbloom_add(ft, 7) FROM s WHERE n < 300)
SELECT n, cbloom_count(f4, 7) AS count_4bit, cbloom_count(f8, 7) AS count_8bit, cbloom_count(ft, 7) AS count_tiny,
       (cbloom_info(f4)).counters_saturated AS saturated_4bit, (cbloom_info(f8)).counters_saturated AS saturated_8bit
FROM s;
SELECT * FROM basic_counts WHERE n <= 20 ORDER BY n;
SELECT count(*) FILTER (WHERE count_8bit = n) AS exact_8bit_0_to_255,
       count(*) FILTER (WHERE count_4bit = least(n, 15)) AS exact_4bit_0_to_255,
       count(*) FILTER (WHERE count_tiny = least(n, 15)) AS exact_tiny_0_to_255
FROM basic_counts WHERE n <= 255;
SELECT * FROM basic_counts WHERE n IN (254, 255, 256, 300) ORDER BY n;
DROP TABLE basic_counts;

-- ---------------------------------------------------------------------------
-- Saturation: a value added 40 times, then removed 40 times.  Saturated
-- counters stay at the maximum and are never decremented, so there is never
-- a false negative, for this value or for the 200 others in the filter.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_sat AS
WITH RECURSIVE s(step, f4, f8) AS (
  SELECT 0, cbloom_empty(100), cbloom_empty(100, 0.01, 8)
  UNION ALL
  SELECT step + 1,
         CASE WHEN step < 40 THEN cbloom_add(f4, 1000) ELSE cbloom_remove(f4, 1000) END,
         CASE WHEN step < 40 THEN cbloom_add(f8, 1000) ELSE cbloom_remove(f8, 1000) END
  FROM s WHERE step < 80)
SELECT step, CASE WHEN step <= 40 THEN step ELSE 80 - step END AS true_count, f4, f8 FROM s;
SELECT step, true_count, f4 @> 1000 AS has_4bit, cbloom_count(f4, 1000) AS count_4bit,
       (cbloom_info(f4)).counters_saturated AS saturated_4bit,
       f8 @> 1000 AS has_8bit, cbloom_count(f8, 1000) AS count_8bit,
       (cbloom_info(f8)).counters_saturated AS saturated_8bit
FROM basic_sat WHERE step IN (0, 1, 14, 15, 16, 39, 40, 41, 55, 65, 66, 79, 80) ORDER BY step;
-- Over all 81 steps: no false negative; the 4-bit count is at least
-- min(true count, 15), the 8-bit count is exact.
SELECT count(*) AS steps,
       count(*) FILTER (WHERE true_count > 0 AND NOT f4 @> 1000) AS false_negatives_4bit,
       count(*) FILTER (WHERE true_count > 0 AND NOT f8 @> 1000) AS false_negatives_8bit,
       count(*) FILTER (WHERE cbloom_count(f4, 1000) < least(true_count, 15)) AS count_4bit_too_low,
       count(*) FILTER (WHERE cbloom_count(f8, 1000) <> true_count) AS count_8bit_wrong
FROM basic_sat;
-- After the 40 removals the 8-bit filter is empty again (but keeps its
-- family) and a 41st removal fails; the 4-bit filter still holds the value
-- in its saturated counters, so a 41st removal cannot be refused.
SELECT (cbloom_info(f8)).counters_zero = (cbloom_info(f8)).counters AS empty_8bit,
       (cbloom_info(f4)).counters_saturated AS saturated_4bit, f4 @> 1000 AS has_4bit,
       cbloom_remove(f4, 1000) = f4 AS removal_41_keeps_saturated
FROM basic_sat WHERE step = 80;
SELECT cbloom_remove(f8, 1000) FROM basic_sat WHERE step = 80;
\echo SQLSTATE :SQLSTATE
DROP TABLE basic_sat;
-- The same with 200 other values in the filters (1000 added 40 times in the
-- middle of them): after every add and every removal of 1000, every one of
-- the 200 values is found.  pg_temp.sat_run returns, per width, the number of
-- (step, value) pairs probed and the false negatives among them.
CREATE FUNCTION pg_temp.sat_run(bits integer)
RETURNS TABLE (probes bigint, false_negatives bigint, max_saturated bigint, heavy_found_at_end boolean)
LANGUAGE plpgsql AS $$
DECLARE
  f cbloom := cbloom_empty(100, 0.01, bits);
  i integer;
  fn bigint := 0;
  sat bigint := 0;
BEGIN
  FOR i IN 1..100 LOOP f := cbloom_add(f, i); END LOOP;
  FOR i IN 1..40 LOOP f := cbloom_add(f, 1000); END LOOP;
  FOR i IN 101..200 LOOP f := cbloom_add(f, i); END LOOP;
  FOR i IN 1..80 LOOP
    IF i <= 40 THEN f := cbloom_add(f, 2000); ELSE f := cbloom_remove(f, 2000); END IF;
    IF i > 40 THEN f := cbloom_remove(f, 1000); END IF;
    fn := fn + (SELECT count(*) FROM generate_series(1, 200) x WHERE NOT f @> x);
    sat := greatest(sat, (cbloom_info(f)).counters_saturated);
  END LOOP;
  RETURN QUERY SELECT 80 * 200::bigint, fn, sat, f @> 1000;
END $$;
SELECT bits, r.* FROM (VALUES (4), (8)) v(bits), pg_temp.sat_run(bits) r ORDER BY bits;

-- ---------------------------------------------------------------------------
-- Churn in a stored column: one cbloom (capacity 3000, fpr 0.01) updated by
-- 8160 UPDATEs that add a key and 5000 that remove one, interleaved: key i
-- is added at step i (1..8000), keys i = 7 mod 50 once more at step i + 500,
-- and key j with j mod 8 < 5 is removed once at step j + 1000.  At the end
-- 3080 keys are held (the 3000 never removed, 80 of them added twice, and 80
-- added twice and removed once) and 4920 were removed.  The steps run in chunks of 1000, each
-- a transaction, with a VACUUM after each so that the dead versions of the
-- 14 kB filter do not pile up.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE churn (id integer PRIMARY KEY, f cbloom);
INSERT INTO churn VALUES (1, cbloom_empty(3000, 0.01));
CREATE TEMP TABLE churn_log (op text, updates bigint);
CREATE PROCEDURE pg_temp.churn_steps(lo integer, hi integer) LANGUAGE plpgsql AS $$
DECLARE
  i integer;
  j integer;
  n bigint;
  adds bigint := 0;
  removes bigint := 0;
BEGIN
  FOR i IN lo..hi LOOP
    IF i <= 8000 THEN
      UPDATE churn SET f = cbloom_add(f, i::bigint) WHERE id = 1;
      GET DIAGNOSTICS n = ROW_COUNT;
      adds := adds + n;
    END IF;
    j := i - 500;
    IF j BETWEEN 1 AND 8000 AND j % 50 = 7 THEN
      UPDATE churn SET f = cbloom_add(f, j::bigint) WHERE id = 1;
      GET DIAGNOSTICS n = ROW_COUNT;
      adds := adds + n;
    END IF;
    j := i - 1000;
    IF j BETWEEN 1 AND 8000 AND j % 8 < 5 THEN
      UPDATE churn SET f = cbloom_remove(f, j::bigint) WHERE id = 1;
      GET DIAGNOSTICS n = ROW_COUNT;
      removes := removes + n;
    END IF;
  END LOOP;
  INSERT INTO churn_log VALUES ('add', adds), ('remove', removes);
END $$;
SELECT stmt FROM generate_series(1, 9000, 1000) lo,
       LATERAL (VALUES (1, format('CALL pg_temp.churn_steps(%s, %s)', lo, lo + 999)), (2, 'VACUUM churn')) s(o, stmt)
ORDER BY lo, o \gexec
SELECT op, sum(updates) AS updates FROM churn_log GROUP BY op ORDER BY op;
-- The truth: net count of each key 1..8000.
CREATE TEMP TABLE churn_truth AS
SELECT k, 1 + (k % 50 = 7)::integer - (k % 8 < 5)::integer AS net FROM generate_series(1::bigint, 8000) k;
SELECT count(*) FILTER (WHERE net > 0) AS present, count(*) FILTER (WHERE net = 0) AS removed,
       count(*) FILTER (WHERE net = 2) AS present_twice FROM churn_truth;
-- No false negatives, counts at least the net count, and no counter ever
-- saturated, so the churned filter is byte-identical to one built from the
-- keys it holds.
SELECT count(*) FILTER (WHERE t.net > 0 AND NOT c.f @> t.k) AS false_negatives,
       count(*) FILTER (WHERE cbloom_count(c.f, t.k) < t.net) AS counts_too_low,
       (SELECT counters_saturated FROM cbloom_info(c.f)) AS saturated,
       c.f = (SELECT cbloom_agg(t2.k, 3000, 0.01) FROM churn_truth t2, generate_series(1, 2) r WHERE r <= t2.net)
         AS equals_filter_of_held_keys
FROM churn c, churn_truth t GROUP BY c.f;
-- The false-positive rate over the removed keys and over 100,000 keys never
-- added, against (1 - e^(-kn/m))^k for the n = 3080 keys held: both within
-- [0.5x, 1.5x] of the formula.
CREATE TEMP TABLE churn_fpr AS
SELECT i.counters AS m, i.hashes AS k,
       bloom_fpr_estimate(i.counters, (SELECT count(*) FROM churn_truth WHERE net > 0), i.hashes) AS formula,
       (SELECT count(*) FILTER (WHERE c.f @> t.k)::float8 / count(*) FROM churn_truth t WHERE t.net = 0) AS removed_rate,
       (SELECT count(*) FILTER (WHERE c.f @> -y)::float8 / count(*) FROM generate_series(1::bigint, 100000) y) AS never_added_rate
FROM churn c, cbloom_info(c.f) i;
SELECT m, k, round(formula::numeric, 5) AS formula, round(removed_rate::numeric, 5) AS removed_rate,
       round(never_added_rate::numeric, 5) AS never_added_rate,
       removed_rate BETWEEN 0.5 * formula AND 1.5 * formula AS removed_within,
       never_added_rate BETWEEN 0.5 * formula AND 1.5 * formula AS never_added_within
FROM churn_fpr;
DROP TABLE churn, churn_log, churn_truth, churn_fpr;
DROP PROCEDURE pg_temp.churn_steps(integer, integer);

-- ---------------------------------------------------------------------------
-- Merges: cbloom_union and + add counter-wise, saturating at the maximum;
-- cbloom_subtract and - take a part out again
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_parts AS
SELECT g, cbloom_agg(x, 1000, 0.01) AS f
FROM generate_series(1, 3) g, generate_series(1, 300) x WHERE x % 3 = g - 1 OR x <= 30 GROUP BY g;
CREATE TEMP TABLE basic_parts_before AS SELECT g, f::text AS t FROM basic_parts;
SELECT (SELECT a.f + b.f FROM basic_parts a, basic_parts b WHERE a.g = 1 AND b.g = 2)
         = (SELECT cbloom_agg(x, 1000, 0.01) FROM generate_series(1, 3) g, generate_series(1, 300) x
            WHERE (x % 3 = g - 1 OR x <= 30) AND g IN (1, 2)) AS plus_is_filter_of_both,
       (SELECT a.f + b.f = b.f + a.f FROM basic_parts a, basic_parts b WHERE a.g = 1 AND b.g = 2) AS commutative,
       (SELECT cbloom_union(a.f, b.f) = a.f + b.f FROM basic_parts a, basic_parts b WHERE a.g = 1 AND b.g = 3) AS union_is_plus,
       (SELECT cbloom_union_agg(f) FROM basic_parts)
         = (SELECT cbloom_agg(x, 1000, 0.01) FROM generate_series(1, 3) g, generate_series(1, 300) x
            WHERE x % 3 = g - 1 OR x <= 30) AS union_agg_is_whole,
       (SELECT cbloom_union_agg(f ORDER BY g DESC) = cbloom_union_agg(f ORDER BY g) FROM basic_parts) AS order_free;
-- Counts add up: 1..30 are in all three parts, 31..300 in one.
SELECT x, cbloom_count(u, x) AS count FROM (SELECT cbloom_union_agg(f) AS u FROM basic_parts) s,
       (VALUES (1), (30), (31), (300)) v(x) ORDER BY x;
-- Merging never modifies the filters it reads.
SELECT count(*) FILTER (WHERE p.f::text = b.t) AS unchanged FROM basic_parts p JOIN basic_parts_before b USING (g);
-- Saturating: 4-bit 10 + 10 is 15, 8-bit 200 + 100 is 255; the sum stays saturated.
CREATE FUNCTION pg_temp.add_times(f cbloom, v bigint, n integer) RETURNS cbloom LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..n LOOP f := cbloom_add(f, v); END LOOP;
  RETURN f;
END $$;
SELECT cbloom_count(pg_temp.add_times(cbloom_empty(100), 5, 10) + pg_temp.add_times(cbloom_empty(100), 5, 10), 5) AS sum_4bit,
       cbloom_count(pg_temp.add_times(cbloom_empty(100, 0.01, 8), 5, 200) + pg_temp.add_times(cbloom_empty(100, 0.01, 8), 5, 100), 5) AS sum_8bit,
       (cbloom_info(pg_temp.add_times(cbloom_empty(100), 5, 10) + pg_temp.add_times(cbloom_empty(100), 5, 10))).counters_saturated AS saturated_4bit,
       (pg_temp.add_times(cbloom_empty(100), 5, 10) + pg_temp.add_times(cbloom_empty(100), 5, 10))
         = pg_temp.add_times(cbloom_empty(100), 5, 20) AS same_as_20_adds;
-- An empty filter (family none) merges with any family; NULLs are skipped by
-- cbloom_union_agg, and a group of NULLs gives NULL; + is strict.
SELECT cbloom_empty(1000) + f = f AS empty_merges, f + cbloom_empty(1000) = f AS empty_merges_right,
       (cbloom_info(cbloom_empty(1000) + f)).key_family
FROM basic_parts WHERE g = 1;
SELECT cbloom_union_agg(f) = (SELECT f FROM basic_parts WHERE g = 2) AS nulls_skipped
FROM (SELECT f FROM basic_parts WHERE g = 2 UNION ALL SELECT NULL) s;
SELECT cbloom_union_agg(f) IS NULL AS all_null FROM (SELECT NULL::cbloom AS f FROM generate_series(1, 3)) s;
SELECT (f + NULL) IS NULL AS plus_null, cbloom_union(NULL, f) IS NULL AS union_null FROM basic_parts WHERE g = 1;
-- Shapes must match (22023, naming both shapes), and families (42804).
SELECT f + cbloom_empty(1001) FROM basic_parts WHERE g = 1;
\echo SQLSTATE :SQLSTATE
SELECT f + cbloom_empty(1000, 0.01, 8) FROM basic_parts WHERE g = 1;
\echo SQLSTATE :SQLSTATE
SELECT f + cbloom_empty(1000, 0.02) FROM basic_parts WHERE g = 1;
\echo SQLSTATE :SQLSTATE
SELECT f + set_byte(cbloom_empty(1000)::bytea, 8, 1)::cbloom FROM basic_parts WHERE g = 1;
\echo SQLSTATE :SQLSTATE
SELECT f + cbloom_add(cbloom_empty(1000), 'x') FROM basic_parts WHERE g = 1;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_union_agg(f) FROM (SELECT f FROM basic_parts UNION ALL SELECT cbloom_empty(10)) s;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_union_agg(f) FROM (SELECT f FROM basic_parts UNION ALL SELECT cbloom_add(cbloom_empty(1000), 1.5)) s;
\echo SQLSTATE :SQLSTATE
-- Removing after merging: the parts' values can be taken out of the sum.
CREATE FUNCTION pg_temp.remove_all(f cbloom, vals bigint[]) RETURNS cbloom LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  FOREACH v IN ARRAY vals LOOP f := cbloom_remove(f, v); END LOOP;
  RETURN f;
END $$;
SELECT pg_temp.remove_all(u, (SELECT array_agg(x) FROM generate_series(1, 300) x WHERE x % 3 = 0 OR x <= 30))
         = (SELECT a.f + b.f FROM basic_parts a, basic_parts b WHERE a.g = 2 AND b.g = 3) AS sum_minus_part_1
FROM (SELECT cbloom_union_agg(f) AS u FROM basic_parts) s;
-- ... or subtracted as a whole: cbloom_subtract and -, the same as removing
-- each of the part's values.
CREATE TEMP TABLE basic_sum AS SELECT cbloom_union_agg(f) AS u FROM basic_parts;
SELECT u - p1.f = p2.f + p3.f AS minus_part_1,
       u - p1.f = pg_temp.remove_all(u, (SELECT array_agg(x) FROM generate_series(1, 300) x WHERE x % 3 = 0 OR x <= 30))
         AS minus_is_removals,
       cbloom_subtract(u, p1.f) = u - p1.f AS function_form,
       (p1.f + p2.f) - p2.f = p1.f AS plus_then_minus,
       u - p1.f - p2.f - p3.f = cbloom_remove(cbloom_add(cbloom_empty(1000), 1), 1) AS all_parts_out,
       (cbloom_info(p1.f - p1.f)).counters_zero = (cbloom_info(p1.f)).counters AS self_minus_self_zero,
       (cbloom_info(p1.f - p1.f)).key_family AS family_kept,
       u - cbloom_empty(1000) = u AS minus_empty,
       cbloom_count(u - p1.f, 1) AS count_1, cbloom_count(u - p1.f, 31) AS count_31
FROM basic_sum, basic_parts p1, basic_parts p2, basic_parts p3 WHERE p1.g = 1 AND p2.g = 2 AND p3.g = 3;
-- Saturated counters stay: 4-bit 20 - 5 is still 15 (saturated), 8-bit
-- 20 - 5 is 15; unsaturated 4-bit 10 - 4 is 6; a saturated counter minus a
-- saturated one stays saturated.
SELECT cbloom_count(pg_temp.add_times(cbloom_empty(100), 5, 20) - pg_temp.add_times(cbloom_empty(100), 5, 5), 5) AS sat_4bit,
       cbloom_count(pg_temp.add_times(cbloom_empty(100, 0.01, 8), 5, 20) - pg_temp.add_times(cbloom_empty(100, 0.01, 8), 5, 5), 5) AS exact_8bit,
       cbloom_count(pg_temp.add_times(cbloom_empty(100), 5, 10) - pg_temp.add_times(cbloom_empty(100), 5, 4), 5) AS unsat_4bit,
       cbloom_count(pg_temp.add_times(cbloom_empty(100), 5, 20) - pg_temp.add_times(cbloom_empty(100), 5, 30), 5) AS sat_minus_sat;
-- Subtracting values the first filter certainly does not hold is an ERROR
-- (22023): a part never added, or more of a value than was added (14 - 15
-- with 4-bit counters: 15 might be more than 14).
SELECT p1.f - p2.f FROM basic_parts p1, basic_parts p2 WHERE p1.g = 1 AND p2.g = 2;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.add_times(cbloom_empty(100), 5, 14) - pg_temp.add_times(cbloom_empty(100), 5, 15);
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.add_times(cbloom_empty(100, 0.01, 8), 5, 2) - pg_temp.add_times(cbloom_empty(100, 0.01, 8), 5, 3);
\echo SQLSTATE :SQLSTATE
-- Shapes and families as for + (only the SQLSTATEs are shown: the messages
-- are those of +, "cannot merge"); - is strict.
\set VERBOSITY sqlstate
SELECT u - cbloom_empty(1001) FROM basic_sum;
SELECT u - cbloom_empty(1000, 0.01, 8) FROM basic_sum;
SELECT u - cbloom_remove(cbloom_add(cbloom_empty(1000), 'x'), 'x') FROM basic_sum;
\set VERBOSITY default
SELECT (u - NULL) IS NULL AS minus_null, cbloom_subtract(NULL, u) IS NULL AS subtract_null FROM basic_sum;
-- Merging and subtracting never modify the filters they read.
SELECT count(*) FILTER (WHERE p.f::text = b.t) AS unchanged FROM basic_parts p JOIN basic_parts_before b USING (g);
DROP TABLE basic_parts, basic_parts_before, basic_sum;

-- ---------------------------------------------------------------------------
-- The cast to bloom: the bit view, byte-identical to the bloom filter of the
-- same values, and mergeable with bloom filters
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_cast AS
SELECT cbloom_agg(x, 2000, 0.01) AS c4,
       (SELECT cbloom_union_agg(cbloom_add(cbloom_empty(2000, 0.01, 8), y)) FROM generate_series(1, 1000) y) AS c8,
       bloom_union_agg(bloom_add(bloom_empty(2000, 0.01), x)) AS b
FROM generate_series(1, 1000) x;
SELECT c4::bloom = b AS cast_4bit, c8::bloom = b AS cast_8bit,
       c4::bloom = (SELECT bloom_agg(x, 2000, 0.01) FROM generate_series(1, 1000) x) AS cast_eq_bloom_agg,
       cbloom_to_bloom(c4) = b AS function_form, (bloom_info(c4::bloom)).key_family,
       cbloom_empty(2000)::bloom = bloom_empty(2000) AS empty_cast,
       cbloom_empty(3, 0.5, 8)::bloom = bloom_empty(3, 0.5) AS empty_cast_8bit
FROM basic_cast;
-- OR-merge with a bloom of the same shape: the bloom of the union of the values.
SELECT c4::bloom | (SELECT bloom_agg(y, 2000, 0.01) FROM generate_series(1001, 1500) y)
         = (SELECT bloom_agg(y, 2000, 0.01) FROM generate_series(1, 1500) y) AS or_merge,
       (c4::bloom | (SELECT bloom_agg(y, 2000, 0.01) FROM generate_series(1001, 1500) y)) @> 1500 AS has_1500,
       c4::bloom & (SELECT bloom_agg(y, 2000, 0.01) FROM generate_series(1, 1500) y) = c4::bloom AS and_merge
FROM basic_cast;
-- (a bloom of another shape does not merge; only the SQLSTATE is shown, as
-- the hint of this bloom error is cut off at 255 bytes)
\set VERBOSITY sqlstate
SELECT c4::bloom | bloom_empty(1000) FROM basic_cast;
\set VERBOSITY default
-- After removals the bit view drops the removed keys: it is the bloom of
-- the values left.
SELECT pg_temp.remove_all(c4, (SELECT array_agg(y) FROM generate_series(1, 1000) y WHERE y % 2 = 0))::bloom
         = (SELECT bloom_agg(y, 2000, 0.01) FROM generate_series(1, 1000) y WHERE y % 2 = 1) AS removed_4bit,
       pg_temp.remove_all(c8, (SELECT array_agg(y) FROM generate_series(1, 1000) y WHERE y % 2 = 0))::bloom
         = (SELECT bloom_agg(y, 2000, 0.01) FROM generate_series(1, 1000) y WHERE y % 2 = 1) AS removed_8bit,
       (SELECT count(*) FROM generate_series(1, 1000) y
        WHERE y % 2 = 0 AND pg_temp.remove_all(c4, (SELECT array_agg(z) FROM generate_series(1, 1000) z WHERE z % 2 = 0))::bloom @> y)
         AS removed_still_found
FROM basic_cast;
SELECT NULL::cbloom::bloom IS NULL AS strict;
DROP TABLE basic_cast;

-- ---------------------------------------------------------------------------
-- cbloom_info
-- ---------------------------------------------------------------------------
-- 1000 values, one of them 20 times, in a 4-bit filter for 1000 at 1%: the
-- fill and the estimates are the bit view's (bloom_info of the cast).
CREATE TEMP TABLE basic_info AS
SELECT pg_temp.add_times(cbloom_agg(x, 1000, 0.01), 1, 19) AS f FROM generate_series(1, 1000) x;
SELECT i.counters, i.hashes, i.counter_bits, i.counters_zero, i.counters_saturated > 0 AS some_saturated,
       round(i.fill_ratio::numeric, 4) AS fill_ratio, round(i.estimated_cardinality) AS estimated_cardinality,
       round(i.estimated_fpr::numeric, 4) AS estimated_fpr, i.bytes, i.key_family, i.format_version,
       i.hash_algorithm, i.seed, i.counter_max
FROM basic_info, cbloom_info(f) i;
SELECT i.counters - i.counters_zero = b.bits_set AS nonzero_is_bits_set, i.fill_ratio = b.fill_ratio AS fill_ratio,
       i.estimated_cardinality = b.estimated_cardinality AS cardinality, i.estimated_fpr = b.estimated_fpr AS fpr,
       abs(i.estimated_cardinality - 1000) < 50 AS cardinality_within_5pct,
       i.bytes = length(f::bytea) + 4 AS bytes_is_the_size
FROM basic_info, cbloom_info(f) i, bloom_info(f::bloom) b;
-- The counters are the ones in the format bytes: count zero and saturated nibbles.
SELECT count(*) FILTER (WHERE v = 0) = (cbloom_info(f)).counters_zero AS zero_ok,
       count(*) FILTER (WHERE v = 15) = (cbloom_info(f)).counters_saturated AS saturated_ok,
       sum(v) AS sum_of_counters
FROM basic_info, LATERAL (SELECT (get_byte(f::bytea, 48 + j / 2) >> (4 * (j % 2))) & 15 AS v
                          FROM generate_series(0, (cbloom_info(f)).counters::integer - 1) j) c
GROUP BY f;
DROP TABLE basic_info;

-- ---------------------------------------------------------------------------
-- Equality and hashing: =, <>, GROUP BY, DISTINCT, hash joins
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_eq AS
SELECT x, cbloom_add(cbloom_empty(100), x % 3) AS f FROM generate_series(1, 30) x;
SELECT cbloom_count(f, 0) AS c0, cbloom_count(f, 1) AS c1, cbloom_count(f, 2) AS c2, count(*)
FROM basic_eq GROUP BY f ORDER BY 1, 2, 3;
SET enable_sort = off;
SELECT count(*) AS distinct_filters FROM (SELECT DISTINCT f FROM basic_eq) s;
RESET enable_sort;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM basic_eq a JOIN basic_eq b ON a.f = b.f;
SELECT count(*) AS pairs FROM basic_eq a JOIN basic_eq b ON a.f = b.f;
RESET enable_nestloop;
SELECT count(*) FILTER (WHERE a.f = b.f) AS eq, count(*) FILTER (WHERE a.f <> b.f) AS ne,
       count(*) FILTER (WHERE cbloom_eq(a.f, b.f) <> (a.x % 3 = b.x % 3)) AS eq_wrong,
       count(*) FILTER (WHERE cbloom_ne(a.f, b.f) = (a.f = b.f)) AS ne_wrong,
       count(*) FILTER (WHERE a.f = b.f AND cbloom_hash(a.f) <> cbloom_hash(b.f)) AS hash_differs_for_equal
FROM basic_eq a, basic_eq b;
-- Equal counters with another family, width or seed are different filters.
SELECT cbloom_empty(100) = cbloom_remove(cbloom_add(cbloom_empty(100), 1), 1) AS family_matters,
       cbloom_empty(100) = set_byte(cbloom_empty(100)::bytea, 8, 1)::cbloom AS seed_matters,
       (NULL::cbloom = cbloom_empty(100)) IS NULL AS strict;
DROP TABLE basic_eq;

-- ---------------------------------------------------------------------------
-- Stored filters: out of line (TOAST) and compressed values, a different
-- filter on every row
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_toast AS
SELECT g, cbloom_agg(x, 10000, 0.01) AS f
FROM generate_series(1, 3) g, generate_series(g * 100000, g * 100000 + 999) x GROUP BY g;
SELECT t.g AS filter, k.g AS keys_of, count(*) FILTER (WHERE t.f @> x) AS found,
       count(*) FILTER (WHERE cbloom_count(t.f, x) = 1) AS counted_once
FROM basic_toast t, basic_toast k, generate_series(k.g * 100000, k.g * 100000 + 999) x
GROUP BY 1, 2 ORDER BY 1, 2;
UPDATE basic_toast SET f = cbloom_remove(cbloom_add(f, -1), g * 100000) WHERE g <= 2;
SELECT g, f @> -1 AS has_minus_1, f @> (g * 100000) AS has_first, f @> (g * 100000 + 1) AS has_second
FROM basic_toast ORDER BY g;
ALTER TABLE basic_toast ALTER f SET STORAGE extended;
INSERT INTO basic_toast SELECT g + 10, cbloom_add(f, 5) FROM basic_toast;
SELECT g, pg_column_size(f) < (cbloom_info(f)).bytes AS compressed, f @> 5 AS has_5,
       cbloom_remove(f, 5) = (SELECT f FROM basic_toast b WHERE b.g = a.g - 10) AS remove_undoes_add,
       f::text::cbloom = f AS round_trip
FROM basic_toast a WHERE g > 10 ORDER BY g;
DROP TABLE basic_toast;
-- Small filters are stored with a short (1-byte) length word: they read,
-- merge, compare and hash the same as the values computed in memory.
CREATE TEMP TABLE basic_small AS SELECT g, cbloom_add(cbloom_empty(1, 0.5), g) AS f FROM generate_series(1, 100) g;
SELECT pg_column_size(f) AS stored_size, (cbloom_info(f)).bytes, count(*) FROM basic_small GROUP BY 1, 2;
SELECT cbloom_union_agg(f) = (SELECT cbloom_agg(g, 1, 0.5) FROM basic_small) AS union_agg,
       cbloom_count(cbloom_union_agg(f), 1) AS count_1, cbloom_count(cbloom_union_agg(f), 2) AS count_2
FROM basic_small;
SELECT count(*) FILTER (WHERE s.f + s.f = cbloom_add(cbloom_add(cbloom_empty(1, 0.5), s.g), s.g)) AS plus_ok,
       count(*) FILTER (WHERE cbloom_remove(s.f, s.g) = cbloom_remove(cbloom_add(cbloom_empty(1, 0.5), 1), 1)) AS remove_ok,
       count(*) FILTER (WHERE (s.f + s.f) - s.f = s.f) AS minus_ok
FROM basic_small s;
SET enable_nestloop = off;
SET enable_mergejoin = off;
SELECT count(*) AS hash_join_pairs FROM basic_small s JOIN (SELECT g, cbloom_add(cbloom_empty(1, 0.5), g) AS f
                                                            FROM generate_series(1, 100) g) c ON s.f = c.f;
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT count(*) FILTER (WHERE s.f = c.f) AS nested_loop_pairs
FROM basic_small s, (SELECT g, cbloom_add(cbloom_empty(1, 0.5), g) AS f FROM generate_series(1, 100) g) c;
DROP TABLE basic_small;

RESET max_parallel_workers_per_gather;
