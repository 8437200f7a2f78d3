#!/usr/bin/env bash
#
# test/check.sh: the whole test suite (README: `bash test/check.sh`; CI: .ci/run).
#
# Runs the stages of the table below in order, each timed, with its output shown (the output of
# the stages run with bs_run, i.e. build, unit and regress, is also kept in test/.work/check/),
# and ends with one line alone: `N passed, N failed`.
# Exits non-zero when anything failed or could not run.  Works as root (the test server then runs
# as the postgres OS user) or as a user with sudo (used only for apt-get and make install).
#
# Counting: a "step" stage counts as one test (passed or failed); a "suite" stage counts the
# results its runner prints (make unittest's `unit: N passed, N failed`, pg_regress's
# `All N tests passed.` / `N of M tests failed.`, prove's `Files=..., Tests=N` and `Failed X/Y`);
# a "setup" stage counts only when it fails.  A stage whose prerequisite failed is not run and
# counts as one failure (except setup stages).
#
# Adding a stage: write a function stage_NAME (return 0 on success; a suite runs its command with
# `bs_run "$BS_STAGE_LOG" "$(bs_time_left)" CMD...` so its output is parsed) and add a row to
# BS_STAGES, as the tap stage is:
#     "tap        suite  install            stage_tap"
# with stage_tap running `prove` (as the unprivileged server user, since it runs initdb itself).
#
# Other PostgreSQL versions: the stages root17 and root18 make (or update) a Debian root with
# PostgreSQL 17 (Debian 13, trixie) and 18 (Debian unstable) under test/.work/roots/ with
# debootstrap, and pg17 and pg18 run this script's server stages (BS_ROOT_STAGES of
# test/pg_root.sh: build, install, unit, regress, docs, client, tap) there, with BS_PG_VERSION
# set; each counts the totals of its run and keeps its logs in test/.work/pgN/.  There
# (BS_INSTALL_FROM=deb) the build stage builds the Debian package postgresql-N-bloomsketch
# (dpkg-buildpackage, with WERROR=1, its contents checked) and the install stage installs it
# (apt-get install ./...deb): every server test of 17 and 18 runs against the package, in a
# root that never saw make install.  Everything
# started in a root runs in mount and PID namespaces of its own, which the kernel tears down
# (servers and mounts) when the stage ends or is stopped in any way.
#
# The release (stage package, test/package.sh, doc/install.md): META.json against the PGXN Meta
# Spec 1.0.0 (test/meta_check.py, and its self-test); `make dist`'s zip unpacked, built and
# installed into a DESTDIR; the Debian package of 15 built here (dpkg-buildpackage) and its
# contents checked; then, in a Debian 12 root where bloomsketch never was (stage root15,
# test/pg_root.sh), `apt-get install ./postgresql-15-bloomsketch_*.deb`, the regression tests
# against it (make installcheck), and its purge.  Its output ends with `package: N passed, N
# failed`; logs in test/.work/package/ and test/.work/pkg15/.
#
# Usage: bash test/check.sh [NAME...]   NAME a stage of the table below or a profile (quick:
# build, unit, regress and docs; release: package, pg17 and pg18, the three Debian packages);
# each comes with the stages it needs, so `bash test/check.sh regress` builds, installs and
# starts the server first.  No NAME: every stage.
#
# Settings: BS_BUDGET (seconds for the whole run, 1740: under 30 minutes with the roots made
# from scratch on 2 cores), BS_CHECK_STAGES (more names, as the arguments), BS_PG_STAGE_MAX (at
# most this many seconds for each of pg17 and pg18, 900), BS_LANES (2: the root stages run
# alongside the others, as below; 1: every stage in order), plus those of test/lib.sh
# (BS_PG_VERSION: the version of the stages run here, 15) and of test/pg_root.sh.

set -uo pipefail # no -e: a failing stage is recorded, the others still run when they can

# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# name      kind   needs (comma-separated)  function
BS_STAGES=(
	"deps       setup  -                  stage_deps"
	"generated  step   deps               stage_generated"
	"build      step   deps               stage_build"
	"install    setup  build              stage_install"
	"unit       suite  deps               stage_unit"
	"unitsan    suite  deps               stage_unit_sanitize"
	"fuzz       suite  deps               stage_fuzz"
	"cluster    setup  install            stage_cluster_start"
	"regress    suite  cluster            stage_regress"
	"alone      suite  cluster            stage_regress_alone"
	"docs       suite  cluster            stage_docs"
	"client     suite  cluster            stage_client"
	"stop       setup  cluster            stage_cluster_stop"
	"tap        suite  install            stage_tap"
	"root17     setup  deps               stage_root_17"
	"pg17       suite  root17             stage_pg_17"
	"root18     setup  deps               stage_root_18"
	"pg18       suite  root18             stage_pg_18"
	"root15     setup  deps               stage_root_15"
	"package    suite  root15             stage_package"
)
# (root15 and package run after tap, in the main lane, not in the roots': see bs_is_lane_stage.
# The package stage works in test/.work/package/ and in its root: a copy of the tree, an
# unpacked archive, a DESTDIR, never the machine's PostgreSQL.)

: "${BS_BUDGET:=1740}" # the whole run must stay under 30 minutes
: "${BS_CHECK_STAGES:=}"
: "${BS_PG_STAGE_MAX:=900}"
bs_require_int BS_BUDGET "$BS_BUDGET" 60
bs_require_int BS_PG_STAGE_MAX "$BS_PG_STAGE_MAX" 60
BS_T0=$(date +%s)

# Seconds left for a stage: the budget minus what was used, minus a reserve for stopping the
# server and printing the summary.
bs_time_left() {
	local left=$((BS_BUDGET - ($(date +%s) - BS_T0) - 30))
	[ "$left" -lt 10 ] && left=10
	echo "$left"
}

# ---------------------------------------------------------------------------------------------
# Stages.  Each returns 0 on success.  A suite may set BS_STAGE_PASSED / BS_STAGE_FAILED itself;
# otherwise the runner parses BS_STAGE_LOG.

# Is stage NAME among those this run runs?
bs_stage_selected() {
	local row
	for row in "${BS_STAGES[@]}"; do
		[ "${row%% *}" = "$1" ] && return 0
	done
	return 1
}

# The packages of the stages this run runs: build and server, the test packages, clang for the
# sanitizers and the fuzzers, debootstrap for the roots, debhelper and pg_buildext for the
# Debian package.
stage_deps() {
	local pkgs=()
	# shellcheck disable=SC2206  # word splitting of the package lists is intended
	pkgs+=($BS_TEST_PACKAGES)
	if bs_stage_selected unitsan || bs_stage_selected fuzz; then
		# shellcheck disable=SC2206
		pkgs+=($BS_FUZZ_PACKAGES)
	fi
	if bs_stage_selected root17 || bs_stage_selected root18 || bs_stage_selected root15; then
		pkgs+=(debootstrap debian-archive-keyring)
	fi
	if bs_stage_selected package; then
		# shellcheck disable=SC2206
		pkgs+=($BS_DEB_PACKAGES)
	fi
	bs_install_deps "${pkgs[@]}"
}

# The install and upgrade scripts are generated from sql/src and committed: regenerating them
# must change nothing (released scripts keep their bytes); and the generator's directives give
# what they say, or their errors, on scripts made up for the test.
stage_generated() {
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" python3 "$BS_ROOT/sql/src/generate.py" --check &&
		bs_run "$BS_STAGE_LOG" "$(bs_time_left)" python3 "$BS_ROOT/sql/src/generate.py" --self-test
}

# make WERROR=1; with BS_INSTALL_FROM=deb, the Debian package that the install stage installs,
# built with WERROR=1 (lib.sh's bs_build_deb; the module is compiled once).
stage_build() {
	if [ "${BS_INSTALL_FROM:-make}" = deb ]; then
		bs_run "$BS_STAGE_LOG" "$(bs_time_left)" env WERROR=1 bash "$BS_ROOT/test/package.sh" build "$BS_DEB_DIR"
		return
	fi
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" make -C "$BS_ROOT" -j"${BS_MAKE_JOBS:-$(nproc)}" \
		WERROR=1 PG_CONFIG="$BS_PG_CONFIG"
}

stage_install() {
	bs_install
}

stage_unit() {
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" make -C "$BS_ROOT" -j"${BS_MAKE_JOBS:-$(nproc)}" \
		unittest WERROR=1 PG_CONFIG="$BS_PG_CONFIG"
}

# BS_STAGE_PASSED / BS_STAGE_FAILED from the last "PREFIX: N passed, N failed" line of the stage log
# (make unittest-sanitize ends with `unit-sanitize: ...`, make fuzz with `fuzz: ...`).
bs_stage_counts() {
	local line
	line=$(grep -E "^$1: [0-9]+ passed, [0-9]+ failed\$" "$BS_STAGE_LOG" | tail -n 1)
	[ -n "$line" ] || return 0
	line=${line#"$1: "}
	BS_STAGE_PASSED=${line%% passed*}
	BS_STAGE_FAILED=${line#*passed, }
	BS_STAGE_FAILED=${BS_STAGE_FAILED%% failed}
}

# The core's unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
stage_unit_sanitize() {
	local rc=0
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" make -C "$BS_ROOT" -j"${BS_MAKE_JOBS:-$(nproc)}" \
		unittest-sanitize WERROR=1 PG_CONFIG="$BS_PG_CONFIG" || rc=$?
	bs_stage_counts unit-sanitize
	return "$rc"
}

# libFuzzer targets of the validator and of every sketch kind (test/fuzz/), each for
# BS_FUZZ_SECONDS (10; `make fuzz` alone runs 20) on a copy of its seed corpus; one passed test
# per clean target.
stage_fuzz() {
	local rc=0
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" make -C "$BS_ROOT" -j"${BS_MAKE_JOBS:-$(nproc)}" \
		fuzz FUZZ_SECONDS="${BS_FUZZ_SECONDS:-10}" WERROR=1 PG_CONFIG="$BS_PG_CONFIG" || rc=$?
	bs_stage_counts fuzz
	return "$rc"
}

stage_cluster_start() {
	bs_cluster_start || return 1
	echo "server up: $BS_SERVER_VERSION" >>"$BS_STAGE_LOG"
}

stage_regress() {
	local rc=0 f
	rm -f "$BS_ROOT/regression.diffs"
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" make -C "$BS_ROOT" installcheck PG_CONFIG="$BS_PG_CONFIG" || rc=$?
	if [ "$rc" -ne 0 ]; then
		for f in "$BS_ROOT"/regression.diffs "$BS_ROOT"/*/regression.diffs; do
			[ -s "$f" ] || continue
			echo "==== $f (first 200 lines) ===="
			head -n 200 "$f"
			echo "==== end of $f ($(wc -l <"$f") lines) ===="
		done
	fi
	return "$rc"
}

# The regression tests again, each alone in a fresh database and in reverse order
# (test/regress_alone.sh): none may rely on what another file made.  One test per file.
stage_regress_alone() {
	local rc=0
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" bash "$BS_ROOT/test/regress_alone.sh" || rc=$?
	bs_stage_counts alone
	return "$rc"
}

# The psql examples of the documentation (```psql blocks of doc/*.md), rerun against the server
# and compared with the page (test/docs/check_examples.py); one test per block.
stage_docs() {
	local rc=0
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" /usr/bin/python3 "$BS_ROOT/test/docs/check_examples.py" \
		"$BS_ROOT"/README.md "$BS_ROOT"/doc/*.md || rc=$?
	bs_stage_counts docs
	return "$rc"
}

# The Python reference client (test/client/): reads sketches over a real connection and answers
# membership and frequency locally with the documented hash; must agree with the server.
stage_client() {
	local rc=0
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" /usr/bin/python3 "$BS_ROOT/test/client/check_client.py" || rc=$?
	bs_stage_counts client
	return "$rc"
}

# TAP tests (test/tap/): dump/restore, concurrent writers, crash recovery, cancellation,
# upgrade, postgres_fdw sharding, the Citus calling convention.  Each starts its own clusters; prove's summary lines are counted.
# BS_TAP_TESTS (numbers, e.g. "009") runs only those: to repeat one test in the roots of 17 and 18.
stage_tap() {
	BS_TAP_LOGDIR="$BS_ROOT/test/.work/tap" BS_TAP_TIMEOUT="$(bs_time_left)" BS_TAP_VERBOSE=0 \
		BS_PGBIN="$BS_PGBIN" bs_run "$BS_STAGE_LOG" "$(bs_time_left)" bash "$BS_ROOT/test/tap/run.sh" \
		${BS_TAP_TESTS:-}
}

# test/pg_root.sh as root (with sudo when we are not root), with the settings it reads.
bs_pg_root() {
	local cmd=(env CI="${CI:-}" BS_BUDGET="$BS_ROOT_RUN_BUDGET"
		BS_DEBIAN_MIRROR="${BS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
		BS_DEBIAN_SECURITY_MIRROR="${BS_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
		BS_ROOTS_DIR="${BS_ROOTS_DIR:-$BS_ROOT/test/.work/roots}")
	if [ -n "${BS_ROOT_STAGES:-}" ]; then cmd+=(BS_ROOT_STAGES="$BS_ROOT_STAGES"); fi
	cmd+=(bash "$BS_ROOT/test/pg_root.sh" "$@")
	if ! bs_is_root; then cmd=(sudo "${cmd[@]}"); fi
	bs_run "$BS_STAGE_LOG" "$BS_ROOT_RUN_SECS" "${cmd[@]}"
}

# The seconds a root stage may take (the budget left, at most BS_PG_STAGE_MAX, so that a hang in
# one version leaves time for the other), and those of the test/check.sh run in the root (30 less,
# so that its own time limits strike first and it prints its table).
bs_root_times() {
	BS_ROOT_RUN_SECS=$(bs_time_left)
	if [ "$BS_ROOT_RUN_SECS" -gt "$BS_PG_STAGE_MAX" ]; then BS_ROOT_RUN_SECS=$BS_PG_STAGE_MAX; fi
	BS_ROOT_RUN_BUDGET=$((BS_ROOT_RUN_SECS - 30))
	if [ "$BS_ROOT_RUN_BUDGET" -lt 60 ]; then BS_ROOT_RUN_BUDGET=60; fi
}

# A Debian root with PostgreSQL N: debootstrap'ed anew, or the kept one updated (test/pg_root.sh).
stage_root() {
	bs_root_times
	bs_pg_root prepare "$1"
}

# This script's server stages in the root of PostgreSQL N; the totals of that run are counted.
stage_pg() {
	local rc=0
	bs_root_times
	bs_pg_root check "$1" || rc=$?
	bs_stage_counts "pg$1"
	return "$rc"
}

stage_root_17() { stage_root 17; }
stage_pg_17() { stage_pg 17; }
stage_root_18() { stage_root 18; }
stage_pg_18() { stage_pg 18; }
# Debian 12's root, for the package of the machine's PostgreSQL (15)
stage_root_15() { stage_root 15; }

# The release: META.json, make dist, the Debian package of this machine's PostgreSQL built here
# and tested in the root of root15 (test/package.sh; the packages of 17 and 18 are built and
# tested in pg17 and pg18).  Each part prints `NAME: N passed, N failed`; their sum is the
# stage's last line.
stage_package() {
	local work=$BS_ROOT/test/.work/package rc=0 debs line p=0 f=0
	rm -rf --one-file-system -- "$work"
	mkdir -p "$work" || return 1
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" /usr/bin/python3 "$BS_ROOT/test/meta_check.py" "$BS_ROOT/META.json" || rc=1
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" /usr/bin/python3 "$BS_ROOT/test/meta_check.py" --self-test || rc=1
	bs_run "$BS_STAGE_LOG" "$(bs_time_left)" bash "$BS_ROOT/test/package.sh" dist "$work/dist" || rc=1
	if bs_run "$BS_STAGE_LOG" "$(bs_time_left)" bash "$BS_ROOT/test/package.sh" build "$work/deb"; then
		debs=("$work"/deb/postgresql-"$BS_PG_VERSION"-bloomsketch_*.deb)
		bs_root_times
		bs_pg_root package "$BS_PG_VERSION" "${debs[0]}" || rc=1
	else
		rc=1
	fi
	# the parts' counts (the in-root lines carry a pkgN| prefix; its totals line does not)
	while read -r line; do
		line=${line#*: }
		p=$((p + ${line%% passed*}))
		line=${line#*passed, }
		f=$((f + ${line%% failed}))
	done < <(grep -E '^(meta|dist|deb|installcheck): [0-9]+ passed, [0-9]+ failed$' "$BS_STAGE_LOG")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	BS_STAGE_PASSED=$p
	BS_STAGE_FAILED=$f
	echo "package: $p passed, $f failed" | tee -a "$BS_STAGE_LOG"
	return "$rc"
}

stage_cluster_stop() {
	if [ "$BS_FAILED" -gt 0 ]; then
		bs_cluster_stop --keep-log
	else
		bs_cluster_stop
	fi
}

# ---------------------------------------------------------------------------------------------
# Parsing the runners' closing lines.  Prints "PASSED FAILED", or nothing when none was found.

bs_count_results() {
	awk '
	# make unittest: the last "unit: N passed, N failed" line is the total
	/^unit: [0-9]+ passed, [0-9]+ failed/ {
		u_p = $2; u_f = $4; unit = 1; next
	}
	# pg_regress, one line per test ("test name ... ok 12 ms", "     name ... FAILED 3 ms"),
	# counted only for a run cut short before its totals line
	/^(test|    ) +[^ ]+ +\.\.\. ok( |$)/ { pend_p++; next }
	/^(test|    ) +[^ ]+ +\.\.\. FAILED( |$)/ { pend_f++; next }
	# pg_regress totals (PG15: " All 5 tests passed. ", PG16+: "# All 5 tests passed.")
	match($0, /All [0-9]+ tests passed/) {
		split(substr($0, RSTART, RLENGTH), a, " "); r_p += a[2]; reg = 1; pend_p = pend_f = 0; next
	}
	# " 1 of 5 tests failed. " and " 2 of 5 tests failed, 1 of these failures ignored. "
	match($0, /[0-9]+ of [0-9]+ tests failed/) {
		split(substr($0, RSTART, RLENGTH), a, " "); r_f += a[1]; r_p += a[3] - a[1]; reg = 1
		pend_p = pend_f = 0; next
	}
	# " 4 of 5 tests passed, 1 failed test(s) ignored. "
	match($0, /[0-9]+ of [0-9]+ tests passed/) {
		split(substr($0, RSTART, RLENGTH), a, " "); r_p += a[1]; r_f += a[3] - a[1]; reg = 1
		pend_p = pend_f = 0; next
	}
	# prove: "Failed 2/20 subtests", "Files=3, Tests=20, ...", "Result: PASS|FAIL"
	match($0, /^Failed [0-9]+\/[0-9]+ subtests/) {
		split(substr($0, RSTART + 7, RLENGTH - 7), a, "/"); t_sub += a[1] + 0; next
	}
	match($0, /^Files=[0-9]+, Tests=[0-9]+/) {
		s = substr($0, RSTART, RLENGTH); sub(/.*Tests=/, "", s); t_n += s; tap = 1; next
	}
	/^Result: FAIL/ { t_fail_runs++ }
	END {
		p = 0; f = 0; found = 0
		if (unit) { p += u_p; f += u_f; found = 1 }
		if (pend_p + pend_f > 0) { r_p += pend_p; r_f += pend_f; reg = 1 }
		if (reg) { p += r_p; f += r_f; found = 1 }
		if (tap) {
			tf = t_sub; if (t_fail_runs > 0 && tf == 0) tf = 1
			p += t_n - t_sub; f += tf; found = 1
		}
		if (found) print p, f
	}' "$1"
}

# ---------------------------------------------------------------------------------------------
# The runner

BS_PASSED=0
BS_FAILED=0
BS_WORK=$BS_ROOT/test/.work/check
if ! mkdir -p "$BS_WORK" 2>/dev/null || [ ! -w "$BS_WORK" ]; then
	BS_WORK=$(mktemp -d "${TMPDIR:-/tmp}/bloomsketch-check.XXXXXX")
fi
declare -A BS_STATUS=()
BS_REPORT=()

bs_now_ms() { date +%s%3N; }

# The failing checks of every failed stage, named in the summary: CI often keeps only the end
# of the output, and a stage log is gone with the machine.  At most 20 lines a stage.
bs_failures_report() {
	local row name log
	for row in "${BS_REPORT[@]}"; do
		case $row in *FAILED*) ;; *) continue ;; esac
		name=${row%% *}
		log=$BS_WORK/$name.log
		[ -f "$log" ] || continue
		echo "failed in $name:"
		grep -a -E '(^|[|] )[[:space:]]*not ok|#[[:space:]]+(Failed test|at |got:|expected:)|\.\.\. FAILED|Wstat|[1-9][0-9]* differ|=== [a-z0-9]+: FAILED|^(unit|vectors): [0-9]+ passed, [1-9]' "$log" |
			head -n 20 | cut -c 1-200 | sed 's/^/  /'
	done
}

bs_run_stage() {
	local name=$1 kind=$2 needs=$3 fn=$4 need status p=0 f=0 rc=0 t0 ms counts
	BS_STAGE_LOG=$BS_WORK/$name.log
	: >"$BS_STAGE_LOG"
	BS_STAGE_PASSED=
	BS_STAGE_FAILED=

	if [ "$needs" != - ]; then
		for need in ${needs//,/ }; do
			if [ "${BS_STATUS[$need]:-}" != ok ]; then
				BS_STATUS[$name]=skipped
				[ "$kind" = setup ] || f=1
				BS_FAILED=$((BS_FAILED + f))
				BS_REPORT+=("$(printf '%-10s %-24s %6s %6s %8s' "$name" "not run (needs $need)" - "$f" -)")
				echo
				echo "=== $name: not run, because $need did not succeed"
				return 0
			fi
		done
	fi

	echo
	echo "=== $name ($fn) ==="
	t0=$(bs_now_ms)
	"$fn" || rc=$?
	ms=$(($(bs_now_ms) - t0))

	case $kind in
	setup)
		[ "$rc" -eq 0 ] || f=1
		;;
	step)
		if [ "$rc" -eq 0 ]; then p=1; else f=1; fi
		;;
	suite)
		if [ -n "$BS_STAGE_PASSED" ]; then
			p=$BS_STAGE_PASSED f=${BS_STAGE_FAILED:-0}
		elif counts=$(bs_count_results "$BS_STAGE_LOG") && [ -n "$counts" ]; then
			read -r p f <<<"$counts"
		elif [ "$rc" -eq 0 ]; then
			echo "[bloomsketch] $name: no test results found in its output; counted as one step" >&2
			p=1
		fi
		# a failed runner always counts at least one failure (crash, timeout, build error)
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
		;;
	esac
	if [ "$rc" -eq 0 ] && [ "$f" -eq 0 ]; then status=ok; else status="FAILED (exit $rc)"; fi
	BS_STATUS[$name]=${status%% *}
	BS_PASSED=$((BS_PASSED + p))
	BS_FAILED=$((BS_FAILED + f))
	BS_REPORT+=("$(printf '%-10s %-24s %6s %6s %7d.%01ds' "$name" "$status" \
		"$([ "$kind" = setup ] && echo - || echo "$p")" "$f" $((ms / 1000)) $((ms % 1000 / 100)))")
	echo "=== $name: $status (${ms} ms)"
}

# Profiles: names that stand for several stages.  quick: what a change to the C code or the SQL
# needs first (under 5 minutes on 2 cores); release: the release artefacts (META.json, make
# dist, the Debian packages of 15, 17 and 18 and the tests against them); the prerequisites
# come with it.
declare -A BS_PROFILES=(
	[quick]="build unit regress docs"
	[release]="package pg17 pg18"
)

# The stages to run, from the arguments (or BS_CHECK_STAGES): stage and profile names, each
# with the stages it needs (the `needs` column, transitively) and, for a server stage, stop; in
# table order.  No names: every stage.
bs_select_stages() {
	local row name kept=() known=" " want=" " added=1 needs need
	set -- "$@" $BS_CHECK_STAGES
	[ "$#" -gt 0 ] || return 0
	for row in "${BS_STAGES[@]}"; do known+="${row%% *} "; done
	for name in "$@"; do
		if [ -n "${BS_PROFILES[$name]:-}" ]; then
			want+="${BS_PROFILES[$name]} "
			continue
		fi
		case $known in *" $name "*) ;; *) bs_die "no stage or profile '$name' (stages:${known% }; profiles: ${!BS_PROFILES[*]})" ;; esac
		want+="$name "
	done
	while [ "$added" = 1 ]; do
		added=0
		for row in "${BS_STAGES[@]}"; do
			read -r name _ needs _ <<<"$row"
			case $want in *" $name "*) ;; *) continue ;; esac
			[ "$name" = cluster ] && needs+=",stop"
			[ "$needs" = - ] && continue
			for need in ${needs//,/ }; do
				case $want in *" $need "*) ;; *) want+="$need " added=1 ;; esac
			done
		done
	done
	for row in "${BS_STAGES[@]}"; do
		case $want in *" ${row%% *} "*) kept+=("$row") ;; esac
	done
	BS_STAGES=("${kept[@]}")
}

# The servers this run tested, from the `server up:` line of the cluster stage (here) or of the
# run in a root (stages pg17, pg18), for the stages that ran.
bs_versions_report() {
	local name v
	for name in cluster pg17 pg18 package; do
		case ${BS_STATUS[$name]:-skipped} in skipped) continue ;; esac
		v=$(grep -o 'server up: PostgreSQL [^ ]* [^,]*' "$BS_WORK/$name.log" 2>/dev/null | head -n 1)
		[ -n "$v" ] || continue
		case $name in cluster) name=here ;; package) name=pkg$BS_PG_VERSION ;; esac
		printf '  %-8s %s\n' "$name" "${v#server up: }"
	done
}

# The root stages (root17, pg17, root18, pg18) run alongside the others, in a background lane
# started once deps is done: they are one server's tests in a root of their own, which share
# nothing with the machine's server but its 2 cores, and the run takes about the longer lane
# instead of the sum (BS_LANES=1 runs every stage in order).  A run without the roots (quick)
# puts the unit tests there instead, beside the regression tests.  The lane's output goes to
# $BS_WORK/lane.out and is shown after the other stages; its rows, counts and statuses come back
# through $BS_WORK/lane.state.
BS_LANE_PID=
BS_LANE_ROWS=()

bs_is_lane_stage() {
	# the package stage and its root run last in the other lane, which is the shorter one
	# without them when the roots are made from scratch (CI)
	case $1 in root15 | package) return 1 ;; root[0-9]* | pg[0-9]*) return 0 ;; esac
	# without the roots, the unit tests (CPU only) take the lane, beside the server's stages
	[ "$1" = unit ] && [ -z "$BS_HAS_ROOTS" ] && bs_stage_selected cluster && return 0
	return 1
}

# The lane itself (in the background: its counts go back through lane.state).
bs_lane_run() {
	local row
	BS__TRAP_SET= # its own traps: a TERM from bs_lane_stop stops the stage it runs
	bs_install_trap
	BS_REPORT=()
	BS_PASSED=0
	BS_FAILED=0
	for row in "${BS_LANE_ROWS[@]}"; do
		# shellcheck disable=SC2086  # split the row into its columns
		bs_run_stage $row
	done
	{
		for row in "${BS_LANE_ROWS[@]}"; do
			printf 'BS_STATUS[%s]=%q\n' "${row%% *}" "${BS_STATUS[${row%% *}]:-skipped}"
		done
		for row in "${BS_REPORT[@]}"; do printf 'BS_REPORT+=(%q)\n' "$row"; done
		echo "BS_PASSED=\$((BS_PASSED + $BS_PASSED)) BS_FAILED=\$((BS_FAILED + $BS_FAILED))"
	} >"$BS_WORK/lane.state"
}

bs_lane_start() {
	[ "${#BS_LANE_ROWS[@]}" -gt 0 ] || return 0
	echo
	echo "=== ${BS_LANE_ROWS[*]%% *}: run alongside (output in $BS_WORK/lane.out, shown at the end)"
	rm -f "$BS_WORK/lane.state"
	bs_lane_run >"$BS_WORK/lane.out" 2>&1 </dev/null &
	BS_LANE_PID=$!
}

# Wait for the lane, show its output and take its results (a lane that left none counts as one
# failure).
bs_lane_join() {
	local row
	[ -n "$BS_LANE_PID" ] || return 0
	wait "$BS_LANE_PID"
	BS_LANE_PID=
	cat "$BS_WORK/lane.out"
	if [ -s "$BS_WORK/lane.state" ]; then
		# shellcheck disable=SC1091  # written by bs_lane_start
		. "$BS_WORK/lane.state"
	else
		echo "[bloomsketch] the stages run alongside left no results; counted as one failure" >&2
		for row in "${BS_LANE_ROWS[@]}"; do BS_STATUS[${row%% *}]=skipped; done
		BS_FAILED=$((BS_FAILED + 1))
	fi
}

# On any exit (lib.sh's trap evals BS_AT_EXIT): stop the lane and what it runs.
bs_lane_stop() {
	[ -n "$BS_LANE_PID" ] || return 0
	kill -TERM "$BS_LANE_PID" 2>/dev/null
	wait "$BS_LANE_PID" 2>/dev/null
	BS_LANE_PID=
}

main() {
	local row rows=()
	bs_select_stages "$@"
	bs_install_trap # Ctrl-C or an error stops whatever runs, and the server if it is up
	BS_AT_EXIT=bs_lane_stop
	echo "bloomsketch check: $(date -u '+%Y-%m-%d %H:%M:%S UTC') as $(id -un), repo $BS_ROOT," \
		"PostgreSQL $BS_PG_VERSION, budget ${BS_BUDGET}s"
	echo "stage logs in $BS_WORK"
	BS_HAS_ROOTS=
	for row in "${BS_STAGES[@]}"; do
		case ${row%% *} in root15) ;; root[0-9]*) BS_HAS_ROOTS=1 ;; esac
	done
	for row in "${BS_STAGES[@]}"; do
		if [ "${BS_LANES:-2}" -ge 2 ] && bs_is_lane_stage "${row%% *}"; then
			BS_LANE_ROWS+=("$row")
		else
			rows+=("$row")
		fi
	done
	[ "${rows[0]%% *}" = deps ] || bs_lane_start
	for row in "${rows[@]}"; do
		# shellcheck disable=SC2086  # split the row into its columns
		bs_run_stage $row
		if [ "${row%% *}" = deps ]; then bs_lane_start; fi
	done
	# in case a stage was skipped while the server was up
	if [ -n "$BS_CLUSTER_DIR" ]; then bs_cluster_stop; fi
	bs_lane_join

	{
		echo
		echo "=== summary ($(($(date +%s) - BS_T0)) s in all, stage logs in $BS_WORK)"
		printf '%-10s %-24s %6s %6s %8s\n' stage result passed failed time
		printf '%s\n' "${BS_REPORT[@]}"
		if [ -n "$(bs_versions_report)" ]; then
			echo "servers tested:"
			bs_versions_report
		fi
		bs_failures_report
		echo
		echo "$BS_PASSED passed, $BS_FAILED failed"
	} | tee "$BS_WORK/summary.txt"
	[ "$BS_FAILED" -eq 0 ]
}

main "$@"
