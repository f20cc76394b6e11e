// Run scheduler: finished runs leaving memory (SchedulerCore::KeepFinished::kRecent, what
// `gantry serve` uses). The rules must not notice: the same pipelines, actions and seed give
// the same stored history with every run kept in memory (kAll) and with finished runs read
// back from the store only when something needs them, while the runs in memory stay bounded.

#include <fmt/format.h>

#include <map>

#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::runner_test {
namespace {

using Keep = SchedulerCore::KeepFinished;

// Everything the store holds, one line per run, task instance, attempt and event.
std::vector<std::string> dump(const MemoryRunStore& store) {
  std::vector<std::string> out;
  for (const auto& [key, run] : store.runs()) {
    out.push_back(fmt::format("{} {} {} {} {}-{}", run.pipeline, format_rfc3339(run.logical_time),
                              to_string(run.trigger), to_string(run.state), hm(run.start),
                              hm(run.end)));
    for (const TaskInstance& t : run.tasks) {
      std::string line = "  " + t.name + " " + std::string(to_string(t.state));
      for (const Attempt& a : t.attempts)
        line += fmt::format(" [{} {} {}-{}]", a.id, to_string(a.state), hm(a.start), hm(a.end));
      out.push_back(line);
    }
  }
  for (const SchedulerEvent& e : store.events()) {
    out.push_back(fmt::format("event {} {} {} {} {}", hm(e.at), to_string(e.kind), e.pipeline,
                              e.logical_time ? format_rfc3339(*e.logical_time) : "-", e.task));
  }
  return out;
}

// Three hourly pipelines over two days, each leaning on a rule that reads old runs:
//  a  three tasks, y flaky (30 %) with one retry: failed runs for a backfill (kFailed) of day 1
//     to rerun at 06:00 of day 2, long after they left memory;
//  b  dependsOnPast at run level, flaky (20 %): each run is marked succeeded 30 minutes after
//     its tick (a no-op when it succeeded), so b goes on; on day 2 the runs of day 1 are
//     marked again, read back from the store;
//  c  Forbid with a 70-minute task (every other tick skipped) and a task "past" with
//     dependsOnPast, flaky (20 %): when "past" of run T fails (T ends T+1:15, then leaves
//     memory), "past" of run T+2h looks at T+3:10 past the skipped T+1h for T, which only the
//     store holds, and waits for it; each run is rerun 4 hours after its tick if it failed.
std::vector<PipelineSpec> pipelines() {
  PipelineSpec a = hourly("a");
  a.tasks = {task("x", minutes(5)), task("y", minutes(10), {"x"}), task("z", minutes(5), {"y"})};
  a.tasks[1].simulate.failure_probability = 0.3;
  a.tasks[1].retry.limit = 1;
  a.concurrency.max_active_runs = 2;
  PipelineSpec b = hourly("b");
  b.depends_on_past = true;
  b.tasks[0].simulate.failure_probability = 0.2;
  PipelineSpec c = hourly("c");
  c.tasks = {task("slow", minutes(70)), task("past", minutes(5), {"slow"})};
  c.tasks[1].depends_on_past = true;
  c.tasks[1].simulate.failure_probability = 0.2;
  c.concurrency.policy = ConcurrencyPolicy::kForbid;
  return {a, b, c};
}

// The actions due in [from, to).
void operator_actions(Harness& h, Time from = day("00:00"), Time to = Time::max()) {
  const auto act = [&](ActionKind kind, Time when, const char* pipeline, Time logical) {
    if (when >= from && when < to) h.action(kind, when, pipeline, logical);
  };
  for (int hour = 0; hour < 48; ++hour) {
    const Time tick = day("00:00") + hours(hour);
    act(ActionKind::kMarkSuccess, tick + minutes(30), "b", tick);
    if (hour < 24) act(ActionKind::kMarkSuccess, tick + hours(24) + minutes(40), "b", tick);
    act(ActionKind::kRerun, tick + hours(4), "c", tick);
  }
}

struct Outcome {
  std::vector<std::string> history;
  size_t in_memory = 0;
  size_t unfinished = 0;  // runs not finished at the end
  std::map<SchedulerEventKind, int> events;
};

Outcome run_two_days(Keep keep) {
  Harness h(day("00:00"), 7);
  h.scheduler.keep_finished(keep);
  for (const PipelineSpec& p : pipelines()) h.scheduler.add_pipeline(p);
  operator_actions(h);
  h.scheduler.switch_on();
  h.until(day("00:00") + hours(30));
  const BackfillReport report =
      h.scheduler.backfill("a", day("00:00"), day("23:00"), BackfillRerun::kFailed);
  EXPECT_GT(report.rerun, 0u) << "the seed must give a failed run of a to rerun";
  h.until(day("00:00") + hours(48) - minutes(1));
  Outcome out{dump(*h.store), h.scheduler.run_count()};
  for (const auto& [key, run] : h.store->runs()) out.unfinished += !is_finished(run.state);
  for (const SchedulerEvent& e : h.store->events()) ++out.events[e.kind];
  return out;
}

TEST(RunnerMemory, FinishedRunsLeaveMemoryAndTheHistoryIsTheSame) {
  const Outcome all = run_two_days(Keep::kAll);
  const Outcome recent = run_two_days(Keep::kRecent);
  // 3 pipelines × 48 hourly ticks (00:00 day 1 .. 23:00 day 2) = 144 runs, all in memory.
  EXPECT_EQ(all.in_memory, 144u);
  EXPECT_EQ(recent.history, all.history);
  // The actions did act (a rerun of c needs a failed run: the seed gives some).
  EXPECT_GT(all.events.at(SchedulerEventKind::kRerun), 0);
  EXPECT_GT(all.events.at(SchedulerEventKind::kMarkSuccess), 24);
  // Under kRecent: the runs in flight, each pipeline's newest, and at most one run per
  // pipeline that a dependsOnPast wait names.
  EXPECT_LE(recent.in_memory, recent.unfinished + 3 + 3);
}

// A restart in the middle: the second life loads only RunSelection::kActive under kRecent and
// must go on exactly as a second life that loads everything.
std::vector<std::string> restart_at_noon_of_day_two(Keep keep) {
  MemoryRunStore store;
  {
    Harness life1(day("00:00"), 7, &store);
    life1.scheduler.keep_finished(keep);
    for (const PipelineSpec& p : pipelines()) life1.scheduler.add_pipeline(p);
    operator_actions(life1, day("00:00"), day("00:00") + hours(37));
    life1.scheduler.switch_on();
    life1.until(day("00:00") + hours(36));
  }
  Harness life2(day("00:00") + hours(37), 8, &store);
  life2.scheduler.keep_finished(keep);
  for (const PipelineSpec& p : pipelines()) life2.scheduler.add_pipeline(p);
  life2.scheduler.recover();
  operator_actions(life2, day("00:00") + hours(37));  // those of life 1 are gone with it
  life2.scheduler.switch_on();
  life2.until(day("00:00") + hours(48));
  return dump(store);
}

TEST(RunnerMemory, ARestartLoadingOnlyActiveRunsGoesOnTheSame) {
  EXPECT_EQ(restart_at_noon_of_day_two(Keep::kRecent), restart_at_noon_of_day_two(Keep::kAll));
}

// fetch_run() reads a run that left memory back from the store; find_run() does not.
TEST(RunnerMemory, FetchRunReadsARunThatLeftMemory) {
  Harness h(day("00:00"));
  h.scheduler.keep_finished(Keep::kRecent);
  h.scheduler.add_pipeline(hourly());
  h.scheduler.switch_on();
  h.until(day("05:30"));
  // Runs 00 .. 05 exist; 05 is the newest and stays, 00 .. 04 finished and left.
  EXPECT_EQ(h.scheduler.run_count(), 1u);
  EXPECT_EQ(h.scheduler.find_run("p", day("01:00")), nullptr);
  const gantry::Run* back = h.scheduler.fetch_run("p", day("01:00"));
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->state, RunState::kSucceeded);
  EXPECT_EQ(hm(back->start), "01:00");
  EXPECT_EQ(hm(back->end), "01:10");
  EXPECT_EQ(h.scheduler.fetch_run("p", day("01:30")), nullptr);  // no tick there
  EXPECT_EQ(h.scheduler.fetch_run("q", day("01:00")), nullptr);  // no such pipeline
}

// Issue 22: attempt ids go on after the greatest ever stored, also when a restart loads only
// the active runs (kRecent: a server). The older run 00:00 holds attempt 5 (a retry that ran
// after the newer run's attempt 3): both finished, only 01:00, the newest, is loaded. The next
// attempt is 6; it was 4, and then 5, which SQLite refused (UNIQUE attempt_id), so a server
// could not start again on its database.
TEST(RunnerMemory, AttemptIdsGoOnAfterTheGreatestStoredNotTheGreatestLoaded) {
  MemoryRunStore store;
  const auto finished_run = [&](Time logical, AttemptId id) {
    gantry::Run r;
    r.pipeline = "p";
    r.logical_time = logical;
    r.trigger = RunTrigger::kManual;
    r.tasks.push_back(TaskInstance{"t", TaskState::kPending, {}, {}});
    ASSERT_TRUE(store.create_run(r));
    const RunKey key{"p", logical};
    store.attempt_started(key, "t", 0, id, logical);
    store.attempt_ended(key, "t", 0, logical + minutes(10), AttemptState::kSucceeded, "");
    store.update_task(key, "t", TaskState::kSucceeded, {});
    store.update_run(key, RunState::kSucceeded, logical, logical + minutes(10));
  };
  finished_run(day("00:00"), 5);
  finished_run(day("01:00"), 3);
  Harness h(day("02:00"), 1, &store);
  h.scheduler.keep_finished(SchedulerCore::KeepFinished::kRecent);
  h.scheduler.add_pipeline(manual("p", {task("t", minutes(10))}));
  h.scheduler.recover();
  h.scheduler.switch_on();
  h.trigger(day("02:00"));
  h.until(day("02:00"));
  EXPECT_EQ(store.runs().at(RunKey{"p", day("02:00")}).tasks[0].attempts.at(0).id, 6u);
}

// halt() (gantry serve, when a write failed): the hourly pipeline switched on at 00:30 has its
// 00:00 run running (a 10-minute task, its attempt in the executor) and its next tick armed.
// Halted, the attempt is killed in the executor and nothing more happens: run to 05:00, no
// run, no attempt end, no event is added (before: 5 more runs and the attempt's end).
TEST(RunnerMemory, AHaltedSchedulerDoesNothingMore) {
  Harness h(day("00:30"));
  h.scheduler.add_pipeline(hourly());
  h.scheduler.recover();
  h.scheduler.switch_on();
  ASSERT_EQ(h.executor.running(), 1u);
  const size_t events = h.store->events().size();
  h.scheduler.halt();
  EXPECT_EQ(h.executor.running(), 0u);
  h.until(day("05:00"));
  EXPECT_EQ(h.store->runs().size(), 1u);
  EXPECT_EQ(h.store->runs().begin()->second.tasks[0].attempts[0].end, std::nullopt);
  EXPECT_EQ(h.store->events().size(), events);
}

}  // namespace
}  // namespace gantry::runner_test
