#!/usr/bin/env bash
# The request-level serving figure of issue #14: a day of a 300-QPS service (about 26 M
# requests) simulated on one core, RUNS times, beside the ns-3 peer's event rate measured on
# the same core in the same script (../shared/bench-peers/ns3_event_rate.cc, its fastest
# scheduler at 1,000 pending events: a small queue, as a service's simulation has), so the
# figure travels as a ratio: Gantry's requests per second over ns-3's events per second. A
# discrete-event simulator spends at least two events per request (arrival and departure), so a
# ratio above 0.5 means Gantry simulates a request in less time than ns-3 dispatches two events.
# Peak memory from /usr/bin/time -v: it must not grow with the requests (compare 6 h and 24 h).
#
# Usage: bench/serving_day.sh [RUNS]          (default 5)
# Environment: BUILD=build  CPU=1  HOURS=24  QPS=300  KIND=KPA
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
build=${BUILD:-build}
cpu=${CPU:-1}
hours=${HOURS:-24}
qps=${QPS:-300}
kind=${KIND:-KPA}
gantry=$build/bench/gantry-serving-rate
if [ ! -x "$gantry" ]; then
  echo "serving_day: $gantry not found; build it: cmake --build $build --target gantry-serving-rate" >&2
  exit 1
fi
peer_src=${NS3_PEER_SRC:-$(cd .. && pwd)/shared/bench-peers/ns3_event_rate.cc}
peer=""
if pkg-config --exists ns3-core 2>/dev/null && [ -f "$peer_src" ]; then
  peer=$build/bench-peers/ns3_event_rate
  if [ ! -x "$peer" ] || [ "$peer_src" -nt "$peer" ]; then
    mkdir -p "$(dirname "$peer")"
    g++ -O2 -std=c++17 "$peer_src" -o "$peer" -lns3-core
  fi
else
  echo "serving_day: the ns-3 peer is not available (tools/install-deps.sh --bench-peers); Gantry only" >&2
fi

echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $hours h at $qps qps ($kind), taskset -c $cpu, $runs runs"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
printf '%4s %14s %12s %10s %12s %8s\n' run "M requests/s" "wall s" "RSS MiB" "ns-3 M ev/s" ratio
for r in $(seq 1 "$runs"); do
  n="-"
  if [ -n "$peer" ]; then
    n=$(taskset -c "$cpu" "$peer" 1000 3000000 ns3::PriorityQueueScheduler |
      sed -n 's/.*: \([0-9.]*\) M events\/s$/\1/p')
  fi
  line=$(/usr/bin/time -v taskset -c "$cpu" "$gantry" "$hours" "$qps" "$kind" 2>"$out.time")
  rate=$(sed -n 's/.*: \([0-9.]*\) M requests\/s.*/\1/p' <<<"$line")
  wall=$(sed -n 's/.* in \([0-9.]*\) s:.*/\1/p' <<<"$line")
  rss=$(awk '/Maximum resident set size/ {printf "%.1f", $6 / 1024}' "$out.time")
  ratio=$(awk -v g="$rate" -v n="$n" 'BEGIN { if (n == "-") print "-"; else printf "%.2f", g / n }')
  printf '%4s %14s %12s %10s %12s %8s\n' "$r" "$rate" "$wall" "$rss" "$n" "$ratio"
  echo "$rate $wall $rss $n" >> "$out"
done
rm -f "$out.time"
python3 - "$out" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = lambda i: statistics.median(float(r[i]) for r in rows)
line = f"\nmedian: {med(0):.2f} M requests/s, {med(1):.2f} s wall, {med(2):.1f} MiB peak"
if rows[0][3] != "-":
    line += f"; ns-3 {med(3):.2f} M events/s; ratio of medians {med(0) / med(3):.2f}"
print(line)
PY
