// Why a gang does not fit (issue #23): the nodes it may not use, counted by cause, then what is
// free on the others. Hand-built nodes; every count and sum below worked out by hand.

#include "adapters/kube/world/unplaced_reason.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace gantry::kube {
namespace unplaced_reason_test {

constexpr int64_t kGi = int64_t{1} << 30;
const Resources kDgx{128'000, 1024 * kGi, 8, 0};
constexpr const char* kA100 = "NVIDIA-A100-SXM4-80GB";

// A model with one node, r1-n000 (an 8-GPU A100 box), that never registers.
Topology model() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  t.classes.push_back(NodeClass{"dgx-a100", kDgx, t.gpus.find("A100-80G"), 8});
  t.racks = {"r1"};
  t.nodes = {NodeInfo{"r1-n000", 0, 0}};
  return t;
}

Topology empty_model() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  return t;
}

// A ready node labelled as the gang's nodeSelector wants (gpu=a100, pool=train).
KubeNode node(const std::string& name, Resources allocatable = kDgx, std::string product = kA100) {
  KubeNode n;
  n.name = name;
  n.allocatable = allocatable;
  n.gpu_product = std::move(product);
  n.rack = "r1";
  n.island_size = allocatable.gpus;
  n.ready = true;
  n.labels = {{"gpu", "a100"}, {"pool", "train"}};
  return n;
}

KubeNode tainted(KubeNode n, Taint t) {
  n.taints.push_back(std::move(t));
  return n;
}

// 4 pods of 8 GPUs and 8 cores each.
JobSpec gang() {
  JobSpec spec;
  spec.name = "ml/train";
  spec.roles = {RoleSpec{RoleKind::kWorker, 4, Resources{8'000, 64 * kGi, 8, 0}}};
  return spec;
}

void add(LiveCluster& live, const KubeNode& n) { ASSERT_TRUE(live.upsert_node(n)) << n.name; }

// One node per cause, and each node counted once, under its first cause.
TEST(UnplacedReason, CountsTheNodesItExcludesByCauseThenWhatIsFreeOnTheRest) {
  LiveCluster live(model());  // r1-n000: no Node object
  add(live, node("gone-0"));
  live.delete_node("gone-0");  // deleted: no Node object either
  KubeNode down =
      tainted(node("down-0"), {"node.kubernetes.io/not-ready", "", TaintEffect::kNoExecute});
  down.ready = false;  // not ready (its taint comes after)
  add(live, down);
  add(live, node("plug-0"));
  add(live, node("plug-0", Resources{128'000, 1024 * kGi, 0, 0}, ""));  // device plugin restarting
  KubeNode cord = node("cord-0");
  cord.unschedulable = true;
  add(live, cord);
  cord.name = "cord-1";
  add(live, tainted(cord, {"gpu", "broken", TaintEffect::kNoExecute}));  // cordoned first
  const Taint not_ready{"node.kubernetes.io/not-ready", "", TaintEffect::kNoSchedule};
  add(live, tainted(node("t-0"), not_ready));
  add(live, tainted(node("t-1"), not_ready));
  add(live, tainted(node("t-2"), {"gpu", "broken", TaintEffect::kNoExecute}));
  // Tolerated (dedicated=infra, any effect) and a preference only: both eligible.
  add(live, tainted(node("t-3"), {"dedicated", "infra", TaintEffect::kNoSchedule}));
  add(live, tainted(node("p-0"), {"spot", "", TaintEffect::kPreferNoSchedule}));
  KubeNode web = node("web-0");
  web.labels["pool"] = "web";  // misses pool=train
  add(live, web);
  KubeNode bare = node("bare-0");
  bare.labels.clear();  // misses gpu=a100 first (key order)
  add(live, bare);
  KubeNode sick = node("sick-0", Resources{32'000, 256 * kGi, 0, 0});
  sick.unhealthy_gpus = 0b11;  // both its GPUs out of service: allocatable 0
  sick.island_size = 2;
  add(live, sick);
  KubeNode ok = node("ok-0", Resources{128'000, 1024 * kGi, 7, 0});
  ok.unhealthy_gpus = 1u << 5;  // GPU 5 out of service
  ok.island_size = 8;
  add(live, ok);
  KubePod other;
  other.namespace_name = "kube-system";
  other.name = "other";
  other.node_name = "ok-0";
  other.request = Resources{8'000, 16 * kGi, 3, 0};
  ASSERT_TRUE(live.occupy(other));

  JobSpec spec = gang();
  spec.node_selector = {{"gpu", "a100"}, {"pool", "train"}};
  spec.tolerations = {Toleration{"dedicated", Toleration::Operator::kEqual, "infra"}};
  // 15 nodes: r1-n000 and 14 appended. Excluded, 12: no Node object 2 (r1-n000, gone-0), not
  // ready 1 (down-0), allocatable unlike 1 (plug-0), cordoned 2, tainted not-ready 2 (t-0, t-1)
  // and gpu=broken 1 (t-2; most nodes first), nodeSelector gpu=a100 1 (bare-0) and pool=train 1
  // (web-0; then by text), every GPU out of service 1 (sick-0): 2+1+1+2+2+1+1+1+1 = 12. Eligible,
  // 3: t-3 and p-0 with 8 GPUs and 128 cores free each, ok-0 with 8 - 1 (out of service) - 3
  // (other) = 4 GPUs and 128 - 8 = 120 cores: 20 GPUs, at most 8 on one node, 1 more out of
  // service, 376 cores. Room for the gang's 8-GPU pods (8 cores each): 1 + 1 on t-3 and p-0,
  // none on ok-0 (4 GPUs).
  EXPECT_EQ(unplaced_reason(live, spec),
            "needs 4 pods of 8 GPUs: room for 2; 3 of 15 nodes eligible (2 without a Node object, "
            "1 not ready, 1 with allocatable "
            "unlike their class, 2 cordoned, 2 tainted node.kubernetes.io/not-ready:NoSchedule, "
            "1 tainted gpu=broken:NoExecute, 1 not matching nodeSelector gpu=a100, 1 not "
            "matching nodeSelector pool=train, 1 with every GPU out of service); 20 GPUs free on 3 "
            "eligible nodes, at most 8 on one node, 1 more out of service, 376 cores free");

  // Without GPUs the gang does not care for GPUs out of service: sick-0 is eligible, with its
  // 32 cores; 0 GPUs of its own (both held), so still 20 GPUs, and now 3 out of service.
  JobSpec cpu_only = spec;
  cpu_only.roles = {RoleSpec{RoleKind::kWorker, 1, Resources{500'000, kGi, 0, 0}}};
  EXPECT_EQ(unplaced_reason(live, cpu_only),
            "4 of 15 nodes eligible (2 without a Node object, 1 not ready, 1 with allocatable "
            "unlike their class, 2 cordoned, 2 tainted node.kubernetes.io/not-ready:NoSchedule, "
            "1 tainted gpu=broken:NoExecute, 1 not matching nodeSelector gpu=a100, 1 not "
            "matching nodeSelector pool=train); 20 GPUs free on 4 eligible nodes, at most 8 on one "
            "node, 3 more out of service, 408 cores free");
}

// The case of issue #23: a real API server taints every new node not-ready:NoSchedule. Nothing is
// eligible, and no capacity is quoted; a gang tolerating the taint sees all 8 nodes.
TEST(UnplacedReason, NothingEligibleSaysSoAndQuotesNoCapacity) {
  LiveCluster live(empty_model());
  for (int i = 0; i < 8; ++i)
    add(live, tainted(node("n" + std::to_string(i)),
                      {"node.kubernetes.io/not-ready", "", TaintEffect::kNoSchedule}));
  JobSpec spec = gang();
  spec.roles[0].replicas = 9;  // 72 GPUs
  EXPECT_EQ(unplaced_reason(live, spec),
            "none of the 8 nodes is eligible (8 tainted node.kubernetes.io/not-ready:NoSchedule)");
  spec.tolerations = {
      Toleration{"node.kubernetes.io/not-ready", Toleration::Operator::kExists, ""}};
  // 8 x 8 = 64 GPUs, 8 x 128 = 1024 cores; room for one 8-GPU pod per node: 8 of the 9.
  EXPECT_EQ(unplaced_reason(live, spec),
            "needs 9 pods of 8 GPUs: room for 8; 64 GPUs free on 8 eligible nodes, at most 8 on "
            "one node, 1024 cores free");
  // A toleration of another effect does not match.
  spec.tolerations[0].any_effect = false;
  spec.tolerations[0].effect = TaintEffect::kNoExecute;
  EXPECT_EQ(unplaced_reason(live, spec),
            "none of the 8 nodes is eligible (8 tainted node.kubernetes.io/not-ready:NoSchedule)");
}

TEST(UnplacedReason, GpuModelsTheGangDoesNotTakeAreExcludedAndSeveralModelsAreCountedApart) {
  LiveCluster live(empty_model());
  add(live, node("a-0"));
  add(live, node("h-0", Resources{64'000, 512 * kGi, 8, 0}, "NVIDIA-H100-80GB-HBM3"));
  add(live, node("cpu-0", Resources{32'000, 64 * kGi, 0, 0}, ""));
  JobSpec spec = gang();
  spec.gpu_type = "H100-80G";
  // a-0 excluded; h-0 (8 GPUs, 64 cores) and cpu-0 (32 cores) eligible: 96 cores; room for one
  // 8-GPU pod (on h-0).
  EXPECT_EQ(unplaced_reason(live, spec),
            "needs 4 pods of 8 GPUs (H100-80G): room for 1; 2 of 3 nodes eligible (1 with another "
            "GPU model (the gang takes H100-80G)); 8 GPUs "
            "free on 2 eligible nodes, at most 8 on one node, 96 cores free");
  // Any model: 16 GPUs, which a gang does not mix, so by model; 128 + 64 + 32 = 224 cores; room
  // for one pod on either model, and the gang takes one model: 1.
  spec.gpu_type.clear();
  EXPECT_EQ(unplaced_reason(live, spec),
            "needs 4 pods of 8 GPUs: room for 1; 16 GPUs free (8 A100-80G, 8 H100-80G) on 3 "
            "eligible nodes, at most 8 on one node, "
            "224 cores free");
}

// Nodes each tainted their own way: four taints named (most nodes first, then by text), the rest
// counted together, so the note stays short enough for an Event (1024 characters).
TEST(UnplacedReason, NamesAtMostFourTaints) {
  LiveCluster live(empty_model());
  // t0 on 3 nodes, t1..t6 on one each: 9 nodes, 7 taints.
  for (int i = 0; i < 9; ++i) {
    const int t = std::max(0, i - 2);
    add(live, tainted(node("n" + std::to_string(i)),
                      {"t" + std::to_string(t), "", TaintEffect::kNoSchedule}));
  }
  // Named: t0 (3), t1, t2, t3 (1 each); t4, t5, t6: 3 nodes, 3 taints.
  EXPECT_EQ(unplaced_reason(live, gang()),
            "none of the 9 nodes is eligible (3 tainted t0:NoSchedule, 1 tainted t1:NoSchedule, 1 "
            "tainted t2:NoSchedule, 1 tainted t3:NoSchedule, 3 tainted otherwise (3 more taints))");
}

TEST(UnplacedReason, AClusterOfNoneOrOneNode) {
  LiveCluster none(empty_model());
  EXPECT_EQ(unplaced_reason(none, gang()), "the cluster has no nodes");
  LiveCluster one(empty_model());
  KubeNode cord = node("n0");
  cord.unschedulable = true;
  add(one, cord);
  EXPECT_EQ(unplaced_reason(one, gang()), "its one node is not eligible (1 cordoned)");
  add(one, node("n0"));  // uncordoned: 8 GPUs, 128 cores
  EXPECT_EQ(unplaced_reason(one, gang()),
            "needs 4 pods of 8 GPUs: room for 1; 8 GPUs free on 1 eligible node, 128 cores free");
}

}  // namespace unplaced_reason_test
}  // namespace gantry::kube
