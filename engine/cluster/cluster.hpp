#pragma once
// Cluster state both worlds share: the topology plus what is allocated where.
//
// Invariants: for every node, free resources = capacity − sum of allocations on it, never
// negative; popcount(free_gpu_mask) = free.gpus. Per GPU type the cluster keeps the number of
// free GPUs and a histogram of nodes by free-GPU count, so a scheduler can tell in
// O(GPUs per node) whether a gang of k-GPU pods could fit anywhere before scanning nodes.
//
// Not thread-safe: owned by the event loop thread (DESIGN.md rule 1).

#include <cstdint>
#include <vector>

#include "engine/cluster/topology.hpp"

namespace gantry {

class Cluster {
 public:
  explicit Cluster(Topology topology);

  const Topology& topology() const { return topology_; }
  int node_count() const { return static_cast<int>(topology_.nodes.size()); }
  const NodeClass& node_class(NodeId n) const { return topology_.class_of(n); }
  RackId rack_of(NodeId n) const { return topology_.nodes[static_cast<size_t>(n)].rack; }
  GpuTypeId gpu_type_of(NodeId n) const { return node_class(n).gpu_type; }

  const Resources& free(NodeId n) const { return free_[static_cast<size_t>(n)]; }
  uint64_t free_gpu_mask(NodeId n) const { return free_mask_[static_cast<size_t>(n)]; }

  // Whole-cluster GPU counters by type.
  int total_gpus(GpuTypeId t) const { return per_type_[static_cast<size_t>(t)].total; }
  int free_gpus(GpuTypeId t) const { return per_type_[static_cast<size_t>(t)].free; }
  int allocated_gpus(GpuTypeId t) const { return total_gpus(t) - free_gpus(t); }
  int total_gpus() const;
  int free_gpus() const;
  // histogram[k] = nodes of type t with exactly k free GPUs.
  const std::vector<int>& free_gpu_histogram(GpuTypeId t) const {
    return per_type_[static_cast<size_t>(t)].histogram;
  }
  // Largest number of GPUs on one node of type t.
  int max_gpus_per_node(GpuTypeId t) const {
    return static_cast<int>(per_type_[static_cast<size_t>(t)].histogram.size()) - 1;
  }

  // Takes `request` (whose gpus must equal popcount(gpu_mask)) on node n. The request must fit
  // and the mask's GPUs must be free (asserted).
  void allocate(NodeId n, const Resources& request, uint64_t gpu_mask);
  // Gives back exactly what allocate() took.
  void release(NodeId n, const Resources& request, uint64_t gpu_mask);

  // The `count` lowest-numbered free GPUs of node n, or 0 if fewer are free.
  uint64_t lowest_free_gpus(NodeId n, int count) const;

 private:
  struct PerType {
    int total = 0;
    int free = 0;
    std::vector<int> histogram;
  };
  void move_in_histogram(NodeId n, int from_free, int to_free);

  Topology topology_;
  std::vector<Resources> free_;
  std::vector<uint64_t> free_mask_;
  std::vector<PerType> per_type_;
};

}  // namespace gantry
