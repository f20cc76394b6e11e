#pragma once
// What-if simulations for the REST API (POST /api/v1/simulations): a Scenario (a training
// workload on a cluster) or an Experiment (the fragmentation experiment). Each request is loaded
// and checked at once (a bad scenario is the caller's 400, never a failed job), then queued and run
// on the service's one worker thread, in virtual time, with its progress published on the
// event bus. Done, it keeps the `gantry simulate --format json` document and the plot series
// (sim/run_series.hpp), not the run itself, so a finished simulation costs a few hundred KB.
//
// One worker: the machine's cores belong to the orchestrator and the HTTP threads first; a
// second request waits in state "queued". The last `keep` finished simulations are kept;
// older ones are forgotten.
//
// Cancellation (DELETE): a queued simulation is dropped; a running one stops at its next
// progress report (about every 1 % of the run) and ends "cancelled".
//
// Thread-safe: every public call takes the service's mutex; the worker holds it only to
// publish state, never while simulating.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "sim/experiment_spec.hpp"
#include "sim/scenario_spec.hpp"
#include "web/server/event_bus.hpp"
#include "web/server/whatif_overrides.hpp"

namespace gantry::web {

struct SimulationRequest {
  std::string scenario_yaml;  // one `kind: Scenario` or `kind: Experiment` document
  std::string file;           // where it came from: for messages and relative data paths
  std::optional<uint64_t> seed{};
  std::string policy{};  // a placement plugin (Scenario) or an experiment policy; empty: the file's
  WhatIfOverrides overrides{};
  // The scenarios folder: a failed run's error shows paths relative to it. With
  // `confine_to_folder` (a scenario posted as text), every data file it names must be inside
  // the folder (scenario_paths.hpp).
  std::filesystem::path folder{};
  bool confine_to_folder = false;
};

class SimulationService {
 public:
  explicit SimulationService(EventBus& bus, size_t keep = 50);
  // Cancels what runs and joins the worker.
  ~SimulationService();
  SimulationService(const SimulationService&) = delete;
  SimulationService& operator=(const SimulationService&) = delete;

  // Loads the file with the overrides, seed and policy applied; throws InputError (the
  // loader's, naming the file, or a data file outside the folder when confined: before any
  // file is opened), std::invalid_argument (an override or policy that cannot apply: an
  // Experiment's cluster comes from its node list, so it takes no overrides). Queues it and
  // returns its id ("sim-1", "sim-2", ...).
  std::string submit(const SimulationRequest& request);

  // The Simulation object of web/API.md, with its result when done and `with_result`; nullopt
  // for an unknown id.
  std::optional<nlohmann::json> describe(const std::string& id, bool with_result) const;
  // Every simulation kept, newest first, without results.
  nlohmann::json list() const;
  // The plot series of a finished simulation; nullopt when unknown or not done.
  std::optional<nlohmann::json> series(const std::string& id) const;
  // Cancels (queued or running) or forgets (finished) a simulation; false for an unknown id.
  bool remove(const std::string& id);

 private:
  enum class State { kQueued, kRunning, kDone, kFailed, kCancelled };
  struct Job {
    std::string id;
    std::optional<ScenarioSpec> scenario;  // one of the two
    std::optional<ExperimentSpec> experiment;
    std::string name;
    uint64_t seed = 1;
    std::string policy;  // as asked; for a Scenario always the placement
    WhatIfOverrides overrides;
    std::filesystem::path folder;
    bool confine_to_folder = false;
    std::string created;
    State state = State::kQueued;
    double progress = 0;
    bool cancel = false;
    nlohmann::json result;  // null until done
    nlohmann::json series;
    std::string error;
  };
  void work();
  void run(Job& job);
  void run_scenario(Job& job);
  void run_experiment_job(Job& job);
  // Records the fraction done (publishing each new percent); throws Cancelled when asked to stop.
  void report_progress(Job& job, double fraction, int& last_percent);
  nlohmann::json to_json(const Job& job, bool with_result) const;
  void publish(const Job& job);  // with mu_ held
  void forget_old();             // with mu_ held

  EventBus& bus_;
  size_t keep_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::map<std::string, std::unique_ptr<Job>> jobs_;
  std::deque<std::string> queue_;
  std::deque<std::string> finished_;  // oldest first
  uint64_t next_ = 1;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace gantry::web
