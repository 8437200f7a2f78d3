#!/usr/bin/env bash
#
# test/accuracy/run.sh: measure the accuracy of bloomsketch's sketches and draw the plots of
# doc/accuracy.md.  Not a test (test/check.sh does not run it): it measures and plots, and its
# exit status says only whether it ran.
#
#   bash test/accuracy/run.sh                          # everything (topk_sizes alone: about 8 minutes on 2 CPUs)
#   ACC_SKIP_INSTALL=1 bash test/accuracy/run.sh       # use the extension as installed
#   ACC_PLOTS_ONLY=1 bash test/accuracy/run.sh         # redraw the PNGs from the TSVs only
#
# What it does: installs the Debian packages it needs (test/lib.sh's list plus gnuplot-nox),
# builds and installs the extension (make install, unless ACC_SKIP_INSTALL=1), starts a throwaway
# PostgreSQL 15 server (test/lib.sh: temp dir, unix socket only, stopped and removed on any
# exit), runs the measurement scripts of this directory in one database, writes one TSV per
# table to doc/data/, stops the server and draws doc/img/*.png with gnuplot (plots.gp).
# Every key comes from generate_series or a hash of a row number: two runs give the same TSVs,
# except for the timings in run_info.txt and in the `seconds` columns.
#
# The stages, in order (ACC_STAGES picks some; the TSVs of the others stay as they are):
#   bloom_fpr    filters of c n bits and k hashes, c = 2..16, k = 1..8 (Table 3 of Fan et al. 2000)
#   bloom_small  the average over many filters of 10 and 100 keys (the exact rate of Bose et al.)
#   bloom_auto   bloom_agg(x, p) against the target p, for n from 10 to 2 million
#   cms          Count-Min over-estimates against eps N, skewed and uniform streams
#   topk         recall of topk_agg against k and the skew
#   cbloom       counting filters after churn: a sliding window, and overload then drain
#   bloom_blocked  the cache-blocked layout: rate against its formula, bits per key against the
#                classic layout, false negatives, parallel plans against serial ones byte for byte
#   topk_weighted  recall of topk_agg_weighted against k and three kinds of weights (issue 19)
#   cms_window   a sliding 7-day Count-Min window kept by cms_subtract, against exact counts (issue 19)
#   growable     growable filters (bloom_empty(capacity, fpr, growth)) given up to 100 times their
#                capacity by bloom_add: rate against fpr and bloom_fpr, size against a fixed filter,
#                false negatives; unions of two growable filters, stage by stage (issue 19)
#   topk_sizes   top-k recall and count error against the size of the sketch: topk of 1.5, topk of
#                1.4 (format 1, which the server no longer builds: topk_v1_sizes.c, compiled here
#                from src/core, runs it on the same keys) and Citus's topn when it can be installed
#
# Settings (environment), with the sizes they set:
#   ACC_BLOOM_N        keys per filter of bloom_fpr (20000)
#   ACC_BLOOM_TESTS    absent keys looked up per filter of bloom_fpr (1000000)
#   ACC_SMALL_TESTS    lookups per configuration of bloom_small (2000000)
#   ACC_AUTO_TESTS     lookups per point of bloom_auto, at least (1000000; 300/p when more)
#   ACC_AUTO_N         the n of bloom_auto ('{10,100,1000,10000,100000,1000000,2000000}')
#   ACC_CMS_ROWS       rows of each Count-Min stream (1000000)
#   ACC_TOPK_ROWS      rows of each top-k stream (1000000)
#   ACC_TOPK_SIZES_ROWS  rows of topk_sizes' skewed stream (8000000; its uniform stream has 10^6)
#   ACC_CB_CAPACITY    capacity of the counting filters (10000)
#   ACC_CB_TESTS       absent keys looked up per counting-filter measurement (200000)
#   ACC_CB_STEPS       steps of the sliding window (20)
#   ACC_BLOCKED_TESTS  lookups per point of bloom_blocked, at least (2000000; 1000/p when more)
#   ACC_BLOCKED_N      the n of bloom_blocked's filters with a capacity ('{1000,10000,100000,1000000}')
#   ACC_BLOCKED_AUTO_N the n of bloom_blocked's bloom_agg(x, NULL, p, 'blocked') past the exact phase ('{2000000}')
#   ACC_BLOCKED_PAR_ROWS  rows of bloom_blocked's parallel check past the exact phase (2500000)
#   ACC_GROWABLE_TESTS absent keys looked up per filter of growable, at least (2000000; 1000/p when more)
#   ACC_GROWABLE_N     the numbers of keys growable adds to a filter made for 1,000 ('{1000,10000,50000,100000}')
#   ACC_GROWABLE_UNION_N      keys of each of the two filters of growable's unions (25000)
#   ACC_GROWABLE_UNION_TESTS  absent keys looked up per union, at least (1000000; 1000/p when more)
#   ACC_STAGES         the stages to run, space-separated (all)
#   ACC_SKIP_INSTALL   1: do not build and install the extension (use what is installed)
#   ACC_PLOTS_ONLY     1: no server, no measurement: redraw the PNGs from the TSVs
#   ACC_DATA, ACC_IMG  where the TSVs and PNGs go (doc/data, doc/img)
# plus those of test/lib.sh (BS_TMPBASE, BS_PORT_START, ...).

set -euo pipefail

ACC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
. "$ACC_DIR/../lib.sh"

: "${ACC_BLOOM_N:=20000}"
: "${ACC_BLOOM_TESTS:=1000000}"
: "${ACC_SMALL_TESTS:=2000000}"
: "${ACC_AUTO_TESTS:=1000000}"
: "${ACC_AUTO_N:={10,100,1000,10000,100000,1000000,2000000\}}"
: "${ACC_CMS_ROWS:=1000000}"
: "${ACC_TOPK_ROWS:=1000000}"
: "${ACC_TOPK_SIZES_ROWS:=8000000}"
: "${ACC_CB_CAPACITY:=10000}"
: "${ACC_CB_TESTS:=200000}"
: "${ACC_CB_STEPS:=20}"
: "${ACC_BLOCKED_TESTS:=2000000}"
: "${ACC_BLOCKED_N:={1000,10000,100000,1000000\}}"
: "${ACC_BLOCKED_AUTO_N:={2000000\}}"
: "${ACC_BLOCKED_PAR_ROWS:=2500000}"
: "${ACC_GROWABLE_TESTS:=2000000}"
: "${ACC_GROWABLE_N:={1000,10000,50000,100000\}}"
: "${ACC_GROWABLE_UNION_N:=25000}"
: "${ACC_GROWABLE_UNION_TESTS:=1000000}"
ACC_ALL_STAGES="bloom_fpr bloom_small bloom_auto cms topk cbloom bloom_blocked topk_weighted cms_window growable topk_sizes"
: "${ACC_STAGES:=$ACC_ALL_STAGES}"
: "${ACC_SKIP_INSTALL:=0}"
: "${ACC_PLOTS_ONLY:=0}"
: "${ACC_DATA:=$BS_ROOT/doc/data}"
: "${ACC_IMG:=$BS_ROOT/doc/img}"

acc_log() { printf '%s\n' "[accuracy] $*" >&2; }

bs_require_int ACC_BLOOM_N "$ACC_BLOOM_N" 100
bs_require_int ACC_BLOOM_TESTS "$ACC_BLOOM_TESTS" 1000
bs_require_int ACC_SMALL_TESTS "$ACC_SMALL_TESTS" 200000
bs_require_int ACC_AUTO_TESTS "$ACC_AUTO_TESTS" 1000
bs_require_int ACC_CMS_ROWS "$ACC_CMS_ROWS" 1000
bs_require_int ACC_TOPK_ROWS "$ACC_TOPK_ROWS" 1000
bs_require_int ACC_TOPK_SIZES_ROWS "$ACC_TOPK_SIZES_ROWS" 3000
bs_require_int ACC_CB_CAPACITY "$ACC_CB_CAPACITY" 100
bs_require_int ACC_CB_TESTS "$ACC_CB_TESTS" 1000
bs_require_int ACC_CB_STEPS "$ACC_CB_STEPS" 1
bs_require_int ACC_BLOCKED_TESTS "$ACC_BLOCKED_TESTS" 1000
bs_require_int ACC_BLOCKED_PAR_ROWS "$ACC_BLOCKED_PAR_ROWS" 1000
bs_require_int ACC_GROWABLE_TESTS "$ACC_GROWABLE_TESTS" 1000
bs_require_int ACC_GROWABLE_UNION_N "$ACC_GROWABLE_UNION_N" 2
bs_require_int ACC_GROWABLE_UNION_TESTS "$ACC_GROWABLE_UNION_TESTS" 1000
for v in ACC_AUTO_N ACC_BLOCKED_N ACC_BLOCKED_AUTO_N ACC_GROWABLE_N; do
	case ${!v} in
	'{'*'}') ;;
	*) bs_die "$v must be an array literal such as '{10,100,1000}', got '${!v}'" ;;
	esac
done
for s in $ACC_STAGES; do
	[ -f "$ACC_DIR/$s.sql" ] || bs_die "unknown stage '$s' in ACC_STAGES"
done

ACC_T0=$(date +%s)
acc_elapsed() { echo "$(($(date +%s) - ACC_T0)) s"; }

acc_psql() { psql -X -q -v ON_ERROR_STOP=1 -d bs_accuracy "$@"; }

# acc_export VIEW FILE: the rows of VIEW as a TSV with a header line
acc_export() {
	acc_psql -c "COPY (SELECT * FROM $1) TO STDOUT (FORMAT text, HEADER)" >"$ACC_DATA/$2.tmp"
	mv "$ACC_DATA/$2.tmp" "$ACC_DATA/$2"
	acc_log "  wrote doc/data/$2 ($(($(wc -l <"$ACC_DATA/$2") - 1)) rows)"
}

# The views of each stage and their TSV files.
declare -A ACC_OUT=(
	[bloom_fpr]="acc_bloom_fpr_out:bloom_fpr.tsv"
	[bloom_small]="acc_bloom_small_out:bloom_small.tsv"
	[bloom_auto]="acc_bloom_auto_out:bloom_auto.tsv"
	[cms]="acc_cms_out:cms.tsv acc_cms_cdf_out:cms_cdf.tsv acc_streams_out:cms_streams.tsv"
	[topk]="acc_topk_out:topk.tsv"
	[cbloom]="acc_cbloom_window_out:cbloom_window.tsv acc_cbloom_drain_out:cbloom_drain.tsv"
	[bloom_blocked]="acc_bloom_blocked_out:bloom_blocked.tsv acc_bloom_blocked_bits_out:bloom_blocked_bits.tsv acc_bloom_blocked_checks_out:bloom_blocked_checks.tsv"
	[topk_weighted]="acc_topkw_out:topk_weighted.tsv"
	[cms_window]="acc_cw_out:cms_window.tsv"
	[growable]="acc_growable_out:growable.tsv acc_growable_stages_out:growable_stages.tsv acc_growable_union_out:growable_union.tsv acc_growable_union_stages_out:growable_union_stages.tsv acc_growable_spread_out:growable_spread.tsv"
	[topk_sizes]="acc_tks_out:topk_sizes.tsv"
)

# topk_sizes measures 1.4's topk (format 1) with test/accuracy/topk_v1_sizes.c, linked with
# src/core (whose bs_topk1_* functions are 1.4's code), in a temp dir removed on exit.
ACC_WORK=

# acc_build_topk_v1: compile it (before the server starts, so that a failure costs nothing)
acc_build_topk_v1() {
	bs_install_trap
	ACC_WORK=$(mktemp -d "$BS_TMPBASE/bs_accuracy.XXXXXX") || bs_die "cannot make a temp dir"
	BS_AT_EXIT="${BS_AT_EXIT:+$BS_AT_EXIT; }rm -rf '$ACC_WORK'"
	acc_log "compiling test/accuracy/topk_v1_sizes.c"
	cc -std=c11 -O2 -Wall -Wextra -I"$BS_ROOT/src" -o "$ACC_WORK/topk_v1_sizes" \
		"$ACC_DIR/topk_v1_sizes.c" "$BS_ROOT"/src/core/*.c -lxxhash -lm ||
		bs_die "cannot compile test/accuracy/topk_v1_sizes.c"
}

# acc_topk_v1_sizes: after topk_sizes.sql, the keys of its two streams (in row order) through
# topk_v1_sizes for every topk-1.4 point of acc_tks_grid, its listed values into acc_tks_rows.
acc_topk_v1_sizes() {
	local points
	points=$(acc_psql -At -c "SELECT string_agg(id || ':' || k || ':' || eps || ':' || delta, ' ' ORDER BY id)
		FROM acc_tks_grid WHERE design = 'topk-1.4'")
	[ -n "$points" ] || bs_die "acc_tks_grid has no topk-1.4 point"
	acc_psql -c "COPY (SELECT day, key FROM acc_tks_zipf ORDER BY i) TO STDOUT" >"$ACC_WORK/zipf.txt"
	acc_psql -c "COPY (SELECT key FROM acc_tks_uniform ORDER BY i) TO STDOUT" >"$ACC_WORK/uniform.txt"
	# shellcheck disable=SC2086  # the points are words
	"$ACC_WORK/topk_v1_sizes" "$ACC_WORK/zipf.txt" "$ACC_WORK/uniform.txt" $points >"$ACC_WORK/v1.tsv" ||
		bs_die "topk_v1_sizes failed"
	acc_psql -c "COPY acc_tks_rows FROM STDIN" <"$ACC_WORK/v1.tsv"
	acc_log "  topk-1.4: $(wc -l <"$ACC_WORK/v1.tsv") listed values of $(wc -w <<<"$points") points"
	rm -f "$ACC_WORK/zipf.txt" "$ACC_WORK/uniform.txt" "$ACC_WORK/v1.tsv"
}

# acc_earlier_runs <OLD_RUN_INFO: the parts of an earlier run_info.txt (its first part, and the
# earlier runs it kept) that ran a stage this run did not, each after a blank line and a marker.
acc_earlier_runs() {
	awk -v cur=" $ACC_STAGES " '
		function flush() {
			if (blk != "" && keep)
				printf "\n# an earlier run, whose TSVs of the stages not run since are in doc/data:\n%s", blk
			blk = ""; keep = 0
		}
		/^# an earlier run/ { flush(); next }
		/^$/ { next }
		{ blk = blk $0 "\n" }
		$1 == "stage" { st = $2; sub(/:$/, "", st); if (index(cur, " " st " ") == 0) keep = 1 }
		END { flush() }'
}

acc_measure() {
	local stage t0 secs pair info=() vars
	mkdir -p "$ACC_DATA" || bs_die "cannot create $ACC_DATA"

	BS_EXTRA_PACKAGES="${BS_EXTRA_PACKAGES:+$BS_EXTRA_PACKAGES }gnuplot-nox"
	bs_install_deps || bs_die "cannot install the Debian packages"
	case " $ACC_STAGES " in
	*" topk_sizes "*) acc_build_topk_v1 ;;
	esac
	if [ "$ACC_SKIP_INSTALL" = 1 ]; then
		acc_log "ACC_SKIP_INSTALL=1: using the installed extension as it is"
	else
		bs_build_install || bs_die "build or install failed"
	fi
	BS_SERVER_SETTINGS="${BS_SERVER_SETTINGS:+$BS_SERVER_SETTINGS
}# --- accuracy settings (test/accuracy/run.sh) ---
work_mem = '256MB'
jit = off
autovacuum = off
log_min_messages = warning"
	bs_cluster_start || bs_die "cannot start the server"
	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE bs_accuracy" || bs_die "cannot create the database"
	acc_psql -f "$ACC_DIR/setup.sql" || bs_die "setup.sql failed"

	vars=(-v "bloom_n=$ACC_BLOOM_N" -v "bloom_tests=$ACC_BLOOM_TESTS" -v c_max=16 -v k_max=8
		-v "small_tests=$ACC_SMALL_TESTS" -v "auto_tests=$ACC_AUTO_TESTS" -v "auto_n=$ACC_AUTO_N"
		-v "cms_rows=$ACC_CMS_ROWS" -v "topk_rows=$ACC_TOPK_ROWS" -v "tks_rows=$ACC_TOPK_SIZES_ROWS"
		-v "cb_capacity=$ACC_CB_CAPACITY"
		-v "cb_tests=$ACC_CB_TESTS" -v "cb_steps=$ACC_CB_STEPS"
		-v "blocked_tests=$ACC_BLOCKED_TESTS" -v "blocked_n=$ACC_BLOCKED_N"
		-v "blocked_auto_n=$ACC_BLOCKED_AUTO_N" -v "blocked_par_rows=$ACC_BLOCKED_PAR_ROWS"
		-v "growable_tests=$ACC_GROWABLE_TESTS" -v "growable_n=$ACC_GROWABLE_N"
		-v "growable_union_n=$ACC_GROWABLE_UNION_N" -v "growable_union_tests=$ACC_GROWABLE_UNION_TESTS")
	for stage in $ACC_STAGES; do
		acc_log "stage $stage ($(acc_elapsed))"
		t0=$(date +%s)
		acc_psql "${vars[@]}" -f "$ACC_DIR/$stage.sql" || bs_die "$stage.sql failed"
		if [ "$stage" = topk_sizes ]; then acc_topk_v1_sizes; fi
		for pair in ${ACC_OUT[$stage]}; do
			acc_export "${pair%%:*}" "${pair#*:}"
		done
		secs=$(($(date +%s) - t0))
		info+=("stage $stage: $secs s")
		acc_log "  $stage took $secs s"
	done

	local version extversion
	version=$(acc_psql -At -c "SHOW server_version")
	extversion=$(acc_psql -At -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch'")
	bs_cluster_stop

	local rev
	rev=$(git -C "$BS_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
	if [ -n "$(git -C "$BS_ROOT" status --porcelain --untracked-files=no -- src sql 2>/dev/null)" ]; then
		rev="$rev+changes"
	fi
	{
		echo "# test/accuracy/run.sh, $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
		echo "load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg) (other work on the machine slows the run, not the numbers)"
		echo "server: PostgreSQL $version, bloomsketch $extversion (commit $rev; installed: $([ "$ACC_SKIP_INSTALL" = 1 ] && echo 'as found' || echo 'built and installed by this run'))"
		echo "sizes: ACC_BLOOM_N=$ACC_BLOOM_N ACC_BLOOM_TESTS=$ACC_BLOOM_TESTS ACC_SMALL_TESTS=$ACC_SMALL_TESTS ACC_AUTO_TESTS=$ACC_AUTO_TESTS ACC_AUTO_N=$ACC_AUTO_N ACC_CMS_ROWS=$ACC_CMS_ROWS ACC_TOPK_ROWS=$ACC_TOPK_ROWS ACC_TOPK_SIZES_ROWS=$ACC_TOPK_SIZES_ROWS ACC_CB_CAPACITY=$ACC_CB_CAPACITY ACC_CB_TESTS=$ACC_CB_TESTS ACC_CB_STEPS=$ACC_CB_STEPS ACC_BLOCKED_TESTS=$ACC_BLOCKED_TESTS ACC_BLOCKED_N=$ACC_BLOCKED_N ACC_BLOCKED_AUTO_N=$ACC_BLOCKED_AUTO_N ACC_BLOCKED_PAR_ROWS=$ACC_BLOCKED_PAR_ROWS ACC_GROWABLE_TESTS=$ACC_GROWABLE_TESTS ACC_GROWABLE_N=$ACC_GROWABLE_N ACC_GROWABLE_UNION_N=$ACC_GROWABLE_UNION_N ACC_GROWABLE_UNION_TESTS=$ACC_GROWABLE_UNION_TESTS"
		echo "stages: $ACC_STAGES"
		printf '%s\n' "${info[@]}"
		echo "measurements: $(acc_elapsed) (with setup, without the plots)"
		# A run of some stages leaves the other stages' TSVs as they are: keep what the file
		# said about the earlier runs that made some of them.
		if [ -f "$ACC_DATA/run_info.txt" ]; then
			acc_earlier_runs <"$ACC_DATA/run_info.txt"
		fi
	} >"$ACC_DATA/run_info.txt.tmp"
	mv "$ACC_DATA/run_info.txt.tmp" "$ACC_DATA/run_info.txt"
	acc_log "wrote doc/data/run_info.txt"
}

acc_plot() {
	command -v gnuplot >/dev/null 2>&1 || {
		BS_EXTRA_PACKAGES="${BS_EXTRA_PACKAGES:+$BS_EXTRA_PACKAGES }gnuplot-nox"
		bs_install_deps || bs_die "cannot install gnuplot-nox"
	}
	mkdir -p "$ACC_IMG" || bs_die "cannot create $ACC_IMG"
	acc_log "plots ($(acc_elapsed))"
	gnuplot -e "data = '$ACC_DATA'; img = '$ACC_IMG'" "$ACC_DIR/plots.gp" || bs_die "gnuplot failed"
	local f
	for f in "$ACC_IMG"/*.png; do acc_log "  wrote ${f#"$BS_ROOT"/}"; done
}

if [ "$ACC_PLOTS_ONLY" != 1 ]; then
	acc_measure
fi
acc_plot
acc_log "done in $(acc_elapsed)"
