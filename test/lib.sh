# shellcheck shell=bash
#
# test/lib.sh: shared helpers of test/demo.sh and test/check.sh (source it, do not run it).
#
#   bs_install_deps [PKG...]  apt-get install the Debian packages that are missing (sudo when not
#                       root): BS_PACKAGES (build and server), the PKGs, BS_EXTRA_PACKAGES
#   bs_build            make WERROR=1, as the invoking user
#   bs_install          make install, as root (sudo when not root); with BS_INSTALL_FROM=deb,
#                       apt-get install of the Debian package postgresql-N-bloomsketch that
#                       bs_build_deb made (made first if it is not there: test/package.sh install)
#   bs_build_deb        the Debian package, built from the tree (test/package.sh build) into
#                       test/.work/deb/, with WERROR=1: the compiler's warnings fail it
#   bs_build_install    both
#   bs_copy_tree DEST   copy the source tree (the files git knows of) to DEST
#   bs_cluster_start    initdb + start a throwaway PostgreSQL server (BS_PG_VERSION) in a fresh temp dir, on a
#                       free port, unix socket only, trust auth, run by an unprivileged OS user;
#                       exports PGHOST PGPORT PGUSER PGDATABASE (and puts its bin dir first in PATH)
#   bs_cluster_stop     stop it and remove the temp dir ([--keep-log] copies the server log first)
#   bs_run LOG SECS CMD...   run CMD with a time limit, output to the terminal and appended to LOG
#   bs_install_trap     the cleanup traps (installed by bs_cluster_start; earlier if bs_run is used)
#
# Once bs_cluster_start has run, a trap stops the server and removes its directory on any exit,
# error, Ctrl-C or TERM, so nothing is left running.
#
# The functions return non-zero on failure instead of relying on `set -e`, so they also behave in
# `if`/`||` contexts (test/check.sh runs its stages that way).
#
# Settings (environment):
#   BS_PG_VERSION       the PostgreSQL major version to build for and test with (15, Debian 12's;
#                       any other that Debian packages as postgresql-N works the same way: test/check.sh
#                       runs these scripts with 17 and 18 in Debian roots, test/pg_root.sh)
#   BS_PGBIN, BS_PG_CONFIG  its bin directory and pg_config (/usr/lib/postgresql/N/bin)
#   BS_EXTRA_PACKAGES   more Debian packages, space-separated (for example clang for the fuzzers)
#   BS_PORT_START       first port probed by bs_cluster_start (54329)
#   BS_TMPBASE          where the cluster's temp dir goes (/tmp; keep it short: the socket path
#                       must stay under 108 bytes)
#   BS_SERVER_SETTINGS  extra postgresql.conf lines for the test cluster (newline-separated)
#   BS_MAKE_JOBS        parallel make jobs for the build (number of CPUs)
#   BS_INSTALL_FROM     make (make install, the default) or deb (the Debian package, built from
#                       the tree: the roots of test/pg_root.sh test PostgreSQL 17 and 18 that way)
#   BS_AT_EXIT          a command the exit trap evals after stopping the server (a script's own
#                       cleanup, e.g. test/bench/run.sh giving back the huge pages it reserved)

BS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${BS_PG_VERSION:=15}"
bs_require_pg_version() {
	case $BS_PG_VERSION in
	'' | *[!0-9]*) printf '%s\n' "[bloomsketch] ERROR: BS_PG_VERSION must be a major version such as 15, got '$BS_PG_VERSION'" >&2; exit 1 ;;
	esac
}
bs_require_pg_version

# Debian packages, in three lists (space-separated):
# - BS_PACKAGES: what building the extension and running a server with it need (test/demo.sh
#   installs only these).  postgresql-server-dev-N itself depends on clang and llvm-dev (PGXS
#   compiles the LLVM bitcode for the JIT with them), so those come with it in any case.
# - BS_TEST_PACKAGES: what test/check.sh's server stages need besides: IPC::Run for the TAP tests,
#   psycopg2 and xxhash for the Python reference client (test/client/).
# - BS_FUZZ_PACKAGES: what only the unitsan and fuzz stages of test/check.sh need: libFuzzer and
#   the sanitizer runtimes (libclang-rt-14-dev) of clang-14, llvm-14's symbolizer for readable
#   sanitizer reports.  Debian 12's clang-14, whatever BS_PG_VERSION is.
BS_PACKAGES="postgresql-$BS_PG_VERSION postgresql-server-dev-$BS_PG_VERSION libxxhash-dev build-essential"
# shellcheck disable=SC2034  # used by test/check.sh and test/pg_root.sh
BS_TEST_PACKAGES="libipc-run-perl python3 python3-psycopg2 python3-xxhash"
# shellcheck disable=SC2034  # used by test/check.sh
BS_FUZZ_PACKAGES="clang-14 libclang-rt-14-dev llvm-14"
# - BS_DEB_PACKAGES: what building the Debian package needs besides BS_PACKAGES (debian/control's
#   Build-Depends: pg_buildext and dh's pgxs sequences are in postgresql-server-dev-all, and the
#   build's check, a smoke test in a throwaway cluster of each supported version, wants
#   postgresql-all, Debian's way of naming those servers).
BS_DEB_PACKAGES="debhelper postgresql-server-dev-all postgresql-all"
# Extra Debian packages go here (one variable, space-separated), e.g. "gnuplot-nox" for the plots.
: "${BS_EXTRA_PACKAGES:=}"

: "${BS_PGBIN:=/usr/lib/postgresql/$BS_PG_VERSION/bin}"
: "${BS_PG_CONFIG:=$BS_PGBIN/pg_config}"
: "${BS_PORT_START:=54329}"
: "${BS_TMPBASE:=/tmp}"
: "${BS_SERVER_SETTINGS:=}"
: "${BS_AT_EXIT:=}"

bs_log() { printf '%s\n' "[bloomsketch] $*" >&2; }
bs_die() { bs_log "ERROR: $*"; exit 1; }

# A whole-number setting of at least MIN, or bs_die naming it.
bs_require_int() { # NAME VALUE MIN
	case $2 in
	'' | *[!0-9]*) bs_die "$1 must be a whole number, got '$2'" ;;
	esac
	[ "$2" -ge "$3" ] || bs_die "$1 must be at least $3, got $2"
}

bs_is_root() { [ "$(id -u)" -eq 0 ]; }

# Run a command as root: directly when we are root, else with sudo.
bs_sudo() {
	if bs_is_root; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		bs_log "ERROR: need root for: $* (run as root, or install and configure sudo)"
		return 1
	fi
}

# ---------------------------------------------------------------------------------------------
# Dependencies

bs__pkg_installed() {
	dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed$'
}

# bs_install_deps [PKG...]: BS_PACKAGES, the PKGs and BS_EXTRA_PACKAGES, those that are missing.
bs_install_deps() {
	local pkg missing=()
	# shellcheck disable=SC2086  # word splitting of the package lists is intended
	for pkg in $BS_PACKAGES "$@" $BS_EXTRA_PACKAGES; do
		bs__pkg_installed "$pkg" || missing+=("$pkg")
	done
	if [ "${#missing[@]}" -eq 0 ]; then
		bs_log "Debian packages: all present"
		return 0
	fi
	bs_log "Debian packages: installing ${missing[*]}"
	local apt_opts=(-y -q -o Dpkg::Use-Pty=0 --no-install-recommends)
	bs_sudo env DEBIAN_FRONTEND=noninteractive apt-get -q update </dev/null || {
		bs_log "ERROR: apt-get update failed"
		return 1
	}
	bs_sudo env DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" "${missing[@]}" </dev/null || {
		bs_log "ERROR: apt-get install ${missing[*]} failed"
		return 1
	}
	for pkg in "${missing[@]}"; do
		bs__pkg_installed "$pkg" || {
			bs_log "ERROR: package $pkg is still not installed"
			return 1
		}
	done
}

# ---------------------------------------------------------------------------------------------
# Build

bs_build() {
	bs_log "make WERROR=1 (as $(id -un))"
	(cd "$BS_ROOT" && make -j"${BS_MAKE_JOBS:-$(nproc)}" WERROR=1 PG_CONFIG="$BS_PG_CONFIG")
}

bs_install() {
	case ${BS_INSTALL_FROM:-make} in
	make)
		bs_log "make install (as root)"
		(cd "$BS_ROOT" && bs_sudo make install WERROR=1 PG_CONFIG="$BS_PG_CONFIG")
		;;
	deb)
		local debs
		debs=("$BS_DEB_DIR"/postgresql-"$BS_PG_VERSION"-bloomsketch_*.deb)
		if [ ! -f "${debs[0]}" ]; then
			bs_build_deb || return 1
			debs=("$BS_DEB_DIR"/postgresql-"$BS_PG_VERSION"-bloomsketch_*.deb)
		fi
		bs_log "apt-get install ./$(basename "${debs[0]}") (BS_INSTALL_FROM=deb)"
		bs_sudo bash "$BS_ROOT/test/package.sh" install "${debs[0]}"
		;;
	*)
		bs_log "ERROR: BS_INSTALL_FROM must be make or deb, got '$BS_INSTALL_FROM'"
		return 1
		;;
	esac
}

bs_build_install() {
	bs_build && bs_install
}

# The Debian package of BS_PG_VERSION, in BS_DEB_DIR.
BS_DEB_DIR=$BS_ROOT/test/.work/deb
bs_build_deb() {
	bs_log "the Debian package postgresql-$BS_PG_VERSION-bloomsketch, with WERROR=1 (test/package.sh build)"
	WERROR=1 bash "$BS_ROOT/test/package.sh" build "$BS_DEB_DIR"
}

# Copy the source tree to DEST: the files git knows of (tracked, and untracked but not ignored),
# else everything but test/.work and build products.
bs_copy_tree() {
	local dest=$1
	mkdir -p "$dest" || return 1
	if command -v git >/dev/null 2>&1 && git -C "$BS_ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$BS_ROOT" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$dest"
	else
		(cd "$BS_ROOT" && tar --exclude=./test/.work --exclude=./.git --exclude='*.o' --exclude='*.so' \
			--exclude='*.bc' --exclude=./results --exclude=./test/fuzz/bin -cf - .) | tar -xf - -C "$dest"
	fi
}

# ---------------------------------------------------------------------------------------------
# Running commands with a time limit

BS__CHILD=

# bs_run LOG SECS CMD...: run CMD (a program, not a shell function) with its stdout and stderr
# shown and appended to LOG; kill its whole process tree after SECS seconds.  Returns CMD's status
# (124 on timeout).  It waits with the `wait` builtin so that Ctrl-C reaches our trap at once.
bs_run() {
	local log=$1 secs=$2 rc=0
	shift 2
	# timeout puts itself and CMD in a process group of their own and, on expiry, signals the
	# whole group (make, pg_regress, psql, tee).  tee runs inside it too, so nothing outlives it.
	# shellcheck disable=SC2016  # expanded by the inner bash
	BS_RUN_LOG=$log timeout -k 15 "$secs" bash -c 'set -o pipefail; "$@" 2>&1 | tee -a "$BS_RUN_LOG"' bash "$@" &
	BS__CHILD=$!
	wait "$BS__CHILD" || rc=$?
	BS__CHILD=
	if [ "$rc" -eq 124 ]; then
		printf '%s\n' "[bloomsketch] TIMEOUT: '$*' did not finish in ${secs}s; killed" | tee -a "$log" >&2
	fi
	return "$rc"
}

# ---------------------------------------------------------------------------------------------
# The throwaway cluster

BS_CLUSTER_DIR=
BS_PGDATA=
BS_PGLOG=
BS_SERVER_USER=
BS_SERVER_VERSION=
BS__TRAP_SET=

# The OS user that runs the server: ourselves when not root; as root the postgres user that
# postgresql-N creates (or a dedicated system user if it does not exist).
bs__pick_server_user() {
	if ! bs_is_root; then
		BS_SERVER_USER=$(id -un)
		return 0
	fi
	if id -u postgres >/dev/null 2>&1; then
		BS_SERVER_USER=postgres
		return 0
	fi
	if ! id -u bloomsketch >/dev/null 2>&1; then
		bs_log "creating system user bloomsketch to run the test server"
		useradd --system --user-group --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin bloomsketch || return 1
	fi
	BS_SERVER_USER=bloomsketch
}

# Run a program as the server user (from / so that an unreadable cwd does not matter).
bs_as_server() {
	if ! bs_is_root; then
		"$@"
	elif command -v runuser >/dev/null 2>&1; then
		(cd / && runuser -u "$BS_SERVER_USER" -- "$@")
	else
		local cmd
		printf -v cmd '%q ' "$@"
		(cd / && su -s /bin/sh "$BS_SERVER_USER" -c "$cmd")
	fi
}

bs__port_in_use() {
	local port=$1 d
	# the usual socket directories, and those of other throwaway clusters of ours
	for d in /tmp /var/run/postgresql /run/postgresql "$BS_TMPBASE"/bloomsketch.*; do
		if [ -e "$d/.s.PGSQL.$port" ] || [ -e "$d/.s.PGSQL.$port.lock" ]; then
			return 0
		fi
	done
	if command -v ss >/dev/null 2>&1 && [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; then
		return 0
	fi
	# something accepts connections there
	if timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
		return 0
	fi
	return 1
}

bs_free_port() {
	local port=$BS_PORT_START i
	for ((i = 0; i < 200; i++)); do
		if ! bs__port_in_use "$port"; then
			echo "$port"
			return 0
		fi
		port=$((port + 1))
	done
	bs_log "ERROR: no free port in $BS_PORT_START..$((BS_PORT_START + 199))"
	return 1
}

# Print the last lines of the server log.
bs_show_server_log() {
	local lines=${1:-40}
	if [ -n "$BS_PGLOG" ] && [ -f "$BS_PGLOG" ]; then
		bs_log "last $lines lines of the server log:"
		tail -n "$lines" "$BS_PGLOG" | sed 's/^/    | /' >&2
	fi
}

# Copy the server log out of the temp dir (which is about to be removed); prints the copy's path.
bs__keep_log() {
	[ -n "$BS_PGLOG" ] && [ -f "$BS_PGLOG" ] || return 0
	local dir=$BS_ROOT/test/.work dest
	if mkdir -p "$dir" 2>/dev/null && [ -w "$dir" ]; then
		dest=$dir/postgres-$(date +%Y%m%d-%H%M%S).log
	else
		dest=$(mktemp "${TMPDIR:-/tmp}/bloomsketch-postgres.XXXXXX.log") || return 0
	fi
	if cp "$BS_PGLOG" "$dest" 2>/dev/null; then
		chmod 644 "$dest" 2>/dev/null
		bs_log "server log kept in $dest"
	fi
}

bs__on_exit() {
	local rc=$?
	set +e # we are leaving anyway: clean up as much as possible
	if [ -n "$BS__CHILD" ]; then
		kill -TERM "$BS__CHILD" 2>/dev/null
		wait "$BS__CHILD" 2>/dev/null
		BS__CHILD=
	fi
	if [ -n "$BS_CLUSTER_DIR" ]; then
		if [ "$rc" -ne 0 ]; then
			bs__keep_log
			bs_show_server_log 20
		fi
		bs__cluster_teardown immediate
	fi
	# a script's own last step (after the server is gone), e.g. giving back huge pages
	if [ -n "$BS_AT_EXIT" ]; then
		eval "$BS_AT_EXIT"
		BS_AT_EXIT=
	fi
	return "$rc"
}

bs__on_signal() {
	bs_log "interrupted by SIG$1; cleaning up"
	trap - "$1"
	case $1 in
	INT) exit 130 ;;
	HUP) exit 129 ;;
	*) exit 143 ;;
	esac
}

# Install the EXIT/INT/TERM/HUP traps (bs_cluster_start does it too; call it early when
# bs_run is used before the cluster starts).
bs_install_trap() {
	[ -n "$BS__TRAP_SET" ] && return 0
	trap bs__on_exit EXIT
	trap 'bs__on_signal INT' INT
	trap 'bs__on_signal TERM' TERM
	trap 'bs__on_signal HUP' HUP
	BS__TRAP_SET=1
}

bs_cluster_start() {
	if [ -n "$BS_CLUSTER_DIR" ]; then
		bs_log "ERROR: a test cluster is already running in $BS_CLUSTER_DIR"
		return 1
	fi
	if ! bs__cluster_start; then
		if [ -n "$BS_CLUSTER_DIR" ]; then bs__keep_log; fi
		bs__cluster_teardown immediate
		return 1
	fi
}

bs__cluster_start() {
	if [ ! -x "$BS_PGBIN/initdb" ] || [ ! -x "$BS_PGBIN/pg_ctl" ]; then
		bs_log "ERROR: $BS_PGBIN/initdb not found: is postgresql-$BS_PG_VERSION installed?"
		return 1
	fi
	bs_install_trap
	bs__pick_server_user || return 1

	local port
	port=$(bs_free_port) || return 1
	BS_CLUSTER_DIR=$(mktemp -d "$BS_TMPBASE/bloomsketch.XXXXXX") || {
		BS_CLUSTER_DIR=
		return 1
	}
	if [ "${#BS_CLUSTER_DIR}" -gt 90 ]; then
		bs_log "ERROR: $BS_CLUSTER_DIR is too long for a unix socket path; set BS_TMPBASE"
		return 1
	fi
	chmod 700 "$BS_CLUSTER_DIR"
	if bs_is_root; then
		chown "$BS_SERVER_USER:" "$BS_CLUSTER_DIR" || return 1
	fi
	BS_PGDATA=$BS_CLUSTER_DIR/data
	BS_PGLOG=$BS_CLUSTER_DIR/postgres.log

	bs_log "initdb in $BS_PGDATA (server user $BS_SERVER_USER)"
	if ! bs_as_server "$BS_PGBIN/initdb" -D "$BS_PGDATA" --username="$BS_SERVER_USER" \
		--auth=trust --encoding=UTF8 --locale=C --no-sync >"$BS_CLUSTER_DIR/initdb.log" 2>&1; then
		bs_log "ERROR: initdb failed:"
		sed 's/^/    | /' "$BS_CLUSTER_DIR/initdb.log" >&2
		return 1
	fi

	# The settings go into postgresql.conf (same as -c on the command line, and visible there).
	{
		echo
		echo "# --- bloomsketch throwaway test cluster (test/lib.sh) ---"
		echo "port = $port"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$BS_CLUSTER_DIR'"
		echo "max_worker_processes = 8"
		echo "max_parallel_workers = 4"
		echo "max_parallel_workers_per_gather = 2"
		echo "shared_buffers = 256MB"
		echo "fsync = off"
		echo "synchronous_commit = off"
		echo "full_page_writes = off"
		echo "lc_messages = 'C'"
		if [ -n "$BS_SERVER_SETTINGS" ]; then printf '%s\n' "$BS_SERVER_SETTINGS"; fi
	} >>"$BS_PGDATA/postgresql.conf" || {
		bs_log "ERROR: cannot write $BS_PGDATA/postgresql.conf"
		return 1
	}

	bs_log "starting the server on port $port, socket in $BS_CLUSTER_DIR"
	if ! bs_as_server "$BS_PGBIN/pg_ctl" -D "$BS_PGDATA" -l "$BS_PGLOG" -w -t 60 -s start; then
		bs_log "ERROR: the server did not start (log: $BS_PGLOG)"
		bs_show_server_log 40
		return 1
	fi

	export PGHOST=$BS_CLUSTER_DIR PGPORT=$port PGUSER=$BS_SERVER_USER PGDATABASE=postgres
	unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGPASSWORD PGPASSFILE PGOPTIONS PGSSLMODE PGTARGETSESSIONATTRS
	export PATH="$BS_PGBIN:$PATH"

	local version
	if ! version=$("$BS_PGBIN/psql" -X -At -c 'SELECT version()' 2>&1); then
		bs_log "ERROR: cannot connect to the new server: $version (log: $BS_PGLOG)"
		bs_show_server_log 40
		return 1
	fi
	# shellcheck disable=SC2034  # read by test/check.sh
	BS_SERVER_VERSION=$version
	bs_log "server up: $version"
	bs_log "connect with: PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=$PGUSER psql"
}

# Stop the server (mode: fast or immediate) and remove the temp dir.
bs__cluster_teardown() {
	local mode=${1:-fast} rc=0 pid
	[ -n "$BS_CLUSTER_DIR" ] || return 0
	if [ -f "$BS_PGDATA/postmaster.pid" ]; then
		if ! bs_as_server "$BS_PGBIN/pg_ctl" -D "$BS_PGDATA" -m "$mode" -w -t 60 -s stop >/dev/null 2>&1; then
			pid=$(head -n 1 "$BS_PGDATA/postmaster.pid" 2>/dev/null)
			if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
				bs_log "pg_ctl stop failed; killing postmaster $pid"
				kill -KILL "$pid" 2>/dev/null || true
				sleep 1
			fi
			rc=1
		fi
	fi
	rm -rf "$BS_CLUSTER_DIR"
	BS_CLUSTER_DIR=
	BS_PGDATA=
	BS_PGLOG=
	unset PGHOST PGPORT PGUSER PGDATABASE
	return "$rc"
}

# bs_cluster_stop [--keep-log]
# shellcheck disable=SC2120  # the argument is optional
bs_cluster_stop() {
	[ -n "$BS_CLUSTER_DIR" ] || return 0
	[ "${1:-}" = --keep-log ] && bs__keep_log
	bs_log "stopping the server and removing $BS_CLUSTER_DIR"
	bs__cluster_teardown fast
}
