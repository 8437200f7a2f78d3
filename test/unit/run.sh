#!/usr/bin/env bash
# Run the C unit test binaries of src/core and sum their results.
#
#   bash test/unit/run.sh test/unit/A_test test/unit/B_test ...
#
# Each binary prints "ok - ..." / "not ok - ..." lines and ends with
# "NAME: N passed, N failed".  This script shows that output, adds up the
# counts and ends with "unit: N passed, N failed".  It exits non-zero if a
# check failed, if a binary exited non-zero, crashed (the signal is reported)
# or did not print its summary line.

set -u

if [ "$#" -eq 0 ]; then
	echo "usage: $0 test-binary..." >&2
	exit 2
fi

passed=0
failed=0
broken=0

for bin in "$@"; do
	name=$(basename "$bin")
	name=${name%_test}
	if [ ! -x "$bin" ]; then
		echo "not ok - $name: $bin is missing or not executable"
		failed=$((failed + 1))
		broken=1
		continue
	fi
	out=$(mktemp)
	start=$SECONDS
	"$bin" >"$out" 2>&1
	rc=$?
	cat "$out"
	summary=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed\$" "$out" | tail -n 1)
	rm -f "$out"
	if [ -n "$summary" ]; then
		p=$(echo "$summary" | sed -E 's/^.*: ([0-9]+) passed, ([0-9]+) failed$/\1/')
		f=$(echo "$summary" | sed -E 's/^.*: ([0-9]+) passed, ([0-9]+) failed$/\2/')
		passed=$((passed + p))
		failed=$((failed + f))
	fi
	if [ "$rc" -gt 128 ]; then
		sig=$((rc - 128))
		signame=$(kill -l "$sig" 2>/dev/null || echo "?")
		echo "not ok - $name crashed with signal $sig (SIG$signame)"
		failed=$((failed + 1))
		broken=1
	elif [ -z "$summary" ]; then
		echo "not ok - $name exited with status $rc without its summary line"
		failed=$((failed + 1))
		broken=1
	elif [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		echo "not ok - $name exited with status $rc although no check failed"
		failed=$((failed + 1))
		broken=1
	fi
	echo "# $name took $((SECONDS - start)) s"
done

echo "unit: $passed passed, $failed failed"
if [ "$failed" -ne 0 ] || [ "$broken" -ne 0 ]; then
	exit 1
fi
exit 0
