// BM_EventLoop/<pending>: schedule-and-dispatch of bare timers while <pending> timers wait.
//
// The workload of bench/event_rate_workload.hpp (the ns-3 peer's): each iteration runs one
// event whose callback schedules one replacement 1..1,000,000 µs later, so every iteration
// measures one schedule plus one dispatch. items_per_second is events dispatched per second of
// CPU time. For the comparison with ns-3, which times Simulator::Run() by the wall clock,
// bench/event_rate_vs_ns3.sh runs gantry-event-rate instead: the same workload through
// EventLoop::run(), timed the same way.

#include <benchmark/benchmark.h>

#include "bench/event_rate_workload.hpp"

namespace gantry {
namespace {

void BM_EventLoop(benchmark::State& state) {
  const auto pending = static_cast<uint64_t>(state.range(0));
  const auto owner = EventLoop::virtual_time(Time::from_micros(0));
  EventLoop& loop = *owner;
  bench::EventRateState workload;
  bench::prime(loop, workload, pending);
  for (auto _ : state) {
    loop.run_one();
  }
  benchmark::DoNotOptimize(loop.dispatched());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["pending"] = static_cast<double>(loop.pending());
}
BENCHMARK(BM_EventLoop)->Arg(1'000)->Arg(100'000)->Arg(1'000'000);

}  // namespace
}  // namespace gantry
