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

// Scale to zero live needs an activator's series: without --serving-metrics a KPA at
// minReplicas 0 is kept at one replica, and a note says so; with it, or for an HPA (whose
// minimum is at least 1 already) or a KPA at 2, nothing changes.
TEST(KubeServeWorld, ScaleToZeroNeedsAnActivatorsMetrics) {
  ServiceSpec zero;
  zero.name = "chat";
  zero.autoscaler.kind = AutoscalerKind::kKpa;
  zero.autoscaler.min_replicas = 0;
  zero.autoscaler.max_replicas = 40;
  ServiceSpec two = zero;
  two.name = "embed";
  two.autoscaler.min_replicas = 2;
  ServiceSpec hpa = zero;
  hpa.name = "rank";
  hpa.autoscaler.kind = AutoscalerKind::kHpa;
  hpa.autoscaler.min_replicas = 1;

  std::vector<std::string> notes;
  const std::vector<ServiceSpec> pods_only = live_services({zero, two, hpa}, false, notes);
  ASSERT_EQ(pods_only.size(), 3u);
  EXPECT_EQ(pods_only[0].autoscaler.min_replicas, 1);
  EXPECT_EQ(pods_only[1].autoscaler.min_replicas, 2);
  EXPECT_EQ(pods_only[2].autoscaler.min_replicas, 1);
  EXPECT_EQ(notes, (std::vector<std::string>{
                       "chat: minReplicas 0 kept at 1 (scaling up from zero needs an activator's "
                       "metrics: --serving-metrics)"}));

  notes.clear();
  const std::vector<ServiceSpec> shared = live_services({zero, two, hpa}, true, notes);
  EXPECT_EQ(shared[0].autoscaler.min_replicas, 0);
  EXPECT_TRUE(notes.empty());
}

}  // namespace
}  // namespace gantry::web
