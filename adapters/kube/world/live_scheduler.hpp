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
//        │                         └─► EvictAction per victim (take_evictions) ─► PodEvictor
//        ▼
//   every bind ok ─► kBound, an Event "Scheduled" per pod
//   any bind failed ─► the pods already bound are evicted (a gang is never left half-bound),
//        kBindFailed: the scheduler forgets the gang and retries it after its backoff
//   pod phases ─► kPodRunning, kRunning (all run), kFinished (all succeeded), kFailed (one
//        failed: its other pods are stopped); a placed gang that loses a pod is withdrawn and
//        its other pods are stopped
//
// Admission (SchedulerConfig::admission with queues; engine/policy/queues/README.md). A gang
// waits in the queue its pods name (label gantry.dev/queue); a gang that names none, an unknown
// one, or several is not submitted: one "FailedScheduling" Event per pod says why (counted:
// refused_gangs()), and it is looked at again when its pods change. When a cycle decides
// evictions (a preemption's victims, a gang whose pods were not ready in time), every pod of the
// victim gang is evicted through the PodEvictor (the Eviction API, so PodDisruptionBudgets have
// their say) and the decision is recorded as Events: on the victim's pods (reason: the
// eviction's — Preempted, InCohortReclamation, InCohortFairSharing, PodsReadyTimeout — naming
// the preemptor) and on the preemptor's pods ("Preempting", naming its victims). The gang is
// reported kEvicted, with the eviction's reason, once the informer has shown every one of its
// pods deleted (or ended), not when the API server accepted the evictions: until then its
// pods hold their nodes. It is then pending again under the same workload id (in queue order by
// its first submission), and the pods its controller recreates under the same names join it;
// a gang re-admitted before they are all back cannot be bound and is withdrawn (its pods, when
// they come, are a new workload). A victim whose binds were still in flight is evicted once
// they settle: the pods that were bound go, the others never ran. A gang deactivated by
// waitForPodsReady (its backoff limit reached) stays so while pods of it wait; once they are
// all gone, pods of that gang are a new workload.
//
// Failures (kubelet-sim's fault events, or a real cluster's node lifecycle controller): a placed
// gang one of whose pods is Failed with status.reason NodeLost, RackLost or GPUFailure is killed
// as the simulator kills a job on a failed part: reported kEvicted with reason NodeFailure,
// RackFailure or GPUFailure (the simulator's, sim/training_world.hpp) and a deadline
// LiveSchedulerConfig::restart_delay later, its pods all deleted (uid preconditions; their
// resources stay counted until the informer shows them gone), and it waits again under the same
// workload id for its pods, which its controller recreates under the same names. A node whose
// Ready condition turns not True is reported kNodeFailed (and kNodeRecovered when it is back);
// spec.unschedulable turning on or off kNodeCordoned / kNodeUncordoned; the cluster model takes
// no pods on it meanwhile. Any other failed pod fails its workload (kFailed), as before.
//
// A complete gang that a cycle cannot place gets one "FailedScheduling" Event per pod with the
// reason (what it asks for against what is free), once per submission and after each failed
// bind, not every cycle (the API server would be flooded). Pods of Gantry's scheduler already
// bound when first seen (by an earlier life of the scheduler) keep their node and count as used.
//
// Cycles run when something changed (coalesced into one per event-loop turn) and when the
// scheduler's Waker asks (the end of a bind backoff, a waitForPodsReady deadline or backoff).
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
#include "adapters/kube/world/pod_evictor.hpp"
#include "engine/core/event_loop.hpp"
#include "engine/policy/action_log.hpp"
#include "engine/policy/scheduler.hpp"

namespace gantry::kube {

struct LiveSchedulerConfig {
  std::string scheduler_name = "gantry";  // the pods' spec.schedulerName this scheduler places
  SchedulerConfig policy;
  // From a failure that kills a gang (above) to when it may be placed again: the simulator's
  // spec.sim.restartDelay.
  Duration restart_delay{};
};

// The eviction reason of a pod ended by a failure of the part it ran on (status.reason NodeLost,
// RackLost, GPUFailure: kubelet_sim.hpp), as the simulator names it; "" for any other pod.
std::string failure_eviction_reason(const KubePod& pod);

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
  // All four must outlive the scheduler. Throws std::invalid_argument for an unknown
  // placement policy (Scheduler).
  LiveScheduler(EventLoop& loop, LiveCluster& cluster, PodBinder& binder, PodEvictor& evictor,
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
  // Writes every bind, eviction and observation, as the simulated world does (action_log.hpp);
  // the log must outlive the scheduler or be unset. nullptr: none.
  void set_action_log(ActionLog* log) { log_ = log; }

  const Scheduler& scheduler() const { return scheduler_; }
  const std::vector<PlacementDecision>& decisions() const { return decisions_; }
  size_t skipped_objects() const { return skipped_; }
  size_t waiting_gangs() const { return gangs_.size(); }
  // The gang ("namespace/gang") workload `job` was submitted for; "" for an id never given.
  const std::string& gang_name(JobId job) const;
  // Complete gangs not submitted because of their queue (see Admission above), each counted
  // once per reason.
  size_t refused_gangs() const { return refused_count_; }
  // Evictions the PodEvictor gave up on (each then deleted instead, with a Warning Event).
  size_t failed_evictions() const { return failed_evictions_; }

 private:
  // kEvicting: an EvictAction is being carried out (its pods are going); kInactive: deactivated
  // by waitForPodsReady, its gang's pods kept out of scheduling.
  enum class Phase { kWaiting, kBinding, kPlaced, kEvicting, kInactive };
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
    bool failure_reported = false;     // FailedScheduling sent for this try
    std::optional<EvictAction> evict;  // decided while binding (then carried out), or under way
    std::vector<bool> gone;            // kEvicting: pods deleted (or ended) since
  };
  // A complete gang refused (gang_refusal) and the pods told so, by uid.
  struct Refusal {
    std::string why;
    std::set<std::string> told;
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
  // Refuses a complete gang: an Event on each of its pods not told yet.
  void refuse(const Gang& gang, const std::string& why);
  // Every pod of a waiting gang left: forgets what was kept for it (a refusal, a deactivation).
  void gang_gone(const std::string& key);
  // Admission's evictions: Events, then begin_eviction for each (or once its binds settle).
  void start_evictions(const std::vector<EvictAction>& actions);
  void begin_eviction(Submitted& s, const EvictAction& action);
  void eviction_done(JobId job, int32_t index, Status result);
  // Reports kEvicted once every pod of an evicting workload is gone, and puts it back to wait.
  void settle_eviction(Submitted& s);
  void observe(Observation::Kind kind, JobId job, int32_t pod = -1, std::string reason = {});
  void observe_node(Observation::Kind kind, NodeId node, std::string reason = {});
  // A placed gang lost a pod to a failed part: see "Failures" above.
  void fail_over(Submitted& s, const std::string& reason);
  EventLoop& loop_;
  LiveCluster& live_;
  PodBinder& binder_;
  PodEvictor& evictor_;
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
  std::vector<std::string> gang_names_;     // by JobId
  std::map<std::string, Refusal> refused_;  // by gang key
  size_t refused_count_ = 0;
  size_t failed_evictions_ = 0;
  size_t skipped_ = 0;
};

}  // namespace gantry::kube
