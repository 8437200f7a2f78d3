-- test/accuracy/bloom_blocked.sql: the cache-blocked layout (src/core/blocked.h): measured
-- false-positive rate against the blocked formula, the bits per key against the classic layout at
-- the same target, false negatives, and parallel plans against serial ones, byte for byte
-- (doc/accuracy.md, section 8; the formula is in doc/sizing.md, section 8).
--
-- psql variables: blocked_tests (lookups per point at least; 1000 / p when that is more),
-- blocked_n (the n of the filters made with a capacity, an array literal such as '{1000,10000}'),
-- blocked_auto_n (the n of bloom_agg(x, NULL, p, 'blocked') past its exact phase, an array literal),
-- blocked_par_rows (rows of the table of the parallel check past the exact phase).
--
-- Point (p, n, how) builds G = max(1, 200,000 / n) filters, with bloom_agg(x, n, p, 'blocked')
-- (how = capacity) or bloom_agg(x, NULL, p, 'blocked') (how = auto); filter g holds the keys
-- base + 10^7 g + 1 .. base + 10^7 g + n and is probed with L = tests / G keys of its own,
-- -(base + 10^7 g + 1) .. -(base + 10^7 g + L), never added; base = (100 pi + ni + 50 a) * 10^12
-- for the index pi of p, ni of n and a = 1 for auto.  Every added key is looked up too (false
-- negatives), and every capacity filter is compared with bloom_agg(x, NULL, p, 'blocked') over the
-- same keys (equal in the exact phase, n <= 2^20: the exact phase sizes for the n it saw).
-- The stage fails (an exception) on a false negative or on a check that does not hold.

SET work_mem = '256MB';

-- --------------------------------------------------------------------------------------------
-- 1. Measured rates

CREATE TABLE acc_bloom_blocked (
	how text, p double precision, n bigint, filters integer, tests bigint, false_pos bigint,
	false_neg bigint, bits_min bigint, bits_max bigint, k integer, layouts text,
	auto_equal boolean, fill_fpr double precision, fill_sd double precision, seconds double precision
);

CREATE FUNCTION acc_blocked_point(how text, p double precision, n bigint, base bigint, tests bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	g_count integer := greatest(1, 200000 / n);
	l bigint := tests / greatest(1, 200000 / n);
	t0 timestamptz := clock_timestamp();
BEGIN
	-- (a materialized CTE: the filters stay in memory, not TOASTed and detoasted per lookup)
	INSERT INTO acc_bloom_blocked
	WITH acc_blocked_filters AS MATERIALIZED (
		SELECT g, CASE WHEN how = 'capacity' THEN bloom_agg(base + 10000000::bigint * g + i, n, p, 'blocked')
		               ELSE bloom_agg(base + 10000000::bigint * g + i, NULL, p, 'blocked') END AS f
		FROM generate_series(1, g_count) g, generate_series(1::bigint, n) i
		GROUP BY g
	)
	SELECT how, p, n, g_count, g_count * l,
	       (SELECT count(*) FILTER (WHERE f @> -(base + 10000000::bigint * g + j)) FROM acc_blocked_filters, generate_series(1::bigint, l) j),
	       (SELECT count(*) FILTER (WHERE NOT f @> (base + 10000000::bigint * g + i)) FROM acc_blocked_filters, generate_series(1::bigint, n) i),
	       (SELECT min((bloom_info(f)).bits) FROM acc_blocked_filters),
	       (SELECT max((bloom_info(f)).bits) FROM acc_blocked_filters),
	       (SELECT max((bloom_info(f)).hashes) FROM acc_blocked_filters),
	       (SELECT string_agg(DISTINCT (bloom_info(f)).layout, ',') FROM acc_blocked_filters),
	       CASE WHEN how = 'capacity' THEN
	           (SELECT bool_and(a.f = b.f)
	            FROM acc_blocked_filters a
	            JOIN (SELECT g, bloom_agg(base + 10000000::bigint * g + i, NULL, p, 'blocked') AS f
	                  FROM generate_series(1, g_count) g, generate_series(1::bigint, n) i
	                  GROUP BY g) b USING (g)) END,
	       (SELECT avg(bloom_fpr(f)) FROM acc_blocked_filters),
	       (SELECT stddev_samp(bloom_fpr(f)) FROM acc_blocked_filters),
	       extract(epoch FROM clock_timestamp() - t0);
END $$;

SELECT acc_blocked_point(how, p, n, (100 * pi + ni + CASE how WHEN 'auto' THEN 50 ELSE 0 END) * 1000000000000,
                         greatest(:blocked_tests, ceil(1000 / p))::bigint)
FROM unnest(ARRAY[0.1, 0.05, 0.01, 0.001, 0.0001]::float8[]) WITH ORDINALITY AS pp(p, pi),
     (SELECT 'capacity' AS how, n, ni FROM unnest(:'blocked_n'::bigint[]) WITH ORDINALITY AS nn(n, ni)
      UNION ALL
      SELECT 'auto', n, ni FROM unnest(:'blocked_auto_n'::bigint[]) WITH ORDINALITY AS nn(n, ni)) h
ORDER BY how DESC, pi, ni \g /dev/null

-- The blocked rate for m bits, n keys and k hashes, summed over the number i of keys in a key's
-- block, with the rate r(i) of a block of 512 bits holding i keys:
--   model 'poisson'  i Poisson (n / B), r(i) = (1 - (1 - 1/512)^(i k))^k (Putze et al.'s form)
--   model 'exact'    i binomial (n, 1/B), r(i) = bloom_fpr_exact(512, i, k): the exact rate of
--                    Bose et al. within the block (the first r(i) is the rate at the block's
--                    mean fill; the fill spreads around it, and the rate is convex in it)
--   model 'second'   the binomial mean of r(i)^2 with the first r(i) (for the spread of r)
-- bloom_fpr_estimate(m, n, k, 'blocked') is the 'exact' model, computed in C (src/core/blocked.c),
-- so formula and exact agree to rounding; 'poisson' shows what Putze et al.'s form would give.
CREATE FUNCTION acc_blocked_fpr(m bigint, n bigint, k integer, model text) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
	q double precision := 1.0 / (m / 512);
	mean double precision := n::float8 / (m / 512);
	hi integer := least(n, ceil(n::float8 / (m / 512) + 12 * sqrt(n::float8 / (m / 512)) + 12))::integer;
	pr double precision;
	r double precision;
	s double precision := 0;
BEGIN
	IF model = 'poisson' THEN pr := exp(-mean); ELSE pr := exp(n * ln(1 - q)); END IF;
	FOR i IN 0 .. hi LOOP
		IF i > 0 THEN
			r := CASE WHEN model = 'exact' THEN bloom_fpr_exact(512, i, k)
			          ELSE power(1 - power(1 - 1.0::float8 / 512, i::float8 * k), k) END;
			s := s + pr * CASE WHEN model = 'second' THEN r * r ELSE r END;
		END IF;
		IF model = 'poisson' THEN pr := pr * mean / (i + 1);
		ELSE pr := pr * (n - i)::float8 / (i + 1) * q / (1 - q); END IF;
	END LOOP;
	RETURN s;
END $$;

CREATE TABLE acc_bloom_blocked_f AS
SELECT a.*, false_pos::float8 / tests AS measured,
       bloom_fpr_estimate(bits_max, n, k, 'blocked') AS formula,
       acc_blocked_fpr(bits_max, n, k, 'poisson') AS poisson,
       acc_blocked_fpr(bits_max, n, k, 'exact') AS exact,
       acc_blocked_fpr(bits_max, n, k, 'second') AS second,
       bloom_optimal_bits(n, p) AS classic_bits,
       bloom_optimal_hashes(bloom_optimal_bits(n, p), n) AS classic_k
FROM acc_bloom_blocked a;

-- The TSV.  formula = bloom_fpr_estimate(bits, n, k, 'blocked') at the shape made (bits_max, k);
-- poisson and exact as in acc_blocked_fpr.  rel_se: relative standard error of the measured rate,
-- from the lookups (binomial) and the filters' fill: between the G filters (fill_sd / sqrt(G))
-- when G > 1, else the spread of one filter's mean over its B blocks of the block rate r(i),
-- sqrt((E r^2 / (E r)^2 - 1) / B) (the number of keys per block only; the fill of a block
-- given its keys adds a little).  z = (measured / formula - 1) / rel_se.
CREATE VIEW acc_bloom_blocked_out AS
SELECT how, p, n, filters, tests, false_pos, false_neg, measured, bits_min, bits_max, k, layouts,
       coalesce(auto_equal::text, 'NaN') AS auto_equal,
       bits_max::float8 / n AS bits_per_key,
       classic_bits, classic_k, classic_bits::float8 / n AS classic_bits_per_key,
       bits_max::float8 / classic_bits AS size_vs_classic,
       formula, poisson, exact, fill_fpr,
       measured / p AS measured_over_target,
       formula / p AS formula_over_target,
       measured / formula AS measured_over_formula,
       exact / formula AS exact_over_formula,
       measured / exact AS measured_over_exact,
       rel_se,
       (measured / formula - 1) / rel_se AS z_formula,
       (measured / exact - 1) / rel_se AS z_exact,
       seconds
FROM (SELECT f.*,
             sqrt((1 - formula) / (tests * formula)
                  + CASE WHEN filters > 1 THEN (fill_sd / formula) ^ 2 / filters
                         ELSE greatest(0, second / formula ^ 2 - 1) / (bits_max / 512) END) AS rel_se
      FROM acc_bloom_blocked_f f) s
ORDER BY how DESC, p DESC, n;

-- --------------------------------------------------------------------------------------------
-- 2. Bits per key: blocked against classic at the same target (computed with the planning
-- helpers).  blocked_at_classic_bits: the rate of a blocked filter given the classic filter's
-- bits (rounded up to whole blocks) and its best k, over p.
CREATE VIEW acc_bloom_blocked_bits_out AS
SELECT n, p, classic_bits, classic_k, blocked_bits, blocked_k,
       classic_bits::float8 / n AS classic_bits_per_key,
       blocked_bits::float8 / n AS blocked_bits_per_key,
       blocked_bits::float8 / classic_bits AS ratio,
       bloom_fpr_estimate(blocked_bits, n, blocked_k, 'blocked') / p AS blocked_rate_over_p,
       bloom_fpr_estimate(cb, n, bloom_optimal_hashes(cb, n, 'blocked'), 'blocked') / p AS blocked_at_classic_bits_over_p
FROM (SELECT n, p, bloom_optimal_bits(n, p) AS classic_bits,
             bloom_optimal_hashes(bloom_optimal_bits(n, p), n) AS classic_k,
             bloom_optimal_bits(n, p, 'blocked') AS blocked_bits,
             bloom_optimal_hashes(bloom_optimal_bits(n, p, 'blocked'), n, 'blocked') AS blocked_k,
             (bloom_optimal_bits(n, p) + 511) / 512 * 512 AS cb
      FROM unnest(ARRAY[1000, 1000000]::bigint[]) n,
           unnest(ARRAY[0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005, 0.0002, 0.0001,
                        0.00001, 0.000001]::float8[]) p) s
ORDER BY n, p DESC;

-- --------------------------------------------------------------------------------------------
-- 3. Checks: parallel plans against serial ones, and bloom_empty + bloom_add against bloom_agg.

CREATE TABLE acc_blocked_par_small AS SELECT x::bigint AS x FROM generate_series(1, 300000) x;
CREATE TABLE acc_blocked_par_big AS SELECT x::bigint AS x FROM generate_series(1, :blocked_par_rows) x;
ANALYZE acc_blocked_par_small, acc_blocked_par_big;

CREATE TABLE acc_bloom_blocked_checks (
	name text, query text, rows bigint, workers_launched integer, serial_md5 text, parallel_md5 text,
	equal boolean
);

-- Run query q (one row, one bloom column) serially and in a forced parallel plan; compare the
-- bytes of the two results.  workers_launched is read from EXPLAIN ANALYZE of the parallel plan.
CREATE FUNCTION acc_blocked_par_check(name text, q text, nrows bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	s text;
	par text;
	plan json;
	w integer;
BEGIN
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	EXECUTE 'SELECT md5((' || q || ')::bytea)' INTO s;
	PERFORM set_config('parallel_setup_cost', '0', true);
	PERFORM set_config('parallel_tuple_cost', '0', true);
	PERFORM set_config('min_parallel_table_scan_size', '0', true);
	PERFORM set_config('max_parallel_workers_per_gather', '2', true);
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO plan;
	SELECT coalesce(sum((j ->> 'Workers Launched')::int), 0) INTO w
	FROM jsonb_path_query(plan::jsonb, 'strict $.**') AS j
	WHERE jsonb_typeof(j) = 'object' AND j ? 'Workers Launched';
	EXECUTE 'SELECT md5((' || q || ')::bytea)' INTO par;
	INSERT INTO acc_bloom_blocked_checks VALUES (name, q, nrows, w, s, par, s = par);
END $$;

BEGIN;
\o /dev/null
SELECT acc_blocked_par_check('parallel = serial, capacity, exact-size state',
	'SELECT bloom_agg(x, 300000, 0.01, ''blocked'') FROM acc_blocked_par_small', 300000);
SELECT acc_blocked_par_check('parallel = serial, auto, exact phase',
	'SELECT bloom_agg(x, NULL, 0.01, ''blocked'') FROM acc_blocked_par_small', 300000);
SELECT acc_blocked_par_check('parallel = serial, capacity',
	'SELECT bloom_agg(x, ' || :blocked_par_rows || ', 0.001, ''blocked'') FROM acc_blocked_par_big', :blocked_par_rows);
SELECT acc_blocked_par_check('parallel = serial, auto, dense phase',
	'SELECT bloom_agg(x, NULL, 0.001, ''blocked'') FROM acc_blocked_par_big', :blocked_par_rows);
\o
COMMIT;

-- bloom_empty(n, p, 'blocked') filled with bloom_add is the filter of bloom_agg(x, n, p, 'blocked').
CREATE FUNCTION acc_blocked_fill(n bigint, p double precision) RETURNS bloom
LANGUAGE plpgsql STRICT AS $$
DECLARE
	f bloom := bloom_empty(n, p, 'blocked');
BEGIN
	FOR j IN 1 .. n LOOP
		f := bloom_add(f, j::bigint);
	END LOOP;
	RETURN f;
END $$;

INSERT INTO acc_bloom_blocked_checks
SELECT 'bloom_empty + bloom_add = bloom_agg(x, capacity, fpr)', 'n = 1000, p = ' || p, 1000, NULL,
       md5(acc_blocked_fill(1000, p)::bytea), md5(a::bytea), acc_blocked_fill(1000, p) = a
FROM unnest(ARRAY[0.01, 0.001]::float8[]) p,
     LATERAL (SELECT bloom_agg(x::bigint, 1000, p, 'blocked') AS a FROM generate_series(1, 1000) x) s;

CREATE VIEW acc_bloom_blocked_checks_out AS
SELECT name, query, rows, coalesce(workers_launched::text, 'NaN') AS workers_launched,
       serial_md5 AS first_md5, parallel_md5 AS second_md5, equal
FROM acc_bloom_blocked_checks;

-- The stage fails on a false negative, a check that does not hold, or a parallel plan that
-- launched no worker (then the check would compare serial with serial).
DO $$
DECLARE
	bad text;
BEGIN
	SELECT string_agg(format('%s p=%s n=%s: %s false negatives, layouts %s, equal to auto %s', how, p, n, false_neg, layouts, auto_equal), '; ') INTO bad
	FROM acc_bloom_blocked WHERE false_neg <> 0 OR layouts <> 'blocked' OR auto_equal = false;
	IF bad IS NOT NULL THEN
		RAISE EXCEPTION 'bloom_blocked: %', bad;
	END IF;
	SELECT string_agg(name, '; ') INTO bad
	FROM acc_bloom_blocked_checks WHERE NOT equal OR workers_launched = 0;
	IF bad IS NOT NULL THEN
		RAISE EXCEPTION 'bloom_blocked: check failed: %', bad;
	END IF;
END $$;
