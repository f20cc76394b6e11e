// Run scheduler: inside a run (run_scheduler.hpp, INSIDE A RUN; trigger_rule.hpp; retry.hpp;
// autosize.hpp). Pipelines here have no schedule; a manual run is triggered at 00:00 on
// 2026-01-01 (UTC) and every expected timeline is worked out by hand in the comments.

#include "tests/workflow/runner_test_harness.hpp"
#include "workflow/runner/autosize.hpp"
#include "workflow/runner/retry.hpp"

namespace gantry::runner_test {
namespace {

using V = std::vector<std::string>;

// One manual run of `spec` at 00:00, run until `until`.
struct OneRun : Harness {
  OneRun(const PipelineSpec& spec, Time until_time, std::vector<PoolSpec> pools = {})
      : Harness(day("00:00")) {
    for (const PoolSpec& p : pools) scheduler.add_pool(p);
    scheduler.add_pipeline(spec);
    scheduler.switch_on();
    trigger(day("00:00"), spec.name);
    until(until_time);
  }
  std::string of(const std::string& t) { return attempts("p", day("00:00"), t); }
  std::string state() { return runs().at(0); }
};

TaskSpec failing(const std::string& name, Duration d, std::vector<std::string> deps = {}) {
  TaskSpec t = task(name, d, std::move(deps));
  t.simulate.outcomes = {"failed"};
  return t;
}

// Upstream u1 succeeds at 00:10, u2 fails at 00:20; d (5 minutes) depends on both.
//   all_success: u2 failed -> d upstream_failed at 00:20; leaf d -> run failed at 00:20.
//   all_failed:  u1 succeeded at 00:10 -> d can never fire: skipped at 00:10; the run ends
//                when u2 does (00:20), succeeded: its only leaf was skipped.
//   all_done:    both done at 00:20 -> d 00:20-00:25; run succeeded 00:25.
//   one_success: u1 succeeded at 00:10 -> d 00:10-00:15 without waiting for u2; run ends
//                00:20 (u2), succeeded (leaf d succeeded).
//   one_failed:  u2 failed at 00:20 -> d 00:20-00:25, succeeded.
//   none_failed: u2 failed -> upstream_failed at 00:20; run failed 00:20.
//   always:      d starts with the run, 00:00-00:05; run ends 00:20, succeeded.
// Every attempt that does not succeed says why (#26 §1), here the simulated executor naming
// the field that decided: outcomes [failed, error, succeeded] with 2 retries, and a task that
// fails by its failure probability (1: every attempt).
TEST(RunnerTask, EveryUnsuccessfulAttemptSaysWhy) {
  PipelineSpec spec = manual("p", {task("t", minutes(5)), task("u", minutes(5))});
  spec.tasks[0].simulate.outcomes = {"failed", "error", "succeeded"};
  spec.tasks[0].retry.limit = 2;
  spec.tasks[0].retry.policy = RetryPolicy::kAlways;
  spec.tasks[1].simulate.failure_probability = 1;
  OneRun h(spec, day("02:00"));
  std::vector<std::string> reasons;
  h.scheduler.for_each_run([&](const gantry::Run& r) {
    for (const TaskInstance& t : r.tasks)
      for (const gantry::Attempt& a : t.attempts) reasons.push_back(t.name + ": " + a.reason);
  });
  EXPECT_EQ(reasons, (V{"t: simulated failure (simulate.outcomes[0] is failed)",
                        "t: simulated infrastructure error (simulate.outcomes[1] is error)",
                        "t: ", "u: simulated failure (simulate.failureProbability 1)"}));
}

TEST(RunnerTask, TriggerRules) {
  struct Case {
    TriggerRule rule;
    std::string d;
    std::string run;
  };
  const std::vector<Case> cases = {
      {TriggerRule::kAllSuccess, "upstream_failed:", "00:00 manual failed 00:00-00:20"},
      {TriggerRule::kAllFailed, "skipped:", "00:00 manual succeeded 00:00-00:20"},
      {TriggerRule::kAllDone, "succeeded: 00:20-00:25 succeeded",
       "00:00 manual succeeded 00:00-00:25"},
      {TriggerRule::kOneSuccess, "succeeded: 00:10-00:15 succeeded",
       "00:00 manual succeeded 00:00-00:20"},
      {TriggerRule::kOneFailed, "succeeded: 00:20-00:25 succeeded",
       "00:00 manual succeeded 00:00-00:25"},
      {TriggerRule::kNoneFailed, "upstream_failed:", "00:00 manual failed 00:00-00:20"},
      {TriggerRule::kAlways, "succeeded: 00:00-00:05 succeeded",
       "00:00 manual succeeded 00:00-00:20"},
  };
  for (const Case& c : cases) {
    TaskSpec d = task("d", minutes(5), {"u1", "u2"});
    d.trigger_rule = c.rule;
    OneRun h(manual("p", {task("u1", minutes(10)), failing("u2", minutes(20)), d}), day("01:00"));
    EXPECT_EQ(h.of("d"), c.d) << static_cast<int>(c.rule);
    EXPECT_EQ(h.state(), c.run) << static_cast<int>(c.rule);
  }
}

// a -> b -> c -> d, 10 minutes each, b fails: a 00:00-00:10, b 00:10-00:20 failed;
// c and d become upstream_failed at 00:20 without attempts; run failed at 00:20.
TEST(RunnerTask, UpstreamFailedPropagatesDownTheChain) {
  OneRun h(manual("p", {task("a", minutes(10)), failing("b", minutes(10), {"a"}),
                        task("c", minutes(10), {"b"}), task("d", minutes(10), {"c"})}),
           day("01:00"));
  EXPECT_EQ(h.of("b"), "failed: 00:10-00:20 failed");
  EXPECT_EQ(h.of("c"), "upstream_failed:");
  EXPECT_EQ(h.of("d"), "upstream_failed:");
  EXPECT_EQ(h.state(), "00:00 manual failed 00:00-00:20");
}

// a (10m) -> b (skip: true) -> c (10m): b is skipped at 00:10 without an attempt, c runs
// 00:10-00:20 (skipped upstream satisfies all_success), run succeeded at 00:20.
// With a failing instead, b cannot be reached: upstream_failed at 00:10, and so is c.
TEST(RunnerTask, SkipIsDoneWithoutRunning) {
  TaskSpec b = task("b", minutes(10), {"a"});
  b.skip = true;
  {
    OneRun h(manual("p", {task("a", minutes(10)), b, task("c", minutes(10), {"b"})}), day("01:00"));
    EXPECT_EQ(h.of("b"), "skipped:");
    EXPECT_EQ(h.of("c"), "succeeded: 00:10-00:20 succeeded");
    EXPECT_EQ(h.state(), "00:00 manual succeeded 00:00-00:20");
  }
  {
    OneRun h(manual("p", {failing("a", minutes(10)), b, task("c", minutes(10), {"b"})}),
             day("01:00"));
    EXPECT_EQ(h.of("b"), "upstream_failed:");
    EXPECT_EQ(h.of("c"), "upstream_failed:");
    EXPECT_EQ(h.state(), "00:00 manual failed 00:00-00:10");
  }
}

// Four independent 10-minute tasks, parallelism 2. Order: priority, then task order.
// t4 has priority 5: t4 and t1 00:00-00:10, then t2 and t3 00:10-00:20.
TEST(RunnerTask, ParallelismBoundsTasksInARun) {
  PipelineSpec p = manual("p", {task("t1", minutes(10)), task("t2", minutes(10)),
                                task("t3", minutes(10)), task("t4", minutes(10))});
  p.parallelism = 2;
  p.tasks[3].priority = 5;
  OneRun h(p, day("01:00"));
  EXPECT_EQ(h.of("t4"), "succeeded: 00:00-00:10 succeeded");
  EXPECT_EQ(h.of("t1"), "succeeded: 00:00-00:10 succeeded");
  EXPECT_EQ(h.of("t2"), "succeeded: 00:10-00:20 succeeded");
  EXPECT_EQ(h.of("t3"), "succeeded: 00:10-00:20 succeeded");
}

// retry_wait = delay · factor^(k−1) capped: delay 10s, factor 2, cap 5m:
// k=1 10s, k=2 20s, k=5 10·16 = 160s, k=6 320s -> 300s; factor 1.5: k=3 10·2.25 = 22.5s.
TEST(RunnerTask, RetryWaitFormula) {
  RetrySpec r;
  r.delay = seconds(10);
  r.factor = 2;
  r.cap = minutes(5);
  EXPECT_EQ(retry_wait(r, 1), seconds(10));
  EXPECT_EQ(retry_wait(r, 2), seconds(20));
  EXPECT_EQ(retry_wait(r, 5), seconds(160));
  EXPECT_EQ(retry_wait(r, 6), seconds(300));
  r.factor = 1.5;
  EXPECT_EQ(retry_wait(r, 3), milliseconds(22'500));
}

// Saturation (issue 8): 2^(k−1) overflows a double at k = 1,025 (2^1024 = inf). With delay 0,
// 0 · inf was NaN and read as "at the cap": 5 minutes after a thousand zero waits. Now a zero
// delay waits 0 for every k, and a positive delay saturates at the cap, for any k.
TEST(RunnerTask, RetryWaitSaturates) {
  RetrySpec r;
  r.delay = seconds(0);
  r.factor = 2;
  r.cap = minutes(5);
  EXPECT_EQ(retry_wait(r, 1), seconds(0));
  EXPECT_EQ(retry_wait(r, 1'024), seconds(0));
  EXPECT_EQ(retry_wait(r, 1'025), seconds(0));
  EXPECT_EQ(retry_wait(r, 1'000'000), seconds(0));
  r.delay = microseconds(1);
  EXPECT_EQ(retry_wait(r, 1'025), minutes(5));  // 1 µs · inf -> the cap
  EXPECT_EQ(retry_wait(r, 2'000'000'000), minutes(5));
  EXPECT_EQ(retry_wait(r, 29), microseconds(268'435'456));  // 2^28 µs = 268.4 s < 300 s
  EXPECT_EQ(retry_wait(r, 30), minutes(5));                 // 2^29 µs = 536.9 s > 300 s
}

// An always-failing 1-minute task, limit 3, delay 10s, factor 2, cap 25s. Waits count from
// the end of the failed attempt:
//   #1 00:00:00-00:01:00; wait 10s -> #2 00:01:10-00:02:10; wait 20s -> #3 00:02:30-00:03:30;
//   wait min(40s, 25s) = 25s -> #4 00:03:55-00:04:55; no retry left: failed at 00:04:55.
// With maxDuration 3m (first start 00:00 + 3m = 00:03:00): #4 would start at 00:03:55, after
// 00:03:00: the task gives up after #3, failed at 00:03:30.
TEST(RunnerTask, RetriesWithBackoffCapAndMaxDuration) {
  TaskSpec t = failing("t", minutes(1));
  t.retry.limit = 3;
  t.retry.delay = seconds(10);
  t.retry.factor = 2;
  t.retry.cap = seconds(25);
  {
    OneRun h(manual("p", {t}), day("01:00"));
    EXPECT_EQ(h.of("t"),
              "failed: 00:00-00:01 failed 00:01:10-00:02:10 failed 00:02:30-00:03:30 failed "
              "00:03:55-00:04:55 failed");
    EXPECT_EQ(h.state(), "00:00 manual failed 00:00-00:04:55");
  }
  t.retry.max_duration = minutes(3);
  {
    OneRun h(manual("p", {t}), day("01:00"));
    EXPECT_EQ(h.of("t"),
              "failed: 00:00-00:01 failed 00:01:10-00:02:10 failed 00:02:30-00:03:30 failed");
  }
}

// Outcomes [X, succeeded], 1-minute task, limit 2, delay 10s:
//   error  + OnFailure: not retried (error is infrastructure) -> failed after 00:00-00:01.
//   error  + OnError:   retried -> 00:01:10-00:02:10 succeeded.
//   failed + OnError:   not retried.
//   failed + Always, error + Always: retried.
TEST(RunnerTask, RetryPolicyOnErrorVersusOnFailure) {
  struct Case {
    std::string first;
    RetryPolicy policy;
    bool retried;
  };
  for (const Case& c :
       {Case{"error", RetryPolicy::kOnFailure, false}, Case{"error", RetryPolicy::kOnError, true},
        Case{"failed", RetryPolicy::kOnError, false}, Case{"failed", RetryPolicy::kOnFailure, true},
        Case{"failed", RetryPolicy::kAlways, true}, Case{"error", RetryPolicy::kAlways, true}}) {
    TaskSpec t = task("t", minutes(1));
    t.simulate.outcomes = {c.first, "succeeded"};
    t.retry.limit = 2;
    t.retry.delay = seconds(10);
    t.retry.policy = c.policy;
    OneRun h(manual("p", {t}), day("01:00"));
    EXPECT_EQ(h.of("t"), c.retried
                             ? "succeeded: 00:00-00:01 " + c.first + " 00:01:10-00:02:10 succeeded"
                             : "failed: 00:00-00:01 " + c.first)
        << c.first << " " << static_cast<int>(c.policy);
  }
}

// A 10-minute task with a 4-minute timeout, limit 1 (OnFailure retries timeouts), delay 10s:
// #1 00:00-00:04 timeout, #2 00:04:10-00:08:10 timeout, failed.
// A 4-minute task with a 4-minute timeout ends exactly at its timeout: succeeded.
TEST(RunnerTask, AttemptTimeout) {
  TaskSpec t = task("t", minutes(10));
  t.timeout = minutes(4);
  t.retry.limit = 1;
  t.retry.delay = seconds(10);
  {
    OneRun h(manual("p", {t}), day("01:00"));
    EXPECT_EQ(h.of("t"), "failed: 00:00-00:04 timeout 00:04:10-00:08:10 timeout");
  }
  t.simulate.duration = minutes(4);
  {
    OneRun h(manual("p", {t}), day("01:00"));
    EXPECT_EQ(h.of("t"), "succeeded: 00:00-00:04 succeeded");
  }
}

// a (10m) -> b (10m) -> c, run timeout 15m: a 00:00-00:10, b 00:10-00:15 killed; c never
// started: killed; run failed at 00:15.
TEST(RunnerTask, RunTimeoutKillsRunningTasks) {
  PipelineSpec p = manual(
      "p", {task("a", minutes(10)), task("b", minutes(10), {"a"}), task("c", minutes(10), {"b"})});
  p.timeout = minutes(15);
  OneRun h(p, day("01:00"));
  EXPECT_EQ(h.of("a"), "succeeded: 00:00-00:10 succeeded");
  EXPECT_EQ(h.of("b"), "killed: 00:10-00:15 killed");
  EXPECT_EQ(h.of("c"), "killed:");
  EXPECT_EQ(h.state(), "00:00 manual failed 00:00-00:15");
}

// Pool "gpu" with 2 slots; three 10-minute 1-slot tasks with priorities 0, 5, 1:
// hi (5) and mid (1) 00:00-00:10, lo (0) 00:10-00:20.
TEST(RunnerTask, PoolServesHighestPriorityFirst) {
  PoolSpec gpu{"gpu", 2, std::nullopt, {}};
  std::vector<TaskSpec> tasks = {task("lo", minutes(10)), task("hi", minutes(10)),
                                 task("mid", minutes(10))};
  int prio[] = {0, 5, 1};
  for (int i = 0; i < 3; ++i) {
    tasks[i].pool = "gpu";
    tasks[i].priority = prio[i];
  }
  OneRun h(manual("p", tasks), day("01:00"), {gpu});
  EXPECT_EQ(h.of("hi"), "succeeded: 00:00-00:10 succeeded");
  EXPECT_EQ(h.of("mid"), "succeeded: 00:00-00:10 succeeded");
  EXPECT_EQ(h.of("lo"), "succeeded: 00:10-00:20 succeeded");
}

// Pool with 2 slots. A (1 slot, 30m) takes a slot at 00:00. X (no pool, 5m) then releases
// B (2 slots, priority 10, 10m), C and D (1 slot each, 10m) at 00:05.
// Without maxWait: B does not fit (1 free) but does not block: C 00:05-00:15, then D
// 00:15-00:25 (B still does not fit), B when A ends: 00:30-00:40.
// With maxWait 8m: at 00:15 B has waited 10m > 8m: nothing overtakes it any more, so D
// waits; A ends 00:30: B 00:30-00:40, then D 00:40-00:50.
TEST(RunnerTask, PoolSmallTasksPassUntilMaxWait) {
  auto make = [] {
    TaskSpec a = task("A", minutes(30));
    TaskSpec x = task("X", minutes(5));
    TaskSpec b = task("B", minutes(10), {"X"});
    TaskSpec c = task("C", minutes(10), {"X"});
    TaskSpec d = task("D", minutes(10), {"X"});
    for (TaskSpec* t : {&a, &b, &c, &d}) t->pool = "gpu";
    b.pool_slots = 2;
    b.priority = 10;
    return manual("p", {a, x, b, c, d});
  };
  {
    OneRun h(make(), day("01:00"), {PoolSpec{"gpu", 2, std::nullopt, {}}});
    EXPECT_EQ(h.of("C"), "succeeded: 00:05-00:15 succeeded");
    EXPECT_EQ(h.of("D"), "succeeded: 00:15-00:25 succeeded");
    EXPECT_EQ(h.of("B"), "succeeded: 00:30-00:40 succeeded");
  }
  {
    OneRun h(make(), day("01:00"), {PoolSpec{"gpu", 2, minutes(8), {}}});
    EXPECT_EQ(h.of("C"), "succeeded: 00:05-00:15 succeeded");
    EXPECT_EQ(h.of("B"), "succeeded: 00:30-00:40 succeeded");
    EXPECT_EQ(h.of("D"), "succeeded: 00:40-00:50 succeeded");
  }
}

// Autosize on a task declaring 4000m CPU and 8 GiB, using 1000m and 2 GiB, hourly from 00:00.
// Runs 00..09 succeed with the declared requests (fewer than 10 successes before each).
// Run 10 (10:00) has 10 successes in the last 30 days:
//   cpu = ceil(1.4 × 1000) + 25 = 1425m;
//   memory = ceil(1.4 × 2147483648) + 250 MiB = ceil(3006477107.2) + 262144000
//          = 3006477108 + 262144000 = 3268621108 bytes.
// A task using 5000m (more than declared) is capped at the declared 4000m.
TEST(RunnerTask, AutosizeAfterTenSuccesses) {
  for (int64_t used_cpu : {int64_t{1000}, int64_t{5000}}) {
    Harness h(day("00:00"));
    PipelineSpec p = hourly();
    p.tasks[0].autosize = true;
    p.tasks[0].resources.cpu_milli = 4000;
    p.tasks[0].resources.memory_bytes = int64_t{8} << 30;
    p.tasks[0].simulate.used_cpu_milli = used_cpu;
    p.tasks[0].simulate.used_memory_bytes = int64_t{2} << 30;
    h.scheduler.add_pipeline(p);
    h.scheduler.switch_on();
    h.until(day("10:30"));
    EXPECT_EQ(h.task_of("p", day("09:00"), "t").requests.cpu_milli, 4000);
    const TaskInstance& t10 = h.task_of("p", day("10:00"), "t");
    EXPECT_EQ(t10.requests.cpu_milli, used_cpu == 1000 ? 1425 : 4000);
    EXPECT_EQ(t10.requests.memory_bytes, 3268621108);
    EXPECT_TRUE(h.has_event(SchedulerEventKind::kAutosize));
  }
}

// The 30-day window: 10 successes on days 0..9 (at midnight); asked on day 35, the window
// (day 5, day 35] holds days 6..9 = 4 successes < 10: the declared requests. Asked on day 30
// the window (day 0, day 30] holds days 1..9 = 9: declared too; on day 29, (day -1, day 29]
// holds all 10: autosized.
TEST(RunnerTask, AutosizeWindowIsThirtyDays) {
  Autosizer a;
  Resources declared{4000, int64_t{8} << 30, 0, 0};
  Resources used{1000, int64_t{1} << 30, 0, 0};
  for (int d = 0; d < 10; ++d) a.record_success("p/t", day("00:00") + days(d), used);
  EXPECT_EQ(a.requests("p/t", day("00:00") + days(29), declared).cpu_milli, 1425);
  EXPECT_EQ(a.requests("p/t", day("00:00") + days(30), declared).cpu_milli, 4000);
  EXPECT_EQ(a.requests("p/t", day("00:00") + days(35), declared).cpu_milli, 4000);
}

}  // namespace
}  // namespace gantry::runner_test
