// The core's operator actions, scheduler down/up and backfill (scheduler_core.hpp; the rules
// in run_scheduler.hpp, OPERATOR ACTIONS and BACKFILL; the actions in operator_action.hpp).

#include <fmt/format.h>

#include <stdexcept>
#include <utility>
#include <variant>

#include "workflow/runner/scheduler_core.hpp"

namespace gantry {

void SchedulerCore::reject(const OperatorAction& a, const std::string& why) {
  rejection_ = why;
  event(SchedulerEventKind::kRejected, a.pipeline, a.logical_time, a.task,
        std::string(to_string(a.kind)) + ": " + why);
}

SchedulerCore::PipelineState* SchedulerCore::pipeline_for(const OperatorAction& a) {
  PipelineState* p = find_pipeline(a.pipeline);
  if (p == nullptr || p->removed) {
    reject(a, "no such pipeline");
    return nullptr;
  }
  return p;
}

std::optional<SchedulerCore::RunIndex> SchedulerCore::run_for(const OperatorAction& a) {
  PipelineState* p = pipeline_for(a);
  if (p == nullptr) return std::nullopt;
  const std::optional<RunIndex> r = a.logical_time ? run_at(*p, *a.logical_time) : std::nullopt;
  if (!r) reject(a, "no run at this logical time");
  return r;
}

std::optional<std::string> SchedulerCore::apply(const OperatorAction& action) {
  rejection_.reset();
  apply_action(action);
  return std::exchange(rejection_, std::nullopt);
}

void SchedulerCore::apply_action(const OperatorAction& action) {
  compact_finished();
  switch (action.kind) {
    case ActionKind::kSchedulerDown:
      scheduler_down();
      return;
    case ActionKind::kSchedulerUp:
      scheduler_up();
      return;
    case ActionKind::kFail:
      // A fault in the world, not a decision: it happens while the scheduler is down too.
      fail_attempt(action);
      return;
    default:
      break;
  }
  if (down_) {
    reject(action, "the scheduler is down");
    return;
  }
  const OperatorAction a = action;  // a copy: `action` may live in a vector the caller grows
  switch (a.kind) {
    case ActionKind::kTrigger: {
      PipelineState* p = pipeline_for(a);
      if (p == nullptr) return;
      // The action's instant: the same as now in virtual time; on a wall clock, the instant the
      // caller asked at, so it can find the run it made.
      const Time logical = std::min(a.at, loop_.now());
      const std::optional<RunIndex> r = create_run(*p, logical, RunTrigger::kManual, a.params);
      if (!r) {
        reject(a, "a run exists at this logical time");
        return;
      }
      event(SchedulerEventKind::kTrigger, a.pipeline, logical, "", "");
      queue_run(*p, *r);
      try_start_runs(*p);
      return;
    }
    case ActionKind::kRerun: {
      const std::optional<RunIndex> r = run_for(a);
      if (!r) return;
      const RunState s = runs_[*r]->run.state;
      if (s != RunState::kFailed && s != RunState::kKilled && s != RunState::kExpired) {
        reject(a, std::string("the run is ") + std::string(to_string(s)));
        return;
      }
      event(SchedulerEventKind::kRerun, a.pipeline, a.logical_time, "", "");
      clear_tasks(*r, false);
      try_start_runs(*pipelines_[runs_[*r]->pipeline]);
      return;
    }
    case ActionKind::kMarkSuccess: {
      const std::optional<RunIndex> r = run_for(a);
      if (!r) return;
      event(SchedulerEventKind::kMarkSuccess, a.pipeline, a.logical_time, "", "");
      mark_success(*r, a.by);
      return;
    }
    case ActionKind::kKillRun: {
      const std::optional<RunIndex> r = run_for(a);
      if (!r) return;
      const RunState s = runs_[*r]->run.state;
      if (s != RunState::kQueued && s != RunState::kRunning) {
        reject(a, std::string("the run has ended: it is ") + std::string(to_string(s)));
        return;
      }
      const std::string why = "killed" + by_whom(a.by);
      event(SchedulerEventKind::kKill, a.pipeline, a.logical_time, "", why);
      finish_run(*r, RunState::kKilled, TaskState::kKilled, why);
      return;
    }
    case ActionKind::kKillTask: {
      const std::optional<RunIndex> r = run_for(a);
      if (!r) return;
      const RunRt& run = *runs_[*r];
      const std::optional<size_t> task = pipelines_[run.pipeline]->dag.find(a.task);
      if (!task) {
        reject(a, "no task " + a.task + " in the pipeline");
        return;
      }
      if (run.run.state != RunState::kRunning) {
        reject(a, std::string("the run is not running: it is ") +
                      std::string(to_string(run.run.state)));
        return;
      }
      const auto t = static_cast<uint32_t>(*task);
      if (run.tasks[t].phase == Phase::kDone) {
        reject(a, "task " + a.task + " has ended: it is " +
                      std::string(to_string(run.run.tasks[t].state)));
        return;
      }
      const std::string why = "killed" + by_whom(a.by);
      event(SchedulerEventKind::kKill, a.pipeline, a.logical_time, a.task, why);
      kill_task(*r, t, why);
      return;
    }
    case ActionKind::kPause: {
      PipelineState* p = pipeline_for(a);
      if (p == nullptr) return;
      p->paused = true;
      if (p->tick_timer) loop_.cancel(*p->tick_timer);
      p->tick_timer.reset();
      event(SchedulerEventKind::kPause, a.pipeline, std::nullopt, "", "");
      return;
    }
    case ActionKind::kResume: {
      PipelineState* p = pipeline_for(a);
      if (p == nullptr || !p->paused) return;
      p->paused = false;
      event(SchedulerEventKind::kResume, a.pipeline, std::nullopt, "", "");
      catch_up(*p);
      return;
    }
    case ActionKind::kClearTask:
    case ActionKind::kMarkTaskSuccess:
    case ActionKind::kMarkTaskFailed:
      task_action(a);
      return;
    case ActionKind::kBackfill:
      try {
        backfill(a.pipeline, a.from, a.to, a.rerun);
      } catch (const std::invalid_argument& e) {
        reject(a, e.what());
      }
      return;
    case ActionKind::kSchedulerDown:
    case ActionKind::kSchedulerUp:
    case ActionKind::kFail:
      return;
  }
}

void SchedulerCore::fail_attempt(const OperatorAction& a) {
  const std::optional<RunIndex> r = run_for(a);
  if (!r) return;
  const RunRt& run = *runs_[*r];
  const std::optional<size_t> task = pipelines_[run.pipeline]->dag.find(a.task);
  if (!task || run.tasks.empty() || run.tasks[*task].phase != Phase::kRunning) {
    reject(a, "no running attempt of this task");
    return;
  }
  const uint32_t t = static_cast<uint32_t>(*task);
  const AttemptId id = run.tasks[t].attempt;
  event(SchedulerEventKind::kFail, a.pipeline, a.logical_time, a.task, "");
  order_kill(*r, t);
  const Completion c{id, AttemptState::kFailed, loop_.now(), {}};
  if (down_) {
    held_reports_.emplace_back(c);
    return;
  }
  finish_attempt(c);
}

void SchedulerCore::scheduler_down() {
  if (down_) return;
  down_ = true;
  event(SchedulerEventKind::kSchedulerDown, "", std::nullopt, "", "");
  for (auto& p : pipelines_) {
    if (p->tick_timer) loop_.cancel(*p->tick_timer);
    p->tick_timer.reset();
  }
}

void SchedulerCore::scheduler_up() {
  if (!down_) return;
  down_ = false;
  event(SchedulerEventKind::kSchedulerUp, "", std::nullopt, "", "");
  // What the world reported meanwhile, in the order it happened.
  for (const auto& report : std::exchange(held_reports_, {})) {
    if (const auto* running = std::get_if<RunningReport>(&report)) {
      note_running(running->id, running->at);
    } else {
      finish_attempt(std::get<Completion>(report));
    }
  }
  for (const Held& h : std::exchange(held_timers_, {})) {
    switch (h.kind) {
      case HeldKind::kAttemptTimeout:
        on_attempt_timeout(h.arg);
        break;
      case HeldKind::kRunTimeout:
        on_run_timeout(static_cast<RunIndex>(h.arg));
        break;
      case HeldKind::kRetryDue:
        on_retry_due(static_cast<RunIndex>(h.arg >> 32), static_cast<uint32_t>(h.arg));
        break;
    }
  }
  for (auto& p : pipelines_) catch_up(*p);
  for (auto& p : pipelines_) try_start_runs(*p);
}

BackfillReport SchedulerCore::backfill(const std::string& pipeline, Time from, Time to,
                                       BackfillRerun rerun) {
  PipelineState* found = find_pipeline(pipeline);
  if (found == nullptr || found->removed) throw std::invalid_argument("no pipeline " + pipeline);
  PipelineState& p = *found;
  if (!p.planner) throw std::invalid_argument("pipeline " + pipeline + " has no schedule");
  BackfillReport report;
  for (std::optional<Time> t = p.planner->next_tick_after(from - microseconds(1)); t && *t <= to;
       t = p.planner->next_tick_after(*t)) {
    const std::optional<RunIndex> existing = run_at(p, *t);
    if (!existing) {
      if (const std::optional<RunIndex> r = create_run(p, *t, RunTrigger::kBackfill)) {
        queue_run(p, *r);
        ++report.created;
      }
      continue;
    }
    const RunState s = runs_[*existing]->run.state;
    const bool again =
        is_finished(s) &&
        (rerun == BackfillRerun::kAll ||
         (rerun == BackfillRerun::kFailed &&
          (s == RunState::kFailed || s == RunState::kKilled || s == RunState::kExpired)));
    if (again) {
      clear_tasks(*existing, rerun == BackfillRerun::kAll);
      ++report.rerun;
    } else {
      ++report.untouched;
    }
  }
  event(SchedulerEventKind::kBackfill, pipeline, std::nullopt, "",
        fmt::format("[{}, {}]: {} created, {} rerun, {} untouched", format_rfc3339(from),
                    format_rfc3339(to), report.created, report.rerun, report.untouched));
  try_start_runs(p);
  return report;
}

}  // namespace gantry
