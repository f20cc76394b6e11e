#pragma once
// The shared Cluster model (engine/cluster) kept from a live cluster's Node and Pod objects, so
// the policies read the same structure in both worlds (DESIGN.md rule 3).
//
// Nodes. The cluster starts from a model topology: a scenario's (`--cluster`), whose GPU
// catalog, classes, racks, fabric and nodes it takes, or an empty one with the default
// catalog. A node of the model is absent (not ready) until a Node of that name appears with
// the model's capacity; so a scenario rehearsed with `gantry kubelet-sim` gets the node ids,
// and hence the placements, it gets in the simulator. Any other Node is appended:
//   - class: the model class named by its gantry.dev/node-class label if the capacity
//     matches, else any class with the same GPU model, capacity and island size, else a new
//     class named after the label or "<gpu model>x<gpus>-<cpu>m-<memory>Mi";
//   - GPU model: nvidia.com/gpu.product mapped to the catalog (gpu_product.hpp); a product the
//     catalog does not know becomes a model of its own (relative compute 1.0, PCIe Gen4,
//     no NVLink: the figures are unknown, the name is kept);
//   - rack: gantry.dev/rack (or the zone); none: the rack "unracked";
//   - islands: gantry.dev/nvlink-island GPUs each; NVSwitch when one island holds every GPU of
//     a model with NVLink, NVLink boards when smaller, PCIe without NVLink.
// A Node's change updates labels, taints, cordon (spec.unschedulable) and readiness; a
// deleted Node becomes not ready. A Node whose allocatable differs from its class's capacity
// (a device plugin restarting reports 0 GPUs for a while; a model node built otherwise) takes
// no new pods until it matches again.
//
// A node's GPUs out of service (annotation gantry.dev/unhealthy-gpus, whose count the device
// plugin leaves out of allocatable) are held by an allocation of their own (owner
// (kUnhealthyGpuHold, node)) while free, so the policies place nothing on them, as the
// simulator holds a failed GPU; a GPU that a pod still uses is held once that pod has gone
// (refresh_gpu_holds(), which the scheduler calls before each cycle). The node's capacity is
// its allocatable plus those GPUs.
//
// Pods that Gantry does not place (another scheduler's, DaemonSets', static pods) still use
// their node: occupy() records them as allocations owned by (kForeignWorkload, n), GPUs from
// their gantry.dev/gpu-index annotation or, without one, the lowest free GPUs.
//
// Not thread-safe: the event loop's thread (informer events are posted to it).

#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "adapters/kube/model/kube_node.hpp"
#include "adapters/kube/model/kube_pod.hpp"
#include "engine/cluster/cluster.hpp"
#include "engine/core/status.hpp"

namespace gantry::kube {

// The owner id of allocations of pods Gantry does not place.
inline constexpr int32_t kForeignWorkload = -2;
// The owner id of the allocations that keep GPUs out of service out of use (the pod: the node).
inline constexpr int32_t kUnhealthyGpuHold = -4;

class LiveCluster {
 public:
  explicit LiveCluster(Topology model);

  Cluster& cluster() { return cluster_; }
  const Cluster& cluster() const { return cluster_; }

  // A Node added or changed. Returns its id, or an error (no change) when it cannot be
  // modelled (more than 64 GPUs, islands that do not divide its GPUs).
  Result<NodeId> upsert_node(const KubeNode& node);
  // A Node deleted: its id stays (not ready), its allocations stay until their pods go.
  void delete_node(const std::string& name);
  std::optional<NodeId> node_id(const std::string& name) const;
  // Seen as a Node and not deleted since.
  bool present(NodeId n) const;
  // What keeps node n from taking any new pod, whatever the pod asks and tolerates: the first
  // that holds, in this order (kNone: nothing; taints and labels are each gang's business,
  // node_labels.hpp).
  enum class NodeBar {
    kNone,
    kAbsent,             // no Node object: a model node not registered yet, or deleted
    kNotReady,           // its Ready condition is not True
    kAllocatableUnlike,  // allocatable (+ GPUs out of service) differs from its class (above)
    kCordoned,           // spec.unschedulable
  };
  NodeBar bar(NodeId n) const;
  // Node n's GPUs out of service (gantry.dev/unhealthy-gpus; bit i = GPU i), 0 for a node
  // whose allocatable is unlike its class.
  uint64_t unhealthy_gpus(NodeId n) const;

  // A pod Gantry does not place, bound to a node: its request is taken there. Idempotent by
  // pod key; an error (no change) when the node is unknown or the request does not fit (the
  // model disagrees with the cluster: the pod is not counted, and the caller logs it).
  Status occupy(const KubePod& pod);
  // Such a pod ended or was deleted; nothing when it was not occupying.
  void vacate(const std::string& pod_key);
  size_t foreign_pods() const { return foreign_.size(); }
  // Holds the free GPUs out of service that are not held yet (see above).
  void refresh_gpu_holds();

 private:
  struct NodeState {
    bool present = false;
    bool ready = false;          // the Node's Ready condition
    bool unschedulable = false;  // spec.unschedulable
    bool fits_class = true;      // allocatable (+ GPUs out of service) == its class's capacity
    uint64_t unhealthy = 0;      // GPUs out of service
  };
  void hold_gpus(NodeId n);
  Result<int32_t> class_for(const KubeNode& node, GpuTypeId gpu_type);
  GpuTypeId gpu_type_for(const KubeNode& node);
  void apply_state(NodeId n);

  Cluster cluster_;
  std::map<std::string, NodeId> by_name_;
  std::vector<NodeState> state_;
  std::unordered_map<std::string, int32_t> foreign_;  // pod key -> owner pod number
  int32_t next_foreign_ = 0;
};

}  // namespace gantry::kube
