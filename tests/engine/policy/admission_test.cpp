// The Scheduler's admission (scheduler.hpp, "Admission") on small hand-built clusters, with a
// scripted world that binds, runs and evicts at once unless told otherwise. Every expectation is
// worked by hand in the comment above it.

#include <gtest/gtest.h>

#include <deque>
#include <set>

#include "engine/policy/scheduler.hpp"
#include "tests/engine/policy/test_cluster.hpp"

namespace gantry {
namespace {

using testing::make_topology;
using testing::NodeDef;
using testing::occupy;
using testing::uniform_cluster;
using testing::worker_job;

constexpr int64_t kGpu = 1000;
const Time kT0 = Time::from_micros(1'700'000'000'000'000);

QueueSpec queue(std::string name, std::string cohort, int64_t gpus) {
  QueueSpec q;
  q.name = std::move(name);
  q.cohort = std::move(cohort);
  q.nominal[kQuotaGpu] = gpus * kGpu;
  return q;
}

// A scheduler with admission and a world that obeys it: binds are confirmed and pods run at once
// (unless a job is listed in `never_ready`), evictions are carried out at once.
struct Rig : Scheduler::Waker {
  Rig(Cluster c, std::vector<QueueSpec> queues, std::string placement = "binpack")
      : cluster(std::move(c)), scheduler([&] {
          SchedulerConfig config;
          config.placement = std::move(placement);
          config.order = QueueOrder::kPriority;
          config.admission.queues = std::move(queues);
          return config;
        }()) {
    scheduler.set_waker(this);
  }
  Rig(Cluster c, SchedulerConfig config) : cluster(std::move(c)), scheduler(std::move(config)) {
    scheduler.set_waker(this);
  }
  void wake_at(Time t) override { wakes.insert(t); }

  JobId submit(JobSpec spec, std::string queue_name, int64_t at_s = 0) {
    spec.queue = std::move(queue_name);
    spec.submit = kT0 + seconds(at_s);
    specs.push_back(std::move(spec));
    const auto id = static_cast<JobId>(specs.size() - 1);
    EXPECT_TRUE(scheduler.submit(id, specs.back(), specs.back().submit));
    return id;
  }
  void tell(Observation::Kind kind, JobId id, std::string reason = {}) {
    Observation o;
    o.kind = kind;
    o.at = now;
    o.job = id;
    o.reason = std::move(reason);
    const Status s = scheduler.observe(cluster, o);
    EXPECT_TRUE(s) << s.message();
  }
  // One cycle at `now`; returns the jobs it admitted. Evictions are carried out and recorded.
  std::vector<JobId> cycle() {
    std::vector<JobId> admitted;
    for (const BindAction& b : scheduler.run_cycle(cluster, now)) {
      admitted.push_back(b.job);
      binds[b.job] = b;
      tell(Observation::Kind::kBound, b.job);
      if (never_ready.count(b.job) == 0) tell(Observation::Kind::kRunning, b.job);
    }
    for (const EvictAction& e : scheduler.take_evictions()) {
      evictions.push_back(e);
      tell(Observation::Kind::kEvicted, e.job, e.reason);
    }
    EXPECT_TRUE(cluster.check_invariants());
    return admitted;
  }
  void finish(JobId id) { tell(Observation::Kind::kFinished, id); }
  WorkloadState state(JobId id) const { return scheduler.workloads().find(id)->state; }
  int64_t used_gpus(const std::string& q) const {
    const QuotaBook& book = *scheduler.quota_book();
    return book.used(book.find_queue(q), book.find_resource(kQuotaGpu)) / kGpu;
  }

  Cluster cluster;
  Scheduler scheduler;
  std::deque<JobSpec> specs;
  Time now = kT0;
  std::map<JobId, BindAction> binds;
  std::vector<EvictAction> evictions;
  std::set<JobId> never_ready;
  std::set<Time> wakes;
};

using Ids = std::vector<JobId>;

// Two 8-GPU nodes; a and b have 8 GPUs of quota each. a submits two 8-GPU jobs. In a cohort,
// the second borrows b's idle 8 and both start; without one, the second waits for the first.
TEST(Admission, ACohortLendsUnusedQuota) {
  for (const bool cohort : {true, false}) {
    SCOPED_TRACE(cohort ? "cohort" : "no cohort");
    Rig rig(uniform_cluster(2),
            {queue("a", cohort ? "c" : "", 8), queue("b", cohort ? "c" : "", 8)});
    const JobId j1 = rig.submit(worker_job(1, 8), "a");
    const JobId j2 = rig.submit(worker_job(1, 8), "a", 1);
    EXPECT_EQ(rig.cycle(), cohort ? (Ids{j1, j2}) : (Ids{j1}));
    EXPECT_EQ(rig.used_gpus("a"), cohort ? 16 : 8);
    if (!cohort) {
      rig.finish(j1);
      EXPECT_EQ(rig.cycle(), (Ids{j2}));
    }
  }
}

// a (nominal 8, no cohort) runs a 4-GPU job; its queue holds an 8-GPU job (head, does not fit
// the 4 left) and then a 4-GPU job. BestEffortFIFO admits the 4-GPU job; StrictFIFO waits.
TEST(Admission, StrictFifoBlocksBehindTheHeadBestEffortDoesNot) {
  for (const QueueingStrategy strategy :
       {QueueingStrategy::kBestEffortFifo, QueueingStrategy::kStrictFifo}) {
    std::vector<QueueSpec> queues{queue("a", "", 8)};
    queues[0].queueing = strategy;
    Rig rig(uniform_cluster(2), queues);
    const JobId running = rig.submit(worker_job(1, 4), "a");
    EXPECT_EQ(rig.cycle(), (Ids{running}));
    rig.submit(worker_job(1, 8), "a", 1);
    const JobId small = rig.submit(worker_job(1, 4), "a", 2);
    EXPECT_EQ(rig.cycle(), strategy == QueueingStrategy::kBestEffortFifo ? (Ids{small}) : (Ids{}));
  }
}

// Placement-aware admission: a has 16 GPUs of quota, the two 8-GPU nodes have 4 GPUs taken each
// by other load. An 8-GPU pod fits the quota but no node: it is not admitted and holds no quota.
// Once node 1 is free again it is admitted there.
TEST(Admission, QuotaAloneDoesNotAdmitAGangThatHasNoPlacement) {
  Rig rig(uniform_cluster(2), {queue("a", "", 16)});
  occupy(rig.cluster, 0, 4);
  const AllocationOwner load = occupy(rig.cluster, 1, 4);
  const JobId j = rig.submit(worker_job(1, 8), "a");
  EXPECT_EQ(rig.cycle(), (Ids{}));
  EXPECT_EQ(rig.used_gpus("a"), 0);
  EXPECT_EQ(rig.state(j), WorkloadState::kPending);
  ASSERT_TRUE(rig.cluster.release(load));
  EXPECT_EQ(rig.cycle(), (Ids{j}));
  EXPECT_EQ(rig.binds[j].pods[0].node, 1);
  EXPECT_EQ(rig.used_gpus("a"), 8);
}

// Preemption checks real nodes. y (4 GPUs, prio 0) is admitted first, on node 1 (node 0 is
// full of other load); then node 0 keeps 4 GPUs of that load and x (4 GPUs, prio 0) is admitted
// there. A prio-10 8-GPU job fits a's quota (16) but no node. Candidates newest first: x, then
// y. Without x, node 0 has 4 free: no; without y too, node 1 has 8: fits. Putting x back, it
// still fits: only y is evicted ("Preempted", by the preemptor), and the preemptor starts on
// node 1 in the next cycle.
TEST(Admission, PreemptionEvictsOnlyVictimsWhoseNodesHelp) {
  std::vector<QueueSpec> queues{queue("a", "", 16)};
  queues[0].within_queue = PreemptionPolicy::kLowerPriority;
  Rig rig(uniform_cluster(2), queues);
  const AllocationOwner full = occupy(rig.cluster, 0, 8);
  const JobId y = rig.submit(worker_job(1, 4), "a");
  EXPECT_EQ(rig.cycle(), (Ids{y}));
  EXPECT_EQ(rig.binds[y].pods[0].node, 1);
  ASSERT_TRUE(rig.cluster.release(full));
  occupy(rig.cluster, 0, 4);
  const AllocationOwner rest_of_1 = occupy(rig.cluster, 1, 4);  // so that x lands on node 0
  rig.now = kT0 + seconds(10);
  const JobId x = rig.submit(worker_job(1, 4), "a", 10);
  EXPECT_EQ(rig.cycle(), (Ids{x}));
  EXPECT_EQ(rig.binds[x].pods[0].node, 0);
  ASSERT_TRUE(rig.cluster.release(rest_of_1));

  rig.now = kT0 + seconds(20);
  const JobId big = rig.submit(worker_job(1, 8, 0, 10), "a", 20);
  EXPECT_EQ(rig.cycle(), (Ids{}));
  ASSERT_EQ(rig.evictions.size(), 1u);
  EXPECT_EQ(rig.evictions[0].job, y);
  EXPECT_EQ(rig.evictions[0].reason, "Preempted");
  EXPECT_EQ(rig.evictions[0].by, big);
  EXPECT_EQ(rig.state(x), WorkloadState::kRunning);
  EXPECT_EQ(rig.state(y), WorkloadState::kPending) << "back in its queue";
  EXPECT_EQ(rig.cycle(), (Ids{big}));
  EXPECT_EQ(rig.binds[big].pods[0].node, 1);
}

// The preemptor waits while its victims are being evicted (a live world takes time): it is not
// admitted, and no second set of victims is chosen, until the world reports the evictions.
TEST(Admission, APreemptorWaitsForItsVictims) {
  std::vector<QueueSpec> queues{queue("a", "", 8)};
  queues[0].within_queue = PreemptionPolicy::kLowerPriority;
  Rig rig(uniform_cluster(1), queues);
  const JobId low = rig.submit(worker_job(1, 8), "a");
  rig.cycle();
  const JobId high = rig.submit(worker_job(1, 8, 0, 5), "a", 1);
  EXPECT_TRUE(rig.scheduler.run_cycle(rig.cluster, rig.now).empty());
  const std::vector<EvictAction> first = rig.scheduler.take_evictions();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].job, low);
  EXPECT_TRUE(rig.scheduler.run_cycle(rig.cluster, rig.now).empty());
  EXPECT_TRUE(rig.scheduler.take_evictions().empty()) << "the victim is already on its way out";
  rig.tell(Observation::Kind::kEvicted, low, first[0].reason);
  EXPECT_EQ(rig.cycle(), (Ids{high}));
  EXPECT_EQ(rig.state(low), WorkloadState::kPending);
}

// A victim whose bind fails while it is being evicted (a live world can report that) stops
// holding its preemptor back: the preemptor is admitted in the next cycle.
TEST(Admission, AVictimWhoseBindFailsReleasesItsPreemptor) {
  std::vector<QueueSpec> queues{queue("a", "", 8)};
  queues[0].within_queue = PreemptionPolicy::kLowerPriority;
  Rig rig(uniform_cluster(1), queues);
  const JobId low = rig.submit(worker_job(1, 8), "a");
  ASSERT_EQ(rig.scheduler.run_cycle(rig.cluster, rig.now).size(), 1u);  // assumed, not bound
  const JobId high = rig.submit(worker_job(1, 8, 0, 5), "a", 1);
  EXPECT_TRUE(rig.scheduler.run_cycle(rig.cluster, rig.now).empty());
  ASSERT_EQ(rig.scheduler.take_evictions().size(), 1u);
  rig.tell(Observation::Kind::kBindFailed, low, "node gone");
  EXPECT_EQ(rig.scheduler.workloads().find(high)->victims_pending, 0);
  EXPECT_EQ(rig.cycle(), (Ids{high}));
}

// Reclaim across the cohort, then the victim's way back. a and b have 8 GPUs each on two 8-GPU
// nodes; b runs b1 (t 0) and b2 (t 1), 8 GPUs each: it borrows a's 8. a's job (within its
// nominal) reclaims: b2, the newest, goes ("InCohortReclamation"); b1 stays. b2 waits with its
// original submission time and starts again when a's job ends.
TEST(Admission, ReclaimingNominalQuotaEvictsTheNewestBorrower) {
  std::vector<QueueSpec> queues{queue("a", "c", 8), queue("b", "c", 8)};
  queues[0].reclaim_within_cohort = PreemptionPolicy::kAny;
  Rig rig(uniform_cluster(2), queues);
  const JobId b1 = rig.submit(worker_job(1, 8), "b");
  const JobId b2 = rig.submit(worker_job(1, 8), "b", 1);
  EXPECT_EQ(rig.cycle(), (Ids{b1, b2}));
  rig.now = kT0 + seconds(60);
  const JobId a1 = rig.submit(worker_job(1, 8), "a", 60);
  EXPECT_EQ(rig.cycle(), (Ids{}));
  ASSERT_EQ(rig.evictions.size(), 1u);
  EXPECT_EQ(rig.evictions[0].job, b2);
  EXPECT_EQ(rig.evictions[0].reason, "InCohortReclamation");
  EXPECT_EQ(rig.cycle(), (Ids{a1}));
  EXPECT_EQ(rig.scheduler.workloads().find(b2)->queue_key.submit, (kT0 + seconds(1)).micros());
  rig.finish(a1);
  EXPECT_EQ(rig.cycle(), (Ids{b2}));
}

// Within-nominal workloads are admitted before borrowing ones, whatever their priority: a (8,
// already using 8) has a prio-100 8-GPU job that would borrow; b (8, idle) a prio-0 job within
// its nominal. One 8-GPU node is free: b's job gets it.
TEST(Admission, WorkloadsWithinNominalQuotaGoBeforeBorrowers) {
  Rig rig(uniform_cluster(2), {queue("a", "c", 8), queue("b", "c", 8)});
  rig.submit(worker_job(1, 8), "a");
  rig.cycle();
  rig.submit(worker_job(1, 8, 0, 100), "a", 1);
  const JobId mine = rig.submit(worker_job(1, 8), "b", 2);
  EXPECT_EQ(rig.cycle(), (Ids{mine}));
}

// Fair sharing orders borrowers by dominant share. a and b have 4 GPUs of quota, c 8 (idle):
// capacity 16, on two 8-GPU nodes. b0 (4, within b's nominal) goes before a0 (8, borrowing).
// Then a uses 8 and b 4; 4 GPUs are left. a1 and b1 ask for 4 each, both borrowing. With a1,
// a's share would be (12 − 4) · 1000 / 16 = 500; with b1, b's (8 − 4) · 1000 / 16 = 250: b1
// goes first and takes the last 4. Without fair sharing, a1 (submitted first) does.
TEST(Admission, FairSharingAdmitsTheLowerShareFirst) {
  for (const bool fair : {true, false}) {
    SCOPED_TRACE(fair ? "fair sharing" : "no fair sharing");
    SchedulerConfig config;
    config.order = QueueOrder::kPriority;
    config.admission.queues = {queue("a", "c", 4), queue("b", "c", 4), queue("c", "c", 8)};
    config.admission.fair_sharing.enabled = fair;
    Rig rig(uniform_cluster(2), config);
    const JobId a0 = rig.submit(worker_job(1, 8), "a");
    const JobId b0 = rig.submit(worker_job(1, 4), "b");
    EXPECT_EQ(rig.cycle(), (Ids{b0, a0}));
    const JobId a1 = rig.submit(worker_job(1, 4), "a", 1);
    const JobId b1 = rig.submit(worker_job(1, 4), "b", 2);
    EXPECT_EQ(rig.cycle(), fair ? (Ids{b1}) : (Ids{a1}));
  }
}

// Admission fair sharing: queues by usage decayed with the half-life. a ran 8 GPUs for one
// half-life (1 h) and b nothing; both then ask for the one free node with a job each, a's
// submitted first and with higher priority: b goes first. Decayed usage of a after running U =
// 8 GPUs for one half-life h: U · (1 − 1/2) / (ln 2 / h) = 8 · 0.5 · 3600 / 0.693 = 20,775 GPU-s.
TEST(Admission, AdmissionFairSharingPrefersTheQueueThatUsedLess) {
  SchedulerConfig config;
  config.order = QueueOrder::kPriority;
  config.admission.queues = {queue("a", "", 16), queue("b", "", 16)};
  config.admission.admission_fair_sharing = AdmissionFairSharingConfig{hours(1)};
  Rig rig(uniform_cluster(2), config);
  const JobId old = rig.submit(worker_job(1, 8), "a");
  EXPECT_EQ(rig.cycle(), (Ids{old}));
  rig.now = kT0 + hours(1);
  rig.submit(worker_job(1, 8, 0, 50), "a", 3600);
  const JobId b = rig.submit(worker_job(1, 8), "b", 3601);
  EXPECT_EQ(rig.cycle(), (Ids{b}));
}

// waitForPodsReady, timeout 10 min, backoff 60 s doubling, capped at 90 s, backoffLimit 2. The
// job's pods never run. Admitted at 0; evicted at 10 min (PodsReadyTimeout), requeue 1, back
// at 11 min (60 s); admitted, evicted at 21 min, requeue 2, back at 22.5 min (120 s capped at
// 90 s); admitted, evicted at 32.5 min: it was requeued twice = backoffLimit, so it is
// deactivated. Two requeues, three timeouts: backoffLimit n allows n requeues.
TEST(Admission, PodsReadyTimeoutRequeuesWithBackoffThenDeactivates) {
  SchedulerConfig config;
  config.order = QueueOrder::kPriority;
  config.admission.queues = {queue("a", "", 8)};
  config.admission.wait_for_pods_ready =
      WaitForPodsReadyConfig{minutes(10), seconds(60), seconds(90), 2};
  Rig rig(uniform_cluster(1), config);
  const JobId j = rig.submit(worker_job(1, 8), "a");
  rig.never_ready.insert(j);
  const std::vector<Duration> admitted_at{Duration(0), minutes(11), seconds(22 * 60 + 30)};
  for (size_t round = 0; round < admitted_at.size(); ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    rig.now = kT0 + admitted_at[round];
    EXPECT_EQ(rig.cycle(), (Ids{j}));
    EXPECT_TRUE(rig.wakes.count(rig.now + minutes(10))) << "a cycle at the deadline";
    rig.now = rig.now + minutes(10) - microseconds(1);
    EXPECT_EQ(rig.cycle(), (Ids{}));
    EXPECT_TRUE(rig.evictions.size() == round) << "not before the deadline";
    rig.now = rig.now + microseconds(1);
    rig.cycle();
    ASSERT_EQ(rig.evictions.size(), round + 1);
    EXPECT_EQ(rig.evictions.back().reason, "PodsReadyTimeout");
    if (round + 1 < admitted_at.size()) {
      EXPECT_EQ(rig.state(j), WorkloadState::kPending);
      EXPECT_EQ(rig.scheduler.workloads().find(j)->retry_at, kT0 + admitted_at[round + 1]);
      rig.now = kT0 + admitted_at[round + 1] - microseconds(1);
      EXPECT_EQ(rig.cycle(), (Ids{})) << "still backing off";
    }
  }
  EXPECT_EQ(rig.state(j), WorkloadState::kInactive);
  EXPECT_EQ(rig.scheduler.workloads().find(j)->requeues, 2);
  EXPECT_EQ(rig.used_gpus("a"), 0);
  EXPECT_EQ(rig.scheduler.queued(), 0u);
}

// Partial admission: 4 workers of 8 GPUs with minReplicas 2 in a queue of 24 GPUs on four
// 8-GPU nodes: 4 workers need 32 > 24, 3 need 24: admitted with 3. With quota 32 but only two
// free nodes, admitted with 2; with one free node (1 < 2), not at all.
TEST(Admission, PartialAdmissionStartsWithAsManyWorkersAsFit) {
  JobSpec job = worker_job(4, 8);
  job.min_replicas = 2;
  {
    Rig rig(uniform_cluster(4), {queue("a", "", 24)});
    const JobId j = rig.submit(job, "a");
    EXPECT_EQ(rig.cycle(), (Ids{j}));
    EXPECT_EQ(rig.binds[j].pods.size(), 3u);
    EXPECT_EQ(rig.scheduler.workloads().find(j)->replicas, 3);
    EXPECT_EQ(rig.used_gpus("a"), 24);
  }
  {
    Rig rig(uniform_cluster(4), {queue("a", "", 32)});
    occupy(rig.cluster, 0, 8);
    occupy(rig.cluster, 1, 8);
    const JobId j = rig.submit(job, "a");
    EXPECT_EQ(rig.cycle(), (Ids{j}));
    EXPECT_EQ(rig.binds[j].pods.size(), 2u);
  }
  {
    Rig rig(uniform_cluster(4), {queue("a", "", 32)});
    for (NodeId n = 0; n < 3; ++n) occupy(rig.cluster, n, 8);
    rig.submit(job, "a");
    EXPECT_EQ(rig.cycle(), (Ids{}));
  }
}

// Topology: racks 0 and 1 of two 8-GPU nodes each. Node 1 (rack 0) has 4 GPUs of other load, so
// rack 0 has 12 free and rack 1 16. A gang of two 8-GPU pods required in one rack goes to rack 1
// (nodes 2 and 3). With 4 GPUs of load on node 3 as well, no rack holds 16: required waits,
// preferred goes across racks.
TEST(Admission, ARequiredRackKeepsTheGangInOneRack) {
  const auto cluster = [] {
    std::vector<NodeDef> defs(4);
    defs[2].rack = defs[3].rack = 1;
    return Cluster(make_topology(defs));
  };
  JobSpec gang = worker_job(2, 8);
  gang.topology = TopologyConstraint{TopologyConstraint::Level::kRack, true};
  {
    Rig rig(cluster(), {queue("a", "", 64)});
    occupy(rig.cluster, 1, 4);
    const JobId j = rig.submit(gang, "a");
    EXPECT_EQ(rig.cycle(), (Ids{j}));
    EXPECT_EQ(rig.binds[j].pods[0].node, 2);
    EXPECT_EQ(rig.binds[j].pods[1].node, 3);
  }
  for (const bool required : {true, false}) {
    Rig rig(cluster(), {queue("a", "", 64)});
    occupy(rig.cluster, 1, 4);
    occupy(rig.cluster, 3, 4);
    gang.topology.required = required;
    const JobId j = rig.submit(gang, "a");
    EXPECT_EQ(rig.cycle(), required ? (Ids{}) : (Ids{j}));
  }
}

// A job naming a queue the configuration does not have is refused at submission.
TEST(Admission, AnUnknownQueueIsRefused) {
  Rig rig(uniform_cluster(1), {queue("a", "", 8)});
  JobSpec job = worker_job(1, 8);
  job.queue = "nope";
  const Status s = rig.scheduler.submit(7, job, kT0);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("'nope'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace gantry
