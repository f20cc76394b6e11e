#include "engine/core/event_loop.hpp"

#include <algorithm>
#include <cassert>

namespace gantry {

EventLoop::EventLoop(std::unique_ptr<Clock> clock) : clock_(std::move(clock)) {}

EventLoop EventLoop::virtual_time(Time start) {
  return EventLoop(std::make_unique<VirtualClock>(start));
}

TimerId EventLoop::schedule_at(Time t, Callback fn) {
  assert(t >= now() && "time never goes backwards");
  if (t < now()) t = now();  // release builds: run late rather than out of order
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.fn = std::move(fn);
  s.armed = true;
  heap_.push_back(Entry{t.micros(), next_seq_++, slot, s.generation});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  ++live_;
  return (static_cast<uint64_t>(s.generation) << 32) | slot;
}

bool EventLoop::cancel(TimerId id) {
  const auto slot = static_cast<uint32_t>(id & 0xffffffffu);
  const auto generation = static_cast<uint32_t>(id >> 32);
  if (slot >= slots_.size()) return false;
  Slot& s = slots_[slot];
  if (!s.armed || s.generation != generation) return false;
  s.fn = nullptr;
  s.armed = false;
  ++s.generation;  // the heap entry now carries a stale generation and is skipped
  free_slots_.push_back(slot);
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
  while (!heap_.empty()) {
    const Entry& top = heap_.front();
    if (slots_[top.slot].generation == top.generation) return true;
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
  }
  return false;
}

void EventLoop::dispatch_top() {
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  const Entry e = heap_.back();
  heap_.pop_back();
  Slot& s = slots_[e.slot];
  Callback fn = std::move(s.fn);
  s.fn = nullptr;
  s.armed = false;
  ++s.generation;
  free_slots_.push_back(e.slot);
  --live_;
  clock_->jump_to(Time::from_micros(e.time));
  ++dispatched_;
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
    drain_posts();
    if (stop_.load(std::memory_order_acquire)) break;
    const bool due = settle_top() && heap_.front().time <= horizon.micros();
    if (due) {
      if (!is_virtual && !wait_wall(Time::from_micros(heap_.front().time))) continue;
      // The wait may have let posted work in; it runs first, at the current time.
      if (has_posted_.load(std::memory_order_acquire)) continue;
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
