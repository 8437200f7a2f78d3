-- bloomsketch 1.1 -> 1.2: byte equality and a hash operator class for topk,
-- like the other sketch types (doc/reference.md, section 12).
\echo Use "ALTER EXTENSION bloomsketch UPDATE TO '1.2'" to load this file. \quit

-- equality of the format bytes (topk values made by the extension are in
-- their canonical form, so the same heavy hitters from the same input give
-- the same bytes however the input was split)
CREATE FUNCTION topk_eq(topk, topk) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_eq(topk, topk) IS 'true if the two sketches are identical, byte for byte';
CREATE FUNCTION topk_ne(topk, topk) RETURNS boolean
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_ne(topk, topk) IS 'true if the two sketches differ';
CREATE OPERATOR = (LEFTARG = topk, RIGHTARG = topk, FUNCTION = topk_eq,
  COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES);
COMMENT ON OPERATOR = (topk, topk) IS 'identical sketches';
CREATE OPERATOR <> (LEFTARG = topk, RIGHTARG = topk, FUNCTION = topk_ne,
  COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel);
COMMENT ON OPERATOR <> (topk, topk) IS 'different sketches';
CREATE FUNCTION topk_hash(topk) RETURNS integer
  AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION topk_hash(topk) IS 'hash of the format bytes (support function of the hash operator class)';
CREATE OPERATOR CLASS topk_hash_ops DEFAULT FOR TYPE topk USING hash AS
  OPERATOR 1 = (topk, topk),
  FUNCTION 1 topk_hash(topk);
COMMENT ON OPERATOR CLASS topk_hash_ops USING hash IS 'byte equality of sketches, so DISTINCT, GROUP BY and hash joins work on topk';
COMMENT ON OPERATOR FAMILY topk_hash_ops USING hash IS 'byte equality of sketches (the family of topk_hash_ops)';
