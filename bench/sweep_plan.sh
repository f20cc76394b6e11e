#!/usr/bin/env bash
# Benchmark of issue #24 §3-§4: `gantry sweep scenarios/sweeps/placement-vs-load.yaml` (135
# runs of the quickstart scenario) and `gantry plan scenarios/plans/next-year.yaml` (three
# forecast steps, two pools), each with --parallel 1 and --parallel THREADS, RUNS times,
# alternating, under /usr/bin/time -v: medians, the speed-up measured in the same script, and a
# check that both thread counts printed the same JSON.
# Usage: bench/sweep_plan.sh [runs=3] [threads=2]     (GANTRY=path/to/gantry to override)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
threads=${2:-2}
gantry=${GANTRY:-build/gantry}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for cmd in sweep plan; do
  file=scenarios/sweeps/placement-vs-load.yaml
  [ "$cmd" = plan ] && file=scenarios/plans/next-year.yaml
  for ((r = 1; r <= runs; r++)); do
    for n in 1 "$threads"; do
      /usr/bin/time -v "$gantry" "$cmd" "$file" --parallel "$n" --no-progress --format json \
        --out "$out/$cmd-$n" > "$out/$cmd-$n.json" 2> "$out/time-$cmd-$n-$r.txt"
    done
  done
  python3 bench/time_stats.py "$cmd --parallel 1" "$out"/time-"$cmd"-1-*.txt
  python3 bench/time_stats.py "$cmd --parallel $threads" "$out"/time-"$cmd"-"$threads"-*.txt
  python3 - "$out" "$cmd" "$threads" <<'PY'
import json, sys
sys.path.insert(0, "bench")
from time_stats import figures
out, cmd, threads = sys.argv[1:]
import glob
one = figures(glob.glob(f"{out}/time-{cmd}-1-*.txt"))[0]
many = figures(glob.glob(f"{out}/time-{cmd}-{threads}-*.txt"))[0]
print(f"{cmd} speed-up: {one / many:.2f} x")
a, b = (json.load(open(f"{out}/{cmd}-{n}.json")) for n in ("1", threads))
for doc in (a, b):
    for key in ("results", "charts", "chart"):
        doc.pop(key, None)
if a != b:
    sys.exit(f"{cmd}: --parallel 1 and --parallel {threads} printed different JSON")
print(f"{cmd}: the same JSON with 1 and {threads} threads"
      + (f"; {a['simulations']} simulations" if cmd == "plan" else ""))
PY
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
