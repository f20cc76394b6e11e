#!/usr/bin/env bash
# Builds the whole project with AddressSanitizer and UndefinedBehaviorSanitizer and runs the
# test suite under them (the long scenario sweeps excepted: they run the same code paths as
# the tests kept here, at ten times the cost: CTest label slow). Any sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGANTRY_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1" \
  > /dev/null
cmake --build build-asan -j"$(nproc)" > build-asan/build.log 2>&1 || { tail -50 build-asan/build.log; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if ! ctest --test-dir build-asan -j"$(nproc)" -LE slow --output-on-failure > build-asan/ctest.log 2>&1; then
  tail -80 build-asan/ctest.log
  echo "sanitize: FAILED"
  exit 1
fi
echo "sanitize: $(grep -E 'tests passed' build-asan/ctest.log) under ASan + UBSan"
