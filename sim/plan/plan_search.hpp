#pragma once
// The search for the cheapest pool sizes whose SLOs hold, one forecast step at a time.
//
// Capacity is monotone: more nodes never make an SLO worse. So:
//   1. The largest configuration (every pool at max) is judged first. If it misses an SLO, no
//      configuration within the bounds meets it: that is the answer, with by how much.
//   2. The last pool is sized by bisection (the fewest nodes that hold the SLOs with the other
//      pools fixed): about log2(max − min) configurations instead of max − min.
//   3. The other pools (at most two) are walked on a grid of 7 sizes from min to max, each with
//      its bisected last pool; the grid then narrows to the neighbours of the cheapest size and
//      repeats until its step is one node. The bisections of one grid run in lockstep, so each
//      round's configurations simulate together on every core.
//   4. A final descent takes one node (or, by bisection, as many as possible) off any pool that
//      can lose it and keep the SLOs, until none can: so every pool's next cheaper neighbour
//      (one node fewer, the others unchanged) misses an SLO. These neighbours are the evidence.
// The frontier is every configuration judged, as cost against p95 wait: the Pareto set (no
// cheaper configuration waits less).

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/plan/plan_evaluator.hpp"

namespace gantry {

struct PlanNeighbour {
  size_t pool = 0;  // the pool one node smaller
  const PlanEvaluation* evaluation = nullptr;
};

struct PlanStepResult {
  double growth = 1;
  const PlanEvaluation* answer = nullptr;       // null: no configuration meets every SLO
  const PlanEvaluation* largest = nullptr;      // every pool at max (the failure's evidence)
  std::vector<PlanNeighbour> neighbours;        // one per pool above its min
  std::vector<const PlanEvaluation*> frontier;  // cost ascending, p95 wait descending
  size_t simulations = 0;
  size_t configurations = 0;  // judged
};

// Searches one step. `evaluator` keeps the evaluations the result points to.
PlanStepResult search_plan_step(const PlanSpec& plan, PlanEvaluator& evaluator, double growth);

// Configurations in the full grid: the product of (max − min + 1) over the pools.
double full_grid_configurations(const PlanSpec& plan);

}  // namespace gantry
