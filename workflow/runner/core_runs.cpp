// The core's runs: creation, the queue, concurrency, dependsOnPast and completion
// (scheduler_core.hpp; the rules in run_scheduler.hpp, CONCURRENCY and DEPENDS ON PAST).

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "workflow/runner/scheduler_core.hpp"

namespace gantry {

std::optional<SchedulerCore::RunIndex> SchedulerCore::create_run(
    PipelineState& p, Time logical, RunTrigger trigger,
    const std::map<std::string, std::string>& params) {
  if (p.runs.count(logical) != 0) return std::nullopt;
  Run run;
  for (const ParamSpec& param : p.spec.params)
    if (param.default_value) run.params[param.name] = *param.default_value;
  for (const auto& [name, value] : params) run.params[name] = value;
  run.pipeline = p.spec.name;
  run.logical_time = logical;
  run.trigger = trigger;
  run.state = RunState::kQueued;
  run.tasks.reserve(p.spec.tasks.size());
  for (const TaskSpec& t : p.spec.tasks) {
    run.tasks.push_back(TaskInstance{t.name, TaskState::kPending, {}, t.resources});
  }
  // The store is the judge of uniqueness: after a restart without recover() it still refuses.
  if (!store_.create_run(run)) return std::nullopt;
  return index_run(p, std::move(run));
}

SchedulerCore::RunIndex SchedulerCore::index_run(PipelineState& p, Run run) {
  auto rt = std::make_unique<RunRt>();
  rt->pipeline = p.index;
  rt->tasks.resize(p.spec.tasks.size());
  for (size_t i = 0; i < run.tasks.size(); ++i) {
    if (is_finished(run.tasks[i].state)) {
      rt->tasks[i].phase = Phase::kDone;
    } else {
      ++rt->unfinished;
    }
  }
  const Time logical = run.logical_time;
  rt->run = std::move(run);
  RunIndex index = static_cast<RunIndex>(runs_.size());
  if (free_runs_.empty()) {
    runs_.push_back(std::move(rt));
  } else {
    index = free_runs_.back();
    free_runs_.pop_back();
    runs_[index] = std::move(rt);
  }
  const auto at = p.runs.emplace(logical, index).first;
  // The run that was the pipeline's newest is newest no more: it may leave memory now.
  if (keep_ == KeepFinished::kRecent && std::next(at) == p.runs.end() && at != p.runs.begin())
    finished_.push_back(std::prev(at)->second);
  return index;
}

SchedulerCore::RunIndex SchedulerCore::index_stored(PipelineState& p, Run run) {
  run.tasks = tasks_in_pipeline_order(p.spec, std::move(run.tasks));
  const RunIndex r = index_run(p, std::move(run));
  RunRt& rt = *runs_[r];
  for (size_t i = 0; i < rt.tasks.size(); ++i) {
    const TaskInstance& inst = rt.run.tasks[i];
    if (inst.attempts.empty()) continue;
    const Attempt& first = inst.attempts.front();
    rt.tasks[i].first_start = first.running.value_or(first.start);
  }
  return r;
}

SchedulerCore::RunIndex SchedulerCore::bring_back(PipelineState& p, Run run) {
  const RunIndex r = index_stored(p, std::move(run));
  finished_.push_back(r);
  return r;
}

std::optional<SchedulerCore::RunIndex> SchedulerCore::run_at(PipelineState& p, Time logical) {
  if (const auto it = p.runs.find(logical); it != p.runs.end()) return it->second;
  if (!p.left_memory_upto || logical > *p.left_memory_upto) return std::nullopt;
  std::optional<Run> stored = store_.load_run(RunKey{p.spec.name, logical});
  if (!stored) return std::nullopt;
  return bring_back(p, std::move(*stored));
}

void SchedulerCore::queue_run(PipelineState& p, RunIndex r) {
  enqueue(r);
  apply_keep_latest(p);
}

void SchedulerCore::enqueue(RunIndex r) {
  RunRt& run = *runs_[r];
  PipelineState& p = *pipelines_[run.pipeline];
  run.run.state = RunState::kQueued;
  p.queued.insert(run.run.logical_time);
  p.in_flight.insert(run.run.logical_time);
}

void SchedulerCore::apply_keep_latest(PipelineState& p) {
  const int keep = p.spec.concurrency.keep_latest;
  if (keep <= 0) return;
  while (p.in_flight.size() > static_cast<size_t>(keep)) {
    const Time old = *p.in_flight.begin();
    event(SchedulerEventKind::kExpire, p.spec.name, old, "",
          fmt::format("more than keepLatest {} runs in flight", keep));
    finish_run(p.runs.at(old), RunState::kExpired, TaskState::kKilled,
               fmt::format("the run expired: more than keepLatest {} runs in flight", keep));
  }
}

std::optional<SchedulerCore::RunIndex> SchedulerCore::previous_run(PipelineState& p, Time logical) {
  Time before = logical;
  for (;;) {
    // The newest run before `before` in memory; a newer one may be in the store only if some
    // run that left memory is newer than it.
    const auto it = p.runs.lower_bound(before);
    std::optional<RunIndex> found;
    if (it != p.runs.begin()) found = std::prev(it)->second;
    const bool maybe_in_store =
        p.left_memory_upto && (!found || runs_[*found]->run.logical_time < *p.left_memory_upto);
    if (maybe_in_store) {
      std::optional<Run> stored = store_.load_run_before(p.spec.name, before);
      if (!stored) return std::nullopt;
      const auto known = p.runs.find(stored->logical_time);
      found = known != p.runs.end() ? known->second : bring_back(p, std::move(*stored));
    }
    if (!found) return std::nullopt;
    const Run& run = runs_[*found]->run;
    if (run.state != RunState::kSkipped) return found;
    before = run.logical_time;
  }
}

void SchedulerCore::try_start_runs(PipelineState& p) {
  // Not re-entered: a run that ends at once (every task skipped) calls back in here, and the
  // loop below picks up where it was instead of recursing once per queued run.
  if (down_ || !switched_on_ || p.starting) return;
  p.starting = true;
  const int max = p.spec.concurrency.max_active_runs;
  while (!p.queued.empty() && (max <= 0 || p.running < max)) {
    const Time t = *p.queued.begin();
    if (p.spec.depends_on_past) {
      const std::optional<RunIndex> prev = previous_run(p, t);
      if (prev && runs_[*prev]->run.state != RunState::kSucceeded) break;
    }
    p.queued.erase(p.queued.begin());
    start_run(p.runs.at(t));
  }
  p.starting = false;
  // A catch-up held by its backlog goes on once queued runs have started.
  if (p.catch_up_held && p.queued.size() < catch_up_backlog(p) && !p.tick_timer) {
    p.catch_up_held = false;
    continue_catch_up(p);
  }
}

void SchedulerCore::start_run(RunIndex r) {
  RunRt& run = *runs_[r];
  PipelineState& p = *pipelines_[run.pipeline];
  const Time now = loop_.now();
  run.run.state = RunState::kRunning;
  if (!run.run.start) run.run.start = now;
  run.run.end.reset();
  ++p.running;
  slots_.open_run(r, p.spec.parallelism);
  store_run(run);
  if (p.spec.timeout) arm_run_timeout(r, now + *p.spec.timeout);
  for (uint32_t i = 0; i < run.tasks.size() && run.run.state == RunState::kRunning; ++i) {
    if (run.tasks[i].phase == Phase::kIdle) evaluate(r, i);
  }
  check_run_done(r);
}

void SchedulerCore::arm_run_timeout(RunIndex r, Time at) {
  runs_[r]->timeout_timer = loop_.schedule_at(at, [this, r] { on_run_timeout(r); });
}

void SchedulerCore::check_run_done(RunIndex r) {
  RunRt& run = *runs_[r];
  if (run.run.state != RunState::kRunning || run.unfinished > 0) return;
  const PipelineState& p = *pipelines_[run.pipeline];
  bool ok = true;
  for (size_t leaf : p.dag.leaves()) {
    const TaskState s = run.run.tasks[leaf].state;
    if (s != TaskState::kSucceeded && s != TaskState::kSkipped) ok = false;
  }
  finish_run(r, ok ? RunState::kSucceeded : RunState::kFailed, TaskState::kKilled, "");
}

void SchedulerCore::finish_run(RunIndex r, RunState state, TaskState rest, const std::string& why) {
  RunRt& run = *runs_[r];
  PipelineState& p = *pipelines_[run.pipeline];
  const bool was_running = run.run.state == RunState::kRunning;
  if (run.timeout_timer) {
    loop_.cancel(*run.timeout_timer);
    run.timeout_timer.reset();
  }
  // The run leaves the in-flight sets first, so that nothing below sees it as startable and
  // task changes do not propagate (evaluate() only works on running runs).
  run.run.state = state;
  run.run.end = loop_.now();
  // A run that succeeded without starting (mark-success) or was skipped (Forbid) still shows
  // when that happened.
  if (!run.run.start && (state == RunState::kSucceeded || state == RunState::kSkipped)) {
    run.run.start = loop_.now();
  }
  p.queued.erase(run.run.logical_time);
  p.in_flight.erase(run.run.logical_time);
  if (was_running) --p.running;
  for (uint32_t i = 0; i < run.tasks.size(); ++i) {
    if (run.tasks[i].phase != Phase::kDone) close_task(r, i, rest, why);
  }
  slots_.close_run(r);
  store_run(run);
  finished_.push_back(r);
  try_start_runs(p);
}

// Callers up the stack may still hold references into a run that just finished, so its task
// bookkeeping is dropped later, from the top of the next callback (nothing on the stack then).
// Under kRecent the run may then leave memory; not while the scheduler is down, as the
// timers held meanwhile name runs by index (they wait in finished_ until it is up).
void SchedulerCore::compact_finished() {
  const bool may_leave = keep_ == KeepFinished::kRecent && !down_ && held_timers_.empty();
  std::vector<RunIndex> later;
  for (RunIndex r : std::exchange(finished_, {})) {
    if (!runs_[r]) continue;  // left memory already
    RunRt& run = *runs_[r];
    if (!is_finished(run.run.state)) continue;  // rerun meanwhile
    if (std::any_of(run.tasks.begin(), run.tasks.end(),
                    [](const TaskRt& t) { return t.phase != Phase::kDone; }))
      continue;
    std::vector<TaskRt>().swap(run.tasks);
    if (keep_ != KeepFinished::kRecent) continue;
    if (!may_leave) {
      later.push_back(r);
    } else if (may_leave_memory(r)) {
      leave_memory(r);
    }
  }
  finished_.insert(finished_.end(), later.begin(), later.end());
}

bool SchedulerCore::may_leave_memory(RunIndex r) {
  const RunRt& run = *runs_[r];
  PipelineState& p = *pipelines_[run.pipeline];
  // The newest run stays: the next run's dependsOnPast reads it, and it tells previous_run()
  // that nothing newer is in the store only.
  if (p.runs.rbegin()->second == r) return false;
  // A dependsOnPast wait on one of its tasks keeps it (the wait is keyed by its index), unless
  // every waiter has gone.
  auto w = p.waiters.lower_bound({r, 0});
  while (w != p.waiters.end() && w->first.first == r) {
    std::erase_if(w->second, [&](const std::pair<RunIndex, uint32_t>& waiter) {
      const RunRt* wr = runs_[waiter.first].get();
      return wr == nullptr || wr->run.state != RunState::kRunning ||
             wr->tasks[waiter.second].phase != Phase::kWaitPast;
    });
    if (!w->second.empty()) return false;
    w = p.waiters.erase(w);
  }
  return true;
}

void SchedulerCore::leave_memory(RunIndex r) {
  const RunRt& run = *runs_[r];
  PipelineState& p = *pipelines_[run.pipeline];
  const Time logical = run.run.logical_time;
  p.runs.erase(logical);
  if (!p.left_memory_upto || *p.left_memory_upto < logical) p.left_memory_upto = logical;
  // Its index is about to be reused: no wait may name it as a waiter any more. A wait left
  // with no waiter frees the run it waited on.
  for (auto it = p.waiters.begin(); it != p.waiters.end();) {
    std::erase_if(it->second, [r](const std::pair<RunIndex, uint32_t>& w) { return w.first == r; });
    if (it->second.empty()) {
      finished_.push_back(it->first.first);
      it = p.waiters.erase(it);
    } else {
      ++it;
    }
  }
  runs_[r].reset();
  free_runs_.push_back(r);
}

void SchedulerCore::restore_tasks(RunRt& run) {
  if (!run.tasks.empty() || run.run.tasks.empty()) return;
  TaskRt done;
  done.phase = Phase::kDone;
  run.tasks.assign(run.run.tasks.size(), done);
}

void SchedulerCore::close_task(RunIndex r, uint32_t task, TaskState state, const std::string& why) {
  RunRt& run = *runs_[r];
  TaskRt& t = run.tasks[task];
  switch (t.phase) {
    case Phase::kRunning:
      order_kill(r, task);
      end_attempt(r, task, AttemptState::kKilled, loop_.now(), why);
      break;
    case Phase::kReady:
      unready(r, task);
      break;
    case Phase::kRetryWait:
      if (t.retry_timer) loop_.cancel(*t.retry_timer);
      t.retry_timer.reset();
      break;
    case Phase::kIdle:
    case Phase::kWaitPast:  // its waiter entry is dropped lazily (wake_past checks the phase)
      break;
    case Phase::kDone:
      // mark-success of a finished task: only its state changes.
      run.run.tasks[task].state = state;
      store_task(run, task);
      if (state == TaskState::kSucceeded || state == TaskState::kSkipped) wake_past(r, task);
      return;
  }
  t.phase = Phase::kDone;
  run.run.tasks[task].state = state;
  --run.unfinished;
  store_task(run, task);
  if (state == TaskState::kSucceeded || state == TaskState::kSkipped) wake_past(r, task);
}

void SchedulerCore::kill_task(RunIndex r, uint32_t task, const std::string& why) {
  close_task(r, task, TaskState::kKilled, why);
  for (size_t d : pipelines_[runs_[r]->pipeline]->dag.downstream(task))
    evaluate(r, static_cast<uint32_t>(d));
  check_run_done(r);
}

void SchedulerCore::wake_past(RunIndex r, uint32_t task) {
  PipelineState& p = *pipelines_[runs_[r]->pipeline];
  auto it = p.waiters.find({r, task});
  if (it == p.waiters.end()) return;
  std::vector<std::pair<RunIndex, uint32_t>> waiting = std::move(it->second);
  p.waiters.erase(it);
  for (auto [wr, wt] : waiting) {
    RunRt& w = *runs_[wr];
    if (w.run.state == RunState::kRunning && w.tasks[wt].phase == Phase::kWaitPast) {
      make_ready(wr, wt, loop_.now());
    }
  }
}

void SchedulerCore::clear_tasks(RunIndex r, bool all) {
  RunRt& run = *runs_[r];
  assert(is_finished(run.run.state));
  restore_tasks(run);
  for (uint32_t i = 0; i < run.tasks.size(); ++i) {
    TaskInstance& inst = run.run.tasks[i];
    const bool clear = all || inst.state == TaskState::kFailed ||
                       inst.state == TaskState::kUpstreamFailed || inst.state == TaskState::kKilled;
    if (!clear) continue;
    TaskRt fresh;
    fresh.clear_base = inst.attempts.size();
    run.tasks[i] = fresh;
    inst.state = TaskState::kPending;
    ++run.unfinished;
    store_task(run, i);
  }
  run.run.end.reset();
  enqueue(r);
  store_run(run);
}

void SchedulerCore::mark_success(RunIndex r, const std::string& by) {
  RunRt& run = *runs_[r];
  restore_tasks(run);
  const bool was_finished = is_finished(run.run.state);
  // An unfinished run ends first: its unfinished tasks become succeeded with it.
  const std::string why = "stopped: the run was marked succeeded" + by_whom(by);
  if (!was_finished) finish_run(r, RunState::kSucceeded, TaskState::kSucceeded, why);
  // Tasks that had ended otherwise become succeeded too (this unblocks dependsOnPast).
  for (uint32_t i = 0; i < run.tasks.size(); ++i) {
    const TaskState s = run.run.tasks[i].state;
    if (s != TaskState::kSucceeded && s != TaskState::kSkipped)
      close_task(r, i, TaskState::kSucceeded, why);
  }
  if (was_finished && run.run.state != RunState::kSucceeded) {
    finish_run(r, RunState::kSucceeded, TaskState::kSucceeded, why);
  } else {
    try_start_runs(*pipelines_[run.pipeline]);
  }
}

void SchedulerCore::on_run_timeout(RunIndex r) {
  compact_finished();
  if (down_) {
    held_timers_.push_back(Held{HeldKind::kRunTimeout, r});
    return;
  }
  RunRt& run = *runs_[r];
  run.timeout_timer.reset();
  if (run.run.state != RunState::kRunning) return;
  const PipelineState& p = *pipelines_[run.pipeline];
  finish_run(r, RunState::kFailed, TaskState::kKilled,
             "the run timed out (timeout " +
                 (p.spec.timeout ? format_duration(*p.spec.timeout) : std::string("?")) + ")");
  notify_work();
}

}  // namespace gantry
