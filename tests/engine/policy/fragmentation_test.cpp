#include "engine/policy/fragmentation.hpp"

#include <gtest/gtest.h>

#include <random>

#include "tests/engine/policy/sharing_test_cluster.hpp"

namespace gantry {
namespace {

using testing::cpu_pod;
using testing::share_pod;
using testing::shared_cluster;
using testing::SharedNode;
using testing::weighted;
using testing::whole_pod;

// The brief's workload: a 500-milli share (2 cores) 50%, one whole GPU (4 cores) 30%,
// CPU-only (1 core) 20%.
std::vector<WeightedPodClass> three_classes(std::vector<std::string> whole_models = {}) {
  return {weighted(share_pod(500, 2'000), 0.5), weighted(whole_pod(1, 4'000), 0.3, whole_models),
          weighted(cpu_pod(1'000), 0.2)};
}

TEST(Fragmentation, NodeValueByHand) {
  // 2 GPUs with {1000, 300} free (T = 1300) and 8 cores free.
  //   share 500: fits (GPU 0 has 1000 >= 500); fragmented = GPUs with < 500 free = 300
  //   1 GPU:     fits (GPU 0 fully free);      fragmented = partly used GPUs      = 300
  //   CPU-only:  can use no GPU;                fragmented = T                     = 1300
  // F = 0.5·300 + 0.3·300 + 0.2·1300 = 150 + 90 + 260 = 500 milli-GPU.
  const Cluster c = shared_cluster({SharedNode{"A100-80G", 8'000, {1000, 300}}});
  FragmentationModel model(three_classes());
  EXPECT_NEAR(model.node_fragmentation(c, 0), 500.0, 1e-6);
  EXPECT_NEAR(model.cluster_fragmentation(c), 500.0, 1e-6);
}

TEST(Fragmentation, ClassesThatCannotFitCountTheWholeIdleGpu) {
  // Same GPUs, but only 3 cores free: the 1-GPU class (4 cores) no longer fits anywhere on the
  // node, so it sees all of T = 1300 as fragmented:
  // F = 0.5·300 + 0.3·1300 + 0.2·1300 = 150 + 390 + 260 = 800.
  const Cluster short_of_cpu = shared_cluster({SharedNode{"A100-80G", 8'000, {1000, 300}, 5'000}});
  FragmentationModel model(three_classes());
  EXPECT_NEAR(model.node_fragmentation(short_of_cpu, 0), 800.0, 1e-6);

  // Enough CPU, but the 1-GPU class only allows V100s: same 800 on an A100 node.
  const Cluster wrong_model = shared_cluster({SharedNode{"A100-80G", 8'000, {1000, 300}}});
  FragmentationModel restricted(three_classes({"V100"}));
  EXPECT_NEAR(restricted.node_fragmentation(wrong_model, 0), 800.0, 1e-6);
  // ...and back to 500 on a V100 node.
  const Cluster right_model = shared_cluster({SharedNode{"V100", 8'000, {1000, 300}}});
  EXPECT_NEAR(restricted.node_fragmentation(right_model, 0), 500.0, 1e-6);

  // No GPU with 500 free: {400, 300} (T = 700). share 500 cannot fit: 700; 1 GPU cannot fit:
  // 700; CPU-only: 700. F = 700 whatever the weights.
  const Cluster no_room = shared_cluster({SharedNode{"A100-80G", 8'000, {400, 300}}});
  EXPECT_NEAR(model.node_fragmentation(no_room, 0), 700.0, 1e-6);
}

TEST(Fragmentation, NodesWithoutGpusOrWithoutIdleGpuHaveNone) {
  const Cluster c =
      shared_cluster({SharedNode{"", 8'000, {}}, SharedNode{"A100-80G", 8'000, {0, 0}}});
  FragmentationModel model(three_classes());
  EXPECT_EQ(model.node_fragmentation(c, 0), 0.0);
  EXPECT_EQ(model.node_fragmentation(c, 1), 0.0);
}

TEST(Fragmentation, MultiGpuClassesNeedThatManyFullyFreeGpus) {
  // 4 GPUs {1000, 1000, 1000, 600} (T = 3600), workload: 4 whole GPUs only. Three fully free
  // GPUs are not enough: all 3600 fragmented. With a 2-GPU class instead: fits, fragmented =
  // the partly used GPU = 600.
  const Cluster c = shared_cluster({SharedNode{"A100-80G", 32'000, {1000, 1000, 1000, 600}}});
  FragmentationModel four({weighted(whole_pod(4), 1.0)});
  EXPECT_NEAR(four.node_fragmentation(c, 0), 3600.0, 1e-6);
  FragmentationModel two({weighted(whole_pod(2), 1.0)});
  EXPECT_NEAR(two.node_fragmentation(c, 0), 600.0, 1e-6);
}

TEST(Fragmentation, BestMoveChoosesTheGpuThatFragmentsLeast) {
  // GPUs {1000, 600}, workload: 500-milli shares only. Before: both GPUs hold 500, F = 0.
  //   pod 500 on GPU 0 -> {500, 600}: both still hold 500, F = 0, ΔF = 0
  //   pod 500 on GPU 1 -> {1000, 100}: 100 cannot hold 500, F = 100, ΔF = 100
  // FGD takes GPU 0, where best fit (least free that fits) would take GPU 1.
  const Cluster c = shared_cluster({SharedNode{"A100-80G", 8'000, {1000, 600}}});
  FragmentationModel model({weighted(share_pod(500), 1.0)});
  const auto move = model.best_move(c, 0, share_pod(500));
  EXPECT_EQ(move.gpu_mask, 0b01u);
  EXPECT_EQ(move.delta, 0);
  EXPECT_EQ(c.best_fit_share_gpu(0, 500), 1);
}

TEST(Fragmentation, BestMoveDeltaByHand) {
  // One GPU with 600 free, workload {share 500: 0.5, 1 GPU: 0.5}.
  // Before: share fits (600 >= 500) -> 0; 1 GPU cannot fit -> 600. F = 0.5·600 = 300.
  // A 200 share -> 400 free: share cannot fit -> 400; 1 GPU -> 400. F = 400. ΔF = +100.
  const Cluster c = shared_cluster({SharedNode{"A100-80G", 8'000, {600}}});
  FragmentationModel model({weighted(share_pod(500), 0.5), weighted(whole_pod(1), 0.5)});
  const auto move = model.best_move(c, 0, share_pod(200));
  EXPECT_NEAR(static_cast<double>(move.delta) / static_cast<double>(model.weight_total()), 100.0,
              1e-6);
  EXPECT_EQ(move.gpu_mask, 0b1u);
}

// F_n straight from the definition, one class and one GPU at a time.
double reference_fragmentation(const Cluster& c, NodeId n, const std::vector<WeightedPodClass>& w) {
  if (c.gpu_type_of(n) < 0) return 0;
  double total_weight = 0;
  for (const auto& x : w) total_weight += x.weight;
  const auto milli = c.gpu_free_milli(n);
  double idle = 0;
  for (int m : milli) idle += m;
  double f = 0;
  for (const auto& x : w) {
    const PodClass& p = x.pod;
    double frag = idle;
    bool model_ok = p.gpu_models.empty();
    for (const auto& name : p.gpu_models)
      if (c.topology().gpus.find(name) == c.gpu_type_of(n)) model_ok = true;
    if (p.needs_gpu() && model_ok && p.cpu_milli <= c.free(n).cpu_milli) {
      const int need = p.gpu_milli > 0 ? p.gpu_milli : 1000;
      const int count = p.gpu_milli > 0 ? 1 : p.gpus;
      int room = 0;
      double unusable = 0;
      for (int m : milli) {
        if (m >= need) {
          ++room;
        } else {
          unusable += m;
        }
      }
      if (room >= count) frag = unusable;
    }
    f += x.weight / total_weight * frag;
  }
  return f;
}

TEST(Fragmentation, IncrementalTotalsMatchTheDefinitionAfterRandomChanges) {
  std::mt19937 rng(11);  // fixed seed
  std::vector<SharedNode> nodes;
  for (int i = 0; i < 12; ++i)
    nodes.push_back(SharedNode{i % 3 == 0 ? "V100" : "A100-80G", 16'000,
                               std::vector<int>(i % 4 == 3 ? 2 : 8, 1000)});
  nodes.push_back(SharedNode{"", 16'000, {}});
  Cluster c = shared_cluster(nodes);
  const std::vector<WeightedPodClass> workload = {
      weighted(share_pod(250, 2'000), 3), weighted(share_pod(500, 4'000), 2),
      weighted(share_pod(810, 1'000), 2), weighted(whole_pod(1, 6'000), 2, {"V100"}),
      weighted(whole_pod(2, 8'000), 1),   weighted(cpu_pod(4'000), 1)};
  FragmentationModel model(workload);
  for (int step = 0; step < 300; ++step) {
    const NodeId n = static_cast<NodeId>(rng() % 12);
    const int kind = static_cast<int>(rng() % 3);
    if (kind == 0) {
      const int milli = 50 * (1 + static_cast<int>(rng() % 19));
      const Resources pod = share_pod(milli, 500);
      if (pod.fits_in(c.free(n))) testing::take(c, n, pod, model.best_move(c, n, pod).gpu_mask);
    } else if (kind == 1) {
      const Resources pod = whole_pod(1, 500);
      if (pod.fits_in(c.free(n))) testing::take(c, n, pod, c.lowest_free_gpus(n, 1));
    } else {
      const Resources pod = cpu_pod(700);
      if (pod.fits_in(c.free(n))) testing::take(c, n, pod, 0);
    }
    double expected = 0;
    for (NodeId m = 0; m < c.node_count(); ++m) expected += reference_fragmentation(c, m, workload);
    ASSERT_NEAR(model.cluster_fragmentation(c), expected, 1e-3) << "step " << step;
  }
}

TEST(Fragmentation, EmptyWorkloadMeansNoFragmentation) {
  const Cluster c = shared_cluster({SharedNode{"A100-80G", 8'000, {1000, 300}}});
  FragmentationModel model;
  EXPECT_EQ(model.cluster_fragmentation(c), 0.0);
}

}  // namespace
}  // namespace gantry
