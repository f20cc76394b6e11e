#include "tools/gantry/text_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>

#include "report/number_format.hpp"
#include "tools/gantry/serving_report.hpp"

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

// Two tables keyed by queue: who waited how long for admission, then GPU time and
// preemptions. Columns widen for long names.
std::string queue_tables(const std::vector<QueueSummary>& queues) {
  size_t name_w = 12, cohort_w = 8;
  for (const QueueSummary& q : queues) {
    name_w = std::max(name_w, q.name.size() + 2);
    cohort_w = std::max(cohort_w, q.cohort.size() + 2);
  }
  const auto wait = [](const QueueSummary& q, double s) {
    return q.admission_wait_s.count == 0 ? std::string("—") : seconds_human(s);
  };
  const auto hours = [](double h) { return with_commas(h, 1); };
  std::string out = fmt::format("  {:<{}}{:<{}}{:>8}{:>10}{:>10}{:>10}\n", "Queues", name_w,
                                "cohort", cohort_w, "jobs", "admitted", "wait p50", "wait p95");
  for (const QueueSummary& q : queues)
    out += fmt::format("  {:<{}}{:<{}}{:>8}{:>10}{:>10}{:>10}\n", q.name, name_w,
                       q.cohort.empty() ? "—" : q.cohort, cohort_w, with_commas(q.jobs),
                       with_commas(q.admitted), wait(q, q.admission_wait_s.p50),
                       wait(q, q.admission_wait_s.p95));
  out += fmt::format("\n  {:<{}}{:>10}{:>10}{:>10}{:>10}{:>12}{:>12}\n", "GPU-hours", name_w,
                     "used", "borrowed", "lent", "lost", "preempted", "preempting");
  for (const QueueSummary& q : queues)
    out += fmt::format("  {:<{}}{:>10}{:>10}{:>10}{:>10}{:>12}{:>12}\n", q.name, name_w,
                       hours(q.gpu_hours_used), hours(q.gpu_hours_borrowed),
                       hours(q.gpu_hours_lent), hours(q.lost_gpu_hours),
                       with_commas(q.preemptions_suffered), with_commas(q.preemptions_caused));
  out +=
      "  wait: submit to first admission · lost: work evictions threw away\n"
      "  preempted: evictions its jobs suffered · preempting: evictions its jobs caused\n";
  return out;
}

std::string size_label(const SizeClassReliability& c) {
  if (c.min_gpus == c.max_gpus)
    return fmt::format("{} GPU{}", c.min_gpus, c.min_gpus == 1 ? "" : "s");
  if (c.max_gpus == INT_MAX) return fmt::format("{}+ GPUs", with_commas(c.min_gpus));
  return fmt::format("{}–{} GPUs", with_commas(c.min_gpus), with_commas(c.max_gpus));
}

// What failures and drains cost: goodput, lost work, restarts, and the MTBF jobs of each size
// saw.
std::string reliability_tables(const ReliabilitySummary& r) {
  std::string out = fmt::format(
      "  Reliability   {} fault events · {} job kills · {} evictions · {:.2f} restarts per job "
      "(max {})\n",
      with_commas(r.fault_events), with_commas(r.jobs_killed), with_commas(r.jobs_evicted),
      r.restarts_per_job, r.max_restarts);
  out += fmt::format("  GPU-hours     allocated {}   useful {}   lost {}   goodput {}\n",
                     with_commas(r.allocated_gpu_hours, 1), with_commas(r.useful_gpu_hours, 1),
                     with_commas(r.lost_gpu_hours, 1), percent(r.goodput));
  if (r.by_size.empty()) return out;
  out += fmt::format("\n  {:<14}{:>8}{:>14}{:>10}{:>14}\n", "Job size", "jobs", "running h",
                     "failures", "MTBF seen");
  for (const SizeClassReliability& c : r.by_size)
    out += fmt::format("  {:<14}{:>8}{:>14}{:>10}{:>14}\n", size_label(c), with_commas(c.jobs),
                       with_commas(c.running_hours, 1), with_commas(c.failures),
                       c.failures > 0 ? seconds_human(c.mtbf_hours * 3600) : std::string("—"));
  out +=
      "  goodput: useful GPU-hours / allocated · lost: work thrown away since the last "
      "checkpoint\n"
      "  MTBF seen: running hours of jobs of that size / the failures that killed them\n";
  return out;
}

// Node pools: what each one ran and cost, then cost per job and per useful GPU-hour.
std::string cost_tables(const CostSummary& c) {
  size_t name_w = 12;
  for (const PoolLog& p : c.pools) name_w = std::max(name_w, p.name.size() + 2);
  std::string out =
      fmt::format("  {:<{}}{:<11}{:>8}{:>8}{:>8}{:>10}{:>12}{:>12}\n", "Node pools", name_w,
                  "capacity", "added", "peak", "removed", "reclaims", "node-hours", "cost");
  for (const PoolLog& p : c.pools)
    out +=
        fmt::format("  {:<{}}{:<11}{:>8}{:>8}{:>8}{:>10}{:>12}{:>12}\n", p.name, name_w,
                    p.spot ? "spot" : "on-demand", with_commas(p.nodes_added),
                    with_commas(p.peak_nodes), with_commas(p.nodes_removed),
                    with_commas(p.reclaims), with_commas(p.node_hours, 1), with_commas(p.cost, 2));
  out += fmt::format("  Cost          {}: spot {} · on-demand {}\n", with_commas(c.cost, 2),
                     with_commas(c.spot_cost, 2), with_commas(c.on_demand_cost, 2));
  out += fmt::format(
      "                per finished job {} · per useful GPU-hour {} (spot {}, on-demand {})\n",
      with_commas(c.per_finished_job, 2), with_commas(c.per_useful_gpu_hour, 3),
      with_commas(c.spot_per_useful_gpu_hour, 3), with_commas(c.on_demand_per_useful_gpu_hour, 3));
  out += fmt::format("  Useful GPU-hours on spot {} · on-demand {}\n",
                     with_commas(c.useful_spot_gpu_hours, 1),
                     with_commas(c.useful_gpu_hours - c.useful_spot_gpu_hours, 1));
  return out;
}

}  // namespace

std::string text_report(const ScenarioSpec& scenario, const RunSummary& s,
                        const std::vector<QueueSummary>& queues, const std::string& results_path,
                        const ReliabilitySummary* reliability, const CostSummary* cost,
                        const std::vector<ServiceReport>* services) {
  const bool admission = scenario.policy.admission.enabled();
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
  for (const NodePoolSpec& p : scenario.autoscaling.pools)
    out += fmt::format("Node pool  {} · {} · {}–{} × {} · {:g} per node-hour\n", p.name,
                       to_string(p.capacity), p.min_nodes, p.max_nodes,
                       topo.classes.at(static_cast<size_t>(p.node_class)).name, p.price_per_hour);
  out += fmt::format("Simulated  {} → {} ({}), {} events\n\n", format_rfc3339(s.start),
                     format_rfc3339(s.end), format_duration(s.end - s.start),
                     with_commas(static_cast<int64_t>(s.events)));

  out += fmt::format("  {:<12}{:>10}{:>10}{:>10}{:>10}", "Jobs", "total", "finished", "running",
                     "queued");
  out += admission ? fmt::format("{:>10}\n", "inactive") : "\n";
  out += fmt::format("  {:<12}{:>10}{:>10}{:>10}{:>10}", "", with_commas(s.jobs_total),
                     with_commas(s.jobs_finished), with_commas(s.jobs_running_at_end),
                     with_commas(s.jobs_queued_at_end));
  out += admission ? fmt::format("{:>10}\n\n", with_commas(s.jobs_inactive_at_end)) : "\n\n";

  out += fmt::format("  {:<12}{:>10}{:>10}{:>10}{:>10}{:>10}{:>10}\n", "Time", "jobs", "mean",
                     "p50", "p95", "p99", "max");
  out += distribution_row("wait", s.wait_s);
  out += distribution_row("completion", s.jct_s);
  out += "\n";
  if (scenario.autoscaling.pools.empty()) {
    out += fmt::format("  GPU allocated {:>8}   busy {:>8}   of {} GPUs\n",
                       percent(s.gpu_allocation_ratio), percent(s.gpu_busy_ratio),
                       with_commas(s.total_gpus));
  } else {
    out += fmt::format("  GPU allocated {:>8}   busy {:>8}   of {} GPUs on average (peak {})\n",
                       percent(s.gpu_allocation_ratio), percent(s.gpu_busy_ratio),
                       with_commas(s.mean_gpus, 1), with_commas(s.total_gpus));
  }
  if (s.jobs_queued_at_end > 0)
    out += fmt::format("  {} job(s) still queued at the end of the run\n",
                       with_commas(s.jobs_queued_at_end));
  if (admission) out += "\n" + queue_tables(queues);
  if (reliability != nullptr) out += "\n" + reliability_tables(*reliability);
  if (cost != nullptr) out += "\n" + cost_tables(*cost);
  if (services != nullptr && !services->empty()) out += "\n" + services_table(*services);
  out += fmt::format("\n  fingerprint {:016x}\n", s.fingerprint);
  if (!results_path.empty()) out += fmt::format("  results     {}\n", results_path);
  return out;
}

}  // namespace gantry::cli
