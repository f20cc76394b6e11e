#pragma once
// The simulated world for training jobs: it turns the scheduler's bind actions into pods that
// start in stage order, runs each job at the speed the step-time model gives its placement, and
// releases the resources when the job ends. It owns no policy: it asks the Scheduler for
// decisions and reports what happened into a SimulationLog (DESIGN.md rule 3).
//
// Lifecycle of a job:
//   submit ──► queued ──(scheduling cycle)──► bound ──(+podStartup per start stage)──►
//   running ──(steps × step time)──► finished (resources released, a new cycle requested)
//   bound or running ──(evicted: withdraw(), or a policy's EvictAction)──► queued again, or
//   withdrawn
//   running ──(a policy's ResizeAction: checkpoint, new pod set)──► starting again ──► running
//
// Progress: a job runs in segments, from the moment every pod runs until it stops (finished,
// evicted, killed, resized). Within a segment it alternates steps and checkpoint writes
// (sim/checkpoint_model.hpp: every checkpoint_every, each costing checkpoint_cost); whatever
// stops it settles progress first (whole steps; a step in flight is lost). An eviction throws
// away the steps since the segment's last completed checkpoint (all of them without
// checkpoints) and counts them (JobLog::lost_steps); the job resumes from the checkpoint when it
// runs again. A resize checkpoints: it loses nothing.
//
// Faults (apply(FaultEvent), sim/fault_event.hpp): a failed GPU, node or rack kills every job
// with a pod on it (an eviction with reason GPUFailure, NodeFailure or RackFailure; JobLog::
// failures); the job may be placed again SimParameters::restart_delay later, wherever it fits.
// A failed part takes no pods until it is repaired: the world holds its free capacity with an
// allocation of its own (owner kFaultHold, the node) and marks a failed node not ready. A drain
// cordons its node, lets jobs run until its deadline, evicts the rest (reason Drain), keeps the
// empty node for its maintenance time and uncordons it.
//
// Time range: no event is scheduled past kLatestTime (engine/core/time.hpp). A job that would
// arrive, start or finish later simply stays queued, starting or running, and the report says
// so; nothing wraps around to the past.
//
// Admission (SchedulerConfig::admission): the world carries out the evictions a cycle decides
// (preemption, PodsReadyTimeout) at once, records each in its JobLog (reason, preemptor, the GPU
// time of the work thrown away), and the queues' GPU time goes into the log's `queues`.
//
// Scheduling cycles are coalesced: all arrivals and finishes at one instant are handled first,
// then one cycle runs at that same instant (it is scheduled after them, and the loop breaks
// ties by insertion order).
//
// Not thread-safe: runs on the event loop thread.

#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "engine/core/event_loop.hpp"
#include "engine/policy/action_log.hpp"
#include "engine/policy/scheduler.hpp"
#include "sim/checkpoint_model.hpp"
#include "sim/fault_event.hpp"
#include "sim/fault_process.hpp"
#include "sim/scenario_spec.hpp"
#include "sim/simulation_log.hpp"

namespace gantry {

// Owner (AllocationOwner::workload) of the capacity a failed part withholds; the pod is the node.
inline constexpr int32_t kFaultHold = -3;

// Eviction reasons of the world's own (EvictionRecord::reason).
inline constexpr const char* kReasonGpuFailure = "GPUFailure";
inline constexpr const char* kReasonNodeFailure = "NodeFailure";
inline constexpr const char* kReasonRackFailure = "RackFailure";
inline constexpr const char* kReasonDrain = "Drain";
inline constexpr const char* kReasonSpotReclaim = "SpotReclaim";

class TrainingWorld : private Scheduler::Waker {
 public:
  // `jobs` must be sorted by submit time and outlive the world; JobId = index in `jobs`.
  TrainingWorld(EventLoop& loop, Cluster& cluster, Scheduler& scheduler, SimParameters params,
                const std::vector<JobSpec>& jobs);

  // Schedules the first arrival. Call once, before running the loop.
  void start();

  // Submits a job now, from outside the workload (a pipeline's distributed task, say). Returns
  // its JobId (after the workload's). The world keeps the spec.
  JobId submit(JobSpec spec);
  // Failure and maintenance events to carry out, in time order (sorted by the caller; an
  // --events file's); each is applied at its instant. Call before start(); may be called once,
  // and alongside a timeline (below).
  void schedule_faults(std::vector<FaultEvent> events);
  // A failure model's events, drawn a window at a time as the run goes, so a run without a
  // horizon ends: no window is drawn while no job is placed and none is still to arrive (a
  // pending job waits for repairs, which are scheduled already); the failures of such a quiet
  // spell are skipped. Call before start(); may be called once. Throws
  // std::invalid_argument when a window holds more events than the timeline allows (a failure
  // model gone wrong).
  void schedule_faults(std::unique_ptr<FaultTimeline> timeline, Duration window = days(1));
  // Carries out one fault or maintenance event now (see "Faults" above). An error, changing
  // nothing, for a node, rack or GPU the cluster does not have.
  Status apply(const FaultEvent& event);

  // Nodes that come and go (node pools: sim/node_pools.hpp). add_node() adds one now (of an
  // existing class and rack), a spot node when `spot` (its jobs' useful GPU time counts as
  // spot), and reports it to the scheduler. spot_notice() announces a reclaim: the node is
  // cordoned and elastic jobs whose pods there are all Workers shrink off it at once (planned:
  // they checkpoint first); others run on until the node goes. remove_node() takes it away now:
  // the jobs still on it are killed (`reason`, a failure: restart delay, JobLog::failures), its
  // holds are released and the cluster keeps a tombstone.
  NodeId add_node(NodeInfo info, bool spot);
  void spot_notice(NodeId n);
  void remove_node(NodeId n, const std::string& reason);
  // Jobs waiting to be placed, by JobId (about submission order).
  const std::set<JobId>& pending_jobs() const { return pending_; }
  const JobSpec& spec(JobId id) const { return *log_.jobs[static_cast<size_t>(id)].spec; }
  // Called when a job starts waiting (arrived, requeued after an eviction).
  void on_pending(std::function<void()> fn) { on_pending_ = std::move(fn); }
  // Is work under way: a job placed, or one still to arrive? (Jobs that only wait are not: they
  // wait for something else to change.)
  bool busy() const { return placed_jobs_ > 0 || next_arrival_ < jobs_.size(); }

  // Carries out a policy's eviction of a placed job (pods starting or running): stops it,
  // settles and loses progress as above, and reports kEvicted to the scheduler, which requeues
  // it (or ends it, for a withdrawal). An error for a job that is not placed.
  Status apply(const EvictAction& action);
  // Carries out a policy's resize of a running job's elastic role (Scheduler::resize()): the
  // job settles its progress (nothing is lost: it checkpoints), drops its highest pods or adds
  // the new ones the action placed, reports kResized, and restarts at the new size: its pods
  // start again in stage order (podStartup each) and the step time is re-derived from the new
  // placement. An error, changing nothing, for a job that is not running or an action that
  // does not match its pods. A job still restarting after an earlier resize may be resized again
  // (the policies see it running): its restart starts over.
  Status apply(const ResizeAction& action);
  // Its owner removes a job: a queued one leaves the queue, a placed one is evicted first; either
  // way it ends withdrawn and never runs again. An error for an unknown or ended job.
  Status withdraw(JobId id);

  // Each adds a listener; listeners are called in the order they were added, and each looks
  // at every job (a pipeline's tasks and a service's replicas share one world: each owner
  // ignores the jobs that are not its own).
  // At the moment a job finishes, after its resources are released.
  void on_finish(std::function<void(JobId)> fn) { on_finish_.push_back(std::move(fn)); }
  // At the moment a job runs (every pod started), after its end is scheduled; again each time
  // it runs after an eviction.
  void on_running(std::function<void(JobId)> fn) { on_running_.push_back(std::move(fn)); }
  // At the moment a placed job is evicted (a failure, a drain, a preemption), once its
  // resources are released and it waits again (or has ended: withdrawn, inactive). A listener
  // may withdraw it.
  void on_evicted(std::function<void(JobId)> fn) { on_evicted_.push_back(std::move(fn)); }

  // Writes every action the world carries out and every observation it reports (optional;
  // the log must outlive the world).
  void set_action_log(ActionLog* log) { action_log_ = log; }

  // Called after every job finish with (finished jobs, total jobs).
  void on_progress(std::function<void(size_t, size_t)> fn) { progress_ = std::move(fn); }

  const SimulationLog& log() const { return log_; }
  // Events and series points go to `sink` as they happen instead of into the log (see
  // LogSink). Call before start().
  void set_log_sink(LogSink* sink);
  EventLoop& loop() const { return loop_; }
  const Cluster& cluster() const { return cluster_; }
  // The log, with the admission queues' GPU time integrated up to now.
  SimulationLog take_log();
  // The specs of the jobs submit() added, which the log's JobLog::spec of those jobs point to:
  // whoever keeps the log past the world keeps these too (moving a deque keeps its elements
  // where they are).
  std::deque<JobSpec> take_submitted() { return std::move(submitted_); }
  size_t finished() const { return finished_; }

 private:
  // loop_.schedule_at(t, fn) when t <= kLatestTime; nothing otherwise.
  template <typename F>
  void schedule_in_range(Time t, F&& fn);
  void arrive(size_t first);
  void request_cycle();
  // Scheduler::Waker: a cycle at `t` (a requeue backoff's end, a waitForPodsReady deadline).
  void wake_at(Time t) override;
  // Runs a cycle: binds what it placed, then evicts what it preempted, then resizes what the
  // scheduler resized.
  void cycle();
  void apply_resizes();
  void bind(const BindAction& action);
  // Starts a placed job's pods in stage order (podStartup per stage), then it runs.
  void start_pods(JobId id);
  void stage_running(JobId id, int stage);
  void job_running(JobId id);
  void finish(JobId id);
  // Running jobs: brings steps_done up to now (whole steps) and counts their useful GPU time.
  void settle(JobId id);
  // Adds the GPU time a job's pods held since the last charge to its JobLog.
  void charge(JobId id);
  // Stops a placed job's pods (an eviction or a kill): settles, goes back to the last checkpoint
  // and counts the loss, releases its resources; the scheduler may place it again from
  // `not_before`.
  Status evict(JobId id, const std::string& reason, JobId by, Time not_before);
  // Kills every job with a pod on node n (GPU g only, when g >= 0) for a fault; an elastic job
  // whose pods there are all Workers survives instead (survive_elastic()).
  void kill_jobs_on(NodeId n, int g, const std::string& reason);
  // et-operator's rules for a running elastic job that lost Workers `pods` (pod ids): with
  // restartPolicy OnFailure (or ExitCode and a retryable `exit_code`) they are replaced under
  // new indices (as many as fit, at least down to minReplicas), else (or for a `planned` loss:
  // a drain, a spot notice) the job shrinks to the survivors if they are at least minReplicas.
  // An unplanned loss sends the survivors back to the last checkpoint. False when the job
  // cannot survive (not elastic, not running, a fixed role's pod lost, too few left): the
  // caller kills it.
  bool survive_elastic(JobId id, std::span<const int32_t> pods, const std::string& reason,
                       bool planned, int exit_code);
  // Throws away the steps since the last checkpoint (counted as lost) and starts a new segment;
  // returns the steps lost.
  int64_t rollback_to_checkpoint(JobId id);
  // GPU milli of `pods` (with their requests) on spot nodes.
  int64_t spot_milli(std::span<const PodPlacement> pods, std::span<const Resources> requests) const;
  // Records the cluster's GPUs now (SimulationLog::capacity).
  void note_capacity();
  // Re-takes the capacity node n withholds for its faults (everything free while it is down,
  // else its failed GPUs), after whatever ran there left.
  void hold_faulty(NodeId n);
  void node_down(NodeId n, const std::string& reason, Duration for_how_long);
  void node_up(NodeId n, bool all_outages);
  void repair_gpu(NodeId n, int g);
  void next_fault(size_t i);
  void next_injected(size_t i);
  // Draws the next window of the fault timeline (or pauses it while nothing is active).
  void pull_faults();
  // Resumes a paused fault timeline from now (a job was placed or arrived).
  void resume_faults();
  // A drain: its deadline passed (evict what is left), or a job left one of its nodes.
  void drain_deadline(NodeId n, uint32_t drain);
  void drain_check(NodeId n);
  void tell_node(Observation::Kind kind, NodeId n, const std::string& reason);
  void drain_check_pods(std::span<const PodPlacement> pods);
  // (Re)schedules a running job's end from its settled progress and step time.
  void schedule_end(JobId id);
  // Schedules the job's next timer (a start stage or its end), keeping it for cancellation.
  template <typename F>
  void set_timer(JobId id, Time at, F&& fn);
  void cancel_timer(JobId id);
  // Adds `allocated`/`busy` GPU deltas for each of `pods`, which are the job's pods from
  // position `first` on (their GPU milli comes from the spec's roles: pod_gpu_milli()), and
  // records the series.
  void account(const JobSpec& spec, std::span<const PodPlacement> pods, size_t first,
               int allocated_sign, int busy_sign);
  void record(EventKind kind, JobId job, int32_t detail = 0);
  // Reports an observation about a job to the scheduler.
  void tell(Observation::Kind kind, JobId job);
  // Adds the bookkeeping of a job whose spec lives at `spec`.
  void track(const JobSpec& spec);

  EventLoop& loop_;
  Cluster& cluster_;
  Scheduler& scheduler_;
  SimParameters params_;
  const std::vector<JobSpec>& jobs_;
  std::deque<JobSpec> submitted_;  // jobs from submit(); a deque keeps their addresses stable

  SimulationLog log_;
  std::vector<int64_t> allocated_milli_;  // per GPU type
  std::vector<int64_t> busy_milli_;       // per GPU type
  // Per job: lowest and highest start stage among its roles with replicas.
  struct Stages {
    int first = 0;
    int last = 0;
  };
  std::vector<Stages> stages_;
  // Per job: its one pending timer (start stage or end) and when progress was last settled.
  struct Timer {
    TimerId id;
    bool live = false;
  };
  std::vector<Timer> timers_;
  // Per job: the current run segment (see "Progress"): its start, its checkpoint plan, the
  // settled steps when it began, and the held GPU milli / last charge (JobLog's GPU time).
  struct Segment {
    Time start;
    int64_t steps0 = 0;
    CheckpointPlan plan;
  };
  std::vector<Segment> segments_;
  std::vector<int64_t> held_milli_;
  std::vector<Time> charged_at_;
  // Faults, per node: outages in progress (down while > 0), failed GPUs, a drain in progress
  // (with its maintenance time) and whether its maintenance has begun.
  struct NodeFaults {
    int outages = 0;
    uint32_t generation = 0;  // bumped by an explicit up: pending automatic ups are void
    uint64_t failed_gpus = 0;
    bool draining = false;
    bool in_maintenance = false;
    uint32_t drains = 0;  // drains so far: a timer of an earlier drain does nothing
    Duration maintenance;
  };
  std::vector<NodeFaults> faults_;
  int draining_nodes_ = 0;
  size_t killed_ = 0;                     // jobs killed or evicted by faults and drains so far
  std::vector<FaultEvent> injected_;      // schedule_faults(events)
  std::vector<FaultEvent> fault_events_;  // the timeline's current window
  std::unique_ptr<FaultTimeline> timeline_;
  Duration window_;
  bool faults_paused_ = false;
  size_t placed_jobs_ = 0;   // jobs bound, starting or running
  std::set<JobId> pending_;  // jobs waiting to be placed
  std::function<void()> on_pending_;
  std::vector<bool> spot_node_;      // per node
  std::vector<int64_t> spot_milli_;  // per job: GPU milli of its pods on spot nodes
  size_t next_arrival_ = 0;          // index of the next job of `jobs` to arrive
  bool cycle_requested_ = false;
  size_t finished_ = 0;
  std::function<void(size_t, size_t)> progress_;
  std::vector<std::function<void(JobId)>> on_finish_;
  std::vector<std::function<void(JobId)>> on_running_;
  std::vector<std::function<void(JobId)>> on_evicted_;
  ActionLog* action_log_ = nullptr;
};

template <typename F>
void TrainingWorld::set_timer(JobId id, Time at, F&& fn) {
  Timer& t = timers_[static_cast<size_t>(id)];
  t.live = at <= kLatestTime;  // later: it never happens (see "Time range" in the header)
  if (t.live) t.id = loop_.schedule_at(at, std::forward<F>(fn));
}

template <typename F>
void TrainingWorld::schedule_in_range(Time t, F&& fn) {
  if (t <= kLatestTime) loop_.schedule_at(t, std::forward<F>(fn));
}

}  // namespace gantry
