#include "engine/core/event_loop.hpp"

#include <cstdint>

#include <cassert>

namespace gantry {

EventLoop::EventLoop(std::unique_ptr<Clock> clock) : clock_(std::move(clock)) {}

std::unique_ptr<EventLoop> EventLoop::virtual_time(Time start) {
  return std::make_unique<EventLoop>(std::make_unique<VirtualClock>(start));
}

EventLoop::~EventLoop() {
  while (!queue_.empty()) {
    queue_.top_value().fn.release();
    queue_.pop();
  }
}

TimerId EventLoop::schedule_callback(Time t, InlineCallback fn) {
  assert(t >= now() && "time never goes backwards");
  if (t < now()) t = now();  // release builds: run late rather than out of order
  const uint64_t seq = next_seq_++;
  queue_.push(t.micros(), Entry{fn, seq});
  ++live_;
  return TimerId{t, seq};
}

bool EventLoop::cancel(TimerId id) {
  // Timers run in (time, seq) order, so one ran iff it is not after the last one dispatched.
  if (id.seq == 0 || id.seq >= next_seq_) return false;
  if (id.time < last_time_ || (id.time == last_time_ && id.seq <= last_seq_)) return false;
  if (!cancelled_.insert(id.seq).second) return false;  // cancelled before
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
    if (cancelled_.empty()) return true;
    Entry& top = queue_.top_value();
    if (cancelled_.erase(top.seq) == 0) return true;
    top.fn.release();
    queue_.pop();
  }
  return false;
}

void EventLoop::dispatch_top() {
  const Time t = Time::from_micros(queue_.top_key());
  InlineCallback fn = queue_.top_value().fn;
  last_time_ = t;
  last_seq_ = queue_.top_value().seq;
  --live_;
  queue_.pop();
  clock_->jump_to(t);
  ++dispatched_;
  fn();
  fn.release();
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
    drain_posts();
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
      Entry& top = queue_.top_value();
      if (!cancelled_.empty() && cancelled_.erase(top.seq) != 0) {
        top.fn.release();
        queue_.pop();
        clock_->jump_to(next);  // keeps the clock at or past the queue's floor
        continue;
      }
      dispatch_top();
      continue;
    }
    if (is_virtual) {
      if (horizon != Time::max()) clock_->jump_to(horizon);
      return;
    }
    if (wait_wall(horizon)) return;
  }
}

bool EventLoop::run_one() {
  if (drain_posts()) return true;
  if (!settle_top()) return false;
  dispatch_top();
  return true;
}

}  // namespace gantry
