#include "sim/sweep/sweep_summary.hpp"

#include <cmath>

namespace gantry {

namespace {

nlohmann::ordered_json number_or_null(double x) {
  if (std::isnan(x)) return nullptr;
  return x;
}

}  // namespace

SweepSummary summarize_sweep(const SweepSpec& sweep, const std::vector<SweepRunResult>& runs) {
  SweepSummary out;
  out.runs_total = sweep.points.size() * static_cast<size_t>(sweep.seeds);
  out.runs_done = runs.size();
  // values[point][metric] = one value per run
  std::vector<std::vector<std::vector<double>>> values(
      sweep.points.size(), std::vector<std::vector<double>>(sweep.metrics.size()));
  std::vector<int> counts(sweep.points.size(), 0);
  for (const SweepRunResult& r : runs) {
    ++counts[r.point];
    for (size_t m = 0; m < sweep.metrics.size(); ++m) values[r.point][m].push_back(r.metrics[m]);
  }
  for (size_t p = 0; p < sweep.points.size(); ++p) {
    SweepPointSummary s{.point = p, .runs = counts[p]};
    for (const std::vector<double>& v : values[p]) s.metrics.push_back(metric_stats(v));
    out.points.push_back(std::move(s));
  }
  return out;
}

nlohmann::ordered_json sweep_json(const SweepSpec& sweep, const SweepSummary& summary) {
  nlohmann::ordered_json axes = nlohmann::ordered_json::array();
  for (const SweepAxis& a : sweep.axes) axes.push_back({{"name", a.name}, {"path", a.path_text}});
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const SweepPointSummary& p : summary.points) {
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    for (size_t a = 0; a < sweep.axes.size(); ++a)
      values[sweep.axes[a].name] = sweep.points[p.point].values[a].text;
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (size_t m = 0; m < sweep.metrics.size(); ++m)
      metrics[sweep.metrics[m]] = {{"mean", number_or_null(p.metrics[m].mean)},
                                   {"ci95", number_or_null(p.metrics[m].ci95)},
                                   {"n", p.metrics[m].n}};
    points.push_back({{"values", values}, {"metrics", metrics}});
  }
  return {{"sweep", sweep.name},
          {"base", sweep.base},
          {"seeds", sweep.seeds},
          {"axes", axes},
          {"metrics", sweep.metrics},
          {"runs", {{"done", summary.runs_done}, {"total", summary.runs_total}}},
          {"points", points}};
}

}  // namespace gantry
