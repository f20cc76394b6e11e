#include "engine/policy/serving/hpa_autoscaler.hpp"

#include <algorithm>
#include <cassert>

#include "engine/policy/serving/serving_math.hpp"

namespace gantry {

namespace sm = serving_math;

HpaAutoscaler::HpaAutoscaler(const AutoscalerSpec& spec) : spec_(spec) {
  assert(spec_.min_replicas >= 0 && spec_.min_replicas <= spec_.max_replicas);
  assert(spec_.sync_period > Duration(0));
}

int HpaAutoscaler::scale_up_limit(int period_start) {
  // Policies {Pods 4, Percent 100} per 15 s, selectPolicy Max; the percent proposal rounds up.
  const int by_pods = period_start + 4;
  const int by_percent = period_start * 2;
  return std::max(by_pods, by_percent);
}

int HpaAutoscaler::proposal(Time now, const ReplicaCounts& counts,
                            const ServingMetrics& metrics) const {
  const int current = counts.desired;
  const int ready = counts.ready;
  const int starting = counts.starting;
  if (ready <= 0) return current;

  // Usage summed over the ready pods (in the target's unit) and the target per pod.
  double usage = 0;
  double target = 0;
  switch (spec_.hpa_metric) {
    case HpaMetric::kGpu:
      usage = 100.0 * metrics.average(ServingMetric::kGpuBusy, now, spec_.sync_period);
      target = spec_.target_utilization;
      break;
    case HpaMetric::kCpu:
      usage = 100.0 * metrics.average(ServingMetric::kSlotsBusy, now, spec_.sync_period);
      target = spec_.target_utilization;
      break;
    case HpaMetric::kQps:
      usage = metrics.average(ServingMetric::kArrivals, now, spec_.sync_period);
      target = spec_.target_qps;
      break;
  }
  assert(target > 0);
  if (!(target > 0)) return current;

  const double usage_ratio = usage / ready / target;
  if (starting <= 0 || usage_ratio <= 1.0) {
    if (sm::within_tolerance(usage_ratio, spec_.tolerance)) return current;
    // ceil(usageRatio · ready), computed as usage / target: one rounding, not two.
    return static_cast<int>(sm::ceil_count(usage / target));
  }

  // Scale-up with starting pods: they count as pods using 0.
  const double new_ratio = usage / (ready + starting) / target;
  if (sm::within_tolerance(new_ratio, spec_.tolerance) || new_ratio < 1.0) return current;
  const int replicas = static_cast<int>(sm::ceil_count(usage / target));
  return std::max(replicas, current);
}

int HpaAutoscaler::stabilise(Time now, int current, int proposed) {
  // Keep the proposals of (now − window, now]; upstream drops those at or before the cutoff.
  const Time cutoff = now - spec_.scale_down_stabilization;
  while (!recommendations_.empty() && recommendations_.front().at <= cutoff) {
    recommendations_.pop_front();
  }
  int highest = proposed;
  for (const Recommendation& r : recommendations_) highest = std::max(highest, r.replicas);
  recommendations_.push_back({now, proposed});
  // Scale-up stabilisation window 0: a proposal at or above current is taken as it is.
  if (proposed >= current) return proposed;
  return std::min(current, highest);
}

int HpaAutoscaler::rate_limit(Time now, int current, int stabilised) const {
  const Time cutoff = now - kHpaPolicyPeriod;
  int added = 0;
  int removed = 0;
  for (const ScaleEvent& e : events_) {
    if (e.at <= cutoff) continue;
    if (e.change > 0) added += e.change;
    if (e.change < 0) removed -= e.change;
  }
  const int period_start = current - added + removed;
  if (stabilised > current) {
    const int limit = std::max(scale_up_limit(period_start), current);
    return std::min({stabilised, limit, spec_.max_replicas});
  }
  if (stabilised < current) {
    // Percent 100 per period: periodStart · (1 − 1) = 0 removes everything; only min binds.
    return std::max(stabilised, spec_.min_replicas);
  }
  return stabilised;
}

int HpaAutoscaler::decide(Time now, const ReplicaCounts& counts, const ServingMetrics& metrics) {
  const int current = counts.desired;
  if (!initialised_) {
    recommendations_.push_back({now, current});
    initialised_ = true;
  }

  int desired = current;
  if (current == 0) {
    desired = spec_.min_replicas;
  } else if (current > spec_.max_replicas) {
    desired = spec_.max_replicas;
  } else if (current < spec_.min_replicas) {
    desired = spec_.min_replicas;
  } else {
    const int proposed = proposal(now, counts, metrics);
    desired = rate_limit(now, current, stabilise(now, current, proposed));
  }

  if (desired != current) {
    const Time cutoff = now - kHpaPolicyPeriod;
    while (!events_.empty() && events_.front().at <= cutoff) events_.pop_front();
    events_.push_back({now, desired - current});
  }
  return desired;
}

}  // namespace gantry
