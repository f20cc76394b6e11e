// What a scenario gives the live world of `gantry serve --world kube --cluster`
// (web/server/kube_serve_world.hpp): its restart delay, and for the goodput elasticity policy
// the simulator's step-time throughput model, as sim/world_builder.cpp gives the simulator.

#include "web/server/kube_serve_world.hpp"

#include <gtest/gtest.h>

#include "sim/scenario_loader.hpp"
#include "sim/step_time_throughput.hpp"

namespace gantry::web {
namespace {

// `policy` and `sim` spliced under spec.
ScenarioSpec scenario(const std::string& extra) {
  return load_scenario_text(
      "apiVersion: gantry.dev/v1\n"
      "kind: Scenario\n"
      "metadata: {name: t}\n"
      "spec:\n"
      "  cluster:\n"
      "    fabric: {kind: InfiniBand}\n"
      "    storage: {bandwidth: 10GB/s}\n"
      "    nodeClasses:\n"
      "    - {name: a, cpu: 64, memory: 512Gi, gpu: {type: A100-80G, count: 8}, nic: 400Gbps}\n"
      "    racks:\n"
      "    - {name: r1, class: a, nodes: 2}\n" +
          extra +
          "  workload:\n"
          "    jobs:\n"
          "    - name: j\n"
          "      submit: 0s\n"
          "      framework: PyTorch\n"
          "      roles:\n"
          "      - {kind: Worker, replicas: 2, resources: {cpu: 8, memory: 64Gi, gpu: 8}}\n"
          "      work: {steps: 10, stepCompute: 1s, gradientSize: 1GB}\n",
      "t.yaml");
}

TEST(KubeServeWorld, TheScenarioGivesRestartDelayAndTheGoodputModel) {
  const ScenarioSpec goodput = scenario(
      "  policy:\n"
      "    elasticity: {policy: goodput, interval: 10m, minGain: 600}\n"
      "  sim: {restartDelay: 90s}\n");
  kube::KubeWorldOptions o;
  apply_scenario(goodput, o);
  EXPECT_EQ(o.scheduler.restart_delay, seconds(90));
  EXPECT_TRUE(o.scheduler.policy.elasticity.has(ElasticPolicy::kGoodput));
  ASSERT_NE(o.scheduler.throughput, nullptr);
  EXPECT_NE(dynamic_cast<const StepTimeThroughput*>(o.scheduler.throughput), nullptr);
  EXPECT_EQ(o.model.nodes.size(), 2u);

  // Without goodput no model (the other policies do not ask), and the default delay of 0.
  kube::KubeWorldOptions plain;
  plain.scheduler.restart_delay = minutes(1);
  apply_scenario(scenario(""), plain);
  EXPECT_EQ(plain.scheduler.restart_delay, Duration(0));
  EXPECT_EQ(plain.scheduler.throughput, nullptr);
}

}  // namespace
}  // namespace gantry::web
