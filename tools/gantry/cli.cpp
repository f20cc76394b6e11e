// The command line of `gantry` (cli.hpp): every user-facing error is turned into a message and
// an exit code here, in one place.

#include "tools/gantry/cli.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/config/config_errors.hpp"
#include "engine/core/errors.hpp"
#include "tools/gantry/compare_command.hpp"
#include "tools/gantry/kube_commands.hpp"
#include "tools/gantry/manual_links.hpp"
#include "tools/gantry/pipeline_run_command.hpp"
#include "tools/gantry/pipeline_validate_command.hpp"
#include "tools/gantry/plan_command.hpp"
#include "tools/gantry/serve_command.hpp"
#include "tools/gantry/server_client_commands.hpp"
#include "tools/gantry/simulate_command.hpp"
#include "tools/gantry/sweep_command.hpp"
#include "tools/gantry/sweep_worker_command.hpp"
#include "tools/gantry/tune_command.hpp"
#include "tools/gantry/validate_command.hpp"

namespace {

constexpr int kBadInput = 2;
constexpr int kInternal = 1;

// "gantry pipeline": the names of `app` and the subcommands chosen on the way to it.
std::string command_path(const CLI::App* app) {
  std::string out = app->get_name();
  for (const CLI::App* p = app->get_parent(); p != nullptr; p = p->get_parent())
    out = (p->get_name().empty() ? "gantry" : p->get_name()) + " " + out;
  return out.empty() ? "gantry" : out;
}

// The deepest subcommand the command line selected (the app itself when none).
CLI::App* selected_leaf(CLI::App& app) {
  CLI::App* leaf = &app;
  while (!leaf->get_subcommands().empty()) leaf = leaf->get_subcommands().front();
  return leaf;
}

// A parse error in words that name what was wrong. For a command group (gantry, gantry
// pipeline) given a word that is no command, CLI11 says "A subcommand is required" or "The
// following arguments were not expected"; we name the word and list the commands.
std::string describe(CLI::App& app, const CLI::ParseError& e) {
  CLI::App* leaf = selected_leaf(app);
  const std::vector<CLI::App*> commands = leaf->get_subcommands([](CLI::App*) { return true; });
  // Only for a group (a command that needs one of its commands): `gantry sweep FILE` has one,
  // `cancel`, and its own errors.
  if (!commands.empty() && leaf->get_subcommands().empty() &&
      leaf->get_require_subcommand_min() > 0) {
    std::string known;
    for (const CLI::App* c : commands) known += (known.empty() ? "" : ", ") + c->get_name();
    const std::vector<std::string> rest = leaf->remaining();
    const std::string where = command_path(leaf == &app ? &app : leaf);
    if (!rest.empty() && rest.front().rfind('-', 0) != 0)
      return fmt::format("{}: unknown command '{}'; known: {}", where, rest.front(), known);
    return fmt::format("{}: a command is required; known: {}", where, known);
  }
  return e.what();
}

}  // namespace

namespace gantry::cli {

void add_commands(CLI::App& app, const CliHooks& hooks) {
  app.name("gantry");
  app.require_subcommand(1);
  app.footer(
      "Example: gantry simulate scenarios/quickstart.yaml (the examples' scenarios/ is the "
      "source tree's, or <prefix>/share/gantry/scenarios when installed; then gantry <command> "
      "--help: each ends with an example)");
  add_simulate_command(app);
  add_tune_command(app);
  add_sweep_command(app, hooks);
  add_sweep_worker_command(app, hooks);
  add_plan_command(app);
  add_compare_command(app);
  CLI::App* pipeline = app.add_subcommand("pipeline", "Validate and run pipelines");
  pipeline->footer(
      "Example: gantry pipeline run scenarios/pipelines/hourly-etl.yaml --from "
      "2026-03-02T07:00:00Z "
      "--until 2026-03-02T10:00:00Z");
  pipeline->require_subcommand(1);
  add_pipeline_validate(*pipeline);
  add_pipeline_run(*pipeline, hooks);
  add_pipeline_backfill(*pipeline, hooks);
  add_pipeline_client_commands(*pipeline);
  add_token_command(app);
  add_validate_command(app);
  add_serve_command(app, hooks);
  add_kube_commands(app);
}

int run_cli(int argc, char** argv, const CliHooks& hooks) {
  CLI::App app{"Gantry: GPU cluster simulator and ML workflow orchestrator"};
  add_commands(app, hooks);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // prints the help; 0
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {
    // Thrown by a subcommand that has printed its own messages (pipeline validate): its code.
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "error: {}\nRun with --help for more information.\n", describe(app, e));
    return kBadInput;
  } catch (const gantry::InputErrors& e) {
    // Every error of a file, one per line, each a message of its own.
    for (const gantry::InputError& error : e.errors())
      fmt::print(stderr, "error: {}\n", error.what());
    print_manual_links(e.errors());
    return kBadInput;
  } catch (const gantry::InputError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    print_manual_links({e});
    return kBadInput;
  } catch (const gantry::GantryError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kBadInput;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kBadInput;
  } catch (const std::filesystem::filesystem_error& e) {
    // Always about a path the user gave or chose (a folder that cannot be created, a file
    // that cannot be read): bad input, and the message names the path.
    fmt::print(stderr, "error: {}\n", e.what());
    return kBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "internal error: {}\n", e.what());
    return kInternal;
  }
  return 0;
}

}  // namespace gantry::cli
