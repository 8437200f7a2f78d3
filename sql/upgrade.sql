--
-- upgrade: version 1.0 as released, then ALTER EXTENSION bloomsketch UPDATE
-- to 1.1 (bloomsketch--1.0--1.1.sql adds cbloom), to 1.2
-- (bloomsketch--1.1--1.2.sql adds = and hashing for topk), to 1.3
-- (bloomsketch--1.2--1.3.sql adds the blocked layout, cms_subtract and
-- topk_agg_weighted), to 1.4 (bloomsketch--1.3--1.4.sql adds growable
-- filters) and to 1.5 (bloomsketch--1.4--1.5.sql: topk format 2 and its
-- bounds) with sketches of every 1.0 type stored in tables: they read the
-- same after each update, answer the same, and mix with the new type.  The
-- library is the current one throughout, so the topk sketches made here are
-- of format 2; the ones 1.4 stored, of format 1, are its bytes, as literals.
-- Runs in its own database.
--
SELECT current_database() AS regress_db \gset
CREATE DATABASE bloomsketch_upgrade;
\c bloomsketch_upgrade

CREATE EXTENSION bloomsketch VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch';
SELECT to_regtype('cbloom') IS NULL AS no_cbloom_in_1_0;
SELECT name, version, installed FROM pg_available_extension_versions
WHERE name = 'bloomsketch' ORDER BY version;
SELECT source, target, path FROM pg_extension_update_paths('bloomsketch')
WHERE path IS NOT NULL ORDER BY 1, 2;

-- Sketches stored under 1.0, with their text forms kept aside as text.
CREATE TABLE daily (day date PRIMARY KEY, visitors bloom, capped bloom, hits cms, top topk);
INSERT INTO daily
SELECT '2026-11-01'::date + d,
       bloom_agg(u), bloom_agg(u, 10000, 0.01), cms_agg(u % 50), topk_agg(u % 50, 5)
FROM generate_series(0, 2) d, generate_series(1, 3000) u
WHERE u % 3 = d OR u < 100
GROUP BY d;
CREATE TABLE before AS
SELECT day, visitors::text AS v, capped::text AS c, hits::text AS h, top::text AS t,
       visitors @> 300 AS has300, hits -> 7 AS hits7
FROM daily;
CREATE VIEW daily_view AS SELECT day, visitors @> 42 AS has42, hits -> 7 AS hits7 FROM daily;

ALTER EXTENSION bloomsketch UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch';
ALTER EXTENSION bloomsketch UPDATE TO '1.1';
SELECT to_regoperator('=(topk,topk)') IS NULL AS no_topk_equality_in_1_1;

-- Stored values are byte-identical and answer the same.
SELECT b.day, d.visitors::text = b.v AS visitors_same, d.capped::text = b.c AS capped_same,
       d.hits::text = b.h AS hits_same, d.top::text = b.t AS top_same,
       (d.visitors @> 300) = b.has300 AS lookup_same, (d.hits -> 7) = b.hits7 AS frequency_same
FROM daily d JOIN before b USING (day) ORDER BY b.day;
SELECT * FROM daily_view ORDER BY day;
SELECT bloom_union_agg(capped) @> 2999 AS rollup_ok, cms_union_agg(hits) -> 7 AS hits7_all_days,
       (topk_items(topk_union_agg(top))).value AS top1
FROM daily LIMIT 1;

-- The new type works next to the stored ones: a counting filter of the
-- same shape as the stored capacity-built filters merges with them by OR.
ALTER TABLE daily ADD COLUMN live cbloom;
UPDATE daily SET live = (SELECT cbloom_agg(u, 10000, 0.01) FROM generate_series(1, 3000) u
                         WHERE u % 3 = extract(day FROM day)::int - 1 OR u < 100);
SELECT day, live::bloom = capped AS bit_view_equals_stored,
       bloom_info(live::bloom | capped) = bloom_info(capped) AS merges_with_stored
FROM daily ORDER BY day;
UPDATE daily SET live = cbloom_remove(live, 42);
SELECT day, live @> 42 AS has42_after_removal, cbloom_count(live, 43) AS count43 FROM daily ORDER BY day;

-- 1.2: the stored topk sketches compare and group by their bytes.
ALTER EXTENSION bloomsketch UPDATE TO '1.2';
SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch';
SELECT d.day, d.top = (SELECT top FROM daily WHERE day = d.day) AS equal_to_itself,
       d.top <> (SELECT top FROM daily WHERE day = '2026-11-01') AS differs_from_first_day,
       d.top::text = b.t AS still_same_bytes
FROM daily d JOIN before b USING (day) ORDER BY d.day;
SELECT sum(n) AS days, count(*) AS groups_by_sketch
FROM (SELECT top, count(*) AS n FROM daily GROUP BY top) g;

-- 1.3: the blocked layout.  Before the update the 1.2 catalog's bloom_info
-- (11 columns) still works with the new library; after it, bloom_info has a
-- last column layout, the stored filters are classic, keep their bytes and
-- answers, and a blocked column sits beside them.
SELECT day, (bloom_info(visitors)).bits > 0 AS info_works_before, to_regprocedure('bloom_empty(bigint, double precision, text)') IS NULL AS no_layout_in_1_2
FROM daily ORDER BY day;
ALTER EXTENSION bloomsketch UPDATE TO '1.3';
SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch';
SELECT b.day, d.visitors::text = b.v AS visitors_same, d.capped::text = b.c AS capped_same,
       (d.visitors @> 300) = b.has300 AS lookup_same,
       (bloom_info(d.visitors)).layout AS visitors_layout, (bloom_info(d.capped)).layout AS capped_layout
FROM daily d JOIN before b USING (day) ORDER BY b.day;
SELECT * FROM daily_view ORDER BY day;
ALTER TABLE daily ADD COLUMN fast bloom;
UPDATE daily SET fast = (SELECT bloom_agg(u, 10000, 0.01, 'blocked') FROM generate_series(1, 3000) u
                         WHERE u % 3 = extract(day FROM day)::int - 1 OR u < 100);
SELECT day, (bloom_info(fast)).layout, fast @> 42 AS has42, visitors @> 42 AS stored_has42,
       bloom_union_agg(fast) OVER () @> 2999 AS rollup_ok
FROM daily ORDER BY day;
SELECT bloom_union(fast, capped) FROM daily LIMIT 1;

-- 1.3 (issue 19): the stored 1.0 cms sketches subtract exactly (the rollup
-- of the three days less the first day is the sum of the other two), and
-- topk_agg_weighted merges with the stored topk_agg sketches of its shape.
SELECT (SELECT cms_union_agg(hits) FROM daily) - (SELECT hits FROM daily WHERE day = '2026-11-01')
     = (SELECT cms_union_agg(hits) FROM daily WHERE day > '2026-11-01') AS stored_cms_subtract_exact;
SELECT (topk_items(topk_union_agg(t))).value AS top1
FROM (SELECT top AS t FROM daily UNION ALL SELECT topk_agg_weighted(7, 100000::bigint, 5)) u LIMIT 1;

-- 1.4: growable filters.  Before the update the 1.3 catalog's bloom_info
-- (12 columns) still works with the new library; after it, bloom_info has
-- the columns growth and stages, the stored filters are fixed (one stage)
-- and keep their bytes, and a growable column sits beside them.
SELECT day, (bloom_info(fast)).layout AS info_works_before,
       to_regprocedure('bloom_stages(bloom)') IS NULL AS no_stages_in_1_3
FROM daily ORDER BY day;
ALTER EXTENSION bloomsketch UPDATE TO '1.4';
SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch';
SELECT b.day, d.visitors::text = b.v AS visitors_same, (d.visitors @> 300) = b.has300 AS lookup_same,
       i.growth, i.stages, i.hashes IS NOT NULL AS has_hashes
FROM daily d JOIN before b USING (day), bloom_info(d.visitors) i ORDER BY b.day;
ALTER TABLE daily ADD COLUMN seen bloom;
UPDATE daily SET seen = bloom_empty(10, 0.01, growth => 2);
CREATE FUNCTION add_range(f bloom, lo int, hi int) RETURNS bloom LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN lo..hi LOOP f := bloom_add(f, i); END LOOP;
  RETURN f;
END $$;
UPDATE daily SET seen = add_range(seen, 1, 25 * (extract(day FROM day)::int));
SELECT day, i.stages, i.growth, i.hashes, seen @> 25 AS has25, seen @> 75 AS has75
FROM daily, bloom_info(seen) i ORDER BY day;
SELECT stage, capacity, target_fpr, keys FROM bloom_stages((SELECT bloom_union_agg(seen) FROM daily));
SELECT bloom_union(seen, visitors) FROM daily LIMIT 1;

-- 1.5: topk of format 2.  Under 1.4 a table holds topk sketches of format 1
-- as 1.4 stored them (topk_agg(x % 7, 3, 0.1, 0.2) over 1..100 and the
-- worked example of doc/format.md, section 9.4, whose items 1.4 listed as
-- c 3, b 2); the 1.4 catalog's topk_info (10 columns) works with the new
-- library.  After the update the stored values keep their bytes and their
-- answers, topk_info has capacity and untracked_max (NULL: format 1 has no
-- such bound), the new functions read them, they merge with each other and
-- are refused, with a hint, beside a sketch of format 2.
CREATE TABLE old_top (id int PRIMARY KEY, t topk);
INSERT INTO old_top VALUES (1, '\x42534b540104010100000000000000001c000000000000000200000003000000640000000000000006000000300000000f000000000000000e000000000000000e00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e0000000000000000000000000000000f00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001d000000000000000e000000000000000f000000000000000000000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000000000000000000000000000000000043e2ee915cc686200f0000000000000000000000080000002e79db643559bc2f0f0000000000000008000000080000007d2ef4c12920924d0e0000000000000010000000080000003b676347da4b996b0e0000000000000018000000080000008ca7aa39aae9038e0e00000000000000200000000800000078715ed90a2922ca0e000000000000002800000008000000020000000000000001000000000000000300000000000000060000000000000005000000000000000400000000000000'), (2, '\x42534b540104010200000000000000000800000000000000010000000200000006000000000000000300000003000000000000000000000000000000000000000300000000000000000000000000000000000000000000000000000000000000010000000000000002000000000000001bf8b9469a21408c030000000000000000000000010000003f84d8441c0b5a57020000000000000001000000010000001f4e961eb632c6e601000000000000000200000001000000000000000000000000000000000000000000000000000000636261');
CREATE TABLE old_before AS
SELECT id, t::text AS t, (SELECT string_agg(value || '=' || frequency, ',') FROM topk_items(t)) AS items
FROM old_top;
SELECT o.id, (topk_info(o.t)).format_version, (topk_info(o.t)).candidates, b.items FROM old_top o JOIN old_before b USING (id) ORDER BY o.id;
SELECT to_regprocedure('topk_items_bounds(topk)') IS NULL AS no_bounds_in_1_4;
ALTER EXTENSION bloomsketch UPDATE TO '1.5';
SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch';
SELECT o.id, o.t::text = b.t AS same_bytes,
       (SELECT string_agg(value || '=' || frequency, ',') FROM topk_items(o.t)) = b.items AS same_items,
       i.format_version, i.capacity, i.untracked_max
FROM old_top o JOIN old_before b USING (id), topk_info(o.t) i ORDER BY o.id;
SELECT * FROM topk_items_bounds((SELECT t FROM old_top WHERE id = 1), 6);
SELECT (SELECT t FROM old_top WHERE id = 2) -> 'c' AS c_at_most;
-- Stored format-2 sketches (the daily ones made above) keep their bytes too.
SELECT b.day, d.top::text = b.t AS top_same, (topk_info(d.top)).format_version
FROM daily d JOIN before b USING (day) ORDER BY b.day;
SELECT (topk_info(topk_union_agg(t))).format_version AS old_with_old FROM old_top WHERE id = 1
UNION ALL SELECT (topk_info(topk_union_agg(top))).format_version FROM daily;
SELECT topk_union_agg(t) FROM (SELECT t FROM old_top WHERE id = 1
                               UNION ALL SELECT topk_agg(x % 7, 3, 0.1, 0.2) FROM generate_series(1, 100) x) s;

-- Every member of the updated extension is documented (but the array types
-- of member types, members since PostgreSQL 17, made with their type).
SELECT count(*) AS undocumented_members
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch')
  AND d.deptype = 'e'
  AND NOT (d.classid = 'pg_type'::regclass
           AND EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = d.objid))
  AND NOT EXISTS (SELECT 1 FROM pg_description c
                  WHERE c.classoid = d.classid AND c.objoid = d.objid
                    AND c.objsubid = 0 AND c.description <> '');

-- Dropping the extension with stored sketches needs CASCADE.
\set VERBOSITY terse
DROP EXTENSION bloomsketch;
\set VERBOSITY default
\c :regress_db
DROP DATABASE bloomsketch_upgrade;
