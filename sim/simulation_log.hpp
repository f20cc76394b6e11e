#pragma once
// What a simulation run records: every job's timeline and placement, the cluster's GPU time
// series and the event stream. Plain data filled by TrainingWorld, read by the summary, the
// results database and the trajectory fingerprint.

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/core/time.hpp"
#include "sim/step_time.hpp"

namespace gantry {

struct JobLog {
  JobId id = 0;
  const JobSpec* spec = nullptr;  // owned by the Simulation's workload
  JobState state = JobState::kPending;
  std::optional<Time> bound;    // gang placed, pods starting
  std::optional<Time> running;  // every pod running: progress starts
  std::optional<Time> finished;
  std::vector<PodPlacement> pods;  // in the job's pod order; empty until bound
  StepTime step;                   // valid once running
  int64_t steps_done = 0;          // settled progress (at the last start, stop or checkpoint)
  int64_t lost_steps = 0;          // work thrown away by evictions (since the last checkpoint)
  int evictions = 0;
  int resizes = 0;
  bool restarting = false;  // resized: starting again at the new size, already ran
};

// Allocated and busy GPUs of one type from `time` on. Busy GPUs belong to running jobs (all
// pods up); allocated ones also include gangs whose pods are still starting.
struct SeriesPoint {
  Time time;
  GpuTypeId type = 0;
  int32_t allocated = 0;
  int32_t busy = 0;
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

struct SimulationLog {
  std::vector<JobLog> jobs;  // indexed by JobId
  std::vector<SeriesPoint> series;
  std::vector<SimEvent> events;
};

}  // namespace gantry
