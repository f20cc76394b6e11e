// Issue #12's first figure: 10,000 pending workloads in 1,000 queues on 8,192 GPUs, p99 under
// 1 ms per admission decision.
//
// The cluster: 1,024 nodes of 8 A100s in 32 racks. The queues: 1,000, in 100 cohorts of 10,
// each with 8 GPUs of nominal quota (8,000 in all), BestEffortFIFO, withinQueue LowerPriority,
// reclaimWithinCohort Any. Workloads of 1, 2, 4 or 8 GPUs (one pod), priority 0–3, spread evenly
// over the queues. The first cycle fills the cluster from 12,200 submissions; about 10,000 stay
// pending. Then, `decisions` times: a random admitted workload finishes, a new one arrives in a
// random queue (the backlog stays at ~10,000), and one scheduling cycle decides what to admit
// and whom to preempt, timed. Evictions and binds are confirmed at once, as a simulated world
// would. A "decision" is one such cycle: everything the scheduler does in reaction to one change.
//
// The peer, in the same process: the same sequence through the scheduler without admission
// (one priority queue, no quotas) — the cost of admission is the ratio of the two.
//
// Usage: gantry-admission-decisions [decisions=5000] [repetitions=3]

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <random>
#include <vector>

#include "engine/policy/scheduler.hpp"

namespace {

using namespace gantry;
using Clock = std::chrono::steady_clock;

Topology cluster() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  t.classes.push_back(NodeClass{"dgx-a100", Resources{128'000, int64_t{1} << 40, 8, 0},
                                t.gpus.find("A100-80G"), 8});
  for (int r = 0; r < 32; ++r) t.racks.push_back(fmt::format("r{:02d}", r));
  for (int i = 0; i < 1024; ++i) t.nodes.push_back(NodeInfo{fmt::format("n{:05d}", i), 0, i / 32});
  return t;
}

SchedulerConfig config(bool admission) {
  SchedulerConfig c;
  c.order = QueueOrder::kPriority;
  c.placement = "binpack";
  if (!admission) return c;
  for (int q = 0; q < 1000; ++q) {
    QueueSpec s;
    s.name = fmt::format("q{:04d}", q);
    s.cohort = fmt::format("c{:03d}", q / 10);
    s.nominal[kQuotaGpu] = 8'000;
    s.within_queue = PreemptionPolicy::kLowerPriority;
    s.reclaim_within_cohort = PreemptionPolicy::kAny;
    c.admission.queues.push_back(std::move(s));
  }
  return c;
}

struct Figures {
  std::vector<double> cycle_us;
  size_t pending_min = SIZE_MAX, pending_max = 0;
  size_t admitted = 0, evicted = 0;
};

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double rank = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(rank);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

Figures run(bool admission, int decisions, uint64_t seed) {
  Cluster c(cluster());
  Scheduler s(config(admission));
  std::deque<JobSpec> specs;
  std::mt19937_64 rng(seed);
  Time now = Time::from_micros(1'767'225'600'000'000);
  std::vector<JobId> running;
  const auto submit = [&](int queue) {
    JobSpec j;
    j.name = fmt::format("w{}", specs.size());
    j.queue = fmt::format("q{:04d}", queue);
    j.priority = static_cast<int>(rng() % 4);
    j.submit = now;
    const int gpus = 1 << (rng() % 4);
    j.roles.push_back(RoleSpec{RoleKind::kWorker, 1, Resources{4'000, int64_t{16} << 30, gpus, 0}});
    specs.push_back(std::move(j));
    const auto id = static_cast<JobId>(specs.size() - 1);
    (void)s.submit(id, specs.back(), now);
  };
  const auto tell = [&](Observation::Kind kind, JobId id) {
    Observation o;
    o.kind = kind;
    o.at = now;
    o.job = id;
    (void)s.observe(c, o);
  };
  Figures f;
  const auto cycle = [&](bool timed) {
    const auto t0 = Clock::now();
    std::vector<BindAction> binds = s.run_cycle(c, now);
    std::vector<EvictAction> evictions = s.take_evictions();
    if (timed)
      f.cycle_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    for (const BindAction& b : binds) {
      tell(Observation::Kind::kBound, b.job);
      tell(Observation::Kind::kRunning, b.job);
      running.push_back(b.job);
    }
    static std::map<JobId, int> counts;
    static std::map<std::string, int> reasons;
    for (const EvictAction& e : evictions) {
      if (timed && admission) {
        ++counts[e.job];
        ++reasons[e.reason];
      }
    }
    if (timed && admission && f.cycle_us.size() == static_cast<size_t>(decisions)) {
      std::map<int, int> hist;
      for (auto& [j, n] : counts) ++hist[n];
      for (auto& [n, k] : hist) fmt::print(stderr, "evicted {}x: {} jobs\n", n, k);
      for (auto& [r, n] : reasons) fmt::print(stderr, "{}: {}\n", r, n);
      int shown = 0;
      for (auto& [j, n] : counts)
        if (n > 20 && shown++ < 3) {
          const Workload* w = s.workloads().find(j);
          fmt::print(stderr, "job {} q{} prio {} gpus {} evicted {}x\n", j, w->queue,
                     w->spec->priority, w->spec->total_gpus(), n);
        }
    }
    for (const EvictAction& e : evictions) {
      tell(Observation::Kind::kEvicted, e.job);
      running.erase(std::find(running.begin(), running.end(), e.job));
    }
    static int n = 0;
    if (timed && (++n % 100 == 1))
      fmt::print(stderr, "cycle {}: binds {} evictions {} pending {}\n", n, binds.size(),
                 evictions.size(), s.queued());
    f.admitted += binds.size();
    f.evicted += evictions.size();
  };
  for (int i = 0; i < 12'200; ++i) submit(i % 1000);
  cycle(false);
  cycle(false);  // preemptors whose victims left
  f.admitted = f.evicted = 0;
  for (int d = 0; d < decisions; ++d) {
    now = now + seconds(1);
    if (!running.empty()) {
      const size_t k = rng() % running.size();
      tell(Observation::Kind::kFinished, running[k]);
      running[k] = running.back();
      running.pop_back();
    }
    submit(static_cast<int>(rng() % 1000));
    f.pending_min = std::min(f.pending_min, s.queued());
    f.pending_max = std::max(f.pending_max, s.queued());
    cycle(true);
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const int decisions = argc > 1 ? std::atoi(argv[1]) : 5000;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 3;
  fmt::print("{} decisions per repetition; cycle times in µs\n", decisions);
  fmt::print(
      "| rep | pending | admitted | evicted | admission p50 | p99 | max | no-admission p50 | p99 | "
      "p99 ratio |\n");
  fmt::print("|---|---|---|---|---|---|---|---|---|---|\n");
  for (int r = 1; r <= repetitions; ++r) {
    const Figures a = run(true, decisions, static_cast<uint64_t>(r));
    const Figures b = run(false, decisions, static_cast<uint64_t>(r));
    fmt::print("| {} | {}–{} | {} | {} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | {:.2f} |\n",
               r, a.pending_min, a.pending_max, a.admitted, a.evicted, percentile(a.cycle_us, 0.5),
               percentile(a.cycle_us, 0.99), percentile(a.cycle_us, 1.0),
               percentile(b.cycle_us, 0.5), percentile(b.cycle_us, 0.99),
               percentile(a.cycle_us, 0.99) / percentile(b.cycle_us, 0.99));
  }
}
