#pragma once
// The run scheduler: the orchestrator's brain (issue #4). It turns pipelines' schedules,
// operator actions and backfill requests into runs, runs their tasks through a TaskExecutor,
// and reports every state change to a RunStore. It lives on the engine's EventLoop, so it
// runs in virtual time (`gantry pipeline run`) and in wall time alike; all its work happens in
// loop callbacks (DESIGN.md rule 1) and, with the same inputs and seed, produces the same
// timeline (rule 4: ties break by the loop's insertion order and by the orders stated here).
//
// STRUCTURE
//   RunScheduler is a thin front: the rules live in SchedulerCore (scheduler_core.hpp, which
//   hands out attempts and is told how they ended, and lists its parts), with the pure
//   decisions in tick_planner.hpp (ticks), slot_dispatcher.hpp (slots), trigger_rule.hpp,
//   retry.hpp and autosize.hpp. The front starts the core's attempts in a TaskExecutor and
//   stops the ones it gives up, after every event.
//
// USE
//   EventLoop loop(...); MemoryRunStore store; SimulatedExecutor exec(loop, seed);
//   RunScheduler s(loop, store, exec);
//   s.add_pool(pool); s.add_pipeline(spec);   // pools first
//   s.recover();                               // continue from the store's runs: needed
//                                              // when it holds any (attempt ids go on
//                                              // from there; SQLite refuses a reused one)
//   s.switch_on();                             // at loop.now() = T0
//   s.schedule(action); s.backfill(...);       // any time
//   loop.run_until(T1);  s.timeline();
//
// SCHEDULE (per pipeline with a schedule)
//   Each time the schedule is looked at (switch-on, every due tick, scheduler-up, resume) the
//   ticks due since the last tick looked at (initially since start) are handled at once,
//   oldest first, by the rules of tick_planner.hpp: every due tick gets a run (catchup true:
//   trigger "schedule" if due now, "catchup" if overdue), or only the most recent within
//   maxMissedRuns and startingDeadline (catchup false; events too-many-missed and
//   missed-deadline when none starts). With set_catch_up_slice(n) (gantry serve) at most n
//   ticks are handled per event: a long catch-up goes on in the loop's next turns, oldest
//   first as before, while requests are answered and a stop is honoured.
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
//   their downstream as upstream_failed). Ready tasks start by the rules of slot_dispatcher.hpp:
//   in the order (priority desc, ready time, run logical time, pipeline, task order) while the
//   run has fewer than `parallelism` (0 = unlimited) attempts running and, for pool tasks, the
//   pool has slots; a task that does not fit a pool lets smaller ones pass until it has waited
//   longer than the pool's maxWait; pools are served before pool-less tasks.
//   Slots are handed out once the event that made tasks ready has been handled completely,
//   so a run created and killed within one event (keepLatest during a catch-up) never got
//   an attempt.
//   - run timeout (from the moment the run last went running): running attempts killed,
//     unfinished tasks killed, run failed.
//   - attempts: an attempt starts when the scheduler asks the executor for it (Attempt::start,
//     the task shows running) and its work starts when the executor says so
//     (AttemptListener::attempt_running, Attempt::running; at once in the simulated executor,
//     when the gang's pods run in the simulated cluster). Time queued in between counts in the
//     attempt's duration but not in its timeouts.
//   - per-attempt timeout, counted from the attempt's running start (an attempt that never
//     runs never times out): the attempt is killed and ends in state timeout (an attempt that
//     ends exactly at its timeout counts as finished, not timed out).
//   - run state: when every task is finished, succeeded if every leaf (task nothing depends
//     on) succeeded or was skipped, else failed.
//   - retries: retry.hpp; "first start" is the running start of the first attempt since the
//     task was last cleared (its request when it never ran). A task waiting for its backoff is
//     pending.
//   - autosize: autosize.hpp; the request is chosen when each attempt starts.
//
// OPERATOR ACTIONS (operator_action.hpp)
//   - scheduler-down: ticks stop, nothing starts, the scheduler's timers (attempt and run
//     timeouts, retry backoffs) are held. Attempts keep running in the world: an attempt that
//     starts running or ends meanwhile keeps its real running start or end time, but the
//     scheduler learns of it only at up (a timeout counted from a running start it learns then
//     is armed then, and fires right after the up if it has passed).
//     Operator actions other than up and fail are rejected while down (event rejected);
//     fail is a fault in the world and is handled like a completion.
//   - scheduler-up, in this order: running starts and completions that happened while down
//     (in the order they happened), then the held timers (in time order; a timeout that expired
//     while down fires now, a task that already finished is not affected), then the schedule
//     catch-up of every pipeline (as at switch-on), then queued runs and ready tasks start.
//   - trigger: a manual run at logical time = now; rejected if one exists at that instant.
//   - rerun: for a failed, killed or expired run: its failed, upstream_failed and killed
//     tasks go back to pending with a fresh retry budget (attempts are kept), and the run
//     goes back to queued (end cleared; start kept); it starts again under the queue rules.
//   - mark-success: any run; running attempts are killed, every task not succeeded or
//     skipped becomes succeeded, the run becomes succeeded (start = now if it never started).
//     This unblocks dependsOnPast at both levels.
//   - fail: the running attempt of the task ends now in state failed; retries apply.
//   - kill-run: a queued or running run ends now as killed: its running attempts end killed,
//     its unfinished tasks killed (rerun brings them back). Rejected for a run that has ended.
//   - kill-task: one task of a running run ends now as killed, without retry (its running
//     attempt killed); its downstream follow their trigger rules, killed counting as failed,
//     and the run goes on. Rejected when the run is not running or the task has ended.
//   - clear-task (Airflow's clear): the task, plus its downstream and/or upstream closure when
//     asked, each that is not pending (failed_only: each failed, upstream_failed or killed)
//     goes back to pending with a fresh retry budget; a running one has its attempt killed
//     ("cleared by NAME"). A finished run goes back to queued (as rerun); a running one
//     evaluates the cleared tasks' trigger rules again. Rejected when nothing would change.
//   - mark-task-success / mark-task-failed: one task of a queued or running run becomes
//     succeeded / failed now (a running attempt killed: "marked success by NAME", "marked
//     failed by NAME"); its downstream follow their trigger rules and the run may end.
//     Rejected for a run that has ended (clear the task instead) or a task in that state.
//   Every attempt the scheduler stops carries its reason: "killed by NAME" (the action's
//   `by`, "an operator" without one), "stopped: the run was marked succeeded by ...", "the run
//   timed out (timeout D)", "the run was replaced by the run for T (concurrency Replace)",
//   "the run expired: more than keepLatest N runs in flight".
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
//   so the catch-up at switch-on starts after it. Attempt ids go on after the greatest id
//   stored, so none is ever reused (AttemptId, run.hpp).
//   An attempt that was running (queued or running in the executor) when the orchestrator
//   stopped is offered to the executor (TaskExecutor::adopt()):
//   - the executor still holds it (a live cluster outlives the orchestrator): it is adopted
//     (event adopted-attempt) and goes on as if started in this life: it holds its pool and
//     parallelism slots, its timeout counts from its stored running start (or from the
//     executor's running report to come) and its end is reported later as usual.
//   - the executor does not hold it (the simulated executors never do: they do not outlive the
//     process) or it has no stored id (written before schema 3): it was lost with the
//     orchestrator (event lost-attempt); set_lost_attempts() says what happens to it:
//     - LostAttempts::kRerun (default): it ends now in state lost and the task is ready at
//       once for a new attempt. A lost attempt is not a retry: retries are counted over the
//       task's attempts that are not lost, so a restart of the scheduler never uses up a
//       task's retry budget nor fails a run that would have succeeded. Pools, parallelism,
//       maxDuration and the run timeout (from the run's start) apply to the new attempt as to
//       any other.
//     - LostAttempts::kError: it ends now in state error and the retry rules apply (OnError
//       and Always retry it; the default OnFailure does not, so the task fails).
//   A pending task that was waiting for a retry waits for the rest of its backoff, counting
//   retries from its first attempt (lost attempts not counted).
//   Runs of pipelines not added are left alone (a database may hold other pipelines' runs),
//   except those of the pipelines named by set_unloaded_pipelines() (gantry serve: a stored
//   definition it could not load): a run of theirs in flight ends now as failed, its open
//   attempts as error (stopped in the executor if it still holds them), its unfinished tasks
//   killed, with an event pipeline-not-loaded saying why, so that it does not stay running
//   for ever with nobody to finish it.
//
// PIPELINES THAT CHANGE (gantry serve: pipelines applied and deleted through the API)
//   put_pipeline(spec) after switch_on(): a new pipeline is added and its schedule looked at
//   at once (the catch-up rules, from its start); an existing one is replaced, only while none
//   of its runs is in flight (PipelineBusy otherwise: runs were made from the old tasks).
//   Its runs take the new task list as after a restart with the new file (RESTART: matched
//   by task name), its schedule goes on after the last tick looked at with the new cron, and
//   a paused pipeline stays paused. remove_pipeline(name): no more ticks and no operator
//   actions (rejected: no such pipeline); its runs stay in the timeline; refused while runs
//   are in flight. Putting it again brings it back with its runs and its last tick.
//
// KILLS
//   Attempts the scheduler gives up (run ended, timeout, fail action, mark-success) end at once
//   in its record and are killed in the executor after the event; an executor that did not
//   hold one (KillAck::kUnknown: it had ended unreported) leaves an event kill-unknown.
//
// Cost: creating or finishing a run, starting or finishing an attempt: O(log n) in the runs of
// its pipeline plus O(tasks + edges) of its pipeline; a tick costs O(1) cron steps per tick
// handled. Pools cost O(waiting tasks of the pool) per dispatch. Nothing scans all runs
// except recover() and timeline().
//
// Thread safety: loop thread only.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/core/event_loop.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/autosize.hpp"
#include "workflow/runner/operator_action.hpp"
#include "workflow/runner/run.hpp"
#include "workflow/runner/run_store.hpp"
#include "workflow/runner/scheduler_core.hpp"
#include "workflow/runner/task_executor.hpp"

namespace gantry {

class RunScheduler final : private AttemptListener {
 public:
  // All three must outlive the scheduler.
  RunScheduler(EventLoop& loop, RunStore& store, TaskExecutor& executor,
               AutosizeConfig autosize = {});
  ~RunScheduler() override;
  RunScheduler(const RunScheduler&) = delete;
  RunScheduler& operator=(const RunScheduler&) = delete;

  // Declares a pool. Throws std::invalid_argument on a duplicate name or slots < 1.
  void add_pool(const PoolSpec& pool) { core_.add_pool(pool); }
  // Adds a pipeline (copied). Throws std::invalid_argument on a duplicate name, a dependsOn
  // naming no task, a dependency cycle, a pool not declared or a poolSlots larger than the
  // pool; CronError on a bad cron expression or zone.
  void add_pipeline(const PipelineSpec& spec) { core_.add_pipeline(spec); }

  // See PIPELINES THAT CHANGE.
  // `paused_if_new`: a pipeline new to the scheduler (or put again after remove_pipeline())
  // starts paused: no tick is looked at until resume (gantry serve's API default).
  void put_pipeline(const PipelineSpec& spec, bool paused_if_new = false);
  bool remove_pipeline(const std::string& name, bool forget_runs = false) {
    return core_.remove_pipeline(name, forget_runs);
  }

  // Stops it for good (SchedulerCore::halt()): its timers are cancelled and the attempts it
  // had started are killed in the executor, so nothing reaches it any more; it writes nothing
  // more. A server builds a new scheduler from the database then (RESTART).
  void halt();
  // Loads the store's runs (see RESTART). Call once, after add_*, before switch_on(). Runs
  // of pipelines not added are ignored, but for those named by set_unloaded_pipelines().
  void recover();
  // See RESTART; call before recover().
  void set_unloaded_pipelines(std::map<std::string, std::string> why) {
    core_.set_unloaded_pipelines(std::move(why));
  }
  // See RESTART; call before recover().
  void set_lost_attempts(LostAttempts policy) { core_.set_lost_attempts(policy); }
  // See SCHEDULE (SchedulerCore::set_catch_up_slice()).
  void set_catch_up_slice(size_t runs) { core_.set_catch_up_slice(runs); }
  // See SCHEDULE (SchedulerCore::set_catch_up_backlog()).
  void set_catch_up_backlog(size_t runs) { core_.set_catch_up_backlog(runs); }
  // Which finished runs stay in memory (SchedulerCore::keep_finished); call before recover().
  void keep_finished(SchedulerCore::KeepFinished keep) { core_.keep_finished(keep); }
  // Switches the schedules on at loop.now() (T0) and catches up (see SCHEDULE).
  void switch_on();

  // Applies `action` at action.at (>= loop.now()); several at one instant apply in call order.
  void schedule(const OperatorAction& action);
  // Applies it now. Returns why it was refused (an event rejected is recorded too), or nullopt.
  std::optional<std::string> apply(const OperatorAction& action);
  // What a task action would change now, or why it would be refused (SchedulerCore::preview()).
  std::variant<TaskActionPlan, std::string> preview(const OperatorAction& action) {
    return core_.preview(action);
  }

  // See BACKFILL. Throws std::invalid_argument for an unknown pipeline or one without a
  // schedule.
  BackfillReport backfill(const std::string& pipeline, Time from, Time to,
                          BackfillRerun rerun = BackfillRerun::kNone);

  // Every run, ordered by pipeline name then logical time. O(runs).
  std::vector<Run> timeline() const { return core_.timeline(); }
  // The same runs in the same order, handed to `fn` one by one without copying them (a year of
  // runs is printed without a second copy in memory). The reference is valid during the call.
  void for_each_run(const std::function<void(const Run&)>& fn) const { core_.for_each_run(fn); }
  // The run, or nullptr. The pointer is valid until the next scheduler call.
  const Run* find_run(const std::string& pipeline, Time logical_time) const {
    return core_.find_run(pipeline, logical_time);
  }
  // The run, read back from the store if it left memory (SchedulerCore::fetch_run()).
  const Run* fetch_run(const std::string& pipeline, Time logical_time) {
    return core_.fetch_run(pipeline, logical_time);
  }
  bool up() const { return core_.up(); }
  size_t run_count() const { return core_.run_count(); }
  // Runs queued or running, over every pipeline. O(pipelines).
  size_t runs_in_flight() const { return core_.runs_in_flight(); }
  size_t runs_in_flight(const std::string& pipeline) const {
    return core_.runs_in_flight(pipeline);
  }
  std::optional<Time> last_tick(const std::string& pipeline) const {
    return core_.last_tick(pipeline);
  }
  std::optional<SchedulerCore::PoolUsage> pool_usage(const std::string& pool) const {
    return core_.pool_usage(pool);
  }

 private:
  void attempt_running(AttemptId id, Time at) override;
  void attempt_finished(AttemptId id, const AttemptResult& result) override;
  // Hands the core's work to the executor: the kills it ordered, then the attempts it starts.
  void flush();

  EventLoop& loop_;
  RunStore& store_;
  TaskExecutor& executor_;
  SchedulerCore core_;
  std::vector<OperatorAction> actions_;  // scheduled, by index
};

}  // namespace gantry
