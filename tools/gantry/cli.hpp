#pragma once
// The `gantry` command line as a function, so that the shipped program (main.cpp) and test
// programs built from the same code (tests/tools/gantry_faulty_main.cpp) share every command,
// message and exit code. Each subcommand lives in its own file.
//
// Exit codes: 0 success (and --help), 1 internal error, 2 bad input: a flag, a file, a value,
// a path that cannot be used. Command-line mistakes are bad input too: CLI11's own exit codes
// (104 conversion, 105 validation, 106 required, 109 extras, ...) are folded into 2, so
// scripts need to know three codes only.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>

#include "workflow/store/sqlite_run_store.hpp"

namespace gantry::cli {

// Seams through which a test program changes what the commands do, in the manner of LevelDB's
// Env: the shipped program passes none. Nothing in tools/ injects faults itself.
struct CliHooks {
  // Installed on the runs database of `pipeline run`, `pipeline backfill` and `serve`
  // (SqliteRunStore::set_commit_hook) and on the results database of `sweep`
  // (SweepStore::set_commit_hook): gantry-faulty kills, stops or stalls itself there.
  SqliteRunStore::CommitHook runs_commit;
  // Called by `sweep-worker` after each run the server acknowledged, with the count so far:
  // gantry-faulty kills itself there (a pod that dies half-way through its shard).
  std::function<void(size_t)> sweep_run_posted;
};

// Every command of `gantry` added to `app` (the shipped help: each command's ends with an
// example, checked by tests/tools/cli_help_test.cpp).
void add_commands(CLI::App& app, const CliHooks& hooks);

// Parses `argv`, runs the command, prints what went wrong; returns the exit code.
int run_cli(int argc, char** argv, const CliHooks& hooks = {});

}  // namespace gantry::cli
