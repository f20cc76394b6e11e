#!/usr/bin/env bash
# Issue #26's orchestrator scale figure: 100 pipelines × a year of 5-minute runs
# (100 × 365 × 288 = 10,512,000 runs of 3 tasks) caught up in virtual time into SQLite.
# Target: under 3 minutes, memory bounded by the runs in flight.
#
# Each pipeline: `*/5 * * * *` from 2026-01-01 to 2026-12-31T23:55Z, catchup true,
# maxActiveRuns 50, a chain of three 1-minute tasks; switched on at 2027-01-01T00:00Z, so its
# 105,120 ticks are all overdue. A run takes 3 minutes and 50 run at once: the backlog drains
# in 105,120 / 50 × 3 min = 4.4 days of virtual time (--until leaves a margin).
# `--format summary` prints the runs counted in the database; `--max-runs` lifts the guard of
# 1,000,000 runs per replay. The script checks that every run succeeded.
#
# Usage: bench/pipelines_year.sh [pipelines] [days]    (defaults 100 365; GANTRY=path/to/gantry)
# Prints the wall time, the peak resident set size (/usr/bin/time -v) and the database's size.
set -euo pipefail
cd "$(dirname "$0")/.."
pipelines=${1:-100}
days=${2:-365}
gantry=${GANTRY:-build/gantry}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

mkdir -p "$out/pipelines"
end=$(date -u -d "2026-01-01 + $days days - 5 minutes" +%Y-%m-%dT%H:%M:00Z)
for i in $(seq -w 0 $((pipelines - 1))); do
  cat > "$out/pipelines/etl-$i.yaml" <<YAML
apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: etl-$i, namespace: bench}
spec:
  schedule: {cron: "*/5 * * * *", start: 2026-01-01T00:00:00Z, end: $end, catchup: true}
  concurrency: {maxActiveRuns: 50}
  tasks:
  - {name: extract, image: registry.local/etl:1, simulate: {duration: 1m}}
  - {name: transform, image: registry.local/etl:1, dependsOn: [extract], simulate: {duration: 1m}}
  - {name: load, image: registry.local/etl:1, dependsOn: [transform], simulate: {duration: 1m}}
YAML
done
runs=$((pipelines * days * 288))
drain_days=$(( (days * 288 / 50 * 3) / 1440 + 2 ))
until=$(date -u -d "2027-01-01 + $drain_days days" +%Y-%m-%dT00:00:00Z)
echo "$pipelines pipelines × $days days of 5-minute ticks = $runs runs; --until $until" >&2

/usr/bin/time -v "$gantry" pipeline run "$out/pipelines" --from 2027-01-01T00:00:00Z \
  --until "$until" --format summary --max-runs $((runs + 1)) --db "$out/runs.db" \
  > "$out/summary.txt" 2> "$out/time.txt"
tail -n 3 "$out/summary.txt"
awk -F': ' '/Elapsed \(wall clock\)/ {print "wall time: " $2}
            /Maximum resident set size/ {printf "peak memory: %.0f MiB\n", $2/1024}
            /User time/ {print "user: " $2 " s"} /System time/ {print "system: " $2 " s"}' "$out/time.txt"
ls -l "$out/runs.db" | awk '{printf "runs.db: %.1f MiB\n", $5/1048576}'
succeeded=$(sqlite3 "$out/runs.db" "select count(*) from runs where state = 'succeeded'")
echo "succeeded runs: $succeeded of $runs"
[ "$succeeded" -eq "$runs" ] || { echo "expected every run to succeed" >&2; exit 1; }
