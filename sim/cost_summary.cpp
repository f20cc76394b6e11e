#include "sim/cost_summary.hpp"

namespace gantry {

namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

}  // namespace

CostSummary summarize_cost(const SimulationLog& log) {
  CostSummary c;
  c.pools = log.pools;
  for (const PoolLog& p : log.pools) {
    c.cost += p.cost;
    c.node_hours += p.node_hours;
    (p.spot ? c.spot_cost : c.on_demand_cost) += p.cost;
    (p.spot ? c.spot_node_hours : c.on_demand_node_hours) += p.node_hours;
  }
  double useful_s = 0, spot_s = 0;
  for (const JobLog& job : log.jobs) {
    if (job.spec != nullptr && job.spec->serving_replica) continue;  // a service's replica
    useful_s += job.useful_gpu_seconds;
    spot_s += job.useful_spot_gpu_seconds;
    c.jobs_finished += job.state == JobState::kFinished ? 1 : 0;
  }
  c.useful_gpu_hours = useful_s / 3600;
  c.useful_spot_gpu_hours = spot_s / 3600;
  c.per_finished_job = ratio(c.cost, static_cast<double>(c.jobs_finished));
  c.per_useful_gpu_hour = ratio(c.cost, c.useful_gpu_hours);
  c.spot_per_useful_gpu_hour = ratio(c.spot_cost, c.useful_spot_gpu_hours);
  c.on_demand_per_useful_gpu_hour =
      ratio(c.on_demand_cost, c.useful_gpu_hours - c.useful_spot_gpu_hours);
  return c;
}

}  // namespace gantry
