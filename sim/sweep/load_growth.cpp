#include "sim/sweep/load_growth.hpp"

#include <cmath>

namespace gantry {

void grow_load(ScenarioSpec& s, double g) {
  if (g == 1.0) return;
  for (PoissonGeneratorSpec& gen : s.workload.generators) {
    gen.mean_interarrival = Duration(static_cast<int64_t>(
        std::llround(static_cast<double>(gen.mean_interarrival.micros()) / g)));
    gen.count = std::llround(static_cast<double>(gen.count) * g);
  }
  for (ServiceSpec& service : s.workload.services) {
    service.load.qps *= g;
    service.load.peak_qps *= g;
    service.load.trough_qps *= g;
    service.load.speedup *= g;
  }
}

int64_t scenario_job_count(const ScenarioSpec& s) {
  int64_t jobs = static_cast<int64_t>(s.workload.jobs.size());
  for (const PoissonGeneratorSpec& gen : s.workload.generators) jobs += gen.count;
  return jobs;
}

}  // namespace gantry
