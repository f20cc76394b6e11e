#pragma once
// Reading a Scenario's `spec.autoscaling` block: node pools and the cluster autoscaler's
// settings (engine/policy/autoscale/). Keys follow Karpenter and Kubernetes Cluster Autoscaler
// where they have one; their spellings are accepted too (noted below).
//
//   autoscaling:
//     expander: least-waste            # | price (CA's --expander)
//     scaleDownUnneededTime: 10m       # CA's --scale-down-unneeded-time (default 10m)
//     scaleDownDelayAfterAdd: 10m      # CA's --scale-down-delay-after-add (default 10m)
//     maxGangsPerLoop: 1000            # pending gangs looked at per decision, in queue order
//     pools:                           # required, a non-empty list; names unique
//     - name: spot-a100
//       nodeClass: a100x8              # required: a class of spec.cluster.nodeClasses
//       rack: r0                       # the rack new nodes join; optional with one rack
//       min: 0                         # default 0; minSize (CA) is the same key
//       max: 64                        # required, >= 1; maxSize (CA) is the same key
//       initial: 0                     # nodes up at the start; default min; min..max
//       provisioning: {median: 3m, p90: 6m}   # required: see below
//       pricePerHour: 12.3             # per node-hour, >= 0, any currency; default 0 (no cost)
//       capacityType: spot             # | on-demand (Karpenter); SPOT | ON_DEMAND (EKS) too
//       reclaim: {meanTimeToReclaim: 20h, notice: 2m}   # spot pools only, and required there
//       labels: {pool: spot}           # what a job's nodeSelector matches
//       taints: [{key: spot, value: "true", effect: NoSchedule}]
//
// provisioning is the time from request to node up, one of:
//   3m                                 fixed
//   {min: 2m, max: 5m}                 uniform, min <= max
//   {median: 3m, p90: 6m}              log-normal, 0 < median <= p90
// reclaim.meanTimeToReclaim (> 0) is the mean of an exponential time from node up to reclaim;
// reclaim.notice defaults to 2m (AWS; GCP gives 30s): engine/policy/autoscale/node_pool.hpp.
// Labels and taints are read as sim/placement_constraints_loader.hpp reads them.
//
// Errors are recorded in `errors` and reading goes on (engine/config/config_errors.hpp), each
// naming the file, line, column and field path. Node class and rack names are checked only when
// the cluster was read without errors (`topology_ok`); otherwise pools keep node_class and rack
// -1 and the spec must not be simulated (there are errors to report anyway).

#include <cstdint>
#include <vector>

#include "engine/cluster/topology.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"
#include "engine/policy/autoscale/cluster_autoscaler.hpp"
#include "engine/policy/autoscale/node_pool.hpp"

namespace gantry {

// Typo guards, far above real pools (cloud node groups hold hundreds to a few thousand nodes;
// the largest clusters have some 10^5 GPUs).
inline constexpr int64_t kMaxPools = 1000;
inline constexpr int64_t kMaxPoolNodes = 100'000;
inline constexpr double kMaxPricePerHour = 1e6;

struct AutoscalingSpec {
  std::vector<NodePoolSpec> pools;
  AutoscalerConfig autoscaler;
};

// Reads `node` (spec.autoscaling).
AutoscalingSpec read_autoscaling(const ConfigNode& node, const Topology& topology, bool topology_ok,
                                 ConfigErrors& errors);

}  // namespace gantry
