#pragma once
// A STAND-IN for kube-scheduler, for a rehearsal on a plain API server (`gantry kubelet-sim
// --default-scheduler`): the pods of spec.schedulerName default-scheduler that no node holds yet
// (a Job's pods, which Gantry's own scheduler leaves alone: it places pods of schedulerName
// gantry) are bound (POST pods/NAME/binding with the pod's uid) to kubelet-sim's nodes in turn,
// skipping nodes that are down. No fit is checked (resources, taints, affinity): it is not the
// real scheduler, only what lets the rest of the rehearsal run. A pod being deleted is left.
//
// Threads: handlers on the event loop's thread; bindings on the ApiWorkers.

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/informer.hpp"
#include "adapters/kube/kube_client.hpp"
#include "engine/core/event_loop.hpp"

namespace gantry::kube {

class DefaultSchedulerSim {
 public:
  // `nodes`: the nodes to bind to, in turn. `usable`: whether a node may take a pod now (loop
  // thread); empty: all may. client, workers and loop must outlive it.
  DefaultSchedulerSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                      std::vector<std::string> nodes,
                      std::function<bool(const std::string&)> usable = {});
  ~DefaultSchedulerSim();
  void start();
  void stop();
  int64_t bound() const { return bound_; }  // bindings sent (loop thread)

 private:
  KubeClient& client_;
  ApiWorkers& workers_;
  EventLoop& loop_;
  std::vector<std::string> nodes_;
  std::function<bool(const std::string&)> usable_;
  std::unique_ptr<Informer> informer_;
  std::set<std::string> sent_;  // pod uids whose binding was sent
  size_t next_ = 0;
  int64_t bound_ = 0;
  bool stopped_ = false;
};

}  // namespace gantry::kube
