// Elastic jobs, restart policies, checkpoint costs and the restart delay in scenario files:
// values are read, and each mistake is reported at its line and field.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/scenario_loader.hpp"
#include "tests/sim/scenario_text.hpp"

namespace gantry {
namespace {

using ::testing::HasSubstr;

// The line numbers on the right are part of the test: the formatter leaves them alone.
// clang-format off
const std::string kScenario =
    "apiVersion: gantry.dev/v1\n"                                                          // 1
    "kind: Scenario\n"                                                                     // 2
    "metadata: {name: e}\n"                                                                // 3
    "spec:\n"                                                                              // 4
    "  cluster:\n"                                                                         // 5
    "    fabric: {kind: InfiniBand}\n"                                                     // 6
    "    storage: {bandwidth: 10GB/s}\n"                                                   // 7
    "    nodeClasses:\n"                                                                   // 8
    "    - {name: a, cpu: 64, memory: 512Gi, gpu: {type: A100-80G, count: 8}, nic: 400Gbps}\n"  // 9
    "    racks:\n"                                                                         // 10
    "    - {name: r, class: a, nodes: 4}\n"                                                // 11
    "  sim: {restartDelay: 10m}\n"                                                         // 12
    "  workload:\n"                                                                        // 13
    "    jobs:\n"                                                                          // 14
    "    - name: llm-ft\n"                                                                 // 15
    "      submit: 0s\n"                                                                   // 16
    "      framework: PyTorch\n"                                                           // 17
    "      elastic: {minReplicas: 2, maxReplicas: 8, scaleStep: 1, resizeCost: 90s}\n"      // 18
    "      restartPolicy: ExitCode\n"                                                      // 19
    "      roles: [{kind: Worker, replicas: 4, resources: {cpu: 8, memory: 64Gi, gpu: 8}}]\n"  // 20
    "      work: {steps: 10, stepCompute: 1s, gradientSize: 1GB, checkpointEvery: 30m, checkpointCost: 2m}\n"  // 21
    "    generators:\n"                                                                    // 22
    "    - kind: Poisson\n"                                                                // 23
    "      name: g\n"                                                                      // 24
    "      count: 3\n"                                                                     // 25
    "      meanInterarrival: 1m\n"                                                         // 26
    "      mix:\n"                                                                         // 27
    "      - {weight: 1, gpus: 32, gpusPerPod: 8, steps: 10, stepCompute: 1s, gradientSize: 1GB,\n"  // 28
    "         elastic: {minReplicas: 1, maxReplicas: 6}, restartPolicy: Never, checkpointCost: 30s}\n";  // 29
// clang-format on

std::string error_of(const std::string& text) { return testing::load_error(text, "e.yaml"); }

TEST(ElasticJobsLoader, ElasticRestartAndCheckpointFieldsAreRead) {
  const ScenarioSpec s = load_scenario_text(kScenario, "e.yaml");
  EXPECT_EQ(s.sim.restart_delay, minutes(10));
  const JobSpec& j = s.workload.jobs.at(0);
  EXPECT_EQ(j.elastic.min_replicas, 2);
  EXPECT_EQ(j.elastic.max_replicas, 8);
  EXPECT_EQ(j.elastic.scale_step, 1);
  EXPECT_EQ(j.elastic.resize_cost, seconds(90));
  EXPECT_EQ(j.restart_policy, RestartPolicy::kExitCode);
  EXPECT_EQ(j.work.checkpoint_cost, minutes(2));
  const JobClass& c = s.workload.generators.at(0).mix.at(0);
  // 32 GPUs in 8-GPU pods, PyTorch: a Master and 3 Workers, within 1..6.
  EXPECT_EQ(c.elastic.min_replicas, 1);
  EXPECT_EQ(c.elastic.max_replicas, 6);
  EXPECT_EQ(c.elastic.scale_step, 1) << "default";
  EXPECT_EQ(c.restart_policy, RestartPolicy::kNever);
  EXPECT_EQ(c.checkpoint_cost, seconds(30));
}

TEST(ElasticJobsLoader, MinAboveMaxIsNamed) {
  const std::string e = error_of(testing::replace_first(kScenario, "minReplicas: 2, maxReplicas: 8",
                                                        "minReplicas: 9, maxReplicas: 8"));
  EXPECT_THAT(e, HasSubstr("e.yaml:18:"));
  EXPECT_THAT(e, HasSubstr("spec.workload.jobs[0].elastic.minReplicas"));
  EXPECT_THAT(e, HasSubstr("minReplicas (9) is more than maxReplicas (8)"));
}

TEST(ElasticJobsLoader, ReplicasOutsideTheRangeAreRefused) {
  const std::string e =
      error_of(testing::replace_first(kScenario, "maxReplicas: 8", "maxReplicas: 3"));
  EXPECT_THAT(e, HasSubstr("e.yaml:18:"));
  EXPECT_THAT(e, HasSubstr("4 replicas are outside minReplicas..maxReplicas (2..3)"));
}

TEST(ElasticJobsLoader, TheLastRoleMustBeAWorkerRole) {
  const std::string e = error_of(testing::replace_first(
      kScenario, "roles: [{kind: Worker, replicas: 4,", "roles: [{kind: Master, replicas: 1,"));
  EXPECT_THAT(e, HasSubstr("elastic applies to the job's last role, which must be a Worker role"));
}

TEST(ElasticJobsLoader, UnknownKeysAndPoliciesAreNamed) {
  EXPECT_THAT(error_of(testing::replace_first(kScenario, "scaleStep: 1", "scaleStepz: 1")),
              HasSubstr("scaleStepz"));
  const std::string e = error_of(
      testing::replace_first(kScenario, "restartPolicy: ExitCode", "restartPolicy: Always"));
  EXPECT_THAT(e, HasSubstr("e.yaml:19:"));
  EXPECT_THAT(e, HasSubstr("Never"));
  EXPECT_THAT(
      error_of(testing::replace_first(kScenario, "checkpointCost: 2m", "checkpointCost: 2d")),
      HasSubstr("e.yaml:21:"));
  EXPECT_THAT(error_of(testing::replace_first(kScenario, "restartDelay: 10m", "restartDelay: -1m")),
              HasSubstr("spec.sim.restartDelay"));
}

TEST(ElasticJobsLoader, AClassWhoseOnlyPodIsAMasterCannotBeElastic) {
  const std::string e = error_of(
      testing::replace_first(kScenario, "gpus: 32, gpusPerPod: 8", "gpus: 8, gpusPerPod: 8"));
  EXPECT_THAT(e, HasSubstr("e.yaml:29:"));
  EXPECT_THAT(e, HasSubstr("only a Master"));
}

// A pool whose class or rack the loader could not resolve (the cluster has an error) adds no
// capacity to the workload's checks: the error is reported, nothing reads past the classes
// (scenario_fuzz found a heap overflow there).
TEST(ElasticJobsLoader, APoolOnABrokenClusterIsAnErrorNotACrash) {
  const std::string text =
      testing::replace_first(testing::replace_first(kScenario, "    racks:\n", "    rackz:\n"),
                             "  sim: {restartDelay: 10m}\n",
                             "  sim: {restartDelay: 10m}\n  autoscaling:\n    pools:\n"
                             "    - {name: od, nodeClass: a, rack: r, max: 4, provisioning: 3m}\n");
  const std::string e = error_of(text);
  EXPECT_THAT(e, HasSubstr("rackz"));
}

}  // namespace
}  // namespace gantry
