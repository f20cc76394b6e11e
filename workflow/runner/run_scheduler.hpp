#pragma once
// The run scheduler: the orchestrator's brain (issue #4). It turns pipelines' schedules,
// operator actions and backfill requests into runs, runs their tasks through a TaskExecutor,
// and reports every state change to a RunStore. It lives on the engine's EventLoop, so it
// runs in virtual time (`gantry pipeline run`) and in wall time alike; all its work happens in
// loop callbacks (DESIGN.md rule 1) and, with the same inputs and seed, produces the same
// timeline (rule 4: ties break by the loop's insertion order and by the orders stated here).
//
// USE
//   EventLoop loop(...); MemoryRunStore store; SimulatedExecutor exec(loop, seed);
//   RunScheduler s(loop, store, exec);
//   s.add_pool(pool); s.add_pipeline(spec);   // pools first
//   s.recover();                               // optional: continue from the store's runs
//   s.switch_on();                             // at loop.now() = T0
//   s.schedule(action); s.backfill(...);       // any time
//   loop.run_until(T1);  s.timeline();
//
// SCHEDULE (per pipeline with a schedule)
//   Ticks are the CronSchedule firings in the pipeline's zone within [start, end]. A tick t is
//   due at t (semantics trigger) or at the next firing after t (interval: [t, next) has
//   ended); the run's logical time is t either way. Each time the schedule is looked at
//   (switch-on, every due tick, scheduler-up, resume) the ticks due since the last tick looked
//   at (initially since start) are handled at once, oldest first:
//   - catchup true: each gets a run, trigger "schedule" if due now, "catchup" if overdue.
//   - catchup false: only the most recent. Due now: it runs ("schedule"), older ones are
//     dropped silently. Overdue: let n = the overdue ticks, counting only those due within
//     startingDeadline of now when a deadline is set. n > maxMissedRuns: none starts (event
//     too-many-missed); the most recent is older than the deadline (so n = 0): none starts
//     (event missed-deadline); otherwise it runs ("catchup").
//   A tick whose (pipeline, logical time) already has a run (backfill, a previous life) is
//   passed over: a run is created exactly once, checked by RunStore::create_run().
//
// CONCURRENCY (spec.concurrency)
//   "In flight" = queued or running. maxActiveRuns (<= 0: unlimited) bounds running runs of
//   every trigger; queued runs start oldest logical time first, strictly: a head that may not
//   start (dependsOnPast) holds the queue. Forbid and Replace act on scheduled ticks only
//   (schedule and catchup; manual and backfill runs are explicit requests and just queue):
//   - Forbid: a tick that finds a run in flight is recorded as a run in state skipped, with
//     every task skipped and start = end = now (event forbid-skip), so the user sees it.
//   - Replace: a tick kills every run in flight (state killed; running attempts killed,
//     unfinished tasks killed) and queues its own.
//   - keepLatest N > 0: after any run is created, while more than N runs are in flight the
//     one with the oldest logical time is killed and marked expired (any trigger).
//
// DEPENDS ON PAST
//   "The previous run" of run r is the run of the same pipeline with the greatest logical
//   time below r's, passing over runs in state skipped (Forbid records that never ran).
//   - run level: r starts only when the previous run is succeeded (or marked success); a
//     failed, killed or expired previous run holds the queue until a rerun succeeds or an
//     operator marks it success.
//   - task level: a task whose trigger rule fired starts only when the previous run's
//     instance of the same task succeeded or was skipped; it waits otherwise, however long.
//
// INSIDE A RUN
//   A task becomes ready when its trigger rule fires (trigger_rule.hpp) and dependsOnPast
//   holds; skip: true tasks then become skipped instead (so a failure upstream still reaches
//   their downstream as upstream_failed). Ready tasks start in the order (priority desc,
//   ready time, run logical time, pipeline, task order) while the run has fewer than
//   `parallelism` (0 = unlimited) attempts running and, for pool tasks, the pool has slots.
//   Slots are handed out once the event that made tasks ready has been handled completely,
//   so a run created and killed within one event (keepLatest during a catch-up) never got
//   an attempt.
//   - pools: a ready task that does not fit the free slots does not block smaller ones
//     behind it; but once a ready task has waited longer than the pool's maxWait (and its run
//     has room), nothing else from that pool starts before it.
//   - pools are served before runs' pool-less tasks when both compete for a parallelism slot.
//   - run timeout (from the moment the run last went running): running attempts killed,
//     unfinished tasks killed, run failed.
//   - per-attempt timeout: the attempt is killed and ends in state timeout (an attempt that
//     ends exactly at its timeout counts as finished, not timed out).
//   - run state: when every task is finished, succeeded if every leaf (task nothing depends
//     on) succeeded or was skipped, else failed.
//   - retries: retry.hpp. A task waiting for its backoff is pending.
//   - autosize: autosize.hpp; the request is chosen when each attempt starts.
//
// OPERATOR ACTIONS (operator_action.hpp)
//   - scheduler-down: ticks stop, nothing starts, the scheduler's timers (attempt and run
//     timeouts, retry backoffs) are held. Attempts keep running in the world: an attempt that
//     ends meanwhile keeps its real end time, but the scheduler learns of it only at up.
//     Operator actions other than up and fail are rejected while down (event rejected);
//     fail is a fault in the world and is handled like a completion.
//   - scheduler-up, in this order: completions that happened while down (in the order they
//     happened), then the held timers (in time order; a timeout that expired while down
//     fires now, a task that already finished is not affected), then the schedule catch-up
//     of every pipeline (as at switch-on), then queued runs and ready tasks start.
//   - trigger: a manual run at logical time = now; rejected if one exists at that instant.
//   - rerun: for a failed, killed or expired run: its failed, upstream_failed and killed
//     tasks go back to pending with a fresh retry budget (attempts are kept), and the run
//     goes back to queued (end cleared; start kept); it starts again under the queue rules.
//   - mark-success: any run; running attempts are killed, every task not succeeded or
//     skipped becomes succeeded, the run becomes succeeded (start = now if it never started).
//     This unblocks dependsOnPast at both levels.
//   - fail: the running attempt of the task ends now in state failed; retries apply.
//   - pause / resume: the pipeline's schedule only (existing runs go on; manual runs and
//     backfills still work); ticks due while paused are handled at resume by the catch-up
//     rules.
//
// BACKFILL
//   backfill(p, T1, T2, rerun): for every tick of p's cron in [T1, T2] (the schedule's start
//   and end do not limit it), oldest first: no run yet -> a run with trigger backfill, queued;
//   a run exists -> `rerun` decides (operator_action.hpp); runs in flight are never touched.
//
// RESTART
//   recover() (before switch_on()) loads every run from the store. The last tick looked at
//   becomes the greatest logical time of the pipeline's schedule, catchup and skipped runs,
//   so the catch-up at switch-on starts after it. An attempt that was running when the
//   orchestrator stopped was lost with it (event lost-attempt); set_lost_attempts() says what
//   happens to it:
//   - LostAttempts::kRerun (default): it ends now in state lost and the task is ready at once
//     for a new attempt. A lost attempt is not a retry: retries are counted over the task's
//     attempts that are not lost, so a restart of the scheduler never uses up a task's retry
//     budget nor fails a run that would have succeeded. Pools, parallelism, maxDuration and
//     the run timeout (from the run's start) apply to the new attempt as to any other.
//   - LostAttempts::kError: it ends now in state error and the retry rules apply (OnError and
//     Always retry it; the default OnFailure does not, so the task fails).
//   A pending task that was waiting for a retry waits for the rest of its backoff, counting
//   retries from its first attempt (lost attempts not counted).
//
// Cost: creating or finishing a run, starting or finishing an attempt: O(log n) in the runs of
// its pipeline plus O(tasks + edges) of its pipeline; a tick costs O(1) cron steps per tick
// handled. Pools cost O(waiting tasks of the pool) per dispatch. Nothing scans all runs
// except recover() and timeline().
//
// Thread safety: loop thread only.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/core/event_loop.hpp"
#include "workflow/cron/cron.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/autosize.hpp"
#include "workflow/runner/operator_action.hpp"
#include "workflow/runner/run.hpp"
#include "workflow/runner/run_store.hpp"
#include "workflow/runner/task_executor.hpp"

namespace gantry {

// What recover() does with an attempt that was running when the orchestrator stopped.
enum class LostAttempts {
  kRerun,  // closed as lost, run again at once, not counted as a retry (the default)
  kError,  // closed as error; the task's retry policy decides
};

struct BackfillReport {
  size_t created = 0;    // new runs
  size_t rerun = 0;      // existing runs cleared and queued again
  size_t untouched = 0;  // existing runs left alone
};

class RunScheduler final : private AttemptListener {
 public:
  // All three must outlive the scheduler.
  RunScheduler(EventLoop& loop, RunStore& store, TaskExecutor& executor,
               AutosizeConfig autosize = {});
  ~RunScheduler() override;
  RunScheduler(const RunScheduler&) = delete;
  RunScheduler& operator=(const RunScheduler&) = delete;

  // Declares a pool. Throws std::invalid_argument on a duplicate name or slots < 1.
  void add_pool(const PoolSpec& pool);
  // Adds a pipeline (copied). Throws std::invalid_argument on a duplicate name, a dependsOn
  // naming no task, a dependency cycle, a pool not declared or a poolSlots larger than the
  // pool; CronError on a bad cron expression or zone.
  void add_pipeline(const PipelineSpec& spec);

  // Loads the store's runs (see RESTART). Call once, after add_*, before switch_on(). Runs
  // of pipelines not added are ignored.
  void recover();
  // See RESTART; call before recover().
  void set_lost_attempts(LostAttempts policy) { lost_attempts_ = policy; }
  // Switches the schedules on at loop.now() (T0) and catches up (see SCHEDULE).
  void switch_on();

  // Applies `action` at action.at (>= loop.now()); several at one instant apply in call order.
  void schedule(const OperatorAction& action);
  // Applies it now.
  void apply(const OperatorAction& action);

  // See BACKFILL. Throws std::invalid_argument for an unknown pipeline or one without a
  // schedule.
  BackfillReport backfill(const std::string& pipeline, Time from, Time to,
                          BackfillRerun rerun = BackfillRerun::kNone);

  // Every run, ordered by pipeline name then logical time. O(runs).
  std::vector<Run> timeline() const;
  // The same runs in the same order, handed to `fn` one by one without copying them (a year of
  // runs is printed without a second copy in memory). The reference is valid during the call.
  void for_each_run(const std::function<void(const Run&)>& fn) const;
  // The run, or nullptr. The pointer is valid until the next scheduler call.
  const Run* find_run(const std::string& pipeline, Time logical_time) const;
  bool up() const { return !down_; }
  size_t run_count() const { return runs_.size(); }
  // Runs queued or running, over every pipeline. O(pipelines).
  size_t runs_in_flight() const;

 private:
  struct PipelineState;
  struct PoolState;
  struct RunRt;
  struct TaskRt;
  struct ReadyKey {
    int neg_priority;
    Time ready;
    Time logical;
    uint32_t pipeline;
    uint32_t task;
    uint32_t run;
    auto operator<=>(const ReadyKey&) const = default;
  };
  using RunIndex = uint32_t;

  // Held while the scheduler is down (see OPERATOR ACTIONS).
  enum class HeldKind { kAttemptTimeout, kRunTimeout, kRetryDue };
  struct Held {
    HeldKind kind;
    uint64_t arg;
  };
  struct Completion {
    AttemptId id;
    AttemptState state;
    Time end;
    Resources used;
    std::string reason{};  // AttemptResult::reason
  };

  void attempt_finished(AttemptId id, const AttemptResult& result) override;

  // Schedule.
  void catch_up(PipelineState& p);
  void arm_tick(PipelineState& p);
  void on_tick(uint32_t pipeline);
  Time due_of(const PipelineState& p, Time tick) const;
  void handle_tick(PipelineState& p, Time tick, RunTrigger trigger);

  // Runs.
  std::optional<RunIndex> create_run(PipelineState& p, Time logical, RunTrigger trigger);
  void enqueue(RunIndex r);
  void apply_keep_latest(PipelineState& p);
  void try_start_runs(PipelineState& p);
  void start_run(RunIndex r);
  void check_run_done(RunIndex r);
  // Ends a run: unfinished tasks end as `rest` (killed, or succeeded for mark-success).
  void finish_run(RunIndex r, RunState state, TaskState rest);
  void close_task(RunIndex r, uint32_t task, TaskState state);
  void wake_past(RunIndex r, uint32_t task);
  std::optional<RunIndex> previous_run(const PipelineState& p, Time logical) const;
  void clear_tasks(RunIndex r, bool all);
  // Finished runs keep their Run (the timeline) but not their per-task bookkeeping: a year of
  // 5-task runs held 67 MB of it (issue 8). See finish_run().
  void compact_finished();
  // Gives a compacted run its per-task bookkeeping back (every task done), for rerun and
  // mark-success.
  void restore_tasks(RunRt& run);
  void mark_success(RunIndex r);
  void on_run_timeout(RunIndex r);

  // Tasks.
  void evaluate(RunIndex r, uint32_t task);
  void propagate(RunIndex r, uint32_t task);
  void make_ready(RunIndex r, uint32_t task, Time ready_time);
  void unready(RunIndex r, uint32_t task);
  void set_task_done(RunIndex r, uint32_t task, TaskState state);
  void start_attempt(RunIndex r, uint32_t task);
  void end_attempt(RunIndex r, uint32_t task, AttemptState state, Time end);
  void finish_attempt(const Completion& c);
  void after_unsuccessful(RunIndex r, uint32_t task, AttemptState state, Time end);
  void on_retry_due(RunIndex r, uint32_t task);
  void on_attempt_timeout(AttemptId id);
  bool has_room(const RunRt& run) const;

  // Dispatch of ready tasks.
  void dispatch();
  void dispatch_pool(PoolState& pool);

  // Actions.
  void scheduler_down();
  void scheduler_up();
  std::optional<RunIndex> run_for(const OperatorAction& a);
  PipelineState* pipeline_for(const OperatorAction& a);
  void event(SchedulerEventKind kind, const std::string& pipeline,
             std::optional<Time> logical, std::string task, std::string message);
  void store_run(const RunRt& run);
  void store_task(const RunRt& run, uint32_t task);

  EventLoop& loop_;
  RunStore& store_;
  TaskExecutor& executor_;
  Autosizer autosizer_;

  std::vector<std::unique_ptr<PipelineState>> pipelines_;
  std::map<std::string, uint32_t> pipeline_index_;
  std::vector<std::unique_ptr<PoolState>> pools_;
  std::map<std::string, uint32_t> pool_index_;
  std::vector<std::unique_ptr<RunRt>> runs_;  // RunIndex = position; never shrinks
  std::unordered_map<AttemptId, std::pair<RunIndex, uint32_t>> attempts_;
  AttemptId next_attempt_id_ = 1;

  std::vector<RunIndex> finished_;   // runs finished since the last compact_finished()
  std::set<RunIndex> dirty_runs_;    // runs whose ready tasks may start
  std::set<uint32_t> dirty_pools_;   // pools whose waiting tasks may start
  bool dispatching_ = false;

  bool switched_on_ = false;
  bool down_ = false;
  LostAttempts lost_attempts_ = LostAttempts::kRerun;
  std::vector<Completion> held_completions_;
  std::vector<Held> held_timers_;
  std::vector<OperatorAction> actions_;  // scheduled, by index
};

}  // namespace gantry
