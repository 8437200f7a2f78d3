#!/usr/bin/env bash
# Run the libFuzzer targets of test/fuzz/ (built by `make fuzz-build`), each for a fixed time on a
# copy of its seed corpus, and report one line per target plus a total:
#
#   fuzz: validate: 123456 inputs in 20 s, ok
#   fuzz: topk: 3456 inputs in 2 s, FAILED (crash, input saved as test/fuzz/crashes/topk-crash-...)
#   fuzz: 6 passed, 1 failed
#
# Usage: bash test/fuzz/run.sh [-s SECONDS] [-j JOBS] [TARGET...]     (default: every target)
#   -s SECONDS  fuzzing time per target (FUZZ_SECONDS, 20); 0 runs each seed corpus once only
#   -j JOBS     targets run at once (FUZZ_JOBS, the number of CPUs); each fuzzer uses one core
# Environment: FUZZ_BIN (test/fuzz/bin), FUZZ_MAX_LEN (98304 bytes), FUZZ_TIMEOUT (10 s per
# input), FUZZ_RSS_MB (2048), FUZZ_MALLOC_MB (128: one allocation larger than that is a failure),
# FUZZ_KEEP=1 keeps the work directory, FUZZ_ARGS adds libFuzzer options.
#
# The committed corpus (test/fuzz/corpus/TARGET) is never written: each run fuzzes a copy in a
# temporary work directory.  An input that crashes, leaks, hangs or runs out of memory is copied
# to test/fuzz/crashes/ (not in git) and the command that reproduces it is printed.  Exits
# non-zero if any target failed or could not run.

set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
all_targets=(validate bloom growable bloom_agg_state blocked cms topk cbloom hex)

seconds=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
bin=${FUZZ_BIN:-$here/bin}
max_len=${FUZZ_MAX_LEN:-98304}
timeout_s=${FUZZ_TIMEOUT:-10}
rss_mb=${FUZZ_RSS_MB:-2048}
malloc_mb=${FUZZ_MALLOC_MB:-128}

while getopts "s:j:h" opt; do
	case $opt in
	s) seconds=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*)
		sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=("${all_targets[@]}")
case $seconds in '' | *[!0-9]*) echo "run.sh: -s needs whole seconds, got '$seconds'" >&2; exit 2 ;; esac
case $jobs in '' | *[!0-9]* | 0) echo "run.sh: -j needs a positive number, got '$jobs'" >&2; exit 2 ;; esac

# symbolized stack traces when llvm-symbolizer is not on PATH (Debian's llvm-14 has it here)
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && ! command -v llvm-symbolizer >/dev/null 2>&1 &&
	[ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]; then
	export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

work=$(mktemp -d "${TMPDIR:-/tmp}/bloomsketch-fuzz.XXXXXX") || exit 1
crashes=$here/crashes

# Stop the fuzzers we started if we are interrupted.
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
}
trap 'cleanup; exit 130' INT TERM

# run_one TARGET: fuzz one target in $work/TARGET; writes rc, secs and log there.
run_one() {
	local t=$1 dir=$work/$1 start end rc opts
	mkdir -p "$dir/artifacts"
	cp -R "$here/corpus/$t" "$dir/corpus" 2>/dev/null || mkdir -p "$dir/corpus"
	opts=(-max_len="$max_len" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" -malloc_limit_mb="$malloc_mb"
		-print_final_stats=1 -artifact_prefix="$dir/artifacts/")
	if [ "$seconds" -eq 0 ]; then
		opts+=(-runs=0)
	else
		opts+=(-max_total_time="$seconds")
	fi
	# shellcheck disable=SC2206  # FUZZ_ARGS is a list of options
	opts+=(${FUZZ_ARGS:-})
	start=$(date +%s%N)
	# the wall-clock guard: libFuzzer checks max_total_time between inputs only
	(cd "$dir" && exec timeout -k 10 $((seconds + 3 * timeout_s + 60)) "$bin/fuzz_$t" "${opts[@]}" corpus) \
		>"$dir/log" 2>&1
	rc=$?
	end=$(date +%s%N)
	echo "$rc" >"$dir/rc"
	echo $(((end - start) / 1000000)) >"$dir/ms"
}

running=0
for t in "${targets[@]}"; do
	if [ ! -x "$bin/fuzz_$t" ]; then
		mkdir -p "$work/$t"
		echo missing >"$work/$t/rc"
		continue
	fi
	if [ ! -d "$here/corpus/$t" ]; then
		echo "run.sh: warning: no seed corpus $here/corpus/$t; starting from nothing" >&2
	fi
	while [ "$running" -ge "$jobs" ]; do
		wait -n 2>/dev/null || true
		running=$((running - 1))
	done
	echo "# fuzz: $t: started (${seconds} s)"
	run_one "$t" &
	pids+=($!)
	running=$((running + 1))
done
wait
pids=()

passed=0
failed=0
summary=()
for t in "${targets[@]}"; do
	dir=$work/$t
	rc=$(cat "$dir/rc" 2>/dev/null || echo none)
	if [ "$rc" = missing ]; then
		summary+=("fuzz: $t: 0 inputs in 0 s, FAILED (no binary $bin/fuzz_$t: run make fuzz-build)")
		failed=$((failed + 1))
		continue
	fi
	log=$dir/log
	ms=$(cat "$dir/ms" 2>/dev/null || echo 0)
	secs=$(((ms + 500) / 1000))
	execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	[ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
	[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\)[[:space:]].*/\1/p' "$log" | tail -n 1)
	[ -n "$execs" ] || execs=0
	covline=$(grep -E '^#[0-9]+[[:space:]].*cov: ' "$log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$covline")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$covline")
	corp=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$covline")
	rss=$(sed -n 's/^stat::peak_rss_mb: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	seed=$(sed -n 's/^INFO: Seed: \([0-9]*\).*/\1/p' "$log" | head -n 1)
	echo "# fuzz: $t: cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?} (inputs/bytes), peak rss ${rss:-?} MB, seed ${seed:-?}"

	artifacts=()
	for a in "$dir"/artifacts/*; do
		[ -f "$a" ] || continue
		case $(basename "$a") in slow-unit-*) continue ;; esac # slow is not wrong
		artifacts+=("$a")
	done
	if [ "$rc" = 0 ] && [ "${#artifacts[@]}" -eq 0 ]; then
		summary+=("fuzz: $t: $execs inputs in $secs s, ok")
		passed=$((passed + 1))
		continue
	fi

	failed=$((failed + 1))
	why="exit status $rc"
	[ "$rc" = 124 ] || [ "$rc" = 137 ] && why="did not stop in time"
	saved=
	for a in "${artifacts[@]}"; do
		kind=$(basename "$a")
		kind=${kind%%-*}
		why=$kind
		mkdir -p "$crashes"
		cp "$a" "$crashes/$t-$(basename "$a")"
		saved="$saved test/fuzz/crashes/$t-$(basename "$a")"
	done
	summary+=("fuzz: $t: $execs inputs in $secs s, FAILED ($why${saved:+, input saved as$saved})")
	echo "==== fuzz: $t failed; its report (log: $log) ===="
	first=$(grep -n -m 1 -E '==bloomsketch fuzz==|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log" | cut -d: -f1)
	if [ -n "$first" ]; then
		sed -n "$((first > 2 ? first - 2 : 1)),$((first + 50))p" "$log"
		echo "[...]"
		tail -n 12 "$log"
	else
		grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$log" | tail -n 60
	fi
	echo "==== end of the $t report ===="
	for a in $saved; do
		echo "# reproduce: $bin/fuzz_$t $root/$a"
	done
done

printf '%s\n' "${summary[@]}"
echo "fuzz: $passed passed, $failed failed"
if [ "$failed" -eq 0 ] && [ -z "${FUZZ_KEEP:-}" ]; then
	rm -rf "$work"
else
	echo "# fuzz: work directory kept: $work"
fi
[ "$failed" -eq 0 ]
