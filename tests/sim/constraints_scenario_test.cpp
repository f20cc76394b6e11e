// Placement constraints in scenario files: node classes with labels and taints, jobs with a
// nodeSelector and tolerations, checkpoints; placements follow them end to end.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/core/errors.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "tests/sim/scenario_text.hpp"

namespace gantry {
namespace {

using ::testing::HasSubstr;

// Two 8-GPU spot nodes (tainted) and two on-demand ones. Job "batch" may use spot capacity, job
// "serving" may not; "batch" asks for spot by nodeSelector. Line numbers matter below.
// The line numbers on the right are part of the test: the formatter leaves them alone.
// clang-format off
const std::string kScenario =
    "apiVersion: gantry.dev/v1\n"                                                          // 1
    "kind: Scenario\n"                                                                     // 2
    "metadata: {name: c}\n"                                                                // 3
    "spec:\n"                                                                              // 4
    "  cluster:\n"                                                                         // 5
    "    fabric: {kind: InfiniBand}\n"                                                     // 6
    "    storage: {bandwidth: 10GB/s}\n"                                                   // 7
    "    nodeClasses:\n"                                                                   // 8
    "    - {name: spot, cpu: 64, memory: 512Gi, gpu: {type: A100-80G, count: 8}, nic: 400Gbps,\n"  // 9
    "       labels: {pool: spot}, taints: [{key: spot, value: \"true\", effect: NoSchedule}]}\n"  // 10
    "    - {name: od, cpu: 64, memory: 512Gi, gpu: {type: A100-80G, count: 8}, nic: 400Gbps,\n"  // 11
    "       labels: {pool: on-demand}}\n"                                                 // 12
    "    racks:\n"                                                                         // 13
    "    - {name: s, class: spot, nodes: 2}\n"                                             // 14
    "    - {name: o, class: od, nodes: 2}\n"                                               // 15
    "  workload:\n"                                                                        // 16
    "    jobs:\n"                                                                          // 17
    "    - name: batch\n"                                                                  // 18
    "      submit: 0s\n"                                                                   // 19
    "      framework: PyTorch\n"                                                           // 20
    "      nodeSelector: {pool: spot}\n"                                                   // 21
    "      tolerations: [{key: spot, operator: Equal, value: \"true\", effect: NoSchedule}]\n"  // 22
    "      roles:\n"                                                                       // 23
    "      - {kind: Worker, replicas: 2, resources: {cpu: 8, memory: 64Gi, gpu: 8}}\n"     // 24
    "      work: {steps: 10, stepCompute: 1s, gradientSize: 1GB, checkpointEvery: 30m}\n"  // 25
    "    - name: serving\n"                                                                // 26
    "      submit: 0s\n"                                                                   // 27
    "      framework: PyTorch\n"                                                           // 28
    "      roles:\n"                                                                       // 29
    "      - {kind: Worker, replicas: 1, resources: {cpu: 8, memory: 64Gi, gpu: 8}}\n"     // 30
    "      work: {steps: 10, stepCompute: 1s, gradientSize: 1GB}\n";                       // 31

std::string replaced(const std::string& from, const std::string& to) {
  return testing::replace_first(kScenario, from, to);
  // clang-format on
}

std::string error_of(const std::string& text) { return testing::load_error(text, "c.yaml"); }

TEST(ConstraintsScenario, LabelsTaintsSelectorsAndTolerationsAreRead) {
  const ScenarioSpec s = load_scenario_text(kScenario, "c.yaml");
  ASSERT_EQ(s.topology.nodes.size(), 4u);
  EXPECT_EQ(s.topology.nodes[0].labels.at("pool"), "spot");
  ASSERT_EQ(s.topology.nodes[1].taints.size(), 1u);
  EXPECT_EQ(s.topology.nodes[1].taints[0], (Taint{"spot", "true", TaintEffect::kNoSchedule}));
  EXPECT_TRUE(s.topology.nodes[2].taints.empty());
  const JobSpec& batch = s.workload.jobs[0];
  EXPECT_EQ(batch.node_selector.at("pool"), "spot");
  ASSERT_EQ(batch.tolerations.size(), 1u);
  EXPECT_FALSE(batch.tolerations[0].any_effect);
  EXPECT_EQ(batch.work.checkpoint_every, minutes(30));
}

TEST(ConstraintsScenario, EachJobRunsWhereItsConstraintsAllow) {
  const SimulationRun run = run_simulation(load_scenario_text(kScenario, "c.yaml"));
  ASSERT_EQ(run.log.jobs.size(), 2u);
  for (const PodPlacement& p : run.log.jobs[0].pods) EXPECT_LT(p.node, 2) << "batch on spot";
  for (const PodPlacement& p : run.log.jobs[1].pods) EXPECT_GE(p.node, 2) << "serving off spot";
}

TEST(ConstraintsScenario, ImpossibleOrMalformedConstraintsAreErrors) {
  EXPECT_THAT(error_of(replaced("nodeSelector: {pool: spot}", "nodeSelector: {pool: gpu-x}")),
              HasSubstr("c.yaml:21:21: spec.workload.jobs[0].nodeSelector: no node of spec.cluster "
                        "matches"));
  // Without the toleration, the spot nodes it selects are all tainted.
  EXPECT_THAT(error_of(replaced("      tolerations: [{key: spot, operator: Equal, value: \"true\", "
                                "effect: NoSchedule}]\n",
                                "")),
              HasSubstr("c.yaml:21:21: spec.workload.jobs[0].nodeSelector: no node"));
  EXPECT_THAT(error_of(replaced("effect: NoSchedule}]}", "effect: Never}]}")),
              HasSubstr("c.yaml:10:74: spec.cluster.nodeClasses[0].taints[0].effect"));
  EXPECT_THAT(
      error_of(replaced("[{key: spot, operator: Equal, value: \"true\", effect: NoSchedule}]\n",
                        "[{operator: Equal, value: \"true\"}]\n")),
      HasSubstr("a toleration without a key needs operator: Exists"));
  EXPECT_THAT(
      error_of(replaced("operator: Equal, value: \"true\"", "operator: Exists, value: \"true\"")),
      HasSubstr("operator Exists takes no value"));
}

}  // namespace
}  // namespace gantry
