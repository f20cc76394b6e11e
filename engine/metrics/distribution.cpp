#include "engine/metrics/distribution.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace gantry {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

void Distribution::add(double sample) {
  assert(!std::isnan(sample) && "Distribution::add(NaN)");
  if (samples_.empty()) {
    min_ = max_ = sample;
  } else {
    min_ = std::min(min_, sample);
    max_ = std::max(max_, sample);
    // Still sorted if samples arrive in order (e.g. times): then no sort is ever needed.
    if (sorted_ && sample < samples_.back()) sorted_ = false;
  }
  samples_.push_back(sample);
  sum_ += sample;
}

void Distribution::clear() {
  samples_.clear();
  sorted_ = true;
  sum_ = min_ = max_ = 0.0;
}

double Distribution::mean() const {
  return samples_.empty() ? kNaN : sum_ / static_cast<double>(samples_.size());
}

double Distribution::min() const { return samples_.empty() ? kNaN : min_; }

double Distribution::max() const { return samples_.empty() ? kNaN : max_; }

void Distribution::sort_if_needed() const {
  if (sorted_) return;
  std::sort(samples_.begin(), samples_.end());
  sorted_ = true;
}

double Distribution::percentile(double p) const {
  assert(p >= 0.0 && p <= 100.0 && "percentile p must be in [0, 100]");
  if (samples_.empty()) return kNaN;
  // Release builds clamp; written so that a NaN p becomes 0 rather than an index.
  if (!(p >= 0.0)) p = 0.0;
  if (p > 100.0) p = 100.0;
  sort_if_needed();
  const std::size_t n = samples_.size();
  const double h = static_cast<double>(n - 1) * p / 100.0;
  const double lower = std::floor(h);
  const auto i = static_cast<std::size_t>(lower);
  if (i + 1 >= n) return samples_[n - 1];  // p = 100, or a single sample
  return samples_[i] + (h - lower) * (samples_[i + 1] - samples_[i]);
}

}  // namespace gantry
