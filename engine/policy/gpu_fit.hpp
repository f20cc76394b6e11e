#pragma once
// Counting tests of whether whole-GPU pods can fit, from a GPU type's free-GPU histogram
// (Cluster::free_gpu_histogram(): histogram[k] = nodes with k fully free GPUs). Necessary
// conditions only — CPU, memory, shares, labels and the placement policy are left to placement
// — and cheap: O(GPUs per node) per pod size, so a scheduler can rule a gang out without trying
// to place it.

#include <array>
#include <span>
#include <vector>

#include "engine/cluster/cluster.hpp"

namespace gantry {

// Can `pods` pods of `gpus` GPUs each fit? A node with k free GPUs holds k / gpus of them.
bool histogram_holds(const std::vector<int>& histogram, int gpus, int pods);

// The whole-GPU pods of a gang, by GPUs per pod (at most 64 GPUs a node).
struct GpuDemand {
  std::array<int, 65> pods{};  // pods[g] = pods of g GPUs
  int total = 0;               // GPUs in all
  static GpuDemand of(std::span<const Resources> requests);
  // Can all of them fit on one type's nodes with this histogram and free GPU count?
  bool fits(const std::vector<int>& histogram, int free_gpus) const;
};

// GpuDemand::of(pods).fits() on one of `types` (every type when empty); true for a gang with no
// whole-GPU pod.
bool gang_could_fit(const Cluster& cluster, std::span<const Resources> pods,
                    const std::vector<GpuTypeId>& types);

}  // namespace gantry
