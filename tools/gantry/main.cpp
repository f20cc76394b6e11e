// gantry: the command-line program. Each subcommand lives in its own file; every user-facing
// error is turned into a message and an exit code here, in one place.
//
// Exit codes: 0 success, 1 internal error, 2 bad input (file, flag or value).

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

#include "engine/core/errors.hpp"
#include "tools/gantry/compare_command.hpp"
#include "tools/gantry/pipeline_run_command.hpp"
#include "tools/gantry/pipeline_validate_command.hpp"
#include "tools/gantry/simulate_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Gantry: GPU cluster simulator and ML workflow orchestrator"};
  app.require_subcommand(1);
  gantry::cli::add_simulate_command(app);
  gantry::cli::add_compare_command(app);
  CLI::App* pipeline = app.add_subcommand("pipeline", "Validate and run pipelines");
  pipeline->require_subcommand(1);
  gantry::cli::add_pipeline_validate(*pipeline);
  gantry::cli::add_pipeline_run(*pipeline);
  gantry::cli::add_pipeline_backfill(*pipeline);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const gantry::GantryError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "internal error: {}\n", e.what());
    return 1;
  }
  return 0;
}
