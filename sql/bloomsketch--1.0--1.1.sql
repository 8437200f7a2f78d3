-- bloomsketch 1.0 -> 1.1: the counting Bloom filter type cbloom (doc/reference.md).
\echo Use "ALTER EXTENSION bloomsketch UPDATE TO '1.1'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- type cbloom (counting Bloom filter)
-- ---------------------------------------------------------------------------
CREATE TYPE cbloom;
CREATE FUNCTION cbloom_in(cstring) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cbloom_out(cbloom) RETURNS cstring
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cbloom_recv(internal) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cbloom_send(cbloom) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- STORAGE external: the counters of a filter at its capacity are close to
-- random, so compressing them is wasted work (as for bloom).
CREATE TYPE cbloom (
  INPUT = cbloom_in, OUTPUT = cbloom_out, RECEIVE = cbloom_recv, SEND = cbloom_send,
  INTERNALLENGTH = VARIABLE, ALIGNMENT = int4, STORAGE = external
);
COMMENT ON TYPE cbloom IS 'counting Bloom filter: a multiset of keys that supports removal, with no false negatives for values that were added';
COMMENT ON FUNCTION cbloom_in(cstring) IS 'text input of cbloom ("\x" and hexadecimal format bytes), validated';
COMMENT ON FUNCTION cbloom_out(cbloom) IS 'text output of cbloom ("\x" and hexadecimal format bytes)';
COMMENT ON FUNCTION cbloom_recv(internal) IS 'binary input of cbloom (the format bytes), validated';
COMMENT ON FUNCTION cbloom_send(cbloom) IS 'binary output of cbloom (the format bytes)';

CREATE FUNCTION cbloom_from_bytea(bytea) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_from_bytea(bytea) IS 'validates format bytes and returns them as a cbloom (the bytea to cbloom cast)';
CREATE CAST (cbloom AS bytea) WITHOUT FUNCTION;
COMMENT ON CAST (cbloom AS bytea) IS 'the filter''s format bytes (doc/format.md)';
CREATE CAST (bytea AS cbloom) WITH FUNCTION cbloom_from_bytea(bytea);
COMMENT ON CAST (bytea AS cbloom) IS 'format bytes to a counting filter, validated';

CREATE FUNCTION cbloom_to_bloom(cbloom) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_to_bloom(cbloom) IS 'the bit view: a bloom filter of the same shape with the bits whose counters are non-zero (the cbloom to bloom cast)';
CREATE CAST (cbloom AS bloom) WITH FUNCTION cbloom_to_bloom(cbloom);
COMMENT ON CAST (cbloom AS bloom) IS 'the bit view of a counting filter, mergeable with bloom filters of the same shape';

-- constructor
CREATE FUNCTION cbloom_empty(capacity bigint, fpr double precision DEFAULT 0.01, counter_bits integer DEFAULT 4) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_empty(bigint, double precision, integer) IS 'empty counting filter for capacity values at false-positive rate fpr (the shape of bloom_empty), with 4- or 8-bit counters';

-- adding, removing and looking up
CREATE FUNCTION cbloom_add(cbloom, anyelement) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_add(cbloom, anyelement) IS 'a new filter with the value added once (a NULL value adds nothing); counters saturate at their maximum';
CREATE FUNCTION cbloom_remove(cbloom, anyelement) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_remove(cbloom, anyelement) IS 'a new filter with the value removed once; an error if the value is certainly absent; saturated counters stay';
CREATE FUNCTION cbloom_contains(cbloom, anyelement) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_contains(cbloom, anyelement) IS 'false if the value is certainly not in the filter, true if it probably is';
CREATE FUNCTION cbloom_contained(anyelement, cbloom) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_contained(anyelement, cbloom) IS 'cbloom_contains with the arguments swapped (the <@ operator)';
CREATE FUNCTION cbloom_count(cbloom, anyelement) RETURNS integer
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_count(cbloom, anyelement) IS 'upper bound on how many times the value was added (the minimum of its counters); the counter maximum (15 or 255) means its counters saturated and the count is unknown';
CREATE OPERATOR @> (LEFTARG = cbloom, RIGHTARG = anyelement, FUNCTION = cbloom_contains,
  COMMUTATOR = <@);
COMMENT ON OPERATOR @> (cbloom, anyelement) IS 'filter probably contains value (cbloom_contains)';
CREATE OPERATOR <@ (LEFTARG = anyelement, RIGHTARG = cbloom, FUNCTION = cbloom_contained,
  COMMUTATOR = @>);
COMMENT ON OPERATOR <@ (anyelement, cbloom) IS 'value probably in filter (cbloom_contained)';

-- text overloads: an unknown literal ('abc') cannot resolve anyelement, so
-- these make f @> 'abc' and cbloom_add(f, 'abc') work; same C functions.
CREATE FUNCTION cbloom_add(cbloom, text) RETURNS cbloom
  AS 'MODULE_PATHNAME', 'cbloom_add' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_add(cbloom, text) IS 'a new filter with the text value added once';
CREATE FUNCTION cbloom_remove(cbloom, text) RETURNS cbloom
  AS 'MODULE_PATHNAME', 'cbloom_remove' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_remove(cbloom, text) IS 'a new filter with the text value removed once';
CREATE FUNCTION cbloom_contains(cbloom, text) RETURNS boolean
  AS 'MODULE_PATHNAME', 'cbloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_contains(cbloom, text) IS 'false if the text value is certainly not in the filter';
CREATE FUNCTION cbloom_contained(text, cbloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'cbloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_contained(text, cbloom) IS 'cbloom_contains(cbloom, text) with the arguments swapped';
CREATE FUNCTION cbloom_count(cbloom, text) RETURNS integer
  AS 'MODULE_PATHNAME', 'cbloom_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_count(cbloom, text) IS 'upper bound on how many times the text value was added';
CREATE OPERATOR @> (LEFTARG = cbloom, RIGHTARG = text, FUNCTION = cbloom_contains,
  COMMUTATOR = <@);
COMMENT ON OPERATOR @> (cbloom, text) IS 'filter probably contains the text value';
CREATE OPERATOR <@ (LEFTARG = text, RIGHTARG = cbloom, FUNCTION = cbloom_contained,
  COMMUTATOR = @>);
COMMENT ON OPERATOR <@ (text, cbloom) IS 'text value probably in filter';

-- merging: counter-wise saturating sum
CREATE FUNCTION cbloom_union(cbloom, cbloom) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_union(cbloom, cbloom) IS 'counter-wise saturating sum of two counting filters of the same shape';
CREATE OPERATOR + (LEFTARG = cbloom, RIGHTARG = cbloom, FUNCTION = cbloom_union, COMMUTATOR = +);
COMMENT ON OPERATOR + (cbloom, cbloom) IS 'sum of two counting filters (cbloom_union)';
CREATE FUNCTION cbloom_subtract(cbloom, cbloom) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_subtract(cbloom, cbloom) IS 'the first filter with the second one''s values removed (the second must hold only values added to the first, such as an earlier part of it); saturated counters stay';
CREATE OPERATOR - (LEFTARG = cbloom, RIGHTARG = cbloom, FUNCTION = cbloom_subtract);
COMMENT ON OPERATOR - (cbloom, cbloom) IS 'the first filter with the second one''s values removed (cbloom_subtract)';
CREATE FUNCTION cbloom_union_trans(cbloom, cbloom) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_union_trans(cbloom, cbloom) IS 'transition and combine function of cbloom_union_agg and combine function of cbloom_agg(value, capacity, fpr) (adds in place)';
CREATE AGGREGATE cbloom_union_agg(cbloom) (
  SFUNC = cbloom_union_trans, STYPE = cbloom, SSPACE = 8192, COMBINEFUNC = cbloom_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_union_agg(cbloom) IS 'counter-wise saturating sum of the counting filters of a group';

-- equality of the format bytes
CREATE FUNCTION cbloom_eq(cbloom, cbloom) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_eq(cbloom, cbloom) IS 'true if the two filters are identical, byte for byte';
CREATE FUNCTION cbloom_ne(cbloom, cbloom) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_ne(cbloom, cbloom) IS 'true if the two filters differ';
CREATE OPERATOR = (LEFTARG = cbloom, RIGHTARG = cbloom, FUNCTION = cbloom_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES);
COMMENT ON OPERATOR = (cbloom, cbloom) IS 'identical filters';
CREATE OPERATOR <> (LEFTARG = cbloom, RIGHTARG = cbloom, FUNCTION = cbloom_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (cbloom, cbloom) IS 'different filters';
CREATE FUNCTION cbloom_hash(cbloom) RETURNS integer
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_hash(cbloom) IS 'hash of the format bytes (support function of the hash operator class)';
CREATE OPERATOR CLASS cbloom_hash_ops DEFAULT FOR TYPE cbloom USING hash AS
  OPERATOR 1 = (cbloom, cbloom),
  FUNCTION 1 cbloom_hash(cbloom);
COMMENT ON OPERATOR CLASS cbloom_hash_ops USING hash IS 'byte equality of filters, so DISTINCT, GROUP BY and hash joins work on cbloom';
COMMENT ON OPERATOR FAMILY cbloom_hash_ops USING hash IS 'byte equality of filters (the family of cbloom_hash_ops)';

-- inspection
CREATE FUNCTION cbloom_info(cbloom,
  OUT counters bigint, OUT hashes integer, OUT counter_bits integer,
  OUT counters_zero bigint, OUT counters_saturated bigint, OUT fill_ratio double precision,
  OUT estimated_cardinality double precision, OUT estimated_fpr double precision,
  OUT bytes integer, OUT key_family text, OUT format_version integer,
  OUT hash_algorithm text, OUT seed bigint, OUT counter_max integer)
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_info(cbloom) IS 'shape, counters at zero and saturated, estimated distinct values and false-positive rate, size in bytes, key family and format of a counting filter';

-- ---------------------------------------------------------------------------
-- cbloom_agg
-- ---------------------------------------------------------------------------
CREATE FUNCTION cbloom_agg_trans(bloom_agg_state, anyelement) RETURNS bloom_agg_state
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_agg_trans(bloom_agg_state, anyelement) IS 'transition function of cbloom_agg(value): distinct hashes with their counts';
CREATE FUNCTION cbloom_agg_trans(bloom_agg_state, anyelement, double precision) RETURNS bloom_agg_state
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_agg_trans(bloom_agg_state, anyelement, double precision) IS 'transition function of cbloom_agg(value, fpr)';
CREATE FUNCTION cbloom_agg_final(bloom_agg_state) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_agg_final(bloom_agg_state) IS 'final function of cbloom_agg(value [, fpr]): the counting filter, sized for the distinct count seen';
CREATE FUNCTION cbloom_agg_capacity_trans(cbloom, anyelement, bigint, double precision) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_agg_capacity_trans(cbloom, anyelement, bigint, double precision) IS 'transition function of cbloom_agg(value, capacity, fpr): adds in place';
CREATE FUNCTION cbloom_agg_capacity_trans(cbloom, anyelement, bigint, double precision, integer) RETURNS cbloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cbloom_agg_capacity_trans(cbloom, anyelement, bigint, double precision, integer) IS 'transition function of cbloom_agg(value, capacity, fpr, counter_bits): adds in place';

-- Concrete overloads per key type, as for bloom_agg (doc/architecture.md, section 4).
-- cbloom_agg(value [, fpr]) shares bloom_agg's state and combine function in
-- its counting form; cbloom_agg(value, capacity, fpr [, counter_bits])'s
-- state is the filter.

CREATE AGGREGATE cbloom_agg(smallint) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(smallint) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(smallint, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(smallint, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(smallint, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(smallint, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(smallint, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(smallint, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
CREATE AGGREGATE cbloom_agg(integer) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(integer) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(integer, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(integer, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(integer, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(integer, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(integer, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(integer, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
CREATE AGGREGATE cbloom_agg(bigint) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(bigint) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(bigint, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(bigint, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(bigint, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(bigint, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(bigint, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(bigint, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
CREATE AGGREGATE cbloom_agg(text) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(text) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(text, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(text, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(text, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(text, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(text, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(text, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
CREATE AGGREGATE cbloom_agg(bytea) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(bytea) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(bytea, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(bytea, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(bytea, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(bytea, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(bytea, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(bytea, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
CREATE AGGREGATE cbloom_agg(uuid) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(uuid) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(uuid, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(uuid, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(uuid, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(uuid, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(uuid, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(uuid, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
CREATE AGGREGATE cbloom_agg(double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(double precision) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(double precision, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(double precision, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(double precision, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(double precision, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(double precision, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(double precision, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
CREATE AGGREGATE cbloom_agg(numeric) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(numeric) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(numeric, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(numeric, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(numeric, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(numeric, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(numeric, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(numeric, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
CREATE AGGREGATE cbloom_agg(date) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(date) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(date, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(date, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(date, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(date, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(date, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(date, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
CREATE AGGREGATE cbloom_agg(timestamp) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(timestamp) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(timestamp, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(timestamp, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(timestamp, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(timestamp, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(timestamp, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(timestamp, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
CREATE AGGREGATE cbloom_agg(timestamptz) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(timestamptz) IS 'counting Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(timestamptz, double precision) (
  SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = cbloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(timestamptz, double precision) IS 'counting Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE cbloom_agg(timestamptz, bigint, double precision) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(timestamptz, bigint, double precision) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr)';
CREATE AGGREGATE cbloom_agg(timestamptz, bigint, double precision, integer) (
  SFUNC = cbloom_agg_capacity_trans, STYPE = cbloom, SSPACE = 8192,
  COMBINEFUNC = cbloom_union_trans, PARALLEL = SAFE
);
COMMENT ON AGGREGATE cbloom_agg(timestamptz, bigint, double precision, integer) IS 'counting Bloom filter of the group''s values with the shape of cbloom_empty(capacity, fpr, counter_bits)';
