-- bloomsketch 1.2 -> 1.3: the cache-blocked Bloom filter layout (doc/reference.md, section 3;
-- doc/sizing.md).  Existing filters keep their bytes and meaning: layout 0 is the classic one.
\echo Use "ALTER EXTENSION bloomsketch UPDATE TO '1.3'" to load this file. \quit

-- The forms with a layout are new overloads, so that every view, column default and function
-- that calls the 1.2 forms goes on working after the upgrade.
CREATE FUNCTION bloom_empty(capacity bigint, fpr double precision, layout text) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty(bigint, double precision, text) IS 'empty filter for capacity values at false-positive rate fpr in the layout ''classic'' (as bloom_empty(capacity, fpr)) or ''blocked'' (all bits of a key in one 512-bit block: the fewest blocks whose rate, by the blocked formula, is at most fpr)';
CREATE FUNCTION bloom_empty_bits(bits bigint, hashes integer, layout text) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty_bits(bigint, integer, text) IS 'empty filter with explicit bits (m) and hashes (k) in the layout ''classic'' or ''blocked'' (m a multiple of 512)';

-- bloom_info gains the layout, as its last column.
DROP FUNCTION bloom_info(bloom);
CREATE FUNCTION bloom_info(bloom,
  OUT bits bigint, OUT hashes integer, OUT bits_set bigint, OUT fill_ratio double precision,
  OUT estimated_cardinality double precision, OUT estimated_fpr double precision,
  OUT bytes integer, OUT key_family text, OUT format_version integer,
  OUT hash_algorithm text, OUT seed bigint, OUT layout text)
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_info(bloom) IS 'shape, fill, estimates, size in bytes, key family, format and layout of a filter';

-- planning helpers for either layout
CREATE FUNCTION bloom_optimal_bits(capacity bigint, fpr double precision, layout text) RETURNS bigint
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_optimal_bits(bigint, double precision, text) IS 'bits of bloom_empty(capacity, fpr, layout): classic ceil(-n ln p / ln^2 2), blocked the fewest 512-bit blocks that meet fpr';
CREATE FUNCTION bloom_optimal_hashes(bits bigint, capacity bigint, layout text) RETURNS integer
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_optimal_hashes(bigint, bigint, text) IS 'hashes that minimise the false-positive rate of the layout: classic round(m/n ln 2), blocked the k with the lowest blocked rate';
CREATE FUNCTION bloom_fpr_estimate(bits bigint, capacity bigint, hashes integer, layout text) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_fpr_estimate(bigint, bigint, integer, text) IS 'false-positive rate of the layout: classic (1 - e^(-kn/m))^k, blocked the binomial mixture over the keys per 512-bit block (Putze et al.)';

-- bloom_agg with a layout: bloom_agg(value, capacity, fpr, layout), capacity NULL for a filter sized
-- for the distinct count seen.  (A form bloom_agg(value, fpr, layout) would take calls that 1.2
-- resolves to bloom_agg(value, capacity, fpr), like bloom_agg(x, 1000, '0.01'), because an unknown
-- literal prefers text.)
CREATE FUNCTION bloom_agg_trans(bloom_agg_state, anyelement, bigint, double precision, text) RETURNS bloom_agg_state
  AS 'MODULE_PATHNAME', 'bloom_agg_layout_trans' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloom_agg_state, anyelement, bigint, double precision, text) IS 'transition function of bloom_agg(value, capacity, fpr, layout)';

CREATE AGGREGATE bloom_agg(smallint, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(smallint, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(integer, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(integer, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(bigint, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bigint, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(text, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(text, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(bytea, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bytea, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(uuid, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(uuid, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(double precision, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(double precision, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(numeric, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(numeric, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(date, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(date, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(timestamp, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(timestamp, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(timestamptz, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(timestamptz, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';

-- ---------------------------------------------------------------------------------------------
-- Weighted top-k (issue 19): topk_agg_weighted(value, weight, k [, epsilon, delta]), the weights
-- summed per value as cms_agg_weighted sums them; merge and parallel plans as topk_agg.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION topk_agg_weighted_trans(topk, anyelement, bigint, integer) RETURNS topk
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION topk_agg_weighted_trans(topk, anyelement, bigint, integer) IS 'transition function of topk_agg_weighted(value, weight, k)';
CREATE FUNCTION topk_agg_weighted_trans(topk, anyelement, bigint, integer, double precision, double precision) RETURNS topk
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION topk_agg_weighted_trans(topk, anyelement, bigint, integer, double precision, double precision) IS 'transition function of topk_agg_weighted(value, weight, k, epsilon, delta)';

CREATE AGGREGATE topk_agg_weighted(smallint, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(smallint, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(smallint, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(smallint, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg_weighted(integer, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(integer, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(integer, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(integer, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg_weighted(bigint, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(bigint, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(bigint, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(bigint, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg_weighted(text, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(text, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(text, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(text, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg_weighted(bytea, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(bytea, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(bytea, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(bytea, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg_weighted(uuid, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(uuid, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(uuid, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(uuid, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg_weighted(double precision, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(double precision, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(double precision, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(double precision, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg_weighted(numeric, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(numeric, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(numeric, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(numeric, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg_weighted(date, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(date, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(date, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(date, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg_weighted(timestamp, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(timestamp, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(timestamp, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(timestamp, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg_weighted(timestamptz, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(timestamptz, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(timestamptz, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(timestamptz, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';

-- ---------------------------------------------------------------------------------------------
-- Count-Min windows (issue 19): cms_subtract(a, b) and a - b take the counts of b (the sketch of
-- a part of a's stream) back out of a, exactly.  topk has no subtraction: its candidates cannot
-- stay honest (doc/cms.md, section 9.4).
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION cms_subtract(cms, cms) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_subtract(cms, cms) IS 'counter-wise difference of two sketches of the same shape: exactly the sketch of the rest of the stream when the second is the sketch of a part of the first''s stream; an error if a counter would go below zero';
CREATE OPERATOR - (LEFTARG = cms, RIGHTARG = cms, FUNCTION = cms_subtract);
COMMENT ON OPERATOR - (cms, cms) IS 'difference of two sketches (cms_subtract)';
