--
-- bloom_slices: the bit-sliced index of bloom columns (src/bloom_slices*.c).  Its answer to
-- f @> key must be exactly the rows whose own f @> key is true: compared here with the
-- sequential scan for 10,000 keys (present and absent) on a table of several filter shapes
-- (classic and blocked layouts, several sizes, one seed changed by bloom_empty_bits), after
-- the build, inserts (pending rows), updates, deletes, VACUUM and a summarize; then the
-- plans, keys of other types, NULLs, and what the index refuses.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
-- the tables are vacuumed by hand only: an autovacuum would summarise pending rows and change
-- the batches and pending counts this test prints

-- VACUUM removes deleted rows only when no other session's snapshot is older than the delete:
-- an autovacuum ANALYZE of another table may hold one for a while, so the VACUUMs below that
-- must remove rows first wait (up to 60 s) until no other session of this database has one
CREATE FUNCTION bsl_no_older_snapshots() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..600 LOOP
    IF NOT EXISTS (SELECT FROM pg_stat_activity WHERE pid <> pg_backend_pid()
                   AND datname = current_database() AND backend_xmin IS NOT NULL) THEN
      RETURN true;
    END IF;
    PERFORM pg_sleep(0.1);
    PERFORM pg_stat_clear_snapshot();  -- pg_stat_activity is read once a transaction otherwise
  END LOOP;
  RETURN false;
END $$;

-- row g holds the keys g .. g + 40 (about 40 rows hold each key), in one of five shapes
CREATE TABLE bsl (id int PRIMARY KEY, f bloom) WITH (autovacuum_enabled = off);
CREATE FUNCTION bsl_filter(g int) RETURNS bloom LANGUAGE sql AS $$
  SELECT bloom_add_all(CASE g % 5
      WHEN 0 THEN bloom_empty(64, 0.01)
      WHEN 1 THEN bloom_empty(64, 0.01, 'blocked')
      WHEN 2 THEN bloom_empty(200, 0.05)
      WHEN 3 THEN bloom_empty_bits(1000, 3)
      ELSE bloom_empty_bits(1024, 5, 'blocked') END,
    array_agg(x)) FROM generate_series(g, g + 40) x $$;
INSERT INTO bsl SELECT g, bsl_filter(g) FROM generate_series(1, 1000) g;
INSERT INTO bsl VALUES (0, NULL), (-1, bloom_empty(64, 0.01));
CREATE INDEX bsl_f ON bsl USING bloom_slices (f);
SELECT batches, indexed_rows, pending_rows FROM bloom_slices_info('bsl_f');

CREATE TABLE bsl_keys AS SELECT k FROM generate_series(-2000, 7999) k;
ANALYZE bsl, bsl_keys;

-- the answers of the sequential scan and of the index, per key: how many rows and which
CREATE FUNCTION bsl_answers(use_index boolean)
RETURNS TABLE (k int, n bigint, ids numeric) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('enable_seqscan', (NOT use_index)::text, true);
  PERFORM set_config('enable_bitmapscan', use_index::text, true);
  PERFORM set_config('enable_indexscan', 'false', true);
  PERFORM set_config('enable_hashjoin', 'false', true);
  PERFORM set_config('enable_mergejoin', 'false', true);
  -- EXECUTE: planned anew with these settings (a cached plan would keep the first ones)
  RETURN QUERY EXECUTE 'SELECT bsl_keys.k, count(bsl.id), coalesce(sum(bsl.id::bigint * bsl.id), 0)
    FROM bsl_keys LEFT JOIN bsl ON bsl.f @> bsl_keys.k GROUP BY bsl_keys.k';
END $$;
CREATE FUNCTION bsl_compare() RETURNS TABLE (keys bigint, matches numeric, differing bigint)
LANGUAGE sql AS $$
  WITH s AS (SELECT * FROM bsl_answers(false)), i AS (SELECT * FROM bsl_answers(true))
  SELECT (SELECT count(*) FROM s), (SELECT sum(n) FROM s),
         (SELECT count(*) FROM ((TABLE s EXCEPT TABLE i) UNION ALL (TABLE i EXCEPT TABLE s)) d) $$;

-- the join probes the index once per key (the plan's lines that say so: the rest of the plan,
-- the aggregate's strategy and PostgreSQL 18's "Disabled" lines, differs between versions)
CREATE FUNCTION bsl_plan_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP RETURN NEXT l; END LOOP;
END $$;
BEGIN;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_mergejoin = off;
SET LOCAL enable_indexscan = off;
SELECT trim(l) AS plan_line
FROM bsl_plan_lines('SELECT bsl_keys.k, count(bsl.id) FROM bsl_keys LEFT JOIN bsl ON bsl.f @> bsl_keys.k GROUP BY 1') l
WHERE l ~ 'Nested Loop|bsl_f|Index Cond|Bitmap Heap Scan on bsl$';
COMMIT;

SELECT * FROM bsl_compare();

-- inserts wait in the pending list; lookups read them row by row
INSERT INTO bsl SELECT g, bsl_filter(g) FROM generate_series(1001, 1400) g;
SELECT batches, indexed_rows, pending_rows > 0 AS pending FROM bloom_slices_info('bsl_f');
SELECT * FROM bsl_compare();

-- updates and deletes: the old rows' TIDs stay in the index until VACUUM; never answered
UPDATE bsl SET f = bsl_filter(id + 3000) WHERE id % 7 = 0;
DELETE FROM bsl WHERE id % 11 = 0;
SELECT * FROM bsl_compare();
SELECT bsl_no_older_snapshots();
VACUUM bsl;
SELECT batches, indexed_rows - dead_rows AS live_rows, pending_rows FROM bloom_slices_info('bsl_f');
SELECT * FROM bsl_compare();

-- more rows, summarised by hand
INSERT INTO bsl SELECT g, bsl_filter(g) FROM generate_series(1401, 1500) g;
SELECT bloom_slices_summarize('bsl_f');
SELECT bloom_slices_summarize('bsl_f');
SELECT pending_rows FROM bloom_slices_info('bsl_f');

-- REINDEX builds the same answers
REINDEX INDEX bsl_f;
SELECT batches, indexed_rows, dead_rows, pending_rows FROM bloom_slices_info('bsl_f');
SELECT * FROM bsl_compare();

-- more than half of the rows deleted: VACUUM rewrites the batches without them
DELETE FROM bsl WHERE id % 3 <> 0;
SELECT bsl_no_older_snapshots();
VACUUM bsl;
SELECT batches, indexed_rows, dead_rows, pending_rows FROM bloom_slices_info('bsl_f');
SELECT * FROM bsl_compare();

-- filters larger than a page (12 kB): a pending row spans two pages
CREATE TABLE bsl_big (id int, f bloom) WITH (autovacuum_enabled = off);
CREATE INDEX bsl_big_f ON bsl_big USING bloom_slices (f);
INSERT INTO bsl_big SELECT g, bloom_add_all(bloom_empty(10000, 0.01),
  (SELECT array_agg(x) FROM generate_series(g * 100, g * 100 + 500) x)) FROM generate_series(1, 30) g;
SELECT octet_length(f::bytea) AS bytes, count(*) FROM bsl_big GROUP BY 1;
SELECT batches, pending_rows, pending_pages FROM bloom_slices_info('bsl_big_f');
CREATE FUNCTION bsl_big_answers(use_index boolean) RETURNS TABLE (k int, n bigint, ids bigint)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('enable_seqscan', (NOT use_index)::text, true);
  PERFORM set_config('enable_bitmapscan', use_index::text, true);
  PERFORM set_config('enable_hashjoin', 'false', true);
  PERFORM set_config('enable_mergejoin', 'false', true);
  RETURN QUERY EXECUTE 'SELECT g.k, count(b.id), coalesce(sum(b.id), 0)
    FROM generate_series(0, 3600) g(k) LEFT JOIN bsl_big b ON b.f @> g.k GROUP BY g.k';
END $$;
SELECT count(*) AS keys, sum(n) AS matches,
       (SELECT count(*) FROM ((SELECT * FROM bsl_big_answers(false) EXCEPT SELECT * FROM bsl_big_answers(true))
                              UNION ALL
                              (SELECT * FROM bsl_big_answers(true) EXCEPT SELECT * FROM bsl_big_answers(false))) d) AS differing
FROM bsl_big_answers(false);
SELECT bloom_slices_summarize('bsl_big_f');
SELECT batches, pending_rows FROM bloom_slices_info('bsl_big_f');
SELECT count(*) AS keys, sum(n) AS matches,
       (SELECT count(*) FROM ((SELECT * FROM bsl_big_answers(false) EXCEPT SELECT * FROM bsl_big_answers(true))
                              UNION ALL
                              (SELECT * FROM bsl_big_answers(true) EXCEPT SELECT * FROM bsl_big_answers(false))) d) AS differing
FROM bsl_big_answers(false);
DROP TABLE bsl_big;
DROP FUNCTION bsl_big_answers(boolean);

-- shapes that arrive interleaved share the build's memory by the rows each has: 600 rows of
-- three large shapes (3 to 12 kB), in turn, make one batch per shape (not one per row)
CREATE TABLE bsl_mix (id int, f bloom) WITH (autovacuum_enabled = off);
INSERT INTO bsl_mix SELECT g, bloom_add(bloom_empty(CASE g % 3 WHEN 0 THEN 2500 WHEN 1 THEN 5000
  ELSE 10000 END, 0.01), g) FROM generate_series(1, 600) g;
CREATE INDEX bsl_mix_f ON bsl_mix USING bloom_slices (f);
SELECT batches, indexed_rows FROM bloom_slices_info('bsl_mix_f');
SET enable_seqscan = off;
SELECT count(*) AS found FROM generate_series(1, 600) g WHERE EXISTS (SELECT FROM bsl_mix WHERE f @> g AND id = g);
RESET enable_seqscan;
DROP TABLE bsl_mix;

-- one batch per shape whatever the memory: a build keeps half of maintenance_work_mem (at least
-- 64 MB) of rows in memory and transposes the rest into a temporary file in runs, laid end to
-- end slice by slice.  2,000 filters of 48 kB and 24 kB interleaved (72 MB) spill runs of row
-- counts that are not multiples of 8 at 64 MB and none at 1 GB: the same 2 batches, and the
-- same (key, row) pairs for 8,000 keys (present and absent); 120 keys checked against the
-- sequential scan too.  Then two thirds deleted: VACUUM rewrites both batches, too large to
-- read back into memory, slice by slice without their dead rows.
CREATE TABLE bsl_wide (id int, f bloom) WITH (autovacuum_enabled = off);
INSERT INTO bsl_wide SELECT g, bloom_add_all(bloom_empty(CASE g % 2 WHEN 0 THEN 40000 ELSE 20000 END,
  0.01), ARRAY[g, g + 5000]) FROM generate_series(1, 2000) g;
CREATE FUNCTION bsl_wide_pairs(keys int[]) RETURNS TABLE (k int, id int)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'SELECT g.k, b.id FROM unnest($1) g(k) JOIN bsl_wide b ON b.f @> g.k' USING keys;
END $$;
SET maintenance_work_mem = '64MB';
CREATE INDEX bsl_wide_f ON bsl_wide USING bloom_slices (f);
SELECT batches, indexed_rows FROM bloom_slices_info('bsl_wide_f');
SET enable_seqscan = off;
CREATE TEMP TABLE bsl_wide_spilled AS SELECT * FROM bsl_wide_pairs(ARRAY(SELECT generate_series(1, 8000)));
SELECT count(*) AS pairs, count(DISTINCT k) AS keys_found FROM bsl_wide_spilled;
SET maintenance_work_mem = '1GB';
REINDEX INDEX bsl_wide_f;
SELECT batches, indexed_rows FROM bloom_slices_info('bsl_wide_f');
SELECT count(*) AS differing FROM ((TABLE bsl_wide_spilled EXCEPT ALL SELECT * FROM bsl_wide_pairs(ARRAY(SELECT generate_series(1, 8000))))
  UNION ALL (SELECT * FROM bsl_wide_pairs(ARRAY(SELECT generate_series(1, 8000))) EXCEPT ALL TABLE bsl_wide_spilled)) d;
RESET enable_seqscan;
RESET maintenance_work_mem;
SET enable_bitmapscan = off;
SELECT count(*) AS pairs,
       (SELECT count(*) FROM ((SELECT * FROM bsl_wide_pairs(ARRAY(SELECT generate_series(1, 8000, 67)))
                               EXCEPT ALL SELECT * FROM bsl_wide_spilled WHERE k % 67 = 1)
                              UNION ALL (SELECT * FROM bsl_wide_spilled WHERE k % 67 = 1
                               EXCEPT ALL SELECT * FROM bsl_wide_pairs(ARRAY(SELECT generate_series(1, 8000, 67))))) d) AS differing
FROM bsl_wide_spilled WHERE k % 67 = 1;
RESET enable_bitmapscan;
DELETE FROM bsl_wide WHERE id % 3 <> 0;
SELECT bsl_no_older_snapshots();
VACUUM bsl_wide;
SELECT batches, indexed_rows, dead_rows FROM bloom_slices_info('bsl_wide_f');
SET enable_seqscan = off;
SELECT count(*) AS differing FROM ((SELECT * FROM bsl_wide_spilled WHERE id % 3 = 0 EXCEPT ALL SELECT * FROM bsl_wide_pairs(ARRAY(SELECT generate_series(1, 8000))))
  UNION ALL (SELECT * FROM bsl_wide_pairs(ARRAY(SELECT generate_series(1, 8000))) EXCEPT ALL SELECT * FROM bsl_wide_spilled WHERE id % 3 = 0)) d;
RESET enable_seqscan;
DROP TABLE bsl_wide, bsl_wide_spilled;
DROP FUNCTION bsl_wide_pairs(int[]);

-- the plans: f @> key and key <@ f are index conditions; several keys are ANDed in one scan
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM bsl WHERE f @> 42;
EXPLAIN (COSTS OFF) SELECT id FROM bsl WHERE 42 <@ f;
EXPLAIN (COSTS OFF) SELECT id FROM bsl WHERE f @> 42 AND f @> 43::bigint;
SELECT array_agg(id ORDER BY id) FROM bsl WHERE f @> 42;
SELECT array_agg(id ORDER BY id) FROM bsl WHERE 42 <@ f;
SELECT array_agg(id ORDER BY id) FROM bsl WHERE f @> 42 AND f @> 43::bigint;
SELECT count(*) FROM bsl WHERE f @> 42::smallint;
SELECT count(*) FROM bsl WHERE f @> 42.0;
SELECT count(*) FROM bsl WHERE f @> NULL::int;
-- a key of another family is the error @> gives
SELECT count(*) FROM bsl WHERE f @> 'abc';
RESET enable_seqscan;
SELECT array_agg(id ORDER BY id) FROM bsl WHERE f @> 42 AND f @> 43::bigint;

-- text keys
CREATE TABLE bsl_text (id int, f bloom) WITH (autovacuum_enabled = off);
INSERT INTO bsl_text SELECT g, bloom_add_all(bloom_empty(50, 0.01),
  (SELECT array_agg('k' || x) FROM generate_series(g, g + 20) x)) FROM generate_series(1, 300) g;
CREATE INDEX ON bsl_text USING bloom_slices (f);
SET enable_seqscan = off;
SELECT array_agg(id ORDER BY id) FROM bsl_text WHERE f @> 'k100';
RESET enable_seqscan;
SET enable_bitmapscan = off;
SELECT array_agg(id ORDER BY id) FROM bsl_text WHERE f @> 'k100';
RESET enable_bitmapscan;

-- what it refuses: growable filters (at build and at insert), other types, options
CREATE TABLE bsl_grow (f bloom);
INSERT INTO bsl_grow VALUES (bloom_empty(100, 0.01, 2));
CREATE INDEX ON bsl_grow USING bloom_slices (f);
INSERT INTO bsl VALUES (5000, bloom_empty(100, 0.01, 2));
CREATE TABLE bsl_cb (f cbloom);
CREATE INDEX ON bsl_cb USING bloom_slices (f);
CREATE INDEX ON bsl USING bloom_slices (f) WITH (fillfactor = 50);
-- its counts are for those who may read the table; summarize, for the index's owner
CREATE ROLE regress_bsl_reader;
SET ROLE regress_bsl_reader;
SELECT batches FROM bloom_slices_info('bsl_f');
SELECT bloom_slices_summarize('bsl_f');
RESET ROLE;
GRANT SELECT ON bsl TO regress_bsl_reader;
SET ROLE regress_bsl_reader;
SELECT batches > 0 AS readable FROM bloom_slices_info('bsl_f');
SELECT bloom_slices_summarize('bsl_f');
RESET ROLE;
REVOKE SELECT ON bsl FROM regress_bsl_reader;
DROP ROLE regress_bsl_reader;
SELECT bloom_slices_summarize('bsl_pkey');
SELECT bloom_slices_summarize('bsl');

DROP TABLE bsl, bsl_keys, bsl_text, bsl_grow, bsl_cb;
DROP FUNCTION bsl_compare(), bsl_answers(boolean), bsl_filter(int), bsl_plan_lines(text);
