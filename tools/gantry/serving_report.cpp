#include "tools/gantry/serving_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "report/number_format.hpp"
#include "report/svg_line_chart.hpp"

namespace gantry::cli {

namespace {

std::string latency(double s) { return s > 0 ? seconds_human(s) : std::string("—"); }

ChartSeries series(const std::string& name, const ServiceReport& s,
                   double (*value)(const ServiceInterval&)) {
  ChartSeries out{name, {}, {}};
  if (s.intervals.empty()) return out;
  const Time t0 = s.intervals.front().start;
  for (const ServiceInterval& i : s.intervals) {
    out.x.push_back((i.start - t0).seconds() / 3600.0);
    out.y.push_back(value(i));
  }
  return out;
}

}  // namespace

std::string services_table(const std::vector<ServiceReport>& services) {
  size_t name_w = 12;
  for (const ServiceReport& s : services) {
    name_w = std::max(name_w, s.name.size() + 2);
    for (const PredictorReport& p : s.predictors) name_w = std::max(name_w, p.name.size() + 4);
  }
  std::string out =
      fmt::format("  {:<{}}{:>12}{:>10}{:>10}{:>10}{:>11}{:>8}{:>9}\n", "Services", name_w,
                  "requests", "p50", "p99", "in SLO", "GPU-hours", "cold", "max rep");
  for (const ServiceReport& s : services) {
    const std::string slo =
        s.slo_p99_s > 0 && s.requests > 0 ? percent(s.slo_attainment) : std::string("—");
    out += fmt::format("  {:<{}}{:>12}{:>10}{:>10}{:>10}{:>11}{:>8}{:>9}\n", s.name, name_w,
                       with_commas(s.requests), latency(s.p50_s), latency(s.p99_s), slo,
                       with_commas(s.gpu_hours, 1), with_commas(int64_t{s.cold_starts}),
                       with_commas(int64_t{s.max_replicas}));
    if (s.predictors.size() > 1) {
      for (const PredictorReport& p : s.predictors) {
        out +=
            fmt::format("    {:<{}}{:>12}{:>10}{:>10}{:>10}{:>11}{:>8}{:>9}\n",
                        fmt::format("{} {}%", p.name, p.traffic_percent), name_w - 2,
                        with_commas(p.requests), "", latency(p.p99_s), "", "",
                        with_commas(int64_t{p.cold_starts}), with_commas(int64_t{p.max_replicas}));
      }
    }
    if (s.unserved > 0)
      out += fmt::format("    {} requests still waiting for a replica at the end\n",
                         with_commas(s.unserved));
  }
  return out;
}

std::vector<std::string> write_service_plots(const std::string& dir,
                                             const std::vector<ServiceReport>& services) {
  std::vector<std::string> written;
  for (const ServiceReport& s : services) {
    LineChart lat{fmt::format("{}: request latency per interval", s.name), "hours", "seconds", {}};
    lat.series.push_back(series("p50", s, [](const ServiceInterval& i) { return i.p50_s; }));
    lat.series.push_back(series("p99", s, [](const ServiceInterval& i) { return i.p99_s; }));
    if (s.slo_p99_s > 0) {
      ChartSeries slo = series("SLO (p99)", s, [](const ServiceInterval&) { return 0.0; });
      std::fill(slo.y.begin(), slo.y.end(), s.slo_p99_s);
      lat.series.push_back(std::move(slo));
    }
    LineChart rep{
        fmt::format("{}: replicas (time average per interval)", s.name), "hours", "replicas", {}};
    rep.series.push_back(
        series("ready", s, [](const ServiceInterval& i) { return i.ready_replicas; }));
    rep.series.push_back(
        series("starting", s, [](const ServiceInterval& i) { return i.starting_replicas; }));
    for (const auto& [suffix, chart] : {std::pair{"latency", &lat}, std::pair{"replicas", &rep}}) {
      const std::string path =
          (std::filesystem::path(dir) / fmt::format("{}-{}.svg", s.name, suffix)).string();
      std::ofstream(path) << render_svg(*chart);
      written.push_back(path);
    }
  }
  return written;
}

}  // namespace gantry::cli
