// Counts and totals for the real files come from the data's README
// (scenarios/data/README.md and ../shared/data/alibaba-gpu-v2023-openb/README.md); the broken
// rows are written here with their expected positions counted by hand.

#include "adapters/traces/openb.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "engine/cluster/cluster.hpp"
#include "tests/adapters/traces/error_text.hpp"

namespace gantry {
namespace openb_test {

using trace_test::input_error_of;

constexpr int64_t kMiB = 1024ll * 1024;
constexpr int64_t kGiB = 1024 * kMiB;

std::string openb_file(const std::string& name) {
  return std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/openb/" + name;
}

std::map<std::string, int> gpus_by_model(const Topology& t) {
  std::map<std::string, int> out;
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const NodeClass& c = t.class_of(static_cast<NodeId>(n));
    if (c.gpu_type >= 0) out[t.gpus.at(c.gpu_type).name] += c.capacity.gpus;
  }
  return out;
}

TEST(OpenbNodes, AllNodeListMatchesTheReadme) {
  const Topology t = load_openb_nodes(openb_file("openb_node_list_all_node.csv"));
  EXPECT_EQ(t.nodes.size(), 1523u);
  EXPECT_EQ(t.total_gpus(), 6212);
  // README: G2 4392, T4 842, G3 312, P100 265, V100M32 204, V100M16 195, A10 2
  // (4392 + 842 + 312 + 265 + 204 + 195 + 2 = 6212).
  const std::map<std::string, int> expected = {{"G2", 4392},  {"T4", 842},      {"G3", 312},
                                               {"P100", 265}, {"V100M32", 204}, {"V100M16", 195},
                                               {"A10", 2}};
  EXPECT_EQ(gpus_by_model(t), expected);
  int cpu_only = 0;
  for (size_t n = 0; n < t.nodes.size(); ++n)
    cpu_only += t.class_of(static_cast<NodeId>(n)).gpu_type < 0 ? 1 : 0;
  EXPECT_EQ(cpu_only, 310);  // README: 1523 nodes = 1213 GPU nodes + 310 CPU-only

  // First row: openb-node-0000,32000,262144,0,
  EXPECT_EQ(t.nodes[0].name, "openb-node-0000");
  const NodeClass& first = t.class_of(0);
  EXPECT_EQ(first.capacity.cpu_milli, 32000);
  EXPECT_EQ(first.capacity.memory_bytes, 256 * kGiB);  // 262144 MiB
  EXPECT_EQ(first.capacity.gpus, 0);
  EXPECT_EQ(first.gpu_type, -1);
  EXPECT_EQ(first.name, "cpu-only-32000m-262144Mi");
  // Row 312: openb-node-0310,96000,393216,8,G2
  EXPECT_EQ(t.nodes[310].name, "openb-node-0310");
  const NodeClass& g2 = t.class_of(310);
  EXPECT_EQ(g2.name, "G2x8-96000m-393216Mi");
  EXPECT_EQ(g2.capacity.gpus, 8);
  EXPECT_EQ(g2.capacity.memory_bytes, 384 * kGiB);
  EXPECT_EQ(t.gpus.at(g2.gpu_type).name, "G2");
  EXPECT_EQ(g2.island_size, 8);
  EXPECT_EQ(g2.island_link, IslandLink::kPCIe);
  EXPECT_EQ(g2.island_bytes_per_s, 16e9);  // undisclosed types assume PCIe Gen3 x16
  EXPECT_EQ(t.racks, std::vector<std::string>{"openb"});
  EXPECT_EQ(t.fabric.kind, FabricKind::kTcp);
  EXPECT_EQ(t.fabric.latency_s, 50e-6);
}

TEST(OpenbNodes, GpuNodeListMatchesTheReadme) {
  const Topology t = load_openb_nodes(openb_file("openb_node_list_gpu_node.csv"));
  EXPECT_EQ(t.nodes.size(), 1213u);
  EXPECT_EQ(t.total_gpus(), 6212);
  int64_t cpu_milli = 0;
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const NodeClass& c = t.class_of(static_cast<NodeId>(n));
    cpu_milli += c.capacity.cpu_milli;
    EXPECT_GT(c.capacity.gpus, 0) << t.nodes[n].name;
  }
  EXPECT_EQ(cpu_milli, 107'018'000);  // README: 107,018 CPU cores
  // First row: openb-node-0000,64000,262144,2,P100 -> the P100 type at the PCIe figure.
  const NodeClass& p100 = t.class_of(0);
  EXPECT_EQ(t.gpus.at(p100.gpu_type).name, "P100");
  EXPECT_EQ(t.gpus.at(p100.gpu_type).memory_bytes, 16 * kGiB);
  EXPECT_DOUBLE_EQ(t.gpus.at(p100.gpu_type).relative_compute, 21.2 / 312.0);
  EXPECT_EQ(p100.island_bytes_per_s, 16e9);
  EXPECT_EQ(p100.pcie_bytes_per_s, 16e9);
  // The topology is one the cluster model accepts.
  const Cluster cluster(t);
  EXPECT_EQ(cluster.total_gpus(), 6212);
}

TEST(OpenbNodes, ClassesAreDistinctShapes) {
  const std::string text =
      "sn,cpu_milli,memory_mib,gpu,model\n"
      "a,1000,1024,2,T4\n"
      "b,1000,1024,2,T4\n"
      "c,1000,1024,2,A10\n"
      "d,1000,2048,2,T4\n"
      "e,1000,1024,0,\"\"\n";
  const Topology t = load_openb_nodes_text(text, "n.csv");
  ASSERT_EQ(t.nodes.size(), 5u);
  // a and b share a class; c differs by model, d by memory, e has no GPU.
  std::vector<int32_t> classes;
  for (const auto& n : t.nodes) classes.push_back(n.node_class);
  EXPECT_EQ(classes, (std::vector<int32_t>{0, 0, 1, 2, 3}));
  EXPECT_EQ(t.classes[1].name, "A10x2-1000m-1024Mi");
  EXPECT_EQ(t.classes[3].gpu_type, -1);
  // T4 keeps the default catalog's figures: PCIe Gen3, 16 GB/s.
  EXPECT_EQ(t.classes[0].island_bytes_per_s, 16e9);
}

TEST(OpenbNodes, CatalogHasEveryTraceModel) {
  GpuCatalog catalog = GpuCatalog::with_defaults();
  add_openb_gpu_types(catalog);
  for (const std::string& m : openb_gpu_models()) EXPECT_GE(catalog.find(m), 0) << m;
  const GpuType& v16 = catalog.at(catalog.find("V100M16"));
  const GpuType& v100 = catalog.at(catalog.find("V100"));
  EXPECT_EQ(v16.memory_bytes, 16 * kGiB);
  EXPECT_EQ(v16.relative_compute, v100.relative_compute);
  EXPECT_EQ(v16.pcie_bytes_per_s, v100.pcie_bytes_per_s);
  EXPECT_EQ(catalog.at(catalog.find("V100M32")).memory_bytes, 32 * kGiB);
  const GpuType& g1 = catalog.at(catalog.find("G1"));
  EXPECT_EQ(g1.relative_compute, 1.0);
  EXPECT_EQ(g1.memory_bytes, 0);
  EXPECT_THAT(g1.source, ::testing::HasSubstr("undisclosed internal GPU type of the openb trace"));
}

TEST(OpenbNodes, BrokenRows) {
  const std::string header = "sn,cpu_milli,memory_mib,gpu,model\n";
  auto error = [&](const std::string& rows) {
    return input_error_of([&] { load_openb_nodes_text(header + rows, "n.csv"); });
  };
  EXPECT_EQ(error("a,1000,1024,2,v100m16\n"),
            "n.csv:2:15: model: unknown GPU model 'v100m16'; expected one of A10, G1, G2, G3, "
            "P100, T4, V100M16, V100M32 (case matters)");
  EXPECT_EQ(error("a,1000,1024,2,\n"), "n.csv:2:15: model: a node with GPUs needs a GPU model");
  EXPECT_EQ(error("a,1000,1024,0,T4\n"),
            "n.csv:2:15: model: must be empty on a node without GPUs, got 'T4'");
  EXPECT_EQ(error("a,1000,1024,65,T4\n"),
            "n.csv:2:13: gpu: expected an integer from 0 to 64, got '65'");
  EXPECT_EQ(error("a,1000,1024,1,T4\na,1000,1024,1,T4\n"),
            "n.csv:3:1: sn: duplicate node name 'a'");
  EXPECT_EQ(error(",1000,1024,1,T4\n"), "n.csv:2:1: sn: node name must not be empty");
  EXPECT_EQ(error("a,1e3,1024,1,T4\n"),
            "n.csv:2:3: cpu_milli: expected a non-negative integer, got '1e3'");
  EXPECT_EQ(input_error_of(
                [] { load_openb_nodes_text("sn,cpu_milli,memory_mib,gpu\na,1,1,0\n", "n.csv"); }),
            "n.csv:1: model: missing column; the header is 'sn,cpu_milli,memory_mib,gpu'");
}

// ---- pod lists ----

TEST(OpenbPods, DefaultListMatchesTheReadme) {
  const std::vector<TracePod> pods = load_openb_pods(openb_file("openb_pod_list_default.csv"));
  ASSERT_EQ(pods.size(), 8152u);
  std::map<int, int> histogram;
  int sharing = 0;
  int64_t gpu_milli_total = 0;
  for (const TracePod& p : pods) {
    ++histogram[p.num_gpu];
    if (p.num_gpu == 1 && p.gpu_milli < 1000) ++sharing;
    gpu_milli_total += int64_t{p.num_gpu} * p.gpu_milli;
  }
  // README: num_gpu 0->1088, 1->6989, 2->16, 4->15, 8->44 (sum 8152); 3078 sharing pods;
  // total GPU request 6086.8 GPUs = 6,086,800 milli-GPU.
  EXPECT_EQ(histogram, (std::map<int, int>{{0, 1088}, {1, 6989}, {2, 16}, {4, 15}, {8, 44}}));
  EXPECT_EQ(sharing, 3078);
  EXPECT_EQ(gpu_milli_total, 6'086'800);

  // openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061
  TracePod expected;
  expected.name = "openb-pod-0001";
  expected.cpu_milli = 6000;
  expected.memory_bytes = 12 * kGiB;  // 12288 MiB
  expected.num_gpu = 1;
  expected.gpu_milli = 460;
  expected.qos = "LS";
  expected.pod_phase = "Running";
  expected.creation_s = 427061;
  expected.deletion_s = 12902960;
  expected.scheduled_s = 427061;
  EXPECT_EQ(pods[1], expected);
  // openb-pod-0005,20000,65536,0,0,,LS,Running,2759674,12902960,2759676: CPU only.
  EXPECT_EQ(pods[5].num_gpu, 0);
  EXPECT_EQ(pods[5].gpu_milli, 0);
  EXPECT_EQ(pods[5].memory_bytes, 64 * kGiB);
  // openb-pod-0061,11908,47104,1,1000,,BE,Pending,10001278,10001403, : never scheduled.
  EXPECT_EQ(pods[61].name, "openb-pod-0061");
  EXPECT_EQ(pods[61].pod_phase, "Pending");
  EXPECT_EQ(pods[61].scheduled_s, -1);
  EXPECT_EQ(pods[61].deletion_s, 10001403);
}

TEST(OpenbPods, GpuSpecListsSplitModelsAndDropRepeats) {
  const std::vector<TracePod> pods = load_openb_pods(openb_file("openb_pod_list_gpuspec05.csv"));
  ASSERT_EQ(pods.size(), 8152u);  // README: 8152 pods in each gpuspec list
  // openb-pod-0099,3152,5600,1,1000,V100M16|V100M32,BE,Failed,...
  EXPECT_EQ(pods[99].gpu_models, (std::vector<std::string>{"V100M16", "V100M32"}));
  // openb-pod-2182,32200,132096,4,1000,V100M16|V100M32|V100M32,...
  EXPECT_EQ(pods[2182].gpu_models, (std::vector<std::string>{"V100M16", "V100M32"}));
  EXPECT_EQ(pods[2182].num_gpu, 4);
  EXPECT_TRUE(pods[0].gpu_models.empty());
}

TEST(OpenbPods, GpuSpecShareMatchesTheFileName) {
  // README: in gpuspecXX, XX% of the GPU pods carry a gpu_spec. GPU pods: 8152 - 1088 = 7064.
  for (int pct : {5, 10, 20, 25, 33}) {
    const std::string name =
        "openb_pod_list_gpuspec" + std::string(pct < 10 ? "0" : "") + std::to_string(pct) + ".csv";
    const std::vector<TracePod> pods = load_openb_pods(openb_file(name));
    int gpu_pods = 0, with_spec = 0;
    for (const TracePod& p : pods) {
      gpu_pods += p.num_gpu > 0 ? 1 : 0;
      with_spec += p.gpu_models.empty() ? 0 : 1;
    }
    EXPECT_EQ(gpu_pods, 7064) << name;
    EXPECT_NEAR(static_cast<double>(with_spec) / gpu_pods, pct / 100.0, 0.01) << name;
  }
}

TEST(OpenbPods, CpuListsKeepTheGpuPods) {
  // README: cpuXXX = default with CPU-only pods removed or added, 7064 to 10094 pods; the GPU
  // pods stay: 8152 - 1088 = 7064 in each. cpu0 has no CPU-only pod left.
  const std::vector<std::string> names = {"cpu0",   "cpu037", "cpu050", "cpu072", "cpu100",
                                          "cpu200", "cpu235", "cpu250", "cpu300"};
  for (const std::string& n : names) {
    const std::vector<TracePod> pods = load_openb_pods(openb_file("openb_pod_list_" + n + ".csv"));
    int gpu_pods = 0;
    for (const TracePod& p : pods) gpu_pods += p.num_gpu > 0 ? 1 : 0;
    EXPECT_EQ(gpu_pods, 7064) << n;
    EXPECT_GE(pods.size(), 7064u) << n;
    EXPECT_LE(pods.size(), 10094u) << n;
    if (n == "cpu0") {
      EXPECT_EQ(pods.size(), 7064u);
    }
    if (n == "cpu300") {
      EXPECT_EQ(pods.size(), 10094u);
    }
  }
}

TEST(OpenbPods, GpuShareListsGrowTheSharingShare) {
  // README: 8152 pods each, with a growing share of GPU-sharing pods; gpushare100 has only
  // sharing pods among its GPU pods.
  int previous = -1;
  for (const char* n : {"20", "40", "60", "80", "100"}) {
    const std::vector<TracePod> pods =
        load_openb_pods(openb_file(std::string("openb_pod_list_gpushare") + n + ".csv"));
    EXPECT_EQ(pods.size(), 8152u) << n;
    int sharing = 0, gpu_pods = 0;
    for (const TracePod& p : pods) {
      gpu_pods += p.num_gpu > 0 ? 1 : 0;
      sharing += p.num_gpu == 1 && p.gpu_milli < 1000 ? 1 : 0;
    }
    EXPECT_GT(sharing, previous) << n;
    previous = sharing;
    if (std::string(n) == "100") {
      EXPECT_EQ(sharing, gpu_pods);
    }
  }
}

TEST(OpenbPods, FiveColumnMultiGpuLists) {
  // README: the multigpu lists have only 5 columns and more multi-GPU pods than the default
  // list's 16 + 15 + 44 = 75.
  size_t previous = 75;
  for (const char* n : {"20", "30", "40", "50"}) {
    const std::vector<TracePod> pods =
        load_openb_pods(openb_file(std::string("openb_pod_list_multigpu") + n + ".csv"));
    size_t multi = 0;
    for (const TracePod& p : pods) multi += p.num_gpu > 1 ? 1 : 0;
    EXPECT_GT(multi, previous) << n;
    previous = multi;
    // openb-pod-0001,6000,12288,1,460: the 5-column form leaves the rest at its defaults.
    TracePod expected;
    expected.name = "openb-pod-0001";
    expected.cpu_milli = 6000;
    expected.memory_bytes = 12 * kGiB;
    expected.num_gpu = 1;
    expected.gpu_milli = 460;
    ASSERT_GE(pods.size(), 2u);
    EXPECT_EQ(pods[1], expected) << n;
  }
}

TEST(OpenbPods, BrokenRows) {
  const std::string header =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n";
  const std::string good = "p0,1000,1024,1,500,,LS,Running,0,10,0\n";
  auto error = [&](const std::string& row) {
    return input_error_of([&] { load_openb_pods_text(header + good + row, "p.csv"); });
  };
  // Line 3 is the broken row; columns counted from its first byte.
  EXPECT_EQ(error("p1,12x,1024,1,500,,LS,Running,0,10,0\n"),
            "p.csv:3:4: cpu_milli: expected a non-negative integer, got '12x'");
  EXPECT_EQ(error("p1,1000,1024,1,1500,,LS,Running,0,10,0\n"),
            "p.csv:3:16: gpu_milli: expected an integer from 0 to 1000, got '1500'");
  EXPECT_EQ(error("p1,1000,1024,2,500,,LS,Running,0,10,0\n"),
            "p.csv:3:16: gpu_milli: a pod with num_gpu 2 takes whole GPUs; expected 1000, got "
            "'500'");
  EXPECT_EQ(error("p1,1000,1024,0,300,,LS,Running,0,10,0\n"),
            "p.csv:3:16: gpu_milli: a pod with num_gpu 0 takes no GPU; expected 0, got '300'");
  EXPECT_EQ(error("p1,1000,1024,1,0,,LS,Running,0,10,0\n"),
            "p.csv:3:16: gpu_milli: a pod with num_gpu 1 needs 1 to 1000 milli-GPU, got '0'");
  EXPECT_EQ(error("p1,1000,1024,-1,0,,LS,Running,0,10,0\n"),
            "p.csv:3:14: num_gpu: expected an integer from 0 to 64, got '-1'");
  EXPECT_EQ(error("p1,1000,1024,1,500,V100M16||T4,LS,Running,0,10,0\n"),
            "p.csv:3:20: gpu_spec: expected GPU model names separated by '|', got "
            "'V100M16||T4' (an empty name)");
  EXPECT_EQ(error("p1,1000,1024,1,500,T4|,LS,Running,0,10,0\n"),
            "p.csv:3:20: gpu_spec: expected GPU model names separated by '|', got 'T4|' (an "
            "empty name)");
  EXPECT_EQ(error("p1,1000,1024,1,500,,LS,Running,0,10,0,extra\n"),
            "p.csv:3:39: column 12: unexpected field; the row has 12 fields, the header 11");
  EXPECT_EQ(error("p1,1000,1024,1,500,,LS,Running,0,10\n"),
            "p.csv:3:36: scheduled_time: missing field; the row has 10 fields, the header 11");
  EXPECT_EQ(error("p1,1000,1024,1,500,\"T4,LS,Running,0,10,0\n"),
            "p.csv:3:20: gpu_spec: unterminated quoted field");
  EXPECT_EQ(error("p0,1000,1024,1,500,,LS,Running,0,10,0\n"),
            "p.csv:3:1: name: duplicate pod name 'p0'");
  EXPECT_EQ(error("p1,1000,1024,1,500,,LS,Running,x,10,0\n"),
            "p.csv:3:32: creation_time: expected a non-negative integer, got 'x'");
  // Header problems are reported on line 1.
  EXPECT_EQ(
      input_error_of(
          [] { load_openb_pods_text("name,cpu_milli,memory_mib,num_gpu\np,1,1,0\n", "p.csv"); }),
      "p.csv:1: gpu_milli: missing column; the header is 'name,cpu_milli,memory_mib,num_gpu'");
  EXPECT_THAT(input_error_of([] {
                load_openb_pods_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu\n", "p.csv");
              }),
              ::testing::StartsWith("p.csv:1:45: gpu: unknown column; expected columns: name,"));
}

TEST(OpenbPods, QuotedFieldsAndCrlf) {
  // The same pod written with quotes and CRLF line ends.
  const std::vector<TracePod> pods = load_openb_pods_text(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\r\n\"p,1\",\"2000\",1024,4,1000\r\n", "p.csv");
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0].name, "p,1");
  EXPECT_EQ(pods[0].cpu_milli, 2000);
  EXPECT_EQ(pods[0].memory_bytes, 1024 * kMiB);
  EXPECT_EQ(pods[0].num_gpu, 4);
  EXPECT_EQ(pods[0].scheduled_s, 0);
}

TEST(OpenbFiles, MissingFileIsAFileError) {
  EXPECT_THROW(load_openb_pods(openb_file("no_such_file.csv")), FileError);
}

}  // namespace openb_test
}  // namespace gantry
