#pragma once
// Sweeps and capacity plans for the REST API (POST /api/v1/sweeps, POST /api/v1/plans): the
// shipped `kind: Sweep` and `kind: Plan` files of the scenarios folder, run as `gantry sweep` and
// `gantry plan` run them, and shown as they show them. A finished one keeps exactly what the CLI
// prints, from the same functions (report/): the JSON (sweep_json, plan_json), the text report
// (sweep_text_report, plan_text_report) and the SVG charts (sweep_charts, plan_frontier_svg).
// Paths in them are relative to the scenarios folder (a sweep's "base": "quickstart.yaml"),
// never the server's own; the CLI's output file paths (results, charts) are left out.
//
// Submitting loads and checks everything before anything runs (the sweep file, its base, every
// point's scenario; the plan, its base and pools): a bad file is the caller's 400 (InputError
// naming file:line:col), never a failed job. The base and every data file it names must be
// files of the scenarios folder (scenario_paths.hpp).
//
// One worker thread, separate from the what-if simulations' (SimulationService), runs one job
// at a time with one thread of simulation: the machine's cores belong to the orchestrator and the
// HTTP threads first. Results are kept in memory (no database): a sweep's runs are a few numbers
// each, its summary and charts some hundred KB. The last `keep` finished jobs are kept, older
// ones forgotten; at most `max_pending` may be queued or running (more: QueueFull).
//
// Progress (published on the event bus as "sweep" or "plan" events, the job's JSON without its
// result): a sweep counts runs done of its total; a plan counts forecast steps done.
//
// Cancellation (DELETE): a queued job is dropped; a running sweep stops after the run in
// progress, a running plan after the forecast step in progress (run_plan reports nothing
// finer), and ends "cancelled". A run that throws ends the job "failed" with the message.
//
// Thread-safe: every public call takes the service's mutex; the worker holds it only to
// publish state, never while simulating.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "web/server/event_bus.hpp"

namespace gantry::web {

enum class StudyKind { kSweep, kPlan };

// What the server runs of a sweep at most: its result, report and charts grow with its points,
// and it runs on one thread. Larger sweeps are for `gantry sweep`, on every core, into a
// database (submit() says so).
inline constexpr size_t kMaxServedSweepPoints = 1000;
inline constexpr size_t kMaxServedSweepRuns = 10000;

// Thrown by submit() when max_pending jobs are queued or running already.
struct QueueFull : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class StudyService {
 public:
  explicit StudyService(EventBus& bus, size_t keep = 20, size_t max_pending = 8);
  // Cancels what runs (after its current run) and joins the worker.
  ~StudyService();
  StudyService(const StudyService&) = delete;
  StudyService& operator=(const StudyService&) = delete;

  // Loads the sweep or plan at `file` (a file of `folder`, the scenarios folder) and checks it
  // completely; queues it and returns its id ("sweep-1", "plan-1", ...). Throws InputError
  // (InputErrors: every problem, naming file, line and column), FileError (a base that cannot be
  // read), GantryError (a sweep over the limits above), QueueFull.
  std::string submit(StudyKind kind, const std::filesystem::path& file,
                     const std::filesystem::path& folder);

  // The Sweep or Plan object of web/API.md (with result, report and charts when done and
  // `with_result`); nullopt for an unknown id or one of the other kind.
  std::optional<nlohmann::json> describe(StudyKind kind, const std::string& id,
                                         bool with_result) const;
  // Every job of `kind` kept, newest first, without results.
  nlohmann::json list(StudyKind kind) const;
  // Cancels (queued or running) or forgets (finished) a job; false for an unknown id or one of
  // the other kind.
  bool remove(StudyKind kind, const std::string& id);

 private:
  struct Loaded;  // the spec and its variants, from submit() until the job ends
  enum class State { kQueued, kRunning, kDone, kFailed, kCancelled };
  struct Job {
    std::string id;
    StudyKind kind = StudyKind::kSweep;
    uint64_t number = 0;  // orders the list
    std::string name, file;
    std::filesystem::path folder;
    std::string created;
    State state = State::kQueued;
    size_t done = 0, total = 0;
    bool cancel = false;
    std::unique_ptr<Loaded> loaded;
    nlohmann::ordered_json result;  // null until done
    std::string report;
    nlohmann::json charts = nlohmann::json::array();  // [{"name", "svg"}]
    std::string error;
  };
  void work();
  void run(Job& job);
  void run_sweep_job(Job& job);
  void run_plan_job(Job& job);
  // Records progress (publishing it); throws StudyCancelled (study_service.cpp) when asked to stop.
  void report_progress(Job& job, size_t done, size_t total);
  nlohmann::json to_json(const Job& job, bool with_result) const;
  void publish(const Job& job);                            // with mu_ held
  void forget_old();                                       // with mu_ held
  Job* find(StudyKind kind, const std::string& id) const;  // with mu_ held

  EventBus& bus_;
  size_t keep_, max_pending_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::map<std::string, std::unique_ptr<Job>> jobs_;
  std::deque<std::string> queue_;
  std::deque<std::string> finished_;  // oldest first
  uint64_t next_sweep_ = 1, next_plan_ = 1, next_number_ = 1;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace gantry::web
