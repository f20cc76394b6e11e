#pragma once
// What the live scheduler writes to carry out an elastic job's resize (live_scheduler.hpp,
// "Resizes"), as a seam next to PodBinder: KubeResizeWriter does it over the Kubernetes client;
// a test may script it.
//
// Every call is made on the event loop's thread and its completion runs there too, never
// inside the call itself.

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/core/status.hpp"

namespace gantry::kube {

// An elastic job's host list: ConfigMap "<job>-hosts" in the gang's namespace, labelled
// gantry.dev/gang=<job>, data key "hostfile": one line per Worker, in Worker index order,
// "<pod name> slots=<GPUs of the pod>" (an MPI/DeepSpeed hostfile; at least 1 slot). The job's
// launcher reads it (mounted, or watched) to know its Workers after a resize: a scale-in writes
// it before the pods that leave are deleted, a scale-out once every new pod runs.
inline constexpr const char* kHostfileKey = "hostfile";
std::string hosts_config_map_name(const std::string& job);

class ResizeWriter {
 public:
  virtual ~ResizeWriter() = default;
  // POSTs `pod` (a whole Pod object) to its namespace. `done` gets the uid of the pod created,
  // or an error (AlreadyExists, refused by admission, ...).
  virtual void create_pod(const std::string& ns, const nlohmann::json& pod,
                          std::function<void(Result<std::string>)> done) = 0;
  // Writes ConfigMap ns/name with `data` (replaced whole, created when absent) and `labels`.
  virtual void write_config_map(const std::string& ns, const std::string& name,
                                const std::map<std::string, std::string>& data,
                                const std::map<std::string, std::string>& labels,
                                std::function<void(Status)> done) = 0;
};

}  // namespace gantry::kube
