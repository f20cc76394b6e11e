#pragma once
// A whole plan: every forecast step searched (sim/plan/plan_search.hpp), each with its own
// evaluator, in the order of spec.forecast.growth.

#include <functional>
#include <memory>
#include <vector>

#include "sim/plan/plan_evaluator.hpp"
#include "sim/plan/plan_result.hpp"
#include "sim/plan/plan_variant.hpp"

namespace gantry {

struct PlanRun {
  std::vector<std::unique_ptr<PlanEvaluator>> evaluators;  // own the evaluations of `result`
  PlanResult result;
};

// `step_done(i)` is called after step i, for progress. `runner` runs each batch of
// simulations (local_plan_runner(threads) for the first form); it learns the step from the
// batch's growth.
PlanRun run_plan(const PlanSpec& plan, const PlanVariants& variants, const PlanBatchRunner& runner,
                 const std::function<void(size_t step)>& step_done = {});
PlanRun run_plan(const PlanSpec& plan, const PlanVariants& variants, unsigned threads,
                 const std::function<void(size_t step)>& step_done = {});

}  // namespace gantry
