#pragma once
// One replica's request queue: up to `slots` requests run at once (continuous batching), the
// rest wait in arrival order (FIFO). Because requests start in arrival order, the start of the
// next one is max(its arrival, the earliest time a slot frees), and its finish is known at once:
// a min-heap of the slots' free times is the whole state (an M/G/c FIFO queue, exact).
//
// The replica's GPU is busy (ServingMetric::kGpuBusy) from the start of a busy period to its
// end; because starts never go backwards, the busy periods are the running union of the
// [start, finish) intervals, tracked with one number (busy_until).
//
//   admit(): O(log slots). Memory: 8 bytes per slot.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace gantry {

class ReplicaQueue {
 public:
  explicit ReplicaQueue(int slots) : free_at_(static_cast<size_t>(slots > 0 ? slots : 1), 0) {}

  struct Admission {
    int64_t start_us;
    int64_t finish_us;
    // The GPU busy union grew: from `busy_from_us` to finish (a new period when new_period,
    // else an extension of the current one that used to end at busy_from_us).
    bool busy_grew;
    bool new_period;
    int64_t busy_from_us;
  };

  // A request available at `at_us` (its arrival, or when the replica became ready for requests
  // the activator held) that runs for `service_us`.
  Admission admit(int64_t at_us, int64_t service_us) {
    std::pop_heap(free_at_.begin(), free_at_.end(), std::greater<>());
    const int64_t start = std::max(at_us, free_at_.back());
    const int64_t finish = start + service_us;
    free_at_.back() = finish;
    std::push_heap(free_at_.begin(), free_at_.end(), std::greater<>());
    Admission a{start, finish, false, false, 0};
    if (start > busy_until_ || !any_) {
      a = {start, finish, true, true, start};
      busy_until_ = finish;
      any_ = true;
    } else if (finish > busy_until_) {
      a = {start, finish, true, false, busy_until_};
      busy_until_ = finish;
    }
    last_finish_ = std::max(last_finish_, finish);
    return a;
  }

  // When the last admitted request finishes (0 if none was admitted).
  int64_t drained_at() const { return last_finish_; }
  // The end of the GPU's current (or last) busy period (0 if none).
  int64_t busy_until() const { return any_ ? busy_until_ : 0; }
  int slots() const { return static_cast<int>(free_at_.size()); }

 private:
  std::vector<int64_t> free_at_;  // min-heap of the slots' free times
  int64_t busy_until_ = 0;
  int64_t last_finish_ = 0;
  bool any_ = false;
};

}  // namespace gantry
