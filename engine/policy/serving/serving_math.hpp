#pragma once
// Rounding shared by the serving autoscalers (internal to engine/policy/serving).
//
// Kubernetes and Knative compute replica counts as ceil(x) of a product or quotient of
// float64s, so a representation error decides a whole replica: 72 / 60 · 5 is
// 6.000000000000001 in binary and its ceiling 7. Gantry's metrics are time averages with no
// "true" binary value, so both autoscalers round with a relative allowance of 1e-9: a count that
// is a whole number in exact arithmetic stays that number (ceil_count(6.000000000000001) = 6),
// and the comparison with the tolerance counts a ratio of exactly 1.1 as within 0.1.

#include <cmath>

namespace gantry::serving_math {

inline constexpr double kRelativeSlack = 1e-9;

// Relative to x alone, so a tiny positive x (one request for a microsecond in a 60 s window)
// still rounds up to 1: ceil_count(1e-10) = 1.
inline double slack(double x) { return kRelativeSlack * std::abs(x); }

// ceil(x), with x within the slack above a whole number taken as that number.
inline double ceil_count(double x) { return std::ceil(x - slack(x)); }

// floor(x), with x within the slack below a whole number taken as that number.
inline double floor_count(double x) { return std::floor(x + slack(x)); }

// |ratio - 1| <= tolerance, with the slack.
inline bool within_tolerance(double ratio, double tolerance) {
  return std::abs(ratio - 1.0) <= tolerance + slack(ratio);
}

}  // namespace gantry::serving_math
