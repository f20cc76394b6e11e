#pragma once
// The shared Scheduler (engine/policy) placing pods in a live cluster: the live world's half
// of the scheduler–world contract of engine/policy/actions.hpp (DESIGN.md rule 3). The policy
// code is the simulator's; only this front differs.
//
//   informer events ─► pod_changed / pod_deleted / node_changed / node_deleted
//        │  Gantry's pods (spec.schedulerName) wait in gangs (gang_assembly.hpp); a complete
//        │  gang is submitted as a workload; other pods on a node take their share of it
//        ▼  (LiveCluster::occupy)
//   cycle() ─► Scheduler::run_cycle ─► BindAction per gang ─► PodBinder::bind per pod
//        ▼
//   every bind ok ─► kBound, an Event "Scheduled" per pod
//   any bind failed ─► the pods already bound are evicted (a gang is never left half-bound),
//        kBindFailed: the scheduler forgets the gang and retries it after its backoff
//   pod phases ─► kPodRunning, kRunning (all run), kFinished (all succeeded), kFailed (one
//        failed: its other pods are stopped); a placed gang that loses a pod is withdrawn and
//        its other pods are stopped
//
// A complete gang that a cycle cannot place gets one "FailedScheduling" Event per pod with the
// reason (what it asks for against what is free), once per submission and after each failed
// bind, not every cycle (the API server would be flooded). Pods of Gantry's scheduler already
// bound when first seen (by an earlier life of the scheduler) keep their node and count as used.
//
// Cycles run when something changed (coalesced into one per event-loop turn) and when the
// scheduler's Waker asks (the end of a bind backoff).
//
// Not thread-safe: the event loop's thread.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "adapters/kube/world/gang_assembly.hpp"
#include "adapters/kube/world/live_cluster.hpp"
#include "adapters/kube/world/pod_binder.hpp"
#include "engine/core/event_loop.hpp"
#include "engine/policy/action_log.hpp"
#include "engine/policy/scheduler.hpp"

namespace gantry::kube {

struct LiveSchedulerConfig {
  std::string scheduler_name = "gantry";  // the pods' spec.schedulerName this scheduler places
  SchedulerConfig policy;
};

// One placement decision, as the conformance test compares them across worlds: recorded when
// a cycle places a gang, in pod order (a bind that fails later does not erase it).
struct PlacementDecision {
  Time at;
  std::string pod;  // namespace/name
  std::string node;
  std::vector<int> gpus;
};

class LiveScheduler : private Scheduler::Waker {
 public:
  // All three must outlive the scheduler. Throws std::invalid_argument for an unknown
  // placement policy (Scheduler).
  LiveScheduler(EventLoop& loop, LiveCluster& cluster, PodBinder& binder,
                LiveSchedulerConfig config);

  // Informer events; objects that cannot be read are skipped and counted (skipped_objects()).
  void pod_changed(const nlohmann::json& pod);
  void pod_deleted(const nlohmann::json& pod);
  void node_changed(const nlohmann::json& node);
  void node_deleted(const nlohmann::json& node);

  // One scheduling cycle now (normally requested by the events themselves).
  void cycle();
  // Only an active scheduler places pods (the leader among replicas); an inactive one keeps
  // its model up to date from the events. Active from construction.
  void set_active(bool active);
  bool active() const { return active_; }
  // Writes every bind and observation, as the simulated world does (action_log.hpp); the log
  // must outlive the scheduler or be unset. nullptr: none.
  void set_action_log(ActionLog* log) { log_ = log; }

  const Scheduler& scheduler() const { return scheduler_; }
  const std::vector<PlacementDecision>& decisions() const { return decisions_; }
  size_t skipped_objects() const { return skipped_; }
  size_t waiting_gangs() const { return gangs_.size(); }

 private:
  enum class Phase { kWaiting, kBinding, kPlaced };
  struct Submitted {
    JobId job = -1;
    std::string gang;
    Phase phase = Phase::kWaiting;
    std::unique_ptr<JobSpec> spec;  // the Scheduler keeps a pointer to it
    std::vector<PodRef> pods;       // in pod order
    std::vector<KubePod> last;      // each pod as last seen
    std::vector<bool> running;
    std::vector<bool> succeeded;
    std::vector<bool> bound;
    int binds_outstanding = 0;
    std::string bind_error;
    bool failure_reported = false;  // FailedScheduling sent for this try
  };

  void wake_at(Time t) override;
  void request_cycle();
  void handle_pod(const KubePod& pod, bool deleted);
  void handle_placed_pod(Submitted& s, int32_t index, const KubePod& pod, bool deleted);
  void submit(const Gang& gang);
  // A waiting gang's pods changed: renamed incarnations are followed, anything else withdraws
  // the submitted workload (it is submitted again once complete).
  void gang_changed(const Gang& gang);
  void withdraw_waiting(JobId job);
  void start_bind(const BindAction& action);
  void bind_done(JobId job, int32_t index, Status result);
  void finish_bind(Submitted& s);
  // Moves a placed workload on when its pods' phases allow (kRunning, kFinished).
  void advance(Submitted& s);
  // Stops every pod of a placed workload but `except` (their share stays counted as foreign
  // until they go) and forgets the workload.
  void stop_pods(Submitted& s, int32_t except, const std::string& reason);
  void forget(JobId job);
  void report_unplaced();
  void observe(Observation::Kind kind, JobId job, int32_t pod = -1, std::string reason = {});

  EventLoop& loop_;
  LiveCluster& live_;
  PodBinder& binder_;
  LiveSchedulerConfig config_;
  Scheduler scheduler_;
  GangAssembly gangs_;
  std::map<JobId, Submitted> submitted_;
  std::map<std::string, JobId> job_of_gang_;                     // submitted, not yet placed
  std::map<std::string, std::pair<JobId, int32_t>> placed_pod_;  // pod key -> (job, index)
  JobId next_job_ = 0;
  bool cycle_requested_ = false;
  bool active_ = true;
  ActionLog* log_ = nullptr;
  std::vector<PlacementDecision> decisions_;
  size_t skipped_ = 0;
};

}  // namespace gantry::kube
