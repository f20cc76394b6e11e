#!/usr/bin/env bash
# Builds the libFuzzer targets in the sanitized build (tools/sanitized-build.sh: clang, ASan +
# UBSan) and runs each one for a short time on a copy of its seed corpus, two at a time (one per
# core). Any crash, sanitizer report, timeout or leak fails the script.
# Usage: tools/fuzz-smoke.sh [seconds per target, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
targets=$(sed -n 's/^add_executable(\([a-z_]*_fuzz\) .*/\1/p' tests/fuzz/CMakeLists.txt)
# shellcheck disable=SC2086
tools/sanitized-build.sh $targets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs one target on a copy of its corpus; prints one line, or the log's tail and fails.
run_target() {
  local t=$1 name=${1%_fuzz} status=0 runs d
  mkdir -p "$work/$name"
  if [ -d "tests/fuzz/corpus/$name" ]; then cp -r "tests/fuzz/corpus/$name/." "$work/$name/"; fi
  local dict=()
  for d in "tests/fuzz/$name.dict" "tests/fuzz/$name.dic"; do
    if [ -f "$d" ]; then dict=("-dict=$d"); fi
  done
  "build-san/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "${dict[@]}" "$work/$name" > "$work/$name.log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log")
  if [ "$status" -ne 0 ]; then
    tail -40 "$work/$name.log"
    echo "fuzz: $t FAILED (exit $status)"
    return 1
  fi
  echo "fuzz: $t ran ${runs:-?} inputs in ${seconds}s, no findings"
}

slots=$(nproc)
running=0
failed=0
for t in $targets; do
  if [ "$running" -ge "$slots" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
if [ "$failed" -ne 0 ]; then
  echo "fuzz: FAILED"
  exit 1
fi
echo "fuzz: all targets ran clean"
