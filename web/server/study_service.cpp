#include "web/server/study_service.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/config/quote.hpp"
#include "engine/config/reader.hpp"
#include "engine/core/clock.hpp"
#include "engine/core/errors.hpp"
#include "report/plan_report.hpp"
#include "report/sweep_report.hpp"
#include "sim/plan/plan_loader.hpp"
#include "sim/plan/plan_run.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_summary.hpp"
#include "sim/sweep/sweep_variants.hpp"
#include "web/server/scenario_paths.hpp"

namespace gantry::web {

namespace fs = std::filesystem;

// A job's inputs, checked at submit: one of the two kinds. Plan variants keep a pointer to the
// plan, so both live here together and never move.
struct StudyService::Loaded {
  std::optional<SweepSpec> sweep;
  std::vector<ScenarioSpec> sweep_variants;
  std::optional<PlanSpec> plan;
  std::unique_ptr<PlanVariants> plan_variants;
};

namespace {

// Thrown from a progress callback to stop a cancelled job.
struct StudyCancelled {};

const char* state_name(int s) {
  static const char* kNames[] = {"queued", "running", "done", "failed", "cancelled"};
  return kNames[s];
}

// The base scenario must be a file of the folder, and so must every data file it names.
void check_base(const std::string& base, const SourceLocation& where, const fs::path& folder) {
  if (!inside_folder(folder, base))
    throw InputError(where, "spec.base", "not a file of the scenarios folder");
  check_data_paths(read_text_file(base), base, folder);
}

std::string relative_path(const std::string& path, const fs::path& folder) {
  return fs::path(path).lexically_relative(folder).lexically_normal().string();
}

}  // namespace

StudyService::StudyService(EventBus& bus, size_t keep, size_t max_pending)
    : bus_(bus), keep_(keep), max_pending_(max_pending), worker_([this] { work(); }) {}

StudyService::~StudyService() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (auto& [id, job] : jobs_) job->cancel = true;
  }
  wake_.notify_all();
  worker_.join();
}

std::string StudyService::submit(StudyKind kind, const fs::path& file, const fs::path& folder) {
  auto job = std::make_unique<Job>();
  job->kind = kind;
  job->folder = folder;
  job->file = relative_path(file.string(), folder);
  job->loaded = std::make_unique<Loaded>();
  Loaded& in = *job->loaded;
  const TraceLoaders traces = confined_trace_loaders(folder, "the scenarios folder");
  if (kind == StudyKind::kSweep) {
    in.sweep = load_sweep_file(file.string());
    const size_t points = in.sweep->points.size();
    const size_t runs = points * static_cast<size_t>(in.sweep->seeds);
    if (points > kMaxServedSweepPoints || runs > kMaxServedSweepRuns)
      throw GantryError(fmt::format(
          "{}: {} points × {} seeds = {} runs; the server runs at most {} points and {} runs of "
          "a sweep: run it with gantry sweep {} (on every core, into a results database)",
          job->file, points, in.sweep->seeds, runs, kMaxServedSweepPoints, kMaxServedSweepRuns,
          job->file));
    check_base(in.sweep->base, in.sweep->base_where, folder);
    in.sweep_variants = build_sweep_variants(*in.sweep, traces);
    // Shown relative to the folder: the JSON's "base" is the resolved path.
    in.sweep->base = relative_path(in.sweep->base, folder);
    job->name = in.sweep->name;
    job->total = in.sweep->points.size() * static_cast<size_t>(in.sweep->seeds);
  } else {
    in.plan = load_plan_file(file.string());
    check_base(in.plan->base, in.plan->base_where, folder);
    in.plan_variants = std::make_unique<PlanVariants>(*in.plan, traces);
    in.plan->base = relative_path(in.plan->base, folder);
    job->name = in.plan->name;
    job->total = in.plan->growth.size();
  }
  std::lock_guard lock(mu_);
  const auto pending = [](const auto& entry) {
    return entry.second->state == State::kQueued || entry.second->state == State::kRunning;
  };
  if (static_cast<size_t>(std::count_if(jobs_.begin(), jobs_.end(), pending)) >= max_pending_)
    throw QueueFull("already " + std::to_string(max_pending_) +
                    " sweeps and plans queued or running; wait for one to end or cancel one");
  const bool sweep = kind == StudyKind::kSweep;
  job->id =
      sweep ? "sweep-" + std::to_string(next_sweep_++) : "plan-" + std::to_string(next_plan_++);
  job->number = next_number_++;
  job->created = format_rfc3339(system_now());
  const std::string id = job->id;
  publish(*job);
  jobs_[id] = std::move(job);
  queue_.push_back(id);
  wake_.notify_all();
  return id;
}

void StudyService::work() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const std::string id = queue_.front();
    queue_.pop_front();
    const auto it = jobs_.find(id);
    if (it == jobs_.end()) continue;
    Job& job = *it->second;
    job.state = State::kRunning;
    publish(job);
    lock.unlock();
    run(job);  // the job stays in jobs_ while running: remove() only flags it
    lock.lock();
    job.loaded.reset();  // the variants are not needed any more
    finished_.push_back(id);
    publish(job);
    forget_old();
  }
}

void StudyService::run(Job& job) {
  try {
    if (job.kind == StudyKind::kSweep) {
      run_sweep_job(job);
    } else {
      run_plan_job(job);
    }
  } catch (const StudyCancelled&) {
    std::lock_guard lock(mu_);
    job.state = State::kCancelled;
  } catch (const std::exception& e) {
    std::lock_guard lock(mu_);
    job.state = State::kFailed;
    job.error = relative_to_folder(e.what(), job.folder);
  }
}

void StudyService::report_progress(Job& job, size_t done, size_t total) {
  std::lock_guard lock(mu_);
  if (job.cancel) throw StudyCancelled{};
  job.done = done;
  job.total = total;
  publish(job);
}

void StudyService::run_sweep_job(Job& job) {
  const SweepSpec& sweep = *job.loaded->sweep;
  std::vector<SweepRunResult> runs;
  SweepRunOptions options;
  options.threads = 1;
  options.finished = [&runs](const SweepRunResult& r) { runs.push_back(r); };
  // Between two runs: the place a cancelled sweep stops.
  options.progress = [&](size_t finished, size_t total) { report_progress(job, finished, total); };
  run_sweep(sweep, job.loaded->sweep_variants, options);
  const SweepSummary summary = summarize_sweep(sweep, runs);
  nlohmann::json charts = nlohmann::json::array();
  for (const NamedChart& c : sweep_charts(sweep, summary))
    charts.push_back({{"name", c.file}, {"svg", c.svg}});
  nlohmann::ordered_json result = sweep_json(sweep, summary);
  std::string report = sweep_text_report(sweep, summary);
  std::lock_guard lock(mu_);
  job.result = std::move(result);
  job.report = std::move(report);
  job.charts = std::move(charts);
  job.state = State::kDone;
}

void StudyService::run_plan_job(Job& job) {
  const PlanSpec& plan = *job.loaded->plan;
  const PlanVariants& variants = *job.loaded->plan_variants;
  const PlanRun run = run_plan(
      plan, variants, 1, [&](size_t step) { report_progress(job, step + 1, plan.growth.size()); });
  const std::vector<std::string>& metrics = run.evaluators.front()->metrics();
  nlohmann::ordered_json result = plan_json(plan, variants.slos(), metrics, run.result);
  std::string report = plan_text_report(plan, variants.slos(), metrics, run.result);
  nlohmann::json charts = nlohmann::json::array();
  charts.push_back({{"name", "frontier.svg"},
                    {"svg", plan_frontier_svg(plan, variants.slos(), metrics, run.result)}});
  std::lock_guard lock(mu_);
  job.result = std::move(result);
  job.report = std::move(report);
  job.charts = std::move(charts);
  job.state = State::kDone;
}

nlohmann::json StudyService::to_json(const Job& job, bool with_result) const {
  nlohmann::json j = {
      {"id", job.id},
      {"kind", job.kind == StudyKind::kSweep ? "Sweep" : "Plan"},
      {"name", job.name},
      {"file", job.file},
      {"state", state_name(static_cast<int>(job.state))},
      {"done", job.done},
      {"total", job.total},
      {"progress",
       job.total == 0 ? 0.0 : static_cast<double>(job.done) / static_cast<double>(job.total)},
      {"created", job.created},
      {"error", job.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(job.error)},
      {"result", nullptr},
      {"report", nullptr},
      {"charts", nullptr}};
  if (with_result && job.state == State::kDone) {
    // As every response of the API, with its object keys sorted (same values as the CLI's).
    j["result"] = nlohmann::json::parse(job.result.dump());
    j["report"] = job.report;
    j["charts"] = job.charts;
  }
  return j;
}

void StudyService::publish(const Job& job) {
  bus_.publish(job.kind == StudyKind::kSweep ? "sweep" : "plan", to_json(job, false).dump());
}

void StudyService::forget_old() {
  while (finished_.size() > keep_) {
    jobs_.erase(finished_.front());
    finished_.pop_front();
  }
}

StudyService::Job* StudyService::find(StudyKind kind, const std::string& id) const {
  const auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second->kind != kind) return nullptr;
  return it->second.get();
}

std::optional<nlohmann::json> StudyService::describe(StudyKind kind, const std::string& id,
                                                     bool with_result) const {
  std::lock_guard lock(mu_);
  const Job* job = find(kind, id);
  if (!job) return std::nullopt;
  return to_json(*job, with_result);
}

nlohmann::json StudyService::list(StudyKind kind) const {
  std::lock_guard lock(mu_);
  std::vector<const Job*> all;
  for (const auto& [id, job] : jobs_)
    if (job->kind == kind) all.push_back(job.get());
  std::sort(all.begin(), all.end(),
            [](const Job* a, const Job* b) { return a->number > b->number; });
  nlohmann::json out = nlohmann::json::array();
  for (const Job* j : all) out.push_back(to_json(*j, false));
  return out;
}

bool StudyService::remove(StudyKind kind, const std::string& id) {
  std::lock_guard lock(mu_);
  Job* job = find(kind, id);
  if (!job) return false;
  if (job->state == State::kQueued) {
    queue_.erase(std::find(queue_.begin(), queue_.end(), id));
    job->state = State::kCancelled;
    publish(*job);
    jobs_.erase(id);
    return true;
  }
  const auto finished = std::find(finished_.begin(), finished_.end(), id);
  if (finished == finished_.end()) {
    // Running, or just ended and not yet handed back by the worker (which still holds the job
    // then): the worker ends it at its next progress report, if there is one.
    job->cancel = true;
    return true;
  }
  finished_.erase(finished);
  jobs_.erase(id);
  return true;
}

}  // namespace gantry::web
