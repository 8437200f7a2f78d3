-- The concrete overloads of each aggregate for one key type @T@ (sql/src/generate.py).
-- `-- @template NAME VERSION`: VERSION is the extension version that added the aggregate.

-- @template bloom_agg 1.0
CREATE AGGREGATE bloom_agg(@T@) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(@T@) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(@T@, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(@T@, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(@T@, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(@T@, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
-- @end

-- @template cms_agg 1.0
CREATE AGGREGATE cms_agg(@T@) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(@T@) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(@T@, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(@T@, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(@T@, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(@T@, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(@T@, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(@T@, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
-- @end

-- @template topk_agg 1.0
CREATE AGGREGATE topk_agg(@T@, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(@T@, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(@T@, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(@T@, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
-- @end

-- @template cbloom_agg 1.1
CREATE AGGREGATE cbloom_agg(@T@) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(@T@) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(@T@, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(@T@, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(@T@, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(@T@, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(@T@, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(@T@, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
-- @end

-- @template bloom_agg_layout 1.3
CREATE AGGREGATE bloom_agg(@T@, bigint, double precision, text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(@T@, bigint, double precision, text) IS 'Bloom filter of the group''s values in the layout ''classic'' or ''blocked'': with the shape of bloom_empty(capacity, fpr, layout), or, capacity NULL, sized for the distinct count seen';
-- @end

-- @template topk_agg_weighted 1.3
CREATE AGGREGATE topk_agg_weighted(@T@, bigint, integer) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(@T@, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg_weighted(@T@, bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_weighted_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg_weighted(@T@, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with Count-Min error epsilon N at probability 1 - delta';
-- @end

-- @template topk_agg_comments 1.5
COMMENT ON AGGREGATE topk_agg(@T@, integer) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg(@T@, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, each with its count''s lower and upper bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
COMMENT ON AGGREGATE topk_agg_weighted(@T@, bigint, integer) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, 1000) values; Count-Min epsilon 0.001, delta 0.05)';
COMMENT ON AGGREGATE topk_agg_weighted(@T@, bigint, integer, double precision, double precision) IS 'topk sketch: the k values of the group with the largest sums of non-negative weights, with bounds (tracks max(2k, ceil(1/epsilon)) values; upper bounds at most epsilon N above the truth at probability 1 - delta)';
-- @end

-- @> and <@ for one key type, so that a bloom_slices index scan knows the key's type from its
-- operator (text has its own since 1.0: `except text`); a key type added later also needs its
-- @> in the operator family bloom_slices_ops (ALTER OPERATOR FAMILY ... ADD).
-- @template bloom_contains_typed 1.5
CREATE FUNCTION bloom_contains(bloom, @T@) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contains(bloom, @T@) IS 'bloom_contains for @T@ keys (so that a bloom_slices index can be used)';
CREATE FUNCTION bloom_contained(@T@, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 50;
COMMENT ON FUNCTION bloom_contained(@T@, bloom) IS 'bloom_contains with the arguments swapped, for @T@ keys (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = @T@, FUNCTION = bloom_contains,
  COMMUTATOR = <@, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR @> (bloom, @T@) IS 'filter probably contains the @T@ value';
CREATE OPERATOR <@ (LEFTARG = @T@, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>, RESTRICT = bloomsketch_contsel);
COMMENT ON OPERATOR <@ (@T@, bloom) IS '@T@ value is probably contained in filter';
-- @end
