#pragma once
// TimeWeighted: statistics of a piecewise-constant signal over simulated time, such as the
// number of allocated GPUs or the length of a queue.
//
// The signal holds `initial` until the first set(), and each set(t, v) holds v from t until
// the next change: a value is in force on the half-open interval [t, next change). Averages
// weight each value by how long it held, which is what "mean utilisation" must mean (a sample
// average over change points would over-weight busy periods, which change often).
//
//   TimeWeighted gpus;                 // 0 before the first change
//   gpus.set(t0, 8);
//   gpus.set(t0 + hours(1), 16);
//   gpus.average(t0, t0 + hours(2));   // 12
//   gpus.integral(t0, t0 + hours(2));  // 86400 GPU-seconds
//
// Every change point is kept so that any window can be asked about after the fact.
//
//   operation             time
//   set()                 O(1) amortised
//   value_at(t)           O(log k)              k = change points
//   integral/average/max  O(log k + m)          m = change points inside the window
//
// Thread-safety: none; one per loop thread.

#include <cstddef>
#include <vector>

#include "engine/core/time.hpp"

namespace gantry {

class TimeWeighted {
 public:
  explicit TimeWeighted(double initial = 0.0) : initial_(initial) {}

  // The signal takes `value` from time `t` on. Times must not decrease (asserted: the
  // simulation clock never goes backwards). A second set() at the same time replaces the
  // first: only the last value at an instant lasts any time.
  void set(Time t, double value);

  // The value in force at `t` (the last set at or before t; `initial` before any).
  double value_at(Time t) const;
  // The value in force after the last change.
  double current() const { return values_.empty() ? initial_ : values_.back(); }
  // Number of change points recorded.
  std::size_t changes() const { return times_.size(); }

  // Integral of the signal over [start, end), in value·seconds (GPU-seconds for a GPU
  // count). end < start is a programming error (asserted); start == end gives 0.
  double integral(Time start, Time end) const;
  // integral / (end − start) in seconds: the time-weighted mean. For start == end, the value
  // in force at start.
  double average(Time start, Time end) const;
  // The largest value in force at any instant of [start, end) (at start when they are equal).
  double max(Time start, Time end) const;
  // The largest value the signal ever took, `initial` included.
  double max() const { return max_; }

 private:
  // Index of the first change point strictly after t.
  std::size_t first_after(Time t) const;

  double initial_;
  double max_ = initial_;
  std::vector<Time> times_;     // strictly increasing
  std::vector<double> values_;  // values_[i] holds on [times_[i], times_[i + 1])
};

}  // namespace gantry
