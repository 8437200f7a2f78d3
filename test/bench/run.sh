#!/usr/bin/env bash
#
# test/bench/run.sh: the benchmark suite of bloomsketch (test/bench/README.md).  Not a test: it
# prints timings and ratios, and the ratios against the targets, but its exit status says only
# whether it ran (0), not whether the targets were met.
#
#   bash test/bench/run.sh                 # or: make bench
#   BENCH_ROWS=200000 BENCH_DISTINCT=20000 BENCH_RUNS=3 bash test/bench/run.sh   # a quick try
#
# What it does: installs the Debian packages it needs (test/lib.sh's list plus postgresql-15-hll,
# the reference HyperLogLog aggregate, and libbloom-dev, the reference C Bloom filter), builds and
# installs the extension, starts a throwaway PostgreSQL 15 server with benchmark settings,
# generates deterministic tables (bench_t, and bench_d: every value once, shuffled), and runs
# every case BENCH_RUNS times, each reference in the same pass as the cases compared with it (the
# order of the pass is reversed every other run so that drift hits both), then stops the server
# and runs the C micro-benchmark (test/bench/micro.c) of the core against libbloom (and of its
# blocked layout against its classic one).  The peer.* cases compare topk with Citus's
# postgresql-topn, when CREATE EXTENSION topn works (test/bench/README.md, "The peer cases").
# It prints one table and writes the same rows, tab-separated, to a results file whose path it prints.
#
# Timing: each SQL query runs as EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) and the number taken
# is its "Execution Time": server-side, executor only (no parsing, planning, result transfer or
# output function: a 12 MB filter is not printed as hex), and without per-node clock calls
# (TIMING OFF), so the instrumentation costs next to nothing.  It also shows what the numbers
# need: HashAggregate memory and batches, workers launched.  The per-row UPDATE case is timed by
# pgbench (one client, prepared statements, one transaction per row: what an application doing
# that pays, round trips included).  A case's number is the median over the runs.
#
# Settings (environment):
#   BENCH_ROWS          rows of the table (10000000)
#   BENCH_DISTINCT      distinct values of the bigint column u, about (1000000)
#   BENCH_DISTINCT_ROWS rows of the all-distinct table bench_d: 1..N once each, shuffled
#                       (min(5000000, BENCH_ROWS/2))
#   BENCH_RUNS          measured runs of every case; the median is reported (5)
#   BENCH_CASES         extended regex on case ids: only those run, and only the tables they need
#                       are built (all); ids are agg.* text.* par.* grp.* semi.* stored.* merge.*
#                       upd.*
#                       micro.* peer.*, e.g. 'agg|par', '^micro', '^peer', or 'distinct' (the
#                       all-distinct cases)
#   BENCH_WARMUP        unmeasured passes over the SQL cases first (1)
#   BENCH_BIG_GROUPS    groups of the "many groups" GROUP BY (min(1000000, BENCH_ROWS/10))
#   BENCH_FILTER_KEYS   keys of the large stored filter of the semi-join case (10000000)
#   BENCH_MID_FILTER_KEYS  keys of the middle-sized stored filters (classic and blocked, about
#                       2.4 MB: past L2, within L3) of the semi.mid* cases (2000000)
#   BENCH_MERGE_SKETCHES  stored topk_agg(u, 10000) sketches merged by merge.topk_10k (8)
#   BENCH_STORED_FILTERS  rows of stored bloom_agg(x, 1000000, 0.01) filters (1.2 MB each) of
#                       the stored.* cases (300)
#   BENCH_UPDATES       rows of the UPDATE case (10000)
#   BENCH_UPDATE_RUNS   runs of the UPDATE case (3: each writes BENCH_UPDATES MiB of TOAST)
#   BENCH_UPDATE_CAPACITY  capacity of the stored filter updated (875000 at 1%: 1.0 MiB)
#   BENCH_MICRO_N       key counts of the micro-benchmark ("10000 1000000 10000000 100000000")
#   BENCH_MICRO_REPS    its repetitions (its default: 5, 3 from 10M keys)
#   BENCH_SHARED_BUFFERS (2GB)  BENCH_WORK_MEM (256MB)  server settings
#   BENCH_STATEMENT_TIMEOUT  per statement, in seconds (1800)
#   BENCH_SKIP_INSTALL  1: do not build and install the extension (use what is installed)
#   BENCH_PEER_ROWS     rows of each of the two tables of the peer.* cases (10000000)
#   BENCH_PEER_DISTINCT values of the uniform one (BENCH_PEER_ROWS / 10)
#   BENCH_PEER_DAYS     daily sketches of the peer.topn.recall100.rollup case (30)
#   BENCH_PEER_ARGS_K10, BENCH_PEER_ARGS_K100  epsilon, delta of our k = 10 and k = 100 sketches
#                       ("0.002, 0.05" and "0.0024, 0.5")
#   BENCH_PEER_COUNTERS_K10, BENCH_PEER_COUNTERS_K100  topn.number_of_counters of the topn sketches
#                       they are compared with (4400 and 1000, topn's default)
#   BENCH_OUT           where results go (test/.work/bench)
# plus those of test/lib.sh (BS_TMPBASE, BS_PORT_START, ...).

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
. "$BENCH_DIR/../lib.sh"

: "${BENCH_ROWS:=10000000}"
: "${BENCH_DISTINCT:=1000000}"
: "${BENCH_RUNS:=5}"
: "${BENCH_CASES:=}"
: "${BENCH_WARMUP:=1}"
: "${BENCH_FILTER_KEYS:=10000000}"
: "${BENCH_MID_FILTER_KEYS:=2000000}"
: "${BENCH_MERGE_SKETCHES:=8}"
: "${BENCH_STORED_FILTERS:=300}"
: "${BENCH_UPDATES:=10000}"
: "${BENCH_UPDATE_RUNS:=3}"
: "${BENCH_UPDATE_CAPACITY:=875000}"
: "${BENCH_MICRO_N:=10000 1000000 10000000 100000000}"
: "${BENCH_MICRO_REPS:=}"
: "${BENCH_SHARED_BUFFERS:=2GB}"
: "${BENCH_WORK_MEM:=256MB}"
: "${BENCH_STATEMENT_TIMEOUT:=1800}"
: "${BENCH_SKIP_INSTALL:=0}"
: "${BENCH_HUGE_PAGES:=1}"
: "${BENCH_OUT:=$BS_ROOT/test/.work/bench}"
: "${BENCH_PEER_ROWS:=10000000}"
: "${BENCH_PEER_DAYS:=30}"
: "${BENCH_PEER_ARGS_K10:=0.002, 0.05}"
: "${BENCH_PEER_ARGS_K100:=0.0024, 0.5}"
: "${BENCH_PEER_COUNTERS_K10:=4400}"
: "${BENCH_PEER_COUNTERS_K100:=1000}"

bs_require_int BENCH_ROWS "$BENCH_ROWS" 1000
bs_require_int BENCH_DISTINCT "$BENCH_DISTINCT" 10
bs_require_int BENCH_RUNS "$BENCH_RUNS" 1
bs_require_int BENCH_WARMUP "$BENCH_WARMUP" 0
bs_require_int BENCH_FILTER_KEYS "$BENCH_FILTER_KEYS" 1000
bs_require_int BENCH_MID_FILTER_KEYS "$BENCH_MID_FILTER_KEYS" 1000
bs_require_int BENCH_MERGE_SKETCHES "$BENCH_MERGE_SKETCHES" 2
bs_require_int BENCH_STORED_FILTERS "$BENCH_STORED_FILTERS" 1
bs_require_int BENCH_UPDATES "$BENCH_UPDATES" 1
bs_require_int BENCH_UPDATE_RUNS "$BENCH_UPDATE_RUNS" 1
bs_require_int BENCH_UPDATE_CAPACITY "$BENCH_UPDATE_CAPACITY" 1000
bs_require_int BENCH_STATEMENT_TIMEOUT "$BENCH_STATEMENT_TIMEOUT" 1
if [ -z "${BENCH_BIG_GROUPS:-}" ]; then
	BENCH_BIG_GROUPS=$((BENCH_ROWS / 10))
	[ "$BENCH_BIG_GROUPS" -gt 1000000 ] && BENCH_BIG_GROUPS=1000000
	[ "$BENCH_BIG_GROUPS" -lt 1000 ] && BENCH_BIG_GROUPS=1000
fi
bs_require_int BENCH_BIG_GROUPS "$BENCH_BIG_GROUPS" 1
if [ -z "${BENCH_DISTINCT_ROWS:-}" ]; then
	BENCH_DISTINCT_ROWS=$((BENCH_ROWS / 2))
	[ "$BENCH_DISTINCT_ROWS" -gt 5000000 ] && BENCH_DISTINCT_ROWS=5000000
fi
bs_require_int BENCH_DISTINCT_ROWS "$BENCH_DISTINCT_ROWS" 100
bs_require_int BENCH_PEER_ROWS "$BENCH_PEER_ROWS" 1000
if [ -z "${BENCH_PEER_DISTINCT:-}" ]; then
	BENCH_PEER_DISTINCT=$((BENCH_PEER_ROWS / 10))
fi
bs_require_int BENCH_PEER_DISTINCT "$BENCH_PEER_DISTINCT" 100
bs_require_int BENCH_PEER_DAYS "$BENCH_PEER_DAYS" 2
bs_require_int BENCH_PEER_COUNTERS_K10 "$BENCH_PEER_COUNTERS_K10" 100
bs_require_int BENCH_PEER_COUNTERS_K100 "$BENCH_PEER_COUNTERS_K100" 100
for v in BENCH_PEER_ARGS_K10 BENCH_PEER_ARGS_K100; do
	grep -Eq '^[0-9.eE-]+, *[0-9.eE-]+$' <<<"${!v}" || bs_die "$v must be 'epsilon, delta', got '${!v}'"
done

BENCH_T0=$(date +%s)
BENCH_STAMP=$(date +%Y%m%d-%H%M%S)
BENCH_WORK=$BENCH_OUT/run-$BENCH_STAMP
BENCH_RESULTS=$BENCH_OUT/results-$BENCH_STAMP.tsv
BENCH_RAW=$BENCH_WORK/raw.tsv
mkdir -p "$BENCH_WORK" || bs_die "cannot create $BENCH_WORK"

# ---------------------------------------------------------------------------------------------
# The queries (id -> settings + SQL) and the cases (id, query, reference, kind, target, label).
#
# kind   le      ratio = case / reference, met when <= target
#        ge      ratio = reference / case (a speed-up), met when >= target
# An empty target: reported only (result "-").

declare -A Q_SQL=() Q_SET=() Q_LABEL=()
C_IDS=()
declare -A C_Q=() C_REF=() C_KIND=() C_TARGET=()

SER="SET LOCAL max_parallel_workers_per_gather = 0;"
PAR="SET LOCAL max_parallel_workers_per_gather = 2; SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0; SET LOCAL min_parallel_table_scan_size = 0;"
GRP="$SER SET LOCAL enable_sort = off;" # HashAggregate for both sides, so its memory is shown

D=$BENCH_DISTINCT
G=$BENCH_BIG_GROUPS

defq() { # ID LABEL SETTINGS SQL
	Q_LABEL[$1]=$2
	Q_SET[$1]=$3
	Q_SQL[$1]=$4
}
defc() { # ID QUERY REFERENCE KIND TARGET
	C_IDS+=("$1")
	C_Q[$1]=$2
	C_REF[$1]=$3
	C_KIND[$1]=$4
	C_TARGET[$1]=$5
}

# one aggregate over the whole table, serial and with 2 workers
defagg() { # NAME SQL-EXPRESSION [TABLE [LABEL-SUFFIX]]
	local t=${3:-bench_t} l=${4:-}
	defq "ser.$1" "$2$l" "$SER" "SELECT $2 FROM $t"
	defq "par.$1" "$2$l (2 workers)" "$PAR" "SELECT $2 FROM $t"
}
defagg hll_u "hll_add_agg(hll_hash_bigint(u))"
defagg count_u "count(u)"
defagg hll_s "hll_add_agg(hll_hash_text(s))"
defagg bloom_u "bloom_agg(u)"
defagg bloom_u_fixed "bloom_agg(u, $D, 0.01)"
defagg bloom_u_auto "bloom_agg(u, 0.01)"
defagg bloom_u_blocked "bloom_agg(u, NULL, 0.01, 'blocked')"
defagg bloom_u_fixed_blocked "bloom_agg(u, $D, 0.01, 'blocked')"
defagg cms_u "cms_agg(u)"
defagg topk_u "topk_agg(u, 10)"
defagg cbloom_u "cbloom_agg(u)"
defagg cbloom_u_fixed "cbloom_agg(u, $D, 0.01)"
defagg bloom_s "bloom_agg(s)"
defagg cms_s "cms_agg(s)"
defagg topk_s "topk_agg(s, 10)"
# bench_d: every value of 1..BENCH_DISTINCT_ROWS once, in shuffled order
DL=" over bench_d ($BENCH_DISTINCT_ROWS rows, all distinct, shuffled)"
defagg distinct.hll_ud "hll_add_agg(hll_hash_bigint(ud))" bench_d "$DL"
defagg distinct.bloom_ud "bloom_agg(ud)" bench_d "$DL"
# two workers alone, each with an exact state of about 700,000 hashes: their merge once piled
# sorted hashes into one part of the table (2.2 to 60 s, issue 26)
NL="SET LOCAL parallel_leader_participation = off;"
defq ser.distinct.bloom_ud_1400k "bloom_agg(ud) over 1,400,000 of bench_d's values" "$SER" \
	"SELECT bloom_agg(ud) FROM bench_d WHERE ud <= 1400000"
defq par.distinct.bloom_ud_1400k "bloom_agg(ud) over 1,400,000 of bench_d's values (2 workers, no leader)" \
	"$PAR $NL" "SELECT bloom_agg(ud) FROM bench_d WHERE ud <= 1400000"

defc agg.bloom_u ser.bloom_u ser.hll_u le 1.2
defc agg.bloom_u.vs_count ser.bloom_u ser.count_u le 1.3
defc agg.bloom_u_fixed ser.bloom_u_fixed ser.hll_u le 1.1
defc agg.bloom_u_blocked ser.bloom_u_blocked ser.hll_u le ""
defc agg.bloom_u_fixed_blocked ser.bloom_u_fixed_blocked ser.hll_u le 0.9
# the blocked layout's aggregate is never slower than the classic one (issue 26)
defc agg.bloom_u_fixed_blocked.vs_classic ser.bloom_u_fixed_blocked ser.bloom_u_fixed le 1.0
defc agg.bloom_u_blocked.vs_classic ser.bloom_u_blocked ser.bloom_u_auto le 1.0
defc agg.cms_u ser.cms_u ser.hll_u le 1.0
defc agg.topk_u ser.topk_u ser.hll_u le 1.4
defc agg.cbloom_u ser.cbloom_u ser.hll_u le 2.0
defc agg.cbloom_u_fixed ser.cbloom_u_fixed ser.hll_u le ""
defc text.bloom_s ser.bloom_s ser.hll_s le 1.2
defc text.cms_s ser.cms_s ser.hll_s le 1.0
defc text.topk_s ser.topk_s ser.hll_s le 1.4
defc agg.distinct.bloom_ud ser.distinct.bloom_ud ser.distinct.hll_ud le 2.0
for a in bloom_u bloom_u_fixed bloom_u_blocked bloom_u_fixed_blocked cms_u topk_u cbloom_u cbloom_u_fixed bloom_s; do
	defc "par.$a" "par.$a" "ser.$a" ge 1.5
done
for a in hll_u hll_s count_u cms_s topk_s; do
	defc "par.$a" "par.$a" "ser.$a" ge ""
done
defc par.distinct.bloom_ud par.distinct.bloom_ud ser.distinct.bloom_ud ge 1.5
defc par.distinct.hll_ud par.distinct.hll_ud ser.distinct.hll_ud ge ""
defc par.distinct.bloom_ud_1400k par.distinct.bloom_ud_1400k ser.distinct.bloom_ud_1400k ge ""

defq grp.1k.hll "hll_add_agg(hll_hash_bigint(u)) GROUP BY g (1000 groups)" "$GRP" \
	"SELECT g, hll_add_agg(hll_hash_bigint(u)) FROM bench_t GROUP BY g"
defq grp.1k.bloom "bloom_agg(u) GROUP BY g (1000 groups)" "$GRP" \
	"SELECT g, bloom_agg(u) FROM bench_t GROUP BY g"
defq grp.big.hll "hll_add_agg(hll_hash_bigint(u)) GROUP BY gl ($G groups)" "$GRP" \
	"SELECT gl, hll_add_agg(hll_hash_bigint(u)) FROM bench_t GROUP BY gl"
defq grp.big.bloom "bloom_agg(u) GROUP BY gl ($G groups)" "$GRP" \
	"SELECT gl, bloom_agg(u) FROM bench_t GROUP BY gl"
defc grp.1k.bloom grp.1k.bloom grp.1k.hll le 1.3
defc grp.big.bloom grp.big.bloom grp.big.hll le 0.3

semi_sql() { echo "SELECT count(*) FROM bench_t WHERE (SELECT f FROM bench_filters WHERE name = '$1') @> u"; }
defq semi.k1k "WHERE f @> u, f: 1000 keys (inline)" "$SER" "$(semi_sql k1k)"
defq semi.big "WHERE f @> u, f: $BENCH_FILTER_KEYS keys (TOASTed), holds every u" "$SER" "$(semi_sql big)"
defq semi.big_disjoint "WHERE f @> u, f: $BENCH_FILTER_KEYS keys (TOASTed), holds no u" "$SER" "$(semi_sql big_disjoint)"
defq semi.big_blocked "WHERE f @> u, f: $BENCH_FILTER_KEYS keys, blocked layout (TOASTed), holds every u" "$SER" "$(semi_sql big_blocked)"
defc semi.big semi.big semi.k1k le 1.3
defc semi.big_blocked semi.big_blocked semi.k1k le 1.1
defc semi.big_disjoint semi.big_disjoint semi.k1k le ""
# blocked against classic lookups, same keys and rate (issue 26): a filter past L2 (mid, 2.4 MB
# at 2M keys) and one past most of L3 (big, 12 MB at 10M keys)
MK=$BENCH_MID_FILTER_KEYS
defq semi.mid "WHERE f @> u, f: $MK keys (TOASTed), holds every u" "$SER" "$(semi_sql mid)"
defq semi.mid_blocked "WHERE f @> u, f: $MK keys, blocked layout (TOASTed), holds every u" "$SER" "$(semi_sql mid_blocked)"
defc semi.mid_blocked.vs_classic semi.mid_blocked semi.mid le 0.95
defc semi.big_blocked.vs_classic semi.big_blocked semi.big le 0.85

# many stored filters: one lookup in each of BENCH_STORED_FILTERS stored 1.2 MB filters (600
# TOAST chunks each), which reads the header, the last chunk and a chunk per probe (sliced,
# src/sketch_arg.c), against the same lookup on each filter read whole (the bytea cast makes an
# in-memory copy, which is never sliced: what every lookup cost before 1.3)
SF=$BENCH_STORED_FILTERS
defq stored.lookup "WHERE f @> 4242 over $SF stored 1.2 MB filters (sliced)" "$SER" \
	"SELECT count(*) FROM bench_stored WHERE f @> 4242::bigint"
defq stored.whole "WHERE (f::bytea)::bloom @> 4242 over $SF stored 1.2 MB filters (read whole)" "$SER" \
	"SELECT count(*) FROM bench_stored WHERE (f::bytea)::bloom @> 4242::bigint"
defc stored.lookup stored.lookup stored.whole le 0.15

# merging stored top-k sketches of the largest k (10000): bench_topk holds BENCH_MERGE_SKETCHES
# topk_agg(u, 10000), one per slice of bench_t's rows (ids in order), made once at setup
defq merge.topk_10k "topk_union_agg(t) of $BENCH_MERGE_SKETCHES stored topk_agg(u, 10000) sketches" "$SER" \
	"SELECT topk_union_agg(t) FROM bench_topk"
defc merge.topk_10k merge.topk_10k - le ""

# The peer: Citus's postgresql-topn (topn_add_agg(text) -> jsonb, a pruned hash table of
# topn.number_of_counters items), beside topk_agg on the same keys: the text vt = v::text of
# bench_pz (Zipf-like, README "The peer cases"), since topn takes only text.  Our k = 10 sketch
# is compared with topn at BENCH_PEER_COUNTERS_K10 counters, our k = 100 with
# BENCH_PEER_COUNTERS_K100 (topn's default 1000): the raw sizes, printed by the size cases, must
# have ours no larger.  topn's counters are set per query (SET LOCAL); every pass LOADs topn
# first so that the setting is known.
PK10="vt, 10, $BENCH_PEER_ARGS_K10"
PK100="vt, 100, $BENCH_PEER_ARGS_K100"
PN10="SET LOCAL topn.number_of_counters = $BENCH_PEER_COUNTERS_K10;"
PN100="SET LOCAL topn.number_of_counters = $BENCH_PEER_COUNTERS_K100;"
PZL=" over bench_pz ($BENCH_PEER_ROWS rows, Zipf-like)"
defagg peer.topk10 "topk_agg($PK10)" bench_pz "$PZL"
defagg peer.topk100 "topk_agg($PK100)" bench_pz "$PZL"
defagg peer.topk10_bigint "topk_agg(v, 10, $BENCH_PEER_ARGS_K10)" bench_pz "$PZL (bigint keys)"
defq ser.peer.topn10 "topn_add_agg(vt), $BENCH_PEER_COUNTERS_K10 counters$PZL" "$SER $PN10" \
	"SELECT topn_add_agg(vt) FROM bench_pz"
defq par.peer.topn10 "topn_add_agg(vt), $BENCH_PEER_COUNTERS_K10 counters$PZL (2 workers)" "$PAR $PN10" \
	"SELECT topn_add_agg(vt) FROM bench_pz"
defq ser.peer.topn100 "topn_add_agg(vt), $BENCH_PEER_COUNTERS_K100 counters$PZL" "$SER $PN100" \
	"SELECT topn_add_agg(vt) FROM bench_pz"
defq par.peer.topn100 "topn_add_agg(vt), $BENCH_PEER_COUNTERS_K100 counters$PZL (2 workers)" "$PAR $PN100" \
	"SELECT topn_add_agg(vt) FROM bench_pz"
defq grp.peer.topk100 "topk_agg($PK100) GROUP BY g (1000 groups)$PZL" "$GRP" \
	"SELECT g, topk_agg($PK100) FROM bench_pz GROUP BY g"
defq grp.peer.topn100 "topn_add_agg(vt) GROUP BY g (1000 groups), $BENCH_PEER_COUNTERS_K100 counters$PZL" "$GRP $PN100" \
	"SELECT g, topn_add_agg(vt) FROM bench_pz GROUP BY g"
# (the ids avoid the words of the other groups, so that BENCH_CASES='agg|par' selects no peer case)
defc peer.topn.k10.serial ser.peer.topk10 ser.peer.topn10 ge 3
defc peer.topn.k10.workers2 par.peer.topk10 par.peer.topn10 ge 3
defc peer.topn.k100.serial ser.peer.topk100 ser.peer.topn100 ge 3
defc peer.topn.k100.workers2 par.peer.topk100 par.peer.topn100 ge 3
defc peer.topn.k10.bigint ser.peer.topk10_bigint ser.peer.topn10 ge ""
defc peer.topn.groups1k.k100 grp.peer.topk100 grp.peer.topn100 ge ""
defc peer.topn.groups1k.k100.memory grp.peer.topk100 grp.peer.topn100 le 0.25
# accuracy, from the sketches of one more (untimed) run after the passes (bench_peer_accuracy):
# query "acc"; kind hi: ours / topn, higher is better; kind max: ours at most the target (an
# absolute number; the MAE's is topn's MAE plus 0.01% of the mean true count of the top 10)
defc peer.topn.size.k10 acc topn le 1.0
defc peer.topn.size.k100 acc topn le 1.0
defc peer.topn.recall100.whole acc topn hi 1.0
defc peer.topn.recall100.whole_workers2 acc topn hi 1.0
defc peer.topn.recall100.rollup acc topn hi 1.0
defc peer.topn.mae10.whole acc topn max ""
defc peer.topn.mae10.whole_workers2 acc topn max ""
defc peer.topn.uniform.k10.estimate acc topn max 2.0
defc peer.topn.uniform.k100.estimate acc topn max 2.0
defc peer.topn.uniform.k10.bounds acc - max 0
defc peer.topn.uniform.k100.bounds acc - max 0
defc peer.topn.zipf.bounds acc - max 0

# not SQL queries of the passes: measured by their own functions below
defc upd.per_row upd.per_row - le ""
defc upd.batch upd.batch upd.per_row le ""
Q_LABEL[upd.per_row]="$BENCH_UPDATES x UPDATE SET f = bloom_add(f, x) (1 MiB filter)"
Q_LABEL[upd.batch]="1 x UPDATE SET f = bloom_union(f, (SELECT bloom_agg(x, cap, fpr) FROM batch)) of $BENCH_UPDATES"
# micro.* cases are added when the micro-benchmark has run

bench_selected() { [ -z "$BENCH_CASES" ] || grep -Eq -- "$BENCH_CASES" <<<"$1"; }

SEL_CASES=()
declare -A NEED_Q=()
for c in "${C_IDS[@]}"; do
	bench_selected "$c" || continue
	SEL_CASES+=("$c")
	case ${C_Q[$c]} in upd.* | acc) continue ;; esac
	NEED_Q[${C_Q[$c]}]=1
	[ "${C_REF[$c]}" = - ] || NEED_Q[${C_REF[$c]}]=1
done
# the queries of the passes, in a fixed order (the order of definition above)
PASS_Q=()
for q in ser.hll_u ser.count_u ser.hll_s ser.bloom_u ser.bloom_u_fixed ser.bloom_u_auto \
	ser.bloom_u_blocked ser.bloom_u_fixed_blocked ser.cms_u ser.topk_u \
	ser.cbloom_u ser.cbloom_u_fixed ser.bloom_s ser.cms_s ser.topk_s \
	ser.distinct.hll_ud ser.distinct.bloom_ud \
	par.hll_u par.count_u par.hll_s par.bloom_u par.bloom_u_fixed \
	par.bloom_u_blocked par.bloom_u_fixed_blocked par.cms_u par.topk_u \
	par.cbloom_u par.cbloom_u_fixed par.bloom_s par.cms_s par.topk_s \
	par.distinct.hll_ud par.distinct.bloom_ud \
	ser.distinct.bloom_ud_1400k par.distinct.bloom_ud_1400k \
	grp.1k.hll grp.1k.bloom grp.big.hll grp.big.bloom \
	semi.k1k semi.big semi.big_disjoint semi.big_blocked semi.mid semi.mid_blocked \
	stored.whole stored.lookup merge.topk_10k \
	ser.peer.topk10 ser.peer.topn10 ser.peer.topk10_bigint ser.peer.topk100 ser.peer.topn100 \
	par.peer.topk10 par.peer.topn10 par.peer.topk100 par.peer.topn100 \
	grp.peer.topk100 grp.peer.topn100; do
	[ -n "${NEED_Q[$q]:-}" ] && PASS_Q+=("$q")
done
WANT_UPDATE=0
WANT_MICRO=0
bench_selected upd.per_row || bench_selected upd.batch && WANT_UPDATE=1
bench_selected micro.10000.insert || bench_selected micro && WANT_MICRO=1
WANT_TABLE=0
[ "${#PASS_Q[@]}" -gt 0 ] && WANT_TABLE=1
# the peer cases: bench_pz for all of them; bench_pu and the exact counts of both for the accuracy
WANT_PEER=0
WANT_PEER_ACC=0
for c in "${SEL_CASES[@]}"; do
	case $c in peer.*) WANT_PEER=1 ;; esac
	[ "${C_Q[$c]}" = acc ] && WANT_PEER_ACC=1
done
# the data the selected queries need: bench_t, bench_d (*.distinct.*), the semi-join filters,
# the stored topk sketches (made from bench_t)
WANT_T=0
WANT_D=0
WANT_SEMI=0
WANT_MERGE=0
WANT_STORED=0
WANT_CORE_Q=0 # a query of the passes that is not a peer one
for q in "${PASS_Q[@]}"; do
	case $q in *.peer.*) ;; *) WANT_CORE_Q=1 ;; esac
	case $q in
	*.distinct.*) WANT_D=1 ;;
	semi.*) WANT_T=1 WANT_SEMI=1 ;;
	merge.*) WANT_T=1 WANT_MERGE=1 ;;
	stored.*) WANT_STORED=1 ;;
	*.peer.*) ;;
	*) WANT_T=1 ;;
	esac
done
if [ "$WANT_TABLE" -eq 0 ] && [ "$WANT_UPDATE" -eq 0 ] && [ "$WANT_MICRO" -eq 0 ] && [ "$WANT_PEER" -eq 0 ]; then
	bs_die "BENCH_CASES='$BENCH_CASES' selects no case"
fi

# ---------------------------------------------------------------------------------------------
# Helpers

bench_log() { bs_log "bench: $*"; }

# psql on the throwaway server, stopping at the first error
bench_psql() {
	psql -X -q -v ON_ERROR_STOP=1 -At "$@"
}

bench_elapsed() {
	local s=$(($(date +%s) - BENCH_T0))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# One pass: every query of PASS_Q once, in one session, as EXPLAIN ANALYZE.  Appends
# "run<TAB>query<TAB>ms<TAB>workers<TAB>node<TAB>memory<TAB>error" lines to BENCH_RAW.
bench_pass() { # RUN-NUMBER ORDER(fwd|rev)
	local run=$1 order=$2 script=$BENCH_WORK/pass-$1.sql out=$BENCH_WORK/pass-$1.out i q
	local qs=("${PASS_Q[@]}")
	if [ "$order" = rev ]; then
		qs=()
		for ((i = ${#PASS_Q[@]} - 1; i >= 0; i--)); do qs+=("${PASS_Q[$i]}"); done
	fi
	{
		echo "\\set ON_ERROR_STOP 0"
		echo "SET statement_timeout = '${BENCH_STATEMENT_TIMEOUT}s';"
		# load the libraries and the catalog entries before the first measured query
		[ "$WANT_CORE_Q" -eq 1 ] &&
			echo "SELECT bloom_agg(1::bigint) IS NULL, hll_add_agg(hll_hash_bigint(1)) IS NULL, cms_agg(1::bigint) IS NULL, topk_agg(1::bigint, 10) IS NULL, cbloom_agg(1::bigint) IS NULL;"
		# topn's library defines topn.number_of_counters, which the peer queries SET LOCAL
		[ "$WANT_PEER" -eq 1 ] &&
			echo "LOAD 'topn'; SELECT topk_agg('1'::text, 10) IS NULL, topn_add_agg('1'::text) IS NULL;"
		# map the table's shared buffers into this backend before the first measured query:
		# a new backend takes a page fault per shared-memory page it first touches (about
		# 0.7 s for the 0.9 GB table with 4 kB pages), which would be charged to that query
		[ "$WANT_T" -eq 1 ] && echo "SELECT count(*) FROM bench_t;"
		[ "$WANT_D" -eq 1 ] && echo "SELECT count(*) FROM bench_d;"
		[ "$WANT_PEER" -eq 1 ] && echo "SELECT count(*) FROM bench_pz;"
		# the sketches' TOAST pages too (md5 reads the whole value)
		[ "$WANT_MERGE" -eq 1 ] && echo "SELECT count(md5(t::bytea)) FROM bench_topk;"
		[ "$WANT_STORED" -eq 1 ] && echo "SELECT count(md5(f::bytea)) FROM bench_stored;"
		for q in "${qs[@]}"; do
			printf '\\echo @@Q %s\n' "$q"
			echo "BEGIN; ${Q_SET[$q]}"
			echo "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) ${Q_SQL[$q]};"
			echo "COMMIT;"
		done
		printf '\\echo @@END\n'
	} >"$script"
	psql -X -q -At -f "$script" >"$out" 2>&1 || true
	awk -v run="$run" '
		function flush() {
			if (q != "") print run "\t" q "\t" ms "\t" wl "\t" node "\t" mem "\t" err
			ms = "NA"; wl = ""; node = ""; mem = ""; err = ""
		}
		/^@@Q / { flush(); q = $2; next }
		/^@@END/ { flush(); q = ""; next }
		q == "" { next }
		/Execution Time:/ { ms = $0; sub(/.*Execution Time: */, "", ms); sub(/ ms.*/, "", ms); next }
		/Workers Launched:/ { w = $0; sub(/.*Workers Launched: */, "", w); wl = (wl == "" ? w : wl "+" w); next }
		/(Hash|Group|Mixed)Aggregate/ && node == "" { node = $0; sub(/^[ ->]*/, "", node); sub(/ .*/, "", node); next }
		/Batches:|Memory Usage:|Disk Usage:/ && mem == "" { mem = $0; gsub(/^ +| +$/, "", mem); gsub(/  +/, " ", mem); next }
		/ERROR:/ && err == "" { err = $0; sub(/.*ERROR: */, "", err); gsub(/\t/, " ", err); next }
	' "$out" >>"$BENCH_RAW"
}

# ---------------------------------------------------------------------------------------------
# Setup of the data

bench_setup_table() {
	local big_groups=$BENCH_BIG_GROUPS
	bench_log "generating bench_t: $BENCH_ROWS rows, u with about $BENCH_DISTINCT distinct values ($(bench_elapsed))"
	bench_psql <<SQL
CREATE EXTENSION IF NOT EXISTS bloomsketch;
CREATE EXTENSION IF NOT EXISTS hll;
-- Deterministic (md5 of the row number, no random()): every run and machine gets the same rows.
--   u   bigint, 1 + (60 bits of md5(i)) mod BENCH_DISTINCT: uniform, about BENCH_DISTINCT distinct
--   s   text, md5(u): 32 characters, as many distinct values as u
--   g   1000 groups; gl BENCH_BIG_GROUPS groups (about BENCH_ROWS / BENCH_BIG_GROUPS rows each)
CREATE TABLE bench_t (id bigint NOT NULL, u bigint NOT NULL, s text NOT NULL, g int NOT NULL, gl int NOT NULL);
INSERT INTO bench_t
SELECT i, u, md5(u::text), (i % 1000)::int, (i % $big_groups)::int
FROM (SELECT i, ('x' || substr(md5(i::text), 1, 15))::bit(60)::bigint % $BENCH_DISTINCT + 1 AS u
      FROM generate_series(1, $BENCH_ROWS) AS i) AS r;
-- two workers for every parallel case whatever the table size
ALTER TABLE bench_t SET (parallel_workers = 2);
VACUUM (FREEZE, ANALYZE) bench_t;
SQL
}

# bench_d: each of 1..BENCH_DISTINCT_ROWS once, in an order shuffled by md5 (deterministic):
# a bloom_agg that sees every value once, so every insert sets new bits (no repeated keys in
# cache), in no order the hashes could take advantage of.
bench_setup_distinct() {
	local n=$BENCH_DISTINCT_ROWS
	bench_log "generating bench_d: $n rows, all distinct, shuffled ($(bench_elapsed))"
	bench_psql <<SQL
CREATE EXTENSION IF NOT EXISTS bloomsketch;
CREATE EXTENSION IF NOT EXISTS hll;
CREATE TABLE bench_d (ud bigint NOT NULL);
SET work_mem = '1GB'; -- the sort of the shuffle in memory
INSERT INTO bench_d SELECT i FROM generate_series(1, $n) AS i ORDER BY md5(i::text);
RESET work_mem;
ALTER TABLE bench_d SET (parallel_workers = 2);
VACUUM (FREEZE, ANALYZE) bench_d;
SQL
}

bench_setup_filters() {
	bench_log "storing the semi-join filters ($BENCH_FILTER_KEYS and $BENCH_MID_FILTER_KEYS keys classic and blocked, and 1000 keys) ($(bench_elapsed))"
	bench_psql <<SQL
CREATE TABLE bench_filters (name text PRIMARY KEY, f bloom NOT NULL);
INSERT INTO bench_filters
  SELECT 'big', bloom_agg(x, $BENCH_FILTER_KEYS, 0.01) FROM generate_series(1, $BENCH_FILTER_KEYS) AS x;
INSERT INTO bench_filters
  SELECT 'big_disjoint', bloom_agg(x, $BENCH_FILTER_KEYS, 0.01) FROM generate_series(-$BENCH_FILTER_KEYS, -1) AS x;
INSERT INTO bench_filters
  SELECT 'big_blocked', bloom_agg(x, $BENCH_FILTER_KEYS, 0.01, 'blocked') FROM generate_series(1, $BENCH_FILTER_KEYS) AS x;
INSERT INTO bench_filters
  SELECT 'mid', bloom_agg(x, $BENCH_MID_FILTER_KEYS, 0.01) FROM generate_series(1, $BENCH_MID_FILTER_KEYS) AS x;
INSERT INTO bench_filters
  SELECT 'mid_blocked', bloom_agg(x, $BENCH_MID_FILTER_KEYS, 0.01, 'blocked') FROM generate_series(1, $BENCH_MID_FILTER_KEYS) AS x;
INSERT INTO bench_filters
  SELECT 'k1k', bloom_agg(x, 1000, 0.01) FROM generate_series(1, 1000) AS x;
VACUUM ANALYZE bench_filters;
SQL
	# Is the large filter stored out of line?  Its bytes must be in the TOAST table, not the heap.
	FILTER_INFO=$(bench_psql -F ' ' <<'SQL'
SELECT format('big %s B (pg_column_size %s), big_blocked %s B (pg_column_size %s), mid %s B, mid_blocked %s B, k1k %s B (pg_column_size %s); heap %s B, TOAST %s B: %s',
              max(octet_length(f::bytea)) FILTER (WHERE name = 'big'),
              max(pg_column_size(f)) FILTER (WHERE name = 'big'),
              max(octet_length(f::bytea)) FILTER (WHERE name = 'big_blocked'),
              max(pg_column_size(f)) FILTER (WHERE name = 'big_blocked'),
              max(octet_length(f::bytea)) FILTER (WHERE name = 'mid'),
              max(octet_length(f::bytea)) FILTER (WHERE name = 'mid_blocked'),
              max(octet_length(f::bytea)) FILTER (WHERE name = 'k1k'),
              max(pg_column_size(f)) FILTER (WHERE name = 'k1k'),
              pg_relation_size('bench_filters'),
              (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'bench_filters'::regclass),
              CASE WHEN (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'bench_filters'::regclass)
                        >= sum(octet_length(f::bytea)) FILTER (WHERE name <> 'k1k')
                   THEN 'TOASTed' ELSE 'NOT TOASTed' END)
FROM bench_filters;
SQL
)
	bench_log "filters: $FILTER_INFO"
}

# bench_topk: BENCH_MERGE_SKETCHES topk_agg(u, 10000), of consecutive slices of bench_t's rows.
# u is uniform, so the slices share most values but their 10,000 candidates are mostly
# different ones: the merge re-ranks about BENCH_MERGE_SKETCHES x 10,000 candidates.
bench_setup_topk() {
	local n=$BENCH_MERGE_SKETCHES
	bench_log "storing $n topk_agg(u, 10000) sketches ($(bench_elapsed))"
	bench_psql <<SQL
CREATE TABLE bench_topk (slice int PRIMARY KEY, t topk NOT NULL);
-- serial and hashed: each sketch sees its rows in scan (id) order, the same sketches every run
SET max_parallel_workers_per_gather = 0;
SET enable_sort = off;
INSERT INTO bench_topk
  SELECT ((id - 1) * $n / $BENCH_ROWS)::int AS slice, topk_agg(u, 10000) FROM bench_t GROUP BY 1;
VACUUM ANALYZE bench_topk;
SQL
	MERGE_INFO=$(bench_psql -F ' ' <<'SQL'
SELECT format('%s sketches of k %s (width %s, depth %s), %s to %s candidates, %s to %s B (pg_column_size %s to %s); heap %s B, TOAST %s B',
              count(*), min((topk_info(t)).k), min((topk_info(t)).width), min((topk_info(t)).depth),
              min((topk_info(t)).candidates), max((topk_info(t)).candidates),
              min(octet_length(t::bytea)), max(octet_length(t::bytea)),
              min(pg_column_size(t)), max(pg_column_size(t)),
              pg_relation_size('bench_topk'),
              (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'bench_topk'::regclass))
FROM bench_topk;
SQL
)
	bench_log "topk sketches: $MERGE_INFO"
}

# bench_stored: BENCH_STORED_FILTERS filters of bloom_agg(x, 1000000, 0.01), 3000 keys each
# (the size is the capacity's: 1.2 MB, stored out of line and uncompressed, 600 TOAST chunks)
bench_setup_stored() {
	bench_log "storing $BENCH_STORED_FILTERS bloom_agg(x, 1000000, 0.01) filters ($(bench_elapsed))"
	bench_psql <<SQL
CREATE EXTENSION IF NOT EXISTS bloomsketch;
CREATE TABLE bench_stored (day int PRIMARY KEY, f bloom NOT NULL);
INSERT INTO bench_stored
  SELECT d, bloom_agg((i * 2654435761 + d * 7919) % 1000000007, 1000000, 0.01)
  FROM generate_series(1, $BENCH_STORED_FILTERS) d, generate_series(1::bigint, 3000) i GROUP BY d;
VACUUM ANALYZE bench_stored;
SQL
	STORED_INFO=$(bench_psql -F ' ' <<'SQL'
SELECT format('%s filters of %s B; heap %s B, TOAST %s B', count(*), min(pg_column_size(f)),
              pg_relation_size('bench_stored'),
              (SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'bench_stored'::regclass))
FROM bench_stored;
SQL
)
	bench_log "stored filters: $STORED_INFO"
}

# The tables of the peer cases, deterministic like bench_t (md5 of the row number, no random()):
#   bench_pz  BENCH_PEER_ROWS rows, v = floor(1e6 ^ u), u uniform in [0, 1) (60 bits of
#             md5('zipf' || i) / 2^60): P(v = n) about 1 / (n ln 1e6), 5% of the rows are 1;
#             vt = v::text; day, BENCH_PEER_DAYS consecutive slices of the rows; g = i mod 1000
#   bench_pu  BENCH_PEER_ROWS rows, v = 1 + (60 bits of md5(i)) mod BENCH_PEER_DISTINCT
#             (uniform, as bench_t's u), vt = v::text; only for the accuracy cases
# and, for the accuracy cases, the exact count of every value of each (bench_pz_exact,
# bench_pu_exact).
bench_setup_peer() {
	local n=$BENCH_PEER_ROWS days=$BENCH_PEER_DAYS d=$BENCH_PEER_DISTINCT
	bench_log "generating bench_pz: $n rows, Zipf-like v = floor(1e6 ^ u), $days days ($(bench_elapsed))"
	bench_psql <<SQL
CREATE EXTENSION IF NOT EXISTS bloomsketch;
CREATE TABLE bench_pz (day int NOT NULL, g int NOT NULL, v bigint NOT NULL, vt text NOT NULL);
INSERT INTO bench_pz
SELECT ((i - 1) * $days / $n)::int, (i % 1000)::int, v, v::text
FROM (SELECT i, floor(power(1e6::float8, ('x' || substr(md5('zipf' || i::text), 1, 15))::bit(60)::bigint::float8
                                         / 1152921504606846976::float8))::bigint AS v
      FROM generate_series(1::bigint, $n) AS i) AS r;
ALTER TABLE bench_pz SET (parallel_workers = 2);
VACUUM (FREEZE, ANALYZE) bench_pz;
SQL
	[ "$WANT_PEER_ACC" -eq 1 ] || return 0
	bench_log "generating bench_pu: $n rows, uniform over $d values; exact counts of both ($(bench_elapsed))"
	bench_psql <<SQL
CREATE TABLE bench_pu (v bigint NOT NULL, vt text NOT NULL);
INSERT INTO bench_pu
SELECT v, v::text
FROM (SELECT ('x' || substr(md5(i::text), 1, 15))::bit(60)::bigint % $d + 1 AS v
      FROM generate_series(1::bigint, $n) AS i) AS r;
VACUUM (FREEZE, ANALYZE) bench_pu;
SET work_mem = '1GB';
CREATE TABLE bench_pz_exact AS SELECT vt, count(*) AS n FROM bench_pz GROUP BY vt;
CREATE TABLE bench_pu_exact AS SELECT vt, count(*) AS n FROM bench_pu GROUP BY vt;
ALTER TABLE bench_pz_exact ADD PRIMARY KEY (vt);
ALTER TABLE bench_pu_exact ADD PRIMARY KEY (vt);
VACUUM ANALYZE bench_pz_exact, bench_pu_exact;
SQL
}

bench_describe_data() {
	bench_log "checking the data ($(bench_elapsed))"
	if [ "$WANT_T" -eq 1 ]; then
		DATA_INFO=$(bench_psql -F ' ' -c "SELECT format('%s rows, %s distinct u, %s distinct s, %s distinct g, %s distinct gl, table %s',
			count(*), count(DISTINCT u), count(DISTINCT s), count(DISTINCT g), count(DISTINCT gl),
			pg_size_pretty(pg_table_size('bench_t'))) FROM bench_t")
		bench_log "data: $DATA_INFO"
	fi
	if [ "$WANT_D" -eq 1 ]; then
		# correlation of ud with the physical order (pg_stats): near 0 when shuffled
		DISTINCT_INFO=$(bench_psql -F ' ' -c "SELECT format('bench_d %s rows, %s distinct ud, %s..%s, correlation with the row order %s, table %s',
			count(*), count(DISTINCT ud), min(ud), max(ud),
			(SELECT round(correlation::numeric, 3) FROM pg_stats WHERE tablename = 'bench_d' AND attname = 'ud'),
			pg_size_pretty(pg_table_size('bench_d'))) FROM bench_d")
		bench_log "all-distinct data: $DISTINCT_INFO"
	fi
	if [ "$WANT_PEER" -eq 1 ]; then
		if [ "$WANT_PEER_ACC" -eq 1 ]; then
			PEER_INFO=$(bench_psql -F ' ' <<'SQL'
SELECT format('bench_pz %s rows, %s distinct v, true counts of the top 1, 10, 100, 101: %s, %s, %s, %s; table %s. bench_pu %s rows, %s distinct v, counts %s to %s; table %s',
              (SELECT sum(n) FROM bench_pz_exact), (SELECT count(*) FROM bench_pz_exact),
              (SELECT n FROM bench_pz_exact ORDER BY n DESC LIMIT 1),
              (SELECT n FROM bench_pz_exact ORDER BY n DESC OFFSET 9 LIMIT 1),
              (SELECT n FROM bench_pz_exact ORDER BY n DESC OFFSET 99 LIMIT 1),
              (SELECT n FROM bench_pz_exact ORDER BY n DESC OFFSET 100 LIMIT 1),
              pg_size_pretty(pg_table_size('bench_pz')),
              (SELECT sum(n) FROM bench_pu_exact), (SELECT count(*) FROM bench_pu_exact),
              (SELECT min(n) FROM bench_pu_exact), (SELECT max(n) FROM bench_pu_exact),
              pg_size_pretty(pg_table_size('bench_pu')))
SQL
)
		else
			PEER_INFO=$(bench_psql -F ' ' -c "SELECT format('bench_pz %s rows, %s distinct v (%s rows of v = 1), table %s',
				count(*), count(DISTINCT v), count(*) FILTER (WHERE v = 1), pg_size_pretty(pg_table_size('bench_pz'))) FROM bench_pz")
		fi
		bench_log "peer data: $PEER_INFO"
	fi
}

# Huge pages for the shared memory (BENCH_HUGE_PAGES=1, the default).  Without them every new
# process takes a page fault per 4 kB page of shared_buffers it first touches, and the parallel
# workers of every query are new processes: each spends about as long mapping its half of the
# 0.9 GB table as scanning it, so no parallel plan can speed up (measured: count(u) 0.95x with
# 4 kB pages, 1.7x with 2 MB pages).  Production servers of this size use huge pages for the
# same reason.  Reserved with sysctl (root or sudo) for the run and given back at exit; when
# that fails the run goes on with huge_pages = off and says so.
bench_mb() { # SIZE like 2GB, 256MB, 1024kB -> whole MB
	local v=${1%[kMGT]B} u=${1##*[0-9]}
	case $v in '' | *[!0-9]*) return 1 ;; esac
	case $u in kB) echo $((v / 1024)) ;; MB) echo "$v" ;; GB) echo $((v * 1024)) ;; TB) echo $((v * 1048576)) ;; *) return 1 ;; esac
}

bench_huge_pages() {
	local mb page_kb need old free
	BENCH_HUGE="off"
	if [ "$BENCH_HUGE_PAGES" != 1 ]; then
		BENCH_HUGE="off (BENCH_HUGE_PAGES=$BENCH_HUGE_PAGES)"
		return 0
	fi
	mb=$(bench_mb "$BENCH_SHARED_BUFFERS") || {
		bench_log "huge pages: cannot read BENCH_SHARED_BUFFERS=$BENCH_SHARED_BUFFERS; using 4 kB pages"
		return 0
	}
	page_kb=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
	old=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null)
	[ -n "$page_kb" ] && [ -n "$old" ] || return 0
	bs_install_trap # gives the pages back on any exit
	need=$(((mb + 256) * 1024 / page_kb)) # shared_buffers plus the rest of the shared memory
	free=$(awk '/^HugePages_Free:/ { f = $2 } /^HugePages_Rsvd:/ { r = $2 } END { print f - r }' /proc/meminfo)
	if [ "$free" -lt "$need" ]; then
		if ! bs_sudo sysctl -q -w vm.nr_hugepages=$((old + need - free)) >/dev/null; then
			bench_log "huge pages: cannot reserve $need pages; using 4 kB pages (parallel speed-ups will suffer)"
			return 0
		fi
		BS_AT_EXIT="bs_sudo sysctl -q -w vm.nr_hugepages=$old >/dev/null"
		free=$(awk '/^HugePages_Free:/ { f = $2 } /^HugePages_Rsvd:/ { r = $2 } END { print f - r }' /proc/meminfo)
		if [ "$free" -lt "$need" ]; then
			bench_log "huge pages: only $free of $need pages free; using 4 kB pages"
			return 0
		fi
	fi
	BENCH_HUGE="on ($need pages of $page_kb kB reserved)"
	BS_SERVER_SETTINGS="${BS_SERVER_SETTINGS:+$BS_SERVER_SETTINGS
}huge_pages = on"
	bench_log "huge pages: $BENCH_HUGE"
}

bench_warm_cache() {
	bench_log "warming the cache"
	local prewarm=0
	bench_psql -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null 2>&1 && prewarm=1
	if [ "$WANT_T" -eq 1 ]; then
		[ "$prewarm" -eq 1 ] && bench_psql -c "SELECT pg_prewarm('bench_t')" >/dev/null
		bench_psql -c "SELECT count(*), sum(length(s)) FROM bench_t" >/dev/null
	fi
	if [ "$WANT_D" -eq 1 ]; then
		[ "$prewarm" -eq 1 ] && bench_psql -c "SELECT pg_prewarm('bench_d')" >/dev/null
		bench_psql -c "SELECT count(*), sum(ud) FROM bench_d" >/dev/null
	fi
	if [ "$WANT_MERGE" -eq 1 ]; then
		bench_psql -c "SELECT count(md5(t::bytea)) FROM bench_topk" >/dev/null
	fi
	if [ "$WANT_STORED" -eq 1 ]; then
		bench_psql -c "SELECT count(md5(f::bytea)) FROM bench_stored" >/dev/null
	fi
	if [ "$WANT_PEER" -eq 1 ]; then
		[ "$prewarm" -eq 1 ] && bench_psql -c "SELECT pg_prewarm('bench_pz')" >/dev/null
		bench_psql -c "SELECT count(*), sum(length(vt)) FROM bench_pz" >/dev/null
	fi
}

# ---------------------------------------------------------------------------------------------
# The UPDATE case: BENCH_UPDATES single-row updates of a stored 1 MiB filter (pgbench), against
# one UPDATE that ORs in a bloom_agg of the same values; both must give the same filter.

upd_key() { printf "('x' || substr(md5('upd' || %s), 1, 15))::bit(60)::bigint" "$1"; }

bench_update_case() {
	local r cap=$BENCH_UPDATE_CAPACITY n=$BENCH_UPDATES script=$BENCH_WORK/update.pgbench
	local key_seq key_i out tps ms digest_row digest_batch same=yes size
	key_seq=$(upd_key "nextval('bench_upd_seq')")
	key_i=$(upd_key i)
	bench_log "UPDATE case: $n rows, $BENCH_UPDATE_RUNS runs ($(bench_elapsed))"
	bench_psql <<SQL
CREATE TABLE bench_upd (id int PRIMARY KEY, f bloom NOT NULL);
INSERT INTO bench_upd VALUES (1, bloom_empty($cap, 0.01));
CREATE SEQUENCE bench_upd_seq;
CREATE TABLE bench_batch AS SELECT i, $key_i AS x FROM generate_series(1, $n) AS i;
VACUUM ANALYZE bench_upd, bench_batch;
SQL
	size=$(bench_psql -c "SELECT octet_length(f::bytea) FROM bench_upd")
	UPD_INFO="stored filter $size B"
	echo "UPDATE bench_upd SET f = bloom_add(f, $key_seq) WHERE id = 1;" >"$script"
	local reset="UPDATE bench_upd SET f = bloom_empty($cap, 0.01) WHERE id = 1; ALTER SEQUENCE bench_upd_seq RESTART;"
	for ((r = 1; r <= BENCH_UPDATE_RUNS; r++)); do
		bench_log "UPDATE case, run $r of $BENCH_UPDATE_RUNS ($(bench_elapsed))"
		# per row
		# VACUUM FULL: the dead versions of the last run (BENCH_UPDATES MiB) go back to the disk
		bench_psql -c "$reset" && bench_psql -c "VACUUM FULL bench_upd"
		if [ -x "$BS_PGBIN/pgbench" ]; then
			out=$("$BS_PGBIN/pgbench" -n -c 1 -j 1 -M prepared -t "$n" -f "$script" 2>&1) || {
				printf '%s\n' "$out" >&2
				bs_die "pgbench failed"
			}
			tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time).*/\1/p' <<<"$out")
			[ -n "$tps" ] || tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out" | head -n 1)
			ms=$(awk -v n="$n" -v t="$tps" 'BEGIN { printf "%.3f", n / t * 1000 }')
		else
			# no pgbench: one psql session sending the statements one by one
			local f=$BENCH_WORK/update.sql t0 t1 i
			for ((i = 0; i < n; i++)); do cat "$script"; done >"$f"
			t0=$(date +%s%N)
			bench_psql -f "$f" >/dev/null
			t1=$(date +%s%N)
			ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
		fi
		digest_row=$(bench_psql -c "SELECT md5(f::bytea) FROM bench_upd WHERE id = 1")
		printf '%s\tupd.per_row\t%s\t\t\t\t\n' "$r" "$ms" >>"$BENCH_RAW"
		# batch
		bench_psql -c "$reset" && bench_psql -c "VACUUM FULL bench_upd"
		ms=$(bench_psql -c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) UPDATE bench_upd SET f = bloom_union(f, (SELECT bloom_agg(x, $cap, 0.01) FROM bench_batch)) WHERE id = 1" |
			sed -n 's/.*Execution Time: \([0-9.]*\) ms.*/\1/p')
		digest_batch=$(bench_psql -c "SELECT md5(f::bytea) FROM bench_upd WHERE id = 1")
		[ "$digest_row" = "$digest_batch" ] || same=NO
		printf '%s\tupd.batch\t%s\t\t\t\t\n' "$r" "${ms:-NA}" >>"$BENCH_RAW"
	done
	UPD_INFO="$UPD_INFO; batch filter equals per-row filter: $same"
	bench_psql -c "DROP TABLE bench_upd, bench_batch; DROP SEQUENCE bench_upd_seq" >/dev/null
}

# ---------------------------------------------------------------------------------------------
# The accuracy of the peer cases, once, after the passes: the aggregates of the timed cases run
# once more, untimed, and their sketches are kept (bench_peer_sk: name, our topk t, topn's jsonb
# j, how it was made), then compared with the exact counts.  Sketches:
#   z10, z100        bench_pz, serial: topk_agg(vt, 10 | 100, ...) and topn_add_agg(vt) at the
#                    matching topn.number_of_counters
#   z10_w2, z100_w2  the same with 2 workers (CREATE TABLE AS, the INSERT ... SELECT of PostgreSQL
#                    15 is never parallel)
#   z100_rollup      topk_union_agg / topn_union_agg of BENCH_PEER_DAYS daily sketches (serial)
#   u10, u100        bench_pu, serial
# Fills PEER_V, PEER_R (ours, topn's), PEER_UNIT, PEER_NOTE, PEER_LABEL, PEER_RLABEL by case, and
# the MAE cases' targets.

declare -A PEER_V=() PEER_R=() PEER_UNIT=() PEER_NOTE=() PEER_LABEL=() PEER_RLABEL=()

bench_peer_sql() { # [PSQL-OPTION...] < SQL: one session, topn loaded first
	{
		echo "LOAD 'topn';"
		echo "SET client_min_messages = warning;"
		echo "SET statement_timeout = '${BENCH_STATEMENT_TIMEOUT}s';"
		cat
	} | bench_psql "$@"
}

bench_peer_accuracy() {
	local c10=$BENCH_PEER_COUNTERS_K10 c100=$BENCH_PEER_COUNTERS_K100 out w spec name c args
	local par="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0"
	bench_log "peer accuracy: the sketches once more, untimed (serial, 2 workers, $BENCH_PEER_DAYS daily) ($(bench_elapsed))"
	bench_peer_sql <<SQL
SET max_parallel_workers_per_gather = 0;
DROP TABLE IF EXISTS bench_peer_sk, bench_peer_days, bench_peer_tmp;
CREATE TABLE bench_peer_sk (name text PRIMARY KEY, t topk NOT NULL, j jsonb NOT NULL, made text NOT NULL);
SET topn.number_of_counters = $c10;
INSERT INTO bench_peer_sk SELECT 'z10', topk_agg($PK10), topn_add_agg(vt), 'serial' FROM bench_pz;
INSERT INTO bench_peer_sk SELECT 'u10', topk_agg($PK10), topn_add_agg(vt), 'serial' FROM bench_pu;
SET topn.number_of_counters = $c100;
INSERT INTO bench_peer_sk SELECT 'z100', topk_agg($PK100), topn_add_agg(vt), 'serial' FROM bench_pz;
INSERT INTO bench_peer_sk SELECT 'u100', topk_agg($PK100), topn_add_agg(vt), 'serial' FROM bench_pu;
SET enable_sort = off;
CREATE TABLE bench_peer_days AS SELECT day, topk_agg($PK100) AS t, topn_add_agg(vt) AS j FROM bench_pz GROUP BY day;
INSERT INTO bench_peer_sk
  SELECT 'z100_rollup', topk_union_agg(t), topn_union_agg(j), format('rollup of %s daily sketches', count(*)) FROM bench_peer_days;
SQL
	for spec in "z10_w2 $c10 $PK10" "z100_w2 $c100 $PK100"; do
		read -r name c args <<<"$spec"
		out=$(bench_peer_sql <<SQL
$par;
SET topn.number_of_counters = $c;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  CREATE TABLE bench_peer_tmp AS SELECT topk_agg($args) AS t, topn_add_agg(vt) AS j FROM bench_pz;
SQL
)
		w=$(sed -n 's/.*Workers Launched: *\([0-9]*\).*/\1/p' <<<"$out" | head -n 1)
		bench_psql -c "INSERT INTO bench_peer_sk SELECT '$name', t, j, '2 workers planned, ${w:-no} launched' FROM bench_peer_tmp" \
			-c "DROP TABLE bench_peer_tmp"
	done
	bench_log "peer accuracy: comparing with the exact counts ($(bench_elapsed))"
	# one line per sketch: name|made|k|held|raw ours|raw topn|stored ours|stored topn|recall@k ours|
	# recall@k topn|MAE@10 ours|MAE@10 topn|mean estimate/true ours|topn|listed outside their
	# bounds|held outside their bounds|mean true count of the true top 10|count of the k-th|listed
	bench_peer_metrics_sql() { # EXACT-TABLE NAME-PATTERN
		cat <<SQL
-- (constant offsets: a LIMIT k correlated with the outer rows, in a parallel plan, gave a wrong
-- 100th count on PostgreSQL 15.20, the bound of k = 10 kept on the rescan; and serial anyway)
SET max_parallel_workers_per_gather = 0;
WITH kth AS (SELECT 10 AS k, (SELECT n FROM $1 ORDER BY n DESC OFFSET 9 LIMIT 1) AS th
             UNION ALL SELECT 100, (SELECT n FROM $1 ORDER BY n DESC OFFSET 99 LIMIT 1)),
     top10 AS (SELECT avg(n) AS m FROM (SELECT n FROM $1 ORDER BY n DESC LIMIT 10) s)
SELECT s.name, s.made, i.k, i.candidates,
       octet_length(s.t::bytea), pg_column_size(s.j::text::jsonb), pg_column_size(s.t), pg_column_size(s.j),
       (SELECT count(*) FROM topk_items(s.t, i.k) l JOIN $1 e ON e.vt = l.value
        WHERE e.n >= (SELECT th FROM kth WHERE kth.k = i.k))::float8 / i.k,
       (SELECT count(*) FROM topn(s.j, i.k) l JOIN $1 e ON e.vt = l.item
        WHERE e.n >= (SELECT th FROM kth WHERE kth.k = i.k))::float8 / i.k,
       (SELECT avg(abs(l.frequency - coalesce(e.n, 0))) FROM topk_items(s.t, 10) l LEFT JOIN $1 e ON e.vt = l.value),
       (SELECT avg(abs(l.frequency - coalesce(e.n, 0))) FROM topn(s.j, 10) l LEFT JOIN $1 e ON e.vt = l.item),
       (SELECT avg(l.frequency::float8 / e.n) FROM topk_items(s.t, i.k) l JOIN $1 e ON e.vt = l.value),
       (SELECT avg(l.frequency::float8 / e.n) FROM topn(s.j, i.k) l JOIN $1 e ON e.vt = l.item),
       (SELECT count(*) FILTER (WHERE NOT (l.lower_bound <= coalesce(e.n, 0) AND coalesce(e.n, 0) <= l.upper_bound))
        FROM topk_items_bounds(s.t, i.k) l LEFT JOIN $1 e ON e.vt = l.value),
       (SELECT count(*) FILTER (WHERE NOT (l.lower_bound <= coalesce(e.n, 0) AND coalesce(e.n, 0) <= l.upper_bound))
        FROM topk_items_bounds(s.t, i.candidates) l LEFT JOIN $1 e ON e.vt = l.value),
       (SELECT m FROM top10), (SELECT th FROM kth WHERE kth.k = i.k),
       (SELECT count(*) FROM topk_items_bounds(s.t, i.k))
FROM bench_peer_sk s, LATERAL topk_info(s.t) i
WHERE s.name LIKE '$2'
ORDER BY s.name;
SQL
	}
	out=$( (bench_peer_metrics_sql bench_pz_exact 'z%' && bench_peer_metrics_sql bench_pu_exact 'u%') | bench_peer_sql -F '|')
	printf '%s\n' "$out" >"$BENCH_WORK/peer_accuracy.txt"
	declare -A M=()
	local n made k held ro rt so st reco rect maeo maet esto estt outl outh m th listed
	while IFS='|' read -r n made k held ro rt so st reco rect maeo maet esto estt outl outh m th listed; do
		[ -n "$n" ] || continue
		M[$n]="$made|$k|$held|$ro|$rt|$so|$st|$reco|$rect|$maeo|$maet|$esto|$estt|$outl|$outh|$m|$th|$listed"
	done <<<"$out"
	# field N (1-based, after the name) of sketch NAME, "NA" when missing
	pm() { local v; v=$(cut -d '|' -f "$2" <<<"${M[$1]:-}"); echo "${v:-NA}"; }
	fmt() { awk -v f="$1" -v v="$2" 'BEGIN { if (v == "NA" || v == "") print "NA"; else printf f "\n", v }'; }
	local cz10="topk_agg($PK10)" cz100="topk_agg($PK100)"
	local tn10="topn_add_agg(vt), $c10 counters" tn100="topn_add_agg(vt), $c100 counters"
	# sizes
	PEER_V[peer.topn.size.k10]=$(pm z10 4) PEER_R[peer.topn.size.k10]=$(pm z10 5) PEER_UNIT[peer.topn.size.k10]=B
	PEER_NOTE[peer.topn.size.k10]="raw: octet_length(t::bytea), pg_column_size(j::text::jsonb); stored compressed: ours $(pm z10 6) B, topn $(pm z10 7) B; 2 workers: ours $(pm z10_w2 4) B, topn $(pm z10_w2 5) B; uniform: ours $(pm u10 4) B, topn $(pm u10 5) B"
	PEER_LABEL[peer.topn.size.k10]="raw size of $cz10 over bench_pz" PEER_RLABEL[peer.topn.size.k10]="$tn10"
	PEER_V[peer.topn.size.k100]=$(pm z100 4) PEER_R[peer.topn.size.k100]=$(pm z100 5) PEER_UNIT[peer.topn.size.k100]=B
	PEER_NOTE[peer.topn.size.k100]="stored compressed: ours $(pm z100 6) B, topn $(pm z100 7) B; 2 workers: ours $(pm z100_w2 4) B, topn $(pm z100_w2 5) B; rollup: ours $(pm z100_rollup 4) B, topn $(pm z100_rollup 5) B; uniform: ours $(pm u100 4) B, topn $(pm u100 5) B"
	PEER_LABEL[peer.topn.size.k100]="raw size of $cz100 over bench_pz" PEER_RLABEL[peer.topn.size.k100]="$tn100"
	# recall@100
	local cs s
	for cs in "whole z100" "whole_workers2 z100_w2" "rollup z100_rollup"; do
		read -r c s <<<"$cs"
		PEER_V[peer.topn.recall100.$c]=$(fmt %.2f "$(pm "$s" 8)") PEER_R[peer.topn.recall100.$c]=$(fmt %.2f "$(pm "$s" 9)")
		PEER_UNIT[peer.topn.recall100.$c]=recall
		PEER_NOTE[peer.topn.recall100.$c]="$(pm "$s" 1): of the 100 listed (topk_items(t, 100), topn(j, 100)), the share with a true count >= $(pm "$s" 17), the 100th largest"
		PEER_LABEL[peer.topn.recall100.$c]="recall of the top 100, $cz100, $(pm "$s" 1)" PEER_RLABEL[peer.topn.recall100.$c]="$tn100"
	done
	# top-10 MAE: target topn's + 0.01% of the mean true count of the true top 10
	for cs in "whole z10" "whole_workers2 z10_w2"; do
		read -r c s <<<"$cs"
		PEER_V[peer.topn.mae10.$c]=$(fmt %.2f "$(pm "$s" 10)") PEER_R[peer.topn.mae10.$c]=$(fmt %.2f "$(pm "$s" 11)")
		PEER_UNIT[peer.topn.mae10.$c]=count
		C_TARGET[peer.topn.mae10.$c]=$(awk -v t="$(pm "$s" 11)" -v m="$(pm "$s" 16)" 'BEGIN { if (t == "NA" || m == "NA") print ""; else printf "%.2f\n", t + 0.0001 * m }')
		PEER_NOTE[peer.topn.mae10.$c]="$(pm "$s" 1): mean |frequency - true count| over the 10 listed; target topn's + 0.01% of $(fmt %.0f "$(pm "$s" 16)") (mean true count of the true top 10); recall@10 ours $(fmt %.2f "$(pm "$s" 8)"), topn $(fmt %.2f "$(pm "$s" 9)")"
		PEER_LABEL[peer.topn.mae10.$c]="top-10 mean absolute error, $cz10, $(pm "$s" 1)" PEER_RLABEL[peer.topn.mae10.$c]="$tn10"
	done
	# uniform: estimates and bounds
	for cs in "k10 u10" "k100 u100"; do
		read -r c s <<<"$cs"
		PEER_V[peer.topn.uniform.$c.estimate]=$(fmt %.3f "$(pm "$s" 12)") PEER_R[peer.topn.uniform.$c.estimate]=$(fmt %.3f "$(pm "$s" 13)")
		PEER_UNIT[peer.topn.uniform.$c.estimate]="x true"
		PEER_NOTE[peer.topn.uniform.$c.estimate]="mean of frequency / true count over the $(pm "$s" 2) listed (topk_items(t, $(pm "$s" 2)), topn(j, $(pm "$s" 2))) on bench_pu"
		PEER_LABEL[peer.topn.uniform.$c.estimate]="uniform: listed estimates / truth, topk_agg(${c#k}...) over bench_pu"
		PEER_RLABEL[peer.topn.uniform.$c.estimate]="topn_add_agg(vt) over bench_pu"
		[ "$c" = k10 ] && PEER_RLABEL[peer.topn.uniform.$c.estimate]="$tn10 over bench_pu"
		[ "$c" = k100 ] && PEER_RLABEL[peer.topn.uniform.$c.estimate]="$tn100 over bench_pu"
		PEER_V[peer.topn.uniform.$c.bounds]=$(pm "$s" 14) PEER_R[peer.topn.uniform.$c.bounds]=NA
		PEER_UNIT[peer.topn.uniform.$c.bounds]=values
		PEER_NOTE[peer.topn.uniform.$c.bounds]="of $(pm "$s" 18) listed by topk_items_bounds(t, $(pm "$s" 2)), outside lower_bound <= true count <= upper_bound; of all $(pm "$s" 3) held: $(pm "$s" 15)"
		PEER_LABEL[peer.topn.uniform.$c.bounds]="uniform: listed values outside their bounds, topk_agg(${c#k}...) over bench_pu"
	done
	PEER_LABEL[peer.topn.uniform.k10.estimate]="uniform: mean listed estimate / truth, $cz10 over bench_pu"
	PEER_LABEL[peer.topn.uniform.k100.estimate]="uniform: mean listed estimate / truth, $cz100 over bench_pu"
	PEER_LABEL[peer.topn.uniform.k10.bounds]="uniform: listed values outside their bounds, $cz10 over bench_pu"
	PEER_LABEL[peer.topn.uniform.k100.bounds]="uniform: listed values outside their bounds, $cz100 over bench_pu"
	# Zipf: the bounds of every sketch
	local tot=0 notes=""
	for s in z10 z10_w2 z100 z100_w2 z100_rollup; do
		if [ "$(pm "$s" 14)" = NA ]; then tot=NA; else [ "$tot" = NA ] || tot=$((tot + $(pm "$s" 14))); fi
		notes="$notes${notes:+; }$s $(pm "$s" 14) of $(pm "$s" 18) (all $(pm "$s" 3) held: $(pm "$s" 15))"
	done
	PEER_V[peer.topn.zipf.bounds]=$tot PEER_R[peer.topn.zipf.bounds]=NA PEER_UNIT[peer.topn.zipf.bounds]=values
	PEER_NOTE[peer.topn.zipf.bounds]="listed outside their bounds: $notes"
	PEER_LABEL[peer.topn.zipf.bounds]="bench_pz: listed values outside their bounds, every sketch above (serial, 2 workers, rollup)"
	bench_log "peer accuracy: done ($(bench_elapsed))"
}

# The peer cases need CREATE EXTENSION topn in the bench database (postgresql-topn built and
# installed, README "The peer cases"); without it they are left out, with one line saying why.
bench_peer_check() {
	local out c q keep=()
	if out=$(bench_psql -c "CREATE EXTENSION IF NOT EXISTS topn" 2>&1); then
		PEER_SETTINGS="bench_pz and bench_pu $BENCH_PEER_ROWS rows each (bench_pu: $BENCH_PEER_DISTINCT values), $BENCH_PEER_DAYS days; ours topk_agg($PK10) and topk_agg($PK100), topn $(bench_psql -c "SELECT extversion FROM pg_extension WHERE extname = 'topn'") with $BENCH_PEER_COUNTERS_K10 and $BENCH_PEER_COUNTERS_K100 counters"
		bench_log "peer: $PEER_SETTINGS"
		return 0
	fi
	PEER_SKIPPED="the topn cases (peer.*) were skipped: CREATE EXTENSION topn failed in the bench database ($(grep -m 1 'ERROR' <<<"$out" | sed 's/^.*ERROR: *//')); test/bench/README.md says how to build and install postgresql-topn"
	bench_log "$PEER_SKIPPED"
	WANT_PEER=0 WANT_PEER_ACC=0
	for c in "${SEL_CASES[@]}"; do case $c in peer.*) ;; *) keep+=("$c") ;; esac; done
	SEL_CASES=("${keep[@]}")
	keep=()
	for q in "${PASS_Q[@]}"; do case $q in *.peer.*) ;; *) keep+=("$q") ;; esac; done
	PASS_Q=("${keep[@]}")
}

# ---------------------------------------------------------------------------------------------
# The C micro-benchmark (built with -O2 by the Makefile's test/bench/micro rule)

bench_micro() {
	local reps=() line
	bench_log "building test/bench/micro (-O2) ($(bench_elapsed))"
	make -s -C "$BS_ROOT" test/bench/micro >&2 || bs_die "cannot build test/bench/micro"
	[ -n "$BENCH_MICRO_REPS" ] && reps=(-r "$BENCH_MICRO_REPS")
	bench_log "running the micro-benchmark: n = $BENCH_MICRO_N"
	# shellcheck disable=SC2086  # BENCH_MICRO_N is a list
	"$BS_ROOT/test/bench/micro" -t "${reps[@]}" $BENCH_MICRO_N >"$BENCH_WORK/micro.tsv" ||
		bs_die "the micro-benchmark failed (see $BENCH_WORK/micro.tsv)"
	MICRO_ROWS=()
	while IFS= read -r line; do MICRO_ROWS+=("$line"); done <"$BENCH_WORK/micro.tsv"
}

# ---------------------------------------------------------------------------------------------
# Report

# median of the numbers of one query in BENCH_RAW ("NA" if none)
bench_median() {
	awk -F '\t' -v q="$1" '$2 == q && $3 != "NA" && $3 != "" { v[n++] = $3 + 0 }
		END {
			if (n == 0) { print "NA"; exit }
			for (i = 1; i < n; i++) { x = v[i]; for (j = i - 1; j >= 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
			m = (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
			printf "%.3f\n", m
		}' "$BENCH_RAW"
}

# a note from the last measured run of a query: workers launched, aggregate node and memory, error
bench_note() {
	awk -F '\t' -v q="$1" '$2 == q { w = $4; node = $5; mem = $6; if ($7 != "") err = $7 }
		END {
			s = ""
			if (w != "") s = "workers launched " w
			if (node != "") s = s (s == "" ? "" : "; ") node
			if (mem != "") s = s (s == "" ? "" : " ") mem
			if (err != "") s = s (s == "" ? "" : "; ") "ERROR: " err
			print s
		}' "$BENCH_RAW"
}

# The memory per group of a GROUP BY query, from its note (bench_note): the HashAggregate's
# "Memory Usage" (its peak, kB) x 1024 / the number of groups, in bytes.  When the hash table
# spilled (Batches > 1) that is the peak in memory while spilling, so the disk per group
# ("Disk Usage" / groups) is given beside it.  "NA" when the plan shows no memory.
bench_per_group() { # QUERY NOTE
	local groups=1000
	case $1 in grp.big.*) groups=$BENCH_BIG_GROUPS ;; esac
	awk -v note="$2" -v g="$groups" 'BEGIN {
		s = "NA"
		if (match(note, /Memory Usage: [0-9]+kB/)) {
			s = sprintf("%.0f B", substr(note, RSTART + 14, RLENGTH - 16) * 1024 / g)
			if (match(note, /Disk Usage: [0-9]+kB/))
				s = s sprintf(" in memory + %.0f B on disk, spilled", substr(note, RSTART + 12, RLENGTH - 14) * 1024 / g)
		}
		print s " (" (note == "" ? "no plan" : note) " / " g " groups)"
	}'
}

# the HashAggregate's "Memory Usage" in kB, from a note of bench_note ("NA" if none)
bench_mem_kb() {
	awk -v note="$1" 'BEGIN { if (match(note, /Memory Usage: [0-9]+kB/)) print substr(note, RSTART + 14, RLENGTH - 16); else print "NA" }'
}

bench_report() {
	local c q ref kind target ms rms ratio result note label rlabel unit
	{
		echo "# bloomsketch benchmark $BENCH_STAMP: $BENCH_HOST"
		echo "# $BENCH_SETTINGS"
		[ -n "${PEER_SETTINGS:-}" ] && echo "# peer: $PEER_SETTINGS"
		[ -n "${PEER_SKIPPED:-}" ] && echo "# $PEER_SKIPPED"
		[ -n "${PEER_INFO:-}" ] && echo "# peer data: $PEER_INFO"
		[ -n "${DATA_INFO:-}" ] && echo "# data: $DATA_INFO"
		[ -n "${DISTINCT_INFO:-}" ] && echo "# all-distinct data: $DISTINCT_INFO"
		[ -n "${MERGE_INFO:-}" ] && echo "# topk sketches: $MERGE_INFO"
		[ -n "${FILTER_INFO:-}" ] && echo "# filters: $FILTER_INFO"
		printf 'case\tmedian\treference\treference_median\tunit\tratio\ttarget\tresult\tnotes\tlabel\treference_label\n'
		for c in "${SEL_CASES[@]}"; do
			q=${C_Q[$c]} ref=${C_REF[$c]} kind=${C_KIND[$c]} target=${C_TARGET[$c]}
			if [ "$q" = acc ]; then # the peer accuracy (bench_peer_accuracy)
				rms=${PEER_R[$c]:-NA}
				[ "$ref" = - ] && rms=NA
				bench_row "$c" "${PEER_V[$c]:-NA}" "$ref" "$rms" "${PEER_UNIT[$c]:-}" "$kind" "$target" \
					"${PEER_NOTE[$c]:-not computed}" "${PEER_LABEL[$c]:-}" "${PEER_RLABEL[$c]:-}"
				continue
			fi
			ms=$(bench_median "$q")
			rms=NA
			[ "$ref" = - ] || rms=$(bench_median "$ref")
			note=$(bench_note "$q")
			label=${Q_LABEL[$q]}
			rlabel=${Q_LABEL[$ref]:-}
			case $c in
			par.*) case $note in *"launched 2"*) ;; *) note="$note (NOT 2 workers)" ;; esac ;;
			grp.*) note="memory per group: $(bench_per_group "$c" "$note") | reference: $(bench_per_group "$ref" "$(bench_note "$ref")")" ;;
			semi.*) note="${FILTER_INFO:-}" ;;
			agg.distinct.*) note="${DISTINCT_INFO:-}" ;;
			merge.*) note="${MERGE_INFO:-}${note:+; $note}" ;;
			peer.*.memory)
				# the HashAggregate's peak memory, not the time
				local rnote
				rnote=$(bench_note "$ref")
				ms=$(bench_mem_kb "$note") rms=$(bench_mem_kb "$rnote") unit=kB
				note="memory per group: $(bench_per_group "$q" "$note") | topn: $(bench_per_group "$ref" "$rnote")"
				bench_row "$c" "$ms" "$ref" "$rms" kB "$kind" "$target" "$note" "$label" "$rlabel"
				continue
				;;
			peer.*)
				local rnote
				rnote=$(bench_note "$ref")
				case $c in
				*.workers2) case "$note | $rnote" in *"launched 2"*"launched 2"*) ;; *) rnote="$rnote (NOT 2 workers)" ;; esac ;;
				*.groups1k.*) note="memory per group: $(bench_per_group "$q" "$note")" rnote="$(bench_per_group "$ref" "$rnote")" ;;
				esac
				[ -n "$rnote" ] && note="$note | topn: $rnote"
				;;
			upd.per_row) [ "$ms" != NA ] && note=$(awk -v n="$BENCH_UPDATES" -v m="$ms" 'BEGIN { printf "%.0f rows/s (pgbench, 1 client, 1 transaction per row)", n / (m / 1000) }') ;;
			upd.batch) [ "$ms" != NA ] && note=$(awk -v n="$BENCH_UPDATES" -v m="$ms" 'BEGIN { printf "%.0f rows/s", n / (m / 1000) }')"; ${UPD_INFO:-}" ;;
			esac
			bench_row "$c" "$ms" "$ref" "$rms" ms "$kind" "$target" "$note" "$label" "$rlabel"
		done
		if [ "${#MICRO_ROWS[@]}" -gt 0 ]; then
			local n fpr bo bl ko kl op o l r t
			for line in "${MICRO_ROWS[@]}"; do
				IFS=$'\t' read -r n fpr bo bl ko kl op o l r <<<"$line"
				if [ "$op" = fpr ]; then
					bench_row "micro.$n.fpr" "$o" libbloom "$l" "rate" le "" \
						"measured false-positive rate at fpr $fpr" "core, $n keys: false-positive rate" "libbloom"
				elif [ "$op" = blocked.fpr ]; then
					bench_row "micro.$n.blocked.fpr" "$o" "micro.$n.fpr" "$l" "rate" le "" \
						"measured false-positive rate at fpr $fpr" "blocked layout, $n keys: false-positive rate" "classic layout"
				elif [ "${op#blocked.}" != "$op" ]; then
					# blocked vs classic layout (bo, ko: blocked; bl, kl: classic); the targets:
					# past L2 from 2M keys (2.4 MB), blocked at most 0.95 times classic's time
					# (issue 26), and 2x past the caches, from 10M keys (12 MB; issue 15)
					t=""
					[ "$n" -ge 2000000 ] && t=1.05
					[ "$n" -ge 10000000 ] && t=2.0
					bench_row "micro.$n.$op" "$o" "micro.$n.${op#blocked.}" "$l" "ns/op" ge "$t" \
						"blocked $bo B, k $ko (classic $bl B, k $kl)" "blocked layout ${op#blocked.}, $n keys at fpr $fpr" "classic layout ${op#blocked.}"
				else
					bench_row "micro.$n.$op" "$o" libbloom "$l" "ns/op" ge 2.0 \
						"filter $bo B (libbloom $bl B), k $ko (libbloom $kl)" "core $op, $n keys at fpr $fpr" "libbloom $op"
				fi
			done
		fi
	} >"$BENCH_RESULTS"
}

# bench_row CASE VALUE REF REF-VALUE UNIT KIND TARGET NOTE LABEL REF-LABEL: one line of the results
bench_row() {
	local c=$1 v=$2 ref=$3 rv=$4 unit=$5 kind=$6 target=$7 note=$8 label=$9 rlabel=${10}
	local ratio=NA result=- tshow=-
	[ "$kind" = max ] && ratio=- # an absolute target: no ratio
	if [ "$v" != NA ] && [ "$rv" != NA ] && [ -n "$v" ] && [ -n "$rv" ] && [ "$ref" != - ] && [ "$kind" != max ]; then
		if [ "$kind" = ge ]; then
			ratio=$(awk -v a="$v" -v b="$rv" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "NA" }')
		else
			ratio=$(awk -v a="$v" -v b="$rv" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "NA" }')
		fi
	fi
	if [ -n "$target" ]; then
		case $kind in
		le | max) tshow="<= $target" ;;
		ge | hi) tshow=">= $target" ;;
		esac
	fi
	if [ -n "$target" ] && { [ "$kind" = max ] || [ "$kind" = hi ]; }; then
		# max: the value itself <= target; hi: value >= target x reference (not the rounded ratio)
		if [ "$v" = NA ] || [ -z "$v" ] || { [ "$kind" = hi ] && { [ "$rv" = NA ] || [ -z "$rv" ]; }; }; then
			result=ERROR
		elif awk -v v="$v" -v r="$rv" -v t="$target" -v k="$kind" 'BEGIN { exit !((k == "max" && v <= t) || (k == "hi" && v >= t * r)) }'; then
			result=met
		else
			result=MISSED
		fi
	elif [ -n "$target" ]; then
		if [ "$ratio" = NA ]; then
			result=ERROR
		elif awk -v r="$ratio" -v t="$target" -v k="$kind" 'BEGIN { exit !((k == "le" && r <= t) || (k == "ge" && r >= t)) }'; then
			result=met
		else
			result=MISSED
		fi
	elif [ "$v" = NA ]; then
		result=ERROR
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$v" "$ref" "$rv" "$unit" "$ratio" "$tshow" "$result" "$note" "$label" "$rlabel"
}

# the results file as an aligned table on stdout
bench_print() {
	awk -F '\t' '
		/^#/ { print; next }
		!hdr { hdr = 1; next }
		{ n++; for (i = 1; i <= 9; i++) f[n, i] = $i; lab[n] = $10; rlab[n] = $11
		  for (i = 1; i <= 8; i++) if (length($i) > w[i]) w[i] = length($i) }
		END {
			split("case,median,reference,ref median,unit,ratio,target,result", h, ",")
			for (i = 1; i <= 8; i++) if (length(h[i]) > w[i]) w[i] = length(h[i])
			line = ""
			for (i = 1; i <= 8; i++) line = line sprintf("%-" w[i] "s  ", h[i])
			print line "notes"
			for (r = 1; r <= n; r++) {
				line = ""
				for (i = 1; i <= 8; i++) line = line sprintf((i == 2 || i == 4 || i == 6) ? "%" w[i] "s  " : "%-" w[i] "s  ", f[r, i])
				print line f[r, 9]
			}
			print ""
			print "cases:"
			for (r = 1; r <= n; r++) {
				s = "  " f[r, 1] ": " lab[r]
				if (f[r, 3] != "-" && rlab[r] != "") s = s "   vs   " f[r, 3] ": " rlab[r]
				print s
			}
		}' "$BENCH_RESULTS"
}

# ---------------------------------------------------------------------------------------------
# Main

BENCH_HOST="$(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load $(cut -d ' ' -f 1-3 /proc/loadavg)"
BENCH_REV=$(git -C "$BS_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$BS_ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	BENCH_REV="$BENCH_REV+changes"
fi
BENCH_SETTINGS="commit $BENCH_REV; rows $BENCH_ROWS, distinct u $BENCH_DISTINCT, all-distinct rows $BENCH_DISTINCT_ROWS, big groups $BENCH_BIG_GROUPS, runs $BENCH_RUNS (+$BENCH_WARMUP warm-up), filter keys $BENCH_FILTER_KEYS and $BENCH_MID_FILTER_KEYS, topk sketches merged $BENCH_MERGE_SKETCHES, updates $BENCH_UPDATES x $BENCH_UPDATE_RUNS runs, shared_buffers $BENCH_SHARED_BUFFERS, work_mem $BENCH_WORK_MEM; SQL times: median EXPLAIN ANALYZE Execution Time (ms)"
MICRO_ROWS=()
: >"$BENCH_RAW"

bench_log "results will go to $BENCH_RESULTS (work files in $BENCH_WORK)"
bench_log "$BENCH_SETTINGS"

BS_EXTRA_PACKAGES="${BS_EXTRA_PACKAGES:+$BS_EXTRA_PACKAGES }postgresql-$BS_PG_VERSION-hll libbloom-dev"
bs_install_deps || bs_die "cannot install the Debian packages"

if [ "$WANT_TABLE" -eq 1 ] || [ "$WANT_UPDATE" -eq 1 ] || [ "$WANT_PEER" -eq 1 ]; then
	if [ "$BENCH_SKIP_INSTALL" = 1 ]; then
		bench_log "BENCH_SKIP_INSTALL=1: using the installed extension as it is"
	else
		bs_build_install || bs_die "build or install failed"
	fi

	bench_huge_pages
	BENCH_SETTINGS="$BENCH_SETTINGS; huge pages $BENCH_HUGE"
	BS_SERVER_SETTINGS="${BS_SERVER_SETTINGS:+$BS_SERVER_SETTINGS
}# --- benchmark settings (test/bench/run.sh) ---
shared_buffers = $BENCH_SHARED_BUFFERS
work_mem = '$BENCH_WORK_MEM'
maintenance_work_mem = '1GB'
max_parallel_workers_per_gather = 2
jit = off
track_io_timing = off
autovacuum = off
max_wal_size = '2GB'
checkpoint_timeout = '1h'
effective_cache_size = '8GB'
log_min_messages = warning"
	bs_cluster_start || bs_die "cannot start the server"
	bench_psql -c "SELECT 1" >/dev/null
	[ "$WANT_PEER" -eq 1 ] && bench_peer_check
	if [ "$WANT_TABLE" -eq 1 ] || [ "$WANT_PEER" -eq 1 ]; then
		[ "$WANT_T" -eq 1 ] && bench_setup_table
		[ "$WANT_D" -eq 1 ] && bench_setup_distinct
		[ "$WANT_SEMI" -eq 1 ] && bench_setup_filters
		[ "$WANT_MERGE" -eq 1 ] && bench_setup_topk
		[ "$WANT_STORED" -eq 1 ] && bench_setup_stored
		[ "$WANT_PEER" -eq 1 ] && bench_setup_peer
		bench_describe_data
		bench_warm_cache
		[ "${#PASS_Q[@]}" -gt 0 ] || BENCH_WARMUP=0 BENCH_RUNS=0 # (the peer cases were skipped)
		for ((r = 1 - BENCH_WARMUP; r <= BENCH_RUNS; r++)); do
			order=fwd
			[ $((r % 2)) -eq 0 ] && order=rev
			if [ "$r" -le 0 ]; then
				bench_log "warm-up pass ($order, ${#PASS_Q[@]} queries) ($(bench_elapsed))"
			else
				bench_log "run $r of $BENCH_RUNS ($order, ${#PASS_Q[@]} queries) ($(bench_elapsed))"
			fi
			bench_pass "$r" "$order"
		done
		# warm-up lines do not count
		awk -F '\t' '$1 > 0' "$BENCH_RAW" >"$BENCH_RAW.tmp" && mv "$BENCH_RAW.tmp" "$BENCH_RAW"
		bad=$(awk -F '\t' '$7 != "" { print $2 ": " $7 }' "$BENCH_RAW" | sort -u)
		[ -z "$bad" ] || bench_log "errors (the cases show ERROR):
$bad"
		[ "$WANT_PEER_ACC" -eq 1 ] && bench_peer_accuracy
	fi
	[ "$WANT_UPDATE" -eq 1 ] && bench_update_case
	bs_cluster_stop
fi

[ "$WANT_MICRO" -eq 1 ] && bench_micro

bench_report
echo
bench_print
echo
echo "ratio: case / reference (lower is better; target <= x), except for speed-ups (par.*: serial / parallel,"
echo "       micro.*: libbloom / core, micro.*.blocked.*: classic / blocked; higher is better; target >= x)."
if [ "$WANT_PEER" -eq 1 ]; then
	echo "       peer.*: times topn / ours (>= x), sizes and memory ours / topn (<= x), recall ours / topn (>= x);"
	echo "       ratio '-': an absolute target on our value (the MAE's: topn's + 0.01% of the top 10's mean count)."
fi
echo "       Noisy machine?  Compare the load below."
[ -n "${PEER_SKIPPED:-}" ] && echo "$PEER_SKIPPED"
echo "load at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo "results: $BENCH_RESULTS"
echo "raw measurements: $BENCH_RAW"
bench_log "done in $(bench_elapsed)"
