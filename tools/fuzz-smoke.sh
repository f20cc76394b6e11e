#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each one for a short time on
# a copy of its seed corpus. Any crash, sanitizer report, timeout or leak fails the script.
# Usage: tools/fuzz-smoke.sh [seconds per target, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
CXX=clang++ cmake -S . -B build-fuzz -DGANTRY_BUILD_FUZZ=ON -DGANTRY_BUILD_TESTS=OFF \
  -DGANTRY_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
targets=$(sed -n 's/^add_executable(\([a-z_]*_fuzz\) .*/\1/p' tests/fuzz/CMakeLists.txt)
# shellcheck disable=SC2086
cmake --build build-fuzz -j"$(nproc)" --target $targets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in $targets; do
  name=${t%_fuzz}
  mkdir -p "$work/$name"
  if [ -d "tests/fuzz/corpus/$name" ]; then cp -r "tests/fuzz/corpus/$name/." "$work/$name/"; fi
  dict=()
  for d in "tests/fuzz/$name.dict" "tests/fuzz/$name.dic"; do
    if [ -f "$d" ]; then dict=("-dict=$d"); fi
  done
  status=0
  "build-fuzz/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "${dict[@]}" "$work/$name" > "$work/$name.log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
  if [ "$status" -ne 0 ]; then
    tail -40 "$work/$name.log"
    echo "fuzz: $t FAILED (exit $status)"
    exit 1
  fi
  echo "fuzz: $t ran ${runs:-?} inputs in ${seconds}s, no findings"
done
echo "fuzz: all targets ran clean"
