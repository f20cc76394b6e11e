#include "sim/results_export.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/cost_summary.hpp"
#include "sim/reliability_summary.hpp"
#include "sim/results_stream.hpp"
#include "sim/results_writer.hpp"

namespace gantry {

namespace {

std::string gpu_ranges(uint64_t mask) {
  std::string out;
  for (int i = 0; i < 64;) {
    if (!(mask >> i & 1)) {
      ++i;
      continue;
    }
    int j = i;
    while (j + 1 < 64 && (mask >> (j + 1) & 1)) ++j;
    if (!out.empty()) out += ' ';
    out += i == j ? fmt::format("{}", i) : fmt::format("{}-{}", i, j);
    i = j + 1;
  }
  return out;
}

const char* queue_name(QueueOrder o) { return o == QueueOrder::kFifo ? "Fifo" : "Priority"; }
const char* queueing_name(Queueing q) {
  return q == Queueing::kStrictFifo ? "StrictFIFO" : "BestEffortFIFO";
}

}  // namespace

std::string describe_placement(const Topology& topology, const std::vector<PodPlacement>& pods) {
  // Merge the pods of each node, keeping the order in which nodes first appear.
  std::vector<std::pair<NodeId, uint64_t>> nodes;
  for (const PodPlacement& p : pods) {
    auto it =
        std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.first == p.node; });
    if (it == nodes.end()) {
      nodes.emplace_back(p.node, p.gpu_mask);
    } else {
      it->second |= p.gpu_mask;
    }
  }
  std::string out;
  for (const auto& [node, mask] : nodes) {
    if (!out.empty()) out += ',';
    out += topology.nodes[static_cast<size_t>(node)].name;
    if (mask != 0) out += ":" + gpu_ranges(mask);
  }
  return out;
}

void write_results_database(const std::string& path, const ScenarioSpec& scenario,
                            const SimulationRun& run, const RunSummary& summary,
                            const std::vector<QueueSummary>& queues) {
  ResultsWriter w(path);
  write_results_database(w, scenario, run, summary, queues);
}

std::vector<std::string> gpu_type_names(const Topology& topology) {
  std::vector<std::string> names;
  for (const GpuType& t : topology.gpus.types()) names.push_back(t.name);
  return names;
}

void write_results_database(ResultsWriter& w, const ScenarioSpec& scenario,
                            const SimulationRun& run, const RunSummary& summary,
                            const std::vector<QueueSummary>& queues) {
  const Topology& topo = run.cluster->topology();
  w.write_meta("scenario", scenario.name);
  w.write_meta("seed", std::to_string(scenario.seed));
  w.write_meta("placement", scenario.policy.placement);
  w.write_meta("queue", queue_name(scenario.policy.order));
  w.write_meta("queueing", queueing_name(scenario.policy.queueing));
  w.write_meta("start", format_rfc3339(run.start));
  w.write_meta("end", format_rfc3339(run.end));
  w.write_meta("fingerprint", fmt::format("{:016x}", summary.fingerprint));

  for (const JobLog& job : run.log.jobs) {
    const JobSpec& spec = *job.spec;
    if (spec.serving_replica) continue;  // services have tables of their own
    JobRecord r;
    r.id = job.id;
    r.name = spec.name;
    r.tenant = spec.tenant;
    r.priority = spec.priority;
    r.gpus = spec.total_gpus();
    r.pods = spec.total_pods();
    r.submit = spec.submit;
    r.start = job.running;
    r.end = job.finished;
    if (!job.pods.empty()) {
      std::vector<NodeId> distinct;
      for (const PodPlacement& p : job.pods) distinct.push_back(p.node);
      std::sort(distinct.begin(), distinct.end());
      r.nodes = static_cast<int>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
      r.placement = describe_placement(topo, job.pods);
    }
    if (job.running) {
      r.step_time_s = job.step.total.seconds();
      r.bottleneck = job.step.bottleneck;
    }
    r.state = to_string(job.state);
    if (!spec.queue.empty()) r.queue = spec.queue;
    r.admitted = job.admitted;
    r.replicas = job.replicas;
    r.lost_gpu_seconds = job.lost_gpu_seconds;
    r.failures = job.failures;
    r.resizes = job.resizes;
    r.allocated_gpu_seconds = job.allocated_gpu_seconds;
    r.useful_gpu_seconds = job.useful_gpu_seconds;
    w.add_job(r);
  }
  for (const FaultRecord& f : run.log.faults) {
    FaultRow row;
    row.at = f.at;
    row.action = to_string(f.action);
    if (f.node >= 0 && f.node < run.cluster->node_count())
      row.node = run.cluster->node_info(f.node).name;
    if (f.rack >= 0 && static_cast<size_t>(f.rack) < topo.racks.size())
      row.rack = topo.racks[static_cast<size_t>(f.rack)];
    if (f.gpu >= 0) row.gpu = f.gpu;
    row.cause = f.cause;
    row.jobs = f.jobs;
    w.add_fault(row);
  }
  for (const PoolLog& p : run.log.pools)
    w.add_pool({p.name, p.spot ? "spot" : "on-demand", p.price_per_hour, p.nodes_added,
                p.nodes_removed, p.peak_nodes, p.reclaims, p.node_hours, p.cost});
  for (const ServiceReport& s : run.services) w.add_service(s);
  for (const JobLog& job : run.log.jobs)
    for (const EvictionRecord& e : job.evicted)
      w.add_eviction(
          {job.id, e.at, e.reason, e.by >= 0 ? std::optional<JobId>(e.by) : std::nullopt});
  for (const QueueSummary& q : queues) {
    const bool waited = q.admission_wait_s.count > 0;
    w.add_queue(
        {.name = q.name,
         .cohort = q.cohort.empty() ? std::nullopt : std::optional<std::string>(q.cohort),
         .jobs = q.jobs,
         .admitted = q.admitted,
         .wait_p50_s = waited ? std::optional<double>(q.admission_wait_s.p50) : std::nullopt,
         .wait_p95_s = waited ? std::optional<double>(q.admission_wait_s.p95) : std::nullopt,
         .gpu_hours_used = q.gpu_hours_used,
         .gpu_hours_borrowed = q.gpu_hours_borrowed,
         .gpu_hours_lent = q.gpu_hours_lent,
         .preemptions_suffered = q.preemptions_suffered,
         .preemptions_caused = q.preemptions_caused,
         .lost_gpu_hours = q.lost_gpu_hours});
  }
  // Empty when they were streamed (ResultsStream): then they are in the database already.
  const std::vector<std::string> gpu_types = gpu_type_names(topo);
  for (const SeriesPoint& p : run.log.series) w.add_series(series_record(p, gpu_types));
  for (const SimEvent& e : run.log.events) w.add_event(event_record(e));

  w.write_summary("jobs_total", static_cast<double>(summary.jobs_total));
  w.write_summary("jobs_finished", static_cast<double>(summary.jobs_finished));
  w.write_summary("jobs_running_at_end", static_cast<double>(summary.jobs_running_at_end));
  w.write_summary("jobs_queued_at_end", static_cast<double>(summary.jobs_queued_at_end));
  if (scenario.policy.admission.enabled())
    w.write_summary("jobs_inactive_at_end", static_cast<double>(summary.jobs_inactive_at_end));
  const auto distribution = [&w](const std::string& name, const DistributionFigures& d) {
    w.write_summary(name + "_mean", d.mean);
    w.write_summary(name + "_p50", d.p50);
    w.write_summary(name + "_p95", d.p95);
    w.write_summary(name + "_p99", d.p99);
    w.write_summary(name + "_max", d.max);
  };
  distribution("wait_s", summary.wait_s);
  distribution("jct_s", summary.jct_s);
  w.write_summary("gpu_allocation_ratio", summary.gpu_allocation_ratio);
  w.write_summary("gpu_busy_ratio", summary.gpu_busy_ratio);
  if (!run.log.faults.empty() || !run.log.pools.empty()) {
    const ReliabilitySummary r = summarize_reliability(run.log);
    w.write_summary("goodput", r.goodput);
    w.write_summary("lost_gpu_hours", r.lost_gpu_hours);
    w.write_summary("restarts_per_job", r.restarts_per_job);
  }
  if (!run.log.pools.empty()) {
    const CostSummary c = summarize_cost(run.log);
    w.write_summary("cost", c.cost);
    w.write_summary("cost_per_finished_job", c.per_finished_job);
    w.write_summary("cost_per_useful_gpu_hour", c.per_useful_gpu_hour);
  }
  w.finish();
}

}  // namespace gantry
