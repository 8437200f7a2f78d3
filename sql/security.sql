--
-- security: bloomsketch is a trusted extension (doc/security.md): a user
-- with CREATE on a database installs it without being superuser, and the
-- install and upgrade scripts, which then run as superuser, are safe against
-- search_path tricks; nothing runs with another user's rights.
--
-- The installing non-superuser plants look-alikes of everything the scripts
-- refer to by name (the selectivity estimators of the operators, a key type,
-- the extension's own function names with other arguments) in a schema that
-- is first in search_path.  CREATE EXTENSION and ALTER EXTENSION UPDATE must
-- still bind every object to pg_catalog or to the extension itself: every
-- dependency of every member points into pg_catalog or at another member.
-- Runs in its own database.
--
SELECT current_database() AS regress_db \gset
CREATE DATABASE bloomsketch_security;
\c bloomsketch_security
CREATE ROLE bloomsketch_mallory LOGIN;
GRANT CREATE ON DATABASE bloomsketch_security TO bloomsketch_mallory;
SET ROLE bloomsketch_mallory;
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
CREATE SCHEMA trap;
CREATE SCHEMA sketches;
CREATE TABLE trap.fired (what text);
-- Functions named like ours and like a cast function, that record being
-- called.  (Look-alikes of the operators' selectivity estimators cannot be
-- planted: they take internal arguments, which only C functions, that is
-- superusers, can declare; the estimators are checked below all the same.)
CREATE FUNCTION trap.bloom_add(anyelement, anyelement) RETURNS anyelement
  LANGUAGE sql AS $$ INSERT INTO trap.fired VALUES ('bloom_add'); SELECT $1 $$;
CREATE FUNCTION trap.int8(bigint) RETURNS bigint
  LANGUAGE sql AS $$ INSERT INTO trap.fired VALUES ('int8'); SELECT $1 $$;
-- A domain named like a key type.
CREATE DOMAIN trap.text AS pg_catalog.varchar(3);
GRANT ALL ON TABLE trap.fired TO PUBLIC;

SET search_path = trap, sketches, public;
CREATE EXTENSION bloomsketch SCHEMA sketches VERSION '1.0';
ALTER EXTENSION bloomsketch UPDATE;
SELECT e.extversion, n.nspname AS schema, e.extowner::regrole AS extension_owner
FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
WHERE e.extname = 'bloomsketch';
-- The objects belong to the bootstrap superuser, not to the installer.
SELECT DISTINCT t.typowner::regrole = (SELECT oid FROM pg_roles WHERE oid = 10)::regrole AS owned_by_bootstrap_superuser
FROM pg_type t WHERE t.typname IN ('bloom', 'cms', 'topk', 'cbloom', 'bloom_agg_state');
RESET ROLE;

-- Every dependency of a member points into pg_catalog or at a member.  (The
-- array types of member types, members since PostgreSQL 17, are left out:
-- they are made with their type and depend on it alone.)
CREATE TEMP VIEW members AS
SELECT d.classid, d.objid FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch')
  AND NOT (d.classid = 'pg_type'::regclass
           AND EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = d.objid));
CREATE TEMP VIEW foreign_dependencies AS
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS member,
       pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid) AS depends_on
FROM pg_depend d JOIN members m ON m.classid = d.classid AND m.objid = d.objid
WHERE d.deptype = 'n'
  AND NOT EXISTS (SELECT 1 FROM members m2 WHERE m2.classid = d.refclassid AND m2.objid = d.refobjid)
  AND NOT (d.refclassid = 'pg_namespace'::regclass
           AND d.refobjid = (SELECT extnamespace FROM pg_extension WHERE extname = 'bloomsketch'))
  AND pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid) NOT LIKE 'schema %'
  AND COALESCE((pg_identify_object(d.refclassid, d.refobjid, d.refobjsubid)).schema, 'pg_catalog') <> 'pg_catalog';
SELECT count(*) AS members FROM members;
SELECT * FROM foreign_dependencies ORDER BY 1, 2;
-- The check catches a member bound to a planted object (one added by hand).
CREATE FUNCTION sketches.security_probe(trap.text) RETURNS integer LANGUAGE sql AS 'SELECT 1';
ALTER EXTENSION bloomsketch ADD FUNCTION sketches.security_probe(trap.text);
SELECT * FROM foreign_dependencies ORDER BY 1, 2;
ALTER EXTENSION bloomsketch DROP FUNCTION sketches.security_probe(trap.text);
DROP FUNCTION sketches.security_probe(trap.text);
-- The operators' estimators are pg_catalog's, or a member of the extension
-- (bloomsketch_contsel, of @> and <@).
SELECT DISTINCT oprrest::regproc::text AS restrict, oprjoin::regproc::text AS "join"
FROM pg_operator
WHERE oid IN (SELECT objid FROM members WHERE classid = 'pg_operator'::regclass) AND oprrest <> 0
ORDER BY 1;
SELECT o.oprrest = 'pg_catalog.eqsel'::regproc OR o.oprrest = 'pg_catalog.neqsel'::regproc AS catalog_estimators,
       o.oprrest IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass) AS member_estimators,
       count(*)
FROM pg_operator o
WHERE o.oid IN (SELECT objid FROM members WHERE classid = 'pg_operator'::regclass) AND o.oprrest <> 0
GROUP BY 1, 2 ORDER BY 1, 2;

-- Nothing runs with its owner's rights or changes settings: no SECURITY
-- DEFINER, no SET clauses, no SQL or PL bodies at all (every function is C).
SELECT count(*) FILTER (WHERE p.prosecdef) AS security_definer,
       count(*) FILTER (WHERE p.proconfig IS NOT NULL) AS with_set_clause,
       string_agg(DISTINCT l.lanname, ', ') AS languages
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.oid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass) AND p.prokind <> 'a';
-- Aggregates' support functions are members too.
SELECT count(*) AS aggregates_with_foreign_support
FROM pg_aggregate a
WHERE a.aggfnoid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)
  AND EXISTS (SELECT 1 FROM unnest(ARRAY[a.aggtransfn, a.aggfinalfn, a.aggcombinefn]::oid[]) f(oid)
              WHERE f.oid <> 0 AND f.oid NOT IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass));

-- Using the extension through the trapped search_path fires no trap.
SELECT sketches.bloom_add(sketches.bloom_empty(100), 42::bigint) @> 42::bigint AS found,
       bloom_agg(x) @> 'abc' AS text_found
FROM (VALUES ('abc'::pg_catalog.text)) v(x);
SELECT count(*) AS traps_fired FROM trap.fired;

-- The installer cannot change what the extension's functions are.
SET ROLE bloomsketch_mallory;
CREATE OR REPLACE FUNCTION sketches.bloom_empty(capacity bigint, fpr double precision DEFAULT 0.01)
  RETURNS sketches.bloom LANGUAGE sql AS 'SELECT NULL::sketches.bloom';
\echo SQLSTATE :SQLSTATE
DROP EXTENSION bloomsketch;
RESET ROLE;

\c :regress_db
DROP DATABASE bloomsketch_security;
DROP ROLE bloomsketch_mallory;
