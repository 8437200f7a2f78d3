
# BSTest: helpers shared by the bloomsketch TAP tests in test/tap/.
#
# bs_node(NAME, %opts)     a started PostgreSQL::Test::Cluster node with bloomsketch created
# bs_psql_err(NODE, DB, SQL)   run SQL expected to fail: (ret, stdout, stderr, sqlstate)
# bs_poll_until(NODE, DB, SQL [, EXPECTED, SECONDS])   poll_query_until that survives a restart
# BSTest::Writer           a psql session (IPC::Run) that runs sketch-updating transactions
#                          fed one at a time, used by 002_concurrent_writers and 003_crash_recovery
#
# Run through test/tap/run.sh, which sets PERL5LIB, PATH, PG_REGRESS and TESTDIR.

package BSTest;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time);

our @EXPORT = qw(bs_node bs_psql_err bs_poll_until bs_elapsed bs_writer_schema
  bs_check_sketches bs_writer_verify bs_default_version);

# A node with settings that suit the tests: C messages (so messages can be matched),
# room for large sketches and WAL, and the extension created (unless no_extension).
#   conf    => [ 'name = value', ... ]   extra postgresql.conf lines
#   version => '1.0'                     CREATE EXTENSION ... VERSION
sub bs_node
{
	my ($name, %opts) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf(
		'postgresql.conf', join(
			"\n",
			"lc_messages = 'C'",
			"shared_buffers = 128MB",
			"max_wal_size = 2GB",
			"checkpoint_timeout = 30min",
			"max_connections = 40",
			@{ $opts{conf} || [] }));
	$node->start;
	unless ($opts{no_extension})
	{
		my $v = defined $opts{version} ? " VERSION '$opts{version}'" : '';
		$node->safe_psql($opts{db} || 'postgres',
			"CREATE EXTENSION bloomsketch$v");
	}
	return $node;
}

# Run SQL that is expected to fail, with VERBOSITY verbose so the SQLSTATE is printed.
# Returns (psql exit code, stdout, stderr, sqlstate or '').
sub bs_psql_err
{
	my ($node, $db, $sql, %params) = @_;
	my ($out, $err) = ('', '');
	my $ret = $node->psql(
		$db, "\\set VERBOSITY verbose\n$sql",
		stdout => \$out,
		stderr => \$err,
		%params);
	my ($state) = $err =~ /ERROR:\s+([0-9A-Z]{5}):/;
	return ($ret, $out, $err, $state // '');
}

# Run SQL every 0.1 s until it prints EXPECTED ('t'), for at most SECONDS (180); true when it
# did.  PostgreSQL's poll_query_until writes the query to psql's stdin, and a psql that the
# postmaster's crash restart turns away exits before reading it: IPC::Run then dies with
# "ack Broken pipe" and takes the test with it.  Here the query is an argument (-c), stdin is
# /dev/null, and an attempt that dies anyway counts as "not yet".
sub bs_poll_until
{
	my ($node, $db, $sql, $expected, $seconds) = @_;
	$expected //= 't';
	my $limit = time + ($seconds || 180);
	my $cmd = [ 'psql', '-XAt', '-d', $node->connstr($db), '-c', $sql ];
	while (time < $limit)
	{
		my ($out, $err) = ('', '');
		my $ok = eval { IPC::Run::run($cmd, '<', '/dev/null', '>', \$out, '2>', \$err); 1 };
		chomp $out;
		return 1 if $ok && $out eq $expected && $err eq '';
		Time::HiRes::sleep(0.1);
	}
	return 0;
}

# The default_version of the control file installed for the node's PostgreSQL: the version
# CREATE EXTENSION without VERSION installs, so the tests need no update per release.
sub bs_default_version
{
	my ($node) = @_;
	my $file = $node->config_data('--sharedir') . '/extension/bloomsketch.control';
	open(my $fh, '<', $file) or die "cannot read $file: $!";
	while (my $line = <$fh>)
	{
		if ($line =~ /^\s*default_version\s*=\s*'([^']+)'/)
		{
			close($fh);
			return $1;
		}
	}
	die "no default_version in $file";
}

sub bs_elapsed
{
	my ($t0) = @_;
	return sprintf('%.2f', time - $t0);
}

# ----------------------------------------------------------------------------------------
# The tables the writers update.  Every transaction of a writer updates the SAME rows:
#   bt  (bloom):   id 1 integer keys, id 2 text keys ('v' || value)
#   ct  (cms):     id 1 integer keys, id 2 text keys
#   cbt (cbloom):  id 1 integer keys, 4-bit counters; id 2 text keys, 8-bit counters
#   tk  (topk):    id 1 integer keys, seeded with one count of the value 0 (there is no
#                  topk_empty; topk_agg of no rows is NULL)
# and logs each value it added in wlog, in the same transaction.  Because a Bloom filter,
# a count-min sketch and a counting Bloom filter do not depend on the order of additions,
# the stored sketches must equal, byte for byte, the sketches that the aggregates build
# from wlog.
our $BLOOM_CAP = 20000;
our $CBLOOM_CAP = 10000;
our $CMS_EPS = 0.01;

sub bs_writer_schema
{
	my ($node, $db) = @_;
	$node->safe_psql(
		$db, qq{
CREATE TABLE bt (id int PRIMARY KEY, f bloom NOT NULL);
INSERT INTO bt VALUES (1, bloom_empty($BLOOM_CAP, 0.01)), (2, bloom_empty($BLOOM_CAP, 0.01));
CREATE TABLE ct (id int PRIMARY KEY, s cms NOT NULL);
INSERT INTO ct VALUES (1, cms_empty($CMS_EPS, 0.01)), (2, cms_empty($CMS_EPS, 0.01));
CREATE TABLE cbt (id int PRIMARY KEY, f cbloom NOT NULL);
INSERT INTO cbt VALUES (1, cbloom_empty($CBLOOM_CAP, 0.01, 4)), (2, cbloom_empty($CBLOOM_CAP, 0.01, 8));
CREATE TABLE tk (id int PRIMARY KEY, s topk NOT NULL);
INSERT INTO tk SELECT 1, topk_agg(0::bigint, 10, $CMS_EPS, 0.01);
CREATE TABLE wlog (tag bigint NOT NULL, writer int NOT NULL, v bigint NOT NULL, cnt bigint NOT NULL);
});
	return;
}

# Every stored sketch of the writer tables passes validation again: the text and bytea
# round trips (both validate deeply) give back the same value.  Returns the number of
# rows checked, and fails a test for any row that does not.
sub bs_check_sketches
{
	my ($node, $db, $label) = @_;
	my $res = $node->safe_psql(
		$db, q{
SELECT (SELECT count(*) FROM bt), (SELECT count(*) FROM bt WHERE f::text::bloom = f AND f::bytea::bloom = f AND bloom_fpr(f) < 1),
       (SELECT count(*) FROM ct), (SELECT count(*) FROM ct WHERE s::text::cms = s AND s::bytea::cms = s AND cms_total(s) >= 0),
       (SELECT count(*) FROM cbt), (SELECT count(*) FROM cbt WHERE f::text::cbloom = f AND f::bytea::cbloom = f AND (cbloom_info(f)).counters > 0),
       (SELECT count(*) FROM tk), (SELECT count(*) FROM tk WHERE s::text::topk::bytea = s::bytea AND s::bytea::topk::bytea = s::bytea AND (topk_info(s)).total > 0)
});
	my @n = split /\|/, $res;
	my $rows = $n[0] + $n[2] + $n[4] + $n[6];
	is("$n[1]|$n[3]|$n[5]|$n[7]", "$n[0]|$n[2]|$n[4]|$n[6]",
		"$label: all $rows stored sketches validate and round-trip through text and bytea");
	return $rows;
}

# Compare the stored sketches with wlog.  Returns a hash of counts.
sub bs_writer_verify
{
	my ($node, $db, $label) = @_;
	my %r;
	my $res = $node->safe_psql(
		$db, q{
SELECT count(DISTINCT tag), count(*), count(DISTINCT v), coalesce(sum(cnt), 0) FROM wlog});
	@r{qw(txns rows distinct_values total_count)} = split /\|/, $res;

	# byte-for-byte: the stored sketch is the sketch of exactly the logged values
	$res = $node->safe_psql(
		$db, qq{
SELECT (SELECT f FROM bt WHERE id = 1) = coalesce((SELECT bloom_agg(v, $BLOOM_CAP, 0.01) FROM wlog), bloom_empty($BLOOM_CAP, 0.01)),
       (SELECT f FROM bt WHERE id = 2) = coalesce((SELECT bloom_agg('v' || v, $BLOOM_CAP, 0.01) FROM wlog), bloom_empty($BLOOM_CAP, 0.01)),
       (SELECT s FROM ct WHERE id = 1) = coalesce((SELECT cms_agg_weighted(v, cnt, $CMS_EPS, 0.01) FROM wlog), cms_empty($CMS_EPS, 0.01)),
       (SELECT s FROM ct WHERE id = 2) = coalesce((SELECT cms_agg_weighted('v' || v, cnt, $CMS_EPS, 0.01) FROM wlog), cms_empty($CMS_EPS, 0.01)),
       (SELECT f FROM cbt WHERE id = 1) = coalesce((SELECT cbloom_agg(v, $CBLOOM_CAP, 0.01, 4) FROM wlog), cbloom_empty($CBLOOM_CAP, 0.01, 4)),
       (SELECT f FROM cbt WHERE id = 2) = coalesce((SELECT cbloom_agg('v' || v, $CBLOOM_CAP, 0.01, 8) FROM wlog), cbloom_empty($CBLOOM_CAP, 0.01, 8))
});
	is($res, 't|t|t|t|t|t',
		"$label: bloom (2 rows), cms (2), cbloom (4-bit, 8-bit) equal byte for byte the sketches of the $r{rows} logged values"
	);

	# the properties themselves
	$res = $node->safe_psql(
		$db, q{
WITH lv AS (SELECT v, count(*) AS adds, sum(cnt) AS cnt FROM wlog GROUP BY v)
SELECT (SELECT count(*) FROM lv WHERE NOT ((SELECT f FROM bt WHERE id = 1) @> lv.v)),
       (SELECT count(*) FROM lv WHERE NOT ((SELECT f FROM bt WHERE id = 2) @> ('v' || lv.v))),
       (SELECT count(*) FROM lv WHERE NOT ((SELECT f FROM cbt WHERE id = 1) @> lv.v)),
       (SELECT count(*) FROM lv WHERE NOT ((SELECT f FROM cbt WHERE id = 2) @> ('v' || lv.v))),
       (SELECT count(*) FROM lv WHERE cbloom_count((SELECT f FROM cbt WHERE id = 1), lv.v) < least(lv.adds, 15)),
       (SELECT count(*) FROM lv WHERE cbloom_count((SELECT f FROM cbt WHERE id = 2), 'v' || lv.v) < least(lv.adds, 255)),
       (SELECT count(*) FROM lv WHERE ((SELECT s FROM ct WHERE id = 1) -> lv.v) < lv.cnt),
       (SELECT count(*) FROM lv WHERE ((SELECT s FROM ct WHERE id = 2) -> ('v' || lv.v)) < lv.cnt),
       (SELECT count(*) FROM (SELECT v, cnt + (v = 0)::int AS cnt FROM lv
                              UNION ALL SELECT 0, 1 WHERE NOT EXISTS (SELECT FROM lv WHERE v = 0)) x,
                             topk_bounds((SELECT s FROM tk WHERE id = 1), x.v) b
          WHERE x.cnt NOT BETWEEN b.lower_bound AND b.upper_bound)
});
	is($res, '0|0|0|0|0|0|0|0|0',
		"$label: every logged value is in both bloom and both cbloom rows, cbloom counts and cms frequencies are at least the logged counts, and every logged count lies within its topk bounds"
	);

	$res = $node->safe_psql(
		$db, q{
SELECT cms_total((SELECT s FROM ct WHERE id = 1)), cms_total((SELECT s FROM ct WHERE id = 2)),
       (topk_info((SELECT s FROM tk WHERE id = 1))).total - 1});
	is($res, "$r{total_count}|$r{total_count}|$r{total_count}",
		"$label: cms totals (both rows) and the topk total equal the logged count $r{total_count} exactly"
	);
	return \%r;
}

# ----------------------------------------------------------------------------------------
package BSTest::Writer;

use strict;
use warnings;
use IPC::Run;
use Test::More;

# BSTest::Writer->new(NODE, DB, ID, TAGBASE, VRANGE): a psql (not -q, so that the command
# tags COMMIT and ROLLBACK are printed) reading transactions from its stdin.  Before its
# COMMIT or ROLLBACK each transaction echoes "T<tag>" (meant to commit) or "R<tag>" (meant
# to roll back), so the output shows which transactions the server acknowledged.
sub new
{
	my ($class, $node, $db, $id, $tagbase, $vrange) = @_;
	my $self = bless {
		id => $id,
		tagbase => $tagbase,
		vrange => $vrange || 5000,
		in => '',
		out => '',
		err => '',
		buf => '',
		seq => 0,
		txns => {},                  # tag => { vals => [[v, cnt], ...], rollback => 0|1 }
		sent => 0,
		sent_commit => 0,
		sent_rollback => 0,
		done => 0,                   # markers seen
		acked => {},                 # tag => 1: COMMIT acknowledged
		rolled_back => {},           # tag => 1: deliberate ROLLBACK done
		failed => {},                # tag => 1: meant to commit, ended in ROLLBACK
		last_marker => undef,
		values_committed => 0,
		values_rolled_back => 0,
	}, $class;
	my @cmd = (
		$node->installed_command('psql'), '-X', '-v', 'ON_ERROR_STOP=0',
		'-d', $node->connstr($db) . " application_name=bs_writer_$id", '-f', '-');
	$self->{h} = IPC::Run::start(
		\@cmd, '<', \$self->{in}, '>', \$self->{out}, '2>', \$self->{err},
		IPC::Run::timeout(600));
	return $self;
}

sub outstanding { my $s = shift; return $s->{sent} - $s->{done}; }

# Append the next transaction to psql's input.  1 to 3 values (integers 1..vrange) with
# counts 1..3; one transaction in 10 rolls back on purpose.
sub feed
{
	my ($self) = @_;
	my $tag = $self->{tagbase} + $self->{id} * 1_000_000 + ++$self->{seq};
	my @vals = map { [ 1 + int(rand($self->{vrange})), 1 + int(rand(3)) ] } 1 .. (1 + int(rand(3)));
	my $rollback = rand() < 0.1 ? 1 : 0;
	my ($b1, $b2, $c1, $c2, $cb1, $cb2, $tk) = ('f', 'f', 's', 's', 'f', 'f', 's');
	for my $p (@vals)
	{
		my ($v, $n) = @$p;
		$b1 = "bloom_add($b1, ${v}::bigint)";
		$b2 = "bloom_add($b2, 'v$v'::text)";
		$c1 = "cms_add($c1, ${v}::bigint, $n)";
		$c2 = "cms_add($c2, 'v$v'::text, $n)";
		$cb1 = "cbloom_add($cb1, ${v}::bigint)";
		$cb2 = "cbloom_add($cb2, 'v$v'::text)";
		$tk = "topk_add($tk, ${v}::bigint, $n)";
	}
	my $logrows = join(', ', map { "($tag, $self->{id}, $_->[0], $_->[1])" } @vals);
	# one row per statement, always in the same order: no deadlocks
	my $sql = "BEGIN;\n"
	  . "UPDATE bt SET f = $b1 WHERE id = 1;\n"
	  . "UPDATE bt SET f = $b2 WHERE id = 2;\n"
	  . "UPDATE ct SET s = $c1 WHERE id = 1;\n"
	  . "UPDATE ct SET s = $c2 WHERE id = 2;\n"
	  . "UPDATE cbt SET f = $cb1 WHERE id = 1;\n"
	  . "UPDATE cbt SET f = $cb2 WHERE id = 2;\n"
	  . "UPDATE tk SET s = $tk WHERE id = 1;\n"
	  . "INSERT INTO wlog VALUES $logrows;\n"
	  . ($rollback ? "\\echo R$tag\nROLLBACK;\n" : "\\echo T$tag\nCOMMIT;\n");
	$self->{txns}{$tag} = { vals => \@vals, rollback => $rollback };
	$self->{in} .= $sql;
	$self->{sent}++;
	$self->{ $rollback ? 'sent_rollback' : 'sent_commit' }++;
	return;
}

# Read psql's output so far: "T<tag>" then "COMMIT" is an acknowledged commit.
sub parse
{
	my ($self) = @_;
	$self->{buf} .= $self->{out};
	$self->{out} = '';
	while ($self->{buf} =~ s/^([^\n]*)\n//)
	{
		my $line = $1;
		if ($line =~ /^([TR])(\d+)$/)
		{
			$self->{last_marker} = [ $1, $2 ];
			$self->{done}++;
		}
		elsif (($line eq 'COMMIT' || $line eq 'ROLLBACK') && $self->{last_marker})
		{
			my ($kind, $tag) = @{ $self->{last_marker} };
			my $t = $self->{txns}{$tag};
			if ($kind eq 'T' && $line eq 'COMMIT')
			{
				$self->{acked}{$tag} = 1;
				$self->{values_committed} += @{ $t->{vals} };
			}
			elsif ($kind eq 'R')
			{
				$self->{rolled_back}{$tag} = 1;
				$self->{values_rolled_back} += @{ $t->{vals} };
			}
			else
			{
				$self->{failed}{$tag} = 1;
			}
			$self->{last_marker} = undef;
		}
	}
	return;
}

# Move data to and from psql without blocking; false once psql has gone.
sub pump
{
	my ($self) = @_;
	return 0 if $self->{gone};
	my $ok = eval { $self->{h}->pump_nb; 1 };
	$self->parse;
	if (!$ok || !$self->{h}->pumpable)
	{
		$self->{gone} = 1;
		$self->{pump_error} = $@ if !$ok;
		return 0;
	}
	return 1;
}

# Ask psql to quit after what it was sent and wait for it (it has gone already after a
# crash: the connection is lost).
sub finish
{
	my ($self) = @_;
	$self->{in} .= "\\q\n" unless $self->{gone};
	# after a crash, writing the \q may fail (EPIPE): then collect psql's exit anyway
	unless (eval { $self->{h}->finish; 1 })
	{
		$self->{finish_error} = $@;
		eval { $self->{h}->kill_kill(grace => 10); 1 };
	}
	$self->parse;
	$self->{exit} = eval { $self->{h}->result(0) } // -1;
	return;
}

# Run WRITERS for SECONDS: each keeps at most two transactions queued in its psql.
# Returns the time spent.
sub run_for
{
	my ($class, $writers, $seconds) = @_;
	my $t0 = Time::HiRes::time();
	my $deadline = $t0 + $seconds;
	while (Time::HiRes::time() < $deadline)
	{
		for my $w (@$writers)
		{
			next unless $w->pump;
			$w->feed while $w->outstanding < 2;
			$w->pump;
		}
		Time::HiRes::sleep(0.002);
	}
	return Time::HiRes::time() - $t0;
}

1;
