// End-to-end tests of `gantry pipeline run` and `gantry pipeline backfill`: the real program
// as a child process, its JSON timeline, its SQLite database, and a real kill -9 in the middle
// of a backfill.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "engine/core/time.hpp"
#include "engine/store/database.hpp"
#include "tests/tools/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;

using gantry::testing::CliTest;
using gantry::testing::Outcome;

class PipelineCommand : public CliTest {
 protected:
  int64_t query(const std::string& sql) {
    gantry::Database db = gantry::Database::open(db_path(), gantry::OpenOptions{.create = false});
    gantry::Statement s = db.prepare(sql);
    return s.step() ? s.column_int64(0) : -1;
  }

  std::string db_path() const { return (dir_ / "runs.db").string(); }
  static std::string etl() {
    return std::string(GANTRY_SOURCE_DIR) + "/scenarios/pipelines/hourly-etl.yaml";
  }
};

// The timeline promised in scenarios/pipelines/hourly-etl.yaml, checked field by field.
TEST_F(PipelineCommand, RunPrintsTheHandDerivedTimeline) {
  const Outcome o = run(
      "pipeline run " + etl() +
      " --from 2026-03-02T07:00:00Z --until 2026-03-02T10:00:00Z --format json --db " + db_path());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto runs = nlohmann::json::parse(o.out)["runs"];
  ASSERT_EQ(runs.size(), 6u);
  const char* expected[][5] = {{"2026-03-02T05:00:00Z", "catchup", "succeeded",
                                "2026-03-02T07:00:00Z", "2026-03-02T07:12:10Z"},
                               {"2026-03-02T06:00:00Z", "catchup", "succeeded",
                                "2026-03-02T07:12:10Z", "2026-03-02T07:24:20Z"},
                               {"2026-03-02T07:00:00Z", "schedule", "succeeded",
                                "2026-03-02T07:24:20Z", "2026-03-02T07:36:30Z"},
                               {"2026-03-02T08:00:00Z", "schedule", "succeeded",
                                "2026-03-02T08:00:00Z", "2026-03-02T08:12:10Z"},
                               {"2026-03-02T09:00:00Z", "schedule", "succeeded",
                                "2026-03-02T09:00:00Z", "2026-03-02T09:12:10Z"}};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(runs[i]["pipeline"], "hourly-etl");
    EXPECT_EQ(runs[i]["logicalTime"], expected[i][0]);
    EXPECT_EQ(runs[i]["trigger"], expected[i][1]);
    EXPECT_EQ(runs[i]["state"], expected[i][2]);
    EXPECT_EQ(runs[i]["start"], expected[i][3]);
    EXPECT_EQ(runs[i]["end"], expected[i][4]);
  }
  // transform of the first run: failed 07:05:00-07:07:00, retried after 10 s.
  const auto transform = runs[0]["tasks"][1];
  EXPECT_EQ(transform["name"], "transform");
  ASSERT_EQ(transform["attempts"].size(), 2u);
  EXPECT_EQ(transform["attempts"][0]["state"], "failed");
  EXPECT_EQ(transform["attempts"][0]["end"], "2026-03-02T07:07:00Z");
  EXPECT_EQ(transform["attempts"][1]["start"], "2026-03-02T07:07:10Z");
  EXPECT_EQ(transform["attempts"][1]["state"], "succeeded");
  EXPECT_EQ(runs[5]["state"], "running");
  EXPECT_EQ(query("SELECT count(*) FROM runs"), 6);
  EXPECT_EQ(query("SELECT count(*) FROM attempts WHERE state = 'failed'"), 5);
}

// Backfill 2026-03-01 (24 hourly ticks). The first attempt (gantry-faulty, the same CLI with a
// fault-injecting commit hook) kills itself with SIGKILL after 40 commits, mid-way; the second
// run of the same command, by the shipped program, finishes the job. Afterwards every tick
// has exactly one run, every run succeeded with its three tasks, and a third backfill creates
// nothing.
TEST_F(PipelineCommand, BackfillSurvivesKillNine) {
  const std::string backfill =
      "pipeline backfill " + etl() +
      " --from 2026-03-01T00:00:00Z --to 2026-03-01T23:00:00Z --format json --db " + db_path();
  const Outcome killed =
      run(backfill, "GANTRY_CRASH_AFTER_COMMITS=40", gantry::testing::kGantryFaulty);
  ASSERT_TRUE(WIFSIGNALED(killed.status)) << "exit " << killed.exit_code() << ": " << killed.err;
  EXPECT_EQ(WTERMSIG(killed.status), SIGKILL);
  const int64_t before = query("SELECT count(*) FROM runs");
  EXPECT_GT(before, 0);
  EXPECT_LT(query("SELECT count(*) FROM runs WHERE state = 'succeeded'"), 24) << "killed mid-way";

  const Outcome resumed = run(backfill);
  ASSERT_EQ(resumed.exit_code(), 0) << resumed.err;
  EXPECT_EQ(query("SELECT count(*) FROM runs"), 24);
  EXPECT_EQ(query("SELECT count(DISTINCT logical_us) FROM runs"), 24);
  EXPECT_EQ(query("SELECT count(*) FROM runs WHERE state = 'succeeded'"), 24);
  EXPECT_EQ(query("SELECT count(*) FROM task_instances WHERE state = 'succeeded'"), 72);

  const Outcome again =
      run("pipeline backfill " + etl() +
          " --from 2026-03-01T00:00:00Z --to 2026-03-01T23:00:00Z --db " + db_path());
  ASSERT_EQ(again.exit_code(), 0) << again.err;
  EXPECT_NE(again.out.find("0 runs created"), std::string::npos) << again.out;
  EXPECT_EQ(query("SELECT count(*) FROM runs"), 24);
}

TEST_F(PipelineCommand, BadEventsFileNamesLineAndField) {
  std::ofstream(dir_ / "events.yaml")
      << "- {at: 2026-03-02T08:00:00Z, action: trigger, pipeline: hourly-etl}\n"
         "- {at: 2026-03-02T09:00:00Z, action: fail, pipeline: hourly-etl,"
         " logicalTime: 2026-03-02T08:00:00Z, task: transfrom}\n";
  const Outcome o = run("pipeline run " + etl() +
                        " --from 2026-03-02T07:00:00Z --until 2026-03-02T10:00:00Z --events " +
                        (dir_ / "events.yaml").string() + " --db " + db_path());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("events.yaml:2:"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("has no task 'transfrom'"), std::string::npos) << o.err;
}

// clear-task from the events file: the 08:00 run (extract 1 attempt -> transform 2, its first
// failed -> load 1, ended 08:12:10) cleared at 09:30 from extract with its downstream: the
// three tasks run again (2, 3 and 2 attempts) and the run succeeds again; the 07:00 run,
// cleared at 09:30 from transform alone, has one more attempt of transform only. A field only
// clear-task takes is refused on another action, naming its line.
TEST_F(PipelineCommand, ClearTaskFromTheEventsFile) {
  std::ofstream(dir_ / "events.yaml")
      << "- {at: 2026-03-02T09:30:00Z, action: clear-task, pipeline: hourly-etl,"
         " logicalTime: 2026-03-02T08:00:00Z, task: extract, downstream: true}\n"
         "- {at: 2026-03-02T09:30:00Z, action: clear-task, pipeline: hourly-etl,"
         " logicalTime: 2026-03-02T07:00:00Z, task: transform}\n";
  const Outcome o = run("pipeline run " + etl() +
                        " --from 2026-03-02T07:00:00Z --until 2026-03-02T11:00:00Z --format json"
                        " --events " +
                        (dir_ / "events.yaml").string() + " --db " + db_path());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto runs = nlohmann::json::parse(o.out)["runs"];
  const auto attempts = [&](const std::string& logical, int task) -> size_t {
    for (const auto& r : runs)
      if (r["logicalTime"] == logical) return r["tasks"][task]["attempts"].size();
    return 0;
  };
  EXPECT_EQ(attempts("2026-03-02T08:00:00Z", 0), 2u);
  EXPECT_EQ(attempts("2026-03-02T08:00:00Z", 1), 3u);
  EXPECT_EQ(attempts("2026-03-02T08:00:00Z", 2), 2u);
  EXPECT_EQ(attempts("2026-03-02T07:00:00Z", 0), 1u);
  EXPECT_EQ(attempts("2026-03-02T07:00:00Z", 1), 3u);
  EXPECT_EQ(attempts("2026-03-02T07:00:00Z", 2), 1u) << "load is downstream, not cleared";
  for (const auto& r : runs) {
    if (r["logicalTime"] == "2026-03-02T08:00:00Z") {
      EXPECT_EQ(r["state"], "succeeded");
    }
  }

  std::ofstream(dir_ / "bad.yaml") << "- {at: 2026-03-02T09:30:00Z, action: kill-task,"
                                      " pipeline: hourly-etl, logicalTime: 2026-03-02T08:00:00Z,"
                                      " task: extract, downstream: true}\n";
  const Outcome bad = run("pipeline run " + etl() +
                          " --from 2026-03-02T07:00:00Z --until 2026-03-02T11:00:00Z --events " +
                          (dir_ / "bad.yaml").string() + " --db " + (dir_ / "b.db").string());
  EXPECT_EQ(bad.exit_code(), 2);
  EXPECT_NE(bad.err.find("bad.yaml:1:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("kill-task does not take downstream"), std::string::npos) << bad.err;
}

// --cluster: the pytorchjob task becomes a 32-GPU gang job of the quickstart cluster, next to
// the scenario's own 600 jobs; each nightly run takes prepare 10 m + at least the 2 h of
// training + two 5 s pod start-up stages.
TEST_F(PipelineCommand, DistributedTasksRunInTheScenarioCluster) {
  std::ofstream(dir_ / "train.yaml") << R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: nightly-train}
spec:
  schedule: {cron: "0 2 * * *", start: 2026-01-05T00:00:00Z}
  tasks:
  - name: prepare
    simulate: {duration: 10m}
  - name: train
    template: pytorchjob
    replicas: {master: 1, worker: 3}
    resources: {cpu: "8", memory: 64Gi, gpu: "8"}
    dependsOn: [prepare]
    simulate: {duration: 2h}
)";
  const std::string args = "pipeline run " + (dir_ / "train.yaml").string() +
                           " --from 2026-01-05T08:00:00Z --until 2026-01-07T08:00:00Z --cluster " +
                           std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml --db " +
                           db_path();
  const Outcome json = run(args + " --format json");
  ASSERT_EQ(json.exit_code(), 0) << json.err;
  const auto runs = nlohmann::json::parse(json.out)["runs"];
  ASSERT_EQ(runs.size(), 3u);
  for (const auto& r : runs) {
    EXPECT_EQ(r["state"], "succeeded");
    const auto& train = r["tasks"][1]["attempts"][0];
    gantry::Time start, end;
    ASSERT_TRUE(gantry::parse_rfc3339(train["start"], start));
    ASSERT_TRUE(gantry::parse_rfc3339(train["end"], end));
    EXPECT_GE((end - start).micros(), (gantry::hours(2) + gantry::seconds(10)).micros());
  }
  const Outcome text = run(args);
  EXPECT_NE(text.out.find("603 jobs (3 from pipeline tasks)"), std::string::npos) << text.out;
}

TEST_F(PipelineCommand, BadTimeFlagIsReported) {
  const Outcome o = run("pipeline run " + etl() +
                        " --from yesterday --until 2026-03-02T10:00:00Z --db " + db_path());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("--from: expected an RFC 3339 time"), std::string::npos) << o.err;
}

}  // namespace
