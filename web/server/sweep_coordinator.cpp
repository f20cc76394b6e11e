#include "web/server/sweep_coordinator.hpp"

#include <algorithm>
#include <random>
#include <set>

#include "engine/config/config_errors.hpp"
#include "engine/core/clock.hpp"
#include "engine/core/errors.hpp"
#include "report/sweep_report.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "sim/sweep/sweep_summary.hpp"
#include "sim/sweep/sweep_variants.hpp"
#include "web/server/scenario_paths.hpp"

namespace gantry::web {

namespace {

namespace fs = std::filesystem;

// The longest message kept of a shard's failure report (a stack of errors, not a log).
constexpr size_t kMaxFailureMessage = 16 * 1024;
// What a refused long poll (too many waiting already) suggests to wait before the next.
constexpr long long kRetryAfterMs = 2000;

std::string random_suffix() {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device rd;
  std::string out;
  for (int i = 0; i < 6; ++i) out += kChars[rd() % (sizeof kChars - 1)];
  return out;
}

int64_t coordinator_now_us() { return system_now().micros(); }

nlohmann::json json_time_or_null(int64_t us) {
  if (us == 0) return nullptr;
  return format_rfc3339(Time::from_micros(us));
}

// An InputError (or each of InputErrors) with the private folder's paths shown as the user's.
[[noreturn]] void rethrow_shown(const InputError& e, const SweepFolder& folder) {
  const auto shown = [&folder](const InputError& one) {
    SourceLocation where = one.where();
    where.file = folder.shown(where.file);
    return InputError(where, one.field(), folder.shown(one.detail()));
  };
  if (const auto* all = dynamic_cast<const InputErrors*>(&e)) {
    std::vector<InputError> list;
    for (const InputError& one : all->errors()) list.push_back(shown(one));
    throw InputErrors(std::move(list));
  }
  throw shown(e);
}

// Loads the sweep from `folder` as `gantry sweep` loads it from the user's folder; with
// `check_points`, also every point's scenario (build_sweep_variants), the base's data files
// confined to the folder. The spec's file and base are then shown as the user's paths.
SweepSpec load_from(const SweepFolder& folder, const SweepDocuments& docs, bool check_points) {
  try {
    const std::string& text = docs.files.at(docs.sweep);
    SweepSpec spec = load_sweep_text(text, folder.sweep_file());
    if (check_points) {
      // Every `file:` of the base must be a document of the sweep's own folder, never a file of
      // the server's (what a data file's errors would reveal).
      if (!inside_folder(folder.path(), spec.base))
        throw InputError(spec.base_where, "spec.base",
                         "the base must be one of the posted documents");
      const std::string base_key = fs::path(spec.base).lexically_relative(folder.path()).string();
      const auto base = docs.files.find(base_key);
      if (base == docs.files.end())
        throw InputError(spec.base_where, "spec.base",
                         "the base '" + base_key + "' is not among the posted documents");
      check_data_paths(base->second, spec.base, folder.path(), fs::path(spec.base).parent_path());
      build_sweep_variants(spec, confined_trace_loaders(folder.path(), "the posted documents"));
    }
    spec.file = folder.shown(spec.file);
    spec.base = folder.shown(spec.base);
    return spec;
  } catch (const InputError& e) {
    rethrow_shown(e, folder);
  } catch (const GantryError& e) {
    throw GantryError(folder.shown(e.what()));
  }
}

}  // namespace

struct SweepCoordinator::Sweep {
  StoredSweep stored;
  std::vector<ShardRange> ranges;
  std::map<size_t, PostedRun> runs;  // by run index: committed
  struct Pending {
    PostedRun run;
    uint64_t batch = 0;  // the group commit that stores it
  };
  std::map<size_t, Pending> pending;  // posted, being committed: not yet acknowledged
  std::vector<ShardFailure> failures;
  std::unique_ptr<SweepSpec> spec;  // loaded when first needed
  // Waiters for any change of the count, and for the end only (a pod's watch for cancellation
  // must not wake at every run of a thousand pods).
  std::condition_variable progressed, ended;
  std::optional<nlohmann::json> result;  // {"result","report","charts"} once done
};

SweepCoordinator::SweepCoordinator(const std::string& db_path, TokenStore& tokens, EventBus& bus,
                                   Options options)
    : store_(db_path), tokens_(tokens), bus_(bus), options_(options) {
  for (StoredSweep& stored : store_.sweeps()) {
    auto s = std::make_unique<Sweep>();
    s->ranges = split_runs(stored.runs, stored.shards);
    for (PostedRun& r : store_.runs(stored.id)) s->runs.emplace(r.run, std::move(r));
    s->failures = store_.failures(stored.id);
    next_number_ = std::max(next_number_, stored.number + 1);
    s->stored = std::move(stored);
    // A server stopped between the last run's commit and the state's: the sweep is done.
    if (s->stored.state == "running" && s->runs.size() == s->stored.runs) {
      s->stored.state = "done";
      s->stored.ended_us = coordinator_now_us();
      store_.set_state(s->stored.id, "done", s->stored.ended_us);
      tokens_.revoke_scope(s->stored.id);
    }
    sweeps_.emplace(s->stored.id, std::move(s));
  }
}

SweepCoordinator::~SweepCoordinator() { close(); }

void SweepCoordinator::close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  for (auto& [id, s] : sweeps_) {
    s->progressed.notify_all();
    s->ended.notify_all();
  }
}

size_t SweepCoordinator::waiting() {
  std::lock_guard lock(mu_);
  return waiters_;
}

SubmittedSweep SweepCoordinator::submit(const SweepDocuments& documents, size_t shards) {
  if (shards < 1 || shards > options_.max_shards)
    throw CoordinatorError(CoordinatorError::kBadRequest, "shards: expected 1 to " +
                                                              std::to_string(options_.max_shards) +
                                                              ", got " + std::to_string(shards));
  // Everything is checked (and loaded once) before anything is stored, outside the mutex:
  // loading every point of a large sweep takes a while.
  const SweepFolder folder(documents);
  const SweepSpec spec = load_from(folder, documents, true);

  auto s = std::make_unique<Sweep>();
  StoredSweep& st = s->stored;
  st.name = spec.name;
  st.documents = documents;
  st.runs = spec.points.size() * static_cast<size_t>(spec.seeds);
  s->ranges = split_runs(st.runs, shards);
  st.shards = s->ranges.size();
  st.seeds = spec.seeds;
  st.metrics = spec.metrics.size();
  st.state = "running";
  st.created_us = coordinator_now_us();
  s->spec = std::make_unique<SweepSpec>(spec);

  std::lock_guard lock(mu_);
  st.number = next_number_++;
  st.id = "sw-" + std::to_string(st.number) + "-" + random_suffix();
  SubmittedSweep out{st.id, st.shards, st.runs, {}};
  // The token first: a crash between the two leaves a token for no sweep (its routes answer
  // 404), never a sweep whose workers cannot be told apart.
  out.token = tokens_.create(TokenRole::kSweepWorker, "workers of sweep " + st.id, st.id);
  {
    std::lock_guard store_lock(store_mu_);
    store_.insert_sweep(st);
  }
  Sweep& added = *sweeps_.emplace(st.id, std::move(s)).first->second;
  publish(added);
  return out;
}

SweepCoordinator::Sweep& SweepCoordinator::find(const std::string& id) {
  const auto it = sweeps_.find(id);
  if (it == sweeps_.end())
    throw CoordinatorError(CoordinatorError::kNotFound, "no distributed sweep '" + id + "'");
  return *it->second;
}

const ShardRange& SweepCoordinator::range_of(Sweep& s, size_t shard) {
  if (shard >= s.ranges.size())
    throw CoordinatorError(CoordinatorError::kNotFound, "sweep " + s.stored.id +
                                                            " has shards 0 to " +
                                                            std::to_string(s.ranges.size() - 1) +
                                                            ", not " + std::to_string(shard));
  return s.ranges[shard];
}

ShardWork SweepCoordinator::shard(const std::string& id, size_t shard) {
  std::lock_guard lock(mu_);
  Sweep& s = find(id);
  ShardWork w;
  w.range = range_of(s, shard);
  w.documents = documents_json(s.stored.documents);
  w.state = s.stored.state;
  w.shard = shard;
  w.shards = s.ranges.size();
  for (auto it = s.runs.lower_bound(w.range.begin); it != s.runs.end() && it->first < w.range.end;
       ++it)
    w.recorded.push_back(it->first);
  return w;
}

PostOutcome SweepCoordinator::post_runs(const std::string& id, size_t shard,
                                        const std::vector<PostedRun>& runs) {
  std::unique_lock lock(mu_);
  Sweep& s = find(id);
  const ShardRange range = range_of(s, shard);
  if (s.stored.state == "cancelled")
    throw CoordinatorError(CoordinatorError::kConflict,
                           "sweep " + id + " was cancelled: its runs are no longer recorded");
  PostOutcome out;
  std::vector<const PostedRun*> fresh;
  uint64_t wait_for = 0;  // the batch whose commit makes every run of this post durable
  for (size_t i = 0; i < runs.size(); ++i) {
    const PostedRun& r = runs[i];
    const std::string where = "runs[" + std::to_string(i) + "]";
    if (r.run < range.begin || r.run >= range.end)
      throw CoordinatorError(CoordinatorError::kBadRequest,
                             where + ".run: " + std::to_string(r.run) + " is not a run of shard " +
                                 std::to_string(shard) + " (runs " + std::to_string(range.begin) +
                                 " to " + std::to_string(range.end - 1) + ")");
    if (r.metrics.size() != s.stored.metrics)
      throw CoordinatorError(CoordinatorError::kBadRequest,
                             where + ".metrics: expected " + std::to_string(s.stored.metrics) +
                                 " values (the sweep's metrics), got " +
                                 std::to_string(r.metrics.size()));
    for (size_t j = 0; j < i; ++j)
      if (runs[j].run == r.run)
        throw CoordinatorError(CoordinatorError::kBadRequest,
                               where + ".run: run " + std::to_string(r.run) + " is posted twice");
    // Recorded, or posted by another request and about to be: the same figures or a conflict.
    const PostedRun* known = nullptr;
    if (const auto it = s.runs.find(r.run); it != s.runs.end()) known = &it->second;
    if (const auto it = s.pending.find(r.run); it != s.pending.end()) {
      known = &it->second.run;
      wait_for = std::max(wait_for, it->second.batch);
    }
    if (known == nullptr) {
      fresh.push_back(&r);
      continue;
    }
    if (known->fingerprint != r.fingerprint || known->seed != r.seed)
      throw CoordinatorError(
          CoordinatorError::kConflict,
          where + ": run " + std::to_string(r.run) + " is recorded with seed " +
              std::to_string(known->seed) + " and fingerprint " +
              std::to_string(known->fingerprint) + "; this post says seed " +
              std::to_string(r.seed) + " and fingerprint " + std::to_string(r.fingerprint) +
              ": two workers disagree about the same simulation (a bug: please report it)");
    ++out.duplicates;
  }
  for (const PostedRun* r : fresh) {
    s.pending[r->run] = {*r, next_batch_};
    pending_.push_back({id, *r});
  }
  if (!fresh.empty()) wait_for = next_batch_;
  out.recorded = fresh.size();
  // Group commit: the first poster to find no commit under way commits everything pending in
  // one transaction, without the mutex; the others wait for the batch that holds their runs.
  // Nobody is answered before their runs are committed.
  while (committed_batch_ < wait_for) {
    if (committing_) {
      committed_cv_.wait(lock);
      continue;
    }
    commit_pending(lock);
  }
  if (const auto failed = failed_batches_.find(wait_for); failed != failed_batches_.end())
    throw std::runtime_error("the runs could not be stored: " + failed->second);
  out.done = s.runs.size();
  out.total = s.stored.runs;
  out.state = s.stored.state;
  return out;
}

void SweepCoordinator::commit_pending(std::unique_lock<std::mutex>& lock) {
  committing_ = true;
  std::vector<PendingRun> batch = std::move(pending_);
  pending_.clear();
  const uint64_t number = next_batch_++;
  lock.unlock();
  std::string error;
  try {
    std::lock_guard store_lock(store_mu_);
    store_.insert_runs(batch);
  } catch (const std::exception& e) {
    error = e.what();
  }
  lock.lock();
  std::set<Sweep*> touched;
  for (PendingRun& p : batch) {
    Sweep& s = *sweeps_.at(p.sweep);
    s.pending.erase(p.run.run);
    if (error.empty()) s.runs.emplace(p.run.run, std::move(p.run));
    touched.insert(&s);
  }
  if (!error.empty()) failed_batches_[number] = error;
  for (Sweep* s : touched) {
    if (s->stored.state == "running" && s->runs.size() == s->stored.runs) end(*s, "done");
    s->progressed.notify_all();
    publish(*s);
  }
  committed_batch_ = number;
  committing_ = false;
  committed_cv_.notify_all();
}

void SweepCoordinator::report_failure(const std::string& id, size_t shard,
                                      const std::string& message) {
  std::lock_guard lock(mu_);
  Sweep& s = find(id);
  range_of(s, shard);
  ShardFailure f{shard, coordinator_now_us(), message.substr(0, kMaxFailureMessage)};
  {
    std::lock_guard store_lock(store_mu_);
    store_.insert_failure(id, f);
  }
  s.failures.push_back(std::move(f));
  s.progressed.notify_all();
  publish(s);
}

nlohmann::json SweepCoordinator::cancel(const std::string& id) {
  std::lock_guard lock(mu_);
  Sweep& s = find(id);
  if (s.stored.state == "done")
    throw CoordinatorError(CoordinatorError::kConflict,
                           "sweep " + id + " is done: there is nothing to cancel");
  if (s.stored.state == "running") {
    end(s, "cancelled");
    s.progressed.notify_all();
    publish(s);
  }
  return to_json(s, false);
}

void SweepCoordinator::end(Sweep& s, const std::string& state) {
  s.stored.state = state;
  s.stored.ended_us = coordinator_now_us();
  {
    std::lock_guard store_lock(store_mu_);
    store_.set_state(s.stored.id, state, s.stored.ended_us);
  }
  // Its pods have nothing left to do: their token stops working (a retried pod is told so,
  // 410, from now on).
  tokens_.revoke_scope(s.stored.id);
  s.ended.notify_all();
}

nlohmann::json SweepCoordinator::wait(const std::string& id, long long after,
                                      std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  Sweep& s = find(id);
  const auto settled = [&] {
    return closed_ || s.stored.state != "running" ||
           (after >= 0 && s.runs.size() != static_cast<size_t>(after));
  };
  nlohmann::json out;
  if (!settled() && timeout.count() > 0) {
    if (waiters_ >= options_.max_waiters) {
      out = progress_json(s);
      out["retry_after_ms"] = kRetryAfterMs;
      return out;
    }
    ++waiters_;
    std::condition_variable& cv = after >= 0 ? s.progressed : s.ended;
    cv.wait_for(lock, timeout, settled);
    --waiters_;
  }
  out = progress_json(s);
  out["retry_after_ms"] = 0;
  return out;
}

nlohmann::json SweepCoordinator::progress_json(const Sweep& s) const {
  return {{"id", s.stored.id},
          {"state", s.stored.state},
          {"runs", {{"done", s.runs.size()}, {"total", s.stored.runs}}},
          {"failures", s.failures.size()}};
}

const SweepSpec& SweepCoordinator::spec_of(Sweep& s) {
  if (!s.spec) {
    // Checked when submitted; loaded again from the stored documents after a restart.
    const SweepFolder folder(s.stored.documents);
    s.spec = std::make_unique<SweepSpec>(load_from(folder, s.stored.documents, false));
  }
  return *s.spec;
}

std::vector<SweepRunResult> SweepCoordinator::run_results(Sweep& s) {
  const SweepSpec& spec = spec_of(s);
  std::vector<SweepRunResult> runs;
  for (const auto& [index, r] : s.runs) {
    const auto [point, seed_index] = run_at(spec, index);
    runs.push_back({point, seed_index, r.seed, r.fingerprint, r.metrics});
  }
  return runs;
}

nlohmann::json SweepCoordinator::to_json(Sweep& s, bool with_result) {
  const StoredSweep& st = s.stored;
  const std::string shown_file =
      st.documents.root.empty() ? st.documents.sweep : st.documents.root + "/" + st.documents.sweep;
  nlohmann::json failures = nlohmann::json::array();
  for (const ShardFailure& f : s.failures)
    failures.push_back(
        {{"shard", f.shard}, {"at", json_time_or_null(f.at_us)}, {"message", f.message}});
  nlohmann::json j = {{"id", st.id},
                      {"name", st.name},
                      {"file", shown_file},
                      {"state", st.state},
                      {"shards", st.shards},
                      {"runs", {{"done", s.runs.size()}, {"total", st.runs}}},
                      {"created", json_time_or_null(st.created_us)},
                      {"ended", json_time_or_null(st.ended_us)},
                      {"failures", failures}};
  if (with_result && st.state == "running") {
    // The figures so far, for a page that shows the points filling in: the same summary and
    // text report over the runs recorded (each point's n is its seeds in so far). Not kept:
    // the next run changes it.
    const SweepSpec& spec = spec_of(s);
    const SweepSummary summary = summarize_sweep(spec, run_results(s));
    j["partial"] = {{"result", nlohmann::json::parse(sweep_json(spec, summary).dump())},
                    {"report", sweep_text_report(spec, summary)}};
  }
  if (with_result && st.state == "done") {
    if (!s.result) {
      const SweepSpec& spec = spec_of(s);
      const SweepSummary summary = summarize_sweep(spec, run_results(s));
      nlohmann::json charts = nlohmann::json::array();
      for (const NamedChart& c : sweep_charts(spec, summary))
        charts.push_back({{"name", c.file}, {"svg", c.svg}});
      // As study_service does: the figures, not the keys' order, are the result.
      s.result = nlohmann::json{{"result", nlohmann::json::parse(sweep_json(spec, summary).dump())},
                                {"report", sweep_text_report(spec, summary)},
                                {"charts", charts}};
    }
    for (const auto& [key, value] : s.result->items()) j[key] = value;
  }
  return j;
}

std::optional<nlohmann::json> SweepCoordinator::describe(const std::string& id, bool with_result) {
  std::lock_guard lock(mu_);
  const auto it = sweeps_.find(id);
  if (it == sweeps_.end()) return std::nullopt;
  return to_json(*it->second, with_result);
}

nlohmann::json SweepCoordinator::list() {
  std::lock_guard lock(mu_);
  std::vector<Sweep*> all;
  for (auto& [id, s] : sweeps_) all.push_back(s.get());
  std::sort(all.begin(), all.end(),
            [](const Sweep* a, const Sweep* b) { return a->stored.number > b->stored.number; });
  nlohmann::json out = nlohmann::json::array();
  for (Sweep* s : all) out.push_back(to_json(*s, false));
  return out;
}

void SweepCoordinator::publish(Sweep& s) {
  bus_.publish("distributed-sweep", to_json(s, false).dump());
}

}  // namespace gantry::web
