#pragma once
// The load of a scenario multiplied by an arrival-rate factor g, as a Plan's forecast step
// (sim/plan/plan_variant.hpp) and a Sweep's `spec.growth` (sim/sweep/sweep_loader.hpp) apply
// it to a scenario already loaded:
//   - each generator's mean inter-arrival time divided by g (rounded to the microsecond) and
//     its count multiplied by g (rounded): the same period, g times the arrivals;
//   - each service's traffic multiplied by g (Poisson qps, a curve's peak and trough, a
//     trace's speed-up);
//   - explicit jobs are kept as written (they are a list of known work, not a rate).
// g = 1 changes nothing. One function for both, so that a plan's batch run as a sweep on
// another machine simulates exactly the plan's own scenarios.

#include <cstdint>

#include "sim/scenario_spec.hpp"

namespace gantry {

void grow_load(ScenarioSpec& s, double g);

// A scenario's workload limit (sim/workload_loader.cpp's): a growth that passes it is an error.
inline constexpr int64_t kMaxScenarioJobs = 1'000'000;

// The jobs `s` submits: its explicit jobs and every generator's count.
int64_t scenario_job_count(const ScenarioSpec& s);

}  // namespace gantry
