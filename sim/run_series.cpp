#include "sim/run_series.hpp"

#include <algorithm>

namespace gantry {

std::vector<std::pair<double, double>> empirical_cdf(std::vector<double> values,
                                                     size_t max_points) {
  std::vector<std::pair<double, double>> out;
  if (values.empty() || max_points == 0) return out;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const size_t step = (n + max_points - 1) / max_points;
  for (size_t i = step - 1; i < n; i += step)
    out.emplace_back(values[i], static_cast<double>(i + 1) / static_cast<double>(n));
  if (out.back().second != 1.0) out.emplace_back(values.back(), 1.0);
  return out;
}

RunSeries run_series(const SimulationRun& run, size_t max_points) {
  RunSeries s;
  std::vector<double> wait, jct;
  for (const JobLog& job : run.log.jobs) {
    if (job.spec->serving_replica) continue;  // a service's replica, not a training job
    if (job.running) wait.push_back((*job.running - job.spec->submit).seconds());
    if (job.finished) jct.push_back((*job.finished - job.spec->submit).seconds());
  }
  s.wait_cdf = empirical_cdf(std::move(wait), max_points);
  s.jct_cdf = empirical_cdf(std::move(jct), max_points);

  // Allocation: the series holds per-type points; the total is the sum of each type's latest.
  const int total = run.cluster->total_gpus();
  if (total == 0 || max_points == 0) return s;
  std::vector<int64_t> per_type(run.cluster->topology().gpus.size(), 0);
  int64_t allocated_milli = 0;
  std::vector<std::pair<Time, double>> all;
  for (const SeriesPoint& p : run.log.series) {
    auto& slot = per_type[static_cast<size_t>(p.type)];
    allocated_milli += p.allocated_milli - slot;
    slot = p.allocated_milli;
    const double ratio = static_cast<double>(allocated_milli) / kMilliPerGpu / total;
    if (!all.empty() && all.back().first == p.time) {
      all.back().second = ratio;  // several changes at one instant: the last holds
      if (all.size() >= 2 && all[all.size() - 2].second == ratio) all.pop_back();
    } else if (all.empty() || all.back().second != ratio) {
      all.emplace_back(p.time, ratio);  // busy-only changes leave the allocation as it was
    }
  }
  const size_t step = std::max<size_t>(1, (all.size() + max_points - 1) / max_points);
  for (size_t i = 0; i < all.size(); i += step) s.gpu_allocation.push_back(all[i]);
  if (!all.empty() && s.gpu_allocation.back() != all.back()) s.gpu_allocation.push_back(all.back());
  // The last ratio holds to the end of the run: a plot spans the whole run, not only up to
  // the last change.
  if (!s.gpu_allocation.empty() && run.end > s.gpu_allocation.back().first)
    s.gpu_allocation.emplace_back(run.end, s.gpu_allocation.back().second);
  return s;
}

}  // namespace gantry
