#pragma once
// The event-rate workload, shared by BM_EventLoop and gantry-event-rate so that they cannot
// drift apart, and kept identical to the ns-3 peer's (bench-peers/ns3_event_rate.cc, run by
// bench/event_rate_vs_ns3.sh): P timers pending; each handler schedules one more at
// now + 1 + xorshift() % 1,000,000 ticks, so the queue stays at P. Same xorshift, same seed, one
// stream for priming and handlers, delays of 1..1,000,000 ticks — a tick is a microsecond here
// and a nanosecond in ns-3, so both queues see the same sequence of integer keys.

#include <cstdint>

#include "engine/core/event_loop.hpp"

namespace gantry::bench {

struct EventRateState {
  uint64_t rng = 88172645463325252ull;  // the peer's seed
  uint64_t done = 0;                    // events dispatched
  uint64_t target = UINT64_MAX;         // stop() the loop after this many events

  int64_t next_delay() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return 1 + static_cast<int64_t>(rng % 1'000'000);
  }
};

// Two pointers: stored inline in the loop's queue, as a simulation's callbacks are.
struct Reschedule {
  EventLoop* loop;
  EventRateState* state;
  void operator()() const {
    if (++state->done >= state->target) {
      loop->stop();
      return;
    }
    loop->schedule_after(Duration(state->next_delay()), *this);
  }
};

// Schedules `pending` timers at 1..1,000,000 ticks after now, as the peer does before it runs.
inline void prime(EventLoop& loop, EventRateState& state, uint64_t pending) {
  for (uint64_t i = 0; i < pending; ++i)
    loop.schedule_after(Duration(state.next_delay()), Reschedule{&loop, &state});
}

}  // namespace gantry::bench
