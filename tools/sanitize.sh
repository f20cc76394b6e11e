#!/usr/bin/env bash
# Runs the test suite under AddressSanitizer and UndefinedBehaviorSanitizer, in the sanitized
# build (tools/sanitized-build.sh builds what is missing). The long scenario sweeps (CTest
# label slow) are left to the optimised build: they run the same code paths as the tests kept
# here, at ten times the cost. Any sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/sanitized-build.sh
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if ! ctest --test-dir build-san -j"$(nproc)" -LE slow --output-on-failure > build-san/ctest.log 2>&1; then
  tail -80 build-san/ctest.log
  echo "sanitize: FAILED (build-san/ctest.log)"
  exit 1
fi
echo "sanitize: $(grep -E 'tests passed' build-san/ctest.log) under ASan + UBSan"
