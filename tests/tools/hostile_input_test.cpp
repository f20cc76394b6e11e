// Issue 8, tried as a hostile user would: huge values, impossible jobs and malformed fields
// given to the real program. Each must end with exit code 2 and a message naming the file
// position (or the flag), the field and the allowed range -- never a crash, a hang, an
// internal error or a silently wrong exit 0.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/tools/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;

using gantry::testing::CliTest;
using gantry::testing::Outcome;
using gantry::testing::slurp;

class HostileInput : public CliTest {
 protected:
  // scenarios/quickstart.yaml with the first `from` replaced by `to`, written to `name`.
  std::string quickstart_with(const std::string& name, const std::string& from,
                              const std::string& to) {
    return edited_copy(std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml", name,
                       {{from, to}});
  }
  std::string out() const { return " --out " + (dir_ / "r").string(); }
};

// Used to overflow the arrival times and crash formatting the overflowed duration (SIGSEGV).
TEST_F(HostileInput, HugeMeanInterarrivalIsOutOfRange) {
  const std::string f =
      quickstart_with("s.yaml", "meanInterarrival: 150s", "meanInterarrival: 1000000d");
  const Outcome o = run("simulate " + f + out());
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_EQ(o.err,
            "error: " + f +
                ":35:25: spec.workload.generators[0].meanInterarrival: "
                "expected a duration from 0s to 36500d, got '1000000d' (value out of range)\n"
                "see: " GANTRY_SOURCE_DIR "/scenarios/README.md#the-scenario-file\n");
}

// Used to "finish" 475,000-year jobs in seconds with exit 0.
TEST_F(HostileInput, StepsPastTheRangeAreRefused) {
  const std::string f =
      quickstart_with("s.yaml", "steps: {min: 2000, max: 20000}, stepCompute: 150ms",
                      "steps: 100000000000000, stepCompute: 150ms");
  const Outcome o = run("simulate " + f + out());
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_NE(o.err.find("spec.workload.generators[0].mix[0].steps: expected an integer from 1 to "
                       "1000000000000, got '100000000000000'"),
            std::string::npos)
      << o.err;
}

// Used to wait forever (StrictFIFO: 0 of 600 jobs finished) and exit 0. quickstart has 256
// A100s in 32 nodes of 8.
TEST_F(HostileInput, JobLargerThanTheClusterIsRejectedAtLoad) {
  const std::string f =
      quickstart_with("s.yaml", "{weight: 10, gpus: 32,", "{weight: 10, gpus: 1024,");
  const Outcome o = run("simulate " + f + out());
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_NE(o.err.find("mix[3].gpus: jobs of this class can never start: they need 128 Worker "
                       "pods"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("the whole cluster holds at most 32 of them at once"), std::string::npos)
      << o.err;
}

// Used to be blamed on --policy, with no position.
TEST_F(HostileInput, BadPlacementInTheFileIsBlamedOnTheFile) {
  const std::string f = quickstart_with("s.yaml", "placement: binpack", "placement: bogus");
  const Outcome o = run("simulate " + f + out());
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_EQ(o.err.rfind("error: " + f +
                            ":44:16: spec.policy.placement: unknown placement policy "
                            "'bogus'; known: binpack",
                        0),
            0u)
      << o.err;
  const Outcome flag = run("simulate " + std::string(GANTRY_SOURCE_DIR) +
                           "/scenarios/quickstart.yaml --policy bogus" + out());
  EXPECT_EQ(flag.exit_code(), 2);
  EXPECT_EQ(flag.err.rfind("error: --policy: unknown placement policy 'bogus'", 0), 0u) << flag.err;
}

// Used to take 3.4 GB and 41 s to report a one-line error.
TEST_F(HostileInput, HugeFileIsRefusedBeforeReading) {
  const fs::path f = dir_ / "big.yaml";
  {
    std::ofstream big(f);
    const std::string line(1023, '#');
    for (int i = 0; i < 17 * 1024; ++i) big << line << '\n';  // 17 MiB of comments
  }
  const Outcome o = run("simulate " + f.string() + out());
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_EQ(o.err, "error: " + f.string() +
                       ": the file is 17825792 bytes; input files are at "
                       "most 16Mi (16777216 bytes)\n");
}

// Used to say "bad file".
TEST_F(HostileInput, DeepNestingIsNamedWithItsLine) {
  const fs::path f = dir_ / "deep.yaml";
  std::ofstream(f) << "apiVersion: gantry.dev/v1\nkind: Scenario\nx: " << std::string(600, '[')
                   << std::string(600, ']') << "\n";
  const Outcome o = run("simulate " + f.string() + out());
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_NE(o.err.find(f.string() + ":3:103: YAML nesting too deep: more than 100 levels"),
            std::string::npos)
      << o.err;
}

// A 1,000-year window of a 5-minute cron used to grow to 1.5 GB with no progress shown.
TEST_F(HostileInput, PipelineWindowPastTheLimitIsRefused) {
  const fs::path f = dir_ / "p.yaml";
  std::ofstream(f) << "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: five}\n"
                      "spec:\n  schedule: {cron: \"*/5 * * * *\", start: 2026-01-01T00:00:00Z}\n"
                      "  tasks: [{name: a}]\n";
  const Outcome o = run("pipeline run " + f.string() +
                        " --from 2026-01-01T00:00:00Z --until 3026-01-01T00:00:00Z --db " +
                        (dir_ / "runs.db").string());
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_NE(o.err.find("--until: the window 2026-01-01T00:00:00Z .. 3026-01-01T00:00:00Z would "
                       "create more than 1000000 runs (pipeline 'five'"),
            std::string::npos)
      << o.err;
}

// --max-runs moves the guard (issue #26: a replay meant to be large is allowed, a typo is
// still caught). Hourly from 00:00 to 23:00 is 24 ticks: refused under --max-runs 23, run under
// --max-runs 24, and --format summary counts them in the database: 24 runs of one task.
TEST_F(HostileInput, MaxRunsMovesTheWindowLimit) {
  const fs::path f = dir_ / "p.yaml";
  std::ofstream(f) << "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: hourly}\n"
                      "spec:\n  schedule: {cron: \"0 * * * *\", start: 2026-01-01T00:00:00Z, "
                      "end: 2026-01-01T23:00:00Z}\n"
                      "  tasks: [{name: a, simulate: {duration: 1m}}]\n";
  const std::string window = " --from 2026-01-02T00:00:00Z --until 2026-01-03T00:00:00Z --db " +
                             (dir_ / "runs.db").string();
  const Outcome refused = run("pipeline run " + f.string() + window + " --max-runs 23");
  EXPECT_EQ(refused.exit_code(), 2) << refused.err;
  EXPECT_NE(refused.err.find("would create more than 23 runs (pipeline 'hourly'"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("raise the limit with --max-runs"), std::string::npos) << refused.err;
  const Outcome ran =
      run("pipeline run " + f.string() + window + " --max-runs 24 --format summary --replace");
  ASSERT_EQ(ran.exit_code(), 0) << ran.err;
  EXPECT_NE(ran.out.find("hourly             24          24           0"), std::string::npos)
      << ran.out;
  EXPECT_NE(ran.out.find("24 runs, 24 task instances, 24 attempts in "), std::string::npos)
      << ran.out;
  for (const std::string bad : {"0", "-1", "many"}) {
    const Outcome o = run("pipeline run " + f.string() + window + " --max-runs " + bad);
    EXPECT_EQ(o.exit_code(), 2) << bad;
    EXPECT_NE(o.err.find("--max-runs"), std::string::npos) << o.err;
  }
}

// A task asking for A100s of a cluster without any used to show "running" forever.
TEST_F(HostileInput, PipelineTaskThatCanNeverBePlacedIsRefused) {
  const fs::path f = dir_ / "p.yaml";
  std::ofstream(f) << "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: big}\n"
                      "spec:\n  tasks:\n"
                      "  - name: train\n"
                      "    template: pytorchjob\n"
                      "    replicas: {master: 1, worker: 3}\n"
                      "    resources: {cpu: \"8\", memory: 64Gi, gpu: \"8\", gpuType: H100-80G}\n";
  const Outcome o = run("pipeline run " + f.string() +
                        " --from 2026-01-05T08:00:00Z --until 2026-01-05T09:00:00Z --cluster " +
                        std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml --db " +
                        (dir_ / "runs.db").string());
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_EQ(o.err, "error: " + f.string() +
                       ":6:5: spec.tasks[0]: task train of pipeline big can "
                       "never be placed on the --cluster scenario's cluster: it asks for GPU type "
                       "H100-80G, which no node of the cluster has\n"
                       "see: " GANTRY_SOURCE_DIR "/workflow/README.md#the-pipeline-file\n");
}

// Offsets past +23:59 and empty time zones are errors naming the field.
TEST_F(HostileInput, PipelineTimesAndZonesAreChecked) {
  const fs::path f = dir_ / "p.yaml";
  std::ofstream(f) << "apiVersion: gantry.dev/v1\nkind: Pipeline\nmetadata: {name: tz}\n"
                      "spec:\n  schedule: {cron: \"0 * * * *\", timezone: \"\", "
                      "start: 2026-01-01T00:00:00+99:00}\n  tasks: [{name: a}]\n";
  const Outcome o = run("pipeline validate " + f.string());
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_NE(o.err.find("spec.schedule.timezone: expected an IANA time zone name"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("spec.schedule.start: expected an RFC 3339 time such as "
                       "2026-01-01T00:00:00Z, got '2026-01-01T00:00:00+99:00' (offset +99:00 is "
                       "out of range: hours 00-23, minutes 00-59)"),
            std::string::npos)
      << o.err;
}

}  // namespace
