#pragma once
// GangState: the partial placement of the gang being scheduled, as placement plugins see it
// while they choose a node for the next pod.
//
// A gang's pods are placed one at a time in *placement order*: pods with more GPUs first (then
// larger GPU shares first, so share pods come after whole-GPU pods and before GPU-less ones), pod
// order (role by role, replica by replica) among equals. GPU pods thus fix the gang's nodes and
// racks before GPU-less pods (a TF parameter server, an MPI launcher, usually first in pod
// order) are placed, and those then join the gang instead of dragging it to wherever they
// landed. placements() is nonetheless kept in pod order. The state answers in O(1) how many pods of
// this gang already sit on a node or in a rack, which is what topology-aware scoring asks for every
// candidate node.
//
// The scheduler reuses one GangState for every gang (begin() starts afresh in O(pods)), so
// per-node and per-rack counters are stamped with a gang number instead of being cleared.

#include <cstdint>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/cluster/job.hpp"

namespace gantry {

class GangState {
 public:
  GangState() = default;

  // Starts a new gang. `pods` are the requests in pod order. `gpu_types` are the GPU types its
  // GPU pods (whole or share) may use: the job's allowed types, or, for a job that accepts any
  // type, every type that could hold it. Once the first GPU pod is placed, later GPU pods are
  // pinned to that pod's type (a training gang runs at the pace of its slowest GPU, so types are
  // not mixed).
  void begin(const Cluster& cluster, std::vector<Resources> pods, std::vector<GpuTypeId> gpu_types);
  // The gang's placement constraints (the job's nodeSelector and tolerations); both must outlive
  // the gang. Empty until set (no constraint).
  void set_constraints(const Labels* node_selector, const std::vector<Toleration>* tolerations) {
    node_selector_ = node_selector;
    tolerations_ = tolerations;
  }
  // Keeps the gang inside one topology domain (JobSpec::topology): one rack and/or one node;
  // -1 for none.
  void set_domain(RackId rack, NodeId node) {
    domain_rack_ = rack;
    domain_node_ = node;
  }
  // May the gang's pods go on node n by its labels, taints and topology domain?
  bool admits(const Cluster& cluster, NodeId n) const {
    if (domain_node_ >= 0 && n != domain_node_) return false;
    if (domain_rack_ >= 0 && cluster.rack_of(n) != domain_rack_) return false;
    const bool selector = node_selector_ != nullptr && !node_selector_->empty();
    if (!selector && !cluster.tainted(n)) return true;  // the common case, without NodeInfo
    const NodeInfo& info = cluster.node_info(n);
    return (!selector || selector_matches(*node_selector_, info.labels)) &&
           (info.taints.empty() ||
            tolerates_all(tolerations_ != nullptr ? *tolerations_ : kNoTolerations, info.taints));
  }
  // Does admits(cluster, n) read nothing but node n's own state (schedulable, taints)? True
  // without a nodeSelector, tolerations or topology domain. Caches of per-node answers keyed
  // by the pod's request alone (score_buckets.hpp) hold only then.
  bool admits_by_node_alone() const {
    return domain_node_ < 0 && domain_rack_ < 0 &&
           (node_selector_ == nullptr || node_selector_->empty()) &&
           (tolerations_ == nullptr || tolerations_->empty());
  }
  // Records that pod current() was placed on node n with `gpu_mask`; advances to the next pod.
  void add(const Cluster& cluster, NodeId n, uint64_t gpu_mask);
  // Counts a pod the workload already runs on node n (a scale-out places new pods next to the
  // running ones): it shows in pods_on(), pods_in_rack() and nodes(), and a GPU pod pins the
  // GPU type, but it is not one of pods() and is not placed again. Call after begin(), before
  // the first add().
  void add_existing(const Cluster& cluster, NodeId n, uint64_t gpu_mask);

  int pod_count() const { return static_cast<int>(pods_.size()); }
  // Pods placed so far.
  int placed_count() const { return static_cast<int>(placed_.size()); }
  bool complete() const { return placed_.size() == pods_.size(); }
  // Pod-order index of the pod being placed. Only valid while !complete().
  int current() const { return order_[placed_.size()]; }
  const Resources& pod(int i) const { return pods_[static_cast<size_t>(i)]; }
  // The pod being placed and the pods after it in placement order with exactly the same
  // request ("like pods": the rest of its role, usually). 0 once the gang is complete.
  int remaining_like_current() const;

  // Indexed by pod-order index; node -1 for pods not placed yet.
  const std::vector<PodPlacement>& placements() const { return placements_; }
  // Pod-order indices of the placed pods, in the order they were placed.
  const std::vector<int>& placed() const { return placed_; }
  // Distinct nodes used so far, in order of first use.
  const std::vector<NodeId>& nodes() const { return nodes_; }
  int pods_on(NodeId n) const {
    const auto i = static_cast<size_t>(n);
    return node_stamp_[i] == gang_ ? node_pods_[i] : 0;
  }
  int pods_in_rack(RackId r) const {
    const auto i = static_cast<size_t>(r);
    return i < rack_stamp_.size() && rack_stamp_[i] == gang_ ? rack_pods_[i] : 0;
  }
  // GPU types the next GPU pod may use.
  const std::vector<GpuTypeId>& gpu_types() const { return gpu_types_; }
  bool allows_type(GpuTypeId t) const;

 private:
  // Bumps the per-node and per-rack counters for one pod on node n.
  void count_on(const Cluster& cluster, NodeId n);

  std::vector<Resources> pods_;
  std::vector<int> order_;     // placement order: pod-order indices
  std::vector<int> same_run_;  // same_run_[j]: like pods from position j of order_ on
  std::vector<PodPlacement> placements_;
  std::vector<int> placed_;
  std::vector<NodeId> nodes_;
  std::vector<GpuTypeId> gpu_types_;
  static inline const std::vector<Toleration> kNoTolerations{};
  const Labels* node_selector_ = nullptr;
  const std::vector<Toleration>* tolerations_ = nullptr;
  RackId domain_rack_ = -1;
  NodeId domain_node_ = -1;
  bool type_pinned_ = false;

  uint64_t gang_ = 0;  // bumped by begin(); counters stamped with an older value read as 0
  std::vector<uint64_t> node_stamp_;
  std::vector<int> node_pods_;
  std::vector<uint64_t> rack_stamp_;
  std::vector<int> rack_pods_;
};

}  // namespace gantry
