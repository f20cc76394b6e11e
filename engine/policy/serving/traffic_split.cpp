#include "engine/policy/serving/traffic_split.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace gantry {

std::vector<int> split_traffic(const std::vector<double>& weights) {
  std::vector<int> percent(weights.size(), 0);
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  assert(total > 0);
  if (!(total > 0)) return percent;

  // Quota of share i: 100 · w_i / total = q_i + r_i / total with q_i whole. The remainders are
  // compared as r_i = 100 · w_i − q_i · total (all over the same denominator), which is exact
  // for whole-number weights, so 1:1:1 ties exactly and goes to the earlier predictor.
  std::vector<double> remainder(weights.size(), 0.0);
  int assigned = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    assert(weights[i] >= 0);
    if (!(weights[i] > 0)) continue;
    const double q = std::floor(100.0 * weights[i] / total);
    percent[i] = static_cast<int>(q);
    remainder[i] = 100.0 * weights[i] - q * total;
    assigned += percent[i];
  }

  // Largest remainder first, ties to the earlier index; only shares with a positive weight.
  std::vector<size_t> order;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] > 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  // The leftover is the sum of the fractional parts, so fewer than the shares that have one;
  // the modulo only guards against rounding in non-integer weights.
  for (int left = 100 - assigned, k = 0; left > 0 && !order.empty(); --left, ++k) {
    ++percent[order[static_cast<size_t>(k) % order.size()]];
  }
  return percent;
}

std::vector<int> canary_split(int count, double canary_percent) {
  assert(count >= 1);
  std::vector<int> percent(static_cast<size_t>(std::max(count, 1)), 0);
  if (count <= 1) {
    percent[0] = 100;
    return percent;
  }
  const int canary = static_cast<int>(std::lround(std::clamp(canary_percent, 0.0, 100.0)));
  percent[percent.size() - 1] = canary;
  percent[percent.size() - 2] = 100 - canary;
  return percent;
}

}  // namespace gantry
