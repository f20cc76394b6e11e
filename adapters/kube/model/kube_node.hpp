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
//   gantry.dev/drain-request     annotation: a drain asked for by `gantry kube drain` (below),
//                                kept as written (drain_request) and read by
//                                parse_drain_request, so a malformed one never makes the node
//                                itself unreadable
//   gantry.dev/drain-state       annotation: what the live world did with that request
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
#include "engine/core/time.hpp"

namespace gantry::kube {

inline constexpr std::string_view kRackLabel = "gantry.dev/rack";
inline constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";
inline constexpr std::string_view kIslandLabel = "gantry.dev/nvlink-island";
inline constexpr std::string_view kNodeClassLabel = "gantry.dev/node-class";
// The node's network bandwidth as a scenario writes it, in bits per second ("1600Gbps"; a
// label value has no '/'): kubelet-sim writes it, `gantry snapshot` reads it back.
inline constexpr std::string_view kNicLabel = "gantry.dev/nic";
inline constexpr std::string_view kUnhealthyGpusAnnotation = "gantry.dev/unhealthy-gpus";
inline constexpr std::string_view kDrainRequestAnnotation = "gantry.dev/drain-request";
inline constexpr std::string_view kDrainStateAnnotation = "gantry.dev/drain-state";

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
  std::string drain_request;  // the gantry.dev/drain-request annotation as written, or ""
  std::string drain_state;    // the gantry.dev/drain-state annotation as written, or ""
};

KubeNode parse_node(const nlohmann::json& node);

// ---- drains asked for through the API server ----
//
// `gantry kube drain NODE --deadline D --for M` writes (merge PATCH of the node)
//   gantry.dev/drain-request: {"deadline":"2h","for":"4h","requested":"<MicroTime>"}
// and the leader of `gantry serve --world kube` carries it out with its LiveDrainer
// (world/kube_world.hpp). `requested` (RFC 3339 UTC with six fractional digits, the CLI's
// clock) tells one request from the next: the world marks the request it takes in
//   gantry.dev/drain-state: {"requested":"<the request's>","state":"draining"|"done"|"refused",
//                            "at":"<RFC 3339>"[,"reason":"why refused"]}
// and never starts a request whose `requested` the state already names (a restarted server,
// another replica). A request that cannot be read is refused; its `requested` is then the whole
// annotation text.
//
// Durations are parse_duration's ("90s", "1h30m"); the deadline may be 0 (evict at once), the
// maintenance must be above 0; both at most kMaxDrainDuration.
inline constexpr Duration kMaxDrainDuration = days(365);

struct DrainRequest {
  Duration deadline{};
  Duration maintenance{};  // "for"
  std::string requested;   // as written: what identifies the request
};

// The annotation's value (compact JSON, keys in the order above); durations written exactly
// (format_duration_exact); `requested` as given (the CLI: format_micro_time of its clock).
std::string drain_request_value(Duration deadline, Duration maintenance,
                                const std::string& requested);
// Reads node.drain_request. Throws InputError whose file is "Node <name>" and whose field is
// metadata.annotations.gantry.dev/drain-request[.deadline|.for|.requested].
DrainRequest parse_drain_request(const KubeNode& node);
// The drain-state annotation's value (compact JSON, keys in the order above; `reason` only when
// not empty; `at` as format_rfc3339 writes it).
std::string drain_state_value(const std::string& requested, const std::string& state, Time at,
                              const std::string& reason = {});
// The `requested` a drain-state annotation names; "" when there is none or it cannot be read
// (then no request counts as taken).
std::string drain_state_requested(const KubeNode& node);
// The checks of a drain's deadline (`maintenance` false) or maintenance: an error message
// ("expected a duration ...", "must be above 0", "at most 365d"), or "" when fine.
std::string check_drain_duration(const std::string& text, bool maintenance, Duration& out);

}  // namespace gantry::kube
