#pragma once
// Reading `kind: Plan` files into a PlanSpec:
//
//   apiVersion: gantry.dev/v1
//   kind: Plan
//   metadata: {name: next-year}
//   spec:
//     base: my-cluster.yaml                  # a Scenario declaring the node classes
//     forecast: {growth: [1.0, 1.2, 1.5]}    # arrival-rate multipliers; default [1.0]
//     pools:                                 # 1 to 3 node classes the plan sizes
//     - {class: hgx-h100, min: 512, max: 4096, pricePerNodeHour: 98, nodesPerRack: 32}
//     slo: {wait.p95: 1h, goodput: 0.9}      # metric: limit (sim/sweep/sweep_metrics.hpp);
//                                            # optional when the base's services have SLOs
//     confidence: 0.95                       # default 0.95; from 0.5 to 0.999
//     seeds: 3                               # per configuration at first; default 3, >= 2
//     maxSeeds: 12                           # where an interval straddles a limit; default 12
//     minimize: cost                         # the one objective so far
//
// Limits are written in the metric's unit: a duration for wait.* and jct.* and service.*.p99,
// a ratio from 0 to 1 (or a percentage, "90%") for gpu.*, goodput and sloAttainment, a number
// otherwise. Pools: min >= 0, max >= min, at most 100,000 nodes, a price above 0, each class
// once. Whether the classes exist in the base is sim/plan/plan_variant.hpp's check.
//
// Errors: every problem collected and thrown as InputErrors ("file:line:col: field: message").

#include <string>

#include "sim/plan/plan_spec.hpp"

namespace gantry {

inline constexpr size_t kMaxPlanPools = 3;
inline constexpr int64_t kMaxPlanNodes = 100000;

PlanSpec load_plan_text(const std::string& text, const std::string& file_name);
PlanSpec load_plan_file(const std::string& path);

}  // namespace gantry
