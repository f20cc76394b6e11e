// `gantry sweep` as a user runs it (the real program): a point's figures against `gantry
// simulate` of the same variant, a sweep killed with kill -9 and resumed without running a
// finished run twice, bad input with exit code 2 and nothing written, and the files it writes.

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/store/database.hpp"
#include "tests/tools/cli_harness.hpp"

namespace gantry {
namespace sweep_command_test {

using testing::CliTest;
using testing::kGantryFaulty;
using testing::Outcome;

const std::string kQuickstart = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml";

class SweepCommand : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    std::ifstream in(kQuickstart);
    std::stringstream text;
    text << in.rdbuf();
    quickstart_ = text.str();
    write("quickstart.yaml", quickstart_);
  }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  // Placement × rack size on the quickstart cluster, `seeds` seeds: 2 × 2 points.
  std::string sweep_file(int seeds) {
    return write("sweep.yaml", R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: s}
spec:
  base: quickstart.yaml
  seeds: )" + std::to_string(seeds) +
                                   R"(
  axes:
  - {name: placement, path: spec.policy.placement, values: [binpack, spread]}
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [6, 8]}
  metrics: [wait.p95, jct.mean, gpu.allocated, jobs.finished]
)");
  }
  std::string out(const std::string& name) const { return (dir_ / name).string(); }
  int64_t query(const std::string& path, const std::string& sql) {
    Database d = Database::open(path, OpenOptions{.create = false});
    Statement s = d.prepare(sql);
    return s.step() ? s.column_int64(0) : -1;
  }
  std::string quickstart_;
};

// seeds: 1 reproduces `gantry simulate` of the variant: the point (spread, 6 nodes per rack)
// against the quickstart file edited by hand, through both programs' JSON.
TEST_F(SweepCommand, APointEqualsGantrySimulateOfTheVariant) {
  const Outcome sweep =
      run("sweep " + sweep_file(1) + " --format json --no-progress --out " + out("sw"));
  ASSERT_EQ(sweep.exit_code(), 0) << sweep.err;
  std::string edited = quickstart_;
  edited.replace(edited.find("placement: binpack"), 18, "placement: spread");
  for (int r = 1; r <= 4; ++r) {
    const std::string rack = "{name: r" + std::to_string(r) + ", class: dgx-a100, nodes: 8}";
    edited.replace(edited.find(rack), rack.size(),
                   "{name: r" + std::to_string(r) + ", class: dgx-a100, nodes: 6}");
  }
  const Outcome sim =
      run("simulate " + write("variant.yaml", edited) + " --format json --out " + out("sim"));
  ASSERT_EQ(sim.exit_code(), 0) << sim.err;
  const auto s = nlohmann::json::parse(sweep.out);
  const auto v = nlohmann::json::parse(sim.out);
  const auto& point = s["points"][2];  // (spread, 6): third of binpack/spread × 6/8
  ASSERT_EQ(point["values"]["placement"], "spread");
  ASSERT_EQ(point["values"]["nodes"], "6");
  EXPECT_EQ(point["metrics"]["wait.p95"]["mean"], v["wait_s"]["p95"]);
  EXPECT_EQ(point["metrics"]["jct.mean"]["mean"], v["jct_s"]["mean"]);
  EXPECT_EQ(point["metrics"]["gpu.allocated"]["mean"], v["gpu"]["allocation_ratio"]);
  EXPECT_EQ(point["metrics"]["jobs.finished"]["mean"], v["jobs"]["finished"]);
  EXPECT_EQ(point["metrics"]["wait.p95"]["n"], 1);
  EXPECT_TRUE(point["metrics"]["wait.p95"]["ci95"].is_null()) << "one seed has no interval";
  EXPECT_EQ(s["runs"]["done"], 4);
  for (const char* chart : {"wait.p95.svg", "jct.mean.svg", "gpu.allocated.svg"})
    EXPECT_TRUE(std::filesystem::exists(dir_ / "sw" / chart)) << chart;
  EXPECT_EQ(query(out("sw/results.db"), "SELECT count(*) FROM runs"), 4);
  EXPECT_EQ(query(out("sw/results.db"),
                  "SELECT count(*) FROM runs WHERE placement = 'spread' AND nodes = '6'"),
            1);
}

// Killed (SIGKILL) right after its 5th stored run of 12, the sweep keeps those 5; --resume runs
// the other 7 only (a run stored twice would break the table's primary key and fail), and its
// report is byte for byte the report of a sweep never interrupted.
TEST_F(SweepCommand, ResumesAfterKillNineWithoutRunningAFinishedRunTwice) {
  const std::string sweep = sweep_file(3);
  const Outcome killed =
      run("sweep " + sweep + " --format json --parallel 2 --no-progress --out " + out("k"),
          "GANTRY_CRASH_AFTER_COMMITS=5", kGantryFaulty);
  ASSERT_TRUE(WIFSIGNALED(killed.status)) << killed.err;
  EXPECT_EQ(WTERMSIG(killed.status), SIGKILL);
  EXPECT_EQ(query(out("k/results.db"), "SELECT count(*) FROM runs"), 5);

  const Outcome resumed = run(
      "sweep " + sweep + " --format json --parallel 2 --no-progress --resume --out " + out("k"));
  ASSERT_EQ(resumed.exit_code(), 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming: 5 of 12 runs are done; running the other 7"),
            std::string::npos)
      << resumed.err;
  EXPECT_EQ(query(out("k/results.db"), "SELECT count(*) FROM runs"), 12);

  const Outcome whole =
      run("sweep " + sweep + " --format json --parallel 1 --no-progress --out " + out("w"));
  ASSERT_EQ(whole.exit_code(), 0) << whole.err;
  auto a = nlohmann::json::parse(resumed.out), b = nlohmann::json::parse(whole.out);
  a.erase("results");
  a.erase("charts");
  b.erase("results");
  b.erase("charts");
  EXPECT_EQ(a, b);
  // Resuming a finished sweep runs nothing.
  const Outcome again = run("sweep " + sweep + " --resume --no-progress --out " + out("k"));
  ASSERT_EQ(again.exit_code(), 0) << again.err;
  EXPECT_NE(again.err.find("resuming: 12 of 12 runs are done; running the other 0"),
            std::string::npos)
      << again.err;
}

TEST_F(SweepCommand, ResumingAnotherSweepsResultsIsRefused) {
  ASSERT_EQ(run("sweep " + sweep_file(1) + " --no-progress --out " + out("r")).exit_code(), 0);
  const Outcome o = run("sweep " + sweep_file(2) + " --resume --no-progress --out " + out("r"));
  EXPECT_EQ(o.exit_code(), 2) << o.err;
  EXPECT_NE(o.err.find("holds runs of another version of"), std::string::npos) << o.err;
  EXPECT_EQ(query(out("r/results.db"), "SELECT count(*) FROM runs"), 4) << "left as it was";
}

// Bad input: exit 2, the sweep file's line and the base's field, nothing run or written.
TEST_F(SweepCommand, ABadValueIsReportedBeforeAnythingRuns) {
  const std::string sweep = write("bad.yaml", R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: bad}
spec:
  base: quickstart.yaml
  axes:
  - {name: load, path: "spec.workload.generators[0].meanInterarrival", values: [90s, soon]}
)");
  const Outcome o = run("sweep " + sweep + " --out " + out("b"));
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find(sweep + ":7:86: spec.axes[0].values[1]: 'soon' at "
                               "spec.workload.generators[0].meanInterarrival of quickstart.yaml:"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "b")) << "nothing written for a bad sweep";
}

TEST_F(SweepCommand, ParallelIsCheckedAsForSimulate) {
  const Outcome o = run("sweep " + sweep_file(1) + " --parallel 0");
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("expected a number of runs at once from 1 to 256, got '0'"),
            std::string::npos)
      << o.err;
}

}  // namespace sweep_command_test
}  // namespace gantry
