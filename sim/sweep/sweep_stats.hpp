#pragma once
// Mean and 95 % confidence interval of a metric over a point's seeds: the half-width of
// Student's t interval, t(0.975, n − 1) × s / √n, with s the sample standard deviation. The
// seeds' runs are independent replications (each seed draws its own workload and failures),
// which is what the interval assumes. Runs without a value for the metric (NaN: no job started,
// so there is no wait) are left out of n.

#include <vector>

namespace gantry {

struct MetricStats {
  double mean = 0;  // NaN when n == 0
  double ci95 = 0;  // half-width; NaN when n < 2 (one run says nothing about the spread)
  double sd = 0;    // sample standard deviation; NaN when n < 2
  int n = 0;
};

MetricStats metric_stats(const std::vector<double>& values);

// The half-width of the two-sided interval at `confidence` (0.95: ci95): t((1 + confidence) / 2,
// n − 1) × sd / √n; infinite when n < 2.
double half_width(const MetricStats& s, double confidence);

// t(0.975, df), the quantile the 95 % interval uses; df >= 1.
double student_t975(int df);

}  // namespace gantry
