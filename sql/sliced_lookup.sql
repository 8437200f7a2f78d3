--
-- sliced_lookup: a lookup in a large TOASTed, uncompressed sketch (bloom and
-- cbloom membership and counts, cms frequency) fetches only the header, the
-- last chunk and the chunks of its probes (src/sliced.c), and answers exactly
-- as a lookup on the whole value.  The whole value is read here through the
-- bytea cast ((f::bytea)::bloom is a new in-memory value, never sliced).
-- Compared: every stored sketch against keys that were added and keys that
-- were not, a compressed cms (full read), the semi-join pattern (one stored
-- filter probed for many rows: one full read, then the cache), and the
-- blocks read, which show that the sliced path is taken.  Bad stored values
-- (a header that disagrees with the stored size) are XX001.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
-- 4 classic filters of 1.2 MB (600 TOAST chunks each), 2000 keys each
CREATE TABLE sl_bloom (id int, f bloom);
INSERT INTO sl_bloom
SELECT g, bloom_agg(i * 7919 + g, 1000000, 0.01)
FROM generate_series(1, 4) g, generate_series(1::bigint, 2000) i GROUP BY g;
-- and 2 blocked ones (one 64-byte block per key, so one chunk per lookup)
INSERT INTO sl_bloom
SELECT g, bloom_agg(i * 7919 + g, 1000000, 0.01, 'blocked')
FROM generate_series(5, 6) g, generate_series(1::bigint, 2000) i GROUP BY g;
CREATE TABLE sl_cbloom (id int, bits int, f cbloom);
INSERT INTO sl_cbloom
SELECT g, b, cbloom_agg(i * 7919 + g, 300000 / (b / 4), 0.01, b)
FROM generate_series(1, 2) g, generate_series(1::bigint, 2000) i, (VALUES (4), (8)) AS v(b)
GROUP BY g, b;
-- cms: stored uncompressed (external) and compressed (extended, the default)
CREATE TABLE sl_cms (id int, f cms, fc cms);
ALTER TABLE sl_cms ALTER COLUMN f SET STORAGE EXTERNAL;
INSERT INTO sl_cms
SELECT g, s, s
FROM (SELECT g, cms_agg(i % 500 + g, 0.0001, 0.01) AS s
      FROM generate_series(1, 3) g, generate_series(1::bigint, 4000) i GROUP BY g) x;
SELECT 'bloom' AS kind, count(*) AS values, min(pg_column_size(f)) AS min_stored_bytes FROM sl_bloom
UNION ALL SELECT 'cbloom', count(*), min(pg_column_size(f)) FROM sl_cbloom
UNION ALL SELECT 'cms', count(*), min(pg_column_size(f)) FROM sl_cms
UNION ALL SELECT 'cms compressed', count(*), max(pg_column_size(fc)) FROM sl_cms;
-- keys: added ones (i * 7919 + 1 and, blocked, + 5, every 40th) and others
CREATE TABLE sl_keys AS
SELECT (i * 7919 + 1)::bigint AS k FROM generate_series(1, 2000, 40) i
UNION ALL SELECT (i * 7919 + 5)::bigint FROM generate_series(1, 2000, 40) i
UNION ALL SELECT k FROM generate_series(1, 400000, 8001) k;
-- For each key, the stored sketches are scanned in turn (a subplan per key),
-- so every lookup meets another value than the previous one: all sliced.
SELECT count(*) AS keys,
       sum((SELECT count(*) FROM sl_bloom WHERE f @> k)) AS sliced_hits,
       sum((SELECT count(*) FROM sl_bloom WHERE k <@ f)) AS sliced_hits_contained,
       sum((SELECT count(*) FROM sl_bloom WHERE (f::bytea)::bloom @> k)) AS whole_hits
FROM sl_keys;
SELECT count(*) FILTER (WHERE (SELECT array_agg(f @> k ORDER BY id) FROM sl_bloom)
                        IS DISTINCT FROM
                        (SELECT array_agg((f::bytea)::bloom @> k ORDER BY id) FROM sl_bloom))
       AS bloom_keys_that_differ
FROM sl_keys;
SELECT count(*) FILTER (WHERE (SELECT array_agg(ROW(cbloom_contains(f, k), k <@ f, cbloom_count(f, k)) ORDER BY id, bits) FROM sl_cbloom)
                        IS DISTINCT FROM
                        (SELECT array_agg(ROW(cbloom_contains(w, k), k <@ w, cbloom_count(w, k)) ORDER BY id, bits)
                         FROM (SELECT id, bits, (f::bytea)::cbloom AS w FROM sl_cbloom) x))
       AS cbloom_keys_that_differ,
       sum((SELECT sum(cbloom_count(f, k)) FROM sl_cbloom)) AS cbloom_count_sum
FROM sl_keys;
SELECT count(*) FILTER (WHERE (SELECT array_agg(ROW(f -> k, fc -> k) ORDER BY id) FROM sl_cms)
                        IS DISTINCT FROM
                        (SELECT array_agg(ROW((f::bytea)::cms -> k, (f::bytea)::cms -> k) ORDER BY id) FROM sl_cms))
       AS cms_keys_that_differ,
       sum((SELECT sum(f -> k) FROM sl_cms)) AS cms_frequency_sum
FROM sl_keys;
-- The semi-join pattern: one stored filter probed for every key (sliced once,
-- then one full read kept by the call site's cache); same answers.
SELECT count(*) FILTER (WHERE (SELECT f FROM sl_bloom WHERE id = 1) @> k) AS semi_join_hits,
       count(*) FILTER (WHERE (SELECT (f::bytea)::bloom FROM sl_bloom WHERE id = 1) @> k) AS whole_hits
FROM sl_keys;
-- The blocks a query touches (shared hit + read), from EXPLAIN (ANALYZE, BUFFERS).
CREATE FUNCTION sl_blocks(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    j json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO j;
    RETURN (j -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint
         + (j -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
END
$$;
-- A full read of a 600-chunk filter touches its 150 TOAST pages; a sliced
-- lookup about ten chunks and their index pages.
SELECT sl_blocks('SELECT count(*) FROM sl_bloom WHERE f @> 42::bigint') * 4
       < sl_blocks('SELECT count(*) FROM sl_bloom WHERE (f::bytea)::bloom @> 42::bigint') AS bloom_sliced,
       sl_blocks('SELECT count(*) FROM sl_bloom WHERE id > 4 AND f @> 42::bigint') * 4
       < sl_blocks('SELECT count(*) FROM sl_bloom WHERE id > 4 AND (f::bytea)::bloom @> 42::bigint') AS blocked_sliced,
       sl_blocks('SELECT count(*) FROM sl_cbloom WHERE f @> 42::bigint') * 4
       < sl_blocks('SELECT count(*) FROM sl_cbloom WHERE (f::bytea)::cbloom @> 42::bigint') AS cbloom_sliced,
       sl_blocks('SELECT sum(f -> 42::bigint) FROM sl_cms') * 4
       < sl_blocks('SELECT sum((f::bytea)::cms -> 42::bigint) FROM sl_cms') AS cms_sliced;
-- Stored values whose header disagrees with their stored size.  The type
-- input refuses such bytes, so they are stored as bytea (uncompressed, out
-- of line) and the column's type is then changed in the catalog.
CREATE TABLE sl_bad (id int, f bytea);
ALTER TABLE sl_bad ALTER COLUMN f SET STORAGE EXTERNAL;
INSERT INTO sl_bad
SELECT 1, f::bytea || '\x00'::bytea FROM sl_bloom WHERE id = 1           -- one byte too many
UNION ALL
SELECT 2, substr(f::bytea, 1, length(f::bytea) - 4000) FROM sl_bloom WHERE id = 1  -- two chunks short
UNION ALL
SELECT 3, overlay(f::bytea placing '\x00'::bytea from 19 for 1) FROM sl_bloom WHERE id = 1;  -- m changed
SET allow_system_table_mods = on;
UPDATE pg_attribute SET atttypid = 'bloom'::regtype
WHERE attrelid = 'sl_bad'::regclass AND attname = 'f';
RESET allow_system_table_mods;
\set VERBOSITY terse
SELECT f @> 42::bigint FROM sl_bad WHERE id = 1;
\echo SQLSTATE :SQLSTATE
SELECT f @> 42::bigint FROM sl_bad WHERE id = 2;
\echo SQLSTATE :SQLSTATE
SELECT f @> 42::bigint FROM sl_bad WHERE id = 3;
\echo SQLSTATE :SQLSTATE
\set VERBOSITY default
DROP TABLE sl_bad;
DROP FUNCTION sl_blocks(text);
DROP TABLE sl_bloom, sl_cbloom, sl_cms, sl_keys;
