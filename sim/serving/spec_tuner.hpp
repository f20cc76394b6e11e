#pragma once
// Spec tuning (`gantry tune`, what Morphling set out to do): the cheapest (GPU model, GPU share,
// max batch, replicas) that holds a p99 latency SLO at a service's peak load, found by a search
// that simulates a fraction of the grid, reported next to the exhaustive answer.
//
// The grid: every capacity entry of the service (a GPU model or a share of one) × max batch in
// {1, 2, 4, ..., the entry's maxBatch} × replicas 1..autoscaler.maxReplicas. A point is judged by
// simulating `measure` of steady load at the peak rate on exactly that many replicas, warm
// (no cold start), with the service's tokens; it holds the SLO when the simulated p99 does.
//
// Batch size trades speed for throughput: a decode step at batch b takes
//   t(b) = t(B) · (f + (1 − f) · b / B),   t(B) = B / tokensPerSecond
// for an entry measured at batch B, with f the share of a step that does not grow with the
// batch (reading the weights; decode is memory-bound at small batches). f = 0.5 by default, an
// assumption (TuneOptions::fixed_step_share). Prefill scales the same way.
//
// The search: successive halving (Jamieson & Talwalkar 2016; Li et al.'s Hyperband) over the
// (entry, batch) arms, with the simulated duration as the budget — measure/4, measure/2,
// measure — keeping the cheaper half each round. Within an arm the replica count is found by
// bisection: more replicas never make a warm steady-state p99 worse, so the cheapest count that
// holds the SLO is a threshold. Bisection starts at the count utilisation alone requires
// (peak × mean service time / batch slots), and an arm whose lower bound already costs more than
// the best answer found is dropped unsimulated. Why not Bayesian optimisation: the replica axis
// is monotone and the batch axis small, so a model of the response surface buys little over
// bisection, and halving spends the long simulations only on the arms still in the race.

#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/service_spec.hpp"
#include "sim/serving/request_source.hpp"

namespace gantry {

// The ranges of a tuning's inputs (`gantry tune`, README "Spec tuning"), so that it ends in
// minutes at the simulator's speed (about 10^7 requests a second on one core): the time each
// grid point simulates, the requests that makes at the peak (peak × measure), and with the
// exhaustive comparison the requests of the whole grid (grid points × peak × measure).
inline constexpr Duration kMinTuneMeasure = seconds(10);
inline constexpr Duration kMaxTuneMeasure = days(1);
inline constexpr double kMaxTuneRequestsPerPoint = 1e8;  // some 10 s of simulation
inline constexpr double kMaxTuneGridRequests = 1e10;     // some 20 minutes

struct TuneOptions {
  Duration slo_p99;     // required (> 0)
  double peak_qps = 0;  // 0: from the load (poisson qps, curve peak, trace's busiest minute)
  Duration measure = minutes(10);
  uint64_t seed = 1;
  double fixed_step_share = 0.5;
  bool exhaustive = true;  // also simulate every grid point at the full budget
};

struct TunePoint {
  std::string key;  // capacity entry: "A10", "A10@0.5"
  int batch = 0;
  int replicas = 0;
  double p99_s = 0;
  double cost_per_hour = 0;
  bool meets_slo = false;
};

struct TuneResult {
  double peak_qps = 0;
  int grid_size = 0;
  int sampled = 0;                // distinct grid points the search simulated (any budget)
  int simulations = 0;            // simulations the search ran (a point may run at two budgets)
  std::optional<TunePoint> best;  // the search's answer
  std::optional<TunePoint> exhaustive_best;  // the grid's cheapest, when asked for
};

// `trace`: the rows of the service's trace load (nullptr for other loads). The spec must have
// passed the loader's checks. Throws std::invalid_argument for a spec tuning cannot handle (no
// capacity entry, a capacity key it cannot read).
TuneResult tune_service(const ServiceSpec& service,
                        std::shared_ptr<const std::vector<TraceRequest>> trace,
                        const TuneOptions& options);

// The service's peak request rate: poisson qps, curve peak, or the trace's busiest 60 s (× its
// speedup).
double peak_qps(const ServiceSpec& service, const std::vector<TraceRequest>* trace);

// The grid's points (TuneResult::grid_size): per capacity entry, max batch 1, 2, 4, ... up to
// its maxBatch, × replicas 1..maxReplicas.
int tune_grid_size(const ServiceSpec& service);

}  // namespace gantry
