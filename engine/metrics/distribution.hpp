#pragma once
// Distribution: a summary of many samples (wait times, job completion times, step times):
// count, mean, min, max and percentiles.
//
// Percentiles use linear interpolation between closest ranks, the method numbered 7 by
// Hyndman & Fan (1996), the default of R's quantile() and NumPy's percentile(), so results can
// be checked against either. With the n samples sorted as x[0] <= ... <= x[n-1]:
//
//   h = (n - 1) * p / 100
//   percentile(p) = x[floor h] + (h - floor h) * (x[floor h + 1] - x[floor h])
//
// so percentile(0) is the minimum, percentile(100) the maximum, percentile(50) the usual
// median. Example: {1, 2, 3, 4} has p50 = 2.5, p95 = 3.85, p99 = 3.97.
//
// Cost: every sample is kept (8 bytes each), because exact percentiles need them all.
//
//   operation        time
//   add()            O(1) amortised
//   count/mean/...   O(1)
//   percentile()     O(n log n) for the first call after an add(), O(1) after that
//
// The sort happens lazily, once, on the first percentile() after new samples, so a report that
// asks for p50, p90, p99 of 100,000 samples sorts once.
//
// An empty Distribution reports count() = 0, sum() = 0 and NaN for mean, min, max and every
// percentile: there is no honest number to give, and NaN reads as NULL when stored in SQLite.
//
// Thread-safety: none. percentile() is const but sorts the samples in place (a mutable
// cache), so even concurrent readers need outside locking. Gantry uses one per loop thread.

#include <cstddef>
#include <vector>

namespace gantry {

class Distribution {
 public:
  Distribution() = default;

  // Adds one sample. NaN is a programming error (asserted).
  void add(double sample);
  // Drops every sample.
  void clear();

  std::size_t count() const { return samples_.size(); }
  bool empty() const { return samples_.empty(); }
  double sum() const { return sum_; }
  double mean() const;
  double min() const;
  double max() const;

  // p in [0, 100], by the method above. p outside that range is a programming error
  // (asserted; clamped in release builds).
  double percentile(double p) const;
  // Every sample, in no particular order (sorted after a percentile() call).
  const std::vector<double>& samples() const { return samples_; }

 private:
  void sort_if_needed() const;

  // Sorted ascending when sorted_ is true; in insertion order otherwise.
  mutable std::vector<double> samples_;
  mutable bool sorted_ = true;
  double sum_ = 0.0;
  double min_ = 0.0;  // meaningful only when !samples_.empty()
  double max_ = 0.0;
};

}  // namespace gantry
