#include "engine/policy/node_index.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gantry
