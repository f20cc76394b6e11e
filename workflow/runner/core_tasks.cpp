// The core's tasks inside a run: trigger rules, readiness, attempts, retries and timeouts
// (scheduler_core.hpp; the rules in run_scheduler.hpp, INSIDE A RUN).

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "workflow/runner/retry.hpp"
#include "workflow/runner/scheduler_core.hpp"
#include "workflow/runner/trigger_rule.hpp"

namespace gantry {

namespace {

AttemptState to_attempt_state(AttemptOutcome o) {
  switch (o) {
    case AttemptOutcome::kSucceeded:
      return AttemptState::kSucceeded;
    case AttemptOutcome::kFailed:
      return AttemptState::kFailed;
    case AttemptOutcome::kError:
      return AttemptState::kError;
  }
  return AttemptState::kError;
}

// Attempts from `from` on that count against the retry limit: all but those lost with a
// previous orchestrator (RESTART).
int counted_attempts(const TaskInstance& inst, size_t from) {
  int n = 0;
  for (size_t i = from; i < inst.attempts.size(); ++i)
    if (inst.attempts[i].state != AttemptState::kLost) ++n;
  return n;
}

}  // namespace

void SchedulerCore::evaluate(RunIndex r, uint32_t task) {
  RunRt& run = *runs_[r];
  if (run.run.state != RunState::kRunning) return;
  TaskRt& t = run.tasks[task];
  if (t.phase != Phase::kIdle) return;
  PipelineState& p = *pipelines_[run.pipeline];
  const TaskSpec& spec = p.spec.tasks[task];

  UpstreamCounts up;
  up.total = static_cast<int>(p.dag.upstream(task).size());
  for (size_t u : p.dag.upstream(task)) {
    switch (run.run.tasks[u].state) {
      case TaskState::kSucceeded:
        ++up.succeeded;
        break;
      case TaskState::kSkipped:
        ++up.skipped;
        break;
      case TaskState::kFailed:
      case TaskState::kKilled:
        ++up.failed;
        break;
      case TaskState::kUpstreamFailed:
        ++up.upstream_failed;
        break;
      case TaskState::kPending:
      case TaskState::kRunning:
        break;
    }
  }
  switch (evaluate_trigger_rule(spec.trigger_rule, up)) {
    case RuleVerdict::kWait:
      return;
    case RuleVerdict::kSkip:
      set_task_done(r, task, TaskState::kSkipped);
      return;
    case RuleVerdict::kUpstreamFailed:
      set_task_done(r, task, TaskState::kUpstreamFailed);
      return;
    case RuleVerdict::kRun:
      break;
  }
  if (spec.skip) {
    set_task_done(r, task, TaskState::kSkipped);
    return;
  }
  if (spec.depends_on_past) {
    const std::optional<RunIndex> prev = previous_run(p, run.run.logical_time);
    if (prev) {
      const TaskState s = runs_[*prev]->run.tasks[task].state;
      if (s != TaskState::kSucceeded && s != TaskState::kSkipped) {
        t.phase = Phase::kWaitPast;
        p.waiters[{*prev, task}].emplace_back(r, task);
        return;
      }
    }
  }
  make_ready(r, task, loop_.now());
}

void SchedulerCore::set_task_done(RunIndex r, uint32_t task, TaskState state) {
  RunRt& run = *runs_[r];
  TaskRt& t = run.tasks[task];
  assert(t.phase != Phase::kDone);
  t.phase = Phase::kDone;
  run.run.tasks[task].state = state;
  --run.unfinished;
  store_task(run, task);
  if (state == TaskState::kSucceeded || state == TaskState::kSkipped) wake_past(r, task);
  for (size_t d : pipelines_[run.pipeline]->dag.downstream(task))
    evaluate(r, static_cast<uint32_t>(d));
  check_run_done(r);
}

void SchedulerCore::make_ready(RunIndex r, uint32_t task, Time ready_time) {
  RunRt& run = *runs_[r];
  const PipelineState& p = *pipelines_[run.pipeline];
  TaskRt& t = run.tasks[task];
  t.phase = Phase::kReady;
  t.key =
      ReadyTask{-p.spec.tasks[task].priority, ready_time, run.run.logical_time, p.index, task, r};
  slots_.add_ready(t.key, p.pool[task], p.spec.tasks[task].pool_slots);
}

void SchedulerCore::unready(RunIndex r, uint32_t task) {
  const RunRt& run = *runs_[r];
  slots_.remove_ready(run.tasks[task].key, pipelines_[run.pipeline]->pool[task]);
}

AttemptRequest SchedulerCore::start_attempt(RunIndex r, uint32_t task) {
  RunRt& run = *runs_[r];
  PipelineState& p = *pipelines_[run.pipeline];
  const TaskSpec& spec = p.spec.tasks[task];
  TaskRt& t = run.tasks[task];
  TaskInstance& inst = run.run.tasks[task];
  const Time now = loop_.now();

  Resources requests = spec.resources;
  if (spec.autosize) {
    requests = autosizer_.requests(p.spec.name + "/" + spec.name, now, spec.resources);
    if (requests != inst.requests) {
      event(SchedulerEventKind::kAutosize, p.spec.name, run.run.logical_time, spec.name,
            fmt::format("cpu {}m -> {}m, memory {} -> {} bytes", inst.requests.cpu_milli,
                        requests.cpu_milli, inst.requests.memory_bytes, requests.memory_bytes));
    }
  }
  inst.requests = requests;
  const size_t index = inst.attempts.size();
  if (index == t.clear_base) t.first_start = now;
  const AttemptId id = next_attempt_id_++;
  inst.attempts.push_back(Attempt{now, std::nullopt, AttemptState::kRunning, {}, id});
  inst.state = TaskState::kRunning;
  t.phase = Phase::kRunning;
  t.attempt = id;
  attempts_.emplace(id, std::make_pair(r, task));
  store_task(run, task);
  store_.attempt_started(RunKey{run.run.pipeline, run.run.logical_time}, inst.name, index, id, now);

  AttemptRequest request;
  request.id = id;
  request.pipeline = &p.spec;
  request.task = &spec;
  request.logical_time = run.run.logical_time;
  request.attempt_index = index;
  request.requests = requests;
  request.params = run.run.params;
  return request;
}

void SchedulerCore::attempt_running(AttemptId id, Time at) {
  compact_finished();
  if (down_) {
    held_reports_.emplace_back(RunningReport{id, at});
    return;
  }
  note_running(id, at);
}

void SchedulerCore::note_running(AttemptId id, Time at) {
  const auto it = attempts_.find(id);
  if (it == attempts_.end()) return;  // ended or killed meanwhile
  const auto [r, task] = it->second;
  RunRt& run = *runs_[r];
  TaskRt& t = run.tasks[task];
  TaskInstance& inst = run.run.tasks[task];
  Attempt& a = inst.attempts.back();
  if (a.running) return;  // reported once already (a re-report after adopt())
  a.running = at;
  store_.attempt_running(RunKey{run.run.pipeline, run.run.logical_time}, inst.name,
                         inst.attempts.size() - 1, at);
  // maxDuration counts from the first attempt's work, not from its time in a queue.
  if (inst.attempts.size() - 1 == t.clear_base) t.first_start = at;
  arm_attempt_timeout(r, task);
}

void SchedulerCore::arm_attempt_timeout(RunIndex r, uint32_t task) {
  const RunRt& run = *runs_[r];
  TaskRt& t = runs_[r]->tasks[task];
  const std::optional<Duration> timeout = pipelines_[run.pipeline]->spec.tasks[task].timeout;
  const Attempt& a = run.run.tasks[task].attempts.back();
  if (!timeout || !a.running || t.timeout_timer) return;
  // Armed on the executor's running report, which comes after the executor scheduled the
  // attempt's own end, so an attempt that ends exactly at its timeout is finished rather than
  // timed out: the loop breaks ties by insertion order. An attempt adopted after a restart
  // whose timeout passed meanwhile times out now.
  const AttemptId id = t.attempt;
  t.timeout_timer = loop_.schedule_at(std::max(loop_.now(), *a.running + *timeout),
                                      [this, id] { on_attempt_timeout(id); });
}

void SchedulerCore::end_attempt(RunIndex r, uint32_t task, AttemptState state, Time end,
                                const std::string& reason) {
  RunRt& run = *runs_[r];
  const PipelineState& p = *pipelines_[run.pipeline];
  TaskRt& t = run.tasks[task];
  TaskInstance& inst = run.run.tasks[task];
  Attempt& a = inst.attempts.back();
  a.end = end;
  a.state = state;
  a.reason = reason;
  store_.attempt_ended(RunKey{run.run.pipeline, run.run.logical_time}, inst.name,
                       inst.attempts.size() - 1, end, state, reason);
  if (t.timeout_timer) {
    loop_.cancel(*t.timeout_timer);
    t.timeout_timer.reset();
  }
  attempts_.erase(t.attempt);
  t.attempt = 0;
  slots_.release(r, p.pool[task], p.spec.tasks[task].pool_slots);
}

void SchedulerCore::order_kill(RunIndex r, uint32_t task) {
  kills_.push_back(KillOrder{runs_[r]->tasks[task].attempt, r, task});
}

void SchedulerCore::attempt_finished(AttemptId id, const AttemptResult& result) {
  compact_finished();
  const Completion c{id, to_attempt_state(result.outcome), loop_.now(), result.used, result.reason};
  if (down_) {
    held_reports_.emplace_back(c);
    return;
  }
  finish_attempt(c);
}

void SchedulerCore::kill_unknown(const KillOrder& order) {
  const RunRt& run = *runs_[order.run];
  event(SchedulerEventKind::kKillUnknown, run.run.pipeline, run.run.logical_time,
        run.run.tasks[order.task].name,
        fmt::format("attempt {}: the executor did not hold it when it was stopped", order.id));
}

void SchedulerCore::finish_attempt(const Completion& c) {
  const auto it = attempts_.find(c.id);
  if (it == attempts_.end()) return;  // killed meanwhile
  const auto [r, task] = it->second;
  // Every attempt that did not succeed says why (#26 §1): an executor that gave no reason still
  // leaves the state's own words, never an empty reason.
  const std::string reason =
      !c.reason.empty() || c.state == AttemptState::kSucceeded
          ? c.reason
          : std::string(to_string(c.state)) + " (the executor gave no reason)";
  end_attempt(r, task, c.state, c.end, reason);
  RunRt& run = *runs_[r];
  const PipelineState& p = *pipelines_[run.pipeline];
  const TaskSpec& spec = p.spec.tasks[task];
  if (!reason.empty()) {
    event(c.state == AttemptState::kError ? SchedulerEventKind::kAttemptError
                                          : SchedulerEventKind::kAttemptEnded,
          p.spec.name, run.run.logical_time, spec.name, reason);
  }
  if (c.state == AttemptState::kSucceeded && spec.autosize)
    autosizer_.record_success(p.spec.name + "/" + spec.name, c.end, c.used);
  settle_attempt(r, task, c.state, c.end);
}

void SchedulerCore::settle_attempt(RunIndex r, uint32_t task, AttemptState state, Time end) {
  switch (state) {
    case AttemptState::kSucceeded:
      set_task_done(r, task, TaskState::kSucceeded);
      return;
    case AttemptState::kLost: {
      RunRt& run = *runs_[r];
      run.run.tasks[task].state = TaskState::kPending;
      store_task(run, task);
      make_ready(r, task, loop_.now());
      return;
    }
    default:
      after_unsuccessful(r, task, state, end);
      return;
  }
}

void SchedulerCore::after_unsuccessful(RunIndex r, uint32_t task, AttemptState state, Time end) {
  RunRt& run = *runs_[r];
  const PipelineState& p = *pipelines_[run.pipeline];
  TaskRt& t = run.tasks[task];
  TaskInstance& inst = run.run.tasks[task];
  const int retries_done = counted_attempts(inst, t.clear_base) - 1;
  const std::optional<Time> next = next_attempt_start(p.spec.tasks[task].retry, state, end,
                                                      t.first_start.value_or(end), retries_done);
  if (!next) {
    set_task_done(r, task, TaskState::kFailed);
    return;
  }
  t.phase = Phase::kRetryWait;
  inst.state = TaskState::kPending;
  store_task(run, task);
  if (*next <= loop_.now()) {
    make_ready(r, task, *next);
  } else {
    arm_retry(r, task, *next);
  }
}

void SchedulerCore::arm_retry(RunIndex r, uint32_t task, Time at) {
  TaskRt& t = runs_[r]->tasks[task];
  t.phase = Phase::kRetryWait;
  t.retry_timer = loop_.schedule_at(at, [this, r, task] { on_retry_due(r, task); });
}

void SchedulerCore::on_retry_due(RunIndex r, uint32_t task) {
  compact_finished();
  if (down_) {
    held_timers_.push_back(Held{HeldKind::kRetryDue, (uint64_t{r} << 32) | task});
    return;
  }
  RunRt& run = *runs_[r];
  TaskRt& t = run.tasks[task];
  t.retry_timer.reset();
  if (run.run.state != RunState::kRunning || t.phase != Phase::kRetryWait) return;
  make_ready(r, task, loop_.now());
  notify_work();
}

void SchedulerCore::on_attempt_timeout(AttemptId id) {
  compact_finished();
  if (down_) {
    held_timers_.push_back(Held{HeldKind::kAttemptTimeout, id});
    return;
  }
  const auto it = attempts_.find(id);
  if (it == attempts_.end()) return;
  const auto [r, task] = it->second;
  runs_[r]->tasks[task].timeout_timer.reset();
  order_kill(r, task);
  finish_attempt(Completion{id, AttemptState::kTimeout, loop_.now(), {}});
  notify_work();
}

}  // namespace gantry
