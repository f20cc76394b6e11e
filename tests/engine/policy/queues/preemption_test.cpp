// Preemption target selection (queues/preemption.hpp), on a quota book and a stand-in for the
// cluster: each running workload holds GPUs on a node; the preemptor fits when its queue's quota
// allows it and one node has `need` free GPUs. Every expected set is worked by hand.

#include "engine/policy/queues/preemption.hpp"

#include <gtest/gtest.h>

#include <map>

namespace gantry {
namespace preemption_test {

constexpr int64_t kGpu = 1000;

struct Running {
  JobId id;
  int queue;
  int priority;
  int gpus;
  int node;
  int64_t admitted_s;
  int64_t submit_s = 0;
};

// The stand-in world: nodes with capacity, workloads holding GPUs on them.
class FakeWorld final : public PreemptionSimulation {
 public:
  FakeWorld(QuotaBook& book, std::vector<int> node_free, const Preemptor& p, int need_on_one_node)
      : book_(book), free_(std::move(node_free)), p_(p), need_(need_on_one_node) {}

  void run(const Running& r) {
    usage_[r.id] = book_.usage(r.queue, r.gpus * kGpu, "A100-80G", 0, 0);
    book_.add(r.queue, usage_[r.id]);
    free_[static_cast<size_t>(r.node)] -= r.gpus;
    running_[r.id] = r;
  }
  std::vector<PreemptionCandidate> candidates() const {
    std::vector<PreemptionCandidate> out;
    for (const auto& [id, r] : running_)
      out.push_back(
          PreemptionCandidate{id, r.queue, r.priority, Time::from_micros(r.submit_s * 1'000'000),
                              Time::from_micros(r.admitted_s * 1'000'000), &usage_.at(id)});
    return out;
  }
  void remove(const PreemptionCandidate& c) override {
    const Running& r = running_.at(c.id);
    book_.remove(r.queue, usage_.at(c.id));
    free_[static_cast<size_t>(r.node)] += r.gpus;
    ++removes;
  }
  void restore(const PreemptionCandidate& c) override {
    const Running& r = running_.at(c.id);
    book_.add(r.queue, usage_.at(c.id));
    free_[static_cast<size_t>(r.node)] -= r.gpus;
  }
  bool fits(bool allow_borrowing) override {
    const QuotaBook::Fit fit = book_.fits(p_.queue, p_.usage);
    if (!fit.fits || (fit.borrows && !allow_borrowing)) return false;
    for (int f : free_)
      if (f >= need_) return true;
    return false;
  }
  int total_free() const {
    int t = 0;
    for (int f : free_) t += f;
    return t;
  }
  int removes = 0;

 private:
  QuotaBook& book_;
  std::vector<int> free_;
  Preemptor p_;
  int need_;
  std::map<JobId, Running> running_;
  std::map<JobId, ResourceVector> usage_;
};

QueueSpec queue(std::string name, std::string cohort, int64_t gpus) {
  QueueSpec q;
  q.name = std::move(name);
  q.cohort = std::move(cohort);
  q.nominal[kQuotaGpu] = gpus * kGpu;
  return q;
}

Preemptor preemptor(const QuotaBook& book, int q, int priority, int gpus, int64_t submit_s = 0) {
  Preemptor p;
  p.id = 99;
  p.queue = q;
  p.priority = priority;
  p.submit = Time::from_micros(submit_s * 1'000'000);
  p.usage = book.usage(q, gpus * kGpu, "A100-80G", 0, 0);
  return p;
}

std::vector<std::pair<JobId, std::string>> run(const AdmissionConfig& config, QuotaBook& book,
                                               FakeWorld& world, const Preemptor& p) {
  const int free_before = world.total_free();
  std::vector<std::pair<JobId, std::string>> out;
  for (const PreemptionTarget& t : find_preemption_targets(book, config.queues, config.fair_sharing,
                                                           p, world.candidates(), world))
    out.emplace_back(t.id, t.reason);
  EXPECT_EQ(world.total_free(), free_before) << "the search must leave the model as it was";
  return out;
}

using Targets = std::vector<std::pair<JobId, std::string>>;

// One queue (nominal 8) full: j1 (prio 1, 4 GPUs), j2 (prio 0, 2 GPUs, admitted at 2 s), j3
// (prio 0, 2 GPUs, admitted at 3 s), all on one 8-GPU node. A prio-5 preemptor of 4 GPUs, under
// withinQueue LowerPriority: order j3 (lowest priority, newest), j2, j1. Taking j3 frees 2 (no),
// j2 frees 4 (fits). Minimal pass: putting j3 back leaves 2 free: no, so both go.
TEST(Preemption, WithinQueueTakesLowestPriorityNewestFirst) {
  AdmissionConfig config;
  config.queues = {queue("a", "", 8)};
  config.queues[0].within_queue = PreemptionPolicy::kLowerPriority;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 5, 4);
  FakeWorld world(book, {8}, p, 4);
  world.run({1, 0, 1, 4, 0, 1});
  world.run({2, 0, 0, 2, 0, 2});
  world.run({3, 0, 0, 2, 0, 3});
  EXPECT_EQ(run(config, book, world, p), (Targets{{3, kReasonPreempted}, {2, kReasonPreempted}}));
}

// The minimal set: j3 (2 GPUs, newest) is taken first, then j1 (4 GPUs) makes it fit with 6
// free; putting j3 back still leaves 4 free, so only j1 is evicted.
TEST(Preemption, TheMinimalPassPutsBackWhatThePreemptorDoesNotNeed) {
  AdmissionConfig config;
  config.queues = {queue("a", "", 8)};
  config.queues[0].within_queue = PreemptionPolicy::kLowerPriority;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 5, 4);
  FakeWorld world(book, {6}, p, 4);
  world.run({1, 0, 0, 4, 0, 1});
  world.run({3, 0, 0, 2, 0, 3});
  EXPECT_EQ(run(config, book, world, p), (Targets{{1, kReasonPreempted}}));
}

// A victim on a node that does not help is not evicted: x (newest, 4 GPUs on node 0, which a
// non-evictable 4-GPU load shares) is taken first, but frees only 4 on node 0; y (4 GPUs on
// node 1) frees node 1 whole. Putting x back, the 8-GPU preemptor still fits on node 1.
TEST(Preemption, AVictimWhoseNodeDoesNotHelpIsPutBack) {
  AdmissionConfig config;
  config.queues = {queue("a", "", 16)};
  config.queues[0].within_queue = PreemptionPolicy::kLowerPriority;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 10, 8);
  FakeWorld world(book, {4, 8}, p, 8);  // node 0: 4 GPUs taken by something else
  world.run({1, 0, 0, 4, 1, 1});        // y, older, on node 1
  world.run({2, 0, 0, 4, 0, 2});        // x, newer, on node 0
  EXPECT_EQ(run(config, book, world, p), (Targets{{1, kReasonPreempted}}));
}

// Never preempts when nothing can make it fit: a prio-0 preemptor finds no lower priority.
TEST(Preemption, NothingWhenNoSetOfCandidatesMakesItFit) {
  AdmissionConfig config;
  config.queues = {queue("a", "", 8)};
  config.queues[0].within_queue = PreemptionPolicy::kLowerPriority;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 5, 8);
  FakeWorld world(book, {8}, p, 8);
  world.run({1, 0, 0, 4, 0, 1});
  world.run({2, 0, 7, 4, 0, 2});  // higher priority than the preemptor: never a candidate
  EXPECT_TRUE(run(config, book, world, p).empty());
}

// LowerOrNewerEqualPriority: an equal-priority workload submitted after the preemptor is a
// candidate, one submitted before is not.
TEST(Preemption, LowerOrNewerEqualPriorityTakesOnlyLaterSubmissions) {
  AdmissionConfig config;
  config.queues = {queue("a", "", 8)};
  config.queues[0].within_queue = PreemptionPolicy::kLowerOrNewerEqualPriority;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 3, 4, /*submit_s=*/100);
  FakeWorld world(book, {8}, p, 4);
  world.run({1, 0, 3, 4, 0, 1, /*submit_s=*/50});
  world.run({2, 0, 3, 4, 0, 2, /*submit_s=*/150});
  EXPECT_EQ(run(config, book, world, p), (Targets{{2, kReasonPreempted}}));
}

// Reclaim: a and b (nominal 8 each, cohort capacity 16); b runs three 4-GPU jobs (12: it
// borrows 4), a runs nothing and asks for 8, within its nominal. Cohort usage 12 + 8 > 16.
// reclaimWithinCohort Any: b's workloads in order b3 (newest), b2, b1. Taking b3 brings b to 8,
// no longer borrowing, and a fits (8 + 8 = 16). b1 and b2 stay.
TEST(Preemption, ReclaimTakesOnlyFromQueuesThatBorrow) {
  AdmissionConfig config;
  config.queues = {queue("a", "c", 8), queue("b", "c", 8)};
  config.queues[0].reclaim_within_cohort = PreemptionPolicy::kAny;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 0, 8);
  FakeWorld world(book, {16}, p, 8);
  world.run({1, 1, 10, 4, 0, 1});
  world.run({2, 1, 10, 4, 0, 2});
  world.run({3, 1, 10, 4, 0, 3});
  EXPECT_EQ(run(config, book, world, p), (Targets{{3, kReasonReclamation}}));
  // Under LowerPriority, b's priority-10 workloads are out of reach of a priority-0 preemptor.
  config.queues[0].reclaim_within_cohort = PreemptionPolicy::kLowerPriority;
  EXPECT_TRUE(run(config, book, world, p).empty());
}

// borrowWithinCohort: a and b (nominal 4), c (nominal 8, idle): capacity 16. b runs four 4-GPU
// prio-3 jobs (16: borrows 12). a asks for 8 (prio 10): 4 above its nominal, so it borrows, and
// reclaiming needs borrowWithinCohort. Order b4, b3, b2, b1. b4 out: 12 + 8 = 20 > 16; b3 out
// (b still borrows: 8 > 4): 8 + 8 = 16, fits. Minimal pass: b4 back gives 20: no. Both go.
TEST(Preemption, BorrowWithinCohortReclaimsBelowTheThreshold) {
  AdmissionConfig config;
  config.queues = {queue("a", "c", 4), queue("b", "c", 4), queue("idle", "c", 8)};
  config.queues[0].reclaim_within_cohort = PreemptionPolicy::kLowerPriority;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 10, 8);
  FakeWorld world(book, {32}, p, 8);
  for (JobId j = 1; j <= 4; ++j) world.run({j, 1, 3, 4, 0, j});
  EXPECT_TRUE(run(config, book, world, p).empty()) << "borrowWithinCohort Never (the default)";
  config.queues[0].borrow_within_cohort = true;
  config.queues[0].max_priority_threshold = 5;
  EXPECT_EQ(run(config, book, world, p),
            (Targets{{4, kReasonReclamation}, {3, kReasonReclamation}}));
  config.queues[0].max_priority_threshold = 2;  // b's priority 3 is above it
  EXPECT_TRUE(run(config, book, world, p).empty());
}

// Without borrowWithinCohort, a borrowing preemptor takes other queues' workloads only if it then
// ends within its nominal quota (Kueue's mode "without borrowing", tried first here since no
// candidate is reclaimable while borrowing). a and b have 4 GPUs each (capacity 8, all used): a
// runs a1 (2, prio 0, admitted at 3 s), b runs b1 (2, at 1 s) and b2 (4, at 2 s): b borrows 2.
// a's prio-5 job asks for 4: a would use 6 > 4. Order: other queue first, newest first: b2, b1,
// then a1. Taking b2: b at 2, a at 2 + 4 = 6 > 4: not within nominal. b1: b no longer borrows,
// skipped. a1: a at 4, cohort 4 + 2 = 6 <= 8: fits. Putting b2 back: 4 + 6 = 10 > 8, so both go.
TEST(Preemption, WithoutBorrowingTakesOtherQueuesOnlyToEndWithinNominal) {
  AdmissionConfig config;
  config.queues = {queue("a", "c", 4), queue("b", "c", 4)};
  config.queues[0].within_queue = PreemptionPolicy::kLowerPriority;
  config.queues[0].reclaim_within_cohort = PreemptionPolicy::kAny;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 5, 4);
  FakeWorld world(book, {8}, p, 0);  // room on nodes is not the question here
  world.run({1, 1, 0, 2, 0, 1});
  world.run({2, 1, 0, 4, 0, 2});
  world.run({3, 0, 0, 2, 0, 3});
  EXPECT_EQ(run(config, book, world, p), (Targets{{2, kReasonReclamation}, {3, kReasonPreempted}}));
}

// Fair sharing: a and b (nominal 4), c (nominal 8, idle): capacity 16. b runs three 4-GPU jobs
// (12, borrowing 8: share 8 · 1000 / 16 = 500). a asks for 8 (borrows 4: its share with the
// workload 4 · 1000 / 16 = 250). Cohort 12 + 8 > 16. b is the queue with the highest share; b3
// (newest): b's share without it (8 − 4 borrowed) = 250, and 250 ≤ 250 passes
// LessThanOrEqualToFinalShare. Then 8 + 8 = 16: fits.
TEST(Preemption, FairSharingTakesFromTheHighestShareWhileTheStrategyHolds) {
  AdmissionConfig config;
  config.queues = {queue("a", "c", 4), queue("b", "c", 4), queue("idle", "c", 8)};
  config.queues[0].reclaim_within_cohort = PreemptionPolicy::kAny;
  config.fair_sharing.enabled = true;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 0, 8);
  FakeWorld world(book, {32}, p, 8);
  for (JobId j = 1; j <= 3; ++j) world.run({j, 1, 0, 4, 0, j});
  EXPECT_EQ(run(config, book, world, p), (Targets{{3, kReasonFairSharing}}));
}

// The same with a asking for 12 (borrowing 8: share 500). Every b workload leaves b at 250:
// 500 ≤ 250 fails; LessThanInitialShare: 500 < 500 fails. Fair sharing refuses: a would end up
// with more than b.
TEST(Preemption, FairSharingRefusesToMakeThePreemptorRicherThanItsVictim) {
  AdmissionConfig config;
  config.queues = {queue("a", "c", 4), queue("b", "c", 4), queue("idle", "c", 8)};
  config.queues[0].reclaim_within_cohort = PreemptionPolicy::kAny;
  config.fair_sharing.enabled = true;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 0, 12);
  FakeWorld world(book, {32}, p, 12);
  for (JobId j = 1; j <= 3; ++j) world.run({j, 1, 0, 4, 0, j});
  EXPECT_TRUE(run(config, book, world, p).empty());
}

// Fair sharing with the preemptor within its nominal quota: reclaimed without the strategy.
// a (nominal 8) asks for 8; b (nominal 8) runs 12. b3 goes as in the classical case.
TEST(Preemption, FairSharingReclaimsNominalQuotaWithoutTheStrategy) {
  AdmissionConfig config;
  config.queues = {queue("a", "c", 8), queue("b", "c", 8)};
  config.queues[0].reclaim_within_cohort = PreemptionPolicy::kAny;
  config.fair_sharing.enabled = true;
  QuotaBook book(config);
  const Preemptor p = preemptor(book, 0, 0, 8);
  FakeWorld world(book, {16}, p, 8);
  for (JobId j = 1; j <= 3; ++j) world.run({j, 1, 0, 4, 0, j});
  EXPECT_EQ(run(config, book, world, p), (Targets{{3, kReasonReclamation}}));
}

}  // namespace preemption_test
}  // namespace gantry
