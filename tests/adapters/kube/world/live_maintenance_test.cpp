// LiveMaintenance (live_maintenance.hpp): a scenario's spec.failures.maintenance played against
// the live world (the fake API server, kubelet-sim, KubeWorld with drains: live_stack.hpp) on
// virtual time. The instants are MaintenanceSpec's, worked by hand in each test.

#include "adapters/kube/world/live_maintenance.hpp"

#include <gtest/gtest.h>

#include "sim/scenario_loader.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"

namespace gantry::kube {
namespace live_maintenance_test {

const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z
const char* kPods = "/api/v1/namespaces/ml/pods";

// Two DGX A100 nodes, r1-n000 and r1-n001, and what `failures` says (spliced under spec).
ScenarioSpec scenario(const std::string& failures) {
  return load_scenario_text(
      "apiVersion: gantry.dev/v1\n"
      "kind: Scenario\n"
      "metadata: {name: live-maintenance}\n"
      "spec:\n"
      "  seed: 7\n"
      "  start: 2026-01-01T00:00:00Z\n"
      "  cluster:\n"
      "    fabric: {kind: InfiniBand}\n"
      "    storage: {bandwidth: 10GB/s}\n"
      "    nodeClasses:\n"
      "    - {name: dgx-a100, cpu: 128, memory: 1Ti, gpu: {type: A100-80G, count: 8}, "
      "nic: 400Gbps}\n"
      "    racks:\n"
      "    - {name: r1, class: dgx-a100, nodes: 2}\n"
      "  failures:\n" +
          failures +
          "  workload:\n"
          "    jobs:\n"
          "    - name: j\n"
          "      submit: 0s\n"
          "      framework: PyTorch\n"
          "      roles:\n"
          "      - {kind: Worker, replicas: 1, resources: {cpu: 8, memory: 64Gi, gpu: 8}}\n"
          "      work: {steps: 10, stepCompute: 1s, gradientSize: 1GB}\n",
      "live-maintenance.yaml");
}

nlohmann::json pod(const std::string& name, const std::string& duration) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "ml"},
            {"annotations", {{"gantry.dev/simulate-duration", duration}}}}},
          {"spec",
           {{"schedulerName", "gantry"},
            {"containers",
             {{{"name", "main"},
               {"image", "busybox"},
               {"resources",
                {{"requests", {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "4"}}},
                 {"limits", {{"nvidia.com/gpu", "4"}}}}}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

// The drains' writes, in the order the fake server saw them: "cordon <node>",
// "uncordon <node>", "eviction <pod>".
std::vector<std::string> drain_writes(const testing::FakeApiServer& fake) {
  std::vector<std::string> out;
  for (const auto& r : fake.requests()) {
    if (r.method == "POST" && r.path.ends_with("/eviction")) {
      const size_t from = r.path.rfind("/pods/") + 6;
      out.push_back("eviction " + r.path.substr(from, r.path.size() - from - 9));
    } else if (r.method == "PATCH" && r.path.starts_with("/api/v1/nodes/")) {
      const nlohmann::json body = nlohmann::json::parse(r.body);
      // kubelet-sim's patches of the nodes' taints are not the drains'.
      if (!body.contains("spec") || !body["spec"].contains("unschedulable")) continue;
      out.push_back(
          std::string(body["spec"]["unschedulable"].get<bool>() ? "cordon " : "uncordon ") +
          r.path.substr(14));
    }
  }
  return out;
}

// Once, r1-n000, start 10m, deadline 5m, duration 30m; and a node failure process, which the
// live world does not play. a-0 (4 GPUs, 10 h) is bound to r1-n000 at t0 (binpack). By hand:
// cordoned at t0 + 10 min; a-0 still runs at the deadline t0 + 15 min and is evicted (the node
// empty then); maintenance until t0 + 45 min, then uncordoned. Nothing else, ever.
TEST(LiveMaintenance, AScenariosMaintenanceDrainsTheNodeAtItsInstant) {
  const ScenarioSpec s = scenario(
      "    processes:\n"
      "    - {component: node, mtbf: 1h, repair: 10m}\n"
      "    maintenance:\n"
      "    - {nodes: [r1-n000], start: 10m, deadline: 5m, duration: 30m}\n");
  testing::LiveStack live(kT0, s.topology, s.policy, seconds(5), "gantry-0", {}, true);
  live.fake.create_namespace("ml");
  LiveMaintenance maintenance(live.world, *live.loop, s.failures, s.topology, kT0, s.seed);
  maintenance.start();
  live.fake.apply(kPods, pod("a-0", "10h"));
  live.harness.run_until(kT0 + minutes(9) + seconds(59));
  EXPECT_TRUE(drain_writes(live.fake).empty());
  live.harness.run_until(kT0 + minutes(10));
  EXPECT_EQ(drain_writes(live.fake), std::vector<std::string>{"cordon r1-n000"});
  live.harness.run_until(kT0 + minutes(14) + seconds(59));
  EXPECT_EQ(live.fake.get(kPods, "a-0").value()["status"]["phase"], "Running");
  live.harness.run_until(kT0 + minutes(15));
  EXPECT_FALSE(live.fake.get(kPods, "a-0")) << "evicted at the deadline";
  live.harness.run_until(kT0 + minutes(44) + seconds(59));
  EXPECT_TRUE(live.world.cluster().cluster().cordoned(0));
  live.harness.run_until(kT0 + hours(6));
  EXPECT_FALSE(live.world.cluster().cluster().cordoned(0));
  EXPECT_EQ(drain_writes(live.fake),
            (std::vector<std::string>{"cordon r1-n000", "eviction a-0", "uncordon r1-n000"}));
  EXPECT_EQ(maintenance.drains_started(), 1u);
  EXPECT_EQ(maintenance.drains_skipped(), 0u);
  for (NodeId n = 0; n < 2; ++n)
    EXPECT_TRUE(live.world.cluster().cluster().ready(n)) << "no failure was played";
  maintenance.stop();
}

// A recurring schedule drawn a window at a time: r1-n001 every 1 h from 30 min, 10 min out of
// service, drawn in 45-minute windows: drains at t0 + 30 min, 1 h 30 min, 2 h 30 min. The
// scheduler is not the leader from t0 + 1 h to t0 + 2 h: the drain of 1 h 30 min is skipped.
TEST(LiveMaintenance, ARecurringScheduleIsPlayedByTheLeaderOnly) {
  const ScenarioSpec s = scenario(
      "    maintenance:\n"
      "    - {nodes: [r1-n001], start: 30m, every: 1h, duration: 10m}\n");
  testing::LiveStack live(kT0, s.topology, s.policy, seconds(5), "gantry-0", {}, true);
  live.fake.create_namespace("ml");
  LiveMaintenance maintenance(live.world, *live.loop, s.failures, s.topology, kT0, s.seed,
                              minutes(45));
  maintenance.start();
  live.harness.run_until(kT0 + hours(1));
  live.world.scheduler().set_active(false);
  live.harness.run_until(kT0 + hours(2));
  live.world.scheduler().set_active(true);
  live.harness.run_until(kT0 + hours(2) + minutes(50));
  EXPECT_EQ(drain_writes(live.fake),
            (std::vector<std::string>{"cordon r1-n001", "uncordon r1-n001", "cordon r1-n001",
                                      "uncordon r1-n001"}));
  EXPECT_EQ(maintenance.drains_started(), 2u);
  EXPECT_EQ(maintenance.drains_skipped(), 1u);
  maintenance.stop();
}

}  // namespace live_maintenance_test
}  // namespace gantry::kube
