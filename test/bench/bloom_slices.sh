#!/usr/bin/env bash
#
# test/bench/bloom_slices.sh: the idx.* cases, the bloom_slices index (doc/reference.md,
# "bloom_slices") against the sequential scan of the same table, on the server of the libpq
# environment (PGHOST, PGPORT, PGUSER, PGDATABASE), for example a throwaway one:
#
#   bash test/server.sh -- bash test/bench/bloom_slices.sh
#   BENCH_IDX_ROWS=15000 bash test/server.sh -- bash test/bench/bloom_slices.sh
#
# The table visits(id, users bloom) holds BENCH_IDX_ROWS filters of BENCH_IDX_KEYS keys at rate
# BENCH_IDX_FPR (10,000 keys at 1%: 11,982 bytes of bits each, stored out of line).  Reported:
#   idx.build       CREATE INDEX time, and the index size against the filters' bytes
#   idx.lookup      f @> key, warm: Bitmap Index Scan against Seq Scan, BENCH_IDX_RUNS pairs run
#                   alternately (index, seq, index, seq, ...) for each of BENCH_IDX_PROBES keys
#                   (half present, half absent); medians with min and max, the speed-up of the
#                   medians, and the index pages a lookup read (EXPLAIN BUFFERS) against the bound
#                   of a head, the dead-row bitmap and k slices per batch
#                   (bloom_slices_info.pages_per_lookup)
#   idx.insert      BENCH_IDX_INSERTS rows inserted one statement each into the indexed table
#                   (pending list), rows per second, then the time of bloom_slices_summarize
# The issue's size is 200,000 rows (2.4 GB of filters): run it on a quiet machine.
#
# Settings: BENCH_IDX_ROWS (200000), BENCH_IDX_KEYS (10000), BENCH_IDX_FPR (0.01),
# BENCH_IDX_RUNS (5), BENCH_IDX_PROBES (10), BENCH_IDX_INSERTS (2000).

set -euo pipefail

ROWS=${BENCH_IDX_ROWS:-200000}
KEYS=${BENCH_IDX_KEYS:-10000}
FPR=${BENCH_IDX_FPR:-0.01}
RUNS=${BENCH_IDX_RUNS:-5}
PROBES=${BENCH_IDX_PROBES:-10}
INSERTS=${BENCH_IDX_INSERTS:-2000}

q() { psql -X -q -v ON_ERROR_STOP=1 -At "$@"; }
log() { printf '[idx] %s\n' "$*" >&2; }
# median, min and max of numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f", m, v[1], v[NR] }'; }
# Execution Time of EXPLAIN ANALYZE
exec_ms() { sed -n 's/.*Execution Time: \([0-9.]*\) ms.*/\1/p'; }

q -c "CREATE EXTENSION IF NOT EXISTS bloomsketch" 2>/dev/null
log "generating $ROWS filters of $KEYS keys at $FPR"
# row r holds the keys r * KEYS + 1 .. (r + 1) * KEYS, scattered by a multiplicative hash
t0=$(date +%s.%N)
q <<SQL
DROP TABLE IF EXISTS visits;
CREATE TABLE visits (id int, users bloom);
INSERT INTO visits
SELECT r, bloom_add_all(bloom_empty($KEYS, $FPR),
                        (SELECT array_agg(((r::bigint * $KEYS + i) * 2654435761) % 1000000007)
                         FROM generate_series(1, $KEYS) i))
FROM generate_series(1, $ROWS) r;
VACUUM ANALYZE visits;
SQL
log "generated in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s"

build_ms=$(q <<SQL | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
\timing on
CREATE INDEX visits_users ON visits USING bloom_slices (users);
SQL
)
read -r filters_bytes filters_rel index_bytes batches ppl <<<"$(q -F ' ' -c "
SELECT (SELECT sum(octet_length(users::bytea)) FROM visits),
       pg_table_size('visits'), pg_relation_size('visits_users'),
       i.batches, i.pages_per_lookup
FROM bloom_slices_info('visits_users') i")"
printf 'idx.build\trows %s\tbuild %.0f ms\tindex %s B\tfilters %s B (table with TOAST %s B)\tindex/filters %.3f\tbatches %s\n' \
	"$ROWS" "$build_ms" "$index_bytes" "$filters_bytes" "$filters_rel" \
	"$(awk -v a="$index_bytes" -v b="$filters_bytes" 'BEGIN { print a / b }')" "$batches"

# probes: present keys (of row r) and absent ones (past every row's keys)
probes=()
for ((p = 0; p < PROBES; p++)); do
	if ((p % 2 == 0)); then
		r=$((1 + (p * 7919) % ROWS))
		probes+=("$(( ((r * KEYS + 1 + p) * 2654435761) % 1000000007 ))")
	else
		probes+=("$((1000000007 + p))")
	fi
done
# each measured statement runs twice in its session and the second run is kept: the first
# also fills the new backend's caches (and its catalog reads would count as buffers)
explain2() { local e="EXPLAIN (ANALYZE, BUFFERS) SELECT id FROM visits WHERE users @> $2::bigint;"; printf '%s %s\n%s\n' "$1" "$e" "$e"; }
idx_sql() { explain2 "SET enable_seqscan = off;" "$1"; }
seq_sql() { explain2 "SET enable_bitmapscan = off; SET max_parallel_workers_per_gather = 0;" "$1"; }
# warm up: every probe once each way; the rows found must agree
for k in "${probes[@]}"; do
	a=$(q -c "SET enable_seqscan = off; SELECT string_agg(id::text, ',' ORDER BY id) FROM visits WHERE users @> $k::bigint")
	b=$(q -c "SET enable_bitmapscan = off; SELECT string_agg(id::text, ',' ORDER BY id) FROM visits WHERE users @> $k::bigint")
	[ "$a" = "$b" ] || { log "key $k: index rows '$a' differ from seq scan rows '$b'"; exit 1; }
done
idx_times=() seq_times=() pages=()
for ((run = 1; run <= RUNS; run++)); do
	for k in "${probes[@]}"; do
		out=$(idx_sql "$k" | q | sed -n '/Execution Time/,$p' | tail -n +2)
		idx_times+=("$(exec_ms <<<"$out")")
		# the Bitmap Index Scan's Buffers line: hit + read
		pages+=("$(grep -A2 'Bitmap Index Scan' <<<"$out" | grep -m1 'Buffers:' |
			awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^(hit|read)=/) { split($i, a, "="); n += a[2] } print n }')")
		seq_times+=("$(seq_sql "$k" | q | exec_ms | tail -n 1)")
	done
done
read -r im imin imax <<<"$(printf '%s\n' "${idx_times[@]}" | stats)"
read -r sm smin smax <<<"$(printf '%s\n' "${seq_times[@]}" | stats)"
read -r pm pmin pmax <<<"$(printf '%s\n' "${pages[@]}" | stats)"
printf 'idx.lookup\t%s probes x %s runs, warm\tindex %s ms (min %s, max %s)\tseq %s ms (min %s, max %s)\tspeed-up %.1fx (target 100)\tindex pages read %s (min %s, max %s; bound %s)\n' \
	"$PROBES" "$RUNS" "$im" "$imin" "$imax" "$sm" "$smin" "$smax" \
	"$(awk -v a="$sm" -v b="$im" 'BEGIN { print a / b }')" "$pm" "$pmin" "$pmax" "$ppl"

# the planner's own choice, with no setting changed, for a present key
plan=$(q -c "EXPLAIN SELECT id FROM visits WHERE users @> ${probes[0]}::bigint" | head -n 1)
printf 'idx.plan\tplanner, default settings: %s\n' "$plan"

# inserts: one statement each, into the pending list
sqlf=$(mktemp /tmp/idx-ins.XXXXXX)
for ((i = 1; i <= INSERTS; i++)); do
	echo "INSERT INTO visits SELECT $((ROWS + i)), bloom_add_all(bloom_empty($KEYS, $FPR), ARRAY[$i::bigint, $((i + 1))::bigint]);"
done >"$sqlf"
t0=$(date +%s.%N)
q -f "$sqlf"
t1=$(date +%s.%N)
rm -f "$sqlf"
sum_ms=$(q <<SQL | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
\timing on
SELECT bloom_slices_summarize('visits_users');
SQL
)
printf 'idx.insert\t%s rows\t%.0f rows/s (with the index; summarized on the way when 4 MB are pending)\tsummarize of the rest %.0f ms\n' \
	"$INSERTS" "$(awk -v n="$INSERTS" -v a="$t0" -v b="$t1" 'BEGIN { print n / (b - a) }')" "$sum_ms"
