#pragma once
// A small SVG line chart, written by the program itself so a result can be looked at without
// any plotting tool: one line per series, axes with ticks, a legend. Used for the
// fragmentation experiment's "unallocated GPU vs arrived workload" plot and a sweep's or
// plan's metrics (report/sweep_report.hpp).

#include <limits>
#include <string>
#include <vector>

namespace gantry {

struct ChartSeries {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;  // same length as x
  // Optional: a half-width per point (a 95 % confidence interval), drawn as a whisker from
  // y − ci to y + ci; empty for none, NaN for a point without one.
  std::vector<double> ci;
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  // Optional, NaN for none: a dashed horizontal line at this y (a limit), named `limit_label`;
  // and a cap of the y axis: points above it are not drawn (nor whiskers past it), so that a
  // few huge values do not flatten the region that matters.
  double limit = std::numeric_limits<double>::quiet_NaN();
  std::string limit_label;
  double y_cap = std::numeric_limits<double>::quiet_NaN();
};

// A standalone SVG document (800 × 500 px, wider when legend names are long): lines through the
// points, each point marked when a line has at most 40. Axis ranges cover all points and whiskers;
// the y axis starts at 0 when every value is non-negative. NaN points are left out.
std::string render_svg(const LineChart& chart);

}  // namespace gantry
