#include "adapters/kube/backoff.hpp"

#include <algorithm>

namespace gantry::kube {

Backoff::Backoff(BackoffPolicy policy, RandomStream random)
    : policy_(policy), random_(random), base_(policy.initial) {}

Duration Backoff::next() {
  const Duration base = std::min(base_, policy_.max);
  Duration delay = base;
  if (policy_.jitter > 0)
    delay = saturating_add(
        base, Duration::from_seconds(base.seconds() * policy_.jitter * random_.uniform()));
  const Duration grown = Duration::from_seconds(base.seconds() * std::max(1.0, policy_.factor));
  base_ = std::min(grown, policy_.max);
  return delay;
}

}  // namespace gantry::kube
