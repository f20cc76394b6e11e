#pragma once
// What the live scheduler asks of the API server, as a seam: KubePodBinder does it over the
// Kubernetes client (a worker thread per request, completions posted to the event loop); the
// tests use a scripted binder that completes calls when told (tests/adapters/kube_world).
//
// Every call is made on the event loop's thread and its completion runs there too, never
// inside the call itself (so a caller may start several and count them).

#include <functional>
#include <string>
#include <vector>

#include "engine/core/status.hpp"

namespace gantry::kube {

struct PodRef {
  std::string namespace_name;
  std::string name;
  std::string uid;  // the incarnation meant: a pod recreated under the same name is not it
  std::string key() const { return namespace_name + "/" + name; }
};

struct PodBinding {
  PodRef pod;
  std::string node;
  std::vector<int> gpu_index;  // written to gantry.dev/gpu-index before the bind; may be empty
};

// An events.k8s.io/v1 Event about a pod.
struct PodEvent {
  PodRef pod;
  bool warning = false;  // type Warning (else Normal)
  std::string reason;    // "Scheduled", "FailedScheduling"
  std::string action;    // "Binding", "Scheduling"
  std::string note;
};

class PodBinder {
 public:
  virtual ~PodBinder() = default;
  // Annotates the pod with its GPUs (if any), then binds it (pods/binding). `done` gets ok, or
  // an error saying why (the pod is gone, already bound, the API server refused).
  virtual void bind(const PodBinding& binding, std::function<void(Status)> done) = 0;
  // Deletes the pod (uid precondition): undoes a bound pod of a gang whose other binds failed,
  // or stops a gang that lost a pod. Fire and forget: the pod's deletion arrives by the
  // informer.
  virtual void evict(const PodRef& pod, const std::string& reason) = 0;
  // Records an Event; fire and forget.
  virtual void record(const PodEvent& event) = 0;
};

}  // namespace gantry::kube
