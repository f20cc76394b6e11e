#include "sim/sweep/sweep_stats.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

namespace gantry {

double student_t975(int df) {
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), 0.975);
}

MetricStats metric_stats(const std::vector<double>& values) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  MetricStats out{.mean = kNaN, .ci95 = kNaN, .n = 0};
  double sum = 0;
  for (double v : values)
    if (!std::isnan(v)) {
      sum += v;
      ++out.n;
    }
  if (out.n == 0) return out;
  out.mean = sum / out.n;
  if (out.n < 2) return out;
  double squares = 0;
  for (double v : values)
    if (!std::isnan(v)) squares += (v - out.mean) * (v - out.mean);
  const double sd = std::sqrt(squares / (out.n - 1));
  out.ci95 = student_t975(out.n - 1) * sd / std::sqrt(static_cast<double>(out.n));
  return out;
}

}  // namespace gantry
