// Node shapes of the spot-GPU trace (adapters/traces/spot_shapes.hpp). The real file's counts
// were taken by hand with (from scenarios/data/spot-gpu-2026/)
//   awk -F, 'NR>1{print $1","$2","$3}' node_info_df.csv | sort | uniq -c | sort -rn
// which prints (count, gpu_model, gpus, vCPUs):
//   2492 A10,1,128 · 901 GPU-series-1,1,192 · 432 A100-SXM4-80GB,8,128 · 219 H800,8,192 ·
//   122 GPU-series-2,8,192 · 77 GPU-series-1,8,192 · 22 A800-SXM4-80GB,8,128 ·
//   10 GPU-series-1,4,192 · 2 A10,1,126 · 1 GPU-series-1,1,128        (sum 4278 = the file's rows)

#include "adapters/traces/spot_shapes.hpp"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "engine/core/errors.hpp"

namespace gantry {
namespace {

using Row = std::tuple<int64_t, std::string, int, int64_t>;  // nodes, model, gpus, vCPUs

std::vector<Row> rows(const std::vector<SpotShape>& shapes) {
  std::vector<Row> out;
  for (const SpotShape& s : shapes) out.emplace_back(s.nodes, s.gpu_model, s.gpus, s.vcpus);
  return out;
}

TEST(SpotShapes, RealFileCountedByHand) {
  const std::vector<SpotShape> shapes = load_spot_shapes(
      std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/spot-gpu-2026/node_info_df.csv");
  // The awk counts above, under the catalog's model names (A100-SXM4-80GB -> A100-80G,
  // A800-SXM4-80GB -> A800-80G).
  EXPECT_EQ(rows(shapes), (std::vector<Row>{{2492, "A10", 1, 128},
                                            {901, "GPU-series-1", 1, 192},
                                            {432, "A100-80G", 8, 128},
                                            {219, "H800", 8, 192},
                                            {122, "GPU-series-2", 8, 192},
                                            {77, "GPU-series-1", 8, 192},
                                            {22, "A800-80G", 8, 128},
                                            {10, "GPU-series-1", 4, 192},
                                            {2, "A10", 1, 126},
                                            {1, "GPU-series-1", 1, 128}}));
  int64_t total = 0;
  for (const SpotShape& s : shapes) total += s.nodes;
  EXPECT_EQ(total, 4278);
  EXPECT_EQ(shapes[2].node_class, "A100-80Gx8-128000m-NVSwitch");
}

TEST(SpotShapes, TiesSortByModelThenSize) {
  // Two H800x8 nodes, one A10x1 of 64 vCPUs, one A10x1 of 32, one CPU-only node: counts 2, 1, 1,
  // 1; the ones go by model ("" < "A10"), then vCPUs (32 < 64).
  const std::vector<SpotShape> shapes = load_spot_shapes_text(
      "gpu_model,gpu_capacity_num,cpu_num,node_name\n"
      "A10,1,64,a\nH800,8,192,b\n,0,16,c\nH800,8,192,d\nA10,1,32,e\n",
      "s.csv");
  EXPECT_EQ(rows(shapes),
            (std::vector<Row>{
                {2, "H800", 8, 192}, {1, "", 0, 16}, {1, "A10", 1, 32}, {1, "A10", 1, 64}}));
}

TEST(SpotShapes, ErrorsAreTheImportersOwn) {
  try {
    load_spot_shapes_text("gpu_model,gpu_capacity_num,cpu_num,node_name\nB300,8,192,a\n", "s.csv");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
  }
}

}  // namespace
}  // namespace gantry
