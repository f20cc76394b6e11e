#pragma once
// ClusterAutoscaler: when to add nodes to node pools and which empty pool nodes to remove, in the
// spirit of Kubernetes Cluster Autoscaler (CA,
// https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md). A pure policy
// (DESIGN.md rule 3): it reads the Cluster, the pools and the pending gangs and returns
// decisions; the world provisions nodes (with the pool's delay), adds them to the Cluster and
// removes the ones it is told to. It keeps only its own bookkeeping between calls (since when
// each pool node is empty, when each pool last scaled up).
//
// ## Scale-up (one call)
//
// The pending gangs are taken in queue order, at most AutoscalerConfig::max_gangs_per_call of
// them (the rest wait for a later call, as CA bounds the pods it considers per loop). Each gang
// is placed in a simulation, all or nothing, first-fit decreasing (pods by GPU milli, then CPU,
// then memory, descending; ties in pod order):
//   1. onto the free room of the cluster's schedulable nodes, then onto the nodes being
//      provisioned (PoolState::provisioning, as empty nodes of the pool) and the nodes this call
//      already decided to add. If every pod fits there, the gang needs no new node: it only
//      takes that room from the gangs behind it ("fits").
//   2. Otherwise each pool that can host the rest gets the rest bin-packed onto empty template
//      nodes of its class, opening a node when no opened one holds the pod. A pool can host a
//      pod when the gang's nodeSelector matches the pool's labels, the gang tolerates the pool's
//      taints (node_labels.hpp) and, for a pod that asks for a GPU, the class's GPU model is one
//      the job allows (JobSpec::allowed_gpu_models(); names the catalog does not know are
//      ignored, as the scheduler does) and an empty node holds the pod. A pool qualifies when it
//      hosts every remaining pod and up + provisioning + already added this call + new <= max.
//   3. The expander picks one qualifying pool (CA's --expander):
//        least-waste  fewest idle GPU milli on the new nodes after placement, then fewest idle
//                     CPU milli (CA compares idle CPU and memory fractions; GPU clusters care
//                     about GPUs first, and absolute idle GPUs compare across node shapes)
//        price        lowest price per hour of the new nodes (count × price_per_hour)
//      ties to the pool whose name sorts first. The gang's pods then hold their room (existing,
//      provisioning and new) for the rest of the call, so two gangs never count on the same
//      room.
//   4. No pool qualifies: the gang is skipped (Skipped::why says, per pool, why not) and takes no
//      room. A gang with partial admission (JobSpec::min_replicas on a last Worker role, the
//      scheduler's rule) is tried again with its fewest replicas before it is skipped.
// Gangs that failed in a call make equal gangs (same pod requests, GPU models, selector and
// tolerations) fail at once later in that call: room only shrinks within a call (CA's
// equivalence groups).
//
// A pool whose size (up + provisioning) is below its minimum is first scaled up to it (CA's
// --enforce-node-group-min-size), e.g. after spot reclaims; ScaleUp::to_min counts those nodes.
//
// Not considered: a job's TopologyConstraint (new nodes join the pool's rack; a gang that needs
// one node or one island may be promised room spread over several), GPU islands inside a node,
// and scale-up limits other than the pools' max (CA's --max-nodes-total, --max-nodes-per-scaleup).
//
// ## Scale-down
//
// A pool node is empty when no allocation is on it (Cluster::owners_on(n).empty()) and the
// scale-up simulation put none of its pending gangs on it. The autoscaler notes the first call
// that sees a node empty (empty_since) and forgets it when a call sees it busy; CA calls this
// "unneeded since". A node is removed by the first call with
//   now >= empty_since + scale_down_unneeded_time     (CA --scale-down-unneeded-time, 10 min)
//   now >= last scale-up of its pool + scale_down_delay_after_add   (CA
//          --scale-down-delay-after-add, 10 min; CA pauses the whole cluster, here only the
//          pool that grew, since pools of different shapes do not replace each other)
// and only while the pool's size (nodes up + provisioning, CA's target size) stays >= min.
// Among candidates of a pool the node empty the longest goes first, ties to the lowest id. The
// instants are those of the calls: a node emptied between calls counts from the next call. Empty
// nodes are removed whether ready, cordoned or not (CA removes unready nodes after its own
// --scale-down-unready-time; not modelled).
//
// ## Cost
//
// Per call, with G gangs considered, P pools and k pods in a gang: building the simulation
// reads every node once (O(nodes), only nodes with free room are kept); each gang costs
// O(k log k + k × (free nodes of the groups it may use + provisioning nodes)) for step 1 and
// O(P × k × new nodes) for step 2. GPU pods look only at nodes with a free GPU, so on a busy
// cluster step 1 is short. Scale-down is O(pool nodes).
//
// Deterministic: no randomness, no unordered iteration reaches the output.
// Not thread-safe: the event loop's (DESIGN.md rule 1).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/cluster/job.hpp"
#include "engine/core/time.hpp"
#include "engine/policy/autoscale/node_pool.hpp"

namespace gantry {

enum class Expander : uint8_t { kLeastWaste, kPrice };
// "least-waste", "price" (CA's names).
const char* to_string(Expander e);

// Defaults are CA's (cluster-autoscaler FAQ, "What are the parameters to CA?").
struct AutoscalerConfig {
  Expander expander = Expander::kLeastWaste;
  Duration scale_down_unneeded_time = minutes(10);
  Duration scale_down_delay_after_add = minutes(10);
  // Pending gangs looked at per call, in queue order; the rest wait for a later call.
  int max_gangs_per_call = 1000;
};

// What the world says about one pool at a call: pool index = index into the specs.
struct PoolState {
  std::vector<NodeId> nodes;  // the pool's nodes in the Cluster (up), in any order
  int provisioning = 0;       // nodes requested and not yet up
};

struct ScaleUp {
  int pool = -1;
  int count = 0;           // nodes to request (to_min of them restore the pool's minimum)
  int to_min = 0;          // nodes that bring the pool back to min_nodes
  std::vector<int> gangs;  // indices into `pending` of the gangs the other nodes are for
};

struct SkippedGang {
  int gang = -1;    // index into `pending`
  std::string why;  // "pool a: ...; pool b: ..." or "no node pool"
};

struct ScaleDown {
  int pool = -1;
  NodeId node = -1;
};

struct AutoscalerDecision {
  std::vector<ScaleUp> scale_ups;      // at most one per pool, by pool index
  std::vector<ScaleDown> scale_downs;  // by pool index, then removal order
  std::vector<int> fits;               // gangs that fit on free, provisioning or just-added room
  std::vector<SkippedGang> skipped;    // gangs no pool can take now
  int considered = 0;                  // gangs looked at (<= max_gangs_per_call)
};

class ClusterAutoscaler {
 public:
  // Pool names must be unique and each node_class an index into the Cluster's classes (the
  // loader checks both); min <= max.
  ClusterAutoscaler(std::vector<NodePoolSpec> pools, AutoscalerConfig config = {});

  const std::vector<NodePoolSpec>& pools() const { return pools_; }
  const AutoscalerConfig& config() const { return config_; }

  // One decision at `now` (non-decreasing across calls). `pools` is index-aligned with pools();
  // `pending` are the gangs waiting, in queue order (pointers must be non-null). The scale-ups
  // are remembered as made at `now` (for scale_down_delay_after_add): the world is expected to
  // request them.
  AutoscalerDecision run(const Cluster& cluster, std::span<const PoolState> pools,
                         std::span<const JobSpec* const> pending, Time now);

  // Since when the autoscaler has seen node n empty, or nullopt (busy, unknown, not a pool node).
  std::optional<Time> empty_since(NodeId n) const;

 private:
  std::vector<NodePoolSpec> pools_;
  AutoscalerConfig config_;
  std::vector<Time> empty_since_;                   // by node id; Time::max(): not empty
  std::vector<std::optional<Time>> last_scale_up_;  // by pool
};

}  // namespace gantry
