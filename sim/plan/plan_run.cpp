#include "sim/plan/plan_run.hpp"

namespace gantry {

PlanRun run_plan(const PlanSpec& plan, const PlanVariants& variants, unsigned threads,
                 const std::function<void(size_t step)>& step_done) {
  return run_plan(plan, variants, local_plan_runner(threads), step_done);
}

PlanRun run_plan(const PlanSpec& plan, const PlanVariants& variants, const PlanBatchRunner& runner,
                 const std::function<void(size_t step)>& step_done) {
  PlanRun out;
  for (size_t i = 0; i < plan.growth.size(); ++i) {
    out.evaluators.push_back(
        std::make_unique<PlanEvaluator>(plan, variants, plan.growth[i], runner));
    out.result.steps.push_back(search_plan_step(plan, *out.evaluators.back(), plan.growth[i]));
    out.result.simulations += out.result.steps.back().simulations;
    if (step_done) step_done(i);
  }
  out.result.full_grid_configurations = full_grid_configurations(plan);
  out.result.full_grid_simulations =
      out.result.full_grid_configurations * plan.seeds * static_cast<double>(plan.growth.size());
  return out;
}

}  // namespace gantry
