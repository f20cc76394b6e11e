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

// Receives the event stream and the GPU series as they happen, instead of the log keeping them:
// `gantry simulate` writes them into the results database while the run goes on
// (sim/results_stream.hpp), so a million-job run does not hold millions of rows. A sink may
// throw (a full disk): the exception leaves the run.
class LogSink {
 public:
  virtual ~LogSink() = default;
  virtual void event(const SimEvent& e) = 0;
  virtual void series(const SeriesPoint& p) = 0;
};

// What the summary and the trajectory fingerprint need of the events and the series, kept as
// they are recorded, so that they hold whether the rows were kept or streamed away.
struct LogDigest {
  // FNV-1a over each event's time, kind, job and detail (8 bytes each), in order.
  uint64_t events_fnv = 0xcbf29ce484222325ull;
  // Mixes the 8 bytes of `v`, lowest first, into the FNV-1a hash `h` (the fingerprint goes on
  // from events_fnv with the placements the same way).
  static void fnv_mix(uint64_t& h, uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 0x100000001b3ull;
    }
  }
  // Per GPU type, the integral of the allocated and of the busy GPUs from `start` on, summed
  // as TimeWeighted::integral() sums (value × microseconds per segment), so the figures are
  // those of a TimeWeighted holding every point, to the last bit.
  struct Integral {
    double value = 0;  // in force since `from`, in GPUs
    Time from;
    double total_us = 0;  // value × microseconds, from `start` up to `from`
    void set(Time start, Time t, double v);
    // The time-weighted mean over [start, end), as TimeWeighted::average().
    double average(Time start, Time end) const;
  };
  Time start;
  std::vector<Integral> allocated, busy;  // by GpuTypeId
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
  std::vector<QueueLog> queues;     // admission queues in configuration order; empty without
  std::vector<SeriesPoint> series;  // empty when streamed to a sink
  std::vector<SimEvent> events;     // empty when streamed to a sink
  LogDigest digest;
  LogSink* sink = nullptr;  // set: events and series go there instead

  // Starts the digest for a run from `start` on a cluster of `gpu_types` GPU types.
  void begin(Time start, size_t gpu_types);
  // Records an event: into the digest, then the sink or `events`.
  void record_event(const SimEvent& e);
  // Records a series point. Points of one instant are held back until time moves on (or
  // flush_series()): a later point of the same type at the same instant replaces the earlier,
  // so the series has one point per instant and type, in order of the types' first change.
  void record_series(const SeriesPoint& p);
  // Records the points held back; call when the run ends.
  void flush_series();

 private:
  std::vector<SeriesPoint> instant_;  // the points of the latest instant, not yet recorded
};

}  // namespace gantry
