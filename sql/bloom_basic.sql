--
-- bloom_basic: empty filters, bloom_add, lookups (bloom_contains, @>, <@),
-- canonical keys of every key type, key families, bloomsketch_hash.
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
-- Empty filters and their shapes
-- ---------------------------------------------------------------------------
-- bloom_empty(n, p): m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2); 48-byte
-- header + ceil(m/8) payload bytes + the 4-byte varlena header.
SELECT bits, hashes, bits_set, fill_ratio, estimated_cardinality, estimated_fpr,
       bytes, key_family, format_version, hash_algorithm, seed
FROM bloom_info(bloom_empty(1000));
SELECT bits, hashes, bytes, key_family FROM bloom_info(bloom_empty(1000, 0.01));
SELECT bits, hashes, bytes FROM bloom_info(bloom_empty(1000, 0.001));
SELECT bits, hashes, bytes FROM bloom_info(bloom_empty(1, 0.5));
SELECT bits, hashes, bytes FROM bloom_info(bloom_empty(100000, 0.05));
-- bloom_empty_bits(m, k): exactly that shape; m need not be a multiple of 8.
SELECT bits, hashes, bits_set, bytes, key_family FROM bloom_info(bloom_empty_bits(100, 3));
SELECT bits, hashes, bytes FROM bloom_info(bloom_empty_bits(1, 1));
SELECT bits, hashes, bytes FROM bloom_info(bloom_empty_bits(64, 64));
-- The format bytes of a small empty filter: magic "BSKT", version 1, kind 1
-- (bloom), hash algorithm 1 (xxh3_64), family 0 (none), seed 0, m = 10,
-- k = 1, reserved zeros, then 2 payload bytes.
SELECT bloom_empty_bits(10, 1);
-- Empty filters contain nothing and estimate nothing.
SELECT bloom_empty(100) @> 1 AS has_int, bloom_empty(100) @> 'a'::text AS has_text,
       bloom_cardinality(bloom_empty(100)) AS cardinality, bloom_fpr(bloom_empty(100)) AS fpr;
-- NULL arguments of the strict constructors.
SELECT bloom_empty(NULL) IS NULL AS a, bloom_empty(10, NULL) IS NULL AS b,
       bloom_empty_bits(NULL, 1) IS NULL AS c, bloom_empty_bits(8, NULL) IS NULL AS d;

-- ---------------------------------------------------------------------------
-- bloom_add returns a new value and leaves its input alone
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_f (id integer, f bloom);
INSERT INTO basic_f VALUES (1, bloom_empty(100));
CREATE TEMP TABLE basic_f_before AS SELECT id, f::text AS t FROM basic_f;
SELECT bloom_add(f, 42) @> 42 AS added_has_42,
       f @> 42 AS input_has_42,
       bloom_add(f, 42) = f AS same,
       (bloom_info(bloom_add(f, 42))).bits_set AS bits_set_after,
       (bloom_info(f)).bits_set AS bits_set_input
FROM basic_f;
SELECT b.f::text = a.t AS input_unchanged FROM basic_f b JOIN basic_f_before a USING (id);
-- Adding twice is idempotent.
SELECT bloom_add(bloom_add(f, 42), 42) = bloom_add(f, 42) AS idempotent FROM basic_f;
-- Incremental maintenance of a stored filter.
UPDATE basic_f SET f = bloom_add(f, 7);
UPDATE basic_f SET f = bloom_add(f, 8);
SELECT f @> 7 AS has_7, f @> 8 AS has_8, 7 <@ f AS has_7_commuted,
       (bloom_info(f)).key_family
FROM basic_f;
-- A NULL value returns the filter unchanged (it never turns it into NULL),
-- whatever the type of the NULL; the family stays what it was.
SELECT bloom_add(f, NULL::integer) = f AS null_int,
       bloom_add(f, NULL::text) = f AS null_text,
       bloom_add(f, NULL) = f AS null_unknown,
       bloom_add(f, NULL::uuid) = f AS null_uuid_other_family
FROM basic_f;
SELECT key_family FROM bloom_info(bloom_add(bloom_empty(10), NULL::integer));
UPDATE basic_f SET f = bloom_add(f, NULL::bigint);
SELECT f IS NOT NULL AS still_there, f @> 7 AS has_7 FROM basic_f;
-- A NULL filter gives NULL.
SELECT bloom_add(NULL::bloom, 1) IS NULL AS a, bloom_add(NULL, 'x') IS NULL AS b,
       bloom_add(NULL::bloom, NULL::integer) IS NULL AS c;
-- Lookups are strict.
SELECT bloom_contains(NULL, 1) IS NULL AS a, (NULL::bloom @> 1) IS NULL AS b,
       (bloom_empty(10) @> NULL::integer) IS NULL AS c, (NULL::integer <@ bloom_empty(10)) IS NULL AS d;
DROP TABLE basic_f, basic_f_before;

-- ---------------------------------------------------------------------------
-- bloom_contains, bloom_contained, @> and <@ agree
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_ints AS
SELECT bloom_add(bloom_add(bloom_add(bloom_empty(100), 1), 2), 3) AS f;
SELECT x, bloom_contains(f, x) AS contains, bloom_contained(x, f) AS contained,
       f @> x AS op_contains, x <@ f AS op_contained
FROM basic_ints, generate_series(0, 5) x ORDER BY x;
DROP TABLE basic_ints;

-- ---------------------------------------------------------------------------
-- Every key type: what was added is found; another value is not
-- (each filter has 10000 capacity and 1 or 2 values, so no false positives)
-- ---------------------------------------------------------------------------
\set e 'bloom_empty(10000)'
SELECT 'smallint' AS type,
       bloom_add(:e, 7::smallint) @> 7::smallint AS found,
       bloom_add(:e, 7::smallint) @> 8::smallint AS other,
       (bloom_info(bloom_add(:e, 7::smallint))).key_family
UNION ALL
SELECT 'integer', bloom_add(:e, -2147483648) @> -2147483648, bloom_add(:e, -2147483648) @> 2147483647,
       (bloom_info(bloom_add(:e, 1))).key_family
UNION ALL
SELECT 'bigint', bloom_add(:e, 9223372036854775807) @> 9223372036854775807,
       bloom_add(:e, 9223372036854775807) @> 9223372036854775806,
       (bloom_info(bloom_add(:e, 1::bigint))).key_family
UNION ALL
SELECT 'text', bloom_add(:e, 'hello'::text) @> 'hello'::text, bloom_add(:e, 'hello'::text) @> 'Hello'::text,
       (bloom_info(bloom_add(:e, 'hello'::text))).key_family
UNION ALL
SELECT 'varchar', bloom_add(:e, 'hello'::varchar(10)) @> 'hello'::varchar, bloom_add(:e, 'hello'::varchar) @> 'hell'::varchar,
       (bloom_info(bloom_add(:e, 'hello'::varchar))).key_family
UNION ALL
SELECT 'char(n)', bloom_add(:e, 'ab'::char(5)) @> 'ab   '::char(5), bloom_add(:e, 'ab'::char(5)) @> 'abc'::char(5),
       (bloom_info(bloom_add(:e, 'ab'::char(5)))).key_family
UNION ALL
SELECT 'name', bloom_add(:e, 'pg_class'::name) @> 'pg_class'::name, bloom_add(:e, 'pg_class'::name) @> 'pg_proc'::name,
       (bloom_info(bloom_add(:e, 'x'::name))).key_family
UNION ALL
SELECT 'bytea', bloom_add(:e, '\x00ff'::bytea) @> '\x00ff'::bytea, bloom_add(:e, '\x00ff'::bytea) @> '\x00fe'::bytea,
       (bloom_info(bloom_add(:e, '\x'::bytea))).key_family
UNION ALL
SELECT 'uuid', bloom_add(:e, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) @> 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid,
       bloom_add(:e, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid) @> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'::uuid,
       (bloom_info(bloom_add(:e, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid))).key_family
UNION ALL
SELECT 'real', bloom_add(:e, 1.5::real) @> 1.5::real, bloom_add(:e, 1.5::real) @> 2.5::real,
       (bloom_info(bloom_add(:e, 1.5::real))).key_family
UNION ALL
SELECT 'double precision', bloom_add(:e, 1e300::float8) @> 1e300::float8, bloom_add(:e, 1e300::float8) @> 1e299::float8,
       (bloom_info(bloom_add(:e, 1::float8))).key_family
UNION ALL
SELECT 'numeric', bloom_add(:e, 12345678901234567890.123::numeric) @> 12345678901234567890.1230::numeric,
       bloom_add(:e, 12345678901234567890.123::numeric) @> 12345678901234567890.124::numeric,
       (bloom_info(bloom_add(:e, 1::numeric))).key_family
UNION ALL
SELECT 'date', bloom_add(:e, '2024-02-29'::date) @> '2024-02-29'::date, bloom_add(:e, '2024-02-29'::date) @> '2024-03-01'::date,
       (bloom_info(bloom_add(:e, '2024-02-29'::date))).key_family
UNION ALL
SELECT 'timestamp', bloom_add(:e, '2024-01-01 10:00:00.000001'::timestamp) @> '2024-01-01 10:00:00.000001'::timestamp,
       bloom_add(:e, '2024-01-01 10:00:00.000001'::timestamp) @> '2024-01-01 10:00:00'::timestamp,
       (bloom_info(bloom_add(:e, now()::timestamp))).key_family
UNION ALL
SELECT 'timestamptz', bloom_add(:e, '2024-01-01 10:00:00+00'::timestamptz) @> '2024-01-01 12:00:00+02'::timestamptz,
       bloom_add(:e, '2024-01-01 10:00:00+00'::timestamptz) @> '2024-01-01 10:00:00+02'::timestamptz,
       (bloom_info(bloom_add(:e, now()))).key_family;

-- Canonical forms within a type.
-- char(n): trailing blanks are not part of the key, as for bpchar equality.
SELECT bloom_add(:e, 'a  '::char(3)) @> 'a'::char(1) AS char_trimmed,
       bloom_add(:e, 'a'::char(1)) @> 'a    '::char(5) AS char_padded,
       bloom_add(:e, ' a'::char(2)) @> 'a'::char(2) AS leading_blank_matters;
-- text and varchar keep trailing blanks ('a ' <> 'a' for text).
SELECT bloom_add(:e, 'a '::text) @> 'a'::text AS text_blank,
       bloom_add(:e, 'a '::varchar) @> 'a '::text AS varchar_blank_text;
-- double precision: 0.0 and -0.0 are one key, every NaN is one key.
SELECT bloom_add(:e, 0.0::float8) @> (-0.0)::float8 AS zero_negzero,
       bloom_add(:e, (-0.0)::float8) @> 0.0::float8 AS negzero_zero,
       bloom_add(:e, 'NaN'::float8) @> 'NaN'::float8 AS nan,
       bloom_add(:e, ('Infinity'::float8 - 'Infinity'::float8)) @> 'NaN'::float8 AS computed_nan,
       bloom_add(:e, 'Infinity'::float8) @> 'Infinity'::float8 AS inf,
       bloom_add(:e, 'Infinity'::float8) @> '-Infinity'::float8 AS inf_neginf;
-- real is widened to double precision: equal values match across the two.
SELECT bloom_add(:e, 1.5::real) @> 1.5::float8 AS real_float8,
       bloom_add(:e, 'NaN'::real) @> 'NaN'::float8 AS real_nan,
       bloom_add(:e, (-0.0)::real) @> 0.0::float8 AS real_negzero,
       bloom_add(:e, 0.1::real) @> 0.1::float8 AS real_0_1_vs_float8,
       0.1::real = 0.1::float8 AS sql_equal_too;
-- numeric: the value, not its display scale; -0 is 0; NaN and infinities.
SELECT bloom_add(:e, 1.5::numeric) @> 1.50::numeric AS scale,
       bloom_add(:e, 1.50::numeric) @> 1.5::numeric AS scale_back,
       bloom_add(:e, '-0'::numeric) @> 0::numeric AS negzero,
       bloom_add(:e, 0.000::numeric) @> 0::numeric AS zero_scale,
       bloom_add(:e, 100::numeric) @> 1e2::numeric AS exponent,
       bloom_add(:e, 100::numeric) @> 100.00::numeric AS int_scale,
       bloom_add(:e, 'NaN'::numeric) @> 'NaN'::numeric AS nan,
       bloom_add(:e, 'Infinity'::numeric) @> 'Infinity'::numeric AS inf;
-- ... but different numbers stay different.
SELECT bloom_add(:e, 100::numeric) @> 1::numeric AS "100_vs_1",
       bloom_add(:e, 100::numeric) @> 10::numeric AS "100_vs_10",
       bloom_add(:e, 1.05::numeric) @> 1.5::numeric AS "1.05_vs_1.5",
       bloom_add(:e, -1::numeric) @> 1::numeric AS "-1_vs_1",
       bloom_add(:e, 'Infinity'::numeric) @> '-Infinity'::numeric AS inf_neginf;
-- timestamptz keys are instants: the session time zone does not matter.
SET TimeZone = 'America/New_York';
CREATE TEMP TABLE basic_tz AS SELECT bloom_add(:e, '2024-06-01 12:00:00'::timestamptz) AS f;
SET TimeZone = 'Asia/Tokyo';
SELECT f @> '2024-06-01 12:00:00-04'::timestamptz AS same_instant,
       f @> '2024-06-01 12:00:00'::timestamptz AS same_wall_clock_other_zone
FROM basic_tz;
RESET TimeZone;
DROP TABLE basic_tz;
-- Domains use their base type.
CREATE DOMAIN basic_posint AS integer CHECK (VALUE > 0);
CREATE DOMAIN basic_label AS text;
SELECT bloom_add(:e, 5::basic_posint) @> 5::bigint AS int_domain,
       bloom_add(:e, 'x'::basic_label) @> 'x'::varchar AS text_domain,
       (bloom_info(bloom_add(:e, 5::basic_posint))).key_family;
DROP DOMAIN basic_posint;
DROP DOMAIN basic_label;

-- ---------------------------------------------------------------------------
-- Equal values of different types of one family are one key
-- ---------------------------------------------------------------------------
SELECT bloom_add(:e, 42::smallint) @> 42::bigint AS int2_int8,
       bloom_add(:e, 42::smallint) @> 42::integer AS int2_int4,
       bloom_add(:e, 42::bigint) @> 42::smallint AS int8_int2,
       bloom_add(:e, 42) @> 42::bigint AS int4_int8,
       bloom_add(:e, -1::smallint) @> -1::bigint AS negative;
SELECT bloom_add(:e, 'a'::varchar) @> 'a'::text AS varchar_text,
       bloom_add(:e, 'a'::varchar) @> 'a  '::char(3) AS varchar_char,
       bloom_add(:e, 'a'::varchar) @> 'a'::name AS varchar_name,
       bloom_add(:e, 'a'::varchar) @> 'a' AS varchar_unknown,
       bloom_add(:e, 'a  '::char(3)) @> 'a'::text AS char_text,
       bloom_add(:e, 'a'::name) @> 'a'::varchar AS name_varchar;
-- Filters built from different types of one family are byte-identical.
SELECT bloom_add(:e, 42::smallint) = bloom_add(:e, 42::bigint) AS int2_eq_int8,
       bloom_add(:e, 'abc'::varchar) = bloom_add(:e, 'abc  '::char(5)) AS varchar_eq_char,
       bloom_add(:e, 'abc'::name) = bloom_add(:e, 'abc') AS name_eq_unknown,
       bloom_add(:e, 2.5::real) = bloom_add(:e, 2.5::float8) AS real_eq_float8;

-- ---------------------------------------------------------------------------
-- Unknown literals resolve to text
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_txt AS SELECT bloom_add(bloom_add(:e, 'abc'), 'déjà vu') AS f;
SELECT f @> 'abc' AS a, 'abc' <@ f AS b, bloom_contains(f, 'abc') AS c,
       bloom_contained('abc', f) AS d, f @> 'déjà vu' AS utf8, f @> 'abd' AS other,
       (bloom_info(f)).key_family
FROM basic_txt;
DROP TABLE basic_txt;

-- ---------------------------------------------------------------------------
-- A key of another family is an ERROR naming both families, never false
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE basic_fam AS
SELECT bloom_add(:e, 42) AS fi, bloom_add(:e, 'abc'::text) AS ft,
       bloom_add(:e, '2024-01-01'::date) AS fd;
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
SELECT fi @> 42::float8 FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT fd @> '2024-01-01 00:00'::timestamp FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT bloom_add(fi, 'abc'::varchar) FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT bloom_add(ft, '\x01'::bytea) FROM basic_fam;
\echo SQLSTATE :SQLSTATE
SELECT bloom_contained('2024-01-01 00:00+00'::timestamptz, fd) FROM basic_fam;
\echo SQLSTATE :SQLSTATE
-- The same error from a DO block that catches it.
DO $$
BEGIN
  PERFORM bloom_add(bloom_empty(10), 42) @> 'x'::text;
  RAISE NOTICE 'no error';
EXCEPTION WHEN datatype_mismatch THEN
  RAISE NOTICE 'caught %: %', SQLSTATE, SQLERRM;
END $$;
DROP TABLE basic_fam;

-- ---------------------------------------------------------------------------
-- Unsupported key types: an ERROR with a hint
-- ---------------------------------------------------------------------------
SELECT bloom_add(bloom_empty(10), true);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10) @> true;
\echo SQLSTATE :SQLSTATE
SELECT bloom_add(bloom_empty(10), ARRAY[1, 2]);
\echo SQLSTATE :SQLSTATE
SELECT bloom_add(bloom_empty(10), '10.0.0.1'::inet);
\echo SQLSTATE :SQLSTATE
SELECT bloomsketch_hash(true);
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- bloomsketch_hash: the documented canonical 64-bit hash (XXH3-64, seed 0)
-- ---------------------------------------------------------------------------
SELECT bloomsketch_hash(42) AS int_42, bloomsketch_hash('abc') AS text_abc;
SELECT bloomsketch_hash(42::smallint) = bloomsketch_hash(42) AS int2_int4,
       bloomsketch_hash(42::bigint) = bloomsketch_hash(42) AS int8_int4,
       bloomsketch_hash(-3::smallint) = bloomsketch_hash(-3::bigint) AS negative,
       bloomsketch_hash('abc'::varchar) = bloomsketch_hash('abc'::text) AS varchar_text,
       bloomsketch_hash('abc'::name) = bloomsketch_hash('abc'::text) AS name_text,
       bloomsketch_hash('abc  '::char(5)) = bloomsketch_hash('abc'::text) AS char_text,
       bloomsketch_hash(1.50::numeric) = bloomsketch_hash(1.5::numeric) AS numeric_scale,
       bloomsketch_hash((-0.0)::float8) = bloomsketch_hash(0.0::float8) AS float_zero,
       bloomsketch_hash(2.5::real) = bloomsketch_hash(2.5::float8) AS real_float8;
-- The hash is of the canonical bytes alone: a text and a bytea with the same
-- bytes hash equal (the family in the sketch header keeps them apart).
SELECT bloomsketch_hash('abc'::text) = bloomsketch_hash('\x616263'::bytea) AS text_bytea_same_bytes,
       bloomsketch_hash(0) <> bloomsketch_hash(1) AS zero_one_differ,
       bloomsketch_hash(NULL::integer) IS NULL AS strict;
-- A few more values, so a change of the hash or the canonical bytes shows.
SELECT v, bloomsketch_hash(v) FROM (VALUES (0::bigint), (1), (-1), (9223372036854775807)) t(v) ORDER BY v;
SELECT v, bloomsketch_hash(v) FROM (VALUES (''::text), ('a'), ('abc  ')) t(v) ORDER BY v COLLATE "C";
SELECT bloomsketch_hash('\x'::bytea) AS empty_bytea,
       bloomsketch_hash('00000000-0000-0000-0000-000000000000'::uuid) AS nil_uuid,
       bloomsketch_hash(0.0::float8) AS float_zero,
       bloomsketch_hash(1.5::numeric) AS numeric_1_5,
       bloomsketch_hash('2000-01-01'::date) AS date_epoch,
       bloomsketch_hash('2000-01-01'::timestamp) AS ts_epoch,
       bloomsketch_hash('2000-01-01 00:00:00+00'::timestamptz) AS tstz_epoch;
-- date 2000-01-01 is day 0, as is integer 0: same canonical bytes, other family.
SELECT bloomsketch_hash('2000-01-01'::date) = bloomsketch_hash(0) AS date0_int0_same_hash,
       bloomsketch_hash('2000-01-01'::timestamp) = bloomsketch_hash(0) AS ts0_int0_same_hash;

-- ---------------------------------------------------------------------------
-- Lookups against stored (TOASTed) filters: a different filter on every row
-- ---------------------------------------------------------------------------
-- Each filter is about 12 kB, so it is stored out of line; the detoast cache
-- must never answer for one row with another row's filter.
CREATE TEMP TABLE basic_toast AS
SELECT g, bloom_agg(x, 10000, 0.01) AS f
FROM generate_series(1, 3) g, generate_series(g * 100000, g * 100000 + 999) x
GROUP BY g;
SELECT t.g AS filter, k.g AS keys_of, count(*) FILTER (WHERE t.f @> x) AS found
FROM basic_toast t, basic_toast k, generate_series(k.g * 100000, k.g * 100000 + 999) x
GROUP BY 1, 2 ORDER BY 1, 2;
-- A filter read once by an InitPlan and probed per row.
SELECT count(*) FILTER (WHERE (SELECT f FROM basic_toast WHERE g = 2) @> x) AS found
FROM generate_series(1, 400000) x;
-- Incremental maintenance of a stored filter.
UPDATE basic_toast SET f = bloom_add(f, -1) WHERE g = 1;
SELECT g, f @> -1 AS has_minus_1, f @> (g * 100000) AS has_first FROM basic_toast ORDER BY g;
DROP TABLE basic_toast;
-- Compressed values: with STORAGE extended a mostly empty filter is
-- compressed, inline (about 6 kB raw) or out of line (about 120 kB raw).
CREATE TEMP TABLE basic_comp (id integer, f bloom);
ALTER TABLE basic_comp ALTER f SET STORAGE extended;
INSERT INTO basic_comp VALUES (1, bloom_add(bloom_empty(100000), 5)), (2, bloom_add(bloom_empty(5000), 5)),
                              (3, bloom_add(bloom_empty(100000), 5));
SELECT id, pg_column_size(f) < (bloom_info(f)).bytes / 4 AS compressed, f @> 5 AS has_5, f @> 6 AS has_6,
       bloom_add(f, 6) @> 6 AS added_6, f::text::bloom = f AS round_trip
FROM basic_comp ORDER BY id;
SELECT a.id AS l, b.id AS r, a.f = b.f AS eq FROM basic_comp a, basic_comp b ORDER BY 1, 2;
SELECT (a.f | b.f) = a.f AS union_same, (a.f & b.f) = a.f AS intersection_same
FROM basic_comp a, basic_comp b WHERE a.id = 1 AND b.id = 3;
SELECT bloom_union_agg(f) = (SELECT f FROM basic_comp WHERE id = 1) AS union_agg,
       bloom_intersection_agg(f) = (SELECT f FROM basic_comp WHERE id = 3) AS intersection_agg
FROM basic_comp WHERE id IN (1, 3);
UPDATE basic_comp SET f = bloom_add(f, 7) WHERE id = 2;
SELECT id, f @> 7 AS has_7, f @> 5 AS has_5 FROM basic_comp ORDER BY id;
DROP TABLE basic_comp;
