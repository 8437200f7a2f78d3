--
-- hostile_input: bytes from outside can never hurt the server.  Valid
-- sketches of every kind (bloom; bloom_agg_state in its exact, exact with the
-- zero hash, dense, fixed, counting and counting with the zero hash forms;
-- cms; topk with text and with integer keys, and of format 1 as 1.4 made
-- them; cbloom with 4-bit and 8-bit counters) are mutated tens of thousands
-- of times, deterministically:
--   overwrite    every byte set to 0, 1, 2, 127, 128, 254 and 255
--   bit flip     every bit of every byte flipped
--   truncate     every prefix (the empty one included)
--   extend       1 to 8 bytes appended
--   field value  a header field set to a boundary value: 0, 1, the
--                largest signed and unsigned values of its width, the
--                size limits, k 64/65 and 10000/10001, and, in x, the bits
--                of 0, -0, 1, NaN, infinities, 2^-64 and a denormal
--   header swap  a header field (version, kind, hash algorithm, family,
--                seed, p1, p2, p3, n, x, p1 to x, the whole header) taken
--                from a valid value of another sketch
--   splice       the start of the value joined to the rest of another
--                valid value (of any kind), cut at every field boundary
--                and every 8 bytes up to byte 256
-- (for the 93 kB dense state, only the first 96 and the last 16 bytes are
-- overwritten, flipped and cut).  Every distinct mutation is cast back
-- through the bytea cast (22P03) and through text input (22P02); the
-- bloom_agg_state has no bytea cast, so its binary input (recv, 22P03) is
-- checked with \copy below.  Each one is either rejected by both ways in,
-- with exactly those SQLSTATEs, or accepted by both and then used: printed
-- (text round trip), read by every read function of its type, merged with
-- itself, given a value of its key family (which must then be found), and
-- merged with the value it was made from; states are finished
-- (bloom_agg_final and, for counting states, cbloom_agg_final, which take a
-- state directly) and merged through an aggregate whose transition
-- function is bloom_agg_combine.  Every step runs in its own
-- subtransaction and records the SQLSTATE it fails with.
--
-- The test passes only if nothing crashes the server (the file runs to its
-- end), no SQLSTATE of class XX (internal_error, data_corrupted) appears,
-- the two ways in always agree, and no used value breaks an invariant
-- (outcomes starting with WRONG or MISMATCH).  Failures in use with other
-- SQLSTATEs are listed: they are the fitting errors of valid but unusual
-- values (a seed or family that no longer matches the original, a key that
-- the family's type cannot print, ...).
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- Aggregates that return the states themselves, and one that combines them
-- with bloom_agg_combine (its transition function), as a distributed engine
-- does with partial states.
CREATE AGGREGATE hi_state(bigint) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE hi_state(bigint, double precision) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE hi_state(bigint, bigint, double precision) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE hi_cstate(bigint) (SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE hi_merge(bloom_agg_state) (SFUNC = bloom_agg_combine, STYPE = bloom_agg_state);
-- Little-endian bytes of an integer and of a float8.
CREATE FUNCTION pg_temp.le(v bigint, n integer) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(set_byte('\x00'::bytea, 0, ((v >> (8 * i)) & 255)::integer), ''::bytea ORDER BY i)
  FROM generate_series(0, n - 1) i
$$;
CREATE FUNCTION pg_temp.le_float8(v float8) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(substr(float8send(v), 9 - i, 1), ''::bytea ORDER BY i) FROM generate_series(1, 8) i
$$;

-- ---------------------------------------------------------------------------
-- The valid values mutated
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE hi_base (kind text, name text, b bytea);
INSERT INTO hi_base
SELECT 'bloom', '64 bits, 3 hashes, integers', bloom_add(bloom_add(bloom_empty_bits(64, 3), 42), 7)::bytea
UNION ALL
SELECT 'bloom', '100 bits, 4 hashes, text', bloom_union_agg(bloom_add(bloom_empty_bits(100, 4), 'k' || x))::bytea
FROM generate_series(1, 8) x
UNION ALL
SELECT 'cms', 'width 4, depth 2, integers', cms_add(cms_add(cms_empty_dims(4, 2), 42), 7, 3)::bytea
UNION ALL
SELECT 'cms', 'width 5, depth 3, text', cms_agg('k' || (x % 4), 0.6, 0.05)::bytea FROM generate_series(1, 10) x
UNION ALL
SELECT 'topk text', 'k 2, width 8, depth 1', topk_agg(v, 2, 0.34, 0.5)::bytea
FROM unnest(ARRAY['a', 'b', 'b', 'c', 'c', 'c']) v
UNION ALL
SELECT 'topk text', 'k 1, width 4, depth 2', topk_agg(md5(x::text), 1, 0.9, 0.2)::bytea
FROM generate_series(1, 4) x
UNION ALL
SELECT 'topk integer', 'k 2, width 6, depth 1', topk_agg(x % 5, 2, 0.5, 0.5)::bytea FROM generate_series(1, 12) x
UNION ALL
SELECT 'topk integer', 'k 3, width 3, depth 2', topk_agg(x % 7, 3, 0.95, 0.2)::bytea FROM generate_series(1, 20) x
UNION ALL
SELECT 'topk integer', 'k 2, width 14, capacity 5, 3 values dropped', topk_agg(x % 8, 2, 0.2, 0.5)::bytea FROM generate_series(1, 40) x
UNION ALL
SELECT 'topk format 1', 'k 2, width 8, depth 1, text (made by 1.4)', '\x42534b540104010200000000000000000800000000000000010000000200000006000000000000000300000003000000000000000000000000000000000000000300000000000000000000000000000000000000000000000000000000000000010000000000000002000000000000001bf8b9469a21408c030000000000000000000000010000003f84d8441c0b5a57020000000000000001000000010000001f4e961eb632c6e601000000000000000200000001000000000000000000000000000000000000000000000000000000636261'::bytea
UNION ALL
SELECT 'topk format 1', 'k 3, width 28, depth 2, integer (made by 1.4)', '\x42534b540104010100000000000000001c000000000000000200000003000000640000000000000006000000300000000f000000000000000e000000000000000e00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e0000000000000000000000000000000f00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001d000000000000000e000000000000000f000000000000000000000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000000000000000000000000000000000043e2ee915cc686200f0000000000000000000000080000002e79db643559bc2f0f0000000000000008000000080000007d2ef4c12920924d0e0000000000000010000000080000003b676347da4b996b0e0000000000000018000000080000008ca7aa39aae9038e0e00000000000000200000000800000078715ed90a2922ca0e000000000000002800000008000000020000000000000001000000000000000300000000000000060000000000000005000000000000000400000000000000'::bytea
UNION ALL
SELECT 'cbloom 4-bit', '53 counters, 3 hashes', cbloom_agg(x, 11, 0.1)::bytea FROM generate_series(1, 11) x
UNION ALL
SELECT 'cbloom 4-bit', '15 counters (odd), saturated', cbloom_agg(x % 3, 3, 0.1)::bytea FROM generate_series(1, 40) x
UNION ALL
SELECT 'cbloom 8-bit', '53 counters, 3 hashes', cbloom_agg(x, 11, 0.1, 8)::bytea FROM generate_series(1, 11) x
UNION ALL
SELECT 'cbloom 8-bit', '15 counters, text', cbloom_agg('k' || (x % 3), 3, 0.1, 8)::bytea FROM generate_series(1, 40) x
UNION ALL
SELECT 'state exact', '16 slots, 3 hashes', bloom_agg_state_send(hi_state(x)) FROM generate_series(1, 3) x
UNION ALL
SELECT 'state exact', '32 slots, 20 hashes', bloom_agg_state_send(hi_state(x)) FROM generate_series(1, 20) x
UNION ALL
-- the zero hash is no slot but the flag 0x4 (byte 28) and one more in n (byte 32)
SELECT 'state exact zero hash', '16 slots, 2 hashes and the zero hash',
       set_byte(set_byte(bloom_agg_state_send(hi_state(x)), 28, 4), 32, 3) FROM generate_series(1, 2) x
UNION ALL
SELECT 'state fixed', 'capacity 10', bloom_agg_state_send(hi_state(x, 10, 0.01)) FROM generate_series(1, 5) x
UNION ALL
SELECT 'state fixed', 'capacity 100', bloom_agg_state_send(hi_state(x, 100, 0.01)) FROM generate_series(1, 50) x
UNION ALL
SELECT 'state counting', '16 slots, 4 hashes', bloom_agg_state_send(hi_cstate(x % 4)) FROM generate_series(1, 10) x
UNION ALL
-- counting, with the zero hash: flags 0x8 | 0x4, its count 3 in p2 (byte 24)
SELECT 'state counting zero hash', '16 slots, 2 hashes and the zero hash',
       set_byte(set_byte(set_byte(bloom_agg_state_send(hi_cstate(x % 2)), 28, 12), 24, 3), 32, 3)
FROM generate_series(1, 5) x;
-- The dense phase of an automatically sized state is sized for 2^24 values
-- at its rate; at a rate of 1 - 1e-10 it has 1 hash and its smallest size,
-- one unit of 746,496 bits (93,312 bytes).  It is made from an empty one
-- written by hand, combined with the exact state of 50 values at that rate.
CREATE TEMP TABLE hi_dense AS
SELECT ('\x' || encode('\x42534b5401020101'::bytea || pg_temp.le(0, 8) || pg_temp.le(746496, 8) || pg_temp.le(1, 4)
                       || pg_temp.le(1, 4) || pg_temp.le(0, 8) || pg_temp.le_float8(0.9999999999)
                       || decode(repeat('00', 93312), 'hex'), 'hex'))::bloom_agg_state AS s;
INSERT INTO hi_base
SELECT 'state dense', '746496 bits, 1 hash, 50 values',
       bloom_agg_state_send(hi_merge(s ORDER BY i))
FROM (SELECT 1 AS i, s FROM hi_dense
      UNION ALL SELECT 2, hi_state(x, 0.9999999999) FROM generate_series(1, 50) x) p;
DROP TABLE hi_dense;

-- ---------------------------------------------------------------------------
-- The mutations
-- ---------------------------------------------------------------------------
-- Boundary values of the header fields (offset, width, little-endian bytes).
CREATE TEMP TABLE hi_fields (o integer, l integer, v bytea);
INSERT INTO hi_fields
SELECT o, 8, pg_temp.le(v, 8)
FROM (VALUES (8), (16), (32), (40)) f(o),
     unnest(ARRAY[0, 1, 2, 7, 64, 65, 10000, 10001, 2147483647, 2147483648, 4294967295, 4294967296,
                  66977786, 66977787, 535822288, 535822289, 535822336, 535822337, 1071644576, 1071644577,
                  4286578304, 4286578305, 1048576, 1048577, 2097152, 4194304, 9223372036854775807]::bigint[]) v
UNION ALL
SELECT o, 8, v FROM (VALUES (8), (16), (32), (40)) f(o),
     unnest(ARRAY['\x0000000000000080', '\xffffffffffffffff']::bytea[]) v
UNION ALL
SELECT o, 4, pg_temp.le(v, 4)
FROM (VALUES (24), (28)) f(o),
     unnest(ARRAY[0, 1, 2, 3, 4, 8, 12, 15, 16, 64, 65, 255, 256, 10000, 10001, 2147483647, 2147483648, 4294967295]::bigint[]) v
UNION ALL
SELECT 40, 8, pg_temp.le_float8(v)
FROM unnest(ARRAY[0, '-0', 1, -0.01, 0.5, 'NaN', 'Infinity', '-Infinity', 5.421010862427522e-20, 2.710505431213761e-20,
                  4.9e-324, 0.9999999999999999]::float8[]) v;
CREATE FUNCTION pg_temp.hi_mutations(b bytea, donors bytea[]) RETURNS TABLE(class text, m bytea)
LANGUAGE sql IMMUTABLE AS $$
  WITH pos AS (SELECT p FROM generate_series(0, length(b) - 1) p
               WHERE length(b) <= 4096 OR p < 96 OR p >= length(b) - 16),
       cut AS (SELECT c FROM generate_series(0, 256, 8) c UNION SELECT unnest('{4,5,6,7,28,44}'::integer[]))
  SELECT 'overwrite', set_byte(b, p, v) FROM pos, unnest('{0,1,2,127,128,254,255}'::integer[]) v
  UNION ALL
  SELECT 'bit flip', set_byte(b, p, get_byte(b, p) # (1 << i)) FROM pos, generate_series(0, 7) i
  UNION ALL
  SELECT 'truncate', substr(b, 1, p) FROM pos
  UNION ALL
  SELECT 'extend', b || e FROM unnest(ARRAY['\x00', '\x0000', '\x00000000', '\x01', '\xff', '\xffff',
                                            '\x2a2a2a2a2a2a2a2a']::bytea[]) e
  UNION ALL
  SELECT 'field value', overlay(b placing v from o + 1 for l) FROM hi_fields WHERE length(b) >= 48
  UNION ALL
  SELECT 'header swap', overlay(b placing substr(d, o + 1, l) from o + 1 for l)
  FROM unnest(donors) d,
       (VALUES (4, 1), (5, 1), (6, 1), (7, 1), (8, 8), (16, 8), (24, 4), (28, 4), (32, 8), (40, 8),
               (16, 32), (0, 48)) f(o, l)
  WHERE length(d) >= 48
  UNION ALL
  SELECT 'splice', substr(b, 1, c) || substr(d, c + 1) FROM unnest(donors) d, cut
  WHERE c <= greatest(length(b), length(d))
$$;
-- Each distinct mutation once per kind (the first class that makes it),
-- never the unchanged value.
CREATE TEMP TABLE hi_mut AS
SELECT DISTINCT ON (kind, md5(m)) kind, name, b, class, m
FROM (SELECT h.kind, h.name, h.b, x.class, x.m,
             array_position(ARRAY['overwrite', 'bit flip', 'truncate', 'extend', 'field value', 'header swap', 'splice'], x.class) AS ord
      FROM hi_base h,
           pg_temp.hi_mutations(h.b, ARRAY(SELECT d.b FROM hi_base d WHERE d.b <> h.b ORDER BY d.kind, d.name)) x
      WHERE x.m <> h.b) s
ORDER BY kind, md5(m), ord, name;

-- ---------------------------------------------------------------------------
-- Casting back and using
-- ---------------------------------------------------------------------------
-- The key functions (hi_<kind>_key) are polymorphic in the key; their
-- dispatchers (hi_<kind>_fam) call them with a key of the value's family
-- (byte 7; the family none takes an integer).

-- bloom
CREATE FUNCTION pg_temp.hi_bloom_key(v bloom, key anyelement) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  w bloom := bloom_add(v, key);
BEGIN
  PERFORM v @> key, key <@ v;
  RETURN w @> key AND key <@ w AND bloom_contains(w, key);
END $$;
CREATE FUNCTION pg_temp.hi_bloom_fam(v bloom, fam integer) RETURNS boolean LANGUAGE sql AS $$
  SELECT CASE fam
    WHEN 2 THEN pg_temp.hi_bloom_key(v, 'a'::text)
    WHEN 3 THEN pg_temp.hi_bloom_key(v, '\x01'::bytea)
    WHEN 4 THEN pg_temp.hi_bloom_key(v, '00000000-0000-0000-0000-000000000042'::uuid)
    WHEN 5 THEN pg_temp.hi_bloom_key(v, 1.5::float8)
    WHEN 6 THEN pg_temp.hi_bloom_key(v, 1.5::numeric)
    WHEN 7 THEN pg_temp.hi_bloom_key(v, '2000-01-01'::date)
    WHEN 8 THEN pg_temp.hi_bloom_key(v, '2000-01-01 00:00'::timestamp)
    WHEN 9 THEN pg_temp.hi_bloom_key(v, '2000-01-01 00:00+00'::timestamptz)
    ELSE pg_temp.hi_bloom_key(v, 42::bigint) END
$$;
CREATE FUNCTION pg_temp.hi_bloom(m bytea, o bloom) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v bloom;
  a text := 'ok';
  t text := 'ok';
  f text := '';
BEGIN
  BEGIN v := m::bloom; EXCEPTION WHEN others THEN a := SQLSTATE; END;
  BEGIN PERFORM ('\x' || encode(m, 'hex'))::bloom; EXCEPTION WHEN others THEN t := SQLSTATE; END;
  IF a <> 'ok' AND t <> 'ok' THEN RETURN 'rejected ' || a || '/' || t; END IF;
  IF a <> 'ok' OR t <> 'ok' THEN RETURN 'MISMATCH bytea ' || a || ', text ' || t; END IF;
  BEGIN
    IF v::text::bloom <> v OR v::bytea <> m OR bloom_send(v) <> m OR v::text <> '\x' || encode(m, 'hex') THEN
      RETURN 'WRONG: round trip';
    END IF;
  EXCEPTION WHEN others THEN f := f || ', print ' || SQLSTATE; END;
  BEGIN
    PERFORM (bloom_info(v)).*, bloom_cardinality(v), bloom_fpr(v), bloom_hash(v), v = v, v <> v;
  EXCEPTION WHEN others THEN f := f || ', read ' || SQLSTATE; END;
  BEGIN
    IF v | v <> v OR v & v <> v OR (SELECT bloom_union_agg(x) FROM (VALUES (v), (v)) s(x)) <> v
       OR (SELECT bloom_intersection_agg(x) FROM (VALUES (v), (v)) s(x)) <> v THEN
      RETURN 'WRONG: merge with itself';
    END IF;
  EXCEPTION WHEN others THEN f := f || ', merge with itself ' || SQLSTATE; END;
  BEGIN
    IF NOT pg_temp.hi_bloom_fam(v, get_byte(m, 7)) THEN RETURN 'WRONG: added value not found'; END IF;
  EXCEPTION WHEN others THEN f := f || ', add ' || SQLSTATE; END;
  BEGIN
    PERFORM v | o, v & o, v = o;
  EXCEPTION WHEN others THEN f := f || ', merge with original ' || SQLSTATE; END;
  RETURN CASE WHEN f = '' THEN 'usable' ELSE 'usable, failed:' || substr(f, 2) END;
END $$;

-- cms
CREATE FUNCTION pg_temp.hi_cms_key(v cms, key anyelement) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  w cms := cms_add(v, key, 3);
BEGIN
  RETURN (w -> key) >= (v -> key) + 3 AND cms_frequency(w, key) = (w -> key)
         AND cms_total(w) = cms_total(v) + 3;
END $$;
CREATE FUNCTION pg_temp.hi_cms_fam(v cms, fam integer) RETURNS boolean LANGUAGE sql AS $$
  SELECT CASE fam
    WHEN 2 THEN pg_temp.hi_cms_key(v, 'a'::text)
    WHEN 3 THEN pg_temp.hi_cms_key(v, '\x01'::bytea)
    WHEN 4 THEN pg_temp.hi_cms_key(v, '00000000-0000-0000-0000-000000000042'::uuid)
    WHEN 5 THEN pg_temp.hi_cms_key(v, 1.5::float8)
    WHEN 6 THEN pg_temp.hi_cms_key(v, 1.5::numeric)
    WHEN 7 THEN pg_temp.hi_cms_key(v, '2000-01-01'::date)
    WHEN 8 THEN pg_temp.hi_cms_key(v, '2000-01-01 00:00'::timestamp)
    WHEN 9 THEN pg_temp.hi_cms_key(v, '2000-01-01 00:00+00'::timestamptz)
    ELSE pg_temp.hi_cms_key(v, 42::bigint) END
$$;
CREATE FUNCTION pg_temp.hi_cms(m bytea, o cms) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v cms;
  a text := 'ok';
  t text := 'ok';
  f text := '';
BEGIN
  BEGIN v := m::cms; EXCEPTION WHEN others THEN a := SQLSTATE; END;
  BEGIN PERFORM ('\x' || encode(m, 'hex'))::cms; EXCEPTION WHEN others THEN t := SQLSTATE; END;
  IF a <> 'ok' AND t <> 'ok' THEN RETURN 'rejected ' || a || '/' || t; END IF;
  IF a <> 'ok' OR t <> 'ok' THEN RETURN 'MISMATCH bytea ' || a || ', text ' || t; END IF;
  BEGIN
    IF v::text::cms <> v OR v::bytea <> m OR cms_send(v) <> m OR v::text <> '\x' || encode(m, 'hex') THEN
      RETURN 'WRONG: round trip';
    END IF;
  EXCEPTION WHEN others THEN f := f || ', print ' || SQLSTATE; END;
  BEGIN
    PERFORM (cms_info(v)).*, cms_total(v), cms_error_bound(v), cms_hash(v), cms_inner_product(v, v), v = v, v <> v;
  EXCEPTION WHEN others THEN f := f || ', read ' || SQLSTATE; END;
  BEGIN
    IF cms_total(v + v) <> 2 * cms_total(v) OR (SELECT cms_union_agg(x) FROM (VALUES (v), (v)) s(x)) <> v + v THEN
      RETURN 'WRONG: merge with itself';
    END IF;
  EXCEPTION WHEN others THEN f := f || ', merge with itself ' || SQLSTATE; END;
  BEGIN
    IF NOT pg_temp.hi_cms_fam(v, get_byte(m, 7)) THEN RETURN 'WRONG: added count not found'; END IF;
  EXCEPTION WHEN others THEN f := f || ', add ' || SQLSTATE; END;
  BEGIN
    PERFORM v + o, cms_inner_product(v, o), v = o;
  EXCEPTION WHEN others THEN f := f || ', merge with original ' || SQLSTATE; END;
  RETURN CASE WHEN f = '' THEN 'usable' ELSE 'usable, failed:' || substr(f, 2) END;
END $$;

-- topk
CREATE FUNCTION pg_temp.hi_topk_key(v topk, key anyelement) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  w topk := topk_add(v, key);
BEGIN
  RETURN (topk_info(w)).total = (topk_info(v)).total + 1
         AND (topk_info(w)).candidates BETWEEN 1 AND (topk_info(w)).capacity
         AND topk_add(v, key, 0)::bytea = (SELECT topk_union_agg(x) FROM (VALUES (v)) s(x))::bytea;
END $$;
CREATE FUNCTION pg_temp.hi_topk_fam(v topk, fam integer) RETURNS boolean LANGUAGE sql AS $$
  SELECT CASE fam
    WHEN 2 THEN pg_temp.hi_topk_key(v, 'a'::text)
    WHEN 3 THEN pg_temp.hi_topk_key(v, '\x01'::bytea)
    WHEN 4 THEN pg_temp.hi_topk_key(v, '00000000-0000-0000-0000-000000000042'::uuid)
    WHEN 5 THEN pg_temp.hi_topk_key(v, 1.5::float8)
    WHEN 6 THEN pg_temp.hi_topk_key(v, 1.5::numeric)
    WHEN 7 THEN pg_temp.hi_topk_key(v, '2000-01-01'::date)
    WHEN 8 THEN pg_temp.hi_topk_key(v, '2000-01-01 00:00'::timestamp)
    WHEN 9 THEN pg_temp.hi_topk_key(v, '2000-01-01 00:00+00'::timestamptz)
    ELSE pg_temp.hi_topk_key(v, 42::bigint) END
$$;
CREATE FUNCTION pg_temp.hi_topk(m bytea, o topk) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v topk;
  a text := 'ok';
  t text := 'ok';
  f text := '';
BEGIN
  BEGIN v := m::topk; EXCEPTION WHEN others THEN a := SQLSTATE; END;
  BEGIN PERFORM ('\x' || encode(m, 'hex'))::topk; EXCEPTION WHEN others THEN t := SQLSTATE; END;
  IF a <> 'ok' AND t <> 'ok' THEN RETURN 'rejected ' || a || '/' || t; END IF;
  IF a <> 'ok' OR t <> 'ok' THEN RETURN 'MISMATCH bytea ' || a || ', text ' || t; END IF;
  BEGIN
    IF v::text::topk::bytea <> m OR v::bytea <> m OR topk_send(v) <> m OR v::text <> '\x' || encode(m, 'hex') THEN
      RETURN 'WRONG: round trip';
    END IF;
  EXCEPTION WHEN others THEN f := f || ', print ' || SQLSTATE; END;
  BEGIN
    PERFORM (topk_info(v)).*;
  EXCEPTION WHEN others THEN f := f || ', read ' || SQLSTATE; END;
  BEGIN
    IF (SELECT count(*) FROM topk_items(v)) > (topk_info(v)).k THEN RETURN 'WRONG: more than k items'; END IF;
    PERFORM string_agg(value || frequency, ',') FROM topk_items(v);
  EXCEPTION WHEN others THEN f := f || ', items ' || SQLSTATE; END;
  -- what topk_items returns must be valid text in the database encoding
  BEGIN
    PERFORM convert_from(textsend(value), current_setting('server_encoding')) FROM topk_items(v);
  EXCEPTION
    WHEN character_not_in_repertoire THEN
      IF f NOT LIKE '%items%' THEN RETURN 'WRONG: topk_items returned invalid text'; END IF;
    WHEN others THEN
      NULL;  -- the items step above has recorded it
  END;
  BEGIN
    IF (topk_info((SELECT topk_union_agg(x) FROM (VALUES (v), (v)) s(x)))).total <> 2 * (topk_info(v)).total THEN
      RETURN 'WRONG: merge with itself';
    END IF;
  EXCEPTION WHEN others THEN f := f || ', merge with itself ' || SQLSTATE; END;
  BEGIN
    IF NOT pg_temp.hi_topk_fam(v, get_byte(m, 7)) THEN RETURN 'WRONG: add'; END IF;
  EXCEPTION WHEN others THEN f := f || ', add ' || SQLSTATE; END;
  BEGIN
    PERFORM topk_union_agg(x) FROM (VALUES (v), (o)) s(x);
  EXCEPTION WHEN others THEN f := f || ', merge with original ' || SQLSTATE; END;
  RETURN CASE WHEN f = '' THEN 'usable' ELSE 'usable, failed:' || substr(f, 2) END;
END $$;

-- cbloom
CREATE FUNCTION pg_temp.hi_cbloom_key(v cbloom, key anyelement) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  w cbloom := cbloom_add(v, key);
BEGIN
  PERFORM v @> key, key <@ v, cbloom_count(v, key);
  IF NOT (w @> key AND key <@ w AND cbloom_count(w, key) >= 1 AND w::bloom @> key) THEN
    RETURN false;
  END IF;
  PERFORM cbloom_remove(w, key);
  RETURN true;
END $$;
CREATE FUNCTION pg_temp.hi_cbloom_fam(v cbloom, fam integer) RETURNS boolean LANGUAGE sql AS $$
  SELECT CASE fam
    WHEN 2 THEN pg_temp.hi_cbloom_key(v, 'a'::text)
    WHEN 3 THEN pg_temp.hi_cbloom_key(v, '\x01'::bytea)
    WHEN 4 THEN pg_temp.hi_cbloom_key(v, '00000000-0000-0000-0000-000000000042'::uuid)
    WHEN 5 THEN pg_temp.hi_cbloom_key(v, 1.5::float8)
    WHEN 6 THEN pg_temp.hi_cbloom_key(v, 1.5::numeric)
    WHEN 7 THEN pg_temp.hi_cbloom_key(v, '2000-01-01'::date)
    WHEN 8 THEN pg_temp.hi_cbloom_key(v, '2000-01-01 00:00'::timestamp)
    WHEN 9 THEN pg_temp.hi_cbloom_key(v, '2000-01-01 00:00+00'::timestamptz)
    ELSE pg_temp.hi_cbloom_key(v, 42::bigint) END
$$;
CREATE FUNCTION pg_temp.hi_cbloom(m bytea, o cbloom) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v cbloom;
  a text := 'ok';
  t text := 'ok';
  f text := '';
BEGIN
  BEGIN v := m::cbloom; EXCEPTION WHEN others THEN a := SQLSTATE; END;
  BEGIN PERFORM ('\x' || encode(m, 'hex'))::cbloom; EXCEPTION WHEN others THEN t := SQLSTATE; END;
  IF a <> 'ok' AND t <> 'ok' THEN RETURN 'rejected ' || a || '/' || t; END IF;
  IF a <> 'ok' OR t <> 'ok' THEN RETURN 'MISMATCH bytea ' || a || ', text ' || t; END IF;
  BEGIN
    IF v::text::cbloom <> v OR v::bytea <> m OR cbloom_send(v) <> m OR v::text <> '\x' || encode(m, 'hex') THEN
      RETURN 'WRONG: round trip';
    END IF;
  EXCEPTION WHEN others THEN f := f || ', print ' || SQLSTATE; END;
  BEGIN
    PERFORM (cbloom_info(v)).*, v::bloom, cbloom_hash(v), v = v, v <> v;
  EXCEPTION WHEN others THEN f := f || ', read ' || SQLSTATE; END;
  BEGIN
    IF (v + v) - v <> v AND (cbloom_info(v + v)).counters_saturated = 0 OR v - v <> cbloom_subtract(v, v)
       OR (SELECT cbloom_union_agg(x) FROM (VALUES (v), (v)) s(x)) <> v + v OR (v + v)::bloom <> v::bloom THEN
      RETURN 'WRONG: merge with itself';
    END IF;
  EXCEPTION WHEN others THEN f := f || ', merge with itself ' || SQLSTATE; END;
  BEGIN
    IF NOT pg_temp.hi_cbloom_fam(v, get_byte(m, 7)) THEN RETURN 'WRONG: added value not found'; END IF;
  EXCEPTION WHEN others THEN f := f || ', add ' || SQLSTATE; END;
  BEGIN
    PERFORM v + o, v = o;
  EXCEPTION WHEN others THEN f := f || ', merge with original ' || SQLSTATE; END;
  RETURN CASE WHEN f = '' THEN 'usable' ELSE 'usable, failed:' || substr(f, 2) END;
END $$;

-- bloom_agg_state.  A state with one value and the target, family and seed
-- of state s: the header of s with 16 slots holding the hash of 42 (and its
-- count, counting), or for a fixed shape the bits of 42 in a filter of that
-- shape.
CREATE TEMP TABLE hi_one AS
SELECT bloom_agg_state_send(hi_state(42::bigint)) AS exact, bloom_agg_state_send(hi_cstate(42::bigint)) AS counting;
CREATE FUNCTION pg_temp.hi_one_value(s bytea) RETURNS bloom_agg_state LANGUAGE sql AS $$
  SELECT ('\x' || encode(CASE
    WHEN get_byte(s, 28) & 2 <> 0 THEN
      substr(s, 1, 48) || substr(bloom_add(bloom_empty_bits(
        (SELECT sum(get_byte(s, 16 + i)::bigint << (8 * i)) FROM generate_series(0, 4) i)::bigint,
        get_byte(s, 24)), 42)::bytea, 49)
    ELSE overlay(overlay(CASE WHEN get_byte(s, 28) & 8 <> 0 THEN counting ELSE exact END
                         placing substr(s, 8, 9) from 8) placing substr(s, 41, 8) from 41)
    END, 'hex'))::bloom_agg_state
  FROM hi_one
$$;
CREATE FUNCTION pg_temp.hi_finish(s bloom_agg_state) RETURNS bloom LANGUAGE plpgsql AS $$
BEGIN
  IF get_byte(bloom_agg_state_send(s), 28) & 8 <> 0 THEN
    IF cbloom_agg_final(s)::bloom <> bloom_agg_final(s) THEN
      RAISE EXCEPTION 'WRONG: cbloom_agg_final and bloom_agg_final disagree';
    END IF;
    PERFORM (cbloom_info(cbloom_agg_final(s))).*;
  END IF;
  RETURN bloom_agg_final(s);
END $$;
CREATE FUNCTION pg_temp.hi_state_use(m bytea, o bloom_agg_state) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v bloom_agg_state;
  t text := 'ok';
  f text := '';
  r bloom;
BEGIN
  BEGIN v := ('\x' || encode(m, 'hex'))::bloom_agg_state; EXCEPTION WHEN others THEN t := SQLSTATE; END;
  IF t <> 'ok' THEN RETURN 'rejected ' || t; END IF;
  BEGIN
    IF v::text::bloom_agg_state::text <> v::text OR bloom_agg_state_send(v) <> m
       OR v::text <> '\x' || encode(m, 'hex') THEN
      RETURN 'WRONG: round trip';
    END IF;
  EXCEPTION WHEN others THEN f := f || ', print ' || SQLSTATE; END;
  BEGIN
    PERFORM (bloom_info(pg_temp.hi_finish(v))).*;
  EXCEPTION WHEN others THEN
    IF SQLERRM LIKE 'WRONG%' THEN RETURN SQLERRM; END IF;
    f := f || ', final ' || SQLSTATE;
  END;
  BEGIN
    PERFORM (bloom_info(pg_temp.hi_finish(hi_merge(x ORDER BY i)))).* FROM (VALUES (1, v), (2, v)) s(i, x);
  EXCEPTION WHEN others THEN
    IF SQLERRM LIKE 'WRONG%' THEN RETURN SQLERRM; END IF;
    f := f || ', merge with itself ' || SQLSTATE;
  END;
  BEGIN
    r := (SELECT pg_temp.hi_finish(hi_merge(x ORDER BY i)) FROM (VALUES (1, v), (2, pg_temp.hi_one_value(m))) s(i, x));
    IF get_byte(m, 7) <= 1 AND substr(m, 9, 8) = '\x0000000000000000'::bytea AND NOT r @> 42 THEN
      RETURN 'WRONG: added value not found';
    END IF;
  EXCEPTION WHEN others THEN
    IF SQLERRM LIKE 'WRONG%' THEN RETURN SQLERRM; END IF;
    f := f || ', add ' || SQLSTATE;
  END;
  BEGIN
    PERFORM pg_temp.hi_finish(hi_merge(x ORDER BY i)) FROM (VALUES (1, v), (2, o)) s(i, x);
  EXCEPTION WHEN others THEN
    IF SQLERRM LIKE 'WRONG%' THEN RETURN SQLERRM; END IF;
    f := f || ', merge with original ' || SQLSTATE;
  END;
  RETURN CASE WHEN f = '' THEN 'usable' ELSE 'usable, failed:' || substr(f, 2) END;
END $$;

-- The outcome of bytes m of a value of this kind, made from the value o.
CREATE FUNCTION pg_temp.hi_check(kind text, m bytea, o bytea) RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN kind = 'bloom' THEN pg_temp.hi_bloom(m, o::bloom)
              WHEN kind = 'cms' THEN pg_temp.hi_cms(m, o::cms)
              WHEN kind LIKE 'topk%' THEN pg_temp.hi_topk(m, o::topk)
              WHEN kind LIKE 'cbloom%' THEN pg_temp.hi_cbloom(m, o::cbloom)
              ELSE pg_temp.hi_state_use(m, ('\x' || encode(o, 'hex'))::bloom_agg_state) END
$$;

-- The values mutated: each is valid, and usable by the checks below.
SELECT kind, name, length(b) AS bytes, get_byte(b, 5) AS kind_byte, get_byte(b, 7) AS family,
       get_byte(b, 28) AS p3_low_byte, pg_temp.hi_check(kind, b, b) AS outcome
FROM hi_base ORDER BY kind COLLATE "C", length(b), name COLLATE "C";

-- Every mutation, cast back and used.
CREATE TEMP TABLE hi_result AS
SELECT kind, name, class, m, pg_temp.hi_check(kind, m, b) AS outcome FROM hi_mut;

-- ---------------------------------------------------------------------------
-- Results
-- ---------------------------------------------------------------------------
-- Per kind: mutations tried, rejected (by bytea cast / text input, or text
-- input alone for states), accepted and usable, accepted but with a failed
-- use step (listed below).
SELECT kind, count(*) AS tried,
       count(*) FILTER (WHERE outcome LIKE 'rejected%') AS rejected,
       string_agg(DISTINCT substr(outcome, 10), ', ') FILTER (WHERE outcome LIKE 'rejected%') AS rejected_with,
       count(*) FILTER (WHERE outcome = 'usable') AS usable,
       count(*) FILTER (WHERE outcome LIKE 'usable, failed:%') AS usable_but_a_step_failed,
       count(*) FILTER (WHERE outcome NOT LIKE 'rejected%' AND outcome NOT LIKE 'usable%') AS wrong
FROM hi_result GROUP BY kind ORDER BY kind COLLATE "C";
-- Per kind and class of mutation.
SELECT kind, class, count(*) AS tried, count(*) FILTER (WHERE outcome LIKE 'rejected%') AS rejected,
       count(*) FILTER (WHERE outcome LIKE 'usable%') AS accepted
FROM hi_result GROUP BY kind, class
ORDER BY kind COLLATE "C", array_position(ARRAY['overwrite', 'bit flip', 'truncate', 'extend', 'field value', 'header swap', 'splice'], class);
-- Accepted values with a failed step, by step and SQLSTATE.  Merging with
-- the original fails with 22023 when the seed, the shape or the target no
-- longer match it, and with 42804 when the key family changed; listing a
-- topk's items fails with 22021 when the family byte says text but the keys
-- are integers (their bytes hold zeros) or another sketch's.
SELECT kind, outcome, count(*) AS mutations
FROM hi_result WHERE outcome LIKE 'usable, failed:%'
GROUP BY kind, outcome ORDER BY kind COLLATE "C", outcome COLLATE "C";
-- The verdict: no internal error, no mismatch between the ways in, no broken
-- invariant.  Each count must be 0.
SELECT count(*) FILTER (WHERE outcome ~ 'XX0') AS internal_errors,
       count(*) FILTER (WHERE outcome LIKE 'MISMATCH%') AS mismatches,
       count(*) FILTER (WHERE outcome LIKE 'WRONG%') AS broken_invariants,
       count(*) FILTER (WHERE outcome NOT LIKE 'rejected%' AND outcome NOT LIKE 'usable%') AS other_outcomes
FROM hi_result;
SELECT kind, class, outcome, encode(m, 'hex') AS bytes
FROM hi_result WHERE outcome ~ 'XX0' OR outcome NOT LIKE 'rejected%' AND outcome NOT LIKE 'usable%'
ORDER BY 1, 2, 3, 4 LIMIT 20;

-- ---------------------------------------------------------------------------
-- bloom_agg_state through its binary input (recv, 22P03)
-- ---------------------------------------------------------------------------
-- A bytea column's binary COPY form is its bytes, so bytes copied out of a
-- bytea column can be copied into a bloom_agg_state column, which receives
-- them with bloom_agg_state_recv.  Every state mutation that text input
-- accepted (for the 93 kB dense state, those that changed its header) is
-- accepted, byte for byte ...
\getenv abs_builddir PG_ABS_BUILDDIR
\cd :abs_builddir
CREATE TEMP TABLE hi_bytes AS
SELECT r.kind, md5(r.m) AS id, r.m
FROM hi_result r JOIN hi_base b ON b.kind = r.kind AND b.name = r.name
WHERE r.kind LIKE 'state%' AND r.outcome LIKE 'usable%'
  AND (length(r.m) < 4096 OR substr(r.m, 1, 48) <> substr(b.b, 1, 48));
CREATE TEMP TABLE hi_recv (kind text, id text, s bloom_agg_state);
\copy hi_bytes TO 'results/hostile_input.bin' WITH (FORMAT binary)
\copy hi_recv FROM 'results/hostile_input.bin' WITH (FORMAT binary)
SELECT kind, count(*) AS accepted_by_text, count(r.s) AS accepted_by_recv,
       count(*) FILTER (WHERE bloom_agg_state_send(r.s) = b.m) AS identical
FROM hi_bytes b LEFT JOIN hi_recv r USING (kind, id) GROUP BY kind ORDER BY kind COLLATE "C";
-- ... and the first rejected mutation of each state form (by md5) is
-- rejected with 22P03 (each COPY stops at its first bad row, so one COPY
-- a value).
CREATE TEMP TABLE hi_bad AS
SELECT row_number() OVER (ORDER BY kind) AS i, kind, m
FROM (SELECT DISTINCT ON (kind) kind, m FROM hi_result
      WHERE kind LIKE 'state%' AND outcome LIKE 'rejected%' ORDER BY kind, md5(m)) s;
SELECT i, kind, length(m) AS bytes FROM hi_bad ORDER BY i;
TRUNCATE hi_recv;
\set VERBOSITY sqlstate
\copy (SELECT kind, md5(m), m FROM hi_bad WHERE i = 1) TO 'results/hostile_input.bin' WITH (FORMAT binary)
\copy hi_recv FROM 'results/hostile_input.bin' WITH (FORMAT binary)
\copy (SELECT kind, md5(m), m FROM hi_bad WHERE i = 2) TO 'results/hostile_input.bin' WITH (FORMAT binary)
\copy hi_recv FROM 'results/hostile_input.bin' WITH (FORMAT binary)
\copy (SELECT kind, md5(m), m FROM hi_bad WHERE i = 3) TO 'results/hostile_input.bin' WITH (FORMAT binary)
\copy hi_recv FROM 'results/hostile_input.bin' WITH (FORMAT binary)
\copy (SELECT kind, md5(m), m FROM hi_bad WHERE i = 4) TO 'results/hostile_input.bin' WITH (FORMAT binary)
\copy hi_recv FROM 'results/hostile_input.bin' WITH (FORMAT binary)
\copy (SELECT kind, md5(m), m FROM hi_bad WHERE i = 5) TO 'results/hostile_input.bin' WITH (FORMAT binary)
\copy hi_recv FROM 'results/hostile_input.bin' WITH (FORMAT binary)
\copy (SELECT kind, md5(m), m FROM hi_bad WHERE i = 6) TO 'results/hostile_input.bin' WITH (FORMAT binary)
\copy hi_recv FROM 'results/hostile_input.bin' WITH (FORMAT binary)
\set VERBOSITY default
SELECT count(*) AS rows_loaded_by_bad_copies FROM hi_recv;

DROP TABLE hi_base, hi_fields, hi_mut, hi_one, hi_result, hi_bytes, hi_recv, hi_bad;
DROP AGGREGATE hi_state(bigint);
DROP AGGREGATE hi_state(bigint, bigint, double precision);
DROP AGGREGATE hi_state(bigint, double precision);
DROP AGGREGATE hi_cstate(bigint);
DROP AGGREGATE hi_merge(bloom_agg_state);

-- ---------------------------------------------------------------------------
-- Date and timestamp keys that no value of their type has
-- ---------------------------------------------------------------------------
-- A topk of one bigint key with its family byte (byte 7) set to date (7),
-- timestamp (8) or timestamptz (9) is valid: its key bytes and their hash
-- are unchanged.  topk_items prints the key as that type, so a key outside
-- the type's range is 22008 (datetime_field_overflow), naming the type; a
-- date key past 32 bits used to print as the date of its low 32 bits.
CREATE FUNCTION pg_temp.hi_key(family integer, key bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  v topk := (SELECT set_byte(topk_agg(x, 1)::bytea, 7, family)::topk FROM (VALUES (key)) s(x));
  r text;
BEGIN
  SELECT value INTO r FROM topk_items(v);
  RETURN r;
EXCEPTION WHEN others THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT family, key, pg_temp.hi_key(family, key) AS printed
FROM (VALUES (7, 0), (7, -1), (7, -2451545), (7, 2145031948), (7, -2147483648), (7, 2147483647),
             (7, -2451546), (7, 2145031949), (7, 2147483646), (7, 2147483648), (7, 4294967296), (7, -4294967296),
             (8, 0), (8, -211813488000000000), (8, 9223371331199999999),
             (8, '-9223372036854775808'::bigint), (8, 9223372036854775807),
             (8, -211813488000000001), (8, 9223371331200000000), (8, 9223372036854775806),
             (9, '-9223372036854775808'::bigint), (9, 9223372036854775807),
             (9, -211813488000000001), (9, 9223371331200000000), (9, 9223372036854775806)) s(family, key)
ORDER BY family, key;
SELECT * FROM topk_items((SELECT set_byte(topk_agg(x, 1)::bytea, 7, 7)::topk FROM (VALUES (4294967296)) s(x)));
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- A growable filter whose stages do not follow its growth rule
-- ---------------------------------------------------------------------------
-- 73 bytes: capacity 0x389fd980 (950,000,000) at 0.5, one stage of 8 bits
-- that claims to hold its whole capacity.  The next key would open a stage
-- for 1.9 billion keys (514 MB) from these few bytes, so the cast refuses it:
-- every stage must have at least the bits its capacity and rate need.
SELECT (bloom_info(bloom_add('\x42534b5401010101000000000000000080d99f380000000001000000020000000100000000000000000000000000e03f0800000000000000010000000000000080d99f380000000000'::bytea::bloom, 1))).bytes;
\echo SQLSTATE :SQLSTATE
-- the same filter with the stage its rule gives is accepted
SELECT (bloom_info(bloom_empty(1000, 0.5, growth => 2)::bytea::bloom)).stages AS made_by_the_rule;

-- ---------------------------------------------------------------------------
-- A counting filter whose counters disagree with its probes
-- ---------------------------------------------------------------------------
-- In cbloom_add(cbloom_empty(3, 0.1), 42) two of 42's three probes land on
-- counter 0, which holds 2.  Setting the first payload byte to 1 makes it 1
-- (and counter 1 0): too few for two probes, so 42 is absent and its count
-- is 0.  A counter shared by several of a value's probes must hold that many
-- for the value to be present, so @> and cbloom_count agree on every value
-- (before 1.5 this said present, with a count of 0).
SELECT f @> 42 AS contains_42, cbloom_count(f, 42) AS count_42,
       (SELECT count(*) FROM generate_series(-2000, 2000) x
        WHERE (f @> x) <> (cbloom_count(f, x) >= 1)) AS disagreements
FROM (SELECT overlay(cbloom_add(cbloom_empty(3, 0.1), 42)::bytea PLACING '\x01'::bytea FROM 49)::cbloom f) s;
-- 8-bit counters of 0, 1 and 2 in a filter of 2 hashes: many values have
-- both probes on one counter of 1
SELECT (SELECT count(*) FROM generate_series(-2000, 2000) x
        WHERE (f @> x) <> (cbloom_count(f, x) >= 1)) AS disagreements_random_counters,
       (SELECT count(*) FROM generate_series(-2000, 2000) x WHERE f @> x) AS present
FROM (SELECT (substr(cbloom_empty(9, 0.3, 8)::bytea, 1, 48)
              || decode(string_agg(lpad(to_hex((i * 53 + 5) % 3), 2, '0'), '' ORDER BY i), 'hex'))::cbloom f
      FROM generate_series(1, (octet_length(cbloom_empty(9, 0.3, 8)::bytea) - 48)) i) s;
