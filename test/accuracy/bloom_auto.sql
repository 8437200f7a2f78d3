-- test/accuracy/bloom_auto.sql: measured false-positive rate of bloom_agg(x, p), which sizes the
-- filter for the number of distinct values it saw, against the target p, for n from 10 to a few
-- million (doc/accuracy.md, section 4).
--
-- psql variables: auto_tests (lookups per point at least; 300 / p when that is more),
-- auto_n (the n, as an array literal such as '{10,100,1000}').
--
-- Point (p, n) builds G = max(1, 200,000 / n) filters with bloom_agg(x, p); filter g holds the
-- keys base + 10^7 g + 1 .. base + 10^7 g + n and is probed with L = tests / G keys of its own,
-- -(base + 10^7 g + 1) .. -(base + 10^7 g + L), never added; base = (100 pi + ni) * 10^12 for
-- the index pi of p and ni of n.  Every added key is looked up too (false negatives).

SET work_mem = '256MB';

CREATE TABLE acc_bloom_auto (
	p double precision, n bigint, filters integer, tests bigint, false_pos bigint, false_neg bigint,
	bits_min bigint, bits_max bigint, k integer, fill_fpr double precision, fill_sd double precision,
	seconds double precision
);

CREATE FUNCTION acc_auto_point(p double precision, n bigint, base bigint, tests bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	g_count integer := greatest(1, 200000 / n);
	l bigint := tests / greatest(1, 200000 / n);
	t0 timestamptz := clock_timestamp();
BEGIN
	INSERT INTO acc_bloom_auto
	WITH filters AS MATERIALIZED (
		SELECT g, bloom_agg(base + 10000000::bigint * g + i, p) AS f
		FROM generate_series(1, g_count) g, generate_series(1::bigint, n) i
		GROUP BY g
	)
	SELECT p, n, g_count, g_count * l,
	       (SELECT count(*) FILTER (WHERE f @> -(base + 10000000::bigint * g + j)) FROM filters, generate_series(1::bigint, l) j),
	       (SELECT count(*) FILTER (WHERE NOT f @> (base + 10000000::bigint * g + i)) FROM filters, generate_series(1::bigint, n) i),
	       (SELECT min((bloom_info(f)).bits) FROM filters),
	       (SELECT max((bloom_info(f)).bits) FROM filters),
	       (SELECT max((bloom_info(f)).hashes) FROM filters),
	       (SELECT avg(bloom_fpr(f)) FROM filters),
	       (SELECT stddev_samp(bloom_fpr(f)) FROM filters),
	       extract(epoch FROM clock_timestamp() - t0);
END $$;

SELECT acc_auto_point(p, n, (100 * pi + ni) * 1000000000000, greatest(:auto_tests, ceil(300 / p))::bigint)
FROM unnest(ARRAY[0.1, 0.01, 0.001, 0.0001]::float8[]) WITH ORDINALITY AS pp(p, pi),
     unnest(:'auto_n'::bigint[]) WITH ORDINALITY AS nn(n, ni)
ORDER BY pi, ni \g /dev/null

-- The TSV.  approx and exact are the rates of the shape chosen (bits_max, k) for n keys; exact only
-- where bloom_fpr_exact is within its work limit.  size_ratio is bits against bloom_optimal_bits(n, p).
-- rel_se: relative standard error of the measured rate, from the lookups (binomial) and the
-- filters' fill: between the G filters (fill_sd / sqrt(G)) when G > 1, else the fill variance of
-- one filter, k sd(X) / X with Var(X) = m e^-L (1 - (1 + L) e^-L), L = k n / m, as in bloom_fpr.sql.
CREATE VIEW acc_bloom_auto_out AS
SELECT p, n, filters, tests, false_pos, false_neg, measured, bits_min, bits_max, k,
       bits_max::float8 / n AS bits_per_key,
       bloom_optimal_bits(n, p) AS optimal_bits,
       bits_max::float8 / bloom_optimal_bits(n, p) AS size_ratio,
       approx, coalesce(exact::text, 'NaN') AS exact, fill_fpr,
       measured / p AS measured_over_target,
       approx / p AS approx_over_target,
       measured / approx AS measured_over_approx,
       measured / coalesce(exact, approx) AS measured_over_formula,  -- exact where computed
       sqrt(approx * (1 - approx) / tests / approx ^ 2
            + CASE WHEN filters > 1 THEN (fill_sd / approx) ^ 2 / filters
                   ELSE (k * sqrt(bits_max * exp(-l) * (1 - (1 + l) * exp(-l))) / (bits_max * (1 - exp(-l)))) ^ 2 END) AS rel_se,
       (measured / coalesce(exact, approx) - 1)
         / sqrt(approx * (1 - approx) / tests / approx ^ 2
                + CASE WHEN filters > 1 THEN (fill_sd / approx) ^ 2 / filters
                       ELSE (k * sqrt(bits_max * exp(-l) * (1 - (1 + l) * exp(-l))) / (bits_max * (1 - exp(-l)))) ^ 2 END) AS z_formula,
       seconds
FROM (SELECT a.*, false_pos::float8 / tests AS measured,
             bloom_fpr_estimate(bits_max, n, k) AS approx,
             acc_fpr_exact_or_null(bits_max, n, k) AS exact,
             k::float8 * n / bits_max AS l
      FROM acc_bloom_auto a) s
ORDER BY p DESC, n;
