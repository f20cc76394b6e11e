#include "sim/plan/plan_evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/config/config_errors.hpp"
#include "engine/core/parallel_runs.hpp"
#include "sim/simulation.hpp"
#include "sim/sweep/sweep_metrics.hpp"

namespace gantry {

PlanBatchRunner local_plan_runner(unsigned threads) {
  return [threads](const PlanBatch& batch) {
    std::vector<std::vector<double>> results(batch.runs.size());
    run_in_order(batch.runs.size(), threads, [&](size_t i, std::stop_token) {
      ScenarioSpec s = batch.scenarios->at(batch.runs[i].sizes);
      s.seed = batch.runs[i].seed;
      results[i] = measure_run(run_simulation(s), *batch.metrics);
    });
    return results;
  };
}

PlanEvaluator::PlanEvaluator(const PlanSpec& plan, const PlanVariants& variants, double growth,
                             PlanBatchRunner runner)
    : plan_(&plan), variants_(&variants), growth_(growth), runner_(std::move(runner)) {
  const auto index_of = [this](const std::string& m) {
    const auto it = std::find(metrics_.begin(), metrics_.end(), m);
    if (it != metrics_.end()) return static_cast<size_t>(it - metrics_.begin());
    metrics_.push_back(m);
    return metrics_.size() - 1;
  };
  for (const PlanSlo& s : variants.slos()) slo_metric_.push_back(index_of(s.metric));
  index_of("wait.p95");
}

void PlanEvaluator::judge(PlanEvaluation& e) const {
  e.stats.clear();
  for (const std::vector<double>& v : e.values) e.stats.push_back(metric_stats(v));
  e.slos.clear();
  e.feasible = e.valid;
  for (size_t i = 0; i < variants_->slos().size(); ++i) {
    const PlanSlo& slo = variants_->slos()[i];
    SloCheck c{.stats = e.valid ? e.stats[slo_metric_[i]] : MetricStats{}};
    if (!e.valid || std::isnan(c.stats.mean)) {
      c.holds = false;
      c.pessimistic = std::numeric_limits<double>::quiet_NaN();
    } else {
      const double h = half_width(c.stats, plan_->confidence);
      c.pessimistic = slo.at_most ? c.stats.mean + h : c.stats.mean - h;
      const double optimistic = slo.at_most ? c.stats.mean - h : c.stats.mean + h;
      c.holds = slo.at_most ? c.pessimistic <= slo.limit : c.pessimistic >= slo.limit;
      const bool could_hold = slo.at_most ? optimistic <= slo.limit : optimistic >= slo.limit;
      c.decided = c.holds || !could_hold;
    }
    e.feasible = e.feasible && c.holds;
    e.slos.push_back(c);
  }
}

void PlanEvaluator::evaluate(const std::vector<std::vector<int64_t>>& configs) {
  // New configurations: their scenarios (built here, on this thread: yaml-cpp is not
  // thread-safe), or why they are none.
  std::map<std::vector<int64_t>, ScenarioSpec> scenarios;
  for (const std::vector<int64_t>& sizes : configs) {
    if (judged_.contains(sizes) || scenarios.contains(sizes)) continue;
    PlanEvaluation e{.sizes = sizes, .cost_per_hour = variants_->cost_per_hour(sizes)};
    e.values.assign(metrics_.size(), {});
    try {
      scenarios.emplace(sizes, variants_->scenario(growth_, sizes));
    } catch (const InputError& error) {
      e.valid = false;
      e.invalid_why = error.what();
      judge(e);
    }
    judged_.emplace(sizes, std::move(e));
  }
  // Rounds: every new configuration of the batch up to its target seeds; again with more where
  // an SLO is undecided. A configuration leaves evaluate() decided or at maxSeeds, so one judged
  // in an earlier call never needs more.
  std::map<std::vector<int64_t>, int> target;
  for (const std::vector<int64_t>& sizes : configs)
    if (judged_.at(sizes).valid && judged_.at(sizes).seeds == 0) target[sizes] = plan_->seeds;
  while (!target.empty()) {
    PlanBatch batch{.growth = growth_, .metrics = &metrics_, .scenarios = &scenarios};
    batch.round = ++rounds_;
    for (const auto& [sizes, seeds] : target)
      for (int s = judged_.at(sizes).seeds; s < seeds; ++s)
        batch.runs.push_back(
            {.sizes = sizes, .seed = scenarios.at(sizes).seed + static_cast<uint64_t>(s)});
    const std::vector<std::vector<double>> results = runner_(batch);
    if (results.size() != batch.runs.size())
      throw std::logic_error("PlanEvaluator: the runner answered another number of runs");
    simulations_ += batch.runs.size();
    for (size_t i = 0; i < batch.runs.size(); ++i) {
      PlanEvaluation& e = judged_.at(batch.runs[i].sizes);
      for (size_t m = 0; m < metrics_.size(); ++m) e.values[m].push_back(results[i].at(m));
    }
    std::map<std::vector<int64_t>, int> next;
    for (const auto& [sizes, seeds] : target) {
      PlanEvaluation& e = judged_.at(sizes);
      e.seeds = seeds;
      judge(e);
      if (e.seeds < plan_->max_seeds)
        for (const SloCheck& c : e.slos)
          if (!c.decided) next[sizes] = std::min(plan_->max_seeds, 2 * e.seeds);
    }
    target = std::move(next);
  }
}

const PlanEvaluation& PlanEvaluator::at(const std::vector<int64_t>& sizes) const {
  const auto it = judged_.find(sizes);
  if (it == judged_.end()) throw std::logic_error("PlanEvaluator::at: not evaluated");
  return it->second;
}

std::vector<const PlanEvaluation*> PlanEvaluator::all() const {
  std::vector<const PlanEvaluation*> out;
  for (const auto& [sizes, e] : judged_) out.push_back(&e);
  std::stable_sort(out.begin(), out.end(), [](const PlanEvaluation* a, const PlanEvaluation* b) {
    return a->cost_per_hour < b->cost_per_hour;
  });
  return out;
}

}  // namespace gantry
