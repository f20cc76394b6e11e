#include "engine/policy/node_index.hpp"

#include <gtest/gtest.h>

#include <random>

#include "tests/engine/policy/test_cluster.hpp"

namespace gantry {
namespace {

using testing::make_topology;
using testing::NodeDef;
using testing::occupy;

std::vector<NodeId> bucket(const NodeIndex& index, GpuTypeId t, int k) {
  std::vector<NodeId> out;
  index.for_each_node(t, k, [&](NodeId n) { out.push_back(n); });
  return out;
}

TEST(NodeIndex, BucketsNodesByFreeGpusPerType) {
  // nodes 0, 1, 3: A100 x8; node 2: CPU only; node 4: H100 x8.
  Cluster c(make_topology({NodeDef{}, NodeDef{}, NodeDef{.gpus = 0, .gpu_type = ""}, NodeDef{},
                           NodeDef{.gpu_type = "H100-80G"}}));
  const GpuTypeId a100 = c.topology().gpus.find("A100-80G");
  const GpuTypeId h100 = c.topology().gpus.find("H100-80G");
  const AllocationOwner on_node_1 = occupy(c, 1, 3);
  NodeIndex index;
  index.sync(c);
  EXPECT_EQ(bucket(index, a100, 8), (std::vector<NodeId>{0, 3}));
  EXPECT_EQ(bucket(index, a100, 5), std::vector<NodeId>{1});
  EXPECT_EQ(bucket(index, h100, 8), std::vector<NodeId>{4});
  EXPECT_TRUE(bucket(index, a100, 0).empty());
  EXPECT_EQ(bucket(index, -1, 0), std::vector<NodeId>{2});  // -1: the nodes without GPUs
  EXPECT_TRUE(bucket(index, -1, 1).empty());

  // Changes made behind the index's back show up after sync(); note() covers single nodes.
  occupy(c, 3, 8);
  ASSERT_TRUE(c.release(on_node_1));
  index.sync(c);
  EXPECT_EQ(bucket(index, a100, 8), (std::vector<NodeId>{0, 1}));
  EXPECT_EQ(bucket(index, a100, 0), std::vector<NodeId>{3});
  occupy(c, 0, 1);
  index.note(c, 0);
  EXPECT_EQ(bucket(index, a100, 7), std::vector<NodeId>{0});
  EXPECT_EQ(bucket(index, a100, 8), std::vector<NodeId>{1});
}

TEST(NodeIndex, CountsNodesPerRackByFreeGpus) {
  // Rack 0: nodes 0, 1 (A100 x8); rack 1: node 2 (A100 x8), node 3 (H100 x8), node 4 (CPU only).
  Cluster c(make_topology({NodeDef{.rack = 0}, NodeDef{.rack = 0}, NodeDef{.rack = 1},
                           NodeDef{.rack = 1, .gpu_type = "H100-80G"},
                           NodeDef{.rack = 1, .gpus = 0, .gpu_type = ""}}));
  const GpuTypeId a100 = c.topology().gpus.find("A100-80G");
  const GpuTypeId h100 = c.topology().gpus.find("H100-80G");
  occupy(c, 1, 3);  // node 1: 5 free
  NodeIndex index;
  index.sync(c);
  EXPECT_EQ(index.rack_count(), 2);
  EXPECT_EQ(index.rack_nodes_with(a100, 0, 8), 1);  // node 0
  EXPECT_EQ(index.rack_nodes_with(a100, 0, 5), 1);  // node 1
  EXPECT_EQ(index.rack_nodes_with(a100, 1, 8), 1);  // node 2
  EXPECT_EQ(index.rack_nodes_with(h100, 1, 8), 1);  // node 3
  EXPECT_EQ(index.rack_nodes_with(h100, 0, 8), 0);
  EXPECT_EQ(index.rack_nodes_with(-1, 1, 0), 0);    // CPU-only nodes are not counted per rack
  EXPECT_EQ(index.rack_nodes_with(a100, 2, 8), 0);  // no rack 2
  EXPECT_EQ(index.rack_nodes_with(a100, 0, 9), 0);  // no 9-GPU bucket

  // note() moves a node between counts; sync() catches changes made behind the index's back.
  occupy(c, 0, 8);
  index.note(c, 0);
  EXPECT_EQ(index.rack_nodes_with(a100, 0, 8), 0);
  EXPECT_EQ(index.rack_nodes_with(a100, 0, 0), 1);
  occupy(c, 2, 2);
  occupy(c, 1, 1);  // node 1: 4 free
  index.sync(c);
  EXPECT_EQ(index.rack_nodes_with(a100, 1, 8), 0);
  EXPECT_EQ(index.rack_nodes_with(a100, 1, 6), 1);
  EXPECT_EQ(index.rack_nodes_with(a100, 0, 5), 0);
  EXPECT_EQ(index.rack_nodes_with(a100, 0, 4), 1);
}

// Every bucket and per-rack count of `index` equals that of an index built afresh.
void expect_same_as_fresh(const NodeIndex& index, const Cluster& c) {
  NodeIndex fresh;
  fresh.sync(c);
  const auto types = static_cast<GpuTypeId>(c.topology().gpus.size());
  for (GpuTypeId t = -1; t < types; ++t) {
    const int top = t < 0 ? 0 : c.max_gpus_per_node(t);
    for (int k = 0; k <= top; ++k) {
      ASSERT_EQ(bucket(index, t, k), bucket(fresh, t, k)) << "type " << t << " k " << k;
      for (RackId r = 0; r < fresh.rack_count(); ++r)
        ASSERT_EQ(index.rack_nodes_with(t, r, k), fresh.rack_nodes_with(t, r, k));
    }
  }
  // The CPU and share-room views, level by level.
  const auto collect = [](auto&& walk) {
    std::vector<NodeId> out;
    walk([&](NodeId n) { out.push_back(n); });
    return out;
  };
  for (int l = 0; l < NodeIndex::kCpuLevels; ++l)
    ASSERT_EQ(collect([&](auto f) { index.for_each_with_cpu(l, f); }),
              collect([&](auto f) { fresh.for_each_with_cpu(l, f); }))
        << "cpu level " << l;
  for (GpuTypeId t = 0; t < types; ++t)
    for (int l = 0; l < NodeIndex::kShareLevels; ++l)
      ASSERT_EQ(collect([&](auto f) { index.for_each_with_room(t, l, 0, f); }),
                collect([&](auto f) { fresh.for_each_with_room(t, l, 0, f); }))
          << "type " << t << " share level " << l;
  ASSERT_EQ(index.rack_count(), fresh.rack_count());
  for (RackId r = 0; r < fresh.rack_count(); ++r) {
    const auto a = index.rack_members(r);
    const auto b = fresh.rack_members(r);
    ASSERT_EQ(std::vector<NodeId>(a.begin(), a.end()), std::vector<NodeId>(b.begin(), b.end()));
  }
}

TEST(NodeIndex, LevelsAreMonotoneAndCoarse) {
  // Monotone is what makes the views exact (a node with at least a pod's CPU is at least at
  // its level); coarse keeps the cumulative bitsets few.
  EXPECT_EQ(NodeIndex::cpu_level(-5), 0);
  EXPECT_EQ(NodeIndex::cpu_level(127), 0);
  EXPECT_EQ(NodeIndex::cpu_level(128), 1);
  EXPECT_EQ(NodeIndex::cpu_level(1023), 7);
  EXPECT_EQ(NodeIndex::cpu_level(1024), 8);   // 1024 >> 7 = 8 = 0b1000: width 4, next bits 00
  EXPECT_EQ(NodeIndex::cpu_level(1280), 9);   // 10 = 0b1010: next bits 01
  EXPECT_EQ(NodeIndex::cpu_level(2048), 12);  // 16 = 0b10000: width 5
  EXPECT_EQ(NodeIndex::cpu_level(int64_t{1} << 40), NodeIndex::kCpuLevels - 1);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100'000; ++i) {
    const auto x = static_cast<int64_t>(rng() % (int64_t{1} << (1 + rng() % 40)));
    ASSERT_LE(NodeIndex::cpu_level(x), NodeIndex::cpu_level(x + 1)) << x;
  }
  EXPECT_EQ(NodeIndex::share_level(0), 0);
  EXPECT_EQ(NodeIndex::share_level(49), 0);
  EXPECT_EQ(NodeIndex::share_level(50), 1);
  EXPECT_EQ(NodeIndex::share_level(999), 19);
  EXPECT_EQ(NodeIndex::share_level(1000), NodeIndex::kShareLevels - 1);
}

TEST(NodeIndex, SyncFollowsTheClusterChangeLog) {
  // 40 nodes in 5 racks whose ids interleave (node i in rack i % 5), two GPU types, a CPU-only
  // node. Between syncs the cluster changes a few times (sync() reads only the logged nodes),
  // or more often than the log holds (sync() compares every node), or gains a node.
  std::vector<NodeDef> defs;
  for (int i = 0; i < 40; ++i)
    defs.push_back(NodeDef{.rack = i % 5,
                           .gpus = i == 7 ? 0 : 8,
                           .gpu_type = i == 7 ? "" : (i % 3 == 0 ? "H100-80G" : "A100-80G")});
  Cluster c(make_topology(defs));
  NodeIndex index;
  index.sync(c);
  std::mt19937 rng(7);
  std::vector<AllocationOwner> held;
  for (int round = 0; round < 60; ++round) {
    // Rounds 10 and 40 change more often than the log holds.
    const int changes = round == 10 || round == 40 ? static_cast<int>(Cluster::kChangeLogSize) + 50
                                                   : static_cast<int>(rng() % 30);
    for (int i = 0; i < changes; ++i) {
      if (!held.empty() && rng() % 2 == 0) {
        const size_t j = rng() % held.size();
        ASSERT_TRUE(c.release(held[j]));
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(j));
        continue;
      }
      const auto n = static_cast<NodeId>(rng() % static_cast<unsigned>(c.node_count()));
      // Whole GPUs, a share of one, or CPU alone (the only kind node 7 takes), with any CPU.
      const auto cpu = static_cast<int64_t>(rng() % 20'000);
      const unsigned kind = n == 7 ? 2 : rng() % 3;
      if (kind == 0) {
        const int gpus = 1 + static_cast<int>(rng() % 4);
        if (c.free(n).gpus < gpus || c.free(n).cpu_milli < cpu) continue;
        held.push_back(
            testing::take(c, n, Resources{cpu, testing::kGi, gpus}, c.lowest_free_gpus(n, gpus)));
      } else if (kind == 1) {
        const int milli = 1 + static_cast<int>(rng() % 999);
        const int g = c.best_fit_share_gpu(n, milli);
        if (g < 0 || c.free(n).cpu_milli < cpu) continue;
        held.push_back(testing::take(c, n, Resources{cpu, testing::kGi, 0, milli}, 1ull << g));
      } else {
        if (c.free(n).cpu_milli < cpu) continue;
        held.push_back(testing::take(c, n, Resources{cpu, testing::kGi}, 0));
      }
    }
    if (round == 30) {
      // A node joins rack 2: the index lays itself out again.
      ASSERT_TRUE(c.add_node(NodeInfo{"late", 0, 2}));
    }
    index.sync(c);
    expect_same_as_fresh(index, c);
  }
  const std::span<const NodeId> rack2 = index.rack_members(2);
  EXPECT_EQ(rack2.size(), 9u);  // nodes 2, 7, ..., 37 and the late node 40
  EXPECT_EQ(rack2.back(), 40);
}

}  // namespace
}  // namespace gantry
