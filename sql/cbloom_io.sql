--
-- cbloom_io: text, bytea and binary (send/recv) forms of cbloom, and the
-- validation every way in applies (bs_validate and bs_cbloom_check in
-- src/core): text input errors are 22P02, binary input and bytea casts 22P03.
--
-- Layout of the 48-byte header (0-based byte offsets, little-endian):
--   0 magic "BSKT", 4 version (1), 5 kind (5 = cbloom), 6 hash algorithm
--   (1 = xxh3_64), 7 key family, 8 seed (8), 16 m = counters (8), 24 k =
--   hashes (4), 28 counter bits (4: 4 or 8), 32 reserved n (8), 40 reserved
--   x (8); then the counters: 4-bit counter j is the low nibble of byte j/2
--   for even j and the high nibble for odd j (the unused high nibble of the
--   last byte, for odd m, is zero); 8-bit counter j is byte j.
-- Bad values are made from a valid one with set_byte()/overlay() on its
-- bytea form; the text form of those bytes is '\x' || encode(b, 'hex').
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- ---------------------------------------------------------------------------
-- A worked example: m = 5 counters, k = 1 hash (cbloom_empty(3, 0.5)).
-- The integers 1, 4, 2 and 19 land on counters 0, 1, 3 and 4; add 1 once,
-- 4 twice, 2 three times and 19 once (counter 2 stays 0).
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE io_good AS
SELECT cbloom_agg(x, 3, 0.5) AS f, cbloom_agg(x, 3, 0.5, 8) AS f8
FROM (VALUES (1), (4), (4), (2), (2), (2), (19)) v(x);
SELECT f FROM io_good;
SELECT f8 FROM io_good;
-- The header, field by field.
SELECT convert_from(substr(b, 1, 4), 'SQL_ASCII') AS magic, get_byte(b, 4) AS version, get_byte(b, 5) AS kind,
       get_byte(b, 6) AS hash_alg, get_byte(b, 7) AS family,
       (SELECT sum(get_byte(b, 8 + i)::numeric * 256 ^ i) FROM generate_series(0, 7) i) AS seed,
       (SELECT sum(get_byte(b, 16 + i)::numeric * 256 ^ i) FROM generate_series(0, 7) i) AS m,
       (SELECT sum(get_byte(b, 24 + i)::numeric * 256 ^ i) FROM generate_series(0, 3) i) AS k,
       (SELECT sum(get_byte(b, 28 + i)::numeric * 256 ^ i) FROM generate_series(0, 3) i) AS counter_bits,
       (SELECT sum(get_byte(b, 32 + i)::numeric) FROM generate_series(0, 15) i) AS reserved_sum,
       length(b) - 48 AS payload_bytes
FROM (SELECT f::bytea AS b FROM io_good UNION ALL SELECT f8::bytea FROM io_good) s;
-- The payload bytes: 4-bit 0x21 (counters 0 and 1: 1 and 2), 0x30 (counters
-- 2 and 3: 0 and 3), 0x01 (counter 4: 1, and the unused nibble 0); 8-bit one
-- byte a counter.
SELECT encode(substr(f::bytea, 49), 'hex') AS payload_4bit, encode(substr(f8::bytea, 49), 'hex') AS payload_8bit
FROM io_good;
-- The counters read from the bytes, and what the functions say.
SELECT j, (get_byte(f::bytea, 48 + j / 2) >> (4 * (j % 2))) & 15 AS counter_4bit,
       get_byte(f8::bytea, 48 + j) AS counter_8bit
FROM io_good, generate_series(0, 4) j ORDER BY j;
SELECT x, cbloom_count(f, x) AS count, cbloom_count(f8, x) AS count_8bit
FROM io_good, (VALUES (1), (2), (4), (8), (19)) v(x) ORDER BY x;
SELECT counters, hashes, counter_bits, counters_zero, bytes, key_family FROM io_good, cbloom_info(f);
-- The same bytes made by hand are the same filter.
SELECT ('\x42534b54' || '01' || '05' || '01' || '01' || '0000000000000000' || '0500000000000000' || '01000000'
        || '04000000' || '0000000000000000' || '0000000000000000' || '213001')::cbloom = f AS hand_made_4bit,
       ('\x42534b54' || '01' || '05' || '01' || '01' || '0000000000000000' || '0500000000000000' || '01000000'
        || '08000000' || '0000000000000000' || '0000000000000000' || '0102000301')::cbloom = f8 AS hand_made_8bit
FROM io_good;

-- ---------------------------------------------------------------------------
-- Round trips
-- ---------------------------------------------------------------------------
SELECT f::text::cbloom = f AS text_round_trip,
       f::bytea::cbloom = f AS bytea_round_trip,
       f::bytea = decode(substr(f::text, 3), 'hex') AS bytea_is_the_text_bytes,
       cbloom_send(f) = f::bytea AS send_is_the_format_bytes,
       cbloom_from_bytea(f::bytea) = f AS from_bytea,
       length(f::bytea) AS format_bytes, length(f::text) AS text_chars
FROM io_good;
-- Upper-case hex digits are accepted (output is lower case); the prefix must be "\x".
SELECT ('\x' || upper(substr(f::text, 3)))::cbloom = f AS upper_case_digits,
       ('\x' || upper(substr(f::text, 3)))::cbloom::text = f::text AS output_lower
FROM io_good;
SELECT upper(f::text)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- Filters of both widths, odd and even m, every key family, an empty one,
-- saturated counters and a seed other than 0 survive the text and bytea
-- forms.
CREATE FUNCTION pg_temp.add_times(f cbloom, v bigint, n integer) RETURNS cbloom LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..n LOOP f := cbloom_add(f, v); END LOOP;
  RETURN f;
END $$;
CREATE TEMP TABLE io_many AS
SELECT 'integer auto' AS name, cbloom_agg(x) AS f FROM generate_series(1, 5000) x
UNION ALL SELECT 'integer 8-bit', cbloom_agg(x, 5000, 0.01, 8) FROM generate_series(1, 5000) x
UNION ALL SELECT 'odd m', cbloom_agg(x, 100, 0.01) FROM generate_series(1, 100) x
UNION ALL SELECT 'odd m 8-bit', cbloom_agg(x, 100, 0.01, 8) FROM generate_series(1, 100) x
UNION ALL SELECT 'even m', cbloom_agg(x, 1000, 0.01) FROM generate_series(1, 100) x
UNION ALL SELECT 'even m 8-bit', cbloom_agg(x, 1000, 0.01, 8) FROM generate_series(1, 100) x
UNION ALL SELECT 'one counter', cbloom_add(cbloom_empty(1, 0.9), 1)
UNION ALL SELECT 'text', cbloom_agg(x::text, 100, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'bytea', cbloom_agg(int4send(x), 100, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'uuid', cbloom_agg(md5(x::text)::uuid, 100, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'float', cbloom_agg(x / 7.0::float8, 100, 0.01, 8) FROM generate_series(1, 500) x
UNION ALL SELECT 'numeric', cbloom_agg(x / 7.0, 100, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'date', cbloom_agg('2000-01-01'::date + x, 100, 0.01, 8) FROM generate_series(1, 500) x
UNION ALL SELECT 'timestamp', cbloom_agg('2000-01-01'::timestamp + x * interval '1 s', 100, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'timestamptz', cbloom_agg('2000-01-01 00:00+00'::timestamptz + x * interval '1 s', 100, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'empty', cbloom_empty(100)
UNION ALL SELECT 'empty 8-bit', cbloom_empty(100, 0.01, 8)
UNION ALL SELECT 'saturated', pg_temp.add_times(cbloom_empty(100), 1, 20)
UNION ALL SELECT 'saturated 8-bit', pg_temp.add_times(cbloom_empty(100, 0.01, 8), 1, 300)
UNION ALL SELECT 'seed 7', set_byte(cbloom_add(cbloom_empty(100), 5)::bytea, 8, 7)::cbloom;
SELECT name, i.counters, i.counters % 2 AS odd, i.counter_bits, i.key_family, i.seed, i.counters_saturated > 0 AS saturated,
       f::text::cbloom = f AS text_ok, f::bytea::cbloom = f AS bytea_ok, f::text::cbloom::text = f::text AS text_exact,
       cbloom_send(f) = f::bytea AS send_ok, length(f::text) = 2 + 2 * length(f::bytea) AS two_digits_a_byte
FROM io_many, cbloom_info(f) i ORDER BY name COLLATE "C";
-- A filter of another seed works like any other, with probes of its own
-- (so the seed 7 filter above, whose counters were set with seed 0, does
-- not find 5).
SELECT cbloom_add(s7, 5) @> 5 AS has_5, cbloom_count(cbloom_add(s7, 5), 5) AS count_5,
       cbloom_remove(cbloom_add(s7, 5), 5) @> 5 AS removed_has_5,
       cbloom_add(s7, 5)::bytea <> set_byte(cbloom_add(cbloom_empty(100), 5)::bytea, 8, 7) AS other_probes,
       (SELECT f @> 5 FROM io_many WHERE name = 'seed 7') AS reseeded_has_5
FROM (SELECT set_byte(cbloom_empty(100)::bytea, 8, 7)::cbloom AS s7) s;
-- Through a table: INSERT of the text form and of the bytea cast.
CREATE TEMP TABLE io_copy (name text, f cbloom);
INSERT INTO io_copy SELECT name, f::text::cbloom FROM io_many;
INSERT INTO io_copy SELECT name || ' via bytea', f::bytea::cbloom FROM io_many;
SELECT count(*) AS rows, count(*) FILTER (WHERE c.f = m.f) AS equal
FROM io_copy c JOIN io_many m ON c.name IN (m.name, m.name || ' via bytea');
DROP TABLE io_copy;

-- ---------------------------------------------------------------------------
-- COPY in text form (what pg_dump does) and in binary form (send/recv)
-- ---------------------------------------------------------------------------
-- (\copy does not expand variables: work in the output directory, where
-- pg_regress made results/.)
\getenv abs_builddir PG_ABS_BUILDDIR
\cd :abs_builddir
CREATE TEMP TABLE io_recv (name text, f cbloom);
\copy (SELECT name, f FROM io_many) TO 'results/cbloom_io.txt'
\copy io_recv FROM 'results/cbloom_io.txt'
SELECT count(*) AS rows, count(*) FILTER (WHERE r.f = m.f) AS equal FROM io_recv r JOIN io_many m USING (name);
TRUNCATE io_recv;
\copy (SELECT name, f FROM io_many) TO 'results/cbloom_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/cbloom_io.bin' WITH (FORMAT binary)
SELECT count(*) AS rows, count(*) FILTER (WHERE r.f = m.f) AS equal FROM io_recv r JOIN io_many m USING (name);
-- A bytea column's binary form is its bytes, so a bytea column copied out in
-- binary can be copied into a cbloom column: cbloom_recv accepts valid
-- bytes ...
CREATE TEMP TABLE io_bytes (name text, b bytea);
TRUNCATE io_recv;
INSERT INTO io_bytes SELECT name, f::bytea FROM io_many;
\copy io_bytes TO 'results/cbloom_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/cbloom_io.bin' WITH (FORMAT binary)
SELECT count(*) FILTER (WHERE r.f = m.f) AS equal FROM io_recv r JOIN io_many m USING (name);
-- ... and rejects bad bytes with 22P03 (invalid_binary_representation); the
-- error shows once with its message and once as its SQLSTATE.
TRUNCATE io_bytes, io_recv;
INSERT INTO io_bytes SELECT 'bad version', set_byte(f::bytea, 4, 2) FROM io_good;
\copy io_bytes TO 'results/cbloom_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/cbloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/cbloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
TRUNCATE io_bytes;
INSERT INTO io_bytes SELECT 'unused nibble', set_byte(f::bytea, 50, 17) FROM io_good;
\copy io_bytes TO 'results/cbloom_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/cbloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/cbloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
TRUNCATE io_bytes;
INSERT INTO io_bytes SELECT 'too short', substr(f::bytea, 1, 50) FROM io_good;
\copy io_bytes TO 'results/cbloom_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/cbloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/cbloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
SELECT count(*) AS rows_loaded_by_bad_copies FROM io_recv;
DROP TABLE io_recv, io_bytes;

-- ---------------------------------------------------------------------------
-- Text input errors: 22P02 (invalid_text_representation)
-- ---------------------------------------------------------------------------
SELECT 'zz'::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT ''::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT 'x42534b54'::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT '\x42534g'::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT '\x0'::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT (f::text || ' ')::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT '\x'::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT substr(f::text, 1, 2 + 2 * 47)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- The header and payload checks are the same for text and bytea; via text
-- they are 22P02.
SELECT ('\x' || encode(set_byte(f::bytea, 0, ascii('X')), 'hex'))::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT ('\x' || encode(set_byte(f::bytea, 24, 65), 'hex'))::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT ('\x' || encode(set_byte(f::bytea, 50, 16), 'hex'))::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10)::text::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT f::text::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT f::text::cms FROM io_good;
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Validation of the format bytes (bytea cast): 22P03, field by field
-- ---------------------------------------------------------------------------
-- too short: empty, 1 byte, the header alone minus one byte; the header
-- alone has no counters
SELECT '\x'::bytea::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT '\x00'::bytea::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT substr(f::bytea, 1, 47)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT substr(f::bytea, 1, 48)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- bad magic: "XSKT", and the magic's bytes in the wrong order
SELECT set_byte(f::bytea, 0, ascii('X'))::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT overlay(f::bytea placing 'TKSB'::bytea from 1 for 4)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- wrong format version: 0, 2, 255
SELECT set_byte(f::bytea, 4, 0)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 4, 2)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 4, 255)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- another kind: 1 bloom, 2 bloom_agg_state, 3 cms, 4 topk (named), 0, 6 and
-- 255 no kind at all; real sketches of the other kinds are not cbloom
-- values, nor a cbloom one of them
SELECT set_byte(f::bytea, 5, 1)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 5, 2)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 5, 3)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 5, 4)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 5, 0)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 5, 6)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 5, 255)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10)::bytea::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT cbloom_empty(10)::bloom::bytea::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT cms_empty(0.1, 0.1)::bytea::cbloom;
\echo SQLSTATE :SQLSTATE
SELECT f::bytea::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT f::bytea::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- unknown hash algorithm: 0, 2
SELECT set_byte(f::bytea, 6, 0)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 6, 2)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- unknown key family: 10 (one past timestamptz), 255; 0..9 are valid
SELECT set_byte(f::bytea, 7, 10)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 7, 255)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT fam, (cbloom_info(set_byte(f::bytea, 7, fam)::cbloom)).key_family
FROM io_good, generate_series(0, 9) fam ORDER BY fam;
-- any seed is valid
SELECT (cbloom_info(set_byte(f::bytea, 15, 128)::cbloom)).seed FROM io_good;
-- counter bits: 0, 5, 16, 255, 260 (byte 29 = 1), and 8 for a payload of
-- 4-bit counters (or 4 for one of 8-bit counters)
SELECT set_byte(f::bytea, 28, 0)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 28, 5)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 28, 16)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 28, 255)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 29, 1)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 28, 8)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f8::bytea, 28, 4)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- m: 0; 2^56 + 5 (byte 23 = 1); one past the limit of 4-bit (and of 8-bit)
-- counters, header only; 4 or 7 counters do not fit 3 payload bytes
SELECT set_byte(f::bytea, 16, 0)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 23, 1)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT overlay(substr(f::bytea, 1, 48) placing '\xa1ffdf3f'::bytea from 17 for 4)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT overlay(substr(f8::bytea, 1, 48) placing '\xd1ffef1f'::bytea from 17 for 4)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 16, 4)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 16, 7)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- ... while 6 counters fit them (the last nibble is then a counter)
SELECT counters, counters_zero FROM io_good, cbloom_info(set_byte(f::bytea, 16, 6)::cbloom);
SELECT counters, counters_zero FROM io_good, cbloom_info(set_byte(set_byte(f::bytea, 16, 6), 50, 241)::cbloom);
-- k: 0, 65, 2^24 + 1 (byte 27 = 1); 64 is fine
SELECT set_byte(f::bytea, 24, 0)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 24, 65)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 27, 1)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT hashes FROM io_good, cbloom_info(set_byte(f::bytea, 24, 64)::cbloom);
-- reserved fields nonzero: bytes 32 and 39 (n), 40 and 47 (x)
SELECT set_byte(f::bytea, 32, 1)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 39, 128)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 40, 1)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f8::bytea, 47, 128)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- payload length: one byte more, one byte less, for both widths
SELECT (f::bytea || '\x00'::bytea)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT substr(f::bytea, 1, 50)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT (f8::bytea || '\x00'::bytea)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT substr(f8::bytea, 1, 52)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- the unused high nibble of the last byte (m = 5 is odd): 1, 8, 15
SELECT get_byte(f::bytea, 50) < 16 AS unused_nibble_clear FROM io_good;
SELECT set_byte(f::bytea, 50, get_byte(f::bytea, 50) | 16)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 50, 128)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 50, 240)::cbloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- ... every counter value is valid elsewhere, 15 (saturated) included
SELECT counters_saturated, cbloom_count(c, 1) AS count_1, cbloom_count(c, 4) AS count_4, cbloom_count(c, 8) AS count_8
FROM (SELECT set_byte(set_byte(f::bytea, 48, 255), 50, 15)::cbloom AS c FROM io_good) s, cbloom_info(c);

-- ---------------------------------------------------------------------------
-- Exhaustive checks (io_try returns "ok" or the SQLSTATE)
-- ---------------------------------------------------------------------------
CREATE FUNCTION pg_temp.io_try(b bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM b::cbloom;
  RETURN 'ok';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE;
END $$;
CREATE FUNCTION pg_temp.io_try_text(t text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM t::cbloom;
  RETURN 'ok';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE;
END $$;
-- Every truncation of both widths, as bytea and as text: only the whole value is valid.
SELECT width, pg_temp.io_try(substr(b, 1, n)) AS as_bytea,
       pg_temp.io_try_text('\x' || encode(substr(b, 1, n), 'hex')) AS as_text, count(*) AS lengths
FROM (SELECT 4 AS width, f::bytea AS b FROM io_good UNION ALL SELECT 8, f8::bytea FROM io_good) s,
     generate_series(0, length(b)) n
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
-- Every one of the 384 single-bit flips of the header: only the seed's 64
-- bits, the family bits that give another valid family (1 -> 0, 3, 5, 9) and
-- the bits of k that keep it within 1..64 (1 -> 3, 5, 9, 17, 33) are
-- accepted; m 5 -> 4 and 7 do not fit the payload, 5 -> 1 has no unused
-- nibble to spare (it would need 1 payload byte).
SELECT pg_temp.io_try(set_byte(f::bytea, i, get_byte(f::bytea, i) # (1 << b))) AS outcome,
       CASE WHEN i BETWEEN 8 AND 15 THEN 'seed' WHEN i = 7 THEN 'family' WHEN i BETWEEN 24 AND 27 THEN 'k'
            WHEN i BETWEEN 16 AND 23 THEN 'm' ELSE 'other' END AS field,
       count(*) AS flips
FROM io_good, generate_series(0, 47) i, generate_series(0, 7) b GROUP BY 1, 2 ORDER BY 2, 1;
-- Each byte of both widths set to 0xff and to 0x00.
SELECT width, to_ff, to_00, string_agg(i::text, ',' ORDER BY i) AS bytes
FROM (SELECT 4 AS width, i, pg_temp.io_try(set_byte(f::bytea, i, 255)) AS to_ff,
             pg_temp.io_try(set_byte(f::bytea, i, 0)) AS to_00
      FROM io_good, generate_series(0, 50) i
      UNION ALL
      SELECT 8, i, pg_temp.io_try(set_byte(f8::bytea, i, 255)), pg_temp.io_try(set_byte(f8::bytea, i, 0))
      FROM io_good, generate_series(0, 52) i) s
GROUP BY width, to_ff, to_00 ORDER BY width, min(i);

-- ---------------------------------------------------------------------------
-- Mutations: every byte of two valid filters (m = 53 counters, k = 3, 4-bit
-- and 8-bit, 75 and 101 bytes) set to every value 0..255: 45,056 values,
-- each either rejected with 22P03 (never another error, never a crash) or
-- usable: io_use then reads it, prints it, merges it with itself, takes it
-- to bloom, and adds, finds, counts and removes a key of its family.
-- ---------------------------------------------------------------------------
CREATE FUNCTION pg_temp.io_use(b bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  f cbloom;
  fam text;
  typ text;
  lit text;
  ok boolean;
BEGIN
  BEGIN
    f := b::cbloom;
  EXCEPTION WHEN others THEN
    RETURN 'rejected ' || SQLSTATE;
  END;
  BEGIN
    SELECT key_family INTO fam FROM cbloom_info(f);
    PERFORM f::text::cbloom = f, f::bloom, f + f, (f + f) - f, cbloom_hash(f);
    IF f::text::cbloom <> f OR ((f + f) - f <> f AND (cbloom_info(f + f)).counters_saturated = 0) THEN
      RETURN 'round trip or merge broken';
    END IF;
    SELECT t, l INTO typ, lit FROM (VALUES
      ('none', 'bigint', '42'), ('integer', 'bigint', '42'), ('text', 'text', 'a'), ('bytea', 'bytea', '\x01'),
      ('uuid', 'uuid', '00000000-0000-0000-0000-000000000042'), ('float', 'float8', '1.5'), ('numeric', 'numeric', '1.5'),
      ('date', 'date', '2000-01-01'), ('timestamp', 'timestamp', '2000-01-01'),
      ('timestamptz', 'timestamptz', '2000-01-01 00:00+00')) v(fm, t, l) WHERE fm = fam;
    EXECUTE format('SELECT cbloom_add($1, $2::%1$s) @> $2::%1$s AND cbloom_count(cbloom_add($1, $2::%1$s), $2::%1$s) >= 1
                           AND cbloom_remove(cbloom_add($1, $2::%1$s), $2::%1$s) IS NOT NULL
                           AND cbloom_count($1, $2::%1$s) IS NOT NULL', typ)
      INTO ok USING f, lit;
    IF NOT ok THEN
      RETURN 'false negative';
    END IF;
  EXCEPTION WHEN others THEN
    RETURN 'unusable ' || SQLSTATE;
  END;
  RETURN 'usable';
END $$;
CREATE TEMP TABLE io_mut_base AS
SELECT 4 AS width, cbloom_agg(x, 11, 0.1)::bytea AS b FROM generate_series(1, 11) x
UNION ALL SELECT 8, cbloom_agg(x, 11, 0.1, 8)::bytea FROM generate_series(1, 11) x;
SELECT width, length(b) AS bytes, i.counters, i.hashes, i.counter_bits
FROM io_mut_base, cbloom_info(b::cbloom) i ORDER BY width;
CREATE TEMP TABLE io_mut AS
SELECT width, p, v, pg_temp.io_use(set_byte(b, p, v)) AS outcome
FROM io_mut_base, generate_series(0, length(b) - 1) p, generate_series(0, 255) v;
SELECT outcome, count(*) AS mutations FROM io_mut GROUP BY outcome ORDER BY outcome;
-- By field: the seed, the family (0..9), k (1..64), m (53, or 54 for 4-bit:
-- the same 27 bytes) and every counter value (but the last byte's high
-- nibble) are accepted.
SELECT width, CASE WHEN p < 4 THEN 'magic' WHEN p = 4 THEN 'version' WHEN p = 5 THEN 'kind' WHEN p = 6 THEN 'hash algorithm'
                   WHEN p = 7 THEN 'family' WHEN p < 16 THEN 'seed' WHEN p < 24 THEN 'm' WHEN p < 28 THEN 'k'
                   WHEN p < 32 THEN 'counter bits' WHEN p < 48 THEN 'reserved' WHEN p < length(b) - 1 THEN 'counters'
                   ELSE 'last byte' END AS field,
       count(*) AS mutations, count(*) FILTER (WHERE outcome = 'usable') AS usable,
       count(*) FILTER (WHERE outcome = 'rejected 22P03') AS rejected_22p03,
       count(*) FILTER (WHERE outcome NOT IN ('usable', 'rejected 22P03')) AS other
FROM io_mut JOIN io_mut_base USING (width)
GROUP BY 1, 2 ORDER BY 1, min(p);
DROP TABLE io_good, io_many, io_mut, io_mut_base;
