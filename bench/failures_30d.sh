#!/usr/bin/env bash
# Issue #13's figure: a 30-day scenario on 16,384 H100 GPUs with failures at the Llama 3 rate,
# 20,000 jobs, elastic and rigid (scenarios/llama3-failures-30d.yaml), in under 20 s and 2 GiB.
#
# Runs, each pinned to one core, with hyperfine:
#   - scenarios/llama3-failures-30d.yaml;
#   - its peer in the same script: scenarios/scale-100k.yaml (8,192 GPUs, 100,000 jobs, no
#     failures), so the figure carries to another machine as a ratio;
# then the scenario once more under /usr/bin/time -v for its peak memory.
# Usage: bench/failures_30d.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
gantry=build/gantry
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

faults="taskset -c 0 $gantry simulate scenarios/llama3-failures-30d.yaml --out $out/f --no-progress"
peer="taskset -c 0 $gantry simulate scenarios/scale-100k.yaml --out $out/p --no-progress"
hyperfine --warmup 1 --runs "$runs" --export-json "$out/hyperfine.json" "$faults" "$peer" >&2
python3 - "$out/hyperfine.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
f, p = (statistics.median(x["times"]) for x in r)
print(f"llama3-failures-30d: median {f:.2f} s over {len(r[0]['times'])} runs "
      f"(min {min(r[0]['times']):.2f}, max {max(r[0]['times']):.2f})")
print(f"scale-100k (peer, no failures): median {p:.2f} s; ratio {f / p:.2f}")
PY
/usr/bin/time -v $faults > /dev/null 2> "$out/time.txt"
awk -F': ' '/Maximum resident set size/ {printf "llama3-failures-30d peak memory: %.0f MiB\n", $2/1024}' \
  "$out/time.txt"
