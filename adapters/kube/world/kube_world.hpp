#pragma once
// The live world assembled: the shared Scheduler placing pods of a Kubernetes cluster through
// the API server (`gantry serve --world kube`; the conformance test builds the same).
//
//   informers (nodes, pods) ──post──► LiveScheduler (LiveCluster, GangAssembly, Scheduler)
//                                          │ binds, deletes, Events    │ admission's evictions
//                                          ▼                           ▼
//                                   KubePodBinder              KubePodEvictor
//                                   KubeResizeWriter                   ▲
//                                          └───────ApiWorkers──────────┘──► API server
//                                   LiveDrainer (drain()) ─── evictions ┘
//
// Resizes (live_scheduler.hpp) create pods and write host lists through the KubeResizeWriter.
// With `drains` on, a LiveDrainer (its own informer of bound pods) carries out drain(): each
// pod it is about to evict is reported to the scheduler (LiveScheduler::drain_pod: its
// workload evicted with reason Drain, or an elastic gang scaled in), the cordon and uncordon
// reach it through the node informer (kNodeCordoned, kNodeUncordoned).
//
// Drain requests (`gantry kube drain`; model/kube_node.hpp, gantry.dev/drain-request): with
// `drains` on, the leader (the active scheduler) starts the drain a node's request asks for
// when the node informer shows it, once: it marks the request taken in gantry.dev/drain-state
// ("draining" once the cordon is written, "done" once the node is uncordoned; "refused" with the
// reason for a request it cannot read or a node already draining) and never starts a request
// the state already names, so a restarted server or a new leader does not repeat it. A replica
// that becomes the leader looks at every node's request then. Not resumed: a drain cut short by
// the server's end (the node stays cordoned, its state "draining"; `kubectl uncordon` ends it).
//
// With leader election on, replicas campaign for a coordination.k8s.io/v1 Lease
// (leader_election.hpp) on a thread of their own; only the leader's scheduler places pods,
// the others keep their model warm from the informers and take over when the lease is theirs.
//
// Threads: construct, start() and stop() on the event loop's thread (or before it runs); the
// informers, the elector and the API workers run on their own threads and reach the world
// only through EventLoop::post(). Destroy it only after the loop stopped running its posts.

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/informer.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/leader_election.hpp"
#include "adapters/kube/sleeper.hpp"
#include "adapters/kube/world/kube_pod_binder.hpp"
#include "adapters/kube/world/kube_pod_evictor.hpp"
#include "adapters/kube/world/kube_resize_writer.hpp"
#include "adapters/kube/world/live_cluster.hpp"
#include "adapters/kube/world/live_drainer.hpp"
#include "adapters/kube/world/live_scheduler.hpp"

namespace gantry::kube {

struct KubeWorldOptions {
  Topology model;  // a scenario's topology (live_cluster.hpp), or one with only a catalog
  LiveSchedulerConfig scheduler;
  std::string identity = "gantry";  // this replica, in Events and the Lease
  bool leader_election = false;
  LeaderElectionOptions election;  // identity filled from `identity` when empty
  // Campaign on a thread of its own (run()); false: only campaign() steps the election (tests
  // that move a virtual clock).
  bool election_thread = true;
  size_t api_threads = 8;
  PodEvictorOptions eviction{};  // retries of the Eviction API (kube_pod_evictor.hpp)
  bool drains = false;           // a LiveDrainer for drain() (above)
};

class KubeWorld {
 public:
  // `client` and `loop` must outlive the world.
  KubeWorld(KubeClient& client, EventLoop& loop, KubeWorldOptions options);
  ~KubeWorld();
  KubeWorld(const KubeWorld&) = delete;
  KubeWorld& operator=(const KubeWorld&) = delete;

  void start();
  void stop();

  LiveScheduler& scheduler() { return *scheduler_; }
  LiveCluster& cluster() { return cluster_; }
  ApiWorkers& workers() { return workers_; }
  ApiWorkers& event_workers() { return event_workers_; }
  const KubePodEvictor& evictor() const { return evictor_; }
  const Informer& node_informer() const { return *nodes_; }
  const Informer& pod_informer() const { return *pods_; }
  bool leader() const { return !elector_ || elector_->is_leader(); }
  // One step of the election on the caller's thread (not the loop's): acquire or renew;
  // the scheduler becomes active or not accordingly (posted to the loop). Returns whether
  // this replica leads. Needs leader_election.
  bool campaign();
  // Starts a drain of `node` (live_drainer.hpp); false when it is draining already. Needs
  // `drains`; on the loop thread. Reports go to on_drain_report() too.
  bool drain(const std::string& node, Duration deadline, Duration maintenance);
  LiveDrainer* drainer() { return drainer_.get(); }
  void on_drain_report(std::function<void(const DrainReport&)> fn) {
    drain_report_ = std::move(fn);
  }
  // Called on the loop thread whenever the election makes this replica the leader or not
  // (after the scheduler), for the parts that act only while leading (LiveServing).
  void on_leadership(std::function<void(bool leading)> fn) { leadership_ = std::move(fn); }
  // Drain requests started and refused by this world (above).
  size_t drain_requests_started() const { return requests_started_; }
  size_t drain_requests_refused() const { return requests_refused_; }

 private:
  // The scheduler made active or not (the election); a new leader looks at drain requests.
  void lead(bool leading);
  // A node as the informer shows it: starts its drain request if due (above).
  void drain_request_seen(const nlohmann::json& node);
  void write_drain_state(const std::string& node, std::string value);

  KubeClient& client_;
  EventLoop& loop_;
  KubeWorldOptions options_;
  ApiWorkers workers_;
  ApiWorkers event_workers_;
  LiveCluster cluster_;
  KubePodBinder binder_;
  KubePodEvictor evictor_;
  KubeResizeWriter resize_writer_;
  std::unique_ptr<LiveScheduler> scheduler_;
  std::unique_ptr<LiveDrainer> drainer_;
  std::function<void(const DrainReport&)> drain_report_;
  std::function<void(bool)> leadership_;
  std::map<std::string, std::string> requests_taken_;    // node -> `requested` taken last
  std::map<std::string, std::string> requests_running_;  // node -> `requested` being drained
  size_t requests_started_ = 0;
  size_t requests_refused_ = 0;
  std::unique_ptr<Informer> nodes_;
  std::unique_ptr<Informer> pods_;
  std::unique_ptr<LeaderElector> elector_;
  InterruptibleSleeper election_sleeper_;
  std::thread election_thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace gantry::kube
