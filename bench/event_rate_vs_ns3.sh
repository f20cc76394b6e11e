#!/usr/bin/env bash
# Gantry's event loop against ns-3's discrete-event core, same machine, same run (issue #7):
# for each number of pending timers, runs the ns-3 peer and gantry-event-rate one after the
# other on one core, RUNS times, and prints both rates, the ratio of each pair and the ratio of
# the medians. Both programs run the same workload (bench/event_rate_workload.hpp) and time
# the same thing: the dispatch loop by the wall clock, priming excluded.
#
# Usage: bench/event_rate_vs_ns3.sh [RUNS]          (default 5)
# Environment:
#   BUILD=build            the CMake build directory holding bench/gantry-event-rate
#   CPU=1                  the core both programs are pinned to (taskset)
#   PENDING="1000 100000 1000000"   EVENTS=3000000
#   NS3_PEER_SRC=...       the peer's source; default ../shared/bench-peers/ns3_event_rate.cc
#                          beside this checkout
#   NS3_SCHEDULER=ns3::PriorityQueueScheduler   the ns-3 scheduler to race (the fastest of the
#                          four ns-3 3.37 offers at every size measured, bench/RESULTS.md)
# The peer needs libns3-dev (`tools/install-deps.sh --bench-peers`); without it, or without
# its source, the script says so and prints Gantry's rates alone.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
build=${BUILD:-build}
cpu=${CPU:-1}
pending_list=${PENDING:-"1000 100000 1000000"}
events=${EVENTS:-3000000}
peer_src=${NS3_PEER_SRC:-$(cd .. && pwd)/shared/bench-peers/ns3_event_rate.cc}
scheduler=${NS3_SCHEDULER:-ns3::PriorityQueueScheduler}

gantry=$build/bench/gantry-event-rate
if [ ! -x "$gantry" ]; then
  echo "event_rate_vs_ns3: $gantry not found; build it first:" >&2
  echo "  cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release && cmake --build $build --target gantry-event-rate" >&2
  exit 1
fi

# The peer is compiled from its own source into the build directory, never copied here.
peer=""
if ! pkg-config --exists ns3-core 2>/dev/null; then
  echo "event_rate_vs_ns3: ns-3 is not installed (apt-get install libns3-dev); Gantry only" >&2
elif [ ! -f "$peer_src" ]; then
  echo "event_rate_vs_ns3: peer source $peer_src not found (set NS3_PEER_SRC); Gantry only" >&2
else
  peer=$build/bench-peers/ns3_event_rate
  if [ ! -x "$peer" ] || [ "$peer_src" -nt "$peer" ]; then
    mkdir -p "$(dirname "$peer")"
    # As the peer's README builds it (libns3 itself is Debian's optimised build). Not
    # `pkg-config --libs ns3-core`: that also names libgsl's development links, which
    # libns3-dev does not pull in and the peer does not need.
    g++ -O2 -std=c++17 "$peer_src" -o "$peer" -lns3-core
  fi
fi

rate() { sed -n 's/.*: \([0-9.]*\) M events\/s$/\1/p'; }

echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null || echo '?')," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $events events per run, taskset -c $cpu, $runs runs; peer: $([ -n "$peer" ] && echo "$scheduler" || echo none)"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
printf '%-9s %4s %12s %12s %7s\n' pending run "ns-3 M/s" "gantry M/s" ratio
for p in $pending_list; do
  for r in $(seq 1 "$runs"); do
    n="-"
    if [ -n "$peer" ]; then n=$(taskset -c "$cpu" "$peer" "$p" "$events" "$scheduler" | rate); fi
    g=$(taskset -c "$cpu" "$gantry" "$p" "$events" | rate)
    echo "$p $r $n $g" >> "$results"
    ratio=$(awk -v g="$g" -v n="$n" 'BEGIN { if (n == "-") print "-"; else printf "%.2f", g / n }')
    printf '%-9s %4s %12s %12s %7s\n' "$p" "$r" "$n" "$g" "$ratio"
  done
done

python3 - "$results" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p, _, n, g = line.split()
    rows[int(p)].append((None if n == "-" else float(n), float(g)))
print(f"\n{'pending':>9} {'ns-3 median':>12} {'gantry median':>14} {'ratio of medians':>17} {'lowest pair ratio':>18}")
for p, pairs in rows.items():
    g = statistics.median(x[1] for x in pairs)
    if pairs[0][0] is None:
        print(f"{p:>9,} {'-':>12} {g:>14.2f} {'-':>17} {'-':>18}")
        continue
    n = statistics.median(x[0] for x in pairs)
    low = min(x[1] / x[0] for x in pairs)
    print(f"{p:>9,} {n:>12.2f} {g:>14.2f} {g / n:>16.2f}x {low:>17.2f}x")
PY
