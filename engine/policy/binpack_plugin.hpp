#pragma once
// "binpack": most-allocated placement. Fills nodes up so that whole nodes stay free for large
// gangs (the Kubernetes MostAllocated strategy, by GPUs first).
//
// Scoring rule, most important first (higher is better):
//   1. fewest free GPUs left on the node after placing the pod
//   2. least free CPU left on the node after placing the pod
//   3. ties: the lowest node id
// GPUs inside the node: the lowest-numbered free GPUs.
// Share pods (pod.gpus = 0, a part of one GPU) follow the same rule: key 1 prefers the node
// with the fewest fully free GPUs (partly used nodes first), and the pod takes the best-fit
// GPU (Cluster::best_fit_share_gpu()), so shares fill partly used GPUs before fresh ones.
//
// select() walks the NodeIndex buckets upward from pod.gpus free GPUs and stops at the first
// bucket holding a feasible node, so a placement costs O(nodes in that bucket), not O(nodes).

#include <vector>

#include "engine/policy/placement_plugin.hpp"

namespace gantry {

class BinpackPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "binpack"; }
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  std::optional<NodeId> select(const PlacementContext& ctx) override;

 private:
  std::vector<GpuTypeId> types_;  // scratch for select()
};

}  // namespace gantry
