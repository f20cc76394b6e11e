#include "engine/policy/target_workload.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

Resources share(int milli, int64_t cpu) { return Resources{cpu, 0, 0, milli}; }

TEST(TypicalPods, TakeTheMostFrequentClassesUntil95PercentAndRenormalise) {
  // 20 pods: A ×10, B ×6, C ×3, D ×1. 95% of 20 = 19 pods: A (10), + B (16), + C (19) -> stop.
  // Weights: 10/19, 6/19, 3/19; D is not typical.
  const PodClass a = pod_class_of(share(500, 2'000));
  const PodClass b = pod_class_of(Resources{4'000, 0, 1, 0});
  const PodClass c = pod_class_of(Resources{8'000, 0, 0, 0});
  const PodClass d = pod_class_of(Resources{8'000, 0, 8, 0});
  std::vector<PodClass> pods;
  for (int i = 0; i < 10; ++i) pods.push_back(a);
  for (int i = 0; i < 6; ++i) pods.push_back(b);
  for (int i = 0; i < 3; ++i) pods.push_back(c);
  pods.push_back(d);
  const auto typical = typical_pod_classes(pods);
  ASSERT_EQ(typical.size(), 3u);
  EXPECT_EQ(typical[0].pod, a);
  EXPECT_DOUBLE_EQ(typical[0].weight, 10.0 / 19.0);
  EXPECT_EQ(typical[1].pod, b);
  EXPECT_DOUBLE_EQ(typical[1].weight, 6.0 / 19.0);
  EXPECT_EQ(typical[2].pod, c);
  EXPECT_DOUBLE_EQ(typical[2].weight, 3.0 / 19.0);

  // Half the pods: A alone holds 10 of 20.
  const auto half = typical_pod_classes(pods, 0.5);
  ASSERT_EQ(half.size(), 1u);
  EXPECT_DOUBLE_EQ(half[0].weight, 1.0);
}

TEST(TypicalPods, ClassesAreKeyedByCpuGpuAndModels) {
  // Memory does not split a class; CPU, share size and model sets do. Model lists are sorted
  // and de-duplicated, so "V100M32|V100M16" and "V100M16|V100M32" are one class.
  EXPECT_EQ(pod_class_of(Resources{1'000, 1, 0, 300}), pod_class_of(Resources{1'000, 999, 0, 300}));
  EXPECT_NE(pod_class_of(share(300, 1'000)), pod_class_of(share(300, 2'000)));
  EXPECT_NE(pod_class_of(share(300, 1'000)), pod_class_of(share(310, 1'000)));
  EXPECT_EQ(pod_class_of(share(300, 1'000), {"V100M32", "V100M16", "V100M16"}),
            pod_class_of(share(300, 1'000), {"V100M16", "V100M32"}));
  EXPECT_NE(pod_class_of(share(300, 1'000), {"T4"}), pod_class_of(share(300, 1'000)));
  // Models mean nothing to a pod without GPUs.
  EXPECT_EQ(pod_class_of(Resources{1'000, 0, 0, 0}, {"T4"}),
            pod_class_of(Resources{1'000, 0, 0, 0}));
}

TEST(TypicalPods, EqualCountsAreOrderedByClassNotByInput) {
  // The authors' order for equal counts: descending by CPU, then GPU milli per GPU, then GPU
  // count, so a 900 share comes before a 100 share of the same CPU, and a 2-core pod before both.
  const PodClass small = pod_class_of(share(100, 1'000));
  const PodClass big = pod_class_of(share(900, 1'000));
  const PodClass more_cpu = pod_class_of(share(100, 2'000));
  const std::vector<PodClass> one = {big, small, more_cpu};
  const std::vector<PodClass> other = {small, more_cpu, big};
  const auto x = typical_pod_classes(one, 1.0);
  const auto y = typical_pod_classes(other, 1.0);
  ASSERT_EQ(x.size(), 3u);
  EXPECT_EQ(x[0].pod, more_cpu);
  EXPECT_EQ(x[1].pod, big);
  EXPECT_EQ(x[2].pod, small);
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(y[0].pod, more_cpu);
  EXPECT_EQ(y[1].pod, big);
  // At the coverage boundary the order decides which class is typical: a third of the pods
  // takes just the first one.
  const auto third = typical_pod_classes(other, 1.0 / 3.0);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0].pod, more_cpu);
  // A whole GPU counts as 1000 milli per GPU: it comes before a 900 share of the same CPU.
  const PodClass whole = pod_class_of(Resources{1'000, 0, 1, 0});
  const auto z = typical_pod_classes(std::vector<PodClass>{big, whole}, 1.0);
  EXPECT_EQ(z[0].pod, whole);
  EXPECT_TRUE(typical_pod_classes(std::vector<PodClass>{}).empty());
}

}  // namespace
}  // namespace gantry
