#pragma once
// Why a gang a scheduling cycle could not place does not fit, in words a user can act on: the
// live scheduler's FailedScheduling Event and LiveScheduler::pending_reason() (issue #23). In the
// manner of kube-scheduler's "0/8 nodes are available: 8 node(s) had untolerated taint
// {node.kubernetes.io/not-ready: }.": first the nodes the gang may not use at all, counted by
// cause, then what is free on the others. A cause hidden behind a sum of free GPUs ("64 GPUs
// free on 8 schedulable nodes" while every node was tainted) sends the user looking for
// capacity that is there.
//
// Each node is counted once, under the first cause that holds, in this order:
//   "without a Node object"                 a model node not registered yet, or deleted
//   "not ready"                             its Ready condition is not True
//   "with allocatable unlike their class"   e.g. a device plugin restarting (live_cluster.hpp)
//   "cordoned"                              spec.unschedulable
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
//   "with every GPU out of service"         the gang asks for GPUs; gantry.dev/unhealthy-gpus
// The GPU causes bar only the gang's GPU pods in the scheduler; a node counted under them may
// still take a GPU-less pod of the gang, but not the GPUs the message is about.
//
// What it says (N nodes in the model, E eligible):
//   N = 0:      "the cluster has no nodes"
//   E = 0:      "none of the N nodes is eligible (<causes>)"  ("its one node is not eligible
//               (<causes>)" for N = 1)
//   0 < E < N:  "E of N nodes eligible (<causes>); <free>"
//   E = N:      "<free>"
// <causes> is "<count> <cause>" per cause, in the order above (taints and terms: most nodes
// first, then by text; at most four named, so that the note fits an Event's 1024 characters
// whatever the taints), ", "-separated; <free> is
// "F GPUs free on E eligible nodes" (the fully free GPUs; "(a A100-80G, b H100-80G)" after the
// count when the eligible nodes have several models, which a gang does not mix), ", at most G
// on one node" (E > 1, F > 0), ", U more out of service" (U > 0), ", C cores free".
//
// Pure; O(nodes × (taints + selector terms)).

#include <string>

#include "adapters/kube/world/live_cluster.hpp"
#include "engine/cluster/job.hpp"

namespace gantry::kube {

std::string unplaced_reason(const LiveCluster& live, const JobSpec& gang);

}  // namespace gantry::kube
