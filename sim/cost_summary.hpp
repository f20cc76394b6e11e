#pragma once
// What the node pools cost over a simulation run (spec.autoscaling; sim/node_pools.hpp), as
// `gantry simulate` prints it (text and JSON reports):
//   per pool               nodes added and removed, peak, reclaims, node-hours, cost
//   cost                   over every pool, and split into spot and on-demand pools
//   per finished job       cost / jobs finished (0 when none finished)
//   per useful GPU-hour    cost / useful GPU-hours (JobLog::useful_gpu_seconds), overall, and
//                          for spot and on-demand each: that capacity's cost over the useful
//                          GPU-hours run on it (JobLog::useful_spot_gpu_seconds and the rest)
// Capacity outside the pools (the scenario's own nodes) has no price: its useful GPU-hours
// count in the overall figure's denominator, so a scenario about cost puts all of its capacity
// in pools.

#include <cstdint>
#include <vector>

#include "sim/simulation_log.hpp"

namespace gantry {

struct CostSummary {
  std::vector<PoolLog> pools;
  double cost = 0, spot_cost = 0, on_demand_cost = 0;
  double node_hours = 0, spot_node_hours = 0, on_demand_node_hours = 0;
  int64_t jobs_finished = 0;
  double useful_gpu_hours = 0, useful_spot_gpu_hours = 0;
  double per_finished_job = 0;
  double per_useful_gpu_hour = 0;
  double spot_per_useful_gpu_hour = 0;       // 0 when nothing useful ran on spot
  double on_demand_per_useful_gpu_hour = 0;  // 0 when nothing useful ran on on-demand
};

// Empty pools (no spec.autoscaling) give an empty summary.
CostSummary summarize_cost(const SimulationLog& log);

}  // namespace gantry
