#pragma once
// The "target workload" of fragmentation-aware placement (FGD, Weng et al., "Beware of
// Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX
// ATC'23, §4): the request classes of "typical pods", each with its frequency.
//
// A class is keyed like the paper's simulator keys its target pods: CPU request, GPU request
// (whole-GPU count or share milli) and the allowed GPU models. Memory is not part of the key:
// the paper measures fragmentation by CPU and GPU only, and the openb trace's nodes are never
// short of memory before they are short of CPU or GPU.

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/cluster/resources.hpp"

namespace gantry {

struct PodClass {
  int64_t cpu_milli = 0;
  int32_t gpus = 0;       // whole GPUs (then gpu_milli = 0)
  int32_t gpu_milli = 0;  // share of one GPU, 1..999 (then gpus = 0)
  // Allowed GPU models, sorted and without duplicates; empty = any model. Ignored for classes
  // without GPUs.
  std::vector<std::string> gpu_models;

  bool needs_gpu() const { return gpus > 0 || gpu_milli > 0; }
  auto operator<=>(const PodClass&) const = default;
  bool operator==(const PodClass&) const = default;
};

// The class of a pod with this request and these allowed models (sorted and de-duplicated
// here; models are dropped for a pod without GPUs).
PodClass pod_class_of(const Resources& request, std::vector<std::string> gpu_models = {});

struct WeightedPodClass {
  PodClass pod;
  double weight = 0;  // relative frequency; a workload's weights need not sum to 1
};

// The typical pods of a pod list, the paper's way (the authors' simulator,
// hkust-adsl/kubernetes-scheduler-simulator, pkg/utils/frag.go GetTypicalPods() with the
// experiments' settings: CPU-only pods included, popularity threshold 95 %, step 1): count the
// pods of each class, take classes from the most frequent down until they hold at least
// `coverage` of all pods, and weight each taken class by its count divided by the taken
// classes' total count (so the weights sum to 1). Classes with equal counts come in the
// authors' order: descending by (CPU, GPU milli per GPU, GPU count, GPU models), so the result
// never depends on input order. Empty input gives an empty workload. coverage is clamped to
// (0, 1].
std::vector<WeightedPodClass> typical_pod_classes(std::span<const PodClass> pods,
                                                  double coverage = 0.95);

}  // namespace gantry
