--
-- parameters: every constructor, planning function and aggregate rejects
-- 0, negative, NaN, infinite and out-of-range parameters, and sizes past
-- the 511 MiB limit (and past 1 GB), with a fitting SQLSTATE and a message
-- naming the value: 22023 (invalid_parameter_value) for a value outside its
-- range, 54000 (program_limit_exceeded) for a size past the limit (its
-- DETAIL says how many bytes the sketch would take), 22004
-- (null_value_not_allowed) for a NULL aggregate parameter.  The functions
-- are STRICT, so a NULL argument gives NULL.  Sizes are checked before
-- anything is allocated: no call here raises 53200 (out_of_memory), and the
-- backend's memory does not grow while they fail (checked below with
-- pg_backend_memory_contexts and, where /proc exists, the peak virtual
-- size of the backend).
--
-- Each row is a call, the SQLSTATE it raised (00000 when it returned) and
-- the message (or the result: NULL, a number, or "a value" for a sketch).
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

CREATE FUNCTION pg_temp.try(q text, OUT state text, OUT message text, OUT detail text)
LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  EXECUTE q INTO r;
  state := '00000';
  message := CASE WHEN r IS NULL THEN 'NULL' WHEN left(r, 2) = '\x' THEN 'a value' ELSE r END;
EXCEPTION WHEN others THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
END $$;
CREATE TEMP TABLE par_calls (section text, n serial, call text);
CREATE FUNCTION pg_temp.show(sec text) RETURNS TABLE(call text, sqlstate text, message text)
LANGUAGE sql AS $$
  SELECT c.call, t.state, t.message FROM par_calls c, pg_temp.try('SELECT ' || c.call) t
  WHERE c.section = sec ORDER BY c.n
$$;

-- ---------------------------------------------------------------------------
-- Constructors
-- ---------------------------------------------------------------------------
INSERT INTO par_calls (section, call) VALUES
  ('bloom_empty', 'bloom_empty(0)'),
  ('bloom_empty', 'bloom_empty(-1)'),
  ('bloom_empty', 'bloom_empty(-9223372036854775808)'),
  ('bloom_empty', 'bloom_empty(100, 0)'),
  ('bloom_empty', 'bloom_empty(100, ''-0'')'),
  ('bloom_empty', 'bloom_empty(100, -0.01)'),
  ('bloom_empty', 'bloom_empty(100, 1)'),
  ('bloom_empty', 'bloom_empty(100, ''NaN'')'),
  ('bloom_empty', 'bloom_empty(100, ''Infinity'')'),
  ('bloom_empty', 'bloom_empty(100, ''-Infinity'')'),
  ('bloom_empty', 'bloom_empty(100, 1e-20)'),
  ('bloom_empty', 'bloom_empty(100, 1e-300)'),
  ('bloom_empty', 'bloom_empty(NULL)'),
  ('bloom_empty', 'bloom_empty(100, NULL)'),
  ('bloom_empty_bits', 'bloom_empty_bits(0, 3)'),
  ('bloom_empty_bits', 'bloom_empty_bits(-1, 3)'),
  ('bloom_empty_bits', 'bloom_empty_bits(-9223372036854775808, 3)'),
  ('bloom_empty_bits', 'bloom_empty_bits(64, 0)'),
  ('bloom_empty_bits', 'bloom_empty_bits(64, -1)'),
  ('bloom_empty_bits', 'bloom_empty_bits(64, 65)'),
  ('bloom_empty_bits', 'bloom_empty_bits(64, 2147483647)'),
  ('bloom_empty_bits', 'bloom_empty_bits(64, -2147483648)'),
  ('bloom_empty_bits', 'bloom_empty_bits(NULL, 3)'),
  ('bloom_empty_bits', 'bloom_empty_bits(64, NULL)'),
  ('cms_empty', 'cms_empty(0, 0.01)'),
  ('cms_empty', 'cms_empty(-0.001, 0.01)'),
  ('cms_empty', 'cms_empty(1, 0.01)'),
  ('cms_empty', 'cms_empty(''NaN'', 0.01)'),
  ('cms_empty', 'cms_empty(''Infinity'', 0.01)'),
  ('cms_empty', 'cms_empty(''-Infinity'', 0.01)'),
  ('cms_empty', 'cms_empty(0.01, 0)'),
  ('cms_empty', 'cms_empty(0.01, -0.5)'),
  ('cms_empty', 'cms_empty(0.01, 1)'),
  ('cms_empty', 'cms_empty(0.01, ''NaN'')'),
  ('cms_empty', 'cms_empty(0.01, ''Infinity'')'),
  ('cms_empty', 'cms_empty(0.01, ''-Infinity'')'),
  ('cms_empty', 'cms_empty(0.01, 1e-28)'),
  ('cms_empty', 'cms_empty(0.01, 1e-300)'),
  ('cms_empty', 'cms_empty(NULL, 0.01)'),
  ('cms_empty', 'cms_empty(0.01, NULL)'),
  ('cms_empty_dims', 'cms_empty_dims(0, 1)'),
  ('cms_empty_dims', 'cms_empty_dims(-1, 1)'),
  ('cms_empty_dims', 'cms_empty_dims(1, 0)'),
  ('cms_empty_dims', 'cms_empty_dims(1, -1)'),
  ('cms_empty_dims', 'cms_empty_dims(1, 65)'),
  ('cms_empty_dims', 'cms_empty_dims(1, 2147483647)'),
  ('cms_empty_dims', 'cms_empty_dims(-2147483648, -2147483648)'),
  ('cms_empty_dims', 'cms_empty_dims(NULL, 1)'),
  ('cms_empty_dims', 'cms_empty_dims(1, NULL)'),
  ('cbloom_empty', 'cbloom_empty(0)'),
  ('cbloom_empty', 'cbloom_empty(-1)'),
  ('cbloom_empty', 'cbloom_empty(100, 0)'),
  ('cbloom_empty', 'cbloom_empty(100, -0.01)'),
  ('cbloom_empty', 'cbloom_empty(100, 1)'),
  ('cbloom_empty', 'cbloom_empty(100, ''NaN'')'),
  ('cbloom_empty', 'cbloom_empty(100, ''Infinity'')'),
  ('cbloom_empty', 'cbloom_empty(100, ''-Infinity'')'),
  ('cbloom_empty', 'cbloom_empty(100, 1e-20)'),
  ('cbloom_empty', 'cbloom_empty(100, 0.01, 0)'),
  ('cbloom_empty', 'cbloom_empty(100, 0.01, -4)'),
  ('cbloom_empty', 'cbloom_empty(100, 0.01, 5)'),
  ('cbloom_empty', 'cbloom_empty(100, 0.01, 16)'),
  ('cbloom_empty', 'cbloom_empty(NULL)'),
  ('cbloom_empty', 'cbloom_empty(100, NULL)'),
  ('cbloom_empty', 'cbloom_empty(100, 0.01, NULL)');
SELECT * FROM pg_temp.show('bloom_empty');
SELECT * FROM pg_temp.show('bloom_empty_bits');
SELECT * FROM pg_temp.show('cms_empty');
SELECT * FROM pg_temp.show('cms_empty_dims');
SELECT * FROM pg_temp.show('cbloom_empty');

-- ---------------------------------------------------------------------------
-- Planning functions
-- ---------------------------------------------------------------------------
-- bloom_fpr_estimate plans any positive number of bits (it builds nothing);
-- bloom_fpr_exact needs a buildable filter and bounds its work; a capacity
-- of 0 is valid for both (the rate is 0).
INSERT INTO par_calls (section, call) VALUES
  ('planning', 'bloom_optimal_bits(0, 0.01)'),
  ('planning', 'bloom_optimal_bits(-1, 0.01)'),
  ('planning', 'bloom_optimal_bits(100, 0)'),
  ('planning', 'bloom_optimal_bits(100, 1)'),
  ('planning', 'bloom_optimal_bits(100, ''NaN'')'),
  ('planning', 'bloom_optimal_bits(100, ''Infinity'')'),
  ('planning', 'bloom_optimal_bits(100, ''-Infinity'')'),
  ('planning', 'bloom_optimal_bits(NULL, 0.01)'),
  ('planning', 'bloom_optimal_hashes(0, 100)'),
  ('planning', 'bloom_optimal_hashes(-1, 100)'),
  ('planning', 'bloom_optimal_hashes(1000, 0)'),
  ('planning', 'bloom_optimal_hashes(1000, -1)'),
  ('planning', 'bloom_optimal_hashes(92, 1)'),
  ('planning', 'bloom_optimal_hashes(94, 1)'),
  ('planning', 'bloom_optimal_hashes(9223372036854775807, 1)'),
  ('planning', 'bloom_optimal_hashes(NULL, 1)'),
  ('planning', 'bloom_fpr_estimate(0, 100, 7)'),
  ('planning', 'bloom_fpr_estimate(-1, 100, 7)'),
  ('planning', 'bloom_fpr_estimate(1000, -1, 7)'),
  ('planning', 'bloom_fpr_estimate(1000, 0, 7)'),
  ('planning', 'bloom_fpr_estimate(1000, 100, 0)'),
  ('planning', 'bloom_fpr_estimate(1000, 100, -1)'),
  ('planning', 'bloom_fpr_estimate(1000, 100, 65)'),
  ('planning', 'bloom_fpr_estimate(9223372036854775807, 100, 7) < 1e-100'),
  ('planning', 'bloom_fpr_estimate(NULL, 100, 7)'),
  ('planning', 'bloom_fpr_exact(0, 100, 7)'),
  ('planning', 'bloom_fpr_exact(-1, 100, 7)'),
  ('planning', 'bloom_fpr_exact(1000, -1, 7)'),
  ('planning', 'bloom_fpr_exact(1000, 0, 7)'),
  ('planning', 'bloom_fpr_exact(1000, 100, 0)'),
  ('planning', 'bloom_fpr_exact(1000, 100, -1)'),
  ('planning', 'bloom_fpr_exact(1000, 100, 65)'),
  ('planning', 'bloom_fpr_exact(1000, 9223372036854775807, 64)'),
  ('planning', 'bloom_fpr_exact(1000000, 1000000, 7)'),
  ('planning', 'bloom_fpr_exact(NULL, 100, 7)');
SELECT * FROM pg_temp.show('planning');

-- ---------------------------------------------------------------------------
-- Counts of cms_add and topk_add
-- ---------------------------------------------------------------------------
-- A count must not be negative; 0 counts nothing; a NULL count returns the
-- sketch unchanged; a total past 2^63 - 1 is 54000.
CREATE TEMP TABLE par_sk AS
SELECT cms_add(cms_empty_dims(4, 2), 1) AS c, topk_add(topk_agg(x, 2, 0.5, 0.5), 1) AS t
FROM generate_series(1, 3) x;
INSERT INTO par_calls (section, call) VALUES
  ('counts', 'cms_add(c, 7, -1) FROM par_sk'),
  ('counts', 'cms_add(c, 7, -9223372036854775808) FROM par_sk'),
  ('counts', 'cms_total(cms_add(c, 7, 0)) FROM par_sk'),
  ('counts', 'cms_add(c, 7, NULL) = c FROM par_sk'),
  ('counts', 'cms_total(cms_add(c, 7, 9223372036854775806)) FROM par_sk'),
  ('counts', 'cms_add(c, 7, 9223372036854775807) FROM par_sk'),
  ('counts', 'cms_add(c, ''a'', -1) FROM (SELECT cms_empty_dims(4, 2) AS c) s'),
  ('counts', 'topk_add(t, 7, -1) FROM par_sk'),
  ('counts', 'topk_add(t, 7, -9223372036854775808) FROM par_sk'),
  ('counts', '(topk_info(topk_add(t, 7, 0))).total FROM par_sk'),
  ('counts', 'topk_add(t, 7, NULL)::bytea = t::bytea FROM par_sk'),
  ('counts', '(topk_info(topk_add(t, 7, 9223372036854775803))).total FROM par_sk'),
  ('counts', 'topk_add(t, 7, 9223372036854775804) FROM par_sk');
SELECT * FROM pg_temp.show('counts');

-- ---------------------------------------------------------------------------
-- Aggregates
-- ---------------------------------------------------------------------------
-- Each parameter over one row, over a row whose value is NULL, and over no
-- rows.  The parameters are checked at every row until the group has its
-- first value, NULL value or not, so a group of NULLs fails like a group
-- with values.  A group with no rows never calls the transition function:
-- its result is NULL and nothing is checked (doc/reference.md, sections
-- 5.1, 11.9, 12.6 and 13.6); so no aggregate can reject a parameter over
-- an empty input.
CREATE FUNCTION pg_temp.try_agg(q text) RETURNS text LANGUAGE sql AS $$
  SELECT state || ' ' || message FROM pg_temp.try(q)
$$;
CREATE TEMP TABLE par_aggs (n serial, agg text);
INSERT INTO par_aggs (agg) VALUES
  ('bloom_agg(x, 0::float8)'),
  ('bloom_agg(x, -0.01::float8)'),
  ('bloom_agg(x, 1::float8)'),
  ('bloom_agg(x, ''NaN''::float8)'),
  ('bloom_agg(x, ''Infinity''::float8)'),
  ('bloom_agg(x, ''-Infinity''::float8)'),
  ('bloom_agg(x, 1e-20::float8)'),
  ('bloom_agg(x, NULL::float8)'),
  ('bloom_agg(x, 0, 0.01)'),
  ('bloom_agg(x, -1, 0.01)'),
  ('bloom_agg(x, 100, 0)'),
  ('bloom_agg(x, 100, 1)'),
  ('bloom_agg(x, 100, ''NaN'')'),
  ('bloom_agg(x, 100, ''Infinity'')'),
  ('bloom_agg(x, 100, ''-Infinity'')'),
  ('bloom_agg(x, 100, 1e-300)'),
  ('bloom_agg(x, NULL, 0.01)'),
  ('bloom_agg(x, 100, NULL)'),
  ('cms_agg(x, 0, 0.01)'),
  ('cms_agg(x, -0.01, 0.01)'),
  ('cms_agg(x, 1, 0.01)'),
  ('cms_agg(x, ''NaN'', 0.01)'),
  ('cms_agg(x, ''Infinity'', 0.01)'),
  ('cms_agg(x, 0.01, 0)'),
  ('cms_agg(x, 0.01, 1)'),
  ('cms_agg(x, 0.01, ''NaN'')'),
  ('cms_agg(x, 0.01, ''-Infinity'')'),
  ('cms_agg(x, 0.01, 1e-28)'),
  ('cms_agg(x, NULL, 0.01)'),
  ('cms_agg(x, 0.01, NULL)'),
  ('cms_agg_weighted(x, -1)'),
  ('cms_agg_weighted(x, -9223372036854775808)'),
  ('cms_agg_weighted(x, 0)'),
  ('cms_agg_weighted(x, NULL::bigint)'),
  ('cms_agg_weighted(x, 1, 0, 0.01)'),
  ('cms_agg_weighted(x, 1, 0.01, ''NaN'')'),
  ('cms_agg_weighted(x, 1, NULL, 0.01)'),
  ('topk_agg(x, 0)'),
  ('topk_agg(x, -1)'),
  ('topk_agg(x, 10001)'),
  ('topk_agg(x, -2147483648)'),
  ('topk_agg(x, NULL::integer)'),
  ('topk_agg(x, 3, 0, 0.01)'),
  ('topk_agg(x, 3, 1, 0.01)'),
  ('topk_agg(x, 3, ''NaN'', 0.01)'),
  ('topk_agg(x, 3, 0.01, 0)'),
  ('topk_agg(x, 3, 0.01, ''Infinity'')'),
  ('topk_agg(x, 3, 0.01, 1e-28)'),
  ('topk_agg(x, 3, NULL, 0.01)'),
  ('topk_agg(x, 3, 0.01, NULL)'),
  ('cbloom_agg(x, 0::float8)'),
  ('cbloom_agg(x, 1::float8)'),
  ('cbloom_agg(x, ''NaN''::float8)'),
  ('cbloom_agg(x, ''-Infinity''::float8)'),
  ('cbloom_agg(x, 1e-20::float8)'),
  ('cbloom_agg(x, NULL::float8)'),
  ('cbloom_agg(x, 0, 0.01)'),
  ('cbloom_agg(x, -1, 0.01)'),
  ('cbloom_agg(x, 100, 0)'),
  ('cbloom_agg(x, 100, ''NaN'')'),
  ('cbloom_agg(x, 100, ''Infinity'')'),
  ('cbloom_agg(x, 100, 1e-20)'),
  ('cbloom_agg(x, NULL, 0.01)'),
  ('cbloom_agg(x, 100, NULL)'),
  ('cbloom_agg(x, 100, 0.01, 0)'),
  ('cbloom_agg(x, 100, 0.01, 5)'),
  ('cbloom_agg(x, 100, 0.01, -8)'),
  ('cbloom_agg(x, 100, 0.01, NULL)');
SELECT agg,
       pg_temp.try_agg(format('SELECT %s FROM (VALUES (1::bigint)) v(x)', agg)) AS one_row,
       pg_temp.try_agg(format('SELECT %s FROM (VALUES (NULL::bigint)) v(x)', agg)) AS null_value,
       pg_temp.try_agg(format('SELECT %s FROM (VALUES (1::bigint)) v(x) WHERE false', agg)) AS no_rows
FROM par_aggs ORDER BY n;
-- The parameters must be the same on every row of a group (22023), and a
-- later row's value outside its range fails too.
SELECT q, pg_temp.try_agg('SELECT ' || q) AS result FROM unnest(ARRAY[
  'bloom_agg(x, p) FROM (VALUES (1, 0.01::float8), (2, 0.02)) v(x, p)',
  'bloom_agg(x, p) FROM (VALUES (1, 0.01::float8), (2, ''NaN'')) v(x, p)',
  'bloom_agg(x, p) FROM (VALUES (1, 0.01::float8), (2, NULL)) v(x, p)',
  'bloom_agg(x, c, 0.01) FROM (VALUES (1, 10::bigint), (2, 11)) v(x, c)',
  'bloom_agg(x, c, 0.01) FROM (VALUES (1, 10::bigint), (2, 0)) v(x, c)',
  'cms_agg(x, e, 0.01) FROM (VALUES (1, 0.01::float8), (2, 0.02)) v(x, e)',
  'cms_agg(x, e, 0.01) FROM (VALUES (1, 0.01::float8), (2, 0)) v(x, e)',
  'cms_agg_weighted(x, w) FROM (VALUES (1, 1::bigint), (2, -1)) v(x, w)',
  'topk_agg(x, k) FROM (VALUES (1, 3), (2, 4)) v(x, k)',
  'topk_agg(x, k) FROM (VALUES (1, 3), (2, 0)) v(x, k)',
  'cbloom_agg(x, p) FROM (VALUES (1, 0.01::float8), (2, 0.02)) v(x, p)',
  'cbloom_agg(x, c, 0.01) FROM (VALUES (1, 10::bigint), (2, 11)) v(x, c)',
  'cbloom_agg(x, c, 0.01) FROM (VALUES (1, 10::bigint), (2, -1)) v(x, c)',
  'cbloom_agg(x, 10, 0.01, b) FROM (VALUES (1, 4), (2, 8)) v(x, b)']) q;

-- ---------------------------------------------------------------------------
-- Sizes past 511 MiB and past 1 GB fail fast, before any allocation
-- ---------------------------------------------------------------------------
-- Each is 54000 with the size in its message or DETAIL.  Values just past
-- the limit, then past 1 GB, then absurd.
CREATE TEMP VIEW par_now AS
SELECT (SELECT sum(total_bytes) FROM pg_backend_memory_contexts) AS context_bytes,
       CASE WHEN (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
            THEN substring(pg_read_file('/proc/self/status', 0, 100000, true) from 'VmPeak:\s*(\d+) kB')::bigint
       END AS vm_peak_kb;
CREATE TEMP TABLE par_mem AS SELECT 'before' AS phase, * FROM par_now WHERE false;
INSERT INTO par_calls (section, call) VALUES
  ('huge', 'bloom_empty_bits(4286578305, 3)'),
  ('huge', 'bloom_empty_bits(8600000000, 3)'),
  ('huge', 'bloom_empty_bits(9223372036854775807, 64)'),
  ('huge', 'bloom_empty(447300000, 0.01)'),
  ('huge', 'bloom_empty(1000000000, 0.01)'),
  ('huge', 'bloom_empty(4611686018427387904, 0.5)'),
  ('huge', 'bloom_optimal_bits(447300000, 0.01)'),
  ('huge', 'bloom_optimal_bits(4611686018427387904, 1e-19)'),
  ('huge', 'bloom_fpr_exact(4286578305, 100, 7)'),
  ('huge', 'bloom_fpr_exact(9223372036854775807, 100, 7)'),
  ('huge', 'cms_empty(2.0e-7, 0.01)'),
  ('huge', 'cms_empty(1e-8, 0.01)'),
  ('huge', 'cms_empty(1e-300, 1e-27)'),
  ('huge', 'cms_empty_dims(13395558, 5)'),
  ('huge', 'cms_empty_dims(66977787, 1)'),
  ('huge', 'cms_empty_dims(2147483647, 64)'),
  ('huge', 'cbloom_empty(111900000, 0.01)'),
  ('huge', 'cbloom_empty(55902000, 0.01, 8)'),
  ('huge', 'cbloom_empty(1000000000, 0.01, 8)'),
  ('huge', 'cbloom_empty(4611686018427387904, 0.5)'),
  ('huge', 'bloom_agg(x, 447300000, 0.01) FROM generate_series(1, 3) x'),
  ('huge', 'bloom_agg(x, 4611686018427387904, 0.01) FROM generate_series(1, 3) x'),
  ('huge', 'cms_agg(x, 2.0e-7, 0.01) FROM generate_series(1, 3) x'),
  ('huge', 'cms_agg_weighted(x, 1, 1e-8, 0.01) FROM generate_series(1, 3) x'),
  ('huge', 'topk_agg(x, 10, 2.0e-7, 0.01) FROM generate_series(1, 3) x'),
  ('huge', 'topk_agg(x, 10000, 1e-9, 1e-27) FROM generate_series(1, 3) x'),
  ('huge', 'cbloom_agg(x, 111900000, 0.01) FROM generate_series(1, 3) x'),
  ('huge', 'cbloom_agg(x, 55902000, 0.01, 8) FROM generate_series(1, 3) x'),
  ('huge', 'cbloom_agg(x, 4611686018427387904, 0.5, 8) FROM generate_series(1, 3) x');
INSERT INTO par_mem SELECT 'before', * FROM par_now;
CREATE TEMP TABLE par_huge AS
SELECT c.n, c.call, t.* FROM par_calls c, pg_temp.try('SELECT ' || c.call) t WHERE c.section = 'huge';
INSERT INTO par_mem SELECT 'after', * FROM par_now;
SELECT call, state AS sqlstate, message, detail FROM par_huge ORDER BY n;
-- None is out_of_memory (53200) or an internal error; every one is 54000.
SELECT count(*) AS calls, count(*) FILTER (WHERE state = '54000') AS program_limit_exceeded,
       count(*) FILTER (WHERE state IN ('53200', 'XX000')) AS out_of_memory_or_internal
FROM par_huge;
-- The backend's memory contexts hold no more than before (nothing leaked),
-- and its peak virtual size did not grow by the hundreds of megabytes even
-- one of these sketches would take (so nothing was allocated and then
-- freed).  Without /proc (or as a non-superuser) the peak is unknown and
-- the check passes.
SELECT a.context_bytes - b.context_bytes < 1048576 AS contexts_did_not_grow,
       coalesce(a.vm_peak_kb - b.vm_peak_kb < 65536, true) AS peak_did_not_grow
FROM par_mem b, par_mem a WHERE b.phase = 'before' AND a.phase = 'after';

DROP VIEW par_now;
DROP TABLE par_calls, par_sk, par_aggs, par_mem, par_huge;

-- a rate or delta is named so that it reads back as itself, not rounded by %g
SELECT bloom_empty(100, 1.0000000000000002);
SELECT cms_empty(0.01, 5e-324);
SELECT cbloom_empty(100, 0.30000000000000004e-30);
