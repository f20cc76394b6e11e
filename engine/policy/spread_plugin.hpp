#pragma once
// "spread": least-allocated placement. Puts each pod on the emptiest node, which balances load
// and keeps a gang's pods apart (the Kubernetes LeastAllocated strategy, by GPUs).
//
// Scoring rule, most important first (higher is better):
//   1. most free GPUs left on the node after placing the pod
//   2. ties: the lowest node id
// GPUs inside the node: the lowest-numbered free GPUs.
// Share pods (pod.gpus = 0) go to the node with the most fully free GPUs and take its best-fit
// GPU (Cluster::best_fit_share_gpu()).
//
// select() walks the NodeIndex buckets downward from the largest free count and stops at the
// first bucket holding a feasible node.

#include <vector>

#include "engine/policy/placement_plugin.hpp"

namespace gantry {

class SpreadPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "spread"; }
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  std::optional<NodeId> select(const PlacementContext& ctx) override;

 private:
  std::vector<GpuTypeId> types_;  // scratch for select()
};

}  // namespace gantry
