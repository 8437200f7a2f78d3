
# 009_bloom_slices: the bloom_slices index (src/bloom_slices*.c) answers f @> key exactly as the
# sequential scan does, for 10,000 keys (present and absent) on a table of five filter shapes:
#   - on a primary, after 8 concurrent writers (pgbench: inserts, updates, deletes, lookups,
#     summarizes and VACUUMs at once);
#   - on a streaming standby, from the WAL alone (generic WAL records), and lookups on it while
#     the writers run (a swap replayed under a lookup makes it read again, never fail);
#   - after a crash in the middle of the writers (stop -m immediate), recovered;
#   - after REINDEX CONCURRENTLY, CREATE INDEX CONCURRENTLY, and pg_dump / pg_restore;
#   - lookups while 24 kB inserts extend the index under them never fail, and agree after.
# Each comparison is a fingerprint of every key's matching rows (md5 of the lists) and their
# total, computed once with the index (a bitmap scan per key) and once with a sequential scan.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use BSTest;

my $primary = PostgreSQL::Test::Cluster->new('bslprimary');
$primary->init(allows_streaming => 1);
$primary->append_conf(
	'postgresql.conf', join("\n",
		"lc_messages = 'C'", "shared_buffers = 128MB", "max_wal_size = 2GB",
		"max_connections = 40", "log_min_messages = warning", "autovacuum = off"));
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION bloomsketch');

$primary->safe_psql(
	'postgres', q{
CREATE FUNCTION bsl_filter(g int) RETURNS bloom LANGUAGE sql AS $$
  SELECT bloom_add_all(CASE g % 5
      WHEN 0 THEN bloom_empty(64, 0.01)
      WHEN 1 THEN bloom_empty(64, 0.01, 'blocked')
      WHEN 2 THEN bloom_empty(200, 0.05)
      WHEN 3 THEN bloom_empty_bits(1000, 3)
      ELSE bloom_empty_bits(1024, 5, 'blocked') END,
    array_agg(x)) FROM generate_series(g, g + 40) x $$;
CREATE SEQUENCE bsl_seq START 100000;
CREATE TABLE bsl (id int PRIMARY KEY, f bloom);
INSERT INTO bsl SELECT g, bsl_filter(g) FROM generate_series(1, 3000) g;
CREATE INDEX bsl_f ON bsl USING bloom_slices (f);
CREATE TABLE bsl_keys AS SELECT k FROM generate_series(-1000, 8999) k;
ANALYZE bsl_keys;
CREATE FUNCTION bsl_answers(use_index boolean) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  PERFORM set_config('enable_seqscan', (NOT use_index)::text, true);
  PERFORM set_config('enable_bitmapscan', use_index::text, true);
  PERFORM set_config('enable_indexscan', 'false', true);
  PERFORM set_config('enable_hashjoin', 'false', true);
  PERFORM set_config('enable_mergejoin', 'false', true);
  PERFORM set_config('max_parallel_workers_per_gather', '0', true);
  EXECUTE $q$SELECT count(*) || ' keys, ' || sum(n) || ' matches, ' || md5(string_agg(k || '=' || ids, ',' ORDER BY k))
    FROM (SELECT bsl_keys.k, count(bsl.id) n, coalesce(string_agg(bsl.id::text, ' ' ORDER BY bsl.id), '') ids
          FROM bsl_keys LEFT JOIN bsl ON bsl.f @> bsl_keys.k GROUP BY bsl_keys.k) s$q$ INTO r;
  RETURN r;
END $$;
});

# index and sequential scan agree on $node (db), and the plan uses the index
sub same_answers
{
	my ($node, $label, %o) = @_;
	my $db = $o{db} || 'postgres';
	my $seq = $o{seq} // $node->safe_psql($db, 'SELECT bsl_answers(false)');
	my $idx = $node->safe_psql($db, 'SELECT bsl_answers(true)');
	my $plan = $node->safe_psql($db,
		"SET enable_seqscan = off; EXPLAIN (COSTS OFF) SELECT id FROM bsl WHERE f @> 42");
	like($plan, qr/Bitmap Index Scan on $o{index}/, "$label: the lookup is a bitmap index scan")
	  if $o{index};
	is($idx, $seq, "$label: index answers = sequential scan answers ($seq)");
	return $seq;
}

same_answers($primary, 'after the build', index => 'bsl_f');

$primary->backup('bslbackup');
my $standby = PostgreSQL::Test::Cluster->new('bslstandby');
$standby->init_from_backup($primary, 'bslbackup', has_streaming => 1);
$standby->start;

# 8 writers: each transaction inserts, updates and deletes rows and looks a key up; now and
# then one summarizes the pending rows or VACUUMs the table
my $dir = PostgreSQL::Test::Utils::tempdir;
my $script = "$dir/writers.sql";
open(my $fh, '>', $script) or die "cannot write $script: $!";
print $fh <<'EOS';
\set g random(1, 6000)
\set r random(1, 60)
BEGIN;
INSERT INTO bsl VALUES (nextval('bsl_seq'), bsl_filter(:g));
UPDATE bsl SET f = bsl_filter(:g + 7) WHERE id = :g;
DELETE FROM bsl WHERE id = :g + 1;
SELECT count(*) FROM bsl WHERE f @> :g;
COMMIT;
\if :r = 1
SELECT bloom_slices_summarize('bsl_f');
\elif :r = 2
VACUUM bsl;
\endif
EOS
close($fh);

sub pgbench_cmd
{
	my ($node, $secs) = @_;
	return [ 'pgbench', '-n', '-c', '8', '-j', '2', '-T', $secs, '-f', $script,
		$node->connstr('postgres') ];
}

my ($out, $err) = ('', '');
my $run = IPC::Run::start(pgbench_cmd($primary, 5), '>', \$out, '2>', \$err);
# meanwhile the standby replays their summarizes and VACUUMs under lookups, which must read
# again, not fail, when a swap is replayed while they read
my ($lookups, $lookup_errors) = (0, 0);
while ($run->pumpable)
{
	my ($ret, $o, $e) = $standby->psql('postgres',
		"SET enable_seqscan = off; SELECT count(*) FROM bsl, generate_series(1, 3000, 37) k WHERE f @> k");
	$lookups++;
	if ($ret != 0) { $lookup_errors++; diag($e); }
	$run->pump_nb;
}
my $ok = $run->finish;
ok($ok, '8 concurrent writers ran for 5 s without an error') or diag($err);
is($lookup_errors, 0, "index lookups on the standby during the writes: $lookups, none failed");
my ($tx) = $out =~ /number of transactions actually processed: (\d+)/;
note "writers: " . ($tx // '?') . " transactions";
my $info = $primary->safe_psql('postgres', 'SELECT * FROM bloom_slices_info(\'bsl_f\')');
note "bloom_slices_info after the writers: $info";
my $seq = same_answers($primary, 'after 8 concurrent writers', index => 'bsl_f');

$primary->wait_for_catchup($standby);
same_answers($standby, 'on the streaming standby', seq => $seq, index => 'bsl_f');

$primary->safe_psql('postgres', 'VACUUM bsl');
$seq = same_answers($primary, 'after VACUUM');

# a crash in the middle of the writers
my ($cout, $cerr) = ('', '');
my $writers = IPC::Run::start(pgbench_cmd($primary, 30), '>', \$cout, '2>', \$cerr);
sleep 4;
$primary->stop('immediate');
$writers->finish;
$primary->start;
$seq = same_answers($primary, 'after a crash during the writes (stop -m immediate)', index => 'bsl_f');
$primary->wait_for_catchup($standby);
same_answers($standby, 'standby after the primary\'s crash', seq => $seq);

# the index is still writable and vacuumable after recovery
$primary->safe_psql('postgres',
	"INSERT INTO bsl SELECT nextval('bsl_seq'), bsl_filter(g) FROM generate_series(1, 500) g;
	 DELETE FROM bsl WHERE id % 13 = 0; VACUUM bsl;");
$seq = same_answers($primary, 'after inserts, deletes and VACUUM after recovery');

$primary->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY bsl_f');
same_answers($primary, 'after REINDEX CONCURRENTLY', seq => $seq, index => 'bsl_f');
$primary->safe_psql('postgres',
	'DROP INDEX bsl_f; CREATE INDEX CONCURRENTLY bsl_f2 ON bsl USING bloom_slices (f)');
same_answers($primary, 'after CREATE INDEX CONCURRENTLY', seq => $seq, index => 'bsl_f2');
$primary->wait_for_catchup($standby);
same_answers($standby, 'standby after CREATE INDEX CONCURRENTLY', seq => $seq, index => 'bsl_f2');

# pg_dump and pg_restore into a new database
my $dump = "$dir/bsl.dump";
$primary->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $primary->connstr('postgres') ],
	'pg_dump of a database with a bloom_slices index');
$primary->safe_psql('postgres', 'CREATE DATABASE restored');
$primary->command_ok([ 'pg_restore', '-d', $primary->connstr('restored'), $dump ],
	'pg_restore of it');
same_answers($primary, 'in the restored database', db => 'restored', seq => $seq,
	index => 'bsl_f2');

# lookups while inserts extend the index: filters of 24 kB span pages, so nearly every insert
# adds pages at the relation's end, which lookups walking the pending list then reach (such a
# page was once taken for a broken list: "a page is not what the index says")
$primary->safe_psql(
	'postgres', q{
CREATE TABLE bsl_grow (id bigserial, f bloom);
CREATE INDEX bsl_grow_f ON bsl_grow USING bloom_slices (f);
INSERT INTO bsl_grow (f) SELECT bloom_add(bloom_empty(20000, 0.01), g) FROM generate_series(1, 20) g;});
my $grow_ins = "$dir/grow_insert.sql";
my $grow_look = "$dir/grow_lookup.sql";
open($fh, '>', $grow_ins) or die "cannot write $grow_ins: $!";
print $fh "INSERT INTO bsl_grow (f) SELECT bloom_add(bloom_empty(20000, 0.01), (random() * 1000)::int);\n";
close($fh);
open($fh, '>', $grow_look) or die "cannot write $grow_look: $!";
print $fh "SET enable_seqscan = off;\nSELECT count(*) FROM bsl_grow WHERE f @> 5;\n";
close($fh);
my $pages_before = $primary->safe_psql('postgres', "SELECT pg_relation_size('bsl_grow_f') / 8192");
my ($gout, $gerr) = ('', '');
my $grow = IPC::Run::run(
	[ 'pgbench', '-n', '-c', '6', '-j', '2', '-T', '6', '-f', "$grow_ins\@1", '-f', "$grow_look\@1",
		$primary->connstr('postgres') ],
	'>', \$gout, '2>', \$gerr);
ok($grow, 'lookups while inserts extend the index ran for 6 s without an error') or diag($gerr);
my $pages_after = $primary->safe_psql('postgres', "SELECT pg_relation_size('bsl_grow_f') / 8192");
my ($gtx) = $gout =~ /number of transactions actually processed: (\d+)/;
note "inserts and lookups: " . ($gtx // '?') . " transactions, index pages $pages_before -> $pages_after";
cmp_ok($pages_after - $pages_before, '>', 100, 'the inserts extended the index meanwhile');
my $grow_cmp = q{
SELECT count(*) FROM generate_series(0, 1000, 25) k, bsl_grow WHERE f @> k};
my $grow_seq = $primary->safe_psql('postgres', "SET enable_bitmapscan = off; $grow_cmp");
my $grow_idx = $primary->safe_psql('postgres',
	"SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off; $grow_cmp");
is($grow_idx, $grow_seq, "after them, index answers = sequential scan answers ($grow_seq matches)");

$standby->stop;
$primary->stop;
done_testing();
