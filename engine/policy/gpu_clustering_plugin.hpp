#pragma once
// "gpuclustering": keeps pods with the same GPU request together (the FGD paper's
// "GPU Clustering" baseline, Weng et al., USENIX ATC'23, §6.1), so shares of one size fill
// GPUs evenly instead of leaving odd remainders next to other sizes.
//
// A pod's GPU request is (gpus, gpu_milli): k whole GPUs or a share of m milli. The node's
// running pods by GPU request come from Cluster::gpu_requests().
//
// Scoring rule, most important first (higher is better), for a pod that needs a GPU:
//   1. tier: 3 the node runs pods with this GPU request and none with another;
//            2 it runs pods with this request and pods with others;
//            1 it runs no GPU pods (an idle node);
//            0 it runs only GPU pods with other requests
//   2. the least free GPU milli on the node (Cluster::node_free_milli()): packs inside a tier
//   3. ties: the lowest node id
// A pod without GPUs has no request to cluster by, and the paper's policy leaves it unscored
// (the Kubernetes scheduler then picks among equal nodes at random). So does select(): a
// GPU-less pod goes to a feasible node drawn uniformly (in increasing id order) from the
// stream "placement.gpuclustering" of RandomStreams(SchedulerConfig::seed); score() gives such
// pods key 1 = 0 and key 2 as above, which select() does not follow for them.
// GPUs inside the node: the default (best-fit GPU for a share, lowest fully free otherwise).

#include <vector>

#include "engine/core/random.hpp"
#include "engine/policy/placement_plugin.hpp"

namespace gantry {

class GpuClusteringPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "gpuclustering"; }
  void configure(const SchedulerConfig& config) override;
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  std::optional<NodeId> select(const PlacementContext& ctx) override;

 private:
  RandomStream stream_ = RandomStreams(0).stream("placement.gpuclustering");
  std::vector<NodeId> feasible_;  // scratch
};

}  // namespace gantry
