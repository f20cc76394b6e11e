#pragma once
// "bestfit": the node left with the least weighted CPU and GPU after placing the pod (the FGD
// paper's "BestFit" baseline, Weng et al., USENIX ATC'23, §6.1).
//
// Leftover of node n after the pod:
//   L = 0.5 · (free CPU − pod CPU) / max CPU  +  0.5 · (free GPU milli − pod GPU milli) / max GPU
//   milli
// where free GPU milli is the sum over the node's GPUs, the pod's GPU milli is 1000 per whole
// GPU or its share, and "max" is the largest node capacity in the cluster (so a leftover
// core or GPU counts the same on a big and a small node, as in the paper's simulator). Equal
// weights: CPU and GPU are the two resources the openb trace's pods are short of.
//
// Scoring rule, most important first:
//   1. the smallest L (compared exactly, in integers: L scaled by 2 · max CPU · max GPU milli)
//   2. ties: the lowest node id
// GPUs inside the node: the default (best-fit GPU for a share, lowest fully free otherwise).

#include <cstdint>

#include "engine/policy/placement_plugin.hpp"

namespace gantry {

class BestFitPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "bestfit"; }
  void pre_score(const PlacementContext& ctx) override;
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;

 private:
  uint64_t maxima_of_ = 0;  // Cluster::instance_id() the maxima were computed for
  int64_t max_cpu_ = 1;
  int64_t max_gpu_milli_ = 1;
};

}  // namespace gantry
