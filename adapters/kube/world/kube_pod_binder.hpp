#pragma once
// The PodBinder (pod_binder.hpp) over the Kubernetes API: each call runs on an ApiWorkers
// thread and its completion is posted to the event loop.
//
//   bind:   POST pods/{name}/binding carrying the uid and the gantry.dev/gpu-index annotation
//           (the API server sets both in one write). 409 (already bound, or another
//           incarnation) and 404 (gone) come back as errors saying so.
//   evict:  DELETE with a uid precondition (a recreated pod of the same name is not touched).
//   record: POST an events.k8s.io/v1 Event, reportingController gantry.dev/scheduler.
//
// Thread-safety: bind/evict/record are called on the loop thread; the client and the workers
// are thread-safe.

#include <string>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/world/pod_binder.hpp"
#include "engine/core/event_loop.hpp"

namespace gantry::kube {

class KubePodBinder final : public PodBinder {
 public:
  // All must outlive the binder. Binds and evictions run on `workers`, Events on
  // `event_workers` (so a burst of Events never delays a bind). `instance` names this replica
  // in Events.
  KubePodBinder(KubeClient& client, ApiWorkers& workers, ApiWorkers& event_workers, EventLoop& loop,
                std::string instance);

  void bind(const PodBinding& binding, std::function<void(Status)> done) override;
  void evict(const PodRef& pod, const std::string& reason) override;
  void record(const PodEvent& event) override;

 private:
  KubeClient& client_;
  ApiWorkers& workers_;
  ApiWorkers& event_workers_;
  EventLoop& loop_;
  std::string instance_;
};

}  // namespace gantry::kube
