--
-- bloom_io: text, bytea and binary (send/recv) forms of bloom, and the
-- validation every way in applies (bs_validate in src/core/format.c).
--
-- Layout of the 48-byte header (0-based byte offsets, little-endian):
--   0 magic "BSKT", 4 version, 5 kind, 6 hash algorithm, 7 key family,
--   8 seed (8), 16 m (8), 24 k (4), 28 reserved (4), 32 reserved (8),
--   40 reserved (8), then ceil(m/8) payload bytes.
-- Bad values are made from a valid one with set_byte()/overlay() on its
-- bytea form; the text form of those bytes is '\x' || encode(b, 'hex').
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- A valid filter of 20 bits (3 payload bytes) and 2 hashes, with two keys.
-- Its bytes pin the format and the probe positions (src/core/hash.h), which
-- clients outside the database reproduce from bloomsketch_hash().
CREATE TEMP TABLE io_good AS
SELECT bloom_add(bloom_add(bloom_empty_bits(20, 2), 42), 7) AS f;
SELECT f FROM io_good;
SELECT bits, hashes, bits_set, bytes, key_family FROM io_good, bloom_info(f);

-- ---------------------------------------------------------------------------
-- Round trips
-- ---------------------------------------------------------------------------
SELECT f::text::bloom = f AS text_round_trip,
       f::bytea::bloom = f AS bytea_round_trip,
       f::bytea = decode(substr(f::text, 3), 'hex') AS bytea_is_the_text_bytes,
       bloom_send(f) = f::bytea AS send_is_the_format_bytes,
       length(f::bytea) AS format_bytes
FROM io_good;
-- Upper-case hex digits are accepted (output is lower case); the prefix must
-- be "\x", as for bytea.
SELECT ('\x' || upper(substr(f::text, 3)))::bloom = f AS upper_case_digits,
       ('\x' || upper(substr(f::text, 3)))::bloom::text = f::text AS output_lower
FROM io_good;
SELECT upper(f::text)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- Larger filters and every key family survive the text and bytea forms.
CREATE TEMP TABLE io_many AS
SELECT 'integer' AS family, bloom_agg(x) AS f FROM generate_series(1, 5000) x
UNION ALL SELECT 'text', bloom_agg(x::text) FROM generate_series(1, 500) x
UNION ALL SELECT 'bytea', bloom_agg(int4send(x)) FROM generate_series(1, 500) x
UNION ALL SELECT 'uuid', bloom_agg(md5(x::text)::uuid) FROM generate_series(1, 500) x
UNION ALL SELECT 'float', bloom_agg(x / 7.0::float8) FROM generate_series(1, 500) x
UNION ALL SELECT 'numeric', bloom_agg(x / 7.0) FROM generate_series(1, 500) x
UNION ALL SELECT 'date', bloom_agg('2000-01-01'::date + x) FROM generate_series(1, 500) x
UNION ALL SELECT 'timestamp', bloom_agg('2000-01-01'::timestamp + x * interval '1 s') FROM generate_series(1, 500) x
UNION ALL SELECT 'timestamptz', bloom_agg('2000-01-01 00:00+00'::timestamptz + x * interval '1 s') FROM generate_series(1, 500) x
UNION ALL SELECT 'fixed', bloom_agg(x, 100000, 0.001) FROM generate_series(1, 500) x;
SELECT family, (bloom_info(f)).key_family, f::text::bloom = f AS text_ok, f::bytea::bloom = f AS bytea_ok,
       f::text::bloom::text = f::text AS text_exact
FROM io_many ORDER BY family COLLATE "C";
-- Through a table: INSERT of the text form and of the bytea cast.
CREATE TEMP TABLE io_copy (family text, f bloom);
INSERT INTO io_copy SELECT family, f::text::bloom FROM io_many;
INSERT INTO io_copy SELECT family || ' via bytea', f::bytea::bloom FROM io_many;
SELECT count(*) AS rows, count(*) FILTER (WHERE c.f = m.f) AS equal
FROM io_copy c JOIN io_many m ON c.family IN (m.family, m.family || ' via bytea');
DROP TABLE io_copy;

-- ---------------------------------------------------------------------------
-- Binary send/recv: psql's \copy in binary format sends the format bytes to
-- bloom_recv.  A bytea column's binary form is its bytes, so a bytea column
-- copied out in binary can be copied into a bloom column: that is how the
-- bad values below reach bloom_recv.
-- ---------------------------------------------------------------------------
-- (\copy does not expand variables: work in the output directory, where
-- pg_regress made results/.)
\getenv abs_builddir PG_ABS_BUILDDIR
\cd :abs_builddir
CREATE TEMP TABLE io_recv (family text, f bloom);
\copy (SELECT family, f FROM io_many) TO 'results/bloom_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/bloom_io.bin' WITH (FORMAT binary)
SELECT count(*) AS rows, count(*) FILTER (WHERE r.f = m.f) AS equal
FROM io_recv r JOIN io_many m USING (family);
-- The same, as bytea: bloom_recv accepts the bytes of a valid filter.
CREATE TEMP TABLE io_bytes (family text, b bytea);
TRUNCATE io_recv;
INSERT INTO io_bytes SELECT family, f::bytea FROM io_many;
\copy io_bytes TO 'results/bloom_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/bloom_io.bin' WITH (FORMAT binary)
SELECT count(*) FILTER (WHERE r.f = m.f) AS equal FROM io_recv r JOIN io_many m USING (family);
-- ... and rejects bad bytes with 22P03 (invalid_binary_representation);
-- the error shows once with its message and once as its SQLSTATE.
TRUNCATE io_bytes, io_recv;
INSERT INTO io_bytes SELECT 'bad version', set_byte(f::bytea, 4, 2) FROM io_good;
\copy io_bytes TO 'results/bloom_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/bloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/bloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
TRUNCATE io_bytes;
INSERT INTO io_bytes SELECT 'padding bits', set_byte(f::bytea, 50, 128) FROM io_good;
\copy io_bytes TO 'results/bloom_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/bloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/bloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
TRUNCATE io_bytes;
INSERT INTO io_bytes SELECT 'too short', '\x42534b54'::bytea;
\copy io_bytes TO 'results/bloom_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/bloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/bloom_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
SELECT count(*) AS rows_loaded_by_bad_copies FROM io_recv;
DROP TABLE io_recv, io_bytes;

-- ---------------------------------------------------------------------------
-- Text input errors: 22P02 (invalid_text_representation)
-- ---------------------------------------------------------------------------
-- Not hex at all / no "\x" prefix.
SELECT 'zz'::bloom;
\echo SQLSTATE :SQLSTATE
SELECT ''::bloom;
\echo SQLSTATE :SQLSTATE
SELECT 'x42534b54'::bloom;
\echo SQLSTATE :SQLSTATE
-- A non-hex digit: the position is 1-based in the text.
SELECT '\x42534g'::bloom;
\echo SQLSTATE :SQLSTATE
SELECT overlay(f::text placing 'zz' from 11 for 2)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT (f::text || ' ')::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- An odd number of hex digits.
SELECT '\x0'::bloom;
\echo SQLSTATE :SQLSTATE
SELECT substr(f::text, 1, length(f::text) - 1)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- Too short: less than the 48-byte header.
SELECT '\x'::bloom;
\echo SQLSTATE :SQLSTATE
SELECT substr(f::text, 1, 2 + 2 * 47)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- The other checks are the same for text and bytea; here via text.
SELECT ('\x' || encode(set_byte(f::bytea, 0, ascii('X')), 'hex'))::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT ('\x' || encode(set_byte(f::bytea, 24, 65), 'hex'))::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Validation of the format bytes (bytea cast): 22P03
-- ---------------------------------------------------------------------------
-- too short: empty, 1 byte, the header alone minus one byte
SELECT '\x'::bytea::bloom;
\echo SQLSTATE :SQLSTATE
SELECT '\x00'::bytea::bloom;
\echo SQLSTATE :SQLSTATE
SELECT substr(f::bytea, 1, 47)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- bad magic: "XSKT", and the magic's bytes in the wrong order
SELECT set_byte(f::bytea, 0, ascii('X'))::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT overlay(f::bytea placing 'TKSB'::bytea from 1 for 4)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- wrong format version: 0, 2, 255
SELECT set_byte(f::bytea, 4, 0)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 4, 2)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 4, 255)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- wrong kind: 2 is a bloom_agg_state, 0 and 9 are no kind at all
SELECT set_byte(f::bytea, 5, 2)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 5, 0)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 5, 9)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- a real bloom_agg_state (the text form of a hand-built empty exact state:
-- kind 2, 16 slots, fpr 0.01) is not a bloom
SELECT ('\x42534b5401020100' || '0000000000000000' || '1000000000000000' || '00000000'
        || '00000000' || '0000000000000000' || '7b14ae47e17a843f' || repeat('00', 128))::bloom_agg_state IS NOT NULL
       AS valid_state;
SELECT ('\x42534b5401020100' || '0000000000000000' || '1000000000000000' || '00000000'
        || '00000000' || '0000000000000000' || '7b14ae47e17a843f' || repeat('00', 128))::bloom;
\echo SQLSTATE :SQLSTATE
SELECT decode('42534b5401020100' || '0000000000000000' || '1000000000000000' || '00000000'
        || '00000000' || '0000000000000000' || '7b14ae47e17a843f' || repeat('00', 128), 'hex')::bloom;
\echo SQLSTATE :SQLSTATE
-- unknown hash algorithm: 0, 2
SELECT set_byte(f::bytea, 6, 0)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 6, 2)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- unknown key family: 10 (one past timestamptz), 255; 0..9 are valid
SELECT set_byte(f::bytea, 7, 10)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 7, 255)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT fam, (bloom_info(set_byte(f::bytea, 7, fam)::bloom)).key_family
FROM io_good, generate_series(0, 9) fam ORDER BY fam;
-- m = 0
SELECT set_byte(f::bytea, 16, 0)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- m = 2^32 + 20 (byte 20 = 1): would need 512 MB of payload
SELECT set_byte(f::bytea, 20, 1)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- m = 2^56 + 20 (byte 23 = 1): past the 1 GB limit
SELECT set_byte(f::bytea, 23, 1)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- k = 0, k = 65, k = 2^24 + 2; k = 64 is fine
SELECT set_byte(f::bytea, 24, 0)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 24, 65)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 27, 1)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT hashes FROM io_good, bloom_info(set_byte(f::bytea, 24, 64)::bloom);
-- payload length mismatch: one byte more, one byte less, m = 25 needs 4 bytes
SELECT (f::bytea || '\x00'::bytea)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT substr(f::bytea, 1, 50)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT substr(f::bytea, 1, 48)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 16, 25)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- m = 17..24 keeps 3 payload bytes: valid as long as no bit past m is set
SELECT bits FROM io_good, bloom_info(set_byte(f::bytea, 16, 24)::bloom);
-- padding bits set: m = 20, so bits 4..7 of the last byte must be zero
SELECT get_byte(f::bytea, 50) < 16 AS padding_clear FROM io_good;
SELECT set_byte(f::bytea, 50, get_byte(f::bytea, 50) | 16)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 50, 128)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- ... a filter whose last payload bit is set with m = 17 is invalid, m = 24 not
SELECT set_byte(set_byte(f::bytea, 16, 17), 50, 1)::bloom IS NOT NULL AS bit_16_ok FROM io_good;
SELECT set_byte(set_byte(f::bytea, 16, 17), 50, 2)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- layout (p3, byte 28): 1 (blocked) needs a multiple of 512 bits, 2 and 3 are
-- growable (bloom_growable.sql), whose header a fixed filter's fails, 4 and
-- above are unknown
SELECT set_byte(f::bytea, 28, 1)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 28, 2)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 28, 4)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(bloom_empty_bits(1024, 3, 'blocked')::bytea, 31, 1)::bloom;
\echo SQLSTATE :SQLSTATE
-- reserved fields nonzero: bytes 32 (n), 40 and 47 (x)
SELECT set_byte(f::bytea, 35, 1)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 40, 1)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(f::bytea, 47, 128)::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- Each byte of the header and payload set to 0xff and to 0x00: which
-- changes are caught (the SQLSTATE) and which leave a valid filter ("ok":
-- the seed is free, family 0 is "none", zero bytes of m and k above the
-- lowest do not change them, payload bits below m are data).
CREATE FUNCTION pg_temp.io_try(b bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM b::bloom;
  RETURN 'ok';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE;
END $$;
SELECT to_ff, to_00, string_agg(i::text, ',' ORDER BY i) AS bytes
FROM (SELECT i, pg_temp.io_try(set_byte(f::bytea, i, 255)) AS to_ff,
             pg_temp.io_try(set_byte(f::bytea, i, 0)) AS to_00
      FROM io_good, generate_series(0, 50) i) s
GROUP BY to_ff, to_00 ORDER BY min(i);

DROP TABLE io_good, io_many;
