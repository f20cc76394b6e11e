#include "sim/queue_summary.hpp"

#include <cassert>
#include <map>

#include "engine/metrics/distribution.hpp"

namespace gantry {

namespace {
constexpr double kSecondsPerHour = 3600;
}  // namespace

bool is_preemption(const std::string& reason) {
  return reason == "Preempted" || reason == "InCohortReclamation" ||
         reason == "InCohortFairSharing";
}

std::vector<QueueSummary> summarize_queues(const SimulationLog& log,
                                           const AdmissionConfig& admission) {
  if (!admission.enabled()) return {};
  std::vector<QueueSummary> rows(admission.queues.size());
  std::map<std::string, size_t> index;  // queue name -> row
  for (size_t q = 0; q < admission.queues.size(); ++q) {
    rows[q].name = admission.queues[q].name;
    rows[q].cohort = admission.queues[q].cohort;
    index.emplace(rows[q].name, q);
  }
  const auto row_of = [&](const JobLog& job) -> QueueSummary* {
    assert(job.spec != nullptr);
    const auto it = index.find(job.spec->queue);
    return it == index.end() ? nullptr : &rows[it->second];
  };

  std::vector<Distribution> waits(rows.size());
  std::vector<double> lost_gpu_seconds(rows.size(), 0.0);
  for (const JobLog& job : log.jobs) {
    for (const EvictionRecord& e : job.evicted) {
      if (e.by < 0) continue;
      assert(static_cast<size_t>(e.by) < log.jobs.size());
      if (QueueSummary* preemptor = row_of(log.jobs[static_cast<size_t>(e.by)]))
        ++preemptor->preemptions_caused;
    }
    QueueSummary* row = row_of(job);
    if (row == nullptr) continue;
    const auto q = static_cast<size_t>(row - rows.data());
    ++row->jobs;
    if (job.admitted) {
      ++row->admitted;
      waits[q].add((*job.admitted - job.spec->submit).seconds());
    }
    for (const EvictionRecord& e : job.evicted)
      if (is_preemption(e.reason)) ++row->preemptions_suffered;
    lost_gpu_seconds[q] += job.lost_gpu_seconds;
  }
  for (size_t q = 0; q < rows.size(); ++q) {
    rows[q].admission_wait_s = figures_of(waits[q]);
    rows[q].lost_gpu_hours = lost_gpu_seconds[q] / kSecondsPerHour;
  }
  for (const QueueLog& used : log.queues) {
    const auto it = index.find(used.name);
    if (it == index.end()) continue;
    QueueSummary& row = rows[it->second];
    row.gpu_hours_used = used.used_gpu_seconds / kSecondsPerHour;
    row.gpu_hours_borrowed = used.borrowed_gpu_seconds / kSecondsPerHour;
    row.gpu_hours_lent = used.lent_gpu_seconds / kSecondsPerHour;
  }
  return rows;
}

}  // namespace gantry
