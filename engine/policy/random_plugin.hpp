#pragma once
// "random": a uniformly random feasible node. The FGD paper's "Random" baseline (Weng et al.,
// USENIX ATC'23, §6.1), useful as the floor every other policy should beat. As in the authors'
// simulator (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/random_score.go:
// PreScore draws one feasible node uniformly and scores it 100, all others 0; GPU selection
// "random", allocateGpuIdBasedOnRandomFit in open_gpu_share.go: a uniform choice among the
// GPUs with room, by reservoir sampling).
//
// Rule: collect the nodes that pass the common filters (CPU, memory, GPU model, and room for
// the pod's whole GPUs or share) in increasing node id order and take the i-th, i drawn
// uniformly from the stream "placement.random" of RandomStreams(SchedulerConfig::seed).
// GPUs inside the node: a share pod gets one of the GPUs with enough free milli, also drawn
// uniformly (from the same stream, right after the node); whole-GPU pods get the
// lowest-numbered fully free GPUs (which of the fully free GPUs does not change what fits
// later). Exactly one draw per node choice and one per share-GPU choice, none when nothing is
// feasible, so a run is a pure function of the seed and the pod sequence.
//
// score() is 0 for every node; the choice is made by select(), which is not the framework's
// "highest score" rule and is not meant to agree with it.

#include <vector>

#include "engine/core/random.hpp"
#include "engine/policy/placement_plugin.hpp"

namespace gantry {

class RandomPlugin final : public PlacementPlugin {
 public:
  RandomPlugin();
  std::string_view name() const override { return "random"; }
  void configure(const SchedulerConfig& config) override;
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  uint64_t pick_gpus(const PlacementContext& ctx, NodeId n) const override;
  std::optional<NodeId> select(const PlacementContext& ctx) override;

 private:
  RandomStream stream_;
  std::vector<NodeId> feasible_;  // scratch
  // The GPUs chosen with the node by the last select(), for pick_gpus().
  NodeId chosen_node_ = -1;
  uint64_t chosen_version_ = 0;
  uint64_t chosen_mask_ = 0;
  Resources chosen_pod_;
};

}  // namespace gantry
