// The core's recover(): the runs of a previous life, continued (scheduler_core.hpp; the rules
// in run_scheduler.hpp, RESTART).

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "workflow/runner/retry.hpp"
#include "workflow/runner/scheduler_core.hpp"

namespace gantry {

namespace {

int not_lost(const TaskInstance& inst) {
  return static_cast<int>(
      std::count_if(inst.attempts.begin(), inst.attempts.end(),
                    [](const Attempt& a) { return a.state != AttemptState::kLost; }));
}

}  // namespace

void SchedulerCore::recover(std::vector<Run> stored, const std::function<bool(AttemptId)>& adopt,
                            const std::function<void(AttemptId)>& stop) {
  // Ids go on after the greatest ever stored, of any pipeline: an id is never reused. Under
  // kRecent `stored` holds only some runs, and an older one may hold the greatest id (a retry
  // that ran after a newer run's attempt): the store says.
  next_attempt_id_ = std::max(next_attempt_id_, store_.max_attempt_id() + 1);
  for (const Run& run : stored)
    for (const TaskInstance& t : run.tasks)
      for (const Attempt& a : t.attempts) next_attempt_id_ = std::max(next_attempt_id_, a.id + 1);
  std::sort(stored.begin(), stored.end(), [](const Run& a, const Run& b) {
    return std::tie(a.pipeline, a.logical_time) < std::tie(b.pipeline, b.logical_time);
  });
  std::vector<RunIndex> running;
  for (Run& run : stored) {
    PipelineState* found = find_pipeline(run.pipeline);
    if (found == nullptr) {
      const auto unloaded = unloaded_.find(run.pipeline);
      if (unloaded != unloaded_.end() && !is_finished(run.state))
        end_unloaded_run(run, unloaded->second, adopt, stop);
      continue;
    }
    if (found->runs.count(run.logical_time) != 0) continue;
    PipelineState& p = *found;
    const Time lt = run.logical_time;
    const RunTrigger trigger = run.trigger;
    const RunState state = run.state;
    const RunIndex r = index_stored(p, std::move(run));
    // kRecent: `stored` may hold only some of the runs (RunSelection::kActive); those not
    // loaded are older than the pipeline's newest loaded one.
    if (keep_ == KeepFinished::kRecent && (!p.left_memory_upto || *p.left_memory_upto < lt))
      p.left_memory_upto = lt;
    // The schedule goes on after the last tick it looked at.
    if (trigger == RunTrigger::kSchedule || trigger == RunTrigger::kCatchup ||
        state == RunState::kSkipped) {
      if (!p.last_tick || *p.last_tick < lt) p.last_tick = lt;
    }
    if (state == RunState::kQueued) {
      p.queued.insert(lt);
      p.in_flight.insert(lt);
    } else if (state == RunState::kRunning) {
      p.in_flight.insert(lt);
      ++p.running;
      slots_.open_run(r, p.spec.parallelism);
      running.push_back(r);
    } else if (is_finished(state)) {
      finished_.push_back(r);
    }
  }
  const Time now = loop_.now();
  for (RunIndex r : running) {
    RunRt& run = *runs_[r];
    const PipelineState& p = *pipelines_[run.pipeline];
    if (p.spec.timeout) {
      arm_run_timeout(r, std::max(now, run.run.start.value_or(now) + *p.spec.timeout));
    }
    for (uint32_t i = 0; i < run.tasks.size() && run.run.state == RunState::kRunning; ++i) {
      TaskInstance& inst = run.run.tasks[i];
      const bool open_attempt = !inst.attempts.empty() && !inst.attempts.back().end;
      if (inst.state == TaskState::kRunning && open_attempt && inst.attempts.back().id != 0 &&
          adopt(inst.attempts.back().id)) {
        adopt_attempt(r, i);
      } else if (inst.state == TaskState::kRunning && open_attempt) {
        // Lost with the previous process: the work may or may not have finished, and nobody
        // will report it now.
        const bool rerun = lost_attempts_ == LostAttempts::kRerun;
        const AttemptState closed = rerun ? AttemptState::kLost : AttemptState::kError;
        Attempt& a = inst.attempts.back();
        const std::string why =
            rerun ? "running when the scheduler stopped; run again (not counted as a retry)"
                  : "running when the scheduler stopped; closed as error";
        a.end = now;
        a.state = closed;
        a.reason = why;
        store_.attempt_ended(RunKey{run.run.pipeline, run.run.logical_time}, inst.name,
                             inst.attempts.size() - 1, now, closed, why);
        event(SchedulerEventKind::kLostAttempt, run.run.pipeline, run.run.logical_time, inst.name,
              why);
        settle_attempt(r, i, closed, now);
      } else if (inst.state == TaskState::kRunning && !inst.attempts.empty()) {
        // The attempt's end was stored but not the task's new state (two commits apart with
        // batch 1): finish what the previous process was doing when it died.
        const Attempt a = inst.attempts.back();
        settle_attempt(r, i, a.state, *a.end);
      } else if (inst.state == TaskState::kPending && !inst.attempts.empty() &&
                 inst.attempts.back().state == AttemptState::kLost) {
        // Died again before the lost attempt's replacement started: start it now.
        make_ready(r, i, now);
      } else if (inst.state == TaskState::kPending && !inst.attempts.empty() &&
                 inst.attempts.back().end) {
        // Waiting for a retry at the crash: wait for the rest of the backoff.
        const Attempt& a = inst.attempts.back();
        arm_retry(r, i, std::max(now, *a.end + retry_wait(p.spec.tasks[i].retry, not_lost(inst))));
      } else if (inst.state == TaskState::kRunning) {
        inst.state = TaskState::kPending;  // running without an attempt: start afresh
        store_task(run, i);
      }
    }
    for (uint32_t i = 0; i < run.tasks.size() && run.run.state == RunState::kRunning; ++i) {
      if (run.tasks[i].phase == Phase::kIdle) evaluate(r, i);
    }
    check_run_done(r);
  }
}

void SchedulerCore::end_unloaded_run(const Run& run, const std::string& why,
                                     const std::function<bool(AttemptId)>& adopt,
                                     const std::function<void(AttemptId)>& stop) {
  const Time now = loop_.now();
  const RunKey key{run.pipeline, run.logical_time};
  for (const TaskInstance& inst : run.tasks) {
    if (!inst.attempts.empty() && !inst.attempts.back().end) {
      // A live executor may still hold it: take it over only to stop it.
      const AttemptId id = inst.attempts.back().id;
      if (id != 0 && adopt(id) && stop) stop(id);
      store_.attempt_ended(key, inst.name, inst.attempts.size() - 1, now, AttemptState::kError, "");
    }
    if (!is_finished(inst.state))
      store_.update_task(key, inst.name, TaskState::kKilled, inst.requests);
  }
  store_.update_run(key, RunState::kFailed, run.start, now);
  event(SchedulerEventKind::kPipelineNotLoaded, run.pipeline, run.logical_time, "",
        "the pipeline's stored definition could not be loaded (" + why +
            "): the run ended as failed");
}

void SchedulerCore::adopt_attempt(RunIndex r, uint32_t task) {
  RunRt& run = *runs_[r];
  const PipelineState& p = *pipelines_[run.pipeline];
  TaskRt& t = run.tasks[task];
  const TaskInstance& inst = run.run.tasks[task];
  const Attempt& a = inst.attempts.back();
  // As if dispatched in this life: it holds its slots, its reports reach the core, and its
  // timeout counts from its recorded running start (or from the executor's report to come).
  t.phase = Phase::kRunning;
  t.attempt = a.id;
  attempts_.emplace(a.id, std::make_pair(r, task));
  slots_.hold(r, p.pool[task], p.spec.tasks[task].pool_slots);
  arm_attempt_timeout(r, task);
  event(SchedulerEventKind::kAdoptedAttempt, run.run.pipeline, run.run.logical_time, inst.name,
        fmt::format("attempt {} still held by the executor: it goes on", a.id));
}

}  // namespace gantry
