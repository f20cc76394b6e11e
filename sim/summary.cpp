#include "sim/summary.hpp"

#include <algorithm>

#include "engine/metrics/time_weighted.hpp"

namespace gantry {

DistributionFigures figures_of(const Distribution& d) {
  DistributionFigures f;
  f.count = static_cast<int64_t>(d.count());
  if (f.count == 0) return f;
  f.mean = d.mean();
  f.p50 = d.percentile(50);
  f.p95 = d.percentile(95);
  f.p99 = d.percentile(99);
  f.max = d.max();
  return f;
}

namespace {

// Time-average of the sum over GPU types of a per-type series column (the digest's
// integrals, LogDigest), in GPUs.
double average_over_types(const std::vector<LogDigest::Integral>& per_type, Time start, Time end) {
  if (end <= start) return 0;
  double sum = 0;
  for (const LogDigest::Integral& tw : per_type) sum += tw.average(start, end);
  return sum;
}

}  // namespace

uint64_t trajectory_fingerprint(const SimulationLog& log) {
  // The events' FNV-1a (kept as they were recorded: they may have been streamed away), then
  // the placements, mixed the same way.
  uint64_t h = log.digest.events_fnv;
  const auto mix = [&h](uint64_t v) { LogDigest::fnv_mix(h, v); };
  // Where every job ran (its last placement): the events alone would not see two runs that
  // place the same gangs at the same instants on different nodes or GPUs.
  for (const JobLog& job : log.jobs) {
    for (const PodPlacement& p : job.pods) {
      mix(static_cast<uint64_t>(p.node));
      mix(p.gpu_mask);
    }
  }
  return h;
}

RunSummary summarize(const SimulationRun& run) {
  RunSummary s;
  s.start = run.start;
  s.end = run.end;
  s.events = run.events_dispatched;
  s.total_gpus = run.cluster->total_gpus();
  Distribution wait, jct;
  for (const JobLog& job : run.log.jobs) {
    if (job.spec->serving_replica) continue;  // services report on their own
    ++s.jobs_total;
    switch (job.state) {
      case JobState::kPending:
        ++s.jobs_queued_at_end;
        break;
      case JobState::kStarting:
      case JobState::kRunning:
        ++s.jobs_running_at_end;
        break;
      case JobState::kFinished:
        ++s.jobs_finished;
        break;
      case JobState::kInactive:
        ++s.jobs_inactive_at_end;
        break;
      case JobState::kWithdrawn:
        break;  // counted in the total only
    }
    if (job.running) wait.add((*job.running - job.spec->submit).seconds());
    if (job.finished) jct.add((*job.finished - job.spec->submit).seconds());
  }
  s.wait_s = figures_of(wait);
  s.jct_s = figures_of(jct);
  s.mean_gpus = s.total_gpus;
  if (!run.log.capacity.empty()) {
    TimeWeighted capacity(static_cast<double>(run.log.capacity.front().gpus));
    capacity.set(run.start, static_cast<double>(run.log.capacity.front().gpus));
    for (const SimulationLog::CapacityPoint& p : run.log.capacity) {
      capacity.set(p.time, static_cast<double>(p.gpus));
      s.total_gpus = std::max(s.total_gpus, static_cast<int>(p.gpus));
    }
    s.mean_gpus = run.end > run.start ? capacity.average(run.start, run.end)
                                      : static_cast<double>(run.log.capacity.back().gpus);
  }
  if (s.mean_gpus > 0) {
    s.gpu_allocation_ratio =
        average_over_types(run.log.digest.allocated, run.start, run.end) / s.mean_gpus;
    s.gpu_busy_ratio = average_over_types(run.log.digest.busy, run.start, run.end) / s.mean_gpus;
  }
  s.fingerprint = trajectory_fingerprint(run.log);
  return s;
}

}  // namespace gantry
