
# 005_upgrade: sketches stored under extension version 1.0 survive
#   - ALTER EXTENSION bloomsketch UPDATE (1.0 -> 1.1 -> ... -> the default version of the control file) in place,
#     and
#   - a pg_dump taken under 1.0, restored into a fresh cluster (pg_dump records
#     CREATE EXTENSION without a version, so the restore gets the default version), and into a
#     database where 1.0 was created first (kept at 1.0, then updated),
# byte for byte and with the same answers; cbloom is then available and agrees with the
# stored filters; and the catalog of an updated installation is the catalog of a fresh default
# installation (every member object with its definition and comment).  The library is the
# current one throughout, so topk_agg makes format 2 even under the 1.0 catalog; the topk
# values of format 1 that 1.0 to 1.4 stored are inserted as the bytes 1.4 made.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BSTest;

my $tmp = PostgreSQL::Test::Utils::tempdir;

my $old = bs_node('old', conf => ['log_statement = ddl'], no_extension => 1);
my $new = bs_node('new', conf => ['log_statement = ddl'], no_extension => 1);
my $v = bs_default_version($new);
$old->safe_psql('postgres', 'CREATE DATABASE u');
$old->safe_psql('u', "CREATE EXTENSION bloomsketch VERSION '1.0'");
is($old->safe_psql('u', q{SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch'}), '1.0',
	'version 1.0 installed');
is($old->safe_psql('u', q{SELECT to_regtype('cbloom') IS NULL}), 't', 'no cbloom in 1.0');

$old->safe_psql(
	'u', q{
CREATE AGGREGATE bloom_agg_partial(bigint) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE TABLE b (id int PRIMARY KEY, f bloom);
INSERT INTO b VALUES
  (1, (SELECT bloom_agg(k, 10000, 0.01) FROM generate_series(1, 3000) k)),
  (2, (SELECT bloom_agg('k' || k) FROM generate_series(1, 2000) k)),
  (3, bloom_empty_bits(64, 3)),
  (4, (SELECT bloom_agg(k, 1000000, 0.01) FROM generate_series(1, 20000) k)),
  (5, NULL);
CREATE TABLE st (id int PRIMARY KEY, s bloom_agg_state);
INSERT INTO st VALUES (1, (SELECT bloom_agg_partial(k) FROM generate_series(1, 500) k)), (2, NULL);
CREATE TABLE c (id int PRIMARY KEY, s cms);
INSERT INTO c VALUES
  (1, (SELECT cms_agg(k % 100) FROM generate_series(1, 10000) k)),
  (2, (SELECT cms_agg_weighted('k' || (k % 7), k, 0.01, 0.01) FROM generate_series(1, 1000) k)),
  (3, NULL);
CREATE TABLE t (id int PRIMARY KEY, s topk);
INSERT INTO t VALUES (1, (SELECT topk_agg(k % 50 + k % 7, 5) FROM generate_series(1, 5000) k)), (2, NULL),
  (3, '\x42534b540104010100000000000000001c000000000000000200000003000000640000000000000006000000300000000f000000000000000e000000000000000e00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e0000000000000000000000000000000f00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001d000000000000000e000000000000000f000000000000000000000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000000000000000000000000000000000043e2ee915cc686200f0000000000000000000000080000002e79db643559bc2f0f0000000000000008000000080000007d2ef4c12920924d0e0000000000000010000000080000003b676347da4b996b0e0000000000000018000000080000008ca7aa39aae9038e0e00000000000000200000000800000078715ed90a2922ca0e000000000000002800000008000000020000000000000001000000000000000300000000000000060000000000000005000000000000000400000000000000'), (4, '\x42534b540104010200000000000000000800000000000000010000000200000006000000000000000300000003000000000000000000000000000000000000000300000000000000000000000000000000000000000000000000000000000000010000000000000002000000000000001bf8b9469a21408c030000000000000000000000010000003f84d8441c0b5a57020000000000000001000000010000001f4e961eb632c6e601000000000000000200000001000000000000000000000000000000000000000000000000000000636261');
CREATE TABLE a (id int PRIMARY KEY, fs bloom[]);
INSERT INTO a VALUES (1, ARRAY[bloom_add(bloom_empty(10, 0.1), 1), NULL]);
CREATE VIEW v AS SELECT id, CASE id WHEN 1 THEN f @> 42 ELSE f @> 'k42' END AS has42 FROM b WHERE id < 3;
});

# the values, what they answer, and what the 1.0 functions say about them
my $fp_sql = q{
SELECT 'b', id, md5(f::bytea), octet_length(f::bytea),
       (SELECT ROW(i.bits, i.hashes, i.bits_set, i.fill_ratio, i.estimated_cardinality, i.estimated_fpr,
                   i.bytes, i.key_family, i.format_version, i.hash_algorithm, i.seed)::text
          FROM bloom_info(f) i),
       (SELECT count(*) FILTER (WHERE CASE fam WHEN 'text' THEN f @> ('k' || k) ELSE f @> k END)
          FROM generate_series(1, 5000) k)
  FROM (SELECT id, f::bytea::bloom AS f, (bloom_info(f)).key_family AS fam FROM b OFFSET 0) x ORDER BY id;
SELECT 'st', id, md5(bloom_agg_state_send(s)), md5(bloom_agg_final(s)::bytea) FROM st ORDER BY id;
SELECT 'c', id, md5(s::bytea), cms_info(s)::text,
       (SELECT string_agg((CASE fam WHEN 'text' THEN s -> ('k' || k) ELSE s -> k END)::text, ',' ORDER BY k)
          FROM generate_series(0, 120) k)
  FROM (SELECT id, s, (cms_info(s)).key_family AS fam FROM c OFFSET 0) x ORDER BY id;
SELECT 't', id, md5(s::bytea),
       (SELECT ROW(i.k, i.width, i.depth, i.epsilon, i.delta, i.total, i.candidates, i.bytes, i.key_family,
                   i.format_version)::text FROM topk_info(s) i),
       (SELECT string_agg(value || '=' || frequency, ',') FROM topk_items(s)) FROM t ORDER BY id;
SELECT 'a', id, md5(fs::text) FROM a ORDER BY id;
SELECT 'v', * FROM v ORDER BY id;
SELECT 'agg', md5(bloom_agg_partial(k)::text) FROM generate_series(1, 100) k;
};
my $fp_10 = $old->safe_psql('u', $fp_sql);
like($fp_10, qr/^b\|4\|[0-9a-f]{32}\|1198181\|/m, 'the 1.2 MB filter is there');

# Every member of the extension with its definition and comment.
my $catalog_sql = q{
SELECT pg_describe_object(d.classid, d.objid, 0),
  CASE d.classid
    WHEN 'pg_proc'::regclass THEN (
      SELECT concat_ws(' ', p.prorettype::regtype, p.proisstrict, p.provolatile, p.proparallel, p.prosrc,
                       p.prokind, p.prosecdef, p.proleakproof, pg_get_function_arguments(p.oid),
                       (SELECT concat_ws(' ', g.aggtransfn::regprocedure, g.aggfinalfn::regprocedure,
                                         g.aggcombinefn::regprocedure, g.aggserialfn, g.aggdeserialfn,
                                         g.aggtranstype::regtype, g.aggtransspace, g.aggfinalmodify)
                          FROM pg_aggregate g WHERE g.aggfnoid = p.oid))
        FROM pg_proc p WHERE p.oid = d.objid)
    WHEN 'pg_type'::regclass THEN (
      SELECT concat_ws(' ', y.typlen, y.typalign, y.typstorage, y.typinput, y.typoutput, y.typreceive, y.typsend,
                       y.typcategory, y.typarray <> 0)
        FROM pg_type y WHERE y.oid = d.objid)
    WHEN 'pg_operator'::regclass THEN (
      SELECT concat_ws(' ', o.oprcode, o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin,
                       o.oprcanhash, o.oprcanmerge)
        FROM pg_operator o WHERE o.oid = d.objid)
    WHEN 'pg_cast'::regclass THEN (
      SELECT concat_ws(' ', c.castfunc::regprocedure, c.castcontext, c.castmethod) FROM pg_cast c WHERE c.oid = d.objid)
  END,
  (SELECT description FROM pg_description x WHERE x.classoid = d.classid AND x.objoid = d.objid AND x.objsubid = 0)
FROM pg_depend d
WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomsketch')
ORDER BY 1;
};

# --- the dump taken under 1.0
$old->command_ok([ 'pg_dump', '-Fc', '-d', 'u', '-f', "$tmp/u10.dump" ], 'pg_dump -Fc under 1.0');
$old->command_ok([ 'pg_dump', '-Fp', '-d', 'u', '-f', "$tmp/u10.sql" ], 'pg_dump -Fp under 1.0');
my $plain = slurp_file("$tmp/u10.sql");
like($plain, qr/^CREATE EXTENSION IF NOT EXISTS bloomsketch WITH SCHEMA public;$/m,
	'the dump records CREATE EXTENSION without a version');

# --- ALTER EXTENSION UPDATE in place
$old->safe_psql('u', 'ALTER EXTENSION bloomsketch UPDATE');
is($old->safe_psql('u', q{SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch'}), $v,
	"ALTER EXTENSION UPDATE: now $v");
is( $old->safe_psql(
		'u', q{
SELECT string_agg(id || ':' || (topk_info(s)).format_version || ':' || coalesce((topk_info(s)).untracked_max::text, 'none') || ':'
                  || (SELECT string_agg(value || '=' || frequency || '/' || lower_bound || '-' || upper_bound, ',')
                      FROM topk_items_bounds(s)), ' ' ORDER BY id)
FROM t WHERE id IN (3, 4)}),
	'3:1:none:2=15/0-15,1=15/0-15,3=14/0-14 4:1:none:c=3/0-3,b=2/0-2',
	'after the update: the stored format-1 topk values list with their bounds, as 1.4 listed them (c 3, b 2)');
is($old->safe_psql('u', $fp_sql), $fp_10, 'after the update: every stored value identical byte for byte, same answers');
is( $old->safe_psql(
		'u', q{
SELECT count(*) FROM b
 WHERE id IN (1, 4)
   AND (SELECT cbloom_agg(k, CASE id WHEN 1 THEN 10000 ELSE 1000000 END, 0.01)::bloom
          FROM generate_series(1, CASE id WHEN 1 THEN 3000 ELSE 20000 END) k) = f}),
	'2',
	'after the update: cbloom works, and its bit view equals the stored filters of the same keys and shape');
$old->safe_psql('u',
	q{CREATE TABLE cb AS SELECT cbloom_remove(cbloom_agg(k, 1000, 0.01, 8), 5) AS f FROM generate_series(1, 100) k});
is($old->safe_psql('u', q{SELECT f @> 5, f @> 6, cbloom_count(f, 6) FROM cb}), 'f|t|1',
	'after the update: a cbloom column can be created, added to and removed from');
my $cat_updated = $old->safe_psql('u', $catalog_sql);

# --- the 1.0 dump into a fresh cluster: the extension there is the default version
$new->safe_psql('postgres', 'CREATE DATABASE r_custom');
$new->command_ok([ 'pg_restore', '--exit-on-error', '-d', 'r_custom', "$tmp/u10.dump" ],
	'pg_restore of the 1.0 dump into a fresh cluster');
is($new->safe_psql('r_custom', q{SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch'}), $v,
	"the restore created the default version $v");
is($new->safe_psql('r_custom', $fp_sql), $fp_10, "1.0 dump restored under $v (custom format): identical bytes and answers");
is($new->safe_psql('r_custom', q{SELECT (SELECT cbloom_agg(k, 10000, 0.01)::bloom FROM generate_series(1, 3000) k) = f FROM b WHERE id = 1}),
	't', 'cbloom available there, and consistent with the restored filter');

$new->safe_psql('postgres', 'CREATE DATABASE r_plain');
$new->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'r_plain', '-f', "$tmp/u10.sql" ],
	'psql restores the plain 1.0 dump into a fresh cluster');
is($new->safe_psql('r_plain', $fp_sql), $fp_10, "1.0 dump restored under $v (plain format): identical bytes and answers");

# --- into a database where 1.0 was created first: CREATE EXTENSION IF NOT EXISTS keeps it
$new->safe_psql('postgres', 'CREATE DATABASE r_keep');
$new->safe_psql('r_keep', "CREATE EXTENSION bloomsketch VERSION '1.0'");
$new->command_ok([ 'pg_restore', '--exit-on-error', '-d', 'r_keep', "$tmp/u10.dump" ],
	'pg_restore of the 1.0 dump into a database with 1.0');
is($new->safe_psql('r_keep', q{SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch'}), '1.0',
	'the extension there stays 1.0');
is($new->safe_psql('r_keep', $fp_sql), $fp_10, 'restored under 1.0: identical bytes and answers');
$new->safe_psql('r_keep', 'ALTER EXTENSION bloomsketch UPDATE');
is($new->safe_psql('r_keep', $fp_sql), $fp_10, 'and after ALTER EXTENSION UPDATE there: identical');

# --- an updated installation has the catalog of a fresh one
$new->safe_psql('postgres', 'CREATE DATABASE fresh');
$new->safe_psql('fresh', 'CREATE EXTENSION bloomsketch');
my $cat_fresh = $new->safe_psql('fresh', $catalog_sql);
my $members = () = $cat_fresh =~ /\n/g;
$members++;
cmp_ok($members, '>', 100, "a fresh $v installation has $members member objects");
is($cat_updated, $cat_fresh, "the updated installation (1.0 + UPDATE) has the same members, definitions and comments as a fresh $v");
is($new->safe_psql('r_keep', $catalog_sql), $cat_fresh, 'so has the one updated after the restore');
is($new->safe_psql('r_custom', $catalog_sql), $cat_fresh, 'and the one the 1.0 dump created');

my $nvals = $old->safe_psql('u',
	'SELECT (SELECT count(*) FROM b) + (SELECT count(*) FROM st) + (SELECT count(*) FROM c) + (SELECT count(*) FROM t) + (SELECT count(*) FROM a)');
diag(sprintf('005 upgrade: %d rows of 1.0 sketches compared after UPDATE and after 3 restores of the 1.0 dump; %d extension members compared', $nvals, $members));

$old->stop;
$new->stop;
done_testing();
