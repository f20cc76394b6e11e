#include "tools/gantry/text_report.hpp"

#include <fmt/format.h>

#include <map>

#include "tools/gantry/number_format.hpp"

namespace gantry::cli {

namespace {

const char* order_name(QueueOrder o) { return o == QueueOrder::kFifo ? "FIFO" : "Priority"; }
const char* queueing_name(Queueing q) {
  return q == Queueing::kStrictFifo ? "StrictFIFO" : "BestEffortFIFO";
}

std::string gpu_inventory(const Topology& topo) {
  std::map<std::string, int> by_type;
  for (size_t n = 0; n < topo.nodes.size(); ++n) {
    const NodeClass& c = topo.class_of(static_cast<NodeId>(n));
    if (c.gpu_type >= 0) by_type[topo.gpus.at(c.gpu_type).name] += c.capacity.gpus;
  }
  std::string out;
  for (const auto& [name, count] : by_type) {
    if (!out.empty()) out += " + ";
    out += fmt::format("{} × {}", with_commas(count), name);
  }
  return out.empty() ? "no GPUs" : out;
}

std::string distribution_row(const char* label, const DistributionFigures& d) {
  if (d.count == 0) return fmt::format("  {:<12}{:>10}\n", label, "—");
  return fmt::format("  {:<12}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}\n", label, with_commas(d.count),
                     seconds_human(d.mean), seconds_human(d.p50), seconds_human(d.p95),
                     seconds_human(d.p99), seconds_human(d.max));
}

}  // namespace

std::string text_report(const ScenarioSpec& scenario, const RunSummary& s,
                        const std::string& results_path) {
  const Topology& topo = scenario.topology;
  std::string out;
  out += fmt::format("Scenario   {} (seed {})\n", scenario.name, scenario.seed);
  out += fmt::format("Policy     placement {} · queue {} · {}\n", scenario.policy.placement,
                     order_name(scenario.policy.order), queueing_name(scenario.policy.queueing));
  out += fmt::format(
      "Cluster    {} nodes in {} rack{} · {} · {} fabric (rack oversubscription {:g}:1)\n",
      with_commas(static_cast<int64_t>(topo.nodes.size())), topo.racks.size(),
      topo.racks.size() == 1 ? "" : "s", gpu_inventory(topo), to_string(topo.fabric.kind),
      topo.fabric.rack_oversubscription);
  out += fmt::format("Simulated  {} → {} ({}), {} events\n\n", format_rfc3339(s.start),
                     format_rfc3339(s.end), format_duration(s.end - s.start),
                     with_commas(static_cast<int64_t>(s.events)));

  out += fmt::format("  {:<12}{:>10}{:>10}{:>10}{:>10}\n", "Jobs", "total", "finished", "running",
                     "queued");
  out += fmt::format("  {:<12}{:>10}{:>10}{:>10}{:>10}\n\n", "", with_commas(s.jobs_total),
                     with_commas(s.jobs_finished), with_commas(s.jobs_running_at_end),
                     with_commas(s.jobs_queued_at_end));

  out += fmt::format("  {:<12}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}\n", "Time", "jobs", "mean",
                     "p50", "p95", "p99", "max");
  out += distribution_row("wait", s.wait_s);
  out += distribution_row("completion", s.jct_s);
  out += "\n";
  out += fmt::format("  GPU allocated {:>8}   busy {:>8}   of {} GPUs\n",
                     percent(s.gpu_allocation_ratio), percent(s.gpu_busy_ratio),
                     with_commas(s.total_gpus));
  if (s.jobs_queued_at_end > 0)
    out += fmt::format("  {} job(s) still queued at the end of the run\n",
                       with_commas(s.jobs_queued_at_end));
  out += fmt::format("\n  fingerprint {:016x}\n", s.fingerprint);
  if (!results_path.empty()) out += fmt::format("  results     {}\n", results_path);
  return out;
}

}  // namespace gantry::cli
