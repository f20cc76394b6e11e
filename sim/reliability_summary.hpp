#pragma once
// What failures and maintenance cost a simulation run, as `gantry simulate` prints them (text
// and JSON reports) and stores them in the results database.
//
// From the log's jobs (JobLog's GPU time and failures) and its fault records:
//   goodput              useful GPU-hours / allocated GPU-hours, over every job: the share of
//                        the GPU time jobs held that went into steps that count (not lost to a
//                        failure, not spent starting, restarting or writing checkpoints)
//   lost_gpu_hours       GPU time of work thrown away by failures, drains and preemptions
//   restarts_per_job     failures (kills) per job that ever ran: mean and max
//   by size              jobs grouped by their GPUs (1, 2–8, 9–64, 65–512, 513–4096, more):
//                        running hours, failures, and the effective MTBF a job of that size saw
//                        (running hours / failures; 0 when none failed)
// A job's size is its spec's total GPUs (an elastic job's largest size).

#include <cstdint>
#include <vector>

#include "sim/simulation_log.hpp"

namespace gantry {

struct SizeClassReliability {
  int min_gpus = 0;
  int max_gpus = 0;  // inclusive; INT32_MAX for the last class
  int64_t jobs = 0;  // jobs of this size that ran
  double running_hours = 0;
  int64_t failures = 0;
  double mtbf_hours = 0;  // running_hours / failures; 0 without failures
};

struct ReliabilitySummary {
  int64_t fault_events = 0;  // fault and maintenance events carried out
  int64_t jobs_killed = 0;   // kills by failures (JobLog::failures, summed)
  int64_t jobs_evicted = 0;  // every eviction, for any reason
  double allocated_gpu_hours = 0;
  double useful_gpu_hours = 0;
  double lost_gpu_hours = 0;
  double goodput = 0;  // useful / allocated; 0 when nothing was allocated
  double restarts_per_job = 0;
  int max_restarts = 0;
  std::vector<SizeClassReliability> by_size;  // only the classes with jobs that ran
};

ReliabilitySummary summarize_reliability(const SimulationLog& log);

}  // namespace gantry
