#pragma once
// `gantry pipeline run FILE... --from T0 --until T1 [--events EVENTS.yaml] [--format json|text]
//     [--db PATH] [--seed N] [--cluster SCENARIO.yaml]`
//   Switches the pipelines on at T0 and runs them in virtual time until T1, with the operator
//   actions of the events file; prints the timeline. Every state change goes to the SQLite
//   database at PATH (default gantry-out/pipelines/runs.db, replaced), in batches. With
//   --cluster, distributed tasks become gang jobs of that scenario's simulated cluster, next to
//   its own workload, shifted to start at T0 (adapters/simcluster).
//
// `gantry pipeline backfill FILE... --from T1 --to T2 [--rerun none|failed|all]
//     [--pipeline NAME] [--db PATH] [--format json|text]`
//   Opens the database at PATH (kept: runs already there are recovered, never duplicated),
//   creates runs for the schedule's ticks in [T1, T2] and runs them in virtual time until the
//   backlog is done, one transaction per state change. A run killed half-way (kill -9) picks up
//   where it stopped when run again. The environment variable GANTRY_CRASH_AFTER_COMMITS=N
//   makes the process kill itself with SIGKILL after N commits (crash tests).

#include <CLI/CLI.hpp>

namespace gantry::cli {

void add_pipeline_run(CLI::App& pipeline);
void add_pipeline_backfill(CLI::App& pipeline);

}  // namespace gantry::cli
