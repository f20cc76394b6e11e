#pragma once
// The human-readable report of `gantry simulate`: what ran, how the jobs fared, how busy the
// GPUs were.

#include <string>

#include "sim/scenario_spec.hpp"
#include "sim/summary.hpp"

namespace gantry::cli {

std::string text_report(const ScenarioSpec& scenario, const RunSummary& summary,
                        const std::string& results_path);

}  // namespace gantry::cli
