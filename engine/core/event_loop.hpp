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
//   schedule_at / schedule_after   O(1)       push on a radix heap (monotone_queue.hpp)
//   cancel                         O(1)       the timer's sequence number goes in a hash set;
//                                             its queue entry is skipped when it comes up
//   dispatch of the next event     amortised O(bits of time that change), independent of n
//   post                           O(1)       under a mutex; drained before the next event

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "engine/core/clock.hpp"
#include "engine/core/inline_callback.hpp"
#include "engine/core/monotone_queue.hpp"
#include "engine/core/time.hpp"

namespace gantry {

// Identifies a scheduled timer: its time and its place in insertion order. Only ids returned by
// schedule_at()/schedule_after() of the same loop are meaningful.
struct TimerId {
  Time time;
  uint64_t seq = 0;
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

  Time now() const { return clock_->now(); }
  const Clock& clock() const { return *clock_; }

  // Runs `fn` (any callable taking no arguments) at `t` (t >= now()). Returns an id for
  // cancel(). Small trivially copyable callables (a lambda capturing `this` and a few ids) are
  // stored inline and cost no allocation.
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

  // Timers scheduled and not yet run or cancelled.
  size_t pending() const { return live_; }
  // Events dispatched so far (timers and posts).
  uint64_t dispatched() const { return dispatched_; }

 private:
  // Everything about a timer travels inside its queue entry: the queue streams through memory,
  // while any side table indexed by timer would cost a cache miss per event at 10^5+ pending
  // timers. Cancellation needs no table either: a TimerId's (time, seq) tells whether the
  // timer already ran (the loop runs equal times in seq order), and cancelled seqs wait in a
  // hash set until their entries come up.
  struct Entry {
    InlineCallback fn;
    uint64_t seq;
  };

  // Drops cancelled entries from the front of the queue; true if a live entry remains.
  TimerId schedule_callback(Time t, InlineCallback fn);
  bool settle_top();
  void dispatch_top();
  bool drain_posts();
  // Sleeps on a wall clock until `t` or a post/stop. True if `t` was reached.
  bool wait_wall(Time t);

  std::unique_ptr<Clock> clock_;
  MonotoneQueue<Entry> queue_;
  uint64_t next_seq_ = 1;
  Time last_time_ = Time::from_micros(INT64_MIN);  // time and seq of the last timer dispatched
  uint64_t last_seq_ = 0;
  std::unordered_set<uint64_t> cancelled_;  // seqs cancelled but still in queue_
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
