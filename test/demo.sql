-- test/demo.sql: a short tour of bloomsketch on generated data (run by test/demo.sh).
--
--   psql -X -v ON_ERROR_STOP=1 -f test/demo.sql
--
-- 2,000,000 page views by about 200,000 users over the 30 days of November 2026, generated
-- deterministically from md5 so every run prints the same numbers.  Runs in well under a minute.

\set QUIET on
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
SET work_mem = '64MB';

CREATE EXTENSION bloomsketch;

\echo
\echo '=== 0. The data: 2,000,000 page views over 30 days (deterministic, md5-based) ==='
\echo 'Half of the views come from 20,000 regulars, half from anyone among 200,000 users;'
\echo '1 view in 200 goes to a URL of a known-malicious site.'

CREATE TABLE events AS
SELECT i AS event_id,
       date '2026-11-01' + (h1 % 30)::int AS day,
       (CASE WHEN h2 % 2 = 0 THEN 1 + (h2 / 2) % 20000
             ELSE 1 + (h2 / 2) % 200000 END)::bigint AS user_id,
       CASE WHEN h3 % 200 = 0
            THEN 'http://' || substr(md5('bad' || ((h3 / 200) % 20000)), 1, 12) || '.evil.example/login'
            ELSE 'https://shop.example/p/' || (h4 % 50000) END AS url
FROM (SELECT i,
             ('x' || substr(m, 1, 8))::bit(32)::bigint AS h1,
             ('x' || substr(m, 9, 8))::bit(32)::bigint AS h2,
             ('x' || substr(m, 17, 8))::bit(32)::bigint AS h3,
             ('x' || substr(m, 25, 8))::bit(32)::bigint AS h4
      FROM (SELECT i, md5(i::text) AS m FROM generate_series(1, 2000000) AS i) AS g) AS r;
ANALYZE events;

SELECT count(*) AS page_views,
       count(DISTINCT user_id) AS distinct_users,
       count(DISTINCT url) AS distinct_urls,
       min(day) AS first_day, max(day) AS last_day
FROM events;

\echo
\echo '=== 1. One visitor filter per day, kept in a rollup table ==='
\echo 'bloom_agg(user_id, 250000, 0.01): every day gets the same shape (sized for the 200,000 users'
\echo 'of the whole month at 1%), so days can later be merged.  The aggregate runs in parallel:'

EXPLAIN (COSTS OFF)
SELECT day, bloom_agg(user_id, 250000, 0.01) AS users FROM events GROUP BY day;

CREATE TABLE daily_visitors AS
SELECT day, bloom_agg(user_id, 250000, 0.01) AS users
FROM events GROUP BY day;

-- the exact answers, to compare with (a real system would not keep these)
CREATE TABLE daily_exact AS
SELECT day, count(*) AS views, count(DISTINCT user_id) AS exact_users
FROM events GROUP BY day;

\echo 'The first week: exact distinct users vs the estimate from the filter, and the sizes.  A daily'
\echo 'filter shaped for the whole month costs as much as the month filter (see 6; an auto-sized'
\echo 'bloom_agg(user_id) of one day is much smaller, see 4).'
SELECT d.day, x.views, x.exact_users,
       round(bloom_cardinality(d.users)) AS estimated_users,
       i.bits, i.hashes, pg_size_pretty(i.bytes::bigint) AS filter_size,
       pg_size_pretty(8 * x.exact_users) AS raw_ids_size
FROM daily_visitors AS d
JOIN daily_exact AS x USING (day)
CROSS JOIN LATERAL bloom_info(d.users) AS i
WHERE d.day < date '2026-11-08'
ORDER BY d.day;

\echo
\echo '=== 2. Has user 42 visited on day D?  users @> 42::bigint versus the raw table ==='
SELECT d.day,
       d.users @> 42::bigint AS filter_says,
       d.users @> 42 AS same_with_int4,   -- int2/int4/int8 hash alike: no silent miss
       v.day IS NOT NULL AS really_visited
FROM daily_visitors AS d
LEFT JOIN (SELECT DISTINCT day FROM events WHERE user_id = 42) AS v USING (day)
WHERE d.day < date '2026-11-11'
ORDER BY d.day;

\echo 'The same question for 1,000 users x 30 days = 30,000 (user, day) pairs.'
\echo 'A Bloom filter never says no to a real visit (false_no must be 0); it may say yes wrongly.'
WITH sample AS (
    SELECT u::bigint AS user_id FROM generate_series(1, 200000, 200) AS u
), truth AS (
    SELECT DISTINCT day, user_id FROM events WHERE user_id % 200 = 1
)
SELECT count(*) AS questions,
       count(*) FILTER (WHERE d.users @> s.user_id) AS filter_yes,
       count(t.user_id) AS really_yes,
       count(*) FILTER (WHERE d.users @> s.user_id AND t.user_id IS NULL) AS false_yes,
       count(*) FILTER (WHERE NOT d.users @> s.user_id AND t.user_id IS NOT NULL) AS false_no
FROM daily_visitors AS d
CROSS JOIN sample AS s
LEFT JOIN truth AS t ON t.day = d.day AND t.user_id = s.user_id;

\echo
\echo '=== 3. Rolling days up with bloom_union_agg: no raw data needed ==='
WITH rolled AS (
    SELECT date_trunc('week', day)::date AS week_of, count(*) AS days,
           bloom_union_agg(users) AS users
    FROM daily_visitors GROUP BY 1
), exact AS (
    SELECT date_trunc('week', day)::date AS week_of, count(DISTINCT user_id) AS exact_users
    FROM events GROUP BY 1
)
SELECT r.week_of, r.days,
       round(bloom_cardinality(r.users)) AS estimated_users,
       x.exact_users
FROM rolled AS r JOIN exact AS x USING (week_of)
ORDER BY r.week_of;

CREATE TABLE monthly_visitors AS
SELECT bloom_union_agg(users) AS users FROM daily_visitors;

SELECT round(bloom_cardinality(m.users)) AS month_estimated_users,
       (SELECT count(DISTINCT user_id) FROM events) AS month_exact_users,
       round(bloom_cardinality(m.users | d30.users)) = round(bloom_cardinality(m.users))
           AS adding_a_day_already_in_is_a_no_op
FROM monthly_visitors AS m,
     (SELECT users FROM daily_visitors WHERE day = date '2026-11-30') AS d30;

\echo 'Returning visitors (on Nov 1 and on Nov 30) by inclusion-exclusion: |A| + |B| - |A u B|'
SELECT round(bloom_cardinality(a.users) + bloom_cardinality(b.users)
             - bloom_cardinality(a.users | b.users)) AS estimated_both_days,
       (SELECT count(*) FROM (SELECT user_id FROM events WHERE day = date '2026-11-01'
                              INTERSECT
                              SELECT user_id FROM events WHERE day = date '2026-11-30') AS i) AS exact_both_days
FROM daily_visitors AS a, daily_visitors AS b
WHERE a.day = date '2026-11-01' AND b.day = date '2026-11-30';

\echo
\echo '=== 4. False positives: measured on keys known to be absent, vs bloom_fpr(f) and the 1% asked for ==='
\echo 'User ids 10,000,001 .. 10,200,000 never occur.  bloom_fpr(f) predicts the rate from the fill;'
\echo 'a filter with spare capacity does better than 1%, an auto-sized bloom_agg(x) is sized for ~1%.'
CREATE TABLE filters AS
SELECT 'one day, capacity 250k' AS filter, 1 AS ord, users AS f
  FROM daily_visitors WHERE day = date '2026-11-15'
UNION ALL
SELECT 'month = union of 30 days', 2, users FROM monthly_visitors
UNION ALL
SELECT 'one day, bloom_agg(user_id)', 3, bloom_agg(user_id)
  FROM events WHERE day = date '2026-11-15'
UNION ALL
SELECT 'month, bloom_agg(user_id)', 4, bloom_agg(user_id) FROM events;

SELECT fl.filter,
       round(i.estimated_cardinality) AS keys,
       i.bits, i.hashes,
       round(i.fill_ratio::numeric, 3) AS fill,
       '1.000 %' AS requested,
       to_char(100 * bloom_fpr(fl.f), 'FM0.000') || ' %' AS bloom_fpr,
       to_char(100.0 * m.hits / 200000, 'FM0.000') || ' %' AS measured,
       m.hits AS false_hits_of_200k
FROM filters AS fl
CROSS JOIN LATERAL bloom_info(fl.f) AS i
CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE fl.f @> k) AS hits
                    FROM generate_series(10000001::bigint, 10200000) AS k) AS m
ORDER BY fl.ord;

\echo
\echo '=== 5. A malicious-URL list: test every request against 100,000 known-bad URLs ==='
CREATE TABLE blacklist AS
SELECT 'http://' || substr(md5('bad' || j), 1, 12) || '.evil.example/login' AS url
FROM generate_series(0, 99999) AS j;

CREATE TABLE url_filter AS
SELECT bloom_agg(url, 0.01) AS f FROM blacklist;

SELECT count(*) AS blacklisted_urls,
       pg_size_pretty(sum(octet_length(url))) AS raw_url_bytes,
       (SELECT pg_size_pretty(i.bytes::bigint)
          FROM url_filter, LATERAL bloom_info(f) AS i) AS filter_size
FROM blacklist;

\echo 'Every request is checked against the small filter; only the flagged ones need the exact,'
\echo 'slow lookup.  Missed must be 0.'
SELECT count(*) AS requests,
       count(*) FILTER (WHERE s.flagged) AS flagged_by_filter,
       count(*) FILTER (WHERE s.bad) AS really_malicious,
       count(*) FILTER (WHERE s.flagged AND NOT s.bad) AS false_alarms,
       count(*) FILTER (WHERE s.bad AND NOT s.flagged) AS missed,
       count(DISTINCT s.url) FILTER (WHERE s.flagged AND NOT s.bad) AS falsely_flagged_urls,
       to_char(100.0 * count(*) FILTER (WHERE s.flagged) / count(*), 'FM0.00') || ' %'
           AS share_needing_exact_check
FROM (SELECT e.url,
             (SELECT f FROM url_filter) @> e.url AS flagged,
             b.url IS NOT NULL AS bad
      FROM events AS e
      LEFT JOIN blacklist AS b USING (url)) AS s;

\echo
\echo '=== 6. Inside a filter: bloom_info(f) of the month filter, and the raw keys it stands for ==='
\x on
SELECT i.*,
       pg_size_pretty(i.bytes::bigint) AS filter_size,
       pg_size_pretty(8 * (SELECT count(DISTINCT user_id) FROM events)) AS raw_bigint_ids
FROM monthly_visitors AS m, LATERAL bloom_info(m.users) AS i;
\x off

\echo
\echo '=== 7. bloom_cardinality(f) versus count(DISTINCT ...) ==='
SELECT 'users, 2026-11-15' AS what,
       (SELECT round(bloom_cardinality(users)) FROM daily_visitors WHERE day = date '2026-11-15') AS estimated,
       (SELECT count(DISTINCT user_id) FROM events WHERE day = date '2026-11-15') AS exact
UNION ALL
SELECT 'users, whole month',
       (SELECT round(bloom_cardinality(users)) FROM monthly_visitors),
       (SELECT count(DISTINCT user_id) FROM events)
UNION ALL
SELECT 'distinct URLs requested',
       (SELECT round(bloom_cardinality(bloom_agg(url))) FROM events),
       (SELECT count(DISTINCT url) FROM events)
UNION ALL
SELECT 'blacklisted URLs',
       (SELECT round(bloom_cardinality(f)) FROM url_filter),
       (SELECT count(*) FROM blacklist);

\echo
\echo '=== 8. Keeping a filter up to date, and using it as a semi-join pre-filter ==='
\echo 'A late event for user 424242 on Nov 30: bloom_add returns a new filter (NULL adds nothing).'
SELECT users @> 424242::bigint AS before FROM daily_visitors WHERE day = date '2026-11-30';
UPDATE daily_visitors SET users = bloom_add(users, 424242::bigint) WHERE day = date '2026-11-30';
UPDATE daily_visitors SET users = bloom_add(users, NULL::bigint) WHERE day = date '2026-11-30';
SELECT users @> 424242::bigint AS after, users IS NOT NULL AS still_a_filter
FROM daily_visitors WHERE day = date '2026-11-30';

\echo 'Views on Nov 30 by users who were also here on Nov 1: one filter, read once, tested per row.'
SELECT count(*) FILTER (WHERE f.users @> e.user_id) AS filter_count,
       count(*) FILTER (WHERE e.user_id IN (SELECT user_id FROM events WHERE day = date '2026-11-01'))
           AS exact_count
FROM events AS e,
     (SELECT users FROM daily_visitors WHERE day = date '2026-11-01') AS f
WHERE e.day = date '2026-11-30';

\echo
\echo '=== 9. Sizing a filter before building it ==='
SELECT n AS capacity, p AS fpr,
       bloom_optimal_bits(n, p) AS bits,
       pg_size_pretty(bloom_optimal_bits(n, p) / 8) AS size,
       bloom_optimal_hashes(bloom_optimal_bits(n, p), n) AS hashes,
       to_char(100 * bloom_fpr_estimate(bloom_optimal_bits(n, p), n,
                                        bloom_optimal_hashes(bloom_optimal_bits(n, p), n)),
               'FM0.0000') || ' %' AS fpr_at_capacity
FROM (VALUES (200000::bigint, 0.01::float8), (200000, 0.001), (10000000, 0.01)) AS v(n, p);

\echo 'The classic approximation versus the exact rate (Bose et al.) for a small filter:'
SELECT bloom_fpr_estimate(9586, 1000, 7) AS approximation,
       bloom_fpr_exact(9586, 1000, 7) AS exact;

\echo
\echo 'Equal values hash equal, whatever their SQL type (bloomsketch_hash):'
SELECT bloomsketch_hash(42::smallint) = bloomsketch_hash(42::bigint) AS int2_eq_int8,
       bloomsketch_hash('shop'::text) = bloomsketch_hash('shop'::varchar) AS text_eq_varchar,
       bloomsketch_hash('shop'::char(8)) = bloomsketch_hash('shop'::text) AS bpchar_eq_text;

\echo
\echo '=== 10. How often was each page requested?  cms_agg counts, topk_agg finds the top pages ==='
\echo 'Page popularity is skewed (Zipf-like): a few product pages get most of the 2,000,000 hits.'
CREATE TABLE page_hits AS
SELECT day,
       'https://shop.example/p/' ||
       floor(exp(ln(50000) * power(((event_id * 2654435761) % 4294967296) / 4294967296.0, 3)))::int AS url
FROM events;

\echo 'One Count-Min sketch (eps 0.001, delta 0.01) and one top-10 sketch per day, in a rollup table:'
CREATE TABLE daily_hits AS
SELECT day, cms_agg(url) AS hits, topk_agg(url, 10) AS top FROM page_hits GROUP BY day;
SELECT pg_size_pretty(avg(pg_column_size(hits))) AS cms_size, pg_size_pretty(avg(pg_column_size(top))) AS topk_size,
       (SELECT pg_size_pretty(sum(pg_column_size(url))::bigint / 30) FROM page_hits) AS raw_urls_per_day
FROM daily_hits;

\echo 'Nov 5: estimated hits (hits -> url) of every page seen that day versus the exact count.'
\echo 'An estimate is never below the truth, and above truth + eps*N for at most 1% of pages (delta).'
WITH exact AS (SELECT url, count(*) AS n FROM page_hits WHERE day = date '2026-11-05' GROUP BY url),
     est AS (SELECT e.url, e.n, d.hits -> e.url AS f, cms_error_bound(d.hits) AS bound
             FROM exact AS e, daily_hits AS d WHERE d.day = date '2026-11-05')
SELECT count(*) AS pages, max(bound)::int AS error_bound_eps_n,
       count(*) FILTER (WHERE f < n) AS below_truth,
       count(*) FILTER (WHERE f > n + bound) AS over_bound,
       count(*) FILTER (WHERE f = n) AS exact_estimates,
       max(f - n) AS largest_over_estimate
FROM est;

\echo 'The month: roll the days up with cms_union_agg (exact: the sum of the days is the sketch of the month):'
SELECT cms_total(m) AS hits_in_month,
       m -> 'https://shop.example/p/1'::text AS estimate_p1,
       (SELECT count(*) FROM page_hits WHERE url = 'https://shop.example/p/1') AS exact_p1
FROM (SELECT cms_union_agg(hits) AS m FROM daily_hits) AS s;

\echo 'Top 10 pages of the month from topk_union_agg over the 30 daily sketches, next to the exact ranking:'
WITH est AS (SELECT row_number() OVER () AS rank, value AS url, frequency
             FROM topk_items((SELECT topk_union_agg(top) FROM daily_hits))),
     exact AS (SELECT row_number() OVER (ORDER BY count(*) DESC, url) AS rank, url, count(*) AS n
               FROM page_hits GROUP BY url ORDER BY n DESC, url LIMIT 10)
SELECT est.rank, est.url AS sketch_url, est.frequency AS sketch_hits, exact.url AS exact_url, exact.n AS exact_hits
FROM est JOIN exact USING (rank) ORDER BY rank;

\echo
\echo '=== 11. A 7-day window of active users that slides: the counting filter cbloom ==='
\echo 'One counting filter per day of the users active that day, in two widths: 4-bit counters (the'
\echo 'default, 1.2 MB) and 8-bit ones (2.4 MB).  The window Nov 1-7 is their sum (+); each step adds'
\echo 'the newest day and subtracts (-) the oldest, which a plain Bloom filter cannot do.  23 steps'
\echo 'take the window to Nov 24-30.'
CREATE TABLE daily_active AS
SELECT day, cbloom_agg(user_id, 250000, 0.01) AS users4, cbloom_agg(user_id, 250000, 0.01, 8) AS users8
FROM (SELECT DISTINCT day, user_id FROM events) AS s GROUP BY day;
CREATE TABLE active_window AS
SELECT date '2026-11-01' AS first_day, cbloom_union_agg(users4) AS users4, cbloom_union_agg(users8) AS users8
FROM daily_active WHERE day < date '2026-11-08';
DO $$
BEGIN
  FOR i IN 1..23 LOOP
    UPDATE active_window AS w
    SET users4 = w.users4 + n.users4 - o.users4, users8 = w.users8 + n.users8 - o.users8,
        first_day = w.first_day + 1
    FROM daily_active AS n, daily_active AS o
    WHERE n.day = w.first_day + 7 AND o.day = w.first_day;
  END LOOP;
END $$;
\echo 'A regular visitor adds 7 to each of its counters per window, so 4-bit counters (at most 15)'
\echo 'saturate where regulars collide.  Saturated counters never go down: the slid 4-bit window keeps'
\echo 'them and is not byte-identical to one rebuilt from its 7 days, yet it loses no user.  The'
\echo '8-bit window never saturates here and equals the rebuilt one exactly.'
SELECT bits, w.first_day, w.first_day + 6 AS last_day, f = r AS same_as_rebuilt,
       (cbloom_info(f)).counters_saturated AS saturated, (cbloom_info(f)).bytes,
       (cbloom_info(f)).estimated_cardinality::int AS estimated_users,
       (SELECT count(DISTINCT user_id) FROM events WHERE day >= date '2026-11-24') AS exact_users
FROM active_window AS w,
     LATERAL (VALUES (4, w.users4, (SELECT cbloom_union_agg(users4) FROM daily_active WHERE day >= date '2026-11-24')),
                     (8, w.users8, (SELECT cbloom_union_agg(users8) FROM daily_active WHERE day >= date '2026-11-24')))
         AS v(bits, f, r)
ORDER BY bits;
\echo 'Active in the window?  1,000 users active in it, 1,000 last seen before Nov 24.'
\echo 'false_no must be 0; false_yes is the filter''s false-positive rate at work.'
WITH inside AS (SELECT DISTINCT user_id FROM events WHERE day >= date '2026-11-24' ORDER BY user_id LIMIT 1000),
     gone AS (SELECT user_id FROM events GROUP BY user_id
              HAVING max(day) < date '2026-11-24' ORDER BY user_id LIMIT 1000)
SELECT (SELECT count(*) FROM inside, active_window AS w WHERE NOT w.users4 @> inside.user_id) AS false_no_4bit,
       (SELECT count(*) FROM inside, active_window AS w WHERE NOT w.users8 @> inside.user_id) AS false_no_8bit,
       (SELECT count(*) FROM gone, active_window AS w WHERE w.users4 @> gone.user_id) AS false_yes_4bit,
       (SELECT count(*) FROM gone, active_window AS w WHERE w.users8 @> gone.user_id) AS false_yes_8bit,
       (SELECT round((1000 * (cbloom_info(users8)).estimated_fpr)::numeric, 2) FROM active_window) AS expected_false_yes;
\echo 'cbloom_count(f, user) bounds the number of days in the window a user was active (8-bit window):'
SELECT e.user_id, cbloom_count((SELECT users8 FROM active_window), e.user_id) AS days_estimate,
       count(DISTINCT e.day) AS days_exact
FROM events AS e
WHERE e.day >= date '2026-11-24'
  AND (e.user_id IN (7, 20001)
       OR e.user_id IN (SELECT user_id FROM events WHERE day >= date '2026-11-24' ORDER BY user_id DESC LIMIT 2))
GROUP BY e.user_id ORDER BY e.user_id;

\echo
\echo 'Done.'
