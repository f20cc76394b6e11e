#include "sim/sweep/sweep_metrics.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <utility>

#include "sim/cost_summary.hpp"
#include "sim/reliability_summary.hpp"
#include "sim/summary.hpp"

namespace gantry {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Named {
  std::string_view name;
  MetricInfo info;
};

constexpr std::array kRunMetrics{
    Named{"wait.mean", {MetricUnit::kSeconds, true}},
    Named{"wait.p50", {MetricUnit::kSeconds, true}},
    Named{"wait.p95", {MetricUnit::kSeconds, true}},
    Named{"wait.p99", {MetricUnit::kSeconds, true}},
    Named{"wait.max", {MetricUnit::kSeconds, true}},
    Named{"jct.mean", {MetricUnit::kSeconds, true}},
    Named{"jct.p50", {MetricUnit::kSeconds, true}},
    Named{"jct.p95", {MetricUnit::kSeconds, true}},
    Named{"jct.p99", {MetricUnit::kSeconds, true}},
    Named{"jct.max", {MetricUnit::kSeconds, true}},
    Named{"gpu.allocated", {MetricUnit::kRatio, false}},
    Named{"gpu.busy", {MetricUnit::kRatio, false}},
    Named{"goodput", {MetricUnit::kRatio, false}},
    Named{"jobs.finished", {MetricUnit::kCount, false}},
    Named{"jobs.unfinished", {MetricUnit::kCount, true}},
    Named{"cost.total", {MetricUnit::kMoney, true}},
    Named{"cost.perUsefulGpuHour", {MetricUnit::kMoney, true}},
};

constexpr std::array kServiceMetrics{
    Named{"p99", {MetricUnit::kSeconds, true}},
    Named{"sloAttainment", {MetricUnit::kRatio, false}},
};

// "service.NAME.FIELD" split; nullopt when `name` is not of that form.
std::optional<std::pair<std::string_view, std::string_view>> service_parts(std::string_view name) {
  constexpr std::string_view kPrefix = "service.";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view rest = name.substr(kPrefix.size());
  const size_t dot = rest.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  return std::pair{rest.substr(0, dot), rest.substr(dot + 1)};
}

double distribution_figure(const DistributionFigures& d, std::string_view which) {
  if (d.count == 0) return kNaN;
  if (which == "mean") return d.mean;
  if (which == "p50") return d.p50;
  if (which == "p95") return d.p95;
  if (which == "p99") return d.p99;
  return d.max;
}

}  // namespace

std::optional<MetricInfo> metric_info(std::string_view name) {
  for (const Named& m : kRunMetrics)
    if (m.name == name) return m.info;
  if (const auto parts = service_parts(name))
    for (const Named& m : kServiceMetrics)
      if (m.name == parts->second) return m.info;
  return std::nullopt;
}

std::string metric_names() {
  std::string out;
  for (const Named& m : kRunMetrics) out += std::string(m.name) + ", ";
  for (size_t i = 0; i < kServiceMetrics.size(); ++i)
    out += fmt::format("service.NAME.{}{}", kServiceMetrics[i].name,
                       i + 1 < kServiceMetrics.size() ? ", " : "");
  return out;
}

std::string metric_service(std::string_view name) {
  const auto parts = service_parts(name);
  return parts ? std::string(parts->first) : std::string();
}

std::vector<std::string> default_metrics() { return {"wait.p95", "jct.mean", "gpu.allocated"}; }

std::vector<double> measure_run(const SimulationRun& run, const std::vector<std::string>& metrics) {
  const RunSummary summary = summarize(run);
  std::optional<ReliabilitySummary> reliability;
  std::optional<CostSummary> cost;
  std::vector<double> out;
  out.reserve(metrics.size());
  for (const std::string& name : metrics) {
    const std::string_view n = name;
    if (n.starts_with("wait.")) {
      out.push_back(distribution_figure(summary.wait_s, n.substr(5)));
    } else if (n.starts_with("jct.")) {
      out.push_back(distribution_figure(summary.jct_s, n.substr(4)));
    } else if (n == "gpu.allocated") {
      out.push_back(summary.gpu_allocation_ratio);
    } else if (n == "gpu.busy") {
      out.push_back(summary.gpu_busy_ratio);
    } else if (n == "goodput") {
      if (!reliability) reliability = summarize_reliability(run.log);
      out.push_back(reliability->allocated_gpu_hours > 0 ? reliability->goodput : kNaN);
    } else if (n == "jobs.finished") {
      out.push_back(static_cast<double>(summary.jobs_finished));
    } else if (n == "jobs.unfinished") {
      out.push_back(static_cast<double>(summary.jobs_total - summary.jobs_finished));
    } else if (n.starts_with("cost.")) {
      if (!cost) cost = summarize_cost(run.log);
      out.push_back(n == "cost.total" ? cost->cost : cost->per_useful_gpu_hour);
    } else if (const auto parts = service_parts(n)) {
      double value = kNaN;
      for (const ServiceReport& s : run.services)
        if (s.name == parts->first)
          value = parts->second == "p99" ? (s.requests > 0 ? s.p99_s : kNaN) : s.slo_attainment;
      out.push_back(value);
    } else {
      out.push_back(kNaN);
    }
  }
  return out;
}

}  // namespace gantry
