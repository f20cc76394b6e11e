#include "report/sweep_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "engine/config/units.hpp"
#include "report/number_format.hpp"
#include "report/svg_line_chart.hpp"
#include "report/text_table.hpp"
#include "sim/sweep/sweep_variants.hpp"

namespace gantry {

namespace {

// An axis value as a number: a plain number, or a duration in seconds.
std::optional<double> numeric(const SweepValue& v) {
  if (!v.node.IsScalar()) return std::nullopt;
  if (const Result<double> n = parse_number(v.text, -1e300, 1e300)) return n.value();
  if (const Result<Duration> d = parse_duration(v.text)) return d.value().seconds();
  return std::nullopt;
}

std::optional<size_t> numeric_axis(const SweepSpec& sweep) {
  for (size_t a = 0; a < sweep.axes.size(); ++a) {
    bool all = true;
    for (const SweepPoint& p : sweep.points) all = all && numeric(p.values[a]).has_value();
    if (all) return a;
  }
  return std::nullopt;
}

// How a metric is drawn: its values divided by `scale`, named `unit`.
struct ChartUnit {
  double scale = 1;
  std::string unit;
};

ChartUnit chart_unit(MetricUnit unit, double largest) {
  switch (unit) {
    case MetricUnit::kSeconds:
      if (largest >= 2 * 3600) return {3600, "hours"};
      if (largest >= 120) return {60, "minutes"};
      return {1, "seconds"};
    case MetricUnit::kRatio:
      return {0.01, "%"};
    case MetricUnit::kCount:
      return {1, "count"};
    case MetricUnit::kMoney:
      return {1, "$"};
  }
  return {};
}

}  // namespace

std::string metric_value_text(MetricUnit unit, double value) {
  if (std::isnan(value)) return "—";
  switch (unit) {
    case MetricUnit::kSeconds:
      return seconds_human(value);
    case MetricUnit::kRatio:
      return percent(value);
    case MetricUnit::kCount:
      return with_commas(value, std::abs(value - std::round(value)) < 1e-9 ? 0 : 1);
    case MetricUnit::kMoney:
      return "$" + with_commas(value, 2);
  }
  return "";
}

std::string sweep_text_report(const SweepSpec& sweep, const SweepSummary& summary) {
  std::string out =
      fmt::format("sweep {}: {} points × {} seed{} of {}; runs {} of {}\n", sweep.name,
                  sweep.points.size(), sweep.seeds, sweep.seeds == 1 ? "" : "s",
                  sweep.base_as_written, summary.runs_done, summary.runs_total);
  for (size_t m = 0; m < sweep.metrics.size(); ++m) {
    const MetricUnit unit = metric_info(sweep.metrics[m])->unit;
    std::vector<std::string> header;
    for (const SweepAxis& a : sweep.axes) header.push_back(a.name);
    header.insert(header.end(), {"mean", "± 95% CI", "n"});
    TextTable table(header);
    for (const SweepPointSummary& p : summary.points) {
      std::vector<std::string> row;
      for (const SweepValue& v : sweep.points[p.point].values) row.push_back(v.text);
      const MetricStats& s = p.metrics[m];
      row.push_back(metric_value_text(unit, s.mean));
      row.push_back(std::isnan(s.ci95) ? "—" : "± " + metric_value_text(unit, s.ci95));
      row.push_back(std::to_string(s.n));
      table.add(row);
    }
    out += fmt::format("\n{}\n", sweep.metrics[m]) + table.render("  ");
  }
  return out;
}

std::vector<NamedChart> sweep_charts(const SweepSpec& sweep, const SweepSummary& summary) {
  const std::optional<size_t> x_axis = numeric_axis(sweep);
  std::vector<NamedChart> out;
  for (size_t m = 0; m < sweep.metrics.size(); ++m) {
    double largest = 0;
    for (const SweepPointSummary& p : summary.points)
      if (std::isfinite(p.metrics[m].mean))
        largest = std::max(largest, std::abs(p.metrics[m].mean));
    const ChartUnit unit = chart_unit(metric_info(sweep.metrics[m])->unit, largest);
    const auto chart_value = [&unit](double v) { return v / unit.scale; };
    LineChart chart;
    chart.title = fmt::format("{}: {}", sweep.name, sweep.metrics[m]);
    chart.y_label = fmt::format("{} ({}), mean ± 95% CI", sweep.metrics[m], unit.unit);
    if (x_axis) {
      const SweepAxis& axis = sweep.axes[*x_axis];
      chart.x_label = axis.name;
      // One series per combination of the other axes, in order of first appearance.
      std::map<std::string, size_t> series_of;
      for (const SweepPointSummary& p : summary.points) {
        const SweepPoint& point = sweep.points[p.point];
        std::string name;
        for (size_t a = 0; a < sweep.axes.size(); ++a)
          if (a != *x_axis)
            name += fmt::format("{}{}={}", name.empty() ? "" : ", ", sweep.axes[a].name,
                                point.values[a].text);
        if (name.empty()) name = sweep.metrics[m];
        auto [it, added] = series_of.emplace(name, chart.series.size());
        if (added) chart.series.push_back(ChartSeries{.name = name});
        ChartSeries& s = chart.series[it->second];
        s.x.push_back(*numeric(point.values[*x_axis]));
        s.y.push_back(chart_value(p.metrics[m].mean));
        s.ci.push_back(chart_value(p.metrics[m].ci95));
      }
      for (ChartSeries& s : chart.series) {  // in x order, for the line
        std::vector<size_t> order(s.x.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return s.x[a] < s.x[b]; });
        ChartSeries sorted{.name = s.name};
        for (size_t i : order) {
          sorted.x.push_back(s.x[i]);
          sorted.y.push_back(s.y[i]);
          sorted.ci.push_back(s.ci[i]);
        }
        s = std::move(sorted);
      }
    } else {
      chart.x_label = "point";
      for (const SweepPointSummary& p : summary.points)
        chart.series.push_back(ChartSeries{
            .name = fmt::format("{}: {}", p.point + 1, point_label(sweep, sweep.points[p.point])),
            .x = {static_cast<double>(p.point + 1)},
            .y = {chart_value(p.metrics[m].mean)},
            .ci = {chart_value(p.metrics[m].ci95)}});
    }
    out.push_back({sweep.metrics[m] + ".svg", render_svg(chart)});
  }
  return out;
}

}  // namespace gantry
