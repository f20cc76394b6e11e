// The pipeline examples of scenarios/pipelines/ keep their promises: each file's opening
// comment states the timeline it produces, worked out by hand from the rules documented in
// workflow/runner/run_scheduler.hpp (and retry.hpp, trigger_rule.hpp, autosize.hpp,
// workflow/cron/cron.hpp). These tests run the real program on each example, with
// --format json, and check that timeline field by field. The arithmetic is in the examples'
// comments and repeated briefly here.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "engine/store/database.hpp"
#include "tests/tools/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using gantry::testing::CliTest;
using gantry::testing::Outcome;

// "2026-04-01" + "06:30" -> "2026-04-01T06:30:00Z"; "" + anything -> "" (null in the JSON).
std::string z(const std::string& date, const std::string& hms) {
  if (date.empty()) return "";
  return date + "T" + (hms.size() == 5 ? hms + ":00" : hms) + "Z";
}

std::string str(const json& j) { return j.is_null() ? "" : j.get<std::string>(); }

// One run as the example's comment promises it ("" = null).
struct RunRow {
  std::string pipeline, logical, trigger, state, start, end;
};

struct AttemptRow {
  std::string start, end, state;
};

class PipelineExamples : public CliTest {
 protected:
  static std::string example(const std::string& name) {
    return std::string(GANTRY_SOURCE_DIR) + "/scenarios/pipelines/" + name;
  }

  // `gantry pipeline run` on an example, exactly as its opening comment says, in JSON; the
  // database goes to the test's directory.
  json timeline(const std::string& file, const std::string& from, const std::string& until,
                const std::string& events = "") {
    std::string args = "pipeline run " + example(file) + " --from " + from + " --until " + until +
                       " --format json --db " + db_path();
    if (!events.empty()) args += " --events " + example(events);
    const Outcome o = run(args);
    EXPECT_EQ(o.exit_code(), 0) << o.err;
    if (o.exit_code() != 0) return json::array();
    return json::parse(o.out)["runs"];
  }

  int64_t query(const std::string& sql) {
    gantry::Database db = gantry::Database::open(db_path(), gantry::OpenOptions{.create = false});
    gantry::Statement s = db.prepare(sql);
    return s.step() ? s.column_int64(0) : -1;
  }

  std::string db_path() const { return (dir_ / "runs.db").string(); }
};

// Every run of `runs`, in order, against `expected`.
void expect_runs(const json& runs, const std::vector<RunRow>& expected) {
  ASSERT_EQ(runs.size(), expected.size()) << runs.dump(1);
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("run " + std::to_string(i) + ": " + expected[i].pipeline + " " +
                 expected[i].logical);
    const json& r = runs[i];
    EXPECT_EQ(str(r["pipeline"]), expected[i].pipeline);
    EXPECT_EQ(str(r["logicalTime"]), expected[i].logical);
    EXPECT_EQ(str(r["trigger"]), expected[i].trigger);
    EXPECT_EQ(str(r["state"]), expected[i].state);
    EXPECT_EQ(str(r["start"]), expected[i].start);
    EXPECT_EQ(str(r["end"]), expected[i].end);
  }
}

// The task named `name` of `run`, or null.
json task_of(const json& run, const std::string& name) {
  for (const json& t : run["tasks"])
    if (t["name"] == name) return t;
  return json();
}

void expect_task(const json& run, const std::string& name, const std::string& state,
                 const std::vector<AttemptRow>& attempts) {
  SCOPED_TRACE("task " + name);
  const json t = task_of(run, name);
  ASSERT_FALSE(t.is_null()) << run.dump(1);
  EXPECT_EQ(str(t["state"]), state);
  ASSERT_EQ(t["attempts"].size(), attempts.size()) << t.dump(1);
  for (size_t i = 0; i < attempts.size(); ++i) {
    EXPECT_EQ(str(t["attempts"][i]["start"]), attempts[i].start) << "attempt " << i;
    EXPECT_EQ(str(t["attempts"][i]["end"]), attempts[i].end) << "attempt " << i;
    EXPECT_EQ(str(t["attempts"][i]["state"]), attempts[i].state) << "attempt " << i;
  }
}

// `gantry pipeline validate` accepts every pipeline file of scenarios/pipelines/ loaded
// together (so names and pools do not clash either). Counted by hand: outage-no-catchup 3,
// outage-catchup 1, dst-spring-forward 2, dst-fall-back 3, concurrency-policies 3,
// depends-on-past 1, pools 2, trigger-rules 1, retries-and-timeouts 3, distributed-training
// 1, autosize 1, hourly-etl 1 = 22 pipelines; 1 pool (pools.yaml).
TEST_F(PipelineExamples, ValidateAcceptsEveryPipelineFile) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(example(""))) {
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 12u) << "operator events files live in events/";
  std::string args = "pipeline validate";
  for (const std::string& f : files) args += " " + f;
  const Outcome o = run(args);
  EXPECT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_EQ(o.out.rfind("ok", 0), 0u) << o.out;
  EXPECT_NE(o.out.find("22 pipelines, 1 pool"), std::string::npos) << o.out;
  // The folder itself, as a user would pass it: the same files, the same verdict.
  const Outcome folder = run("pipeline validate " + example(""));
  EXPECT_EQ(folder.exit_code(), 0) << folder.err;
  EXPECT_NE(folder.out.find("22 pipelines, 1 pool"), std::string::npos) << folder.out;
}

// (a) catchup false through a 4-hour outage (down 02:30-06:30): only the most recent missed
// tick (06:00, due 30 m before scheduler-up) may run, and only where startingDeadline and
// maxMissedRuns allow it.
TEST_F(PipelineExamples, OutageWithoutCatchupRunsAtMostTheLatestMissedTick) {
  const json runs = timeline("outage-no-catchup.yaml", "2026-04-01T00:00:00Z",
                             "2026-04-01T07:30:00Z", "events/scheduler-outage.yaml");
  const std::string d = "2026-04-01";
  std::vector<RunRow> expected;
  // Ordered by pipeline name: outage-deadline, outage-latest, outage-too-many.
  for (const std::string p : {"outage-deadline", "outage-latest", "outage-too-many"}) {
    for (const char* h : {"00", "01", "02"})
      expected.push_back({p, z(d, std::string(h) + ":00"), "schedule", "succeeded",
                          z(d, std::string(h) + ":00"), z(d, std::string(h) + ":10")});
    // outage-latest: deadline 1h, ticks due within 1 h of 06:30 = {06:00}, n = 1 <= 100.
    if (p == "outage-latest")
      expected.push_back({p, z(d, "06:00"), "catchup", "succeeded", z(d, "06:30"), z(d, "06:40")});
    expected.push_back({p, z(d, "07:00"), "schedule", "succeeded", z(d, "07:00"), z(d, "07:10")});
  }
  expect_runs(runs, expected);
  // outage-deadline: 06:00 due 30 m > 15 m ago -> n = 0: missed-deadline.
  // outage-too-many: no deadline, n = 4 (03:00 ... 06:00) > maxMissedRuns 3: too-many-missed.
  EXPECT_EQ(query("SELECT count(*) FROM events WHERE kind = 'missed-deadline' AND "
                  "pipeline = 'outage-deadline'"),
            1);
  EXPECT_EQ(query("SELECT count(*) FROM events WHERE kind = 'too-many-missed' AND "
                  "pipeline = 'outage-too-many'"),
            1);
  EXPECT_EQ(query("SELECT count(*) FROM events WHERE kind IN ('missed-deadline', "
                  "'too-many-missed') AND pipeline = 'outage-latest'"),
            0);
}

// (b) catchup true, maxActiveRuns 1, same outage: four catch-up runs of 20 m, one at a time
// from 06:30, oldest first; 07:00 and 08:00 queue behind them; 09:00 is on time.
TEST_F(PipelineExamples, OutageWithCatchupDrainsOldestFirstOneAtATime) {
  const json runs = timeline("outage-catchup.yaml", "2026-04-01T00:00:00Z", "2026-04-01T09:30:00Z",
                             "events/scheduler-outage.yaml");
  const std::string d = "2026-04-01", p = "outage-catchup";
  expect_runs(runs, {
                        {p, z(d, "00:00"), "schedule", "succeeded", z(d, "00:00"), z(d, "00:20")},
                        {p, z(d, "01:00"), "schedule", "succeeded", z(d, "01:00"), z(d, "01:20")},
                        {p, z(d, "02:00"), "schedule", "succeeded", z(d, "02:00"), z(d, "02:20")},
                        {p, z(d, "03:00"), "catchup", "succeeded", z(d, "06:30"), z(d, "06:50")},
                        {p, z(d, "04:00"), "catchup", "succeeded", z(d, "06:50"), z(d, "07:10")},
                        {p, z(d, "05:00"), "catchup", "succeeded", z(d, "07:10"), z(d, "07:30")},
                        {p, z(d, "06:00"), "catchup", "succeeded", z(d, "07:30"), z(d, "07:50")},
                        {p, z(d, "07:00"), "schedule", "succeeded", z(d, "07:50"), z(d, "08:10")},
                        {p, z(d, "08:00"), "schedule", "succeeded", z(d, "08:10"), z(d, "08:30")},
                        {p, z(d, "09:00"), "schedule", "succeeded", z(d, "09:00"), z(d, "09:20")},
                    });
  // Inside the 03:00 catch-up run: extract 06:30-06:40, then load 06:40-06:50.
  ASSERT_EQ(runs.size(), 10u);
  expect_task(runs[3], "extract", "succeeded", {{z(d, "06:30"), z(d, "06:40"), "succeeded"}});
  expect_task(runs[3], "load", "succeeded", {{z(d, "06:40"), z(d, "06:50"), "succeeded"}});
}

// (c) spring forward in New York (2026-03-08, 02:00 EST -> 03:00 EDT): 02:30 runs once, at
// 03:00 EDT = 07:00Z; the */30 job keeps 30 real minutes.
TEST_F(PipelineExamples, SpringForwardRunsTheGapTimeOnceAtTheTransition) {
  const json runs =
      timeline("dst-spring-forward.yaml", "2026-03-07T00:00:00Z", "2026-03-10T00:00:00Z");
  const std::string d = "2026-03-08", h = "half-hourly-spring", n = "nightly-0230";
  expect_runs(
      runs,
      {
          // 01:00 EST, 01:30 EST, 03:00 EDT, 03:30 EDT, 04:00 EDT.
          {h, z(d, "06:00"), "schedule", "succeeded", z(d, "06:00"), z(d, "06:05")},
          {h, z(d, "06:30"), "schedule", "succeeded", z(d, "06:30"), z(d, "06:35")},
          {h, z(d, "07:00"), "schedule", "succeeded", z(d, "07:00"), z(d, "07:05")},
          {h, z(d, "07:30"), "schedule", "succeeded", z(d, "07:30"), z(d, "07:35")},
          {h, z(d, "08:00"), "schedule", "succeeded", z(d, "08:00"), z(d, "08:05")},
          // 02:30 EST (UTC-5) = 07:30Z; gap -> 03:00 EDT = 07:00Z; 02:30 EDT (UTC-4) = 06:30Z.
          {n, z("2026-03-07", "07:30"), "schedule", "succeeded", z("2026-03-07", "07:30"),
           z("2026-03-07", "07:35")},
          {n, z(d, "07:00"), "schedule", "succeeded", z(d, "07:00"), z(d, "07:05")},
          {n, z("2026-03-09", "06:30"), "schedule", "succeeded", z("2026-03-09", "06:30"),
           z("2026-03-09", "06:35")},
      });
}

// (c) fall back in New York (2026-11-01, 02:00 EDT -> 01:00 EST): 01:30 runs once, at its
// first occurrence (EDT); 02:30 exists once; the */30 job fires at both readings of 01:xx.
TEST_F(PipelineExamples, FallBackRunsTheRepeatedTimeOnceAtItsFirstOccurrence) {
  const json runs = timeline("dst-fall-back.yaml", "2026-10-31T00:00:00Z", "2026-11-03T00:00:00Z");
  const std::string o = "2026-10-31", d = "2026-11-01", m = "2026-11-02";
  const std::string h = "half-hourly-fall", n1 = "nightly-0130", n2 = "nightly-0230-fall";
  expect_runs(runs, {
                        // 01:00 EDT, 01:30 EDT, 01:00 EST, 01:30 EST, 02:00 EST.
                        {h, z(d, "05:00"), "schedule", "succeeded", z(d, "05:00"), z(d, "05:05")},
                        {h, z(d, "05:30"), "schedule", "succeeded", z(d, "05:30"), z(d, "05:35")},
                        {h, z(d, "06:00"), "schedule", "succeeded", z(d, "06:00"), z(d, "06:05")},
                        {h, z(d, "06:30"), "schedule", "succeeded", z(d, "06:30"), z(d, "06:35")},
                        {h, z(d, "07:00"), "schedule", "succeeded", z(d, "07:00"), z(d, "07:05")},
                        // 01:30 EDT (UTC-4) = 05:30Z twice, then 01:30 EST (UTC-5) = 06:30Z.
                        {n1, z(o, "05:30"), "schedule", "succeeded", z(o, "05:30"), z(o, "05:35")},
                        {n1, z(d, "05:30"), "schedule", "succeeded", z(d, "05:30"), z(d, "05:35")},
                        {n1, z(m, "06:30"), "schedule", "succeeded", z(m, "06:30"), z(m, "06:35")},
                        // 02:30 EDT = 06:30Z, then 02:30 EST = 07:30Z twice.
                        {n2, z(o, "06:30"), "schedule", "succeeded", z(o, "06:30"), z(o, "06:35")},
                        {n2, z(d, "07:30"), "schedule", "succeeded", z(d, "07:30"), z(d, "07:35")},
                        {n2, z(m, "07:30"), "schedule", "succeeded", z(m, "07:30"), z(m, "07:35")},
                    });
}

// (d) Forbid, Replace and keepLatest with 13-minute runs every 10 minutes.
TEST_F(PipelineExamples, ConcurrencyPoliciesWithRunsLongerThanThePeriod) {
  const json runs =
      timeline("concurrency-policies.yaml", "2026-05-01T00:00:00Z", "2026-05-01T01:05:00Z");
  const std::string d = "2026-05-01", r = "always-replace", f = "every-other-forbid",
                    k = "keep-latest-two";
  expect_runs(runs, {
                        // Replace: each run killed by the next tick, 10 m after its start.
                        {r, z(d, "00:00"), "schedule", "killed", z(d, "00:00"), z(d, "00:10")},
                        {r, z(d, "00:10"), "schedule", "killed", z(d, "00:10"), z(d, "00:20")},
                        {r, z(d, "00:20"), "schedule", "killed", z(d, "00:20"), z(d, "00:30")},
                        {r, z(d, "00:30"), "schedule", "killed", z(d, "00:30"), z(d, "00:40")},
                        {r, z(d, "00:40"), "schedule", "killed", z(d, "00:40"), z(d, "00:50")},
                        {r, z(d, "00:50"), "schedule", "killed", z(d, "00:50"), z(d, "01:00")},
                        {r, z(d, "01:00"), "schedule", "running", z(d, "01:00"), ""},
                        // Forbid: a run every other tick; the ticks between are skipped records.
                        {f, z(d, "00:00"), "schedule", "succeeded", z(d, "00:00"), z(d, "00:13")},
                        {f, z(d, "00:10"), "schedule", "skipped", z(d, "00:10"), z(d, "00:10")},
                        {f, z(d, "00:20"), "schedule", "succeeded", z(d, "00:20"), z(d, "00:33")},
                        {f, z(d, "00:30"), "schedule", "skipped", z(d, "00:30"), z(d, "00:30")},
                        {f, z(d, "00:40"), "schedule", "succeeded", z(d, "00:40"), z(d, "00:53")},
                        {f, z(d, "00:50"), "schedule", "skipped", z(d, "00:50"), z(d, "00:50")},
                        {f, z(d, "01:00"), "schedule", "running", z(d, "01:00"), ""},
                        // keepLatest 2: 3 m of drift per run until three are in flight at 00:50.
                        {k, z(d, "00:00"), "schedule", "succeeded", z(d, "00:00"), z(d, "00:13")},
                        {k, z(d, "00:10"), "schedule", "succeeded", z(d, "00:13"), z(d, "00:26")},
                        {k, z(d, "00:20"), "schedule", "succeeded", z(d, "00:26"), z(d, "00:39")},
                        {k, z(d, "00:30"), "schedule", "expired", z(d, "00:39"), z(d, "00:50")},
                        {k, z(d, "00:40"), "schedule", "expired", z(d, "00:50"), z(d, "01:00")},
                        {k, z(d, "00:50"), "schedule", "running", z(d, "01:00"), ""},
                        {k, z(d, "01:00"), "schedule", "queued", "", ""},
                    });
  ASSERT_EQ(runs.size(), 21u);
  expect_task(runs[0], "refresh", "killed", {{z(d, "00:00"), z(d, "00:10"), "killed"}});
  expect_task(runs[8], "refresh", "skipped", {});
  expect_task(runs[17], "refresh", "killed", {{z(d, "00:39"), z(d, "00:50"), "killed"}});
  expect_task(runs[20], "refresh", "pending", {});
  EXPECT_EQ(query("SELECT count(*) FROM events WHERE kind = 'forbid-skip'"), 3);
}

// (e) dependsOnPast: the failed night of 06-02 holds 06-03 and 06-04 until the operator
// marks it succeeded on 06-04 at 09:00.
TEST_F(PipelineExamples, DependsOnPastStallsUntilMarkSuccess) {
  const std::string p = "nightly-warehouse";
  const std::string d1 = "2026-06-01", d2 = "2026-06-02", d3 = "2026-06-03", d4 = "2026-06-04",
                    d5 = "2026-06-05";
  {
    SCOPED_TRACE("the stall, before mark-success");
    const json runs = timeline("depends-on-past.yaml", "2026-06-01T00:00:00Z",
                               "2026-06-04T08:00:00Z", "events/depends-on-past.yaml");
    expect_runs(runs,
                {
                    {p, z(d1, "02:00"), "schedule", "succeeded", z(d1, "02:00"), z(d1, "02:30")},
                    {p, z(d2, "02:00"), "schedule", "failed", z(d2, "02:00"), z(d2, "02:15")},
                    {p, z(d3, "02:00"), "schedule", "queued", "", ""},
                    {p, z(d4, "02:00"), "schedule", "queued", "", ""},
                });
  }
  const json runs = timeline("depends-on-past.yaml", "2026-06-01T00:00:00Z", "2026-06-05T12:00:00Z",
                             "events/depends-on-past.yaml");
  expect_runs(runs,
              {
                  {p, z(d1, "02:00"), "schedule", "succeeded", z(d1, "02:00"), z(d1, "02:30")},
                  // mark-success: start kept, end = the action.
                  {p, z(d2, "02:00"), "schedule", "succeeded", z(d2, "02:00"), z(d4, "09:00")},
                  {p, z(d3, "02:00"), "schedule", "succeeded", z(d4, "09:00"), z(d4, "09:30")},
                  {p, z(d4, "02:00"), "schedule", "succeeded", z(d4, "09:30"), z(d4, "10:00")},
                  {p, z(d5, "02:00"), "schedule", "succeeded", z(d5, "02:00"), z(d5, "02:30")},
              });
  ASSERT_EQ(runs.size(), 5u);
  // The failed attempt stays in the history; the task itself is now succeeded.
  expect_task(runs[1], "extract", "succeeded", {{z(d2, "02:00"), z(d2, "02:10"), "succeeded"}});
  expect_task(runs[1], "load", "succeeded", {{z(d2, "02:10"), z(d2, "02:15"), "failed"}});
}

// (f) Pools: train (2 slots) waits behind two 1-slot reports until it has waited longer than
// maxWait 15m; from 00:20 nothing overtakes it, and it starts when both slots are free.
TEST_F(PipelineExamples, PoolMaxWaitStopsStarvation) {
  const json runs = timeline("pools.yaml", "2026-08-01T00:00:00Z", "2026-08-01T01:00:00Z");
  const std::string d = "2026-08-01", r = "reports", t = "train";
  expect_runs(runs, {
                        {r, z(d, "00:00"), "schedule", "succeeded", z(d, "00:00"), z(d, "00:15")},
                        {r, z(d, "00:10"), "schedule", "succeeded", z(d, "00:10"), z(d, "00:25")},
                        {r, z(d, "00:20"), "schedule", "running", z(d, "00:20"), ""},
                        {r, z(d, "00:30"), "schedule", "running", z(d, "00:30"), ""},
                        {r, z(d, "00:40"), "schedule", "queued", "", ""},
                        {r, z(d, "00:50"), "schedule", "queued", "", ""},
                        {r, z(d, "01:00"), "schedule", "queued", "", ""},
                        {t, z(d, "00:00"), "schedule", "succeeded", z(d, "00:00"), z(d, "00:55")},
                    });
  ASSERT_EQ(runs.size(), 8u);
  expect_task(runs[7], "train", "succeeded", {{z(d, "00:25"), z(d, "00:55"), "succeeded"}});
  // Ready at 00:20 and 00:30, both held behind train, both start when it ends.
  expect_task(runs[2], "report", "running", {{z(d, "00:55"), "", "running"}});
  expect_task(runs[3], "report", "running", {{z(d, "00:55"), "", "running"}});
}

// (g) Trigger rules and skip in one DAG; transform fails.
TEST_F(PipelineExamples, TriggerRulesAndSkip) {
  const json runs = timeline("trigger-rules.yaml", "2026-09-01T00:00:00Z", "2026-09-01T02:00:00Z");
  const std::string d = "2026-09-01";
  // Leaves publish (upstream_failed), notify, report, alert, heartbeat: failed; the last task
  // (notify) ends at 00:31.
  expect_runs(
      runs, {{"trigger-rules", z(d, "00:00"), "schedule", "failed", z(d, "00:00"), z(d, "00:31")}});
  ASSERT_EQ(runs.size(), 1u);
  const json& run = runs[0];
  expect_task(run, "extract", "succeeded", {{z(d, "00:00"), z(d, "00:10"), "succeeded"}});
  expect_task(run, "validate", "skipped", {});
  expect_task(run, "transform", "failed", {{z(d, "00:10"), z(d, "00:25"), "failed"}});
  expect_task(run, "publish", "upstream_failed", {});
  expect_task(run, "cleanup", "succeeded", {{z(d, "00:25"), z(d, "00:30"), "succeeded"}});
  expect_task(run, "notify", "succeeded", {{z(d, "00:30"), z(d, "00:31"), "succeeded"}});
  expect_task(run, "report", "succeeded", {{z(d, "00:10"), z(d, "00:15"), "succeeded"}});
  expect_task(run, "alert", "skipped", {});
  expect_task(run, "heartbeat", "succeeded", {{z(d, "00:00"), z(d, "00:02"), "succeeded"}});
}

// (h) Retries with backoff 1m, 2m, then the 3m cap; maxDuration; per-attempt and run timeouts.
TEST_F(PipelineExamples, RetriesBackoffAndTimeouts) {
  const json runs =
      timeline("retries-and-timeouts.yaml", "2026-07-01T00:00:00Z", "2026-07-01T01:00:00Z");
  const std::string d = "2026-07-01";
  expect_runs(
      runs,
      {
          {"attempt-timeout", z(d, "00:00"), "schedule", "failed", z(d, "00:00"), z(d, "00:10:30")},
          {"retry-backoff", z(d, "00:00"), "schedule", "failed", z(d, "00:00"), z(d, "00:19")},
          {"run-timeout", z(d, "00:00"), "schedule", "failed", z(d, "00:00"), z(d, "00:30")},
      });
  ASSERT_EQ(runs.size(), 3u);
  // 5 m timeout, 30 s backoff: 00:00-00:05, 00:05:30-00:10:30.
  expect_task(
      runs[0], "slow", "failed",
      {{z(d, "00:00"), z(d, "00:05"), "timeout"}, {z(d, "00:05:30"), z(d, "00:10:30"), "timeout"}});
  expect_task(runs[0], "just-in-time", "succeeded", {{z(d, "00:00"), z(d, "00:05"), "succeeded"}});
  // Waits 1, 2, min(4, 3), min(8, 3) minutes after 2-minute attempts.
  expect_task(runs[1], "flaky", "succeeded",
              {{z(d, "00:00"), z(d, "00:02"), "failed"},
               {z(d, "00:03"), z(d, "00:05"), "failed"},
               {z(d, "00:07"), z(d, "00:09"), "failed"},
               {z(d, "00:12"), z(d, "00:14"), "failed"},
               {z(d, "00:17"), z(d, "00:19"), "succeeded"}});
  // The 4th attempt would start at 00:12 > 00:00 + maxDuration 10m: gives up after 3.
  expect_task(runs[1], "gives-up", "failed",
              {{z(d, "00:00"), z(d, "00:02"), "failed"},
               {z(d, "00:03"), z(d, "00:05"), "failed"},
               {z(d, "00:07"), z(d, "00:09"), "failed"}});
  // Run timeout 30m: train (00:20-00:40) killed at 00:30.
  expect_task(runs[2], "prepare", "succeeded", {{z(d, "00:00"), z(d, "00:20"), "succeeded"}});
  expect_task(runs[2], "train", "killed", {{z(d, "00:20"), z(d, "00:30"), "killed"}});
}

// (i) A pytorchjob task between two containers: 5 m + 2 h + 10 m from 03:00.
TEST_F(PipelineExamples, DistributedTemplateRunsInTheChain) {
  const json runs =
      timeline("distributed-training.yaml", "2026-10-01T00:00:00Z", "2026-10-02T00:00:00Z");
  const std::string d = "2026-10-01";
  expect_runs(runs, {{"distributed-training", z(d, "03:00"), "schedule", "succeeded", z(d, "03:00"),
                      z(d, "05:15")}});
  ASSERT_EQ(runs.size(), 1u);
  expect_task(runs[0], "prepare", "succeeded", {{z(d, "03:00"), z(d, "03:05"), "succeeded"}});
  expect_task(runs[0], "train", "succeeded", {{z(d, "03:05"), z(d, "05:05"), "succeeded"}});
  expect_task(runs[0], "evaluate", "succeeded", {{z(d, "05:05"), z(d, "05:15"), "succeeded"}});
  // The GPU request is recorded: 8 whole GPUs.
  EXPECT_EQ(query("SELECT gpus FROM task_instances WHERE name = 'train'"), 8);
}

// (j) autosize: runs 00:00-09:00 ask for what they declare; from the 11th run on (10
// successes in the window) CPU ceil(1.4 × 1000) + 25 = 1425 milli, memory
// ceil(1.4 × 2 GiB) + 250 MiB = 3006477108 + 262144000 = 3268621108 bytes.
TEST_F(PipelineExamples, AutosizeLowersRequestsAfterTenSuccesses) {
  const json runs = timeline("autosize.yaml", "2026-09-15T00:00:00Z", "2026-09-15T11:30:00Z");
  ASSERT_EQ(runs.size(), 12u);
  for (size_t h = 0; h < 12; ++h) {
    const std::string hh = (h < 10 ? "0" : "") + std::to_string(h);
    EXPECT_EQ(str(runs[h]["logicalTime"]), z("2026-09-15", hh + ":00"));
    EXPECT_EQ(str(runs[h]["state"]), "succeeded");
    EXPECT_EQ(str(runs[h]["end"]), z("2026-09-15", hh + ":10"));
  }
  const std::string by_hour =
      "SELECT count(*) FROM runs r JOIN task_instances t ON t.run_id = r.id WHERE ";
  // 2026-09-15T10:00:00Z = 1789466400 s.
  EXPECT_EQ(query(by_hour + "r.logical_us < 1789466400000000 AND t.cpu_milli = 4000 AND "
                            "t.memory_bytes = 8589934592"),
            10);
  EXPECT_EQ(query(by_hour + "r.logical_us >= 1789466400000000 AND t.cpu_milli = 1425 AND "
                            "t.memory_bytes = 3268621108"),
            2);
}

}  // namespace
