#include "sim/experiment_loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <variant>

#include "sim/simulation_file.hpp"

namespace gantry {
namespace experiment_loader_test {

using ::testing::HasSubstr;

// Trace files resolve against the experiment file's folder: scenarios/, where the data is.
const std::string kFile = std::string(GANTRY_SOURCE_DIR) + "/scenarios/e.yaml";

// A valid experiment; tests edit one spot of it. Line numbers matter to the tests below.
const std::string kBase =
    "apiVersion: gantry.dev/v1\n"                                                      // 1
    "kind: Experiment\n"                                                               // 2
    "metadata: {name: e}\n"                                                            // 3
    "spec:\n"                                                                          // 4
    "  type: Fragmentation\n"                                                          // 5
    "  seed: 4\n"                                                                      // 6
    "  nodes: {format: openb-nodes, file: data/openb/openb_node_list_gpu_node.csv}\n"  // 7
    "  pods: {format: openb-pods, file: data/openb/openb_pod_list_default.csv}\n";     // 8

std::string with(const std::string& from, const std::string& to) {
  std::string text = kBase;
  text.replace(text.find(from), from.size(), to);
  return text;
}

std::string error_of(const std::string& text) {
  try {
    load_experiment_text(text, kFile);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ExperimentLoader, DefaultsAreThePapersSettings) {
  const ExperimentSpec e = load_experiment_text(kBase, kFile);
  EXPECT_EQ(e.name, "e");
  EXPECT_EQ(e.file, kFile);
  EXPECT_EQ(e.seed, 4u);
  const FragmentationExperimentSpec& f = e.fragmentation;
  EXPECT_EQ(f.nodes.format, "openb-nodes");
  EXPECT_EQ(f.nodes.path,
            std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/openb/openb_node_list_gpu_node.csv");
  EXPECT_EQ(f.pods.file, "data/openb/openb_pod_list_default.csv");
  EXPECT_EQ(f.arrival_limit_pct, 130);
  EXPECT_EQ(f.seeds, 10);
  EXPECT_EQ(f.typical_coverage, 0.95);
  EXPECT_EQ(f.policies, (std::vector<std::string>{"Random", "DotProduct", "GpuClustering",
                                                  "GpuPacking", "BestFit", "FGD"}));
  EXPECT_TRUE(f.variants.empty());
}

TEST(ExperimentLoader, TheShippedSweepHasItsVariants) {
  const ExperimentSpec e =
      load_experiment_file(std::string(GANTRY_SOURCE_DIR) + "/scenarios/openb-sweep-gpushare.yaml");
  EXPECT_EQ(e.fragmentation.seeds, 3);
  ASSERT_EQ(e.fragmentation.variants.size(), 5u);
  EXPECT_EQ(e.fragmentation.variants[0].name, "gpushare20");
}

TEST(ExperimentLoader, EveryErrorIsReportedInFileOrder) {
  std::string text = with("seed: 4", "seed: -4");
  text +=
      "  seeds: 0\n"                       // 9
      "  policies: [FGD, Tetris, FGD]\n";  // 10
  EXPECT_EQ(error_of(text),
            kFile + ":6:9: spec.seed: expected an integer >= 0, got '-4'\n" + kFile +
                ":9:10: spec.seeds: expected an integer from 1 to 1000, got '0'\n" + kFile +
                ":10:19: spec.policies[1]: unknown value 'Tetris'; expected one of: " +
                "Random, DotProduct, GpuClustering, GpuPacking, BestFit, FGD\n" + kFile +
                ":10:27: spec.policies[2]: policy FGD is listed twice");
}

TEST(ExperimentLoader, TraceReferencesAreChecked) {
  EXPECT_EQ(error_of(with("openb_pod_list_default.csv", "nope.csv")),
            kFile + ":8:36: spec.pods.file: no such file: " + std::string(GANTRY_SOURCE_DIR) +
                "/scenarios/data/openb/nope.csv");
  EXPECT_EQ(error_of(with("format: openb-pods", "format: openb-nodes")),
            kFile +
                ":8:18: spec.pods.format: unknown trace format 'openb-nodes'; expected one of: "
                "openb-pods");
}

TEST(ExperimentLoader, TheTypeIsRequiredAndKnown) {
  EXPECT_EQ(error_of(with("  type: Fragmentation\n", "")),
            kFile + ":5:3: spec.type: missing required field 'type'");
  EXPECT_EQ(error_of(with("type: Fragmentation", "type: Packing")),
            kFile + ":5:9: spec.type: unknown value 'Packing'; expected one of: Fragmentation");
}

// Half-converted files of the old form (a Scenario's spec.experiment) say what to change.
TEST(ExperimentLoader, LeftoversOfTheScenarioFormAreExplained) {
  EXPECT_THAT(error_of(with("  seed: 4\n", "  seed: 4\n  kind: Fragmentation\n")),
              HasSubstr("e.yaml:7:3: spec.kind: an experiment's type is spec.type: Fragmentation"));
  EXPECT_THAT(error_of(with("  seed: 4\n", "  seed: 4\n  experiment: {}\n")),
              HasSubstr("e.yaml:7:3: spec.experiment: the experiment's fields go directly under "
                        "spec"));
}

TEST(SimulationFile, TellsScenariosAndExperimentsApart) {
  const SimulationFile experiment = load_simulation_text(kBase, kFile, {});
  ASSERT_TRUE(std::holds_alternative<ExperimentSpec>(experiment));
  EXPECT_EQ(std::get<ExperimentSpec>(experiment).seed, 4u);

  const SimulationFile scenario = load_simulation_file(
      std::string(GANTRY_SOURCE_DIR) + "/tests/data/scenarios/minimal.yaml", {});
  ASSERT_TRUE(std::holds_alternative<ScenarioSpec>(scenario));

  try {
    load_simulation_text(with("kind: Experiment", "kind: Pipeline"), kFile, {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        kFile + ":2:7: kind: unknown value 'Pipeline'; expected one of: Scenario, Experiment");
  }
}

}  // namespace experiment_loader_test
}  // namespace gantry
