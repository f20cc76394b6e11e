#pragma once
// What a simulation run records: every job's timeline and placement, the cluster's GPU time
// series and the event stream. Plain data filled by TrainingWorld, read by the summary, the
// results database and the trajectory fingerprint.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/core/time.hpp"
#include "sim/fault_event.hpp"
#include "sim/step_time.hpp"

namespace gantry {

// One eviction of a job: when, why and by whom. Reasons are Kueue's: "Preempted" (by a
// workload of its own queue), "InCohortReclamation" (its queue borrowed what the preemptor's
// queue reclaims), "InCohortFairSharing", "PodsReadyTimeout"; a world's own evictions (a
// withdrawal, a drain) carry their own reason.
struct EvictionRecord {
  Time at;
  std::string reason;
  JobId by = -1;  // the preemptor, or -1
};

struct JobLog {
  JobId id = 0;
  const JobSpec* spec = nullptr;  // owned by the Simulation's workload
  JobState state = JobState::kPending;
  std::optional<Time> bound;    // gang placed, pods starting
  std::optional<Time> running;  // every pod running: progress starts
  std::optional<Time> finished;
  std::vector<PodPlacement> pods;  // in the job's pod order; empty until bound
  std::vector<int32_t> pod_ids;    // their ids after resizes (ResizeAction); empty: pod i is i
  StepTime step;                   // valid once running
  int64_t steps_done = 0;          // settled progress (at the last start, stop or checkpoint)
  int64_t lost_steps = 0;          // work thrown away by evictions (since the last checkpoint)
  int evictions = 0;
  int resizes = 0;
  std::optional<Time> admitted;         // first admission (placed by the scheduler), if any
  std::vector<EvictionRecord> evicted;  // every eviction, in order
  double lost_gpu_seconds = 0;          // GPU time of the work evictions threw away
  int replicas = 0;                     // replicas of its last role at its last admission
  bool restarting = false;              // resized: starting again at the new size, already ran
  // Reliability (sim/fault_event.hpp). failures: kills by a failed GPU, node or rack, or by a
  // drain's deadline (each also an EvictionRecord). GPU time: allocated while its pods held GPUs
  // (starting, running, writing checkpoints); useful for the steps that count (run and not
  // thrown away). running_seconds: wall time with every pod running.
  int failures = 0;
  double allocated_gpu_seconds = 0;
  double useful_gpu_seconds = 0;
  double useful_spot_gpu_seconds = 0;  // ... of it on spot nodes (node pools)
  double running_seconds = 0;
};

// Allocated and busy GPUs of one type from `time` on, in thousandths of a GPU: a pod holding a
// share of a GPU (gpu: "0.25") counts its share (250), not the whole GPU its share sits on.
// Busy GPUs belong to running jobs (all pods up); allocated ones also include gangs whose pods
// are still starting. Never above 1000 × the type's GPUs in the cluster.
struct SeriesPoint {
  Time time;
  GpuTypeId type = 0;
  int64_t allocated_milli = 0;
  int64_t busy_milli = 0;
};

enum class EventKind : uint8_t {
  kSubmit,        // the job entered the queue
  kBind,          // the scheduler placed the whole gang
  kStageRunning,  // every pod of one start stage runs (detail: the stage)
  kRunning,       // every pod runs; the job makes progress
  kFinish,        // all steps done; resources released
  kEvict,         // the world stopped every pod (detail: steps lost); the job waits again
  kWithdraw,      // its owner removed it
  kResize,        // a policy resized its elastic role (detail: pods after); it restarts
};
const char* to_string(EventKind kind);

struct SimEvent {
  Time time;
  EventKind kind = EventKind::kSubmit;
  JobId job = 0;
  int32_t detail = 0;
};

// GPU time of one admission queue, integrated over the run (GPU-seconds; shares count by
// their share). used: its admitted workloads' GPUs; borrowed: used above its nominal quota;
// lent: its nominal quota that other queues of its cohort used while it did not.
struct QueueLog {
  std::string name;
  double used_gpu_seconds = 0;
  double borrowed_gpu_seconds = 0;
  double lent_gpu_seconds = 0;
};

// One fault or maintenance event the world carried out, and the jobs it killed or evicted
// (drains: at their deadline, recorded then as an event of their own with jobs > 0).
struct FaultRecord {
  Time at;
  FaultAction action = FaultAction::kNodeDown;
  NodeId node = -1;
  RackId rack = -1;
  int gpu = -1;
  std::string cause;
  int jobs = 0;
};

// One node pool over the run (sim/node_pools.hpp): node-hours and their cost up to the run's
// end, how many nodes came and went, and the most it had up at once.
struct PoolLog {
  std::string name;
  bool spot = false;
  double price_per_hour = 0;
  double node_hours = 0;
  double cost = 0;
  int nodes_added = 0;    // initial nodes included
  int nodes_removed = 0;  // scale-downs and reclaims
  int reclaims = 0;       // spot reclaims
  int peak_nodes = 0;
};

struct SimulationLog {
  std::vector<JobLog> jobs;         // indexed by JobId
  std::vector<FaultRecord> faults;  // in the order they happened
  std::vector<PoolLog> pools;       // node pools in configuration order; empty without
  // The cluster's GPUs from `time` on, once nodes come and go (node pools): the first point
  // holds the GPUs before the first change. Empty: the cluster kept its GPUs all run long.
  struct CapacityPoint {
    Time time;
    int32_t gpus = 0;
  };
  std::vector<CapacityPoint> capacity;
  std::vector<QueueLog> queues;  // admission queues in configuration order; empty without
  std::vector<SeriesPoint> series;
  std::vector<SimEvent> events;
};

}  // namespace gantry
