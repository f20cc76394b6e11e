#include "web/server/simulation_service.hpp"

#include <algorithm>

#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/core/clock.hpp"
#include "engine/policy/plugin_registry.hpp"
#include "sim/experiment_json.hpp"
#include "sim/experiment_runner.hpp"
#include "sim/json_report.hpp"
#include "sim/queue_summary.hpp"
#include "sim/run_series.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "sim/simulation_file.hpp"
#include "sim/summary.hpp"
#include "web/server/scenario_paths.hpp"
#include "web/server/utf8_text.hpp"

namespace gantry::web {

namespace {

// Thrown from the progress callback to stop a cancelled run.
struct Cancelled {};

const char* to_string_state(int s) {
  static const char* kNames[] = {"queued", "running", "done", "failed", "cancelled"};
  return kNames[s];
}

// Per service, its report intervals as plot series (the what-if page's services charts):
//   [{"name", "qps": [[start, v]], "p99": [[start, seconds | null (nothing served)]],
//     "ready": [[start, v]], "starting": [[start, v]]}]
// A day at the default 5 min interval is 288 points a series.
nlohmann::json services_series(const std::vector<ServiceReport>& services) {
  nlohmann::json out = nlohmann::json::array();
  for (const ServiceReport& s : services) {
    nlohmann::json qps = nlohmann::json::array(), p99 = nlohmann::json::array(),
                   ready = nlohmann::json::array(), starting = nlohmann::json::array();
    for (const ServiceInterval& i : s.intervals) {
      const std::string t = format_rfc3339(i.start);
      qps.push_back({t, i.qps});
      p99.push_back({t, i.served > 0 ? nlohmann::json(i.p99_s) : nlohmann::json(nullptr)});
      ready.push_back({t, i.ready_replicas});
      starting.push_back({t, i.starting_replicas});
    }
    out.push_back({{"name", s.name},
                   {"qps", std::move(qps)},
                   {"p99", std::move(p99)},
                   {"ready", std::move(ready)},
                   {"starting", std::move(starting)}});
  }
  return out;
}

nlohmann::json pairs_json(const std::vector<std::pair<double, double>>& xs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [x, y] : xs) out.push_back({x, y});
  return out;
}

nlohmann::json overrides_json(const WhatIfOverrides& o) {
  nlohmann::json j = nlohmann::json::object();
  if (o.nodes) j["nodes"] = *o.nodes;
  if (o.gpu_type) j["gpuType"] = *o.gpu_type;
  if (o.fabric) j["fabric"] = *o.fabric;
  return j;
}

}  // namespace

SimulationService::SimulationService(EventBus& bus, size_t keep)
    : bus_(bus), keep_(keep), worker_([this] { work(); }) {}

SimulationService::~SimulationService() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (auto& [id, job] : jobs_) job->cancel = true;
  }
  wake_.notify_all();
  worker_.join();
}

namespace {

constexpr const char* kScenariosFolder = "the scenarios folder";

// The trace loaders, refusing a file outside the folder when confined: check_data_paths() has
// refused every `file:` field already; this holds whatever path the loader resolved.
void require_inside(const SimulationRequest& request, const TraceRef& ref) {
  if (request.confine_to_folder) require_trace_inside(request.folder, ref, kScenariosFolder);
}

}  // namespace

std::string SimulationService::submit(const SimulationRequest& request) {
  auto job = std::make_unique<Job>();
  job->folder = request.folder;
  job->confine_to_folder = request.confine_to_folder;
  if (request.confine_to_folder)
    check_data_paths(request.scenario_yaml, request.file, request.folder);
  const TraceLoaders readers = request.confine_to_folder
                                   ? confined_trace_loaders(request.folder, kScenariosFolder)
                                   : trace_loaders();
  // The original document first, so errors point at the lines the user wrote; then the
  // overridden one (an override that breaks the scenario is reported by the loader too).
  SimulationFile file = load_simulation_text(request.scenario_yaml, request.file, readers);
  if (std::holds_alternative<ExperimentSpec>(file)) {
    if (!request.overrides.empty())
      throw std::invalid_argument(
          "overrides: an experiment's cluster comes from its node list; change the file instead");
    ExperimentSpec& e = std::get<ExperimentSpec>(file);
    if (!request.policy.empty()) {
      const auto named = [&](const ExperimentPolicy& p) { return request.policy == p.display; };
      if (std::none_of(std::begin(kExperimentPolicies), std::end(kExperimentPolicies), named))
        throw std::invalid_argument("policy: unknown experiment policy '" + request.policy + "'");
    }
    job->name = e.name;
    job->seed = request.seed.value_or(e.seed);
    job->policy = request.policy;
    job->experiment = std::move(e);
  } else {
    ScenarioSpec scenario = std::get<ScenarioSpec>(std::move(file));
    if (!request.overrides.empty())
      scenario = load_scenario_text(apply_overrides(request.scenario_yaml, request.overrides),
                                    request.file + " (what-if)", readers);
    if (request.seed) scenario.seed = *request.seed;
    if (!request.policy.empty()) {
      const auto known = placement_plugin_names();
      if (std::find(known.begin(), known.end(), request.policy) == known.end())
        throw std::invalid_argument("policy: unknown placement policy '" + request.policy + "'");
      scenario.policy.placement = request.policy;
    }
    job->name = scenario.name;
    job->seed = scenario.seed;
    job->policy = scenario.policy.placement;
    job->scenario = std::move(scenario);
  }
  std::lock_guard lock(mu_);
  job->id = "sim-" + std::to_string(next_++);
  job->overrides = request.overrides;
  job->created = format_rfc3339(system_now());
  const std::string id = job->id;
  publish(*job);
  jobs_[id] = std::move(job);
  queue_.push_back(id);
  wake_.notify_all();
  return id;
}

void SimulationService::work() {
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
    finished_.push_back(id);
    publish(job);
    forget_old();
  }
}

void SimulationService::run(Job& job) {
  try {
    if (job.experiment) {
      run_experiment_job(job);
    } else {
      run_scenario(job);
    }
  } catch (const Cancelled&) {
    std::lock_guard lock(mu_);
    job.state = State::kCancelled;
  } catch (const std::exception& e) {
    std::lock_guard lock(mu_);
    job.state = State::kFailed;
    job.error = job.folder.empty() ? e.what() : relative_to_folder(e.what(), job.folder);
  }
}

void SimulationService::report_progress(Job& job, double fraction, int& last_percent) {
  std::lock_guard lock(mu_);
  if (job.cancel) throw Cancelled{};
  job.progress = fraction;
  const int percent = static_cast<int>(fraction * 100);
  if (percent != last_percent) {
    last_percent = percent;
    publish(job);
  }
}

void SimulationService::run_scenario(Job& job) {
  int last_percent = -1;
  const SimulationRun result =
      run_simulation(*job.scenario, [&](double f) { report_progress(job, f, last_percent); });
  const RunSummary summary = summarize(result);
  const RunSeries series = run_series(result);
  nlohmann::json alloc = nlohmann::json::array();
  for (const auto& [t, r] : series.gpu_allocation) alloc.push_back({format_rfc3339(t), r});
  nlohmann::json report =
      run_json_report(*job.scenario, result, summary,
                      summarize_queues(result.log, job.scenario->policy.admission), "");
  report.erase("results");  // nothing is written to disk for a what-if run
  std::lock_guard lock(mu_);
  job.result = std::move(report);
  job.series = {{"gpuAllocation", std::move(alloc)},
                {"jctCdf", pairs_json(series.jct_cdf)},
                {"waitCdf", pairs_json(series.wait_cdf)},
                {"services", services_series(result.services)}};
  job.progress = 1;
  job.state = State::kDone;
}

void SimulationService::run_experiment_job(Job& job) {
  int last_percent = -1;
  ExperimentRunOptions options;
  if (!job.policy.empty()) options.policies = {job.policy};
  options.seed = job.seed;
  options.progress = [&](const ExperimentProgress& p) {
    const double within =
        p.total == 0 ? 0 : static_cast<double>(p.done) / static_cast<double>(p.total);
    report_progress(
        job,
        (static_cast<double>(p.list) + within) / static_cast<double>(std::max<size_t>(1, p.lists)),
        last_percent);
  };
  SimulationRequest where;  // what require_inside() needs of the request
  where.folder = job.folder;
  where.confine_to_folder = job.confine_to_folder;
  const auto pods = [&where](const TraceRef& ref) {
    require_inside(where, ref);
    return load_trace_pods(ref);
  };
  const auto nodes = [&where](const TraceRef& ref) {
    require_inside(where, ref);
    return load_trace_topology(ref);
  };
  const std::vector<NamedResult> results = run_experiment(*job.experiment, {nodes, pods}, options);
  nlohmann::json curves = nlohmann::json::object();
  if (!results.empty())
    for (const PolicyCurves& p : results.front().result.policies) {
      nlohmann::json points = nlohmann::json::array();
      for (size_t i = 0; i < p.arrival_pct.size(); ++i)
        points.push_back({p.arrival_pct[i], p.unallocated_gpu_pct_mean[i]});
      curves[p.policy] = std::move(points);
    }
  std::lock_guard lock(mu_);
  job.result = experiment_json(results);
  job.series = {{"unallocatedGpuPct", std::move(curves)}};
  job.progress = 1;
  job.state = State::kDone;
}

nlohmann::json SimulationService::to_json(const Job& job, bool with_result) const {
  nlohmann::json j = {
      {"id", job.id},
      {"state", to_string_state(static_cast<int>(job.state))},
      {"progress", job.progress},
      {"scenario", job.name},
      {"kind", job.experiment ? "Experiment" : "Scenario"},
      {"seed", job.seed},
      {"policy", job.policy},
      {"overrides", overrides_json(job.overrides)},
      {"created", job.created},
      {"result", nullptr},
      {"error", job.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(job.error)}};
  if (with_result && !job.result.is_null()) j["result"] = job.result;
  return j;
}

void SimulationService::publish(const Job& job) {
  bus_.publish("simulation", json_text(to_json(job, false)));
}

void SimulationService::forget_old() {
  while (finished_.size() > keep_) {
    jobs_.erase(finished_.front());
    finished_.pop_front();
  }
}

std::optional<nlohmann::json> SimulationService::describe(const std::string& id,
                                                          bool with_result) const {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return std::nullopt;
  return to_json(*it->second, with_result);
}

nlohmann::json SimulationService::list() const {
  std::lock_guard lock(mu_);
  std::vector<const Job*> all;
  for (const auto& [id, job] : jobs_) all.push_back(job.get());
  // Newest first: ids are "sim-<n>", compare n.
  std::sort(all.begin(), all.end(), [](const Job* a, const Job* b) {
    return std::stoull(a->id.substr(4)) > std::stoull(b->id.substr(4));
  });
  nlohmann::json out = nlohmann::json::array();
  for (const Job* j : all) out.push_back(to_json(*j, false));
  return out;
}

std::optional<nlohmann::json> SimulationService::series(const std::string& id) const {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second->state != State::kDone) return std::nullopt;
  return it->second->series;
}

bool SimulationService::remove(const std::string& id) {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return false;
  Job& job = *it->second;
  switch (job.state) {
    case State::kQueued:
      queue_.erase(std::find(queue_.begin(), queue_.end(), id));
      job.state = State::kCancelled;
      publish(job);
      jobs_.erase(it);
      return true;
    case State::kRunning:
      job.cancel = true;  // the worker ends it at its next progress report
      return true;
    default:
      finished_.erase(std::find(finished_.begin(), finished_.end(), id));
      jobs_.erase(it);
      return true;
  }
}

}  // namespace gantry::web
