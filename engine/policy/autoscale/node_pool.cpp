#include "engine/policy/autoscale/node_pool.hpp"

#include <algorithm>
#include <cassert>

namespace gantry {

Labels pool_node_labels(const NodePoolSpec& pool) {
  Labels labels = pool.labels;
  labels[kNodePoolLabel] = pool.name;
  labels[kCapacityTypeLabel] = to_string(pool.capacity);
  return labels;
}

const char* to_string(CapacityType c) {
  switch (c) {
    case CapacityType::kOnDemand:
      return "on-demand";
    case CapacityType::kSpot:
      return "spot";
  }
  return "?";
}

DelayDistribution DelayDistribution::constant(Duration d) {
  DelayDistribution out;
  out.kind = Kind::kFixed;
  out.fixed = d;
  return out;
}

DelayDistribution DelayDistribution::uniform(Duration low, Duration high) {
  DelayDistribution out;
  out.kind = Kind::kUniform;
  out.low = low;
  out.high = high;
  return out;
}

DelayDistribution DelayDistribution::lognormal(Duration median, Duration p90) {
  DelayDistribution out;
  out.kind = Kind::kLogNormal;
  out.median = median;
  out.p90 = p90;
  return out;
}

Duration DelayDistribution::draw(RandomStream& rng) const {
  switch (kind) {
    case Kind::kFixed:
      return std::max(fixed, Duration{});
    case Kind::kUniform:
      assert(low <= high);
      return Duration(rng.uniform_int(low.micros(), high.micros()));
    case Kind::kLogNormal:
      assert(median.micros() > 0 && p90 >= median);
      return Duration::from_seconds(rng.lognormal_median_p90(median.seconds(), p90.seconds()));
  }
  return Duration{};
}

NodeDraw draw_node(const NodePoolSpec& pool, Time requested, RandomStream& rng) {
  NodeDraw d;
  d.up = saturating_add(requested, pool.provisioning.draw(rng));
  if (!pool.spot()) return d;
  assert(pool.reclaim.mean_time_to_reclaim.micros() > 0);
  const Duration life =
      Duration::from_seconds(rng.exponential(pool.reclaim.mean_time_to_reclaim.seconds()));
  d.reclaim = saturating_add(d.up, life);
  const Duration warn = std::min(pool.reclaim.notice, life);
  d.notice = *d.reclaim - warn;
  return d;
}

}  // namespace gantry
