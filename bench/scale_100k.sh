#!/usr/bin/env bash
# End-to-end benchmark of issue #2's scale target: `gantry simulate scenarios/scale-100k.yaml`
# (1,024 nodes, 8,192 GPUs, 100,000 jobs, results database included) must finish in under
# 10 s on one core with peak memory under 1 GiB. Prints the wall-time distribution (hyperfine)
# and the peak resident set size (/usr/bin/time -v). Usage: bench/scale_100k.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
gantry=build/gantry
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One core: taskset pins the process so the figure is a one-core figure.
cmd="taskset -c 0 $gantry simulate scenarios/scale-100k.yaml --out $out --no-progress"
hyperfine --warmup 1 --runs "$runs" --export-json "$out/hyperfine.json" "$cmd" >&2
python3 - "$out/hyperfine.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"wall time: median {statistics.median(r['times']):.2f} s, "
      f"min {min(r['times']):.2f} s, max {max(r['times']):.2f} s over {len(r['times'])} runs")
PY
/usr/bin/time -v $cmd > /dev/null 2> "$out/time.txt"
awk -F': ' '/Maximum resident set size/ {printf "peak memory: %.0f MiB\n", $2/1024}' "$out/time.txt"
ls -l "$out/results.db" | awk '{printf "results.db: %.1f MiB\n", $5/1048576}'
