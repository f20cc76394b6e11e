// Allocations with owners, requests that do not fit reported as errors, and the dynamic
// cluster: nodes added, removed, cordoned, failed, relabelled and tainted at run time.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "engine/cluster/cluster.hpp"
#include "tests/engine/cluster/cluster_fixtures.hpp"

namespace gantry {
namespace {

using testing::kGi;
using testing::share;
using testing::whole;

// Node 0: 4 A100s, 32 cores; node 1: 2 A100s, 16 cores.
Cluster two_nodes() { return testing::a100_cluster(/*cpu_node=*/false); }

TEST(ClusterOwners, AllocationsAreFiledByOwnerAndReleasedByOwner) {
  Cluster c = two_nodes();
  const AllocationOwner a{7, 0}, b{7, 1}, other{8, 0};
  ASSERT_TRUE(c.allocate(0, whole(2), 0b0011, a));
  ASSERT_TRUE(c.allocate(0, share(300), 0b0100, b));
  ASSERT_TRUE(c.allocate(1, whole(1), 0b01, other));
  ASSERT_NE(c.allocation_of(b), nullptr);
  EXPECT_EQ(c.allocation_of(b)->node, 0);
  EXPECT_EQ(c.allocation_of(b)->request, share(300));
  EXPECT_EQ(c.allocation_of(b)->gpu_mask, 0b0100u);
  std::vector<AllocationOwner> on0 = c.owners_on(0);
  std::sort(on0.begin(), on0.end());
  EXPECT_EQ(on0, (std::vector<AllocationOwner>{a, b}));
  EXPECT_EQ(c.allocation_count(), 3u);

  ASSERT_TRUE(c.release(a));
  EXPECT_EQ(c.allocation_of(a), nullptr);
  EXPECT_EQ(c.free(0).gpus, 3);  // GPUs 0, 1 back and GPU 3; GPU 2 partly used
  EXPECT_EQ(c.owners_on(0), std::vector<AllocationOwner>{b});
  EXPECT_FALSE(c.release(a)) << "released twice";
  EXPECT_TRUE(c.check_invariants()) << c.check_invariants().message();
}

TEST(ClusterOwners, ARequestThatDoesNotFitIsAnErrorAndChangesNothing) {
  Cluster c = two_nodes();
  ASSERT_TRUE(c.allocate(0, whole(1, 30'000), 0b0001, AllocationOwner{1, 0}));
  const uint64_t version = c.version(0);
  const uint64_t changes = c.change_count();
  struct Case {
    NodeId node;
    Resources request;
    uint64_t mask;
    AllocationOwner owner;
    const char* says;
  };
  const Case cases[] = {
      {0, whole(1, 3'000), 0b0010, {2, 0}, "CPU 3000m does not fit on node n0 (2000m free)"},
      {0, whole(1), 0b0001, {2, 0}, "GPUs not fully free on node n0"},
      {0, whole(2), 0b0010, {2, 0}, "the GPU mask does not match the GPU count"},
      {1, whole(1), 0b0100, {2, 0}, "GPU mask names GPUs the node does not have on node n1"},
      {0, share(300), 0b0110, {2, 0}, "a share takes exactly one GPU"},
      {0, Resources{1'000, kGi, 1, 300}, 0b0010, {2, 0}, "whole GPUs and a share in one request"},
      {0, whole(1), 0b0010, {1, 0}, "workload 1 pod 0 already holds an allocation"},
      {5, whole(1), 0b0001, {2, 0}, "no node 5"},
  };
  for (const Case& k : cases) {
    const Status s = c.allocate(k.node, k.request, k.mask, k.owner);
    EXPECT_FALSE(s) << k.says;
    EXPECT_EQ(s.message(), k.says);
  }
  // A share that does not fit its GPU names the GPU and both amounts.
  ASSERT_TRUE(c.allocate(1, share(800), 0b01, AllocationOwner{3, 0}));
  EXPECT_EQ(c.allocate(1, share(300), 0b01, AllocationOwner{4, 0}).message(),
            "GPU 0 on node n1 has 200 milli free, 300 asked");
  EXPECT_EQ(c.version(0), version) << "a refused request changes nothing";
  EXPECT_EQ(c.change_count(), changes + 1) << "only the accepted share on node 1 counted";
  EXPECT_TRUE(c.check_invariants()) << c.check_invariants().message();
}

TEST(ClusterDynamic, NodesAreAddedWithFreshIdsAndCounted) {
  Cluster c = two_nodes();
  const GpuTypeId a100 = c.topology().gpus.find("A100-80G");
  const Result<NodeId> added = c.add_node(NodeInfo{"n2", 0, 0, {{"pool", "spot"}}, {}});
  ASSERT_TRUE(added) << added.error();
  EXPECT_EQ(added.value(), 2);
  EXPECT_EQ(c.node_count(), 3);
  EXPECT_EQ(c.total_gpus(a100), 10);  // 4 + 2 + 4
  EXPECT_EQ(c.free_gpu_histogram(a100)[4], 2);
  EXPECT_EQ(c.total_gpu_milli(), 10'000);
  EXPECT_EQ(c.node_info(2).labels.at("pool"), "spot");
  EXPECT_TRUE(c.schedulable(2));
  ASSERT_TRUE(c.allocate(2, whole(4), 0b1111, AllocationOwner{1, 0}));
  EXPECT_FALSE(c.add_node(NodeInfo{"bad", 9, 0}));  // no such class
  EXPECT_TRUE(c.check_invariants()) << c.check_invariants().message();
}

// A live cluster meets a GPU model, a node class and a rack it did not start with.
TEST(ClusterDynamic, NewModelsClassesAndRacksGrowTheModel) {
  Cluster c = two_nodes();
  const size_t types = c.topology().gpus.size();
  EXPECT_EQ(c.add_gpu_type(GpuType{"a100-80g"}), c.topology().gpus.find("A100-80G"))
      << "a known model is found, not added";
  const GpuTypeId b200 = c.add_gpu_type(GpuType{"B200", 192ll << 30, 2250.0 / 312.0});
  EXPECT_EQ(static_cast<size_t>(b200), types);
  NodeClass hgx{"hgx-b200", Resources{224'000, 2ll << 40, 8, 0}, b200, 8};
  const Result<int32_t> cls = c.add_node_class(hgx);
  ASSERT_TRUE(cls) << cls.error();
  const RackId rack = c.add_rack("rack-b");
  EXPECT_EQ(c.add_rack("rack-b"), rack) << "a known rack is found";
  const Result<NodeId> n = c.add_node(NodeInfo{"b200-0", cls.value(), rack});
  ASSERT_TRUE(n) << n.error();
  // The new model is counted on its own: 8 GPUs, all free, one node with 8 free.
  EXPECT_EQ(c.total_gpus(b200), 8);
  EXPECT_EQ(c.free_gpu_histogram(b200)[8], 1);
  EXPECT_EQ(c.total_gpus(), 6 + 8);  // two_nodes(): 4 + 2 A100s
  ASSERT_TRUE(c.allocate(n.value(), whole(8), 0xff, AllocationOwner{3, 0}));
  EXPECT_EQ(c.free_gpus(b200), 0);
  EXPECT_TRUE(c.check_invariants()) << c.check_invariants().message();
  // Refused: an unknown GPU type, islands that do not divide, a rack that does not exist.
  NodeClass bad = hgx;
  bad.gpu_type = 99;
  EXPECT_FALSE(c.add_node_class(bad));
  bad = hgx;
  bad.island_size = 3;
  EXPECT_FALSE(c.add_node_class(bad));
  EXPECT_FALSE(c.add_node(NodeInfo{"lost", cls.value(), 42}));
}

TEST(ClusterDynamic, ARemovedNodeIsAnEmptyTombstone) {
  Cluster c = two_nodes();
  const GpuTypeId a100 = c.topology().gpus.find("A100-80G");
  ASSERT_TRUE(c.allocate(1, share(500), 0b01, AllocationOwner{1, 0}));
  EXPECT_EQ(c.remove_node(1).message(), "node n1 still holds 1 allocation(s)");
  ASSERT_TRUE(c.release(AllocationOwner{1, 0}));
  const uint64_t version = c.version(1);
  ASSERT_TRUE(c.remove_node(1));
  EXPECT_TRUE(c.removed(1));
  EXPECT_FALSE(c.schedulable(1));
  EXPECT_GT(c.version(1), version);
  EXPECT_EQ(c.total_gpus(a100), 4);  // node 0 only
  EXPECT_EQ(c.total_gpu_milli(), 4'000);
  EXPECT_EQ(c.free(1), Resources{});  // nothing fits there any more
  EXPECT_FALSE(c.allocate(1, Resources{1, 0, 0, 0}, 0, AllocationOwner{2, 0}));
  EXPECT_EQ(c.node_count(), 2) << "ids are not reused";
  EXPECT_TRUE(c.check_invariants()) << c.check_invariants().message();
}

TEST(ClusterDynamic, CordonedAndFailedNodesAreUnschedulableButKeepTheirPods) {
  Cluster c = two_nodes();
  ASSERT_TRUE(c.allocate(0, whole(1), 0b0001, AllocationOwner{1, 0}));
  uint64_t v = c.version(0);
  c.set_cordoned(0, true);
  EXPECT_FALSE(c.schedulable(0));
  EXPECT_GT(c.version(0), v);
  EXPECT_NE(c.allocation_of(AllocationOwner{1, 0}), nullptr);
  // A world may still report a pod it observes there.
  EXPECT_TRUE(c.allocate(0, whole(1), 0b0010, AllocationOwner{2, 0}));
  c.set_cordoned(0, false);
  EXPECT_TRUE(c.schedulable(0));
  v = c.version(1);
  c.set_ready(1, false);
  EXPECT_FALSE(c.schedulable(1));
  EXPECT_GT(c.version(1), v);
  c.set_ready(1, true);
  EXPECT_TRUE(c.schedulable(1));
  EXPECT_FALSE(c.tainted(1));
  c.set_taints(1, {Taint{"gpu", "broken", TaintEffect::kNoSchedule}});
  c.set_labels(1, {{"zone", "b"}});
  EXPECT_EQ(c.node_info(1).taints.size(), 1u);
  EXPECT_TRUE(c.tainted(1)) << "the filters' fast path reads this flag, not the NodeInfo";
  EXPECT_EQ(c.node_info(1).labels.at("zone"), "b");
  c.set_taints(1, {});
  EXPECT_FALSE(c.tainted(1));
  // A node added with taints is tainted from the start.
  const Result<NodeId> added =
      c.add_node(NodeInfo{"t", 0, 0, {}, {Taint{"spot", "true", TaintEffect::kNoSchedule}}});
  ASSERT_TRUE(added);
  EXPECT_TRUE(c.tainted(added.value()));
}

TEST(NodeLabels, SelectorsAndTolerationsFollowKubernetes) {
  const Labels node{{"zone", "a"}, {"gpu", "a100"}};
  EXPECT_TRUE(selector_matches({}, node));
  EXPECT_TRUE(selector_matches({{"zone", "a"}}, node));
  EXPECT_FALSE(selector_matches({{"zone", "b"}}, node));
  EXPECT_FALSE(selector_matches({{"rack", "1"}}, node));

  const Taint spot{"spot", "true", TaintEffect::kNoSchedule};
  const Taint prefer{"busy", "", TaintEffect::kPreferNoSchedule};
  const Taint evict{"maintenance", "", TaintEffect::kNoExecute};
  const Toleration equal{"spot", Toleration::Operator::kEqual, "true"};
  const Toleration wrong_value{"spot", Toleration::Operator::kEqual, "false"};
  const Toleration exists_key{"maintenance", Toleration::Operator::kExists, ""};
  const Toleration everything{"", Toleration::Operator::kExists, ""};
  Toleration only_no_execute{"spot", Toleration::Operator::kExists, ""};
  only_no_execute.any_effect = false;
  only_no_execute.effect = TaintEffect::kNoExecute;

  EXPECT_TRUE(tolerates(equal, spot));
  EXPECT_FALSE(tolerates(wrong_value, spot));
  EXPECT_TRUE(tolerates(exists_key, evict));
  EXPECT_TRUE(tolerates(everything, spot));
  EXPECT_FALSE(tolerates(only_no_execute, spot)) << "effects differ";
  EXPECT_TRUE(tolerates_all({}, {prefer})) << "PreferNoSchedule never forbids";
  EXPECT_FALSE(tolerates_all({}, {spot}));
  EXPECT_FALSE(tolerates_all({equal}, {spot, evict}));
  EXPECT_TRUE(tolerates_all({equal, exists_key}, {spot, evict, prefer}));
  EXPECT_TRUE(tolerates_all({everything}, {spot, evict}));
}

// Random allocations, releases, additions, removals and cordons; the incremental bookkeeping must
// agree with check_invariants()'s recomputation after every step.
TEST(ClusterDynamic, RandomChangesKeepEveryInvariant) {
  std::mt19937 rng(11);  // fixed seed: the same sequence every run
  Cluster c = two_nodes();
  std::vector<AllocationOwner> held;
  int32_t next = 1;
  for (int step = 0; step < 3'000; ++step) {
    const unsigned op = rng() % 10;
    const auto n = static_cast<NodeId>(rng() % static_cast<unsigned>(c.node_count()));
    if (op < 3 && !held.empty()) {
      const size_t i = rng() % held.size();
      ASSERT_TRUE(c.release(held[i]));
      held[i] = held.back();
      held.pop_back();
    } else if (op == 3 && c.node_count() < 12) {
      ASSERT_TRUE(
          c.add_node(NodeInfo{"x" + std::to_string(step), static_cast<int32_t>(rng() % 2), 0}));
    } else if (op == 4) {
      const Status s = c.remove_node(n);
      EXPECT_EQ(s.is_ok(), c.owners_on(n).empty());
    } else if (op == 5) {
      c.set_cordoned(n, !c.cordoned(n));
    } else if (!c.removed(n)) {
      AllocationOwner owner{next++, 0};
      Resources request;
      uint64_t mask = 0;
      if (rng() % 2) {
        const int milli = 1 + static_cast<int>(rng() % 999);
        const int g = c.best_fit_share_gpu(n, milli);
        if (g < 0) continue;
        request = share(milli);
        mask = 1ull << g;
      } else {
        const int k = 1 + static_cast<int>(rng() % 2);
        mask = c.lowest_free_gpus(n, k);
        if (mask == 0) continue;
        request = whole(k);
      }
      const Status s = c.allocate(n, request, mask, owner);
      if (s)
        held.push_back(owner);
      else
        EXPECT_NE(s.message().find("CPU"), std::string::npos)
            << s.message();  // only CPU can run out
    }
    const Status ok = c.check_invariants();
    ASSERT_TRUE(ok) << "step " << step << ": " << ok.message();
  }
}

}  // namespace
}  // namespace gantry
