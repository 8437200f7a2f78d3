
# 008_sliced_corrupt: a sliced lookup (src/sketch_arg.c) of a stored value whose TOAST chunks are
# gone is an error with SQLSTATE XX001, never a read of bytes that are not there.
#
# Three 1.2 MB filters (600 TOAST chunks each) are stored.  With the server stopped, the
# TOAST page that holds the last chunk of filter 1 (a sliced lookup always reads it) and the
# page that holds a middle chunk of filter 2 are overwritten with zeros: PostgreSQL reads a
# zeroed page as an empty one, so those chunks are missing while the TOAST index still lists
# them, as after a torn or lost write.  Then: lookups in filter 1 and in filter 2 (one key per
# row, so some meet the missing chunk) fail with XX001 and the server stays up; filter 3 answers
# as before.  (A header that disagrees with the stored size is tested in
# sql/sliced_lookup.sql, where the value can be made without stopping the server.)

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use BSTest;

my $node = bs_node('sliced');
$node->safe_psql(
	'postgres', q{
CREATE TABLE t (id int, f bloom);
INSERT INTO t
SELECT g, bloom_agg(i * 7919 + g, 1000000, 0.01)
FROM generate_series(1, 3) g, generate_series(1::bigint, 2000) i GROUP BY g ORDER BY g;
CREATE TABLE keys AS SELECT k::bigint FROM generate_series(1, 20000, 7) k
UNION ALL SELECT i * 7919 + g FROM generate_series(1, 3) g, generate_series(1::bigint, 2000, 50) i;
CHECKPOINT;
});

my $toast = $node->safe_psql('postgres',
	q{SELECT reltoastrelid::regclass FROM pg_class WHERE relname = 't'});
my $file = $node->data_dir . '/'
  . $node->safe_psql('postgres',
	q{SELECT pg_relation_filepath(reltoastrelid) FROM pg_class WHERE relname = 't'});
my $chunks = $node->safe_psql('postgres', "SELECT count(*) FROM $toast");
is($chunks, 3 * 601, 'three filters of 601 TOAST chunks each');

# the value ids in insertion order (ids 1, 2, 3), and the block of a chunk
my @values = split /\n/,
  $node->safe_psql('postgres',
	"SELECT chunk_id FROM $toast WHERE chunk_seq = 0 ORDER BY ctid");
is(scalar(@values), 3, 'three TOAST values');

sub block_of
{
	my ($value, $seq) = @_;
	my $ctid = $node->safe_psql('postgres',
		"SELECT ctid FROM $toast WHERE chunk_id = $value AND chunk_seq = $seq");
	my ($block) = $ctid =~ /^\((\d+),/ or die "no ctid for chunk $seq of $value";
	return $block;
}

my $before3 = $node->safe_psql('postgres',
	'SELECT count(*) FROM keys, t WHERE t.id = 3 AND t.f @> keys.k');
cmp_ok($before3, '>', 0, "filter 3 finds $before3 keys before the damage");

my @blocks = (block_of($values[0], 600), block_of($values[1], 300));
$node->stop;
open(my $fh, '+<', $file) or die "open $file: $!";
binmode $fh;
for my $b (@blocks)
{
	sysseek($fh, $b * 8192, 0) or die "seek: $!";
	syswrite($fh, "\0" x 8192) == 8192 or die "write: $!";
}
close $fh;
$node->start;
note "zeroed TOAST blocks @blocks of $file";

my ($ret, $out, $err, $state) =
  bs_psql_err($node, 'postgres', 'SELECT f @> 42::bigint FROM t WHERE id = 1');
isnt($ret, 0, 'a lookup in filter 1, whose last chunk is gone, fails');
is($state, 'XX001', 'with SQLSTATE XX001 (data corrupted)');
like($err, qr/missing chunk number/, 'naming the missing chunk');

# one key per row of keys: each lookup is sliced (the filter differs from row to row of the
# nested loop's inner side), so the lookups that meet chunk 300 of filter 2 fail
($ret, $out, $err, $state) = bs_psql_err($node, 'postgres',
	'SET enable_hashjoin = off; SET enable_mergejoin = off;
	 SELECT count(*) FROM keys CROSS JOIN t WHERE t.id IN (2, 3) AND t.f @> keys.k');
isnt($ret, 0, 'lookups in filter 2, a middle chunk of which is gone, fail');
is($state, 'XX001', 'with SQLSTATE XX001 (data corrupted)');

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is up');
is($node->safe_psql('postgres', 'SELECT count(*) FROM keys, t WHERE t.id = 3 AND t.f @> keys.k'),
	$before3, 'filter 3, untouched, answers as before');

$node->stop;
done_testing();
