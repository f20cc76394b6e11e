#pragma once
// Workloads as the scheduler tracks them, from submission to their end, whatever the world
// (DESIGN.md rule 3). A workload is one gang: a training job, later a service replica set.
//
//   submitted ─► pending ─(cycle: placed and assumed)─► assumed ─(world: every pod bound)─► bound
//                  ▲  ▲                                    │                                  │
//                  │  └─(bind failed: forgotten, backoff)──┴──────────────────────────────────┤
//                  │                                                                     (pods run)
//                  └──────────────── evicted ◄─(world: evicted)── running ◄──────────────────┘
//                                                                   │
//                                        finished ◄─────────────────┤
//                                        failed   ◄─────────────────┘ (or from bound)
//   withdrawn ◄─ pending, or a placed workload once the world has evicted it for the withdrawal
//   inactive  ◄─ evicted for not getting its pods ready once too often (waitForPodsReady)
//
// Every state entered is recorded with its instant (history), the submission as the first
// `pending`. A placed workload (assumed, bound, running) holds one Cluster allocation per pod,
// owned by (its id, the pod index); no other state holds any.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/cluster/gpu_type.hpp"
#include "engine/cluster/job.hpp"
#include "engine/core/status.hpp"
#include "engine/core/time.hpp"
#include "engine/policy/job_queue.hpp"
#include "engine/policy/queues/quota_book.hpp"

namespace gantry {

enum class WorkloadState : uint8_t {
  kPending,    // waiting in the queue (or backing off after a failed bind)
  kAssumed,    // placed by a cycle and allocated in the model; binds not confirmed yet
  kBound,      // the world bound every pod; pods are starting
  kRunning,    // every pod runs
  kFinished,   // done; allocations released
  kFailed,     // a pod failed for good; allocations released
  kEvicted,    // the world evicted it; recorded, then pending again (or withdrawn)
  kWithdrawn,  // removed by its owner (a pipeline's kill, a user's delete)
  kInactive,   // deactivated by admission (waitForPodsReady's backoffLimit); never tried again
};
const char* to_string(WorkloadState s);

// Assumed, bound or running: the workload holds its pods' allocations.
inline bool is_placed(WorkloadState s) {
  return s == WorkloadState::kAssumed || s == WorkloadState::kBound || s == WorkloadState::kRunning;
}
inline bool is_terminal(WorkloadState s) {
  return s == WorkloadState::kFinished || s == WorkloadState::kFailed ||
         s == WorkloadState::kWithdrawn || s == WorkloadState::kInactive;
}
// May a workload go from `from` to `to` (the diagram above)?
bool transition_allowed(WorkloadState from, WorkloadState to);

struct WorkloadTransition {
  WorkloadState state;
  Time at;
};

struct Workload {
  JobId id = -1;
  const JobSpec* spec = nullptr;  // owned by whoever submitted it; outlives the workload
  WorkloadState state = WorkloadState::kPending;
  std::vector<WorkloadTransition> history;
  std::vector<PodPlacement> pods;  // where its pods are while placed; empty otherwise
  // The pods' ids (AllocationOwner::pod), position by position; empty: pod i has id i, as
  // every fresh placement does. Resizes keep ids and never reuse one (ResizeAction).
  std::vector<int32_t> pod_ids;
  int32_t next_pod_id = 0;  // while placed: the id the next added pod gets
  int32_t pod_id(size_t position) const {
    return pod_ids.empty() ? static_cast<int32_t>(position) : pod_ids[position];
  }
  int bind_failures = 0;  // failed binds since the last confirmed one
  int evictions = 0;
  Time retry_at;                    // pending after a failed bind: not tried before this
  bool withdraw_requested = false;  // an eviction for a withdrawal is on its way
  std::string last_reason;          // why it last left a placed state (bind failure, eviction)
  // A resize in flight (Scheduler::resize() until the world's kResized or kResizeFailed): the
  // pod count after it, or -1; `resizing` is the action. pods already holds the added pods of a
  // scale-out; removed pods leave at kResized.
  int32_t resize_to_pods = -1;
  std::vector<int32_t> resize_removed;
  int32_t resize_added_from = 0;  // ids from here on were added by it
  // A request made while a resize was in flight, carried out when it ends (the newer request
  // replaces an older one: et-operator's ScaleIn and ScaleOut, the newer wins).
  struct PendingResize {
    int replicas = -1;
    std::vector<int> workers;  // a named scale-in's worker indices
    std::string reason;
  };
  std::optional<PendingResize> pending_resize;

  // Admission (engine/policy/queues; SchedulerConfig::admission). Unused when it is off.
  int queue = -1;                   // the admission queue's index
  QueueKey queue_key;               // its place in the queue while pending
  ResourceVector usage;             // quota it holds while placed, as its queue counts it
  std::vector<Resources> requests;  // JobSpec::pod_requests(), kept while it is in a queue
  int64_t requested_gpu_milli = 0;  // ... their sums
  int64_t requested_cpu_milli = 0;
  int64_t requested_memory = 0;
  GpuTypeId first_gpu_type = -2;  // the first GPU model it allows that the cluster has (-1:
                                  // none or no GPUs; -2: not looked up yet)
  Time admitted_at;               // last admission (placed by a cycle)
  uint64_t admitted_cycle = 0;    // ... in which cycle (a cycle never preempts its own admissions)
  int replicas = 0;               // replicas of its last role at the last admission
  bool evicting = false;          // the scheduler asked the world to evict it (EvictAction)
  std::string evict_reason;       // ... why (preemption reasons, PodsReadyTimeout)
  JobId evicted_by = -1;          // ... for which preemptor
  int victims_pending = 0;        // a preemptor: victims whose eviction the world has not reported
  ResourceVector reserved;        // ... and the quota it holds for itself meanwhile
  // A preemption search that found nothing, and the versions it saw (cohort usage, cluster).
  bool preemption_failed = false;
  uint64_t preemption_cohort_version = 0;
  uint64_t preemption_cluster_version = 0;
  int requeues = 0;     // waitForPodsReady requeues so far
  Time ready_deadline;  // admitted, waitForPodsReady on: evicted if not running by then
};

// The workloads of one scheduler by id. Not thread-safe (event loop thread).
class WorkloadTable {
 public:
  // Adds a pending workload; an error if the id is taken.
  Result<Workload*> add(JobId id, const JobSpec& spec, Time now);
  Workload* find(JobId id);
  const Workload* find(JobId id) const;
  // Moves w to `to` at `now`, recording it; an error (and no change) if the diagram forbids it.
  Status move(Workload& w, WorkloadState to, Time now);
  // Workloads currently in state s.
  size_t count(WorkloadState s) const { return counts_[static_cast<size_t>(s)]; }
  size_t size() const { return by_id_.size(); }
  template <typename F>
  void for_each(F&& f) const {
    for (const auto& [id, w] : by_id_) f(w);
  }
  // Running workloads whose job is elastic (JobSpec::elastic), by id: what the elasticity
  // policies look at every cycle, without walking every workload.
  const std::set<JobId>& running_elastic() const { return running_elastic_; }

 private:
  std::unordered_map<JobId, Workload> by_id_;
  std::set<JobId> running_elastic_;
  size_t counts_[9] = {};
};

}  // namespace gantry
