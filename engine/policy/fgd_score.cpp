#include "engine/policy/fgd_score.hpp"

#include <algorithm>
#include <cmath>

namespace gantry {

FgdScore::FgdScore(int64_t weight_total) : empty_(weight_total <= 0) {
  // sigmoid(x) >= s/100  <=>  x >= ln(s / (100 − s)); x in GPUs = reduction / (1000 · W).
  const double per_gpu = 1000.0 * static_cast<double>(weight_total);
  for (int s = 1; s <= 99; ++s)
    thresholds_[static_cast<size_t>(s - 1)] = std::log(s / (100.0 - s)) * per_gpu;
}

int FgdScore::score(int64_t delta_scaled) const {
  if (empty_) return 50;  // no target workload: nothing ever fragments, sigmoid(0)
  // Reductions are below 2^53 (8,000 milli-GPU times about 2^30), so exact as doubles.
  const double reduction = -static_cast<double>(delta_scaled);
  return static_cast<int>(std::upper_bound(thresholds_.begin(), thresholds_.end(), reduction) -
                          thresholds_.begin());
}

}  // namespace gantry
