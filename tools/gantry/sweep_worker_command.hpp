#pragma once
// `gantry sweep-worker --sweep ID --server URL [--shard K]`: one pod of a distributed sweep
// (issue 25; the Job is made by `gantry sweep --on kubernetes`). It fetches its shard from
// gantry serve (the sweep's documents and its range of runs), writes the documents to a
// private folder, loads the sweep as `gantry sweep` would, and runs each run of the range the
// server does not hold yet, one at a time, posting each as it finishes (so a retried pod
// repeats none that finished). Exit 0 when the range is done, or the sweep was cancelled or
// is done already; otherwise non-zero with the message on stderr, also reported to the server
// (POST .../shards/K/failure) when it can be reached, so the user sees why the shard failed.
//
// Its token comes from GANTRY_TOKEN (the Job's Secret), its shard from --shard or
// JOB_COMPLETION_INDEX (set by Kubernetes in each pod of an Indexed Job). A thread watches for
// the sweep's end meanwhile (a long poll): a cancelled sweep stops the worker at once.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "tools/gantry/cli.hpp"

namespace gantry::cli {

struct SweepWorkerOptions {
  std::string sweep;   // the sweep's id
  std::string server;  // gantry serve's URL as the pods reach it
  std::string token;
  std::string ca_file;
  size_t shard = 0;
  // After each run the server acknowledged (the count so far); CliHooks::sweep_run_posted.
  std::function<void(size_t)> posted;
};

// The shard from --shard (`flag`, when given) or else JOB_COMPLETION_INDEX (`env`, when set).
// Throws GantryError naming both when neither is given, or the one with a bad value.
size_t worker_shard(const std::optional<std::string>& flag, const char* env);

// Runs the shard; returns the exit code (0: done or nothing left to do). Throws GantryError
// (the server unreachable, a refusal, a failed run) after reporting it to the server when it can.
int run_sweep_worker(const SweepWorkerOptions& options);

void add_sweep_worker_command(CLI::App& app, const CliHooks& hooks);

}  // namespace gantry::cli
