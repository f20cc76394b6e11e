// gantry-event-rate PENDING [EVENTS]: the ns-3 peer's procedure, line for line, on Gantry's
// event loop: prime PENDING timers, then time EventLoop::run() by the wall clock
// (std::chrono::steady_clock) until EVENTS events have run, and print events per second in the
// peer's format. bench/event_rate_vs_ns3.sh runs both programs one after the other.

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "bench/event_rate_workload.hpp"

int main(int argc, char** argv) {
  using namespace gantry;
  const uint64_t pending = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000;
  const uint64_t events = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 5'000'000;
  if (pending == 0 || events == 0) {
    std::fprintf(stderr, "usage: gantry-event-rate PENDING [EVENTS]  (both > 0)\n");
    return 2;
  }
  const auto owner = EventLoop::virtual_time(Time::from_micros(0));
  EventLoop& loop = *owner;
  bench::EventRateState state;
  state.target = events;
  bench::prime(loop, state, pending);
  const auto t0 = std::chrono::steady_clock::now();
  loop.run();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("gantry::EventLoop pending=%llu events=%llu: %.2f M events/s\n",
              static_cast<unsigned long long>(pending), static_cast<unsigned long long>(state.done),
              static_cast<double>(state.done) / s / 1e6);
  return 0;
}
