// Why a pending gang waits (Scheduler::pending_reason(), explain_unplaced(); issue #26 §5), in
// the simulated world: what the cluster queue's "reason" says. Hand-built clusters; every count
// in the expected texts is worked out in the comment above it.

#include <gtest/gtest.h>

#include "engine/policy/scheduler.hpp"
#include "engine/policy/unplaced_reason.hpp"
#include "tests/engine/policy/test_cluster.hpp"

namespace gantry {
namespace pending_reason_test {

using testing::make_topology;
using testing::NodeDef;
using testing::occupy;
using testing::worker_job;

const Time kT0 = Time::from_micros(1'700'000'000'000'000);
constexpr int64_t kGpu = 1000;

// Racks r0 (node0, node1) and r1 (node2, node3): 8 A100-80G GPUs and 96 cores each.
Cluster two_racks() {
  return Cluster(make_topology({NodeDef{0}, NodeDef{0}, NodeDef{1}, NodeDef{1}}));
}

Scheduler plain_scheduler() {
  SchedulerConfig config;
  config.placement = "binpack";
  return Scheduler(config);
}

TEST(PendingReason, AGangKeptToOneRackSaysWhatItNeedsAndTheBestRacksRoom) {
  Cluster c = two_racks();
  occupy(c, 0, 8);  // node0 full
  occupy(c, 2, 4);  // node2 half
  Scheduler s = plain_scheduler();
  JobSpec job = worker_job(3, 8);
  job.topology = TopologyConstraint{TopologyConstraint::Level::kRack, true};
  ASSERT_TRUE(s.submit(0, job, kT0));
  EXPECT_TRUE(s.run_cycle(c, kT0).empty());
  // Room for an 8-GPU pod: r0 has node1 (1), r1 has node3 (1; node2 has 4 free): the first
  // best, r0. Free: 0 + 8 + 4 + 8 = 20 GPUs; cores: 4 x 96 - 2 x 1 (the occupying pods) = 382.
  const ClusterBars bars(c);
  EXPECT_EQ(s.pending_reason(c, 0, bars),
            "needs 3 pods of 8 GPUs in one rack: the best rack, r0, has room for 1; 20 GPUs free "
            "on 4 eligible nodes, at most 8 on one node, 382 cores free");
  // node1 cordoned: r0 has no room, r1 still 1; 3 nodes eligible with 12 GPUs, 382 - 96 cores.
  c.set_cordoned(1, true);
  EXPECT_EQ(s.pending_reason(c, 0, bars),
            "needs 3 pods of 8 GPUs in one rack: the best rack, r1, has room for 1; 3 of 4 nodes "
            "eligible (1 cordoned); 12 GPUs free on 3 eligible nodes, at most 8 on one node, 286 "
            "cores free");
  // Without the rack constraint the room is counted over the cluster: node3 alone (1).
  EXPECT_EQ(explain_unplaced(c, worker_job(3, 8), bars).text,
            "needs 3 pods of 8 GPUs: room for 1; 3 of 4 nodes eligible (1 cordoned); 12 GPUs free "
            "on 3 eligible nodes, at most 8 on one node, 286 cores free");
  EXPECT_EQ(s.pending_reason(c, 7, bars), "") << "no such workload";
}

TEST(PendingReason, AGangTheClusterHasRoomForWaitsForTheNextCycle) {
  Cluster c = two_racks();
  Scheduler s = plain_scheduler();
  const JobSpec job = worker_job(2, 8);  // outlives the workload, as submit() asks
  ASSERT_TRUE(s.submit(0, job, kT0));
  const ClusterBars bars(c);
  EXPECT_EQ(s.pending_reason(c, 0, bars), "fits now: waits for the next scheduling cycle");
  ASSERT_EQ(s.run_cycle(c, kT0).size(), 1u);
  EXPECT_EQ(s.pending_reason(c, 0, bars), "") << "placed: not pending";
}

TEST(PendingReason, NotReadyNodesAreCountedBeforeCordonedOnes) {
  Cluster c = two_racks();
  c.set_ready(0, false);
  c.set_cordoned(0, true);  // counted once, as not ready
  c.set_cordoned(1, true);
  c.set_ready(2, false);
  c.set_ready(3, false);
  EXPECT_EQ(explain_unplaced(c, worker_job(1, 8), ClusterBars(c)).text,
            "none of the 4 nodes is eligible (3 not ready, 1 cordoned)");
}

QueueSpec queue(std::string name, int64_t gpus, std::optional<int64_t> borrow_gpus) {
  QueueSpec q;
  q.name = std::move(name);
  q.cohort = "ml";
  q.nominal[kQuotaGpu] = gpus * kGpu;
  if (borrow_gpus) q.borrowing[kQuotaGpu] = *borrow_gpus * kGpu;
  return q;
}

TEST(PendingReason, AdmissionSaysWhichQuotaRefusesTheWorkload) {
  Cluster c = two_racks();
  SchedulerConfig config;
  config.placement = "binpack";
  config.admission.queues = {queue("research", 8, 4), queue("prod", 8, std::nullopt)};
  Scheduler s(config);
  JobSpec big = worker_job(2, 8);  // 16 GPUs
  big.queue = "research";
  ASSERT_TRUE(s.submit(0, big, kT0));
  EXPECT_TRUE(s.run_cycle(c, kT0).empty());
  // research: 0 used + 16 > 8 nominal + 4 borrowing limit.
  EXPECT_EQ(s.pending_reason(c, 0, ClusterBars(c)),
            "queue research is over its borrowing limit of gpu: 0 used + 16 asked > 8 nominal + "
            "4 borrowable");
  // prod may borrow without limit, but the cohort lends only 8 + 8 = 16 GPUs: 24 asked.
  JobSpec bigger = worker_job(3, 8);
  bigger.queue = "prod";
  ASSERT_TRUE(s.submit(1, bigger, kT0));
  EXPECT_TRUE(s.run_cycle(c, kT0).empty());
  EXPECT_EQ(s.pending_reason(c, 1, ClusterBars(c)),
            "the cohort of queue prod has no gpu left to lend: 0 of 16 lent, 24 more asked");
}

}  // namespace pending_reason_test
}  // namespace gantry
