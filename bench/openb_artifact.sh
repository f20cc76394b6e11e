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

python3 - "$out" "$runs" "$threads" <<'PY'
import glob, statistics, sys
out, runs, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def seconds(clock):  # "m:ss.ss" or "h:mm:ss"
    parts = [float(p) for p in clock.split(":")]
    return sum(p * 60 ** i for i, p in enumerate(reversed(parts)))

def figures(n):
    wall, user, rss = [], [], []
    for path in glob.glob(f"{out}/time-{n}-*.txt"):
        for line in open(path):
            key, _, value = line.strip().partition(": ")
            if key.startswith("Elapsed"): wall.append(seconds(value))
            elif key == "User time (seconds)": user.append(float(value))
            elif key == "Maximum resident set size (kbytes)": rss.append(int(value))
    return statistics.median(wall), min(wall), max(wall), statistics.median(user), max(rss)

one, many = figures("1"), figures(threads)
for n, (med, lo, hi, user, rss) in (("1", one), (threads, many)):
    print(f"--parallel {n}: wall median {med:.1f} s (min {lo:.1f}, max {hi:.1f}, {runs} runs), "
          f"user CPU {user:.1f} s, peak memory {rss / 1024:.0f} MiB")
print(f"speed-up: {one[0] / many[0]:.2f} x")
PY

for f in "p1.json" p1/results.db p1/curves.csv p1/unallocated.svg; do
  other=${f//p1/p$threads}
  cmp -s "$out/$f" "$out/$other" || { echo "DIFFERENT: $f and $other" >&2; exit 1; }
done
echo "outputs: byte-identical (JSON report, results.db, curves.csv, unallocated.svg)"
