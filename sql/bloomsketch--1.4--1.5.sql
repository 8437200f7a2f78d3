-- bloomsketch 1.4 -> 1.5: topk counts its candidates (format 2 of the topk kind, doc/topk.md,
-- doc/format.md section 9): every listed value gets a lower and an upper bound on its count, any
-- top n up to the sketch's capacity can be listed, and any value's bounds looked up.  The
-- aggregates build format 2 from now on; stored topk values (format 1) keep their bytes and
-- answers, merge with each other as before, and are refused, with a hint, when merged with
-- format 2.
\echo Use "ALTER EXTENSION bloomsketch UPDATE TO '1.5'" to load this file. \quit

COMMENT ON TYPE topk IS 'heavy hitters: the most frequent values of a stream with lower and upper bounds on their counts, from a counter-based summary of the values and Count-Min rows';

COMMENT ON FUNCTION topk_items(topk) IS 'the k most frequent values, most frequent first, printed as their type prints them, with their estimated counts (format 2: counted while the value was tracked, never above the true count; format 1: the Count-Min estimate, never below)';
CREATE FUNCTION topk_items(topk, n integer) RETURNS TABLE(value text, frequency bigint)
  AS 'MODULE_PATHNAME', 'topk_items' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION topk_items(topk, integer) IS 'the n most frequent values (n from 1 to the sketch''s capacity), as topk_items(topk)';

CREATE FUNCTION topk_items_bounds(topk)
  RETURNS TABLE(value text, frequency bigint, lower_bound bigint, upper_bound bigint)
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION topk_items_bounds(topk) IS 'the k most frequent values as topk_items lists them, each with a lower and an upper bound on its true count';
CREATE FUNCTION topk_items_bounds(topk, n integer)
  RETURNS TABLE(value text, frequency bigint, lower_bound bigint, upper_bound bigint)
  AS 'MODULE_PATHNAME', 'topk_items_bounds' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION topk_items_bounds(topk, integer) IS 'the n most frequent values (n from 1 to the sketch''s capacity), with bounds, as topk_items_bounds(topk)';

CREATE FUNCTION topk_bounds(topk, anyelement,
  OUT frequency bigint, OUT lower_bound bigint, OUT upper_bound bigint)
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_bounds(topk, anyelement) IS 'estimated count of any value, listed or not, with a lower and an upper bound on its true count';
CREATE FUNCTION topk_bounds(topk, text,
  OUT frequency bigint, OUT lower_bound bigint, OUT upper_bound bigint)
  AS 'MODULE_PATHNAME', 'topk_bounds' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_bounds(topk, text) IS 'topk_bounds for text values (so unknown literals resolve)';

CREATE FUNCTION topk_upper_bound(topk, anyelement) RETURNS bigint
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_upper_bound(topk, anyelement) IS 'an upper bound on the true count of any value, listed or not';
CREATE FUNCTION topk_upper_bound(topk, text) RETURNS bigint
  AS 'MODULE_PATHNAME', 'topk_upper_bound' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_upper_bound(topk, text) IS 'topk_upper_bound for text values (so unknown literals resolve)';
CREATE OPERATOR -> (LEFTARG = topk, RIGHTARG = anyelement, FUNCTION = topk_upper_bound);
COMMENT ON OPERATOR -> (topk, anyelement) IS 'upper bound on the value''s count (topk_upper_bound)';
CREATE OPERATOR -> (LEFTARG = topk, RIGHTARG = text, FUNCTION = topk_upper_bound);
COMMENT ON OPERATOR -> (topk, text) IS 'upper bound on the text value''s count (topk_upper_bound)';

-- topk_info gains capacity and untracked_max, as its last columns.
DROP FUNCTION topk_info(topk);
CREATE FUNCTION topk_info(topk,
  OUT k integer, OUT width bigint, OUT depth integer, OUT epsilon double precision,
  OUT delta double precision, OUT total bigint, OUT candidates integer, OUT bytes integer,
  OUT key_family text, OUT format_version integer, OUT capacity integer,
  OUT untracked_max bigint)
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_info(topk) IS 'k, the count-min shape and its guarantees, total, values held (candidates), size in bytes, key family, format, the number of values tracked (capacity) and the most any value not held can have occurred (untracked_max; NULL for format 1)';

COMMENT ON FUNCTION topk_merge_trans(topk, topk) IS 'merges two sketches of one format (counters added, values'' counts and bounds added, the best kept): combine function of topk_agg, transition and combine function of topk_union_agg';
COMMENT ON FUNCTION topk_final(topk) IS 'final function of topk_agg and topk_union_agg: the canonical form (format 2: the capacity''s best values in hash order)';

COMMENT ON AGGREGATE topk_agg(smallint, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(smallint, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(smallint, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(smallint, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg(integer, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(integer, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(integer, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(integer, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg(bigint, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(bigint, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(bigint, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(bigint, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg(text, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(text, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(text, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(text, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg(bytea, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(bytea, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(bytea, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(bytea, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg(uuid, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(uuid, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(uuid, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(uuid, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg(double precision, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(double precision, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(double precision, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(double precision, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg(numeric, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(numeric, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(numeric, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(numeric, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg(date, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(date, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(date, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(date, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg(timestamp, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(timestamp, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(timestamp, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(timestamp, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg(timestamptz, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(timestamptz, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(timestamptz, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(timestamptz, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';

-- What the stages bound is the expected rate: one filter's measured rate scatters around it.
COMMENT ON FUNCTION bloom_empty(bigint, double precision, integer, text) IS 'empty growable filter (a scalable Bloom filter): a first stage for capacity values at rate fpr/2; each time the last stage is full, bloom_add opens a stage for growth times as many values at half the rate, so the expected false-positive rate stays below fpr for any number of values (one filter''s own rate scatters a few percent around its expectation)';

-- Row estimates of the membership operators (doc/reference.md, "Row estimates of @> and <@"): a
-- filter that is a constant at plan time is looked up with the column's most common values, and
-- its cardinality and false-positive rate stand for the rest; before, the planner assumed half the
-- rows matched.  The operators keep PostgreSQL's default join selectivity.
CREATE FUNCTION bloomsketch_contsel(internal, oid, internal, integer) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomsketch_contsel(internal, oid, internal, integer) IS 'restriction selectivity estimator of the @> and <@ operators of bloom and cbloom: for a constant filter and a column with statistics, the frequencies of the most common values the filter contains, plus the other rows in proportion to the filter''s cardinality and false-positive rate';
ALTER OPERATOR @> (bloom, anyelement) SET (RESTRICT = bloomsketch_contsel);
ALTER OPERATOR <@ (anyelement, bloom) SET (RESTRICT = bloomsketch_contsel);
ALTER OPERATOR @> (bloom, text) SET (RESTRICT = bloomsketch_contsel);
ALTER OPERATOR <@ (text, bloom) SET (RESTRICT = bloomsketch_contsel);
ALTER OPERATOR @> (cbloom, anyelement) SET (RESTRICT = bloomsketch_contsel);
ALTER OPERATOR <@ (anyelement, cbloom) SET (RESTRICT = bloomsketch_contsel);
ALTER OPERATOR @> (cbloom, text) SET (RESTRICT = bloomsketch_contsel);
ALTER OPERATOR <@ (text, cbloom) SET (RESTRICT = bloomsketch_contsel);
