#include "report/svg_line_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gantry {

namespace {

constexpr double kPlotWidth = 550, kHeight = 500;
constexpr double kLeft = 70, kMinRight = 180, kTop = 50, kBottom = 60;
// The legend's width per character of its longest name (12 px Helvetica, on average).
constexpr double kLegendCharWidth = 6.6;
// A palette that stays distinguishable for the common kinds of colour blindness (Okabe-Ito).
constexpr const char* kColors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                   "#E69F00", "#56B4E9", "#000000", "#F0E442"};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A "nice" tick step (1, 2 or 5 × 10^k) giving about `target` ticks over `span`.
double tick_step(double span, int target) {
  if (span <= 0) return 1;
  const double raw = span / target;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

}  // namespace

// Lines of more points than this (a curve sampled every percent) are drawn without markers.
constexpr size_t kMaxMarkedPoints = 40;

std::string render_svg(const LineChart& chart) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin;
  double ymin = xmin, ymax = -xmin;
  for (const auto& s : chart.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (std::isnan(s.y[i]) || s.y[i] > chart.y_cap) continue;
      const double half = i < s.ci.size() && std::isfinite(s.ci[i]) ? s.ci[i] : 0;
      xmin = std::min(xmin, s.x[i]);
      xmax = std::max(xmax, s.x[i]);
      ymin = std::min(ymin, s.y[i] - half);
      ymax = std::max(ymax, s.y[i] + half);
    }
  if (!std::isfinite(xmin)) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  // A quantity that is never negative has no interval below zero either.
  bool non_negative = true;
  for (const auto& s : chart.series)
    for (double y : s.y) non_negative = non_negative && !(y < 0);
  if (non_negative) ymin = 0;
  if (std::isfinite(chart.limit)) ymax = std::max(ymax, chart.limit);
  if (std::isfinite(chart.y_cap)) ymax = std::min(ymax, chart.y_cap);
  const double ystep = tick_step(ymax - ymin, 6);
  ymax = std::ceil(ymax / ystep) * ystep;
  ymin = std::floor(ymin / ystep) * ystep;
  if (ymax <= ymin) ymax = ymin + 1;
  if (xmax <= xmin) xmax = xmin + 1;
  size_t longest = 0;
  for (const auto& s : chart.series) longest = std::max(longest, s.name.size());
  const double right = std::max(kMinRight, 60 + kLegendCharWidth * static_cast<double>(longest));
  const double width = kLeft + kPlotWidth + right;
  const double plot_w = kPlotWidth, plot_h = kHeight - kTop - kBottom;
  const auto px = [&](double x) { return kLeft + (x - xmin) / (xmax - xmin) * plot_w; };
  const auto py = [&](double y) { return kTop + (1 - (y - ymin) / (ymax - ymin)) * plot_h; };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"28\" font-size=\"16\" font-weight=\"bold\">{3}</text>\n",
      width, kHeight, kLeft, escape(chart.title));
  // Grid and y ticks.
  for (double y = ymin; y <= ymax + 1e-9; y += ystep) {
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#e5e5e5\"/>\n"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\" fill=\"#444\">{5:g}</text>\n",
        kLeft, kLeft + plot_w, py(y), kLeft - 8, py(y) + 4, y);
  }
  const double xstep = tick_step(xmax - xmin, 8);
  for (double x = std::ceil(xmin / xstep) * xstep; x <= xmax + 1e-9; x += xstep) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#f0f0f0\"/>\n"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" fill=\"#444\">{4:g}</text>\n",
        px(x), kTop, kTop + plot_h, kTop + plot_h + 18, x);
  }
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", kLeft,
      kTop, plot_w, plot_h);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     kLeft + plot_w / 2, kHeight - 18, escape(chart.x_label));
  svg += fmt::format(
      "<text transform=\"translate(20 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      kTop + plot_h / 2, escape(chart.y_label));
  if (std::isfinite(chart.limit))
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#c00\" "
        "stroke-dasharray=\"6 4\"/>\n<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\" "
        "fill=\"#c00\">{5}</text>\n",
        kLeft, kLeft + plot_w, py(chart.limit), kLeft + plot_w - 6, py(chart.limit) - 6,
        escape(chart.limit_label));
  // Lines and legend.
  for (size_t k = 0; k < chart.series.size(); ++k) {
    const ChartSeries& s = chart.series[k];
    const char* color = kColors[k % std::size(kColors)];
    std::string points;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (std::isnan(s.y[i]) || s.y[i] > chart.y_cap) continue;
      points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", px(s.x[i]), py(s.y[i]));
      if (s.x.size() <= kMaxMarkedPoints)
        svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n",
                           px(s.x[i]), py(s.y[i]), color);
      if (i < s.ci.size() && std::isfinite(s.ci[i]) && s.ci[i] > 0)
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" "
            "stroke=\"{3}\" stroke-width=\"1\"/>\n",
            px(s.x[i]), py(std::max(ymin, s.y[i] - s.ci[i])), py(std::min(ymax, s.y[i] + s.ci[i])),
            color);
    }
    // Past the palette, the colours repeat with a dash pattern, so no two lines look alike.
    const size_t round = k / std::size(kColors);
    const std::string dash =
        round == 0 ? "" : fmt::format(" stroke-dasharray=\"{} 4\"", round == 1 ? 8 : 2);
    svg +=
        fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>\n",
                    color, dash, points);
    const double ly = kTop + 10 + 22 * static_cast<double>(k);
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
        "stroke-width=\"3\"{7}/>\n<text x=\"{4}\" y=\"{5:.1f}\">{6}</text>\n",
        kLeft + plot_w + 16, kLeft + plot_w + 40, ly, color, kLeft + plot_w + 46, ly + 4,
        escape(s.name), dash);
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace gantry
