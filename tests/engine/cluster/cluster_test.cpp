#include "engine/cluster/cluster.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "tests/engine/cluster/cluster_fixtures.hpp"

namespace gantry {
namespace {

using testing::kGi;
using testing::share;
using testing::whole;

// Node 0: 4 A100s; node 1: 2 A100s; node 2: no GPUs.
Cluster small_cluster() { return testing::a100_cluster(/*cpu_node=*/true); }

// Owner k: pod 0 of workload k.
AllocationOwner own(int32_t k) { return AllocationOwner{k, 0}; }

// Everything the header promises, recomputed from the per-GPU free milli.
void expect_consistent(const Cluster& c) {
  int64_t free_total = 0;
  int fully_free_total = 0;
  std::vector<int> histogram(5, 0);
  for (NodeId n = 0; n < c.node_count(); ++n) {
    uint64_t full = 0, partial = 0;
    int largest_partial = 0;
    int64_t sum = 0;
    for (int g = 0; g < c.gpu_count(n); ++g) {
      const int m = c.gpu_free_milli(n, g);
      ASSERT_GE(m, 0);
      ASSERT_LE(m, 1000);
      sum += m;
      if (m == 1000) full |= 1ull << g;
      if (m > 0 && m < 1000) {
        partial |= 1ull << g;
        largest_partial = std::max(largest_partial, m);
      }
    }
    EXPECT_EQ(c.free_gpu_mask(n), full) << "node " << n;
    EXPECT_EQ(c.partial_gpu_mask(n), partial) << "node " << n;
    EXPECT_EQ(c.free(n).gpus, std::popcount(full)) << "node " << n;
    EXPECT_EQ(c.free(n).gpu_milli, largest_partial) << "node " << n;
    EXPECT_EQ(c.node_free_milli(n), sum) << "node " << n;
    free_total += sum;
    if (c.gpu_type_of(n) >= 0 && c.gpu_count(n) > 0) {
      fully_free_total += std::popcount(full);
      ++histogram[static_cast<size_t>(std::popcount(full))];
    }
  }
  EXPECT_EQ(c.free_gpu_milli(), free_total);
  const GpuTypeId a100 = c.topology().gpus.find("A100-80G");
  EXPECT_EQ(c.free_gpus(a100), fully_free_total);
  const auto& h = c.free_gpu_histogram(a100);
  for (size_t k = 0; k < histogram.size(); ++k)
    EXPECT_EQ(k < h.size() ? h[k] : 0, histogram[k]) << "histogram bucket " << k;
}

TEST(ClusterSharing, AFreshClusterHasEveryGpuFullyFree) {
  const Cluster c = small_cluster();
  EXPECT_EQ(c.total_gpu_milli(), 6'000);  // 4 + 2 GPUs
  EXPECT_EQ(c.free_gpu_milli(), 6'000);
  EXPECT_EQ(c.free(0), c.node_class(0).capacity);  // nothing shared: free == capacity
  EXPECT_EQ(c.gpu_free_milli(0, 3), 1000);
  EXPECT_EQ(c.node_free_milli(2), 0);
  expect_consistent(c);
}

TEST(ClusterSharing, AShareTakesMilliFromOneGpuAndLeavesTheMaskWhenTheGpuWasFullyFree) {
  Cluster c = small_cluster();
  ASSERT_TRUE(c.allocate(0, share(300), 1ull << 2, own(1)));
  // GPU 2 now has 1000 − 300 = 700 free: partly used, so no longer fully free.
  EXPECT_EQ(c.gpu_free_milli(0, 2), 700);
  EXPECT_EQ(c.free_gpu_mask(0), 0b1011u);
  EXPECT_EQ(c.partial_gpu_mask(0), 0b0100u);
  EXPECT_EQ(c.free(0).gpus, 3);
  EXPECT_EQ(c.free(0).gpu_milli, 700);
  EXPECT_EQ(c.node_free_milli(0), 3'700);
  EXPECT_EQ(c.allocated_gpu_milli(), 300);
  EXPECT_EQ(c.free(0).cpu_milli, 31'000);
  expect_consistent(c);

  // A second share on the same GPU: 700 − 700 = 0 left, neither fully free nor partly.
  ASSERT_TRUE(c.allocate(0, share(700), 1ull << 2, own(2)));
  EXPECT_EQ(c.gpu_free_milli(0, 2), 0);
  EXPECT_EQ(c.partial_gpu_mask(0), 0u);
  EXPECT_EQ(c.free(0).gpu_milli, 0);
  expect_consistent(c);

  // Releasing one share makes the GPU partly used again; the other brings it back whole.
  ASSERT_TRUE(c.release(own(1)));
  EXPECT_EQ(c.gpu_free_milli(0, 2), 300);
  EXPECT_EQ(c.free(0).gpus, 3);
  expect_consistent(c);
  ASSERT_TRUE(c.release(own(2)));
  EXPECT_EQ(c.free_gpu_mask(0), 0b1111u);
  EXPECT_EQ(c.free(0), c.node_class(0).capacity);
  expect_consistent(c);
}

TEST(ClusterSharing, FitsInSeesPartlyUsedAndFullyFreeGpus) {
  Cluster c = small_cluster();
  // Node 1: GPU 0 whole-allocated, GPU 1 has 400 free after a 600 share.
  ASSERT_TRUE(c.allocate(1, whole(1), 0b01, own(1)));
  ASSERT_TRUE(c.allocate(1, share(600), 0b10, own(2)));
  EXPECT_TRUE(share(400).fits_in(c.free(1)));                 // 400 <= 400 on GPU 1
  EXPECT_FALSE(share(401).fits_in(c.free(1)));                // no GPU has 401
  EXPECT_FALSE(whole(1).fits_in(c.free(1)));                  // no fully free GPU
  EXPECT_TRUE(share(999).fits_in(c.free(0)));                 // node 0 has fully free GPUs
  EXPECT_FALSE(share(1).fits_in(c.free(2)));                  // no GPUs at all
  EXPECT_TRUE(share(500).fits_in(c.node_class(0).capacity));  // an empty node of that class
}

TEST(ClusterSharing, BestFitShareGpuPrefersTheFullestGpuThatStillFits) {
  Cluster c = small_cluster();
  ASSERT_TRUE(c.allocate(0, share(500), 1ull << 0, own(1)));  // GPU 0: 500 free
  ASSERT_TRUE(c.allocate(0, share(800), 1ull << 1, own(2)));  // GPU 1: 200 free
  ASSERT_TRUE(c.allocate(0, share(600), 1ull << 3, own(3)));  // GPU 3: 400 free; GPU 2 fully free
  EXPECT_EQ(c.best_fit_share_gpu(0, 200), 1);                 // 200 fits exactly on GPU 1
  EXPECT_EQ(c.best_fit_share_gpu(0, 300), 3);                 // 400 is the least free >= 300
  EXPECT_EQ(c.best_fit_share_gpu(0, 450), 0);                 // 500
  EXPECT_EQ(c.best_fit_share_gpu(0, 600), 2);                 // only the fully free GPU
  ASSERT_TRUE(c.allocate(0, whole(1), 1ull << 2, own(4)));
  EXPECT_EQ(c.best_fit_share_gpu(0, 600), -1);
}

TEST(ClusterSharing, VersionsCountChangesPerNode) {
  Cluster c = small_cluster();
  EXPECT_EQ(c.version(0), 0u);
  ASSERT_TRUE(c.allocate(0, whole(2), 0b11, own(1)));
  ASSERT_TRUE(c.allocate(2, Resources{1'000, kGi, 0, 0}, 0, own(2)));
  ASSERT_TRUE(c.release(own(1)));
  EXPECT_EQ(c.version(0), 2u);
  EXPECT_EQ(c.version(1), 0u);
  EXPECT_EQ(c.version(2), 1u);
  EXPECT_EQ(c.change_count(), 3u);
  const Cluster copy = c;
  EXPECT_NE(copy.instance_id(), c.instance_id());  // caches must not confuse the two
}

TEST(ClusterSharing, GpuRequestCountsFollowAllocations) {
  Cluster c = small_cluster();
  ASSERT_TRUE(c.allocate(0, share(500), 1ull << 0, own(1)));
  ASSERT_TRUE(c.allocate(0, share(500), 1ull << 0, own(2)));
  ASSERT_TRUE(c.allocate(0, whole(2), 0b1100, own(3)));
  ASSERT_TRUE(c.allocate(0, Resources{1'000, kGi, 0, 0}, 0, own(4)));  // no GPU: not counted
  EXPECT_EQ(c.pods_with_gpu_request(0, 0, 500), 2);
  EXPECT_EQ(c.pods_with_gpu_request(0, 2, 0), 1);
  EXPECT_EQ(c.gpu_requests(0).size(), 2u);
  ASSERT_TRUE(c.release(own(1)));
  ASSERT_TRUE(c.release(own(3)));
  EXPECT_EQ(c.pods_with_gpu_request(0, 0, 500), 1);
  EXPECT_EQ(c.pods_with_gpu_request(0, 2, 0), 0);
  EXPECT_EQ(c.gpu_requests(0).size(), 1u);
}

TEST(ClusterSharing, WholeGpuBehaviourIsUnchanged) {
  Cluster c = small_cluster();
  ASSERT_TRUE(c.allocate(0, whole(3), 0b0111, own(1)));
  EXPECT_EQ(c.free(0).gpus, 1);
  EXPECT_EQ(c.free_gpu_mask(0), 0b1000u);
  EXPECT_EQ(c.lowest_free_gpus(0, 1), 0b1000u);
  EXPECT_EQ(c.lowest_free_gpus(0, 2), 0u);
  const GpuTypeId a100 = c.topology().gpus.find("A100-80G");
  EXPECT_EQ(c.free_gpus(a100), 3);              // 1 on node 0 + 2 on node 1
  EXPECT_EQ(c.free_gpu_histogram(a100)[1], 1);  // node 0
  EXPECT_EQ(c.free_gpu_histogram(a100)[2], 1);  // node 1
  EXPECT_EQ(c.free(0).gpu_milli, 0);            // whole GPUs leave no partly used GPU
  expect_consistent(c);
  ASSERT_TRUE(c.release(own(1)));
  EXPECT_EQ(c.free(0), c.node_class(0).capacity);
  expect_consistent(c);
}

TEST(ClusterSharing, RandomMixOfWholeAndShareAllocationsKeepsTheInvariants) {
  std::mt19937 rng(7);  // fixed seed: the same sequence every run
  Cluster c = small_cluster();
  std::vector<AllocationOwner> held;
  int32_t next = 1;
  for (int step = 0; step < 2'000; ++step) {
    if (!held.empty() && rng() % 3 == 0) {
      const size_t i = rng() % held.size();
      ASSERT_TRUE(c.release(held[i]));
      held[i] = held.back();
      held.pop_back();
    } else {
      const NodeId n = static_cast<NodeId>(rng() % 2);
      Resources request;
      uint64_t mask = 0;
      if (rng() % 2) {
        const int milli = 1 + static_cast<int>(rng() % 999);
        const int g = c.best_fit_share_gpu(n, milli);
        if (g < 0) continue;
        request = share(milli, 0);
        mask = 1ull << g;
      } else {
        const int k = 1 + static_cast<int>(rng() % 2);
        mask = c.lowest_free_gpus(n, k);
        if (mask == 0) continue;
        request = whole(k, 0);
      }
      held.push_back(own(next++));
      ASSERT_TRUE(c.allocate(n, request, mask, held.back()));
    }
    if (step % 97 == 0) {
      expect_consistent(c);
      ASSERT_TRUE(c.check_invariants()) << c.check_invariants().message();
    }
  }
  for (const AllocationOwner& o : held) ASSERT_TRUE(c.release(o));
  expect_consistent(c);
  EXPECT_EQ(c.free_gpu_milli(), 6'000);
  EXPECT_EQ(c.allocation_count(), 0u);
}

}  // namespace
}  // namespace gantry
