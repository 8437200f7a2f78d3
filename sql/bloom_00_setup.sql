--
-- bloom_00_setup: every object the extension installs exists and is
-- documented.
--
-- Each file creates the extension itself (quietly when another file in this
-- database already did), so that it runs alone and in any order.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomsketch;
RESET client_min_messages;

-- The extension's members by kind.  PostgreSQL 17 and later make the array
-- type of each member type (bloom[], ...) a member too; these lists leave
-- them out, so that they are the same on every version.
SELECT d.classid::regclass AS catalog, count(*) AS members
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch')
  AND d.deptype = 'e'
  AND NOT (d.classid = 'pg_type'::regclass
           AND EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = d.objid))
GROUP BY 1 ORDER BY d.classid::regclass::text COLLATE "C";

-- Every member, as \dx+ lists it (less those array types).
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS member
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch')
  AND d.deptype = 'e'
  AND NOT (d.classid = 'pg_type'::regclass
           AND EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = d.objid))
ORDER BY pg_describe_object(d.classid, d.objid, d.objsubid) COLLATE "C";

-- Every member type has its array type, named as usual.
SELECT t.typname, t.typarray::regtype AS array_type
FROM pg_depend d JOIN pg_type t ON t.oid = d.objid
WHERE d.classid = 'pg_type'::regclass
  AND d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch')
  AND d.deptype = 'e'
  AND NOT (d.classid = 'pg_type'::regclass
           AND EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = d.objid))
ORDER BY t.typname COLLATE "C";

-- Members without a comment: must be none (the array types of member types
-- have none: they are made with their type).
CREATE TEMP VIEW bloom_undocumented AS
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS undocumented
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch')
  AND d.deptype = 'e'
  AND NOT (d.classid = 'pg_type'::regclass
           AND EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = d.objid))
  AND NOT EXISTS (SELECT 1 FROM pg_description c
                  WHERE c.classoid = d.classid AND c.objoid = d.objid
                    AND c.objsubid = 0 AND c.description <> '');
SELECT * FROM bloom_undocumented ORDER BY 1;

-- The check catches a member without a comment (a function added by hand).
CREATE FUNCTION bloom_setup_probe() RETURNS integer LANGUAGE sql AS 'SELECT 1';
ALTER EXTENSION bloomsketch ADD FUNCTION bloom_setup_probe();
SELECT * FROM bloom_undocumented ORDER BY 1;
ALTER EXTENSION bloomsketch DROP FUNCTION bloom_setup_probe();
DROP FUNCTION bloom_setup_probe();
SELECT count(*) AS undocumented_members FROM bloom_undocumented;
DROP VIEW bloom_undocumented;

-- The objects the user-facing API is made of, looked up by signature.
SELECT to_regtype('bloom') IS NOT NULL AS has_bloom,
       to_regtype('bloom_agg_state') IS NOT NULL AS has_bloom_agg_state;
SELECT sig, to_regprocedure(sig) IS NOT NULL AS present
FROM unnest(ARRAY[
  'bloom_empty(bigint,double precision)',
  'bloom_empty_bits(bigint,integer)',
  'bloom_add(bloom,anyelement)', 'bloom_add(bloom,text)',
  'bloom_contains(bloom,anyelement)', 'bloom_contains(bloom,text)',
  'bloom_contained(anyelement,bloom)', 'bloom_contained(text,bloom)',
  'bloom_union(bloom,bloom)', 'bloom_intersection(bloom,bloom)',
  'bloom_eq(bloom,bloom)', 'bloom_ne(bloom,bloom)',
  'bloom_cardinality(bloom)', 'bloom_fpr(bloom)', 'bloom_info(bloom)',
  'bloom_optimal_bits(bigint,double precision)',
  'bloom_optimal_hashes(bigint,bigint)',
  'bloom_fpr_estimate(bigint,bigint,integer)',
  'bloom_fpr_exact(bigint,bigint,integer)',
  'bloomsketch_hash(anyelement)', 'bloomsketch_hash(text)',
  'bloom_from_bytea(bytea)']) AS sig
ORDER BY sig COLLATE "C";
SELECT oprname, oprleft::regtype, oprright::regtype, oprcode::regprocedure,
       oprcom::regoperator AS commutator, oprnegate::regoperator AS negator
FROM pg_operator
WHERE oprleft = 'bloom'::regtype OR oprright = 'bloom'::regtype
ORDER BY oprname COLLATE "C", oprleft::regtype::text COLLATE "C", oprright::regtype::text COLLATE "C";
SELECT castsource::regtype, casttarget::regtype, castfunc::regprocedure, castcontext, castmethod
FROM pg_cast
WHERE castsource = 'bloom'::regtype OR casttarget = 'bloom'::regtype
ORDER BY castsource::regtype::text COLLATE "C", casttarget::regtype::text COLLATE "C";
