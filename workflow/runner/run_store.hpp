#pragma once
// The persistence hook of the run scheduler (DESIGN.md rule 5, STYLE.md habit 8): the
// scheduler calls a RunStore on every state change, so a store that writes each call in its
// own transaction (the SQLite store, written elsewhere) loses nothing when the process dies.
// MemoryRunStore (memory_run_store.hpp) is the in-memory version used by tests and by
// `gantry pipeline run` when nothing needs to survive.
//
// Identity: a run is named by its RunKey (pipeline, logical time), a task instance by its
// run and task name, an attempt by its 0-based index in the task instance. Task names are
// unique within a pipeline. An attempt also carries its AttemptId (run.hpp), which the store
// keeps so that a restarted scheduler never reuses one and can ask its executor about the
// attempts that were running (RunScheduler::recover()).
//
// Exactly once: create_run() is the only way a run comes into existence, and it refuses a
// second run for the same key. That check and the insert must be one atomic step in the
// store (a UNIQUE constraint on (pipeline, logical_time) in SQL); the scheduler relies on it
// after a restart: RunScheduler::recover() loads what load_runs() returns, and a run it did
// not load (RunSelection::kActive) is still refused by create_run(), so a restarted
// orchestrator creates none twice.
//
// Errors: an implementation that cannot write throws StoreError (engine/core/errors.hpp
// convention for the store boundary); the scheduler does not catch it.
//
// Thread safety: called from the event loop's thread only.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/time.hpp"
#include "workflow/runner/run.hpp"

namespace gantry {

// Something the scheduler decided that is not a state change, kept for the user ("why did my
// run not start?").
enum class SchedulerEventKind {
  kTooManyMissed,      // catchup false: more missed ticks than maxMissedRuns; none started
  kMissedDeadline,     // catchup false: the most recent missed tick is older than the deadline
  kForbidSkip,         // concurrency Forbid: a tick found a run in flight; recorded as skipped
  kReplace,            // concurrency Replace: a tick killed a run in flight
  kExpire,             // keepLatest pushed a run out
  kAutosize,           // a task's requests were changed by autosize
  kSchedulerDown,      // the orchestrator went down
  kSchedulerUp,        // the orchestrator came back
  kPause,              // a pipeline's schedule was paused
  kResume,             // ... and resumed
  kTrigger,            // an operator's manual run
  kRerun,              // an operator cleared tasks of a run
  kMarkSuccess,        // an operator declared a run succeeded
  kFail,               // an injected fault failed a running attempt
  kBackfill,           // a backfill request (message: the window and what it created)
  kLostAttempt,        // recover(): an attempt that was running at the crash is closed (lost and
                       // run again, or error: RunScheduler::set_lost_attempts())
  kAdoptedAttempt,     // recover(): an attempt of the previous life still held by the executor
                       // goes on (TaskExecutor::adopt())
  kKillUnknown,        // the executor did not hold an attempt the scheduler stopped (it had ended
                       // unreported); the scheduler's record stands
  kRejected,           // an operator action that could not be applied (message says why)
  kAttemptError,       // an attempt ended as error: never placeable on the cluster, or its
                       // objects refused by a live API server (the reason says which)
  kAttemptEnded,       // an attempt ended unsuccessfully with a reason from the executor
  kPipelineNotLoaded,  // recover(): a run in flight of a pipeline whose stored definition
                       // could not be loaded ended as failed (SchedulerCore::
                       // set_unloaded_pipelines(); message: why it could not be loaded)
  kKill,               // an operator killed a run, or one task of it (message: by whom)
  kClearTask,          // an operator cleared tasks of a run (message: which, by whom)
  kMarkTask,           // an operator marked one task succeeded or failed (message: by whom)
};

std::string_view to_string(SchedulerEventKind k);

struct SchedulerEvent {
  Time at;
  SchedulerEventKind kind = SchedulerEventKind::kRejected;
  std::string pipeline;              // empty for scheduler-wide events
  std::optional<Time> logical_time;  // the run concerned, if any
  std::string task;                  // the task concerned, if any
  std::string message;               // for people
};

// Which runs load_runs() returns.
enum class RunSelection {
  kAll,  // every run stored
  // What a scheduler that keeps only recent runs in memory (SchedulerCore::keep_finished)
  // needs to go on: every run not finished, and per pipeline its newest run and its newest run
  // that counts for the schedule (trigger schedule or catchup, or skipped). Older runs are
  // read one by one later (load_run, load_run_before) when an operator or dependsOnPast asks.
  kActive,
};

class RunStore {
 public:
  virtual ~RunStore() = default;

  // Inserts `run` with its task instances (all pending, no attempts) unless a run with the
  // same (pipeline, logical_time) exists. Returns true if inserted, false if it existed (then
  // nothing is written). Atomic.
  virtual bool create_run(const Run& run) = 0;

  // The run's state, start and end after a change (they are written together).
  virtual void update_run(const RunKey& key, RunState state, std::optional<Time> start,
                          std::optional<Time> end) = 0;

  // A task instance's new state. `requests` are the resources its next or current attempt
  // asks for (autosize may have changed them).
  virtual void update_task(const RunKey& key, std::string_view task, TaskState state,
                           const Resources& requests) = 0;

  // An attempt was asked of the executor at `start` (it is the task instance's attempt
  // number `index`, counted from 0, named `id`). Written before the executor hears of it, so
  // that with one transaction per change no attempt runs that the store does not know.
  virtual void attempt_started(const RunKey& key, std::string_view task, size_t index, AttemptId id,
                               Time start) = 0;
  // ... its work started at `at` (it was queued until then).
  virtual void attempt_running(const RunKey& key, std::string_view task, size_t index, Time at) = 0;
  // ... and ended; `reason` is why it ended unsuccessfully when the executor said (a pod's
  // exit code, the API server's refusal), else empty. Kept with the attempt: the run's history
  // (the REST API, the UI) shows it long after the scheduler forgot the run.
  virtual void attempt_ended(const RunKey& key, std::string_view task, size_t index, Time end,
                             AttemptState state, std::string_view reason) = 0;

  virtual void record_event(const SchedulerEvent& event) = 0;

  // The runs `which` names, with task instances and attempts, in any order. For recover().
  virtual std::vector<Run> load_runs(RunSelection which) const = 0;
  // One run, with task instances and attempts; nullopt if none has this key.
  virtual std::optional<Run> load_run(const RunKey& key) const = 0;
  // The run of `pipeline` with the greatest logical time before `before`; nullopt if none.
  virtual std::optional<Run> load_run_before(std::string_view pipeline, Time before) const = 0;
  // The greatest attempt id ever stored, of any run (0 when none): a recovering scheduler goes
  // on after it, whichever runs it loads.
  virtual AttemptId max_attempt_id() const = 0;
};

}  // namespace gantry
