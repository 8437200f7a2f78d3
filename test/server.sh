#!/usr/bin/env bash
#
# test/server.sh: a throwaway PostgreSQL server with bloomsketch installed, for running one test
# (or psql) by hand.
#
#   bash test/server.sh                         build, install, start; print how to connect;
#                                               wait (Ctrl-C stops the server and removes it)
#   bash test/server.sh -- COMMAND [ARG...]     the same, then run COMMAND with the connection
#                                               in its environment, stop, and exit with its status
#   bash test/server.sh --no-install ...        skip make and make install (already installed)
#
# For example, one regression file, alone in a fresh database, or through pg_regress as the
# test command runs the whole suite:
#
#   bash test/server.sh -- bash test/regress_alone.sh bloom_growable
#   bash test/server.sh -- make installcheck REGRESS=bloom_growable
#
# (A TAP test starts its own servers: `bash test/tap/run.sh 003` runs one; see test/tap/run.sh.)
# The server is the one of the test command (test/lib.sh's bs_cluster_start: initdb in a
# temporary directory, a free port, a unix socket only, fsync off), run as the postgres OS user
# when this runs as root.  Settings: BS_PG_VERSION, BS_PGBIN, BS_PG_CONFIG (test/lib.sh).

set -uo pipefail

# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

install=1
while [ "$#" -gt 0 ]; do
	case $1 in
	--no-install) install=0 ;;
	--) shift; break ;;
	-h | --help)
		sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) bs_die "unknown argument '$1' (bash test/server.sh [--no-install] [-- COMMAND...])" ;;
	esac
	shift
done

if [ "$install" = 1 ]; then
	bs_install_deps $BS_TEST_PACKAGES || exit 1
	make -C "$BS_ROOT" -s -j"$(nproc)" PG_CONFIG="$BS_PG_CONFIG" || exit 1
	bs_install >/dev/null || exit 1
fi
bs_cluster_start || exit 1
"$BS_PGBIN/psql" -X -q -c 'CREATE EXTENSION bloomsketch' || exit 1

if [ "$#" -gt 0 ]; then
	rc=0
	"$@" || rc=$?
	bs_cluster_stop
	exit "$rc"
fi

cat <<EOF

A throwaway server with bloomsketch $("$BS_PGBIN/psql" -X -At -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomsketch'") (database postgres) is up.  In another shell:

  export PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=$PGUSER PGDATABASE=postgres
  psql                                        # or:
  bash test/regress_alone.sh bloom_growable   # one regression file, alone
  make installcheck REGRESS=bloom_growable    # the same through pg_regress

Ctrl-C stops the server and removes it (log: $BS_PGLOG).
EOF
# wait for a signal; lib.sh's trap stops the server on the way out
while :; do sleep 3600 & wait $!; done
