#pragma once
// Plot-ready series of one simulation run, for the web UI's what-if page and the REST API
// (GET /api/v1/simulations/{id}/series): GPU allocation over time and the CDFs of wait and
// job completion time. Bounded in size whatever the run's length, so a 100,000-job run still
// answers with a few thousand points.
//
// Definitions (as sim/summary.hpp): wait = start − submit over jobs that started; JCT = end −
// submit over finished jobs; allocation = allocated GPUs / all GPUs, every GPU type together.

#include <utility>
#include <vector>

#include "engine/core/time.hpp"
#include "sim/simulation.hpp"

namespace gantry {

struct RunSeries {
  // (instant, allocated / total) at each change of the ratio; downsampled to every k-th change when
  // there are more than max_points (every kept point is a real one; the last is always kept), and
  // the last ratio again at the run's end when that is later: at most max_points + 2.
  std::vector<std::pair<Time, double>> gpu_allocation;
  // (seconds, fraction of jobs with that value or less), at most max_points + 1, the last 1.
  std::vector<std::pair<double, double>> wait_cdf;
  std::vector<std::pair<double, double>> jct_cdf;
};

RunSeries run_series(const SimulationRun& run, size_t max_points = 2000);

// The empirical CDF of `values` at no more than max_points points: sorted values x_i with
// F(x_i) = (i + 1) / n; when n > max_points every ceil(n / max_points)-th point is kept, and
// the last (so at most max_points + 1). Empty input gives an empty CDF.
std::vector<std::pair<double, double>> empirical_cdf(std::vector<double> values, size_t max_points);

}  // namespace gantry
