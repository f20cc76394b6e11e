#pragma once
// "gpupacking": fill partly used GPUs first, then used nodes, and break into an idle node last,
// the FGD paper's "GPU Packing" baseline (Weng et al., USENIX ATC'23, §6.1) as the authors'
// simulator scores it (hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/gpu_packing_score.go, getPackingScore(); GPU selection "best").
//
// Score (higher is better), an integer as in the Kubernetes scheduling framework, for a pod
// that needs a GPU, on a node with G GPUs of which f are fully free:
//   idle node (f = G):                          max(33 − f, f)
//   otherwise the pod's GPUs are chosen as the authors do: the node's GPUs in increasing free
//   milli (ties by index), each taken if its free milli >= the pod's per-GPU need (its share,
//   or 1000 per whole GPU), until the pod has them all; u of them are fully free:
//     u > 0 (a used node, fresh GPUs):          max(50 − u, 33)
//     u = 0 (a share on a partly used GPU):     100 − floor(free milli of that GPU / 100)
// So a share pod prefers the partly used GPU with the least room (in steps of 100 milli), then
// any used node, then the idle node with the fewest GPUs; a k-GPU pod scores 50 − k on every
// used node alike. A GPU-less pod scores 0 everywhere. Ties go to the lowest node id (the
// authors' fork of the framework breaks ties by the smallest node name).
// GPUs inside the node: a share pod takes the best-fit GPU (the one the score looked at, =
// Cluster::best_fit_share_gpu()); whole-GPU pods the lowest-numbered fully free GPUs.

#include "engine/policy/placement_plugin.hpp"

namespace gantry {

class GpuPackingPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "gpupacking"; }
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  // The default select(), with score() inlined (select_with_own_score()).
  std::optional<NodeId> select(const PlacementContext& ctx) override;
};

}  // namespace gantry
