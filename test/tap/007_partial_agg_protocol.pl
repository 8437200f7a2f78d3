
# 007_partial_agg_protocol: every key aggregate of bloomsketch run the way Citus distributes a
# custom aggregate (doc/scaling.md): a partial aggregate per shard whose transition function
# is called through a bare fmgr_info (no expression tree: get_fn_expr_argtype knows nothing,
# and fn_extra is NULL on every row), the states shipped as text, then parsed with the state
# type's input function, merged with the combine function and finished with the final
# function, again through bare fmgr_info calls.
#
# The caller is test/tap/partial_agg_shim.c, a small C module of our own that imitates that
# calling convention (for testing only); this test compiles it with cc into its temporary
# directory and loads it into one cluster (superuser):
#   partial_agg(agg regprocedure, value | ROW(args))     -> the state's text form
#   partial_agg_oid(agg oid, value | ROW(args))          the same, the aggregate as an oid
#   combine_agg(agg regprocedure, state text, NULL::result_type) -> the aggregate's result
#   raw_partial_agg(transfn regprocedure, agg regprocedure, value): calls the FUNCTION
#       transfn on every row (a caller that names no usable aggregate)
#
# Data: 20,000 rows, one skewed base value per row (6 heavy hitters with 3900 ... 976 rows,
# 5,852 values seen once) as bigint, integer, text, uuid, numeric, timestamptz, double
# precision, smallint, date, timestamp and bytea keys (every key type with overloads), NULL
# in rows 1-6 (every shard starts with NULL keys) and every 41st row; shards 0-2 by id % 3,
# shard 3 = the rows with a NULL key only.
#   - the shim itself: max(text), sum(integer) and regr_count/regr_avgx (a ROW of two
#     arguments, a final function) give the results of the plain aggregates; like Citus it
#     refuses a value whose type is not the aggregate's declared argument type
#   - every form of bloom_agg, cbloom_agg, cms_agg, cms_agg_weighted and topk_agg, for each of
#     the 11 key types: 4 partial states (the all-NULL shard's is NULL) combined on the
#     "coordinator" equal byte for byte the plain aggregate over all rows (topk: the same
#     items and frequencies, and the same total)
#   - bloom_union_agg of growable filters: the combined partial unions = one node's, byte for byte
#   - over NULL keys only, every form gives NULL, as the plain aggregate does
#   - the aggregate passed as an oid constant (as Citus deparses it) works as well
#   - without a usable aggregate (transition function called with a constant naming an
#     aggregate whose transition function differs; the aggregate named by a column, not a
#     constant; a user aggregate declared with anyelement): the error 22023 "could not
#     determine the data type of the key argument", no crash

use strict;
use warnings;

use File::Basename qw(dirname);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use BSTest;

my $t_start = time;
my $tmp = PostgreSQL::Test::Utils::tempdir;

# run.sh copies the tests into a temporary directory: the shim's source must be there too
my $shim_src = dirname(__FILE__) . '/partial_agg_shim.c';
unless (-f $shim_src)
{
	fail("partial_agg_shim.c is next to the test ($shim_src): test/tap/run.sh must copy test/tap/*.c");
	done_testing();
	exit 1;
}

my $node = bs_node('pa', conf => ['autovacuum = off', 'max_parallel_workers_per_gather = 0']);

# ---------------------------------------------------------------------------------------
# Build and load the shim
my $incdir = $node->config_data('--includedir-server');
my $so = "$tmp/partial_agg_shim.so";
my ($cc_out, $cc_err) = ('', '');
my @cc = ('cc', '-shared', '-fPIC', '-O2', "-I$incdir", '-o', $so, $shim_src);
my $built = IPC::Run::run(\@cc, '>', \$cc_out, '2>', \$cc_err);
ok($built && -f $so, "the shim compiles: @cc") or diag($cc_out . $cc_err);
unless (-f $so)
{
	done_testing();
	exit 1;
}
chmod 0755, $so;

$node->safe_psql(
	'postgres', qq{
CREATE FUNCTION partial_agg_sfunc(internal, regprocedure, anyelement) RETURNS internal
  AS '$so', 'partial_agg_sfunc' LANGUAGE C;
CREATE FUNCTION partial_agg_oid_sfunc(internal, oid, anyelement) RETURNS internal
  AS '$so', 'partial_agg_sfunc' LANGUAGE C;
CREATE FUNCTION raw_partial_agg_sfunc(internal, regprocedure, regprocedure, anyelement) RETURNS internal
  AS '$so', 'raw_partial_agg_sfunc' LANGUAGE C;
CREATE FUNCTION partial_agg_ffunc(internal) RETURNS text
  AS '$so', 'partial_agg_ffunc' LANGUAGE C;
CREATE FUNCTION combine_agg_sfunc(internal, regprocedure, text, anyelement) RETURNS internal
  AS '$so', 'combine_agg_sfunc' LANGUAGE C;
CREATE FUNCTION combine_agg_ffunc(internal, regprocedure, text, anyelement) RETURNS anyelement
  AS '$so', 'combine_agg_ffunc' LANGUAGE C;
CREATE AGGREGATE partial_agg(regprocedure, anyelement) (
  SFUNC = partial_agg_sfunc, STYPE = internal, FINALFUNC = partial_agg_ffunc);
CREATE AGGREGATE partial_agg_oid(oid, anyelement) (
  SFUNC = partial_agg_oid_sfunc, STYPE = internal, FINALFUNC = partial_agg_ffunc);
CREATE AGGREGATE raw_partial_agg(regprocedure, regprocedure, anyelement) (
  SFUNC = raw_partial_agg_sfunc, STYPE = internal, FINALFUNC = partial_agg_ffunc);
CREATE AGGREGATE combine_agg(regprocedure, text, anyelement) (
  SFUNC = combine_agg_sfunc, STYPE = internal, FINALFUNC = combine_agg_ffunc, FINALFUNC_EXTRA);

-- b: 0 (4000 rows), 1 (3000), 2 (2500), 3 (2000), 4 (1500), 5 (1000), else 1000 + id (once);
-- NULL in rows 1-6 (shards 0-2 start with NULL keys) and in every 41st row (shard 3)
CREATE TABLE t (id int PRIMARY KEY, shard int NOT NULL, b bigint, w bigint,
  kb bigint, ki integer, kt text, ku uuid, kn numeric, kts timestamptz, kf double precision,
  ks smallint, kd date, ktn timestamp, ky bytea);
INSERT INTO t (id, shard, b, w)
SELECT id, CASE WHEN id % 41 = 0 THEN 3 ELSE id % 3 END,
       CASE WHEN id <= 6 OR id % 41 = 0 THEN NULL
            WHEN r < 8 THEN 0 WHEN r < 14 THEN 1 WHEN r < 19 THEN 2 WHEN r < 23 THEN 3
            WHEN r < 26 THEN 4 WHEN r < 28 THEN 5 ELSE 1000 + id END,
       CASE WHEN id % 37 = 0 THEN NULL ELSE id % 5 END
  FROM (SELECT id, (id * 7) % 40 AS r FROM generate_series(1, 20000) id) s;
UPDATE t SET kb = b, ki = b::int, kt = 'k' || b, ku = md5(b::text)::uuid, kn = b::numeric / 8,
  kts = timestamptz '2026-01-01 00:00:00+00' + b * interval '1 minute', kf = b::float8 / 4,
  ks = b::smallint, kd = date '2000-01-01' + b::int, ktn = timestamp '2026-01-01' + b * interval '1 second',
  ky = int8send(b);
CREATE TABLE aggs (agg regprocedure);
INSERT INTO aggs VALUES ('bloom_agg(bigint)');
CREATE AGGREGATE my_bloom(anyelement) (
  SFUNC = bloom_agg_trans, STYPE = bloom_agg_state, COMBINEFUNC = bloom_agg_combine,
  FINALFUNC = bloom_agg_final);
ANALYZE t;

-- runs one check query (one text column, one row); an error becomes its result, so that
-- all checks run in one statement and each reports its own error
CREATE FUNCTION pa_check(q text) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE
  r text;
BEGIN
  EXECUTE q INTO r;
  RETURN r;
EXCEPTION WHEN OTHERS THEN
  RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END \$\$;
});

is( $node->safe_psql(
		'postgres', q{
SELECT count(*), count(kb), count(DISTINCT kb), count(*) FILTER (WHERE kb = 0),
       (SELECT string_agg(n, ' ' ORDER BY shard) FROM (SELECT shard, count(kb) || '+' || count(*) FILTER (WHERE kb IS NULL) n FROM t GROUP BY shard) s)
  FROM t}),
	'20000|19507|5858|3900|6502+2 6503+2 6502+2 0+487',
	'data: 20000 rows, 5858 distinct keys; NULL keys in rows 1-6 (shards 0-2) and in all 487 rows of shard 3');

# A partial aggregate per shard, the states as text, combined: the SQL of one check.
#   $agg   the aggregate as regprocedure text, $args the SQL of its arguments (one value or
#   ROW(...) of the declared types), $rtype its result type, $where a filter of the rows
sub split_sql
{
	my ($agg, $args, $rtype, $where, $partial) = @_;
	$partial //= "partial_agg('$agg'::regprocedure, $args)";
	$where = $where ? "WHERE $where" : '';
	return qq{(SELECT combine_agg('$agg'::regprocedure, p, NULL::$rtype)
   FROM (SELECT shard, $partial AS p FROM t $where GROUP BY shard) parts)};
}

# ---------------------------------------------------------------------------------------
# The shim itself, with built-in aggregates (transition strict or not, a final function,
# a ROW of two arguments)
is( $node->safe_psql(
		'postgres', join(
			",\n",
			'SELECT ' . split_sql('max(text)', 'kt', 'text') . ' = (SELECT max(kt) FROM t)',
			split_sql('sum(integer)', 'ki', 'bigint') . ' = (SELECT sum(ki) FROM t)',
			split_sql('regr_count(double precision,double precision)', 'ROW(kf, kf * 2)', 'bigint')
			  . ' = (SELECT regr_count(kf, kf * 2) FROM t)',
			'round(' . split_sql('regr_avgx(double precision,double precision)', 'ROW(kf, kf * 2)', 'float8')
			  . '::numeric, 6) = (SELECT round(regr_avgx(kf, kf * 2)::numeric, 6) FROM t)',
			split_sql('max(text)', 'kt', 'text', 'kt IS NULL') . ' IS NULL')),
	't|t|t|t|t',
	'the shim gives the results of max(text), sum(integer), regr_count and regr_avgx (ROW of 2 arguments, final function); NULL over NULLs'
);
{
	my ($ret, $out, $err, $state) =
	  bs_psql_err($node, 'postgres', q{SELECT partial_agg('bloom_agg(text)'::regprocedure, kb) FROM t;});
	ok($state eq '42804' && $err =~ /the value is of type bigint, the aggregate takes text/,
		'the shim, as Citus, passes only values of the declared types (bigint to bloom_agg(text): 42804)')
	  or diag($err);
}

# ---------------------------------------------------------------------------------------
# Large states: id has about 6,700 distinct values per shard, so each shard's bloom_agg
# state is a 128 kB table, kept in memory as an expanded object that queues hashes while
# it prefetches their slots (src/bloom_agg_expanded.c).  The shim, as Citus, keeps the object
# it is given back and ships its text: no queued hash may be lost on the way.
is( $node->safe_psql(
		'postgres', join(
			",\n",
			'SELECT ' . split_sql('bloom_agg(bigint)', 'id::bigint', 'bloom') . ' = (SELECT bloom_agg(id::bigint) FROM t)',
			split_sql('bloom_agg(bigint)', 'id::bigint', 'bloom') . ' = (SELECT bloom_agg(id::bigint, 20000, 0.01) FROM t)',
			split_sql('cbloom_agg(bigint)', 'id::bigint', 'cbloom') . ' = (SELECT cbloom_agg(id::bigint) FROM t)',
			split_sql('bloom_agg(text)', "'k' || id", 'bloom') . " = (SELECT bloom_agg('k' || id) FROM t)")),
	't|t|t|t',
	'128 kB states per shard (expanded, queueing): bloom_agg and cbloom_agg of 20,000 distinct values equal one node and the fixed-capacity filter'
);

# ---------------------------------------------------------------------------------------
# Growable filters: bloom_union_agg of 150 growable filters (made for 20 keys, each given about
# 130 rows' keys: 2 stages or more), a partial union per shard combined, gives the bytes of one
# node's union (a union does not depend on how it is split, doc/scaling.md section 1)
is( $node->safe_psql(
		'postgres', q{
WITH gf AS (SELECT shard, bloom_add_all(bloom_empty(20, 0.01, growth => 2), array_agg(kb)) AS g
            FROM t WHERE kb IS NOT NULL GROUP BY shard, id % 50)
SELECT (SELECT combine_agg('bloom_union_agg(bloom)'::regprocedure, p, NULL::bloom)
          FROM (SELECT shard, partial_agg('bloom_union_agg(bloom)'::regprocedure, g) AS p
                  FROM gf GROUP BY shard) parts)::bytea = (SELECT bloom_union_agg(g) FROM gf)::bytea,
       (SELECT min((bloom_info(g)).stages) FROM gf) >= 2 AND (SELECT max((bloom_info(g)).stages) FROM gf) >= 3,
       (SELECT count(*) FROM gf)}),
	't|t|150',
	'bloom_union_agg of 150 growable filters (2 to 3 or more stages each): the partial unions per shard, combined, equal one node\'s union byte for byte'
);

# ---------------------------------------------------------------------------------------
# The key types and the forms of the key aggregates
my @types = (
	[ 'kb', 'bigint' ],
	[ 'ki', 'integer' ],
	[ 'kt', 'text' ],
	[ 'ku', 'uuid' ],
	[ 'kn', 'numeric' ],
	[ 'kts', 'timestamp with time zone' ],
	[ 'kf', 'double precision' ],
	[ 'ks', 'smallint' ],
	[ 'kd', 'date' ],
	[ 'ktn', 'timestamp without time zone' ],
	[ 'ky', 'bytea' ]);
# label, aggregate, the types and SQL of its arguments after the key, result type
my @forms = (
	[ 'bloom_agg(x)', 'bloom_agg', [], 'bloom' ],
	[ 'bloom_agg(x, fpr)', 'bloom_agg', [ [ 'double precision', '0.02' ] ], 'bloom' ],
	[
		'bloom_agg(x, cap, fpr)', 'bloom_agg',
		[ [ 'bigint', '20000' ], [ 'double precision', '0.01' ] ], 'bloom'
	],
	[ 'cbloom_agg(x)', 'cbloom_agg', [], 'cbloom' ],
	[ 'cbloom_agg(x, fpr)', 'cbloom_agg', [ [ 'double precision', '0.02' ] ], 'cbloom' ],
	[
		'cbloom_agg(x, cap, fpr)', 'cbloom_agg',
		[ [ 'bigint', '20000' ], [ 'double precision', '0.01' ] ], 'cbloom'
	],
	[
		'cbloom_agg(x, cap, fpr, 8)', 'cbloom_agg',
		[ [ 'bigint', '20000' ], [ 'double precision', '0.01' ], [ 'integer', '8' ] ], 'cbloom'
	],
	[ 'cms_agg(x)', 'cms_agg', [], 'cms' ],
	[
		'cms_agg(x, eps, delta)', 'cms_agg',
		[ [ 'double precision', '0.01' ], [ 'double precision', '0.02' ] ], 'cms'
	],
	[ 'cms_agg_weighted(x, w)', 'cms_agg_weighted', [ [ 'bigint', 'w' ] ], 'cms' ],
	[
		'cms_agg_weighted(x, w, eps, delta)', 'cms_agg_weighted',
		[ [ 'bigint', 'w' ], [ 'double precision', '0.01' ], [ 'double precision', '0.02' ] ], 'cms'
	],
	[ 'topk_agg(x, 5)', 'topk_agg', [ [ 'integer', '5' ] ], 'topk' ],
	[
		'topk_agg(x, 5, eps, delta)', 'topk_agg',
		[ [ 'integer', '5' ], [ 'double precision', '0.01' ], [ 'double precision', '0.01' ] ], 'topk'
	],
	# capacity 20: each shard's state drops values, so the merge's list may differ from the
	# plain aggregate's at the bottom; the bounds hold for every value either way
	[
		'topk_agg(x, 5, 0.05, 0.5)', 'topk_agg',
		[ [ 'integer', '5' ], [ 'double precision', '0.05' ], [ 'double precision', '0.5' ] ], 'topk'
	],
	[
		'topk_agg_weighted(x, w, 5, 0.05, 0.5)', 'topk_agg_weighted',
		[ [ 'bigint', 'w' ], [ 'integer', '5' ], [ 'double precision', '0.05' ], [ 'double precision', '0.5' ] ],
		'topk'
	]);

# (regprocedure text, shim argument SQL, plain call SQL) of a form for a key column
sub form_sql
{
	my ($form, $col, $type) = @_;
	my (undef, $name, $params) = @$form;
	my $sig = join(',', $type, map { $_->[0] } @$params);
	my $args =
	  @$params
	  ? 'ROW(' . join(', ', $col, map { "$_->[1]::$_->[0]" } @$params) . ')'
	  : $col;
	my $plain = "$name(" . join(', ', $col, map { $_->[1] } @$params) . ')';
	return ("$name($sig)", $args, $plain);
}

my $items = sub {
	my ($expr) = @_;
	return
	  "(SELECT string_agg(value || '=' || frequency, ',' ORDER BY n) FROM topk_items($expr) WITH ORDINALITY i(value, frequency, n))";
};

# Run checks, each [label, SQL giving one text value, expected (a regex)], in one statement
# (pa_check turns an error into the result).  Returns the number that failed and the
# results; the first error of each SQLSTATE goes into %$errors.
sub run_checks
{
	my ($checks, $errors) = @_;
	my $sql = "SELECT n, pa_check(q) FROM (VALUES\n"
	  . join(",\n", map { "($_, \$pa\$" . $checks->[$_][1] . "\$pa\$)" } 0 .. $#$checks)
	  . "\n) v(n, q) ORDER BY n";
	my ($ret, $out, $err) = bs_psql_err($node, 'postgres', $sql . ';');
	diag("the batch of checks failed: $err") if $ret != 0;
	my %res = map { split /\|/, $_, 2 } split /\n/, $out;
	my $failed = 0;
	for my $i (0 .. $#$checks)
	{
		my ($label, $q, $expected) = @{ $checks->[$i] };
		my $got = $res{$i} // "(no result: $err)";
		unless (like($got, $expected, $label))
		{
			$failed++;
			diag("SQL: $q");
			$errors->{$1} //= "$label: $got" if $got =~ /^ERROR (\w{5}):/;
		}
	}
	return ($failed, [ map { $res{$_} // '' } 0 .. $#$checks ]);
}

# ---------------------------------------------------------------------------------------
# Every form of every key aggregate, every key type: 4 partial states (the all-NULL
# shard's is NULL), combined = the plain aggregate over all rows
my (@checks, %first_error);
for my $ty (@types)
{
	my ($col, $type) = @$ty;
	for my $form (@forms)
	{
		my ($label, undef, undef, $rtype) = @$form;
		my ($agg, $args, $plain) = form_sql($form, $col, $type);
		my $parts = qq{parts AS MATERIALIZED (SELECT shard, partial_agg('$agg'::regprocedure, $args) AS p FROM t GROUP BY shard),
  x AS (SELECT (SELECT combine_agg('$agg'::regprocedure, p, NULL::$rtype) FROM parts) AS c, (SELECT $plain FROM t) AS s)};
		if ($rtype eq 'topk')
		{
			my $drops = $label =~ /0\.05/;
			my $count = $label =~ /weighted/ ? 'sum(w)' : 'count(*)';
			push @checks,
			  [
				"$label over $type: 3 partial states as text (and a NULL one) combined: "
				  . ($drops ? 'every value within its bounds' : "the plain aggregate's items, frequencies and total, every value within its bounds"),
				qq{WITH $parts
SELECT concat_ws('|', (SELECT count(*) || '/' || count(p) FROM parts), c IS NOT NULL, ${\ $items->('c')} = ${\ $items->('s')},
       (topk_info(c)).total = (topk_info(s)).total, (SELECT count(*) FROM topk_items(c)),
       (SELECT count(*) FROM (SELECT $col AS v, $count AS n FROM t WHERE $col IS NOT NULL GROUP BY $col) g
         WHERE g.n NOT BETWEEN (topk_bounds(c, g.v)).lower_bound AND (topk_bounds(c, g.v)).upper_bound),
       c::bytea = s::bytea) FROM x},
				$drops ? qr/^4\/3\|t\|[tf]\|t\|5\|0\|[tf]$/ : qr/^4\/3\|t\|t\|t\|5\|0\|[tf]$/
			  ];
		}
		else
		{
			push @checks,
			  [
				"$label over $type: 3 partial states as text (and a NULL one) combined = the plain aggregate, byte for byte",
				qq{WITH $parts
SELECT concat_ws('|', (SELECT count(*) || '/' || count(p) FROM parts), c IS NOT NULL, c::bytea = s::bytea, octet_length(c::bytea)) FROM x},
				qr/^4\/3\|t\|t\|\d+$/
			  ];
		}
	}
}
my $t0 = time;
my ($failed, $results) = run_checks(\@checks, \%first_error);
my $checked = scalar @checks;
note sprintf('%d forms x key types checked in %.1f s, %d failed', $checked, time - $t0, $failed);
note "first error with SQLSTATE $_: $first_error{$_}" for sort keys %first_error;
# topk: is the merged sketch also byte-identical? (not promised: README, Limits)
my @topk = grep { $checks[$_][0] =~ /^topk_agg/ } 0 .. $#checks;
my $topk_bytes_same = grep { $results->[$_] =~ /\|t$/ } @topk;
note sprintf('topk: merged sketch byte-identical to the plain one in %d of %d', $topk_bytes_same, scalar @topk);

# ---------------------------------------------------------------------------------------
# NULL keys only: NULL, as the plain aggregate; the aggregate as an oid constant, as
# Citus deparses it
@checks = ();
for my $form (@forms)
{
	my ($label, undef, undef, $rtype) = @$form;
	my ($agg, $args, $plain) = form_sql($form, 'kb', 'bigint');
	push @checks,
	  [
		"$label over NULL keys only: NULL, as the plain aggregate",
		'SELECT concat_ws(\'|\', ' . split_sql($agg, $args, $rtype, 'kb IS NULL')
		  . " IS NULL, (SELECT $plain FROM t WHERE kb IS NULL) IS NULL)",
		qr/^t\|t$/
	  ];
}
for my $c ([ 10, 'kt', 'text', 'cms' ], [ 0, 'ku', 'uuid', 'bloom' ], [ 11, 'kts', 'timestamp with time zone', 'topk' ])
{
	my ($f, $col, $type, $rtype) = @$c;
	my ($agg, $args, $plain) = form_sql($forms[$f], $col, $type);
	my $oid = $node->safe_psql('postgres', "SELECT '$agg'::regprocedure::oid");
	my $combined = split_sql($agg, $args, $rtype, undef, "partial_agg_oid('$oid'::oid, $args)");
	push @checks,
	  [
		"the aggregate as an oid constant ('$oid'::oid, $agg): the same result",
		$rtype eq 'topk'
		? "SELECT (${\ $items->($combined)} = ${\ $items->(qq{(SELECT $plain FROM t)})})::text"
		: "SELECT (${combined}::bytea = (SELECT $plain FROM t)::bytea)::text",
		qr/^true$/
	  ];
}
run_checks(\@checks, \%first_error);

# ---------------------------------------------------------------------------------------
# The call-site cache (src/call_cache.c): a caller with a new FmgrInfo per row gets the key
# type and the memo of the parameters from a table of its AggState, one entry per
# (transition function, Aggref).  Aggregates that share a transition function with other
# key types and parameters in one query, parameters that differ between groups, and
# queries one after another in one session must each get their own; a parameter that
# varies between the rows of a group must still be checked on every row.
my $cms3 = 'cms_agg(%s,double precision,double precision)';
my $blocked = 'bloom_agg(bigint,bigint,double precision,text)';
@checks = (
	[
		'cache: bloom_agg(bigint), bloom_agg(text), cms_agg of bigint, text and uuid with two (eps, delta) in one query (one AggState, shared transition functions) = the plain aggregates',
		qq{WITH parts AS MATERIALIZED (SELECT shard,
    partial_agg('bloom_agg(bigint)'::regprocedure, kb) AS b1,
    partial_agg('bloom_agg(text)'::regprocedure, kt) AS b2,
    partial_agg('${\ sprintf($cms3, 'bigint')}'::regprocedure, ROW(kb, 0.01::float8, 0.02::float8)) AS c1,
    partial_agg('${\ sprintf($cms3, 'text')}'::regprocedure, ROW(kt, 0.002::float8, 0.01::float8)) AS c2,
    partial_agg('cms_agg(uuid)'::regprocedure, ku) AS c3
  FROM t GROUP BY shard)
SELECT concat_ws('|',
  (SELECT combine_agg('bloom_agg(bigint)'::regprocedure, b1, NULL::bloom) FROM parts)::bytea = (SELECT bloom_agg(kb) FROM t)::bytea,
  (SELECT combine_agg('bloom_agg(text)'::regprocedure, b2, NULL::bloom) FROM parts)::bytea = (SELECT bloom_agg(kt) FROM t)::bytea,
  (SELECT combine_agg('${\ sprintf($cms3, 'bigint')}'::regprocedure, c1, NULL::cms) FROM parts)::bytea = (SELECT cms_agg(kb, 0.01, 0.02) FROM t)::bytea,
  (SELECT combine_agg('${\ sprintf($cms3, 'text')}'::regprocedure, c2, NULL::cms) FROM parts)::bytea = (SELECT cms_agg(kt, 0.002, 0.01) FROM t)::bytea,
  (SELECT combine_agg('cms_agg(uuid)'::regprocedure, c3, NULL::cms) FROM parts)::bytea = (SELECT cms_agg(ku) FROM t)::bytea)},
		qr/^t\|t\|t\|t\|t$/
	],
	[
		'cache: epsilon and a blocked filter\'s capacity that differ between groups (the same on every row of each): each group\'s state = the plain aggregate\'s',
		qq{WITH parts AS MATERIALIZED (SELECT shard,
    partial_agg('${\ sprintf($cms3, 'bigint')}'::regprocedure, ROW(kb, (0.01 * (shard + 1))::float8, 0.02::float8)) AS c,
    partial_agg('$blocked'::regprocedure, ROW(kb, (1000 * (shard + 1))::bigint, 0.01::float8, 'blocked'::text)) AS b
  FROM t GROUP BY shard),
  mine AS (SELECT shard, combine_agg('${\ sprintf($cms3, 'bigint')}'::regprocedure, c, NULL::cms)::bytea AS c,
                  combine_agg('$blocked'::regprocedure, b, NULL::bloom)::bytea AS b FROM parts GROUP BY shard),
  plain AS (SELECT shard, cms_agg(kb, (0.01 * (shard + 1))::float8, 0.02)::bytea AS c,
                   bloom_agg(kb, 1000 * (shard + 1), 0.01, 'blocked')::bytea AS b FROM t GROUP BY shard)
SELECT count(*) || '/' || count(*) FILTER (WHERE m.c IS NOT DISTINCT FROM p.c AND m.b IS NOT DISTINCT FROM p.b)
       || '/' || count(DISTINCT octet_length(m.c)) || '/' || count(DISTINCT octet_length(m.b))
  FROM mine m JOIN plain p USING (shard)},
		qr{^4/4/3/3$}
	],
	[
		'cache: an epsilon that changes within a group: 22023, as the plain aggregate',
		qq{SELECT count(p)::text FROM (SELECT partial_agg('${\ sprintf($cms3, 'bigint')}'::regprocedure,
    ROW(kb, CASE WHEN id > 10000 THEN 0.02 ELSE 0.01 END::float8, 0.02::float8)) AS p FROM t GROUP BY shard) s},
		qr/^ERROR 22023: cms_agg parameters must be the same for every row of a group/
	],
	[
		'cache: an epsilon that turns invalid within a group: 22023',
		qq{SELECT count(p)::text FROM (SELECT partial_agg('${\ sprintf($cms3, 'bigint')}'::regprocedure,
    ROW(kb, CASE WHEN id > 10000 THEN -1 ELSE 0.01 END::float8, 0.02::float8)) AS p FROM t GROUP BY shard) s},
		qr/^ERROR 22023:/
	],
	[
		'cache: a layout that changes within a group (CASE ... \'blocked\' ELSE \'classic\'): 22023, as the plain aggregate',
		qq{SELECT count(p)::text FROM (SELECT partial_agg('$blocked'::regprocedure,
    ROW(kb, 20000::bigint, 0.01::float8, CASE WHEN id > 10000 THEN 'blocked' ELSE 'classic' END)) AS p FROM t GROUP BY shard) s},
		qr/^ERROR 22023: bloom_agg parameters must be the same for every row of a group/
	],
	[
		'cache: a layout that turns unknown within a group: 22023',
		qq{SELECT count(p)::text FROM (SELECT partial_agg('$blocked'::regprocedure,
    ROW(kb, 20000::bigint, 0.01::float8, CASE WHEN id > 10000 THEN 'sparse' ELSE 'classic' END)) AS p FROM t GROUP BY shard) s},
		qr/^ERROR 22023:/
	]);
# the same query shape with other key types, one statement after another in one session:
# a new AggState may have the address of the last one, and must not find its entries
for my $ty ([ 'kb', 'bigint' ], [ 'kt', 'text' ], [ 'ki', 'integer' ], [ 'kb', 'bigint' ], [ 'ku', 'uuid' ])
{
	my ($col, $type) = @$ty;
	for my $agg ('bloom_agg', 'cms_agg')
	{
		my $rtype = $agg eq 'cms_agg' ? 'cms' : 'bloom';
		push @checks,
		  [
			"cache: $agg($type) after other key types in the session = the plain aggregate",
			'SELECT (' . split_sql("$agg($type)", $col, $rtype) . "::bytea = (SELECT $agg($col) FROM t)::bytea)::text",
			qr/^true$/
		  ];
	}
}
run_checks(\@checks, \%first_error);
{
	# the statements one by one (each its own executor), in one session
	my @sql = map {
		my ($col, $type) = @$_;
		'SELECT (' . split_sql("bloom_agg($type)", $col, 'bloom') . "::bytea = (SELECT bloom_agg($col) FROM t)::bytea)"
	} ([ 'kb', 'bigint' ], [ 'kt', 'text' ], [ 'kb', 'bigint' ], [ 'ku', 'uuid' ]);
	is($node->safe_psql('postgres', join(";\n", @sql) . ';'),
		"t\nt\nt\nt", 'cache: bloom_agg of bigint, text, bigint, uuid as statements one after another in one session = the plain aggregate');
}

# ---------------------------------------------------------------------------------------
# No usable aggregate: a clean 22023, no crash
my $keymsg = qr/could not determine the data type of the key argument/;
my @negative = (
	[
		'bloom_agg_trans called on text keys, the only constant naming cms_agg(bigint) (another transition function)',
		q{SELECT raw_partial_agg('bloom_agg_trans(bloom_agg_state,anyelement)'::regprocedure, 'cms_agg(bigint)'::regprocedure, kt) FROM t;}
	],
	[
		'topk_agg_trans called on ROW(bigint, integer), the only constant naming cms_agg_weighted(bigint,bigint) (another transition function)',
		q{SELECT raw_partial_agg('topk_agg_trans(topk,anyelement,integer)'::regprocedure, 'cms_agg_weighted(bigint,bigint)'::regprocedure, ROW(kb, 5)) FROM t;}
	],
	[
		'bloom_agg_trans called on bigint keys, the constant naming bloom_agg(text) (its transition function, another key type)',
		q{SELECT raw_partial_agg('bloom_agg_trans(bloom_agg_state,anyelement)'::regprocedure, 'bloom_agg(text)'::regprocedure, kb) FROM t;}
	],
	[
		'cms_agg_trans called on text keys, the constant naming cms_agg(integer) (its transition function, another key type)',
		q{SELECT raw_partial_agg('cms_agg_trans(cms,anyelement)'::regprocedure, 'cms_agg(integer)'::regprocedure, kt) FROM t;}
	],
	[
		'the aggregate named by a column, not a constant',
		q{SELECT a.agg, partial_agg(a.agg, t.kb) FROM t, aggs a GROUP BY a.agg;}
	],
	[
		'a user aggregate my_bloom(anyelement) over bloom_agg_trans',
		q{SELECT partial_agg('my_bloom(anyelement)'::regprocedure, kb) FROM t;}
	]);
for my $n (@negative)
{
	my ($what, $sql) = @$n;
	my ($ret, $out, $err, $state) = bs_psql_err($node, 'postgres', $sql);
	ok($state eq '22023' && $err =~ $keymsg,
		"no usable aggregate ($what): 22023 could not determine the data type of the key argument")
	  or diag("state '$state', error: $err");
}
is( $node->safe_psql('postgres', 'SELECT bloom_agg(kb)::bytea = my_bloom(kb)::bytea FROM t'),
	't', 'after the errors the server answers; my_bloom called directly (with its expression) works');
ok(!$node->log_contains(qr/terminated by signal|server process .* was terminated|PANIC/),
	'no crash in the server log');

diag(
	sprintf(
		'007 partial aggregate protocol: %d aggregate forms x key types through the shim, %d failed; topk byte-identical after the merge in %d of %d; %.1f s',
		$checked, $failed, $topk_bytes_same, scalar @topk, time - $t_start));

$node->stop;
done_testing();
