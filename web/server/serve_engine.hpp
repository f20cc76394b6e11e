#pragma once
// The orchestrator of `gantry serve`: one event loop on the wall clock (scaled by --speed), the
// runs database, the run scheduler, and the world its tasks run in (serve_world.hpp: the
// simulated cluster of a Scenario, or a live Kubernetes cluster). The REST handlers
// call its operations on the loop thread (call_on_loop(), DESIGN.md rule 1); reads of runs go
// to the database directly (run_queries.hpp).
//
// Persistence: every run, task and attempt change commits on its own (SqliteRunStore, batch 1)
// and every pipeline or pool applied is kept as submitted (PipelineCatalog), so after kill -9
// start() rebuilds the same pipelines, recover() settles what was running (RESTART in
// workflow/runner/run_scheduler.hpp) and the schedules catch up by their own rules.
//
// Time: simulated time starts at the wall clock's now, or at the latest instant the runs
// database holds (SqliteRunStore::latest_instant(): runs, attempts, events) when that is
// later (a server at --speed 60 runs ahead of the wall clock; a restart must not go back in
// time), and advances `speed` seconds per wall second.
//
// STORAGE FAILURES (a full disk, issue 22). A request that changes something is one
// transaction: when a write fails it is rolled back whole and answered 507 (disk full) or 503
// (another write failure) naming the database, and nothing of it remains, in the database or
// in memory. A write that fails in an event of the loop (a tick, an attempt's end) undoes
// that change only. Either way the orchestrator's memory no longer matches its database: the
// run scheduler stops (its timers cancelled, its attempts killed in the world), the problem
// is reported (problems(): /readyz answers 503, standard error, an "error" event), requests
// that change something are refused at once with 507/503, reads go on. Every second a write
// is tried; once it succeeds a new scheduler is built from the database by the restart rules
// (the attempts it had running are lost and run again) and the problem is cleared. The
// database is consistent at every moment (each change, each request, is a transaction), so a
// restart — after kill -9 too — always loads it.
//
// Pools: declared at the first apply and fixed for the life of the process; applying a pool
// again with another spec is refused (409) until a restart.
//
// Thread safety: the operations run on the loop thread; queries(), tokens() and ready() are
// thread-safe.

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/event_loop.hpp"
#include "engine/policy/action_log.hpp"
#include "web/server/attempt_log.hpp"
#include "web/server/cluster_json.hpp"
#include "web/server/event_bus.hpp"
#include "web/server/pipeline_catalog.hpp"
#include "web/server/pipeline_filter.hpp"
#include "web/server/publishing_run_store.hpp"
#include "web/server/run_queries.hpp"
#include "web/server/serve_world.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/run_scheduler.hpp"

namespace gantry {
class SqliteRunStore;
class StoreError;
}  // namespace gantry

namespace gantry::web {

class ApiError;

struct ServeConfig {
  std::string db_path = "gantry.db";
  std::string world = "sim";  // sim | kube (serve_world.hpp)
  // sim: the kind: Scenario whose cluster (and workload) the tasks share; kube: the model of
  // the live cluster and its policy, optional.
  std::string cluster_file;
  double speed = 1;
  uint64_t seed = 1;
  LostAttempts lost_attempts = LostAttempts::kRerun;
  KubeServeOptions kube;  // world kube
  // Where problems are written as they are found (problems()); default: standard error.
  std::function<void(const std::string&)> log{};
  // Called after each commit of the runs database (SqliteRunStore::set_commit_hook): the
  // fault-injection seam of the test program gantry-faulty; empty in the shipped program.
  std::function<void(uint64_t)> commit_hook{};
  // Each line of the world's action log (engine/policy/action_log.hpp: the scheduler's binds,
  // evictions and resizes, the world's observations), without its newline, as it is written
  // (`gantry serve --actions FILE`); empty: the lines are not kept. On the loop thread.
  std::function<void(const std::string&)> action_line{};
};

class ServeEngine {
 public:
  // Opens the database (StoreError: in use by another process, not a runs database), loads the
  // cluster scenario (InputError), builds the world. Nothing runs until start().
  ServeEngine(ServeConfig config, EventBus& bus);
  ~ServeEngine();
  // "sim: FILE" or "kube: SERVER (context C)".
  std::string world_description() const { return world_->describe(); }

  EventLoop& loop() { return *loop_; }
  RunQueries& queries() { return *queries_; }
  bool ready() const { return ready_.load(); }
  // Simulated seconds per wall second (--speed); fixed for the life of the engine.
  double speed() const { return config_.speed; }

  // What keeps the server from being what its database says, one line each ("Pipeline/x
  // could not be loaded: catalog Pipeline/x:6:5: spec.tasks[0]...: ..."); empty when all is
  // well. Each problem is also published once as an "error" event {"document","message"}.
  // Thread-safe (/readyz reads it).
  std::vector<std::string> problems() const;

  // Thread-safe: makes run_until() return after the event in progress (not again after a
  // storage failure, unlike a bare EventLoop::stop()).
  void stop();

  // --- on the loop thread ---
  // The event loop until stop() (Time::max()) or `horizon`. An event whose write fails (a full
  // disk) does not end it: see STORAGE FAILURES.
  void run_until(Time horizon);
  void run() { run_until(Time::max()); }
  // Tries to write again after a storage failure and, if it can, builds the orchestrator anew
  // from the database; returns whether it runs again. The engine calls it every second (of the
  // wall clock) while it cannot write; tests call it themselves.
  bool retry_storage();
  // Loads the catalog, recovers the runs, switches the schedules and the world on. The stored
  // documents are loaded together (a pipeline may name a pool stored apart); one that cannot
  // be loaded (a document an older Gantry accepted and this one refuses) does not stop the
  // start: it becomes a problem (problems()) naming it and saying why, and the runs in flight
  // of a pipeline not loaded end as failed (RunScheduler::set_unloaded_pipelines()). Applying
  // a good version of the document, or deleting the pipeline, clears its problem.
  void start();
  // Applies pipeline and pool documents (YAML or JSON text). Throws ApiError: 400 with
  // {"errors":[...]} for invalid documents, 409 for a pipeline with runs in flight or a
  // changed pool. Returns {"pipelines":[PipelineSummary], "pools":[Pool]} and sets `created`
  // when any document was new.
  // `new_pipelines`: whether a pipeline new to the server starts its schedule at once (the
  // operator's --pipelines folder, the engine's default) or paused (the API's default: a
  // pipeline saved in the editor never starts a backlog by itself). A replaced pipeline keeps
  // its paused flag. Each pipeline's summary in the answer says, under "catchUp", the runs
  // switching its schedule on now would start at once (catch_up_preview()).
  enum class NewPipelines { kStart, kPaused };
  nlohmann::json apply(const std::string& text, bool dry_run, bool& created,
                       NewPipelines new_pipelines = NewPipelines::kStart);
  // The same for several files applied as one (--pipelines DIR): checked together, so a
  // pipeline may name a pool of another file whatever their order; all or nothing. Errors
  // carry each file's name (PipelineSource::file_name).
  nlohmann::json apply_files(const std::vector<PipelineSource>& files, bool dry_run, bool& created,
                             NewPipelines new_pipelines = NewPipelines::kStart);
  // {"pipelines": [PipelineSummary]}: those `filter` keeps (pipeline_filter.hpp), by name.
  nlohmann::json list_pipelines(const PipelineFilter& filter = {});
  // A PipelineSummary with "yaml", "spec" (its JSON) and "params" (the schema of its params:
  // [{"name", "type", "default", "description"}], for a typed trigger form). ApiError 404.
  nlohmann::json pipeline(const std::string& name);
  // 404, 409; also deletes a stored pipeline that could not be loaded at start. Its stored
  // runs stay readable, or with `purge` are deleted with their tasks, attempts and events (a
  // pipeline applied again under the name then starts with no history). Returns
  // {"deleted": name, "purged": bool, "runsKept": n, "runsPurged": n}.
  nlohmann::json delete_pipeline(const std::string& name, bool purge = false);
  nlohmann::json set_paused(const std::string& name, bool paused);
  // 201 body (the Run); 409 when a run exists now; 400 naming the param when `params` (a JSON
  // object name -> value, or null) does not fit spec.params (resolve_params()).
  nlohmann::json trigger(const std::string& name, const nlohmann::json& params = nlohmann::json());
  nlohmann::json backfill(const std::string& name, Time from, Time to, BackfillRerun rerun);
  // An operator action on one run (rerun, mark-success, kill-run) or one task of it (`task`:
  // kill-task), asked `by` a token's name. 404 for an unknown pipeline or run, 409 with the
  // scheduler's reason when it refuses; the run's JSON after it.
  nlohmann::json run_action(const std::string& name, Time logical, ActionKind kind,
                            const std::string& task = "", const std::string& by = "");
  // A task action (clear-task with its options in `options`, mark-task-success,
  // mark-task-failed; serve_task_actions.cpp) asked `by` a token's name, or with `dry_run`
  // only what it would change. 404 for an unknown pipeline, run or task; 409 with the
  // scheduler's reason when it refuses. Returns {"action", "dryRun", "runState": {"from",
  // "to"}, "changes": [{"task", "from", "to", "stopsAttempt"}], "run": Run} (web/API.md).
  nlohmann::json task_action(const std::string& name, Time logical, const OperatorAction& options,
                             const std::string& by, bool dry_run);
  // The story of attempt `number` (1 for the first) of a task (attempt_log.hpp; web/API.md,
  // "Attempt log"): `text`, and in the live world the attempt's id for live_pod_logs().
  // ApiError 404 for an unknown pipeline, run, task or attempt number.
  struct AttemptLog {
    std::string text;
    AttemptId id = 0;
    bool live = false;
  };
  AttemptLog attempt_log(const std::string& name, Time logical, const std::string& task,
                         size_t number);
  // The pods' logs of attempt `id` in the live world (ServeWorld::pod_logs()). Any thread.
  std::string live_pod_logs(AttemptId id) { return world_->pod_logs(id); }
  nlohmann::json pools();
  nlohmann::json cluster();
  nlohmann::json queue();
  // Prometheus text of the orchestrator: runs by state, attempt latency, queue, GPUs.
  std::string prometheus();
  // Writes what is pending and closes nothing yet (the destructor does).
  void flush();

 private:
  // A new PublishingRunStore and RunScheduler, the catalog loaded into them (reads only).
  void build_scheduler();
  // The restart rules (recover(), pauses, switch_on()) in one transaction. Throws StoreError.
  void resume();
  // A request that changes something: all or nothing (one transaction), events published
  // after it committed; while the database cannot be written, refused at once.
  // (serve_engine_guarded.hpp)
  template <typename F>
  nlohmann::json guarded(F&& change);
  // 404 unless `name` is a pipeline with a run at `logical` and, when given, a task `task`.
  const PipelineSpec& require_run(const std::string& name, Time logical, const std::string& task);
  void commit_request();
  // See STORAGE FAILURES.
  void storage_failed(const StoreError& e);
  ApiError storage_answer() const;
  // start(): the stored documents, loaded together.
  void load_catalog();
  void add_problem(const std::string& document, const std::string& message);
  void clear_problem(const std::string& document);
  std::string problem_of(const std::string& document) const;  // "" when none
  nlohmann::json summary(const PipelineSpec& spec, bool paused);
  const PipelineSpec* find(const std::string& name) const;
  // {"runs", "missedTicks", "catchup", "first", "last"}: what switching `p`'s schedule on now
  // would start at once (its missed ticks since its start or its last tick; catchup false:
  // at most the latest); null without a schedule.
  nlohmann::json catch_up_preview(const PipelineSpec& p) const;
  nlohmann::json validation_errors(const std::vector<InputError>& errors, const std::string& file);
  nlohmann::json node_json(NodeId n) const;
  // Names a pipeline applied here (cluster_json.hpp: a gang "pipeline/task@..." is its task's).
  IsPipeline is_pipeline() const;
  // The world acted: once the current event is done, every node whose Cluster::version()
  // moved is published as a "cluster" event (the whole Node of GET /cluster).
  void cluster_changed();
  void publish_changed_nodes();

  ServeConfig config_;
  EventBus& bus_;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<SqliteRunStore> sqlite_;
  std::unique_ptr<PublishingRunStore> store_;
  std::unique_ptr<PipelineCatalog> catalog_;
  std::unique_ptr<RunQueries> queries_;
  std::unique_ptr<ServeWorld> world_;
  std::unique_ptr<RunScheduler> scheduler_;
  std::unique_ptr<std::ostream> action_lines_;
  std::unique_ptr<ActionLog> action_log_;
  std::vector<uint64_t> published_version_;  // per node
  WorkloadTrail trail_;                      // the action log by workload (attempt logs)
  bool publish_pending_ = false;
  std::map<std::string, PipelineSpec> pipelines_;  // applied, by name
  std::map<std::string, bool> paused_;
  std::map<std::string, PoolSpec> pools_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> stopping_{false};
  // Schedulers stopped by a storage failure, with their stores: kept, since an executor may
  // still hold pointers into their pipelines (AttemptRequest); a failure is rare.
  std::vector<std::pair<std::unique_ptr<RunScheduler>, std::unique_ptr<PublishingRunStore>>>
      halted_;
  std::string storage_problem_;  // empty while the database can be written
  bool storage_full_ = false;
  std::optional<TimerId> storage_retry_;
  mutable std::mutex problems_mu_;               // guards problems_
  std::map<std::string, std::string> problems_;  // "Kind/name" -> why
};

}  // namespace gantry::web
