#pragma once
// A scheduler with an elasticity policy and a scripted world for the elastic policy tests: binds
// are confirmed and pods run at once, evictions are carried out at once; resizes are recorded
// and carried out (kResized) only when a test says so, so a test sees a resize in flight.

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/policy/scheduler.hpp"
#include "tests/engine/policy/test_cluster.hpp"

namespace gantry::testing {

inline const Time kT0 = Time::from_micros(1'700'000'000'000'000);
inline constexpr int64_t kGpuMilli = 1000;

// An elastic job of `workers` Workers of `gpus` GPUs each, within [min, max] by `step`.
inline JobSpec elastic_job(int workers, int gpus, int min, int max, int step, int priority = 0) {
  JobSpec j = worker_job(workers, gpus, 0, priority);
  j.elastic = ElasticSpec{min, max, step, Duration(0)};
  return j;
}

inline QueueSpec quota_queue(std::string name, std::string cohort, int64_t gpus) {
  QueueSpec q;
  q.name = std::move(name);
  q.cohort = std::move(cohort);
  q.nominal[kQuotaGpu] = gpus * kGpuMilli;
  return q;
}

struct ElasticRig : Scheduler::Waker {
  ElasticRig(Cluster c, SchedulerConfig config)
      : cluster(std::move(c)), scheduler(std::move(config)) {
    scheduler.set_waker(this);
  }
  void wake_at(Time t) override { wakes.insert(t); }

  // Submits at kT0 + at_s (the job's submit time too) into admission queue `queue_name`.
  JobId submit(JobSpec spec, int64_t at_s = 0, std::string queue_name = "") {
    spec.queue = std::move(queue_name);
    spec.submit = kT0 + seconds(at_s);
    specs.push_back(std::move(spec));
    const auto id = static_cast<JobId>(specs.size() - 1);
    EXPECT_TRUE(scheduler.submit(id, specs.back(), specs.back().submit));
    return id;
  }
  void tell(Observation::Kind kind, JobId id) {
    Observation o;
    o.kind = kind;
    o.at = now;
    o.job = id;
    const Status s = scheduler.observe(cluster, o);
    EXPECT_TRUE(s) << s.message();
  }
  // One cycle at `now`: returns the jobs it placed (bound and running at once); evictions are
  // carried out; the cycle's resizes are appended to `resizes` and left in flight.
  std::vector<JobId> cycle() {
    std::vector<JobId> placed;
    for (const BindAction& b : scheduler.run_cycle(cluster, now)) {
      placed.push_back(b.job);
      tell(Observation::Kind::kBound, b.job);
      tell(Observation::Kind::kRunning, b.job);
    }
    for (const EvictAction& e : scheduler.take_evictions()) {
      evictions.push_back(e);
      tell(Observation::Kind::kEvicted, e.job);
    }
    for (ResizeAction& r : scheduler.take_resizes()) {
      in_flight.insert(r.job);
      resizes.push_back(std::move(r));
    }
    EXPECT_TRUE(cluster.check_invariants());
    return placed;
  }
  // The world reports every resize in flight done.
  void resized() {
    for (const JobId id : std::exchange(in_flight, {})) tell(Observation::Kind::kResized, id);
    EXPECT_TRUE(cluster.check_invariants());
  }
  const Workload& workload(JobId id) const { return *scheduler.workloads().find(id); }
  int workers(JobId id) const { return static_cast<int>(workload(id).pods.size()); }

  Cluster cluster;
  Scheduler scheduler;
  std::deque<JobSpec> specs;
  Time now = kT0;
  std::vector<ResizeAction> resizes;
  std::vector<EvictAction> evictions;
  std::set<JobId> in_flight;
  std::set<Time> wakes;
};

inline SchedulerConfig elastic_config(ElasticPolicy policy) {
  SchedulerConfig c;
  c.elasticity.add(policy);
  return c;
}

}  // namespace gantry::testing
