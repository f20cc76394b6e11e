#include "engine/policy/gpu_selection.hpp"

#include <gtest/gtest.h>

#include "tests/engine/policy/test_cluster.hpp"

namespace gantry {
namespace {

using testing::kGi;
using testing::make_topology;
using testing::NodeDef;

// One 8-GPU node in islands of `island` GPUs with the GPUs of `busy` taken.
Cluster node_with(int island, uint64_t busy) {
  Cluster c(make_topology({NodeDef{.island_size = island}}));
  testing::take(c, 0, Resources{0, 0, std::popcount(busy)}, busy);
  return c;
}

TEST(IslandBestFit, OneIslandWithFewestFreeThatFits) {
  // Islands of 2: {0,1} {2,3} {4,5} {6,7}. Busy: 0, 2, 3. Free per island: 1, 0, 2, 2.
  const Cluster c = node_with(2, 0b0000'1101);
  EXPECT_EQ(island_best_fit_gpus(c, 0, 1), 0b0000'0010u);  // island 0, its only free GPU
  EXPECT_EQ(island_best_fit_gpus(c, 0, 2), 0b0011'0000u);  // island 2 (ties to the lowest)
  EXPECT_EQ(islands_needed(c, 0, 1), 1);
  EXPECT_EQ(islands_needed(c, 0, 2), 1);
}

TEST(IslandBestFit, SpansTheFewestIslandsWhenOneIsNotEnough) {
  // Islands of 4: {0-3} {4-7}. Busy: 0 and 4. Free: 3 and 3.
  const Cluster c = node_with(4, 0b0001'0001);
  EXPECT_EQ(islands_needed(c, 0, 4), 2);
  // Island 0 (most free, lowest index) whole, then one GPU of island 1.
  EXPECT_EQ(island_best_fit_gpus(c, 0, 4), 0b0010'1110u);
  EXPECT_EQ(island_best_fit_gpus(c, 0, 6), 0b1110'1110u);
}

TEST(IslandBestFit, RemainderGoesToTheBestFittingIsland) {
  // Islands of 2. Free per island: 2, 2, 1, 2 (GPU 5 busy). 5 GPUs: islands 0 and 1 whole,
  // then 1 GPU into island 2 (1 free, the tightest) rather than island 3.
  const Cluster c = node_with(2, 0b0010'0000);
  EXPECT_EQ(islands_needed(c, 0, 5), 3);
  EXPECT_EQ(island_best_fit_gpus(c, 0, 5), 0b0001'1111u);
}

TEST(IslandBestFit, TooFewFreeGpusGiveNothing) {
  const Cluster c = node_with(4, 0b1111'1100);
  EXPECT_EQ(island_best_fit_gpus(c, 0, 3), 0u);
  EXPECT_GT(islands_needed(c, 0, 3), 8);
  EXPECT_EQ(island_best_fit_gpus(c, 0, 0), 0u);
  EXPECT_EQ(islands_needed(c, 0, 0), 0);
}

TEST(IslandBestFit, NodeWithoutIslandsTakesTheLowestFreeGpus) {
  const Cluster c = node_with(0, 0b0000'0101);
  EXPECT_EQ(islands_needed(c, 0, 5), 1);
  EXPECT_EQ(island_best_fit_gpus(c, 0, 3), 0b0001'1010u);
}

}  // namespace
}  // namespace gantry
