// The core's actions on one task of a run (scheduler_core.hpp; operator_action.hpp):
// clear-task (Airflow's clear, with its downstream, upstream and failed-only options),
// mark-task-success and mark-task-failed. Each is planned first (preview(): what it sets, or
// why it is refused), then applied as planned, so that a confirmation dialog shows exactly
// what the action then does to the tasks it names.

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <variant>

#include "workflow/runner/scheduler_core.hpp"

namespace gantry {

namespace {

bool failed_like(TaskState s) {
  return s == TaskState::kFailed || s == TaskState::kUpstreamFailed || s == TaskState::kKilled;
}

// The tasks reachable from `from` along `next` (upstream or downstream lists), `from` left out.
void closure(const PipelineDag& dag, size_t from, bool downstream, std::vector<bool>& in) {
  std::vector<size_t> stack{from};
  while (!stack.empty()) {
    const size_t t = stack.back();
    stack.pop_back();
    for (size_t n : downstream ? dag.downstream(t) : dag.upstream(t)) {
      if (in[n]) continue;
      in[n] = true;
      stack.push_back(n);
    }
  }
}

std::string mark_word(ActionKind k) {
  return k == ActionKind::kMarkTaskSuccess ? "marked success" : "marked failed";
}

}  // namespace

std::variant<SchedulerCore::TaskTarget, std::string> SchedulerCore::task_target(
    const OperatorAction& a) {
  PipelineState* p = find_pipeline(a.pipeline);
  if (p == nullptr || p->removed) return std::string("no such pipeline");
  const std::optional<RunIndex> r = a.logical_time ? run_at(*p, *a.logical_time) : std::nullopt;
  if (!r) return std::string("no run at this logical time");
  const std::optional<size_t> task = p->dag.find(a.task);
  if (!task) return "no task " + a.task + " in the pipeline";
  return TaskTarget{*r, static_cast<uint32_t>(*task)};
}

std::variant<TaskActionPlan, std::string> SchedulerCore::preview(const OperatorAction& a) {
  compact_finished();
  if (down_) return std::string("the scheduler is down");
  auto target = task_target(a);
  if (const auto* why = std::get_if<std::string>(&target)) return *why;
  return plan_task_action(a, std::get<TaskTarget>(target));
}

std::variant<TaskActionPlan, std::string> SchedulerCore::plan_task_action(
    const OperatorAction& a, const TaskTarget& target) {
  const RunRt& run = *runs_[target.run];
  const PipelineState& p = *pipelines_[run.pipeline];
  const RunState state = run.run.state;
  TaskActionPlan plan;
  plan.run_from = state;
  plan.run_to = state;
  const auto running_attempt = [&](size_t t) -> std::optional<size_t> {
    const TaskInstance& inst = run.run.tasks[t];
    if (inst.state != TaskState::kRunning || inst.attempts.empty()) return std::nullopt;
    return inst.attempts.size() - 1;
  };
  if (a.kind == ActionKind::kClearTask) {
    std::vector<bool> in(p.spec.tasks.size(), false);
    in[target.task] = true;
    if (a.downstream) closure(p.dag, target.task, true, in);
    if (a.upstream) closure(p.dag, target.task, false, in);
    for (size_t t = 0; t < in.size(); ++t) {
      if (!in[t]) continue;
      const TaskState s = run.run.tasks[t].state;
      // Pending tasks have nothing to clear; running ones are stopped and run again.
      const bool clear = a.failed_only ? failed_like(s) : s != TaskState::kPending;
      if (clear)
        plan.tasks.push_back({p.spec.tasks[t].name, s, TaskState::kPending, running_attempt(t)});
    }
    if (plan.tasks.empty()) {
      return a.failed_only ? std::string(
                                 "nothing to clear: no task of the selection failed, was "
                                 "upstream_failed or killed")
                           : std::string(
                                 "nothing to clear: every task of the selection is "
                                 "pending");
    }
    // A finished run goes back to the queue (and starts at once when it may).
    if (is_finished(state)) plan.run_to = RunState::kQueued;
    return plan;
  }
  if (is_finished(state)) {
    // A failed task of an ended run marked succeeded (the fix was made by hand): its
    // downstream tasks that an upstream failure stopped run again, the run with them; with
    // none, the run succeeds when every task now has. Marking failed changes nothing to run,
    // so an ended run refuses it.
    if (a.kind != ActionKind::kMarkTaskSuccess) {
      return "the run has ended: it is " + std::string(to_string(state)) +
             "; clear the task to run it again";
    }
    const TaskState from = run.run.tasks[target.task].state;
    if (from == TaskState::kSucceeded) return "task " + a.task + " is succeeded already";
    plan.tasks.push_back({a.task, from, TaskState::kSucceeded, std::nullopt});
    std::vector<bool> in(p.spec.tasks.size(), false);
    closure(p.dag, target.task, true, in);
    for (size_t t = 0; t < in.size(); ++t)
      if (in[t] && run.run.tasks[t].state == TaskState::kUpstreamFailed)
        plan.tasks.push_back(
            {p.spec.tasks[t].name, TaskState::kUpstreamFailed, TaskState::kPending, std::nullopt});
    const bool all_done =
        std::all_of(run.run.tasks.begin(), run.run.tasks.end(), [&](const TaskInstance& t) {
          return t.name == a.task || t.state == TaskState::kSucceeded ||
                 t.state == TaskState::kSkipped;
        });
    plan.run_to = plan.tasks.size() > 1 ? RunState::kQueued
                  : all_done            ? RunState::kSucceeded
                                        : state;
    return plan;
  }
  const TaskState to =
      a.kind == ActionKind::kMarkTaskSuccess ? TaskState::kSucceeded : TaskState::kFailed;
  const TaskState from = run.run.tasks[target.task].state;
  if (from == to) return "task " + a.task + " is " + std::string(to_string(from)) + " already";
  plan.tasks.push_back({a.task, from, to, running_attempt(target.task)});
  return plan;
}

void SchedulerCore::task_action(const OperatorAction& a) {
  auto target = task_target(a);
  if (const auto* why = std::get_if<std::string>(&target)) {
    reject(a, *why);
    return;
  }
  const TaskTarget t = std::get<TaskTarget>(target);
  auto planned = plan_task_action(a, t);
  if (const auto* why = std::get_if<std::string>(&planned)) {
    reject(a, *why);
    return;
  }
  const TaskActionPlan& plan = std::get<TaskActionPlan>(planned);
  if (a.kind == ActionKind::kClearTask) {
    std::string names;
    for (const TaskChange& c : plan.tasks) names += (names.empty() ? "" : ", ") + c.task;
    const std::string why = "cleared" + by_whom(a.by);
    event(SchedulerEventKind::kClearTask, a.pipeline, a.logical_time, a.task, names + " " + why);
    clear_task_set(t.run, plan, why);
    return;
  }
  const std::string why = mark_word(a.kind) + by_whom(a.by);
  event(SchedulerEventKind::kMarkTask, a.pipeline, a.logical_time, a.task, why);
  if (is_finished(runs_[t.run]->run.state)) {
    mark_ended_run_task(t.run, t.task, plan, why);
    return;
  }
  // As kill-task, with the state asked for: the task closes (its running attempt killed with
  // `why`), its downstream follow their trigger rules and the run may end.
  close_task(t.run, t.task, plan.tasks.front().to, why);
  for (size_t d : pipelines_[runs_[t.run]->pipeline]->dag.downstream(t.task))
    evaluate(t.run, static_cast<uint32_t>(d));
  check_run_done(t.run);
}

void SchedulerCore::mark_ended_run_task(RunIndex r, uint32_t task, const TaskActionPlan& plan,
                                        const std::string& why) {
  RunRt& run = *runs_[r];
  restore_tasks(run);
  run.run.tasks[task].state = TaskState::kSucceeded;
  store_task(run, task);
  TaskActionPlan rest = plan;
  rest.tasks.erase(rest.tasks.begin());
  if (!rest.tasks.empty()) {
    clear_task_set(r, rest, why);  // the run goes back to the queue with them
    return;
  }
  if (plan.run_to == RunState::kSucceeded) {
    run.run.state = RunState::kSucceeded;
    store_run(run);
    try_start_runs(*pipelines_[run.pipeline]);  // a dependsOnPast successor may start now
  }
}

void SchedulerCore::clear_task_set(RunIndex r, const TaskActionPlan& plan, const std::string& why) {
  RunRt& run = *runs_[r];
  PipelineState& p = *pipelines_[run.pipeline];
  const bool finished = is_finished(run.run.state);
  restore_tasks(run);
  std::vector<uint32_t> cleared;
  for (const TaskChange& c : plan.tasks) {
    const auto t = static_cast<uint32_t>(*p.dag.find(c.task));
    TaskRt& rt = run.tasks[t];
    if (rt.phase == Phase::kRunning) {
      order_kill(r, t);
      end_attempt(r, t, AttemptState::kKilled, loop_.now(), why);
    } else if (rt.phase == Phase::kDone) {
      ++run.unfinished;
    }
    // Retries count again from here (Airflow's clear gives the task its tries back).
    TaskInstance& inst = run.run.tasks[t];
    TaskRt fresh;
    fresh.clear_base = inst.attempts.size();
    run.tasks[t] = fresh;
    inst.state = TaskState::kPending;
    store_task(run, t);
    cleared.push_back(t);
  }
  if (finished) {
    run.run.end.reset();
    enqueue(r);
    store_run(run);
    try_start_runs(p);
    return;
  }
  // A running run goes on: the cleared tasks wait for their trigger rules again (those whose
  // upstream is cleared too wait for it). A queued run evaluates them when it starts.
  for (uint32_t t : cleared) evaluate(r, t);
}

}  // namespace gantry
