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
// Resizes (issue #13; engine/policy/actions.hpp ResizeAction, scheduler.hpp "Elasticity"). A
// gang is one JobSpec whose trailing Worker pods are its elastic role (gang_assembly.hpp); pod
// ids are kept per position as the scheduler keeps them (a fresh placement: pod i has id i;
// Worker i is pod F + i). After every cycle the resizes of take_resizes() (the elasticity
// policies', a request that waited) are carried out, as are resize() calls:
//   scale-out: each new pod is created (ResizeWriter::create_pod) from the gang's Worker pod as
//     template (resize_pod_body: same labels, requests, annotations; named <job>-worker-<i>,
//     gantry.dev/gang-index F + i, i the Worker index: its pod id minus F unless a pod of the
//     gang already had that index or a higher one) and bound where the scheduler placed it
//     (pods/binding with gantry.dev/gpu-index, as a gang's binds). Once every new pod runs, the
//     host list ConfigMap <job>-hosts is written (resize_writer.hpp), then kResized. A new pod
//     not running within LiveSchedulerConfig::resize_timeout (on the loop's timers), one that
//     fails, is deleted, or cannot be created or bound, fails the resize: every new pod is
//     deleted (uid preconditions) and kResizeFailed reported.
//   scale-in: the ConfigMap first (without the Workers that leave), then the pods that leave
//     are deleted (uid preconditions); kResized once the informer shows them all gone.
//   a replacement: both, adding first.
// A Worker of a running elastic gang that fails (status.reason NodeLost, RackLost, GPUFailure,
// or any Failed phase) is replaced (Scheduler::replace()) when the gang's restart policy
// (gantry.dev/restart-policy) recreates it (OnFailure; ExitCode for 128 < exit code < 255), or
// scaled in (Never), as the simulator's TrainingWorld::survive_elastic does; when that is
// refused (below minReplicas, no room, a resize in flight) the gang fails as before. Unlike the
// simulator, which reports kResized at once, the live world reports it when the new pods run.
// Left as is after a resize: the gang-size annotation of the pods that stay (new pods carry
// the new size); a gang evicted after a resize is assembled from what its controller recreates.
//
// A complete gang that a cycle cannot place gets one "FailedScheduling" Event per pod with the
// reason (what it asks for; the nodes it may not use, counted by cause: absent, not ready,
// cordoned, an untolerated taint, its nodeSelector, ...; then what is free on the others:
// unplaced_reason.hpp), once per submission and after each failed bind, not every cycle (the
// API server would be flooded); pending_reason() gives the same reason as of now. Pods of Gantry's
// scheduler already bound when first seen (by an earlier life of the scheduler) keep their node and
// count as used.
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
#include "adapters/kube/world/resize_writer.hpp"
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
  // How long a scale-out's new pods have to all run (see Resizes above).
  Duration resize_timeout = minutes(5);
  // What the goodput elasticity policy asks how fast a job would go at a size
  // (Scheduler::set_throughput_model; `gantry serve` gives the simulator's step-time model);
  // must outlive the scheduler. nullptr: none, and goodput does nothing.
  const ThroughputModel* throughput = nullptr;
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
  // Creates the pods of scale-outs and writes host lists; must outlive the scheduler. Unset:
  // scale-outs fail (kResizeFailed), scale-ins write no host list.
  void set_resize_writer(ResizeWriter* writer) { writer_ = writer; }

  // Resizes a running workload's elastic role to `replicas` Workers now (Scheduler::resize();
  // the action is carried out as above). An error when the scheduler refuses; ok when it is
  // under way or waits for the resize in flight.
  Status resize(JobId job, int replicas, std::string reason = {});
  // A drain (live_drainer.hpp) is about to evict pod "namespace/name": its placed workload is
  // reported evicted with reason Drain (placed again at once, its other pods deleted, this one
  // left to the drainer's eviction), or, a Worker of a running elastic gang, scaled in
  // ("Drain: shrunk"), as the simulator does with a drain. Nothing for a pod it does not place.
  void drain_pod(const std::string& pod_key);
  // The workload submitted last for gang "namespace/gang", if any.
  std::optional<JobId> workload_of(const std::string& gang) const;
  size_t resizes_done() const { return resizes_done_; }
  size_t resizes_failed() const { return resizes_failed_; }

  const Scheduler& scheduler() const { return scheduler_; }
  const LiveSchedulerConfig& config() const { return config_; }
  const std::vector<PlacementDecision>& decisions() const { return decisions_; }
  size_t skipped_objects() const { return skipped_; }
  size_t waiting_gangs() const { return gangs_.size(); }
  // The gang ("namespace/gang") workload `job` was submitted for; "" for an id never given.
  const std::string& gang_name(JobId job) const;
  // Complete gangs not submitted because of their queue (see Admission above), each counted
  // once per reason.
  size_t refused_gangs() const { return refused_count_; }
  // Why pending workload `job` is not placed, as of now: Scheduler::pending_reason() with the
  // live cluster's node bars, so the same words as in the simulated world (for a gang a cycle
  // could not place, the reason of its FailedScheduling Event with the cluster as it is now;
  // the Event is sent once per try and may be older). "" for a gang not waiting for placement.
  // What GET /cluster/queue shows as the pending workload's reason. O(nodes).
  std::string pending_reason(JobId job) const;
  // Evictions the PodEvictor gave up on (each then deleted instead, with a Warning Event).
  size_t failed_evictions() const { return failed_evictions_; }

 private:
  // kEvicting: an EvictAction is being carried out (its pods are going); kInactive: deactivated
  // by waitForPodsReady, its gang's pods kept out of scheduling.
  enum class Phase { kWaiting, kBinding, kPlaced, kEvicting, kInactive };
  // A resize being carried out (see Resizes above).
  struct Resize {
    enum class Stage { kAdding, kWritingHosts, kRemoving };
    ResizeAction action;
    uint64_t generation = 0;
    Stage stage = Stage::kAdding;
    size_t first_added = 0;        // positions from here on are the added pods
    std::vector<size_t> removed;   // positions of the pods that leave
    std::optional<TimerId> timer;  // the scale-out's deadline
  };
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
    bool unplaced = false;             // ... because a cycle could not place it
    std::optional<EvictAction> evict;  // decided while binding (then carried out), or under way
    std::vector<bool> gone;            // kEvicting: pods deleted (or ended) since
    // Resizes: per position the pod's id (AllocationOwner::pod) and Worker index (-1: a fixed
    // role's pod); the fixed roles' pod count; the next new Worker's index (never reused); a
    // Worker pod as read, the template of new ones.
    std::vector<int32_t> ids;
    std::vector<int32_t> worker;
    int32_t fixed = 0;
    int32_t next_worker = 0;
    std::optional<Resize> resize;
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
  // "gang <key> of N pods (...) does not fit: " and unplaced_reason() against the cluster now.
  std::string unplaced_note(const Submitted& s) const;
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
  void fail_over(Submitted& s, const std::string& reason, Duration delay, int32_t except = -1);
  // Resizes (above).
  void start_resize(const ResizeAction& action);
  void resize_pod_changed(Submitted& s, size_t i, const KubePod& pod, bool deleted);
  void resize_created(JobId job, uint64_t generation, size_t i, Result<std::string> uid);
  void resize_bound(JobId job, uint64_t generation, size_t i, Status result);
  void resize_progress(Submitted& s);
  void write_hosts(Submitted& s);
  void remove_leaving(Submitted& s);
  void finish_resize(Submitted& s);
  void fail_resize(Submitted& s, const std::string& why);
  // Drops the positions `drop` (ascending) and renumbers placed_pod_.
  void drop_positions(Submitted& s, const std::vector<size_t>& drop);
  // Forgets a resize in flight (its gang is stopped or evicted).
  void abandon_resize(Submitted& s);
  Submitted* resizing(JobId job, uint64_t generation);
  // A failed Worker of a running elastic gang: replaced or scaled in (above); false when not.
  bool survive_elastic(Submitted& s, size_t i, const KubePod& pod, const std::string& reason,
                       bool planned = false);
  // The gang's Worker pod kept as the template of new ones, by gang key.
  std::map<std::string, nlohmann::json> templates_;
  ResizeWriter* writer_ = nullptr;
  uint64_t resize_generation_ = 0;
  size_t resizes_done_ = 0;
  size_t resizes_failed_ = 0;
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
