-- test/accuracy/bloom_fpr.sql: measured false-positive rate of filters of m = c n bits and k
-- hashes, against the formulas and Table 3 of Fan et al. 2000 (doc/accuracy.md, section 2).
--
-- psql variables: bloom_n (keys per filter), bloom_tests (absent keys looked up per filter),
-- c_max (largest bits per key; c runs 2 .. c_max), k_max (k runs 1 .. k_max).
--
-- Filter (c, k) has the id fid = 100 c + k.  It holds the keys fid * 10^9 + 1 .. fid * 10^9 + n
-- and is probed with the keys -(fid * 10^9 + 1) .. -(fid * 10^9 + tests), never added to it,
-- so every filter is an independent sample.  Every added key is looked up too (false negatives).

-- Table 3 of Fan et al. 2000, "Summary Cache" (doc/bibliography.md): false-positive rate for
-- m/n = 2 .. 16 and k = 1 .. 8, copied as printed in the authors' online version (cells it
-- leaves blank are absent); kept as text (numeric literals keep their digits: 0.400 stays 0.400).
CREATE TABLE acc_table3 (c integer, k integer, table3 text, PRIMARY KEY (c, k));
INSERT INTO acc_table3
SELECT c, k, v FROM (VALUES
	(2,  ARRAY[0.393, 0.400]),
	(3,  ARRAY[0.283, 0.237, 0.253]),
	(4,  ARRAY[0.221, 0.155, 0.147, 0.160]),
	(5,  ARRAY[0.181, 0.109, 0.092, 0.092, 0.101]),
	(6,  ARRAY[0.154, 0.0804, 0.0609, 0.0561, 0.0578, 0.0638]),
	(7,  ARRAY[0.133, 0.0618, 0.0423, 0.0359, 0.0347, 0.0364]),
	(8,  ARRAY[0.118, 0.0489, 0.0306, 0.024, 0.0217, 0.0216, 0.0229]),
	(9,  ARRAY[0.105, 0.0397, 0.0228, 0.0166, 0.0141, 0.0133, 0.0135, 0.0145]),
	(10, ARRAY[0.0952, 0.0329, 0.0174, 0.0118, 0.00943, 0.00844, 0.00819, 0.00846]),
	(11, ARRAY[0.0869, 0.0276, 0.0136, 0.00864, 0.0065, 0.00552, 0.00513, 0.00509]),
	(12, ARRAY[0.08, 0.0236, 0.0108, 0.00646, 0.00459, 0.00371, 0.00329, 0.00314]),
	(13, ARRAY[0.074, 0.0203, 0.00875, 0.00492, 0.00332, 0.00255, 0.00217, 0.00199]),
	(14, ARRAY[0.0689, 0.0177, 0.00718, 0.00381, 0.00244, 0.00179, 0.00146, 0.00129]),
	(15, ARRAY[0.0645, 0.0156, 0.00596, 0.003, 0.00183, 0.00128, 0.001, 0.000852]),
	(16, ARRAY[0.0606, 0.0138, 0.005, 0.00239, 0.00139, 0.000935, 0.000702, 0.000574])
) t(c, vals), unnest(vals::text[]) WITH ORDINALITY AS u(v, k);

CREATE TABLE acc_bloom_fpr AS
SELECT c, k, n, m, tests, false_pos,
       false_pos::float8 / tests AS measured,
       bloom_fpr_estimate(m, n, k) AS approx,
       acc_fpr_bloom1970(m, n, k) AS bloom1970,
       bloom_fpr_exact(c * exact_n, exact_n, k) AS exact,
       exact_n,
       fill_fpr, bits_set, false_neg
FROM (
	SELECT g.c, g.k, :bloom_n::bigint AS n, g.c * :bloom_n::bigint AS m, :bloom_tests::bigint AS tests,
	       -- the largest n' <= n for which bloom_fpr_exact(c n', n', k) takes at most 2.5 10^7
	       -- steps (k n' min(k n', c n'); its limit is 10^8, about 0.15 s)
	       least(:bloom_n::bigint, floor(sqrt(2.5e7 / (g.k * least(g.k, g.c))))::bigint) AS exact_n,
	       (SELECT count(*) FILTER (WHERE f.f @> y) FROM generate_series(-(g.fid + :bloom_tests::bigint), -(g.fid + 1)) y) AS false_pos,
	       (SELECT count(*) FILTER (WHERE NOT f.f @> x) FROM generate_series(g.fid + 1, g.fid + :bloom_n::bigint) x) AS false_neg,
	       bloom_fpr(f.f) AS fill_fpr,
	       (bloom_info(f.f)).bits_set AS bits_set
	FROM (SELECT c, k, (100 * c + k) * 1000000000::bigint AS fid
	      FROM generate_series(2, :c_max) c, generate_series(1, :k_max) k) g,
	     LATERAL (SELECT acc_fill(g.c * :bloom_n::bigint, g.k, g.fid + 1, g.fid + :bloom_n::bigint) AS f OFFSET 0) f
	OFFSET 0  -- not pulled up: each count is made once
) s
ORDER BY c, k;

-- The TSV: measured against the formulas and Table 3, with two standard errors:
--   rel_se       of the lookups alone (binomial), relative to the approximate rate;
--   rel_sd_fill  of the filter's fill: the number of bits set after k n random throws into m bits
--                varies from filter to filter (variance m e^-L (1 - (1 + L) e^-L), L = k n / m),
--                and the rate (X/m)^k with it, by about k sd(X) / X relative;
--   rel_sd       both: what measured / approx should be within, about 2 times in 3.
-- z_total is (measured / approx - 1) / rel_sd; z_fill compares the measured rate with the rate of
-- this filter's own fill, bloom_fpr(f), by the binomial error alone.
CREATE VIEW acc_bloom_fpr_out AS
SELECT c, k, n, m, tests, false_pos, false_neg, measured, approx, bloom1970, exact, exact_n, fill_fpr,
       table3, measured_over_approx, rel_se, rel_sd_fill, rel_sd,
       (measured_over_approx - 1) / rel_sd AS z_total,
       measured / fill_fpr AS measured_over_fill,
       (measured - fill_fpr) / sqrt(fill_fpr * (1 - fill_fpr) / tests) AS z_fill
FROM (
	SELECT b.*, coalesce(t.table3, 'NaN') AS table3,
	       b.measured / b.approx AS measured_over_approx,
	       sqrt(b.approx * (1 - b.approx) / b.tests) / b.approx AS rel_se,
	       b.k * sqrt(b.m * exp(-l) * (1 - (1 + l) * exp(-l))) / (b.m * (1 - exp(-l))) AS rel_sd_fill,
	       sqrt(b.approx * (1 - b.approx) / b.tests / b.approx ^ 2
	            + (b.k * sqrt(b.m * exp(-l) * (1 - (1 + l) * exp(-l))) / (b.m * (1 - exp(-l)))) ^ 2) AS rel_sd
	FROM acc_bloom_fpr b LEFT JOIN acc_table3 t USING (c, k),
	     LATERAL (SELECT b.k::float8 * b.n / b.m AS l) l
) s
ORDER BY c, k;
