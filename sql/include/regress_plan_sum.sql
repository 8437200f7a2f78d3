\set ECHO none
--
-- regress_plan_sum(q, counter): a helper of the regression tests, not part of
-- the extension.  Runs the statement q under EXPLAIN ANALYZE (so a CREATE
-- TABLE AS creates its table) and sums a counter of its plan, such as
-- 'Workers Launched' or 'HashAgg Batches'.
--
-- The files that use it include it (pg_regress sets PG_ABS_SRCDIR to its
-- --inputdir, the repository's root):
--   \getenv abs_srcdir PG_ABS_SRCDIR
--   \i :abs_srcdir/sql/include/regress_plan_sum.sql
-- This directory is not a test of its own: the Makefile's REGRESS lists
-- sql/*.sql only.  CREATE OR REPLACE, because several files in one database
-- include it.  The lines after the first are not echoed (pg_regress runs psql
-- with -a), so the expected outputs show the \i line and "\set ECHO none",
-- not this body: a change here changes no expected file.
--
CREATE OR REPLACE FUNCTION regress_plan_sum(q text, counter text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO plan;
  RETURN coalesce((SELECT sum(v::text::bigint)
                   FROM jsonb_path_query(plan, ('strict $.**."' || counter || '"')::jsonpath) v), 0);
END $$;
\set ECHO all
