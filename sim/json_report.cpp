#include "sim/json_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <climits>
#include <optional>

#include "sim/serving/service_json.hpp"

namespace gantry {

namespace {
nlohmann::ordered_json distribution(const DistributionFigures& d) {
  return {{"count", d.count}, {"mean", d.mean}, {"p50", d.p50},
          {"p95", d.p95},     {"p99", d.p99},   {"max", d.max}};
}

nlohmann::ordered_json instant(const std::optional<Time>& t) {
  if (!t) return nullptr;
  return format_rfc3339(*t);
}

nlohmann::ordered_json text_or_null(const std::string& s) {
  if (s.empty()) return nullptr;
  return s;
}

nlohmann::ordered_json queue_json(const QueueSummary& q) {
  const bool waited = q.admission_wait_s.count > 0;
  return {{"name", q.name},
          {"cohort", text_or_null(q.cohort)},
          {"jobs", q.jobs},
          {"admitted", q.admitted},
          {"wait_p50_s", waited ? nlohmann::ordered_json(q.admission_wait_s.p50) : nullptr},
          {"wait_p95_s", waited ? nlohmann::ordered_json(q.admission_wait_s.p95) : nullptr},
          {"gpu_hours_used", q.gpu_hours_used},
          {"gpu_hours_borrowed", q.gpu_hours_borrowed},
          {"gpu_hours_lent", q.gpu_hours_lent},
          {"preemptions_suffered", q.preemptions_suffered},
          {"preemptions_caused", q.preemptions_caused},
          {"lost_gpu_hours", q.lost_gpu_hours}};
}
}  // namespace

nlohmann::ordered_json json_report(const ScenarioSpec& scenario, const RunSummary& s,
                                   const std::vector<QueueSummary>& queues,
                                   const std::string& results_path,
                                   const ReliabilitySummary* reliability, const CostSummary* cost,
                                   const std::vector<ServiceReport>* services) {
  const bool admission = scenario.policy.admission.enabled();
  nlohmann::ordered_json j;
  j["scenario"] = scenario.name;
  j["seed"] = scenario.seed;
  j["policy"] = {
      {"placement", scenario.policy.placement},
      {"queue", scenario.policy.order == QueueOrder::kFifo ? "Fifo" : "Priority"},
      {"queueing",
       scenario.policy.queueing == Queueing::kStrictFifo ? "StrictFIFO" : "BestEffortFIFO"}};
  j["cluster"] = {{"nodes", scenario.topology.nodes.size()}, {"gpus", s.total_gpus}};
  if (!scenario.autoscaling.pools.empty()) j["cluster"]["mean_gpus"] = s.mean_gpus;
  j["start"] = format_rfc3339(s.start);
  j["end"] = format_rfc3339(s.end);
  j["events"] = s.events;
  j["jobs"] = {{"total", s.jobs_total},
               {"finished", s.jobs_finished},
               {"running_at_end", s.jobs_running_at_end},
               {"queued_at_end", s.jobs_queued_at_end}};
  if (admission) j["jobs"]["inactive_at_end"] = s.jobs_inactive_at_end;
  j["wait_s"] = distribution(s.wait_s);
  j["jct_s"] = distribution(s.jct_s);
  j["gpu"] = {{"allocation_ratio", s.gpu_allocation_ratio}, {"busy_ratio", s.gpu_busy_ratio}};
  if (admission) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const QueueSummary& q : queues) rows.push_back(queue_json(q));
    j["queues"] = std::move(rows);
  }
  if (reliability != nullptr) {
    const ReliabilitySummary& r = *reliability;
    nlohmann::ordered_json sizes = nlohmann::ordered_json::array();
    for (const SizeClassReliability& c : r.by_size)
      sizes.push_back(
          {{"min_gpus", c.min_gpus},
           {"max_gpus",
            c.max_gpus == INT_MAX ? nlohmann::ordered_json() : nlohmann::ordered_json(c.max_gpus)},
           {"jobs", c.jobs},
           {"running_hours", c.running_hours},
           {"failures", c.failures},
           {"mtbf_hours", c.failures > 0 ? nlohmann::ordered_json(c.mtbf_hours) : nullptr}});
    j["reliability"] = {{"fault_events", r.fault_events},
                        {"job_kills", r.jobs_killed},
                        {"evictions", r.jobs_evicted},
                        {"gpu_hours",
                         {{"allocated", r.allocated_gpu_hours},
                          {"useful", r.useful_gpu_hours},
                          {"lost", r.lost_gpu_hours}}},
                        {"goodput", r.goodput},
                        {"restarts_per_job", r.restarts_per_job},
                        {"max_restarts", r.max_restarts},
                        {"by_size", std::move(sizes)}};
  }
  if (cost != nullptr) {
    nlohmann::ordered_json pools = nlohmann::ordered_json::array();
    for (const PoolLog& p : cost->pools)
      pools.push_back({{"name", p.name},
                       {"capacity", p.spot ? "spot" : "on-demand"},
                       {"price_per_hour", p.price_per_hour},
                       {"nodes_added", p.nodes_added},
                       {"nodes_removed", p.nodes_removed},
                       {"peak_nodes", p.peak_nodes},
                       {"reclaims", p.reclaims},
                       {"node_hours", p.node_hours},
                       {"cost", p.cost}});
    j["cost"] = {{"total", cost->cost},
                 {"spot", cost->spot_cost},
                 {"on_demand", cost->on_demand_cost},
                 {"per_finished_job", cost->per_finished_job},
                 {"per_useful_gpu_hour", cost->per_useful_gpu_hour},
                 {"spot_per_useful_gpu_hour", cost->spot_per_useful_gpu_hour},
                 {"on_demand_per_useful_gpu_hour", cost->on_demand_per_useful_gpu_hour},
                 {"pools", std::move(pools)}};
  }
  j["fingerprint"] = fmt::format("{:016x}", s.fingerprint);
  j["results"] = results_path;
  if (services != nullptr && !services->empty()) j["services"] = services_json(*services);
  return j;
}

nlohmann::ordered_json json_jobs(const SimulationLog& log) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const JobLog& job : log.jobs) {
    assert(job.spec != nullptr);
    const JobSpec& spec = *job.spec;
    if (spec.serving_replica) continue;  // in "services", not a job
    nlohmann::ordered_json evictions = nlohmann::ordered_json::array();
    for (const EvictionRecord& e : job.evicted) {
      assert(e.by < static_cast<JobId>(log.jobs.size()));
      evictions.push_back(
          {{"at", format_rfc3339(e.at)},
           {"reason", e.reason},
           {"by", e.by >= 0 ? nlohmann::ordered_json(log.jobs[static_cast<size_t>(e.by)].spec->name)
                            : nullptr}});
    }
    out.push_back({{"name", spec.name},
                   {"queue", text_or_null(spec.queue)},
                   {"priority", spec.priority},
                   {"submit", format_rfc3339(spec.submit)},
                   {"admitted", instant(job.admitted)},
                   {"start", instant(job.running)},
                   {"end", instant(job.finished)},
                   {"state", to_string(job.state)},
                   {"replicas", job.replicas},
                   {"evictions", std::move(evictions)}});
  }
  return out;
}

RunFigures run_figures(const ScenarioSpec& scenario, const SimulationRun& run) {
  RunFigures f;
  const bool interrupted = std::any_of(run.log.jobs.begin(), run.log.jobs.end(),
                                       [](const JobLog& j) { return j.failures > 0; });
  if (!scenario.failures.empty() || !scenario.injected_faults.empty() || !run.log.faults.empty() ||
      interrupted)
    f.reliability = summarize_reliability(run.log);
  if (!run.log.pools.empty()) f.cost = summarize_cost(run.log);
  return f;
}

nlohmann::ordered_json run_json_report(const ScenarioSpec& scenario, const SimulationRun& run,
                                       const RunSummary& summary,
                                       const std::vector<QueueSummary>& queues,
                                       const std::string& results_path) {
  const RunFigures f = run_figures(scenario, run);
  return json_report(scenario, summary, queues, results_path,
                     f.reliability ? &*f.reliability : nullptr, f.cost ? &*f.cost : nullptr,
                     &run.services);
}

}  // namespace gantry
