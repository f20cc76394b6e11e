#pragma once
// The machine-readable report of `gantry simulate --format json`. Its shape is stable and
// documented in the README ("gantry simulate --format json").

#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario_spec.hpp"
#include "sim/summary.hpp"

namespace gantry {

nlohmann::ordered_json json_report(const ScenarioSpec& scenario, const RunSummary& summary,
                                   const std::string& results_path);

}  // namespace gantry
