-- test/accuracy/bloom_small.sql: the average false-positive rate of many small filters (n = 10
-- and 100 keys) of m = c n bits and k = round(c ln 2) hashes (the k bloom_empty would choose),
-- against the approximation and the exact rate of Bose et al. (doc/accuracy.md, section 3).
--
-- psql variables: small_tests (lookups per configuration, spread over its filters), c_max.
--
-- Configuration (n, c) builds G = 200,000 / n filters (20,000 of 10 keys, 2,000 of 100 keys);
-- filter g holds the keys base + 10^4 g + 1 .. base + 10^4 g + n, base = (1000 c + n) * 10^9,
-- added with bloom_add to bloom_empty_bits(c n, k), and is probed with L = small_tests / G keys
-- of its own, -(base + 10^4 g + 1) .. -(base + 10^4 g + L), never added to any filter.  (Probing
-- every filter with the same L keys would not do: with k up to 11 probes into 100 bits, whether
-- a key's probes repeat a position changes its rate by a factor of about 2, and a mean over a
-- few hundred fixed keys is off by several percent.)

CREATE TABLE acc_bloom_small AS
WITH cfg AS (
	SELECT n, c, greatest(1, round(c * ln(2)))::int AS k, (c * n)::bigint AS m,
	       200000 / n AS nfilters, :small_tests / (200000 / n) AS l,
	       (1000 * c + n) * 1000000000::bigint AS base
	FROM unnest(ARRAY[10, 100]) n, generate_series(2, :c_max) c
), filters AS MATERIALIZED (
	SELECT cfg.n, cfg.c, cfg.base, cfg.l, g, acc_fill(cfg.m, cfg.k, cfg.base + 10000 * g + 1, cfg.base + 10000 * g + cfg.n) AS f
	FROM cfg, generate_series(1, cfg.nfilters) g
), fp AS (
	SELECT n, c, count(*) AS tests, count(*) FILTER (WHERE f @> -(base + 10000 * g + j)) AS false_pos
	FROM filters, generate_series(1, l) j GROUP BY n, c
), fn AS (
	SELECT n, c, count(*) FILTER (WHERE NOT f @> (base + 10000 * g + i)) AS false_neg
	FROM filters, generate_series(1, n) i GROUP BY n, c
), fill AS (
	SELECT n, c, count(*) AS filters, avg(bloom_fpr(f)) AS fill_fpr, stddev_samp(bloom_fpr(f)) AS fill_sd
	FROM filters GROUP BY n, c
)
SELECT n, c, k, m, filters, tests, false_pos, false_neg,
       false_pos::float8 / tests AS measured,
       bloom_fpr_estimate(m, n, k) AS approx,
       acc_fpr_bloom1970(m, n, k) AS bloom1970,
       bloom_fpr_exact(m, n, k) AS exact,
       fill_fpr, fill_sd
FROM cfg JOIN fp USING (n, c) JOIN fn USING (n, c) JOIN fill USING (n, c)
ORDER BY n, c;

-- The TSV, with the ratios to both formulas and the relative standard error of the measured
-- average, rel_se: the lookups (binomial, tests in all) and the filters, whose own rates
-- bloom_fpr(f) = (X/m)^k differ (fill_sd between filters, over G filters).
CREATE VIEW acc_bloom_small_out AS
SELECT n, c, k, m, filters, tests, false_pos, false_neg, measured, approx, bloom1970, exact, fill_fpr, fill_sd,
       measured / approx AS measured_over_approx,
       measured / exact AS measured_over_exact,
       exact / approx AS exact_over_approx,
       sqrt(exact * (1 - exact) / tests + fill_sd ^ 2 / filters) / exact AS rel_se,
       (measured / exact - 1) / (sqrt(exact * (1 - exact) / tests + fill_sd ^ 2 / filters) / exact) AS z_exact
FROM acc_bloom_small ORDER BY n, c;
