#include "engine/policy/serving/kpa_autoscaler.hpp"

#include <algorithm>
#include <cassert>

#include "engine/policy/serving/serving_math.hpp"

namespace gantry {

namespace sm = serving_math;

KpaAutoscaler::KpaAutoscaler(const AutoscalerSpec& spec) : spec_(spec) {
  assert(spec_.min_replicas >= 0 && spec_.min_replicas <= spec_.max_replicas);
  assert(spec_.tick > Duration(0));
}

int KpaAutoscaler::decide(Time now, const ReplicaCounts& counts, const ServingMetrics& metrics) {
  const double ready_pods = std::max(1, counts.ready);
  const double stable = metrics.average(ServingMetric::kConcurrency, now, spec_.stable_window);
  const double panic = metrics.average(ServingMetric::kConcurrency, now, spec_.panic_window);
  const double target = spec_.target_concurrency * spec_.target_utilization_percent / 100.0;
  assert(target > 0);

  const double max_scale_up = sm::ceil_count(spec_.max_scale_up_rate * ready_pods);
  const double max_scale_down =
      spec_.max_scale_down_rate > 0 ? sm::floor_count(ready_pods / spec_.max_scale_down_rate) : 0;
  const double dspc = sm::ceil_count(stable / target);
  const double dppc = sm::ceil_count(panic / target);
  const int desired_stable =
      static_cast<int>(std::min(std::max(dspc, max_scale_down), max_scale_up));
  const int desired_panic =
      static_cast<int>(std::min(std::max(dppc, max_scale_down), max_scale_up));

  const bool over_threshold = dppc / ready_pods >= spec_.panic_threshold;
  if (over_threshold) {
    panic_time_ = now;  // enter, or extend
  } else if (panic_time_ && *panic_time_ + spec_.stable_window < now) {
    panic_time_.reset();
    max_panic_pods_ = 0;
  }

  int desired = desired_stable;
  if (panic_time_) {
    max_panic_pods_ = std::max({max_panic_pods_, desired_stable, desired_panic});
    desired = max_panic_pods_;
  }
  if (spec_.scale_down_delay > Duration(0)) {
    // Upstream's delayWindow: the highest desire recorded within the delay, this one included.
    while (!recent_.empty() && recent_.front().first <= now - spec_.scale_down_delay)
      recent_.pop_front();
    while (!recent_.empty() && recent_.back().second <= desired) recent_.pop_back();
    recent_.emplace_back(now, desired);
    desired = recent_.front().second;
  }
  desired = std::clamp(desired, spec_.min_replicas, spec_.max_replicas);

  if (desired > 0) {
    zero_since_.reset();
    return desired;
  }
  // Scale to zero: the last replica goes after the grace period.
  if (!zero_since_) zero_since_ = now;
  if (counts.desired == 0 || now - *zero_since_ >= spec_.scale_to_zero_grace) return 0;
  return std::clamp(counts.desired, spec_.min_replicas, spec_.max_replicas);
}

}  // namespace gantry
