#include "sim/reliability_summary.hpp"

#include <algorithm>
#include <array>
#include <climits>

namespace gantry {

namespace {

constexpr std::array<int, 6> kClassFloors = {1, 2, 9, 65, 513, 4097};

size_t class_of(int gpus) {
  size_t c = 0;
  while (c + 1 < kClassFloors.size() && gpus >= kClassFloors[c + 1]) ++c;
  return c;
}

}  // namespace

ReliabilitySummary summarize_reliability(const SimulationLog& log) {
  ReliabilitySummary r;
  r.fault_events = static_cast<int64_t>(log.faults.size());
  std::array<SizeClassReliability, kClassFloors.size()> classes{};
  for (size_t c = 0; c < classes.size(); ++c) {
    classes[c].min_gpus = kClassFloors[c];
    classes[c].max_gpus = c + 1 < classes.size() ? kClassFloors[c + 1] - 1 : INT_MAX;
  }
  int64_t ran = 0;
  double allocated_s = 0, useful_s = 0, lost_s = 0, restarts = 0;
  for (const JobLog& job : log.jobs) {
    if (job.spec != nullptr && job.spec->serving_replica) continue;  // services report on their own
    allocated_s += job.allocated_gpu_seconds;
    useful_s += job.useful_gpu_seconds;
    lost_s += job.lost_gpu_seconds;
    r.jobs_killed += job.failures;
    r.jobs_evicted += job.evictions;
    if (job.running_seconds <= 0 && job.failures == 0) continue;  // never ran
    ++ran;
    restarts += job.failures;
    r.max_restarts = std::max(r.max_restarts, job.failures);
    SizeClassReliability& c = classes[class_of(std::max(1, job.spec->total_gpus()))];
    ++c.jobs;
    c.running_hours += job.running_seconds / 3600;
    c.failures += job.failures;
  }
  r.allocated_gpu_hours = allocated_s / 3600;
  r.useful_gpu_hours = useful_s / 3600;
  r.lost_gpu_hours = lost_s / 3600;
  r.goodput = allocated_s > 0 ? useful_s / allocated_s : 0;
  r.restarts_per_job = ran > 0 ? restarts / static_cast<double>(ran) : 0;
  for (SizeClassReliability& c : classes) {
    if (c.jobs == 0) continue;
    c.mtbf_hours = c.failures > 0 ? c.running_hours / static_cast<double>(c.failures) : 0;
    r.by_size.push_back(c);
  }
  return r;
}

}  // namespace gantry
