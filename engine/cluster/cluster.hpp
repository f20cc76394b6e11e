#pragma once
// Cluster state both worlds share: the topology plus what is allocated where.
//
// GPUs are tracked per GPU in milli-GPU (resources.hpp): each GPU has 0..1000 milli free.
// Whole-GPU pods take GPUs that are fully free; a pod sharing a GPU takes part of one GPU.
//
// Invariants, for every node:
//   - free resources = capacity − sum of allocations on it, never negative;
//   - a GPU is in free_gpu_mask() iff its free milli is 1000 (fully free), and
//     free().gpus = popcount(free_gpu_mask()); a GPU partly taken by share pods is in
//     partial_gpu_mask(); a GPU with 0 milli free is in neither;
//   - free().gpu_milli = the largest free milli of a partly used GPU (0 if none), so a node
//     nobody uses has free() == capacity;
//   - node_free_milli() = sum of the GPUs' free milli.
// Per GPU type the cluster keeps the number of fully free GPUs and a histogram of nodes by
// fully-free-GPU count, so a scheduler can tell in O(GPUs per node) whether a gang of k-GPU pods
// could fit anywhere before scanning nodes. Share pods move a GPU out of the histogram's count
// when they take the first milli of a fully free GPU, and back when the last share leaves.
//
// Every allocation has an owner (AllocationOwner: a pod of a workload) and an owner holds at
// most one allocation, so whoever decided an allocation, a scheduler's assume step or a world
// reporting what it observed, can undo exactly it, and policies can see who runs where.
// allocate() checks a request against the node and reports one that does not fit as an error
// (observed state in a live cluster can disagree with the model), changing nothing then.
//
// Nodes come and go at run time: add_node() appends one (ids are never reused), remove_node()
// turns an empty node into a tombstone of zero capacity, set_cordoned() and set_ready() make a
// node unschedulable without touching what runs there (a drain, a failure), and labels and
// taints (node_labels.hpp) can change. Every such change also bumps version(n).
//
// Every allocate() or release() of node n bumps version(n) and change_count(), so caches of
// per-node derived values (fragmentation, scores) can tell in O(1) whether a node changed.
//
// Complexity: allocate/release O(k) for k whole GPUs, O(partly used GPUs of the node) for a
// share (the node's largest free share is recomputed), plus O(distinct GPU requests on the
// node) for the request counts GPU-affinity policies read (gpu_requests()) and O(allocations on
// the node) to keep its owner list; owner lookups are O(1) on average (a hash map).
// check_invariants() recomputes everything from the allocations: O(allocations + GPUs).
//
// Not thread-safe: owned by the event loop thread (DESIGN.md rule 1).

#include <compare>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/cluster/topology.hpp"
#include "engine/core/status.hpp"

namespace gantry {

// How many pods with one GPU request (gpus, gpu_milli) run on a node.
struct GpuRequestCount {
  int32_t gpus = 0;
  int32_t gpu_milli = 0;
  int32_t pods = 0;
};

// Who holds an allocation: pod `pod` (in the workload's pod order) of workload `workload` (the
// scheduler's id, JobId).
struct AllocationOwner {
  int32_t workload = -1;
  int32_t pod = 0;
  auto operator<=>(const AllocationOwner&) const = default;
};

struct Allocation {
  AllocationOwner owner;
  NodeId node = -1;
  Resources request;
  uint64_t gpu_mask = 0;  // bit g = GPU g of the node; see allocate()
};

class Cluster {
 public:
  explicit Cluster(Topology topology);

  const Topology& topology() const { return topology_; }
  int node_count() const { return static_cast<int>(topology_.nodes.size()); }
  const NodeClass& node_class(NodeId n) const { return topology_.class_of(n); }
  RackId rack_of(NodeId n) const { return topology_.nodes[static_cast<size_t>(n)].rack; }
  GpuTypeId gpu_type_of(NodeId n) const { return node_class(n).gpu_type; }
  // GPUs of node n (its capacity).
  int gpu_count(NodeId n) const { return node_class(n).capacity.gpus; }

  // See the invariants above for what the GPU fields of free() mean.
  const Resources& free(NodeId n) const { return free_[static_cast<size_t>(n)]; }
  // Fully free GPUs of node n (bit g = GPU g).
  uint64_t free_gpu_mask(NodeId n) const { return free_mask_[static_cast<size_t>(n)]; }
  // GPUs of node n partly taken by share pods: 0 < free milli < 1000.
  uint64_t partial_gpu_mask(NodeId n) const { return partial_mask_[static_cast<size_t>(n)]; }
  // Free milli of GPU g of node n, 0..1000.
  int gpu_free_milli(NodeId n, int g) const {
    return gpu_milli_[static_cast<size_t>(gpu_base_[static_cast<size_t>(n)] + g)];
  }
  // Free milli of every GPU of node n, indexed by GPU; valid until the next allocate/release.
  std::span<const uint16_t> gpu_free_milli(NodeId n) const {
    const auto i = static_cast<size_t>(n);
    return {gpu_milli_.data() + gpu_base_[i], static_cast<size_t>(gpu_base_[i + 1] - gpu_base_[i])};
  }
  // Sum of the free milli of node n's GPUs.
  int64_t node_free_milli(NodeId n) const { return node_free_milli_[static_cast<size_t>(n)]; }

  // Distinct for every Cluster object ever constructed or copied in this process, so caches
  // keyed on a cluster can tell a new cluster at a reused address from the old one.
  uint64_t instance_id() const { return instance_.value; }
  // Bumped by every allocate() and release() on node n; starts at 0.
  uint64_t version(NodeId n) const { return version_[static_cast<size_t>(n)]; }
  // Bumped by every allocate() and release() anywhere (and by the node changes that bump
  // version(n), and add_node()).
  uint64_t change_count() const { return change_count_; }
  // The node of change number c (change_count() after it), for the last kChangeLogSize
  // changes: c in (change_count() - kChangeLogSize, change_count()]; -1 for c outside that
  // window. Lets a cache of per-node values (NodeIndex) revisit only the nodes that changed
  // since it last looked, in O(changes) instead of O(nodes).
  static constexpr uint64_t kChangeLogSize = 1024;
  NodeId changed_node(uint64_t c) const {
    if (c == 0 || c > change_count_ || change_count_ - c >= kChangeLogSize) return -1;
    return change_log_[c % kChangeLogSize];
  }
  // Bumped by whatever may let more in: a release, a node added, uncordoned, ready again or
  // relabelled (admission parks blocked queues on it).
  uint64_t growth_count() const { return growth_count_; }

  // Whole-cluster GPU counters by type. free_gpus counts fully free GPUs only.
  int total_gpus(GpuTypeId t) const { return per_type_[static_cast<size_t>(t)].total; }
  int free_gpus(GpuTypeId t) const { return per_type_[static_cast<size_t>(t)].free; }
  int allocated_gpus(GpuTypeId t) const { return total_gpus(t) - free_gpus(t); }
  int total_gpus() const;
  int free_gpus() const;
  // Whole-cluster GPU milli: capacity (1000 per GPU), free (sum over GPUs), allocated.
  int64_t total_gpu_milli() const { return total_milli_; }
  int64_t free_gpu_milli() const { return free_milli_; }
  int64_t allocated_gpu_milli() const { return total_milli_ - free_milli_; }
  // histogram[k] = nodes of type t with exactly k fully free GPUs.
  const std::vector<int>& free_gpu_histogram(GpuTypeId t) const {
    return per_type_[static_cast<size_t>(t)].histogram;
  }
  // Largest number of GPUs on one node of type t.
  int max_gpus_per_node(GpuTypeId t) const {
    return static_cast<int>(per_type_[static_cast<size_t>(t)].histogram.size()) - 1;
  }

  // Takes `request` on node n for `owner`. Whole GPUs (request.gpus = k): gpu_mask has exactly k
  // bits, all fully free GPUs of the node. A share (request.gpu_milli = m in 1..999, gpus = 0):
  // gpu_mask has exactly one bit, a GPU with at least m milli free. No GPU: mask 0. Returns an
  // error naming what does not fit (CPU, memory, GPUs, a removed node, an owner that already
  // holds an allocation, a malformed request) and then changes nothing. A cordoned or not-ready
  // node still accepts allocations: a world may observe pods there.
  Status allocate(NodeId n, const Resources& request, uint64_t gpu_mask, AllocationOwner owner);
  // Gives back exactly what `owner` holds; an error (and no change) if it holds nothing.
  Status release(AllocationOwner owner);
  // What `owner` holds, or nullptr.
  const Allocation* allocation_of(AllocationOwner owner) const;
  // The owners of the allocations on node n, in no particular order.
  const std::vector<AllocationOwner>& owners_on(NodeId n) const {
    return owners_on_[static_cast<size_t>(n)];
  }
  size_t allocation_count() const { return allocations_.size(); }

  // ---- the dynamic cluster ----
  // Appends a node of an existing class (info.node_class indexes topology().classes) in an
  // existing rack; returns its id.
  Result<NodeId> add_node(NodeInfo info);
  // A live cluster meets kinds of nodes, GPU models and racks its start did not know (DESIGN.md
  // rule 3: the world reports them, the model grows). Each returns the new index; nodes
  // already in the cluster are not touched.
  // A node class; its GPU type (if any) must be in the catalog, at most 64 GPUs, whole GPUs.
  Result<int32_t> add_node_class(NodeClass node_class);
  // A GPU model; a name the catalog knows (case-insensitively) returns the existing id and
  // changes nothing.
  GpuTypeId add_gpu_type(GpuType type);
  // A rack; a name that exists returns its id.
  RackId add_rack(const std::string& name);
  // Removes node n: it must hold no allocation (evict first). It stays as a tombstone with zero
  // capacity and is never schedulable again; its id is not reused.
  Status remove_node(NodeId n);
  bool removed(NodeId n) const { return state_[static_cast<size_t>(n)].removed; }
  // Cordon (kubectl cordon) or uncordon: no new pods, running ones stay.
  void set_cordoned(NodeId n, bool cordoned);
  bool cordoned(NodeId n) const { return state_[static_cast<size_t>(n)].cordoned; }
  // A node that failed (false) or recovered (true); not-ready nodes take no new pods.
  void set_ready(NodeId n, bool ready);
  bool ready(NodeId n) const { return state_[static_cast<size_t>(n)].ready; }
  // May the scheduler place new pods on node n at all (present, ready, not cordoned)?
  bool schedulable(NodeId n) const {
    const NodeState& s = state_[static_cast<size_t>(n)];
    return s.ready && !s.cordoned && !s.removed;
  }
  const NodeInfo& node_info(NodeId n) const { return topology_.nodes[static_cast<size_t>(n)]; }
  // node_info(n).taints is not empty; read beside schedulable(), so the filters of a pod with
  // nothing to tolerate never touch the node's NodeInfo.
  bool tainted(NodeId n) const { return state_[static_cast<size_t>(n)].tainted; }
  void set_labels(NodeId n, Labels labels);
  void set_taints(NodeId n, std::vector<Taint> taints);

  // Recomputes every derived value (free vectors, masks, per-GPU milli, counters, histograms,
  // request counts, owner lists) from capacity and the allocations and compares; an error names
  // the first difference. For tests and debug builds (after every event).
  Status check_invariants() const;

  // The `count` lowest-numbered fully free GPUs of node n, or 0 if fewer are free.
  uint64_t lowest_free_gpus(NodeId n, int count) const;
  // Best fit for a share of `milli`: the GPU of node n with the least free milli that is still
  // >= milli (ties to the lowest GPU), or -1 if none has room.
  int best_fit_share_gpu(NodeId n, int milli) const;

  // Pods running on node n by GPU request (pods without GPUs are not counted), in no
  // particular order. Kept by allocate()/release().
  const std::vector<GpuRequestCount>& gpu_requests(NodeId n) const {
    return requests_[static_cast<size_t>(n)];
  }
  // Pods on node n whose request has exactly these gpus and gpu_milli.
  int pods_with_gpu_request(NodeId n, int gpus, int gpu_milli) const;

 private:
  // A fresh id on construction and on every copy (copies diverge from their source).
  struct InstanceId {
    uint64_t value;
    InstanceId();
    InstanceId(const InstanceId&) : InstanceId() {}
    InstanceId& operator=(const InstanceId&) {
      *this = InstanceId();
      return *this;
    }
    InstanceId& operator=(InstanceId&&) = default;
  };
  struct PerType {
    int total = 0;
    int free = 0;
    std::vector<int> histogram;
  };
  struct NodeState {
    bool ready = true;
    bool cordoned = false;
    bool removed = false;
    bool tainted = false;  // node_info(n).taints is not empty (kept by set_taints)
  };
  static uint64_t key_of(AllocationOwner o) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(o.workload)) << 32) |
           static_cast<uint32_t>(o.pod);
  }
  // Appends the per-node state of an empty node of class c and counts its capacity.
  void append_node(const NodeClass& c);
  // What allocate() checks; empty if the request fits.
  std::string why_not(NodeId n, const Resources& request, uint64_t gpu_mask) const;
  void take(NodeId n, const Resources& request, uint64_t gpu_mask);
  void give_back(NodeId n, const Resources& request, uint64_t gpu_mask);
  void touch(NodeId n);
  // Counts one change of node n (change_count_, the change log).
  void log_change(NodeId n) {
    ++change_count_;
    change_log_[change_count_ % kChangeLogSize] = n;
  }
  void move_in_histogram(NodeId n, int from_free, int to_free);
  void refresh_largest_share(size_t i);
  void count_request(size_t i, const Resources& request, int delta);

  InstanceId instance_;
  Topology topology_;
  std::vector<Resources> free_;
  std::vector<uint64_t> free_mask_;
  std::vector<uint64_t> partial_mask_;
  std::vector<int32_t> gpu_base_;    // node n's GPUs are gpu_milli_[gpu_base_[n] .. gpu_base_[n+1])
  std::vector<uint16_t> gpu_milli_;  // free milli per GPU
  std::vector<int64_t> node_free_milli_;
  std::vector<uint64_t> version_;
  std::vector<std::vector<GpuRequestCount>> requests_;
  std::vector<NodeState> state_;
  std::vector<std::vector<AllocationOwner>> owners_on_;
  std::unordered_map<uint64_t, Allocation> allocations_;  // by key_of(owner)
  uint64_t change_count_ = 0;
  std::vector<NodeId> change_log_ = std::vector<NodeId>(kChangeLogSize, -1);  // a ring
  uint64_t growth_count_ = 0;
  int64_t total_milli_ = 0;
  int64_t free_milli_ = 0;
  std::vector<PerType> per_type_;
};

}  // namespace gantry
