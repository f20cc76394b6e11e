#include "sim/plan/plan_result.hpp"

#include <cmath>

namespace gantry {

namespace {

nlohmann::ordered_json number(double x) {
  if (!std::isfinite(x)) return nullptr;
  return x;
}

nlohmann::ordered_json pools_json(const PlanSpec& plan, const std::vector<int64_t>& sizes) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (size_t i = 0; i < sizes.size(); ++i) out[plan.pools[i].node_class] = sizes[i];
  return out;
}

nlohmann::ordered_json configuration_json(const PlanSpec& plan, const std::vector<PlanSlo>& slos,
                                          const std::vector<std::string>& metrics,
                                          const PlanEvaluation& e) {
  nlohmann::ordered_json m = nlohmann::ordered_json::object();
  for (size_t k = 0; k < metrics.size() && e.valid; ++k)
    m[metrics[k]] = {
        {"mean", number(e.stats[k].mean)}, {"ci95", number(e.stats[k].ci95)}, {"n", e.stats[k].n}};
  for (size_t i = 0; i < slos.size() && e.valid; ++i) {
    auto& entry = m[slos[i].metric];
    entry["pessimistic"] = number(e.slos[i].pessimistic);
    entry["limit"] = slos[i].limit;
    entry["holds"] = e.slos[i].holds;
  }
  nlohmann::ordered_json out = {{"pools", pools_json(plan, e.sizes)},
                                {"costPerHour", e.cost_per_hour},
                                {"seeds", e.seeds},
                                {"feasible", e.feasible},
                                {"metrics", m}};
  if (!e.valid) out["invalid"] = e.invalid_why;
  return out;
}

}  // namespace

nlohmann::ordered_json plan_json(const PlanSpec& plan, const std::vector<PlanSlo>& slos,
                                 const std::vector<std::string>& metrics,
                                 const PlanResult& result) {
  nlohmann::ordered_json slo = nlohmann::ordered_json::array();
  for (const PlanSlo& s : slos)
    slo.push_back({{"metric", s.metric},
                   {"limit", s.limit},
                   {"atMost", s.at_most},
                   {"fromService", s.from_service}});
  const size_t wait =
      static_cast<size_t>(std::find(metrics.begin(), metrics.end(), "wait.p95") - metrics.begin());
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const PlanStepResult& step : result.steps) {
    nlohmann::ordered_json s = {{"growth", step.growth}};
    s["answer"] = step.answer ? configuration_json(plan, slos, metrics, *step.answer) : nullptr;
    s["largest"] = configuration_json(plan, slos, metrics, *step.largest);
    if (!step.answer) {
      nlohmann::ordered_json unmet = nlohmann::ordered_json::array();
      for (size_t i = 0; i < slos.size(); ++i) {
        const SloCheck& c = step.largest->slos[i];
        if (c.holds) continue;
        const double by =
            slos[i].at_most ? c.pessimistic - slos[i].limit : slos[i].limit - c.pessimistic;
        unmet.push_back({{"metric", slos[i].metric},
                         {"limit", slos[i].limit},
                         {"mean", number(c.stats.mean)},
                         {"pessimistic", number(c.pessimistic)},
                         {"by", number(by)}});
      }
      s["unmet"] = unmet;
    }
    nlohmann::ordered_json neighbours = nlohmann::ordered_json::array();
    for (const PlanNeighbour& n : step.neighbours) {
      nlohmann::ordered_json j = configuration_json(plan, slos, metrics, *n.evaluation);
      j["pool"] = plan.pools[n.pool].node_class;
      neighbours.push_back(j);
    }
    s["neighbours"] = neighbours;
    nlohmann::ordered_json frontier = nlohmann::ordered_json::array();
    for (const PlanEvaluation* e : step.frontier)
      frontier.push_back({{"pools", pools_json(plan, e->sizes)},
                          {"costPerHour", e->cost_per_hour},
                          {"waitP95", number(e->stats[wait].mean)},
                          {"feasible", e->feasible}});
    s["frontier"] = frontier;
    s["simulations"] = step.simulations;
    s["configurations"] = step.configurations;
    steps.push_back(s);
  }
  return {{"plan", plan.name},
          {"base", plan.base},
          {"confidence", plan.confidence},
          {"slo", slo},
          {"steps", steps},
          {"simulations", result.simulations},
          {"fullGrid",
           {{"configurations", result.full_grid_configurations},
            {"simulations", result.full_grid_simulations}}}};
}

}  // namespace gantry
