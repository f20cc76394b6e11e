#pragma once
// A sweep's figures per point: each metric's mean and 95 % confidence interval over the
// point's seeds (sim/sweep/sweep_stats.hpp), from the runs stored so far.
//
// JSON (`gantry sweep --format json`, and the server's sweep resource), stable:
//   {"sweep": NAME, "base": PATH, "seeds": N, "axes": [{"name", "path"}], "metrics": [names],
//    "runs": {"done", "total"},
//    "points": [{"values": {axis: value}, "metrics": {name: {"mean", "ci95", "n"}}}]}
// Values are as the sweep file wrote them (strings); mean and ci95 are null when undefined
// (no run with a value; fewer than two).

#include <nlohmann/json.hpp>
#include <vector>

#include "sim/sweep/sweep_run.hpp"
#include "sim/sweep/sweep_spec.hpp"
#include "sim/sweep/sweep_stats.hpp"

namespace gantry {

struct SweepPointSummary {
  size_t point = 0;
  std::vector<MetricStats> metrics;  // SweepSpec::metrics' order
  int runs = 0;                      // runs of this point included
};

struct SweepSummary {
  std::vector<SweepPointSummary> points;  // every point, in SweepSpec::points order
  size_t runs_done = 0;
  size_t runs_total = 0;
};

SweepSummary summarize_sweep(const SweepSpec& sweep, const std::vector<SweepRunResult>& runs);

nlohmann::ordered_json sweep_json(const SweepSpec& sweep, const SweepSummary& summary);

}  // namespace gantry
