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
// Two more views narrow the nodes a pod that is not a whole-GPU pod looks at (a GPU-share pod
// used to visit every node of its types, a GPU-less pod every node; in the FGD artifact over
// half of those visits were to nodes without the room): per GPU type, the nodes by their share
// room (the largest free milli any one GPU offers, see share_level()), and over all nodes, the
// nodes by free CPU (cpu_level()). Each is kept as cumulative "level at least L" bitsets, so the
// nodes at or above a pod's level are one word load per 64 nodes. A level is coarse (a range of
// values) and monotone, so every node with the room is at or above the pod's level; nodes of
// the pod's own level may still lack it, and callers apply the exact filters as before.
//
// Beside the buckets it counts, per GPU type and rack, the nodes with each number of free GPUs,
// so a per-rack sum over free GPUs (the topology plugin's rack capacity) costs
// O(racks × GPUs per node) instead of a pass over the nodes, and lists each rack's nodes so a
// plugin can visit one rack's nodes without a pass over the whole bucket.
//
// Complexity (N nodes, C changes since the last sync, W = ceil(N / 64) words per bucket):
//   sync()            O(C) while C < Cluster::kChangeLogSize, else O(N) (and on a new cluster
//                     or a changed node count)
//   note()            O(1 + levels the node's share room or free CPU moved across)
//   for_each_node()   O(W + nodes visited), nodes visited in increasing id order
//   for_each_with_room() O(W + nodes visited), in increasing id order
//   first_node()      O(W + nodes visited) until the first match
//   rack_nodes_with() O(1)
//   rack_members()    O(1)
//
// Not thread-safe: lives on the event loop thread with the cluster (DESIGN.md rule 1).

#include <algorithm>
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

  // Levels: coarse, monotone views of a node's free CPU and share room. If a node's free value is
  // at least a request's, its level is at least the request's level.
  static constexpr int kCpuLevels = 64;
  static constexpr int kShareLevels = 21;
  // 0 for up to 127 milli-CPU; then about four levels per doubling (the leading bits of the
  // value, as a float's exponent and two mantissa bits); the top level from about 16,000 cores.
  static int cpu_level(int64_t cpu_milli) {
    if (cpu_milli <= 0) return 0;
    const auto v = static_cast<uint64_t>(cpu_milli) >> 7;
    if (v < 8) return static_cast<int>(v);
    const int width = std::bit_width(v);  // >= 4
    const auto next_two = static_cast<int>((v >> (width - 3)) & 3);
    return std::min(kCpuLevels - 1, 8 + (width - 4) * 4 + next_two);
  }
  // Share room (milli of one GPU, 0..1000) in steps of 50.
  static int share_level(int64_t milli) {
    return static_cast<int>(std::clamp<int64_t>(milli, 0, 1000) / 50);
  }
  // The share room of node n: 1000 with a fully free GPU, else the most any partly used GPU has
  // free (Resources::fits_in() reads it so).
  static int64_t share_room(const Resources& free) { return free.gpus > 0 ? 1000 : free.gpu_milli; }

  // Calls f(NodeId), in increasing id order, for every node of bucket (t, k) (as
  // for_each_node()) whose CPU level is at least `cpu`: the nodes of the bucket that may have
  // the CPU.
  template <typename F>
  void for_each_node(GpuTypeId t, int k, int cpu, F&& f) const {
    const std::vector<uint64_t>* bucket = bucket_of(t, k);
    if (bucket == nullptr) return;
    for_each_of_both(*bucket, cpu_at_least(cpu), f);
  }
  // Calls f(NodeId), in increasing id order, for every node of GPU type t (t >= 0) whose share
  // room is at least level `share` and whose CPU level is at least `cpu`.
  template <typename F>
  void for_each_with_room(GpuTypeId t, int share, int cpu, F&& f) const {
    if (t < 0 || static_cast<size_t>(t) >= share_.size()) return;
    for_each_of_both(
        share_[static_cast<size_t>(t)][static_cast<size_t>(std::clamp(share, 0, kShareLevels - 1))],
        cpu_at_least(cpu), f);
  }
  // Calls f(NodeId), in increasing id order, for every node (with or without GPUs) whose CPU
  // level is at least `cpu`.
  template <typename F>
  void for_each_with_cpu(int cpu, F&& f) const {
    const std::vector<uint64_t>& words = cpu_at_least(cpu);
    for_each_of_both(words, words, f);
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
    const std::vector<uint64_t>* bucket = bucket_of(t, k);
    if (bucket == nullptr) return -1;
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
  // Bucket (t, k), or nullptr out of range (t = -1: the CPU-only nodes, k = 0 only).
  const std::vector<uint64_t>* bucket_of(GpuTypeId t, int k) const {
    if (t == -1) return k == 0 ? &cpu_only_ : nullptr;
    if (t < 0 || static_cast<size_t>(t) >= types_.size()) return nullptr;
    const auto& buckets = types_[static_cast<size_t>(t)];
    if (k < 0 || static_cast<size_t>(k) >= buckets.size()) return nullptr;
    return &buckets[static_cast<size_t>(k)];
  }
  const std::vector<uint64_t>& cpu_at_least(int level) const {
    return cpu_[static_cast<size_t>(std::clamp(level, 0, kCpuLevels - 1))];
  }
  // f(n) for every bit set in both a and b (same length), in increasing order.
  template <typename F>
  static void for_each_of_both(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                               F&& f) {
    for (size_t w = 0; w < a.size(); ++w) {
      uint64_t bits = a[w] & b[w];
      while (bits != 0) {
        const int i = std::countr_zero(bits);
        bits &= bits - 1;
        f(static_cast<NodeId>(w * 64 + static_cast<size_t>(i)));
      }
    }
  }
  // Moves node n in cumulative bitsets `at_least` from level `from` (-1: not in any) to `to`.
  static void move_level(std::vector<std::vector<uint64_t>>& at_least, int from, int to, NodeId n);
  // Whether node n's cached state differs from the cluster's.
  bool stale(const Cluster& cluster, NodeId n) const;
  void set_bit(GpuTypeId t, int k, NodeId n, bool on);
  int& rack_count_of(GpuTypeId t, RackId r, int k);
  // Lays out empty buckets, counts and rack lists for `cluster`'s nodes.
  void layout(const Cluster& cluster);

  uint64_t instance_ = 0;             // Cluster::instance_id() of the indexed cluster; 0: none yet
  uint64_t synced_at_ = 0;            // its change_count() at the last sync()
  std::vector<int> cached_free_;      // per node: free GPUs as last recorded; -1 for CPU-only nodes
  std::vector<int8_t> cached_cpu_;    // per node: cpu_level() as last recorded; -1: none yet
  std::vector<int8_t> cached_share_;  // per node: share_level() as last recorded; -1: none
  std::vector<uint64_t> cpu_only_;    // bitset over node ids of the nodes without GPUs
  // cpu_[L] = bitset of the nodes whose CPU level is at least L.
  std::vector<std::vector<uint64_t>> cpu_;
  // share_[t][L] = bitset of the type-t nodes whose share level is at least L.
  std::vector<std::vector<std::vector<uint64_t>>> share_;
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
