// The seam between the scheduler and a world, exercised by a scripted fake world that fails
// binds, loses nodes and evicts on command. After every step: no gang is half allocated, no
// allocation is orphaned, and the Cluster's own invariants hold.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/policy/scheduler.hpp"
#include "tests/engine/policy/test_cluster.hpp"

namespace gantry {
namespace {

using testing::uniform_cluster;
using testing::worker_job;

// Records wake-up requests instead of running a loop.
struct RecordingWaker : Scheduler::Waker {
  std::vector<Time> at;
  void wake_at(Time t) override { at.push_back(t); }
};

Time t(int64_t s) { return Time::from_micros(s * 1'000'000); }

// A world the test drives by hand. bind() accepts or refuses a gang as scripted.
class ScriptedWorld {
 public:
  ScriptedWorld(Cluster& cluster, Scheduler& scheduler)
      : cluster_(cluster), scheduler_(scheduler) {}

  // Runs a cycle at `now` and binds what it returns; gangs listed in fail_next_bind are refused
  // (one pod's bind fails: the world reports the gang, having undone the others).
  std::vector<JobId> cycle(Time now) {
    std::vector<JobId> bound;
    for (const BindAction& a : scheduler_.run_cycle(cluster_, now)) {
      check();  // assumed gangs are whole in the model before the world acts
      Observation o;
      o.at = now;
      o.job = a.job;
      if (fail_next_bind.erase(a.job) != 0) {
        o.kind = Observation::Kind::kBindFailed;
        o.pod = static_cast<int32_t>(a.pods.size()) - 1;
        o.reason = "409 Conflict";
      } else {
        o.kind = Observation::Kind::kBound;
        bound.push_back(a.job);
      }
      tell(o);
    }
    return bound;
  }

  void tell(Observation o) {
    const Status s = scheduler_.observe(cluster_, o);
    ASSERT_TRUE(s) << s.message();
    check();
  }
  void tell(Observation::Kind kind, JobId job, Time at, std::string reason = "") {
    Observation o;
    o.kind = kind;
    o.job = job;
    o.at = at;
    o.reason = std::move(reason);
    tell(o);
  }

  // The invariants of the seam.
  void check() const {
    const Status c = cluster_.check_invariants();
    ASSERT_TRUE(c) << c.message();
    std::set<std::pair<int32_t, int32_t>> owned;
    scheduler_.workloads().for_each([&](const Workload& w) {
      const int pods = w.spec->total_pods();
      int held = 0;
      for (int p = 0; p < pods; ++p)
        held += cluster_.allocation_of(AllocationOwner{w.id, p}) != nullptr;
      if (is_placed(w.state)) {
        EXPECT_EQ(held, pods) << "workload " << w.id << " is " << to_string(w.state)
                              << " but half allocated";
      } else {
        EXPECT_EQ(held, 0) << "workload " << w.id << " is " << to_string(w.state)
                           << " but holds allocations";
      }
    });
    for (NodeId n = 0; n < cluster_.node_count(); ++n)
      for (const AllocationOwner& o : cluster_.owners_on(n)) {
        if (o.workload >= 1'000'000) continue;  // background load put there by the test
        const Workload* w = scheduler_.workloads().find(o.workload);
        EXPECT_TRUE(w != nullptr && is_placed(w->state)) << "orphaned allocation of " << o.workload;
      }
  }

  std::set<JobId> fail_next_bind;

 private:
  Cluster& cluster_;
  Scheduler& scheduler_;
};

SchedulerConfig config() {
  SchedulerConfig c;
  c.placement = "binpack";
  return c;
}

std::vector<WorkloadState> states(const Workload& w) {
  std::vector<WorkloadState> out;
  for (const WorkloadTransition& tr : w.history) out.push_back(tr.state);
  return out;
}

using S = WorkloadState;
using K = Observation::Kind;

TEST(ScriptedWorld, AFailedBindForgetsTheWholeGangAndRequeuesItWithBackoff) {
  Cluster cluster = uniform_cluster(2);
  Scheduler s(config());
  RecordingWaker waker;
  s.set_waker(&waker);
  ScriptedWorld world(cluster, s);
  const JobSpec gang = worker_job(2, 8, 0);  // two 8-GPU pods: the whole cluster
  ASSERT_TRUE(s.submit(1, gang, t(0)));

  world.fail_next_bind = {1};
  EXPECT_TRUE(world.cycle(t(0)).empty());
  const Workload& w = *s.workloads().find(1);
  EXPECT_EQ(w.state, S::kPending);
  EXPECT_EQ(w.last_reason, "409 Conflict");
  EXPECT_EQ(cluster.allocation_count(), 0u) << "both pods forgotten, not just the failed one";
  // Backoff 1 s after the first failure (SchedulerConfig::bind_backoff), and a wake-up asked.
  EXPECT_EQ(w.retry_at, t(1));
  EXPECT_EQ(waker.at, std::vector<Time>{t(1)});
  EXPECT_TRUE(world.cycle(t(0)).empty()) << "still backing off";
  EXPECT_EQ(s.queued(), 1u);

  // Fails again at 1 s: the next backoff doubles to 2 s.
  world.fail_next_bind = {1};
  EXPECT_TRUE(world.cycle(t(1)).empty());
  EXPECT_EQ(w.retry_at, t(3));
  EXPECT_EQ(world.cycle(t(3)), std::vector<JobId>{1});
  EXPECT_EQ(w.state, S::kBound);
  EXPECT_EQ(w.bind_failures, 0) << "a confirmed bind resets the backoff";
  EXPECT_EQ(states(w), (std::vector<S>{S::kPending, S::kAssumed, S::kPending, S::kAssumed,
                                       S::kPending, S::kAssumed, S::kBound}));
  EXPECT_EQ(w.history[1].at, t(0));
  EXPECT_EQ(w.history[3].at, t(1));
  EXPECT_EQ(w.history[6].at, t(3));
}

TEST(ScriptedWorld, BackoffDoublesUpToTheCap) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config());
  ScriptedWorld world(cluster, s);
  const JobSpec job = worker_job(1, 1, 0);
  ASSERT_TRUE(s.submit(1, job, t(0)));
  // 1, 2, 4, 8, then 10 (the cap), 10: retry instants 1, 3, 7, 15, 25, 35.
  const int64_t expected[] = {1, 3, 7, 15, 25, 35};
  int64_t now = 0;
  for (int64_t retry : expected) {
    world.fail_next_bind = {1};
    EXPECT_TRUE(world.cycle(t(now)).empty());
    EXPECT_EQ(s.workloads().find(1)->retry_at, t(retry));
    now = retry;
  }
}

TEST(ScriptedWorld, RunningWorkloadsStayVisibleAndFinishReleases) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config());
  ScriptedWorld world(cluster, s);
  const JobSpec a = worker_job(1, 4, 0);
  const JobSpec b = worker_job(1, 4, 0);
  ASSERT_TRUE(s.submit(1, a, t(0)));
  ASSERT_TRUE(s.submit(2, b, t(0)));
  EXPECT_EQ(world.cycle(t(0)), (std::vector<JobId>{1, 2}));
  world.tell(K::kRunning, 1, t(5));
  EXPECT_EQ(s.workloads().count(S::kRunning), 1u);
  EXPECT_EQ(s.workloads().count(S::kBound), 1u);
  EXPECT_EQ(cluster.owners_on(0).size(), 2u) << "both visible, with their owners";
  world.tell(K::kFinished, 1, t(9));
  EXPECT_EQ(s.workloads().find(1)->state, S::kFinished);
  EXPECT_EQ(cluster.free(0).gpus, 4);
  // Contradictions are errors and change nothing.
  Observation again{K::kFinished, t(10), 1};
  EXPECT_FALSE(s.observe(cluster, again));
  Observation unknown{K::kRunning, t(10), 77};
  EXPECT_EQ(s.observe(cluster, unknown).message(), "running: no workload 77");
  EXPECT_FALSE(s.submit(2, b, t(10))) << "ids are unique";
}

TEST(ScriptedWorld, AnEvictedWorkloadIsPendingAgainAndPlacedElsewhere) {
  Cluster cluster = uniform_cluster(2);
  Scheduler s(config());
  ScriptedWorld world(cluster, s);
  const JobSpec job = worker_job(1, 8, 0);
  ASSERT_TRUE(s.submit(1, job, t(0)));
  ASSERT_EQ(world.cycle(t(0)), std::vector<JobId>{1});
  world.tell(K::kRunning, 1, t(1));
  const NodeId first = s.workloads().find(1)->pods[0].node;

  // The node fails; the world evicts what ran there and the scheduler places it on the other.
  Observation failed;
  failed.kind = K::kNodeFailed;
  failed.node = first;
  failed.at = t(2);
  world.tell(failed);
  EXPECT_FALSE(cluster.schedulable(first));
  world.tell(K::kEvicted, 1, t(2), "node failed");
  const Workload& w = *s.workloads().find(1);
  EXPECT_EQ(w.state, S::kPending);
  EXPECT_EQ(w.evictions, 1);
  EXPECT_EQ(w.last_reason, "node failed");
  EXPECT_EQ(w.retry_at, Time()) << "an eviction is no bind failure: no backoff";
  ASSERT_EQ(world.cycle(t(2)), std::vector<JobId>{1});
  EXPECT_NE(w.pods[0].node, first);
  EXPECT_EQ(states(w), (std::vector<S>{S::kPending, S::kAssumed, S::kBound, S::kRunning,
                                       S::kEvicted, S::kPending, S::kAssumed, S::kBound}));

  // The node comes back, and a removed node takes nothing.
  Observation recovered;
  recovered.kind = K::kNodeRecovered;
  recovered.node = first;
  recovered.at = t(3);
  world.tell(recovered);
  EXPECT_TRUE(cluster.schedulable(first));
  ASSERT_TRUE(cluster.remove_node(first));
  const JobSpec more = worker_job(1, 8, 3);
  ASSERT_TRUE(s.submit(2, more, t(3)));
  EXPECT_TRUE(world.cycle(t(3)).empty()) << "the only other node is full";
}

TEST(ScriptedWorld, WithdrawingPendingAndPlacedWorkloads) {
  Cluster cluster = uniform_cluster(1);
  Scheduler s(config());
  ScriptedWorld world(cluster, s);
  const JobSpec big = worker_job(1, 8, 0);
  const JobSpec waiting = worker_job(1, 8, 1);
  const JobSpec backing_off = worker_job(1, 4, 2);
  ASSERT_TRUE(s.submit(1, big, t(0)));
  ASSERT_TRUE(s.submit(2, waiting, t(1)));
  ASSERT_EQ(world.cycle(t(1)), std::vector<JobId>{1});

  // A queued workload leaves at once.
  auto r = s.withdraw(2, t(2));
  ASSERT_TRUE(r);
  EXPECT_FALSE(r.value().has_value());
  EXPECT_EQ(s.workloads().find(2)->state, S::kWithdrawn);
  EXPECT_EQ(s.queued(), 0u);

  // A running one needs the world to evict it first; then it is withdrawn, not requeued.
  world.tell(K::kRunning, 1, t(2));
  r = s.withdraw(1, t(3));
  ASSERT_TRUE(r);
  ASSERT_TRUE(r.value().has_value());
  EXPECT_EQ(r.value()->job, 1);
  EXPECT_EQ(r.value()->reason, "withdrawn");
  world.tell(K::kEvicted, 1, t(3), "withdrawn");
  EXPECT_EQ(s.workloads().find(1)->state, S::kWithdrawn);
  EXPECT_EQ(cluster.free(0).gpus, 8);

  // One backing off after a failed bind leaves the backoff too.
  ASSERT_TRUE(s.submit(3, backing_off, t(4)));
  world.fail_next_bind = {3};
  EXPECT_TRUE(world.cycle(t(4)).empty());
  ASSERT_TRUE(s.withdraw(3, t(4)));
  EXPECT_EQ(s.queued(), 0u);
  EXPECT_TRUE(world.cycle(t(20)).empty());
  EXPECT_FALSE(s.withdraw(3, t(21))) << "already ended";
  EXPECT_EQ(s.workloads().count(S::kWithdrawn), 3u);
}

// A long random script: binds fail, pods run and finish, workloads are evicted and withdrawn,
// nodes fail and recover; check() runs after every observation.
TEST(ScriptedWorld, RandomScriptNeverHalfAllocatesAGang) {
  std::mt19937 rng(99);  // fixed seed
  Cluster cluster = uniform_cluster(4);
  Scheduler s(config());
  ScriptedWorld world(cluster, s);
  std::vector<JobSpec> specs;
  specs.reserve(400);
  for (int i = 0; i < 400; ++i)
    specs.push_back(
        worker_job(1 + static_cast<int>(rng() % 3), 1 + static_cast<int>(rng() % 8), i));
  int next = 0;
  for (int64_t now = 0; now < 600; ++now) {
    if (next < 400 && rng() % 2 == 0) {
      ASSERT_TRUE(s.submit(next, specs[static_cast<size_t>(next)], t(now)));
      ++next;
    }
    if (rng() % 4 == 0)
      world.fail_next_bind.insert(
          static_cast<JobId>(rng() % static_cast<unsigned>(std::max(next, 1))));
    world.cycle(t(now));
    // Move some workloads along.
    std::vector<std::pair<JobId, S>> snapshot;
    s.workloads().for_each([&](const Workload& w) { snapshot.emplace_back(w.id, w.state); });
    std::sort(snapshot.begin(), snapshot.end());
    for (const auto& [id, state] : snapshot) {
      const unsigned dice = rng() % 20;
      if (state == S::kBound && dice < 8)
        world.tell(K::kRunning, id, t(now));
      else if (state == S::kRunning && dice < 3)
        world.tell(K::kFinished, id, t(now));
      else if (state == S::kRunning && dice == 3)
        world.tell(K::kEvicted, id, t(now), "preempted");
      else if (state == S::kBound && dice == 4)
        world.tell(K::kFailed, id, t(now), "image pull");
      else if (dice == 5 && !is_terminal(state)) {
        const auto r = s.withdraw(id, t(now));
        ASSERT_TRUE(r);
        if (r.value()) world.tell(K::kEvicted, id, t(now), "withdrawn");
      }
    }
    if (rng() % 50 == 0) {
      Observation o;
      o.node = static_cast<NodeId>(rng() % 4);
      o.kind = cluster.ready(o.node) ? K::kNodeFailed : K::kNodeRecovered;
      o.at = t(now);
      world.tell(o);
    }
  }
  EXPECT_GT(s.workloads().count(S::kFinished), 50u);
  EXPECT_GT(s.workloads().count(S::kWithdrawn), 10u);
}

}  // namespace
}  // namespace gantry
