#!/usr/bin/env bash
# Instructions and simulated cache misses per event of the event-rate workload, for Gantry and
# (if built by bench/event_rate_vs_ns3.sh) the ns-3 peer. Cachegrind counts do not depend on the
# load of the machine, so they compare designs where wall-clock rates on a shared machine
# cannot. Each program runs twice, with EVENTS and 2×EVENTS events; the difference divided by
# EVENTS is the cost of one event in steady state, priming and start-up excluded.
#
# Caches simulated: the development VM's L1d (48 KiB, 12-way) and, as the last level, either its
# L2 (1 MiB, 16-way: misses that leave the core) or its L3 (32 MiB, 16-way: misses to DRAM).
# Cachegrind has no hardware prefetcher, so sequential streams count as misses here that the
# hardware mostly hides; read the figures together with the rates.
#
# Usage: bench/event_rate_cachegrind.sh [PENDING...]   (default 1000 100000 1000000)
# Environment: BUILD=build, EVENTS=200000, LL=l2|l3 (default l2), NS3_SCHEDULER as in
# event_rate_vs_ns3.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
events=${EVENTS:-200000}
scheduler=${NS3_SCHEDULER:-ns3::PriorityQueueScheduler}
case "${LL:-l2}" in
  l2) ll=1048576,16,64 ;;
  l3) ll=33554432,16,64 ;;
  *) echo "LL must be l2 or l3" >&2; exit 2 ;;
esac
pending_list=${*:-1000 100000 1000000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Prints "Ir D1mr+D1mw LLmr+LLmw" of one program run.
counts() {
  valgrind --tool=cachegrind --cache-sim=yes --D1=49152,12,64 --LL="$ll" \
    --cachegrind-out-file="$out/cg" "$@" > /dev/null 2>&1
  awk '/^summary:/ { print $2, $6 + $9, $7 + $10 }' "$out/cg"
}

# per_event NAME PROGRAM [ARG]: PROGRAM PENDING EVENTS [ARG], the peers' command line.
per_event() {
  local name=$1 program=$2 one two
  shift 2
  one=$(counts "$program" "$pending" "$events" "$@")
  two=$(counts "$program" "$pending" "$((2 * events))" "$@")
  awk -v n="$name" -v p="$pending" -v e="$events" -v a="$one" -v b="$two" 'BEGIN {
    split(a, x); split(b, y)
    printf "%-9s %-28s %10.1f %14.2f %14.2f\n", p, n, (y[1]-x[1])/e, (y[2]-x[2])/e, (y[3]-x[3])/e }'
}

echo "# per event, ${LL:-l2} as last level, EVENTS=$events"
printf '%-9s %-28s %10s %14s %14s\n' pending program instr "L1d misses" "LL misses"
peer=$build/bench-peers/ns3_event_rate
for pending in $pending_list; do
  per_event "gantry::EventLoop" "$build/bench/gantry-event-rate"
  if [ -x "$peer" ]; then per_event "$scheduler" "$peer" "$scheduler"; fi
done
