--
-- topk_io: text, bytea and binary (send/recv) forms of topk, and the
-- validation every way in applies (bs_validate, bs_topk_check in
-- src/core/topk.c): 22P02 for text, 22P03 for binary and the bytea cast.
--
-- Layout (0-based byte offsets, little-endian; doc/format.md):
--   0 magic "BSKT", 4 version 1, 5 kind 4, 6 hash algorithm 1, 7 key family,
--   8 seed (8), 16 p1 = width (8), 24 p2 = depth (4), 28 p3 = k (4),
--   32 n = total (8), 40 x = candidates (4) and key bytes used (4);
--   then width x depth counters of 8 bytes, 2k candidate slots of 24 bytes
--   {hash 8, estimate 8, offset 4, length 4}, then the key bytes.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

SET extra_float_digits = 1;
-- Little-endian bytes of an integer, and bytes written at a 0-based offset.
CREATE FUNCTION pg_temp.le(v bigint, n integer) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(set_byte('\x00'::bytea, 0, ((v >> (8 * i)) & 255)::integer), ''::bytea ORDER BY i)
  FROM generate_series(0, n - 1) i
$$;
CREATE FUNCTION pg_temp.put(b bytea, off integer, v bytea) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT overlay(b placing v from off + 1 for length(v))
$$;
-- The SQLSTATE of casting bytes to topk, or 'ok'.
CREATE FUNCTION pg_temp.io_try(b bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM b::topk;
  RETURN 'ok';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE;
END $$;

-- A valid sketch of 'a', 'b', 'b', 'c', 'c', 'c' with k = 2, width 8 and depth 1
-- (epsilon 0.34, delta 0.5): 211 bytes.  Counters at 48 (8 of them), the 4
-- slots at 112, 136, 160 and 184 (the last unused), the key bytes "cba" at
-- 208.  Its bytes pin the format and the counter positions
-- (src/core/hash.h), which clients outside the database reproduce from
-- bloomsketch_hash().
CREATE TEMP TABLE io_good AS
SELECT topk_agg(v, 2, 0.34, 0.5) AS t FROM unnest(ARRAY['a', 'b', 'b', 'c', 'c', 'c']) v;
SELECT t FROM io_good;
SELECT k, width, depth, total, candidates, bytes, key_family, format_version FROM io_good, topk_info(t);
SELECT * FROM topk_items((SELECT t FROM io_good));
-- The slots hold the canonical hashes of the values, most frequent first.
SELECT substr(t::bytea, 113, 8) = pg_temp.le(bloomsketch_hash('c'::text), 8) AS slot0_is_c,
       substr(t::bytea, 137, 8) = pg_temp.le(bloomsketch_hash('b'::text), 8) AS slot1_is_b,
       substr(t::bytea, 161, 8) = pg_temp.le(bloomsketch_hash('a'::text), 8) AS slot2_is_a,
       substr(t::bytea, 185, 24) = '\x000000000000000000000000000000000000000000000000'::bytea AS slot3_unused,
       substr(t::bytea, 209) = 'cba'::bytea AS key_bytes
FROM io_good;

-- ---------------------------------------------------------------------------
-- Round trips
-- ---------------------------------------------------------------------------
SELECT t::text::topk::bytea = t::bytea AS text_round_trip,
       t::bytea::topk::bytea = t::bytea AS bytea_round_trip,
       t::bytea = decode(substr(t::text, 3), 'hex') AS bytea_is_the_text_bytes,
       topk_send(t) = t::bytea AS send_is_the_format_bytes,
       length(t::bytea) AS format_bytes
FROM io_good;
-- Upper-case hex digits are accepted (output is lower case); the prefix must
-- be "\x".
SELECT ('\x' || upper(substr(t::text, 3)))::topk::text = t::text AS upper_case_digits FROM io_good;
SELECT upper(t::text)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- Every key family, and larger sketches, survive the text and bytea forms.
CREATE TEMP TABLE io_many AS
SELECT 'integer' AS family, topk_agg(x % 97, 5) AS t FROM generate_series(1, 5000) x
UNION ALL SELECT 'text', topk_agg((x % 37)::text, 5) FROM generate_series(1, 500) x
UNION ALL SELECT 'bytea', topk_agg(int4send(x % 37), 5) FROM generate_series(1, 500) x
UNION ALL SELECT 'uuid', topk_agg(md5((x % 37)::text)::uuid, 5) FROM generate_series(1, 500) x
UNION ALL SELECT 'float', topk_agg((x % 37) / 7.0::float8, 5) FROM generate_series(1, 500) x
UNION ALL SELECT 'numeric', topk_agg((x % 37) / 7.0, 5) FROM generate_series(1, 500) x
UNION ALL SELECT 'date', topk_agg('2000-01-01'::date + x % 37, 5) FROM generate_series(1, 500) x
UNION ALL SELECT 'timestamp', topk_agg('2000-01-01'::timestamp + (x % 37) * interval '1 s', 5) FROM generate_series(1, 500) x
UNION ALL SELECT 'timestamptz', topk_agg('2000-01-01 00:00+00'::timestamptz + (x % 37) * interval '1 s', 5) FROM generate_series(1, 500) x
UNION ALL SELECT 'k 1000', topk_agg(x, 1000, 0.01, 0.05) FROM generate_series(1, 5000) x;
SELECT family, (topk_info(t)).key_family, (topk_info(t)).candidates,
       t::text::topk::bytea = t::bytea AS text_ok, t::bytea::topk::bytea = t::bytea AS bytea_ok,
       t::text::topk::text = t::text AS text_exact
FROM io_many ORDER BY family COLLATE "C";
-- Through a table (where the values are stored compressed): INSERT of the
-- text form and of the bytea cast, read back equal.
CREATE TEMP TABLE io_copy (family text, t topk);
INSERT INTO io_copy SELECT family, t::text::topk FROM io_many;
INSERT INTO io_copy SELECT family || ' via bytea', t::bytea::topk FROM io_many;
SELECT count(*) AS rows, count(*) FILTER (WHERE c.t::bytea = m.t::bytea) AS equal,
       count(*) FILTER (WHERE pg_column_size(c.t) < length(c.t::bytea)) AS stored_compressed
FROM io_copy c JOIN io_many m ON c.family IN (m.family, m.family || ' via bytea');
DROP TABLE io_copy;

-- ---------------------------------------------------------------------------
-- Binary send/recv: binary COPY sends the format bytes to topk_recv.  A bytea
-- column copied out in binary can be copied into a topk column: that is how
-- the bad values below reach topk_recv.
-- ---------------------------------------------------------------------------
\getenv abs_builddir PG_ABS_BUILDDIR
\cd :abs_builddir
CREATE TEMP TABLE io_recv (family text, t topk);
\copy (SELECT family, t FROM io_many) TO 'results/topk_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/topk_io.bin' WITH (FORMAT binary)
SELECT count(*) AS rows, count(*) FILTER (WHERE r.t::bytea = m.t::bytea) AS equal
FROM io_recv r JOIN io_many m USING (family);
-- The same, as bytea: topk_recv accepts the bytes of a valid sketch.
CREATE TEMP TABLE io_bytes (family text, b bytea);
TRUNCATE io_recv;
INSERT INTO io_bytes SELECT family, t::bytea FROM io_many;
\copy io_bytes TO 'results/topk_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/topk_io.bin' WITH (FORMAT binary)
SELECT count(*) FILTER (WHERE r.t::bytea = m.t::bytea) AS equal FROM io_recv r JOIN io_many m USING (family);
-- ... and rejects bad bytes with 22P03 (the message, then the SQLSTATE).
TRUNCATE io_bytes, io_recv;
INSERT INTO io_bytes SELECT 'k = 0', set_byte(t::bytea, 28, 0) FROM io_good;
\copy io_bytes TO 'results/topk_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/topk_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/topk_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
TRUNCATE io_bytes;
INSERT INTO io_bytes SELECT 'key does not match its hash', set_byte(t::bytea, 208, ascii('x')) FROM io_good;
\copy io_bytes TO 'results/topk_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/topk_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/topk_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
TRUNCATE io_bytes;
INSERT INTO io_bytes SELECT 'truncated', substr(t::bytea, 1, 200) FROM io_good;
\copy io_bytes TO 'results/topk_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/topk_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/topk_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
SELECT count(*) AS rows_loaded_by_bad_copies FROM io_recv;
DROP TABLE io_recv, io_bytes;

-- ---------------------------------------------------------------------------
-- Text input errors: 22P02
-- ---------------------------------------------------------------------------
SELECT 'zz'::topk;
\echo SQLSTATE :SQLSTATE
SELECT ''::topk;
\echo SQLSTATE :SQLSTATE
SELECT '\x0'::topk;
\echo SQLSTATE :SQLSTATE
SELECT '\x'::topk;
\echo SQLSTATE :SQLSTATE
SELECT (t::text || ' ')::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT substr(t::text, 1, 2 + 2 * 210)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- The checks of the bytes are those of the bytea cast below; via text, 22P02.
SELECT ('\x' || encode(set_byte(t::bytea, 28, 0), 'hex'))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT ('\x' || encode(set_byte(t::bytea, 208, ascii('x')), 'hex'))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Validation of the format bytes (bytea cast): 22P03
-- ---------------------------------------------------------------------------
-- too short: empty, the header alone
SELECT '\x'::bytea::topk;
\echo SQLSTATE :SQLSTATE
SELECT substr(t::bytea, 1, 48)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- magic, version, kind, hash algorithm, key family
SELECT set_byte(t::bytea, 0, ascii('X'))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 4, 2)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 5, 3)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 5, 5)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 6, 2)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 7, 10)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- a sketch of another kind is not a topk, nor a topk another kind
SELECT (SELECT bloom_agg(x) FROM generate_series(1, 10) x)::bytea::topk;
\echo SQLSTATE :SQLSTATE
SELECT t::bytea::bloom FROM io_good;
\echo SQLSTATE :SQLSTATE
-- k (p3, offset 28): 0, 10001, 2^32 - 1; 3 and 1 do not fit the slots
SELECT pg_temp.put(t::bytea, 28, pg_temp.le(0, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 28, pg_temp.le(10001, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 28, pg_temp.le(4294967295, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 28, pg_temp.le(3, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 28, pg_temp.le(1, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- width (p1, offset 16) 0, 9 and 2^62; depth (p2, offset 24) 0, 65 and 2
SELECT pg_temp.put(t::bytea, 16, pg_temp.le(0, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 16, pg_temp.le(9, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 16, pg_temp.le(4611686018427387904, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 24, pg_temp.le(0, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 24, pg_temp.le(65, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 24, pg_temp.le(2, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- total (n, offset 32): past 2^63 - 1; one more or less than every counter
-- row sums to
SELECT pg_temp.put(t::bytea, 32, pg_temp.le(-1, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 32, pg_temp.le(7, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 32, pg_temp.le(5, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- counters: one raised (its row no longer sums to the total); one unit
-- moved from c's counter to an empty one (the row still sums to 6: valid,
-- the format does not tie the candidates' stored estimates to the counters)
SELECT set_byte(t::bytea, 48, 1)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.io_try(set_byte(set_byte(t::bytea, 48, 1), 64, 2)) AS counter_moved FROM io_good;
-- x (offset 40): more candidates than the 2k = 4 slots; more key bytes used
-- than there are; a candidate less than the slots hold (data in an unused
-- slot); a key byte less than the candidates use
SELECT pg_temp.put(t::bytea, 40, pg_temp.le(5, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 44, pg_temp.le(4, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 40, pg_temp.le(2, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 44, pg_temp.le(2, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- candidate slots: offset or length pointing outside the key bytes
SELECT pg_temp.put(t::bytea, 160 + 16, pg_temp.le(3, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 160 + 16, pg_temp.le(4294967295, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 160 + 20, pg_temp.le(2, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 112 + 20, pg_temp.le(4294967295, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- a candidate counting more than the total; the total itself is fine
SELECT pg_temp.put(t::bytea, 112 + 8, pg_temp.le(7, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 112 + 8, pg_temp.le(-1, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.io_try(pg_temp.put(t::bytea, 112 + 8, pg_temp.le(6, 8))) AS estimate_of_6 FROM io_good;
-- a candidate whose key does not match its hash: a key byte changed, the
-- hash changed, two keys swapped, a key one byte longer
SELECT set_byte(t::bytea, 208, ascii('x'))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 112, get_byte(t::bytea, 112) # 1)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 208, 'bca'::bytea)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 112 + 20, pg_temp.le(2, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- ... but the slots themselves may come in any order (the canonical order is
-- what topk_agg writes, not a rule of the format)
SELECT * FROM topk_items((SELECT pg_temp.put(pg_temp.put(t::bytea, 112, substr(t::bytea, 137, 24)), 136, substr(t::bytea, 113, 24))::topk
                          FROM io_good));
-- data in the unused slot (any of its fields)
SELECT set_byte(t::bytea, 184, 1)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 184 + 8, 1)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 184 + 23, 1)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- Every truncation of the canonical value is rejected; bytes appended are
-- spare room for key bytes (the aggregate's state has some) and are valid.
SELECT count(*) AS truncations, count(*) FILTER (WHERE pg_temp.io_try(substr(t::bytea, 1, len)) = '22P03') AS rejected
FROM io_good, generate_series(0, 210) len;
SELECT k, candidates, bytes FROM topk_info((SELECT (t::bytea || '\x0000000000'::bytea)::topk FROM io_good));
SELECT * FROM topk_items((SELECT (t::bytea || '\xdeadbeef'::bytea)::topk FROM io_good));
-- Each byte set to 0xff and to 0x00: which changes are caught (the SQLSTATE)
-- and which leave a valid sketch.  Every 0xff is caught (a seed other than 0
-- no longer hashes the keys to their slots' hashes).  0x00 is "ok" where the
-- byte is 0 already, and for byte 7 (family 0, "none") and bytes 120, 144,
-- 168 (a stored estimate lowered to 0: topk_items reads the counters).
SELECT to_ff, to_00, string_agg(i::text, ',' ORDER BY i) AS bytes
FROM (SELECT i, pg_temp.io_try(set_byte(t::bytea, i, 255)) AS to_ff,
             pg_temp.io_try(set_byte(t::bytea, i, 0)) AS to_00
      FROM io_good, generate_series(0, 210) i) s
GROUP BY to_ff, to_00 ORDER BY min(i);

-- ---------------------------------------------------------------------------
-- Values the validator must also reject (each is 22P03 when fixed; they
-- reach topk_items otherwise)
-- ---------------------------------------------------------------------------
-- Two slots for the same value: slot 0 (c) copied onto slot 1 (b).  Accepted,
-- topk_items would list c twice.
SELECT pg_temp.io_try(pg_temp.put(t::bytea, 136, substr(t::bytea, 113, 24))) AS duplicate_candidate FROM io_good;
-- A uuid sketch with a second candidate of 0 key bytes (with the hash of 0
-- bytes) at the end of its key bytes: topk_items would copy 16 bytes from
-- past the end of the value.
SELECT pg_temp.io_try(pg_temp.put(pg_temp.put(t::bytea, 136,
           pg_temp.le(bloomsketch_hash(''::bytea), 8) || pg_temp.le(1, 8) || pg_temp.le(16, 4) || pg_temp.le(0, 4)),
         40, pg_temp.le(2, 4) || pg_temp.le(16, 4))) AS uuid_key_of_0_bytes
FROM (SELECT topk_agg(v, 2, 0.34, 0.5) AS t FROM (VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')) s(v)) u;
-- An integer sketch whose candidate has 3 key bytes (not 8), with their hash.
SELECT pg_temp.io_try(pg_temp.put(pg_temp.put(t::bytea, 112, pg_temp.le(bloomsketch_hash('\x070000'::bytea), 8)),
                                  112 + 20, pg_temp.le(3, 4))) AS integer_key_of_3_bytes
FROM (SELECT topk_agg(7, 2, 0.34, 0.5) AS t) s;

DROP TABLE io_good, io_many;
RESET extra_float_digits;
