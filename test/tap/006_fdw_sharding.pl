
# 006_fdw_sharding: sketches built on shards and merged on a coordinator, with postgres_fdw
# (doc/scaling.md).
#
# Three clusters: shard1 holds the partitions of days 1 and 2, shard2 those of days 3 and 4,
# and the coordinator has the partitioned table events (LIST on day) whose four partitions
# are foreign tables on the shards (servers with extensions 'bloomsketch',
# use_remote_estimate, fetch_size, batch_size and async_capable), plus events_local, the
# same 200,000 rows in one local table.  Data: u bigint (67,197 distinct; a different
# distinct count each day), url text with 8 heavy hitters ('/p/0' .. '/p/7', 8,333 or 8,334
# rows each; every other url at most 7 rows).
#
#   - pushdown: with enable_partitionwise_aggregate on and statistics on the shards, every
#     aggregate grouped by the partition key is computed on the shards (Foreign Scan whose
#     Remote SQL calls it, one row per partition comes back); without statistics on the
#     shards, cms_agg and topk_agg are not pushed (cost-based); with the setting off, or
#     without bloomsketch in the server's extensions, nothing is pushed; without GROUP BY
#     the partition key the rows are shipped (PostgreSQL 15's postgres_fdw cannot push a
#     partial aggregate)
#   - every shard sketch equals byte for byte the same aggregate over that day's rows on one
#     node; the *_union_agg merge on the coordinator of fixed-shape bloom, cbloom and cms
#     sketches equals byte for byte the aggregate over all rows on one node; topk: the same
#     items and frequencies, the exact 8 heavy hitters
#   - auto-sized bloom_agg(x) / cbloom_agg(x): the shard filters differ in size and do not
#     merge (22023); the single-node filter is obtained by shipping rows or bloom_agg_state
#   - COPY text and binary of shard sketches into another cluster: byte-identical, same
#     answers
#   - sketches of different shapes or families from the two shards: the documented errors
#     (22023, 42804), no crash; a shard with extension version 1.0: 42883 for cbloom_agg

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use BSTest;

my $t_start = time;
my $tmp = PostgreSQL::Test::Utils::tempdir;

# no autovacuum: the statistics come from the explicit ANALYZEs only, so the plans are fixed
my @conf = ('autovacuum = off');
my $coord = bs_node('coord', conf => \@conf);
my $shard1 = bs_node('shard1', conf => \@conf);
my $shard2 = bs_node('shard2', conf => \@conf);
my %shard_of_day = (1 => 'shard1', 2 => 'shard1', 3 => 'shard2', 4 => 'shard2');

is($coord->safe_psql('postgres', q{SELECT count(*) FROM pg_available_extensions WHERE name = 'postgres_fdw'}),
	'1', 'postgres_fdw is available (Debian ships it in postgresql-N)');
my $pg_version_num = $coord->safe_psql('postgres', 'SHOW server_version_num');

my $CAP = 100000;
my $FPR = 0.01;

# ---------------------------------------------------------------------------------------
# Schema
my $ddl = 'CREATE TABLE events_dD (day int NOT NULL, u bigint NOT NULL, url text NOT NULL);';
$shard1->safe_psql('postgres', join("\n", map { $ddl =~ s/D/$_/r } 1, 2));
$shard2->safe_psql('postgres', join("\n", map { $ddl =~ s/D/$_/r } 3, 4));

my $server_sql = '';
for my $s ([ 'shard1', $shard1 ], [ 'shard2', $shard2 ])
{
	my ($name, $node) = @$s;
	my $host = $node->host;
	my $port = $node->port;
	$server_sql .= qq{
CREATE SERVER $name FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$host', port '$port', dbname 'postgres', extensions 'bloomsketch',
           use_remote_estimate 'true', fetch_size '10000', batch_size '1000', async_capable 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER $name;};
}
my $data_sql = q{
SELECT 1 + i % 4, ((i * 2654435761) % 4294967291) % ((1 + i % 4) * 20000),
       CASE WHEN i % 3 = 0 THEN '/p/' || (i / 3) % 8 ELSE '/q/' || (i * 31) % 20011 END
FROM generate_series(1, 200000) i};
my $t0 = time;
$coord->safe_psql(
	'postgres', qq{
CREATE EXTENSION postgres_fdw;
$server_sql
CREATE TABLE events (day int NOT NULL, u bigint NOT NULL, url text NOT NULL) PARTITION BY LIST (day);
CREATE FOREIGN TABLE events_d1 PARTITION OF events FOR VALUES IN (1) SERVER shard1;
CREATE FOREIGN TABLE events_d2 PARTITION OF events FOR VALUES IN (2) SERVER shard1;
CREATE FOREIGN TABLE events_d3 PARTITION OF events FOR VALUES IN (3) SERVER shard2;
CREATE FOREIGN TABLE events_d4 PARTITION OF events FOR VALUES IN (4) SERVER shard2;
CREATE TABLE events_local (day int NOT NULL, u bigint NOT NULL, url text NOT NULL);
-- through the coordinator: tuple routing into the foreign partitions, in batches of 1000
INSERT INTO events $data_sql;
INSERT INTO events_local $data_sql;
});
note sprintf('schema and 2 x 200,000 rows loaded in %.1f s', time - $t0);

my $counts = join(',',
	map { $_->[0]->safe_psql('postgres',
		  join(' UNION ALL ', map { "SELECT format('%s:%s', day, count(*)) FROM events_d$_ GROUP BY day" } @{ $_->[1] })) }
	  [ $shard1, [ 1, 2 ] ], [ $shard2, [ 3, 4 ] ]);
$counts =~ s/\n/,/g;
is($counts, '1:50000,2:50000,3:50000,4:50000', 'the rows went to their shards: 50,000 per day');
is( $coord->safe_psql(
		'postgres', q{
SELECT (SELECT string_agg(format('%s|%s|%s|%s', day, n, s, h), ',' ORDER BY day)
          FROM (SELECT day, count(*) n, sum(u) s, sum(hashtext(url)) h FROM events GROUP BY day) a)
     = (SELECT string_agg(format('%s|%s|%s|%s', day, n, s, h), ',' ORDER BY day)
          FROM (SELECT day, count(*) n, sum(u) s, sum(hashtext(url)) h FROM events_local GROUP BY day) b)}),
	't', 'the shards hold the same rows as events_local (count, sum of keys, sum of url hashes per day)');
my $distinct = $coord->safe_psql('postgres',
	q{SELECT string_agg(n::text, ',' ORDER BY day) FROM (SELECT day, count(DISTINCT u) n FROM events_local GROUP BY day) x;
	  SELECT count(DISTINCT u) FROM events_local});
note "distinct u per day, and in all: $distinct";
is($distinct, "18883,33718,18981,50000\n67197",
	'distinct u per day 18,883, 33,718, 18,981, 50,000 (so auto-sized filters differ in size), 67,197 in all');

# ---------------------------------------------------------------------------------------
# Plans
#
# plan_info(EXPLAIN output): the Remote SQL lines, how many of them run an aggregate
# remotely (GROUP BY 1), and the aggregate nodes run on the coordinator.
sub plan_info
{
	my ($plan) = @_;
	my @remote = $plan =~ /^\s*Remote SQL: (.*)$/mg;
	my @local_aggs =
	  $plan =~ /^\s*(?:->\s+)?((?:Finalize |Partial )?(?:Hash|Group|Mixed)?Aggregate)\b/mg;
	return {
		remote => \@remote,
		pushed => scalar(grep { /GROUP BY 1$/ } @remote),
		local_aggs => \@local_aggs,
	};
}

sub explain_plan
{
	my ($sql, %o) = @_;
	return (explain_plans([$sql], %o))[0];
}

# several EXPLAINs in one session (one psql and one connection to each shard)
sub explain_plans
{
	my ($sqls, %o) = @_;
	my $opts = $o{analyze} ? 'ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF' : 'VERBOSE, COSTS OFF';
	my $script = "SET enable_partitionwise_aggregate = on;\n";
	for my $q (@$sqls)
	{
		# [ SQL, 'off' ]: that one with enable_partitionwise_aggregate off
		$script .= ref $q
		  ? "SET enable_partitionwise_aggregate = off;\nEXPLAIN ($opts) $q->[0];\nSET enable_partitionwise_aggregate = on;\n"
		  : "EXPLAIN ($opts) $q;\n";
		$script .= "SELECT '-- end of plan --';\n";
	}
	my @plans = split /^-- end of plan --\n?/m, $coord->safe_psql('postgres', $script);
	die 'expected ' . scalar(@$sqls) . ' plans, got ' . scalar(@plans) unless @plans == @$sqls;
	return @plans;
}

# Run statements that each fail, in one session: a list of [SQLSTATE, message] in order.
sub errors_of
{
	my ($node, $db, @stmts) = @_;
	my ($out, $err) = ('', '');
	$node->psql($db, join("\n", "\\set VERBOSITY verbose", 'SET enable_partitionwise_aggregate = on;', map { "$_;" } @stmts),
		stdout => \$out, stderr => \$err, on_error_stop => 0);
	my @errors = map { [ /ERROR:\s+([0-9A-Z]{5}):/ ? $1 : '', $_ ] } grep { /ERROR:/ } split /(?=^psql:[^\n]*ERROR:)/m, $err;
	die "expected " . scalar(@stmts) . " errors, got:\n$err" unless @errors == @stmts;
	return @errors;
}

# rows each shard sent, from EXPLAIN ANALYZE: "Foreign Scan ... (actual rows=N" followed by
# its "Remote SQL: ... FROM public.events_dD"
sub rows_per_shard
{
	my ($plan) = @_;
	my %rows;
	my $pending;
	for my $line (split /\n/, $plan)
	{
		# PostgreSQL 18 prints the average rows per loop with two decimals (rows=2.00)
		if ($line =~ /Foreign Scan.*\(actual rows=(\d+)(?:\.\d+)? loops=1\)/) { $pending = $1; }
		elsif (defined $pending && $line =~ /Remote SQL: .* FROM public\.events_d(\d)\b/)
		{
			$rows{ $shard_of_day{$1} } += $pending;
			undef $pending;
		}
	}
	return join(',', map { "$_=" . ($rows{$_} // 0) } qw(shard1 shard2));
}

# The coordinator's statistics (ANALYZE of the partitioned table reads the foreign
# partitions) say one day per partition; the shards have none yet.
$coord->safe_psql('postgres', 'ANALYZE events; ANALYZE events_local');

# Without statistics on the shards, the shards' planner (use_remote_estimate) assumes 200
# groups; 200 states of cms_agg / topk_agg (SSPACE 108,808 and 110,000 bytes) do not fit
# work_mem (4 MB), so the remote aggregate is costed as Sort + GroupAggregate, and
# aggregating the shipped rows on the coordinator (one group per partition, from its own
# statistics) looks cheaper.  bloom_agg's small SSPACE keeps its hash aggregate cheap.
# That holds up to PostgreSQL 16: since 17 postgres_fdw's default fdw_tuple_cost is 0.2
# instead of 0.01, so fetching the 50,000 rows of a partition costs more than the shard's
# Sort and GroupAggregate, and those aggregates are pushed too.
my @nostats = explain_plans([ 'SELECT day, cms_agg(url), topk_agg(url, 8) FROM events GROUP BY day',
	"SELECT day, bloom_agg(u, $CAP, $FPR) FROM events GROUP BY day" ]);
my $p = plan_info($nostats[0]);
if ($pg_version_num < 170000)
{
	is(scalar(@{ $p->{local_aggs} }) . '|' . $p->{pushed}, '4|0',
		'no statistics on the shards: cms_agg/topk_agg are aggregated on the coordinator, per partition (4 HashAggregates, nothing pushed)');
}
else
{
	is(scalar(@{ $p->{local_aggs} }) . '|' . $p->{pushed}, '0|4',
		'no statistics on the shards: cms_agg/topk_agg are pushed all the same (PostgreSQL 17+: fdw_tuple_cost 0.2 makes the shipped rows dear)');
}
$p = plan_info($nostats[1]);
is(scalar(@{ $p->{local_aggs} }) . '|' . $p->{pushed}, '0|4',
	'no statistics on the shards: bloom_agg(u, capacity, fpr) is pushed all the same');

$shard1->safe_psql('postgres', 'ANALYZE');
$shard2->safe_psql('postgres', 'ANALYZE');

# every aggregate form, grouped by the partition key: computed on the shards
my @forms = (
	[ 'bloom_agg(u)', 'public.bloom_agg(u)' ],
	[ 'bloom_agg(u, 0.001)', 'public.bloom_agg(u, 0.001::double precision)' ],
	[ "bloom_agg(u, $CAP, $FPR)", "public.bloom_agg(u, ${CAP}::bigint, ${FPR}::double precision)" ],
	[ "bloom_agg(url, $CAP, $FPR)", "public.bloom_agg(url, ${CAP}::bigint, ${FPR}::double precision)" ],
	[ 'cbloom_agg(u)', 'public.cbloom_agg(u)' ],
	[ "cbloom_agg(u, $CAP, $FPR)", "public.cbloom_agg(u, ${CAP}::bigint, ${FPR}::double precision)" ],
	[ "cbloom_agg(u, $CAP, $FPR, 8)", "public.cbloom_agg(u, ${CAP}::bigint, ${FPR}::double precision, 8)" ],
	[ 'cms_agg(url)', 'public.cms_agg(url)' ],
	[ 'cms_agg(u, 0.01, 0.01)', 'public.cms_agg(u, 0.01::double precision, 0.01::double precision)' ],
	[ "cms_agg_weighted(url, u % 3 + 1, 0.001, 0.01)",
	  'public.cms_agg_weighted(url, ((u % 3::bigint) + 1), 0.001::double precision, 0.01::double precision)' ],
	[ 'topk_agg(url, 8)', 'public.topk_agg(url, 8)' ],
	[ 'topk_agg(u, 5, 0.01, 0.01)', 'public.topk_agg(u, 5, 0.01::double precision, 0.01::double precision)' ],
);
my @plans = explain_plans([ [ 'SELECT day, cms_agg(url) FROM events GROUP BY day', 'off' ],
	map { "SELECT day, $_->[0] FROM events GROUP BY day" } @forms ]);
$p = plan_info(shift @plans);
ok(@{ $p->{local_aggs} } == 1 && $p->{pushed} == 0 && $p->{remote}[0] eq 'SELECT day, url FROM public.events_d1',
	'enable_partitionwise_aggregate off (the default): one aggregate on the coordinator over all shipped rows');

for my $i (0 .. $#forms)
{
	my ($agg, $remote) = @{ $forms[$i] };
	$p = plan_info($plans[$i]);
	my @expect = map { "SELECT day, $remote FROM public.events_d$_ GROUP BY 1" } 1 .. 4;
	is_deeply([ $p->{remote}, $p->{local_aggs} ], [ \@expect, [] ],
		"$agg GROUP BY day: pushed to the shards (4 Foreign Scans, Remote SQL calls it, no aggregate on the coordinator)"
	) or diag($plans[$i]);
}

# the merge query: the shard sketches come back, *_union_agg runs on the coordinator
my $merge_sql = "SELECT bloom_union_agg(f) FROM (SELECT day, bloom_agg(u, $CAP, $FPR) AS f FROM events GROUP BY day) s";
my @analyzed = explain_plans([ $merge_sql, "SELECT bloom_agg(u, $CAP, $FPR) FROM events",
	'SELECT u % 2, cms_agg(url) FROM events GROUP BY u % 2' ], analyze => 1);
my $plan = $analyzed[0];
$p = plan_info($plan);
is(join(',', @{ $p->{local_aggs} }) . '|' . $p->{pushed} . '|' . rows_per_shard($plan),
	'Aggregate|4|shard1=2,shard2=2',
	'bloom_union_agg over the shard filters: one Aggregate on the coordinator, 4 pushed aggregates, 2 rows from each shard');

# not grouped by the partition key: PostgreSQL 15's postgres_fdw has no partial-aggregate
# pushdown, so every row is shipped and the coordinator runs Partial + Finalize Aggregate
$plan = $analyzed[1];
$p = plan_info($plan);
is(join(',', @{ $p->{local_aggs} }) . '|' . $p->{pushed} . '|' . rows_per_shard($plan),
	'Finalize Aggregate,Partial Aggregate,Partial Aggregate,Partial Aggregate,Partial Aggregate|0|shard1=100000,shard2=100000',
	'bloom_agg over the whole table: not pushed, 100,000 rows from each shard, Partial + Finalize Aggregate on the coordinator');
is_deeply($p->{remote}, [ map { "SELECT u FROM public.events_d$_" } 1 .. 4 ], 'and the shards only scan (Remote SQL: SELECT u FROM ...)');
$plan = $analyzed[2];
$p = plan_info($plan);
is($p->{pushed} . '|' . rows_per_shard($plan), '0|shard1=100000,shard2=100000',
	'cms_agg grouped by another column: not pushed, 100,000 rows from each shard');

note sprintf('%.1f s so far', time - $t_start);
# ---------------------------------------------------------------------------------------
# Byte identity
$t0 = time;
my $per_day_cols = qq{
  bloom_agg(u) AS ba, bloom_agg(u, $CAP, $FPR) AS bf, bloom_agg(url, $CAP, $FPR) AS bt,
  cbloom_agg(u) AS cba, cbloom_agg(u, $CAP, $FPR) AS cbf, cbloom_agg(u, $CAP, $FPR, 8) AS cbf8,
  cms_agg(url) AS c, cms_agg(u, 0.01, 0.01) AS cu, cms_agg_weighted(url, u % 3 + 1, 0.001, 0.01) AS cw,
  topk_agg(url, 8) AS t};
$p = plan_info(explain_plan("SELECT day, $per_day_cols FROM events GROUP BY day"));
is(scalar(@{ $p->{local_aggs} }) . '|' . $p->{pushed}, '0|4', 'all ten aggregates in one query: pushed together');
$coord->safe_psql(
	'postgres', qq{
SET enable_partitionwise_aggregate = on;
CREATE TABLE per_day AS SELECT day, $per_day_cols FROM events GROUP BY day;
CREATE TABLE per_day_local AS SELECT day, $per_day_cols FROM events_local GROUP BY day;
});
note sprintf('per-day sketches on the shards and locally: %.1f s', time - $t0);
is( $coord->safe_psql(
		'postgres', q{
SELECT string_agg(format('%s:%s', day, (s.ba = l.ba AND s.bf = l.bf AND s.bt = l.bt
          AND s.cba = l.cba AND s.cbf = l.cbf AND s.cbf8 = l.cbf8 AND s.c = l.c AND s.cu = l.cu AND s.cw = l.cw)), ',' ORDER BY day)
FROM per_day s JOIN per_day_local l USING (day)}),
	'1:t,2:t,3:t,4:t',
	'each shard sketch (bloom auto and fixed, cbloom auto, 4-bit and 8-bit, cms) equals byte for byte the aggregate of that day on one node'
);

# the sizes: fixed by the shape for the capacity forms, by the day's distinct count for
# the auto-sized ones; the text form that postgres_fdw transfers is \x and two hex digits
# per byte
my $sizes = $coord->safe_psql(
	'postgres', qq{
SELECT bool_and(octet_length(bf::bytea) = octet_length(bloom_empty($CAP, $FPR)::bytea)
            AND octet_length(bt::bytea) = octet_length(bloom_empty($CAP, $FPR)::bytea)
            AND octet_length(cbf::bytea) = octet_length(cbloom_empty($CAP, $FPR, 4)::bytea)
            AND octet_length(c::bytea) = octet_length(cms_empty()::bytea)
            AND length(bf::text) = 2 * octet_length(bf::bytea) + 2 AND length(c::text) = 2 * octet_length(c::bytea) + 2
            AND length(t::text) = 2 * octet_length(t::bytea) + 2 AND length(cbf::text) = 2 * octet_length(cbf::bytea) + 2),
       count(DISTINCT octet_length(ba::bytea))
FROM per_day;
SELECT string_agg(format('%s=%s', k, n), ' ' ORDER BY k) FROM (
  SELECT 'bloom(u,cap)' k, octet_length(bf::bytea) n FROM per_day WHERE day = 1
  UNION ALL SELECT 'cbloom(u,cap)', octet_length(cbf::bytea) FROM per_day WHERE day = 1
  UNION ALL SELECT 'cbloom8(u,cap)', octet_length(cbf8::bytea) FROM per_day WHERE day = 1
  UNION ALL SELECT 'cms(url)', octet_length(c::bytea) FROM per_day WHERE day = 1
  UNION ALL SELECT 'topk(url,8)', octet_length(t::bytea) FROM per_day WHERE day = 1
  UNION ALL SELECT 'bloom(u) day ' || day, octet_length(ba::bytea) FROM per_day) x;
SELECT string_agg(format('%s: %s text bytes of bloom(u,cap), %s of bloom(u), %s of cms(url), %s of cbloom(u,cap) in 2 rows; '
                         '%s text bytes of u, %s of url in %s rows', sh, a, b, c, d, e, f, g), E'\n' ORDER BY sh)
FROM (SELECT CASE WHEN day <= 2 THEN 'shard1' ELSE 'shard2' END sh, sum(length(bf::text)) a, sum(length(ba::text)) b,
             sum(length(c::text)) c, sum(length(cbf::text)) d FROM per_day GROUP BY 1) x
JOIN (SELECT CASE WHEN day <= 2 THEN 'shard1' ELSE 'shard2' END sh, sum(length(u::text)) e, sum(length(url)) f, count(*) g
      FROM events_local GROUP BY 1) y USING (sh);
});
my ($size_ok, $size_list, $shipped) = split /\n/, $sizes, 3;
note "sketch sizes (bytes): $size_list";
note "per shard: $_" for split /\n/, $shipped;
is($size_ok, 't|4',
	'capacity-form sketches have the size of their empty shape, text forms are 2n + 2 characters; the 4 auto-sized filters have 4 different sizes'
);

# merged on the coordinator = one node over all rows, byte for byte.  per_day holds what the
# shards sent (the pushed query above); the *_union_agg run on the coordinator.
$t0 = time;
my $merged = $coord->safe_psql(
	'postgres', qq{
CREATE TABLE merged AS SELECT bloom_union_agg(bf) AS bf, bloom_union_agg(bt) AS bt, cbloom_union_agg(cbf) AS cbf,
  cbloom_union_agg(cbf8) AS cbf8, cms_union_agg(c) AS c, cms_union_agg(cu) AS cu, cms_union_agg(cw) AS cw,
  topk_union_agg(t) AS t
FROM per_day;
CREATE TABLE single AS SELECT bloom_agg(u, $CAP, $FPR) AS bf, bloom_agg(url, $CAP, $FPR) AS bt,
  cbloom_agg(u, $CAP, $FPR) AS cbf, cbloom_agg(u, $CAP, $FPR, 8) AS cbf8, cms_agg(url) AS c,
  cms_agg(u, 0.01, 0.01) AS cu, cms_agg_weighted(url, u % 3 + 1, 0.001, 0.01) AS cw, topk_agg(url, 8) AS t
FROM events_local;
SELECT format('%s %s %s %s %s %s %s', m.bf = s.bf, m.bt = s.bt, m.cbf = s.cbf, m.cbf8 = s.cbf8, m.c = s.c, m.cu = s.cu, m.cw = s.cw),
       md5(m.bf::bytea), md5(m.cbf::bytea), md5(m.c::bytea)
FROM merged m, single s;
});
note sprintf('merges and single-node aggregates: %.1f s', time - $t0);
my ($same, @md5) = split /\|/, $merged;
note "merged md5: bloom $md5[0], cbloom $md5[1], cms $md5[2]";
is($same, 't t t t t t t',
	'merged shard sketches = one node over all rows, byte for byte: bloom (bigint, text keys), cbloom (4-bit, 8-bit), cms (text, bigint, weighted)'
);
is( $coord->safe_psql(
		'postgres', q{
SELECT (SELECT count(*) FROM (SELECT DISTINCT u FROM events_local) x WHERE NOT (SELECT bf FROM merged) @> u),
       (SELECT count(*) FROM (SELECT DISTINCT u FROM events_local) x WHERE NOT (SELECT cbf FROM merged) @> u),
       (SELECT count(*) FROM (SELECT DISTINCT url FROM events_local) x WHERE NOT (SELECT bt FROM merged) @> url),
       (SELECT count(*) FROM (SELECT url, count(*) n FROM events_local GROUP BY url) x WHERE ((SELECT c FROM merged) -> url) < n),
       cms_total((SELECT c FROM merged)), (SELECT round(bloom_cardinality(bf) / 1000) FROM merged)}),
	'0|0|0|0|200000|67',
	'the merged sketches: every key present, no cms estimate below the true count, total 200,000, about 67,000 distinct'
);

# topk: the candidates kept depend on how the rows were split, so no byte identity; the
# items and their frequencies (read from the summed counters) are those of one node
my $top = $coord->safe_psql(
	'postgres', q{
SELECT (SELECT string_agg(value || '=' || frequency, ',' ORDER BY frequency DESC, value) FROM topk_items((SELECT t FROM merged))),
       (SELECT string_agg(value || '=' || frequency, ',' ORDER BY frequency DESC, value) FROM topk_items((SELECT t FROM single))),
       (SELECT string_agg(url, ',' ORDER BY url) FROM (SELECT url FROM events_local GROUP BY url ORDER BY count(*) DESC, url LIMIT 8) x),
       (SELECT string_agg(value, ',' ORDER BY value) FROM topk_items((SELECT t FROM merged))),
       (SELECT count(*) FROM topk_items((SELECT t FROM merged)) i JOIN (SELECT url, count(*) n FROM events_local GROUP BY url) e
          ON e.url = i.value WHERE i.frequency >= e.n)});
my ($top_m, $top_s, $exact8, $top_set, $not_below) = split /\|/, $top;
note "merged topk: $top_m";
is($top_m, $top_s, 'topk merged from the shards: the same items and frequencies as topk_agg on one node');
is("$top_set|$not_below", "$exact8|8",
	'topk merged: exactly the 8 heavy hitters /p/0 .. /p/7, no frequency below the true count');

# auto-sized filters: the four days' filters have four sizes and do not merge
my @auto_err = errors_of($coord, 'postgres',
	'SELECT bloom_union_agg(f) FROM (SELECT day, bloom_agg(u) f FROM events GROUP BY day) s',
	'SELECT cbloom_union_agg(f) FROM (SELECT day, cbloom_agg(u) f FROM events GROUP BY day) s');
is($auto_err[0][0], '22023', 'bloom_union_agg of auto-sized shard filters: 22023');
like($auto_err[0][1], qr/cannot merge bloom filters of different shapes: \d+ bits with 7 hashes \(seed 0\) and \d+ bits/,
	'... cannot merge bloom filters of different shapes');
ok($auto_err[1][0] eq '22023' && $auto_err[1][1] =~ /cannot merge counting bloom filters of different shapes/,
	'cbloom_union_agg of auto-sized shard filters: 22023 (cannot merge counting bloom filters of different shapes)');

# ... and the single-node auto-sized filter: ship the rows (not pushed), or ship the
# bloom_agg_state of each shard and combine the states on the coordinator
$p = plan_info(explain_plan('SELECT bloom_agg(u), cbloom_agg(u) FROM events'));
is($p->{pushed}, 0, 'bloom_agg(u) over the whole table: not pushed (rows shipped)');
is( $coord->safe_psql(
		'postgres', q{
SET enable_partitionwise_aggregate = on;
SELECT (SELECT bloom_agg(u) FROM events) = (SELECT bloom_agg(u) FROM events_local),
       (SELECT cbloom_agg(u) FROM events) = (SELECT cbloom_agg(u) FROM events_local),
       (SELECT (bloom_info(bloom_agg(u))).bits FROM events_local) = (bloom_info(bloom_empty(67197, 0.01))).bits}),
	't|t|t',
	'bloom_agg(u), cbloom_agg(u) over the shipped rows = one node: sized for all 67,197 distinct values');

my $state_agg = 'CREATE AGGREGATE bloom_agg_state_of(bigint) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);';
$shard1->safe_psql('postgres', $state_agg . join('', map {
	"CREATE VIEW events_state_d$_ AS SELECT day, bloom_agg_state_of(u) AS s FROM events_d$_ GROUP BY day;" } 1, 2));
$shard2->safe_psql('postgres', $state_agg . join('', map {
	"CREATE VIEW events_state_d$_ AS SELECT day, bloom_agg_state_of(u) AS s FROM events_d$_ GROUP BY day;" } 3, 4));
my $st = $coord->safe_psql(
	'postgres', q{
CREATE AGGREGATE bloom_agg_states(bloom_agg_state) (SFUNC = bloom_agg_combine, STYPE = bloom_agg_state, FINALFUNC = bloom_agg_final);
CREATE TABLE events_state (day int, s bloom_agg_state) PARTITION BY LIST (day);
CREATE FOREIGN TABLE events_state_d1 PARTITION OF events_state FOR VALUES IN (1) SERVER shard1;
CREATE FOREIGN TABLE events_state_d2 PARTITION OF events_state FOR VALUES IN (2) SERVER shard1;
CREATE FOREIGN TABLE events_state_d3 PARTITION OF events_state FOR VALUES IN (3) SERVER shard2;
CREATE FOREIGN TABLE events_state_d4 PARTITION OF events_state FOR VALUES IN (4) SERVER shard2;
SELECT (SELECT bloom_agg_states(s) FROM events_state) = (SELECT bloom_agg(u) FROM events_local),
       (SELECT string_agg(length(s::text)::text, ',' ORDER BY day) FROM events_state)});
my ($st_same, $st_sizes) = split /\|/, $st;
note "bloom_agg_state text sizes per day: $st_sizes";
is($st_same, 't', 'the bloom_agg_state of each shard, combined on the coordinator: the single-node auto-sized filter, byte for byte');

note sprintf('%.1f s so far', time - $t_start);
# ---------------------------------------------------------------------------------------
# Shipping sketches between clusters with COPY (text and binary)
my $ship_cols = "day int, bf bloom, ba bloom, cbf cbloom, c cms, t topk";
$shard1->safe_psql(
	'postgres', qq{
CREATE TABLE ship ($ship_cols);
INSERT INTO ship SELECT day, bloom_agg(u, $CAP, $FPR), bloom_agg(u), cbloom_agg(u, $CAP, $FPR), cms_agg(url), topk_agg(url, 8)
FROM (SELECT * FROM events_d1 UNION ALL SELECT * FROM events_d2) e GROUP BY day;
COPY ship TO '$tmp/ship.txt';
COPY ship TO '$tmp/ship.bin' (FORMAT binary);
});
$coord->safe_psql(
	'postgres', qq{
CREATE TABLE ship_text ($ship_cols);
CREATE TABLE ship_bin ($ship_cols);
COPY ship_text FROM '$tmp/ship.txt';
COPY ship_bin FROM '$tmp/ship.bin' (FORMAT binary);
});
note sprintf('COPY files: text %d bytes, binary %d bytes', -s "$tmp/ship.txt", -s "$tmp/ship.bin");
my $fp_sql = q{
SELECT day, md5(bf::bytea), md5(ba::bytea), md5(cbf::bytea), md5(c::bytea), md5(t::bytea),
       (SELECT count(*) FILTER (WHERE bf @> k) || '/' || count(*) FILTER (WHERE ba @> k) || '/' || count(*) FILTER (WHERE cbf @> k)
          FROM generate_series(0::bigint, 39999) k),
       (SELECT string_agg((c -> ('/p/' || k))::text || '/' || (c -> ('/q/' || k))::text, ',' ORDER BY k) FROM generate_series(0, 9) k),
       (SELECT string_agg(value || '=' || frequency, ',' ORDER BY frequency DESC, value) FROM topk_items(t))
FROM TABLE ORDER BY day};
my $fp_src = $shard1->safe_psql('postgres', $fp_sql =~ s/TABLE/ship/r);
# per day: the day, 5 md5s, the lookup counts bf/ba/cbf, cms estimates, topk items
my @fp_rows = map { [ split /\|/ ] } split /\n/, $fp_src;
my %distinct_of_day = (1 => 18883, 2 => 33718);
is( join(';',
		map {
			my ($day, @md5s) = @$_[ 0 .. 5 ];
			my ($bf, $ba, $cbf) = split m{/}, $_->[6];
			join('|', $day, scalar(grep { /^[0-9a-f]{32}$/ } @md5s), scalar(split /,/, $_->[8]),
				($bf >= $distinct_of_day{$day} && $cbf == $bf && $ba > $bf) ? 'lookups ok' : "lookups $_->[6]")
		} @fp_rows),
	'1|5|8|lookups ok;2|5|8|lookups ok',
	'fingerprint of the shard sketches: 5 md5s and 8 topk items per day; lookups of keys 0..39999 find every distinct key of the day (18,883 and 33,718), the auto-sized filter more false positives'
);
is($coord->safe_psql('postgres', $fp_sql =~ s/TABLE/ship_text/r), $fp_src,
	'text COPY from shard1 into the coordinator: the same bytes (md5) and the same answers (membership, cms frequencies, topk_items)');
is($coord->safe_psql('postgres', $fp_sql =~ s/TABLE/ship_bin/r), $fp_src,
	'binary COPY from shard1 into the coordinator: the same bytes and the same answers');
is( $coord->safe_psql(
		'postgres', q{
SELECT count(*) FROM ship_bin b JOIN per_day p USING (day)
WHERE b.bf = p.bf AND b.ba = p.ba AND b.cbf = p.cbf AND b.c = p.c AND b.t::bytea = p.t::bytea}),
	'2', 'the copied sketches equal the ones postgres_fdw brought back for days 1 and 2');

note sprintf('%.1f s so far', time - $t_start);
# ---------------------------------------------------------------------------------------
# Sketches of different shapes or families from the two shards: errors, no crash
my @bad = (
	[ 'cms of epsilon 0.001 on shard1, 0.01 on shard2',
	  'SELECT cms_union_agg(s) FROM (SELECT day, cms_agg(url, CASE WHEN day <= 2 THEN 0.001 ELSE 0.01 END, 0.01) s FROM events GROUP BY day) x',
	  '22023', qr/cannot combine count-min sketches of different shapes: width (?:2719|272) and depth 5 \(seed 0\) and width (?:272|2719) and depth 5/ ],
	[ 'topk of k 8 on shard1, 10 on shard2',
	  'SELECT topk_union_agg(s) FROM (SELECT day, topk_agg(url, CASE WHEN day <= 2 THEN 8 ELSE 10 END) s FROM events GROUP BY day) x',
	  '22023', qr/cannot merge topk sketches that track different numbers of items: k = (?:8 and k = 10|10 and k = 8)$/m ],
	[ 'cbloom of 4-bit counters on shard1, 8-bit on shard2',
	  "SELECT cbloom_union_agg(s) FROM (SELECT day, cbloom_agg(u, $CAP, $FPR, CASE WHEN day <= 2 THEN 4 ELSE 8 END) s FROM events GROUP BY day) x",
	  '22023', qr/cannot merge counting bloom filters of different shapes: 958506 [48]-bit counters with 7 hashes \(seed 0\) and 958506 [48]-bit counters/ ],
	[ 'bloom of capacity 100000 on shard1, 50000 on shard2',
	  "SELECT bloom_union_agg(s) FROM (SELECT day, bloom_agg(u, CASE WHEN day <= 2 THEN 100000 ELSE 50000 END, $FPR) s FROM events GROUP BY day) x",
	  '22023', qr/cannot merge bloom filters of different shapes: (?:958506|479253) bits with 7 hashes \(seed 0\) and (?:479253|958506) bits/ ],
	[ 'bloom of integer keys on shard1, text keys on shard2',
	  "SELECT bloom_union_agg(f) FROM (SELECT day, bloom_agg(u, $CAP, $FPR) f FROM events WHERE day <= 2 GROUP BY day UNION ALL SELECT day, bloom_agg(url, $CAP, $FPR) FROM events WHERE day > 2 GROUP BY day) s",
	  '42804', qr/cannot merge a bloom filter of (?:integer keys with a bloom filter of text|text keys with a bloom filter of integer) keys/ ],
	[ 'cms of integer keys on shard1, text keys on shard2',
	  'SELECT cms_union_agg(f) FROM (SELECT day, cms_agg(u) f FROM events WHERE day <= 2 GROUP BY day UNION ALL SELECT day, cms_agg(url) FROM events WHERE day > 2 GROUP BY day) s',
	  '42804', qr/cannot combine a count-min sketch of (?:integer keys with one of text|text keys with one of integer) keys/ ],
);
my @bad_err = errors_of($coord, 'postgres', map { $_->[1] } @bad);
for my $i (0 .. $#bad)
{
	my ($what, $sql, $code, $re) = @{ $bad[$i] };
	ok($bad_err[$i][0] eq $code && $bad_err[$i][1] =~ $re, "$what: $code, the documented message") or diag($bad_err[$i][1]);
}
$p = plan_info(explain_plan(
	'SELECT topk_union_agg(s) FROM (SELECT day, topk_agg(url, CASE WHEN day <= 2 THEN 8 ELSE 10 END) s FROM events GROUP BY day) x'));
is($p->{pushed}, 4, '(the per-shard parameters were pushed with the aggregate: the shards built the mismatched sketches)');

note sprintf('%.1f s so far', time - $t_start);
# ---------------------------------------------------------------------------------------
# The server option extensions: without bloomsketch in it, nothing of the extension is
# shipped to that server
$coord->safe_psql('postgres', q{ALTER SERVER shard1 OPTIONS (DROP extensions)});
$p = plan_info(explain_plan("SELECT day, bloom_agg(u, $CAP, $FPR) FROM events GROUP BY day"));
is(scalar(@{ $p->{local_aggs} }) . '|' . join(';', @{ $p->{remote} }),
	"2|SELECT day, u FROM public.events_d1;SELECT day, u FROM public.events_d2;"
	  . join(';', map { "SELECT day, public.bloom_agg(u, ${CAP}::bigint, ${FPR}::double precision) FROM public.events_d$_ GROUP BY 1" } 3, 4),
	'shard1 without extensions: its partitions ship rows and are aggregated on the coordinator; shard2 still aggregates');
$coord->safe_psql('postgres', q{ALTER SERVER shard1 OPTIONS (ADD extensions 'bloomsketch')});
$p = plan_info(explain_plan("SELECT day, bloom_agg(u, $CAP, $FPR) FROM events GROUP BY day"));
is($p->{pushed}, 4, 'extensions restored: pushed to both shards again');

# A shard whose extension is older (1.0, no cbloom): what exists there is pushed and gives
# the same bytes; what does not is an error from the shard, not a silent local aggregate
$shard2->safe_psql('postgres', 'CREATE DATABASE v10');
$shard2->safe_psql(
	'v10', q{
CREATE EXTENSION bloomsketch VERSION '1.0';
CREATE TABLE events_d3 (day int NOT NULL, u bigint NOT NULL, url text NOT NULL);
INSERT INTO events_d3 SELECT 3, g, '/x/' || g FROM generate_series(1, 1000) g;
ANALYZE events_d3;
});
my ($h, $pt) = ($shard2->host, $shard2->port);
$coord->safe_psql(
	'postgres', qq{
CREATE SERVER shard2_v10 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$h', port '$pt', dbname 'v10', extensions 'bloomsketch', use_remote_estimate 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2_v10;
CREATE FOREIGN TABLE old_d3 (day int, u bigint, url text) SERVER shard2_v10 OPTIONS (table_name 'events_d3');
});
$p = plan_info(explain_plan('SELECT day, bloom_agg(u, 1000, 0.01) FROM old_d3 GROUP BY day'));
is( $p->{pushed} . '|'
	  . $coord->safe_psql(
		'postgres', q{
SELECT (SELECT bloom_agg(u, 1000, 0.01) FROM old_d3 GROUP BY day) = (SELECT bloom_agg(g::bigint, 1000, 0.01) FROM generate_series(1, 1000) g)}),
	'1|t', 'a shard with bloomsketch 1.0: bloom_agg is pushed and gives the same bytes');
my ($ret, $out, $err, $state) = bs_psql_err($coord, 'postgres', 'SELECT cbloom_agg(u, 1000, 0.01) FROM old_d3 GROUP BY day;');
ok($state eq '42883' && $err =~ /function public\.cbloom_agg\(bigint, bigint, double precision\) does not exist/
	  && $err =~ /remote SQL command/,
	'a shard with bloomsketch 1.0: cbloom_agg fails on the shard with 42883 (versions must match)') or diag($err);

note sprintf('%.1f s so far', time - $t_start);
# ---------------------------------------------------------------------------------------
# Everyone is still up, and still gives the same answer
is( $coord->safe_psql('postgres', "SET enable_partitionwise_aggregate = on;\n"
		  . "SELECT md5(bloom_union_agg(f)::bytea) FROM (SELECT day, bloom_agg(u, $CAP, $FPR) f FROM events GROUP BY day) s"),
	$md5[0], 'after the errors, the coordinator and both shards give the same merged filter');
for my $n ($coord, $shard1, $shard2)
{
	my $log = slurp_file($n->logfile);
	ok($log !~ /terminated by signal|server process .* was terminated|PANIC/, $n->name . ': no crash in the server log');
}

note sprintf('total %.1f s', time - $t_start);
$_->stop for $coord, $shard1, $shard2;
done_testing();
