#!/usr/bin/env bash
#
# test/tap/run.sh: the TAP tests of bloomsketch (PostgreSQL::Test::Cluster), run with prove.
#
#   bash test/tap/run.sh                      every test/tap/NNN_*.pl
#   bash test/tap/run.sh 001 test/tap/004_cancel.pl   some of them (a path, a file name, or
#                                             its number prefix)
#
# The extension must be installed in the PostgreSQL found at BS_PGBIN (15, 17 and 18 are tested).  Each test starts
# its own throwaway clusters (initdb), so the tests run as an unprivileged OS user: as root,
# this script runs prove as the `postgres` user (BS_TAP_USER) with the environment it needs;
# as any other user, as that user.  Nothing is written into the repository: the tests are
# copied to a fresh temporary directory (BS_TAP_TMPBASE, /tmp) that is removed at the end.
#
# Output: prove's (prove -v unless BS_TAP_VERBOSE=0), with its summary lines, is shown and
# kept in $BS_TAP_LOGDIR/tap-output.log; the per-test TAP logs (regress_log_*) are kept in
# $BS_TAP_LOGDIR/ too, and when a test fails, so are the server logs and the data directory
# listing of that run (in $BS_TAP_LOGDIR/failed-<time>/).
# Exit status: prove's (non-zero when a test failed), 124 when the time limit was reached.
#
# Settings (environment):
#   BS_TAP_LOGDIR    where the logs are kept (/tmp/bloomsketch-tap-logs; emptied first)
#   BS_TAP_TIMEOUT   seconds for the whole prove run (600); then everything is stopped
#   BS_TAP_VERBOSE   1 (prove -v, the default) or 0
#   BS_TAP_USER      the OS user that runs the tests when this script runs as root (postgres)
#   BS_TAP_TMPBASE   parent of the temporary directory (/tmp; keep it short: socket paths)
#   BS_PGBIN         the PostgreSQL bin directory (/usr/lib/postgresql/15/bin)

set -uo pipefail

TAP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${BS_PGBIN:=/usr/lib/postgresql/15/bin}"
: "${BS_TAP_LOGDIR:=/tmp/bloomsketch-tap-logs}"
: "${BS_TAP_TIMEOUT:=600}"
: "${BS_TAP_VERBOSE:=1}"
: "${BS_TAP_USER:=postgres}"
: "${BS_TAP_TMPBASE:=/tmp}"

log() { printf '%s\n' "[bloomsketch-tap] $*" >&2; }

PG_CONFIG=$BS_PGBIN/pg_config
if [ ! -x "$PG_CONFIG" ]; then
	log "ERROR: $PG_CONFIG not found (set BS_PGBIN)"
	exit 2
fi
PGXS_DIR=$(dirname "$("$PG_CONFIG" --pgxs)") # .../lib/pgxs/src/makefiles
PGXS_DIR=${PGXS_DIR%/src/makefiles}
PERL_TAP_LIB=$PGXS_DIR/src/test/perl
PG_REGRESS_BIN=$PGXS_DIR/src/test/regress/pg_regress
for f in "$PERL_TAP_LIB/PostgreSQL/Test/Cluster.pm" "$PG_REGRESS_BIN"; do
	if [ ! -e "$f" ]; then
		log "ERROR: $f not found (is postgresql-server-dev-$("$PG_CONFIG" --version | sed 's/^PostgreSQL \([0-9]*\).*/\1/') installed?)"
		exit 2
	fi
done
if ! perl -MIPC::Run -e 1 2>/dev/null; then
	log "ERROR: the Perl module IPC::Run is missing (Debian: libipc-run-perl)"
	exit 2
fi
if ! command -v prove >/dev/null 2>&1; then
	log "ERROR: prove not found (Debian: perl)"
	exit 2
fi
if [ ! -f "$("$PG_CONFIG" --sharedir)/extension/bloomsketch.control" ]; then
	log "ERROR: bloomsketch is not installed in $("$PG_CONFIG" --sharedir)/extension (make install)"
	exit 2
fi

# The tests to run: all, or those named.
TESTS=()
if [ "$#" -eq 0 ]; then
	for f in "$TAP_DIR"/[0-9][0-9][0-9]_*.pl; do
		[ -e "$f" ] && TESTS+=("$(basename "$f")")
	done
else
	for a in "$@"; do
		b=$(basename "$a")
		m=("$TAP_DIR"/"$b" "$TAP_DIR"/"$b".pl "$TAP_DIR"/"$b"_*.pl)
		found=
		for f in "${m[@]}"; do
			if [ -f "$f" ]; then
				TESTS+=("$(basename "$f")")
				found=1
				break
			fi
		done
		if [ -z "$found" ]; then
			log "ERROR: no test $a in $TAP_DIR"
			exit 2
		fi
	done
fi
if [ "${#TESTS[@]}" -eq 0 ]; then
	log "ERROR: no tests in $TAP_DIR"
	exit 2
fi

# Who runs the tests.
if [ "$(id -u)" -eq 0 ]; then
	if ! id -u "$BS_TAP_USER" >/dev/null 2>&1; then
		log "ERROR: running as root, but there is no user $BS_TAP_USER to run the tests as (set BS_TAP_USER)"
		exit 2
	fi
	RUN_USER=$BS_TAP_USER
else
	RUN_USER=$(id -un)
fi

WORK=$(mktemp -d "$BS_TAP_TMPBASE/bs-tap.XXXXXX") || {
	log "ERROR: cannot create a temporary directory in $BS_TAP_TMPBASE"
	exit 2
}
chmod 755 "$WORK"
mkdir "$WORK/t"
for t in "${TESTS[@]}"; do cp "$TAP_DIR/$t" "$WORK/t/"; done
cp "$TAP_DIR"/*.pm "$WORK/t/" 2>/dev/null
cp "$TAP_DIR"/*.c "$WORK/t/" 2>/dev/null # C helpers the tests compile (007)
if [ "$RUN_USER" != "$(id -un)" ]; then chown -R "$RUN_USER:" "$WORK"; fi

if ! mkdir -p "$BS_TAP_LOGDIR" || [ ! -w "$BS_TAP_LOGDIR" ]; then
	log "ERROR: cannot create or write $BS_TAP_LOGDIR (set BS_TAP_LOGDIR)"
	rm -rf "$WORK"
	exit 2
fi
# the directory holds the logs of the last run only
rm -rf "${BS_TAP_LOGDIR:?}"/regress_log_* "$BS_TAP_LOGDIR"/tap-output.log "$BS_TAP_LOGDIR"/failed-*
OUT=$BS_TAP_LOGDIR/tap-output.log

# Stop every server a test left running (a test killed by the time limit does not run its
# END block), by the pid in its postmaster.pid, then remove the temporary directory.
TIMEOUT_PID=
RUN_PID=
cleanup() {
	local pidfile pid dir
	[ -z "$TIMEOUT_PID" ] && [ -s "$WORK/timeout.pid" ] && TIMEOUT_PID=$(cat "$WORK/timeout.pid")
	if [ -n "$TIMEOUT_PID" ] && kill -0 "$TIMEOUT_PID" 2>/dev/null; then
		# timeout runs in a process group of its own (prove, perl, psql): end that group
		kill -TERM -- "-$TIMEOUT_PID" 2>/dev/null || kill -TERM "$TIMEOUT_PID" 2>/dev/null
		sleep 2
		kill -KILL -- "-$TIMEOUT_PID" 2>/dev/null
	fi
	if [ -n "$RUN_PID" ]; then wait "$RUN_PID" 2>/dev/null; fi
	while IFS= read -r pidfile; do
		dir=$(dirname "$pidfile")
		pid=$(head -n 1 "$pidfile" 2>/dev/null)
		[ -n "$pid" ] || continue
		if kill -0 "$pid" 2>/dev/null && grep -qa postgres "/proc/$pid/cmdline" 2>/dev/null; then
			log "stopping the server left running in $dir (pid $pid)"
			as_run_user "$BS_PGBIN/pg_ctl" -D "$dir" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
				kill -KILL "$pid" 2>/dev/null
		fi
	done < <(find "$WORK" -name postmaster.pid 2>/dev/null)
	rm -rf "$WORK"
}

as_run_user() {
	if [ "$RUN_USER" = "$(id -un)" ]; then
		"$@"
	else
		(cd "$WORK" && runuser -u "$RUN_USER" -- "$@")
	fi
}

# shellcheck disable=SC2317  # called from the trap
on_signal() {
	trap - INT TERM HUP
	log "interrupted; stopping the tests and their servers"
	cleanup
	exit 130
}
trap on_signal INT TERM HUP

PROVE_OPTS=(--timer)
[ "$BS_TAP_VERBOSE" = 0 ] || PROVE_OPTS+=(-v)

env_cmd=(env -i
	"HOME=$WORK"
	"PATH=$BS_PGBIN:/usr/local/bin:/usr/bin:/bin"
	"PERL5LIB=$PERL_TAP_LIB:$WORK/t"
	"PG_REGRESS=$PG_REGRESS_BIN"
	"TESTDIR=$WORK"
	# where PostgreSQL::Test puts its data and logs: tmp_check/ and tmp_check/log/ by itself
	# up to 16, given by the makefiles since 17 (else log/ in the current directory)
	"TESTDATADIR=$WORK/tmp_check"
	"TESTLOGDIR=$WORK/tmp_check/log"
	"PG_TEST_TIMEOUT_DEFAULT=${PG_TEST_TIMEOUT_DEFAULT:-180}"
	"LANG=C" "LC_ALL=C"
	"TMPDIR=$WORK")
[ -n "${BS_TAP_SEED:-}" ] && env_cmd+=("BS_TAP_SEED=$BS_TAP_SEED")
PROVE_FILES=()
for t in "${TESTS[@]}"; do PROVE_FILES+=("t/$t"); done
run_cmd=("${env_cmd[@]}" prove "${PROVE_OPTS[@]}" "${PROVE_FILES[@]}")
if [ "$RUN_USER" != "$(id -un)" ]; then
	run_cmd=(runuser -u "$RUN_USER" -- "${run_cmd[@]}")
fi

log "running ${TESTS[*]} as $RUN_USER in $WORK (time limit ${BS_TAP_TIMEOUT}s, logs in $BS_TAP_LOGDIR)"
T0=$(date +%s)
# timeout gives prove and everything it starts a process group of their own and signals
# that group when the time is up; the servers (detached by pg_ctl) are stopped by cleanup.
# The pipeline runs in the background so that a signal reaches our trap at once.
(
	cd "$WORK" || exit 2
	timeout -k 20 "$BS_TAP_TIMEOUT" "${run_cmd[@]}" </dev/null &
	echo $! >"$WORK/timeout.pid"
	wait $!
	echo $? >"$WORK/rc"
) 2>&1 | tee "$OUT" &
RUN_PID=$!
wait "$RUN_PID"
RUN_PID=
RC=$(cat "$WORK/rc" 2>/dev/null || echo 2)
ELAPSED=$(($(date +%s) - T0))
if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then
	echo "[bloomsketch-tap] TIMEOUT: the TAP tests did not finish in ${BS_TAP_TIMEOUT}s; stopped" | tee -a "$OUT" >&2
	RC=124
fi

# Keep the logs.
if [ -d "$WORK/tmp_check/log" ]; then
	cp "$WORK"/tmp_check/log/regress_log_* "$BS_TAP_LOGDIR"/ 2>/dev/null
	if [ "$RC" -ne 0 ]; then
		keep=$BS_TAP_LOGDIR/failed-$(date +%Y%m%d-%H%M%S)
		mkdir -p "$keep"
		cp -r "$WORK"/tmp_check/log/. "$keep"/ 2>/dev/null
		find "$WORK/tmp_check" -maxdepth 1 -name 't_*_data' >"$keep/data-dirs.txt" 2>/dev/null
		log "server logs of the failed run kept in $keep"
	fi
fi
if [ "$(id -u)" -eq 0 ] && [ "$RUN_USER" != root ]; then chmod -R a+rX "$BS_TAP_LOGDIR" 2>/dev/null; fi

cleanup
trap - INT TERM HUP
log "done in ${ELAPSED}s, exit status $RC; output in $OUT"
exit "$RC"
