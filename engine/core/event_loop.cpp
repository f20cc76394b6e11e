#include "engine/core/event_loop.hpp"

#include <cassert>
#include <cstdint>

namespace gantry {

EventLoop::EventLoop(std::unique_ptr<Clock> clock)
    : clock_(std::move(clock)), virtual_clock_(dynamic_cast<VirtualClock*>(clock_.get())) {}

std::unique_ptr<EventLoop> EventLoop::virtual_time(Time start) {
  return std::make_unique<EventLoop>(std::make_unique<VirtualClock>(start));
}

// The timer table releases the callbacks of timers still pending.
EventLoop::~EventLoop() = default;

TimerId EventLoop::schedule_callback(Time t, InlineCallback fn) {
  // On a virtual clock an instant before now is a bug: time never goes backwards. On a wall
  // clock now() moves while code runs, so an instant read a moment ago (now + 0) is already
  // past: it runs at once, after what is due, like a late one in a release build.
  assert((virtual_clock_ == nullptr || t >= now()) && "time never goes backwards");
  if (t < now()) t = now();
  const uint64_t seq = next_seq_++;
  const uint32_t slot = timers_.add(fn, seq);
  queue_.push(t.micros(), slot);
  ++live_;
  return TimerId{seq, slot};
}

bool EventLoop::cancel(TimerId id) {
  // The table's seq check rejects ids of timers that ran or were cancelled, even once their
  // slot holds another timer.
  if (!timers_.holds(id.slot, id.seq)) return false;
  timers_.cancel(id.slot);
  --live_;
  return true;
}

void EventLoop::post(Callback fn) {
  {
    std::lock_guard lock(mutex_);
    posted_.push_back(std::move(fn));
    has_posted_.store(true, std::memory_order_release);
  }
  wake_.notify_one();
}

void EventLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_.store(true, std::memory_order_release);
  }
  wake_.notify_one();
}

bool EventLoop::settle_top() {
  while (!queue_.empty()) {
    const uint32_t slot = queue_.top_value();
    if (!timers_.cancelled(slot)) return true;
    queue_.pop();
    timers_.free(slot);
  }
  return false;
}

void EventLoop::dispatch(Time t, uint32_t slot) {
  InlineCallback fn = timers_.take(slot);
  --live_;
  advance_to(t);
  ++dispatched_;
  // Released even when the callback throws (a store that cannot write, caught by whoever runs
  // the loop): a heap-held callable must not leak.
  struct ReleaseOnExit {
    InlineCallback& fn;
    ~ReleaseOnExit() { fn.release(); }
  } release_on_exit{fn};
  fn();
}

bool EventLoop::drain_posts() {
  if (!has_posted_.load(std::memory_order_acquire)) return false;
  std::vector<Callback> batch;
  {
    std::lock_guard lock(mutex_);
    batch.swap(posted_);
    has_posted_.store(false, std::memory_order_release);
  }
  for (auto& fn : batch) {
    ++dispatched_;
    fn();
  }
  return !batch.empty();
}

bool EventLoop::wait_wall(Time t) {
  const auto deadline = *clock_->wall_deadline(t);
  std::unique_lock lock(mutex_);
  const auto woken = [&] {
    return has_posted_.load(std::memory_order_acquire) || stop_.load(std::memory_order_acquire);
  };
  if (deadline == std::chrono::steady_clock::time_point::max()) {
    wake_.wait(lock, woken);
    return false;
  }
  return !wake_.wait_until(lock, deadline, woken);
}

void EventLoop::run_until(Time horizon) {
  stop_.store(false, std::memory_order_release);
  const bool is_virtual = !clock_->wall_deadline(now()).has_value();
  while (!stop_.load(std::memory_order_acquire)) {
    if (has_posted_.load(std::memory_order_acquire)) drain_posts();
    if (stop_.load(std::memory_order_acquire)) break;
    // Look at the next timer without committing the queue to it (peek_key): until its time has
    // come, posts and callbacks may still schedule earlier timers.
    const int64_t next_key = queue_.empty() ? INT64_MAX : queue_.peek_key();
    if (!queue_.empty() && next_key <= horizon.micros()) {
      const Time next = Time::from_micros(next_key);
      if (!is_virtual && !wait_wall(next)) continue;
      // The wait may have let posted work in; it runs first, at the current time.
      if (has_posted_.load(std::memory_order_acquire)) continue;
      // Its time has come: skip it if cancelled, else run it.
      const uint32_t slot = queue_.top_value();
      queue_.pop();
      if (timers_.cancelled(slot)) {
        timers_.free(slot);
        advance_to(next);  // keeps the clock at or past the queue's floor
        continue;
      }
      dispatch(next, slot);
      continue;
    }
    if (is_virtual) {
      if (horizon != Time::max()) clock_->jump_to(horizon);
      return;
    }
    if (wait_wall(horizon)) return;
  }
}

std::optional<Time> EventLoop::next_timer() const {
  // A peek: taking the top (even to drop a cancelled timer) would raise the queue's floor, and
  // a timer scheduled afterwards between now and that instant would come out late.
  if (queue_.empty()) return std::nullopt;
  return Time::from_micros(queue_.peek_key());
}

bool EventLoop::run_one() {
  if (drain_posts()) return true;
  if (!settle_top()) return false;
  const Time t = Time::from_micros(queue_.top_key());
  const uint32_t slot = queue_.top_value();
  queue_.pop();
  dispatch(t, slot);
  return true;
}

}  // namespace gantry
