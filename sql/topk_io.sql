--
-- topk_io: text, bytea and binary (send/recv) forms of topk values of
-- format 2 (1.5), and the validation every way in applies (bs_validate,
-- check_v2 in src/core/topk.c): 22P02 for text, 22P03 for binary and the
-- bytea cast.  Values of format 1 (1.0 to 1.4) are in topk_v1.
--
-- Layout of format 2 (0-based byte offsets, little-endian; doc/format.md):
--   0 magic "BSKT", 4 version 2, 5 kind 4, 6 hash algorithm 1, 7 key family,
--   8 seed (8), 16 p1 = width (8), 24 p2 = depth (4), 28 p3 = k (4),
--   32 n = total (8), 40 x = capacity (4) and values held (4);
--   then width x depth counters of 8 bytes, the floor (8), a record of 20
--   bytes {lower 8, upper 8, key end 4} per value held, in increasing order of
--   the values' hashes, then the key bytes.
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
-- (epsilon 0.34, delta 0.5, so capacity max(2k, ceil(1 / 0.34)) = 4): 183
-- bytes.  Counters at 48 (8 of them), the floor at 112, the records of the 3
-- values at 120, 140 and 160, the key bytes at 180.  Its bytes pin the
-- format and the counter positions (src/core/hash.h), which clients outside
-- the database reproduce from bloomsketch_hash().
CREATE TEMP TABLE io_good AS
SELECT topk_agg(v, 2, 0.34, 0.5) AS t FROM unnest(ARRAY['a', 'b', 'b', 'c', 'c', 'c']) v;
SELECT t FROM io_good;
SELECT k, capacity, width, depth, total, candidates, untracked_max, bytes, key_family, format_version
FROM io_good, topk_info(t);
SELECT * FROM topk_items_bounds((SELECT t FROM io_good));
-- The records are in increasing order of the values' hashes (b, c, a), each
-- {lower, upper, end of its key bytes}; the key bytes follow in that order.
SELECT bloomsketch_hash('b'::text)::bit(64) < bloomsketch_hash('c'::text)::bit(64)
       AND bloomsketch_hash('c'::text)::bit(64) < bloomsketch_hash('a'::text)::bit(64) AS b_c_a_in_hash_order,
       substr(t::bytea, 113, 8) = pg_temp.le(0, 8) AS floor_0,
       substr(t::bytea, 121, 20) = pg_temp.le(2, 8) || pg_temp.le(2, 8) || pg_temp.le(1, 4) AS record_of_b,
       substr(t::bytea, 141, 20) = pg_temp.le(3, 8) || pg_temp.le(3, 8) || pg_temp.le(2, 4) AS record_of_c,
       substr(t::bytea, 161, 20) = pg_temp.le(1, 8) || pg_temp.le(1, 8) || pg_temp.le(3, 4) AS record_of_a,
       substr(t::bytea, 181) = 'bca'::bytea AS key_bytes
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
-- Every key family, and larger sketches (k 1000; one that dropped values, so
-- its floor is above 0), survive the text and bytea forms.
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
UNION ALL SELECT 'k 1000', topk_agg(x, 1000, 0.01, 0.05) FROM generate_series(1, 5000) x
UNION ALL SELECT 'dropped values', topk_agg(x % 300, 5, 0.02, 0.05) FROM generate_series(1, 3000) x;
SELECT family, (topk_info(t)).key_family, (topk_info(t)).capacity, (topk_info(t)).candidates,
       (topk_info(t)).untracked_max, t::text::topk::bytea = t::bytea AS text_ok,
       t::bytea::topk::bytea = t::bytea AS bytea_ok, t::text::topk::text = t::text AS text_exact
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
-- ... and rejects bad bytes with 22P03 (the message, then the SQLSTATE).
CREATE TEMP TABLE io_bytes (family text, b bytea);
TRUNCATE io_recv;
INSERT INTO io_bytes SELECT 'k = 0', set_byte(t::bytea, 28, 0) FROM io_good;
\copy io_bytes TO 'results/topk_io.bin' WITH (FORMAT binary)
\copy io_recv FROM 'results/topk_io.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy io_recv FROM 'results/topk_io.bin' WITH (FORMAT binary)
\set VERBOSITY default
TRUNCATE io_bytes;
INSERT INTO io_bytes SELECT 'keys out of hash order', pg_temp.put(t::bytea, 180, 'cba'::bytea) FROM io_good;
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
SELECT '\x0'::topk;
\echo SQLSTATE :SQLSTATE
SELECT (t::text || ' ')::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT substr(t::text, 1, 2 + 2 * 182)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- The checks of the bytes are those of the bytea cast below; via text, 22P02.
SELECT ('\x' || encode(set_byte(t::bytea, 28, 0), 'hex'))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT ('\x' || encode(pg_temp.put(t::bytea, 180, 'cba'::bytea), 'hex'))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Validation of the format bytes (bytea cast): 22P03
-- ---------------------------------------------------------------------------
-- too short: empty, the header alone
SELECT '\x'::bytea::topk;
\echo SQLSTATE :SQLSTATE
SELECT substr(t::bytea, 1, 48)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- magic, version (0 and 3 unknown; 1 reads the bytes as format 1, which they
-- are not), kind, hash algorithm, key family
SELECT set_byte(t::bytea, 0, ascii('X'))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 4, 3)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 4, 0)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 4, 1)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 5, 3)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 6, 2)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 7, 10)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT set_byte(t::bytea, 7, 0)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- a sketch of another kind is not a topk, nor a topk another kind
SELECT (SELECT cms_agg(x) FROM generate_series(1, 10) x)::bytea::topk;
\echo SQLSTATE :SQLSTATE
SELECT t::bytea::cms FROM io_good;
\echo SQLSTATE :SQLSTATE
-- k (p3, offset 28): 0, 10001; 3 needs a capacity of at least 6
SELECT pg_temp.put(t::bytea, 28, pg_temp.le(0, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 28, pg_temp.le(10001, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 28, pg_temp.le(3, 4))::topk FROM io_good;
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
-- total (n, offset 32): past 2^63 - 1; one more than every counter row sums
-- to (only the deep check sums the rows); one less (then c's count passes it)
SELECT pg_temp.put(t::bytea, 32, pg_temp.le(-1, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 32, pg_temp.le(7, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 32, pg_temp.le(5, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- capacity (x, offset 40): below 2k, past 1,000,000; larger is valid (the
-- value holds 3, at most twice the capacity)
SELECT pg_temp.put(t::bytea, 40, pg_temp.le(3, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 40, pg_temp.le(1000001, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.io_try(pg_temp.put(t::bytea, 40, pg_temp.le(1000000, 4))) AS capacity_1000000 FROM io_good;
-- values held (offset 44): past twice the capacity; more records than the
-- value has room for; fewer (then key bytes are left over)
SELECT pg_temp.put(t::bytea, 44, pg_temp.le(9, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 44, pg_temp.le(4, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 44, pg_temp.le(2, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- the floor (offset 112): past the total; equal to it is valid
SELECT pg_temp.put(t::bytea, 112, pg_temp.le(7, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.io_try(pg_temp.put(t::bytea, 112, pg_temp.le(6, 8))) AS floor_6 FROM io_good;
-- counters: one raised (its row no longer sums to the total); one unit of c's
-- moved to another column (the row still sums to 6, but c's upper bound of 3
-- is then above its Count-Min estimate of 2)
SELECT set_byte(t::bytea, 48, 1)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.io_try(set_byte(set_byte(t::bytea, 48, 1), 64, 2)) AS counter_moved_from_c FROM io_good;
SELECT set_byte(set_byte(t::bytea, 48, 1), 64, 2)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- records: a lower count of 0; a lower count above the upper bound; an upper
-- bound past the total; lower counts that sum past the total
SELECT pg_temp.put(t::bytea, 120, pg_temp.le(0, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 120, pg_temp.le(3, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 128, pg_temp.le(7, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(pg_temp.put(t::bytea, 160, pg_temp.le(2, 8)), 168, pg_temp.le(2, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- ... an upper bound raised within the total but past the Count-Min estimate
-- (deep check); lowered to the lower count it is valid
SELECT pg_temp.put(t::bytea, 128, pg_temp.le(3, 8))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- key ends: decreasing, past the key bytes, a key too long for its family
SELECT pg_temp.put(t::bytea, 156, pg_temp.le(0, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 176, pg_temp.le(4, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 176, pg_temp.le(4294967295, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.put(t::bytea, 136, pg_temp.le(2, 4))::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- keys changed: out of hash order (refused); a key byte changed, a's to x,
-- which stays in hash order, and whose Count-Min estimate (in 8 columns, x
-- shares one with c) allows its count of 1: the format cannot tell that x
-- was never counted, and the value is valid (its bounds are then x's).
SELECT pg_temp.put(t::bytea, 180, 'cba'::bytea)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.io_try(set_byte(t::bytea, 182, ascii('x'))) AS a_renamed_x,
       (SELECT string_agg(value || ':' || lower_bound || '-' || upper_bound, ' ')
        FROM topk_items_bounds(set_byte(t::bytea, 182, ascii('x'))::topk, 3)) AS items
FROM io_good;
-- Every truncation of the value is rejected, and so is a byte appended (a
-- value of format 2 has no spare room).
SELECT count(*) AS truncations, count(*) FILTER (WHERE pg_temp.io_try(substr(t::bytea, 1, len)) = '22P03') AS rejected
FROM io_good, generate_series(0, 182) len;
SELECT (t::bytea || '\x00'::bytea)::topk FROM io_good;
\echo SQLSTATE :SQLSTATE
-- Each byte set to 0xff and to 0x00: which changes are caught (the SQLSTATE)
-- and which leave a valid sketch.  0x00 is "ok" where the byte is 0 already;
-- 0xff only for the capacity's two low bytes (255 and 65284 are capacities).
-- A seed with a byte of 0xff moves every value to other counters.
SELECT to_ff, to_00, string_agg(i::text, ',' ORDER BY i) AS bytes
FROM (SELECT i, pg_temp.io_try(set_byte(t::bytea, i, 255)) AS to_ff,
             pg_temp.io_try(set_byte(t::bytea, i, 0)) AS to_00
      FROM io_good, generate_series(0, 182) i) s
GROUP BY to_ff, to_00 ORDER BY min(i);

-- ---------------------------------------------------------------------------
-- Values the validator must also reject (each is 22P03 when fixed; they
-- would reach topk_items otherwise)
-- ---------------------------------------------------------------------------
-- A value held twice: b's record and key copied over a's (its hash then
-- repeats, out of strict order).
SELECT pg_temp.io_try(pg_temp.put(pg_temp.put(t::bytea, 160, substr(t::bytea, 121, 16)), 182, 'b'::bytea)) AS b_held_twice
FROM io_good;
-- A uuid sketch whose value has 0 key bytes, the 16 following bytes beyond
-- the end: the records end the key at 0.
SELECT pg_temp.io_try(pg_temp.put(t::bytea, length(t::bytea) - 16 - 4, pg_temp.le(0, 4))) AS uuid_key_of_0_bytes
FROM (SELECT topk_agg(v, 2, 0.34, 0.5) AS t FROM (VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')) s(v)) u;
-- An integer sketch whose value has 3 key bytes (not 8), with the bytes cut.
SELECT pg_temp.io_try(substr(pg_temp.put(t::bytea, length(t::bytea) - 8 - 4, pg_temp.le(3, 4)), 1, length(t::bytea) - 5))
       AS integer_key_of_3_bytes
FROM (SELECT topk_agg(7, 2, 0.34, 0.5) AS t) s;

DROP TABLE io_good, io_many;
RESET extra_float_digits;
