#pragma once
// Simulates configurations of a plan (pool sizes, at one forecast step) and judges their SLOs:
// each configuration runs seeds base, base + 1, ... (the same seeds for every configuration,
// so that two sizes are compared on the same arrivals and failures), and an SLO holds when the
// pessimistic end of its confidence interval (at the plan's confidence) is within the limit:
// mean + h <= limit for an upper limit, mean − h >= limit for a lower one.
//
// Seeds are added only where they can change the answer: a configuration whose interval
// straddles a limit (the limit lies inside [mean − h, mean + h]) is run again with twice the
// seeds, up to maxSeeds; past that, the pessimistic end decides. A configuration that is no
// valid scenario (no node left) meets no SLO, without simulation.
//
// Every configuration is simulated once and remembered. evaluate() hands all the runs a batch
// needs (one round of seeds of its configurations) to a PlanBatchRunner at once: the local
// one runs them on every core (engine/core/parallel_runs.hpp), so results do not depend on
// threads; `gantry plan --on kubernetes` runs each batch as one distributed sweep
// (tools/gantry/plan_on_kubernetes.hpp). Either way a run is its configuration's scenario with
// the seed given, and the figures are the same.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/plan/plan_spec.hpp"
#include "sim/plan/plan_variant.hpp"
#include "sim/sweep/sweep_stats.hpp"

namespace gantry {

struct SloCheck {
  MetricStats stats;
  double pessimistic = 0;  // mean ± half-width at the plan's confidence, the unfavourable side
  bool holds = false;
  bool decided = true;  // false: the interval straddles the limit
};

struct PlanEvaluation {
  std::vector<int64_t> sizes;
  double cost_per_hour = 0;
  bool valid = true;                        // false: not a scenario (nothing simulated)
  std::string invalid_why;                  // why not
  std::vector<std::vector<double>> values;  // per measured metric, one value per seed run
  std::vector<MetricStats> stats;           // per measured metric
  std::vector<SloCheck> slos;               // per SLO
  int seeds = 0;
  bool feasible = false;  // every SLO holds
};

// One simulation of a batch: the scenario of pool sizes `sizes` (at the batch's growth) with
// spec.seed `seed` (the scenario's own seed + the seed index).
struct PlanBatchRun {
  std::vector<int64_t> sizes;
  uint64_t seed = 0;
};

struct PlanBatch {
  double growth = 1;
  const std::vector<std::string>* metrics = nullptr;  // sim/sweep/sweep_metrics.hpp names
  // Each configuration's scenario (PlanVariants::scenario at `growth`, its seed the base's).
  const std::map<std::vector<int64_t>, ScenarioSpec>* scenarios = nullptr;
  std::vector<PlanBatchRun> runs;  // configurations in ascending order, seeds ascending
  size_t round = 0;                // 1, 2, ...: the batches one evaluator has run so far
};

// Runs every run of a batch; returns per run (in order) the value of each metric (NaN: none).
// Throws what a run throws (or why the batch could not run).
using PlanBatchRunner = std::function<std::vector<std::vector<double>>(const PlanBatch&)>;

// The runs on `threads` threads of this machine (engine/core/parallel_runs.hpp).
PlanBatchRunner local_plan_runner(unsigned threads);

class PlanEvaluator {
 public:
  PlanEvaluator(const PlanSpec& plan, const PlanVariants& variants, double growth,
                PlanBatchRunner runner);

  // Simulates (as above) each of `configs` not yet judged. Throws what a run throws.
  void evaluate(const std::vector<std::vector<int64_t>>& configs);
  const PlanEvaluation& at(const std::vector<int64_t>& sizes) const;  // after evaluate()
  bool feasible(const std::vector<int64_t>& sizes) const { return at(sizes).feasible; }

  // The metrics measured: the SLOs' and wait.p95 (the frontier's), without repeats.
  const std::vector<std::string>& metrics() const { return metrics_; }
  // Index into metrics() of SLO i.
  size_t slo_metric(size_t i) const { return slo_metric_[i]; }
  // Every configuration judged, cheapest first.
  std::vector<const PlanEvaluation*> all() const;
  size_t simulations() const { return simulations_; }

 private:
  void judge(PlanEvaluation& e) const;

  const PlanSpec* plan_;
  const PlanVariants* variants_;
  double growth_;
  PlanBatchRunner runner_;
  size_t rounds_ = 0;
  std::vector<std::string> metrics_;
  std::vector<size_t> slo_metric_;
  std::map<std::vector<int64_t>, PlanEvaluation> judged_;
  size_t simulations_ = 0;
};

}  // namespace gantry
