--
-- topk_v1: topk values of format 1, which bloomsketch 1.0 to 1.4 built
-- (src/core/topk_v1.c): still read as they were, with the same answers,
-- merged with each other, added to, listed and looked up by the functions
-- of 1.5, and refused with a hint when merged with a value of format 2.
-- The values here are literals: the bytes 1.4's topk_agg made (the 211-byte
-- one is the worked example of doc/format.md, section 9.4, whose topk_items
-- 1.4 printed as c 3, b 2).  Their text, bytea and binary forms and the
-- validation every way in applies (bs_topk1_check): 22P02 for text, 22P03
-- for binary and the bytea cast.
--
-- Layout of format 1 (0-based byte offsets, little-endian; doc/format.md):
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
SELECT '\x42534b540104010200000000000000000800000000000000010000000200000006000000000000000300000003000000000000000000000000000000000000000300000000000000000000000000000000000000000000000000000000000000010000000000000002000000000000001bf8b9469a21408c030000000000000000000000010000003f84d8441c0b5a57020000000000000001000000010000001f4e961eb632c6e601000000000000000200000001000000000000000000000000000000000000000000000000000000636261'::topk AS t;
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
-- Other format-1 values made by 1.4: topk_agg(x % 7, 3, 0.1, 0.2) over
-- 1..100, topk_agg(x * x % 97, 2, 0.2, 0.2) over 1..400 (with evictions), the
-- same shape over x * x % 89 for 1..300, a uuid seen twice and the integer 7
-- (k 2, epsilon 0.34, delta 0.5).
CREATE TEMP TABLE io_many AS
SELECT 'text' AS family, t FROM io_good
UNION ALL SELECT 'integer mod 7', '\x42534b540104010100000000000000001c000000000000000200000003000000640000000000000006000000300000000f000000000000000e000000000000000e00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e0000000000000000000000000000000f00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001d000000000000000e000000000000000f000000000000000000000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000000000000000000000000000000000043e2ee915cc686200f0000000000000000000000080000002e79db643559bc2f0f0000000000000008000000080000007d2ef4c12920924d0e0000000000000010000000080000003b676347da4b996b0e0000000000000018000000080000008ca7aa39aae9038e0e00000000000000200000000800000078715ed90a2922ca0e000000000000002800000008000000020000000000000001000000000000000300000000000000060000000000000005000000000000000400000000000000'::topk
UNION ALL SELECT 'integer squares mod 97', '\x42534b540104010100000000000000000e000000000000000200000002000000900100000000000004000000200000002a0000000000000018000000000000001a00000000000000110000000000000011000000000000004600000000000000180000000000000019000000000000001100000000000000200000000000000030000000000000001800000000000000110000000000000011000000000000003a00000000000000220000000000000008000000000000002200000000000000100000000000000011000000000000003a0000000000000031000000000000001000000000000000080000000000000021000000000000001d00000000000000180000000000000010000000000000009704751988af60073a0000000000000000000000080000004626753874f405503a00000000000000080000000800000055e4e625dfa6e8e63a000000000000001000000008000000ebe59d0c5b23c076300000000000000018000000080000000900000000000000410000000000000031000000000000004800000000000000'::topk
UNION ALL SELECT 'integer squares mod 89', '\x42534b540104010100000000000000000e0000000000000002000000020000002c0100000000000004000000200000001a00000000000000150000000000000029000000000000001b000000000000000d0000000000000024000000000000000e000000000000000d0000000000000013000000000000000d000000000000001c00000000000000070000000000000007000000000000002300000000000000220000000000000045000000000000000d000000000000001a000000000000000c0000000000000015000000000000002a000000000000000e000000000000000d0000000000000000000000000000000d0000000000000011000000000000000600000000000000140000000000000055e4e625dfa6e8e6240000000000000000000000080000007816d64fa3c3736223000000000000000800000008000000069f315984fa397423000000000000001000000008000000c827df38c8f8a6d5220000000000000018000000080000003100000000000000540000000000000015000000000000002a00000000000000'::topk
UNION ALL SELECT 'uuid', '\x42534b5401040104000000000000000008000000000000000100000002000000020000000000000001000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000067376d2c4869df5502000000000000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000a0eebc999c0b4ef8bb6d6bb9bd380a11'::topk
UNION ALL SELECT 'integer 7', '\x42534b54010401010000000000000000080000000000000001000000020000000100000000000000010000000800000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000af96b5d6581e6781010000000000000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000700000000000000'::topk;
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
-- magic, version (2 reads the bytes as format 2, which they are not; 3 is
-- unknown), kind, hash algorithm, key family
SELECT set_byte(t::bytea, 0, ascii('X'))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 4, 2)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 4, 3)::topk FROM io_good;
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
FROM io_many WHERE family = 'uuid';
-- An integer sketch whose candidate has 3 key bytes (not 8), with their hash.
SELECT pg_temp.io_try(pg_temp.put(pg_temp.put(t::bytea, 112, pg_temp.le(bloomsketch_hash('\x070000'::bytea), 8)),
                                  112 + 20, pg_temp.le(3, 4))) AS integer_key_of_3_bytes
FROM io_many WHERE family = 'integer 7';

-- ---------------------------------------------------------------------------
-- What 1.5 does with format-1 values
-- ---------------------------------------------------------------------------
SELECT family, (topk_info(t)).format_version, (topk_info(t)).k, (topk_info(t)).capacity,
       (topk_info(t)).candidates, (topk_info(t)).untracked_max, (topk_info(t)).total
FROM io_many ORDER BY family COLLATE "C";
-- topk_items lists k values as 1.4 did, estimates from the counters (never
-- below the true count); x % 7 over 1..100: 1 and 2 occur 15 times, the
-- others 14.
SELECT * FROM topk_items((SELECT t FROM io_many WHERE family = 'integer mod 7'));
-- Up to the 2k candidates with n; past them, 22023.
SELECT * FROM topk_items((SELECT t FROM io_many WHERE family = 'integer mod 7'), 6);
SELECT * FROM topk_items((SELECT t FROM io_many WHERE family = 'integer mod 7'), 7);
\echo SQLSTATE :SQLSTATE
-- Bounds: the estimate is the upper bound; format 1 has no lower bound but 0.
SELECT * FROM topk_items_bounds((SELECT t FROM io_good));
SELECT * FROM topk_bounds((SELECT t FROM io_good), 'c'), topk_bounds((SELECT t FROM io_good), 'zzz') z;
SELECT (SELECT t FROM io_good) -> 'c' AS c_at_most, (SELECT t FROM io_good) -> 'zzz' AS zzz_at_most;
-- topk_add keeps the format and adds as 1.4 did.
SELECT (topk_info(topk_add(t, 'b', 5))).format_version, value, frequency
FROM io_good, topk_items(topk_add(t, 'b', 5));
-- Two format-1 sketches of the same shape merge as in 1.4, into format 1.
SELECT (topk_info(u)).format_version, (topk_info(u)).total, (SELECT string_agg(value || '=' || frequency, ' ') FROM topk_items(u)) AS items
FROM (SELECT topk_union_agg(t) AS u FROM io_many WHERE family LIKE 'integer squares%') s;
-- A format-1 and a format-2 sketch do not merge, in either order (22023),
-- whatever their shapes: the message says how to rebuild.
SELECT topk_union_agg(t) FROM (SELECT t FROM io_many WHERE family = 'integer squares mod 97'
                               UNION ALL SELECT topk_agg(x * x % 97, 2, 0.2, 0.2) FROM generate_series(1, 400) x) s;
\echo SQLSTATE :SQLSTATE
SELECT topk_union_agg(t) FROM (SELECT topk_agg(x * x % 97, 2, 0.2, 0.2) AS t FROM generate_series(1, 400) x
                               UNION ALL SELECT t FROM io_many WHERE family = 'integer squares mod 97') s;
\echo SQLSTATE :SQLSTATE
-- Rebuilt from its rows, the same data makes a format-2 sketch with bounds.
SELECT (topk_info(t)).format_version, value, frequency, lower_bound, upper_bound
FROM (SELECT topk_agg(x * x % 97, 2, 0.2, 0.2) AS t FROM generate_series(1, 400) x) s, topk_items_bounds(t);
-- = and the hash operator class compare the bytes as before.
SELECT a.t = b.t AS same, a.t = topk_add(b.t, 'b', 0) AS add_0_canonical FROM io_good a, io_good b;

DROP TABLE io_good, io_many;
RESET extra_float_digits;
