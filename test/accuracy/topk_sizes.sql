-- test/accuracy/topk_sizes.sql: top-k accuracy against the size of the sketch, for three
-- designs: topk of bloomsketch 1.5 (format 2), topk of 1.0 to 1.4 (format 1) and Citus's
-- postgresql-topn (doc/accuracy.md, section 12).
--
-- psql variables: tks_rows (N, rows of the skewed stream).
--
-- Streams:
--   zipf     key floor(10^6 ^ u), u = acc_unit(i, 42), for i = 1 .. N (key j with a probability
--            close to ln((j + 1) / j) / ln(10^6)); day (i - 1) * 30 / N splits it into 30
--            consecutive parts, the "days" of the rollup
--   uniform  key 1 + floor(100000 acc_unit(i, 7)), i = 1 .. 1,000,000 (the uniform stream of
--            cms.sql: 100,000 keys, each about 10 times)
-- Designs and parameters (acc_tks_grid, one row each):
--   topk-1.5  topk_agg(key, k, epsilon, 0.05), k = 100 and k = 10, epsilon varied: it tracks
--             capacity C = max(2k, ceil(1/epsilon)) values beside a Count-Min sketch of width
--             ceil(e/epsilon) and depth 3; listed: topk_items(t, least(100, C)), whose frequency
--             is the lower bound (the count while the value was held)
--   topk-1.4  1.4's topk_agg(key, 100, epsilon, 0.01) (width ceil(e/epsilon), depth 5, 2k
--             candidates), which the server no longer builds: run.sh runs topk_v1_sizes.c on the
--             same keys after this script and loads what it lists into acc_tks_rows; frequency
--             is the Count-Min estimate
--   topn      topn_add_agg(key::text) with topn.number_of_counters varied, listed by
--             topn(j, 100); only when CREATE EXTENSION topn works, else its rows say why
-- For each: one sketch of the whole zipf stream; the rollup, the merge of the 30 sketches of
-- the days in the order of the days (topk_union_agg, topn_union_agg); one sketch of the
-- uniform stream.  raw_bytes: octet_length(t::bytea) for topk, pg_column_size(j) - 4 (the
-- jsonb without its varlena header) for topn: what the value holds before any compression.
-- Measured, with ties at the cut counted as found: recall100 = listed values among the first
-- 100 whose true count is at least the 100th largest, / 100 (recall10 the same at 10);
-- top10_abs_error = mean |frequency - true count| over the first 10 listed (top10_rel_error
-- the mean of |frequency - true| / true); uniform_ratio = mean frequency / true count over the
-- first 10 listed from the uniform stream.  No parallel plans (one sketch is one stream in
-- row order, so two runs give the same TSV).

SET work_mem = '256MB';
SET max_parallel_workers_per_gather = 0;
SET synchronize_seqscans = off;

CREATE TABLE acc_tks_zipf (i bigint, day integer, key bigint);
INSERT INTO acc_tks_zipf
SELECT i, ((i - 1) * 30 / :tks_rows)::integer, floor(power(1000000::float8, acc_unit(i, 42)))::bigint
FROM generate_series(1, :tks_rows) i;
CREATE INDEX ON acc_tks_zipf (day, i);
CREATE TABLE acc_tks_uniform (i bigint, key bigint);
INSERT INTO acc_tks_uniform
SELECT i, 1 + floor(acc_unit(i, 7) * 100000)::bigint FROM generate_series(1, 1000000) i;
ANALYZE acc_tks_zipf, acc_tks_uniform;

CREATE TABLE acc_tks_truth AS
SELECT stream, key, f, row_number() OVER (PARTITION BY stream ORDER BY f DESC, key) AS rank
FROM (SELECT 'zipf'::text AS stream, key, count(*) AS f FROM acc_tks_zipf GROUP BY key
      UNION ALL
      SELECT 'uniform', key, count(*) FROM acc_tks_uniform GROUP BY key) t;
CREATE INDEX ON acc_tks_truth (stream, key);
CREATE INDEX ON acc_tks_truth (stream, rank);
ANALYZE acc_tks_truth;

-- The parameters, one row per point; the note says what measured it (or why nothing did).
CREATE TABLE acc_tks_grid (
	id integer PRIMARY KEY, design text, k integer, eps double precision,
	delta double precision, counters integer, note text
);
INSERT INTO acc_tks_grid
SELECT row_number() OVER (ORDER BY d.o, g.k DESC, g.eps DESC, g.counters), d.design, g.k, g.eps,
       g.delta, g.counters, d.note
FROM (VALUES (1, 'topk-1.5', 'topk_agg(key, k, epsilon, 0.05)'),
             (2, 'topk-1.4', '1.4''s topk_agg(key, 100, epsilon, 0.01) by test/accuracy/topk_v1_sizes.c'),
             (3, 'topn', 'topn_add_agg(key::text), SET topn.number_of_counters')) d(o, design, note)
JOIN (SELECT 'topk-1.5' AS design, 100 AS k, e AS eps, 0.05::float8 AS delta, NULL::integer AS counters
      FROM unnest('{0.05,0.02,0.01,0.005,0.003,0.002,0.001,0.0007}'::float8[]) e
      UNION ALL
      SELECT 'topk-1.5', 10, e, 0.05, NULL
      FROM unnest('{0.02,0.01,0.007,0.005,0.002,0.001}'::float8[]) e
      UNION ALL
      SELECT 'topk-1.4', 100, e, 0.01, NULL
      FROM unnest('{0.05,0.02,0.01,0.005,0.003,0.002,0.001,0.0008}'::float8[]) e
      UNION ALL
      SELECT 'topn', NULL, NULL, NULL, c
      FROM unnest('{100,250,500,1000,2000,4000,7000}'::integer[]) c) g USING (design);

-- Every listed value of every sketch (topk-1.4's are loaded by run.sh).
CREATE TABLE acc_tks_rows (
	id integer, stream text, how text, capacity integer, raw_bytes bigint,
	seconds double precision, rank integer, value bigint, frequency bigint
);

CREATE FUNCTION acc_tks_keep_topk(gid integer, st text, hw text, t topk, secs double precision,
	n integer) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO acc_tks_rows
	SELECT gid, st, hw, info.capacity, octet_length(t::bytea), secs, it.ord, it.value::bigint,
	       it.frequency
	FROM topk_info(t) info,
	     topk_items(t, least(n, info.capacity)) WITH ORDINALITY AS it(value, frequency, ord)
$$;

CREATE FUNCTION acc_tks_topk(gid integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	g acc_tks_grid;
	t topk;
	days topk[] := '{}';
	t0 timestamptz;
BEGIN
	SELECT * INTO g FROM acc_tks_grid WHERE id = gid;
	-- the whole stream (a sequential scan, in row order)
	t0 := clock_timestamp();
	SELECT topk_agg(key, g.k, g.eps, g.delta) INTO t FROM acc_tks_zipf;
	PERFORM acc_tks_keep_topk(gid, 'zipf', 'single', t,
		extract(epoch FROM clock_timestamp() - t0)::float8, 100);
	-- one sketch per day, then their merge in the order of the days (whatever the plan, a
	-- day's rows come in row order: a scan of the table as written or of the index on (day, i))
	t0 := clock_timestamp();
	FOR d IN 0 .. 29 LOOP
		SELECT topk_agg(key, g.k, g.eps, g.delta) INTO t FROM acc_tks_zipf WHERE day = d;
		days := days || t;
	END LOOP;
	SELECT topk_union_agg(x ORDER BY o) INTO t FROM unnest(days) WITH ORDINALITY AS u(x, o);
	PERFORM acc_tks_keep_topk(gid, 'zipf', 'rollup', t,
		extract(epoch FROM clock_timestamp() - t0)::float8, 100);
	-- the uniform stream
	t0 := clock_timestamp();
	SELECT topk_agg(key, g.k, g.eps, g.delta) INTO t FROM acc_tks_uniform;
	PERFORM acc_tks_keep_topk(gid, 'uniform', 'single', t,
		extract(epoch FROM clock_timestamp() - t0)::float8, 10);
END $$;

SELECT acc_tks_topk(id) FROM acc_tks_grid WHERE design = 'topk-1.5' ORDER BY id \g /dev/null

-- topn, when it can be installed in this server.
DO $$
BEGIN
	CREATE EXTENSION topn;
	LOAD 'topn';				-- defines topn.number_of_counters
	UPDATE acc_tks_grid SET note = note || ', postgresql-topn ' ||
		(SELECT extversion FROM pg_extension WHERE extname = 'topn')
	WHERE design = 'topn';
EXCEPTION WHEN OTHERS THEN
	UPDATE acc_tks_grid SET note = 'not measured: CREATE EXTENSION topn failed: ' || SQLERRM
	WHERE design = 'topn';
END $$;

CREATE FUNCTION acc_tks_keep_topn(gid integer, st text, hw text, j jsonb, c integer,
	secs double precision, n integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO acc_tks_rows
	SELECT gid, st, hw, c, pg_column_size(j) - 4, secs, it.ord, it.item::bigint, it.frequency
	FROM topn(j, n) WITH ORDINALITY AS it(item, frequency, ord);
END $$;

CREATE FUNCTION acc_tks_topn(gid integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	g acc_tks_grid;
	j jsonb;
	days jsonb[] := '{}';
	t0 timestamptz;
BEGIN
	SELECT * INTO g FROM acc_tks_grid WHERE id = gid;
	PERFORM set_config('topn.number_of_counters', g.counters::text, true);
	t0 := clock_timestamp();
	SELECT topn_add_agg(key::text) INTO j FROM acc_tks_zipf;
	PERFORM acc_tks_keep_topn(gid, 'zipf', 'single', j, g.counters,
		extract(epoch FROM clock_timestamp() - t0)::float8, 100);
	t0 := clock_timestamp();
	FOR d IN 0 .. 29 LOOP
		SELECT topn_add_agg(key::text) INTO j FROM acc_tks_zipf WHERE day = d;
		days := days || j;
	END LOOP;
	SELECT topn_union_agg(x ORDER BY o) INTO j FROM unnest(days) WITH ORDINALITY AS u(x, o);
	PERFORM acc_tks_keep_topn(gid, 'zipf', 'rollup', j, g.counters,
		extract(epoch FROM clock_timestamp() - t0)::float8, 100);
	t0 := clock_timestamp();
	SELECT topn_add_agg(key::text) INTO j FROM acc_tks_uniform;
	PERFORM acc_tks_keep_topn(gid, 'uniform', 'single', j, g.counters,
		extract(epoch FROM clock_timestamp() - t0)::float8, 10);
END $$;

SELECT acc_tks_topn(id) FROM acc_tks_grid
WHERE design = 'topn' AND EXISTS (SELECT FROM pg_extension WHERE extname = 'topn')
ORDER BY id \g /dev/null

-- The TSV: one row per point of the grid (topk-1.4's rows are empty until run.sh has loaded
-- them; a design not measured keeps its note and NaN).
CREATE VIEW acc_tks_out AS
WITH cut AS (
	SELECT stream, max(f) FILTER (WHERE rank = 100) AS f100, max(f) FILTER (WHERE rank = 10) AS f10
	FROM acc_tks_truth GROUP BY stream
), per AS (
	SELECT r.id, r.stream, r.how, max(r.capacity) AS capacity, max(r.raw_bytes) AS raw_bytes,
	       max(r.seconds) AS seconds,
	       count(*) FILTER (WHERE r.rank <= 100 AND coalesce(tr.f, 0) >= c.f100) AS found100,
	       count(*) FILTER (WHERE r.rank <= 10 AND coalesce(tr.f, 0) >= c.f10) AS found10,
	       avg(abs(r.frequency - coalesce(tr.f, 0))) FILTER (WHERE r.rank <= 10) AS abs10,
	       avg(abs(r.frequency - tr.f)::float8 / tr.f) FILTER (WHERE r.rank <= 10) AS rel10,
	       avg(r.frequency::float8 / tr.f) FILTER (WHERE r.rank <= 10) AS ratio10
	FROM acc_tks_rows r
	JOIN cut c USING (stream)
	LEFT JOIN acc_tks_truth tr ON tr.stream = r.stream AND tr.key = r.value
	GROUP BY r.id, r.stream, r.how
)
SELECT g.design, g.k, g.eps AS epsilon, g.delta, g.counters, z.capacity, z.raw_bytes,
       coalesce(z.found100 / 100.0, 'NaN')::float8 AS recall100,
       coalesce(ro.found100 / 100.0, 'NaN')::float8 AS rollup_recall100,
       coalesce(z.found10 / 10.0, 'NaN')::float8 AS recall10,
       coalesce(round(z.abs10, 1), 'NaN')::float8 AS top10_abs_error,
       coalesce(z.rel10, 'NaN') AS top10_rel_error,
       coalesce(u.ratio10, 'NaN') AS uniform_ratio,
       ro.raw_bytes AS rollup_raw_bytes,
       z.seconds, ro.seconds AS rollup_seconds, u.seconds AS uniform_seconds,
       (SELECT count(*) FROM acc_tks_zipf) AS n,
       (SELECT count(*) FROM acc_tks_truth WHERE stream = 'zipf') AS distinct_keys,
       (SELECT f100 FROM cut WHERE stream = 'zipf') AS f_100,
       g.note
FROM acc_tks_grid g
LEFT JOIN per z ON z.id = g.id AND z.stream = 'zipf' AND z.how = 'single'
LEFT JOIN per ro ON ro.id = g.id AND ro.stream = 'zipf' AND ro.how = 'rollup'
LEFT JOIN per u ON u.id = g.id AND u.stream = 'uniform' AND u.how = 'single'
ORDER BY g.id;
