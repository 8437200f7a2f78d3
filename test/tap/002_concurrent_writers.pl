
# 002_concurrent_writers: 8 psql sessions update the SAME rows of a bloom, a cms, a cbloom
# and a topk table for a bounded time, each transaction logging the values it added in
# the same transaction; one transaction in ten rolls back on purpose.  Afterwards every
# stored sketch must be exactly the sketch of the committed (logged) values: nothing
# lost to concurrent updates, nothing counted from a rolled-back transaction.
#
# BS_TAP_WRITERS (8) and BS_TAP_WRITE_SECONDS (15) change the load.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use BSTest;

my $nwriters = $ENV{BS_TAP_WRITERS} || 8;
my $seconds = $ENV{BS_TAP_WRITE_SECONDS} || 15;
my $seed = $ENV{BS_TAP_SEED} || int(rand(1 << 30));
srand($seed);
note "random seed $seed (BS_TAP_SEED)";

my $node = bs_node('writers', conf => [ 'log_statement = none', "max_connections = 40" ]);
bs_writer_schema($node, 'postgres');

my @writers = map { BSTest::Writer->new($node, 'postgres', $_, 0, 5000) } 1 .. $nwriters;
my $ran = BSTest::Writer->run_for(\@writers, $seconds);
my $t0 = time;
$_->finish for @writers;
note sprintf('writers ran %.1f s, then %.1f s to drain', $ran, time - $t0);

my (%acked, %rolled, %failed, %sent_commit, %sent_rollback);
my ($vals_committed, $vals_rolled_back, $errors) = (0, 0, '');
for my $w (@writers)
{
	%acked = (%acked, %{ $w->{acked} });
	%rolled = (%rolled, %{ $w->{rolled_back} });
	%failed = (%failed, %{ $w->{failed} });
	for my $tag (keys %{ $w->{txns} })
	{
		if   ($w->{txns}{$tag}{rollback}) { $sent_rollback{$tag} = 1; }
		else                              { $sent_commit{$tag} = 1; }
	}
	$vals_committed += $w->{values_committed};
	$vals_rolled_back += $w->{values_rolled_back};
	$errors .= "writer $w->{id}: $w->{err}" if $w->{err} ne '';
	is($w->{exit}, 0, "writer $w->{id} (psql) exited normally");
}
is($errors, '', 'no writer saw an error (no deadlock, no serialization failure, no sketch error)');
is(scalar(keys %failed), 0, 'no transaction meant to commit was rolled back');
is(scalar(keys %acked), scalar(keys %sent_commit), 'every transaction sent to commit was acknowledged');
is(scalar(keys %rolled), scalar(keys %sent_rollback), 'every deliberate ROLLBACK was done');
cmp_ok(scalar(keys %acked), '>=', 100, 'at least 100 transactions committed');
cmp_ok(scalar(keys %rolled), '>=', 5, 'at least 5 transactions rolled back on purpose');

# the log (crash-safe, same transactions) against the client's view
my $logtags = $node->safe_psql('postgres', 'SELECT string_agg(DISTINCT tag::text, \',\') FROM wlog');
my %logged = map { $_ => 1 } split /,/, $logtags;
is(join(',', grep { !$logged{$_} } sort keys %acked), '', 'every acknowledged commit is in the log');
is(join(',', grep { $logged{$_} } sort keys %rolled), '', 'no rolled-back transaction is in the log');
is(scalar(keys %logged), scalar(keys %acked), 'the log holds exactly the acknowledged transactions');

bs_check_sketches($node, 'postgres', 'after the writers');
my $r = bs_writer_verify($node, 'postgres', 'after the writers');

# the rolled-back values that no committed transaction added are, as far as the count-min
# sketch can tell, absent: their estimate is at most the sketch's error bound
my $rb_only = 0;
{
	my %committed_v;
	for my $w (@writers)
	{
		for my $tag (keys %{ $w->{acked} })
		{
			$committed_v{ $_->[0] } = 1 for @{ $w->{txns}{$tag}{vals} };
		}
	}
	my %rbv;
	for my $w (@writers)
	{
		for my $tag (keys %{ $w->{rolled_back} })
		{
			$rbv{ $_->[0] } = 1 for grep { !$committed_v{ $_->[0] } } @{ $w->{txns}{$tag}{vals} };
		}
	}
	$rb_only = scalar keys %rbv;
	note "$rb_only values were added only by rolled-back transactions";
	if ($rb_only)
	{
		my $list = join(',', sort { $a <=> $b } keys %rbv);
		my $res = $node->safe_psql(
			'postgres', qq{
SELECT count(*) FILTER (WHERE (SELECT s FROM ct WHERE id = 1) -> v > cms_error_bound((SELECT s FROM ct WHERE id = 1))),
       count(*) FILTER (WHERE cbloom_count((SELECT f FROM cbt WHERE id = 1), v) > 1)
FROM unnest('{$list}'::bigint[]) v});
		my ($over_cms, $over_cb) = split /\|/, $res;
		is($over_cms, 0, "the $rb_only values only rolled-back transactions added have cms estimates within the error bound");
		cmp_ok($over_cb, '<=', int($rb_only / 10) + 2,
			"at most a few of them have a cbloom count above 1 ($over_cb)");
	}
}

diag(
	sprintf(
		'002 concurrent writers: %d writers for %.1f s; %d transactions committed (%d values, %d rows in the log), %d rolled back on purpose (%d values, %d of them never committed), %d failed; %d distinct values, total count %d',
		$nwriters, $ran, scalar(keys %acked), $vals_committed, $r->{rows},
		scalar(keys %rolled), $vals_rolled_back, $rb_only, scalar(keys %failed),
		$r->{distinct_values}, $r->{total_count}));

$node->stop;
done_testing();
