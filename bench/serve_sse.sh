#!/usr/bin/env bash
# Issue #10's event-stream figure: 10,000 state changes per second reach a subscriber with no
# loss.
#
# Load: `gantry serve` with 100 pipelines on 1-minute crons (bench/serve_pipelines.py, the
# soak's pipelines: 2 to 6 tasks of 2 to 9 s median, maxActiveRuns 2) on the quickstart cluster
# with its own GPU jobs, at a --speed high enough that the state changes come faster than the
# target: at --speed S the pipelines start 100 × S / 60 runs per wall second, each publishing
# its run, task and attempt changes, plus the cluster's node changes. Every event is one state
# change written to SQLite (one transaction each) and then published.
#
# Subscriber: bench/sse_count.cpp (gantry-sse-count) subscribes with lastEventId=0 as soon as
# the server is up, so it must see every id from 1 on. It reads for DURATION seconds, then
# probes the bus's newest id with a second subscription and reads on until it has it: every
# event published up to the end reached it, in order. Loss = ids missing + reset events.
#
# Usage: bench/serve_sse.sh [duration=60] [speeds="120 240 480"] [repetitions=3]
#   GANTRY, SSE (default build/gantry, build/bench/gantry-sse-count); OUT (default
#   build/bench-out/serve-sse)
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-60}
speeds=${2:-"120 240 480"}
reps=${3:-3}
gantry=${GANTRY:-build/gantry}
sse=${SSE:-build/bench/gantry-sse-count}
out=${OUT:-build/bench-out/serve-sse}
mkdir -p "$out"
results="$out/results.jsonl"
: >"$results"
clk=$(getconf CLK_TCK)

for rep in $(seq "$reps"); do
  for speed in $speeds; do
    rm -rf "$out/sse.db"* "$out/pipelines"
    python3 bench/serve_pipelines.py "$out/pipelines" --count 100 --cron '* * * * *' \
      --start "$(date -u +%Y-%m-%dT%H:%M:00Z)" --scale 0.1 --max-active 2
    rm -f "$out/serve.out"  # the wait below reads it: no line of the last server
    /usr/bin/time -v "$gantry" serve --db "$out/sse.db" --listen 127.0.0.1:0 \
      --cluster scenarios/quickstart.yaml --scenarios scenarios --ui "$out/no-ui" \
      --speed "$speed" --pipelines "$out/pipelines" >"$out/serve.out" 2>"$out/serve.err" &
    time_pid=$!
    for _ in $(seq 300); do
      grep -q '^admin token' "$out/serve.out" 2>/dev/null && break
      sleep 0.1
    done
    pid=$(awk '{print $1}' /proc/$time_pid/task/$time_pid/children)
    url=$(sed -n 's/^gantry serve: \([^ ]*\).*/\1/p' "$out/serve.out")
    token=$(head -1 "$out/sse.db.token")
    cpu0=$(awk '{print $14 + $15}' /proc/$pid/stat)
    line=$("$sse" --port "${url##*:}" --token "$token" --after 0 --max "$duration")
    cpu1=$(awk '{print $14 + $15}' /proc/$pid/stat)
    runs=$(sqlite3 -readonly "$out/sse.db" "select count(*) from runs")
    kill -TERM "$pid"
    wait "$time_pid" || true
    rss=$(awk -F': ' '/Maximum resident set size/ {print int($2 / 1024)}' "$out/serve.err")
    echo "{\"rep\":$rep,\"speed\":$speed,\"runs\":$runs,\"server_cpu_s\":$(python3 -c "print(($cpu1 - $cpu0) / $clk)"),\"peak_rss_mib\":$rss,\"load1\":$(cut -d' ' -f1 /proc/loadavg),\"result\":$line}" \
      | tee -a "$results" | cut -c1-400 >&2
  done
done

python3 - "$results" "$duration" <<'PY'
import json, statistics as st, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def min_window(ps, w=10):
    ps = ps[5:-1] if len(ps) > 7 else ps
    if len(ps) < w:
        return sum(ps) / max(1, len(ps))
    return min(sum(ps[i:i + w]) / w for i in range(len(ps) - w + 1))
print("speed  rep  events/s: median second, slowest second, slowest 10 s, mean   received  lost  resets  behind@end  catch-up  server CPU  runs")
for r in rows:
    x = r["result"]
    ps = x["per_second"]
    steady = ps[5:-1] if len(ps) > 7 else ps  # from the 6th second on, the last (partial) second out
    mean = x["received"] / max(1, len(ps))
    print(f"{r['speed']:>5}  {r['rep']:>3}  {st.median(steady):>9.0f} {min(steady):>9.0f} {min_window(ps):>9.0f} {mean:>9.0f}"
          f"   {x['received']:>9}  {x['missing']:>4}  {x['resets']:>6}  {x['behind_at_probe']:>10}"
          f"  {x['catch_up_ms']:>6.0f} ms  {100 * r['server_cpu_s'] / len(ps):>6.0f} %  {r['runs']}")
print()
by_speed = {}
for r in rows:
    ps = r["result"]["per_second"]
    steady = ps[5:-1] if len(ps) > 7 else ps
    by_speed.setdefault(r["speed"], []).append((st.median(steady), r["result"]["missing"] + r["result"]["resets"], r["result"]["caught_up"]))
for s, v in sorted(by_speed.items()):
    med = st.median(x[0] for x in v)
    lost = sum(x[1] for x in v)
    print(f"--speed {s}: sustained {med:.0f} events/s (median over {len(v)} runs of the median second), "
          f"lost {lost}, caught up at the end in {sum(x[2] for x in v)}/{len(v)}")
best = [s for s, v in by_speed.items() if st.median(x[0] for x in v) >= 10000 and sum(x[1] for x in v) == 0 and all(x[2] for x in v)]
print("target 10,000 state changes/s with no loss: " + (f"met (at --speed {min(best)} and above)" if best else "NOT met"))
PY
