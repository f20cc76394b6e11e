#include "adapters/kube/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace gantry::kube {

TokenBucket::TokenBucket(double qps, int burst, const Clock& clock) : clock_(clock) {
  if (qps > 0) {
    interval_ = Duration(std::max<int64_t>(1, std::llround(1e6 / qps)));
    capacity_ = interval_ * std::max(1, burst);
  }
  credit_ = capacity_;
  last_ = clock_.now();
}

Duration TokenBucket::reserve() {
  if (interval_ == Duration(0)) return Duration(0);
  std::lock_guard lock(mutex_);
  const Time now = clock_.now();
  if (now > last_) {
    credit_ = std::min(capacity_, credit_ + (now - last_));
    last_ = now;
  }
  credit_ -= interval_;
  return credit_ >= Duration(0) ? Duration(0) : Duration(0) - credit_;
}

}  // namespace gantry::kube
