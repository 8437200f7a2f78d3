#!/usr/bin/env bash
# Run the unit test binaries built with AddressSanitizer and UndefinedBehaviorSanitizer
# (make unittest-sanitize) through test/unit/run.sh, and end with
# `unit-sanitize: N passed, N failed` (the sum over all binaries) instead of run.sh's `unit:` line.
# A sanitizer report ends its binary with a non-zero status and no summary line, which run.sh
# counts as a failure.  Exits non-zero if anything failed.
#
#   bash test/fuzz/unit_sanitize.sh test/fuzz/bin/unit/A_test test/fuzz/bin/unit/B_test ...

set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# halt on the first report (also set by -fno-sanitize-recover), with a stack trace; leaks count
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_invalid_pointer_pairs=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

bash "$here/../unit/run.sh" "$@" 2>&1 |
	sed -u 's/^unit: \([0-9][0-9]* passed, [0-9][0-9]* failed\)$/unit-sanitize: \1/'
