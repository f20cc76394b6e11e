// End-to-end tests of `gantry simulate`: the real program, run as a child process, with its
// exit code, standard output, standard error and results database checked.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/tools/cli_harness.hpp"

namespace {

namespace fs = std::filesystem;

using gantry::testing::CliTest;
using gantry::testing::Outcome;
using gantry::testing::slurp;

class SimulateCommand : public CliTest {
 protected:
  std::string write_file(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  static std::string quickstart() { return std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml"; }
};

TEST_F(SimulateCommand, JsonReportHasTheDocumentedShape) {
  const Outcome o = run("simulate " + quickstart() + " --format json --out " + (dir_ / "r").string());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["scenario"], "quickstart");
  EXPECT_EQ(j["seed"], 42);
  EXPECT_EQ(j["jobs"]["total"], 600);
  EXPECT_EQ(j["jobs"]["finished"], 600);
  EXPECT_EQ(j["cluster"]["gpus"], 256);
  for (const char* key : {"mean", "p50", "p95", "p99", "max"}) {
    EXPECT_TRUE(j["wait_s"].contains(key)) << key;
    EXPECT_TRUE(j["jct_s"].contains(key)) << key;
  }
  EXPECT_TRUE(fs::exists(dir_ / "r" / "results.db"));
  EXPECT_EQ(o.out.find('\r'), std::string::npos) << "no progress bar when not on a terminal";
  EXPECT_EQ(o.err, "") << "nothing on stderr when piped";
}

TEST_F(SimulateCommand, SameSeedGivesByteIdenticalResults) {
  const Outcome a = run("simulate " + quickstart() + " --format json --out " + (dir_ / "a").string());
  const Outcome b = run("simulate " + quickstart() + " --format json --out " + (dir_ / "b").string());
  ASSERT_EQ(a.exit_code(), 0) << a.err;
  ASSERT_EQ(b.exit_code(), 0) << b.err;
  const std::string db_a = slurp(dir_ / "a" / "results.db");
  EXPECT_GT(db_a.size(), 10'000u);
  EXPECT_TRUE(db_a == slurp(dir_ / "b" / "results.db")) << "results databases differ";
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  ja.erase("results");
  jb.erase("results");
  EXPECT_EQ(ja.dump(), jb.dump());
}

TEST_F(SimulateCommand, SeedFlagChangesTheRun) {
  const Outcome a = run("simulate " + quickstart() + " --format json --out " + (dir_ / "a").string());
  const Outcome b = run("simulate " + quickstart() + " --seed 43 --format json --out " + (dir_ / "b").string());
  ASSERT_EQ(b.exit_code(), 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(b.out)["seed"], 43);
  EXPECT_NE(nlohmann::json::parse(a.out)["fingerprint"], nlohmann::json::parse(b.out)["fingerprint"]);
}

TEST_F(SimulateCommand, PolicyFlagOverridesPlacement) {
  const Outcome o = run("simulate " + quickstart() + " --policy spread --format json --out " + (dir_ / "r").string());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  EXPECT_EQ(nlohmann::json::parse(o.out)["policy"]["placement"], "spread");
}

TEST_F(SimulateCommand, UnknownPolicyIsABadInputError) {
  const Outcome o = run("simulate " + quickstart() + " --policy tetris --out " + (dir_ / "r").string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("unknown placement policy 'tetris'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("binpack"), std::string::npos) << "lists the known policies: " << o.err;
}

TEST_F(SimulateCommand, BadScenarioNamesFileLineAndField) {
  const std::string file = write_file("bad.yaml",
                                      "apiVersion: gantry.dev/v1\n"
                                      "kind: Scenario\n"
                                      "metadata: {name: bad}\n"
                                      "spec:\n"
                                      "  seed: lots\n");
  const Outcome o = run("simulate " + file + " --out " + (dir_ / "r").string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find(file + ":5:9"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("spec.seed"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "r")) << "no results for a scenario that did not load";
}

TEST_F(SimulateCommand, MissingFileIsReported) {
  const Outcome o = run("simulate " + (dir_ / "nope.yaml").string());
  EXPECT_NE(o.exit_code(), 0);
  EXPECT_NE(o.err.find("nope.yaml"), std::string::npos) << o.err;
}

TEST_F(SimulateCommand, TextReportShowsTheHeadlineFigures) {
  const Outcome o = run("simulate " + quickstart() + " --out " + (dir_ / "r").string());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  for (const char* needle : {"Scenario   quickstart (seed 42)", "256 × A100-80G", "finished",
                             "p99", "GPU allocated", "results.db"})
    EXPECT_NE(o.out.find(needle), std::string::npos) << needle << "\n" << o.out;
}

// --policy and --seed narrow a fragmentation experiment to one policy and one seed; the JSON
// has the documented shape and the plot, curves and database are written.
TEST_F(SimulateCommand, ExperimentJsonForOnePolicyAndSeed) {
  const std::string scenario = std::string(GANTRY_SOURCE_DIR) + "/scenarios/openb-fragmentation.yaml";
  const Outcome o = run("simulate " + scenario + " --policy fgd --seed 3 --format json --out " +
                        (dir_ / "r").string());
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["policies"].size(), 1u);
  const auto& fgd = j["policies"][0];
  EXPECT_EQ(fgd["name"], "FGD");
  EXPECT_EQ(fgd["seeds"], 1);
  ASSERT_EQ(fgd["arrival_pct"].size(), 131u);
  EXPECT_EQ(fgd["arrival_pct"][0], 0);
  EXPECT_EQ(fgd["arrival_pct"][130], 130);
  for (const char* key : {"unallocated_gpu_pct_mean", "unallocated_gpu_pct_sd", "fragmentation_pct_mean"})
    EXPECT_EQ(fgd[key].size(), 131u) << key;
  // Level 0 averages the pods that arrive below 0.5 % of capacity, all of which fit.
  EXPECT_GT(fgd["unallocated_gpu_pct_mean"][0].get<double>(), 99.5);
  EXPECT_LT(fgd["unallocated_gpu_pct_mean"][0].get<double>(), 100.0);
  EXPECT_EQ(fgd["unallocated_gpu_pct_sd"][100], 0.0) << "one seed";
  const std::string svg = slurp(dir_ / "r" / "unallocated.svg");
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find(">FGD<"), std::string::npos);
  const std::string csv = slurp(dir_ / "r" / "curves.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 132) << "header + 131 levels";
  EXPECT_TRUE(fs::exists(dir_ / "r" / "results.db"));
}

TEST_F(SimulateCommand, ExperimentRejectsAnUnknownPolicy) {
  const std::string scenario = std::string(GANTRY_SOURCE_DIR) + "/scenarios/openb-fragmentation.yaml";
  const Outcome o = run("simulate " + scenario + " --policy tetris --out " + (dir_ / "r").string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("unknown policy 'tetris'"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("FGD"), std::string::npos) << o.err;
}

TEST_F(SimulateCommand, CompareTwoExperimentPolicies) {
  const std::string scenario = std::string(GANTRY_SOURCE_DIR) + "/scenarios/openb-fragmentation.yaml";
  ASSERT_EQ(run("simulate " + scenario + " --policy FGD --seed 2 --out " + (dir_ / "a").string()).exit_code(), 0);
  ASSERT_EQ(run("simulate " + scenario + " --policy Random --seed 2 --out " + (dir_ / "b").string()).exit_code(), 0);
  const Outcome o = run("compare " + (dir_ / "a").string() + ":FGD " + (dir_ / "b").string() + ":Random --format json");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["rows"].size(), 131u);
  const auto& at130 = j["rows"][130];
  EXPECT_EQ(at130["arrival_pct"], 130);
  EXPECT_LT(at130["a_unallocated_gpu_pct"].get<double>(), at130["b_unallocated_gpu_pct"].get<double>())
      << "FGD leaves less unallocated than Random";
  const Outcome missing = run("compare " + (dir_ / "a").string() + ":BestFit " + (dir_ / "b").string() + ":Random");
  EXPECT_EQ(missing.exit_code(), 2);
  EXPECT_NE(missing.err.find("no curves for policy 'BestFit'"), std::string::npos) << missing.err;
}

TEST_F(SimulateCommand, CompareTwoTrainingRuns) {
  ASSERT_EQ(run("simulate " + quickstart() + " --out " + (dir_ / "a").string()).exit_code(), 0);
  ASSERT_EQ(run("simulate " + quickstart() + " --policy spread --out " + (dir_ / "b").string()).exit_code(), 0);
  const Outcome o = run("compare " + (dir_ / "a").string() + " " + (dir_ / "b").string() + " --format json");
  ASSERT_EQ(o.exit_code(), 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["metrics"]["jobs_total"]["a"], 600);
  EXPECT_EQ(j["metrics"]["jobs_total"]["b"], 600);
  EXPECT_TRUE(j["metrics"].contains("jct_s_mean"));
  const Outcome text = run("compare " + (dir_ / "a").string() + " " + (dir_ / "b").string());
  EXPECT_NE(text.out.find("placement binpack"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("placement spread"), std::string::npos) << text.out;
}

}  // namespace

namespace gantry {
namespace {

// --actions: the quickstart's 600 jobs are each bound, confirmed, running and finished (nothing
// fails or is evicted there): 4 lines per job, the first a bind. A second run replaces its own
// log; a file that is not an action log is refused (exit 2) and left as it was.
TEST_F(SimulateCommand, ActionsFileHasEveryActionAndObservation) {
  const fs::path log = dir_ / "actions.jsonl";
  const std::string args = "simulate " + quickstart() + " --no-progress --out " + (dir_ / "r").string() +
                           " --actions " + log.string();
  ASSERT_EQ(run(args).exit_code(), 0);
  const std::string text = slurp(log);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2400);
  const auto first = nlohmann::json::parse(text.substr(0, text.find('\n')));
  EXPECT_EQ(first["kind"], "bind");
  EXPECT_EQ(first["workload"], 0);
  EXPECT_TRUE(first["pods"][0].contains("node"));
  size_t counts[4] = {0, 0, 0, 0};
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::string kind = nlohmann::json::parse(line)["kind"];
    counts[0] += kind == "bind";
    counts[1] += kind == "bound";
    counts[2] += kind == "running";
    counts[3] += kind == "finished";
  }
  for (size_t c : counts) EXPECT_EQ(c, 600u);
  ASSERT_EQ(run(args).exit_code(), 0) << "a log replaces a log";
  EXPECT_EQ(slurp(log), text) << "same scenario, same log";

  const fs::path foreign = dir_ / "notes.txt";
  { std::ofstream(foreign) << "my notes\n"; }
  const Outcome o = run("simulate " + quickstart() + " --no-progress --out " + (dir_ / "r").string() +
                        " --actions " + foreign.string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find("--actions"), std::string::npos) << o.err;
  EXPECT_EQ(slurp(foreign), "my notes\n");
}

}  // namespace
}  // namespace gantry
