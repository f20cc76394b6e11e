#include "engine/policy/target_workload.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gantry {

PodClass pod_class_of(const Resources& request, std::vector<std::string> gpu_models) {
  PodClass c;
  c.cpu_milli = request.cpu_milli;
  c.gpus = request.gpus;
  c.gpu_milli = request.gpu_milli;
  if (c.needs_gpu()) {
    std::sort(gpu_models.begin(), gpu_models.end());
    gpu_models.erase(std::unique(gpu_models.begin(), gpu_models.end()), gpu_models.end());
    c.gpu_models = std::move(gpu_models);
  }
  return c;
}

std::vector<WeightedPodClass> typical_pod_classes(std::span<const PodClass> pods, double coverage) {
  std::vector<WeightedPodClass> out;
  if (pods.empty()) return out;
  std::map<PodClass, int64_t> counts;
  for (const PodClass& p : pods) ++counts[p];
  std::vector<std::pair<const PodClass*, int64_t>> order;
  order.reserve(counts.size());
  for (const auto& [cls, count] : counts) order.emplace_back(&cls, count);
  // std::map already orders by class, so a stable sort by count keeps the documented tie rule.
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  const auto total = static_cast<int64_t>(pods.size());
  coverage = std::clamp(coverage, 1e-12, 1.0);
  // Pods the taken classes must hold; the epsilon keeps 0.95 * 20 from becoming 19.000...01.
  const auto needed = static_cast<int64_t>(std::ceil(coverage * static_cast<double>(total) - 1e-9));
  int64_t taken = 0;
  size_t k = 0;
  while (k < order.size() && (k == 0 || taken < needed)) taken += order[k++].second;
  for (size_t i = 0; i < k; ++i)
    out.push_back(WeightedPodClass{
        *order[i].first, static_cast<double>(order[i].second) / static_cast<double>(taken)});
  return out;
}

}  // namespace gantry
