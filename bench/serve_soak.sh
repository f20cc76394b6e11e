#!/usr/bin/env bash
# Issue #10's soak figure: `gantry serve` with 100 pipelines on 1-minute crons at --speed 60
# (a simulated minute per wall second: 100 runs a second) for 30 wall minutes. Targets: memory
# flat, no run stuck.
#
# Pipelines: bench/serve_pipelines.py, cron "* * * * *", durations scaled by 0.1 (tasks of 2 to
# 9 s median, runs of 2 to 6 tasks), maxActiveRuns 2, one pipeline in ten with a 1-GPU task,
# on the quickstart cluster (32 DGX A100 nodes) together with the scenario's own 600 GPU jobs.
#
# Every 10 s it samples the server's VmRSS and VmHWM (/proc/PID/status), its CPU time
# (/proc/PID/stat) and, from the database (sqlite3 -readonly, as any reader would), the runs
# created and the runs not finished. At the end the server is stopped with SIGTERM, its peak
# RSS is read from /usr/bin/time -v, and the runs are checked: a run is stuck when it has not
# finished although its logical time is more than 10 simulated minutes before the latest
# instant the database holds (a run's critical path is under a minute at the p90).
#
# Usage: bench/serve_soak.sh [minutes=30] [pipelines=100] [speed=60]
#   GANTRY=path/to/gantry (default build/gantry); OUT=dir to keep the samples (default a new
#   folder under build/bench-out/).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-30}
count=${2:-100}
speed=${3:-60}
gantry=${GANTRY:-build/gantry}
out=${OUT:-build/bench-out/serve-soak-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
rm -rf "$out/pipelines" "$out/soak.db"*

start=$(date -u +%Y-%m-%dT%H:%M:00Z)
python3 bench/serve_pipelines.py "$out/pipelines" --count "$count" --cron '* * * * *' \
  --start "$start" --scale 0.1 --max-active 2

rm -f "$out/serve.out"  # the wait below reads it: no line of the last server
/usr/bin/time -v "$gantry" serve --db "$out/soak.db" --listen 127.0.0.1:0 \
  --cluster scenarios/quickstart.yaml --scenarios scenarios --ui "$out/no-ui" \
  --speed "$speed" --pipelines "$out/pipelines" >"$out/serve.out" 2>"$out/serve.err" &
time_pid=$!
for _ in $(seq 100); do
  grep -q '^admin token' "$out/serve.out" 2>/dev/null && break
  sleep 0.1
done
pid=$(cat /proc/$time_pid/task/$time_pid/children | awk '{print $1}')
[ -n "$pid" ] || { cat "$out/serve.err"; exit 1; }
head -1 "$out/serve.out" >&2
echo "server pid $pid, samples in $out/samples.csv" >&2

clk=$(getconf CLK_TCK)
echo "t_s,rss_kib,hwm_kib,cpu_s,runs,unfinished,max_logical_us,load1" >"$out/samples.csv"
t0=$(date +%s.%N)
end=$(python3 -c "print($t0 + $minutes * 60)")
while true; do
  now=$(date +%s.%N)
  t=$(python3 -c "print(round($now - $t0, 1))")
  rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
  hwm=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status)
  cpu=$(awk -v c="$clk" '{printf "%.1f", ($14 + $15) / c}' /proc/$pid/stat)
  db=$(sqlite3 -readonly "$out/soak.db" \
    "select count(*), coalesce(sum(state in ('queued','running')),0), coalesce(max(logical_us),0) from runs" \
    2>/dev/null | tr '|' ',' || echo ",,")
  load1=$(cut -d' ' -f1 /proc/loadavg)
  echo "$t,$rss,$hwm,$cpu,$db,$load1" >>"$out/samples.csv"
  if python3 -c "import sys; sys.exit(0 if $now >= $end else 1)"; then break; fi
  sleep 10
done

kill -TERM "$pid"
wait "$time_pid" || true
grep -q 'gantry serve: stopped' "$out/serve.out" || echo "warning: no graceful stop" >&2

python3 - "$out" "$minutes" "$count" "$speed" <<'PY'
import csv, sqlite3, sys
out, minutes, count, speed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
rows = [r for r in csv.DictReader(open(f"{out}/samples.csv")) if r["rss_kib"]]
t = [float(r["t_s"]) for r in rows]
rss = [int(r["rss_kib"]) / 1024 for r in rows]
runs = [int(r["runs"] or 0) for r in rows]
def slope(xs, ys):
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
half = [i for i, x in enumerate(t) if x >= t[-1] / 2]
maxrss = 0
for line in open(f"{out}/serve.err"):
    if "Maximum resident set size" in line:
        maxrss = int(line.split(":")[1]) / 1024
print(f"samples: {len(rows)} over {t[-1]:.0f} s (every 10 s)")
print(f"RSS: start {rss[0]:.1f} MiB (first sample), at 1 min {rss[min(6, len(rss)-1)]:.1f} MiB, "
      f"end {rss[-1]:.1f} MiB, max sampled {max(rss):.1f} MiB, peak (time -v) {maxrss:.1f} MiB")
s_all = slope(t, rss) * 3600
s_half = slope([t[i] for i in half], [rss[i] for i in half]) * 3600
print(f"RSS slope: {s_all:.1f} MiB/hour over the whole run, {s_half:.1f} MiB/hour over the "
      f"second half")
if runs[-1] > runs[0]:
    per_k = (rss[-1] - rss[half[0]]) / max(1, runs[-1] - runs[half[0]]) * 1000
    print(f"RSS growth per 1,000 runs created (second half): {per_k:.2f} MiB")
cpu = [float(r["cpu_s"]) for r in rows]
print(f"server CPU: {cpu[-1]:.0f} s over {t[-1]:.0f} s wall ({100 * cpu[-1] / t[-1]:.0f} % of a core)"
      f"; load average (1 min) min {min(float(r['load1']) for r in rows):.2f}, "
      f"max {max(float(r['load1']) for r in rows):.2f}")
db = sqlite3.connect(f"file:{out}/soak.db?mode=ro", uri=True)
n, = db.execute("select count(*) from runs").fetchone()
latest, = db.execute("select max(max(logical_us), max(coalesce(end_us, start_us, logical_us))) from runs").fetchone()
by_state = dict(db.execute("select state, count(*) from runs group by state").fetchall())
limit = latest - 10 * 60 * 1_000_000
stuck = db.execute("select count(*), min(logical_us) from runs where state in ('queued','running') and logical_us < ?", (limit,)).fetchone()
unfinished = db.execute("select count(*), min(logical_us) from runs where state in ('queued','running')").fetchone()
first, = db.execute("select min(logical_us) from runs").fetchone()
sim_minutes = (latest - first) / 60e6
expected = count * sim_minutes
print(f"runs: {n} over {sim_minutes:.0f} simulated minutes ({n / max(1, sim_minutes):.1f} per simulated minute; "
      f"{count} pipelines would make {expected:.0f}); by state: {by_state}")
oldest = (latest - unfinished[1]) / 60e6 if unfinished[0] else 0
print(f"unfinished at the stop: {unfinished[0]} runs, the oldest {oldest:.1f} simulated minutes old")
print(f"stuck (unfinished, logical time > 10 simulated minutes before the latest instant): {stuck[0]}")
unf = [int(r["unfinished"] or 0) for r in rows]
print(f"unfinished runs over time (sampled): min {min(unf)}, max {max(unf)}, last {unf[-1]}")
PY
