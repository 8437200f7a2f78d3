--
-- cms_window: cms_subtract(a, b) and a - b (src/cms.c, src/core/cms.c):
-- exact when b is the sketch of a part of a's stream (the sketch of a + b
-- less that of b is byte-identical to the sketch of a), errors when the shapes
-- or families differ or a counter would go below zero, and a sliding 7-day
-- window checked against the exact counts.  topk has no subtraction.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

SELECT p.oid::regprocedure AS function, p.provolatile, p.proparallel, p.proisstrict
FROM pg_proc p WHERE p.proname = 'cms_subtract';
SELECT o.oprname, o.oprleft::regtype, o.oprright::regtype, o.oprresult::regtype, o.oprcode
FROM pg_operator o WHERE o.oprname = '-' AND o.oprleft = 'cms'::regtype;

-- ---------------------------------------------------------------------------
-- Exact: (a + b) - b = a, byte for byte, for parts of any size, weighted too.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE cw_rows AS
  SELECT x, 'u' || ((x * 2654435761) % 5000) AS url, 1 + x % 9 AS bytes FROM generate_series(1, 60000) x;
SELECT (SELECT cms_agg(url) FROM cw_rows) - (SELECT cms_agg(url) FROM cw_rows WHERE x > 40000)
     = (SELECT cms_agg(url) FROM cw_rows WHERE x <= 40000) AS whole_less_tail_is_head,
       cms_subtract((SELECT cms_agg(url) FROM cw_rows), (SELECT cms_agg(url) FROM cw_rows WHERE x % 3 = 0))
     = (SELECT cms_agg(url) FROM cw_rows WHERE x % 3 <> 0) AS whole_less_every_third,
       (SELECT cms_agg_weighted(url, bytes, 0.01, 0.01) FROM cw_rows) - (SELECT cms_agg_weighted(url, bytes, 0.01, 0.01) FROM cw_rows WHERE x < 100)
     = (SELECT cms_agg_weighted(url, bytes, 0.01, 0.01) FROM cw_rows WHERE x >= 100) AS weighted;
-- A sketch less itself is empty, with its family kept; less an empty one, unchanged.
SELECT cms_total(s - s) AS total, (cms_info(s - s)).key_family, s - cms_empty() = s AS less_empty_unchanged
FROM (SELECT cms_agg(url) AS s FROM cw_rows) t;
-- cms_add and the subtraction of the same count cancel.
SELECT cms_add(cms_add(cms_empty(), 'x', 5), 'y', 2) - cms_add(cms_empty(), 'x', 5) = cms_add(cms_empty(), 'y', 2) AS cancels;
-- NULL in, NULL out (STRICT).
SELECT cms_subtract(NULL, cms_empty()) IS NULL AS null_a, (cms_empty() - NULL) IS NULL AS null_b;

-- ---------------------------------------------------------------------------
-- Errors: nothing is returned, so a stored sketch updated with - stays as it was.
-- ---------------------------------------------------------------------------
-- b counted rows a did not: a counter would go below zero (22023).
SELECT cms_add(cms_empty(), 'x', 5) - cms_add(cms_empty(), 'y', 5);
\echo SQLSTATE :SQLSTATE
-- b's total is larger than a's (22023).
SELECT cms_add(cms_empty(), 'x', 5) - cms_add(cms_empty(), 'x', 6);
\echo SQLSTATE :SQLSTATE
-- Other shapes (22023) and other key families (42804), as for +.
SELECT cms_empty(0.01, 0.01) - cms_empty(0.001, 0.01);
\echo SQLSTATE :SQLSTATE
SELECT cms_empty_dims(100, 3) - cms_empty_dims(100, 4);
\echo SQLSTATE :SQLSTATE
SELECT cms_add(cms_empty(), 1, 5) - cms_add(cms_empty(), 'x'::text, 1);
\echo SQLSTATE :SQLSTATE
CREATE TEMP TABLE cw_stored AS SELECT cms_add(cms_empty(), 'x', 5) AS s;
UPDATE cw_stored SET s = s - cms_add(cms_empty(), 'y', 1);
\echo SQLSTATE :SQLSTATE
SELECT s -> 'x' AS x_unchanged, cms_total(s) FROM cw_stored;
-- A negative count still points at subtraction.
SELECT cms_add(cms_empty(), 'x', -1);
\echo SQLSTATE :SQLSTATE
-- topk has no subtraction: its candidates cannot follow a window (doc/topk.md).
SELECT t - t FROM (SELECT topk_agg(1, 3) AS t) s;
\echo SQLSTATE :SQLSTATE

-- ---------------------------------------------------------------------------
-- A sliding 7-day window over 30 days of hits: the window sketch, moved one
-- day at a time by + newest day - oldest day, equals the sum of its 7 days
-- byte for byte, and its estimates are never below the exact counts of the
-- window and at most eps N above them.
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE cw_hits AS
  SELECT date '2026-11-01' + (x % 30) AS day,
         '/p' || floor(exp(((x * 2654435761) % 100000) / 100000.0 * ln(3000)))::bigint AS url
  FROM generate_series(1, 90000) x;
CREATE TEMP TABLE cw_daily AS SELECT day, cms_agg(url, 0.005, 0.01) AS hits FROM cw_hits GROUP BY day;
CREATE TEMP TABLE cw_window AS
  SELECT date '2026-11-01' AS first_day, cms_union_agg(hits) AS hits FROM cw_daily WHERE day < date '2026-11-08';
CREATE TEMP TABLE cw_steps (first_day date, same_as_rebuilt boolean, total bigint);
DO $$
BEGIN
  FOR i IN 1..23 LOOP
    UPDATE cw_window AS w
    SET hits = w.hits + n.hits - o.hits, first_day = w.first_day + 1
    FROM cw_daily AS n, cw_daily AS o
    WHERE n.day = w.first_day + 7 AND o.day = w.first_day;
    INSERT INTO cw_steps
      SELECT w.first_day, w.hits = (SELECT cms_union_agg(hits) FROM cw_daily WHERE day BETWEEN w.first_day AND w.first_day + 6),
             cms_total(w.hits)
      FROM cw_window w;
  END LOOP;
END $$;
SELECT count(*) AS steps, count(*) FILTER (WHERE same_as_rebuilt) AS same_as_rebuilt,
       min(first_day), max(first_day) FROM cw_steps;
SELECT first_day, cms_total(hits) AS n,
       (SELECT count(*) FROM cw_hits WHERE day >= w.first_day) AS exact_n
FROM cw_window w;
-- Every URL of the month against its exact count in the window (0 if it left with old days).
WITH exact AS (
  SELECT u.url, count(h.url) AS hits
  FROM (SELECT DISTINCT url FROM cw_hits) u
  LEFT JOIN cw_hits h ON h.url = u.url AND h.day >= date '2026-11-24'
  GROUP BY u.url)
SELECT count(*) AS urls,
       count(*) FILTER (WHERE e.hits = 0) AS urls_not_in_window,
       count(*) FILTER (WHERE w.hits -> e.url < e.hits) AS below_exact,
       count(*) FILTER (WHERE w.hits -> e.url > e.hits + cms_error_bound(w.hits)) AS above_exact_plus_eps_n,
       count(*) FILTER (WHERE w.hits -> e.url = e.hits) AS exact_estimates
FROM exact e, cw_window w;
