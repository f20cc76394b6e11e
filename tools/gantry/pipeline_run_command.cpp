#include "tools/gantry/pipeline_run_command.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "engine/core/errors.hpp"
#include "engine/core/event_loop.hpp"
#include "tools/gantry/operator_events.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"
#include "workflow/runner/run_scheduler.hpp"
#include "workflow/runner/simulated_executor.hpp"
#include "workflow/runner/timeline.hpp"
#include "workflow/store/sqlite_run_store.hpp"

namespace gantry::cli {

namespace {

// A virtual-time replay commits this many changes at once; see SqliteRunStore.
constexpr int kReplayBatch = 4096;

struct RunOptions {
  std::vector<std::string> files;
  std::string from, until, to;
  std::string events;
  std::string format = "text";
  std::string db = "gantry-out/pipelines/runs.db";
  std::string rerun = "none";
  std::string pipeline;
  uint64_t seed = 1;
};

Time parse_time_flag(const std::string& flag, const std::string& text) {
  Time t;
  if (!parse_rfc3339(text, t))
    throw GantryError(fmt::format("{}: expected an RFC 3339 time such as 2026-01-01T00:00:00Z, "
                                  "got '{}'",
                                  flag, text));
  return t;
}

void print_timeline(const RunScheduler& scheduler, const std::string& format) {
  const std::vector<Run> runs = scheduler.timeline();
  if (format == "json") {
    std::cout << write_timeline_json(runs) << "\n";
  } else {
    std::cout << write_timeline_text(runs);
  }
}

// Shared set-up: the files, the store, the scheduler with every pool and pipeline.
struct Orchestrator {
  PipelineDocuments docs;
  std::unique_ptr<EventLoop> loop;
  std::unique_ptr<SqliteRunStore> store;
  std::unique_ptr<SimulatedExecutor> executor;
  std::unique_ptr<RunScheduler> scheduler;

  Orchestrator(const RunOptions& opt, Time start, bool fresh_db, int batch) {
    docs = load_pipeline_files(opt.files);
    loop = EventLoop::virtual_time(start);
    const std::filesystem::path db(opt.db);
    if (db.has_parent_path()) std::filesystem::create_directories(db.parent_path());
    if (fresh_db)
      for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(opt.db + suffix);
    store = std::make_unique<SqliteRunStore>(opt.db, batch);
    if (const char* crash = std::getenv("GANTRY_CRASH_AFTER_COMMITS"))
      store->crash_after_commits(std::strtoull(crash, nullptr, 10));
    executor = std::make_unique<SimulatedExecutor>(*loop, opt.seed);
    scheduler = std::make_unique<RunScheduler>(*loop, *store, *executor);
    for (const PoolSpec& pool : docs.pools) scheduler->add_pool(pool);
    for (const PipelineSpec& p : docs.pipelines) {
      scheduler->add_pipeline(p);
      store->save_pipeline(p);
    }
  }
};

void run_pipelines(const RunOptions& opt) {
  const Time from = parse_time_flag("--from", opt.from);
  const Time until = parse_time_flag("--until", opt.until);
  if (until < from) throw GantryError("--until: before --from");
  Orchestrator o(opt, from, /*fresh_db=*/true, kReplayBatch);
  std::vector<OperatorAction> actions;
  if (!opt.events.empty()) actions = load_operator_events(opt.events, o.docs, from);
  o.scheduler->recover();
  o.scheduler->switch_on();
  for (const OperatorAction& a : actions) o.scheduler->schedule(a);
  o.loop->run_until(until);
  o.store->flush();
  print_timeline(*o.scheduler, opt.format);
}

void backfill_pipelines(const RunOptions& opt) {
  const Time from = parse_time_flag("--from", opt.from);
  const Time to = parse_time_flag("--to", opt.to);
  if (to < from) throw GantryError("--to: before --from");
  const std::optional<BackfillRerun> rerun = parse_backfill_rerun(opt.rerun);
  if (!rerun) throw GantryError("--rerun: expected none, failed or all, got '" + opt.rerun + "'");
  // The backfill happens "now" = the end of the window, and runs until the backlog is done.
  Orchestrator o(opt, to, /*fresh_db=*/false, /*batch=*/1);
  o.scheduler->recover();
  // A backfill runs the window's runs and nothing else: the schedules stay paused, so
  // switching on starts queued runs without catching up ticks.
  for (const PipelineSpec& p : o.docs.pipelines) {
    OperatorAction pause;
    pause.at = to;
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
  o.loop->run();
  o.store->flush();
  if (opt.format == "json") {
    print_timeline(*o.scheduler, opt.format);
    return;
  }
  print_timeline(*o.scheduler, opt.format);
  std::cout << fmt::format("\nbackfill {} → {}: {} runs created, {} rerun, {} left as they were\n",
                           format_rfc3339(from), format_rfc3339(to), created, rerun_count,
                           untouched);
}

void common_options(CLI::App* cmd, const std::shared_ptr<RunOptions>& opt) {
  cmd->add_option("files", opt->files, "Pipeline and Pool YAML files")->required()->check(CLI::ExistingFile);
  cmd->add_option("--format", opt->format, "Timeline format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--db", opt->db, "SQLite database of pipelines, runs, task instances, attempts and events");
  cmd->add_option("--seed", opt->seed, "Seed of the simulated task durations and outcomes");
}

}  // namespace

void add_pipeline_run(CLI::App& pipeline) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = pipeline.add_subcommand("run", "Run pipelines in virtual time and print the timeline");
  common_options(cmd, opt);
  cmd->add_option("--from", opt->from, "When the pipelines are switched on (RFC 3339)")->required();
  cmd->add_option("--until", opt->until, "When the replay stops (RFC 3339)")->required();
  cmd->add_option("--events", opt->events, "Operator actions and faults (YAML list)")->check(CLI::ExistingFile);
  cmd->callback([opt] { run_pipelines(*opt); });
}

void add_pipeline_backfill(CLI::App& pipeline) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = pipeline.add_subcommand("backfill", "Create and run the runs of a past window");
  common_options(cmd, opt);
  cmd->add_option("--from", opt->from, "First tick of the window (RFC 3339, inclusive)")->required();
  cmd->add_option("--to", opt->to, "Last tick of the window (RFC 3339, inclusive)")->required();
  cmd->add_option("--rerun", opt->rerun, "Existing runs: none, failed or all")
      ->check(CLI::IsMember({"none", "failed", "all"}));
  cmd->add_option("--pipeline", opt->pipeline, "Only this pipeline (default: every one)");
  cmd->callback([opt] { backfill_pipelines(*opt); });
}

}  // namespace gantry::cli
