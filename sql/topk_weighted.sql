--
-- topk_weighted: topk_agg_weighted(value, weight, k [, epsilon, delta])
-- (src/topk.c): its overloads for every key type, the weight rules (NULL
-- skips the row, 0 counts nothing, negative is an error, a total past
-- INT64_MAX is an error), that weight 1 is topk_agg, that a weight w is w
-- rows, merges and rollups, and serial and parallel plans that agree.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

\getenv abs_srcdir PG_ABS_SRCDIR
\i :abs_srcdir/sql/include/regress_plan_sum.sql

SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SET extra_float_digits = 1;

-- ---------------------------------------------------------------------------
-- Catalog: 22 overloads (11 key types, with and without epsilon and delta),
-- all with topk_agg's combine and final functions, state topk, PARALLEL SAFE.
-- ---------------------------------------------------------------------------
SELECT count(*) AS overloads,
       count(*) FILTER (WHERE a.aggcombinefn = 'topk_merge_trans'::regproc) AS combine_topk_merge,
       count(*) FILTER (WHERE a.aggfinalfn = 'topk_final'::regproc) AS final_topk_final,
       count(*) FILTER (WHERE a.aggtranstype = 'topk'::regtype) AS state_topk,
       count(*) FILTER (WHERE p.proparallel = 's') AS parallel_safe,
       count(*) FILTER (WHERE a.aggfinalmodify = 'r') AS final_read_only,
       count(DISTINCT p.proargtypes[0]) AS key_types
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proname = 'topk_agg_weighted';
-- The same key types as topk_agg.
SELECT (SELECT array_agg(p.proargtypes[0] ORDER BY p.proargtypes[0]) FROM pg_proc p
        WHERE p.proname = 'topk_agg_weighted' AND p.pronargs = 3) =
       (SELECT array_agg(p.proargtypes[0] ORDER BY p.proargtypes[0]) FROM pg_proc p
        WHERE p.proname = 'topk_agg' AND p.pronargs = 2) AS same_key_types_as_topk_agg;
SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p WHERE p.proname = 'topk_agg_weighted_trans'
ORDER BY p.oid::regprocedure::text COLLATE "C";

-- ---------------------------------------------------------------------------
-- A first look: bytes per page, the pages with the most bytes.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE tw_hits AS
  SELECT '/p' || (x % 7) AS url, ((x % 7) * 1000 + x % 3)::bigint AS bytes
  FROM generate_series(1, 700) x;
SELECT * FROM topk_items((SELECT topk_agg_weighted(url, bytes, 3) FROM tw_hits));
SELECT url, sum(bytes) FROM tw_hits GROUP BY url ORDER BY 2 DESC LIMIT 3;
-- Every key type resolves to its own overload, and the values print as their type prints them.
SELECT * FROM topk_items((SELECT topk_agg_weighted(x::smallint, x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted(x::integer, x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted(x::bigint, x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted('v' || x, x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted(('v' || x)::bytea, x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted(('00000000-0000-0000-0000-00000000000' || x)::uuid, x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted(x / 4.0::double precision, x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted(x / 4.0, x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted(date '2026-01-01' + x, x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted(timestamp '2026-01-01' + x * interval '1 hour', x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted(timestamptz '2026-01-01 00:00+00' + x * interval '1 hour', x, 1) FROM generate_series(1, 5) x));
-- varchar, name and real resolve to the text and double precision overloads.
SELECT * FROM topk_items((SELECT topk_agg_weighted(('v' || x)::varchar, x, 1) FROM generate_series(1, 5) x));
SELECT * FROM topk_items((SELECT topk_agg_weighted((x / 4.0)::real, x, 1) FROM generate_series(1, 5) x));

-- ---------------------------------------------------------------------------
-- Weights
-- ---------------------------------------------------------------------------
-- A NULL value or a NULL weight skips the row; a weight of 0 counts nothing
-- (as in cms_agg_weighted).  Only NULL rows: NULL; only zero weights: an
-- empty sketch.
SELECT * FROM topk_items((SELECT topk_agg_weighted(v, w, 3)
  FROM (VALUES ('a', 5), ('b', NULL), (NULL, 7), ('c', 0), ('a', 2)) t(v, w)));
SELECT topk_agg_weighted(v, w, 3) IS NULL AS only_nulls_is_null
FROM (VALUES ('a', NULL::bigint), (NULL, 7)) t(v, w);
SELECT total, candidates FROM topk_info((SELECT topk_agg_weighted(v, 0, 3) FROM (VALUES ('a'), ('b')) t(v)));
-- A negative weight is an error (22023): a topk sketch only counts up.
SELECT topk_agg_weighted(v, w, 3) FROM (VALUES ('a', 5), ('b', -1)) t(v, w);
\echo SQLSTATE :SQLSTATE
-- A total past INT64_MAX is an error (54000), never a wrapped counter; so is a merge past it.
SELECT topk_agg_weighted(v, 9223372036854775807, 3) FROM (VALUES ('a'), ('b')) t(v);
\echo SQLSTATE :SQLSTATE
SELECT topk_agg_weighted(v, w, 3) FROM (VALUES ('a', 9223372036854775806), ('a', 1)) t(v, w) \gset tw_max_
SELECT total FROM topk_info(:'tw_max_topk_agg_weighted');
SELECT topk_union_agg(t) FROM (SELECT :'tw_max_topk_agg_weighted'::topk UNION ALL SELECT topk_agg_weighted('b', 1, 3)) s(t);
\echo SQLSTATE :SQLSTATE
-- Parameters: k and epsilon and delta as for topk_agg, the same for every row of a group.
SELECT topk_agg_weighted(1, 1, 0);
\echo SQLSTATE :SQLSTATE
SELECT topk_agg_weighted(1, 1, NULL);
\echo SQLSTATE :SQLSTATE
SELECT topk_agg_weighted(1, 1, 3, 2.0, 0.01);
\echo SQLSTATE :SQLSTATE
SELECT topk_agg_weighted(x, 1, 3, NULL, 0.01) FROM generate_series(1, 2) x;
\echo SQLSTATE :SQLSTATE
SELECT topk_agg_weighted(x, 1, x::integer) FROM generate_series(1, 2) x;
\echo SQLSTATE :SQLSTATE
-- Outside an aggregate.
SELECT topk_agg_weighted_trans(NULL::topk, 1, 1::bigint, 3);
\echo SQLSTATE :SQLSTATE
-- epsilon and delta set the shape, as for topk_agg.
SELECT k, width, depth FROM topk_info((SELECT topk_agg_weighted(x, x, 5, 0.01, 0.05) FROM generate_series(1, 10) x));

-- ---------------------------------------------------------------------------
-- Weight 1 is topk_agg, byte for byte; a weight w counts as w rows (the
-- same bytes while the distinct values fit the sketch's capacity).
-- ---------------------------------------------------------------------------
SELECT (SELECT topk_agg_weighted(x % 1000, 1, 10) FROM generate_series(1, 20000) x)
     = (SELECT topk_agg(x % 1000, 10) FROM generate_series(1, 20000) x) AS weight_1_is_topk_agg;
SELECT (SELECT topk_agg_weighted(v, w, 10) FROM (SELECT x AS v, x::bigint * 3 AS w FROM generate_series(1, 20) x) s)
     = (SELECT topk_agg(x, 10) FROM generate_series(1, 20) x, generate_series(1, x * 3) r) AS weight_is_rows;

-- ---------------------------------------------------------------------------
-- Accuracy on a skewed stream: 200,000 rows over 5,000 values drawn with
-- probability about 1/value, weights 1 to 100; the 10 reported are the true
-- top 10, with their true sums, between their bounds.
-- ---------------------------------------------------------------------------
-- A plain table (a temporary one is never scanned in parallel), dropped at the end.
CREATE TABLE tw_zipf AS
  SELECT floor(power(5000, ((x * 2654435761) % 200000) / 200000.0))::bigint AS v, x % 7 + 1 AS day,
         (1 + (x::bigint * 40503) % 100) AS w
  FROM generate_series(1, 200000) x;
CREATE TEMP TABLE tw_truth AS SELECT v, sum(w) AS n FROM tw_zipf GROUP BY v;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE tw_serial AS SELECT topk_agg_weighted(v, w, 10) AS t FROM tw_zipf;
SELECT count(*) AS reported,
       count(*) FILTER (WHERE t.v IN (SELECT v FROM tw_truth ORDER BY n DESC, v LIMIT 10)) AS in_true_top_10,
       count(*) FILTER (WHERE t.n NOT BETWEEN i.lower_bound AND i.upper_bound) AS outside_bounds,
       count(*) FILTER (WHERE i.frequency = t.n) AS exact
FROM tw_serial s, topk_items_bounds(s.t) i JOIN tw_truth t ON t.v = i.value::bigint;

-- ---------------------------------------------------------------------------
-- Parallel plans and rollups: the same sketch as the serial plan.
-- ---------------------------------------------------------------------------
ALTER TABLE tw_zipf SET (parallel_workers = 2);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE tw_parallel AS SELECT topk_agg_weighted(v, w, 10) AS t FROM tw_zipf$$, 'Workers Launched') >= 1
  AS workers_launched;
SELECT regress_plan_sum($$
  CREATE TEMP TABLE tw_daily_parallel AS SELECT day, topk_agg_weighted(v, w, 3) AS t FROM tw_zipf GROUP BY day$$, 'Workers Launched') >= 1
  AS grouped_workers_launched;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE tw_daily_serial AS SELECT day, topk_agg_weighted(v, w, 3) AS t FROM tw_zipf GROUP BY day;
-- Counters are equal (the order rows reach a worker may change which
-- candidates a partial state kept, never the counts); the top 10 items agree.
SELECT substr(s.t::bytea, 49, 8 * 2719 * 3) = substr(p.t::bytea, 49, 8 * 2719 * 3) AS parallel_counters_equal,
       (SELECT array_agg(value ORDER BY frequency DESC, value) FROM topk_items(s.t))
     = (SELECT array_agg(value ORDER BY frequency DESC, value) FROM topk_items(p.t)) AS parallel_items_equal
FROM tw_serial s, tw_parallel p;
SELECT count(*) AS days,
       count(*) FILTER (WHERE (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(p.t) WITH ORDINALITY AS i(value, frequency, n)) =
                              (SELECT array_agg(value || '=' || frequency ORDER BY n) FROM topk_items(s.t) WITH ORDINALITY AS i(value, frequency, n)))
       AS same_top_3
FROM tw_daily_serial s JOIN tw_daily_parallel p USING (day);
-- A rollup of the daily sketches holds every row's weight and has the serial top 3.
WITH r AS (SELECT topk_union_agg(t) AS u FROM tw_daily_serial)
SELECT (SELECT total FROM topk_info(r.u)) = (SELECT sum(w) FROM tw_zipf) AS rollup_total_exact,
       (SELECT array_agg(value ORDER BY frequency DESC, value) FROM topk_items(r.u))
     = (SELECT array_agg(value ORDER BY frequency DESC, value) FROM (SELECT * FROM topk_items(s.t) LIMIT 3) i) AS rollup_top_3,
       (SELECT array_agg(value ORDER BY frequency DESC, value) FROM topk_items(r.u)) AS top_3
FROM r, tw_serial s;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE tw_zipf;
