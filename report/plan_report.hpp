#pragma once
// How a capacity plan is shown, by the CLI and the server alike: per forecast step the answer
// (pool sizes, cost per hour, each SLO's mean, interval, pessimistic end and limit), the
// evidence that it is minimal (each pool one node smaller, and the SLO it then misses), or,
// when nothing within the bounds meets the SLOs, which SLO fails at the largest configuration
// and by how much; the cost–wait frontier; and what the search cost against the full grid.
// The chart: p95 wait against cost per hour, one line per forecast step (the frontier), with
// a p95-wait SLO's limit drawn and waits past three times it left off.

#include <string>
#include <vector>

#include "sim/plan/plan_result.hpp"

namespace gantry {

std::string plan_text_report(const PlanSpec& plan, const std::vector<PlanSlo>& slos,
                             const std::vector<std::string>& metrics, const PlanResult& result);

std::string plan_frontier_svg(const PlanSpec& plan, const std::vector<PlanSlo>& slos,
                              const std::vector<std::string>& metrics, const PlanResult& result);

}  // namespace gantry
