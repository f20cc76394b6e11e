#!/usr/bin/env bash
# End-to-end benchmark of issue #4's scale target: a year of a 5-minute cron (105,120 runs) of
# a 5-task chain (bench/pipeline_year.yaml), switched on a year after its schedule's start
# with catch-up on, run in virtual time until the whole backlog is done, every state change
# persisted to SQLite (`gantry pipeline run` writes in batches) and the JSON timeline printed
# to a file. Target: under 30 s and 1 GiB on this machine.
# Prints the wall time (hyperfine, median of [runs], default 3), the peak resident set size
# (/usr/bin/time -v) and checks that every run succeeded.
# Usage: bench/pipeline_year.sh [runs]     (GANTRY=path/to/gantry to use another build)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
gantry=${GANTRY:-build/gantry}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The last run ends at 2027-01-08T07:15Z (see the yaml); --until leaves a margin.
cmd="$gantry pipeline run bench/pipeline_year.yaml --from 2027-01-01T00:00:00Z --until 2027-01-09T00:00:00Z --format json --db $out/runs.db"
hyperfine --warmup 0 --runs "$runs" --export-json "$out/hyperfine.json" \
  --output "$out/timeline.json" "$cmd" >&2
python3 - "$out/hyperfine.json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"wall time: median {statistics.median(r['times']):.2f} s, "
      f"min {min(r['times']):.2f} s, max {max(r['times']):.2f} s over {len(r['times'])} runs; "
      f"user {r['user']:.2f} s, system {r['system']:.2f} s (means)")
PY
/usr/bin/time -v $cmd > "$out/timeline.json" 2> "$out/time.txt"
awk -F': ' '/Maximum resident set size/ {printf "peak memory: %.0f MiB\n", $2/1024}' "$out/time.txt"
ls -l "$out/runs.db" | awk '{printf "runs.db: %.1f MiB\n", $5/1048576}'
ls -l "$out/timeline.json" | awk '{printf "timeline.json: %.1f MiB\n", $5/1048576}'
python3 - "$out/timeline.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
ok = sum(1 for r in runs if r["state"] == "succeeded" and r["trigger"] == "catchup")
print(f"runs: {len(runs)}, succeeded catch-up runs: {ok}, last end: {max(r['end'] for r in runs)}")
if len(runs) != 105120 or ok != 105120:
    sys.exit("expected 105,120 succeeded catch-up runs")
PY
echo "database rows: $(sqlite3 "$out/runs.db" "select (select count(*) from runs) || ' runs, ' || (select count(*) from task_instances) || ' task instances, ' || (select count(*) from attempts) || ' attempts'")"
