-- bloomsketch 1.3 -> 1.4: growable bloom filters (doc/reference.md, section 3.1; doc/format.md,
-- section 3.1).  Existing filters keep their bytes and meaning.
\echo Use "ALTER EXTENSION bloomsketch UPDATE TO '1.4'" to load this file. \quit

-- A new overload: growth has no default, so bloom_empty(capacity, fpr) and
-- bloom_empty(capacity, fpr, layout) resolve as before, and bloom_empty(1000, 0.01, growth => 2)
-- names this one.
CREATE FUNCTION bloom_empty(capacity bigint, fpr double precision, growth integer,
                            layout text DEFAULT 'classic') RETURNS bloom
  AS 'MODULE_PATHNAME', 'bloom_empty_growable' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty(bigint, double precision, integer, text) IS 'empty growable filter (a scalable Bloom filter): a first stage for capacity values at rate fpr/2; each time the last stage is full, bloom_add opens a stage for growth times as many values at half the rate, so the rate stays below fpr for any number of values';

-- bloom_info gains growth and stages, as its last columns.
DROP FUNCTION bloom_info(bloom);
CREATE FUNCTION bloom_info(bloom,
  OUT bits bigint, OUT hashes integer, OUT bits_set bigint, OUT fill_ratio double precision,
  OUT estimated_cardinality double precision, OUT estimated_fpr double precision,
  OUT bytes integer, OUT key_family text, OUT format_version integer,
  OUT hash_algorithm text, OUT seed bigint, OUT layout text,
  OUT growth integer, OUT stages integer)
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_info(bloom) IS 'shape, fill, estimates, size in bytes, key family, format, layout, growth and number of stages of a filter (a growable filter: bits summed over its stages, hashes NULL)';

CREATE FUNCTION bloom_stages(bloom,
  OUT stage integer, OUT capacity bigint, OUT target_fpr double precision,
  OUT bits bigint, OUT hashes integer, OUT keys bigint, OUT bits_set bigint,
  OUT estimated_cardinality double precision, OUT estimated_fpr double precision)
  RETURNS SETOF record
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 8;
COMMENT ON FUNCTION bloom_stages(bloom) IS 'the stages of a growable filter, oldest first: capacity and target rate, shape, values counted into it, fill and estimates; a fixed filter is one stage with NULL capacity, target_fpr and keys';

-- Many values at once, for a stored filter fed in batches (a growable one above all): one copy
-- of the filter per call, not one per value.
CREATE FUNCTION bloom_add_all(bloom, anyarray) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add_all(bloom, anyarray) IS 'the filter with every non-NULL element of the array added, in order, as repeated bloom_add calls would (NULL filter: NULL; NULL array: the filter)';
