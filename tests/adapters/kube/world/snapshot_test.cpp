// `gantry snapshot`: a live cluster as a Scenario. The written text must load as a scenario
// (sim/scenario_loader.hpp) and describe the usable nodes and running pods; expected shapes by
// hand from the objects below.

#include "adapters/kube/world/snapshot.hpp"

#include <gtest/gtest.h>

#include <map>

#include "engine/core/errors.hpp"
#include "sim/scenario_loader.hpp"

namespace gantry::kube {
namespace snapshot_test {

constexpr int64_t kGi = int64_t{1} << 30;
const Time kT0 = Time::from_micros(1'767'225'600'000'000);  // 2026-01-01T00:00:00Z

KubeNode node(const std::string& name, const std::string& rack, int gpus, std::string product) {
  KubeNode n;
  n.name = name;
  n.rack = rack;
  n.allocatable = Resources{128'000, 1024 * kGi, gpus, 0};
  n.gpu_product = std::move(product);
  n.island_size = gpus;
  n.ready = true;
  n.labels = {{"kubernetes.io/hostname", name}, {"pool", "train"}};
  if (!n.gpu_product.empty()) n.labels["nvidia.com/gpu.product"] = n.gpu_product;
  return n;
}

KubePod running(const std::string& name, const std::string& gang, const std::string& on,
                Resources request) {
  KubePod p;
  p.namespace_name = "ml";
  p.name = name;
  p.gang = gang;
  p.gang_size = 2;
  p.node_name = on;
  p.phase = "Running";
  p.request = request;
  return p;
}

TEST(Snapshot, WritesAScenarioThatLoads) {
  SnapshotInput in;
  in.now = kT0;
  in.source = "https://10.0.0.1:6443";
  in.nodes = {node("dgx-b", "r1", 8, "NVIDIA-A100-SXM4-80GB"),
              node("dgx-a", "r1", 8, "NVIDIA-A100-SXM4-80GB"),
              node("dgx-c", "r2", 8, "NVIDIA-A100-SXM4-80GB"), node("cpu-0", "r2", 0, ""),
              node("x-0", "r2", 4, "NVIDIA-B200")};
  KubeNode down = node("dgx-d", "r2", 8, "NVIDIA-A100-SXM4-80GB");
  down.ready = false;
  in.nodes.push_back(down);
  KubePod a = running("llm-0", "llm", "dgx-a", Resources{8000, 64 * kGi, 8, 0});
  a.simulate_duration = hours(2);
  KubePod b = running("llm-1", "llm", "dgx-b", Resources{8000, 64 * kGi, 8, 0});
  KubePod pending = running("later", "", "", Resources{1000, kGi, 1, 0});
  pending.phase = "Pending";
  in.pods = {a, b, pending};

  const std::string yaml = snapshot_scenario(in);
  SCOPED_TRACE(yaml);
  const ScenarioSpec s = load_scenario_text(yaml, "snapshot.yaml", {});
  // Usable nodes: dgx-a, dgx-b (r1), cpu-0, dgx-c, x-0 (r2); dgx-d is not ready.
  EXPECT_EQ(s.topology.nodes.size(), 5u);
  // Classes: the A100 box, the CPU box, the B200 box (a model of its own).
  EXPECT_EQ(s.topology.classes.size(), 3u);
  EXPECT_GE(s.topology.gpus.find("NVIDIA-B200"), 0);
  // r1 has one class (named r1); r2 has three (r2-<class> each).
  EXPECT_EQ(s.topology.racks.size(), 4u);
  // Racks and classes come in the order the nodes' names first meet them: cpu-0 makes r2 and
  // the CPU class first, dgx-a r1 and the A100 class, x-0 the B200 class.
  EXPECT_EQ(
      s.topology.racks,
      (std::vector<std::string>{"r2-cpu-only-128000m-1048576Mi", "r2-A100-80Gx8-128000m-1048576Mi",
                                "r2-NVIDIA-B200x4-128000m-1048576Mi", "r1"}));
  EXPECT_EQ(s.topology.classes[1].capacity.gpus, 8);
  EXPECT_EQ(s.topology.classes[1].island_link, IslandLink::kNVSwitch);
  // Labels every node of a class shares, without the host name.
  EXPECT_EQ(s.topology.nodes[1].labels.at("pool"), "train");
  EXPECT_EQ(s.topology.nodes[1].labels.count("kubernetes.io/hostname"), 0u);
  // One job: the gang llm, two 8-GPU workers of A100, 2 h = 7200 one-second steps.
  ASSERT_EQ(s.workload.jobs.size(), 1u);
  const JobSpec& j = s.workload.jobs[0];
  EXPECT_EQ(j.name, "ml-llm");
  EXPECT_EQ(j.gpu_type, "A100-80G");
  ASSERT_EQ(j.roles.size(), 1u);
  EXPECT_EQ(j.roles[0].replicas, 2);
  EXPECT_EQ(j.roles[0].per_replica.gpus, 8);
  EXPECT_EQ(j.work.steps, 7200);
  EXPECT_NE(yaml.find("r1-n000 = dgx-a, r1-n001 = dgx-b"), std::string::npos)
      << "node names are kept in a comment";
}

// Issue #23: against a real API server, pods being deleted (metadata.deletionTimestamp set, still
// Running until their containers stop) were written as running jobs. They are leaving: left out,
// and the header says how many.
TEST(Snapshot, LeavesOutTerminatingPods) {
  SnapshotInput in;
  in.now = kT0;
  in.nodes = {node("dgx-a", "r1", 8, "NVIDIA-A100-SXM4-80GB")};
  KubePod stays = running("stay-0", "stay", "dgx-a", Resources{8000, 64 * kGi, 4, 0});
  stays.gang_size = 1;
  KubePod leaves = running("old-0", "old", "dgx-a", Resources{8000, 64 * kGi, 4, 0});
  leaves.gang_size = 1;
  leaves.deleting = true;
  in.pods = {stays, leaves};
  const std::string yaml = snapshot_scenario(in);
  SCOPED_TRACE(yaml);
  const ScenarioSpec s = load_scenario_text(yaml, "snapshot.yaml", {});
  ASSERT_EQ(s.workload.jobs.size(), 1u);
  EXPECT_EQ(s.workload.jobs[0].name, "ml-stay");
  EXPECT_NE(yaml.find("# 1 terminating pod left out (metadata.deletionTimestamp set: leaving)"),
            std::string::npos);
}

// A pod without resource requests (BestEffort: a serving pod written without them, say) asks
// a scheduler for nothing; it was written as cpu 1m and memory 1 byte, requests nobody made. It
// is written as what it asks, 0, which a scenario accepts.
TEST(Snapshot, APodWithoutRequestsIsWrittenAsAskingForNothing) {
  SnapshotInput in;
  in.now = kT0;
  in.nodes = {node("dgx-a", "r1", 8, "NVIDIA-A100-SXM4-80GB")};
  KubePod bare = running("web-0", "web", "dgx-a", Resources{});
  bare.gang_size = 1;
  in.pods = {bare};
  const std::string yaml = snapshot_scenario(in);
  SCOPED_TRACE(yaml);
  const ScenarioSpec s = load_scenario_text(yaml, "snapshot.yaml", {});
  ASSERT_EQ(s.workload.jobs.size(), 1u);
  ASSERT_EQ(s.workload.jobs[0].roles.size(), 1u);
  EXPECT_EQ(s.workload.jobs[0].roles[0].per_replica, (Resources{0, 0, 0, 0}));
}

// The NIC figure comes from the label gantry.dev/nic (a bandwidth spelled as a label value may
// be: "400Gbps", "50GBps"), when every node of a class has the same readable value; otherwise
// 100Gbps is assumed and the comment says why. A class whose nodes all had a label that is not a
// bandwidth was written with it, and the scenario did not load.
TEST(Snapshot, TheNicLabelIsReadWhereItIsABandwidthAndAssumedOtherwise) {
  SnapshotInput in;
  in.now = kT0;
  // A100 x8: both 50GBps (bytes). B200 x4: both "fast". H100 x8: 200Gbps and 400Gbps. A100 x4: one
  // 400Gbps, one unlabelled.
  std::vector<KubeNode> nodes = {node("dgx-a", "r1", 8, "NVIDIA-A100-SXM4-80GB"),
                                 node("dgx-b", "r1", 8, "NVIDIA-A100-SXM4-80GB"),
                                 node("x-0", "r2", 4, "NVIDIA-B200"),
                                 node("x-1", "r2", 4, "NVIDIA-B200"),
                                 node("h-0", "r3", 8, "NVIDIA-H100-80GB-HBM3"),
                                 node("h-1", "r3", 8, "NVIDIA-H100-80GB-HBM3"),
                                 node("q-0", "r4", 4, "NVIDIA-A100-SXM4-80GB"),
                                 node("q-1", "r4", 4, "NVIDIA-A100-SXM4-80GB")};
  const std::vector<std::string> labels = {"50GBps",  "50GBps",  "fast",    "fast",
                                           "200Gbps", "400Gbps", "400Gbps", ""};
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!labels[i].empty()) nodes[i].labels["gantry.dev/nic"] = labels[i];
  in.nodes = nodes;
  KubePod job = running("llm-0", "llm", "dgx-a", Resources{8000, 64 * kGi, 8, 0});
  job.gang_size = 1;
  in.pods = {job};  // a scenario needs a workload
  const std::string yaml = snapshot_scenario(in);
  SCOPED_TRACE(yaml);
  const ScenarioSpec s = load_scenario_text(yaml, "snapshot.yaml", {});
  std::map<std::pair<std::string, int>, double> nic;  // by GPU model and count
  for (const NodeClass& c : s.topology.classes)
    nic[{s.topology.gpus.at(c.gpu_type).name, c.capacity.gpus}] = c.nic_bytes_per_s;
  EXPECT_EQ(nic.at({"A100-80G", 8}), 50e9) << "50 GB/s";
  EXPECT_EQ(nic.at({"NVIDIA-B200", 4}), 12.5e9) << "100 Gbit/s assumed";
  EXPECT_EQ(nic.at({"H100-80G", 8}), 12.5e9) << "100 Gbit/s assumed";
  EXPECT_EQ(nic.at({"A100-80G", 4}), 12.5e9) << "100 Gbit/s assumed";
  EXPECT_NE(yaml.find("# assumed: label gantry.dev/nic 'fast' on x-0 is not a bandwidth such as "
                      "400Gbps"),
            std::string::npos);
  EXPECT_NE(yaml.find("# assumed: the nodes' labels gantry.dev/nic differ (200Gbps, 400Gbps)"),
            std::string::npos);
  EXPECT_NE(yaml.find("# assumed: label gantry.dev/nic missing on 1 of 2 nodes"),
            std::string::npos);
}

// An idle cluster (no pod runs, or every one is leaving) has no workload to write, and a scenario
// without one does not load: the snapshot says so where the jobs would be.
TEST(Snapshot, AnIdleClusterSaysTheWorkloadIsLeftToAdd) {
  SnapshotInput in;
  in.now = kT0;
  in.nodes = {node("dgx-a", "r1", 8, "NVIDIA-A100-SXM4-80GB")};
  const std::string yaml = snapshot_scenario(in);
  EXPECT_NE(yaml.find("[]  # no pods run now: add jobs, generators or services to simulate"),
            std::string::npos)
      << yaml;
  EXPECT_THROW(load_scenario_text(yaml, "snapshot.yaml", {}), InputError)
      << "the loader's own message names spec.workload";
}

// A list of 200,000 nodes gave a scenario no Gantry would load (spec.cluster holds at most
// 100,000 nodes, engine/config/limits.hpp). 100,000 usable nodes and one more that is not ready
// pass the check; one more usable node is refused, naming the count, the limit and the source.
TEST(Snapshot, RefusesMoreUsableNodesThanAScenarioHolds) {
  EXPECT_NO_THROW(check_snapshot_nodes(100'000, "https://10.0.0.1:6443"));
  try {
    check_snapshot_nodes(100'001, "https://10.0.0.1:6443");
    ADD_FAILURE() << "no error";
  } catch (const GantryError& e) {
    EXPECT_STREQ(e.what(),
                 "https://10.0.0.1:6443: at least 100001 usable nodes (ready and schedulable); a "
                 "scenario holds at most 100000 nodes (spec.cluster), so this cluster cannot be "
                 "written as one");
  }
  SnapshotInput in;
  in.now = kT0;
  in.source = "https://10.0.0.1:6443";
  in.nodes.resize(100'001);
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    in.nodes[i].name = "n" + std::to_string(i);
    in.nodes[i].ready = true;
  }
  EXPECT_THROW(snapshot_scenario(in), GantryError);
}

}  // namespace snapshot_test
}  // namespace gantry::kube
