#!/usr/bin/env bash
# End-to-end benchmark of issue #3's experiment target: `gantry simulate
# scenarios/openb-fragmentation.yaml` (6 policies × 10 seeds on the default pod list, both
# cores) in under 30 s. Prints the wall-time distribution (hyperfine) and peak memory.
# Usage: bench/openb_experiment.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cmd="build/gantry simulate scenarios/openb-fragmentation.yaml --out $out --no-progress"
hyperfine --runs "$runs" --export-json "$out/hyperfine.json" "$cmd" >&2
python3 - "$out/hyperfine.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"wall time: median {statistics.median(r['times']):.2f} s, "
      f"min {min(r['times']):.2f} s, max {max(r['times']):.2f} s over {len(r['times'])} runs; "
      f"user {r['user']:.2f} s")
PY
/usr/bin/time -v $cmd > /dev/null 2> "$out/time.txt"
awk -F': ' '/Maximum resident set size/ {printf "peak memory: %.0f MiB\n", $2/1024}' "$out/time.txt"
