#pragma once
// Where attempts run (STYLE.md habits 8 and 9, Ninja's CommandRunner): the scheduler asks an
// executor to start an attempt and is told, later and on the loop thread, when its work really
// started and how it ended. The simulated world (simulated_executor.hpp) draws durations and
// outcomes from the task's `simulate` block; adapters/simcluster runs distributed tasks as gang
// jobs of the simulated cluster; a live executor would create Kubernetes workloads; tests
// script one.
//
// THE CONTRACT (issue #9: the same for every world)
//   An attempt the executor holds is queued (asked for, waiting for resources) or running.
//   - start(request, listener): the attempt is the executor's, queued, from now on. Later, on
//     the loop thread and never inside start(): attempt_running(id, at) once, when its work
//     starts (`at` <= now; it may never come: an attempt refused or failed before it ran ends
//     without it), then attempt_finished(id, result) once, when it ends on its own.
//   - kill(id): frees whatever the attempt holds, queued or running (a queued job leaves the
//     queue, a running one is stopped and gives its resources back), and acknowledges it:
//     kKilled when the attempt was the executor's; from that return on nothing is reported
//     for it (no attempt_running, no attempt_finished), whatever was already under way.
//     kUnknown for an id it does not hold (never started here, already reported finished,
//     already killed): a no-op. kill() never calls back.
//   - adopt(id, listener), after a restart of the scheduler: if the executor still holds an
//     attempt started by an earlier scheduler process (queued or running), it takes `listener`
//     in place of the old one and reports the attempt as after start(): attempt_running(id, at)
//     with the instant its work really started (possibly before now, also when that was
//     already reported to the old listener; not at all while it is still queued, then later
//     when it starts), then attempt_finished. Returns true. False for an id it does not hold:
//     nothing happens, and the scheduler treats the attempt as lost (run_scheduler.hpp,
//     RESTART). adopt() never calls back synchronously either.
//   Ids come from the scheduler (AttemptId, run.hpp): unique for good, also across restarts.

#include <cstdint>
#include <map>
#include <string>

#include "engine/cluster/resources.hpp"
#include "engine/core/time.hpp"
#include "workflow/runner/run.hpp"

namespace gantry {

struct PipelineSpec;
struct TaskSpec;

struct AttemptRequest {
  AttemptId id = 0;
  const PipelineSpec* pipeline = nullptr;  // owned by the scheduler, outlives the attempt
  const TaskSpec* task = nullptr;
  Time logical_time;
  size_t attempt_index = 0;  // 0 for the first attempt of the task instance
  Resources requests;        // after autosize
  // The run's params (Run::params); tasks see them as env (param_env() of run.hpp).
  std::map<std::string, std::string> params{};
};

// How the work of an attempt ended, as the world reports it.
enum class AttemptOutcome {
  kSucceeded,  // exit code 0
  kFailed,     // the work failed
  kError,      // infrastructure failure (node lost, evicted)
};

struct AttemptResult {
  AttemptOutcome outcome = AttemptOutcome::kSucceeded;
  Resources used;  // peak CPU and memory, for autosize
  // Why an unsuccessful attempt ended, for people, when the executor knows more than the
  // outcome ("can never be placed: ..."); empty otherwise. Shown in the timeline and
  // recorded as an event.
  std::string reason{};
};

// What kill() did (THE CONTRACT).
enum class KillAck {
  kKilled,   // it was the executor's; it holds nothing now and nothing more is reported
  kUnknown,  // the executor does not hold that id; nothing happened
};

// The scheduler side: told, on the loop thread, what became of the attempts it started.
class AttemptListener {
 public:
  virtual ~AttemptListener() = default;
  // The attempt's work started at `at` (<= now): its pod runs. At most once per attempt.
  virtual void attempt_running(AttemptId id, Time at) = 0;
  // The attempt ended on its own, now. Once per attempt that was not killed.
  virtual void attempt_finished(AttemptId id, const AttemptResult& result) = 0;
};

class TaskExecutor {
 public:
  virtual ~TaskExecutor() = default;
  // Takes the attempt, queued, now (THE CONTRACT). Must not call back synchronously.
  virtual void start(const AttemptRequest& request, AttemptListener& listener) = 0;
  // Stops it, queued or running, and says whether it was the executor's (THE CONTRACT).
  virtual KillAck kill(AttemptId id) = 0;
  // Takes over an attempt of an earlier scheduler process, if still held (THE CONTRACT).
  // Executors that keep nothing across processes (the simulated ones) return false.
  virtual bool adopt(AttemptId id, AttemptListener& listener) = 0;
};

}  // namespace gantry
