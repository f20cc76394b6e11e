#pragma once
// `gantry kubelet-sim`: a virtual kubelet for every node of a scenario, against a real (or the
// tests' fake) API server, so a team rehearses live mode with no GPUs and the same scenario
// runs in both worlds.
//
//   start(): registers each node (node_objects.hpp; an existing Node of that name gets its
//            labels and status patched), creates its Lease in kube-node-lease and renews it
//            every 10 s of wall time, and starts a pod informer.
//   a pod bound to one of its nodes, pending: Running after the scenario's pod start-up delay
//            (spec.sim.podStartup), then Succeeded after its gantry.dev/simulate-duration, or
//            Failed: with its gantry.dev/simulate-exit-code when not 0, with exit code 1 for
//            gantry.dev/simulate-outcome "failed", evicted (status.reason Evicted) for "error";
//            a pod without a duration runs until deleted. Times are the event loop's (scaled by
//            --speed on a wall clock), written as status.startTime, the containers' startedAt
//            and finishedAt: the planned instants (seen + start-up, start + duration), so a
//            timer that runs late on a busy machine does not change the recorded life.
//   a pod deleted: forgotten (nothing more is written for it).
// Status goes through the pods/status subresource (PATCH, merge), with a uid precondition.
//
// Threads: the event loop's thread for everything but the API calls (ApiWorkers) and the
// informer's own thread, which posts its events to the loop.

#include <map>
#include <memory>
#include <set>
#include <string>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/informer.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/model/kube_pod.hpp"
#include "engine/cluster/topology.hpp"
#include "engine/core/event_loop.hpp"

namespace gantry::kube {

inline constexpr std::string_view kSimulateExitCodeAnnotation = "gantry.dev/simulate-exit-code";

struct KubeletSimOptions {
  Duration pod_startup = seconds(5);
  // Event-loop time per wall second (the loop's clock speed): Lease renewals go every 10 s of
  // wall time whatever the speed.
  double speed = 1;
  bool renew_leases = true;
};

struct KubeletSimStats {
  int64_t nodes_registered = 0;
  int64_t pods_started = 0;
  int64_t pods_succeeded = 0;
  int64_t pods_failed = 0;
  int64_t write_errors = 0;
};

class KubeletSim {
 public:
  // All of client, workers and loop must outlive it.
  KubeletSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop, Topology topology,
             KubeletSimOptions options = {});
  ~KubeletSim();

  // Registers the nodes (blocking: on the caller's thread, before the loop runs), then starts
  // the informer. Throws KubeError/KubeTransportError when the API server refuses a node.
  void start();
  void stop();

  KubeletSimStats stats() const { return stats_; }
  const Informer* informer() const { return informer_.get(); }

 private:
  struct Played {
    std::string uid;
    Time due;  // when the next step (running, ended) is planned
    Time started;
    std::optional<TimerId> timer;
  };
  void on_pod(const KubePod& pod, bool deleted);
  void set_running(const std::string& key);
  void set_ended(const std::string& key);
  void write_status(const KubePod& pod, nlohmann::json status);
  void renew_leases();

  KubeClient& client_;
  ApiWorkers& workers_;
  EventLoop& loop_;
  Topology topology_;
  KubeletSimOptions options_;
  std::set<std::string> nodes_;
  std::unique_ptr<Informer> informer_;
  std::map<std::string, Played> played_;  // pod key -> its life here
  std::map<std::string, KubePod> pods_;   // pod key -> last seen
  std::map<std::string, std::string> lease_versions_;
  KubeletSimStats stats_;
  bool stopped_ = false;
};

}  // namespace gantry::kube
