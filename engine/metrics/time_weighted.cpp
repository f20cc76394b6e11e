#include "engine/metrics/time_weighted.hpp"

#include <algorithm>
#include <cassert>

namespace gantry {

void TimeWeighted::set(Time t, double value) {
  assert((times_.empty() || t >= times_.back()) && "TimeWeighted::set: time went backwards");
  max_ = std::max(max_, value);
  if (!times_.empty() && t == times_.back()) {
    values_.back() = value;
    return;
  }
  times_.push_back(t);
  values_.push_back(value);
}

std::size_t TimeWeighted::first_after(Time t) const {
  return static_cast<std::size_t>(std::upper_bound(times_.begin(), times_.end(), t) -
                                  times_.begin());
}

double TimeWeighted::value_at(Time t) const {
  const std::size_t i = first_after(t);
  return i == 0 ? initial_ : values_[i - 1];
}

double TimeWeighted::integral(Time start, Time end) const {
  assert(start <= end && "TimeWeighted::integral: end before start");
  if (end <= start) return 0.0;
  std::size_t i = first_after(start);
  double value = i == 0 ? initial_ : values_[i - 1];
  Time from = start;
  // Sum value × microseconds per segment, then convert once: fewer roundings than converting
  // each segment to seconds.
  double total_us = 0.0;
  for (; i < times_.size() && times_[i] < end; ++i) {
    total_us += value * static_cast<double>((times_[i] - from).micros());
    from = times_[i];
    value = values_[i];
  }
  total_us += value * static_cast<double>((end - from).micros());
  return total_us / 1e6;
}

double TimeWeighted::average(Time start, Time end) const {
  assert(start <= end && "TimeWeighted::average: end before start");
  if (end <= start) return value_at(start);
  return integral(start, end) / (end - start).seconds();
}

double TimeWeighted::max(Time start, Time end) const {
  assert(start <= end && "TimeWeighted::max: end before start");
  std::size_t i = first_after(start);
  double best = i == 0 ? initial_ : values_[i - 1];
  for (; i < times_.size() && times_[i] < end; ++i) best = std::max(best, values_[i]);
  return best;
}

}  // namespace gantry
