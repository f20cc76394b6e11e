#pragma once
// `gantry plan PLAN.yaml`: the cheapest pool sizes whose simulated SLOs hold with the plan's
// confidence, per forecast step (sim/plan/), printed as report/plan_report.hpp shows it, or
// the JSON of sim/plan/plan_result.hpp; the cost–wait frontier chart is written to
// DIR/frontier.svg.

#include <CLI/CLI.hpp>

namespace gantry::cli {

void add_plan_command(CLI::App& app);

}  // namespace gantry::cli
