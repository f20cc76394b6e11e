#pragma once
// The run scheduler's core (issue #4 and #9): pipelines, runs, task instances and attempts,
// and every rule of run_scheduler.hpp that decides what happens to them, without an executor.
// Like Ninja's Plan it hands out work and is told how the work ended:
//
//   SchedulerCore core(loop, store);
//   core.add_pipeline(spec); core.switch_on();
//   for (const AttemptRequest& r : core.ready()) executor.start(r, ...);   // the front
//   core.attempt_running(id, at);                                           // later
//   core.attempt_finished(id, result);                                      // later still
//   for (const KillOrder& k : core.take_kills()) executor.kill(k.id);
//
// RunScheduler (run_scheduler.hpp) is the thin front that wires it to a TaskExecutor and calls
// ready() and take_kills() after every event; tests step the core by hand instead
// (tests/workflow/scheduler_core_test.cpp). The core reads the clock of `loop` and keeps its
// own timers on it (ticks, timeouts, retry backoffs); when one fires it calls the work hook
// (on_work()) so that the front can collect the work it made.
//
// The parts, each in its own file:
//   scheduler_core.cpp    set-up, schedules (TickPlanner), hand-out of work, output
//   core_runs.cpp         runs: creation, the queue, concurrency, dependsOnPast, completion
//   core_tasks.cpp        tasks inside a run: trigger rules, readiness, attempts, retries,
//                         timeouts
//   operator_actions.cpp  operator actions, scheduler down/up, backfill
//   recovery.cpp          recover(): the runs of a previous life
// with the pure rules in tick_planner.hpp (which ticks get runs), slot_dispatcher.hpp (which
// ready tasks start), trigger_rule.hpp, retry.hpp and autosize.hpp.
//
// Cost: see run_scheduler.hpp. Thread safety: loop thread only.

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "engine/core/event_loop.hpp"
#include "workflow/pipeline/dag.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"
#include "workflow/runner/autosize.hpp"
#include "workflow/runner/operator_action.hpp"
#include "workflow/runner/run.hpp"
#include "workflow/runner/run_store.hpp"
#include "workflow/runner/slot_dispatcher.hpp"
#include "workflow/runner/task_executor.hpp"
#include "workflow/runner/tick_planner.hpp"

namespace gantry {

// What a task action (clear-task, mark-task-success, mark-task-failed) changes in a run: each
// task whose state it sets, in the pipeline's task order (SchedulerCore::preview()).
struct TaskChange {
  std::string task;
  TaskState from = TaskState::kPending;
  TaskState to = TaskState::kPending;
  // The index of the running attempt the action kills (cleared or marked while running).
  std::optional<size_t> stops_attempt{};
};
struct TaskActionPlan {
  RunState run_from = RunState::kQueued;
  RunState run_to = RunState::kQueued;  // the state the action leaves the run in at once
  std::vector<TaskChange> tasks;
};

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

// An attempt the core gave up on (its run ended, it timed out, an operator failed it): the
// executor must stop it. `run` and `task` are for kill_unknown().
struct KillOrder {
  AttemptId id = 0;
  uint32_t run = 0;
  uint32_t task = 0;
};

// A pipeline cannot be replaced or removed while runs of it are in flight: they were made from
// its tasks as they are (pause it and let them end, or mark them succeeded).
class PipelineBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SchedulerCore {
 public:
  // `loop` and `store` must outlive the core.
  SchedulerCore(EventLoop& loop, RunStore& store, AutosizeConfig autosize = {});
  ~SchedulerCore();
  SchedulerCore(const SchedulerCore&) = delete;
  SchedulerCore& operator=(const SchedulerCore&) = delete;

  // --- Set-up (run_scheduler.hpp documents the errors) -----------------------------------
  void add_pool(const PoolSpec& pool);
  void add_pipeline(const PipelineSpec& spec);
  // Adds a pipeline, or replaces the one of that name, while the scheduler runs (gantry serve;
  // run_scheduler.hpp, PIPELINES THAT CHANGE). Throws PipelineBusy while the pipeline has runs in
  // flight, and the errors of add_pipeline() (nothing changes then).
  void put_pipeline(const PipelineSpec& spec, bool paused_if_new = false);
  // Stops a pipeline's schedule for good and forgets it for operator actions; its runs stay
  // (timeline, find_run) unless `forget_runs`: then they leave memory too (the caller purges
  // them from the store), and a pipeline put again under the name starts with none. Throws
  // PipelineBusy while it has runs in flight; false when unknown.
  bool remove_pipeline(const std::string& name, bool forget_runs = false);
  void set_lost_attempts(LostAttempts policy) { lost_attempts_ = policy; }
  // At most `runs` ticks of one schedule are handled per event of the loop (0: no limit, the
  // default): a catch-up of many ticks goes on in the loop's next turns (TickPlanner's
  // `limit`), so that a server's loop answers requests and stops in between. A virtual-time
  // replay keeps no limit: its runs are the same whatever the slice.
  void set_catch_up_slice(size_t runs) {
    catch_up_slice_ = runs == 0 ? std::numeric_limits<size_t>::max() : runs;
  }
  // A catch-up creates its runs only while the pipeline has fewer than `runs` queued, or its
  // maxActiveRuns if that is more (0: no limit, the default): the next slice waits until
  // queued runs start, so that a year of missed ticks holds memory for the runs about to
  // start, not for the whole backlog. The runs, their order and their times are the same as
  // without it, as a backlog of at least maxActiveRuns means a freed slot always finds a
  // queued run; only when each is created (and written to the store) differs, and a tick that
  // comes due while the catch-up waits is caught up with it (trigger catchup, not schedule).
  // Takes effect with a finite catch-up slice.
  void set_catch_up_backlog(size_t runs) {
    catch_up_backlog_ = runs == 0 ? std::numeric_limits<size_t>::max() : runs;
  }
  // Whether finished runs stay in memory (set before recover()). kAll (the default) keeps
  // every run for timeline() and for_each_run(). kRecent (a long-running server) keeps the runs
  // in flight and, per pipeline, its newest run and any run a dependsOnPast wait names; the
  // others leave memory once finished and are read back from the store when an operator
  // action, a backfill or dependsOnPast needs one (fetch_run()). Memory then follows the runs
  // in flight, not the history; timeline() and for_each_run() see only the runs in memory.
  enum class KeepFinished { kAll, kRecent };
  void keep_finished(KeepFinished keep) { keep_ = keep; }
  // The selection recover() needs from RunStore::load_runs() under this setting.
  RunSelection recovery_selection() const {
    return keep_ == KeepFinished::kAll ? RunSelection::kAll : RunSelection::kActive;
  }
  // Called after each event the core handled on its own (a tick, a timeout, a retry coming
  // due), so that the caller collects ready() and take_kills(). Optional.
  void on_work(std::function<void()> fn) { work_ = std::move(fn); }

  // Stops the core for good: every timer it armed on the loop is cancelled (nothing of it runs
  // again) and the attempts it had handed out are returned, for the caller to kill in the
  // executor. What it holds in memory stays as it was, and nothing more is written. For a
  // server whose memory no longer matches its database (a write failed: the disk is full),
  // which builds a new core from the database (RESTART) once it can write again.
  std::vector<AttemptId> halt();

  // --- Life (run_scheduler.hpp: SCHEDULE, OPERATOR ACTIONS, BACKFILL, RESTART) -----------
  // Pipelines whose stored definitions could not be loaded (gantry serve: a catalog document
  // this Gantry refuses), by name, with why; call before recover(). Their runs in flight are
  // ended by recover() (run_scheduler.hpp, RESTART) rather than left running for ever.
  void set_unloaded_pipelines(std::map<std::string, std::string> why) {
    unloaded_ = std::move(why);
  }
  // `adopt` asks the executor about an attempt that was running (TaskExecutor::adopt());
  // `stop` kills one it adopted for a run that is ended (an unloaded pipeline's).
  void recover(std::vector<Run> stored, const std::function<bool(AttemptId)>& adopt,
               const std::function<void(AttemptId)>& stop = {});
  void switch_on();
  // Returns why the action was refused (also recorded as an event rejected), or nullopt.
  std::optional<std::string> apply(const OperatorAction& action);
  // What a task action (clear-task, mark-task-success, mark-task-failed) would change if
  // applied now: the tasks it sets directly (the later effects of trigger rules on their
  // downstream are not in it), or why it would be refused (the words apply() would give).
  // Changes nothing and records nothing (a run that left memory may be read back into it).
  std::variant<TaskActionPlan, std::string> preview(const OperatorAction& action);
  BackfillReport backfill(const std::string& pipeline, Time from, Time to, BackfillRerun rerun);

  // --- Work --------------------------------------------------------------------------------
  // Starts every task that may start now (slot_dispatcher.hpp): each gets a new attempt (its
  // id assigned, requests autosized, the start stored) and its request is returned, in start
  // order, for the caller to hand to an executor. Pointers in the requests stay valid as long
  // as the core. Nothing while the scheduler is down.
  std::vector<AttemptRequest> ready();
  // Attempt `id` started running at `at` (<= now; AttemptListener::attempt_running): recorded
  // (Attempt::running, RunStore::attempt_running), and its per-attempt timeout and the task's
  // maxDuration count from `at`. Unknown ids (ended or killed meanwhile) and repeated reports
  // are ignored; held while the scheduler is down, with its real `at`.
  void attempt_running(AttemptId id, Time at);
  // Attempt `id` ended on its own now (as AttemptListener::attempt_finished). Unknown ids
  // (killed meanwhile) are ignored; held while the scheduler is down.
  void attempt_finished(AttemptId id, const AttemptResult& result);
  // The attempts to stop since the last call, in the order the core gave them up.
  std::vector<KillOrder> take_kills();
  // The executor did not hold an attempt of take_kills() (KillAck::kUnknown): recorded as an
  // event (kill-unknown); the attempt stays as the core closed it.
  void kill_unknown(const KillOrder& order);

  // --- Output ----------------------------------------------------------------------------
  // Every run, ordered by pipeline name then logical time, handed to `fn` one by one.
  void for_each_run(const std::function<void(const Run&)>& fn) const;
  std::vector<Run> timeline() const;
  // A run in memory; nullptr if none (under kRecent a finished run may be in the store only).
  const Run* find_run(const std::string& pipeline, Time logical_time) const;
  // A run in memory or, under kRecent, read back from the store; nullptr if none exists. The
  // pointer is valid until the core next handles an event.
  const Run* fetch_run(const std::string& pipeline, Time logical_time);
  bool up() const { return !down_; }
  // Runs in memory (every run under kAll).
  size_t run_count() const { return runs_.size() - free_runs_.size(); }
  size_t runs_in_flight() const;
  // Runs of one pipeline queued or running (0 for an unknown one).
  size_t runs_in_flight(const std::string& pipeline) const;
  // The last tick a pipeline's schedule looked at (its next catch-up starts after it);
  // nullopt for an unknown pipeline or none yet.
  std::optional<Time> last_tick(const std::string& pipeline) const;
  // A pool's slots in use and ready tasks waiting for it; nullopt for an unknown pool.
  struct PoolUsage {
    int in_use = 0;
    size_t waiting = 0;
  };
  std::optional<PoolUsage> pool_usage(const std::string& pool) const;

 private:
  using RunIndex = uint32_t;

  // What the core still has to do for a task instance (TaskInstance::state is what users see:
  // every phase but kRunning and kDone shows as pending).
  enum class Phase : uint8_t {
    kIdle,       // waiting for its trigger rule
    kWaitPast,   // rule fired; waiting for the previous run's instance (task dependsOnPast)
    kRetryWait,  // an attempt was unsuccessful; waiting for the backoff to pass
    kReady,      // waiting for a parallelism or pool slot
    kRunning,    // an attempt was handed out (queued or running in the executor)
    kDone,       // finished; TaskInstance::state says how
  };
  struct TaskRt {
    Phase phase = Phase::kIdle;
    size_t clear_base = 0;            // first attempt since the task was last cleared
    std::optional<Time> first_start;  // running start of that attempt (its start until then)
    AttemptId attempt = 0;            // the running attempt, in phase kRunning
    std::optional<TimerId> retry_timer;
    std::optional<TimerId> timeout_timer;
    ReadyTask key{};  // in phase kReady
  };
  struct RunRt {
    Run run;
    uint32_t pipeline = 0;
    std::vector<TaskRt> tasks;  // empty once finished and compacted
    int unfinished = 0;         // tasks not in phase kDone
    std::optional<TimerId> timeout_timer;
  };
  struct PipelineState {
    explicit PipelineState(const PipelineSpec& s) : spec(s), dag(s) {}
    PipelineSpec spec;
    PipelineDag dag;
    uint32_t index = 0;
    std::optional<TickPlanner> planner;  // with a schedule
    std::vector<int> pool;               // pool index per task, kNoPool for none
    std::map<Time, RunIndex> runs;       // the runs in memory, by logical time
    // kRecent: the greatest logical time of a run that may be in the store and not in `runs`
    // (left memory, or not loaded by recover()); nullopt while every run is in memory.
    std::optional<Time> left_memory_upto;
    std::set<Time> queued;     // queued runs, oldest first
    std::set<Time> in_flight;  // queued or running
    int running = 0;
    std::optional<Time> last_tick;  // the last tick the schedule looked at
    bool paused = false;
    bool removed = false;        // remove_pipeline(): no schedule, no actions; runs kept
    bool starting = false;       // inside try_start_runs (it is not re-entered)
    bool catch_up_held = false;  // a catch-up waits for queued runs to start (backlog)
    std::optional<TimerId> tick_timer;
    // Task instances waiting (task dependsOnPast) for the instance named by the key.
    std::map<std::pair<RunIndex, uint32_t>, std::vector<std::pair<RunIndex, uint32_t>>> waiters;
  };
  // Held while the scheduler is down (OPERATOR ACTIONS).
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
  struct RunningReport {
    AttemptId id;
    Time at;
  };

  // scheduler_core.cpp: schedules.
  // `on_time`: the instant the tick timer was armed for (on_tick), see TickPlanner::plan().
  void catch_up(PipelineState& p, std::optional<Time> on_time = std::nullopt);
  // The rest of a catch-up, in the loop's next turn.
  void continue_catch_up(PipelineState& p);
  void arm_tick(PipelineState& p);
  void on_tick(uint32_t pipeline, Time due);
  void handle_tick(PipelineState& p, Time tick, RunTrigger trigger);
  void notify_work();
  void event(SchedulerEventKind kind, const std::string& pipeline, std::optional<Time> logical,
             std::string task, std::string message);
  void store_run(const RunRt& run);
  void store_task(const RunRt& run, uint32_t task);
  PipelineState* find_pipeline(const std::string& name);

  // core_runs.cpp: runs.
  // The one way a run comes into existence: stored (RunStore::create_run decides), indexed.
  // `params`: the values given (a manual trigger's); the pipeline's defaults fill the rest.
  std::optional<RunIndex> create_run(PipelineState& p, Time logical, RunTrigger trigger,
                                     const std::map<std::string, std::string>& params = {});
  // A run indexed like a created one (the per-task phases follow its task states).
  RunIndex index_run(PipelineState& p, Run run);
  // A run read from the store (recover(), bring_back()): its tasks in the pipeline's order,
  // indexed, each task's first start restored.
  RunIndex index_stored(PipelineState& p, Run run);
  // A new run joins the queue, then keepLatest applies (every trigger but Forbid's skip).
  void queue_run(PipelineState& p, RunIndex r);
  void enqueue(RunIndex r);
  void apply_keep_latest(PipelineState& p);
  void try_start_runs(PipelineState& p);
  void start_run(RunIndex r);
  void check_run_done(RunIndex r);
  // The one way a run ends (queued, running or finished already): unfinished tasks end as
  // `rest` (killed; succeeded for mark-success; skipped for Forbid).
  // `why`: the reason a running attempt it stops is given (an attempt's reason is never
  // empty when it did not succeed).
  void finish_run(RunIndex r, RunState state, TaskState rest, const std::string& why);
  void close_task(RunIndex r, uint32_t task, TaskState state, const std::string& why);
  // kill-task: closes the task as killed (its attempt with `why`) and lets its downstream and
  // the run follow, as a failed task's would.
  void kill_task(RunIndex r, uint32_t task, const std::string& why);
  void wake_past(RunIndex r, uint32_t task);
  // The run before `logical` that is not skipped (dependsOnPast), read back from the store
  // if it left memory.
  std::optional<RunIndex> previous_run(PipelineState& p, Time logical);
  // The run at `logical`, in memory or read back from the store (kRecent); nullopt if none.
  std::optional<RunIndex> run_at(PipelineState& p, Time logical);
  // A finished run read from the store comes back into memory (as recover() indexes it); it
  // is a candidate to leave again at the next compact_finished().
  RunIndex bring_back(PipelineState& p, Run run);
  // kRecent: whether finished run `r` may leave memory now, and its removal.
  bool may_leave_memory(RunIndex r);
  void leave_memory(RunIndex r);
  void clear_tasks(RunIndex r, bool all);
  // Finished runs keep their Run (the timeline) but not their per-task bookkeeping: a year of
  // 5-task runs held 67 MB of it (issue 8). See finish_run().
  void compact_finished();
  // Gives a compacted run its per-task bookkeeping back (every task done), for rerun and
  // mark-success.
  void restore_tasks(RunRt& run);
  void mark_success(RunIndex r, const std::string& by);
  void on_run_timeout(RunIndex r);
  void arm_run_timeout(RunIndex r, Time at);

  // core_tasks.cpp: tasks.
  void evaluate(RunIndex r, uint32_t task);
  void make_ready(RunIndex r, uint32_t task, Time ready_time);
  void unready(RunIndex r, uint32_t task);
  void set_task_done(RunIndex r, uint32_t task, TaskState state);
  AttemptRequest start_attempt(RunIndex r, uint32_t task);
  // Records the attempt's end (with the executor's `reason`, "" when it gave none) in memory
  // and in the store.
  void end_attempt(RunIndex r, uint32_t task, AttemptState state, Time end,
                   const std::string& reason);
  // Tells the executor to stop the task's running attempt (take_kills()).
  void order_kill(RunIndex r, uint32_t task);
  void finish_attempt(const Completion& c);
  // attempt_running() once the scheduler is up.
  void note_running(AttemptId id, Time at);
  // What follows an attempt that ended as `state` at `end`, once it is closed: the task
  // succeeds, is ready again at once (lost: not a retry), or goes by the retry rules.
  void settle_attempt(RunIndex r, uint32_t task, AttemptState state, Time end);
  void after_unsuccessful(RunIndex r, uint32_t task, AttemptState state, Time end);
  void on_retry_due(RunIndex r, uint32_t task);
  void arm_retry(RunIndex r, uint32_t task, Time at);
  void on_attempt_timeout(AttemptId id);
  // Arms the per-attempt timeout of the task's attempt from its running start, if it has both.
  void arm_attempt_timeout(RunIndex r, uint32_t task);

  // recovery.cpp: an attempt of the previous life that the executor still holds goes on.
  void adopt_attempt(RunIndex r, uint32_t task);
  // A run in flight of an unloaded pipeline ends as failed (open attempts error, unfinished
  // tasks killed), written to the store only: the core does not know its pipeline.
  void end_unloaded_run(const Run& run, const std::string& why,
                        const std::function<bool(AttemptId)>& adopt,
                        const std::function<void(AttemptId)>& stop);

  // operator_actions.cpp.
  void scheduler_down();
  void scheduler_up();
  std::optional<RunIndex> run_for(const OperatorAction& a);
  PipelineState* pipeline_for(const OperatorAction& a);
  void reject(const OperatorAction& a, const std::string& why);
  std::optional<std::string> rejection_;  // the last reject() of the action being applied
  void apply_action(const OperatorAction& action);
  // A new PipelineState for `spec`, checked (DAG, pools) but not indexed.
  std::unique_ptr<PipelineState> make_state(const PipelineSpec& spec);
  void fail_attempt(const OperatorAction& a);

  // task_actions.cpp: clear-task, mark-task-success, mark-task-failed.
  struct TaskTarget {
    RunIndex run;
    uint32_t task;
  };
  // The run and task an action names, or why the action cannot apply (without an event).
  std::variant<TaskTarget, std::string> task_target(const OperatorAction& a);
  std::variant<TaskActionPlan, std::string> plan_task_action(const OperatorAction& a,
                                                             const TaskTarget& target);
  void task_action(const OperatorAction& a);
  // mark-task-success of a task of an ended run (task_actions.cpp).
  void mark_ended_run_task(RunIndex r, uint32_t task, const TaskActionPlan& plan,
                           const std::string& why);
  void clear_task_set(RunIndex r, const TaskActionPlan& plan, const std::string& why);

  EventLoop& loop_;
  RunStore& store_;
  Autosizer autosizer_;
  SlotDispatcher slots_;
  std::function<void()> work_;

  std::vector<std::unique_ptr<PipelineState>> pipelines_;
  std::map<std::string, uint32_t> pipeline_index_;
  // RunIndex = position. Under kRecent a run that leaves memory frees its slot (nullptr), and
  // the next run takes it (free_runs_), so the vector's size follows the runs in memory.
  std::vector<std::unique_ptr<RunRt>> runs_;
  std::vector<RunIndex> free_runs_;
  KeepFinished keep_ = KeepFinished::kAll;
  std::unordered_map<AttemptId, std::pair<RunIndex, uint32_t>> attempts_;
  AttemptId next_attempt_id_ = 1;
  std::vector<KillOrder> kills_;

  std::vector<RunIndex> finished_;  // runs finished since the last compact_finished()

  bool switched_on_ = false;
  bool down_ = false;
  LostAttempts lost_attempts_ = LostAttempts::kRerun;
  size_t catch_up_slice_ = std::numeric_limits<size_t>::max();    // set_catch_up_slice()
  size_t catch_up_backlog_ = std::numeric_limits<size_t>::max();  // set_catch_up_backlog()
  // The backlog that holds `p`'s catch-up: catch_up_backlog_, at least its maxActiveRuns.
  size_t catch_up_backlog(const PipelineState& p) const;
  std::map<std::string, std::string> unloaded_;  // set_unloaded_pipelines()
  // What the executor reported while the scheduler was down, in order.
  std::vector<std::variant<RunningReport, Completion>> held_reports_;
  std::vector<Held> held_timers_;
};

}  // namespace gantry
