#pragma once
// "gpupacking": fill partly used GPUs first, then partly used nodes, and break into an idle
// node last (the FGD paper's "GPU Packing" baseline, Weng et al., USENIX ATC'23, §6.1).
//
// Scoring rule, most important first (higher is better), for a pod that needs a GPU:
//   1. tier: 3 a share pod fits on a partly used GPU of the node (0 < free milli < 1000);
//            2 the pod must take fully free GPUs, on a node where some GPU is in use;
//            1 the pod must take fully free GPUs, on an idle node (all GPUs fully free)
//   2. inside tier 3: the least free milli on the partly used GPU it would take (best fit);
//      inside tiers 2 and 1: the fewest fully free GPUs on the node (the most used node, and
//      among idle nodes the smallest)
//   3. ties: the lowest node id
// A pod without GPUs is not scored by the paper's policy (Kubernetes then breaks the tie at
// random); select() draws it a feasible node uniformly (in increasing id order) from the
// stream "placement.gpupacking" of RandomStreams(SchedulerConfig::seed). score() gives such
// pods tier 0 and the least free GPU milli as key 2, which select() does not follow for them.
// GPUs inside the node: a share pod takes the best-fit partly used GPU when one has room,
// else the lowest fully free GPU (= the default, Cluster::best_fit_share_gpu()); whole-GPU
// pods the lowest-numbered fully free GPUs.

#include <vector>

#include "engine/core/random.hpp"
#include "engine/policy/placement_plugin.hpp"

namespace gantry {

class GpuPackingPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "gpupacking"; }
  void configure(const SchedulerConfig& config) override;
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  std::optional<NodeId> select(const PlacementContext& ctx) override;

 private:
  RandomStream stream_ = RandomStreams(0).stream("placement.gpupacking");
  std::vector<NodeId> feasible_;  // scratch
};

}  // namespace gantry
