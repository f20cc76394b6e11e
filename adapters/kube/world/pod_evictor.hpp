#pragma once
// How the live scheduler takes a placed gang's pods away when admission decides it
// (engine/policy/queues: preemption, waitForPodsReady), as a seam: KubePodEvictor does it
// through the Eviction API (kube_pod_evictor.hpp); the tests of the live scheduler use a
// scripted evictor.
//
// An eviction is asked for, not done: `done` says whether the API server accepted it (or the
// pod was gone already), and the pod's deletion itself arrives by the informer, which is when
// the scheduler counts the pod gone. Undoing a half-bound gang and stopping a gang that lost a
// pod stay with PodBinder::evict() (a plain DELETE: those pods were never running as a gang, or
// no longer are, so no disruption budget has a say).
//
// Every call is made on the event loop's thread and its completion runs there too, never
// inside the call itself.

#include <functional>

#include "adapters/kube/world/pod_binder.hpp"
#include "engine/core/status.hpp"

namespace gantry::kube {

class PodEvictor {
 public:
  virtual ~PodEvictor() = default;
  // Evicts incarnation pod.uid of the pod, retrying while the API server says "not now".
  // `done` gets ok once the API server accepted the eviction, or the pod (that incarnation) is
  // gone already; an error when the evictor gave up.
  virtual void evict(const PodRef& pod, std::function<void(Status)> done) = 0;
};

}  // namespace gantry::kube
