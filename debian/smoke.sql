-- The build's check (debian/rules, dh_pgxs_test): the extension just built, loaded from
-- debian/postgresql-N-bloomsketch through extension_destdir, creates and answers.
\set ON_ERROR_STOP 1
CREATE EXTENSION bloomsketch;
SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch';
SELECT bloom_contains(bloom_agg(i), 42) AS has_42, bloom_contains(bloom_agg(i), -1) AS has_minus_1
FROM generate_series(1, 1000) AS i;
