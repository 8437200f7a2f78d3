
# 003_crash_recovery: the writers of 002 run, and the server crashes in the middle of
# their transactions, three times in different ways:
#   1. pg_ctl stop -m immediate (the postmaster and all backends quit without a checkpoint)
#   2. SIGKILL of one writer's backend: with restart_after_crash = on, the postmaster
#      kills the other backends and recovers by itself
#   3. a CHECKPOINT during the writes, then stop -m immediate (recovery from a later redo
#      point)
# After each, the server comes back and: every stored sketch validates; amcheck finds the
# heap and TOAST of every table sound; every transaction whose COMMIT was acknowledged is in
# the log (wlog, updated in the same transactions as the sketches); and the sketches are
# byte for byte the sketches of the logged values (so every value of a committed transaction
# is present, the cms totals equal the committed counts, and nothing of a transaction that
# did not commit survived).  The writes of each round go on top of those of the rounds before.
#
# BS_TAP_WRITERS (8) changes the number of writers.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time sleep);
use BSTest;

my $nwriters = $ENV{BS_TAP_WRITERS} || 8;
my $seed = $ENV{BS_TAP_SEED} || int(rand(1 << 30));
srand($seed);
note "random seed $seed (BS_TAP_SEED)";

my $node = bs_node('crash',
	conf => [ 'log_statement = none', 'restart_after_crash = on', 'log_min_messages = warning' ]);
$node->safe_psql('postgres', 'CREATE EXTENSION amcheck');
bs_writer_schema($node, 'postgres');

my %all_acked;      # tag => 1, over all rounds
my %all_sent;       # tag => 1 (meant to commit), over all rounds
my %all_rolled;     # tag => 1 (rolled back on purpose), over all rounds
my ($faults, $in_flight_total, $in_flight_committed, $values_committed) = (0, 0, 0, 0);
my @modes = ('immediate stop', 'backend SIGKILL', 'checkpoint, then immediate stop');

sub amcheck_ok
{
	my ($label) = @_;
	my $res = $node->safe_psql(
		'postgres', q{
SELECT count(*) FROM (VALUES ('bt'), ('ct'), ('cbt'), ('tk'), ('wlog')) r(t),
       LATERAL verify_heapam(r.t::regclass, check_toast => true)});
	is($res, '0', "$label: amcheck finds no corruption in the heap and TOAST of the five tables");
	return;
}

for my $round (1 .. 3)
{
	my $mode = $modes[ $round - 1 ];
	my $label = "round $round ($mode)";
	my @writers =
	  map { BSTest::Writer->new($node, 'postgres', $_, $round * 100_000_000, 5000) } 1 .. $nwriters;

	my $checkpointer;
	if ($round == 3)
	{
		my ($o, $e) = ('', '');
		$checkpointer = IPC::Run::start(
			[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c', 'SELECT pg_sleep(1)', '-c', 'CHECKPOINT' ],
			'>', \$o, '2>', \$e, IPC::Run::timeout(120));
	}
	my $secs = 2.5 + rand(2);
	my $ran = BSTest::Writer->run_for(\@writers, $secs);
	if ($checkpointer)
	{
		$checkpointer->finish;
		is($checkpointer->result(0), 0, "$label: CHECKPOINT during the writes succeeded");
	}
	my $victim;
	if ($round == 2)
	{
		$victim = $node->safe_psql('postgres',
			q{SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND application_name LIKE 'bs_writer_%' ORDER BY random() LIMIT 1}
		);
		ok($victim =~ /^\d+$/, "$label: found a writer's backend ($victim)");
	}
	# a little more, so that the fault hits the writers in the middle of their transactions
	$ran += BSTest::Writer->run_for(\@writers, 0.5);

	# the fault
	my $t0 = time;
	if ($round == 2)
	{
		ok(kill('KILL', $victim), "$label: sent SIGKILL to backend $victim");
		$_->finish for @writers;    # they all lose their connection
		ok(bs_poll_until($node, 'postgres', 'SELECT NOT pg_is_in_recovery()'),
			"$label: the server recovered by itself");
		ok($node->log_contains(qr/terminated by signal 9: Killed/), "$label: the server log shows the crash");
	}
	else
	{
		$node->stop('immediate');
		$_->finish for @writers;
		$node->start;
	}
	$faults++;
	my $recovery = time - $t0;

	# what the clients saw
	my (%acked, %sent, %unknown);
	for my $w (@writers)
	{
		for my $tag (keys %{ $w->{txns} })
		{
			if ($w->{txns}{$tag}{rollback}) { $all_rolled{$tag} = 1 if $w->{rolled_back}{$tag}; next; }
			$sent{$tag} = 1;
			$unknown{$tag} = 1 unless $w->{acked}{$tag} || $w->{failed}{$tag};
		}
		%acked = (%acked, %{ $w->{acked} });
		$values_committed += $w->{values_committed};
		like($w->{err}, qr/^$|server closed the connection|connection to server was lost|terminating connection/,
			"$label: writer $w->{id} saw no error but the lost connection")
		  if $round == 1;
	}
	%all_acked = (%all_acked, %acked);
	%all_sent = (%all_sent, %sent);

	my $logtags = $node->safe_psql('postgres', q{SELECT string_agg(DISTINCT tag::text, ',') FROM wlog});
	my %logged = map { $_ => 1 } split /,/, $logtags;
	is(join(',', grep { !$logged{$_} } sort keys %all_acked), '',
		"$label: every acknowledged commit (all rounds) is in the log after recovery");
	is(join(',', grep { !$all_sent{$_} } sort keys %logged), '',
		"$label: the log holds only transactions that were sent to commit");
	is(join(',', grep { $logged{$_} } sort keys %all_rolled), '',
		"$label: no deliberately rolled-back transaction is in the log");
	my $inflight_committed = grep { $logged{$_} } keys %unknown;
	$in_flight_total += keys %unknown;
	$in_flight_committed += $inflight_committed;
	cmp_ok(scalar(keys %acked), '>', 0, "$label: transactions committed before the crash");
	note sprintf('%s: writes for %.1f s; %d committed and acknowledged, %d in flight at the crash (%d of them committed); back in %.1f s',
		$label, $ran, scalar(keys %acked), scalar(keys %unknown), $inflight_committed, $recovery);
	cmp_ok(scalar(keys %unknown), '>', 0, "$label: the fault hit transactions in flight");

	bs_check_sketches($node, 'postgres', $label);
	amcheck_ok($label);
	my $r = bs_writer_verify($node, 'postgres', $label);
	note "$label: log has $r->{txns} transactions, $r->{rows} values, total count $r->{total_count}";
}

# the same after a clean restart and a VACUUM of everything the crashes left behind
$node->restart;
$node->safe_psql('postgres', 'VACUUM');
bs_check_sketches($node, 'postgres', 'after VACUUM');
amcheck_ok('after VACUUM');
my $r = bs_writer_verify($node, 'postgres', 'after VACUUM');

diag(
	sprintf(
		'003 crash recovery: %d faults injected (%s) with %d writers; %d transactions committed and acknowledged (%d values), %d in flight at the crashes (%d of them committed); log: %d transactions, %d values, total count %d',
		$faults, join(', ', @modes), $nwriters, scalar(keys %all_acked), $values_committed,
		$in_flight_total, $in_flight_committed, $r->{txns}, $r->{rows}, $r->{total_count}));

$node->stop;
done_testing();
