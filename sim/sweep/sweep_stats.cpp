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
  MetricStats out{.mean = kNaN, .ci95 = kNaN, .sd = kNaN, .n = 0};
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
  out.sd = std::sqrt(squares / (out.n - 1));
  out.ci95 = half_width(out, 0.95);
  return out;
}

double half_width(const MetricStats& s, double confidence) {
  if (s.n < 2) return std::numeric_limits<double>::infinity();
  const boost::math::students_t_distribution<double> t(s.n - 1);
  return boost::math::quantile(t, (1 + confidence) / 2) * s.sd /
         std::sqrt(static_cast<double>(s.n));
}

}  // namespace gantry
