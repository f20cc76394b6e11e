#pragma once
// A `kind: Plan` file (sim/plan/plan_loader.hpp reads it): the question "how many nodes of each
// class do we need, at what cost, for these service levels, as the load grows". Plain data.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/errors.hpp"

namespace gantry {

// One decision: how many nodes of a node class the base declares.
struct PlanPool {
  std::string node_class;
  int64_t min = 0;
  int64_t max = 0;
  double price_per_node_hour = 0;
  int64_t nodes_per_rack = 0;  // 0: the largest rack of this class in the base
  SourceLocation where;
  std::string field;  // spec.pools[i]
};

// One service level: a metric (sim/sweep/sweep_metrics.hpp) held to a limit, at most for
// metrics where lower is better (wait.p95 <= 1h), at least for the others (goodput >= 0.9).
struct PlanSlo {
  std::string metric;
  double limit = 0;  // in the metric's unit: seconds, a ratio, a count, money
  bool at_most = true;
  std::string text;           // as written ("1h", "0.9"), or "from the service spec"
  bool from_service = false;  // added for a service's own SLO (spec.workload.services[].slo)
  SourceLocation where;
  std::string field;
};

struct PlanSpec {
  std::string file;
  std::string name;
  std::string base;  // resolved against the plan file's folder
  std::string base_as_written;
  SourceLocation base_where;
  std::vector<double> growth{1.0};  // arrival-rate multipliers, one answer each
  std::vector<PlanPool> pools;
  std::vector<PlanSlo> slos;
  double confidence = 0.95;
  int seeds = 3;       // per configuration to begin with
  int max_seeds = 12;  // where a confidence interval straddles a limit, up to this many
};

}  // namespace gantry
