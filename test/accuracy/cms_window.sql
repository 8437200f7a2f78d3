-- test/accuracy/cms_window.sql: a sliding 7-day window of Count-Min sketches kept by
-- cms_subtract (doc/accuracy.md, section "Count-Min windows").
--
-- psql variables: cms_rows (rows of the stream, spread over 30 days).
--
-- Stream: key acc_zipf(i, 1.0, 10^6, 42), day 1 + i % 30, for i = 1 .. cms_rows.  One
-- cms_agg(key) per day (epsilon 0.001, delta 0.01); the window starts as the sum of days 1..7 and
-- moves 23 times by + newest day - oldest day.  After each step: is it byte-equal to the sum of
-- its 7 days (same_as_rebuilt)?  After the last: every key of the whole stream against its exact
-- count in the window (0 for keys only in days that left): below_true (must be 0), over eps N
-- (N the window's total), the largest over-estimate, and the same for the keys that left.

SET work_mem = '256MB';

CREATE TABLE acc_cw_stream AS
SELECT 1 + i % 30 AS day, acc_zipf(i, 1.0, 1000000, 42) AS key FROM generate_series(1, :cms_rows) i;
CREATE TABLE acc_cw_daily AS SELECT day, cms_agg(key) AS s FROM acc_cw_stream GROUP BY day;
CREATE TABLE acc_cw_window AS SELECT 1 AS first_day, cms_union_agg(s) AS s FROM acc_cw_daily WHERE day <= 7;
CREATE TABLE acc_cw_steps (first_day integer, total bigint, exact_total bigint, same_as_rebuilt boolean);

DO $$
BEGIN
	FOR i IN 1..23 LOOP
		UPDATE acc_cw_window w SET s = w.s + n.s - o.s, first_day = w.first_day + 1
		FROM acc_cw_daily n, acc_cw_daily o WHERE n.day = w.first_day + 7 AND o.day = w.first_day;
		INSERT INTO acc_cw_steps
		SELECT w.first_day, cms_total(w.s),
		       (SELECT count(*) FROM acc_cw_stream WHERE day BETWEEN w.first_day AND w.first_day + 6),
		       w.s = (SELECT cms_union_agg(s) FROM acc_cw_daily WHERE day BETWEEN w.first_day AND w.first_day + 6)
		FROM acc_cw_window w;
	END LOOP;
END $$;

CREATE TABLE acc_cw_keys AS
SELECT key, count(*) FILTER (WHERE day >= 24) AS f, (SELECT s FROM acc_cw_window) -> key AS est
FROM acc_cw_stream GROUP BY key;

CREATE VIEW acc_cw_out AS
SELECT (SELECT count(*) FROM acc_cw_steps) AS steps,
       (SELECT count(*) FILTER (WHERE same_as_rebuilt AND total = exact_total) FROM acc_cw_steps) AS steps_exact,
       (SELECT cms_total(s) FROM acc_cw_window) AS window_n,
       (SELECT cms_error_bound(s) FROM acc_cw_window) AS eps_n,
       count(*) AS keys,
       count(*) FILTER (WHERE f > 0) AS keys_in_window,
       count(*) FILTER (WHERE est < f) AS below_true,
       count(*) FILTER (WHERE est > f + (SELECT cms_error_bound(s) FROM acc_cw_window)) AS over_eps_n,
       max(est - f) AS max_over,
       max(est - f) / (SELECT cms_error_bound(s) FROM acc_cw_window) AS max_over_bound,
       avg(est - f) AS mean_over,
       count(*) FILTER (WHERE f = 0) AS keys_left,
       max(est) FILTER (WHERE f = 0) AS max_est_of_keys_left,
       count(*) FILTER (WHERE f = 0 AND est = 0) AS keys_left_at_zero
FROM acc_cw_keys;
