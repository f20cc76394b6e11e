#include "sim/fragmentation_experiment.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/sim/fragmentation_fixtures.hpp"

namespace gantry {
namespace {

using testing::pod;
using testing::two_gpu_node;

TEST(ArrivalOrder, ShufflesEveryPodOnceThenExtendsToTheLimit) {
  // Requests 1 + 0.5 + 0 + 2 = 3.5 GPUs; capacity 4 GPUs at 130 % -> extend while the next drawn
  // pod keeps the total at or below 5.2 GPUs (the authors' tuneUpPods): the total ends in
  // (5.2 - 2, 5.2], 2 being the largest pod.
  const std::vector<JobSpec> pods{pod("a", 1, 0), pod("b", 0, 500), pod("c", 0, 0), pod("d", 2, 0)};
  const std::vector<uint32_t> order = arrival_order(pods, 4.0, 130, 7);
  ASSERT_GE(order.size(), 4u);
  std::vector<uint32_t> first(order.begin(), order.begin() + 4);
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (std::vector<uint32_t>{0, 1, 2, 3}));
  double total = 0;
  for (uint32_t i : order) total += requested_gpus(pods[i]);
  EXPECT_LE(total, 5.2 + 1e-9);
  EXPECT_GT(total, 3.2);
  EXPECT_EQ(order, arrival_order(pods, 4.0, 130, 7)) << "same seed, same order";
  bool differs = false;
  for (uint64_t seed = 8; seed < 20 && !differs; ++seed)
    differs = arrival_order(pods, 4.0, 130, seed) != order;
  EXPECT_TRUE(differs);
}

TEST(ArrivalOrder, APodThatReachesTheLimitExactlyIsTaken) {
  // Two 0.5-GPU pods on 1 GPU at 150 %: the extension adds one more 0.5 (1.5 is not over 1.5)
  // and stops at the next (2.0 would be), whatever the seed.
  const std::vector<JobSpec> pods{pod("a", 0, 500), pod("b", 0, 500)};
  for (uint64_t seed = 1; seed < 6; ++seed)
    EXPECT_EQ(arrival_order(pods, 1.0, 150, seed).size(), 3u);
}

TEST(ShuffledNodes, ARandomOrderPerSeed) {
  const Topology t = two_gpu_node(8);
  const Topology a = shuffled_nodes(t, 3);
  ASSERT_EQ(a.nodes.size(), 8u);
  std::vector<std::string> names;
  for (const NodeInfo& n : a.nodes) names.push_back(n.name);
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::string>{"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"}));
  std::vector<std::string> again;
  for (const NodeInfo& n : shuffled_nodes(t, 3).nodes) again.push_back(n.name);
  EXPECT_EQ(again, names) << "same seed, same order";
  bool differs = false;
  for (uint64_t seed = 4; seed < 10 && !differs; ++seed) {
    std::vector<std::string> other;
    for (const NodeInfo& n : shuffled_nodes(t, seed).nodes) other.push_back(n.name);
    differs = other != names;
  }
  EXPECT_TRUE(differs);
}

TEST(RequestedGpus, CountsSharesAsFractions) {
  EXPECT_DOUBLE_EQ(requested_gpus(pod("s", 0, 460)), 0.46);
  EXPECT_DOUBLE_EQ(requested_gpus(pod("w", 4, 0)), 4.0);
  EXPECT_DOUBLE_EQ(requested_gpus(pod("c", 0, 0)), 0.0);
}

// Two 600-milli shares then one whole GPU on a node with two GPUs (capacity 2 GPUs = 2000 milli).
// Typical pods: share-600 (weight 2/3) and 1-GPU (1/3).
//   pod 1 (0.6 GPU): arrived 30 %; best fit puts it on GPU 0 -> free {400, 1000}
//     F = share class: GPU 0 has 400 < 600 free -> 400 · 2/3; 1-GPU class: the partly used
//         GPU 0's 400 -> 400 · 1/3; F = 400 milli = 20 % of 2000
//   pod 2 (0.6 GPU): arrived 60 %; only GPU 1 fits -> free {400, 400}
//     F = (400 + 400) · 2/3 + (400 + 400) · 1/3 = 800 = 40 %
//   pod 3 (1 GPU): arrived 110 %; no fully free GPU -> fails; state unchanged.
// Level L is the mean over the pods whose arrival rounds to L, else over those rounding to
// L ± 1, else level L − 1's value: so 29 and 31 read pod 1 (30 %), 28 and 32 carry on.
TEST(FragmentationRun, HandDerivedCurve) {
  FragmentationInput input;
  input.topology = two_gpu_node();
  input.pods = {pod("s1", 0, 600), pod("s2", 0, 600), pod("w", 1, 0)};
  const auto typical = typical_pods(input.pods, 1.0);
  const FragmentationRun run = run_fragmentation_once(input, typical, {0, 1, 2}, "bestfit", 1, 110);
  ASSERT_EQ(run.allocated_pct.size(), 111u);
  EXPECT_DOUBLE_EQ(run.allocated_pct[0], 0);
  EXPECT_DOUBLE_EQ(run.allocated_pct[28], 0);
  EXPECT_DOUBLE_EQ(run.allocated_pct[29], 30);
  EXPECT_DOUBLE_EQ(run.allocated_pct[30], 30);
  EXPECT_DOUBLE_EQ(run.allocated_pct[58], 30);
  EXPECT_DOUBLE_EQ(run.allocated_pct[59], 60);
  EXPECT_DOUBLE_EQ(run.allocated_pct[60], 60);
  EXPECT_DOUBLE_EQ(run.allocated_pct[110], 60);
  EXPECT_NEAR(run.fragmentation_pct[28], 0, 1e-9);
  EXPECT_NEAR(run.fragmentation_pct[30], 20, 1e-6);
  EXPECT_NEAR(run.fragmentation_pct[60], 40, 1e-6);
  EXPECT_DOUBLE_EQ(run.failed_pods[108], 0);
  EXPECT_DOUBLE_EQ(run.failed_pods[109], 1);
  EXPECT_DOUBLE_EQ(run.failed_pods[110], 1);
  EXPECT_EQ(run.pods_arrived, 3u);
}

// Three 10-milli shares on 4 GPUs (4000 milli): arrivals 0.25 %, 0.5 %, 0.75 %. Rounded half to
// even they fall in levels 0, 0, 1, so level 0 is the mean of the allocations after pods 1 and
// 2, (0.25 + 0.5) / 2 = 0.375 %, and level 1 is 0.75 %.
TEST(FragmentationRun, LevelsAverageThePodsThatRoundToThem) {
  FragmentationInput input;
  input.topology = two_gpu_node(2);
  input.pods = {pod("a", 0, 10), pod("b", 0, 10), pod("c", 0, 10)};
  const FragmentationRun run =
      run_fragmentation_once(input, typical_pods(input.pods, 1.0), {0, 1, 2}, "bestfit", 1, 2);
  ASSERT_EQ(run.allocated_pct.size(), 3u);
  EXPECT_DOUBLE_EQ(run.allocated_pct[0], 0.375);
  EXPECT_DOUBLE_EQ(run.allocated_pct[1], 0.75);
  EXPECT_DOUBLE_EQ(run.allocated_pct[2], 0.75) << "no pod at 2 %: the window reads level 1";
}

FragmentationInput mixed_input() {
  FragmentationInput input;
  input.topology = two_gpu_node(6);
  for (int i = 0; i < 12; ++i) {
    input.pods.push_back(pod("s" + std::to_string(i), 0, 250 + 100 * (i % 5)));
    if (i % 3 == 0) input.pods.push_back(pod("w" + std::to_string(i), 1 + i % 2, 0));
  }
  return input;
}

TEST(FragmentationExperiment, ResultDoesNotDependOnThreads) {
  ExperimentOptions options;
  options.policies = {"Random", "BestFit", "FGD"};
  options.seeds = 4;
  options.threads = 1;
  const FragmentationResult one = run_fragmentation_experiment(mixed_input(), options);
  options.threads = 3;
  const FragmentationResult three = run_fragmentation_experiment(mixed_input(), options);
  ASSERT_EQ(one.policies.size(), 3u);
  for (size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(one.policies[p].policy, three.policies[p].policy);
    EXPECT_EQ(one.policies[p].allocated_gpu_pct_mean, three.policies[p].allocated_gpu_pct_mean);
    EXPECT_EQ(one.policies[p].fragmentation_pct_sd, three.policies[p].fragmentation_pct_sd);
  }
  EXPECT_EQ(one.capacity_gpus, 12);
  EXPECT_EQ(one.policies[0].arrival_pct.size(), 131u);
}

// Mean and sample standard deviation over seeds, checked against the per-seed runs.
TEST(FragmentationExperiment, AveragesSeedsWithSampleStandardDeviation) {
  const FragmentationInput input = mixed_input();
  ExperimentOptions options;
  options.policies = {"FGD"};
  options.seeds = 3;
  options.base_seed = 5;
  const FragmentationResult r = run_fragmentation_experiment(input, options);
  const auto typical = typical_pods(input.pods, options.typical_coverage);
  std::vector<double> at100;
  for (uint64_t s = 5; s < 8; ++s) {
    const auto order = arrival_order(input.pods, 12, 130, s);
    at100.push_back(
        run_fragmentation_once(input, typical, order, "fgd", s, 130).allocated_pct[100]);
  }
  const double mean = (at100[0] + at100[1] + at100[2]) / 3;
  double ss = 0;
  for (double v : at100) ss += (v - mean) * (v - mean);
  EXPECT_DOUBLE_EQ(r.policies[0].allocated_gpu_pct_mean[100], mean);
  EXPECT_NEAR(r.policies[0].allocated_gpu_pct_sd[100], std::sqrt(ss / 2), 1e-12);
  EXPECT_DOUBLE_EQ(r.policies[0].unallocated_gpu_pct_mean[100], 100 - mean);
}

TEST(FragmentationExperiment, UnknownPolicyIsRejected) {
  ExperimentOptions options;
  options.policies = {"Tetris"};
  EXPECT_THROW(run_fragmentation_experiment(mixed_input(), options), std::invalid_argument);
}

}  // namespace
}  // namespace gantry
