#pragma once
// A small SVG line chart, written by the program itself so a result can be looked at without
// any plotting tool: one line per series, axes with ticks, a legend. Used for the
// fragmentation experiment's "unallocated GPU vs arrived workload" plot.

#include <string>
#include <vector>

namespace gantry::cli {

struct ChartSeries {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;  // same length as x
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
};

// A standalone SVG document (800 × 500 px). Axis ranges cover all points; the y axis starts at
// 0 when every value is non-negative.
std::string render_svg(const LineChart& chart);

}  // namespace gantry::cli
