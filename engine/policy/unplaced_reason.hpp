#pragma once
// Why a gang a scheduling cycle could not place does not fit, in words a user can act on (issues
// #23, #26 §5): the live scheduler's FailedScheduling Event, and the reason the cluster queue
// gives for a pending gang in the simulated world and against a real cluster alike. In the
// manner of kube-scheduler's "0/8 nodes are available: 8 node(s) had untolerated taint
// {node.kubernetes.io/not-ready: }.": first what the gang needs and the room there is for it,
// then the nodes the gang may not use at all, counted by cause, then what is free on the others.
// A cause hidden behind a sum of free GPUs ("64 GPUs free on 8 schedulable nodes" while every
// node was tainted) sends the user looking for capacity that is there.
//
// Each node is counted once, under the first cause that holds, in this order:
//   the world's own bars (NodeBars::causes(), in its order): the simulated cluster's are
//                                           "not ready" and "cordoned"; a live one adds "without
//                                           a Node object" and "with allocatable unlike their
//                                           class" (adapters/kube/world/unplaced_reason.hpp)
//   "tainted KEY[=VALUE]:EFFECT"            its first NoSchedule or NoExecute taint that no
//                                           toleration of the gang matches (node_labels.hpp:
//                                           PreferNoSchedule never bars a node), one count per
//                                           taint; "tainted otherwise (K more taints)" beyond
//                                           the fourth
//   "not matching nodeSelector KEY=VALUE"   the first term of the gang's nodeSelector (in key
//                                           order) the node's labels miss, one count per term;
//                                           "not matching other terms of the nodeSelector"
//                                           beyond the fourth
//   "with another GPU model (the gang takes M)"   the gang asks for GPUs and allows only the
//                                           models M (JobSpec::allowed_gpu_models(); a live
//                                           gang picks its model with a nodeSelector instead)
//   "with every GPU out of service"         the gang asks for GPUs; NodeBars::unhealthy_gpus()
// The GPU causes bar only the gang's GPU pods in the scheduler; a node counted under them may
// still take a GPU-less pod of the gang, but not the GPUs the message is about.
//
// What it says (N nodes in the model, E eligible):
//   N = 0:      "the cluster has no nodes"
//   E = 0:      "none of the N nodes is eligible (<causes>)"  ("its one node is not eligible
//               (<causes>)" for N = 1)
//   0 < E < N:  "<needs>E of N nodes eligible (<causes>); <free>"
//   E = N:      "<needs><free>"
// <needs>, for a gang of whole-GPU pods, counts its largest pods (K GPUs each; M of them) and
// the room the eligible nodes of one GPU model have for such a pod (its GPUs, cores and memory
// free on one node): "needs M pods of K GPUs: room for R; " ("needs 1 pod of 8 GPUs", and
// " (A100-80G)" after "GPUs" when the gang allows only some models). A gang that must stay in
// one rack (TopologyConstraint, required) counts the room per rack: "needs 8 pods of 8 GPUs in
// one rack: the best rack, r2, has room for 5; "; on one node or island: "on one node".
// <causes> is "<count> <cause>" per cause, in the order above (taints and terms: most nodes
// first, then by text; at most four named, so that the note fits an Event's 1024 characters
// whatever the taints), ", "-separated; <free> is
// "F GPUs free on E eligible nodes" (the fully free GPUs; "(a A100-80G, b H100-80G)" after the
// count when the eligible nodes have several models, which a gang does not mix), ", at most G
// on one node" (E > 1, F > 0), ", U more out of service" (U > 0), ", C cores free".
//
// Pure; O(nodes × (taints + selector terms)).

#include <span>
#include <string>
#include <string_view>

#include "engine/cluster/cluster.hpp"
#include "engine/cluster/job.hpp"

namespace gantry {

// What keeps a node from taking any new pod in the caller's world, whatever the pod asks and
// tolerates (taints and labels are each gang's business, counted here).
class NodeBars {
 public:
  virtual ~NodeBars() = default;
  // The causes, in the order they are checked and counted ("not ready", "cordoned", ...).
  virtual std::span<const std::string_view> causes() const = 0;
  // The index in causes() of the first that bars node n, or -1.
  virtual int bar(NodeId n) const = 0;
  // Node n's GPUs out of service (bit i = GPU i).
  virtual uint64_t unhealthy_gpus(NodeId /*n*/) const { return 0; }
};

// The simulated cluster's bars: "not ready" (Cluster::ready), then "cordoned".
class ClusterBars final : public NodeBars {
 public:
  explicit ClusterBars(const Cluster& cluster) : cluster_(cluster) {}
  std::span<const std::string_view> causes() const override;
  int bar(NodeId n) const override;

 private:
  const Cluster& cluster_;
};

struct UnplacedReason {
  std::string text;
  // The eligible nodes have room for every one of the gang's largest pods (see <needs>): what
  // keeps it waiting is not the cluster as it is now (whole-GPU gangs only; false otherwise).
  bool room_for_all = false;
};

UnplacedReason explain_unplaced(const Cluster& cluster, const JobSpec& gang, const NodeBars& bars);

}  // namespace gantry
