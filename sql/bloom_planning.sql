--
-- bloom_planning: bloom_optimal_bits, bloom_optimal_hashes,
-- bloom_fpr_estimate, bloom_fpr_exact, and the fill-based estimates
-- bloom_cardinality and bloom_fpr.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- ---------------------------------------------------------------------------
-- Sizing: m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2), at least 1
-- ---------------------------------------------------------------------------
SELECT bloom_optimal_bits(1000, 0.01) AS bits_1000_1pct,
       bloom_optimal_hashes(9586, 1000) AS hashes_for_it,
       bloom_optimal_bits(1, 0.5) AS bits_1_half,
       bloom_optimal_bits(1000000, 0.001) AS bits_1m_0_1pct,
       bloom_optimal_hashes(1, 1000) AS at_least_one,
       bloom_optimal_hashes(14378, 1000) AS hashes_0_1pct;
-- The same as the formula over a grid.
SELECT count(*) AS cases,
       count(*) FILTER (WHERE bloom_optimal_bits(n, p) = ceil(-n * ln(p) / (ln(2) ^ 2))::bigint) AS bits_match,
       count(*) FILTER (WHERE bloom_optimal_hashes(bloom_optimal_bits(n, p), n)
                              = greatest(1, round(bloom_optimal_bits(n, p)::float8 / n * ln(2)))) AS hashes_match
FROM (VALUES (1), (7), (100), (1000), (123457), (10000000)) a(n),
     (VALUES (0.5::float8), (0.1), (0.05), (0.01), (0.001), (1e-6), (1e-9)) b(p);
-- bloom_empty uses exactly these.
SELECT count(*) FILTER (WHERE i.bits = bloom_optimal_bits(n, p)
                          AND i.hashes = bloom_optimal_hashes(bloom_optimal_bits(n, p), n)) AS empty_matches,
       count(*) AS cases
FROM (VALUES (1), (7), (100), (1000), (123457)) a(n),
     (VALUES (0.5::float8), (0.1), (0.01), (0.001), (1e-6)) b(p),
     bloom_info(bloom_empty(n, p)) i;

-- ---------------------------------------------------------------------------
-- bloom_fpr_estimate: (1 - e^(-kn/m))^k
-- ---------------------------------------------------------------------------
-- (to 1e-9 relative: 1 - exp(x) in SQL loses digits for small x that the
-- extension keeps)
SELECT count(*) AS cases,
       count(*) FILTER (WHERE abs(bloom_fpr_estimate(m, n, k) - (1 - exp(-k * n / m::float8)) ^ k)
                              <= 1e-9 * (1 - exp(-k * n / m::float8)) ^ k) AS match_formula
FROM (VALUES (2), (10), (96), (959), (9586), (1000000)) a(m),
     (VALUES (1), (5), (10), (100), (1000)) b(n),
     generate_series(1, 12) k
WHERE k * n < 700 * m;  -- float8 exp() would underflow past that
-- Edge values: no keys, 1 bit.
SELECT bloom_fpr_estimate(100, 0, 3) AS no_keys, round(bloom_fpr_estimate(1, 1, 1)::numeric, 6) AS one_bit;
-- Table 3 of Fan et al. 2000, "Summary Cache" (doc/bibliography.md): false-positive rates for
-- m/n and k, reproduced to 3 significant digits (m = 1000 m/n, n = 1000).
SELECT m_n, k, table3,
       round(e::numeric, 2 - floor(log(e::numeric))::integer) AS estimate_3_digits,
       round(e::numeric, 2 - floor(log(e::numeric))::integer) = table3 AS matches
FROM (VALUES (2, 1, 0.393), (3, 2, 0.237), (4, 3, 0.147), (6, 4, 0.0561), (8, 3, 0.0306),
             (10, 4, 0.0118), (10, 5, 0.00943), (12, 1, 0.08), (15, 8, 0.000852), (16, 8, 0.000574),
             (20, 7, 0.000196), (22, 8, 0.0000746), (32, 4, 0.000191), (32, 8, 0.00000573)) t(m_n, k, table3),
     LATERAL (SELECT bloom_fpr_estimate(m_n * 1000, 1000, k) AS e) s
ORDER BY m_n, k;
-- At the optimal k the rate is about 0.6185^(m/n) (Fan et al. 2000).
SELECT m_n, abs(bloom_fpr_estimate(m_n * 1000, 1000, bloom_optimal_hashes(m_n * 1000, 1000)) / 0.6185 ^ m_n - 1) < 0.1
       AS near_0_6185_pow
FROM (VALUES (8), (10), (16), (24), (32)) v(m_n) ORDER BY m_n;

-- ---------------------------------------------------------------------------
-- bloom_fpr_exact: Bose et al.'s rate over the bit occupancy distribution
-- ---------------------------------------------------------------------------
-- m = 2, one key, k = 2: 2 bits set with probability 1/2 (rate 1), 1 bit
-- with probability 1/2 (rate 1/4): 0.625.
SELECT bloom_fpr_exact(2, 1, 2) AS exact_2_1_2;
-- m = 1: every key sets the only bit.
SELECT bloom_fpr_exact(1, 1, 1) AS one_bit, bloom_fpr_exact(100, 0, 3) AS no_keys;
-- A hand-computable case: m = 4, n = 1, k = 2: 2 bits with probability 3/4
-- (rate 1/4), 1 bit with probability 1/4 (rate 1/16): 13/64.
SELECT bloom_fpr_exact(4, 1, 2) = 13 / 64.0 AS exact_4_1_2;
-- The exact rate is never below the estimate (the classic formula is a lower
-- bound), and they agree for large filters.
SELECT count(*) AS cases,
       count(*) FILTER (WHERE bloom_fpr_exact(m, n, k) >= bloom_fpr_estimate(m, n, k) * (1 - 1e-12)) AS exact_ge_estimate,
       count(*) FILTER (WHERE bloom_fpr_exact(m, n, k) <= 1) AS at_most_1
FROM generate_series(1, 40) m, generate_series(1, 8) n, generate_series(1, 8) k;
SELECT abs(bloom_fpr_exact(10000, 1000, 7) / bloom_fpr_estimate(10000, 1000, 7) - 1) < 0.02 AS agree_large,
       bloom_fpr_exact(96, 10, 7) > 1.05 * bloom_fpr_estimate(96, 10, 7) AS small_filters_are_worse;

-- ---------------------------------------------------------------------------
-- Fill-based estimates of a filter: bloom_fpr = (X/m)^k and
-- bloom_cardinality = -(m/k) ln(1 - X/m)
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE plan_f AS SELECT bloom_agg(x, 5000, 0.01) AS f FROM generate_series(1, 3000) x;
SELECT abs(bloom_fpr(f) - (i.bits_set::float8 / i.bits) ^ i.hashes) <= 1e-15 AS fpr_formula,
       abs(bloom_cardinality(f) + (i.bits::float8 / i.hashes) * ln(1 - i.bits_set::float8 / i.bits)) <= 1e-9 AS cardinality_formula,
       bloom_fpr(f) = i.estimated_fpr AS info_fpr, bloom_cardinality(f) = i.estimated_cardinality AS info_cardinality,
       i.fill_ratio = i.bits_set::float8 / i.bits AS info_fill,
       abs(bloom_cardinality(f) - 3000) <= 150 AS cardinality_within_5pct
FROM plan_f, bloom_info(f) i;
DROP TABLE plan_f;
-- Every bit set: the cardinality is Infinity and the rate 1.
SELECT bloom_cardinality(f), bloom_fpr(f), fill_ratio
FROM (SELECT set_byte(bloom_empty_bits(8, 2)::bytea, 48, 255)::bloom AS f) s, bloom_info(f);
-- Strict.
SELECT bloom_cardinality(NULL) IS NULL AS a, bloom_fpr(NULL) IS NULL AS b,
       bloom_optimal_bits(NULL, 0.1) IS NULL AS c, bloom_fpr_exact(10, NULL, 1) IS NULL AS d;

-- ---------------------------------------------------------------------------
-- Errors
-- ---------------------------------------------------------------------------
-- The exact rate's work limit (54000), with a hint.
SELECT bloom_fpr_exact(100000, 100000, 10);
\echo SQLSTATE :SQLSTATE
SELECT bloom_fpr_exact(20001, 10001, 1);
\echo SQLSTATE :SQLSTATE
-- ... just under it is fine: 10000 throws over 10000 bits.
SELECT bloom_fpr_exact(20000, 10000, 1) > 0 AS at_the_limit;
-- Zero or negative arguments (22023).
SELECT bloom_optimal_bits(0, 0.01);
\echo SQLSTATE :SQLSTATE
SELECT bloom_optimal_bits(-5, 0.01);
\echo SQLSTATE :SQLSTATE
SELECT bloom_optimal_bits(10, 0);
\echo SQLSTATE :SQLSTATE
SELECT bloom_optimal_bits(10, 1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_optimal_bits(10, -0.5);
\echo SQLSTATE :SQLSTATE
SELECT bloom_optimal_bits(10, 'NaN');
\echo SQLSTATE :SQLSTATE
SELECT bloom_optimal_hashes(0, 10);
\echo SQLSTATE :SQLSTATE
SELECT bloom_optimal_hashes(10, 0);
\echo SQLSTATE :SQLSTATE
SELECT bloom_optimal_hashes(-1, -1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_fpr_estimate(0, 10, 1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_fpr_estimate(10, -1, 1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_fpr_exact(-10, 1, 1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_fpr_exact(10, -1, 1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(0);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(-1, 0.5);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10, 0);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10, 1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10, 'Infinity');
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty_bits(0, 1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty_bits(-8, 1);
\echo SQLSTATE :SQLSTATE
-- k out of range (1..64).
SELECT bloom_fpr_estimate(100, 10, 0);
\echo SQLSTATE :SQLSTATE
SELECT bloom_fpr_estimate(100, 10, 65);
\echo SQLSTATE :SQLSTATE
SELECT bloom_fpr_exact(100, 10, -1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty_bits(100, 0);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty_bits(100, 65);
\echo SQLSTATE :SQLSTATE
SELECT bloom_fpr_estimate(100, 10, 64) > 0 AS k_64_ok;
-- Filters past the 1 GB limit (54000), with the size they would take.
SELECT bloom_optimal_bits(1000000000, 0.0001);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty(10000000000);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty_bits(9000000000, 1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_fpr_estimate(9000000000, 1, 1);
\echo SQLSTATE :SQLSTATE
SELECT bloom_empty_bits(9223372036854775807, 1);
\echo SQLSTATE :SQLSTATE
-- The largest bit count is accepted by the planning functions.
SELECT bloom_fpr_estimate(8589934168, 100000000, 7) BETWEEN 1e-8 AND 2e-8 AS max_bits_ok;
-- An fpr that needs more than 64 hashes (22023, with a hint).
SELECT bloom_empty(10, 1e-20);
\echo SQLSTATE :SQLSTATE
SELECT bloom_optimal_hashes(100000, 1);
\echo SQLSTATE :SQLSTATE
-- 1e-19 still fits in 64 hashes.
SELECT hashes FROM bloom_info(bloom_empty(10, 1e-19));
