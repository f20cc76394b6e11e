#pragma once
// `gantry sweep SWEEP.yaml`: runs every point of a kind: Sweep file over its seeds on every core
// (sim/sweep/), storing each run as it finishes in DIR/results.db, then prints a table per
// metric (text, report/sweep_report.hpp) or the JSON of sim/sweep/sweep_summary.hpp, and writes
// one SVG chart per metric beside the database. --resume continues a killed sweep from its
// database, running only the runs it does not hold.

#include <CLI/CLI.hpp>

#include "tools/gantry/cli.hpp"

namespace gantry::cli {

void add_sweep_command(CLI::App& app, const CliHooks& hooks);

}  // namespace gantry::cli
