#!/usr/bin/env bash
# Issue #12's scale figure: the whole of a 100,000-job multi-tenant scenario in under 15 s.
#
# Runs, each pinned to one core, with hyperfine:
#   - bench/multi-tenant-100k.yaml: scale-100k's job stream (8,192 GPUs, one job every 7 s)
#     through 1,000 admission queues in 10 cohorts, with preemption;
#   - its peer in the same script: scenarios/scale-100k.yaml, the same stream without admission;
#   - the backlog variant: the same 100,000 jobs arriving every 2 s (3.5 × what the cluster can
#     run, so the queues hold tens of thousands of workloads), once, with /usr/bin/time -v.
# Prints medians, the ratio to the peer and peak memory. Usage: bench/admission_100k.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
gantry=build/gantry
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sed 's/meanInterarrival: 7s/meanInterarrival: 2s/; s/name: multi-tenant-100k/name: multi-tenant-100k-backlog/' \
  bench/multi-tenant-100k.yaml > "$out/backlog.yaml"

queues="taskset -c 0 $gantry simulate bench/multi-tenant-100k.yaml --out $out/q --no-progress"
peer="taskset -c 0 $gantry simulate scenarios/scale-100k.yaml --out $out/p --no-progress"
hyperfine --warmup 1 --runs "$runs" --export-json "$out/hyperfine.json" "$queues" "$peer" >&2
python3 - "$out/hyperfine.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"]
q, p = (statistics.median(x["times"]) for x in r)
print(f"multi-tenant-100k: median {q:.2f} s over {len(r[0]['times'])} runs "
      f"(min {min(r[0]['times']):.2f}, max {max(r[0]['times']):.2f})")
print(f"scale-100k (peer, no admission): median {p:.2f} s; ratio {q / p:.2f}")
PY
for name in q; do
  /usr/bin/time -v $queues > /dev/null 2> "$out/time.txt"
  awk -F': ' '/Maximum resident set size/ {printf "multi-tenant-100k peak memory: %.0f MiB\n", $2/1024}' "$out/time.txt"
done
/usr/bin/time -v taskset -c 0 $gantry simulate "$out/backlog.yaml" --out "$out/b" --no-progress \
  > /dev/null 2> "$out/backlog-time.txt"
awk -F': ' '/Elapsed \(wall clock\)/ {print "backlog variant (one job every 2 s): wall " $2}
            /Maximum resident set size/ {printf "backlog variant peak memory: %.0f MiB\n", $2/1024}' \
  "$out/backlog-time.txt"
