#pragma once
// How a sweep is shown, the same way wherever it is shown: the text tables `gantry sweep`
// prints, and the SVG charts it writes and the server serves (web/ shows them as they are).
//
// Text: a header (sweep, base, runs done of total, seeds), then one table per metric, a row
// per point: the axis values, the mean over seeds and its 95 % confidence interval (± half
// width), n. Units by metric (sim/sweep/sweep_metrics.hpp): durations as 1h02m, ratios as %,
// counts with separators, money with two decimals.
//
// Charts: one per metric, mean against the first axis whose values are all numbers or
// durations (durations in seconds), one line per combination of the other axes, whiskers for
// the confidence intervals. Without such an axis the points are numbered along x in sweep
// order and the legend names them.

#include <string>
#include <vector>

#include "sim/sweep/sweep_metrics.hpp"
#include "sim/sweep/sweep_spec.hpp"
#include "sim/sweep/sweep_summary.hpp"

namespace gantry {

std::string sweep_text_report(const SweepSpec& sweep, const SweepSummary& summary);

// A metric's value as the reports show it ("1h02m", "81.5 %", "$3.20", "1,204").
std::string metric_value_text(MetricUnit unit, double value);

struct NamedChart {
  std::string file;  // "wait.p95.svg"
  std::string svg;
};
std::vector<NamedChart> sweep_charts(const SweepSpec& sweep, const SweepSummary& summary);

}  // namespace gantry
