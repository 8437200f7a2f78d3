--
-- bloom_catalog: what the catalogs say about the aggregates and types (what
-- parallel query, postgres_fdw and Citus rely on), and the transition state
-- type bloom_agg_state: its text and binary round trips, its validation, and
-- combining shipped partial states.
--
-- The transition function cannot be called outside an aggregate, but any
-- user can declare an aggregate over it without a final function: that
-- aggregate returns the state itself, as Citus's worker_partial_agg does.
-- A second aggregate over bloom_agg_combine with bloom_agg_final then plays
-- coord_combine_agg.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- ---------------------------------------------------------------------------
-- Aggregates: combine function, non-internal state, PARALLEL SAFE,
-- FINALFUNC_MODIFY = READ_ONLY
-- ---------------------------------------------------------------------------
CREATE TEMP VIEW cat_aggs AS
SELECT a.aggfnoid, p.proname, a.aggtransfn, a.aggcombinefn, a.aggfinalfn, a.aggfinalmodify,
       a.aggtranstype, a.aggtransspace, a.aggserialfn, a.aggdeserialfn, p.proparallel,
       p.proargtypes
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  AND d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch');
SELECT proname, count(*) AS overloads,
       count(*) FILTER (WHERE aggcombinefn <> 0) AS with_combine,
       count(*) FILTER (WHERE aggtranstype <> 'internal'::regtype) AS state_not_internal,
       count(*) FILTER (WHERE proparallel = 's') AS parallel_safe,
       count(*) FILTER (WHERE aggfinalfn = 0 OR aggfinalmodify = 'r') AS final_read_only,
       string_agg(DISTINCT aggtranstype::regtype::text, ', ') AS state_types,
       string_agg(DISTINCT aggcombinefn::regproc::text, ', ') AS combine,
       string_agg(DISTINCT aggfinalfn::regproc::text, ', ') AS final
FROM cat_aggs GROUP BY proname ORDER BY proname;
-- The failing aggregates, if any (must be none).  Besides the above, Citus
-- distributes an aggregate only when its declared argument types are the
-- argument's own (so no polymorphic argument) and, as it runs the final
-- function on the coordinator, the final function returns the aggregate's type.
SELECT aggfnoid::regprocedure AS bad_aggregate
FROM cat_aggs c
WHERE aggcombinefn = 0 OR aggtranstype = 'internal'::regtype OR proparallel <> 's'
   OR (aggfinalfn <> 0 AND aggfinalmodify <> 'r')
   OR EXISTS (SELECT 1 FROM unnest(proargtypes::oid[]) t JOIN pg_type ty ON ty.oid = t
              WHERE ty.typtype = 'p')
   OR (CASE WHEN aggfinalfn = 0 THEN aggtranstype
            ELSE (SELECT prorettype FROM pg_proc WHERE oid = c.aggfinalfn) END)
      <> (SELECT prorettype FROM pg_proc WHERE oid = c.aggfnoid);
-- A state that is a real type needs no serialization functions; bloom_agg
-- declares a state size estimate for the planner.
SELECT proname, count(*) FILTER (WHERE aggserialfn = 0 AND aggdeserialfn = 0) AS no_serial_functions,
       min(aggtransspace) AS min_sspace, max(aggtransspace) AS max_sspace
FROM cat_aggs GROUP BY proname ORDER BY proname;
-- bloom_agg has concrete (non-polymorphic) overloads for the 11 key types,
-- each with (x), (x, fpr) and (x, capacity, fpr).
SELECT proargtypes[0]::regtype AS key_type, count(*) AS overloads,
       string_agg(pg_get_function_identity_arguments(aggfnoid), ' / ' ORDER BY pronargs) AS signatures
FROM (SELECT c.*, array_length(c.proargtypes::oid[], 1) AS pronargs FROM cat_aggs c) s
WHERE proname = 'bloom_agg' GROUP BY 1 ORDER BY proargtypes[0]::regtype::text COLLATE "C";
SELECT count(DISTINCT proargtypes[0]) AS key_types,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM unnest(proargtypes::oid[]) t
                                      JOIN pg_type ty ON ty.oid = t WHERE ty.typtype = 'p')) AS polymorphic
FROM cat_aggs WHERE proname = 'bloom_agg';
-- Every function of the extension is PARALLEL SAFE, and IMMUTABLE but the
-- planner's selectivity estimator, which reads the statistics (STABLE, as
-- PostgreSQL's own estimators); the ones that are not STRICT handle NULLs
-- themselves.
SELECT count(*) AS functions,
       count(*) FILTER (WHERE p.provolatile = 'i') AS immutable,
       count(*) FILTER (WHERE p.proparallel = 's') AS parallel_safe
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch')
WHERE p.prokind = 'f';
SELECT p.oid::regprocedure AS not_immutable, p.provolatile
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch')
WHERE p.prokind = 'f' AND p.provolatile <> 'i' ORDER BY p.oid::regprocedure::text COLLATE "C";
SELECT p.oid::regprocedure AS not_strict
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch')
WHERE p.prokind = 'f' AND NOT p.proisstrict ORDER BY p.oid::regprocedure::text COLLATE "C";
-- The types: variable length, int4 aligned, stored out of line uncompressed
-- (the bits are random), with text and binary I/O.
SELECT typname, typlen, typalign, typstorage, typinput, typoutput, typreceive, typsend
FROM pg_type WHERE typname IN ('bloom', 'bloom_agg_state') ORDER BY typname;
DROP VIEW cat_aggs;

-- ---------------------------------------------------------------------------
-- Partial states, as a distributed engine gets them
-- ---------------------------------------------------------------------------
CREATE AGGREGATE cat_state(bigint) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE cat_state(bigint, double precision) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE cat_state(bigint, bigint, double precision) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE cat_state(text) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE cat_combine(bloom_agg_state) (
  SFUNC = bloom_agg_combine, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_final);

-- An exact state (few distinct hashes), its header and round trips.
CREATE TEMP TABLE cat_states (name text, s bloom_agg_state);
INSERT INTO cat_states
SELECT 'exact 3', cat_state(x) FROM generate_series(1, 3) x
UNION ALL SELECT 'exact 1000', cat_state(x) FROM generate_series(1, 1000) x
UNION ALL SELECT 'exact 1000 fpr', cat_state(x, 0.001) FROM generate_series(1, 1000) x
UNION ALL SELECT 'exact text', cat_state('k' || x) FROM generate_series(1, 100) x
UNION ALL SELECT 'fixed 1000', cat_state(x, 5000, 0.01) FROM generate_series(1, 1000) x;
-- The state of 1, 2, 3: kind 2, 16 slots, 3 hashes, fpr 0.01.
SELECT s FROM cat_states WHERE name = 'exact 3';
SELECT name, s::text::bloom_agg_state::text = s::text AS text_round_trip,
       bloom_agg_final(s::text::bloom_agg_state) = bloom_agg_final(s) AS same_final,
       octet_length(bloom_agg_state_send(s)) = (length(s::text) - 2) / 2 AS send_is_the_bytes
FROM cat_states ORDER BY name COLLATE "C";
-- The final function of a state is the aggregate's filter.
SELECT bloom_agg_final((SELECT s FROM cat_states WHERE name = 'exact 1000'))
         = (SELECT bloom_agg(x) FROM generate_series(1, 1000) x) AS auto,
       bloom_agg_final((SELECT s FROM cat_states WHERE name = 'exact 1000 fpr'))
         = (SELECT bloom_agg(x, 0.001) FROM generate_series(1, 1000) x) AS fpr,
       bloom_agg_final((SELECT s FROM cat_states WHERE name = 'fixed 1000'))
         = (SELECT bloom_agg(x, 5000, 0.01) FROM generate_series(1, 1000) x) AS fixed,
       bloom_agg_final((SELECT s FROM cat_states WHERE name = 'exact text'))
         = (SELECT bloom_agg('k' || x) FROM generate_series(1, 100) x) AS text;
-- Binary round trip: \copy in binary format goes through send and recv.
\getenv abs_builddir PG_ABS_BUILDDIR
\cd :abs_builddir
CREATE TEMP TABLE cat_recv (name text, s bloom_agg_state);
\copy cat_states TO 'results/bloom_catalog.bin' WITH (FORMAT binary)
\copy cat_recv FROM 'results/bloom_catalog.bin' WITH (FORMAT binary)
SELECT count(*) AS states, count(*) FILTER (WHERE r.s::text = c.s::text) AS identical
FROM cat_recv r JOIN cat_states c USING (name);
-- ... and recv validates: a bloom's bytes are not a state.
CREATE TEMP TABLE cat_bytes (name text, b bytea);
INSERT INTO cat_bytes SELECT 'a bloom', bloom_empty(10)::bytea;
\copy cat_bytes TO 'results/bloom_catalog.bin' WITH (FORMAT binary)
\copy cat_recv FROM 'results/bloom_catalog.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy cat_recv FROM 'results/bloom_catalog.bin' WITH (FORMAT binary)
\set VERBOSITY default
DROP TABLE cat_recv, cat_bytes;

-- Combining partial states that went through their text form (Citus ships
-- them as text): the result equals the aggregate over all the rows.
SELECT bloom_agg_final((SELECT s FROM cat_states WHERE name = 'exact 1000')) =
       (SELECT cat_combine(s::text::bloom_agg_state)
        FROM (SELECT cat_state(x) AS s FROM generate_series(1, 1000) x GROUP BY x % 4) p) AS exact_parts;
SELECT (SELECT bloom_agg(x, 5000, 0.01) FROM generate_series(1, 1000) x) =
       (SELECT cat_combine(s::text::bloom_agg_state)
        FROM (SELECT cat_state(x, 5000, 0.01) AS s FROM generate_series(1, 1000) x GROUP BY x % 3) p) AS fixed_parts;
-- Overlapping parts: a value in two parts counts once.
SELECT (SELECT bloom_agg(x) FROM generate_series(1, 1000) x) =
       (SELECT cat_combine(s) FROM (SELECT cat_state(x) AS s FROM generate_series(1, 600) x
                                    UNION ALL SELECT cat_state(x) FROM generate_series(400, 1000) x) p) AS overlapping;
-- NULL partial states (groups with only NULLs) are skipped.
SELECT (SELECT bloom_agg(x) FROM generate_series(1, 10) x) =
       (SELECT cat_combine(s) FROM (SELECT cat_state(x) AS s FROM generate_series(1, 10) x
                                    UNION ALL SELECT cat_state(NULL::bigint)
                                    UNION ALL SELECT NULL) p) AS null_states;
-- Combining never modifies the states it reads.
CREATE TEMP TABLE cat_parts AS SELECT x % 5 AS part, cat_state(x) AS s FROM generate_series(1, 5000) x GROUP BY x % 5;
CREATE TEMP TABLE cat_parts_before AS SELECT part, s::text AS t FROM cat_parts;
SELECT cat_combine(s) = (SELECT bloom_agg(x) FROM generate_series(1, 5000) x) AS combined FROM cat_parts;
SELECT count(*) FILTER (WHERE p.s::text = b.t) AS unchanged FROM cat_parts p JOIN cat_parts_before b USING (part);
DROP TABLE cat_parts, cat_parts_before;
-- States of different targets or families cannot be combined.
SELECT cat_combine(s) FROM (SELECT cat_state(x) AS s FROM generate_series(1, 10) x
                            UNION ALL SELECT cat_state(x, 0.001) FROM generate_series(1, 10) x) p;
\echo SQLSTATE :SQLSTATE
SELECT cat_combine(s) FROM (SELECT cat_state(x) AS s FROM generate_series(1, 10) x
                            UNION ALL SELECT cat_state(x, 100, 0.01) FROM generate_series(1, 10) x) p;
\echo SQLSTATE :SQLSTATE
SELECT cat_combine(s) FROM (SELECT cat_state(x, 100, 0.01) AS s FROM generate_series(1, 10) x
                            UNION ALL SELECT cat_state(x, 200, 0.01) FROM generate_series(1, 10) x) p;
\echo SQLSTATE :SQLSTATE
SELECT cat_combine(s) FROM (SELECT cat_state(x) AS s FROM generate_series(1, 10) x
                            UNION ALL SELECT cat_state('k' || x) FROM generate_series(1, 10) x) p;
\echo SQLSTATE :SQLSTATE
-- The combine function only works inside an aggregate.
SELECT bloom_agg_combine(s, s) FROM cat_states WHERE name = 'exact 3';
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- Dense states (more than 1,048,576 distinct hashes): combining a dense and
-- an exact state, in both orders, and two dense states
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE cat_dense AS
SELECT 'dense 1..1100000' AS name, cat_state(x) AS s FROM generate_series(1::bigint, 1100000) x
UNION ALL SELECT 'exact 1000001..1200000', cat_state(x) FROM generate_series(1000001::bigint, 1200000) x
UNION ALL SELECT 'dense 100001..1200000', cat_state(x) FROM generate_series(100001::bigint, 1200000) x;
CREATE TEMP TABLE cat_whole AS SELECT bloom_agg(x) AS f FROM generate_series(1::bigint, 1200000) x;
SELECT name, s::text::bloom_agg_state::text = s::text AS text_round_trip FROM cat_dense ORDER BY name COLLATE "C";
SELECT (SELECT cat_combine(s ORDER BY name COLLATE "C") FROM cat_dense WHERE name <> 'dense 100001..1200000') = f AS dense_then_exact,
       (SELECT cat_combine(s ORDER BY name COLLATE "C" DESC) FROM cat_dense WHERE name <> 'dense 100001..1200000') = f AS exact_then_dense,
       (SELECT cat_combine(s) FROM cat_dense WHERE name LIKE 'dense%') = f AS dense_dense,
       (SELECT cat_combine(s::text::bloom_agg_state) FROM cat_dense) = f AS all_via_text
FROM cat_whole;
-- Two exact states whose union passes the limit: the combine turns dense
-- and adds the rest of the second state's hashes in prefetched batches.
SELECT cat_combine(s) = (SELECT f FROM cat_whole) AS exact_exact_dense,
       max(pg_column_size(s)) < 8000000 AS both_exact  -- packed, 5.6 MB; dense, 20 MB
FROM (SELECT cat_state(x) AS s FROM generate_series(1::bigint, 700000) x
      UNION ALL SELECT cat_state(x) FROM generate_series(500001::bigint, 1200000) x) p;
DROP TABLE cat_dense, cat_whole;

-- ---------------------------------------------------------------------------
-- bloom_agg_state text input: garbage is 22P02, a hand-built state is valid
-- ---------------------------------------------------------------------------
SELECT 'garbage'::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT '\x00'::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT '\x4'::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- A bloom is not a state.
SELECT bloom_empty(10)::text::bloom_agg_state;
\echo SQLSTATE :SQLSTATE

-- Hand-built states (format: src/core/bloom_agg_state.h): header "BSKT", version 1,
-- kind 2, algorithm 1, family, seed, p1 = slots (exact) or bits (dense),
-- p2 = hashes (dense) or, fixed and exact, hashes held, p3 = flags (1 dense,
-- 2 fixed, 4 holds hash 0), n = hashes held (exact) or capacity (fixed),
-- x = fpr as float8 bits; then
-- the slots (64-bit hashes, linear probing from slot reduce(h, slots)) or
-- the bits.  Little-endian throughout.
CREATE FUNCTION pg_temp.le64(v bigint) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(substr(int8send(v), 9 - i, 1), ''::bytea ORDER BY i) FROM generate_series(1, 8) i $$;
CREATE FUNCTION pg_temp.le32(v integer) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(substr(int4send(v), 5 - i, 1), ''::bytea ORDER BY i) FROM generate_series(1, 4) i $$;
CREATE FUNCTION pg_temp.fpr_bits(p float8) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(substr(float8send(p), 9 - i, 1), ''::bytea ORDER BY i) FROM generate_series(1, 8) i $$;
CREATE FUNCTION pg_temp.header(family integer, p1 bigint, p2 integer, p3 integer, n bigint, fpr float8)
RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT '\x42534b54010201'::bytea || set_byte('\x00'::bytea, 0, family) || pg_temp.le64(0)
         || pg_temp.le64(p1) || pg_temp.le32(p2) || pg_temp.le32(p3) || pg_temp.le64(n)
         || pg_temp.fpr_bits(fpr) $$;
-- An exact table of `slots` slots holding the given hashes.
CREATE FUNCTION pg_temp.slots(slots integer, hashes bigint[]) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  t bigint[] := array_fill(0::bigint, ARRAY[slots]);
  h bigint;
  i integer;
  r bytea := '';
BEGIN
  FOREACH h IN ARRAY hashes LOOP
    -- reduce(h, slots) = floor(h * slots / 2^64): the top log2(slots) bits
    i := ((h >> (64 - (ln(slots) / ln(2))::integer)) & (slots - 1))::integer;
    WHILE t[i + 1] <> 0 LOOP i := (i + 1) % slots; END LOOP;
    t[i + 1] := h;
  END LOOP;
  FOREACH h IN ARRAY t LOOP r := r || pg_temp.le64(h); END LOOP;
  RETURN r;
END $$;
CREATE FUNCTION pg_temp.as_text(b bytea) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT '\x' || encode(b, 'hex') $$;
-- The state of the integer 42 at 1%, built from bloomsketch_hash(42): its
-- final filter is bloom_agg(42).  (This is how a client can build states or
-- filters without the database, from the documented hash.)
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 0, 1, 0.01)
                       || pg_temp.slots(16, ARRAY[bloomsketch_hash(42)]))::bloom_agg_state AS state_of_42;
SELECT bloom_agg_final(pg_temp.as_text(pg_temp.header(1, 16, 0, 0, 1, 0.01)
                       || pg_temp.slots(16, ARRAY[bloomsketch_hash(42)]))::bloom_agg_state) = bloom_agg(42) AS final_is_bloom_agg;
-- ... equal to the state the aggregate builds.
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 0, 1, 0.01) || pg_temp.slots(16, ARRAY[bloomsketch_hash(42)]))
       = (SELECT s::text FROM (SELECT cat_state(42) AS s) t) AS same_as_aggregate;
-- Three text keys in 16 slots, at 5%.
SELECT bloom_agg_final(pg_temp.as_text(pg_temp.header(2, 16, 0, 0, 3, 0.05)
         || pg_temp.slots(16, ARRAY[bloomsketch_hash('a'), bloomsketch_hash('b'), bloomsketch_hash('c')]))::bloom_agg_state)
       = (SELECT bloom_agg(v, 0.05) FROM (VALUES ('a'), ('b'), ('c')) t(v)) AS three_text_keys;
-- An empty exact state (family none) is valid; its filter is sized for 1 value.
SELECT (bloom_info(bloom_agg_final(pg_temp.as_text(pg_temp.header(0, 16, 0, 0, 0, 0.01)
                                   || pg_temp.slots(16, '{}'))::bloom_agg_state))).*;
-- A fixed-capacity dense state of bloom_empty(10, 0.01)'s shape (96 bits, 7 hashes, 12 bytes).
SELECT bloom_agg_final(pg_temp.as_text(pg_temp.header(0, 96, 7, 3, 10, 0.01) || '\x000000000000000000000000'::bytea)::bloom_agg_state)
       = bloom_empty(10, 0.01) AS fixed_empty_state;
-- Invalid states (22P02 through text input).
-- fpr 0, 1, NaN
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 0, 0, 0) || pg_temp.slots(16, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 0, 0, 1) || pg_temp.slots(16, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 0, 0, 'NaN') || pg_temp.slots(16, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- unknown flags (0x1 dense, 0x2 fixed, 0x4 zero hash, 0x8 counting, 0x10 blocked, 0x20 packed are known)
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 64, 0, 0.01) || pg_temp.slots(16, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- packed (0x20): p1 hashes listed in ascending order, none 0, n = p1 (+1 with the zero hash)
-- (h # -2^63 orders the hashes as unsigned numbers)
SELECT bloom_agg_final(pg_temp.as_text(pg_temp.header(1, 2, 0, 32, 2, 0.01)
         || (SELECT string_agg(pg_temp.le64(h), ''::bytea ORDER BY h # (-9223372036854775808)::bigint)
             FROM (VALUES (bloomsketch_hash(41)), (bloomsketch_hash(42))) v(h)))::bloom_agg_state)
       = (SELECT bloom_agg(x) FROM (VALUES (41), (42)) v(x)) AS packed_reads;
SELECT pg_temp.as_text(pg_temp.header(1, 2, 0, 32, 2, 0.01) || pg_temp.le64(7) || pg_temp.le64(5))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 2, 0, 32, 2, 0.01) || pg_temp.le64(5) || pg_temp.le64(5))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 2, 0, 36, 3, 0.01) || pg_temp.le64(0) || pg_temp.le64(5))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 2, 0, 32, 3, 0.01) || pg_temp.le64(5) || pg_temp.le64(7))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 2, 0, 32, 2, 0.01) || pg_temp.le64(5))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 2, 0, 33, 0, 0.01) || pg_temp.le64(5) || pg_temp.le64(7))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- a packed counting state: a count per hash after the hashes, none 0
SELECT pg_temp.as_text(pg_temp.header(1, 2, 0, 40, 2, 0.01) || pg_temp.le64(5) || pg_temp.le64(7) || '\x0300'::bytea)::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- blocked: an exact state may be blocked, a counting one may not
SELECT length(pg_temp.as_text(pg_temp.header(1, 16, 0, 16, 0, 0.01) || pg_temp.slots(16, '{}'))::bloom_agg_state::text);
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 24, 0, 0.01) || pg_temp.slots(16, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- table size not a power of two, too small, too large; hashes field set
SELECT pg_temp.as_text(pg_temp.header(1, 24, 0, 0, 0, 0.01) || pg_temp.slots(24, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 8, 0, 0, 0, 0.01) || pg_temp.slots(8, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 4194304, 0, 0, 0, 0.01))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 16, 7, 0, 0, 0.01) || pg_temp.slots(16, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- payload length does not match the table size
SELECT pg_temp.as_text(pg_temp.header(1, 32, 0, 0, 0, 0.01) || pg_temp.slots(16, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- count does not match the hashes held
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 0, 2, 0.01) || pg_temp.slots(16, ARRAY[bloomsketch_hash(42)]))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 0, 0, 0.01) || pg_temp.slots(16, ARRAY[bloomsketch_hash(42)]))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- a table more than 3/4 full (13 hashes in 16 slots)
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 0, 13, 0.01)
         || pg_temp.slots(16, ARRAY(SELECT bloomsketch_hash(i) FROM generate_series(1, 13) i)))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- a fixed exact state (hashes held in p2) with capacity 0, one whose filter
-- (capacity 100: 120 bytes) is smaller than the least table, one whose
-- table is larger than its filter (capacity 1,000: 1,199 bytes, at most 128
-- slots); a dense fixed state with capacity 0
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 2, 0, 0.01) || pg_temp.slots(16, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 16, 0, 2, 100, 0.01) || pg_temp.slots(16, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(1, 256, 0, 2, 1000, 0.01) || pg_temp.slots(256, '{}'))::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- ... and a valid one: capacity 1,000, 42 held
SELECT bloom_agg_final(pg_temp.as_text(pg_temp.header(1, 16, 1, 2, 1000, 0.01)
         || pg_temp.slots(16, ARRAY[bloomsketch_hash(42)]))::bloom_agg_state)
       = bloom_add(bloom_empty(1000, 0.01), 42::bigint) AS fixed_exact_42;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(0, 96, 7, 3, 0, 0.01) || '\x000000000000000000000000'::bytea)::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- a dense auto-sized state whose bits do not match its fpr
SELECT pg_temp.as_text(pg_temp.header(0, 96, 7, 1, 0, 0.01) || '\x000000000000000000000000'::bytea)::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- a dense fixed state whose shape is not bloom_empty(capacity, fpr)'s
SELECT pg_temp.as_text(pg_temp.header(0, 90, 7, 3, 10, 0.01) || '\x0000000000000000000000'::bytea)::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- a dense fixed state with a bit set past m (capacity 1: m = 10, bit 10 set),
-- or the wrong payload length
SELECT pg_temp.as_text(pg_temp.header(0, 10, 7, 3, 1, 0.01) || '\x0000'::bytea)::bloom_agg_state IS NOT NULL AS capacity_1_ok;
SELECT pg_temp.as_text(pg_temp.header(0, 10, 7, 3, 1, 0.01) || '\x0004'::bytea)::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
SELECT pg_temp.as_text(pg_temp.header(0, 96, 7, 3, 10, 0.01) || '\x00000000'::bytea)::bloom_agg_state;
\echo SQLSTATE :SQLSTATE
-- the same checks through the binary input would be 22P03 (see the \copy above)

DROP AGGREGATE cat_state(bigint);
DROP AGGREGATE cat_state(bigint, double precision);
DROP AGGREGATE cat_state(bigint, bigint, double precision);
DROP AGGREGATE cat_state(text);
DROP AGGREGATE cat_combine(bloom_agg_state);
DROP TABLE cat_states;
