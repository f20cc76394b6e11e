#include "workflow/runner/run_scheduler.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "workflow/runner/retry.hpp"
#include "workflow/runner/trigger_rule.hpp"

namespace gantry {

namespace {

// What the scheduler still has to do for a task instance (TaskInstance::state is what users
// see: every phase but kRunning and kDone shows as pending).
enum class Phase : uint8_t {
  kIdle,       // waiting for its trigger rule
  kWaitPast,   // rule fired; waiting for the previous run's instance (task dependsOnPast)
  kRetryWait,  // an attempt was unsuccessful; waiting for the backoff to pass
  kReady,      // waiting for a parallelism or pool slot
  kRunning,    // an attempt is running
  kDone,       // finished; TaskInstance::state says how
};

AttemptState to_attempt_state(AttemptOutcome o) {
  switch (o) {
    case AttemptOutcome::kSucceeded: return AttemptState::kSucceeded;
    case AttemptOutcome::kFailed: return AttemptState::kFailed;
    case AttemptOutcome::kError: return AttemptState::kError;
  }
  return AttemptState::kError;
}

// Attempts from `from` on that count against the retry limit: all but those lost with a
// previous orchestrator (see RESTART).
int counted_attempts(const TaskInstance& inst, size_t from) {
  int n = 0;
  for (size_t i = from; i < inst.attempts.size(); ++i)
    if (inst.attempts[i].state != AttemptState::kLost) ++n;
  return n;
}

}  // namespace

struct RunScheduler::TaskRt {
  Phase phase = Phase::kIdle;
  size_t clear_base = 0;            // first attempt since the task was last cleared
  std::optional<Time> first_start;  // start of that attempt
  AttemptId attempt = 0;            // the running attempt, in phase kRunning
  std::optional<TimerId> retry_timer;
  std::optional<TimerId> timeout_timer;
  ReadyKey key{};  // in phase kReady
};

struct RunScheduler::RunRt {
  Run run;
  uint32_t pipeline = 0;
  std::vector<TaskRt> tasks;
  int running = 0;       // attempts running
  int unfinished = 0;    // tasks not in phase kDone
  int pool_waiting = 0;  // tasks ready and waiting in a pool
  std::set<ReadyKey> ready;  // ready tasks without a pool
  std::optional<TimerId> timeout_timer;
};

struct RunScheduler::PipelineState {
  PipelineSpec spec;
  uint32_t index = 0;
  std::optional<CronSchedule> cron;
  std::map<std::string, uint32_t> task_index;
  std::vector<std::vector<uint32_t>> upstream, downstream;
  std::vector<int> pool;  // pool index per task, -1 for none
  std::map<Time, RunIndex> runs;  // every run, by logical time
  std::set<Time> queued;          // queued runs, oldest first
  std::set<Time> in_flight;       // queued or running
  int running = 0;
  std::optional<Time> last_tick;  // the last tick the schedule looked at
  bool paused = false;
  bool starting = false;  // inside try_start_runs (it is not re-entered)
  std::optional<TimerId> tick_timer;
  // Task instances waiting (task dependsOnPast) for the instance named by the key.
  std::map<std::pair<RunIndex, uint32_t>, std::vector<std::pair<RunIndex, uint32_t>>> waiters;
};

struct RunScheduler::PoolState {
  PoolSpec spec;
  int used = 0;
  std::set<ReadyKey> waiting;
};

RunScheduler::RunScheduler(EventLoop& loop, RunStore& store, TaskExecutor& executor,
                           AutosizeConfig autosize)
    : loop_(loop), store_(store), executor_(executor), autosizer_(autosize) {}

RunScheduler::~RunScheduler() = default;

// ---------------------------------------------------------------------------------------------
// Setup

void RunScheduler::add_pool(const PoolSpec& pool) {
  if (pool.slots < 1) throw std::invalid_argument("pool " + pool.name + ": slots must be >= 1");
  if (!pool_index_.emplace(pool.name, static_cast<uint32_t>(pools_.size())).second) {
    throw std::invalid_argument("pool " + pool.name + " declared twice");
  }
  auto state = std::make_unique<PoolState>();
  state->spec = pool;
  pools_.push_back(std::move(state));
}

void RunScheduler::add_pipeline(const PipelineSpec& spec) {
  if (pipeline_index_.count(spec.name) != 0) {
    throw std::invalid_argument("pipeline " + spec.name + " added twice");
  }
  auto p = std::make_unique<PipelineState>();
  p->spec = spec;
  p->index = static_cast<uint32_t>(pipelines_.size());
  if (spec.schedule) p->cron.emplace(spec.schedule->cron, spec.schedule->timezone);
  const size_t n = spec.tasks.size();
  for (size_t i = 0; i < n; ++i) {
    if (!p->task_index.emplace(spec.tasks[i].name, static_cast<uint32_t>(i)).second) {
      throw std::invalid_argument(spec.name + ": task " + spec.tasks[i].name + " named twice");
    }
  }
  p->upstream.resize(n);
  p->downstream.resize(n);
  p->pool.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const TaskSpec& t = spec.tasks[i];
    for (const std::string& dep : t.depends_on) {
      auto it = p->task_index.find(dep);
      if (it == p->task_index.end()) {
        throw std::invalid_argument(spec.name + ": task " + t.name + " depends on unknown " + dep);
      }
      auto& up = p->upstream[i];
      if (std::find(up.begin(), up.end(), it->second) != up.end()) continue;
      up.push_back(it->second);
      p->downstream[it->second].push_back(static_cast<uint32_t>(i));
    }
    if (!t.pool.empty()) {
      auto it = pool_index_.find(t.pool);
      if (it == pool_index_.end()) {
        throw std::invalid_argument(spec.name + ": task " + t.name + " uses undeclared pool " +
                                    t.pool);
      }
      if (t.pool_slots < 1 || t.pool_slots > pools_[it->second]->spec.slots) {
        throw std::invalid_argument(spec.name + ": task " + t.name +
                                    " asks for more slots than pool " + t.pool + " has");
      }
      p->pool[i] = static_cast<int>(it->second);
    }
  }
  // Kahn's algorithm: every task must be reachable in a topological order.
  std::vector<size_t> indegree(n);
  std::vector<uint32_t> order;
  for (size_t i = 0; i < n; ++i) {
    indegree[i] = p->upstream[i].size();
    if (indegree[i] == 0) order.push_back(static_cast<uint32_t>(i));
  }
  for (size_t k = 0; k < order.size(); ++k) {
    for (uint32_t d : p->downstream[order[k]]) {
      if (--indegree[d] == 0) order.push_back(d);
    }
  }
  if (order.size() != n) throw std::invalid_argument(spec.name + ": dependency cycle");
  pipeline_index_.emplace(spec.name, p->index);
  pipelines_.push_back(std::move(p));
}

// ---------------------------------------------------------------------------------------------
// Persistence and events

void RunScheduler::event(SchedulerEventKind kind, const std::string& pipeline,
                         std::optional<Time> logical, std::string task, std::string message) {
  store_.record_event(
      SchedulerEvent{loop_.now(), kind, pipeline, logical, std::move(task), std::move(message)});
}

void RunScheduler::store_run(const RunRt& run) {
  store_.update_run(RunKey{run.run.pipeline, run.run.logical_time}, run.run.state,
                    run.run.start, run.run.end);
}

void RunScheduler::store_task(const RunRt& run, uint32_t task) {
  const TaskInstance& t = run.run.tasks[task];
  store_.update_task(RunKey{run.run.pipeline, run.run.logical_time}, t.name, t.state,
                     t.requests);
}

// ---------------------------------------------------------------------------------------------
// Schedule

Time RunScheduler::due_of(const PipelineState& p, Time tick) const {
  if (p.spec.schedule->semantics == ScheduleSemantics::kTrigger) return tick;
  std::optional<Time> next = p.cron->next_after(tick);
  return next ? *next : Time::max();
}

void RunScheduler::catch_up(PipelineState& p) {
  if (!p.cron || !switched_on_ || down_ || p.paused) return;
  if (p.tick_timer) {
    loop_.cancel(*p.tick_timer);
    p.tick_timer.reset();
  }
  const ScheduleSpec& s = *p.spec.schedule;
  const Time now = loop_.now();
  const bool interval = s.semantics == ScheduleSemantics::kInterval;
  Time from = p.last_tick ? *p.last_tick + microseconds(1) : s.start;
  std::optional<Time> t = p.cron->next_after(from - microseconds(1));

  std::optional<Time> latest;  // catchup false: the most recent due tick
  Time latest_due;
  int64_t overdue = 0;  // catchup false: overdue ticks counted against maxMissedRuns
  while (t && (!s.end || *t <= *s.end)) {
    std::optional<Time> next = p.cron->next_after(*t);
    Time due = interval ? (next ? *next : Time::max()) : *t;
    if (due > now) break;
    p.last_tick = *t;
    if (s.catchup) {
      handle_tick(p, *t, due == now ? RunTrigger::kSchedule : RunTrigger::kCatchup);
    } else {
      latest = *t;
      latest_due = due;
      if (due < now && (!s.starting_deadline || now - due <= *s.starting_deadline)) ++overdue;
    }
    t = next;
  }
  if (latest) {
    if (latest_due == now) {
      handle_tick(p, *latest, RunTrigger::kSchedule);
    } else if (overdue > s.max_missed_runs) {
      event(SchedulerEventKind::kTooManyMissed, p.spec.name, latest, "",
            fmt::format("{} missed ticks, more than maxMissedRuns {}: none started", overdue,
                        s.max_missed_runs));
    } else if (overdue == 0) {
      event(SchedulerEventKind::kMissedDeadline, p.spec.name, latest, "",
            fmt::format("the most recent missed tick was due at {}, more than startingDeadline "
                        "{} ago: not started",
                        format_rfc3339(latest_due), format_duration(*s.starting_deadline)));
    } else {
      handle_tick(p, *latest, RunTrigger::kCatchup);
    }
  }
  arm_tick(p);
}

void RunScheduler::arm_tick(PipelineState& p) {
  const ScheduleSpec& s = *p.spec.schedule;
  std::optional<Time> t = p.cron->next_after(p.last_tick ? *p.last_tick : s.start - microseconds(1));
  if (!t || (s.end && *t > *s.end)) return;
  Time due = due_of(p, *t);
  if (due == Time::max()) return;
  uint32_t index = p.index;
  p.tick_timer = loop_.schedule_at(due, [this, index] { on_tick(index); });
}

void RunScheduler::on_tick(uint32_t pipeline) {
  compact_finished();
  PipelineState& p = *pipelines_[pipeline];
  p.tick_timer.reset();
  if (down_ || p.paused) return;  // caught up at scheduler-up / resume
  catch_up(p);
  dispatch();
}

void RunScheduler::handle_tick(PipelineState& p, Time tick, RunTrigger trigger) {
  if (p.runs.count(tick) != 0) return;  // exactly once: backfilled or created in a past life
  const ConcurrencySpec& c = p.spec.concurrency;
  if (c.policy == ConcurrencyPolicy::kForbid && !p.in_flight.empty()) {
    std::optional<RunIndex> r = create_run(p, tick, trigger);
    if (!r) return;
    RunRt& run = *runs_[*r];
    run.run.state = RunState::kSkipped;
    run.run.start = run.run.end = loop_.now();
    for (uint32_t i = 0; i < run.tasks.size(); ++i) {
      run.tasks[i].phase = Phase::kDone;
      run.run.tasks[i].state = TaskState::kSkipped;
      store_task(run, i);
    }
    run.unfinished = 0;
    store_run(run);
    event(SchedulerEventKind::kForbidSkip, p.spec.name, tick, "",
          fmt::format("run {} still in flight", format_rfc3339(*p.in_flight.begin())));
    return;
  }
  if (c.policy == ConcurrencyPolicy::kReplace) {
    while (!p.in_flight.empty()) {
      Time old = *p.in_flight.begin();
      event(SchedulerEventKind::kReplace, p.spec.name, old, "",
            "replaced by the run for " + format_rfc3339(tick));
      finish_run(p.runs.at(old), RunState::kKilled, TaskState::kKilled);
    }
  }
  std::optional<RunIndex> r = create_run(p, tick, trigger);
  if (!r) return;
  enqueue(*r);
  apply_keep_latest(p);
  try_start_runs(p);
}

// ---------------------------------------------------------------------------------------------
// Runs

std::optional<RunScheduler::RunIndex> RunScheduler::create_run(PipelineState& p, Time logical,
                                                               RunTrigger trigger) {
  if (p.runs.count(logical) != 0) return std::nullopt;
  auto rt = std::make_unique<RunRt>();
  Run& run = rt->run;
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
  rt->pipeline = p.index;
  rt->tasks.resize(p.spec.tasks.size());
  rt->unfinished = static_cast<int>(p.spec.tasks.size());
  RunIndex index = static_cast<RunIndex>(runs_.size());
  runs_.push_back(std::move(rt));
  p.runs.emplace(logical, index);
  return index;
}

void RunScheduler::enqueue(RunIndex r) {
  RunRt& run = *runs_[r];
  PipelineState& p = *pipelines_[run.pipeline];
  run.run.state = RunState::kQueued;
  p.queued.insert(run.run.logical_time);
  p.in_flight.insert(run.run.logical_time);
}

void RunScheduler::apply_keep_latest(PipelineState& p) {
  const int keep = p.spec.concurrency.keep_latest;
  if (keep <= 0) return;
  while (p.in_flight.size() > static_cast<size_t>(keep)) {
    Time old = *p.in_flight.begin();
    event(SchedulerEventKind::kExpire, p.spec.name, old, "",
          fmt::format("more than keepLatest {} runs in flight", keep));
    finish_run(p.runs.at(old), RunState::kExpired, TaskState::kKilled);
  }
}

std::optional<RunScheduler::RunIndex> RunScheduler::previous_run(const PipelineState& p,
                                                                 Time logical) const {
  auto it = p.runs.lower_bound(logical);
  while (it != p.runs.begin()) {
    --it;
    if (runs_[it->second]->run.state != RunState::kSkipped) return it->second;
  }
  return std::nullopt;
}

void RunScheduler::try_start_runs(PipelineState& p) {
  // Not re-entered: a run that ends at once (every task skipped) calls back in here, and the
  // loop below picks up where it was instead of recursing once per queued run.
  if (down_ || !switched_on_ || p.starting) return;
  p.starting = true;
  const int max = p.spec.concurrency.max_active_runs;
  while (!p.queued.empty() && (max <= 0 || p.running < max)) {
    Time t = *p.queued.begin();
    if (p.spec.depends_on_past) {
      std::optional<RunIndex> prev = previous_run(p, t);
      if (prev && runs_[*prev]->run.state != RunState::kSucceeded) break;
    }
    p.queued.erase(p.queued.begin());
    start_run(p.runs.at(t));
  }
  p.starting = false;
}

void RunScheduler::start_run(RunIndex r) {
  RunRt& run = *runs_[r];
  PipelineState& p = *pipelines_[run.pipeline];
  const Time now = loop_.now();
  run.run.state = RunState::kRunning;
  if (!run.run.start) run.run.start = now;
  run.run.end.reset();
  ++p.running;
  store_run(run);
  if (p.spec.timeout) {
    run.timeout_timer =
        loop_.schedule_at(now + *p.spec.timeout, [this, r] { on_run_timeout(r); });
  }
  for (uint32_t i = 0; i < run.tasks.size() && run.run.state == RunState::kRunning; ++i) {
    if (run.tasks[i].phase == Phase::kIdle) evaluate(r, i);
  }
  check_run_done(r);
}

void RunScheduler::check_run_done(RunIndex r) {
  RunRt& run = *runs_[r];
  if (run.run.state != RunState::kRunning || run.unfinished > 0) return;
  const PipelineState& p = *pipelines_[run.pipeline];
  bool ok = true;
  for (size_t i = 0; i < run.tasks.size(); ++i) {
    if (!p.downstream[i].empty()) continue;
    TaskState s = run.run.tasks[i].state;
    if (s != TaskState::kSucceeded && s != TaskState::kSkipped) ok = false;
  }
  finish_run(r, ok ? RunState::kSucceeded : RunState::kFailed, TaskState::kKilled);
}

void RunScheduler::finish_run(RunIndex r, RunState state, TaskState rest) {
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
  if (!run.run.start && state == RunState::kSucceeded) run.run.start = loop_.now();
  p.queued.erase(run.run.logical_time);
  p.in_flight.erase(run.run.logical_time);
  if (was_running) --p.running;
  for (uint32_t i = 0; i < run.tasks.size(); ++i) {
    if (run.tasks[i].phase != Phase::kDone) close_task(r, i, rest);
  }
  store_run(run);
  finished_.push_back(r);
  try_start_runs(p);
}

// Callers up the stack may still hold references into a run that just finished, so its task
// bookkeeping is dropped later, from the top of the next callback (nothing on the stack then).
void RunScheduler::compact_finished() {
  for (RunIndex r : finished_) {
    RunRt& run = *runs_[r];
    if (!is_finished(run.run.state)) continue;  // rerun meanwhile
    if (std::any_of(run.tasks.begin(), run.tasks.end(),
                    [](const TaskRt& t) { return t.phase != Phase::kDone; }))
      continue;
    std::vector<TaskRt>().swap(run.tasks);
    std::set<ReadyKey>().swap(run.ready);
  }
  finished_.clear();
}

void RunScheduler::restore_tasks(RunRt& run) {
  if (!run.tasks.empty() || run.run.tasks.empty()) return;
  TaskRt done;
  done.phase = Phase::kDone;
  run.tasks.assign(run.run.tasks.size(), done);
}

void RunScheduler::close_task(RunIndex r, uint32_t task, TaskState state) {
  RunRt& run = *runs_[r];
  TaskRt& t = run.tasks[task];
  switch (t.phase) {
    case Phase::kRunning:
      executor_.kill(t.attempt);
      end_attempt(r, task, AttemptState::kKilled, loop_.now());
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
    case Phase::kDone:
      break;
  }
  t.phase = Phase::kDone;
  run.run.tasks[task].state = state;
  --run.unfinished;
  store_task(run, task);
  if (state == TaskState::kSucceeded || state == TaskState::kSkipped) wake_past(r, task);
}

void RunScheduler::clear_tasks(RunIndex r, bool all) {
  RunRt& run = *runs_[r];
  assert(is_finished(run.run.state));
  restore_tasks(run);
  for (uint32_t i = 0; i < run.tasks.size(); ++i) {
    TaskInstance& inst = run.run.tasks[i];
    const bool clear = all || inst.state == TaskState::kFailed ||
                       inst.state == TaskState::kUpstreamFailed ||
                       inst.state == TaskState::kKilled;
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

void RunScheduler::mark_success(RunIndex r) {
  RunRt& run = *runs_[r];
  restore_tasks(run);
  PipelineState& p = *pipelines_[run.pipeline];
  if (!is_finished(run.run.state)) {
    if (!run.run.start) run.run.start = loop_.now();
    finish_run(r, RunState::kSucceeded, TaskState::kSucceeded);
  }
  for (uint32_t i = 0; i < run.tasks.size(); ++i) {
    TaskInstance& inst = run.run.tasks[i];
    if (inst.state == TaskState::kSucceeded || inst.state == TaskState::kSkipped) continue;
    inst.state = TaskState::kSucceeded;
    store_task(run, i);
    wake_past(r, i);
  }
  if (run.run.state != RunState::kSucceeded) {
    run.run.state = RunState::kSucceeded;
    if (!run.run.start) run.run.start = loop_.now();
    run.run.end = loop_.now();
    store_run(run);
  }
  try_start_runs(p);
}

void RunScheduler::on_run_timeout(RunIndex r) {
  compact_finished();
  if (down_) {
    held_timers_.push_back(Held{HeldKind::kRunTimeout, r});
    return;
  }
  RunRt& run = *runs_[r];
  run.timeout_timer.reset();
  if (run.run.state != RunState::kRunning) return;
  finish_run(r, RunState::kFailed, TaskState::kKilled);
  dispatch();
}

// ---------------------------------------------------------------------------------------------
// Tasks

void RunScheduler::evaluate(RunIndex r, uint32_t task) {
  RunRt& run = *runs_[r];
  if (run.run.state != RunState::kRunning) return;
  TaskRt& t = run.tasks[task];
  if (t.phase != Phase::kIdle) return;
  PipelineState& p = *pipelines_[run.pipeline];
  const TaskSpec& spec = p.spec.tasks[task];

  UpstreamCounts up;
  up.total = static_cast<int>(p.upstream[task].size());
  for (uint32_t u : p.upstream[task]) {
    switch (run.run.tasks[u].state) {
      case TaskState::kSucceeded: ++up.succeeded; break;
      case TaskState::kSkipped: ++up.skipped; break;
      case TaskState::kFailed:
      case TaskState::kKilled: ++up.failed; break;
      case TaskState::kUpstreamFailed: ++up.upstream_failed; break;
      case TaskState::kPending:
      case TaskState::kRunning: break;
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
    std::optional<RunIndex> prev = previous_run(p, run.run.logical_time);
    if (prev) {
      TaskState s = runs_[*prev]->run.tasks[task].state;
      if (s != TaskState::kSucceeded && s != TaskState::kSkipped) {
        t.phase = Phase::kWaitPast;
        p.waiters[{*prev, task}].emplace_back(r, task);
        return;
      }
    }
  }
  make_ready(r, task, loop_.now());
}

void RunScheduler::wake_past(RunIndex r, uint32_t task) {
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

void RunScheduler::propagate(RunIndex r, uint32_t task) {
  const PipelineState& p = *pipelines_[runs_[r]->pipeline];
  for (uint32_t d : p.downstream[task]) evaluate(r, d);
}

void RunScheduler::set_task_done(RunIndex r, uint32_t task, TaskState state) {
  RunRt& run = *runs_[r];
  TaskRt& t = run.tasks[task];
  assert(t.phase != Phase::kDone);
  t.phase = Phase::kDone;
  run.run.tasks[task].state = state;
  --run.unfinished;
  store_task(run, task);
  if (state == TaskState::kSucceeded || state == TaskState::kSkipped) wake_past(r, task);
  propagate(r, task);
  check_run_done(r);
}

void RunScheduler::make_ready(RunIndex r, uint32_t task, Time ready_time) {
  RunRt& run = *runs_[r];
  const PipelineState& p = *pipelines_[run.pipeline];
  TaskRt& t = run.tasks[task];
  t.phase = Phase::kReady;
  t.key = ReadyKey{-p.spec.tasks[task].priority, ready_time, run.run.logical_time, p.index, task,
                   r};
  const int pool = p.pool[task];
  if (pool >= 0) {
    pools_[pool]->waiting.insert(t.key);
    ++run.pool_waiting;
    dirty_pools_.insert(static_cast<uint32_t>(pool));
  } else {
    run.ready.insert(t.key);
    dirty_runs_.insert(r);
  }
}

void RunScheduler::unready(RunIndex r, uint32_t task) {
  RunRt& run = *runs_[r];
  const TaskRt& t = run.tasks[task];
  const int pool = pipelines_[run.pipeline]->pool[task];
  if (pool >= 0) {
    pools_[pool]->waiting.erase(t.key);
    --run.pool_waiting;
  } else {
    run.ready.erase(t.key);
  }
}

bool RunScheduler::has_room(const RunRt& run) const {
  const int parallelism = pipelines_[run.pipeline]->spec.parallelism;
  return run.run.state == RunState::kRunning && (parallelism <= 0 || run.running < parallelism);
}

void RunScheduler::start_attempt(RunIndex r, uint32_t task) {
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
  inst.attempts.push_back(Attempt{now, std::nullopt, AttemptState::kRunning});
  inst.state = TaskState::kRunning;
  t.phase = Phase::kRunning;
  ++run.running;
  const AttemptId id = next_attempt_id_++;
  t.attempt = id;
  attempts_.emplace(id, std::make_pair(r, task));
  store_task(run, task);
  store_.attempt_started(RunKey{run.run.pipeline, run.run.logical_time}, inst.name, index, now);

  AttemptRequest request;
  request.id = id;
  request.pipeline = &p.spec;
  request.task = &spec;
  request.logical_time = run.run.logical_time;
  request.attempt_index = index;
  request.requests = requests;
  // The executor's completion is scheduled before the timeout, so an attempt that ends
  // exactly at its timeout is finished rather than timed out (the loop breaks ties by
  // insertion order).
  executor_.start(request, *this);
  if (spec.timeout) {
    t.timeout_timer = loop_.schedule_at(now + *spec.timeout, [this, id] { on_attempt_timeout(id); });
  }
}

void RunScheduler::end_attempt(RunIndex r, uint32_t task, AttemptState state, Time end) {
  RunRt& run = *runs_[r];
  PipelineState& p = *pipelines_[run.pipeline];
  TaskRt& t = run.tasks[task];
  TaskInstance& inst = run.run.tasks[task];
  Attempt& a = inst.attempts.back();
  a.end = end;
  a.state = state;
  store_.attempt_ended(RunKey{run.run.pipeline, run.run.logical_time}, inst.name,
                       inst.attempts.size() - 1, end, state);
  if (t.timeout_timer) {
    loop_.cancel(*t.timeout_timer);
    t.timeout_timer.reset();
  }
  attempts_.erase(t.attempt);
  t.attempt = 0;
  --run.running;
  dirty_runs_.insert(r);
  const int pool = p.pool[task];
  if (pool >= 0) {
    pools_[pool]->used -= p.spec.tasks[task].pool_slots;
    dirty_pools_.insert(static_cast<uint32_t>(pool));
  }
  // The run has room again: its tasks waiting in other pools may now be eligible.
  if (run.pool_waiting > 0) {
    for (int k : p.pool) {
      if (k >= 0) dirty_pools_.insert(static_cast<uint32_t>(k));
    }
  }
}

void RunScheduler::finish_attempt(const Completion& c) {
  auto it = attempts_.find(c.id);
  if (it == attempts_.end()) return;  // killed meanwhile
  auto [r, task] = it->second;
  end_attempt(r, task, c.state, c.end);
  RunRt& run = *runs_[r];
  const PipelineState& p = *pipelines_[run.pipeline];
  const TaskSpec& spec = p.spec.tasks[task];
  if (!c.reason.empty()) {
    run.run.tasks[task].attempts.back().reason = c.reason;
    event(c.state == AttemptState::kError ? SchedulerEventKind::kUnschedulable
                                          : SchedulerEventKind::kAttemptEnded,
          p.spec.name, run.run.logical_time, spec.name, c.reason);
  }
  if (c.state == AttemptState::kSucceeded) {
    if (spec.autosize) autosizer_.record_success(p.spec.name + "/" + spec.name, c.end, c.used);
    set_task_done(r, task, TaskState::kSucceeded);
  } else {
    after_unsuccessful(r, task, c.state, c.end);
  }
}

void RunScheduler::after_unsuccessful(RunIndex r, uint32_t task, AttemptState state, Time end) {
  RunRt& run = *runs_[r];
  const PipelineState& p = *pipelines_[run.pipeline];
  TaskRt& t = run.tasks[task];
  TaskInstance& inst = run.run.tasks[task];
  const int retries_done = counted_attempts(inst, t.clear_base) - 1;
  std::optional<Time> next = next_attempt_start(p.spec.tasks[task].retry, state, end,
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
    t.retry_timer = loop_.schedule_at(*next, [this, r, task] { on_retry_due(r, task); });
  }
}

void RunScheduler::on_retry_due(RunIndex r, uint32_t task) {
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
  dispatch();
}

void RunScheduler::on_attempt_timeout(AttemptId id) {
  compact_finished();
  if (down_) {
    held_timers_.push_back(Held{HeldKind::kAttemptTimeout, id});
    return;
  }
  auto it = attempts_.find(id);
  if (it == attempts_.end()) return;
  runs_[it->second.first]->tasks[it->second.second].timeout_timer.reset();
  executor_.kill(id);
  finish_attempt(Completion{id, AttemptState::kTimeout, loop_.now(), {}});
  dispatch();
}

void RunScheduler::attempt_finished(AttemptId id, const AttemptResult& result) {
  compact_finished();
  Completion c{id, to_attempt_state(result.outcome), loop_.now(), result.used, result.reason};
  if (down_) {
    held_completions_.push_back(c);
    return;
  }
  finish_attempt(c);
  dispatch();
}

// ---------------------------------------------------------------------------------------------
// Dispatch

void RunScheduler::dispatch() {
  if (down_ || dispatching_) return;
  dispatching_ = true;
  // Starting an attempt never finishes one synchronously, so one sweep per dirty entry
  // suffices; the outer loop only catches pools dirtied by runs and vice versa.
  while (!dirty_pools_.empty() || !dirty_runs_.empty()) {
    while (!dirty_pools_.empty()) {
      uint32_t k = *dirty_pools_.begin();
      dirty_pools_.erase(dirty_pools_.begin());
      dispatch_pool(*pools_[k]);
    }
    while (!dirty_runs_.empty()) {
      RunIndex r = *dirty_runs_.begin();
      dirty_runs_.erase(dirty_runs_.begin());
      RunRt& run = *runs_[r];
      while (has_room(run) && !run.ready.empty()) {
        ReadyKey key = *run.ready.begin();
        run.ready.erase(run.ready.begin());
        start_attempt(r, key.task);
      }
    }
  }
  dispatching_ = false;
}

void RunScheduler::dispatch_pool(PoolState& pool) {
  const Time now = loop_.now();
  auto slots = [&](const ReadyKey& k) { return pipelines_[k.pipeline]->spec.tasks[k.task].pool_slots; };
  auto eligible = [&](const ReadyKey& k) { return has_room(*runs_[k.run]); };
  auto starved = [&](const ReadyKey& k) {
    return pool.spec.max_wait && now - k.ready > *pool.spec.max_wait;
  };
  auto take = [&](std::set<ReadyKey>::iterator it) {
    ReadyKey k = *it;
    pool.waiting.erase(it);
    --runs_[k.run]->pool_waiting;
    pool.used += slots(k);
    start_attempt(k.run, k.task);
  };
  while (pool.used < pool.spec.slots) {
    // A task that has waited past maxWait goes first, and nothing overtakes it.
    auto first_starved = std::find_if(pool.waiting.begin(), pool.waiting.end(),
                                      [&](const ReadyKey& k) { return eligible(k) && starved(k); });
    if (first_starved != pool.waiting.end()) {
      if (slots(*first_starved) > pool.spec.slots - pool.used) return;
      take(first_starved);
      continue;
    }
    // Otherwise in order, and a task that does not fit lets smaller ones behind it pass.
    for (auto it = pool.waiting.begin(); it != pool.waiting.end() && pool.used < pool.spec.slots;) {
      auto next = std::next(it);
      if (eligible(*it) && slots(*it) <= pool.spec.slots - pool.used) take(it);
      it = next;
    }
    return;
  }
}

// ---------------------------------------------------------------------------------------------
// Operator actions, backfill, switch-on

void RunScheduler::switch_on() {
  switched_on_ = true;
  for (auto& p : pipelines_) catch_up(*p);
  for (auto& p : pipelines_) try_start_runs(*p);
  dispatch();
}

void RunScheduler::scheduler_down() {
  if (down_) return;
  down_ = true;
  event(SchedulerEventKind::kSchedulerDown, "", std::nullopt, "", "");
  for (auto& p : pipelines_) {
    if (p->tick_timer) loop_.cancel(*p->tick_timer);
    p->tick_timer.reset();
  }
}

void RunScheduler::scheduler_up() {
  if (!down_) return;
  down_ = false;
  event(SchedulerEventKind::kSchedulerUp, "", std::nullopt, "", "");
  std::vector<Completion> completions = std::move(held_completions_);
  held_completions_.clear();
  for (const Completion& c : completions) finish_attempt(c);
  std::vector<Held> held = std::move(held_timers_);
  held_timers_.clear();
  for (const Held& h : held) {
    switch (h.kind) {
      case HeldKind::kAttemptTimeout: on_attempt_timeout(h.arg); break;
      case HeldKind::kRunTimeout: on_run_timeout(static_cast<RunIndex>(h.arg)); break;
      case HeldKind::kRetryDue:
        on_retry_due(static_cast<RunIndex>(h.arg >> 32), static_cast<uint32_t>(h.arg));
        break;
    }
  }
  for (auto& p : pipelines_) catch_up(*p);
  for (auto& p : pipelines_) try_start_runs(*p);
  dispatch();
}

RunScheduler::PipelineState* RunScheduler::pipeline_for(const OperatorAction& a) {
  auto it = pipeline_index_.find(a.pipeline);
  if (it == pipeline_index_.end()) {
    event(SchedulerEventKind::kRejected, a.pipeline, a.logical_time, a.task,
          std::string(to_string(a.kind)) + ": no such pipeline");
    return nullptr;
  }
  return pipelines_[it->second].get();
}

std::optional<RunScheduler::RunIndex> RunScheduler::run_for(const OperatorAction& a) {
  PipelineState* p = pipeline_for(a);
  if (p == nullptr) return std::nullopt;
  auto it = a.logical_time ? p->runs.find(*a.logical_time) : p->runs.end();
  if (it == p->runs.end()) {
    event(SchedulerEventKind::kRejected, a.pipeline, a.logical_time, a.task,
          std::string(to_string(a.kind)) + ": no run at this logical time");
    return std::nullopt;
  }
  return it->second;
}

void RunScheduler::schedule(const OperatorAction& action) {
  const size_t index = actions_.size();
  actions_.push_back(action);
  loop_.schedule_at(action.at, [this, index] { apply(actions_[index]); });
}

void RunScheduler::apply(const OperatorAction& action) {
  compact_finished();
  const OperatorAction a = action;  // actions_ may grow below
  auto reject = [&](const std::string& why) {
    event(SchedulerEventKind::kRejected, a.pipeline, a.logical_time, a.task,
          std::string(to_string(a.kind)) + ": " + why);
  };
  switch (a.kind) {
    case ActionKind::kSchedulerDown:
      scheduler_down();
      return;
    case ActionKind::kSchedulerUp:
      scheduler_up();
      return;
    case ActionKind::kFail: {
      std::optional<RunIndex> r = run_for(a);
      if (!r) return;
      RunRt& run = *runs_[*r];
      const PipelineState& p = *pipelines_[run.pipeline];
      auto t = p.task_index.find(a.task);
      if (t == p.task_index.end() || run.tasks.empty() ||
          run.tasks[t->second].phase != Phase::kRunning) {
        reject("no running attempt of this task");
        return;
      }
      const AttemptId id = run.tasks[t->second].attempt;
      event(SchedulerEventKind::kFail, a.pipeline, a.logical_time, a.task, "");
      executor_.kill(id);
      Completion c{id, AttemptState::kFailed, loop_.now(), {}};
      if (down_) {
        held_completions_.push_back(c);
        return;
      }
      finish_attempt(c);
      dispatch();
      return;
    }
    default:
      break;
  }
  if (down_) {
    reject("the scheduler is down");
    return;
  }
  switch (a.kind) {
    case ActionKind::kTrigger: {
      PipelineState* p = pipeline_for(a);
      if (p == nullptr) return;
      std::optional<RunIndex> r = create_run(*p, loop_.now(), RunTrigger::kManual);
      if (!r) {
        reject("a run exists at this logical time");
        return;
      }
      event(SchedulerEventKind::kTrigger, a.pipeline, loop_.now(), "", "");
      enqueue(*r);
      apply_keep_latest(*p);
      try_start_runs(*p);
      break;
    }
    case ActionKind::kRerun: {
      std::optional<RunIndex> r = run_for(a);
      if (!r) return;
      RunState s = runs_[*r]->run.state;
      if (s != RunState::kFailed && s != RunState::kKilled && s != RunState::kExpired) {
        reject(std::string("the run is ") + std::string(to_string(s)));
        return;
      }
      event(SchedulerEventKind::kRerun, a.pipeline, a.logical_time, "", "");
      clear_tasks(*r, false);
      try_start_runs(*pipelines_[runs_[*r]->pipeline]);
      break;
    }
    case ActionKind::kMarkSuccess: {
      std::optional<RunIndex> r = run_for(a);
      if (!r) return;
      event(SchedulerEventKind::kMarkSuccess, a.pipeline, a.logical_time, "", "");
      mark_success(*r);
      break;
    }
    case ActionKind::kPause: {
      PipelineState* p = pipeline_for(a);
      if (p == nullptr) return;
      p->paused = true;
      if (p->tick_timer) loop_.cancel(*p->tick_timer);
      p->tick_timer.reset();
      event(SchedulerEventKind::kPause, a.pipeline, std::nullopt, "", "");
      break;
    }
    case ActionKind::kResume: {
      PipelineState* p = pipeline_for(a);
      if (p == nullptr) return;
      if (!p->paused) break;
      p->paused = false;
      event(SchedulerEventKind::kResume, a.pipeline, std::nullopt, "", "");
      catch_up(*p);
      break;
    }
    case ActionKind::kBackfill:
      try {
        backfill(a.pipeline, a.from, a.to, a.rerun);
      } catch (const std::invalid_argument& e) {
        reject(e.what());
      }
      break;
    case ActionKind::kSchedulerDown:
    case ActionKind::kSchedulerUp:
    case ActionKind::kFail:
      break;
  }
  dispatch();
}

BackfillReport RunScheduler::backfill(const std::string& pipeline, Time from, Time to,
                                      BackfillRerun rerun) {
  auto pit = pipeline_index_.find(pipeline);
  if (pit == pipeline_index_.end()) throw std::invalid_argument("no pipeline " + pipeline);
  PipelineState& p = *pipelines_[pit->second];
  if (!p.cron) throw std::invalid_argument("pipeline " + pipeline + " has no schedule");
  BackfillReport report;
  for (std::optional<Time> t = p.cron->next_after(from - microseconds(1)); t && *t <= to;
       t = p.cron->next_after(*t)) {
    auto it = p.runs.find(*t);
    if (it == p.runs.end()) {
      std::optional<RunIndex> r = create_run(p, *t, RunTrigger::kBackfill);
      if (!r) continue;
      enqueue(*r);
      apply_keep_latest(p);
      ++report.created;
      continue;
    }
    RunState s = runs_[it->second]->run.state;
    const bool again =
        is_finished(s) &&
        (rerun == BackfillRerun::kAll ||
         (rerun == BackfillRerun::kFailed &&
          (s == RunState::kFailed || s == RunState::kKilled || s == RunState::kExpired)));
    if (again) {
      clear_tasks(it->second, rerun == BackfillRerun::kAll);
      ++report.rerun;
    } else {
      ++report.untouched;
    }
  }
  event(SchedulerEventKind::kBackfill, pipeline, std::nullopt, "",
        fmt::format("[{}, {}]: {} created, {} rerun, {} untouched", format_rfc3339(from),
                    format_rfc3339(to), report.created, report.rerun, report.untouched));
  try_start_runs(p);
  dispatch();
  return report;
}

// ---------------------------------------------------------------------------------------------
// Restart

void RunScheduler::recover() {
  std::vector<Run> stored = store_.load_runs();
  std::sort(stored.begin(), stored.end(), [](const Run& a, const Run& b) {
    return std::tie(a.pipeline, a.logical_time) < std::tie(b.pipeline, b.logical_time);
  });
  std::vector<RunIndex> running;
  for (Run& run : stored) {
    auto pit = pipeline_index_.find(run.pipeline);
    if (pit == pipeline_index_.end()) continue;
    PipelineState& p = *pipelines_[pit->second];
    if (p.runs.count(run.logical_time) != 0) continue;
    auto rt = std::make_unique<RunRt>();
    rt->pipeline = p.index;
    // Task instances in the pipeline's order, matched by name (a store may return any order).
    rt->run = run;
    rt->run.tasks.clear();
    for (const TaskSpec& spec : p.spec.tasks) {
      auto same = std::find_if(run.tasks.begin(), run.tasks.end(),
                               [&](const TaskInstance& t) { return t.name == spec.name; });
      rt->run.tasks.push_back(same != run.tasks.end()
                                  ? *same
                                  : TaskInstance{spec.name, TaskState::kPending, {}, spec.resources});
    }
    rt->tasks.resize(p.spec.tasks.size());
    for (size_t i = 0; i < rt->tasks.size(); ++i) {
      const TaskInstance& inst = rt->run.tasks[i];
      if (is_finished(inst.state)) {
        rt->tasks[i].phase = Phase::kDone;
      } else {
        ++rt->unfinished;
      }
      if (!inst.attempts.empty()) rt->tasks[i].first_start = inst.attempts.front().start;
    }
    const RunIndex index = static_cast<RunIndex>(runs_.size());
    const Time lt = rt->run.logical_time;
    const RunTrigger trigger = rt->run.trigger;
    const RunState state = rt->run.state;
    runs_.push_back(std::move(rt));
    p.runs.emplace(lt, index);
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
      running.push_back(index);
    } else if (is_finished(state)) {
      finished_.push_back(index);
    }
  }
  const Time now = loop_.now();
  for (RunIndex r : running) {
    RunRt& run = *runs_[r];
    const PipelineState& p = *pipelines_[run.pipeline];
    if (p.spec.timeout) {
      Time at = std::max(now, run.run.start.value_or(now) + *p.spec.timeout);
      run.timeout_timer = loop_.schedule_at(at, [this, r] { on_run_timeout(r); });
    }
    for (uint32_t i = 0; i < run.tasks.size() && run.run.state == RunState::kRunning; ++i) {
      TaskInstance& inst = run.run.tasks[i];
      if (inst.state == TaskState::kRunning && !inst.attempts.empty() &&
          !inst.attempts.back().end) {
        // Lost with the previous process: the work may or may not have finished, and nobody
        // will report it now.
        const bool rerun = lost_attempts_ == LostAttempts::kRerun;
        const AttemptState closed = rerun ? AttemptState::kLost : AttemptState::kError;
        Attempt& a = inst.attempts.back();
        a.end = now;
        a.state = closed;
        store_.attempt_ended(RunKey{run.run.pipeline, run.run.logical_time}, inst.name,
                             inst.attempts.size() - 1, now, closed);
        event(SchedulerEventKind::kLostAttempt, run.run.pipeline, run.run.logical_time,
              inst.name,
              rerun ? "running when the scheduler stopped; run again (not counted as a retry)"
                    : "running when the scheduler stopped; closed as error");
        if (rerun) {
          inst.state = TaskState::kPending;
          store_task(run, i);
          make_ready(r, i, now);
        } else {
          after_unsuccessful(r, i, AttemptState::kError, now);
        }
      } else if (inst.state == TaskState::kRunning && !inst.attempts.empty()) {
        // The attempt's end was stored but not the task's new state (two commits apart with
        // batch 1): finish what the previous process was doing when it died.
        const Attempt a = inst.attempts.back();
        if (a.state == AttemptState::kSucceeded) {
          set_task_done(r, i, TaskState::kSucceeded);
        } else if (a.state == AttemptState::kLost) {
          inst.state = TaskState::kPending;
          store_task(run, i);
          make_ready(r, i, now);
        } else {
          after_unsuccessful(r, i, a.state, *a.end);
        }
      } else if (inst.state == TaskState::kPending && !inst.attempts.empty() &&
                 inst.attempts.back().state == AttemptState::kLost) {
        // Died again before the lost attempt's replacement started: start it now.
        make_ready(r, i, now);
      } else if (inst.state == TaskState::kPending && !inst.attempts.empty() &&
                 inst.attempts.back().end) {
        // Waiting for a retry at the crash: wait for the rest of the backoff.
        const Attempt& a = inst.attempts.back();
        const int k = counted_attempts(inst, 0);
        Time next = std::max(now, *a.end + retry_wait(p.spec.tasks[i].retry, k));
        TaskRt& t = run.tasks[i];
        t.phase = Phase::kRetryWait;
        t.retry_timer = loop_.schedule_at(next, [this, r, i] { on_retry_due(r, i); });
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

// ---------------------------------------------------------------------------------------------
// Output

std::vector<Run> RunScheduler::timeline() const {
  std::vector<Run> out;
  out.reserve(runs_.size());
  for (const auto& [name, index] : pipeline_index_) {
    for (const auto& [lt, r] : pipelines_[index]->runs) out.push_back(runs_[r]->run);
  }
  return out;
}

size_t RunScheduler::runs_in_flight() const {
  size_t n = 0;
  for (const auto& p : pipelines_) n += p->in_flight.size();
  return n;
}

void RunScheduler::for_each_run(const std::function<void(const Run&)>& fn) const {
  for (const auto& [name, index] : pipeline_index_)
    for (const auto& [lt, r] : pipelines_[index]->runs) fn(runs_[r]->run);
}

const Run* RunScheduler::find_run(const std::string& pipeline, Time logical_time) const {
  auto pit = pipeline_index_.find(pipeline);
  if (pit == pipeline_index_.end()) return nullptr;
  const PipelineState& p = *pipelines_[pit->second];
  auto it = p.runs.find(logical_time);
  return it == p.runs.end() ? nullptr : &runs_[it->second]->run;
}

}  // namespace gantry
