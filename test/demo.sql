-- test/demo.sql: a short tour of bloomsketch on generated data (run by test/demo.sh).
--
--   psql -X -v ON_ERROR_STOP=1 -f test/demo.sql
--
-- The story: one month (November 2026) of the access log of a caching web proxy, 2,000,000
-- requests, generated deterministically from hashes of generate_series (hashint8extended and
-- md5, no random()), so every run prints the same numbers.  Each sketch answers a question the
-- proxy has, and every answer is printed next to the exact answer of plain SQL.  About a minute
-- or less, the data generation included.

\set QUIET on
\set ON_ERROR_STOP on
\pset pager off
SET client_min_messages = warning;
SET work_mem = '64MB';
SET jit = off;                             -- short queries: compiling them costs more than it saves

CREATE EXTENSION bloomsketch;

-- Helpers of the generator.  u(i, stream): a uniform number in [0, 1) from a hash of i.
CREATE FUNCTION u(i bigint, stream bigint) RETURNS double precision
    IMMUTABLE PARALLEL SAFE LANGUAGE sql
    AS $$ SELECT (hashint8extended(i, stream) & 9007199254740991) / 9007199254740992.0::float8 $$;
-- The URL of popularity rank r (1 = the most requested): 20,000 sites, their home pages first.
CREATE FUNCTION page_url(r bigint) RETURNS text
    IMMUTABLE PARALLEL SAFE LANGUAGE sql
    AS $$ SELECT 'https://www.site' || (1 + r * 7919 % 20000)::text || '.example/'
                 || CASE WHEN r <= 20000 THEN '' ELSE 'p/' || to_hex(r * 2654435761 % 4294967296) END $$;
-- The j-th URL of a threat feed of malicious (phishing, malware) URLs.
CREATE FUNCTION bad_url(j bigint) RETURNS text
    IMMUTABLE PARALLEL SAFE LANGUAGE sql
    AS $$ SELECT 'http://' || substr(md5('bad' || j::text), 1, 10) || '.'
                 || (ARRAY['com', 'net', 'xyz', 'top', 'info'])[1 + j % 5] || '/'
                 || (ARRAY['login', 'verify-account', 'invoice.zip', 'wp-admin/x.php'])[1 + j / 5 % 4] $$;

\echo
\echo '=== 0. The data: a month of a web proxy''s access log, 2,000,000 requests ==='
\echo 'Users browse in sessions of 6 requests; 40% of the sessions are by 10,000 regulars, the rest'
\echo 'by a long tail of 300,000 occasional users.  Traffic follows the clock (quiet nights, an'
\echo 'evening peak, lighter weekends).  URL popularity is Zipf-like over 1,000,000 URLs of 20,000'
\echo 'sites: a few home pages get a large share, most URLs are requested once or twice.  1 request'
\echo 'in 500 goes to a URL of a threat feed of 200,000 known-malicious URLs.'

CREATE UNLOGGED TABLE requests AS          -- UNLOGGED: throwaway demo data, no WAL needed
WITH cdf AS (                              -- cumulative weights of the days and of the hours
    SELECT (SELECT array_agg(c ORDER BY d) FROM (
                SELECT d, sum(w) OVER (ORDER BY d) / sum(w) OVER () AS c
                FROM (SELECT d, CASE WHEN extract(isodow FROM date '2026-11-01' + d) >= 6
                                     THEN 0.75 ELSE 1.0 END::float8 AS w
                      FROM generate_series(0, 29) AS d) AS x) AS y) AS days,
           (SELECT array_agg(c ORDER BY h) FROM (
                SELECT h, sum(w) OVER (ORDER BY h) / sum(w) OVER () AS c
                FROM unnest('{1.6,1.0,0.7,0.5,0.5,0.7,1.2,2.2,3.4,4.2,4.5,4.7,
                              5.0,4.8,4.6,4.6,4.7,4.9,5.3,5.9,6.4,6.2,4.9,3.0}'::float8[])
                     WITH ORDINALITY AS t(w, h)) AS y) AS hours
), g AS (
    SELECT id,
           date '2026-11-01' + width_bucket(u(s, 1), cdf.days)       -- the session's day,
             + width_bucket(u(s, 2), cdf.hours) * interval '1 hour'    -- hour
             + floor(3600 * u(s, 3)) * interval '1 second'             -- and start;
             + ((id - 1) % 6 * 40 + floor(40 * u(id, 6))) * interval '1 second' AS ts,  -- the request
           CASE WHEN u(s, 4) < 0.4 THEN 1 + floor(10000 * u(s, 5))
                ELSE 10001 + floor(300000 * u(s, 5)) END::bigint AS user_id,
           u(id, 7) < 0.002 AS to_bad,
           floor(exp(u(id, 8) * ln(1000001)))::bigint AS r,             -- Zipf: P(r) ~ 1/r
           floor(exp(u(id, 8) * ln(200001)))::bigint AS j
    FROM cdf, (SELECT id, (id - 1) / 6 AS s FROM generate_series(1::bigint, 2000000) AS id) AS i
    OFFSET 0                               -- keeps page_url() and bad_url() inlined
)
SELECT id, ts::date AS day, ts, user_id,
       CASE WHEN to_bad THEN bad_url(j) ELSE page_url(r) END AS url
FROM (SELECT id, user_id, to_bad, r, j,     -- a session running past midnight on Nov 30 wraps to Nov 1
             CASE WHEN ts >= date '2026-12-01' THEN ts - interval '30 days' ELSE ts END AS ts
      FROM g) AS g;

-- the exact answers, to compare with (a real system would not keep these)
CREATE UNLOGGED TABLE exact_url_hits AS SELECT url, count(*) AS hits FROM requests GROUP BY url;
CREATE UNLOGGED TABLE exact_daily_users AS SELECT DISTINCT day, user_id FROM requests;
ANALYZE requests;
ANALYZE exact_url_hits;
ANALYZE exact_daily_users;

SELECT (SELECT count(*) FROM requests) AS requests,
       (SELECT count(DISTINCT user_id) FROM exact_daily_users) AS users,
       count(*) AS distinct_urls,
       count(*) FILTER (WHERE hits = 1) AS urls_requested_once,
       (SELECT sum(hits) FROM (SELECT hits FROM exact_url_hits ORDER BY hits DESC LIMIT 10) AS t)
           AS requests_to_top_10_urls
FROM exact_url_hits;

\echo 'Requests by hour of day, over the month:'
SELECT to_char(h, 'FM00') || 'h-' || to_char(h + 2, 'FM00') || 'h' AS hours, count(*) AS requests,
       repeat('#', (count(*) / 8000)::int) AS bar
FROM (SELECT extract(hour FROM ts)::int / 2 * 2 AS h FROM requests) AS t
GROUP BY h ORDER BY h;

\echo
\echo '=== 1. A malicious-URL list: check every request against 200,000 known-bad URLs ==='
\echo 'The threat feed goes into one Bloom filter, bloom_agg(url, 0.01), sized for the number of'
\echo 'URLs it holds at a 1% false-positive rate: small enough to keep in the proxy''s memory.'
\echo 'filter @> url answers for each request: "no" is certain, "yes" means "check the exact list".'
CREATE UNLOGGED TABLE threat_feed AS SELECT bad_url(j) AS url FROM generate_series(1, 200000) AS j;
ANALYZE threat_feed;
CREATE TABLE threat_filter AS SELECT bloom_agg(url, 0.01) AS f FROM threat_feed;

SELECT (SELECT count(*) FROM threat_feed) AS listed_urls,
       pg_size_pretty((SELECT sum(octet_length(url)) FROM threat_feed)) AS url_text,
       pg_size_pretty(pg_table_size('threat_feed')) AS list_as_table,
       pg_size_pretty(i.bytes::bigint) AS bloom_filter,
       round(8.0 * i.bytes / (SELECT count(*) FROM threat_feed), 1) AS bits_per_url,
       i.hashes
FROM threat_filter AS t, LATERAL bloom_info(t.f) AS i;

\echo 'All 2,000,000 requests: the filter versus the exact join with the list.  Every request to a'
\echo 'listed URL is flagged (a Bloom filter has no false negatives).  A false positive is a URL, so'
\echo 'a popular URL that happens to be one is flagged on each of its requests.'
SELECT v.* FROM (
    SELECT count(*) FILTER (WHERE flagged) AS flagged, count(*) FILTER (WHERE listed) AS listed,
           count(*) FILTER (WHERE listed AND NOT flagged) AS missed,
           count(DISTINCT url) FILTER (WHERE flagged) AS flagged_urls,
           count(DISTINCT url) FILTER (WHERE listed) AS listed_urls,
           count(DISTINCT url) FILTER (WHERE listed AND NOT flagged) AS missed_urls
    FROM (SELECT r.url, (SELECT f FROM threat_filter) @> r.url AS flagged, b.url IS NOT NULL AS listed
          FROM requests AS r LEFT JOIN threat_feed AS b USING (url)) AS checked) AS c,
LATERAL (VALUES ('requests', c.flagged, c.listed, c.flagged - c.listed, c.missed,
                 to_char(100.0 * c.flagged / 2000000, 'FM0.00') || ' %'),
                ('distinct URLs', c.flagged_urls, c.listed_urls, c.flagged_urls - c.listed_urls,
                 c.missed_urls, NULL)) AS v(counted, filter_says, exact_join, false_positives,
                                            false_negatives, sent_to_exact_check);

\echo 'The false-positive rate: the share of the requested URLs that are not listed but flagged,'
\echo 'next to bloom_fpr(f), the rate the filter predicts from its fill, and the 1% asked for:'
SELECT count(*) AS clean_urls_tested,
       count(*) FILTER (WHERE flagged) AS false_positives,
       to_char(100.0 * count(*) FILTER (WHERE flagged) / count(*), 'FM0.000') || ' %' AS measured,
       (SELECT to_char(100 * bloom_fpr(f), 'FM0.000') || ' %' FROM threat_filter) AS bloom_fpr,
       '1 %' AS asked
FROM (SELECT (SELECT f FROM threat_filter) @> e.url AS flagged
      FROM exact_url_hits AS e
      WHERE NOT EXISTS (SELECT FROM threat_feed AS b WHERE b.url = e.url)) AS clean;

\echo
\echo '=== 2. Cache admission: keep one-hit wonders out of the cache ==='
\echo 'Most URLs are requested once in a day and not again: "one-hit wonders".  Caching them costs'
\echo 'a disk write and cache space for nothing.  The classic rule (Akamai''s): cache a URL on its'
\echo 'second request of the day only.  To know which URLs were requested before, the proxy keeps a'
\echo 'Bloom filter of them instead of the URLs: bloom_empty(40000, 0.01), 47 KB, emptied every'
\echo 'midnight.  A false positive lets a one-hit wonder in (one write too many); a URL requested'
\echo 'again is never kept out.  For the week of Nov 16 to 22: the filter as it was before each'
\echo 'request (a running bloom_agg(url, 40000, 0.01) OVER (... ORDER BY ts)) versus the exact rule.'
CREATE TEMP TABLE cache_week AS
WITH r AS (
    SELECT day, url,
           bloom_agg(url, 40000, 0.01) OVER (PARTITION BY day ORDER BY ts, id
                                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS seen,
           count(*) OVER (PARTITION BY day, url) AS n
    FROM requests WHERE day BETWEEN date '2026-11-16' AND date '2026-11-22'
)
SELECT day, url, min(n) AS n,                                    -- requests of the URL that day
       coalesce(bool_or(seen @> url), false) AS admitted,       -- the filter said "seen before"
       sum(bloom_fpr(seen)) FILTER (WHERE n = 1) AS fp_chance    -- its false-positive rate then
FROM r GROUP BY day, url;

\echo 'Cache writes per day, admitting every URL and with the filter, and the writes the filter'
\echo 'avoids next to the exact number of one-hit wonders (what the exact rule avoids).  The error'
\echo 'is the false admissions, next to the number expected from bloom_fpr at each request;'
\echo 'repeats_kept_out (URLs requested again but never admitted) must be 0.'
SELECT coalesce(to_char(day, 'Dy Mon DD'), 'the week') AS date,
       count(*) AS writes_admit_all,
       count(*) FILTER (WHERE admitted) AS writes_filter,
       count(*) FILTER (WHERE NOT admitted) AS avoided,
       count(*) FILTER (WHERE n = 1) AS one_hit_wonders,
       count(*) FILTER (WHERE admitted AND n = 1) AS false_admits,
       round(sum(fp_chance)::numeric, 1) AS expected,
       count(*) FILTER (WHERE NOT admitted AND n >= 2) AS repeats_kept_out
FROM cache_week GROUP BY ROLLUP (day) ORDER BY day NULLS LAST;

SELECT to_char(100.0 * count(*) FILTER (WHERE n = 1) / count(*), 'FM90.0') || ' %' AS one_hit_wonder_share,
       to_char(100.0 * (1 - count(*) FILTER (WHERE admitted)::numeric / count(*)), 'FM90.0') || ' %'
           AS writes_saved_by_filter,
       pg_size_pretty((bloom_info(bloom_empty(40000, 0.01))).bytes::bigint) AS filter_size,
       pg_size_pretty(max(url_bytes)) AS busiest_day_url_list
FROM cache_week,
     (SELECT max(b) AS url_bytes FROM (SELECT sum(octet_length(url)) AS b FROM cache_week GROUP BY day) AS d) AS s;

\echo
\echo '=== 3. Daily users: one Bloom filter per day in a rollup table, rolled up by OR ==='
\echo 'bloom_agg(user_id, 200000, 0.01): the same shape every day (sized for the month''s users),'
\echo 'so that days merge with bloom_union_agg into weeks and the month, without the log.'
CREATE TABLE daily_visitors AS
SELECT day, count(*) AS requests, bloom_agg(user_id, 200000, 0.01) AS users
FROM requests GROUP BY day;

\echo 'The first week, day by day: distinct users estimated by bloom_cardinality(users) versus'
\echo 'count(DISTINCT user_id):'
SELECT to_char(d.day, 'Dy Mon DD') AS day, d.requests,
       round(bloom_cardinality(d.users)) AS estimated_users,
       x.exact_users,
       to_char(100 * (bloom_cardinality(d.users) / x.exact_users - 1), 'FMS0.00') || ' %' AS error,
       pg_size_pretty(pg_column_size(d.users)::bigint) AS filter_size
FROM daily_visitors AS d
JOIN (SELECT day, count(*) AS exact_users FROM exact_daily_users GROUP BY day) AS x USING (day)
WHERE d.day < date '2026-11-08' ORDER BY d.day;

\echo 'Weeks and the month, from the 30 daily filters only (bloom_union_agg ORs them):'
CREATE TABLE weekly_visitors AS
SELECT min(day) AS first_day, max(day) AS last_day, bloom_union_agg(users) AS users
FROM daily_visitors GROUP BY (day - date '2026-11-01') / 7;
CREATE TABLE periods AS
SELECT first_day, last_day, users FROM weekly_visitors
UNION ALL
SELECT date '2026-11-01', date '2026-11-30', bloom_union_agg(users) FROM daily_visitors;

SELECT p.first_day, p.last_day,
       round(bloom_cardinality(p.users)) AS estimated_users,
       x.exact_users,
       to_char(100 * (bloom_cardinality(p.users) / x.exact_users - 1), 'FMS0.00') || ' %' AS error,
       to_char(100 * bloom_fpr(p.users), 'FM0.000') || ' %' AS bloom_fpr
FROM periods AS p
CROSS JOIN LATERAL (SELECT count(DISTINCT user_id) AS exact_users FROM exact_daily_users
                    WHERE day BETWEEN p.first_day AND p.last_day) AS x
ORDER BY p.last_day - p.first_day > 7, p.first_day;

\echo 'Was user X here?  users @> X in each week''s filter (Y = yes; weeks of Nov 1, 8, 15, 22, 29)'
\echo 'and in the month''s, next to the log.  10948 never came: the month filter''s "yes" is a false'
\echo 'positive; a "no" is always right.'
SELECT x.user_id,
       string_agg(CASE WHEN p.users @> x.user_id THEN 'Y' ELSE '.' END, ' ' ORDER BY p.first_day)
           FILTER (WHERE p.last_day - p.first_day < 7) AS weeks_filter,
       string_agg(CASE WHEN e.days > 0 THEN 'Y' ELSE '.' END, ' ' ORDER BY p.first_day)
           FILTER (WHERE p.last_day - p.first_day < 7) AS weeks_exact,
       bool_or(p.users @> x.user_id) FILTER (WHERE p.last_day - p.first_day > 7) AS month_filter,
       bool_or(e.days > 0) FILTER (WHERE p.last_day - p.first_day > 7) AS month_exact
FROM (VALUES (42::bigint), (100001), (100005), (100004), (10948)) AS x(user_id)
CROSS JOIN periods AS p
CROSS JOIN LATERAL (SELECT count(*) AS days FROM exact_daily_users AS e
                    WHERE e.user_id = x.user_id AND e.day BETWEEN p.first_day AND p.last_day) AS e
GROUP BY x.user_id ORDER BY x.user_id;

\echo 'The same question for 31,000 user ids (every 10th) in every week and the month: false_no is'
\echo '0; false "yes" answers come at the rate bloom_fpr(f) predicts from the filter''s fill, which'
\echo 'grows as days are ORed in (a week holds 53,000 users, the month 156,000).'
WITH exact AS (
    SELECT DISTINCT p.first_day, p.last_day, e.user_id
    FROM periods AS p JOIN exact_daily_users AS e ON e.day BETWEEN p.first_day AND p.last_day
    WHERE e.user_id % 10 = 1
), q AS (
    SELECT p.first_day, p.last_day, p.fpr, s.filter_yes, x.user_id IS NOT NULL AS exact_yes
    FROM (SELECT *, bloom_fpr(users) AS fpr FROM periods OFFSET 0) AS p     -- bloom_fpr once a period
    CROSS JOIN LATERAL (SELECT user_id, p.users @> user_id AS filter_yes      -- one period at a time
                        FROM generate_series(1::bigint, 310000, 10) AS user_id OFFSET 0) AS s
    LEFT JOIN exact AS x ON (x.first_day, x.last_day, x.user_id) = (p.first_day, p.last_day, s.user_id)
)
SELECT first_day, last_day, count(*) AS questions,
       count(*) FILTER (WHERE filter_yes) AS filter_yes,
       count(*) FILTER (WHERE exact_yes) AS exact_yes,
       count(*) FILTER (WHERE filter_yes AND NOT exact_yes) AS false_yes,
       round((sum(fpr) FILTER (WHERE NOT exact_yes))::numeric, 1) AS expected_false_yes,
       count(*) FILTER (WHERE exact_yes AND NOT filter_yes) AS false_no
FROM q GROUP BY first_day, last_day ORDER BY last_day - first_day > 7, first_day;

\echo
\echo '=== 4. Hits per URL: one Count-Min sketch per day, cms_agg(url) ==='
\echo 'hits -> url estimates the requests of a URL: never below the truth, and with probability 99%'
\echo '(delta = 0.01) at most epsilon * N above it, N being the requests counted (epsilon = 0.001).'
\echo 'The daily sketches, and a top-10 sketch per day for section 5, go into a rollup table; the'
\echo 'month is their sum, cms_union_agg (exact: the sum of the days is the sketch of the month).'
CREATE TABLE daily_hits AS
SELECT day, cms_agg(url) AS hits, topk_agg(url, 10) AS top FROM requests GROUP BY day;
CREATE TABLE monthly_hits AS
SELECT cms_union_agg(hits) AS hits, topk_union_agg(top) AS top FROM daily_hits;

SELECT pg_size_pretty(avg((cms_info(hits)).bytes)) AS cms_per_day,
       pg_size_pretty(avg((topk_info(top)).bytes)) AS topk_per_day,
       pg_size_pretty((SELECT sum(octet_length(url) + 8) FROM exact_url_hits)) AS exact_counts_of_month
FROM daily_hits;

\echo 'The month: URLs of every popularity rank, estimate versus count(*):'
SELECT e.rank, e.url, m.hits -> e.url AS estimate, e.hits AS exact, (m.hits -> e.url) - e.hits AS error,
       round(cms_error_bound(m.hits)) AS epsilon_n
FROM monthly_hits AS m,
     (SELECT url, hits, row_number() OVER (ORDER BY hits DESC, url) AS rank FROM exact_url_hits) AS e
WHERE e.rank IN (1, 10, 100, 1000, 10000, 100000)
ORDER BY e.rank;

\echo 'All URLs requested in the month: none below its count, none above count + epsilon * N:'
SELECT count(*) AS urls,
       (SELECT cms_total(hits) FROM monthly_hits) AS n,
       round(max(bound)) AS epsilon_n,
       count(*) FILTER (WHERE estimate < exact) AS below_exact,
       count(*) FILTER (WHERE estimate > exact + bound) AS above_exact_plus_eps_n,
       round(avg(estimate - exact), 1) AS mean_error,
       max(estimate - exact) AS max_error
FROM (SELECT (SELECT hits FROM monthly_hits) -> e.url AS estimate, e.hits AS exact,
             (SELECT cms_error_bound(hits) FROM monthly_hits) AS bound
      FROM exact_url_hits AS e) AS c;

\echo
\echo '=== 5. The top 10 URLs of the month: topk_union_agg of the daily top-10 sketches ==='
\echo 'topk_items_bounds(top) lists them, most requested first, each count with a lower and an'
\echo 'upper bound that always hold (equal bounds: an exact count); next to them the exact ranking'
\echo '(count(*) per URL, ORDER BY count(*) DESC LIMIT 10).'
SELECT t.rank, t.url AS topk_url, t.hits AS topk_hits, t.lower_bound, t.upper_bound,
       x.url AS exact_url, x.hits AS exact_hits, t.hits - x.hits AS error
FROM (SELECT n AS rank, value AS url, frequency AS hits, lower_bound, upper_bound
      FROM topk_items_bounds((SELECT top FROM monthly_hits)) WITH ORDINALITY AS i(value, frequency, lower_bound, upper_bound, n)) AS t
JOIN (SELECT row_number() OVER (ORDER BY hits DESC, url) AS rank, url, hits
      FROM (SELECT url, hits FROM exact_url_hits ORDER BY hits DESC, url LIMIT 10) AS q) AS x
  USING (rank)
ORDER BY t.rank;

\echo
\echo '=== 6. Users active in the last 7 days, sliding day by day: counting Bloom filters (cbloom) ==='
\echo 'A Bloom filter cannot forget a day; a counting filter can.  One cbloom_agg per day (8-bit'
\echo 'counters: a user active on 7 days adds 7 to its counters), the window Nov 1-7 is their sum'
\echo '(+), and every day the newest day is added and the oldest subtracted (-): 23 steps take the'
\echo 'window to Nov 24-30.  It equals the window rebuilt from its 7 days, byte for byte.'
CREATE TABLE daily_active AS
SELECT day, cbloom_agg(user_id, 200000, 0.01, 8) AS users FROM exact_daily_users GROUP BY day;
CREATE TABLE active_window AS
SELECT date '2026-11-01' AS first_day, cbloom_union_agg(users) AS users
FROM daily_active WHERE day < date '2026-11-08';
DO $$
BEGIN
  FOR i IN 1..23 LOOP
    UPDATE active_window AS w
    SET users = w.users + n.users - o.users, first_day = w.first_day + 1
    FROM daily_active AS n, daily_active AS o
    WHERE n.day = w.first_day + 7 AND o.day = w.first_day;
  END LOOP;
END $$;

SELECT w.first_day, w.first_day + 6 AS last_day,
       w.users = (SELECT cbloom_union_agg(users) FROM daily_active WHERE day >= w.first_day)
           AS same_as_rebuilt,
       round((cbloom_info(w.users)).estimated_cardinality) AS estimated_users,
       (SELECT count(DISTINCT user_id) FROM exact_daily_users WHERE day >= w.first_day) AS exact_users,
       pg_size_pretty(pg_column_size(w.users)::bigint) AS size
FROM active_window AS w;

\echo 'Active in the window?  Asked for every user of the month; false_no must be 0:'
SELECT count(*) AS users,
       count(*) FILTER (WHERE filter_yes) AS filter_yes,
       count(*) FILTER (WHERE exact_yes) AS exact_yes,
       count(*) FILTER (WHERE filter_yes AND NOT exact_yes) AS false_yes,
       round((count(*) FILTER (WHERE NOT exact_yes)
              * (SELECT (cbloom_info(users)).estimated_fpr FROM active_window))::numeric, 1) AS expected_false_yes,
       count(*) FILTER (WHERE exact_yes AND NOT filter_yes) AS false_no
FROM (SELECT (SELECT users FROM active_window) @> user_id AS filter_yes,
             max(day) >= (SELECT first_day FROM active_window) AS exact_yes
      FROM exact_daily_users GROUP BY user_id) AS u;

\echo
\echo '=== 7. Hits per URL over the last 7 days, sliding day by day: cms_subtract ==='
\echo 'The daily Count-Min sketches of section 4 make a 7-day window: the sum of Nov 1-7 (+), and'
\echo 'every day the newest day added and the oldest subtracted (-, cms_subtract), 23 steps to'
\echo 'Nov 24-30.  Subtraction is exact (the sketch of a+b less that of b is the sketch of a), so the'
\echo 'window equals the sum of its 7 days, byte for byte, and keeps the Count-Min guarantee.'
CREATE TABLE hits_window AS
SELECT date '2026-11-01' AS first_day, cms_union_agg(hits) AS hits
FROM daily_hits WHERE day < date '2026-11-08';
DO $$
BEGIN
  FOR i IN 1..23 LOOP
    UPDATE hits_window AS w
    SET hits = w.hits + n.hits - o.hits, first_day = w.first_day + 1
    FROM daily_hits AS n, daily_hits AS o
    WHERE n.day = w.first_day + 7 AND o.day = w.first_day;
  END LOOP;
END $$;
CREATE UNLOGGED TABLE exact_window_hits AS
SELECT url, count(*) AS hits FROM requests
WHERE day >= (SELECT first_day FROM hits_window) GROUP BY url;

SELECT w.first_day, w.first_day + 6 AS last_day,
       w.hits = (SELECT cms_union_agg(hits) FROM daily_hits WHERE day >= w.first_day) AS same_as_rebuilt,
       cms_total(w.hits) AS n, (SELECT sum(hits) FROM exact_window_hits) AS exact_requests
FROM hits_window AS w;

\echo 'The window: URLs of every popularity rank, estimate versus count(*) over Nov 24-30:'
SELECT e.rank, e.url, w.hits -> e.url AS estimate, e.hits AS exact, (w.hits -> e.url) - e.hits AS error,
       round(cms_error_bound(w.hits)) AS epsilon_n
FROM hits_window AS w,
     (SELECT url, hits, row_number() OVER (ORDER BY hits DESC, url) AS rank FROM exact_window_hits) AS e
WHERE e.rank IN (1, 10, 100, 1000, 10000)
ORDER BY e.rank;

\echo 'All URLs requested in the month against their count in the window (0 for a URL requested only'
\echo 'before Nov 24): none below it, none above it + epsilon * N, the N of the window:'
SELECT count(*) AS urls,
       count(*) FILTER (WHERE estimate < exact) AS below_exact,
       count(*) FILTER (WHERE estimate > exact + bound) AS above_exact_plus_eps_n,
       round(avg(estimate - exact), 1) AS mean_error,
       max(estimate - exact) AS max_error
FROM (SELECT (SELECT hits FROM hits_window) -> e.url AS estimate, coalesce(x.hits, 0) AS exact,
             (SELECT cms_error_bound(hits) FROM hits_window) AS bound
      FROM exact_url_hits AS e LEFT JOIN exact_window_hits AS x USING (url)) AS c;

\echo
\echo '=== 8. Every user ever seen: a growable filter fed day by day ==='
\echo 'A filter kept for good ("has this user ever been here?") does not know how many users will'
\echo 'come.  bloom_empty(10000, 0.01, growth => 2) starts with a stage for 10,000 users; each time'
\echo 'the last stage is full, the next new user opens a stage for twice as many at half the rate,'
\echo 'so the expected rate stays below 1% however many come.  Each night the day''s users go in with one'
\echo 'bloom_add_all(users, array).  Beside it, a fixed bloom_empty(10000, 0.01) fed the same way.'
CREATE TABLE ever_seen AS
SELECT bloom_empty(10000, 0.01, growth => 2) AS users, bloom_empty(10000, 0.01) AS fixed_users;
CREATE TABLE ever_seen_log (day date, stages int, bytes int, fixed_bytes int, estimated_users float8,
                            exact_users bigint, fpr float8, fixed_fpr float8);
DO $$
DECLARE d date;
BEGIN
  FOR d IN SELECT DISTINCT day FROM exact_daily_users ORDER BY day LOOP
    UPDATE ever_seen
    SET users = bloom_add_all(users, a.ids), fixed_users = bloom_add_all(fixed_users, a.ids)
    FROM (SELECT array_agg(user_id ORDER BY user_id) AS ids FROM exact_daily_users WHERE day = d) AS a;
    INSERT INTO ever_seen_log
    SELECT d, i.stages, i.bytes, (bloom_info(fixed_users)).bytes, i.estimated_cardinality,
           (SELECT count(DISTINCT user_id) FROM exact_daily_users WHERE day <= d),
           i.estimated_fpr, bloom_fpr(fixed_users)
    FROM ever_seen, bloom_info(users) AS i;
  END LOOP;
END $$;

SELECT to_char(day, 'Mon DD') AS day, exact_users AS users_so_far, round(estimated_users) AS estimated,
       stages, pg_size_pretty(bytes::bigint) AS size,
       to_char(100 * fpr, 'FM0.000') || ' %' AS bloom_fpr,
       to_char(100 * fixed_fpr, 'FM990.000') || ' %' AS fixed_filter_fpr
FROM ever_seen_log
WHERE day IN (date '2026-11-01', date '2026-11-02', date '2026-11-03', date '2026-11-07',
              date '2026-11-14', date '2026-11-30')
ORDER BY day;

\echo 'Its stages at the end of the month:'
SELECT stage, capacity, target_fpr, keys, hashes, pg_size_pretty(((bits + 7) / 8)::bigint) AS size
FROM ever_seen, bloom_stages(users);

\echo 'Every user of the month asked (false_no must be 0), and 200,000 ids that never came (user ids'
\echo 'are below 400,000): the false positives measured, next to bloom_fpr, for both filters:'
SELECT (SELECT count(*) FROM (SELECT DISTINCT user_id FROM exact_daily_users) AS u
        WHERE NOT s.users @> u.user_id) AS false_no,
       to_char(100 * (SELECT count(*) FROM generate_series(1000000, 1199999) AS i
                      WHERE s.users @> i::bigint) / 200000.0, 'FM0.000') || ' %' AS measured_fpr,
       to_char(100 * bloom_fpr(s.users), 'FM0.000') || ' %' AS bloom_fpr,
       to_char(100 * (SELECT count(*) FROM generate_series(1000000, 1199999) AS i
                      WHERE s.fixed_users @> i::bigint) / 200000.0, 'FM990.000') || ' %' AS fixed_measured_fpr,
       pg_size_pretty(length(s.users::bytea)::bigint) AS size,
       pg_size_pretty(length(bloom_empty((SELECT count(DISTINCT user_id) FROM exact_daily_users), 0.01)::bytea)::bigint)
           AS size_if_sized_for_the_month
FROM ever_seen AS s;

\echo
\echo 'Done.'
