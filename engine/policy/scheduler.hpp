#pragma once
// Scheduler: gang admission and placement of training jobs, in the spirit of the Kubernetes
// scheduling framework. It reads cluster state and returns actions; it never knows whether
// the world is simulated or live (DESIGN.md rule 3), and it depends on engine/ only.
//
// Workloads have a life cycle (workload.hpp): submit() makes one pending; a cycle that places
// its gang makes it assumed and hands the world a BindAction; the world's observations
// (observe(): bound, bind failed, running, finished, failed, evicted; nodes coming and going)
// move it on. A failed bind forgets the whole gang (every pod's allocation is released) and
// requeues it after a backoff, doubling from SchedulerConfig::bind_backoff to
// bind_backoff_max (kube-scheduler's podInitialBackoffSeconds 1 s and podMaxBackoffSeconds 10 s
// by default); the scheduler asks its Waker for a cycle at the end of the backoff. Running
// workloads stay visible to policies (workloads()), and their allocations carry their owner.
//
// A job is a gang: all of its pods are placed in one cycle or none is. For every pod, in
// placement order (GPU pods first, see gang_state.hpp), the configured PlacementPlugin
// (plugin_registry.hpp) filters and scores nodes and picks GPUs; the scheduler then *assumes* the
// pod into the cluster with Cluster::allocate() (like kube-scheduler's assume step), so later pods
// and later jobs of the same cycle see it. If pod k of a gang finds no node, pods 0..k-1 are
// released again: no partial gang is ever left allocated.
//
// Speed: a cycle does not look at every queued job. Jobs are grouped by shape (job_queue.hpp);
// a group whose GPUs cannot fit by the cluster's free-GPU counters and histogram is skipped
// whole, and stays skipped across cycles until that histogram changes; a full shape that
// failed placement is skipped for the rest of the cycle. Because the capacity of the cluster
// only shrinks inside a cycle, skipping never changes the outcome, with one caveat: placement
// is greedy pod by pod, so a shape that failed is not retried later in the same cycle even in
// the rare case where a smaller free state would have let the greedy choice succeed.
//
// Not thread-safe: runs on the event loop thread (DESIGN.md rule 1).

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/cluster/job.hpp"
#include "engine/policy/actions.hpp"
#include "engine/policy/elastic/elastic_rules.hpp"
#include "engine/policy/elastic/throughput_model.hpp"
#include "engine/policy/gang_state.hpp"
#include "engine/policy/gpu_fit.hpp"
#include "engine/policy/job_queue.hpp"
#include "engine/policy/node_index.hpp"
#include "engine/policy/placement_plugin.hpp"
#include "engine/policy/plugin_registry.hpp"
#include "engine/policy/queues/admission_queues.hpp"
#include "engine/policy/scheduler_config.hpp"
#include "engine/policy/unplaced_reason.hpp"
#include "engine/policy/workload.hpp"

namespace gantry {

class Scheduler {
 public:
  // Throws std::invalid_argument naming the known plugins if config.placement is not a
  // registered placement plugin.
  explicit Scheduler(SchedulerConfig config);

  const SchedulerConfig& config() const { return config_; }

  // Time in policy: the scheduler asks for a cycle at an instant (the end of a requeue
  // backoff); the world runs one then. In virtual time that is an event like any other.
  class Waker {
   public:
    virtual ~Waker() = default;
    virtual void wake_at(Time t) = 0;
  };
  // Optional; without a waker a backoff ends at the first cycle at or after its end.
  void set_waker(Waker* waker) { waker_ = waker; }

  // Submits a workload at `now`: pending, in the queue in queue order (job_queue.hpp). `spec`
  // must outlive the workload. An error if the id was submitted before.
  Status submit(JobId id, const JobSpec& spec, Time now);
  // Pending workloads, backing off ones included.
  size_t queued() const {
    return queue_.size() + backoff_.size() + (admission_ ? admission_->pending : 0);
  }
  // Every workload this scheduler was given, in any state.
  const WorkloadTable& workloads() const { return workloads_; }
  // Why pending workload `id` is still waiting, from the last cycles and the cluster as it is
  // now, in words a user can act on (issue #26 §5: the cluster queue's "reason", the same in the
  // simulated world and against a real cluster), the first that holds:
  //   "waiting for N victims to leave"             a preemptor (admission)
  //   "backing off until T: <why>"                 after a failed bind (its last reason)
  //   "<QuotaBook::why_not()>"                     admission: its queue's quota refuses it
  //   explain_unplaced()'s text                    the cluster has no room (unplaced_reason.hpp)
  //   "fits now; behind N earlier workloads in queue Q (StrictFIFO)"
  //   "fits now: waits for the next scheduling cycle"
  // "" for an unknown workload or one not pending. `bars` are the world's node bars. O(nodes).
  std::string pending_reason(const Cluster& cluster, JobId id, const NodeBars& bars) const;

  // One scheduling cycle at `now`: workloads whose backoff has ended rejoin the queue, then the
  // queue is walked in order and each job's whole gang is placed or nothing. Placed gangs are
  // allocated in `cluster` (owned by (job, pod)), become assumed, leave the queue and are
  // returned in the order they were placed. A job that does not fit stays queued; under
  // Queueing::kBestEffortFifo later jobs may still start, under kStrictFifo the cycle stops
  // at the first job that does not fit. A job whose GPU type name is unknown to the cluster's
  // catalog never fits (if it needs GPUs); a job allowing several models (JobSpec::gpu_types)
  // fits on any of those the catalog knows, and never if it knows none of them.
  //
  // With admission queues (SchedulerConfig::admission; engine/policy/queues/README.md) a cycle
  // admits instead: see "Admission" below.
  std::vector<BindAction> run_cycle(Cluster& cluster, Time now);

  // Admission. Each workload waits in its JobSpec::queue, ordered by priority, then submission
  // time, then arrival. A cycle walks the queues' heads in Kueue's order — workloads that stay
  // within their queue's nominal quota before borrowers; with fair sharing, lower dominant share
  // first; with admission fair sharing, lower decayed usage first; then higher priority, then
  // earlier submission — and admits a workload when its queue's quota (with borrowing) allows it
  // *and* its whole gang has a placement now, with its topology constraint (placement-aware
  // admission); a job with minReplicas may start with fewer Workers, as many as fit. A workload
  // that does not fit may preempt (queues/preemption.hpp): the cycle then returns EvictActions
  // for its victims (take_evictions()), and the preemptor waits until the world has reported
  // every victim evicted. Under StrictFIFO a queue's head that does not fit blocks its queue.
  // waitForPodsReady: a workload admitted but not running by its deadline is evicted with
  // reason PodsReadyTimeout and requeued after a backoff, or deactivated (state inactive) once
  // it was requeued backoff_limit times (admission_config.hpp pins the arithmetic).
  //
  // The evictions the last cycles decided, for the world to carry out (each reported back as
  // kEvicted); empty without admission.
  std::vector<EvictAction> take_evictions() { return std::exchange(evictions_, {}); }
  // The quota book, or null without admission queues.
  const QuotaBook* quota_book() const { return admission_ ? &admission_->book : nullptr; }
  // Per admission queue (configuration order): GPU time used, borrowed and lent up to `now`.
  std::vector<QueueUsageMeter::Totals> queue_usage(Time now);

  // What the world reports. Workload observations move workloads (workload.hpp; releasing
  // their allocations when they leave a placed state); node observations change `cluster`
  // (added nodes must be added by the world with Cluster::add_node() before it reports them).
  // An observation that contradicts the scheduler's state (an unknown workload, a transition
  // the life cycle forbids) is an error and changes nothing.
  Status observe(Cluster& cluster, const Observation& o);

  // Withdraws a workload at `now`: a pending one leaves the queue and is withdrawn at once
  // (nullopt); a placed one must be evicted by the world first, so the EvictAction for it is
  // returned and its kEvicted observation makes it withdrawn instead of pending. An error for an
  // unknown or already ended workload.
  Result<std::optional<EvictAction>> withdraw(JobId id, Time now);

  // Elasticity: resizing a running workload's elastic role (its last role, a Worker role) through
  // a ResizeAction for the world (actions.hpp: pod ids, naming, what the world does). Worker
  // counts are checked on every request: an elastic job (JobSpec::elastic) stays within its
  // [minReplicas, maxReplicas] (et-operator accepts a scale-in below minReplicas; this refuses
  // it, saying why), any other job keeps at least one Worker. New pods are placed now with the
  // placement plugin, next to the workload's pods and on their GPU type, all of them or none,
  // and allocated under their new ids. While a resize is in flight (until the world reports
  // kResized or kResizeFailed) a resize or scale-in request waits, a newer one replacing it, and
  // nullopt is returned; it is carried out when the first ends, its action coming from
  // take_resizes(). Errors change nothing: an unknown or not running workload, no trailing
  // Worker role, a count out of range, a Worker that does not run, new pods that do not fit now.
  //
  // To `replicas` Workers: a scale-out adds new indices, a scale-in removes the highest ones.
  // nullopt when the role already has that many.
  Result<std::optional<ResizeAction>> resize(Cluster& cluster, JobId id, int replicas, Time now,
                                             std::string reason = {});
  // Removes the named Workers (indices, as in <job>-worker-<i>).
  Result<std::optional<ResizeAction>> scale_in(Cluster& cluster, JobId id,
                                               std::span<const int> workers, Time now,
                                               std::string reason = {});
  // Replaces failed Workers by new ones under new indices (restartPolicy OnFailure): as many as
  // fit now, and at least enough to keep minReplicas (1 for a rigid job); an error when even
  // that does not fit (the job must then restart whole). Not while a resize is in flight.
  Result<std::optional<ResizeAction>> replace(Cluster& cluster, JobId id,
                                              std::span<const int> workers, Time now,
                                              std::string reason);
  // Resizes decided inside the scheduler (a request that waited, the elasticity policy), for
  // the world to carry out like resize()'s.
  std::vector<ResizeAction> take_resizes() { return std::exchange(resizes_, {}); }

  // Elasticity policies (SchedulerConfig::elasticity; engine/policy/elastic/README.md). They
  // resize running elastic jobs (JobSpec::elastic; running, no resize in flight or waiting, not
  // being evicted) through resize(), by whole scale steps (elastic_rules.hpp), at the end of a
  // cycle, in the order shrink-to-admit, scale-out-idle, goodput when several are on; their
  // actions come from take_resizes() with reason "ScaleOutIdle", "ShrinkToAdmit" or "Goodput". With
  // elasticity on, the Waker is asked for a cycle at once whenever the policies may have
  // something new to do, whatever else the world would run a cycle for: an elastic workload
  // starts to run (kRunning), a workload's GPUs become idle (kFinished, kFailed, kEvicted), a
  // resize ends (a workload may be waiting for the GPUs it frees). With admission queues, growth
  // never borrows: the job's queue must stay within its nominal quota.
  //
  // scale-out-idle: when nothing is pending after the cycle (no workload queued or due to
  // leave its backoff), each job in growth order (higher priority, then started earlier, then
  // lower id) grows by the largest number of steps k (from the most allowed down to 1) whose
  // new Workers are placed now; none fits: it stays as it is.
  //
  // shrink-to-admit: for a head that is not placed — without admission, the first workload
  // left in the queue after the cycle; with admission, every head try_admit() turns away, before
  // any preemption is tried for it — jobs are shrunk if, and only if, that lets the head's whole
  // gang in (quota and placement). Candidates, tried in this order: (1) with admission, jobs of
  // the other queues of the head's cohort that borrow, only while their queue still borrows
  // (back to its nominal quota), any priority; (2) jobs of the head's queue (any job without
  // admission) of priority <= the head's. Within each group: lower priority, then started later,
  // then higher id. Trial: candidate by candidate, its highest Workers are released in the model
  // one step at a time until the head fits; then, from the second-to-last candidate back to the
  // first, a candidate is put back whole if the head still fits. Nothing fits even with every
  // candidate at its floor: nothing is shrunk (with admission, preemption is tried). Otherwise the
  // model is restored and each candidate left is resized down (highest indices leave); the head is
  // admitted by a later cycle, once the world has reported kResized. While a shrink for a head
  // is in flight, nothing more is shrunk for it and, with admission, it does not preempt.
  //
  // goodput: needs a ThroughputModel (without one it does nothing). An evaluation is due
  // `interval` after the previous one (after the first cycle, for the first); the scheduler asks
  // its Waker for a cycle then while an elastic job runs, and evaluates at the first cycle at or
  // after that instant with nothing pending and no goodput move in flight. Receivers in
  // receiver_order(), each at most once: grow one step from idle GPUs if that net gain exceeds
  // the minimum and the Workers are placed now; else take one step from the first donor (in
  // donor_order(), not yet used, not itself) whose move's net gain exceeds the minimum and whose
  // freed GPUs let the receiver's new Workers be placed (tried in the model). The donor is
  // resized down now and the receiver up at the first cycle after the donor's kResized (if its
  // Workers still fit then). Each job takes part in at most one move per evaluation.
  // `model` must outlive the scheduler (or be reset to null).
  void set_throughput_model(const ThroughputModel* model) { throughput_ = model; }

  // Places one job now or gives up, leaving nothing queued: the job goes through exactly what
  // run_cycle() does for a job (GPU feasibility by the free-GPU histogram, then the placement
  // plugin pod by pod, the whole gang or nothing), as a cycle of its own; jobs already in the
  // queue are not looked at. Returns the bind action (resources allocated in `cluster`, owned
  // by (id, pod) for good: no workload is recorded), or nullopt if the job does not fit now.
  // `spec` need only live for the call. For experiments that place pods as they arrive and
  // never retry or leave (the FGD paper's).
  std::optional<BindAction> place_now(Cluster& cluster, JobId id, const JobSpec& spec);

  // Hands the placement plugin its target workload (PlacementPlugin::set_target_workload();
  // only fragmentation-aware plugins such as "fgd" use it).
  void set_target_workload(std::span<const WeightedPodClass> workload);
  // The placement plugin this scheduler was built with.
  PlacementPlugin& plugin() { return *plugin_; }

 private:
  bool gpus_could_fit(const Cluster& cluster, uint32_t g);
  void begin_cycle(const Cluster& cluster);
  void end_cycle(const Cluster& cluster);
  // Places one job whose group gpus_could_fit() just accepted; on failure marks its full shape
  // failed for this cycle.
  bool try_job(Cluster& cluster, const QueuedJob& job, BindAction& out);
  bool place(Cluster& cluster, const QueuedJob& job, std::vector<GpuTypeId> types, BindAction& out);
  // What place_gang() places: `pods` in pod order, owned by (id, first_pod + i), next to the
  // workload's `existing` pods (a scale-out), under the constraints (which must outlive it).
  struct GangRequest {
    std::span<const Resources> pods;
    int32_t first_pod = 0;
    const Labels* node_selector = nullptr;
    const std::vector<Toleration>* tolerations = nullptr;
    std::span<const PodPlacement> existing;
    // Topology domain the gang must stay in (-1: none): one rack, or one node.
    RackId rack = -1;
    NodeId node = -1;
  };
  // Places every pod of `request` with the placement plugin and allocates each in `cluster`, or
  // none (pods placed before one that finds no node are released again). On success `out`
  // holds the placements and requests in pod order.
  bool place_gang(Cluster& cluster, JobId id, const GangRequest& request,
                  std::vector<GpuTypeId> types, BindAction& out);
  // Start of a cycle: bumps the version of every GPU type whose free-GPU histogram differs
  // from the one the previous cycle left behind.
  void note_cluster(const Cluster& cluster);

  // Elasticity (above).
  Result<Workload*> resizable(JobId id);
  Status check_worker_count(const Workload& w, int replicas) const;
  // The pod ids of the named Workers; an error for one that does not run or is named twice.
  Result<std::vector<int32_t>> worker_pod_ids(const Workload& w,
                                              std::span<const int> workers) const;
  // Removes pods `remove` and adds `add` new Workers (placed now); the Worker count changes by
  // `delta`.
  Result<std::optional<ResizeAction>> change_workers(Cluster& cluster, Workload& w,
                                                     std::vector<int32_t> remove, int add,
                                                     int delta, std::string reason, Time now);
  // The world reported the resize in flight done (or a scale-out failed): pods leave, and a
  // request that waited is carried out.
  void end_resize(Cluster& cluster, Workload& w, bool done, Time now);

  // Puts a pending workload in the queue (its admission queue, with admission).
  void enqueue(Workload& w);
  // Releases every allocation a workload's pods hold (and, with admission, its quota).
  void release_all(Cluster& cluster, Workload& w, Time now);

  // Elasticity policies (engine/policy/elastic/scheduler_elastic.cpp).
  void run_elasticity(Cluster& cluster, Time now);
  // With elasticity on, asks the Waker for a cycle at `at` (see "Elasticity policies").
  void wake_for_elasticity(Time at);
  // Admission: room for a head that does not fit: shrink-to-admit first, then preemption.
  bool make_room(Cluster& cluster, Workload& w, Time now);
  // True when shrinks for `head` were issued now or are in flight.
  bool shrink_to_admit(Cluster& cluster, Workload& head, Time now);
  void scale_out_idle(Cluster& cluster, Time now);
  void goodput(Cluster& cluster, Time now);
  std::vector<ElasticJob> elastic_jobs() const;
  bool nothing_pending() const {
    return queue_.size() == 0 && (!admission_ || admission_->pending == 0);
  }
  // Would `head`'s whole gang be admitted (quota and placement) now? Leaves the model as it was.
  bool head_fits(Cluster& cluster, Workload& head);
  // Does elastic growth of `w` by `workers` Workers keep its queue within nominal quota?
  bool growth_within_nominal(const Cluster& cluster, const Workload& w, int workers) const;
  // A trial scale-in in the model: `w`'s `cut` highest Workers released (and their quota).
  struct TrialCut {
    Workload* w = nullptr;
    int cut = 0;
    ResourceVector usage;  // w's usage as the quota book counts it now
  };
  void set_trial_cut(Cluster& cluster, TrialCut& t, int cut);
  struct Grant {  // goodput: `receiver` grows to `replicas` once `donor`'s scale-in is done
    JobId receiver = -1;
    JobId donor = -1;
    int replicas = 0;
  };
  struct ElasticState {
    std::map<JobId, JobId> shrinking;  // shrink-to-admit: job being shrunk -> head it is for
    std::vector<Grant> grants;
    bool started = false;  // goodput: next_eval set
    Time next_eval;
    Time wake_asked;  // the evaluation instant the Waker was last asked for
  };
  ElasticState elastic_;
  const ThroughputModel* throughput_ = nullptr;

  // Admission (scheduler_admission.cpp).
  enum class AdmitResult { kAdmitted, kPreempting, kNoQuota, kNoPlacement };
  std::vector<BindAction> run_admission_cycle(Cluster& cluster, Time now);
  void admission_enqueue(Workload& w);
  void admission_dequeue(Workload& w);
  void admission_release(Workload& w, Time now);
  // Gives back the quota a preemptor reserved while its victims leave.
  void release_reservation(Workload& w, Time now);
  // A resized workload's quota usage follows its pods (scale-out at the decision, scale-in
  // when the world reports it). Elastic quota checks belong to the elasticity policies.
  void admission_reaccount(const Cluster& cluster, Workload& w, Time now);
  // Evicts admitted workloads whose pods missed their waitForPodsReady deadline.
  void expire_pods_ready(Time now);
  // After an eviction the world reported: requeue (with the waitForPodsReady backoff when it
  // timed out, else not before `not_before`) or deactivate.
  void admission_evicted(Workload& w, Time now, Time not_before);
  // A workload the scheduler meant to evict left its placed state (evicted, or its bind failed):
  // its preemptor stops waiting for it.
  void victim_gone(Workload& w, Time now);
  // What one queue's walk of a cycle learnt from failures (see try_admit()).
  struct WalkMemo {
    struct Totals {
      int64_t gpu_milli = 0, cpu_milli = 0, memory = 0;
    };
    struct Failure {
      bool set = false;
      Totals totals;
      const JobSpec* spec = nullptr;
    };
    Failure quota;       // the last workload that failed quota
    Failure preemption;  // the last workload whose preemption search found nothing
    static Totals totals_of(std::span<const Resources> pods) {
      Totals t;
      for (const Resources& r : pods) {
        t.gpu_milli += r.gpu_milli_total();
        t.cpu_milli += r.cpu_milli;
        t.memory += r.memory_bytes;
      }
      return t;
    }
    // Would `w` (with totals `t`) fail the way `f` did?
    static bool dominates(const Failure& f, const Workload& w, const Totals& t);
    // Would try_admit() turn `w` away without trying anything (both failures dominate it)?
    bool rules_out(const Workload& w) const;
  };
  AdmitResult try_admit(Cluster& cluster, Workload& w, Time now, BindAction& out,
                        WalkMemo* memo = nullptr);
  // The GPU types a workload's pods may use under its queue's quota, for a request of
  // `pods`; types the quota refuses are left out. `any_quota` tells whether quota let anything
  // through (for a GPU-less job: whether the one check passed).
  std::vector<GpuTypeId> quota_types(const Cluster& cluster, const Workload& w,
                                     std::span<const Resources> pods, bool& any_quota) const;
  ResourceVector quota_usage(const Cluster& cluster, const Workload& w,
                             std::span<const Resources> pods, GpuTypeId type) const;
  // Places a gang under its job's topology constraint (JobSpec::topology).
  bool place_constrained(Cluster& cluster, JobId id, const JobSpec& spec,
                         std::span<const Resources> pods, const std::vector<GpuTypeId>& types,
                         BindAction& out);
  bool try_preemption(Cluster& cluster, Workload& w, Time now);
  void admit(Cluster& cluster, Workload& w, const BindAction& action, Time now);
  // Sort key of a queue's head in a cycle (see "Admission").
  struct HeadKey {
    bool borrows = false;
    int64_t share = 0;
    double decayed = 0;
    QueueKey key;
    int queue = 0;
    bool operator>(const HeadKey& o) const;
  };
  // head_key() fills Workload::first_gpu_type, a cache.
  HeadKey head_key(const Cluster& cluster, int q, Workload& w, Time now) const;
  // The first GPU model a workload allows that the cluster has; -1 for none or a GPU-less job.
  static GpuTypeId first_allowed_type(const Cluster& cluster, const Workload& w);
  // A pending workload waits out of the queue until `at` (a backoff, a restart delay); the
  // Waker is asked for a cycle then.
  void hold_until(Workload& w, Time at);
  // Leaves a placed state for pending after a failed bind: forgotten, requeued after backoff.
  void forget(Cluster& cluster, Workload& w, Time now, std::string reason);
  Status observe_workload(Cluster& cluster, const Observation& o);

  SchedulerConfig config_;
  std::unique_ptr<PlacementPlugin> plugin_;
  JobQueue queue_;
  WorkloadTable workloads_;
  std::unordered_map<JobId, JobQueue::Handle> queued_;  // pending workloads in queue_
  // Pending workloads backing off, by the end of their backoff (then id, for determinism).
  std::set<std::pair<Time, JobId>> backoff_;
  Waker* waker_ = nullptr;

  // Per GPU shape group (index as in queue_.groups()), grown on demand.
  struct GroupState {
    uint64_t resolved_for = 0;     // Cluster::instance_id() the types were resolved against
    bool any = true;               // the job allows every GPU model
    std::vector<GpuTypeId> types;  // else: the allowed models known to the catalog, ascending
    bool dead = false;             // GPUs could not fit at version dead_version
    uint64_t dead_version = 0;
  };
  std::vector<GroupState> group_state_;
  std::vector<GpuTypeId> fitting_types_;  // scratch: types that passed gpus_could_fit()

  // Cross-cycle memory of the free-GPU histograms (see "Speed" above).
  const Cluster* last_cluster_ = nullptr;
  std::vector<std::vector<int>> last_histograms_;
  std::vector<uint64_t> type_version_;  // bumped when type t's histogram changed between cycles
  uint64_t any_version_ = 0;            // bumped when any histogram changed between cycles

  uint64_t cycle_ = 0;
  std::vector<uint64_t> shape_failed_cycle_;  // per full shape: last cycle it failed in

  std::unique_ptr<AdmissionQueues> admission_;  // null: admission off
  // Cluster::growth_count() when the last admission cycle ended, and a version bumped by each
  // cycle that finds it grew since (what parked queues and failed preemption searches wait for).
  uint64_t growth_seen_ = 0;
  uint64_t growth_version_ = 0;
  std::vector<EvictAction> evictions_;
  std::vector<ResizeAction> resizes_;

  NodeIndex index_;
  bool index_synced_ = false;  // index_ synced during the current cycle
  GangState gang_;
};

}  // namespace gantry
