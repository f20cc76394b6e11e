#pragma once
// The single-threaded event loop that owns all mutable state (DESIGN.md rule 1).
//
// Ordering: events run in order of time, then of insertion (schedule call order). Time never
// goes backwards: scheduling in the past is a programming error (asserted).
//
// Thread safety: every member except post() and stop() must be called from the loop's own
// thread (or before run starts). post() and stop() may be called from any thread.
//
// Cost (n = pending timers):
//   schedule_at / schedule_after   O(1)       a slot in the timer table (timer_table.hpp) for
//                                             the callback, a 16-byte entry in a radix heap
//                                             (monotone_queue.hpp) for the time
//   cancel                         O(1)       the callback is released at once; the heap entry
//                                             is dropped when it comes up
//   dispatch of the next event     amortised O(bits of time that change) entry moves,
//                                             independent of n, plus one table read that the
//                                             heap has had prefetched
//   post                           O(1)       under a mutex; drained before the next event
// Memory: 16 bytes per pending timer in the heap, 32 in the table (both kept for reuse at the
// peak number pending).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/core/clock.hpp"
#include "engine/core/inline_callback.hpp"
#include "engine/core/monotone_queue.hpp"
#include "engine/core/time.hpp"
#include "engine/core/timer_table.hpp"

namespace gantry {

// Identifies a scheduled timer for cancel(): its place in insertion order and its slot in the
// loop's timer table. Only ids returned by schedule_at()/schedule_after() of the same loop are
// meaningful; a default-constructed id names no timer.
struct TimerId {
  uint64_t seq = 0;
  uint32_t slot = 0;
};

class EventLoop {
 public:
  // For post(), which crosses threads and is off the hot path.
  using Callback = std::function<void()>;

  // The loop owns its clock.
  explicit EventLoop(std::unique_ptr<Clock> clock);
  // Convenience: a loop on a VirtualClock starting at `start`.
  static std::unique_ptr<EventLoop> virtual_time(Time start);

  ~EventLoop();
  EventLoop(EventLoop&&) = delete;
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  Time now() const { return virtual_clock_ != nullptr ? virtual_clock_->now() : clock_->now(); }
  const Clock& clock() const { return *clock_; }

  // Runs `fn` (any callable taking no arguments) at `t` (t >= now() on a virtual clock; on a
  // wall clock an instant already past runs at once, after what is due). Returns an id for
  // cancel(). Trivially copyable callables of up to 16 bytes (a lambda capturing `this` and an
  // id) are stored inline and cost no allocation; others are moved to the heap once.
  template <typename F>
  TimerId schedule_at(Time t, F&& fn) {
    return schedule_callback(t, InlineCallback::make(std::forward<F>(fn)));
  }
  // now() + d, saturating at Time::max() rather than wrapping into the past.
  template <typename F>
  TimerId schedule_after(Duration d, F&& fn) {
    return schedule_at(saturating_add(now(), d), std::forward<F>(fn));
  }

  // Cancels a pending timer. Returns false if it already ran, was cancelled, or never existed.
  bool cancel(TimerId id);

  // Thread-safe: queues `fn` to run on the loop thread at the loop's current time, before the
  // next timer, and wakes a loop sleeping on a wall clock.
  void post(Callback fn);

  // Thread-safe: makes run()/run_until() return after the event in progress.
  void stop();

  // Runs events with time <= horizon. A virtual clock then jumps to the horizon (if finite) and
  // the call returns when nothing is left before it; a wall clock sleeps until the horizon,
  // serving posts as they come. Returns early after stop().
  void run_until(Time horizon);
  // run_until(Time::max()): virtual loops return when idle, wall loops run until stop().
  void run() { run_until(Time::max()); }
  // Runs exactly the next due event (timer or post), if any. Returns false if there was none.
  // For tests that step the loop by hand.
  bool run_one();
  // When the next timer in the queue is due, or nullopt when the queue is empty; it may be a
  // cancelled timer's instant (running the loop to it then does nothing). Only looks: timers
  // may still be scheduled before it. For tests that step the loop by hand.
  std::optional<Time> next_timer() const;

  // Timers scheduled and not yet run or cancelled.
  size_t pending() const { return live_; }
  // Events dispatched so far (timers and posts).
  uint64_t dispatched() const { return dispatched_; }

 private:
  // The heap tells the table which callbacks will be read soon.
  struct PrefetchTimer {
    const TimerTable* table;
    void operator()(uint32_t slot) const { table->prefetch(slot); }
  };

  TimerId schedule_callback(Time t, InlineCallback fn);
  // Drops cancelled entries from the front of the queue; true if a live entry remains.
  bool settle_top();
  // Runs the timer in `slot`, just popped from the queue at time t.
  void dispatch(Time t, uint32_t slot);
  bool drain_posts();
  // clock_->jump_to(t), without a virtual call when the clock is virtual.
  void advance_to(Time t) {
    if (virtual_clock_ != nullptr) {
      virtual_clock_->jump_to(t);
    } else {
      clock_->jump_to(t);
    }
  }
  // Sleeps on a wall clock until `t` or a post/stop. True if `t` was reached.
  bool wait_wall(Time t);

  std::unique_ptr<Clock> clock_;
  // clock_ when it is a VirtualClock (a final class), so the hot path reads and moves simulated
  // time without a virtual call; null otherwise.
  VirtualClock* virtual_clock_;
  TimerTable timers_;
  MonotoneQueue<uint32_t, PrefetchTimer> queue_{PrefetchTimer{&timers_}};  // slots by time
  uint64_t next_seq_ = 1;
  size_t live_ = 0;
  uint64_t dispatched_ = 0;

  // Cross-thread state, guarded by mutex_; the atomic lets the hot path skip the lock.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Callback> posted_;
  std::atomic<bool> has_posted_{false};
  std::atomic<bool> stop_{false};
};

}  // namespace gantry
