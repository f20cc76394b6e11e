#include "web/server/serve_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <set>

#include "adapters/simcluster/cluster_task_executor.hpp"
#include "engine/core/clock.hpp"
#include "engine/core/errors.hpp"
#include "engine/store/store_error.hpp"
#include "web/server/api_server.hpp"
#include "web/server/cluster_json.hpp"
#include "web/server/document_split.hpp"
#include "web/server/line_stream.hpp"
#include "web/server/serve_engine_guarded.hpp"
#include "web/server/utf8_text.hpp"
#include "web/server/yaml_json.hpp"
#include "workflow/cron/cron.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"
#include "workflow/pipeline/pipeline_params.hpp"
#include "workflow/runner/timeline.hpp"
#include "workflow/runner/window_limit.hpp"
#include "workflow/store/sqlite_run_store.hpp"

namespace gantry::web {

namespace {

// Runs a schedule's catch-up creates per turn of the loop: tens of milliseconds of SQLite
// commits (a run is a few inserts; bench/RESULTS.md: ~18 us per commit).
constexpr size_t kCatchUpSlice = 500;

Time wall_now() {
  return Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count());
}

nlohmann::json pool_json(const PoolSpec& p, const nlohmann::json& use) {
  return {{"name", p.name},
          {"slots", p.slots},
          {"inUse", use.value("inUse", 0)},
          {"waiting", use.value("waiting", 0)},
          {"maxWait",
           p.max_wait ? nlohmann::json(format_duration(*p.max_wait)) : nlohmann::json(nullptr)}};
}

bool same_pool(const PoolSpec& a, const PoolSpec& b) {
  return a.slots == b.slots && a.max_wait == b.max_wait;
}

}  // namespace

ServeEngine::ServeEngine(ServeConfig config, EventBus& bus)
    : config_(std::move(config)), bus_(bus) {
  if (!config_.log) config_.log = [](const std::string& line) { std::cerr << line << '\n'; };
  sqlite_ = std::make_unique<SqliteRunStore>(config_.db_path, RunStoreOptions{.batch = 1});
  if (config_.commit_hook) sqlite_->set_commit_hook(config_.commit_hook);
  // The catalog on the runs store's connection: a request's catalog and run changes are one
  // transaction (guarded()).
  catalog_ = std::make_unique<PipelineCatalog>(sqlite_->database());
  queries_ = std::make_unique<RunQueries>(config_.db_path);
  const Time start = std::max(wall_now(), sqlite_->latest_instant().value_or(Time::epoch()));
  loop_ = std::make_unique<EventLoop>(std::make_unique<WallClock>(start, config_.speed));
  if (config_.world == "sim") {
    world_ = make_sim_world(*loop_, config_.cluster_file, config_.seed);
  } else if (config_.world == "kube") {
    world_ = make_kube_world(*loop_, config_.kube, config_.cluster_file);
  } else {
    throw GantryError("--world: expected sim or kube, got '" + config_.world + "'");
  }
  action_lines_ = std::make_unique<LineStream>([this](std::string&& line) {
    trail_.note(line);
    if (config_.action_line) config_.action_line(line);
    cluster_changed();
  });
  action_log_ = std::make_unique<ActionLog>(*action_lines_, world_->cluster());
  world_->set_action_log(action_log_.get());
}

void ServeEngine::cluster_changed() {
  if (publish_pending_) return;
  publish_pending_ = true;
  loop_->schedule_after(Duration(0), [this] { publish_changed_nodes(); });
}

void ServeEngine::publish_changed_nodes() {
  publish_pending_ = false;
  const Cluster& c = world_->cluster();
  published_version_.resize(static_cast<size_t>(c.node_count()), 0);
  for (NodeId n = 0; n < c.node_count(); ++n) {
    if (c.version(n) == published_version_[static_cast<size_t>(n)]) continue;
    published_version_[static_cast<size_t>(n)] = c.version(n);
    bus_.publish("cluster", json_text(node_json(n)));
  }
}

ServeEngine::~ServeEngine() = default;

void ServeEngine::build_scheduler() {
  store_ = std::make_unique<PublishingRunStore>(*sqlite_, bus_);
  scheduler_ = std::make_unique<RunScheduler>(*loop_, *store_, world_->executor());
  scheduler_->set_lost_attempts(config_.lost_attempts);
  // A long catch-up (a restart after a long outage) goes on in slices: the loop keeps answering
  // requests and honours a stop in between.
  scheduler_->set_catch_up_slice(kCatchUpSlice);
  // A server runs for months: its memory follows the runs in flight, not the history (the
  // REST API reads the history from SQLite, RunQueries).
  scheduler_->keep_finished(SchedulerCore::KeepFinished::kRecent);
  pipelines_.clear();
  paused_.clear();
  pools_.clear();
  load_catalog();
}

void ServeEngine::resume() {
  // One transaction: a restart's settling of what was running is kept whole or not at all.
  sqlite_->begin_group();
  store_->hold();
  store_->seed_counts(sqlite_->count_runs_by_state());
  scheduler_->recover();
  for (const auto& [name, paused] : paused_) {
    if (!paused) continue;
    OperatorAction pause;
    pause.at = loop_->now();
    pause.kind = ActionKind::kPause;
    pause.pipeline = name;
    scheduler_->apply(pause);
  }
  scheduler_->switch_on();
  sqlite_->commit_group();
  store_->release();
}

void ServeEngine::start() {
  build_scheduler();
  world_->prepare();
  try {
    resume();
  } catch (const StoreError& e) {
    storage_failed(e);
  }
  world_->start();
  ready_ = true;
}

void ServeEngine::run_until(Time horizon) {
  while (!stopping_) {
    try {
      loop_->run_until(horizon);
      return;
    } catch (const StoreError& e) {
      // A write of an event failed (the disk is full): the event is over, the loop goes on.
      storage_failed(e);
    }
  }
}

void ServeEngine::stop() {
  stopping_ = true;
  loop_->stop();
}

ApiError ServeEngine::storage_answer() const {
  return ApiError(storage_full_ ? 507 : 503, storage_full_ ? "insufficient_storage" : "unavailable",
                  storage_problem_ + "; nothing was changed");
}

void ServeEngine::storage_failed(const StoreError& e) {
  // What the failed change wrote is undone (SqliteRunStore); what the scheduler did in memory
  // is not what the database holds any more: it stops, its attempts are killed, and a new one
  // is built from the database (the restart rules) once a write succeeds again.
  sqlite_->rollback_group();
  store_->discard();
  scheduler_->halt();
  // Kept, not destroyed: an executor may still hold pointers into its pipelines.
  halted_.emplace_back(std::move(scheduler_), std::move(store_));
  storage_full_ = (e.code() & 0xff) == StoreError::kFull;
  storage_problem_ = (storage_full_ ? "the disk of the runs database is full: "
                                    : "the runs database cannot be written: ") +
                     std::string(e.what());
  add_problem("database",
              storage_problem_ + "; the orchestrator waits and tries again every second");
  build_scheduler();
  if (!storage_retry_) {
    storage_retry_ = loop_->schedule_after(Duration::from_seconds(config_.speed), [this] {
      storage_retry_.reset();
      retry_storage();
    });
  }
}

bool ServeEngine::retry_storage() {
  if (storage_problem_.empty()) return true;
  try {
    sqlite_->check_writable();
    resume();
  } catch (const StoreError& e) {
    storage_failed(e);
    return false;
  }
  storage_problem_.clear();
  clear_problem("database");
  config_.log("gantry serve: the runs database can be written again; the orchestrator goes on");
  return true;
}

namespace {

// The file name a stored document's errors carry: "catalog Pipeline/feature-etl".
std::string catalog_file(const std::string& kind, const std::string& name) {
  return "catalog " + kind + "/" + name;
}

}  // namespace

void ServeEngine::load_catalog() {
  // The catalog is loaded as a whole, as apply() checks a body beside the stored pools: a
  // pipeline may name a pool stored as a document of its own.
  const std::vector<CatalogEntry> entries = catalog_->all();
  std::vector<PipelineSource> sources;
  for (const CatalogEntry& e : entries) sources.push_back({catalog_file(e.kind, e.name), e.yaml});
  PipelineDocuments docs;
  std::map<std::string, std::string> errors;  // by file, one error per line
  for (const InputError& e : validate_pipeline_sources(sources, docs)) {
    std::string& text = errors[e.where().file];
    text += (text.empty() ? "" : "\n") + std::string(e.what());
  }
  std::set<std::string> refused;  // documents found wrong by this load
  const auto refuse = [&](const std::string& kind, const std::string& name, std::string why) {
    if (why.empty()) why = catalog_file(kind, name) + ": not loaded";
    refused.insert(kind + "/" + name);
    add_problem(kind + "/" + name, why);
  };
  std::map<std::string, bool> paused;
  for (const CatalogEntry& e : entries)
    if (e.kind == "Pipeline") paused[e.name] = e.paused;
  for (const PoolSpec& pool : docs.pools) {
    try {
      scheduler_->add_pool(pool);
      pools_[pool.name] = pool;
    } catch (const std::exception& ex) {
      refuse("Pool", pool.name, catalog_file("Pool", pool.name) + ": " + ex.what());
    }
  }
  for (const PipelineSpec& p : docs.pipelines) {
    try {
      scheduler_->add_pipeline(p);
      pipelines_[p.name] = p;
      paused_[p.name] = paused[p.name];
    } catch (const std::exception& ex) {
      refuse("Pipeline", p.name, catalog_file("Pipeline", p.name) + ": " + ex.what());
    }
  }
  // Whatever was not loaded is named, with every error found in it (or, for a document that
  // is valid alone, the errors that made it fail: a pool that is missing).
  std::map<std::string, std::string> unloaded;
  for (const CatalogEntry& e : entries) {
    const bool loaded =
        e.kind == "Pool" ? pools_.count(e.name) != 0 : pipelines_.count(e.name) != 0;
    if (loaded) continue;
    const std::string document = e.kind + "/" + e.name;
    if (refused.count(document) == 0) refuse(e.kind, e.name, errors[catalog_file(e.kind, e.name)]);
    if (e.kind == "Pipeline") unloaded[e.name] = problem_of(document);
  }
  scheduler_->set_unloaded_pipelines(std::move(unloaded));
  // Loaded again after a storage failure: a document gone or loaded now is no problem.
  std::vector<std::string> solved;
  {
    std::lock_guard lock(problems_mu_);
    for (const auto& [document, message] : problems_) {
      if (document == "database") continue;
      const size_t slash = document.find('/');
      const std::string kind = document.substr(0, slash), name = document.substr(slash + 1);
      const bool loaded = kind == "Pool" ? pools_.count(name) != 0 : pipelines_.count(name) != 0;
      const bool stored = std::any_of(entries.begin(), entries.end(), [&](const CatalogEntry& e) {
        return e.kind == kind && e.name == name;
      });
      if (loaded || !stored) solved.push_back(document);
    }
  }
  for (const std::string& d : solved) clear_problem(d);
}

void ServeEngine::add_problem(const std::string& document, const std::string& message) {
  {
    std::lock_guard lock(problems_mu_);
    std::string& known = problems_[document];
    if (known == message) return;  // said already (the catalog is loaded again after a failure)
    known = message;
  }
  config_.log("error: " + document + (document == "database" ? ": " : " could not be loaded: ") +
              message);
  // A message may quote bytes of the document that are not UTF-8: escaped, never a throw.
  bus_.publish("error", json_text(nlohmann::json({{"document", document}, {"message", message}})));
}

void ServeEngine::clear_problem(const std::string& document) {
  std::lock_guard lock(problems_mu_);
  problems_.erase(document);
}

std::string ServeEngine::problem_of(const std::string& document) const {
  std::lock_guard lock(problems_mu_);
  const auto it = problems_.find(document);
  return it == problems_.end() ? std::string() : it->second;
}

std::vector<std::string> ServeEngine::problems() const {
  std::lock_guard lock(problems_mu_);
  std::vector<std::string> out;
  for (const auto& [document, message] : problems_)
    out.push_back(document + (document == "database" ? ": " : " could not be loaded: ") + message);
  return out;
}

void ServeEngine::commit_request() {
  try {
    sqlite_->commit_group();
  } catch (const StoreError& e) {
    storage_failed(e);
    throw storage_answer();
  }
  store_->release();
}

nlohmann::json ServeEngine::validation_errors(const std::vector<InputError>& errors,
                                              const std::string& file) {
  nlohmann::json list = nlohmann::json::array();
  for (const InputError& e : errors) {
    list.push_back({{"file", e.where().file.empty() ? file : e.where().file},
                    {"line", e.where().line},
                    {"column", e.where().column},
                    {"path", e.field()},
                    {"message", e.detail()}});
  }
  return {{"errors", list}};
}

nlohmann::json ServeEngine::apply(const std::string& text, bool dry_run, bool& created,
                                  NewPipelines new_pipelines) {
  return apply_files({{"body", text}}, dry_run, created, new_pipelines);
}

nlohmann::json ServeEngine::apply_files(const std::vector<PipelineSource>& files, bool dry_run,
                                        bool& created, NewPipelines new_pipelines) {
  return guarded([&]() -> nlohmann::json {
    created = false;
    std::vector<DocumentText> pieces;   // every document of every file
    std::vector<PipelineSource> given;  // the files as loaded
    for (const PipelineSource& file : files) {
      std::vector<DocumentText> split = split_documents(file.text);
      // A JSON body (one object or {"items":[...]}) is loaded as the YAML documents
      // split_documents() wrote for it; positions in errors are positions in that YAML.
      const std::string& text = file.text;
      const size_t first = text.find_first_not_of(" \t\r\n");
      const bool json = !split.empty() && first != std::string::npos && text[first] == '{' &&
                        !nlohmann::json::parse(text, nullptr, false).is_discarded();
      given.push_back(file);
      if (json) {
        given.back().text.clear();
        for (const DocumentText& d : split) given.back().text += d.text + "---\n";
      }
      pieces.insert(pieces.end(), split.begin(), split.end());
    }
    // Pools the files declare replace nothing: the loader sees the server's other pools beside
    // them, so a pipeline may name a pool applied earlier.
    std::vector<PipelineSource> sources;
    for (const auto& declared : pools_) {
      const std::string& name = declared.first;  // not a structured binding: lambdas capture it
      const bool redeclared = std::any_of(pieces.begin(), pieces.end(), [&](const DocumentText& d) {
        return d.kind == "Pool" && d.name == name;
      });
      if (redeclared) continue;
      if (const auto entry = catalog_->find("Pool", name))
        sources.push_back({"pool/" + name, entry->yaml});
    }
    const size_t stored = sources.size();
    sources.insert(sources.end(), given.begin(), given.end());
    PipelineDocuments docs;
    const std::vector<InputError> errors = validate_pipeline_sources(sources, docs);
    if (!errors.empty())
      throw ApiError(400, "invalid", "the documents are not valid",
                     validation_errors(errors, given.front().file_name));
    // A schedule whose catch-up would create more runs than a replay may (the CLI's bound) is
    // refused here, at its start, rather than wedging the loop with a million runs.
    std::vector<InputError> too_many;
    for (const PipelineSpec& p : docs.pipelines) {
      if (!p.schedule) continue;
      const std::optional<Time> last = scheduler_->last_tick(p.name);
      if (catch_up_ticks(p, last, loop_->now(), kMaxRunsPerReplay) <= kMaxRunsPerReplay) continue;
      too_many.emplace_back(
          p.schedule->start_where, "spec.schedule.start",
          fmt::format("from {} to now ({}) the cron '{}' fires more than {} times, and catchup "
                      "true would create a run for each: start later, or set catchup: false",
                      format_rfc3339(last ? *last : p.schedule->start),
                      format_rfc3339(loop_->now()), p.schedule->cron, kMaxRunsPerReplay));
    }
    if (!too_many.empty())
      throw ApiError(400, "invalid", "the documents are not valid",
                     validation_errors(too_many, given.front().file_name));
    // Only the files' documents are applied, not the stored pools they were checked beside.
    std::erase_if(docs.pools, [&](const PoolSpec& p) {
      return std::none_of(sources.begin() + static_cast<std::ptrdiff_t>(stored), sources.end(),
                          [&](const PipelineSource& f) { return f.file_name == p.where.file; });
    });
    if (docs.pipelines.empty() && docs.pools.empty())
      throw ApiError(400, "invalid", "no Pipeline or Pool document in the body");

    const auto text_of = [&](const std::string& kind, const std::string& name,
                             const std::string& file) {
      for (const DocumentText& d : pieces)
        if (d.kind == kind && d.name == name) return d.text;
      // A single document whose name could not be read otherwise: its file's text.
      for (const PipelineSource& f : given)
        if (f.file_name == file) return f.text;
      return given.front().text;
    };
    // All or nothing: every refusal is found before anything changes.
    for (const PoolSpec& pool : docs.pools) {
      const auto it = pools_.find(pool.name);
      if (it != pools_.end() && !same_pool(it->second, pool))
        throw ApiError(
            409, "conflict",
            "pool " + pool.name +
                " exists with other settings; a pool changes at the next start of gantry serve");
    }
    // A document applied again exactly as stored changes nothing (kubectl's "unchanged"), also
    // while its runs are in flight: a restart with --pipelines re-applies its folder.
    // A stored document that could not be loaded at start is not unchanged: applying it again
    // is how it is loaded.
    const auto unchanged = [&](const PipelineSpec& p) {
      const auto entry = catalog_->find("Pipeline", p.name);
      return entry && entry->yaml == text_of("Pipeline", p.name, p.file) &&
             pipelines_.count(p.name) != 0;
    };
    for (const PipelineSpec& p : docs.pipelines) {
      if (unchanged(p)) continue;
      const size_t busy = pipelines_.count(p.name) != 0 ? scheduler_->runs_in_flight(p.name) : 0;
      if (busy > 0)
        throw ApiError(409, "conflict",
                       fmt::format("pipeline {} has {} run{} in flight; apply it once they end "
                                   "(pause it to stop new runs)",
                                   p.name, busy, busy == 1 ? "" : "s"));
    }
    nlohmann::json out = {{"pipelines", nlohmann::json::array()},
                          {"pools", nlohmann::json::array()}};
    // Tasks the cluster cannot hold as it is now: a warning, not a refusal (a live cluster's
    // nodes change), but said at once rather than at the first run's error.
    const std::vector<InputError> never_fit =
        tasks_that_never_fit(docs.pipelines, world_->cluster().topology(), "the server's cluster");
    if (!never_fit.empty())
      out["warnings"] = validation_errors(never_fit, given.front().file_name)["errors"];
    const int64_t now_us = loop_->now().micros();
    for (const PoolSpec& pool : docs.pools) {
      if (!dry_run && pools_.count(pool.name) == 0) {
        scheduler_->add_pool(pool);
        pools_[pool.name] = pool;
        created =
            catalog_->put("Pool", pool.name, text_of("Pool", pool.name, pool.where.file), now_us) ||
            created;
        clear_problem("Pool/" + pool.name);
      }
      out["pools"].push_back(pool_json(pool, nlohmann::json::object()));
    }
    const bool start_new = new_pipelines == NewPipelines::kStart;
    for (const PipelineSpec& p : docs.pipelines) {
      const bool is_new = pipelines_.count(p.name) == 0;
      const bool paused = is_new ? !start_new : paused_[p.name];
      nlohmann::json catch_up = catch_up_preview(p);
      if (!dry_run && !unchanged(p)) {
        scheduler_->put_pipeline(p, !start_new);
        sqlite_->save_pipeline(p);
        created = catalog_->put("Pipeline", p.name, text_of("Pipeline", p.name, p.file), now_us) ||
                  created;
        if (is_new) catalog_->set_paused(p.name, paused);
        pipelines_[p.name] = p;
        paused_[p.name] = paused;
        clear_problem("Pipeline/" + p.name);
        store_->publish("pipeline", json_text(summary(p, paused)));
      }
      nlohmann::json s = summary(p, paused);
      if (!catch_up.is_null()) s["catchUp"] = std::move(catch_up);
      out["pipelines"].push_back(std::move(s));
    }
    return out;
  });
}

nlohmann::json ServeEngine::catch_up_preview(const PipelineSpec& p) const {
  if (!p.schedule) return nullptr;
  const ScheduleSpec& s = *p.schedule;
  const std::optional<Time> last = scheduler_->last_tick(p.name);
  const Time now = loop_->now();
  const Time from = std::max(s.start, last ? *last + microseconds(1) : s.start);
  const Time to = s.end ? std::min(*s.end, now) : now;
  // The missed ticks in [from, to], counted as a catch-up with catchup true would run them.
  PipelineSpec all = p;
  all.schedule->catchup = true;
  const size_t missed = catch_up_ticks(all, last, now, kMaxRunsPerReplay);
  nlohmann::json j = {{"missedTicks", missed}, {"catchup", s.catchup}};
  // catchup false runs at most the latest missed tick (startingDeadline and maxMissedRuns may
  // still drop it: the scheduler says so with an event then).
  j["runs"] = s.catchup ? missed : std::min<size_t>(missed, 1);
  j["first"] = nullptr;
  j["last"] = nullptr;
  if (missed > 0 && from <= to) {
    const CronSchedule cron(s.cron, s.timezone);
    const std::optional<Time> first = cron.next_after(from - microseconds(1));
    const std::optional<Time> latest = cron.previous_at_or_before(to);
    if (first && latest) {
      j["first"] = format_rfc3339(s.catchup ? *first : *latest);
      j["last"] = format_rfc3339(*latest);
    }
  }
  return j;
}

const PipelineSpec* ServeEngine::find(const std::string& name) const {
  const auto it = pipelines_.find(name);
  return it == pipelines_.end() ? nullptr : &it->second;
}

nlohmann::json ServeEngine::summary(const PipelineSpec& spec, bool paused) {
  nlohmann::json j;
  j["name"] = spec.name;
  j["namespace"] = spec.namespace_name;
  j["description"] = spec.description;
  j["owner"] = spec.owner.empty() ? nlohmann::json(nullptr) : nlohmann::json(spec.owner);
  j["tags"] = spec.tags;
  j["paused"] = paused;
  nlohmann::json ticks = nlohmann::json::array();
  if (spec.schedule) {
    j["schedule"] = {{"cron", spec.schedule->cron}, {"timezone", spec.schedule->timezone}};
    try {
      const CronSchedule cron(spec.schedule->cron, spec.schedule->timezone);
      Time t = std::max(loop_->now(), spec.schedule->start - microseconds(1));
      for (int i = 0; i < 5; ++i) {
        const std::optional<Time> next = cron.next_after(t);
        if (!next || (spec.schedule->end && *next > *spec.schedule->end)) break;
        ticks.push_back(format_rfc3339(*next));
        t = *next;
      }
    } catch (const std::exception&) {
      // validated at apply; nothing to show otherwise
    }
  } else {
    j["schedule"] = nullptr;
  }
  j["nextTicks"] = std::move(ticks);
  j["tasks"] = spec.tasks.size();
  const auto last = queries_->last_run(spec.name);
  j["lastRun"] =
      last ? nlohmann::json({{"logicalTime", format_rfc3339(last->first)}, {"state", last->second}})
           : nlohmann::json(nullptr);
  j["runsInFlight"] = scheduler_->runs_in_flight(spec.name);
  return j;
}

nlohmann::json ServeEngine::list_pipelines(const PipelineFilter& filter) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [name, spec] : pipelines_) {
    nlohmann::json s = summary(spec, paused_[name]);
    const std::optional<std::string> last =
        s["lastRun"].is_null() ? std::nullopt : std::optional<std::string>(s["lastRun"]["state"]);
    if (pipeline_matches(filter, spec, paused_[name], last)) list.push_back(std::move(s));
  }
  return {{"pipelines", std::move(list)}};
}

nlohmann::json ServeEngine::pipeline(const std::string& name) {
  const PipelineSpec* spec = find(name);
  if (spec == nullptr) throw ApiError(404, "not_found", "no pipeline '" + name + "'");
  nlohmann::json j = summary(*spec, paused_[name]);
  const auto entry = catalog_->find("Pipeline", name);
  j["yaml"] = entry ? entry->yaml : "";
  nlohmann::json params = nlohmann::json::array();
  for (const ParamSpec& p : spec->params) {
    params.push_back({{"name", p.name},
                      {"type", to_string(p.type)},
                      {"default", p.default_value ? nlohmann::json::parse(*p.default_value)
                                                  : nlohmann::json(nullptr)},
                      {"description", p.description}});
  }
  j["params"] = std::move(params);
  j["spec"] = nullptr;
  if (entry) {
    try {
      j["spec"] = yaml_to_json(entry->yaml);
    } catch (const std::exception&) {
    }
  }
  return j;
}

nlohmann::json ServeEngine::delete_pipeline(const std::string& name, bool purge) {
  return guarded([&]() -> nlohmann::json {
    const bool loaded = find(name) != nullptr;
    if (!loaded && problem_of("Pipeline/" + name).empty())
      throw ApiError(404, "not_found", "no pipeline '" + name + "'");
    if (loaded) {
      try {
        scheduler_->remove_pipeline(name, purge);
      } catch (const PipelineBusy& e) {
        throw ApiError(409, "conflict", e.what());
      }
    }
    // Stored but not loaded at start: deleting it is one way to clear its problem.
    catalog_->remove("Pipeline", name);
    clear_problem("Pipeline/" + name);
    pipelines_.erase(name);
    paused_.erase(name);
    const int64_t stored = sqlite_->count_runs(name);
    const int64_t purged = purge ? sqlite_->purge_pipeline(name) : 0;
    if (purged > 0) store_->seed_counts(sqlite_->count_runs_by_state());
    store_->publish("pipeline", json_text(nlohmann::json({{"name", name}, {"deleted", true}})));
    return {{"deleted", name},
            {"purged", purge},
            {"runsKept", stored - purged},
            {"runsPurged", purged}};
  });
}

nlohmann::json ServeEngine::set_paused(const std::string& name, bool paused) {
  return guarded([&]() -> nlohmann::json {
    const PipelineSpec* spec = find(name);
    if (spec == nullptr) throw ApiError(404, "not_found", "no pipeline '" + name + "'");
    OperatorAction a;
    a.at = loop_->now();
    a.kind = paused ? ActionKind::kPause : ActionKind::kResume;
    a.pipeline = name;
    scheduler_->apply(a);
    paused_[name] = paused;
    catalog_->set_paused(name, paused);
    nlohmann::json j = summary(*spec, paused);
    store_->publish("pipeline", json_text(j));
    return j;
  });
}

nlohmann::json ServeEngine::trigger(const std::string& name, const nlohmann::json& params) {
  return guarded([&]() -> nlohmann::json {
    const PipelineSpec* spec = find(name);
    if (spec == nullptr) throw ApiError(404, "not_found", "no pipeline '" + name + "'");
    OperatorAction a;
    try {
      a.params = resolve_params(*spec, params);
    } catch (const std::invalid_argument& e) {
      throw ApiError(400, "bad_request", e.what());
    }
    a.at = loop_->now();
    a.kind = ActionKind::kTrigger;
    a.pipeline = name;
    if (const auto refused = scheduler_->apply(a)) throw ApiError(409, "conflict", *refused);
    const Run* run = scheduler_->find_run(name, a.at);
    return run != nullptr ? nlohmann::json(run_json(*run)) : nlohmann::json(nullptr);
  });
}

nlohmann::json ServeEngine::backfill(const std::string& name, Time from, Time to,
                                     BackfillRerun rerun) {
  return guarded([&]() -> nlohmann::json {
    const PipelineSpec* spec = find(name);
    if (spec == nullptr) throw ApiError(404, "not_found", "no pipeline '" + name + "'");
    if (!spec->schedule)
      throw ApiError(422, "unprocessable", "pipeline " + name + " has no schedule to backfill");
    if (to < from) throw ApiError(400, "bad_request", "to is before from");
    // The bound of `gantry pipeline backfill`: a window is created in one step.
    if (backfill_ticks(*spec, from, to, kMaxRunsPerReplay) > kMaxRunsPerReplay)
      throw ApiError(400, "bad_request",
                     fmt::format("to: the window {} .. {} would create more than {} runs (cron "
                                 "'{}'); shorten the window or split it",
                                 format_rfc3339(from), format_rfc3339(to), kMaxRunsPerReplay,
                                 spec->schedule->cron));
    const BackfillReport r = scheduler_->backfill(name, from, to, rerun);
    return {{"created", r.created}, {"rerun", r.rerun}, {"untouched", r.untouched}};
  });
}

const PipelineSpec& ServeEngine::require_run(const std::string& name, Time logical,
                                             const std::string& task) {
  const PipelineSpec* spec = find(name);
  if (spec == nullptr) throw ApiError(404, "not_found", "no pipeline '" + name + "'");
  if (scheduler_->fetch_run(name, logical) == nullptr)
    throw ApiError(404, "not_found", "no run of " + name + " at " + format_rfc3339(logical));
  if (!task.empty() && std::none_of(spec->tasks.begin(), spec->tasks.end(),
                                    [&](const TaskSpec& t) { return t.name == task; }))
    throw ApiError(404, "not_found", "pipeline '" + name + "' has no task '" + task + "'");
  return *spec;
}

nlohmann::json ServeEngine::run_action(const std::string& name, Time logical, ActionKind kind,
                                       const std::string& task, const std::string& by) {
  return guarded([&]() -> nlohmann::json {
    require_run(name, logical, task);
    OperatorAction a;
    a.at = loop_->now();
    a.kind = kind;
    a.pipeline = name;
    a.logical_time = logical;
    a.task = task;
    a.by = by;
    if (const auto refused = scheduler_->apply(a)) throw ApiError(409, "conflict", *refused);
    return run_json(*scheduler_->fetch_run(name, logical));
  });
}

nlohmann::json ServeEngine::pools() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [name, pool] : pools_) {
    const auto use = scheduler_->pool_usage(name);
    list.push_back(
        pool_json(pool, {{"inUse", use ? use->in_use : 0}, {"waiting", use ? use->waiting : 0}}));
  }
  return {{"pools", std::move(list)}};
}

IsPipeline ServeEngine::is_pipeline() const {
  return [this](const std::string& p) { return pipelines_.count(p) != 0; };
}

nlohmann::json ServeEngine::node_json(NodeId n) const {
  return web::node_json(*world_, n, is_pipeline());
}

nlohmann::json ServeEngine::cluster() { return cluster_json(*world_, is_pipeline()); }

nlohmann::json ServeEngine::queue() { return queue_json(*world_, is_pipeline()); }

std::string ServeEngine::prometheus() {
  const RunMetrics m = store_->metrics();
  std::string out =
      "# HELP gantry_runs Runs by state.\n"
      "# TYPE gantry_runs gauge\n";
  for (const auto& [state, n] : m.runs_by_state)
    out += fmt::format("gantry_runs{{state=\"{}\"}} {}\n", state, n);
  out +=
      "# HELP gantry_attempt_duration_seconds Task attempts from running (or request) to end.\n"
      "# TYPE gantry_attempt_duration_seconds histogram\n";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < RunMetrics::kBuckets.size(); ++i) {
    cumulative += m.attempt_le[i];
    out += fmt::format("gantry_attempt_duration_seconds_bucket{{le=\"{}\"}} {}\n",
                       RunMetrics::kBuckets[i], cumulative);
  }
  out +=
      fmt::format("gantry_attempt_duration_seconds_bucket{{le=\"+Inf\"}} {}\n", m.attempts_ended);
  out += fmt::format("gantry_attempt_duration_seconds_sum {}\n", m.attempt_seconds_sum);
  out += fmt::format("gantry_attempt_duration_seconds_count {}\n", m.attempts_ended);
  const Cluster& c = world_->cluster();
  out +=
      "# HELP gantry_queue_length Gangs waiting for the cluster.\n# TYPE gantry_queue_length "
      "gauge\n";
  out += fmt::format("gantry_queue_length {}\n", world_->scheduler().queued());
  out += "# HELP gantry_gpus GPUs of the cluster by state.\n# TYPE gantry_gpus gauge\n";
  int allocated = 0;
  for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(c.topology().gpus.size()); ++t)
    allocated += c.allocated_gpus(t);
  out += fmt::format("gantry_gpus{{state=\"allocated\"}} {}\ngantry_gpus{{state=\"total\"}} {}\n",
                     allocated, c.total_gpus());
  return out;
}

void ServeEngine::flush() { sqlite_->flush(); }

}  // namespace gantry::web
