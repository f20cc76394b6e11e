// The live cluster model: Kubernetes nodes and foreign pods kept as the shared Cluster.
// Topology: a model of two DGX-like nodes in rack "r1" (r1-n000, r1-n001: 8 A100-80G on one
// NVSwitch island, 128 cores, 1 TiB), as a scenario would give; expected ids and classes by
// hand.

#include "adapters/kube/world/live_cluster.hpp"

#include <gtest/gtest.h>

namespace gantry::kube {
namespace live_cluster_test {

constexpr int64_t kGi = int64_t{1} << 30;
const Resources kDgx{128'000, 1024 * kGi, 8, 0};

Topology model() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  NodeClass dgx{"dgx-a100", kDgx, t.gpus.find("A100-80G"), 8};
  t.classes.push_back(dgx);
  t.racks = {"r1"};
  t.nodes = {NodeInfo{"r1-n000", 0, 0}, NodeInfo{"r1-n001", 0, 0}};
  return t;
}

KubeNode node(const std::string& name, Resources allocatable, std::string product,
              std::string rack = "r1") {
  KubeNode n;
  n.name = name;
  n.allocatable = allocatable;
  n.gpu_product = std::move(product);
  n.rack = std::move(rack);
  n.island_size = allocatable.gpus;
  n.ready = true;
  return n;
}

TEST(LiveCluster, ModelNodesWaitForTheirNodeObject) {
  LiveCluster live(model());
  Cluster& c = live.cluster();
  EXPECT_FALSE(c.schedulable(0)) << "absent until its Node appears";
  EXPECT_FALSE(live.present(1));
  const Result<NodeId> n1 = live.upsert_node(node("r1-n001", kDgx, "NVIDIA-A100-SXM4-80GB"));
  ASSERT_TRUE(n1) << n1.error();
  EXPECT_EQ(n1.value(), 1) << "the model's id: the same placements as in the simulator";
  EXPECT_TRUE(c.schedulable(1));
  EXPECT_FALSE(c.schedulable(0));
  EXPECT_EQ(c.node_count(), 2) << "nothing appended";

  // The device plugin restarts: 0 GPUs for a while, then 8 again.
  KubeNode restarting = node("r1-n001", Resources{128'000, 1024 * kGi, 0, 0}, "");
  ASSERT_TRUE(live.upsert_node(restarting));
  EXPECT_FALSE(c.schedulable(1)) << "allocatable differs from the class: no new pods";
  ASSERT_TRUE(live.upsert_node(node("r1-n001", kDgx, "NVIDIA-A100-SXM4-80GB")));
  EXPECT_TRUE(c.schedulable(1));

  KubeNode cordoned = node("r1-n001", kDgx, "NVIDIA-A100-SXM4-80GB");
  cordoned.unschedulable = true;
  cordoned.labels = {{"pool", "prod"}};
  cordoned.taints = {Taint{"maintenance", "", TaintEffect::kNoSchedule}};
  ASSERT_TRUE(live.upsert_node(cordoned));
  EXPECT_TRUE(c.cordoned(1));
  EXPECT_FALSE(c.schedulable(1));
  EXPECT_EQ(c.node_info(1).labels.at("pool"), "prod");
  EXPECT_EQ(c.node_info(1).taints.size(), 1u);

  live.delete_node("r1-n001");
  EXPECT_FALSE(live.present(1));
  EXPECT_FALSE(c.ready(1));
  EXPECT_TRUE(c.check_invariants()) << c.check_invariants().message();
}

TEST(LiveCluster, OtherNodesAreAppendedWithClassesRacksAndModels) {
  LiveCluster live(model());
  Cluster& c = live.cluster();
  // Same shape as the model's class, another rack: the class is reused, the rack added.
  const Result<NodeId> a = live.upsert_node(node("extra-0", kDgx, "NVIDIA-A100-SXM4-80GB", "r7"));
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a.value(), 2);
  EXPECT_EQ(c.node_info(2).node_class, 0);
  EXPECT_EQ(c.topology().racks[static_cast<size_t>(c.rack_of(2))], "r7");
  // Four H100s on two NVLink boards of 2: a new class, NVLink islands.
  KubeNode h = node("h-0", Resources{64'000, 512 * kGi, 4, 0}, "NVIDIA-H100-80GB-HBM3", "");
  h.island_size = 2;
  const Result<NodeId> b = live.upsert_node(h);
  ASSERT_TRUE(b) << b.error();
  const NodeClass& hc = c.node_class(b.value());
  EXPECT_EQ(hc.name, "H100-80Gx4-64000m-524288Mi");
  EXPECT_EQ(hc.island_size, 2);
  EXPECT_EQ(hc.island_link, IslandLink::kNVLink);
  EXPECT_EQ(c.gpu_type_of(b.value()), c.topology().gpus.find("H100-80G"));
  EXPECT_EQ(c.topology().racks[static_cast<size_t>(c.rack_of(b.value()))], "unracked");
  // A product the catalog does not know becomes a model of its own, counted apart.
  const Result<NodeId> d =
      live.upsert_node(node("b-0", Resources{96'000, 2048 * kGi, 8, 0}, "NVIDIA-B200"));
  ASSERT_TRUE(d) << d.error();
  const GpuTypeId b200 = c.gpu_type_of(d.value());
  EXPECT_EQ(c.topology().gpus.at(b200).name, "NVIDIA-B200");
  EXPECT_EQ(c.total_gpus(b200), 8);
  // A CPU-only node.
  const Result<NodeId> e = live.upsert_node(node("cpu-0", Resources{32'000, 64 * kGi, 0, 0}, ""));
  ASSERT_TRUE(e) << e.error();
  EXPECT_EQ(c.gpu_type_of(e.value()), -1);
  EXPECT_EQ(c.node_count(), 6);
  EXPECT_TRUE(c.check_invariants()) << c.check_invariants().message();
}

TEST(LiveCluster, ForeignPodsTakeTheirShare) {
  LiveCluster live(model());
  Cluster& c = live.cluster();
  ASSERT_TRUE(live.upsert_node(node("r1-n000", kDgx, "NVIDIA-A100-SXM4-80GB")));
  KubePod p;
  p.namespace_name = "kube-system";
  p.name = "dcgm-exporter";
  p.node_name = "r1-n000";
  p.request = Resources{500, kGi, 2, 0};
  p.gpu_index = {5, 6};
  ASSERT_TRUE(live.occupy(p));
  ASSERT_TRUE(live.occupy(p)) << "idempotent";
  EXPECT_EQ(live.foreign_pods(), 1u);
  EXPECT_EQ(c.free_gpu_mask(0), 0b1001'1111u) << "GPUs 5 and 6 taken, as annotated";
  KubePod q = p;
  q.name = "other";
  q.gpu_index.clear();
  q.request = Resources{500, kGi, 3, 0};
  ASSERT_TRUE(live.occupy(q));
  EXPECT_EQ(c.free_gpu_mask(0), 0b1001'1000u) << "the lowest free GPUs 0..2";
  KubePod too_big = q;
  too_big.name = "huge";
  too_big.request.gpus = 4;
  EXPECT_FALSE(live.occupy(too_big)) << "3 GPUs left";
  KubePod lost = q;
  lost.name = "lost";
  lost.node_name = "nowhere";
  EXPECT_FALSE(live.occupy(lost));
  live.vacate(p.key());
  live.vacate("never/seen");
  EXPECT_EQ(c.free_gpu_mask(0), 0b1111'1000u);
  EXPECT_EQ(live.foreign_pods(), 1u);
  EXPECT_TRUE(c.check_invariants()) << c.check_invariants().message();
}

}  // namespace live_cluster_test
}  // namespace gantry::kube
