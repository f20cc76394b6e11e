#pragma once
// What Gantry reads from a Kubernetes Node object (core/v1), and the labels that carry the
// topology the policies use. Both worlds agree on these labels: `gantry kubelet-sim` writes
// them for a scenario's nodes, the live world reads them back.
//
//   nvidia.com/gpu.product       GPU model (gpu_product.hpp), e.g. "NVIDIA-A100-SXM4-80GB"
//   status.allocatable           cpu, memory and nvidia.com/gpu the scheduler may hand out
//   gantry.dev/rack              the rack (its top-of-rack switch: what the fabric model and
//                                topology placement group by); if absent,
//                                topology.kubernetes.io/zone stands in (a zone as one rack)
//   gantry.dev/nvlink-island     GPUs per NVLink/NVSwitch island inside the node ("8": all
//                                GPUs on one NVSwitch; "4": two 4-GPU NVLink boards; "1": PCIe
//                                only); absent: one island of all the node's GPUs
//   gantry.dev/node-class        the scenario's node class (kubelet-sim); absent: a class is
//                                made per (GPU model, capacity, island size)
//   gantry.dev/unhealthy-gpus    annotation: GPUs out of service ("5" or "1,5"), which the
//                                device plugin no longer counts in allocatable nvidia.com/gpu
//                                (kubelet-sim writes it for a gpu-fail event); the live world
//                                keeps exactly those GPUs out of use, as the simulator does
//   spec.unschedulable           cordoned
//   status.conditions[Ready]     ready when its status is "True"
//   spec.taints                  taints (NoSchedule, PreferNoSchedule, NoExecute)
//
// Errors: parse_node() throws InputError whose file is "Node <name>" and whose field is the
// JSON path of what is malformed (a quantity that is not one, a taint effect Kubernetes does
// not have), so a log line says exactly which object and field.
//
// Thread-safety: pure functions.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/cluster/node_labels.hpp"
#include "engine/cluster/resources.hpp"

namespace gantry::kube {

inline constexpr std::string_view kRackLabel = "gantry.dev/rack";
inline constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";
inline constexpr std::string_view kIslandLabel = "gantry.dev/nvlink-island";
inline constexpr std::string_view kNodeClassLabel = "gantry.dev/node-class";
inline constexpr std::string_view kUnhealthyGpusAnnotation = "gantry.dev/unhealthy-gpus";

struct KubeNode {
  std::string name;
  std::string uid;
  std::string resource_version;
  Labels labels;
  std::vector<Taint> taints;
  Resources allocatable;        // cpu_milli, memory_bytes, gpus (whole GPUs)
  uint64_t unhealthy_gpus = 0;  // gantry.dev/unhealthy-gpus: bit i = GPU i out of service
  std::string gpu_product;      // the label's value; "" for a node without GPUs
  std::string rack;             // gantry.dev/rack, else the zone, else ""
  int island_size = 0;          // GPUs per island (of all its GPUs, healthy or not); 0: no GPU
  std::string node_class;       // gantry.dev/node-class, or ""
  bool ready = false;
  bool unschedulable = false;
};

KubeNode parse_node(const nlohmann::json& node);

}  // namespace gantry::kube
