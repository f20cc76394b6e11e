#!/usr/bin/env bash
# Issue #24 §1's figure: `gantry simulate scenarios/scale-1m.yaml` (65,536 GPUs, 1,000,000 jobs,
# Llama 3 failures, checkpoints, elastic large jobs, results database included) in under 30 s
# and 4 GiB on the 2-core development machine.
#
# Runs its peer in the same script, scenarios/scale-100k.yaml (the same job mix, 10x fewer jobs
# on 8x fewer GPUs), so the figure carries to another machine as a ratio; the ratio should stay
# close to linear in jobs (about 10x for 10x the jobs). Each run is under /usr/bin/time -v (wall
# time, user and system CPU time, peak resident set size); the figures printed are medians over
# the repetitions. On a shared machine the wall time carries the other users' load; the CPU
# time (user + system) much less so, and the load average is printed before and after.
# Each run's trajectory fingerprint (--format json) is printed too: the same for every
# repetition, and the figure to compare across commits (decisions unchanged).
# Usage: bench/scale_1m.sh [repetitions]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
gantry=build/gantry
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run NAME: one `gantry simulate` of scenarios/NAME.yaml into a fresh results directory; appends
# "wall_seconds max_rss_kib cpu_seconds" to $out/NAME.txt and the fingerprint to
# $out/NAME.fingerprints.
run() {
  local name=$1 dir="$out/$1.run"
  rm -rf "$dir"
  /usr/bin/time -v "$gantry" simulate "scenarios/$name.yaml" --no-progress --out "$dir" \
    --format json > "$out/$name.json" 2> "$out/$name.time"
  awk -F': ' '
    /Elapsed \(wall clock\) time/ {
      n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; wall = s }
    /User time \(seconds\)/ { user = $2 }
    /System time \(seconds\)/ { sys = $2 }
    /Maximum resident set size/ { rss = $2 }
    END { print wall, rss, user + sys }' "$out/$name.time" >> "$out/$name.txt"
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["fingerprint"])' \
    "$out/$name.json" >> "$out/$name.fingerprints"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 1; i <= runs; i++)); do
  run scale-100k
  run scale-1m
  echo "repetition $i of $runs done" >&2
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
for name in scale-100k scale-1m; do
  echo "$name fingerprints: $(sort -u "$out/$name.fingerprints" | tr '\n' ' ')"
done

python3 - "$out/scale-100k.txt" "$out/scale-1m.txt" <<'PY'
import statistics, sys
def load(path):
    rows = [tuple(map(float, line.split())) for line in open(path)]
    return [r[0] for r in rows], [r[1] / 1024 for r in rows], [r[2] for r in rows]
(pw, pm, pc), (w, m, c) = load(sys.argv[1]), load(sys.argv[2])
for name, wall, mem, cpu in (("scale-100k", pw, pm, pc), ("scale-1m", w, m, c)):
    print(f"{name}: wall median {statistics.median(wall):.2f} s (min {min(wall):.2f}, "
          f"max {max(wall):.2f}), CPU (user + system) median {statistics.median(cpu):.2f} s, "
          f"peak memory median {statistics.median(mem):.0f} MiB over {len(wall)} runs")
print(f"ratio scale-1m / scale-100k: wall {statistics.median(w) / statistics.median(pw):.1f}x, "
      f"CPU {statistics.median(c) / statistics.median(pc):.1f}x, "
      f"memory {statistics.median(m) / statistics.median(pm):.1f}x (10x the jobs)")
PY
