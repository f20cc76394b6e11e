#pragma once
// The figures of each admission queue over a simulation run, as `gantry simulate` prints them
// (text and JSON reports) and stores them in the results database's queues table.
//
// Per queue, from the log's jobs and QueueLogs:
//   jobs                   jobs whose JobSpec::queue names it
//   admitted               those admitted at least once (JobLog::admitted set)
//   admission_wait_s       first admission − submit, over the admitted jobs: Kueue's admission
//                          wait (time spent queued for quota), not the time until every pod
//                          runs, which RunSummary::wait_s measures
//   gpu_hours_*            QueueLog's GPU-seconds / 3600
//   preemptions_suffered   evictions of its jobs for a preemption: reasons "Preempted",
//                          "InCohortReclamation", "InCohortFairSharing" (not PodsReadyTimeout,
//                          nor a world's own reasons)
//   preemptions_caused     evictions of any job whose preemptor (EvictionRecord::by) is one of
//                          its jobs
//   lost_gpu_hours         its jobs' JobLog::lost_gpu_seconds / 3600
//
// Percentiles are those of every report (figures_of() in sim/summary.hpp: linear
// interpolation between closest ranks).

#include <cstdint>
#include <string>
#include <vector>

#include "engine/policy/queues/admission_config.hpp"
#include "sim/simulation_log.hpp"
#include "sim/summary.hpp"

namespace gantry {

struct QueueSummary {
  std::string name;
  std::string cohort;  // empty: the queue is in no cohort
  int64_t jobs = 0;
  int64_t admitted = 0;
  DistributionFigures admission_wait_s;  // count == admitted; all 0 when no job was admitted
  double gpu_hours_used = 0;
  double gpu_hours_borrowed = 0;
  double gpu_hours_lent = 0;
  int64_t preemptions_suffered = 0;
  int64_t preemptions_caused = 0;
  double lost_gpu_hours = 0;
};

// True for the eviction reasons that count as a preemption (see above).
bool is_preemption(const std::string& reason);

// One row per queue of `admission`, in its order; empty when admission is off. A queue the
// log has no QueueLog for (by name) reports 0 GPU-hours. Jobs naming no configured queue are
// counted nowhere. Every JobLog must have its spec, and every EvictionRecord::by must be -1 or
// a JobId of the log (asserted).
std::vector<QueueSummary> summarize_queues(const SimulationLog& log,
                                           const AdmissionConfig& admission);

}  // namespace gantry
