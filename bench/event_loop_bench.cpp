// BM_EventLoop/<pending>: schedule-and-dispatch of bare timers while <pending> timers wait.
//
// The loop is primed with <pending> timers at pseudo-random times; each iteration then runs one
// event whose callback schedules one replacement at a pseudo-random later time, so the queue
// stays at <pending> and every iteration measures one schedule plus one dispatch.
// items_per_second is events dispatched per second.

#include <benchmark/benchmark.h>

#include "engine/core/event_loop.hpp"

namespace gantry {
namespace {

struct Reschedule {
  EventLoop* loop;
  uint64_t* state;
  void operator()() const {
    // xorshift: cheap, deterministic spread of the next timer over the next ~1 s.
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    loop->schedule_after(Duration(static_cast<int64_t>(x % 1'000'000)), *this);
  }
};

void BM_EventLoop(benchmark::State& state) {
  const auto pending = static_cast<size_t>(state.range(0));
  const auto owner = EventLoop::virtual_time(Time::from_micros(0));
  EventLoop& loop = *owner;
  uint64_t rng = 88172645463325252ull;
  const Reschedule again{&loop, &rng};
  for (size_t i = 0; i < pending; ++i) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    loop.schedule_at(Time::from_micros(static_cast<int64_t>(rng % 1'000'000)), again);
  }
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
