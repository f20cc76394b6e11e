#include "workflow/runner/retry.hpp"

#include <cassert>
#include <cmath>

namespace gantry {

Duration retry_wait(const RetrySpec& spec, int k) {
  assert(k >= 1);
  double us = static_cast<double>(spec.delay.micros()) * std::pow(spec.factor, k - 1);
  if (!(us < static_cast<double>(spec.cap.micros()))) return spec.cap;  // also catches inf/nan
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
