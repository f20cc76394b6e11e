#!/usr/bin/env bash
# End-to-end benchmark of issue #24 §2 ("Every core"): `gantry simulate
# scenarios/openb-artifact.yaml` (the FGD artifact's 17 pod lists × 6 policies × 10 seeds =
# 1,020 runs) with --parallel 1 and with --parallel N, RUNS times each, the two alternating so
# that a change of the machine's load falls on both. Each run is timed by /usr/bin/time -v
# (wall, user CPU, peak resident memory); prints the medians, the speed-up, and checks that both
# wrote the same bytes (JSON report, results.db, curves.csv, unallocated.svg).
# Usage: bench/openb_artifact.sh [runs=3] [threads=2]     (GANTRY=path/to/gantry to override)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
threads=${2:-2}
gantry=${GANTRY:-build/gantry}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "load before: $(uptime | sed 's/.*load average/load average/')"
for ((r = 1; r <= runs; r++)); do
  for n in 1 "$threads"; do
    /usr/bin/time -v "$gantry" simulate scenarios/openb-artifact.yaml --parallel "$n" \
      --out "$out/p$n" --no-progress --format json > "$out/p$n.json" 2> "$out/time-$n-$r.txt"
    echo "  run $r, --parallel $n: $(awk -F': ' '/Elapsed/ {print $2}' "$out/time-$n-$r.txt")" \
      "wall, load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
echo "load after: $(uptime | sed 's/.*load average/load average/')"

python3 bench/time_stats.py "--parallel 1" "$out"/time-1-*.txt
python3 bench/time_stats.py "--parallel $threads" "$out"/time-"$threads"-*.txt
python3 - "$out" "$threads" <<'PY'
import glob, sys
sys.path.insert(0, "bench")
from time_stats import figures
out, threads = sys.argv[1:]
one = figures(glob.glob(f"{out}/time-1-*.txt"))[0]
many = figures(glob.glob(f"{out}/time-{threads}-*.txt"))[0]
print(f"speed-up: {one / many:.2f} x")
PY

for f in "p1.json" p1/results.db p1/curves.csv p1/unallocated.svg; do
  other=${f//p1/p$threads}
  cmp -s "$out/$f" "$out/$other" || { echo "DIFFERENT: $f and $other" >&2; exit 1; }
done
echo "outputs: byte-identical (JSON report, results.db, curves.csv, unallocated.svg)"
