#pragma once
// NodeIndex: the nodes of each GPU type bucketed by their number of free GPUs, so a placement
// plugin visits only the nodes that can hold a pod's GPUs instead of every node in the cluster.
//
// The index is a cache of Cluster state owned by the scheduler. The scheduler calls sync() at
// the start of a cycle that needs it (other parties, e.g. the world finishing a job, release
// GPUs between cycles) and note() after each allocate()/release() it makes itself. sync()
// revisits only the nodes the cluster's change log (Cluster::changed_node()) names since the
// last sync, and compares every node only when the log no longer reaches back that far.
//
// Beside the buckets it counts, per GPU type and rack, the nodes with each number of free GPUs,
// so a per-rack sum over free GPUs (the topology plugin's rack capacity) costs
// O(racks × GPUs per node) instead of a pass over the nodes, and lists each rack's nodes so a
// plugin can visit one rack's nodes without a pass over the whole bucket.
//
// Complexity (N nodes, C changes since the last sync, W = ceil(N / 64) words per bucket):
//   sync()            O(C) while C < Cluster::kChangeLogSize, else O(N) (and on a new cluster
//                     or a changed node count)
//   note()            O(1)
//   for_each_node()   O(W + nodes visited), nodes visited in increasing id order
//   first_node()      O(W + nodes visited) until the first match
//   rack_nodes_with() O(1)
//   rack_members()    O(1)
//
// Not thread-safe: lives on the event loop thread with the cluster (DESIGN.md rule 1).

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/cluster/cluster.hpp"

namespace gantry {

class NodeIndex {
 public:
  NodeIndex() = default;

  // Rebuilds the buckets of every node whose free GPU count differs from the cached one; binds
  // the index to `cluster` (a different cluster, or a first call, rebuilds everything).
  // Requires that every change of a node's free GPUs since the last sync() went through the
  // cluster's change log (Cluster::allocate(), release(), remove_node() and add_node() do).
  void sync(const Cluster& cluster);
  // Records that node n now has cluster.free(n).gpus free GPUs. Call after every allocate() or
  // release() made while the index is in use.
  void note(const Cluster& cluster, NodeId n);

  // Calls f(NodeId) for every node of GPU type t with exactly k free GPUs, in increasing id
  // order. t = -1 stands for the nodes without GPUs, all in bucket k = 0. Nothing for k out
  // of range.
  // The number of nodes of GPU type t in rack r with exactly k free GPUs: the size of the part
  // of bucket (t, k) in rack r. 0 for t, r or k out of range (and for t = -1: the nodes
  // without GPUs are not counted per rack).
  int rack_nodes_with(GpuTypeId t, RackId r, int k) const {
    if (t < 0 || static_cast<size_t>(t) >= rack_counts_.size() || r < 0 || r >= racks_) return 0;
    const auto width = static_cast<size_t>(types_[static_cast<size_t>(t)].size());
    if (k < 0 || static_cast<size_t>(k) >= width) return 0;
    return rack_counts_[static_cast<size_t>(t)]
                       [static_cast<size_t>(r) * width + static_cast<size_t>(k)];
  }
  // One more than the highest rack id of the indexed nodes (0 before the first sync()).
  RackId rack_count() const { return racks_; }
  // The nodes of rack r, in increasing id order (empty for r out of range).
  std::span<const NodeId> rack_members(RackId r) const {
    if (r < 0 || r >= racks_) return {};
    const auto i = static_cast<size_t>(r);
    return {rack_members_.data() + rack_begin_[i], rack_members_.data() + rack_begin_[i + 1]};
  }

  template <typename F>
  void for_each_node(GpuTypeId t, int k, F&& f) const {
    (void)first_node(t, k, [&](NodeId n) {
      f(n);
      return false;
    });
  }
  // The lowest-id node of bucket (t, k) (as for_each_node()) for which pred(NodeId) is true,
  // asking pred in increasing id order and stopping at the first yes; -1 if none.
  template <typename Pred>
  NodeId first_node(GpuTypeId t, int k, Pred&& pred) const {
    const std::vector<uint64_t>* bucket = nullptr;
    if (t == -1) {
      if (k != 0) return -1;
      bucket = &cpu_only_;
    } else {
      if (t < 0 || static_cast<size_t>(t) >= types_.size()) return -1;
      const auto& buckets = types_[static_cast<size_t>(t)];
      if (k < 0 || static_cast<size_t>(k) >= buckets.size()) return -1;
      bucket = &buckets[static_cast<size_t>(k)];
    }
    const std::vector<uint64_t>& words = *bucket;
    for (size_t w = 0; w < words.size(); ++w) {
      uint64_t bits = words[w];
      while (bits != 0) {
        const int b = std::countr_zero(bits);
        bits &= bits - 1;
        const auto n = static_cast<NodeId>(w * 64 + static_cast<size_t>(b));
        if (pred(n)) return n;
      }
    }
    return -1;
  }

 private:
  void set_bit(GpuTypeId t, int k, NodeId n, bool on);
  int& rack_count_of(GpuTypeId t, RackId r, int k);
  // Lays out empty buckets, counts and rack lists for `cluster`'s nodes.
  void layout(const Cluster& cluster);

  uint64_t instance_ = 0;           // Cluster::instance_id() of the indexed cluster; 0: none yet
  uint64_t synced_at_ = 0;          // its change_count() at the last sync()
  std::vector<int> cached_free_;    // per node: free GPUs as last recorded; -1 for CPU-only nodes
  std::vector<uint64_t> cpu_only_;  // bitset over node ids of the nodes without GPUs
  // types_[t][k] = bitset over node ids of the type-t nodes with exactly k free GPUs.
  std::vector<std::vector<std::vector<uint64_t>>> types_;
  RackId racks_ = 0;
  // rack_counts_[t][r * types_[t].size() + k] = the type-t nodes of rack r with k free GPUs.
  std::vector<std::vector<int>> rack_counts_;
  // rack_members_[rack_begin_[r] .. rack_begin_[r + 1]) = the nodes of rack r, ascending.
  std::vector<NodeId> rack_members_;
  std::vector<size_t> rack_begin_;
};

}  // namespace gantry
