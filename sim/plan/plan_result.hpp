#pragma once
// A whole plan's answer (every forecast step) and its JSON, the one form the CLI prints with
// --format json and the server returns:
//
//   {"plan", "base", "confidence",
//    "slo": [{"metric", "limit", "atMost", "fromService"}],
//    "steps": [{"growth",
//               "answer": {"pools": {class: nodes}, "costPerHour",
//                          "metrics": {name: {"mean", "ci95", "n", "pessimistic", "limit",
//                                             "holds"}}} | null,
//               "largest": same shape (every pool at max),
//               "unmet": [{"metric", "limit", "mean", "pessimistic", "by"}]  (no answer only),
//               "neighbours": [{"pool", ... same shape as answer}],
//               "frontier": [{"pools", "costPerHour", "waitP95", "feasible"}],
//               "simulations", "configurations"}],
//    "simulations", "fullGrid": {"configurations", "simulations"}}
// Metrics are in their units (seconds, ratios); a value without meaning (one seed's interval,
// a wait where nothing started) is null.

#include <nlohmann/json.hpp>
#include <vector>

#include "sim/plan/plan_search.hpp"

namespace gantry {

struct PlanResult {
  std::vector<PlanStepResult> steps;
  size_t simulations = 0;
  double full_grid_configurations = 0;
  double full_grid_simulations = 0;  // configurations × initial seeds × steps
};

// `slos` are PlanVariants::slos(); `metrics` the evaluators' measured metrics.
nlohmann::ordered_json plan_json(const PlanSpec& plan, const std::vector<PlanSlo>& slos,
                                 const std::vector<std::string>& metrics, const PlanResult& result);

}  // namespace gantry
