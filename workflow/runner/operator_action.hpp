#pragma once
// Operator actions and injected faults at given times (issue #4, `--events`): what the CLI
// reads from an events file and hands to RunScheduler::schedule(). Fields a kind does not use
// are ignored.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/time.hpp"

namespace gantry {

enum class ActionKind {
  kSchedulerDown,    // the orchestrator stops: no ticks, no starts, no timeouts until up
  kSchedulerUp,      // it comes back: completions seen, overdue timers fire, ticks caught up
  kTrigger,          // a manual run of `pipeline` now (logical time = `at`)
  kRerun,            // clear the failed, upstream_failed and killed tasks of a run (Airflow's
                     // clear): the run goes back to the queue and then to running
  kMarkSuccess,      // declare the run succeeded without running the rest of it
  kFail,             // the running attempt of `task` in the run fails now (an injected fault)
  kPause,            // stop `pipeline`'s schedule; runs already created go on
  kResume,           // restart it; missed ticks follow the catch-up rules
  kBackfill,         // backfill `pipeline` over [from, to] with `rerun`
  kKillRun,          // stop a queued or running run now: its running attempts are killed, its
                     // unfinished tasks and the run end as killed
  kKillTask,         // stop one task of a running run now: its running attempt is killed (no
                     // retry), the task ends as killed and its downstream follow their trigger
                     // rules (killed counts as failed); the rest of the run goes on
  kClearTask,        // Airflow's clear of one task of a run (task_actions.cpp): the task, with
                     // its downstream and/or upstream closure if asked, optionally only those
                     // failed, upstream_failed or killed, run again; a running attempt among
                     // them is killed; a finished run goes back to the queue
  kMarkTaskSuccess,  // one task of a queued or running run is declared succeeded (a running
                     // attempt is killed); its downstream follow their trigger rules. In an
                     // ended run: its upstream_failed downstream run again, the run with them
                     // (or the run succeeds when every task now has)
  kMarkTaskFailed,   // ... declared failed, the same way (a queued or running run only)
};

// What backfill does with a run that already exists for a tick in its window.
enum class BackfillRerun {
  kNone,    // leave it as it is
  kFailed,  // a finished run that did not succeed (failed, killed, expired): clear its
            // failed, upstream_failed and killed tasks and run it again
  kAll,     // any finished run: clear every task and run it again
};

struct OperatorAction {
  Time at;
  ActionKind kind = ActionKind::kTrigger;
  std::string pipeline;              // all but scheduler-down/up
  std::optional<Time> logical_time;  // rerun, mark-success, fail: which run
  std::string task;                  // fail, kill-task: which task
  std::string by;                    // who asked (a token's name), for the reasons it leaves
  Time from, to;                     // backfill window, both inclusive
  BackfillRerun rerun = BackfillRerun::kNone;
  // clear-task: which tasks besides `task` (the closures in the DAG), and whether only those
  // that failed, were upstream_failed or killed are cleared.
  bool downstream = false, upstream = false, failed_only = false;
  // trigger: the run's params (name -> JSON literal, checked by the caller: resolve_params()
  // of workflow/pipeline/pipeline_params.hpp); those not given take their defaults.
  std::map<std::string, std::string> params{};
};

std::string_view to_string(ActionKind k);
// " by NAME" for an action `by` NAME, " by an operator" when nobody is named: the end of the
// reasons an operator's action leaves on the attempts it stops.
inline std::string by_whom(std::string_view by) {
  return by.empty() ? std::string(" by an operator") : " by " + std::string(by);
}
// "scheduler-down", "trigger", "mark-success", ...: the words of the events file.
std::optional<ActionKind> parse_action_kind(std::string_view text);
std::optional<BackfillRerun> parse_backfill_rerun(std::string_view text);  // none|failed|all

}  // namespace gantry
