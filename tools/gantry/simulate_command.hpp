#pragma once
// `gantry simulate SCENARIO [--seed N] [--out DIR] [--format text|json] [--policy NAME]
//                  [--actions FILE] [--jobs]`

#include <CLI/CLI.hpp>

namespace gantry::cli {

// Registers the subcommand on `app`; it runs when parsed.
void add_simulate_command(CLI::App& app);

}  // namespace gantry::cli
