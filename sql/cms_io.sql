--
-- cms_io: text, bytea and binary (send/recv) forms of cms, and the
-- validation every way in applies (bs_validate and bs_cms_check in
-- src/core): text input errors are 22P02, binary input and bytea casts 22P03.
--
-- Layout of the 48-byte header (0-based byte offsets, little-endian):
--   0 magic "BSKT", 4 version, 5 kind (3 = cms), 6 hash algorithm, 7 key
--   family, 8 seed (8), 16 width (8), 24 depth (4), 28 reserved (4),
--   32 total N (8), 40 reserved (8); then depth rows of width 64-bit
--   counters, each row summing to N.
-- Bad values are made from a valid one with set_byte()/overlay() on its
-- bytea form; the text form of those bytes is '\x' || encode(b, 'hex').
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- A valid 4 x 2 sketch: 42 added once and 7 three times (total 4).
CREATE TEMP TABLE io_good AS
SELECT cms_add(cms_add(cms_empty_dims(4, 2), 42), 7, 3) AS c;
SELECT c FROM io_good;
SELECT width, depth, total, bytes, key_family, c -> 42 AS f42, c -> 7 AS f7 FROM io_good, cms_info(c);
-- The counters as numbers: row 0 then row 1.
SELECT i / 4 AS row, i % 4 AS col,
       (SELECT sum(get_byte(c::bytea, 48 + 8 * i + j)::numeric * 256 ^ j) FROM generate_series(0, 7) j) AS counter
FROM io_good, generate_series(0, 7) i ORDER BY i;

-- ---------------------------------------------------------------------------
-- Round trips
-- ---------------------------------------------------------------------------
SELECT c::text::cms = c AS text_round_trip,
       c::bytea::cms = c AS bytea_round_trip,
       c::bytea = decode(substr(c::text, 3), 'hex') AS bytea_is_the_text_bytes,
       cms_send(c) = c::bytea AS send_is_the_format_bytes,
       length(c::bytea) AS format_bytes, length(c::text) AS text_chars
FROM io_good;
-- Upper-case hex digits are accepted (output is lower case); the prefix must be "\x".
SELECT ('\x' || upper(substr(c::text, 3)))::cms = c AS upper_case_digits,
       ('\x' || upper(substr(c::text, 3)))::cms::text = c::text AS output_lower
FROM io_good;
SELECT upper(c::text)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- Sketches of every key family, of the default shape (108808 bytes), of a
-- total of 2^63 - 1 and of a seed other than 0 survive the text and bytea forms.
CREATE TEMP TABLE io_many AS
SELECT 'integer' AS name, cms_agg(x) AS c FROM generate_series(1, 5000) x
UNION ALL SELECT 'text', cms_agg(x::text, 0.01, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'bytea', cms_agg(int4send(x), 0.01, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'uuid', cms_agg(md5(x::text)::uuid, 0.01, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'float', cms_agg(x / 7.0::float8, 0.01, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'numeric', cms_agg(x / 7.0, 0.01, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'date', cms_agg('2000-01-01'::date + x, 0.01, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'timestamp', cms_agg('2000-01-01'::timestamp + x * interval '1 s', 0.01, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'timestamptz', cms_agg('2000-01-01 00:00+00'::timestamptz + x * interval '1 s', 0.01, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'weighted', cms_agg_weighted(x, x * 1000, 0.01, 0.01) FROM generate_series(1, 500) x
UNION ALL SELECT 'empty', cms_empty()
UNION ALL SELECT 'total 2^63 - 1', cms_add(cms_add(cms_empty(0.1, 0.1), 1, 9223372036854775806), 2)
UNION ALL SELECT 'seed 7', set_byte(cms_add(cms_empty(0.1, 0.1), 5)::bytea, 8, 7)::cms;
SELECT name, (cms_info(c)).key_family, (cms_info(c)).seed, c::text::cms = c AS text_ok, c::bytea::cms = c AS bytea_ok,
       c::text::cms::text = c::text AS text_exact, length(c::text) = 2 + 2 * length(c::bytea) AS two_digits_a_byte
FROM io_many ORDER BY name COLLATE "C";
-- Through a table: INSERT of the text form and of the bytea cast.
CREATE TEMP TABLE io_copy (name text, c cms);
INSERT INTO io_copy SELECT name, c::text::cms FROM io_many;
INSERT INTO io_copy SELECT name || ' via bytea', c::bytea::cms FROM io_many;
SELECT count(*) AS rows, count(*) FILTER (WHERE k.c = m.c) AS equal
FROM io_copy k JOIN io_many m ON k.name IN (m.name, m.name || ' via bytea');
DROP TABLE io_copy;

-- ---------------------------------------------------------------------------
-- COPY in text form (what pg_dump does) and in binary form (send/recv)
-- ---------------------------------------------------------------------------
-- (\copy does not expand variables: work in the output directory, where
-- pg_regress made results/.)
\getenv abs_builddir PG_ABS_BUILDDIR
\cd :abs_builddir
CREATE TEMP TABLE io_recv (name text, c cms);
\copy (SELECT name, c FROM io_many) TO 'results/cms_io.txt'
\copy io_recv FROM 'results/cms_io.txt'
SELECT count(*) AS rows, count(*) FILTER (WHERE r.c = m.c) AS equal FROM io_recv r JOIN io_many m USING (name);
TRUNCATE io_recv;
\copy (SELECT name, c FROM io_many) TO 'results/cms_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/cms_io.bin' WITH (FORMAT binary)
SELECT count(*) AS rows, count(*) FILTER (WHERE r.c = m.c) AS equal FROM io_recv r JOIN io_many m USING (name);
-- A bytea column's binary form is its bytes, so a bytea column copied out in
-- binary can be copied into a cms column: cms_recv accepts valid bytes ...
CREATE TEMP TABLE io_bytes (name text, b bytea);
TRUNCATE io_recv;
INSERT INTO io_bytes SELECT name, c::bytea FROM io_many;
\copy io_bytes TO 'results/cms_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/cms_io.bin' WITH (FORMAT binary)
SELECT count(*) FILTER (WHERE r.c = m.c) AS equal FROM io_recv r JOIN io_many m USING (name);
-- ... and rejects bad bytes with 22P03 (invalid_binary_representation); the
-- error shows once with its message and once as its SQLSTATE.
TRUNCATE io_bytes, io_recv;
INSERT INTO io_bytes SELECT 'bad version', set_byte(c::bytea, 4, 2) FROM io_good;
\copy io_bytes TO 'results/cms_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/cms_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/cms_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
TRUNCATE io_bytes;
INSERT INTO io_bytes SELECT 'row 1 does not sum to the total', set_byte(c::bytea, 48 + 8 * 4, 2) FROM io_good;
\copy io_bytes TO 'results/cms_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/cms_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/cms_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
TRUNCATE io_bytes;
INSERT INTO io_bytes SELECT 'too short', substr(c::bytea, 1, 111) FROM io_good;
\copy io_bytes TO 'results/cms_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/cms_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/cms_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
SELECT count(*) AS rows_loaded_by_bad_copies FROM io_recv;
DROP TABLE io_recv, io_bytes;

-- ---------------------------------------------------------------------------
-- Text input errors: 22P02 (invalid_text_representation)
-- ---------------------------------------------------------------------------
SELECT 'zz'::cms;
\echo SQLSTATE :SQLSTATE
SELECT ''::cms;
\echo SQLSTATE :SQLSTATE
SELECT '\x42534g'::cms;
\echo SQLSTATE :SQLSTATE
SELECT '\x0'::cms;
\echo SQLSTATE :SQLSTATE
SELECT (c::text || ' ')::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT '\x'::cms;
\echo SQLSTATE :SQLSTATE
SELECT substr(c::text, 1, 2 + 2 * 47)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- The header and payload checks are the same for text and bytea; via text
-- they are 22P02.
SELECT ('\x' || encode(set_byte(c::bytea, 24, 3), 'hex'))::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT ('\x' || encode(set_byte(c::bytea, 48, 2), 'hex'))::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10)::text::cms;
\echo SQLSTATE :SQLSTATE
SELECT c::text::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Validation of the format bytes (bytea cast): 22P03, field by field
-- ---------------------------------------------------------------------------
-- too short: empty, 1 byte, the header alone minus one byte, the header alone
SELECT '\x'::bytea::cms;
\echo SQLSTATE :SQLSTATE
SELECT '\x00'::bytea::cms;
\echo SQLSTATE :SQLSTATE
SELECT substr(c::bytea, 1, 47)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT substr(c::bytea, 1, 48)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- bad magic: "XSKT", and the magic's bytes in the wrong order
SELECT set_byte(c::bytea, 0, ascii('X'))::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT overlay(c::bytea placing 'TKSB'::bytea from 1 for 4)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- wrong format version: 0, 2, 255
SELECT set_byte(c::bytea, 4, 0)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 4, 2)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 4, 255)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- wrong kind: 1 is a bloom, 2 a bloom_agg_state, 0 and 255 no kind at all;
-- a real bloom is not a cms, nor a cms a bloom
SELECT set_byte(c::bytea, 5, 1)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 5, 2)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 5, 0)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 5, 255)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10)::bytea::cms;
\echo SQLSTATE :SQLSTATE
SELECT c::bytea::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- unknown hash algorithm: 0, 2
SELECT set_byte(c::bytea, 6, 0)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 6, 2)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- unknown key family: 10 (one past timestamptz), 255; 0..9 are valid
SELECT set_byte(c::bytea, 7, 10)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 7, 255)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT fam, (cms_info(set_byte(c::bytea, 7, fam)::cms)).key_family
FROM io_good, generate_series(0, 9) fam ORDER BY fam;
-- any seed is valid, but a sketch of another seed does not combine
SELECT (cms_info(set_byte(c::bytea, 15, 128)::cms)).seed FROM io_good;
SELECT c + set_byte(c::bytea, 15, 128)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- width 0; width 3 or 5 for 4 x 2 counters' bytes; width 2^56 + 4 (byte 23 = 1)
SELECT set_byte(c::bytea, 16, 0)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 16, 3)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 16, 5)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 23, 1)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- width 2^61 + 4 (byte 23 = 32): 2 rows of 8-byte counters would be
-- 2^65 + 64 bytes, which wraps around to exactly the 64 bytes there are
SELECT set_byte(c::bytea, 23, 32)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- depth 0, 65, 1 or 3 for 2 rows' bytes, 2^24 + 2 (byte 27 = 1)
SELECT set_byte(c::bytea, 24, 0)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 24, 65)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 24, 1)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 24, 3)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 27, 1)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- the same 8 counters as 8 x 1 or 2 x 4: the payload length fits, the row sums do not
SELECT set_byte(set_byte(c::bytea, 16, 8), 24, 1)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(set_byte(c::bytea, 16, 2), 24, 4)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- a shape past the 511 MiB limit (width 13395558, depth 5), header only
SELECT overlay(overlay(substr(c::bytea, 1, 48) placing '\x6666cc' from 17 for 3)
               placing '\x05' from 25 for 1)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- reserved fields nonzero: bytes 28 (p3), 40 and 47 (x)
SELECT set_byte(c::bytea, 28, 1)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 40, 1)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 47, 128)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- the total: 5 or 3 for rows summing to 4; 2^63 (byte 39 = 128) is past the limit
SELECT set_byte(c::bytea, 32, 5)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 32, 3)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 39, 128)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- payload length: one byte more, one counter more, one byte less, one counter less
SELECT (c::bytea || '\x00'::bytea)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT (c::bytea || '\x0000000000000000'::bytea)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT substr(c::bytea, 1, 111)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT substr(c::bytea, 1, 104)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- a row that does not sum to the total: a counter of row 0 one higher, one
-- of row 1 one lower
SELECT set_byte(c::bytea, 48 + 8 * 1, 1)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(c::bytea, 48 + 8 * 4, 0)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- two counters of row 0 raised by 2^63 each: the row sums to the total only
-- modulo 2^64, which must not pass
SELECT set_byte(set_byte(c::bytea, 48 + 7, 128), 48 + 8 + 7, 128)::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- a unit moved between two counters of one row keeps every row's sum: valid
-- (the check is of consistency, not of provenance: this hand-made sketch
-- now under-counts 42, which no sketch built by adding can)
SELECT total, c2 -> 42 AS f42, c2 -> 7 AS f7
FROM (SELECT set_byte(set_byte(c::bytea, 48 + 8 * 1, 1), 48 + 8 * 3, 0)::cms AS c2 FROM io_good) s, cms_info(c2);

-- ---------------------------------------------------------------------------
-- Exhaustive checks of this sketch (io_try returns "ok" or the SQLSTATE)
-- ---------------------------------------------------------------------------
CREATE FUNCTION pg_temp.io_try(b bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM b::cms;
  RETURN 'ok';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE;
END $$;
CREATE FUNCTION pg_temp.io_try_text(t text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM t::cms;
  RETURN 'ok';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE;
END $$;
-- Every truncation (0 to 111 bytes), as bytea and as text.
SELECT pg_temp.io_try(substr(c::bytea, 1, n)) AS as_bytea,
       pg_temp.io_try_text('\x' || encode(substr(c::bytea, 1, n), 'hex')) AS as_text, count(*) AS lengths
FROM io_good, generate_series(0, 111) n GROUP BY 1, 2;
-- Every one of the 384 single-bit flips of the header: only the seed's 64
-- bits and the family bits that give another valid family (1 -> 0, 3, 5, 9)
-- are accepted.
SELECT pg_temp.io_try(set_byte(c::bytea, i, get_byte(c::bytea, i) # (1 << b))) AS outcome,
       CASE WHEN i BETWEEN 8 AND 15 THEN 'seed' WHEN i = 7 THEN 'family' ELSE 'other' END AS field,
       count(*) AS flips
FROM io_good, generate_series(0, 47) i, generate_series(0, 7) b GROUP BY 1, 2 ORDER BY 2, 1;
-- Each byte of the header and payload set to 0xff and to 0x00: which
-- changes are caught and which leave a valid sketch (the seed is free,
-- family 0 is "none", zero bytes stay zero; a counter changed makes its row
-- miss the total).
SELECT to_ff, to_00, string_agg(i::text, ',' ORDER BY i) AS bytes
FROM (SELECT i, pg_temp.io_try(set_byte(c::bytea, i, 255)) AS to_ff,
             pg_temp.io_try(set_byte(c::bytea, i, 0)) AS to_00
      FROM io_good, generate_series(0, 111) i) s
GROUP BY to_ff, to_00 ORDER BY min(i);

DROP TABLE io_good, io_many;
