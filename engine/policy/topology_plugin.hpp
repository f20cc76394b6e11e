#pragma once
// "topology": topology-aware placement for gangs whose pods all-reduce with each other. Keeps a
// gang on as few nodes as possible, each pod's GPUs inside one NVLink/NVSwitch island, and the
// nodes of a gang inside one rack (crossing racks meets the oversubscribed rack uplinks).
//
// Scoring rule for pod i of a gang, most important first (higher is better). "Like pods" are
// pod i and the pods after it with the same request (the rest of its role); "capacity" counts
// GPUs only (free GPUs / pod GPUs, rounded down), capped at the number of like pods:
//   1. the node already holds pods of this gang
//   2. node capacity for the like pods (the first pod, and the first pod on each new node,
//      goes where most of the rest of the gang can follow it)
//   3. fewest islands the pod's GPUs must span on this node
//   4. the node's rack already holds pods of this gang
//   5. rack capacity for the like pods: sum of node capacities over the rack's nodes of an
//      allowed GPU type
//   6. fewest free GPUs left on the node after placing (best fit, keeps whole nodes free)
//   7. ties: the lowest node id
// GPU-less pods (a TF parameter server, an MPI launcher) score 0 on keys 2, 3, 5 and 6, so
// they follow the gang's nodes and racks, else go to the lowest node id with room.
// Share pods (a part of one GPU) are treated like GPU-less pods, except that only nodes of an
// allowed type with a GPU that has room pass the filter: a share never spans islands or nodes.
// GPUs inside the node: for a share, the best-fit GPU (Cluster::best_fit_share_gpu()); else
// island_best_fit_gpus() (one island if possible, the island with the
// fewest free GPUs that still fits).
//
// select() first looks only at nodes already holding the gang (key 1 dominates), and scans
// the candidates from the NodeIndex only when none of them has room.
//
// Pods are placed in GangState's placement order (GPU pods first), so "already holds pods of
// this gang" for a GPU-less pod means the nodes its GPU pods chose.

#include <vector>

#include "engine/policy/placement_plugin.hpp"

namespace gantry {

class TopologyPlugin final : public PlacementPlugin {
 public:
  std::string_view name() const override { return "topology"; }
  void pre_score(const PlacementContext& ctx) override;
  NodeScore score(const PlacementContext& ctx, NodeId n) const override;
  uint64_t pick_gpus(const PlacementContext& ctx, NodeId n) const override;
  std::optional<NodeId> select(const PlacementContext& ctx) override;

 private:
  // Key 5 for rack r; all racks are computed together on the first call after pre_score().
  int64_t rack_capacity(const PlacementContext& ctx, RackId r) const;
  void index_racks(const Cluster& cluster);

  const Cluster* racks_of_ = nullptr;  // the cluster rack_nodes_ describes
  std::vector<std::vector<NodeId>> rack_nodes_;
  uint64_t pod_epoch_ = 0;                 // bumped by pre_score()
  mutable uint64_t racks_epoch_ = 0;       // pod_epoch_ rack_sum_ was computed for
  mutable std::vector<int64_t> rack_sum_;  // per rack: uncapped key 5
};

}  // namespace gantry
