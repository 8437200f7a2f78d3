-- bloomsketch 1.0: Bloom filters as a SQL type (doc/reference.md).
\echo Use "CREATE EXTENSION bloomsketch" to load this file. \quit

-- ---------------------------------------------------------------------------
-- type bloom
-- ---------------------------------------------------------------------------
CREATE TYPE bloom;

CREATE FUNCTION bloom_in(cstring) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_out(bloom) RETURNS cstring
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_recv(internal) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_send(bloom) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- STORAGE external: a filter's bits are random, so compressing them is wasted work.
CREATE TYPE bloom (
  INPUT = bloom_in, OUTPUT = bloom_out, RECEIVE = bloom_recv, SEND = bloom_send,
  INTERNALLENGTH = VARIABLE, ALIGNMENT = int4, STORAGE = external
);
COMMENT ON TYPE bloom IS 'Bloom filter: a set of keys with no false negatives and a bounded false-positive rate';
COMMENT ON FUNCTION bloom_in(cstring) IS 'text input of bloom ("\x" and hexadecimal format bytes), validated';
COMMENT ON FUNCTION bloom_out(bloom) IS 'text output of bloom ("\x" and hexadecimal format bytes)';
COMMENT ON FUNCTION bloom_recv(internal) IS 'binary input of bloom (the format bytes), validated';
COMMENT ON FUNCTION bloom_send(bloom) IS 'binary output of bloom (the format bytes)';

CREATE FUNCTION bloom_from_bytea(bytea) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_from_bytea(bytea) IS 'validates format bytes and returns them as a bloom (the bytea to bloom cast)';
CREATE CAST (bloom AS bytea) WITHOUT FUNCTION;
COMMENT ON CAST (bloom AS bytea) IS 'the filter''s format bytes (doc/format.md)';
CREATE CAST (bytea AS bloom) WITH FUNCTION bloom_from_bytea(bytea);
COMMENT ON CAST (bytea AS bloom) IS 'format bytes to a filter, validated';

-- constructors
CREATE FUNCTION bloom_empty(capacity bigint, fpr double precision DEFAULT 0.01) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty(bigint, double precision) IS 'empty filter for capacity values at false-positive rate fpr: m = ceil(-n ln p / ln^2 2) bits, k = round(m/n ln 2) hashes';
CREATE FUNCTION bloom_empty_bits(bits bigint, hashes integer) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_empty_bits(bigint, integer) IS 'empty filter with explicit bits (m) and hashes (k)';

-- adding and looking up
CREATE FUNCTION bloom_add(bloom, anyelement) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloom, anyelement) IS 'a new filter with the value added; a NULL value returns the filter unchanged';
CREATE FUNCTION bloom_contains(bloom, anyelement) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contains(bloom, anyelement) IS 'false if the value was certainly never added; true if it probably was';
CREATE FUNCTION bloom_contained(anyelement, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contained(anyelement, bloom) IS 'bloom_contains with the arguments swapped (operator <@)';

CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = anyelement, FUNCTION = bloom_contains,
  COMMUTATOR = <@);
COMMENT ON OPERATOR @> (bloom, anyelement) IS 'filter probably contains value';
CREATE OPERATOR <@ (LEFTARG = anyelement, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>);
COMMENT ON OPERATOR <@ (anyelement, bloom) IS 'value is probably contained in filter';

-- text overloads: an unknown literal ('abc') cannot resolve anyelement, so
-- these make f @> 'abc' and bloom_add(f, 'abc') work; same C functions.
CREATE FUNCTION bloom_add(bloom, text) RETURNS bloom
  AS 'MODULE_PATHNAME', 'bloom_add' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloom, text) IS 'a new filter with the text value added; a NULL value returns the filter unchanged';
CREATE FUNCTION bloom_contains(bloom, text) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contains(bloom, text) IS 'false if the text value was certainly never added; true if it probably was';
CREATE FUNCTION bloom_contained(text, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_contained(text, bloom) IS 'bloom_contains with the arguments swapped (operator <@)';
CREATE OPERATOR @> (LEFTARG = bloom, RIGHTARG = text, FUNCTION = bloom_contains,
  COMMUTATOR = <@);
COMMENT ON OPERATOR @> (bloom, text) IS 'filter probably contains the text value';
CREATE OPERATOR <@ (LEFTARG = text, RIGHTARG = bloom, FUNCTION = bloom_contained,
  COMMUTATOR = @>);
COMMENT ON OPERATOR <@ (text, bloom) IS 'text value is probably contained in filter';

-- merging
CREATE FUNCTION bloom_union(bloom, bloom) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union(bloom, bloom) IS 'bitwise OR of two filters of the same shape: the filter of the union of their sets';
CREATE FUNCTION bloom_intersection(bloom, bloom) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersection(bloom, bloom) IS 'bitwise AND of two filters of the same shape: contains at least the intersection of their sets';
CREATE OPERATOR | (LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_union, COMMUTATOR = |);
COMMENT ON OPERATOR | (bloom, bloom) IS 'union of two filters (bloom_union)';
CREATE OPERATOR & (LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_intersection, COMMUTATOR = &);
COMMENT ON OPERATOR & (bloom, bloom) IS 'intersection of two filters (bloom_intersection)';

CREATE FUNCTION bloom_union_trans(bloom, bloom) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_union_trans(bloom, bloom) IS 'transition and combine function of bloom_union_agg (ORs in place)';
CREATE FUNCTION bloom_intersection_trans(bloom, bloom) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_intersection_trans(bloom, bloom) IS 'transition and combine function of bloom_intersection_agg (ANDs in place)';
CREATE AGGREGATE bloom_union_agg(bloom) (
  SFUNC = bloom_union_trans, STYPE = bloom, SSPACE = 8192, COMBINEFUNC = bloom_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_union_agg(bloom) IS 'union (bitwise OR) of the filters of a group';
CREATE AGGREGATE bloom_intersection_agg(bloom) (
  SFUNC = bloom_intersection_trans, STYPE = bloom, SSPACE = 8192, COMBINEFUNC = bloom_intersection_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_intersection_agg(bloom) IS 'intersection (bitwise AND) of the filters of a group';

-- equality of the format bytes
CREATE FUNCTION bloom_eq(bloom, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_eq(bloom, bloom) IS 'true if the two filters are identical, byte for byte';
CREATE FUNCTION bloom_ne(bloom, bloom) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_ne(bloom, bloom) IS 'true if the two filters differ';
CREATE OPERATOR = (LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES);
COMMENT ON OPERATOR = (bloom, bloom) IS 'identical filters';
CREATE OPERATOR <> (LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (bloom, bloom) IS 'different filters';
CREATE FUNCTION bloom_hash(bloom) RETURNS integer
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_hash(bloom) IS 'hash of the format bytes (support function of the hash operator class)';
CREATE OPERATOR CLASS bloom_hash_ops DEFAULT FOR TYPE bloom USING hash AS
  OPERATOR 1 = (bloom, bloom),
  FUNCTION 1 bloom_hash(bloom);
COMMENT ON OPERATOR CLASS bloom_hash_ops USING hash IS 'byte equality of filters, so DISTINCT, GROUP BY and hash joins work on bloom';
COMMENT ON OPERATOR FAMILY bloom_hash_ops USING hash IS 'byte equality of filters (the family of bloom_hash_ops)';

-- inspection
CREATE FUNCTION bloom_cardinality(bloom) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_cardinality(bloom) IS 'estimated number of distinct values added, from the fill (Swamidass and Baldi): -(m/k) ln(1 - X/m); Infinity when every bit is set';
CREATE FUNCTION bloom_fpr(bloom) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_fpr(bloom) IS 'current false-positive probability from the fill: (X/m)^k';
CREATE FUNCTION bloom_info(bloom,
  OUT bits bigint, OUT hashes integer, OUT bits_set bigint, OUT fill_ratio double precision,
  OUT estimated_cardinality double precision, OUT estimated_fpr double precision,
  OUT bytes integer, OUT key_family text, OUT format_version integer,
  OUT hash_algorithm text, OUT seed bigint)
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_info(bloom) IS 'shape, fill, estimates, size in bytes, key family and format of a filter';

-- planning helpers
CREATE FUNCTION bloom_optimal_bits(capacity bigint, fpr double precision) RETURNS bigint
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_optimal_bits(bigint, double precision) IS 'bits for capacity values at rate fpr: ceil(-n ln p / ln^2 2)';
CREATE FUNCTION bloom_optimal_hashes(bits bigint, capacity bigint) RETURNS integer
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_optimal_hashes(bigint, bigint) IS 'hashes that minimise the false-positive rate: round(m/n ln 2), at least 1';
CREATE FUNCTION bloom_fpr_estimate(bits bigint, capacity bigint, hashes integer) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_fpr_estimate(bigint, bigint, integer) IS 'the classic approximation (1 - e^(-kn/m))^k';
CREATE FUNCTION bloom_fpr_exact(bits bigint, capacity bigint, hashes integer) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_fpr_exact(bigint, bigint, integer) IS 'Bose et al.''s exact false-positive rate, computed over the bit occupancy distribution; an error past 1e8 steps';

CREATE FUNCTION bloomsketch_hash(anyelement) RETURNS bigint
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomsketch_hash(anyelement) IS 'the canonical 64-bit hash of a value (XXH3-64 of its canonical key bytes, seed 0; doc/hashing.md)';
CREATE FUNCTION bloomsketch_hash(text) RETURNS bigint
  AS 'MODULE_PATHNAME', 'bloomsketch_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloomsketch_hash(text) IS 'the canonical 64-bit hash of a text value (so unknown literals resolve)';

-- ---------------------------------------------------------------------------
-- bloom_agg and its transition state
-- ---------------------------------------------------------------------------
CREATE TYPE bloom_agg_state;
CREATE FUNCTION bloom_agg_state_in(cstring) RETURNS bloom_agg_state
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_agg_state_out(bloom_agg_state) RETURNS cstring
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_agg_state_recv(internal) RETURNS bloom_agg_state
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_agg_state_send(bloom_agg_state) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE bloom_agg_state (
  INPUT = bloom_agg_state_in, OUTPUT = bloom_agg_state_out,
  RECEIVE = bloom_agg_state_recv, SEND = bloom_agg_state_send,
  INTERNALLENGTH = VARIABLE, ALIGNMENT = int4, STORAGE = external
);
COMMENT ON TYPE bloom_agg_state IS 'transition state of bloom_agg (distinct hashes while small, then a foldable filter); exact text and binary round trips so partial aggregates can be shipped';
COMMENT ON FUNCTION bloom_agg_state_in(cstring) IS 'text input of bloom_agg_state, validated';
COMMENT ON FUNCTION bloom_agg_state_out(bloom_agg_state) IS 'text output of bloom_agg_state';
COMMENT ON FUNCTION bloom_agg_state_recv(internal) IS 'binary input of bloom_agg_state, validated';
COMMENT ON FUNCTION bloom_agg_state_send(bloom_agg_state) IS 'binary output of bloom_agg_state';

CREATE FUNCTION bloom_agg_trans(bloom_agg_state, anyelement) RETURNS bloom_agg_state
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloom_agg_state, anyelement) IS 'transition function of bloom_agg(value)';
CREATE FUNCTION bloom_agg_trans(bloom_agg_state, anyelement, double precision) RETURNS bloom_agg_state
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloom_agg_state, anyelement, double precision) IS 'transition function of bloom_agg(value, fpr)';
CREATE FUNCTION bloom_agg_trans(bloom_agg_state, anyelement, bigint, double precision) RETURNS bloom_agg_state
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_trans(bloom_agg_state, anyelement, bigint, double precision) IS 'transition function of bloom_agg(value, capacity, fpr)';
CREATE FUNCTION bloom_agg_combine(bloom_agg_state, bloom_agg_state) RETURNS bloom_agg_state
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_combine(bloom_agg_state, bloom_agg_state) IS 'combine function of bloom_agg: merges partial states';
CREATE FUNCTION bloom_agg_final(bloom_agg_state) RETURNS bloom
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_agg_final(bloom_agg_state) IS 'final function of bloom_agg: the filter, sized for the distinct count seen';

-- Concrete overloads per key type (doc/architecture.md, section 4): Citus distributes only
-- aggregates whose declared argument type equals the argument's type.
-- varchar, char and name resolve to the text overload; real to double precision.

CREATE AGGREGATE bloom_agg(smallint) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(smallint) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(smallint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(smallint, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(smallint, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(smallint, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
CREATE AGGREGATE bloom_agg(integer) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(integer) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(integer, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(integer, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(integer, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(integer, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
CREATE AGGREGATE bloom_agg(bigint) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bigint) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bigint, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(bigint, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bigint, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
CREATE AGGREGATE bloom_agg(text) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(text) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(text, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(text, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(text, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(text, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
CREATE AGGREGATE bloom_agg(bytea) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bytea) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(bytea, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bytea, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(bytea, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(bytea, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
CREATE AGGREGATE bloom_agg(uuid) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(uuid) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(uuid, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(uuid, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(uuid, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(uuid, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
CREATE AGGREGATE bloom_agg(double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(double precision) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(double precision, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(double precision, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(double precision, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(double precision, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
CREATE AGGREGATE bloom_agg(numeric) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(numeric) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(numeric, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(numeric, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(numeric, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(numeric, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
CREATE AGGREGATE bloom_agg(date) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(date) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(date, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(date, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(date, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(date, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
CREATE AGGREGATE bloom_agg(timestamp) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(timestamp) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(timestamp, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(timestamp, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(timestamp, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(timestamp, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';
CREATE AGGREGATE bloom_agg(timestamptz) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(timestamptz) IS 'Bloom filter of the group''s values at a 1% false-positive rate, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(timestamptz, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 256,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(timestamptz, double precision) IS 'Bloom filter of the group''s values at false-positive rate fpr, sized for the distinct count seen';
CREATE AGGREGATE bloom_agg(timestamptz, bigint, double precision) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, SSPACE = 8192,
  COMBINEFUNC = bloom_agg_combine, FINALFUNC = bloom_agg_final, FINALFUNC_MODIFY = READ_ONLY,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_agg(timestamptz, bigint, double precision) IS 'Bloom filter of the group''s values with the shape of bloom_empty(capacity, fpr)';

-- ---------------------------------------------------------------------------
-- type cms (Count-Min sketch)
-- ---------------------------------------------------------------------------
CREATE TYPE cms;

CREATE FUNCTION cms_in(cstring) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cms_out(cms) RETURNS cstring
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cms_recv(internal) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cms_send(cms) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE cms (
  INPUT = cms_in, OUTPUT = cms_out, RECEIVE = cms_recv, SEND = cms_send,
  INTERNALLENGTH = VARIABLE, ALIGNMENT = int4, STORAGE = extended
);
COMMENT ON TYPE cms IS 'Count-Min sketch: approximate frequencies, never below the true count and at most eps N above it with probability 1 - delta';
COMMENT ON FUNCTION cms_in(cstring) IS 'text input of cms ("\x" and hexadecimal format bytes), validated';
COMMENT ON FUNCTION cms_out(cms) IS 'text output of cms ("\x" and hexadecimal format bytes)';
COMMENT ON FUNCTION cms_recv(internal) IS 'binary input of cms (the format bytes), validated';
COMMENT ON FUNCTION cms_send(cms) IS 'binary output of cms (the format bytes)';

CREATE FUNCTION cms_from_bytea(bytea) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_from_bytea(bytea) IS 'validates format bytes and returns them as a cms (the bytea to cms cast)';
CREATE CAST (cms AS bytea) WITHOUT FUNCTION;
COMMENT ON CAST (cms AS bytea) IS 'the sketch''s format bytes (doc/format.md)';
CREATE CAST (bytea AS cms) WITH FUNCTION cms_from_bytea(bytea);
COMMENT ON CAST (bytea AS cms) IS 'format bytes to a count-min sketch, validated';

CREATE FUNCTION cms_empty(epsilon double precision DEFAULT 0.001, delta double precision DEFAULT 0.01) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_empty(double precision, double precision) IS 'empty sketch with error eps N at probability 1 - delta: width = ceil(e / epsilon), depth = ceil(ln(1 / delta))';
CREATE FUNCTION cms_empty_dims(width integer, depth integer) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_empty_dims(integer, integer) IS 'empty sketch with an explicit width and depth (1 to 64 rows)';

CREATE FUNCTION cms_add(cms, anyelement, count bigint DEFAULT 1) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cms_add(cms, anyelement, bigint) IS 'a new sketch with count added for the value; a NULL value or count returns the sketch unchanged';
CREATE FUNCTION cms_add(cms, text, count bigint DEFAULT 1) RETURNS cms
  AS 'MODULE_PATHNAME', 'cms_add' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cms_add(cms, text, bigint) IS 'cms_add for text values (so unknown literals resolve)';
CREATE FUNCTION cms_frequency(cms, anyelement) RETURNS bigint
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_frequency(cms, anyelement) IS 'estimated count of the value: never below the true count';
CREATE FUNCTION cms_frequency(cms, text) RETURNS bigint
  AS 'MODULE_PATHNAME', 'cms_frequency' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_frequency(cms, text) IS 'cms_frequency for text values (so unknown literals resolve)';
CREATE OPERATOR -> (LEFTARG = cms, RIGHTARG = anyelement, FUNCTION = cms_frequency);
COMMENT ON OPERATOR -> (cms, anyelement) IS 'estimated count of the value (cms_frequency)';
CREATE OPERATOR -> (LEFTARG = cms, RIGHTARG = text, FUNCTION = cms_frequency);
COMMENT ON OPERATOR -> (cms, text) IS 'estimated count of the text value (cms_frequency)';

CREATE FUNCTION cms_total(cms) RETURNS bigint
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_total(cms) IS 'total count N of everything added';
CREATE FUNCTION cms_error_bound(cms) RETURNS double precision
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_error_bound(cms) IS 'eps N with eps = e / width: the additive error that holds with probability 1 - delta';

CREATE FUNCTION cms_union(cms, cms) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_union(cms, cms) IS 'counter-wise sum of two sketches of the same shape: the sketch of both streams, exactly';
CREATE OPERATOR + (LEFTARG = cms, RIGHTARG = cms, FUNCTION = cms_union, COMMUTATOR = +);
COMMENT ON OPERATOR + (cms, cms) IS 'sum of two sketches (cms_union)';
CREATE FUNCTION cms_union_trans(cms, cms) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_union_trans(cms, cms) IS 'transition and combine function of cms_union_agg and combine function of cms_agg and cms_agg_weighted (adds in place)';
CREATE AGGREGATE cms_union_agg(cms) (
  SFUNC = cms_union_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_union_agg(cms) IS 'sum of the sketches of a group';

CREATE FUNCTION cms_inner_product(cms, cms) RETURNS numeric
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_inner_product(cms, cms) IS 'estimated inner product of the two streams'' frequency vectors (the size of their equi-join); never below the true value';

CREATE FUNCTION cms_info(cms,
  OUT width bigint, OUT depth integer, OUT epsilon double precision, OUT delta double precision,
  OUT total bigint, OUT bytes integer, OUT key_family text, OUT format_version integer,
  OUT hash_algorithm text, OUT seed bigint)
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_info(cms) IS 'shape, the epsilon and delta it guarantees, total, size in bytes, key family and format of a sketch';

CREATE FUNCTION cms_eq(cms, cms) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_eq(cms, cms) IS 'true if the two sketches are identical, byte for byte';
CREATE FUNCTION cms_ne(cms, cms) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_ne(cms, cms) IS 'true if the two sketches differ';
CREATE OPERATOR = (LEFTARG = cms, RIGHTARG = cms, FUNCTION = cms_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES);
COMMENT ON OPERATOR = (cms, cms) IS 'identical sketches';
CREATE OPERATOR <> (LEFTARG = cms, RIGHTARG = cms, FUNCTION = cms_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (cms, cms) IS 'different sketches';
CREATE FUNCTION cms_hash(cms) RETURNS integer
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cms_hash(cms) IS 'hash of the format bytes (support function of the hash operator class)';
CREATE OPERATOR CLASS cms_hash_ops DEFAULT FOR TYPE cms USING hash AS
  OPERATOR 1 = (cms, cms),
  FUNCTION 1 cms_hash(cms);
COMMENT ON OPERATOR CLASS cms_hash_ops USING hash IS 'byte equality of sketches, so DISTINCT, GROUP BY and hash joins work on cms';
COMMENT ON OPERATOR FAMILY cms_hash_ops USING hash IS 'byte equality of sketches (the family of cms_hash_ops)';

CREATE FUNCTION cms_agg_trans(cms, anyelement) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cms_agg_trans(cms, anyelement) IS 'transition function of cms_agg(value)';
CREATE FUNCTION cms_agg_trans(cms, anyelement, double precision, double precision) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cms_agg_trans(cms, anyelement, double precision, double precision) IS 'transition function of cms_agg(value, epsilon, delta)';
CREATE FUNCTION cms_agg_weighted_trans(cms, anyelement, bigint) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cms_agg_weighted_trans(cms, anyelement, bigint) IS 'transition function of cms_agg_weighted(value, weight)';
CREATE FUNCTION cms_agg_weighted_trans(cms, anyelement, bigint, double precision, double precision) RETURNS cms
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION cms_agg_weighted_trans(cms, anyelement, bigint, double precision, double precision) IS 'transition function of cms_agg_weighted(value, weight, epsilon, delta)';

-- Concrete overloads per key type, as for bloom_agg. The state is the sketch
-- itself (its size is fixed by epsilon and delta), so there is no final function.

CREATE AGGREGATE cms_agg(smallint) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(smallint) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(smallint, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(smallint, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(smallint, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(smallint, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(smallint, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(smallint, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg(integer) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(integer) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(integer, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(integer, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(integer, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(integer, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(integer, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(integer, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg(bigint) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(bigint) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(bigint, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(bigint, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(bigint, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(bigint, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(bigint, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(bigint, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg(text) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(text) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(text, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(text, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(text, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(text, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(text, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(text, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg(bytea) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(bytea) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(bytea, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(bytea, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(bytea, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(bytea, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(bytea, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(bytea, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg(uuid) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(uuid) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(uuid, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(uuid, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(uuid, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(uuid, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(uuid, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(uuid, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg(double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(double precision) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(double precision, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(double precision, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(double precision, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(double precision, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(double precision, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(double precision, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg(numeric) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(numeric) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(numeric, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(numeric, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(numeric, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(numeric, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(numeric, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(numeric, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg(date) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(date) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(date, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(date, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(date, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(date, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(date, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(date, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg(timestamp) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(timestamp) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(timestamp, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(timestamp, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(timestamp, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(timestamp, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(timestamp, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(timestamp, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg(timestamptz) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(timestamptz) IS 'Count-Min sketch: count of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg(timestamptz, double precision, double precision) (
  SFUNC = cms_agg_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg(timestamptz, double precision, double precision) IS 'Count-Min sketch: count of each value of the group, with error epsilon N at probability 1 - delta';
CREATE AGGREGATE cms_agg_weighted(timestamptz, bigint) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(timestamptz, bigint) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group (epsilon 0.001, delta 0.01)';
CREATE AGGREGATE cms_agg_weighted(timestamptz, bigint, double precision, double precision) (
  SFUNC = cms_agg_weighted_trans, STYPE = cms, SSPACE = 108808, COMBINEFUNC = cms_union_trans,
  PARALLEL = SAFE
);
COMMENT ON AGGREGATE cms_agg_weighted(timestamptz, bigint, double precision, double precision) IS 'Count-Min sketch: sum of the non-negative weights of each value of the group, with error epsilon N at probability 1 - delta';

-- ---------------------------------------------------------------------------
-- type topk (heavy hitters: Count-Min estimates plus 2k candidate values)
-- ---------------------------------------------------------------------------
CREATE TYPE topk;

CREATE FUNCTION topk_in(cstring) RETURNS topk
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION topk_out(topk) RETURNS cstring
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION topk_recv(internal) RETURNS topk
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION topk_send(topk) RETURNS bytea
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE topk (
  INPUT = topk_in, OUTPUT = topk_out, RECEIVE = topk_recv, SEND = topk_send,
  INTERNALLENGTH = VARIABLE, ALIGNMENT = int4, STORAGE = extended
);
COMMENT ON TYPE topk IS 'heavy hitters: the k most frequent values of a stream, from Count-Min estimates and a bounded set of candidates';
COMMENT ON FUNCTION topk_in(cstring) IS 'text input of topk ("\x" and hexadecimal format bytes), validated';
COMMENT ON FUNCTION topk_out(topk) IS 'text output of topk ("\x" and hexadecimal format bytes)';
COMMENT ON FUNCTION topk_recv(internal) IS 'binary input of topk (the format bytes), validated';
COMMENT ON FUNCTION topk_send(topk) IS 'binary output of topk (the format bytes)';

CREATE FUNCTION topk_from_bytea(bytea) RETURNS topk
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_from_bytea(bytea) IS 'validates format bytes and returns them as a topk (the bytea to topk cast)';
CREATE CAST (topk AS bytea) WITHOUT FUNCTION;
COMMENT ON CAST (topk AS bytea) IS 'the sketch''s format bytes (doc/format.md)';
CREATE CAST (bytea AS topk) WITH FUNCTION topk_from_bytea(bytea);
COMMENT ON CAST (bytea AS topk) IS 'format bytes to a topk sketch, validated';

CREATE FUNCTION topk_add(topk, anyelement, count bigint DEFAULT 1) RETURNS topk
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION topk_add(topk, anyelement, bigint) IS 'a new sketch with count added for the value; a NULL value or count returns the sketch unchanged';
CREATE FUNCTION topk_add(topk, text, count bigint DEFAULT 1) RETURNS topk
  AS 'MODULE_PATHNAME', 'topk_add' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION topk_add(topk, text, bigint) IS 'topk_add for text values (so unknown literals resolve)';
CREATE FUNCTION topk_items(topk) RETURNS TABLE(value text, frequency bigint)
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION topk_items(topk) IS 'the k most frequent values, most frequent first, printed as their type prints them, with their estimated counts (never below the true count)';
CREATE FUNCTION topk_info(topk,
  OUT k integer, OUT width bigint, OUT depth integer, OUT epsilon double precision,
  OUT delta double precision, OUT total bigint, OUT candidates integer, OUT bytes integer,
  OUT key_family text, OUT format_version integer)
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_info(topk) IS 'k, the count-min shape and its guarantees, total, candidates held, size in bytes, key family and format of a sketch';

CREATE FUNCTION topk_merge_trans(topk, topk) RETURNS topk
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_merge_trans(topk, topk) IS 'merges two sketches (counters added, candidates re-ranked): combine function of topk_agg, transition and combine function of topk_union_agg';
CREATE FUNCTION topk_final(topk) RETURNS topk
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_final(topk) IS 'final function of topk_agg and topk_union_agg: the canonical (compact, sorted) form';
CREATE AGGREGATE topk_union_agg(topk) (
  SFUNC = topk_merge_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_union_agg(topk) IS 'merge of the topk sketches of a group';

CREATE FUNCTION topk_agg_trans(topk, anyelement, integer) RETURNS topk
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION topk_agg_trans(topk, anyelement, integer) IS 'transition function of topk_agg(value, k)';
CREATE FUNCTION topk_agg_trans(topk, anyelement, integer, double precision, double precision) RETURNS topk
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION topk_agg_trans(topk, anyelement, integer, double precision, double precision) IS 'transition function of topk_agg(value, k, epsilon, delta)';

-- Concrete overloads per key type, as for bloom_agg.

CREATE AGGREGATE topk_agg(smallint, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(smallint, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(smallint, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(smallint, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg(integer, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(integer, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(integer, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(integer, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg(bigint, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(bigint, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(bigint, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(bigint, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg(text, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(text, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(text, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(text, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg(bytea, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(bytea, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(bytea, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(bytea, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg(uuid, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(uuid, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(uuid, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(uuid, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg(double precision, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(double precision, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(double precision, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(double precision, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg(numeric, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(numeric, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(numeric, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(numeric, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg(date, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(date, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(date, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(date, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg(timestamp, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(timestamp, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(timestamp, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(timestamp, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
CREATE AGGREGATE topk_agg(timestamptz, integer) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(timestamptz, integer) IS 'topk sketch: the k most frequent values of the group (Count-Min epsilon 0.001, delta 0.01)';
CREATE AGGREGATE topk_agg(timestamptz, integer, double precision, double precision) (
  SFUNC = topk_agg_trans, STYPE = topk, SSPACE = 110000, COMBINEFUNC = topk_merge_trans,
  FINALFUNC = topk_final, FINALFUNC_MODIFY = READ_ONLY, PARALLEL = SAFE
);
COMMENT ON AGGREGATE topk_agg(timestamptz, integer, double precision, double precision) IS 'topk sketch: the k most frequent values of the group, with Count-Min error epsilon N at probability 1 - delta';
