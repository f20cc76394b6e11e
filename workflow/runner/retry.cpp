#include "workflow/runner/retry.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace gantry {

Duration retry_wait(const RetrySpec& spec, int k) {
  assert(k >= 1);
  const Duration cap = std::max(spec.cap, Duration(0));
  // A zero delay stays zero whatever the factor: factor^(k−1) overflows to infinity after
  // about a thousand retries, and 0 · inf is NaN, which used to read as "at the cap".
  if (spec.delay <= Duration(0)) return Duration(0);
  const double growth = std::pow(spec.factor, k - 1);  // may be +inf: saturates below
  const double us = static_cast<double>(spec.delay.micros()) * growth;
  if (std::isnan(us) || us >= static_cast<double>(cap.micros())) return cap;
  return Duration(static_cast<int64_t>(std::llround(us)));
}

bool retry_applies(RetryPolicy policy, AttemptState state) {
  switch (policy) {
    case RetryPolicy::kOnFailure:
      return state == AttemptState::kFailed || state == AttemptState::kTimeout;
    case RetryPolicy::kOnError:
      return state == AttemptState::kError;
    case RetryPolicy::kAlways:
      return state == AttemptState::kFailed || state == AttemptState::kTimeout ||
             state == AttemptState::kError;
  }
  return false;
}

std::optional<Time> next_attempt_start(const RetrySpec& spec, AttemptState last_state,
                                       Time last_end, Time first_start, int retries_done) {
  if (!retry_applies(spec.policy, last_state)) return std::nullopt;
  if (retries_done >= spec.limit) return std::nullopt;
  Time next = last_end + retry_wait(spec, retries_done + 1);
  if (spec.max_duration && next > first_start + *spec.max_duration) return std::nullopt;
  return next;
}

}  // namespace gantry
