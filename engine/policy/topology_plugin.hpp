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
// select() first looks only at nodes already holding the gang (key 1 dominates). When none of
// them has room, a whole-GPU pod's keys depend on a node only through its free GPUs k (keys 2
// and 6: key 2 rises with k, key 6 falls), its rack (keys 4 and 5) and its id, as long as key 3
// is the same for every candidate (a 1-GPU pod, or nodes of one island each). Then select()
// walks the key-2 levels from the best down (the k ranges [c·g, (c+1)·g − 1], or k ≥ like·g for
// the capped level), inside a level the racks from the best (key 4, key 5) down using the
// NodeIndex's per-rack counts, inside tied racks k upward, and returns the lowest-id node that
// passes the filters at the first (level, racks, k) that has one: the node the full scan would
// pick, after visiting only the racks' nodes with that k. Otherwise (nodes split into islands)
// it scans every candidate from the NodeIndex.
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
  // The bucket walk described above, for a whole-GPU pod when no node of the gang fits and
  // key 3 is the same for every candidate.
  std::optional<NodeId> select_by_buckets(const PlacementContext& ctx);
  // The bucket walk for a pod with no like pods after it (like = 1); top = the most GPUs of a
  // node of an allowed type.
  std::optional<NodeId> best_single(const PlacementContext& ctx, int top);
  // The best node among the candidates with free GPUs in [lo, hi] (one key-2 level).
  std::optional<NodeId> best_in_level(const PlacementContext& ctx, int lo, int hi);
  // The lowest-id feasible node with exactly k free GPUs in the racks racks_[first, last).
  std::optional<NodeId> first_feasible(const PlacementContext& ctx, size_t first, size_t last,
                                       int k) const;

  uint64_t pod_epoch_ = 0;                    // bumped by pre_score()
  std::vector<int> per_bucket_;               // k / pod GPUs for k = 0 .. the most GPUs per node
  mutable std::vector<int64_t> rack_sum_;     // per rack: uncapped key 5 ...
  mutable std::vector<uint64_t> rack_epoch_;  // ... valid if rack_epoch_[r] == pod_epoch_
  // best_in_level()'s scratch: the racks with candidates in the level and their keys 4 and 5
  // packed as key4 · 2^32 + key5.
  struct RackKey {
    int64_t key;
    RackId rack;
  };
  std::vector<RackKey> racks_;
};

}  // namespace gantry
