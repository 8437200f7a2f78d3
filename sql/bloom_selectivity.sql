--
-- bloom_selectivity: the row estimates of filter @> value and value <@ filter
-- (bloomsketch_contsel, version 1.5; doc/reference.md, "Row estimates of @>
-- and <@"): within 2x of the true count for constant filters holding 0.1%,
-- 1%, 10%, 50% and 100% of a column's distinct values, on a uniform and a
-- Zipf column; bloom (fixed and growable) and cbloom, either operator; the
-- fallbacks; and a plan the estimate changes.
--
-- ANALYZE samples 300 rows per unit of statistics target, so at target 1000
-- it reads every row of these tables (100,000 and 93,668 rows): the
-- statistics, and so the estimates, are the same on every run.  The keys of a
-- filter are chosen by integer arithmetic and hashed by XXH3 over canonical
-- bytes, so the filters are the same on every platform.  Only booleans are
-- printed.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;
-- (temporary tables: no parallel plans, no autovacuum)

-- The planner's row estimate of a query, and its true row count.
CREATE FUNCTION pg_temp.estimate(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
  RETURN (j -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
CREATE FUNCTION pg_temp.actual(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO n;
  RETURN n;
END $$;
-- Whether a is within 2x of b.
CREATE FUNCTION pg_temp.within_2x(a float8, b float8) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT a <= 2 * greatest(b, 1) AND greatest(b, 1) <= 2 * a $$;

-- uniform: 10,000 values, 10 rows each (and an id in no particular order,
-- for the plan at the end); zipf: value r on floor(10000 / r) rows (Zipf's
-- law with s = 1), 10,000 values, 93,668 rows.
CREATE TEMP TABLE sel_uniform AS
SELECT (i * 7919) % 100000 AS id, i % 10000 AS v FROM generate_series(0, 99999) i;
CREATE INDEX ON sel_uniform (id);
CREATE TEMP TABLE sel_zipf AS
SELECT r AS v FROM generate_series(1, 10000) r, generate_series(1, 10000 / r) c;
ALTER TABLE sel_uniform ALTER v SET STATISTICS 1000;
ALTER TABLE sel_zipf ALTER v SET STATISTICS 1000;
ANALYZE sel_uniform;
ANALYZE sel_zipf;
SELECT 'sel_uniform' AS t, count(*), count(DISTINCT v) FROM sel_uniform
UNION ALL SELECT 'sel_zipf', count(*), count(DISTINCT v) FROM sel_zipf;
-- the statistics the estimates use: exact, with MCVs and a histogram on zipf
SELECT tablename, n_distinct, most_common_vals IS NOT NULL AS has_mcvs,
       array_length(histogram_bounds::text::text[], 1) >= 100 AS has_histogram
FROM pg_stats WHERE tablename IN ('sel_uniform', 'sel_zipf') AND attname = 'v' ORDER BY 1;

-- A filter of a share of the distinct values of a table, chosen by a
-- multiplicative hash (not by frequency), and how many keys it holds.
CREATE FUNCTION pg_temp.keys_filter(tab text, share float8, fpr float8 DEFAULT 0.01,
                                    OUT f bloom, OUT keys bigint) LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT bloom_agg(v, $2), count(*) FROM (SELECT DISTINCT v FROM %I) d '
                 'WHERE (v::bigint * 2654435761) %% 1000003 %% 1000 < $1 * 1000', tab)
    INTO f, keys USING share, fpr;
END $$;

-- ---------------------------------------------------------------------------
-- Within 2x for 0.1% to 100% of the values, both distributions, both
-- operators; the filter is a literal in the query text
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE sel_cases AS
SELECT t.tab, s.share, k.f, k.keys
FROM (VALUES ('sel_uniform'), ('sel_zipf')) t(tab),
     (VALUES (0.001), (0.01), (0.1), (0.5), (1.0)) s(share),
     pg_temp.keys_filter(t.tab, s.share) k;
SELECT tab, share, keys,
       pg_temp.within_2x(pg_temp.estimate(q1), pg_temp.actual(q1)) AS contains_within_2x,
       pg_temp.within_2x(pg_temp.estimate(q2), pg_temp.actual(q2)) AS contained_within_2x,
       pg_temp.estimate(q1) = pg_temp.estimate(q2) AS same_both_ways
FROM sel_cases,
     LATERAL (SELECT format('SELECT * FROM %I WHERE %L::bloom @> v', tab, f) AS q1,
                     format('SELECT * FROM %I WHERE v <@ %L::bloom', tab, f) AS q2) q
ORDER BY tab, share;
-- The filter's false positives are estimated as well: at fpr 0.2 about a
-- fifth of the other rows match.
SELECT tab, pg_temp.within_2x(pg_temp.estimate(q), pg_temp.actual(q)) AS within_2x,
       pg_temp.actual(q) > 0.15 * (SELECT count(*) FROM sel_uniform) AS many_false_positives
FROM (VALUES ('sel_uniform'), ('sel_zipf')) t(tab),
     LATERAL (SELECT format('SELECT * FROM %I WHERE %L::bloom @> v', tab,
                            (pg_temp.keys_filter(tab, 0.01, 0.2)).f) AS q) q
ORDER BY tab;

-- cbloom, a growable filter, a blocked one, and the text operators (a text
-- column, and a varchar column relabeled as text) are estimated alike.
CREATE TEMP TABLE sel_text AS SELECT 'k' || v AS t, ('k' || v)::varchar(12) AS vc FROM sel_zipf;
ALTER TABLE sel_text ALTER t SET STATISTICS 1000, ALTER vc SET STATISTICS 1000;
ANALYZE sel_text;
SELECT kind, pg_temp.within_2x(pg_temp.estimate(q), pg_temp.actual(q)) AS within_2x,
       pg_temp.estimate(q) < 0.2 * (SELECT count(*) FROM sel_zipf) AS selective
FROM (SELECT 'cbloom' AS kind,
             format('SELECT * FROM sel_zipf WHERE %L::cbloom @> v',
                    (SELECT cbloom_agg(v) FROM sel_zipf WHERE v % 10 = 3)) AS q
      UNION ALL
      SELECT 'cbloom <@', format('SELECT * FROM sel_zipf WHERE v <@ %L::cbloom',
                                 (SELECT cbloom_agg(v) FROM sel_zipf WHERE v % 10 = 3))
      UNION ALL
      SELECT 'growable', format('SELECT * FROM sel_zipf WHERE %L::bloom @> v',
                                (SELECT bloom_add_all(bloom_empty(10, 0.01, 2, 'classic'), array_agg(DISTINCT v))
                                 FROM sel_zipf WHERE v % 10 = 3))
      UNION ALL
      SELECT 'blocked', format('SELECT * FROM sel_zipf WHERE %L::bloom @> v',
                               (SELECT bloom_agg(v, 2000, 0.01, 'blocked') FROM sel_zipf WHERE v % 10 = 3))
      UNION ALL
      SELECT 'text', format('SELECT * FROM sel_text WHERE %L::bloom @> t',
                            (SELECT bloom_agg(t) FROM sel_text WHERE t LIKE '%3'))
      UNION ALL
      SELECT 'varchar as text', format('SELECT * FROM sel_text WHERE vc <@ %L::bloom',
                                       (SELECT bloom_agg(t) FROM sel_text WHERE t LIKE '%3'))) c
ORDER BY kind;

-- NULLs never match, and count in the estimate.
CREATE TEMP TABLE sel_nulls AS SELECT CASE WHEN i % 4 = 0 THEN NULL ELSE i % 1000 END AS v
FROM generate_series(1, 20000) i;
ALTER TABLE sel_nulls ALTER v SET STATISTICS 1000;
ANALYZE sel_nulls;
SELECT pg_temp.within_2x(pg_temp.estimate(q), pg_temp.actual(q)) AS within_2x
FROM (SELECT format('SELECT * FROM sel_nulls WHERE %L::bloom @> v',
                    (SELECT bloom_agg(v) FROM sel_nulls WHERE v < 500)) AS q) q;

-- A parameter is a constant when the plan is made for its value (a custom
-- plan), not in a generic plan.
SELECT f AS sel_f10 FROM sel_cases WHERE tab = 'sel_zipf' AND share = 0.1 \gset
PREPARE sel_p(bloom) AS SELECT * FROM sel_zipf WHERE $1 @> v;
SET plan_cache_mode = force_custom_plan;
SELECT pg_temp.within_2x(pg_temp.estimate(format('EXECUTE sel_p(%L)', :'sel_f10')),
                         pg_temp.actual(format('SELECT * FROM sel_zipf WHERE %L::bloom @> v', :'sel_f10')))
       AS custom_plan_within_2x;
SET plan_cache_mode = force_generic_plan;
SELECT pg_temp.estimate(format('EXECUTE sel_p(%L)', :'sel_f10'))
       = round(0.005 * (SELECT count(*) FROM sel_zipf)) AS generic_plan_default;
RESET plan_cache_mode;
DEALLOCATE sel_p;

-- A stable expression is estimated with its value at plan time.
SELECT pg_temp.within_2x(pg_temp.estimate(q), pg_temp.actual(q)) AS stable_expression_within_2x
FROM (SELECT format('SELECT * FROM sel_zipf WHERE (CASE WHEN now() > %L THEN %L::bloom END) @> v',
                    '2000-01-01', :'sel_f10') AS q) q;

-- ---------------------------------------------------------------------------
-- Fallbacks: DEFAULT_EQ_SEL (0.005) when the filter is unknown at plan time,
-- or the operator would fail; never an error while planning
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE sel_filters AS
SELECT i AS id, CASE i WHEN 1 THEN :'sel_f10'::bloom ELSE bloom_add(bloom_empty(10), i) END AS f
FROM generate_series(1, 1000) i;
ANALYZE sel_filters;
SELECT what, pg_temp.estimate(q) = round(0.005 * (SELECT count(*) FROM sel_zipf)) AS default_estimate
FROM (VALUES
  ('an InitPlan''s filter', 'SELECT * FROM sel_zipf WHERE (SELECT f FROM sel_filters WHERE id = 1) @> v'),
  ('a key of another family (fails when run)',
   format('SELECT * FROM sel_zipf WHERE %L::bloom @> v::text', :'sel_f10'))) c(what, q)
ORDER BY what;
SELECT count(*) FROM sel_zipf WHERE :'sel_f10'::bloom @> v::text;
\echo SQLSTATE :SQLSTATE
-- A column of filters and a constant key: 0.005 of the filters.
SELECT pg_temp.estimate('SELECT * FROM sel_filters WHERE f @> 42') AS filter_column_rows;
-- A column whose type is not a key type (inet): the default, and the run fails.
CREATE TEMP TABLE sel_inet AS SELECT ('10.0.' || (i / 250) || '.' || (i % 250))::inet AS a
FROM generate_series(1, 10000) i;
ANALYZE sel_inet;
SELECT pg_temp.estimate(format('SELECT * FROM sel_inet WHERE %L::bloom @> a', :'sel_f10')) AS inet_rows;
SELECT count(*) FROM sel_inet WHERE :'sel_f10'::bloom @> a;
\echo SQLSTATE :SQLSTATE
-- A NULL filter (a stable expression, so that it reaches the estimator): no
-- row, the operators being strict (the planner never shows fewer than 1).
SELECT pg_temp.estimate(format('SELECT * FROM sel_zipf WHERE (CASE WHEN now() < %L THEN %L::bloom END) @> v',
                               '2000-01-01', :'sel_f10')) AS null_filter_rows;
-- An empty filter contains nothing; a full one everything.
SELECT pg_temp.estimate('SELECT * FROM sel_zipf WHERE bloom_empty(100) @> v') AS empty_filter_rows,
       pg_temp.estimate(format('SELECT * FROM sel_zipf WHERE %L::bloom @> v',
                               set_byte(bloom_empty_bits(8, 2)::bytea, 48, 255)::bloom))
         = (SELECT count(*) FROM sel_zipf) AS full_filter_all_rows;
-- Without statistics the filter counts as an IN list of its keys (100 keys:
-- 1 - 0.995^100 of the rows, about 40%); an expression has none either.
CREATE TEMP TABLE sel_nostats AS SELECT i AS v FROM generate_series(1, 10000) i;
SELECT pg_temp.estimate(format('SELECT * FROM sel_nostats WHERE %L::bloom @> v', f))
         / pg_temp.estimate('SELECT * FROM sel_nostats') BETWEEN 0.35 AND 0.45 AS no_statistics,
       pg_temp.estimate(format('SELECT * FROM sel_zipf WHERE %L::bloom @> (v + 0)', f))
         / (SELECT count(*) FROM sel_zipf) BETWEEN 0.35 AND 0.45 AS expression
FROM (SELECT bloom_agg(i, 1000, 0.0001) AS f FROM generate_series(1, 100) i) s;

-- ---------------------------------------------------------------------------
-- A plan the estimate changes: the first rows by id, through the index or
-- by a sort
-- ---------------------------------------------------------------------------
-- The planner walks the index on id, filtering, when it expects the first 20
-- matches early, and reads the table and sorts the matches when it expects
-- fewer than about 50: the id order is not the table's, so walking the
-- index costs about 3 times a scan of the table.  A filter of one value
-- matches its 10 rows: a sort.  Without the estimator (RESTRICT = NONE, in a
-- rolled-back transaction), the planner assumed half the rows matched and
-- walked the index, to read the whole table in id order to find 10.
CREATE FUNCTION pg_temp.plan_shape(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE j jsonb;
BEGIN
  EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || q INTO j;
  RETURN (WITH RECURSIVE n(plan, depth, path) AS (
            SELECT j -> 0 -> 'Plan', 0, ARRAY[0]
            UNION ALL
            SELECT c.plan, n.depth + 1, n.path || c.i::int
            FROM n, jsonb_array_elements(n.plan -> 'Plans') WITH ORDINALITY c(plan, i))
          SELECT string_agg(repeat('  ', depth) || (plan ->> 'Node Type')
                            || coalesce(' using ' || (plan ->> 'Index Name'), '')
                            || coalesce(' on ' || (plan ->> 'Relation Name'), ''), E'\n' ORDER BY path)
          FROM n);
END $$;
SELECT bloom_add(bloom_empty(1000, 0.0001), 4242) AS sel_f_small \gset
SELECT pg_temp.within_2x(pg_temp.estimate(q), pg_temp.actual(q)) AS within_2x
FROM (SELECT format('SELECT * FROM sel_uniform WHERE %L::bloom @> v', :'sel_f_small') AS q) q;
SELECT pg_temp.plan_shape(format('SELECT * FROM sel_uniform WHERE %L::bloom @> v ORDER BY id LIMIT 20',
                                 :'sel_f_small')) AS with_the_estimator;
BEGIN;
ALTER OPERATOR @> (bloom, anyelement) SET (RESTRICT = NONE);
-- (v is an integer: from 1.5 on the query takes the @> of integer keys)
ALTER OPERATOR @> (bloom, integer) SET (RESTRICT = NONE);
SELECT pg_temp.plan_shape(format('SELECT * FROM sel_uniform WHERE %L::bloom @> v ORDER BY id LIMIT 20',
                                 :'sel_f_small')) AS without_it;
ROLLBACK;
SELECT oprrest::regproc AS restrict_again FROM pg_operator WHERE oid = '@>(bloom, anyelement)'::regoperator;
-- ... and the same with a filter that holds every value: the index.
SELECT pg_temp.plan_shape(format('SELECT * FROM sel_uniform WHERE %L::bloom @> v ORDER BY id LIMIT 20',
                                 f)) AS every_value
FROM sel_cases WHERE tab = 'sel_uniform' AND share = 1.0;

DROP TABLE sel_uniform, sel_zipf, sel_cases, sel_text, sel_nulls, sel_filters, sel_inet, sel_nostats;
