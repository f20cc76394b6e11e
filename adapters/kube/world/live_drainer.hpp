#pragma once
// A drain (sim/fault_event.hpp, FaultAction::kDrain) carried out on a live cluster, as the
// simulated world carries it out (sim/training_world.cpp) and as `kubectl drain` does:
//
//   drain(node, deadline, maintenance)
//     1. cordon: PATCH /api/v1/nodes/{node} {"spec":{"unschedulable":true}} (merge); the live
//        scheduler sees the cordon and places nothing more there.
//     2. the pods of Gantry's scheduler on the node (spec.schedulerName, not ended, not deleting)
//        may end by themselves until `deadline` (0: evicted at once);
//     3. at the deadline the rest are evicted through the Eviction API (the PodEvictor: policy/v1
//        with the pod's uid, a PodDisruptionBudget's 429 asked again after its Retry-After, on
//        the event loop's timers), each reported as a DrainReport kEvicted with reason Drain;
//     4. once none of those pods is left (the informer shows them gone or ended), the node is
//        under maintenance for `maintenance`, then uncordoned (PATCH unschedulable false).
// Pods of other schedulers (DaemonSets, system pods) are left alone, as `kubectl drain
// --ignore-daemonsets` would; a drain of a node already draining is ignored (one at a time, as
// in the simulator).
//
// The drainer watches pods with an informer of its own (informer(); started by start()).
//
// Threads: construct, start(), drain() and stop() on the event loop's thread (or before it
// runs); the informer and the API workers post to the loop. Destroy after stop().

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/informer.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/model/kube_pod.hpp"
#include "adapters/kube/world/pod_evictor.hpp"
#include "engine/core/event_loop.hpp"

namespace gantry::kube {

// The eviction reason of a drain (the simulator's kReasonDrain, sim/training_world.hpp).
inline constexpr const char* kDrainReason = "Drain";

// What a drain did, for the caller to log or turn into Observations.
struct DrainReport {
  enum class Kind {
    kCordoned,        // the cordon was written
    kEvicting,        // a pod's eviction is about to be asked for (pod, reason Drain)
    kEvicted,         // a pod's eviction was accepted (pod)
    kEvictionFailed,  // the PodEvictor gave up on a pod (pod, reason: why)
    kEmpty,           // no Gantry pod left: maintenance begins
    kUncordoned,      // maintenance over, the node schedulable again
    kError,           // a cordon or uncordon write failed (reason)
  };
  Kind kind = Kind::kCordoned;
  Time at;
  std::string node;
  std::string pod;  // namespace/name
  std::string reason;
};

struct LiveDrainerOptions {
  std::string scheduler_name = "gantry";  // whose pods a drain evicts
};

class LiveDrainer {
 public:
  // All must outlive the drainer.
  LiveDrainer(KubeClient& client, ApiWorkers& workers, EventLoop& loop, PodEvictor& evictor,
              LiveDrainerOptions options = {});
  ~LiveDrainer();
  LiveDrainer(const LiveDrainer&) = delete;
  LiveDrainer& operator=(const LiveDrainer&) = delete;

  void start();
  void stop();
  const Informer& informer() const { return *informer_; }
  // Called with every report, on the loop thread.
  void on_report(std::function<void(const DrainReport&)> fn) { report_ = std::move(fn); }

  // Starts a drain now; false when the node is draining already.
  bool drain(const std::string& node, Duration deadline, Duration maintenance);
  bool draining(const std::string& node) const { return drains_.count(node) != 0; }

 private:
  struct Drain {
    Duration maintenance;
    bool deadline_passed = false;
    bool in_maintenance = false;
    std::set<std::string> evicting;  // pod keys whose eviction was asked for
    std::optional<TimerId> timer;    // the deadline, then the end of maintenance
  };
  void on_pod(const KubePod& pod, bool deleted);
  // The Gantry pods on `node` still holding it.
  std::vector<PodRef> pods_on(const std::string& node) const;
  void deadline(const std::string& node);
  void check_empty(const std::string& node);
  void write_cordon(const std::string& node, bool unschedulable);
  void tell(DrainReport::Kind kind, const std::string& node, std::string pod = {},
            std::string reason = {});

  KubeClient& client_;
  ApiWorkers& workers_;
  EventLoop& loop_;
  PodEvictor& evictor_;
  LiveDrainerOptions options_;
  std::unique_ptr<Informer> informer_;
  std::map<std::string, KubePod> pods_;  // Gantry's pods bound to a node, not ended, by key
  std::map<std::string, Drain> drains_;  // by node
  std::function<void(const DrainReport&)> report_;
  bool stopped_ = false;
};

}  // namespace gantry::kube
