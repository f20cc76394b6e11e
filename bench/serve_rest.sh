#!/usr/bin/env bash
# Issue #10's REST figure: p99 under 5 ms for GET /api/v1/pipelines/{name}/runs?limit=50 and
# GET /api/v1/cluster at 1,000 requests per second on loopback, with 100 pipelines and 100,000
# runs in the database.
#
# The database: bench/serve_seed.sh (100 pipelines × 1,000 runs written by `gantry pipeline
# run`, kept in $OUT/seed.db between invocations); each repetition serves a fresh copy. The
# server (`gantry serve --speed 1` on the quickstart cluster, under /usr/bin/time -v) applies
# the same 100 pipelines, so it keeps scheduling them while it answers (one run every 6 s).
#
# Load: bench/http_load.cpp (gantry-http-load): open loop at a constant rate, latency timed
# from each request's intended send time (no coordinated omission), 8 keep-alive connections,
# 3 s of warm-up then DURATION s measured. The runs route cycles through the 100 pipelines.
# Peers on the same server, same civetweb and dispatch, measured in the same repetition:
#   static  — the body of the API answer saved as a file in the UI folder, served by
#             gantry serve's static-file route (no token check, no database): same bytes;
#   healthz — GET /healthz: the HTTP stack's floor (no token, a 3-byte body).
# Order within a repetition: runs, runs-static, cluster, cluster-static, healthz.
#
# Then, for the record: Debian's wrk (closed loop, 8 connections, 10 s) on each route for the
# maximum rate, and the SQL of one runs page without HTTP or JSON (Python's sqlite3 module).
#
# Usage: bench/serve_rest.sh [repetitions=5] [rate=1000] [duration=30]
#   GANTRY=path/to/gantry, LOAD=path/to/gantry-http-load (default build/, build/bench/);
#   OUT=dir (default build/bench-out/serve-rest)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
rate=${2:-1000}
duration=${3:-30}
gantry=${GANTRY:-build/gantry}
load=${LOAD:-build/bench/gantry-http-load}
out=${OUT:-build/bench-out/serve-rest}
mkdir -p "$out"
[ -f "$out/seed.db" ] || bench/serve_seed.sh "$out"

results="$out/results.jsonl"
: >"$results"
: >"$out/wrk.txt"
: >"$out/rss.txt"
serve_pid=""
stop_server() {
  if [ -n "$serve_pid" ]; then
    kill -TERM "$serve_pid" 2>/dev/null || true
    wait "$time_pid" 2>/dev/null || true
    serve_pid=""
  fi
}
trap stop_server EXIT

start_server() {
  rm -rf "$out/work.db"* "$out/ui"
  mkdir -p "$out/ui"
  cp "$out/seed.db" "$out/work.db"
  rm -f "$out/serve.out"  # the wait below reads it: no line of the last server
  /usr/bin/time -v "$gantry" serve --db "$out/work.db" --listen 127.0.0.1:0 \
    --cluster scenarios/quickstart.yaml --scenarios scenarios --ui "$out/ui" --speed 1 \
    --pipelines "$out/serve-pipelines" >"$out/serve.out" 2>"$out/serve.err" &
  time_pid=$!
  for _ in $(seq 300); do
    grep -q '^admin token' "$out/serve.out" 2>/dev/null && break
    sleep 0.1
  done
  serve_pid=$(awk '{print $1}' /proc/$time_pid/task/$time_pid/children)
  url=$(sed -n 's/^gantry serve: \([^ ]*\).*/\1/p' "$out/serve.out")
  port=${url##*:}
  token=$(head -1 "$out/work.db.token")
  [ -n "$port" ] || { cat "$out/serve.err"; exit 1; }
}

run_load() {  # label, then gantry-http-load arguments
  local label=$1
  shift
  local line
  line=$("$load" --port "$port" --rate "$rate" --duration "$duration" --warmup 3 \
    --connections 8 --header "Authorization: Bearer $token" "$@")
  echo "{\"rep\":$rep,\"target\":\"$label\",\"load1\":$(cut -d' ' -f1 /proc/loadavg),\"result\":$line}" \
    | tee -a "$results" >&2
}

for rep in $(seq "$reps"); do
  start_server
  for i in $(seq 0 99); do printf '/api/v1/pipelines/etl-%03d/runs?limit=50\n' "$i"; done \
    >"$out/runs-paths.txt"
  # The peers' files: the very bytes of an answer of each route.
  curl -sf -H "Authorization: Bearer $token" "$url/api/v1/pipelines/etl-042/runs?limit=50" \
    >"$out/ui/runs50.json"
  curl -sf -H "Authorization: Bearer $token" "$url/api/v1/cluster" >"$out/ui/cluster.json"
  run_load runs --paths "$out/runs-paths.txt"
  run_load runs-static --path /runs50.json
  run_load cluster --path /api/v1/cluster
  run_load cluster-static --path /cluster.json
  run_load healthz --path /healthz
  stop_server
  awk -F': ' '/Maximum resident set size/ {printf "server peak RSS: %.0f MiB\n", $2/1024}' \
    "$out/serve.err" | tee -a "$out/rss.txt" >&2
done

# wrk (Debian 4.1, closed loop): the highest rate each route sustains, for the record.
if command -v wrk >/dev/null; then
  start_server
  cat >"$out/auth.lua" <<EOF
wrk.headers["Authorization"] = "Bearer $token"
EOF
  curl -sf -H "Authorization: Bearer $token" "$url/api/v1/pipelines/etl-042/runs?limit=50" \
    >"$out/ui/runs50.json"
  curl -sf -H "Authorization: Bearer $token" "$url/api/v1/cluster" >"$out/ui/cluster.json"
  for p in "/api/v1/pipelines/etl-042/runs?limit=50" /runs50.json /api/v1/cluster /cluster.json /healthz; do
    echo "wrk -t1 -c8 -d10s --latency $p" >&2
    wrk -t1 -c8 -d10s --latency -s "$out/auth.lua" "$url$p" | tee -a "$out/wrk.txt" |
      awk '/Requests\/sec|99%|50%/ {print "  " $0}' >&2
  done
  stop_server
fi

# A peer without HTTP or JSON: the three statements of RunQueries::page() for each of the 100
# pipelines through Python's sqlite3 module (the same libsqlite3, rows fetched, statements
# cached), on the seeded file.
python3 - "$out/seed.db" <<'PY' >"$out/sql-peer.txt"
import sqlite3, statistics, sys, time
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
def page(p):
    ids = [r[0] for r in db.execute(
        "SELECT id, pipeline, logical_us, trigger, state, start_us, end_us FROM runs "
        "WHERE pipeline = ? ORDER BY logical_us DESC LIMIT 51", (p,)).fetchall()][:50]
    l = ",".join(map(str, ids))
    db.execute(f"SELECT run_id, name, state FROM task_instances WHERE run_id IN ({l}) "
               "ORDER BY run_id, position").fetchall()
    db.execute(f"SELECT run_id, task, start_us, running_us, end_us, state FROM attempts "
               f"WHERE run_id IN ({l}) ORDER BY run_id, task, idx").fetchall()
for i in range(100):
    page(f"etl-{i:03d}")
ts = []
for _ in range(5):
    t = time.perf_counter()
    for i in range(100):
        page(f"etl-{i:03d}")
    ts.append((time.perf_counter() - t) / 100 * 1e6)
print(f"{statistics.median(ts):.0f}")
PY

python3 - "$results" "$rate" <<'PY'
import json, statistics as st, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rate = float(sys.argv[2])
targets = ["runs", "runs-static", "cluster", "cluster-static", "healthz"]
med = lambda xs: st.median(xs) if xs else float("nan")
print(f"target rate {rate:.0f}/s, {len({r['rep'] for r in rows})} repetitions; latency from the "
      "intended send time in ms (median over repetitions; min-max of the p99 in brackets)")
print(f"{'route':<16}{'achieved/s':>11}{'p50':>10}{'p99':>10}{'p999':>10}{'max':>10}  {'p99 range':<18}errors")
by = {t: [r["result"] for r in rows if r["target"] == t] for t in targets}
for t in targets:
    rs = by[t]
    if not rs:
        continue
    p99s = [r["latency_us"]["p99"] for r in rs]
    ms = lambda us: f"{us / 1000:>10.2f}"
    print(f"{t:<16}{med([r['achieved_rate'] for r in rs]):>11.1f}"
          f"{ms(med([r['latency_us']['p50'] for r in rs]))}{ms(med(p99s))}"
          f"{ms(med([r['latency_us']['p999'] for r in rs]))}{ms(med([r['latency_us']['max'] for r in rs]))}"
          f"  {'[%.2f-%.2f]' % (min(p99s) / 1000, max(p99s) / 1000):<18}{sum(r['errors'] for r in rs)}")
for api, peer in [("runs", "runs-static"), ("cluster", "cluster-static"), ("runs", "healthz"), ("cluster", "healthz")]:
    pairs = [(a["latency_us"], b["latency_us"]) for a, b in zip(by[api], by[peer])]
    if pairs:
        print(f"ratio {api} / {peer} (same repetition, median of the ratios): "
              f"p50 {med([a['p50'] / b['p50'] for a, b in pairs]):.2f} ×, "
              f"p99 {med([a['p99'] / b['p99'] for a, b in pairs]):.2f} ×")
for t in ["runs", "cluster"]:
    p99s = [r["latency_us"]["p99"] for r in by[t]]
    ok = med(p99s) < 5000 and min(r["achieved_rate"] for r in by[t]) > 0.99 * rate
    over = sum(p > 5000 for p in p99s)
    print(f"target p99 < 5 ms at {rate:.0f}/s for {t}: {'met' if ok else 'NOT met'} on the median; "
          f"{over} of {len(p99s)} repetitions over 5 ms")
PY
echo "SQL peer: the page's 3 statements in Python's sqlite3, median of 5 × 100 pages: $(cat "$out/sql-peer.txt") µs per page"
