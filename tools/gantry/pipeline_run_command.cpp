#include "tools/gantry/pipeline_run_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "adapters/simcluster/cluster_task_executor.hpp"
#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/core/errors.hpp"
#include "engine/core/event_loop.hpp"
#include "report/number_format.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/world_builder.hpp"
#include "tools/gantry/cli_inputs.hpp"
#include "tools/gantry/operator_events.hpp"
#include "tools/gantry/progress_bar.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"
#include "workflow/runner/run_scheduler.hpp"
#include "workflow/runner/simulated_executor.hpp"
#include "workflow/runner/timeline.hpp"
#include "workflow/runner/window_limit.hpp"
#include "workflow/store/sqlite_run_store.hpp"
#include "workflow/store/write_behind_run_store.hpp"

namespace gantry::cli {

namespace {

// --format summary: catch-up ticks handled per turn of the loop, and how many queued runs a
// pipeline may hold before its catch-up waits (the core raises it to the pipeline's
// maxActiveRuns, so a freed slot always finds a queued run; see
// SchedulerCore::set_catch_up_backlog()). Every run held costs memory and makes every lookup
// of the store and the scheduler reach further (bench/pipelines_year.sh).
constexpr size_t kSummaryCatchUpSlice = 64;
constexpr size_t kSummaryCatchUpBacklog = 64;

struct RunOptions {
  std::vector<std::string> files;
  std::string from, until, to;
  std::string events;
  std::string format = "text";
  std::string db = "gantry-out/pipelines/runs.db";
  std::string rerun = "none";
  std::string pipeline;
  std::string cluster;  // a Scenario whose cluster and workload the distributed tasks share
  uint64_t seed = 1;
  bool replace = false;                    // run: replace a run history at --db
  std::string lost_attempts = "rerun";     // backfill: what recover() does with lost attempts
  size_t max_runs = kMaxRunsPerReplay;     // --max-runs: the window limit
  SqliteRunStore::CommitHook runs_commit;  // CliHooks::runs_commit
};

// --pipeline must name a pipeline of the files that has a schedule; a typo used to backfill
// nothing and exit 0.
void check_pipeline_flag(const std::string& name, const PipelineDocuments& docs) {
  if (name.empty()) return;
  std::vector<std::string> known;
  for (const PipelineSpec& p : docs.pipelines) {
    if (p.name == name) {
      if (!p.schedule)
        throw GantryError(
            fmt::format("--pipeline: '{}' has no schedule, so nothing to backfill", name));
      return;
    }
    known.push_back(p.name);
  }
  throw GantryError(fmt::format(
      "--pipeline: no pipeline named '{}' in the files; known: {}", name,
      known.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(known, ", "))));
}

// The store at --db, with every refusal reported against the flag.
std::unique_ptr<SqliteRunStore> open_store(const RunOptions& opt, RunStoreOptions options) {
  const std::filesystem::path db(opt.db);
  if (db.has_parent_path()) make_output_dir("--db", db.parent_path().string());
  try {
    return std::make_unique<SqliteRunStore>(opt.db, options);
  } catch (const RunHistoryExists& e) {
    throw GantryError(
        fmt::format("--db: {}; pass --replace to discard it, or choose another --db", e.what()));
  } catch (const StoreError& e) {
    throw GantryError(fmt::format("--db: {}", e.what()));
  }
}

Time parse_time_flag(const std::string& flag, const std::string& text) {
  Time t;
  if (!parse_rfc3339(text, t))
    throw GantryError(
        fmt::format("{}: expected an RFC 3339 time such as 2026-01-01T00:00:00Z, "
                    "got '{}'",
                    flag, text));
  return t;
}

// loop.run_until(until) in 200 slices of virtual time, drawing the progress bar between them
// (on a terminal only). Events run in the same order as in one call: a slice ends after every
// event at or before its end, and nothing else runs between slices.
void run_with_progress(EventLoop& loop, Time from, Time until) {
  ProgressBar bar("replaying pipelines");
  if (!bar.active()) {
    loop.run_until(until);
    return;
  }
  constexpr int kSlices = 200;
  const double span = static_cast<double>((until - from).micros());
  for (int i = 1; i < kSlices; ++i) {
    loop.run_until(from + Duration(static_cast<int64_t>(span * i / kSlices)));
    bar.update(static_cast<double>(i) / kSlices);
  }
  loop.run_until(until);
  bar.finish();
}

// loop.run() for a backfill, drawing the share of the backlog done (on a terminal only). The
// end is not known in advance, so the loop runs in slices of virtual time, doubling while
// nothing happens; every event still runs in the order one run() call would give.
void run_backlog_with_progress(EventLoop& loop, const RunScheduler& scheduler) {
  ProgressBar bar("backfilling");
  if (!bar.active()) {
    loop.run();
    return;
  }
  const double total = static_cast<double>(std::max<size_t>(1, scheduler.runs_in_flight()));
  Duration slice = hours(1);
  while (loop.pending() > 0) {
    const uint64_t before = loop.dispatched();
    loop.run_until(saturating_add(loop.now(), slice));
    slice = loop.dispatched() == before ? saturating_add(slice, slice) : hours(1);
    bar.update(1.0 - static_cast<double>(scheduler.runs_in_flight()) / total);
  }
  loop.run();  // posts, if any
  bar.finish();
}

// `--format summary`: the runs the database holds by pipeline and state, then the totals.
void print_summary(const SqliteRunStore& store, const std::string& db) {
  const SqliteRunStore::StoredTotals totals = store.stored_totals();
  std::map<std::string, int64_t> all;
  int64_t runs = 0;
  size_t width = 8;
  for (const auto& [pipeline, states] : totals.runs) width = std::max(width, pipeline.size());
  const std::vector<std::string> columns = {"succeeded", "failed",  "killed", "skipped",
                                            "expired",   "running", "queued"};
  std::string head = fmt::format("{:<{}} {:>12}", "pipeline", width, "runs");
  for (const std::string& c : columns) head += fmt::format(" {:>11}", c);
  fmt::print("{}\n", head);
  const auto row = [&](const std::string& name, const std::map<std::string, int64_t>& states) {
    int64_t n = 0;
    for (const auto& [state, count] : states) n += count;
    std::string line = fmt::format("{:<{}} {:>12}", name, width, with_commas(n));
    for (const std::string& c : columns) {
      const auto it = states.find(c);
      line += fmt::format(" {:>11}", with_commas(it == states.end() ? 0 : it->second));
    }
    fmt::print("{}\n", line);
    return n;
  };
  for (const auto& [pipeline, states] : totals.runs) {
    runs += row(pipeline, states);
    for (const auto& [state, count] : states) all[state] += count;
  }
  if (totals.runs.size() > 1) row("total", all);
  fmt::print("\n{} runs, {} task instances, {} attempts in {}\n", with_commas(runs),
             with_commas(totals.task_instances), with_commas(totals.attempts), db);
}

void print_timeline(const RunScheduler& scheduler, const std::string& format) {
  // Streamed run by run: neither a copy of the runs nor the whole document is held.
  TimelineWriter writer(
      std::cout, format == "json" ? TimelineWriter::Format::kJson : TimelineWriter::Format::kText);
  scheduler.for_each_run([&](const Run& run) { writer.add(run); });
  writer.finish();
  if (format == "json") std::cout << "\n";
}

// The simulated cluster of `--cluster SCENARIO` (sim/world_builder.hpp): its nodes, its
// scheduler and its workload, shifted so that the scenario starts when the pipelines are
// switched on, and the executor that runs distributed tasks in it.
struct SimulatedCluster {
  std::unique_ptr<SimulatedWorld> sim;
  std::unique_ptr<ClusterTaskExecutor> executor;

  SimulatedCluster(const std::string& file, EventLoop& loop, TaskExecutor& containers) {
    sim = build_world(starting_at(load_scenario_file(file, trace_loaders()), loop.now()), loop);
    executor = std::make_unique<ClusterTaskExecutor>(*sim->world, containers);
    sim->world->start();
    if (sim->pools) sim->pools->start();
  }
};

// Shared set-up: the files, the store, the scheduler with every pool and pipeline.
struct Orchestrator {
  PipelineDocuments docs;
  std::unique_ptr<EventLoop> loop;
  std::unique_ptr<SqliteRunStore> store;
  // A replay's runs are written whole once finished, on a thread of their own; a backfill
  // continues a history and writes each change as it happens.
  std::unique_ptr<WriteBehindRunStore> write_behind;
  std::unique_ptr<SimulatedExecutor> executor;
  std::unique_ptr<SimulatedCluster> cluster;
  std::unique_ptr<RunScheduler> scheduler;

  // `replay`: `pipeline run`, a fresh database (RunStoreOptions::replay); otherwise the
  // database's runs are kept and continued, from `start` or the latest instant the database
  // holds, whichever is later. [window_from, window_to]: the replay or backfill
  // window, checked against kMaxRunsPerReplay before anything is written.
  Orchestrator(const RunOptions& opt, Time start, bool replay, Time window_from, Time window_to) {
    docs = load_pipelines(expand_pipeline_args(opt.files));
    check_pipeline_flag(opt.pipeline, docs);
    check_window(docs.pipelines, window_from, window_to, /*backfill=*/!replay,
                 replay ? "" : opt.pipeline, replay ? "--until" : "--to", opt.max_runs);
    store = open_store(opt, RunStoreOptions{.replay = replay, .replace = opt.replace});
    if (opt.runs_commit) store->set_commit_hook(opt.runs_commit);
    // A backfill continues its database: a previous one, killed, may have run ahead of `start`
    // (the backlog runs after the window's end), and time must not go back (a lost attempt
    // would end before it started, a run timeout would be counted from the past).
    if (!replay) start = std::max(start, store->latest_instant().value_or(start));
    loop = EventLoop::virtual_time(start);
    executor = std::make_unique<SimulatedExecutor>(*loop, opt.seed);
    TaskExecutor* tasks = executor.get();
    if (!opt.cluster.empty()) {
      cluster = std::make_unique<SimulatedCluster>(opt.cluster, *loop, *executor);
      check_tasks_fit(docs.pipelines, cluster->sim->cluster->topology());
      tasks = cluster->executor.get();
    }
    if (replay) write_behind = std::make_unique<WriteBehindRunStore>(*store);
    scheduler = std::make_unique<RunScheduler>(
        *loop, write_behind ? static_cast<RunStore&>(*write_behind) : *store, *tasks);
    if (opt.format == "summary") {
      // Nothing is printed run by run: finished runs leave memory once stored, and a catch-up
      // creates runs as they are about to start, so memory follows the runs in flight, not the
      // window (the database gets the same runs, times and states as with a timeline).
      scheduler->keep_finished(SchedulerCore::KeepFinished::kRecent);
      scheduler->set_catch_up_slice(kSummaryCatchUpSlice);
      scheduler->set_catch_up_backlog(kSummaryCatchUpBacklog);
    }
    for (const PoolSpec& pool : docs.pools) scheduler->add_pool(pool);
    for (const PipelineSpec& p : docs.pipelines) {
      scheduler->add_pipeline(p);
      settled().save_pipeline(p);
    }
  }

  // The store with every change written, for this thread.
  SqliteRunStore& settled() {
    if (write_behind) return write_behind->settled();
    store->flush();
    return *store;
  }
};

void run_pipelines(const RunOptions& opt) {
  const Time from = parse_time_flag("--from", opt.from);
  const Time until = parse_time_flag("--until", opt.until);
  if (until < from) throw GantryError("--until: before --from");
  Orchestrator o(opt, from, /*replay=*/true, from, until);
  std::vector<OperatorAction> actions;
  if (!opt.events.empty()) {
    std::vector<InputError> skipped;
    actions = load_operator_events(opt.events, o.docs, from, until, &skipped);
    for (const InputError& e : skipped) fmt::print(stderr, "warning: {}\n", e.what());
  }
  o.scheduler->recover();
  o.scheduler->switch_on();
  for (const OperatorAction& a : actions) o.scheduler->schedule(a);
  run_with_progress(*o.loop, from, until);
  SqliteRunStore& store = o.settled();
  if (opt.format == "summary") {
    print_summary(store, opt.db);
    return;
  }
  print_timeline(*o.scheduler, opt.format);
  if (o.cluster && opt.format != "json") {
    const SimulationLog& log = o.cluster->sim->world->log();
    std::cout << fmt::format("\ncluster {}: {} jobs ({} from pipeline tasks), {} finished by {}\n",
                             opt.cluster, log.jobs.size(),
                             log.jobs.size() - o.cluster->sim->jobs.size(),
                             o.cluster->sim->world->finished(), format_rfc3339(until));
  }
}

void backfill_pipelines(const RunOptions& opt) {
  const Time from = parse_time_flag("--from", opt.from);
  const Time to = parse_time_flag("--to", opt.to);
  if (to < from) throw GantryError("--to: before --from");
  const std::optional<BackfillRerun> rerun = parse_backfill_rerun(opt.rerun);
  if (!rerun) throw GantryError("--rerun: expected none, failed or all, got '" + opt.rerun + "'");
  // The backfill happens "now" = the end of the window (or, continuing a database, the latest
  // instant it holds, if later), and runs until the backlog is done.
  Orchestrator o(opt, to, /*replay=*/false, from, to);
  o.scheduler->set_lost_attempts(opt.lost_attempts == "error" ? LostAttempts::kError
                                                              : LostAttempts::kRerun);
  o.scheduler->recover();
  // A backfill runs the window's runs and nothing else: the schedules stay paused, so
  // switching on starts queued runs without catching up ticks.
  for (const PipelineSpec& p : o.docs.pipelines) {
    OperatorAction pause;
    pause.at = o.loop->now();
    pause.kind = ActionKind::kPause;
    pause.pipeline = p.name;
    o.scheduler->apply(pause);
  }
  o.scheduler->switch_on();
  size_t created = 0, rerun_count = 0, untouched = 0;
  for (const PipelineSpec& p : o.docs.pipelines) {
    if (!opt.pipeline.empty() && p.name != opt.pipeline) continue;
    if (!p.schedule) continue;
    const BackfillReport report = o.scheduler->backfill(p.name, from, to, *rerun);
    created += report.created;
    rerun_count += report.rerun;
    untouched += report.untouched;
  }
  run_backlog_with_progress(*o.loop, *o.scheduler);
  SqliteRunStore& store = o.settled();
  if (opt.format == "summary")
    print_summary(store, opt.db);
  else
    print_timeline(*o.scheduler, opt.format);
  if (opt.format == "json") return;
  std::cout << fmt::format("\nbackfill {} → {}: {} runs created, {} rerun, {} left as they were\n",
                           format_rfc3339(from), format_rfc3339(to), created, rerun_count,
                           untouched);
}

void common_options(CLI::App* cmd, const std::shared_ptr<RunOptions>& opt) {
  cmd->add_option("files", opt->files,
                  "Pipeline and Pool YAML files; a folder stands for its *.yaml and *.yml files")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--format", opt->format,
                  "text or json: the timeline of every run; summary: the runs by pipeline and "
                  "state, counted in the database (memory follows the runs in flight)")
      ->check(CLI::IsMember({"text", "json", "summary"}));
  cmd->add_option("--max-runs", opt->max_runs,
                  fmt::format("Refuse a window that would create more runs than this (default "
                              "{}: a guard against a typo in a window)",
                              kMaxRunsPerReplay))
      ->check(CLI::Range(size_t{1}, size_t{1'000'000'000}));
  cmd->add_option("--db", opt->db,
                  "SQLite database of pipelines, runs, task instances, attempts and events");
  cmd->add_option("--seed", opt->seed, "Seed of the simulated task durations and outcomes")
      ->check(seed_validator());
}

}  // namespace

void add_pipeline_run(CLI::App& pipeline, const CliHooks& hooks) {
  auto opt = std::make_shared<RunOptions>();
  opt->runs_commit = hooks.runs_commit;
  CLI::App* cmd =
      pipeline.add_subcommand("run", "Run pipelines in virtual time and print the timeline");
  common_options(cmd, opt);
  cmd->add_option("--from", opt->from, "When the pipelines are switched on (RFC 3339)")->required();
  cmd->add_option("--until", opt->until, "When the replay stops (RFC 3339)")->required();
  cmd->add_option("--events", opt->events, "Operator actions and faults (YAML list)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--replace", opt->replace,
                "Replace the database at --db even when it holds a run history (backfills); "
                "never a file that is not a Gantry runs database");
  cmd->add_option(
         "--cluster", opt->cluster,
         "A Scenario whose cluster and workload distributed tasks (tfjob, pytorchjob, ...) "
         "run in, competing for GPUs")
      ->check(CLI::ExistingFile);
  cmd->footer(
      "Example: gantry pipeline run scenarios/pipelines/hourly-etl.yaml --from "
      "2026-03-02T07:00:00Z "
      "--until 2026-03-02T10:00:00Z");
  cmd->callback([opt] { run_pipelines(*opt); });
}

void add_pipeline_backfill(CLI::App& pipeline, const CliHooks& hooks) {
  auto opt = std::make_shared<RunOptions>();
  opt->runs_commit = hooks.runs_commit;
  CLI::App* cmd = pipeline.add_subcommand("backfill", "Create and run the runs of a past window");
  common_options(cmd, opt);
  cmd->add_option("--from", opt->from, "First tick of the window (RFC 3339, inclusive)")
      ->required();
  cmd->add_option("--to", opt->to, "Last tick of the window (RFC 3339, inclusive)")->required();
  cmd->add_option("--rerun", opt->rerun, "Existing runs: none, failed or all")
      ->check(CLI::IsMember({"none", "failed", "all"}));
  cmd->add_option("--pipeline", opt->pipeline, "Only this pipeline (default: every one)");
  cmd->add_option("--lost-attempts", opt->lost_attempts,
                  "Attempts that were running when a previous backfill died: rerun (a new "
                  "attempt, not counted as a retry) or error (the retry policy decides)")
      ->check(CLI::IsMember({"rerun", "error"}));
  cmd->footer(
      "Example: gantry pipeline backfill scenarios/pipelines/hourly-etl.yaml --from "
      "2026-03-01T00:00:00Z --to 2026-03-01T23:00:00Z --db runs.db");
  cmd->callback([opt] { backfill_pipelines(*opt); });
}

}  // namespace gantry::cli
