// Totals for the real file come from its README (scenarios/data/README.md and
// ../shared/data/alibaba-pai-v2020/README.md).

#include "adapters/traces/pai_machines.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/adapters/traces/error_text.hpp"

namespace gantry {
namespace pai_machines_test {

using trace_test::input_error_of;

constexpr int64_t kGiB = 1024ll * 1024 * 1024;

TEST(PaiMachines, RealFileMatchesTheReadme) {
  const Topology t = load_pai_machines(std::string(GANTRY_SOURCE_DIR) +
                                       "/scenarios/data/pai-2020/pai_machine_spec.csv");
  EXPECT_EQ(t.nodes.size(), 1897u);
  EXPECT_EQ(t.total_gpus(), 6742);
  // README: MISC 2240 (280x8), P100 1596 (798x2), V100M32 1080 (135x8), T4 994 (497x2),
  // V100 832 (104x8); 83 CPU-only machines. 280+798+135+497+104+83 = 1897 machines.
  std::map<std::string, int> gpus, machines;
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const NodeClass& c = t.class_of(static_cast<NodeId>(n));
    const std::string type = c.gpu_type < 0 ? "CPU" : t.gpus.at(c.gpu_type).name;
    gpus[type] += c.capacity.gpus;
    ++machines[type];
  }
  EXPECT_EQ(gpus, (std::map<std::string, int>{{"CPU", 0},
                                              {"MISC", 2240},
                                              {"P100", 1596},
                                              {"V100M32", 1080},
                                              {"T4", 994},
                                              {"V100M16", 832}}));
  EXPECT_EQ(machines, (std::map<std::string, int>{{"CPU", 83},
                                                  {"MISC", 280},
                                                  {"P100", 798},
                                                  {"V100M32", 135},
                                                  {"T4", 497},
                                                  {"V100M16", 104}}));
  // First row: 7399a758eb02bae1a3621236,CPU,96,512,0
  EXPECT_EQ(t.nodes[0].name, "7399a758eb02bae1a3621236");
  EXPECT_EQ(t.class_of(0).capacity.cpu_milli, 96'000);
  EXPECT_EQ(t.class_of(0).capacity.memory_bytes, 512 * kGiB);
  EXPECT_EQ(t.class_of(0).gpu_type, -1);
  EXPECT_EQ(t.racks, std::vector<std::string>{"pai"});
}

TEST(PaiMachines, RowsMapToClasses) {
  const Topology t = load_pai_machines_text(
      "m1,V100,96,384,8\n"
      "m2,T4,96,512,2\n"
      "m3,V100,96,384,8\n",
      "pai.csv");
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.nodes[2].node_class, t.nodes[0].node_class);
  const NodeClass& v100 = t.class_of(0);
  EXPECT_EQ(v100.name, "V100M16x8-96000m-393216Mi");  // 384 GiB = 393216 MiB
  EXPECT_EQ(t.gpus.at(v100.gpu_type).memory_bytes, 16 * kGiB);
  EXPECT_EQ(v100.island_link, IslandLink::kPCIe);
  EXPECT_EQ(v100.island_size, 8);
  EXPECT_EQ(v100.island_bytes_per_s, 16e9);  // V100 PCIe Gen3 figure
}

TEST(PaiMachines, HeaderRowIsSkipped) {
  const Topology t = load_pai_machines_text(
      "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\nm1,T4,96,512,2\n", "pai.csv");
  ASSERT_EQ(t.nodes.size(), 1u);
  EXPECT_EQ(t.total_gpus(), 2);
}

TEST(PaiMachines, BrokenRows) {
  auto error = [](const std::string& text) {
    return input_error_of([&] { load_pai_machines_text(text, "pai.csv"); });
  };
  EXPECT_EQ(error("m1,CPU,96,512,2\n"),
            "pai.csv:1:15: cap_gpu: a machine of gpu_type CPU has no GPU; expected 0, got '2'");
  EXPECT_EQ(error("m1,T4,96,512,0\n"),
            "pai.csv:1:14: cap_gpu: a machine of gpu_type 'T4' needs at least one GPU, got '0'");
  EXPECT_EQ(error("m1,K80,96,512,2\n"),
            "pai.csv:1:4: gpu_type: unknown GPU model 'K80'; expected one of MISC, P100, T4, "
            "V100, V100M32 (case matters)");
  EXPECT_EQ(error("m1,T4,96,512\n"),
            "pai.csv:1:13: cap_gpu: missing field; the row has 4 fields, the header 5");
  EXPECT_EQ(error("m1,T4,96.5,512,2\n"),
            "pai.csv:1:7: cap_cpu: expected a non-negative integer, got '96.5'");
  EXPECT_EQ(error("m1,T4,96,512,2\nm1,T4,96,512,2\n"),
            "pai.csv:2:1: machine: duplicate machine name 'm1'");
}

}  // namespace pai_machines_test
}  // namespace gantry
