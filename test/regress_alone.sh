#!/usr/bin/env bash
#
# test/regress_alone.sh: every regression test run alone, each in a fresh database.
#
# `make installcheck` runs all of sql/NAME.sql in one database in name order, so it cannot show
# that a file needs something an earlier one made (the extension, a helper, a table).  This runs
# pg_regress once per test, in reverse name order, against a database it drops and creates anew
# each time, and compares with the same expected/NAME.out.  Prints one line per test, the
# differences of a failed one, and ends with `alone: N passed, N failed`; exits non-zero when
# one failed.
#
# Usage: bash test/regress_alone.sh [NAME...]   (default: every test of the Makefile's REGRESS)
#
# Needs a running server with bloomsketch installed, reached through the usual libpq variables
# (test/check.sh's stage `alone` runs it on the throwaway server of bs_cluster_start).  Output of
# each test goes to test/.work/alone/NAME/ (results/, regression.diffs, pg_regress.log).
# Settings: BS_PGBIN, BS_PG_CONFIG (test/lib.sh); BS_ALONE_DB, the database (bloomsketch_alone;
# dropped at the end).

set -uo pipefail

# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${BS_ALONE_DB:=bloomsketch_alone}"
PGXS_DIR=$(dirname "$("$BS_PG_CONFIG" --pgxs)") # .../lib/pgxs/src/makefiles
PG_REGRESS=${PGXS_DIR%/src/makefiles}/src/test/regress/pg_regress
[ -x "$PG_REGRESS" ] || bs_die "$PG_REGRESS not found (is postgresql-server-dev-$BS_PG_VERSION installed?)"

if [ "$#" -gt 0 ]; then
	tests=("$@")
else
	# the Makefile's REGRESS: sql/*.sql but the install scripts, here in reverse order
	tests=()
	for f in "$BS_ROOT"/sql/*.sql; do
		name=$(basename "$f" .sql)
		case $name in bloomsketch--*) continue ;; esac
		tests=("$name" "${tests[@]}")
	done
fi

work=$BS_ROOT/test/.work/alone
passed=0
failed=0
failed_names=()
t_all=$(date +%s%3N)
for name in "${tests[@]}"; do
	out=$work/$name
	rm -rf "$out"
	mkdir -p "$out" || bs_die "cannot create $out"
	t0=$(date +%s%3N)
	# without --use-existing, pg_regress drops the database and creates it from template0
	if "$PG_REGRESS" --inputdir="$BS_ROOT" --outputdir="$out" --bindir="$BS_PGBIN" \
		--dbname="$BS_ALONE_DB" "$name" >"$out/pg_regress.log" 2>&1; then
		passed=$((passed + 1))
		echo "alone: $name ok ($(($(date +%s%3N) - t0)) ms)"
	else
		failed=$((failed + 1))
		failed_names+=("$name")
		echo "alone: $name FAILED ($(($(date +%s%3N) - t0)) ms)"
		sed 's/^/    | /' "$out/pg_regress.log"
		if [ -s "$out/regression.diffs" ]; then
			echo "    ==== $out/regression.diffs (first 100 lines) ===="
			head -n 100 "$out/regression.diffs" | sed 's/^/    | /'
		fi
	fi
done
"$BS_PGBIN/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS \"$BS_ALONE_DB\"" >/dev/null ||
	bs_log "could not drop database $BS_ALONE_DB"

echo "alone: ${#tests[@]} tests in $(($(date +%s%3N) - t_all)) ms${failed_names[*]:+; failed: ${failed_names[*]}}"
echo "alone: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
