#include "sim/json_report.hpp"

#include <fmt/format.h>

namespace gantry {

namespace {
nlohmann::ordered_json distribution(const DistributionFigures& d) {
  return {{"count", d.count}, {"mean", d.mean}, {"p50", d.p50},
          {"p95", d.p95},     {"p99", d.p99},   {"max", d.max}};
}
}  // namespace

nlohmann::ordered_json json_report(const ScenarioSpec& scenario, const RunSummary& s,
                                   const std::string& results_path) {
  nlohmann::ordered_json j;
  j["scenario"] = scenario.name;
  j["seed"] = scenario.seed;
  j["policy"] = {
      {"placement", scenario.policy.placement},
      {"queue", scenario.policy.order == QueueOrder::kFifo ? "Fifo" : "Priority"},
      {"queueing",
       scenario.policy.queueing == Queueing::kStrictFifo ? "StrictFIFO" : "BestEffortFIFO"}};
  j["cluster"] = {{"nodes", scenario.topology.nodes.size()}, {"gpus", s.total_gpus}};
  j["start"] = format_rfc3339(s.start);
  j["end"] = format_rfc3339(s.end);
  j["events"] = s.events;
  j["jobs"] = {{"total", s.jobs_total},
               {"finished", s.jobs_finished},
               {"running_at_end", s.jobs_running_at_end},
               {"queued_at_end", s.jobs_queued_at_end}};
  j["wait_s"] = distribution(s.wait_s);
  j["jct_s"] = distribution(s.jct_s);
  j["gpu"] = {{"allocation_ratio", s.gpu_allocation_ratio}, {"busy_ratio", s.gpu_busy_ratio}};
  j["fingerprint"] = fmt::format("{:016x}", s.fingerprint);
  j["results"] = results_path;
  return j;
}

}  // namespace gantry
