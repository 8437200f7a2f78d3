
# 001_dump_restore: every sketch kind survives pg_dump/pg_restore (custom format),
# pg_dump/psql (plain format) and binary COPY between two clusters, byte for byte, and
# answers lookups the same; a corrupted binary COPY row is rejected (22P03) and nothing
# of that COPY is inserted.
#
# Source data (database bs of cluster src):
#   blooms   bloom: empty, 64-bit/3-hash, integer/text/uuid/float/numeric/date/timestamptz/
#            bytea keys, an odd bit count, a saturated filter, a 1.2 MB and a 12 MB filter
#            (TOASTed; bloom is STORAGE external), NULL, growable filters of classic and
#            blocked stages (1.4)
#   states   bloom_agg_state, from user-defined aggregates with STYPE = bloom_agg_state and no
#            final function (the only legal way to get one: the transition functions refuse
#            to run outside an aggregate): small and large exact states, a text state, a
#            counting (cbloom_agg) state, NULL
#   cmss     cms: empty default (compressible), integer/text/weighted, 1x50, a 1 MB one, NULL
#   topks    topk: integer and text, one that dropped values (format 2), one of format 1 as
#            1.4 stored it, NULL
#   cblooms  cbloom: 4-bit and 8-bit, empty, saturated counters, after removals, from
#            cbloom_agg's counting state, a 1.9 MB one, NULL
#   arrs     bloom[] and cms[] columns (text and dump only: binary COPY of arrays of
#            extension types carries the element type OID, which differs between clusters)

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use BSTest;

my $tmp = PostgreSQL::Test::Utils::tempdir;

my $src = bs_node('src', conf => ['log_statement = ddl'], no_extension => 1);
my $dst = bs_node('dst', conf => ['log_statement = ddl'], no_extension => 1);
my $default_version = bs_default_version($dst);
$src->safe_psql('postgres', 'CREATE DATABASE bs');
$src->safe_psql('bs', 'CREATE EXTENSION bloomsketch');

my $t0 = time;
$src->safe_psql(
	'bs', q{
CREATE AGGREGATE bloom_agg_partial(bigint) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE bloom_agg_partial(text) (SFUNC = bloom_agg_trans, STYPE = bloom_agg_state);
CREATE AGGREGATE cbloom_agg_partial(bigint) (SFUNC = cbloom_agg_trans, STYPE = bloom_agg_state);

CREATE TABLE blooms (id int PRIMARY KEY, note text NOT NULL, f bloom);
INSERT INTO blooms VALUES
  (1, 'empty 100/0.01', bloom_empty(100, 0.01)),
  (2, '64 bits 3 hashes', bloom_add(bloom_add(bloom_empty_bits(64, 3), 42), 7)),
  (3, 'integer 1..1000 in 10000/0.01', (SELECT bloom_agg(k, 10000, 0.01) FROM generate_series(1, 1000) k)),
  (4, 'text, sized by bloom_agg', (SELECT bloom_agg('k' || k) FROM generate_series(1, 5000) k)),
  (5, 'uuid', (SELECT bloom_agg(md5(k::text)::uuid, 1000, 0.001) FROM generate_series(1, 500) k)),
  (6, 'float8', (SELECT bloom_agg(k::float8 / 4, 2000, 0.01) FROM generate_series(1, 2000, 3) k)),
  (7, 'numeric', (SELECT bloom_agg(k::numeric / 8, 2000, 0.01) FROM generate_series(1, 2000, 2) k)),
  (8, 'date', (SELECT bloom_agg(date '2020-01-01' + k::int, 2000, 0.02) FROM generate_series(1, 1500) k)),
  (9, 'timestamptz', (SELECT bloom_agg(timestamptz '2020-01-01 00:00:00+00' + k * interval '1 minute', 3000, 0.01) FROM generate_series(1, 3000, 5) k)),
  (10, 'bytea', (SELECT bloom_agg(int8send(k), 1000, 0.05) FROM generate_series(1, 1000, 4) k)),
  (11, '1001 bits 1 hash', bloom_add(bloom_empty_bits(1001, 1), 'x')),
  (12, 'saturated', (SELECT bloom_agg(k, 10, 0.5) FROM generate_series(1, 2000) k)),
  (13, '1.2 MB: 1000000/0.01, 28572 integers', (SELECT bloom_agg(k, 1000000, 0.01) FROM generate_series(1, 200000, 7) k)),
  (14, '12 MB: 10000000/0.01, 100000 texts', (SELECT bloom_agg('k' || k, 10000000, 0.01) FROM generate_series(1, 100000) k)),
  (15, 'NULL', NULL),
  (16, 'growable, 5 classic stages', bloom_add_all(bloom_empty(1000, 0.01, growth => 2), (SELECT array_agg(k) FROM generate_series(1, 20000) k))),
  (17, 'growable, blocked stages, text', bloom_add_all(bloom_empty(100, 0.001, 4, 'blocked'), (SELECT array_agg('k' || k) FROM generate_series(1, 3000) k)));

CREATE TABLE states (id int PRIMARY KEY, counting boolean NOT NULL, s bloom_agg_state);
INSERT INTO states VALUES
  (1, false, (SELECT bloom_agg_partial(k) FROM generate_series(1, 10) k)),
  (2, false, (SELECT bloom_agg_partial(k) FROM generate_series(1, 100000) k)),
  (3, false, (SELECT bloom_agg_partial('k' || k) FROM generate_series(1, 3000) k)),
  (4, true, (SELECT cbloom_agg_partial(k % 50) FROM generate_series(1, 1000) k)),
  (5, false, NULL);

CREATE TABLE cmss (id int PRIMARY KEY, s cms);
INSERT INTO cmss VALUES
  (1, cms_empty()),
  (2, (SELECT cms_agg(k % 100) FROM generate_series(1, 10000) k)),
  (3, (SELECT cms_agg('k' || (k % 37), 0.01, 0.001) FROM generate_series(1, 5000) k)),
  (4, (SELECT cms_agg_weighted(k % 13, k, 0.001, 0.01) FROM generate_series(1, 3000) k)),
  (5, cms_add(cms_add(cms_empty_dims(50, 1), 5, 1000000000000), 6)),
  (6, (SELECT cms_agg(k, 0.0001, 0.01) FROM generate_series(1, 200000) k)),
  (7, NULL);

CREATE TABLE topks (id int PRIMARY KEY, s topk);
INSERT INTO topks VALUES
  (1, (SELECT topk_agg(k % 100 + (k % 7) * (k % 3), 10) FROM generate_series(1, 20000) k)),
  (2, (SELECT topk_agg('k' || (k % 57), 5, 0.01, 0.01) FROM generate_series(1, 5000) k)),
  (4, (SELECT topk_agg(k, 10, 0.002, 0.05) FROM generate_series(1, 20000) k)),
  (5, '\x42534b540104010100000000000000001c000000000000000200000003000000640000000000000006000000300000000f000000000000000e000000000000000e00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e0000000000000000000000000000000f00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001d000000000000000e000000000000000f000000000000000000000000000000000000000000000000000000000000000e000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000e00000000000000000000000000000000000000000000000000000000000000000000000000000043e2ee915cc686200f0000000000000000000000080000002e79db643559bc2f0f0000000000000008000000080000007d2ef4c12920924d0e0000000000000010000000080000003b676347da4b996b0e0000000000000018000000080000008ca7aa39aae9038e0e00000000000000200000000800000078715ed90a2922ca0e000000000000002800000008000000020000000000000001000000000000000300000000000000060000000000000005000000000000000400000000000000'),
  (3, NULL);

CREATE TABLE cblooms (id int PRIMARY KEY, f cbloom);
INSERT INTO cblooms VALUES
  (1, cbloom_empty(1000, 0.01)),
  (2, (SELECT cbloom_agg(k, 10000, 0.01, 4) FROM generate_series(1, 5000) k)),
  (3, (SELECT cbloom_agg('k' || k, 10000, 0.01, 8) FROM generate_series(1, 5000) k)),
  (4, (SELECT cbloom_agg(k % 3, 100, 0.01, 4) FROM generate_series(1, 1000) k)),
  (5, (SELECT cbloom_agg(k % 3, 100, 0.01, 8) FROM generate_series(1, 1000) k)),
  (6, cbloom_remove(cbloom_remove(cbloom_add(cbloom_add(cbloom_add(cbloom_empty(100, 0.01, 8), 1), 2), 2), 2), 1)),
  (7, (SELECT cbloom_agg(k) FROM generate_series(1, 300) k)),
  (8, (SELECT cbloom_agg(k, 200000, 0.01, 8) FROM generate_series(1, 100000) k)),
  (9, NULL);

CREATE TABLE arrs (id int PRIMARY KEY, fs bloom[], cs cms[]);
INSERT INTO arrs VALUES
  (1, ARRAY[bloom_add(bloom_empty(10, 0.1), 1), NULL, bloom_empty_bits(8, 1)], ARRAY[cms_add(cms_empty_dims(4, 2), 'a')]),
  (2, NULL, '{}'),
  (3, '{}', ARRAY[NULL::cms]);
});
note sprintf('source data created in %.1f s', time - $t0);

my $sizes = $src->safe_psql(
	'bs', q{
SELECT (SELECT pg_column_size(f) FROM blooms WHERE id = 13), (SELECT pg_column_size(f) FROM blooms WHERE id = 14),
       (SELECT pg_total_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'blooms'),
       (SELECT count(*) FROM cblooms WHERE (cbloom_info(f)).counters_saturated > 0)});
my ($big1, $big2, $toast, $saturated) = split /\|/, $sizes;
cmp_ok($big1, '>', 1_000_000, "bloom 13 is over 1 MB ($big1 bytes)");
cmp_ok($toast, '>', $big1 + $big2, "the large filters are stored in the TOAST table ($toast bytes)");
is($saturated, 2, 'two cbloom values have saturated counters (4-bit and 8-bit)');

# Everything the values are and answer, as one text: per row the md5 and length of the
# format bytes, the info functions, and lookups of 4000 keys of the row's key family.
my $fingerprint_sql = q{
SELECT 'blooms', id, note, md5(f::bytea), octet_length(f::bytea), bloom_info(f)::text FROM blooms ORDER BY id;
SELECT 'states', id, md5(bloom_agg_state_send(s)), octet_length(bloom_agg_state_send(s)),
       CASE WHEN counting THEN md5(cbloom_agg_final(s)::bytea) ELSE md5(bloom_agg_final(s)::bytea) END,
       s::text = bloom_agg_state_out(s)::text
  FROM states ORDER BY id;
SELECT 'cmss', id, md5(s::bytea), octet_length(s::bytea), cms_info(s)::text FROM cmss ORDER BY id;
SELECT 'topks', id, md5(s::bytea), octet_length(s::bytea), topk_info(s)::text,
       (SELECT string_agg(value || '=' || frequency || '/' || lower_bound || '-' || upper_bound, ',')
          FROM topk_items_bounds(s))
  FROM topks ORDER BY id;
SELECT 'cblooms', id, md5(f::bytea), octet_length(f::bytea), cbloom_info(f)::text, md5((f::bloom)::bytea) FROM cblooms ORDER BY id;
SELECT 'arrs', id, md5(fs::text), md5(cs::text), array_length(fs, 1), array_length(cs, 1) FROM arrs ORDER BY id;
-- lookups: each value is detoasted and its key family read once (in the subquery), then
-- probed with 4000 keys of its family in a subplan
SELECT 'bloom-lookups', id, (SELECT md5(string_agg(CASE fam
         WHEN 'text' THEN f @> ('k' || k)
         WHEN 'uuid' THEN f @> md5(k::text)::uuid
         WHEN 'float' THEN f @> (k::float8 / 4)
         WHEN 'numeric' THEN f @> (k::numeric / 8)
         WHEN 'date' THEN f @> (date '2020-01-01' + k::int)
         WHEN 'timestamptz' THEN f @> (timestamptz '2020-01-01 00:00:00+00' + k * interval '1 minute')
         WHEN 'bytea' THEN f @> int8send(k)
         ELSE f @> k END::int::text, '' ORDER BY k)) || '|' ||
       count(*) FILTER (WHERE CASE fam WHEN 'text' THEN f @> ('k' || k) WHEN 'integer' THEN f @> k END)
       FROM generate_series(1, 4000) k)
  FROM (SELECT id, f::bytea::bloom AS f, (bloom_info(f)).key_family AS fam FROM blooms WHERE f IS NOT NULL OFFSET 0) b
 ORDER BY id;
SELECT 'cbloom-lookups', id, (SELECT md5(string_agg(c::text, ',' ORDER BY k)) || '|' || sum(c)
       FROM generate_series(0, 4000) k,
            LATERAL (SELECT CASE fam WHEN 'text' THEN cbloom_count(f, 'k' || k) ELSE cbloom_count(f, k) END AS c) x)
  FROM (SELECT id, f::bytea::cbloom AS f, (cbloom_info(f)).key_family AS fam FROM cblooms WHERE f IS NOT NULL OFFSET 0) b
 ORDER BY id;
SELECT 'cms-lookups', id, (SELECT md5(string_agg(CASE fam WHEN 'text' THEN s -> ('k' || k) ELSE s -> k END::text, ',' ORDER BY k))
       FROM generate_series(0, 4000) k), cms_total(s)
  FROM (SELECT id, s::bytea::cms AS s, (cms_info(s)).key_family AS fam FROM cmss WHERE s IS NOT NULL OFFSET 0) b
 ORDER BY id;
};
my $fp_src = $src->safe_psql('bs', $fingerprint_sql);
my $bytes_per_copy = $src->safe_psql(
	'bs', q{
SELECT (SELECT coalesce(sum(octet_length(f::bytea)), 0) FROM blooms)
     + (SELECT coalesce(sum(octet_length(bloom_agg_state_send(s))), 0) FROM states)
     + (SELECT coalesce(sum(octet_length(s::bytea)), 0) FROM cmss)
     + (SELECT coalesce(sum(octet_length(s::bytea)), 0) FROM topks)
     + (SELECT coalesce(sum(octet_length(f::bytea)), 0) FROM cblooms)});
my $rows = $src->safe_psql('bs',
	'SELECT (SELECT count(*) FROM blooms) + (SELECT count(*) FROM states) + (SELECT count(*) FROM cmss) + (SELECT count(*) FROM topks) + (SELECT count(*) FROM cblooms) + (SELECT count(*) FROM arrs)'
);
ok(length($fp_src) > 1000, 'fingerprint of the source computed');
# lookups of inserted keys are positive: no false negatives before anything is copied
like($fp_src, qr/^bloom-lookups\|3\|[0-9a-f]{32}\|(\d+)$/m, 'lookups computed for bloom 3');
like($fp_src, qr/^cbloom-lookups\|2\|[0-9a-f]{32}\|(\d+)$/m, 'lookups computed for cbloom 2');
like($fp_src, qr/^cms-lookups\|2\|[0-9a-f]{32}\|10000$/m, 'lookups computed for cms 2');
my ($pos3) = $fp_src =~ /^bloom-lookups\|3\|[0-9a-f]{32}\|(\d+)$/m;
cmp_ok($pos3, '>=', 1000, 'bloom 3 contains its 1000 keys');

my $compared = 0;
my $check = sub {
	my ($db, $how) = @_;
	my $fp = $dst->safe_psql($db, $fingerprint_sql);
	is($fp, $fp_src, "$how: every value identical byte for byte (md5 of the format bytes) and every lookup the same");
	$compared += $bytes_per_copy if $fp eq $fp_src;
	my $ver = $dst->safe_psql($db, q{SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch'});
	is($ver, $default_version, "$how: extension version $default_version (the default)");
	return;
};

# --- pg_dump -Fc, pg_restore
$t0 = time;
$src->command_ok([ 'pg_dump', '-Fc', '-d', 'bs', '-f', "$tmp/bs.dump" ], 'pg_dump -Fc');
$dst->safe_psql('postgres', 'CREATE DATABASE r_custom');
$dst->command_ok([ 'pg_restore', '--exit-on-error', '-d', 'r_custom', "$tmp/bs.dump" ], 'pg_restore of the custom dump');
$check->('r_custom', 'custom format dump and pg_restore');
note sprintf('custom format: %.1f s, dump %d bytes', time - $t0, -s "$tmp/bs.dump");

# --- pg_dump -Fp, psql
$t0 = time;
$src->command_ok([ 'pg_dump', '-Fp', '-d', 'bs', '-f', "$tmp/bs.sql" ], 'pg_dump -Fp');
$dst->safe_psql('postgres', 'CREATE DATABASE r_plain');
$dst->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'r_plain', '-f', "$tmp/bs.sql" ],
	'psql restores the plain dump');
$check->('r_plain', 'plain format dump and psql');
note sprintf('plain format: %.1f s, dump %d bytes', time - $t0, -s "$tmp/bs.sql");

# --- binary COPY: into the schema of the source (pg_dump --schema-only), table by table
$t0 = time;
my @copy_tables = qw(blooms states cmss topks cblooms);
$src->command_ok([ 'pg_dump', '--schema-only', '-Fp', '-d', 'bs', '-f', "$tmp/schema.sql" ], 'pg_dump --schema-only');
$dst->safe_psql('postgres', 'CREATE DATABASE r_copy');
$dst->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'r_copy', '-f', "$tmp/schema.sql" ],
	'schema restored for the binary COPY');
my $copy_bytes = 0;
for my $t (@copy_tables)
{
	$src->safe_psql('bs', "COPY $t TO '$tmp/$t.bin' (FORMAT binary)");
	$dst->safe_psql('r_copy', "COPY $t FROM '$tmp/$t.bin' (FORMAT binary)");
	$dst->safe_psql('r_copy', "COPY $t TO '$tmp/$t.back.bin' (FORMAT binary)");
	my $a = slurp_file("$tmp/$t.bin");
	my $b = slurp_file("$tmp/$t.back.bin");
	ok($a eq $b, "binary COPY of $t out of the second cluster is byte-identical to the first's (" . length($a) . ' bytes)');
	$copy_bytes += length($a);
}
# arrays go through text COPY
$src->safe_psql('bs', "COPY arrs TO '$tmp/arrs.txt'");
$dst->safe_psql('r_copy', "COPY arrs FROM '$tmp/arrs.txt'");
$check->('r_copy', 'binary COPY');
note sprintf('binary COPY: %.1f s, %d bytes of COPY files', time - $t0, $copy_bytes);

# --- a corrupted binary COPY row is rejected with 22P03, and nothing is inserted
# Binary COPY: 11-byte signature, int32 flags, int32 header extension length (+ extension),
# then per tuple an int16 field count and per field an int32 length (-1 for NULL) and the
# bytes; an int16 -1 ends the file.
sub copy_tuples
{
	my ($data) = @_;
	my $pos = 11;
	my ($flags, $extlen) = unpack('NN', substr($data, $pos, 8));
	$pos += 8 + $extlen;
	my @tuples;
	while (1)
	{
		my $n = unpack('n!', substr($data, $pos, 2));
		last if $n == -1;
		my $start = $pos;
		$pos += 2;
		my @fields;
		for (1 .. $n)
		{
			my $len = unpack('N!', substr($data, $pos, 4));
			push @fields, { lenpos => $pos, pos => $pos + 4, len => $len };
			$pos += 4 + ($len > 0 ? $len : 0);
		}
		push @tuples, { start => $start, end => $pos, fields => \@fields };
	}
	return @tuples;
}

my %sketch_col = (blooms => 2, states => 2, cmss => 1, topks => 1, cblooms => 1);
my @corruptions = (
	[ 'magic', sub { my ($d, $f) = @_; substr($$d, $f->{pos}, 1) = 'X'; } ],
	[ 'format version 9', sub { my ($d, $f) = @_; substr($$d, $f->{pos} + 4, 1) = chr(9); } ],
	[ 'kind byte', sub { my ($d, $f) = @_; substr($$d, $f->{pos} + 5, 1) = chr((ord(substr($$d, $f->{pos} + 5, 1)) % 5) + 1); } ],
	[ 'payload one byte short', sub {
		my ($d, $f) = @_;
		substr($$d, $f->{pos} + $f->{len} - 1, 1) = '';
		substr($$d, $f->{lenpos}, 4) = pack('N', $f->{len} - 1);
	} ],
	[ 'one trailing byte', sub {    # not for topk: bytes after a topk are spare key room
		my ($d, $f) = @_;
		substr($$d, $f->{pos} + $f->{len}, 0) = "\0";
		substr($$d, $f->{lenpos}, 4) = pack('N', $f->{len} + 1);
	} ],
	[ 'header only', sub {
		my ($d, $f) = @_;
		substr($$d, $f->{pos} + 48, $f->{len} - 48) = '';
		substr($$d, $f->{lenpos}, 4) = pack('N', 48);
	} ],
);
my $rejected = 0;
for my $t (@copy_tables)
{
	my $orig = slurp_file("$tmp/$t.bin");
	my @tuples = copy_tuples($orig);
	# the last tuple whose sketch is not NULL: every row before it is valid
	my ($victim) = grep { $_->{fields}[ $sketch_col{$t} ]{len} > 48 } reverse @tuples;
	my $f = $victim->{fields}[ $sketch_col{$t} ];
	$dst->safe_psql('r_copy', "CREATE TABLE ${t}_c (LIKE $t)");
	for my $c (@corruptions)
	{
		my ($what, $mangle) = @$c;
		next if $t eq 'topks' && $what eq 'one trailing byte';
		my $data = $orig;
		$mangle->(\$data, $f);
		open(my $fh, '>:raw', "$tmp/bad.bin") or die $!;
		print $fh $data;
		close $fh;
		# one session: empty the table, try the COPY, count what is in the table
		my ($ret, $out, $err, $state) = bs_psql_err($dst, 'r_copy',
			"TRUNCATE ${t}_c;\nCOPY ${t}_c FROM '$tmp/bad.bin' (FORMAT binary);\nSELECT count(*) FROM ${t}_c;",
			on_error_stop => 0);
		is($state, '22P03', "$t, $what in the last row with a sketch (file of " . scalar(@tuples) . " rows): rejected with 22P03")
		  or diag($err);
		$rejected++ if $state eq '22P03';
		like($err, qr/COPY ${t}_c, line \d+, column/, "$t, $what: the error names the line and column");
		is($out, '0', "$t, $what: nothing inserted");
	}
	# the same file unharmed goes in
	$dst->safe_psql('r_copy', "TRUNCATE ${t}_c");
	$dst->safe_psql('r_copy', "COPY ${t}_c FROM '$tmp/$t.bin' (FORMAT binary)");
	is($dst->safe_psql('r_copy', "SELECT count(*) FROM ${t}_c"), scalar(@tuples), "$t: the intact file loads all rows");
}

# doc/format.md, 9.3: bytes appended to a topk of format 1 (as 1.4 stored them) are spare
# room in its key area, so such a value is valid and lists the same items; a value of
# format 2 has no spare room, and one byte more is rejected
{
	my $orig = slurp_file("$tmp/topks.bin");
	my %by_id = map { (unpack('N!', substr($orig, $_->{fields}[0]{pos}, 4)) => $_) } copy_tuples($orig);
	for my $case ([ 5, 'format 1', 1 ], [ 4, 'format 2', 0 ])
	{
		my ($vid, $format, $accepted) = @$case;
		my $data = $orig;
		$corruptions[4][1]->(\$data, $by_id{$vid}{fields}[1]);
		open(my $fh, '>:raw', "$tmp/bad.bin") or die $!;
		print $fh $data;
		close $fh;
		my ($ret, $out, $err, $state) = bs_psql_err($dst, 'r_copy',
			"TRUNCATE topks_c;\nCOPY topks_c FROM '$tmp/bad.bin' (FORMAT binary);\n" . qq{
SELECT count(*) = (SELECT count(*) FROM topks) FROM topks a JOIN topks_c b USING (id)
 WHERE (SELECT string_agg(value || '=' || frequency, ',') FROM topk_items(a.s))
       IS NOT DISTINCT FROM (SELECT string_agg(value || '=' || frequency, ',') FROM topk_items(b.s))
   AND coalesce(octet_length(b.s::bytea) - octet_length(a.s::bytea), 0) = CASE WHEN id = $vid THEN 1 ELSE 0 END},
			on_error_stop => 0);
		if ($accepted)
		{
			is($out, 't',
				"topk: a byte appended to value $vid ($format) is accepted as spare key room (documented) and every row lists the same items"
			) or diag($err);
		}
		else
		{
			is($state, '22P03', "topk: a byte appended to value $vid ($format) is rejected with 22P03") or diag($err);
		}
	}
}

diag(
	sprintf(
		'001 dump/restore: %d rows of sketches (%d bytes of format bytes, largest %d bytes); compared byte for byte after custom dump, plain dump and binary COPY: %d bytes; %d bytes of binary COPY files identical after the round trip; %d corrupted COPY files rejected with 22P03',
		$rows, $bytes_per_copy, $big2, $compared, $copy_bytes, $rejected));

$src->stop;
$dst->stop;
done_testing();
