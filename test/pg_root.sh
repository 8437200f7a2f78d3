#!/usr/bin/env bash
#
# test/pg_root.sh: bloomsketch's tests against another PostgreSQL, in a Debian root of its own.
#
#   bash test/pg_root.sh prepare VERSION   make the root of VERSION (debootstrap), or bring a kept
#                                          one up to date, and install the packages the tests need
#   bash test/pg_root.sh check VERSION     copy the source tree into the root and run
#                                          test/check.sh's stages there with BS_PG_VERSION=VERSION,
#                                          against the Debian package built there (BS_INSTALL_FROM=deb)
#   bash test/pg_root.sh package VERSION DEB   copy the source tree and the package DEB (built
#                                          elsewhere) into the root, install it and run the
#                                          regression tests against it (test/package.sh installcheck)
#   bash test/pg_root.sh shell VERSION     an interactive shell in the root (for a failure)
#   bash test/pg_root.sh clean [VERSION]   remove the root of VERSION (of every version if none)
#
# Versions and the Debian they come from (Debian packages each PostgreSQL once, in one release):
#   15  Debian 12 (bookworm, with bookworm-updates and bookworm-security, as a Debian 12 machine
#       has them): only for `package`, the package of 15 built on this machine (Debian 12's own
#       PostgreSQL, which test/check.sh tests directly) installed where bloomsketch never was;
#       the root has the server, make and postgresql-server-dev-15 (pg_regress), no compiler
#       but the clang that postgresql-server-dev-15 brings
#   17  Debian 13 (trixie)
#   18  Debian unstable (sid); its Release file on the mirror can be past its Valid-Until date,
#       so apt runs there with Acquire::Check-Valid-Until=false
#
# test/check.sh runs `prepare` and `check` for 17 and 18 as its stages root17, pg17, root18, pg18,
# and `prepare 15` and `package 15` in its stages root15 and package.  No root ever sees `make
# install`: the tests of 17 and 18 run against the package that the root builds
# (dpkg-buildpackage) and installs (apt-get install ./postgresql-N-bloomsketch_*.deb), and the
# package is purged before the next run installs its own; a file of bloomsketch in PostgreSQL's
# directories that no package owns fails the install (test/package.sh install).
#
# A root is a `debootstrap --variant=minbase` tree of Debian's packages under
# test/.work/roots/pgVERSION-SUITE/, kept between runs (prepare then only runs apt-get update and
# dist-upgrade in it, and installs what is missing).  Everything that runs in it runs in new mount
# and PID namespaces (unshare): /proc, /dev/shm and a fresh /tmp are mounted there and nowhere else,
# and when the command ends, or this script is stopped in any way, the kernel ends every process
# of the root (the test servers too) and drops those mounts.  Nothing is mounted from the host
# into a root: the source tree is copied (the files git knows, else the tree without test/.work
# and build products), so removing a root can never reach the repository; removal still refuses
# while anything is mounted below it.  The test servers run as the root's postgres user.
#
# `check` prints the stage table of the run in the root and ends with `pgVERSION: N passed, N
# failed` (the root's stage table and totals); its output lines are prefixed with `pgVERSION| `.
# The logs of the run (the root's test/.work: stage logs, TAP logs, the server log of a failure)
# are copied to test/.work/pgVERSION/.  `package` prefixes its lines with `pkgVERSION| `, ends
# with `installcheck: N passed, N failed`, and copies regression.diffs, if any, to
# test/.work/pkgVERSION/.
#
# Needs root (test/check.sh calls it with sudo when it is not root), debootstrap and
# debian-archive-keyring (test/check.sh's deps stage installs them), and the Debian mirror.
# Settings (environment):
#   BS_DEBIAN_MIRROR   the mirror (http://deb.debian.org/debian)
#   BS_DEBIAN_SECURITY_MIRROR   the security mirror, for Debian 12 (http://deb.debian.org/debian-security)
#   BS_ROOTS_DIR       where the roots are kept (test/.work/roots)
#   BS_ROOT_STAGES     the stages of test/check.sh that `check` runs in the root
#                      ("deps build install unit cluster regress docs client stop tap")
#   BS_TAP_TESTS       the TAP tests its tap stage runs (all; e.g. "009" to repeat one)
#   BS_BUDGET          seconds for `check`'s run of test/check.sh in the root (900)

set -uo pipefail

# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${BS_DEBIAN_MIRROR:=http://deb.debian.org/debian}"
: "${BS_DEBIAN_SECURITY_MIRROR:=http://deb.debian.org/debian-security}"
: "${BS_ROOTS_DIR:=$BS_ROOT/test/.work/roots}"
# as the kernel shows it (mount points, the root directories of processes): no symbolic links
BS_ROOTS_DIR=$(realpath -m -- "$BS_ROOTS_DIR")
: "${BS_ROOT_STAGES:=deps build install unit cluster regress docs client stop tap}"
: "${BS_BUDGET:=900}"
BS_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# the stamp a finished root carries; a root without it (an interrupted debootstrap) is made anew
BS_ROOT_STAMP=.bloomsketch-root
# raise when a root made by an older version of this script must be made anew (2: no root has
# seen make install; those of format 1 had)
BS_ROOT_FORMAT=2
BS_IN_ROOT_SRC=/build/bloomsketch # where the source tree is copied in the root
BS_IN_ROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

usage() {
	sed -n '3,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# The Debian suite of a PostgreSQL major version; apt options it needs go to BS_SUITE_APT_CONF,
# the suites besides it to BS_SUITE_SOURCES (sources.list lines), the packages the root gets to
# BS_SUITE_PACKAGES.
bs_root_suite() {
	BS_SUITE_APT_CONF=
	BS_SUITE_SOURCES=
	# what test/check.sh's stages need in the root: lib.sh's lists for that version, but the fuzz
	# packages (the fuzz and unitsan stages run on the host only), and what building the Debian
	# package needs
	BS_SUITE_PACKAGES="postgresql-$1 postgresql-server-dev-$1 libxxhash-dev build-essential $BS_TEST_PACKAGES $BS_DEB_PACKAGES"
	case $1 in
	15)
		BS_SUITE=bookworm
		# the package built on this machine depends on the PostgreSQL 15 it was built with,
		# the one of bookworm-security
		BS_SUITE_SOURCES="deb $BS_DEBIAN_MIRROR bookworm-updates main
deb $BS_DEBIAN_SECURITY_MIRROR bookworm-security main"
		# the package and its tests only: the server, pg_regress and make
		BS_SUITE_PACKAGES="postgresql-15 postgresql-server-dev-15 make"
		;;
	17) BS_SUITE=trixie ;;
	18)
		BS_SUITE=unstable
		BS_SUITE_APT_CONF='Acquire::Check-Valid-Until "false";'
		;;
	*)
		bs_log "ERROR: no Debian root known for PostgreSQL $1 (known: 15 bookworm, 17 trixie, 18 unstable)"
		return 1
		;;
	esac
}

# ---------------------------------------------------------------------------------------------
# Running commands in a root

BS__ROOT_CHILD=

# Mount points at or below DIR, as the host sees them.
bs_root_mounts() {
	local dir=$1
	# field 5 of mountinfo is the mount point (spaces and the like octal-escaped)
	awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo
}

# Processes whose root directory is DIR or below it: what a chroot in DIR started.
bs_root_pids() {
	local dir=$1 p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case $r in "$dir" | "$dir"/*) echo "${p#/proc/}" ;; esac
	done
}

# Stop whatever still runs in DIR and unmount what is mounted below it.  With the namespaces of
# bs_root_run nothing is left there once its command ended; this is the second line of defence
# (a root used by hand, a kernel without PID namespaces).  Returns non-zero if a mount stays.
bs_root_sweep() {
	local dir=$1 pids m
	pids=$(bs_root_pids "$dir")
	if [ -n "$pids" ]; then
		bs_log "stopping processes still running in $dir: $(echo "$pids" | tr '\n' ' ')"
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null
		sleep 2
		pids=$(bs_root_pids "$dir")
		# shellcheck disable=SC2086
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
	fi
	# deepest first
	for m in $(bs_root_mounts "$dir" | sort -r); do
		bs_log "unmounting $m"
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	if [ -n "$(bs_root_mounts "$dir")" ]; then
		bs_log "ERROR: still mounted below $dir: $(bs_root_mounts "$dir" | tr '\n' ' ')"
		return 1
	fi
}

# Remove DIR (a root under BS_ROOTS_DIR), never while anything is mounted below it.
bs_root_remove() {
	local dir=$1
	case $dir in
	"$BS_ROOTS_DIR"/?*) ;;
	*)
		bs_log "ERROR: refusing to remove $dir: not a root under $BS_ROOTS_DIR"
		return 1
		;;
	esac
	[ -e "$dir" ] || return 0
	bs_root_sweep "$dir" || {
		bs_log "ERROR: not removing $dir while something is mounted below it"
		return 1
	}
	# --one-file-system: even so, never descend into another file system
	rm -rf --one-file-system -- "$dir"
}

# bs_root_run DIR [NAME=VALUE...] CMD...: run CMD in the root DIR, as root there, with a clean
# environment plus the NAME=VALUEs, in new mount and PID namespaces.  The namespace's first
# process (a shell) mounts /proc, /dev/shm and a fresh /tmp there, starts CMD and waits for it.
# When CMD ends, or unshare is stopped (unshare --kill-child), the kernel kills every process
# left in the namespace (a server too) and the mounts go with it: nothing outlives the call.
# Runs in the background so that a signal reaches our traps at once (BS_ROOT_FOREGROUND=1: in
# the foreground, for an interactive shell).  Returns CMD's status.
bs_root_run() {
	local dir=$1 rc=0
	shift
	# shellcheck disable=SC2016  # expanded by the inner shell
	local run=(unshare --mount --propagation private --pid --fork --kill-child -- /bin/sh -c '
		r=$1; shift
		mount -t proc -o nosuid,nodev,noexec proc "$r/proc" &&
			mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$r/dev/shm" &&
			mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$r/tmp" || {
			echo "[bloomsketch] ERROR: cannot mount /proc, /dev/shm and /tmp in $r" >&2
			exit 125
		}
		# (an asynchronous command would read /dev/null: give it our standard input, if any)
		{ command exec 3<&0; } 2>/dev/null || exec 3</dev/null
		chroot "$r" "$@" <&3 3<&- &
		exec 3<&-
		wait $!
	' sh "$dir" /usr/bin/env -i PATH="$BS_IN_ROOT_PATH" HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}"
		DEBIAN_FRONTEND=noninteractive "$@")
	if [ "${BS_ROOT_FOREGROUND:-0}" = 1 ]; then
		"${run[@]}"
		return
	fi
	"${run[@]}" &
	BS__ROOT_CHILD=$!
	wait "$BS__ROOT_CHILD" || rc=$?
	BS__ROOT_CHILD=
	return "$rc"
}

BS__SWEEP_DIRS=()

bs_root_on_exit() {
	local rc=$?
	set +e
	if [ -n "$BS__ROOT_CHILD" ]; then
		# when unshare ends, --kill-child ends the namespace: the kernel kills every process in it
		kill -TERM "$BS__ROOT_CHILD" 2>/dev/null
		wait "$BS__ROOT_CHILD" 2>/dev/null
		BS__ROOT_CHILD=
	fi
	local d
	for d in "${BS__SWEEP_DIRS[@]}"; do
		if [ -d "$d" ]; then bs_root_sweep "$d"; fi
	done
	return "$rc"
}

# bs_root_traps [DIR...]: on any exit, stop what runs and unmount what is mounted in the DIRs.
bs_root_traps() {
	BS__SWEEP_DIRS=("$@")
	trap bs_root_on_exit EXIT
	trap 'bs_log "interrupted by SIGINT; cleaning up"; trap - INT; exit 130' INT
	trap 'bs_log "interrupted by SIGTERM; cleaning up"; trap - TERM; exit 143' TERM
	trap 'bs_log "interrupted by SIGHUP; cleaning up"; trap - HUP; exit 129' HUP
}

# One run at a time per root: a lock held until this script exits.
bs_root_lock() {
	exec 9>"$BS_ROOTS_DIR/pg$1.lock" || return 1
	flock -n 9 || {
		bs_log "ERROR: another run uses the root of PostgreSQL $1 ($BS_ROOTS_DIR/pg$1.lock)"
		return 1
	}
}

# apt-get in the root, with the options every call needs.
bs_root_apt() {
	local dir=$1
	shift
	bs_root_run "$dir" apt-get -q -o Dpkg::Use-Pty=0 "$@" </dev/null
}

# ---------------------------------------------------------------------------------------------
# prepare

# Settings a root gets before its packages are installed.
bs_root_configure() {
	local dir=$1
	# services installed by packages are not started (postgresql-N would start its cluster)
	printf '#!/bin/sh\n# bloomsketch test root: no service starts here\nexit 101\n' >"$dir/usr/sbin/policy-rc.d" &&
		chmod 755 "$dir/usr/sbin/policy-rc.d" &&
		# no default `main` cluster: the tests make their own
		mkdir -p "$dir/etc/postgresql-common/createcluster.d" &&
		echo 'create_main_cluster = false' >"$dir/etc/postgresql-common/createcluster.d/bloomsketch.conf" &&
		# a throwaway tree: no fsync per file, no documentation
		printf '%s\n' force-unsafe-io 'path-exclude=/usr/share/doc/*' 'path-exclude=/usr/share/man/*' \
			'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*' \
			>"$dir/etc/dpkg/dpkg.cfg.d/bloomsketch" &&
		{
			echo 'APT::Install-Recommends "false";'
			echo 'APT::Install-Suggests "false";'
			echo 'Acquire::Languages "none";'
			if [ -n "$BS_SUITE_APT_CONF" ]; then echo "$BS_SUITE_APT_CONF"; fi
		} >"$dir/etc/apt/apt.conf.d/90bloomsketch" &&
		if [ -n "$BS_SUITE_SOURCES" ]; then
			printf '%s\n' "$BS_SUITE_SOURCES" >"$dir/etc/apt/sources.list.d/bloomsketch.list"
		fi &&
		cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null
	return 0
}

bs_root_prepare() {
	local version=$1 dir new pkgs t0 rc=0
	bs_root_suite "$version" || return 1
	dir=$BS_ROOTS_DIR/pg$version-$BS_SUITE
	new=$dir.new
	pkgs=$BS_SUITE_PACKAGES
	mkdir -p "$BS_ROOTS_DIR" || return 1
	bs_root_lock "$version" || return 1
	bs_root_traps "$dir" "$new"
	for d in "$dir" "$new"; do
		bs_root_sweep "$d" || return 1
	done

	if [ -f "$dir/$BS_ROOT_STAMP" ] && grep -qx "format=$BS_ROOT_FORMAT suite=$BS_SUITE" "$dir/$BS_ROOT_STAMP"; then
		bs_log "PostgreSQL $version: using the kept root $dir (made $(stat -c %y "$dir/$BS_ROOT_STAMP" | cut -d. -f1))"
		bs_root_configure "$dir"
		t0=$(date +%s)
		if bs_root_apt "$dir" update && bs_root_apt "$dir" -y dist-upgrade; then
			bs_log "PostgreSQL $version: root brought up to date in $(($(date +%s) - t0)) s"
		else
			bs_log "WARNING: PostgreSQL $version: could not update the kept root; testing it as it is"
		fi
	else
		[ -e "$dir" ] && bs_log "PostgreSQL $version: $dir is unfinished or of another kind; making it anew"
		bs_root_remove "$dir" && bs_root_remove "$new" || return 1
		command -v debootstrap >/dev/null 2>&1 || {
			bs_log "ERROR: debootstrap is missing (Debian: debootstrap)"
			return 1
		}
		[ -f "$BS_KEYRING" ] || {
			bs_log "ERROR: $BS_KEYRING is missing (Debian: debian-archive-keyring)"
			return 1
		}
		bs_log "PostgreSQL $version: debootstrap --variant=minbase $BS_SUITE $new $BS_DEBIAN_MIRROR"
		t0=$(date +%s)
		# in its own mount and PID namespaces too: the /proc and /sys it mounts in the new tree
		# while it configures the base system cannot outlive it
		unshare --mount --propagation private --pid --fork --kill-child -- \
			debootstrap --variant=minbase --keyring="$BS_KEYRING" "$BS_SUITE" "$new" "$BS_DEBIAN_MIRROR" \
			>"$BS_ROOTS_DIR/debootstrap-pg$version.log" 2>&1 &
		BS__ROOT_CHILD=$!
		wait "$BS__ROOT_CHILD" || rc=$?
		BS__ROOT_CHILD=
		if [ "$rc" -ne 0 ]; then
			bs_log "ERROR: debootstrap failed (exit $rc); the end of $BS_ROOTS_DIR/debootstrap-pg$version.log:"
			tail -n 20 "$BS_ROOTS_DIR/debootstrap-pg$version.log" | sed 's/^/    | /' >&2
			return 1
		fi
		bs_log "PostgreSQL $version: base system in $(($(date +%s) - t0)) s"
		bs_root_sweep "$new" || return 1
		bs_root_configure "$new"
		mv -T "$new" "$dir" || return 1
		bs_root_apt "$dir" update || return 1
	fi

	t0=$(date +%s)
	bs_log "PostgreSQL $version: apt-get install $pkgs"
	# shellcheck disable=SC2086
	bs_root_apt "$dir" -y install $pkgs || {
		bs_log "ERROR: apt-get install failed in $dir"
		return 1
	}
	echo "format=$BS_ROOT_FORMAT suite=$BS_SUITE" >"$dir/$BS_ROOT_STAMP"
	bs_root_apt "$dir" clean
	# shellcheck disable=SC2016  # dpkg-query's format
	bs_log "PostgreSQL $version: packages in $(($(date +%s) - t0)) s: $(bs_root_run "$dir" \
		dpkg-query -W -f '${Package} ${Version}\n' "postgresql-$version" gcc 2>/dev/null | tr '\n' ' ')"
}

# ---------------------------------------------------------------------------------------------
# check

bs_root_check() {
	local version=$1 dir logs rc=0 line
	bs_root_suite "$version" || return 1
	dir=$BS_ROOTS_DIR/pg$version-$BS_SUITE
	logs=$BS_ROOT/test/.work/pg$version
	if [ ! -f "$dir/$BS_ROOT_STAMP" ]; then
		bs_log "ERROR: no root for PostgreSQL $version in $dir (bash test/pg_root.sh prepare $version)"
		return 1
	fi
	bs_root_lock "$version" || return 1
	bs_root_traps "$dir"
	bs_root_sweep "$dir" || return 1

	# a fresh copy of the tree, and no logs of an earlier run
	rm -rf --one-file-system -- "${dir:?}/build" "$logs"
	bs_copy_tree "$dir$BS_IN_ROOT_SRC" || {
		bs_log "ERROR: cannot copy the source tree into $dir$BS_IN_ROOT_SRC"
		return 1
	}

	bs_log "PostgreSQL $version ($BS_SUITE root $dir): test/check.sh stages: $BS_ROOT_STAGES"
	# the root's output, each line marked with the version
	bs_root_run "$dir" BS_PG_VERSION="$version" BS_BUDGET="$BS_BUDGET" CI="${CI:-}" BS_INSTALL_FROM=deb \
		BS_CHECK_STAGES="$BS_ROOT_STAGES" BS_TAP_TESTS="${BS_TAP_TESTS:-}" bash "$BS_IN_ROOT_SRC/test/check.sh" \
		> >(sed -u "s/^/pg$version| /") 2>&1 || rc=$?
	# let sed finish its last lines
	wait

	# the logs of the run, out of the root
	mkdir -p "$logs" &&
		if [ -d "$dir$BS_IN_ROOT_SRC/test/.work" ]; then cp -a "$dir$BS_IN_ROOT_SRC/test/.work/." "$logs/"; fi &&
		for f in regression.diffs regression.out; do
			if [ -f "$dir$BS_IN_ROOT_SRC/$f" ]; then cp "$dir$BS_IN_ROOT_SRC/$f" "$logs/"; fi
		done
	if [ -n "${SUDO_UID:-}" ]; then chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$logs" 2>/dev/null; fi
	rm -rf --one-file-system -- "${dir:?}/build"

	# the totals of the run in the root: its last line `N passed, N failed`
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/check/summary.txt" 2>/dev/null | tail -n 1)
	if [ -z "$line" ]; then
		bs_log "PostgreSQL $version: the run in the root printed no totals (exit $rc)"
		[ "$rc" -ne 0 ] || rc=1
		line="0 passed, 1 failed"
	fi
	echo "pg$version: logs in $logs"
	echo "pg$version: $line"
	return "$rc"
}

# ---------------------------------------------------------------------------------------------
# package

bs_root_package() {
	local version=$1 deb=$2 dir logs rc=0 line
	bs_root_suite "$version" || return 1
	dir=$BS_ROOTS_DIR/pg$version-$BS_SUITE
	logs=$BS_ROOT/test/.work/pkg$version
	[ -f "$deb" ] || {
		bs_log "ERROR: no package $deb"
		return 1
	}
	if [ ! -f "$dir/$BS_ROOT_STAMP" ]; then
		bs_log "ERROR: no root for PostgreSQL $version in $dir (bash test/pg_root.sh prepare $version)"
		return 1
	fi
	bs_root_lock "$version" || return 1
	bs_root_traps "$dir"
	bs_root_sweep "$dir" || return 1

	# a fresh copy of the tree (never built) and the package
	rm -rf --one-file-system -- "${dir:?}/build" "$logs"
	bs_copy_tree "$dir$BS_IN_ROOT_SRC" && mkdir -p "$dir/build/debs" && cp "$deb" "$dir/build/debs/" || {
		bs_log "ERROR: cannot copy the source tree and $deb into $dir/build"
		return 1
	}
	bs_log "PostgreSQL $version ($BS_SUITE root $dir): the package $(basename "$deb"), installed and tested"
	bs_root_run "$dir" BS_PG_VERSION="$version" CI="${CI:-}" \
		bash "$BS_IN_ROOT_SRC/test/package.sh" installcheck "/build/debs/$(basename "$deb")" \
		> >(tee "$dir/build/package.out" | sed -u "s/^/pkg$version| /") 2>&1 || rc=$?
	wait
	mkdir -p "$logs" && cp "$dir/build/package.out" "$logs/" 2>/dev/null
	for f in regression.diffs regression.out; do
		if [ -f "$dir$BS_IN_ROOT_SRC/$f" ]; then cp "$dir$BS_IN_ROOT_SRC/$f" "$logs/"; fi
	done
	if [ -n "${SUDO_UID:-}" ]; then chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$logs" 2>/dev/null; fi
	line=$(grep -E '^installcheck: [0-9]+ passed, [0-9]+ failed$' "$logs/package.out" 2>/dev/null | tail -n 1)
	rm -rf --one-file-system -- "${dir:?}/build"
	if [ -z "$line" ]; then
		bs_log "PostgreSQL $version: the package test in the root printed no totals (exit $rc)"
		[ "$rc" -ne 0 ] || rc=1
		line="installcheck: 0 passed, 1 failed"
	fi
	echo "pkg$version: logs in $logs"
	echo "$line"
	return "$rc"
}

# ---------------------------------------------------------------------------------------------

[ "$#" -ge 1 ] || usage
cmd=$1
shift
if ! bs_is_root; then
	bs_log "ERROR: test/pg_root.sh needs root (debootstrap, chroot, mounts): run it with sudo"
	exit 1
fi
case $cmd in
prepare | check | shell)
	[ "$#" -eq 1 ] || usage
	bs_require_int VERSION "$1" 1
	;;
package)
	[ "$#" -eq 2 ] || usage
	bs_require_int VERSION "$1" 1
	;;
esac
case $cmd in
prepare) bs_root_prepare "$1" ;;
check) bs_root_check "$1" ;;
package) bs_root_package "$1" "$(realpath -- "$2")" ;;
shell)
	bs_root_suite "$1" || exit 1
	dir=$BS_ROOTS_DIR/pg$1-$BS_SUITE
	[ -f "$dir/$BS_ROOT_STAMP" ] || bs_die "no root for PostgreSQL $1 in $dir"
	bs_root_lock "$1" || exit 1
	bs_root_traps "$dir"
	bs_log "a shell in $dir (the tree of the last check is gone; copy it in, or run check first)"
	BS_ROOT_FOREGROUND=1 bs_root_run "$dir" BS_PG_VERSION="$1" bash -l
	;;
clean)
	bs_root_traps
	if [ "$#" -eq 0 ]; then
		for d in "$BS_ROOTS_DIR"/pg*-*; do
			[ -d "$d" ] || continue
			bs_log "removing $d"
			bs_root_remove "$d" || exit 1
		done
	else
		for v in "$@"; do
			bs_root_suite "$v" || exit 1
			bs_log "removing $BS_ROOTS_DIR/pg$v-$BS_SUITE"
			bs_root_remove "$BS_ROOTS_DIR/pg$v-$BS_SUITE" || exit 1
		done
	fi
	;;
*) usage ;;
esac
