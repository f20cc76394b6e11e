// The core's set-up, its schedules and the hand-out of work (scheduler_core.hpp).

#include "workflow/runner/scheduler_core.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace gantry {

SchedulerCore::SchedulerCore(EventLoop& loop, RunStore& store, AutosizeConfig autosize)
    : loop_(loop), store_(store), autosizer_(autosize) {}

SchedulerCore::~SchedulerCore() = default;

// ---------------------------------------------------------------------------------------------
// Set-up

void SchedulerCore::add_pool(const PoolSpec& pool) { slots_.add_pool(pool); }

void SchedulerCore::add_pipeline(const PipelineSpec& spec) {
  if (pipeline_index_.count(spec.name) != 0) {
    throw std::invalid_argument("pipeline " + spec.name + " added twice");
  }
  std::unique_ptr<PipelineState> p = make_state(spec);
  p->index = static_cast<uint32_t>(pipelines_.size());
  pipeline_index_.emplace(spec.name, p->index);
  pipelines_.push_back(std::move(p));
}

std::unique_ptr<SchedulerCore::PipelineState> SchedulerCore::make_state(const PipelineSpec& spec) {
  // PipelineDag refuses unknown dependencies, duplicate names and cycles.
  auto p = std::make_unique<PipelineState>(spec);
  if (spec.schedule) p->planner.emplace(*spec.schedule);
  p->pool.assign(spec.tasks.size(), kNoPool);
  for (size_t i = 0; i < spec.tasks.size(); ++i) {
    const TaskSpec& t = spec.tasks[i];
    if (t.pool.empty()) continue;
    const int pool = slots_.find_pool(t.pool);
    if (pool == kNoPool) {
      throw std::invalid_argument(spec.name + ": task " + t.name + " uses undeclared pool " +
                                  t.pool);
    }
    if (t.pool_slots < 1 || t.pool_slots > slots_.pool_spec(pool).slots) {
      throw std::invalid_argument(spec.name + ": task " + t.name +
                                  " asks for more slots than pool " + t.pool + " has");
    }
    p->pool[i] = pool;
  }
  return p;
}

std::vector<AttemptId> SchedulerCore::halt() {
  const auto cancel = [&](std::optional<TimerId>& timer) {
    if (timer) loop_.cancel(*timer);
    timer.reset();
  };
  for (auto& p : pipelines_) cancel(p->tick_timer);
  for (auto& run : runs_) {
    if (!run) continue;
    cancel(run->timeout_timer);
    for (TaskRt& t : run->tasks) {
      cancel(t.retry_timer);
      cancel(t.timeout_timer);
    }
  }
  std::vector<AttemptId> out;
  for (const auto& [id, where] : attempts_) out.push_back(id);
  std::sort(out.begin(), out.end());
  attempts_.clear();
  kills_.clear();
  held_timers_.clear();
  held_reports_.clear();
  return out;
}

SchedulerCore::PipelineState* SchedulerCore::find_pipeline(const std::string& name) {
  const auto it = pipeline_index_.find(name);
  return it == pipeline_index_.end() ? nullptr : pipelines_[it->second].get();
}

// ---------------------------------------------------------------------------------------------
// Persistence and events

void SchedulerCore::event(SchedulerEventKind kind, const std::string& pipeline,
                          std::optional<Time> logical, std::string task, std::string message) {
  store_.record_event(
      SchedulerEvent{loop_.now(), kind, pipeline, logical, std::move(task), std::move(message)});
}

void SchedulerCore::store_run(const RunRt& run) {
  store_.update_run(RunKey{run.run.pipeline, run.run.logical_time}, run.run.state, run.run.start,
                    run.run.end);
}

void SchedulerCore::store_task(const RunRt& run, uint32_t task) {
  const TaskInstance& t = run.run.tasks[task];
  store_.update_task(RunKey{run.run.pipeline, run.run.logical_time}, t.name, t.state, t.requests);
}

void SchedulerCore::notify_work() {
  if (work_) work_();
}

// ---------------------------------------------------------------------------------------------
// Schedules

void SchedulerCore::switch_on() {
  switched_on_ = true;
  for (auto& p : pipelines_) catch_up(*p);
  for (auto& p : pipelines_) try_start_runs(*p);
}

void SchedulerCore::catch_up(PipelineState& p, std::optional<Time> on_time) {
  if (!p.planner || !switched_on_ || down_ || p.paused || p.removed) return;
  p.catch_up_held = false;
  if (p.tick_timer) {
    loop_.cancel(*p.tick_timer);
    p.tick_timer.reset();
  }
  const TickPlan plan = p.planner->plan(p.last_tick, loop_.now(), on_time, catch_up_slice_);
  p.last_tick = plan.last_tick;
  for (const PlannedTick& t : plan.runs) handle_tick(p, t.tick, t.trigger);
  if (plan.more) {
    // Enough runs wait to start: the rest when they have (try_start_runs()).
    if (p.queued.size() >= catch_up_backlog(p)) {
      p.catch_up_held = true;
      return;
    }
    continue_catch_up(p);
    return;
  }
  const ScheduleSpec& s = p.planner->spec();
  if (plan.missed == MissedTicks::kTooMany) {
    event(SchedulerEventKind::kTooManyMissed, p.spec.name, plan.missed_tick, "",
          fmt::format("more than maxMissedRuns {} missed ticks: none started", s.max_missed_runs));
  } else if (plan.missed == MissedTicks::kPastDeadline) {
    event(SchedulerEventKind::kMissedDeadline, p.spec.name, plan.missed_tick, "",
          fmt::format("the most recent missed tick was due at {}, more than startingDeadline "
                      "{} ago: not started",
                      format_rfc3339(plan.missed_due), format_duration(*s.starting_deadline)));
  }
  arm_tick(p);
}

size_t SchedulerCore::catch_up_backlog(const PipelineState& p) const {
  return std::max(catch_up_backlog_,
                  static_cast<size_t>(std::max(0, p.spec.concurrency.max_active_runs)));
}

void SchedulerCore::continue_catch_up(PipelineState& p) {
  // The rest in the next turn of the loop, after whatever waits for it (a request, a stop).
  const uint32_t index = p.index;
  p.tick_timer = loop_.schedule_after(Duration(0), [this, index] {
    compact_finished();
    PipelineState& q = *pipelines_[index];
    q.tick_timer.reset();
    catch_up(q);
    try_start_runs(q);
    notify_work();
  });
}

void SchedulerCore::arm_tick(PipelineState& p) {
  const std::optional<Time> due = p.planner->next_due(p.last_tick);
  if (!due) return;
  const uint32_t index = p.index;
  p.tick_timer = loop_.schedule_at(*due, [this, index, at = *due] { on_tick(index, at); });
}

void SchedulerCore::on_tick(uint32_t pipeline, Time due) {
  compact_finished();
  PipelineState& p = *pipelines_[pipeline];
  p.tick_timer.reset();
  if (down_ || p.paused) return;  // caught up at scheduler-up / resume
  catch_up(p, due);
  notify_work();
}

void SchedulerCore::handle_tick(PipelineState& p, Time tick, RunTrigger trigger) {
  if (p.runs.count(tick) != 0) return;  // exactly once: backfilled or created in a past life
  const ConcurrencySpec& c = p.spec.concurrency;
  if (c.policy == ConcurrencyPolicy::kForbid && !p.in_flight.empty()) {
    const Time blocking = *p.in_flight.begin();
    const std::optional<RunIndex> r = create_run(p, tick, trigger);
    if (!r) return;
    finish_run(*r, RunState::kSkipped, TaskState::kSkipped, "");
    event(SchedulerEventKind::kForbidSkip, p.spec.name, tick, "",
          fmt::format("run {} still in flight", format_rfc3339(blocking)));
    return;
  }
  if (c.policy == ConcurrencyPolicy::kReplace) {
    while (!p.in_flight.empty()) {
      const Time old = *p.in_flight.begin();
      event(SchedulerEventKind::kReplace, p.spec.name, old, "",
            "replaced by the run for " + format_rfc3339(tick));
      finish_run(
          p.runs.at(old), RunState::kKilled, TaskState::kKilled,
          "the run was replaced by the run for " + format_rfc3339(tick) + " (concurrency Replace)");
    }
  }
  const std::optional<RunIndex> r = create_run(p, tick, trigger);
  if (!r) return;
  queue_run(p, *r);
  try_start_runs(p);
}

// ---------------------------------------------------------------------------------------------
// Work

std::vector<AttemptRequest> SchedulerCore::ready() {
  std::vector<AttemptRequest> out;
  if (down_) return out;
  for (const ReadyTask& t : slots_.dispatch(loop_.now()))
    out.push_back(start_attempt(t.run, t.task));
  return out;
}

std::vector<KillOrder> SchedulerCore::take_kills() { return std::exchange(kills_, {}); }

// ---------------------------------------------------------------------------------------------
// Output

std::vector<Run> SchedulerCore::timeline() const {
  std::vector<Run> out;
  out.reserve(run_count());
  for_each_run([&](const Run& run) { out.push_back(run); });
  return out;
}

size_t SchedulerCore::runs_in_flight() const {
  size_t n = 0;
  for (const auto& p : pipelines_) n += p->in_flight.size();
  return n;
}

void SchedulerCore::for_each_run(const std::function<void(const Run&)>& fn) const {
  for (const auto& [name, index] : pipeline_index_)
    for (const auto& [lt, r] : pipelines_[index]->runs) fn(runs_[r]->run);
}

const Run* SchedulerCore::fetch_run(const std::string& pipeline, Time logical_time) {
  PipelineState* p = find_pipeline(pipeline);
  if (p == nullptr) return nullptr;
  const std::optional<RunIndex> r = run_at(*p, logical_time);
  return r ? &runs_[*r]->run : nullptr;
}

const Run* SchedulerCore::find_run(const std::string& pipeline, Time logical_time) const {
  const auto pit = pipeline_index_.find(pipeline);
  if (pit == pipeline_index_.end()) return nullptr;
  const PipelineState& p = *pipelines_[pit->second];
  const auto it = p.runs.find(logical_time);
  return it == p.runs.end() ? nullptr : &runs_[it->second]->run;
}

}  // namespace gantry
