#pragma once
// `gantry pipeline run FILE|DIR... --from T0 --until T1 [--events EVENTS.yaml]
//     [--format json|text] [--db PATH] [--replace] [--seed N] [--cluster SCENARIO.yaml]`
//   Switches the pipelines on at T0 and runs them in virtual time until T1, with the operator
//   actions of the events file (an action after T1 is an error); prints the timeline. Every
//   state change goes to the SQLite database at PATH (default gantry-out/pipelines/runs.db),
//   in batches. A replay starts from an empty database: it replaces a runs database that an
//   earlier replay wrote, refuses one that holds a run history (a backfill's) unless
//   --replace, and never touches a file that is not a Gantry runs database
//   (workflow/store/sqlite_run_store.hpp). With --cluster, distributed tasks become gang jobs
//   of that scenario's simulated cluster, next to its own workload, shifted to start at T0
//   (adapters/simcluster).
//
// `gantry pipeline backfill FILE|DIR... --from T1 --to T2 [--rerun none|failed|all]
//     [--pipeline NAME] [--lost-attempts rerun|error] [--db PATH] [--format json|text]`
//   Opens the database at PATH (kept: runs already there are recovered, never duplicated),
//   creates runs for the schedule's ticks in [T1, T2] and runs them in virtual time until the
//   backlog is done, one transaction per state change. A run killed half-way (kill -9) picks up
//   where it stopped when run again; attempts it had running are run again (--lost-attempts
//   rerun, the default) or closed as error (--lost-attempts error, the retry policy decides).
//   --pipeline must name a pipeline of the files that has a schedule.
//
// Both hold the database's writer lock while they run: a second process on the same database
// fails at once with "database in use by pid N" (exit 2). `hooks.runs_commit` is installed on
// that database (cli.hpp; the crash and concurrency tests' gantry-faulty uses it).

#include <CLI/CLI.hpp>

#include "tools/gantry/cli.hpp"

namespace gantry::cli {

void add_pipeline_run(CLI::App& pipeline, const CliHooks& hooks = {});
void add_pipeline_backfill(CLI::App& pipeline, const CliHooks& hooks = {});

}  // namespace gantry::cli
