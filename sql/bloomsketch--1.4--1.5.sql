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

-- The bloom_slices index (doc/reference.md, "bloom_slices"): an index access method over bloom
-- columns that answers f @> key (and key <@ f) by reading k bit slices per batch of filters.  An
-- index scan knows a key's type only from its operator, so @> and <@ get one overload per key type
-- (same C functions as the anyelement ones; a key hashes the same whatever its type, so answers
-- do not change), and the operator class lists the @> of every key type.
CREATE FUNCTION bloom_contains(bloom, smallint) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, smallint) IS 'bloom_contains for smallint keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(smallint, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(smallint, bloom) IS 'bloom_contains with the arguments swapped, for smallint keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = smallint, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, smallint) IS 'filter probably contains the smallint value';
CREATE OPERATOR <@ (LEFTARG = smallint, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (smallint, bloom) IS 'smallint value is probably contained in filter';
CREATE FUNCTION bloom_contains(bloom, integer) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, integer) IS 'bloom_contains for integer keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(integer, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(integer, bloom) IS 'bloom_contains with the arguments swapped, for integer keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = integer, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, integer) IS 'filter probably contains the integer value';
CREATE OPERATOR <@ (LEFTARG = integer, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (integer, bloom) IS 'integer value is probably contained in filter';
CREATE FUNCTION bloom_contains(bloom, bigint) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, bigint) IS 'bloom_contains for bigint keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(bigint, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(bigint, bloom) IS 'bloom_contains with the arguments swapped, for bigint keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = bigint, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, bigint) IS 'filter probably contains the bigint value';
CREATE OPERATOR <@ (LEFTARG = bigint, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (bigint, bloom) IS 'bigint value is probably contained in filter';
CREATE FUNCTION bloom_contains(bloom, bytea) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, bytea) IS 'bloom_contains for bytea keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(bytea, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(bytea, bloom) IS 'bloom_contains with the arguments swapped, for bytea keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = bytea, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, bytea) IS 'filter probably contains the bytea value';
CREATE OPERATOR <@ (LEFTARG = bytea, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (bytea, bloom) IS 'bytea value is probably contained in filter';
CREATE FUNCTION bloom_contains(bloom, uuid) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, uuid) IS 'bloom_contains for uuid keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(uuid, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(uuid, bloom) IS 'bloom_contains with the arguments swapped, for uuid keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = uuid, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, uuid) IS 'filter probably contains the uuid value';
CREATE OPERATOR <@ (LEFTARG = uuid, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (uuid, bloom) IS 'uuid value is probably contained in filter';
CREATE FUNCTION bloom_contains(bloom, double precision) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, double precision) IS 'bloom_contains for double precision keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(double precision, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(double precision, bloom) IS 'bloom_contains with the arguments swapped, for double precision keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = double precision, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, double precision) IS 'filter probably contains the double precision value';
CREATE OPERATOR <@ (LEFTARG = double precision, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (double precision, bloom) IS 'double precision value is probably contained in filter';
CREATE FUNCTION bloom_contains(bloom, numeric) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, numeric) IS 'bloom_contains for numeric keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(numeric, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(numeric, bloom) IS 'bloom_contains with the arguments swapped, for numeric keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = numeric, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, numeric) IS 'filter probably contains the numeric value';
CREATE OPERATOR <@ (LEFTARG = numeric, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (numeric, bloom) IS 'numeric value is probably contained in filter';
CREATE FUNCTION bloom_contains(bloom, date) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, date) IS 'bloom_contains for date keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(date, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(date, bloom) IS 'bloom_contains with the arguments swapped, for date keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = date, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, date) IS 'filter probably contains the date value';
CREATE OPERATOR <@ (LEFTARG = date, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (date, bloom) IS 'date value is probably contained in filter';
CREATE FUNCTION bloom_contains(bloom, timestamp) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, timestamp) IS 'bloom_contains for timestamp keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(timestamp, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(timestamp, bloom) IS 'bloom_contains with the arguments swapped, for timestamp keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = timestamp, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, timestamp) IS 'filter probably contains the timestamp value';
CREATE OPERATOR <@ (LEFTARG = timestamp, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (timestamp, bloom) IS 'timestamp value is probably contained in filter';
CREATE FUNCTION bloom_contains(bloom, timestamptz) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, timestamptz) IS 'bloom_contains for timestamptz keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(timestamptz, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(timestamptz, bloom) IS 'bloom_contains with the arguments swapped, for timestamptz keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = timestamptz, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, timestamptz) IS 'filter probably contains the timestamptz value';
CREATE OPERATOR <@ (LEFTARG = timestamptz, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (timestamptz, bloom) IS 'timestamptz value is probably contained in filter';

-- A lookup in a stored filter costs about what reading a few of its pages does (a TOASTed filter:
-- the header and probed chunks, tens of microseconds), not one operator call: without this the
-- planner costs a sequential scan that tests @> on every row as if it were free and never takes
-- a bloom_slices index (doc/reference.md, section 9.7, "Cost model").
ALTER FUNCTION bloom_contains(bloom, anyelement) COST 50;
ALTER FUNCTION bloom_contained(anyelement, bloom) COST 50;
ALTER FUNCTION bloom_contains(bloom, text) COST 50;
ALTER FUNCTION bloom_contained(text, bloom) COST 50;

CREATE FUNCTION bloom_slices_handler(internal) RETURNS index_am_handler
  AS 'MODULE_PATHNAME' LANGUAGE C;
COMMENT ON FUNCTION bloom_slices_handler(internal) IS 'handler of the bloom_slices index access method';
CREATE ACCESS METHOD bloom_slices TYPE INDEX HANDLER bloom_slices_handler;
COMMENT ON ACCESS METHOD bloom_slices IS 'bit-sliced index of fixed bloom filters: f @> key reads k bit slices per batch of filters of one shape';
CREATE OPERATOR CLASS bloom_slices_ops DEFAULT FOR TYPE bloom USING bloom_slices AS
  OPERATOR 1 @> (bloom, text),
  OPERATOR 1 @> (bloom, smallint),
  OPERATOR 1 @> (bloom, integer),
  OPERATOR 1 @> (bloom, bigint),
  OPERATOR 1 @> (bloom, bytea),
  OPERATOR 1 @> (bloom, uuid),
  OPERATOR 1 @> (bloom, double precision),
  OPERATOR 1 @> (bloom, numeric),
  OPERATOR 1 @> (bloom, date),
  OPERATOR 1 @> (bloom, timestamp),
  OPERATOR 1 @> (bloom, timestamptz);
COMMENT ON OPERATOR CLASS bloom_slices_ops USING bloom_slices IS 'f @> key for every key type, as an index scan of a bloom_slices index';
COMMENT ON OPERATOR FAMILY bloom_slices_ops USING bloom_slices IS 'f @> key for every key type (the family of bloom_slices_ops)';
CREATE FUNCTION bloom_slices_summarize(regclass) RETURNS bigint
  AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION bloom_slices_summarize(regclass) IS 'moves the pending rows of a bloom_slices index into bit slices now (VACUUM and large inserts do it too); returns the rows moved';
CREATE FUNCTION bloom_slices_info(regclass,
  OUT batches bigint, OUT indexed_rows bigint, OUT dead_rows bigint, OUT pending_rows bigint,
  OUT pending_pages bigint, OUT pages_per_lookup bigint, OUT pages bigint)
  AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_slices_info(regclass) IS 'a bloom_slices index: its batches, rows in them (dead ones too), dead rows, pending rows and pages, the batch pages a lookup of one key reads at most (per batch a head, its dead-row bitmap and k slices, which span pages in a large batch), and its pages';
