// Totals for the real file come from its README (scenarios/data/README.md and
// ../shared/data/alibaba-spot-gpu-v2026/README.md).

#include "adapters/traces/spot_nodes.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/adapters/traces/error_text.hpp"

namespace gantry {
namespace {

using trace_test::input_error_of;

TEST(SpotNodes, RealFileMatchesTheReadme) {
  const Topology t = load_spot_nodes(std::string(GANTRY_SOURCE_DIR) +
                                     "/scenarios/data/spot-gpu-2026/node_info_df.csv");
  EXPECT_EQ(t.nodes.size(), 4278u);
  EXPECT_EQ(t.total_gpus(), 10412);
  // README: A100-SXM4-80GB 3456, A10 2494, H800 1752, GPU-series-1 1558, GPU-series-2 976,
  // A800-SXM4-80GB 176 (sum 10412), under their catalog names.
  std::map<std::string, int> gpus;
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const NodeClass& c = t.class_of(static_cast<NodeId>(n));
    ASSERT_GE(c.gpu_type, 0);
    gpus[t.gpus.at(c.gpu_type).name] += c.capacity.gpus;
  }
  EXPECT_EQ(gpus, (std::map<std::string, int>{{"A100-80G", 3456},
                                              {"A10", 2494},
                                              {"H800", 1752},
                                              {"GPU-series-1", 1558},
                                              {"GPU-series-2", 976},
                                              {"A800-80G", 176}}));
  // Row 5 of the file: A100-SXM4-80GB,8,128,3 -> an 8-GPU NVSwitch island at the catalog's
  // A100 NVLink figure (300 GB/s per direction); no memory in the trace.
  EXPECT_EQ(t.nodes[3].name, "3");
  const NodeClass& a100 = t.class_of(3);
  EXPECT_EQ(a100.name, "A100-80Gx8-128000m-NVSwitch");
  EXPECT_EQ(a100.capacity.cpu_milli, 128'000);
  EXPECT_EQ(a100.capacity.memory_bytes, 0);
  EXPECT_EQ(a100.island_link, IslandLink::kNVSwitch);
  EXPECT_EQ(a100.island_size, 8);
  EXPECT_EQ(a100.island_bytes_per_s, 300e9);
  EXPECT_EQ(a100.pcie_bytes_per_s, 32e9);
  // Row 4: A10,1,128,2 -> PCIe.
  EXPECT_EQ(t.class_of(2).island_link, IslandLink::kPCIe);
  EXPECT_EQ(t.class_of(2).name, "A10x1-128000m");
}

TEST(SpotNodes, A800IsAnA100WithSlowerNvlink) {
  const Topology t = load_spot_nodes_text(
      "gpu_model,gpu_capacity_num,cpu_num,node_name\nA800-SXM4-80GB,8,128,n\n", "s.csv");
  const NodeClass& c = t.class_of(0);
  EXPECT_EQ(c.island_link, IslandLink::kNVSwitch);
  EXPECT_EQ(c.island_bytes_per_s, 200e9);  // 400 GB/s bidirectional, halved
  EXPECT_EQ(t.gpus.at(c.gpu_type).relative_compute, 1.0);
}

TEST(SpotNodes, BrokenRows) {
  const std::string header = "gpu_model,gpu_capacity_num,cpu_num,node_name\n";
  auto error = [&](const std::string& rows) {
    return input_error_of([&] { load_spot_nodes_text(header + rows, "s.csv"); });
  };
  EXPECT_EQ(error("a100-sxm4-80gb,8,128,0\n"),
            "s.csv:2:1: gpu_model: unknown GPU model 'a100-sxm4-80gb'; expected one of "
            "A100-SXM4-80GB, A800-SXM4-80GB, H800, A10, GPU-series-1, GPU-series-2 (case matters)");
  EXPECT_EQ(error("A10,x,128,0\n"),
            "s.csv:2:5: gpu_capacity_num: expected a non-negative integer, got 'x'");
  EXPECT_EQ(error("A10,1,128,0\nA10,1,128,0\n"), "s.csv:3:11: node_name: duplicate node name '0'");
  EXPECT_EQ(input_error_of(
                [] { load_spot_nodes_text("gpu_model,cpu_num,node_name\nA10,1,n\n", "s.csv"); }),
            "s.csv:1: gpu_capacity_num: missing column; the header is "
            "'gpu_model,cpu_num,node_name'");
}

}  // namespace
}  // namespace gantry
