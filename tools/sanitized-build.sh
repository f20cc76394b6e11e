#!/usr/bin/env bash
# Configures (and, given targets, builds) build-san: the one sanitized build, shared by the
# fuzz targets and the sanitized test run so that CI compiles the code twice, not three times.
# clang, because libFuzzer is clang's; every file built with ASan + UBSan (a UB report aborts)
# and libFuzzer's coverage instrumentation (-fsanitize=fuzzer-no-link: the libraries under a
# fuzz target must be instrumented too; the tests pay a few percent for it). -O1 and line
# tables only: enough for readable sanitizer stacks, far cheaper to compile than full debug
# information.
#   tools/sanitized-build.sh                 configure and build everything
#   tools/sanitized-build.sh TARGET...       configure and build those targets
# The build's output goes to build-san/build.log; on failure its last lines are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
flags="-O1 -gline-tables-only -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
CXX=clang++ tools/cmake-configure.sh build-san -DCMAKE_BUILD_TYPE=Sanitize \
  -DCMAKE_CXX_FLAGS_SANITIZE="$flags" -DGANTRY_BUILD_FUZZ=ON -DGANTRY_BUILD_BENCH=OFF -DGANTRY_UNITY_BUILD=ON
if ! cmake --build build-san -j"$(nproc)" ${1:+--target "$@"} > build-san/build.log 2>&1; then
  tail -50 build-san/build.log
  echo "sanitized-build: FAILED (build-san/build.log)"
  exit 1
fi
