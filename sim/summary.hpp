#pragma once
// The headline figures of a simulation run, as `gantry simulate` prints them and stores them in
// the results database's summary table.

#include <cstdint>
#include <string>

#include "engine/metrics/distribution.hpp"
#include "sim/simulation.hpp"

namespace gantry {

struct DistributionFigures {
  int64_t count = 0;
  double mean = 0, p50 = 0, p95 = 0, p99 = 0, max = 0;  // seconds; 0 when count == 0
};

// The figures of `d` (percentiles as Distribution computes them); all 0 when it is empty.
// Every report's distributions go through here, so they agree on the method.
DistributionFigures figures_of(const Distribution& d);

struct RunSummary {
  int64_t jobs_total = 0;
  int64_t jobs_finished = 0;
  int64_t jobs_running_at_end = 0;   // bound (starting or running) but not finished
  int64_t jobs_queued_at_end = 0;    // never placed
  int64_t jobs_inactive_at_end = 0;  // deactivated by admission (waitForPodsReady's limit)
  DistributionFigures wait_s;        // start − submit, over jobs that started
  DistributionFigures jct_s;         // end − submit, over finished jobs
  int total_gpus = 0;                // at the end; with node pools, the most the cluster ever had
  double mean_gpus = 0;  // time-average of the cluster's GPUs (= total_gpus without pools)
  double gpu_allocation_ratio = 0;  // time-average of allocated GPUs / of the cluster's GPUs
  double gpu_busy_ratio = 0;        // same for GPUs of running jobs
  Time start, end;
  uint64_t events = 0;
  uint64_t fingerprint = 0;  // trajectory fingerprint, see below
};

// Figures over the whole run. Percentiles use linear interpolation between closest ranks.
RunSummary summarize(const SimulationRun& run);

// A hash of the (time, kind, job, detail) sequence of every recorded event and of every job's
// placement (node and GPUs of each pod), FNV-1a 64 bit: any behaviour change shows up here first
// (STYLE.md habit 14).
uint64_t trajectory_fingerprint(const SimulationLog& log);

}  // namespace gantry
