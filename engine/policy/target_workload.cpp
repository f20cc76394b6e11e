#include "engine/policy/target_workload.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

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

namespace {

// The order the FGD authors' simulator sorts equal-count classes by, descending
// (hkust-adsl/kubernetes-scheduler-simulator, pkg/type/resource.go, PodResource.Less): CPU, GPU
// milli per GPU (the share, or 1000 for whole GPUs), GPU count (1 for a share), GPU models.
std::tuple<int64_t, int32_t, int32_t, std::string> authors_key(const PodClass& c) {
  const int32_t milli_per_gpu = c.gpu_milli > 0 ? c.gpu_milli : (c.gpus > 0 ? kMilliPerGpu : 0);
  const int32_t gpu_count = c.gpu_milli > 0 ? 1 : c.gpus;
  std::string models;
  for (const std::string& m : c.gpu_models) models += (models.empty() ? "" : "|") + m;
  return {c.cpu_milli, milli_per_gpu, gpu_count, models};
}

}  // namespace

std::vector<WeightedPodClass> typical_pod_classes(std::span<const PodClass> pods, double coverage) {
  std::vector<WeightedPodClass> out;
  if (pods.empty()) return out;
  std::map<PodClass, int64_t> counts;
  for (const PodClass& p : pods) ++counts[p];
  std::vector<std::pair<const PodClass*, int64_t>> order;
  order.reserve(counts.size());
  for (const auto& [cls, count] : counts) order.emplace_back(&cls, count);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return authors_key(*b.first) < authors_key(*a.first);  // equal counts: larger key first
  });

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
