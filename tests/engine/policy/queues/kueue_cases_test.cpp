// Kueue's own expectations, reproduced: the classical-preemption cases of Kueue's
// pkg/scheduler/preemption/preemption_test.go (TestPreemption, kubernetes-sigs/kueue), each with
// its queues, admitted workloads, incoming workload and the set Kueue's test expects preempted.
// Only CPU (and, where the case has it, memory) quota; every workload is admitted at the same
// instant, as in Kueue's test. Case names are Kueue's.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "engine/policy/queues/preemption.hpp"

namespace gantry {
namespace {

constexpr int64_t kCpu = 1000;  // milli-CPUs per CPU
constexpr int64_t kGi = int64_t{1} << 30;

// Kueue's ClusterQueues of the test: (name, cohort, cpu nominal, cpu borrowing limit or -1,
// memory nominal in Gi or -1 (none), memory borrowing limit in Gi or -1, withinClusterQueue,
// reclaimWithinCohort).
QueueSpec cq(std::string name, std::string cohort, int64_t cpu, int64_t cpu_borrow, int64_t mem,
             int64_t mem_borrow, PreemptionPolicy within, PreemptionPolicy reclaim) {
  QueueSpec q;
  q.name = std::move(name);
  q.cohort = std::move(cohort);
  q.nominal[kQuotaCpu] = cpu * kCpu;
  if (cpu_borrow >= 0) q.borrowing[kQuotaCpu] = cpu_borrow * kCpu;
  if (mem >= 0) q.nominal[kQuotaMemory] = mem * kGi;
  if (mem_borrow >= 0) q.borrowing[kQuotaMemory] = mem_borrow * kGi;
  q.within_queue = within;
  q.reclaim_within_cohort = reclaim;
  return q;
}

using P = PreemptionPolicy;
AdmissionConfig kueue_queues() {
  AdmissionConfig c;
  c.queues = {
      cq("standalone", "", 6, -1, -1, -1, P::kLowerPriority, P::kNever),
      cq("c1", "cohort", 6, 6, 3, 3, P::kLowerPriority, P::kLowerPriority),
      cq("c2", "cohort", 6, 6, 3, 3, P::kNever, P::kAny),
      cq("l1", "legion", 6, 12, 3, 6, P::kLowerPriority, P::kLowerPriority),
  };
  return c;
}

struct Admitted {
  std::string name;
  std::string queue;
  int priority;
  int64_t cpu;
  int64_t mem_gi = 0;
};

// The quota book as the search changes it; Kueue's test checks quota only (no nodes).
class QuotaOnly final : public PreemptionSimulation {
 public:
  QuotaOnly(QuotaBook& book, const Preemptor& p) : book_(book), p_(p) {}
  void remove(const PreemptionCandidate& c) override { book_.remove(c.queue, *c.usage); }
  void restore(const PreemptionCandidate& c) override { book_.add(c.queue, *c.usage); }
  bool fits(bool allow_borrowing) override {
    const QuotaBook::Fit f = book_.fits(p_.queue, p_.usage);
    return f.fits && (allow_borrowing || !f.borrows);
  }

 private:
  QuotaBook& book_;
  const Preemptor& p_;
};

std::set<std::string> preempted(const std::vector<Admitted>& admitted, const std::string& queue,
                                int priority, int64_t cpu, int64_t mem_gi = 0) {
  const AdmissionConfig config = kueue_queues();
  QuotaBook book(config);
  std::vector<ResourceVector> usage;
  usage.reserve(admitted.size());
  std::vector<PreemptionCandidate> candidates;
  const Time now = Time::from_micros(1'767'225'600'000'000);
  for (size_t i = 0; i < admitted.size(); ++i) {
    const int q = book.find_queue(admitted[i].queue);
    usage.push_back(book.usage(q, 0, "", admitted[i].cpu * kCpu, admitted[i].mem_gi * kGi));
    book.add(q, usage.back());
  }
  for (size_t i = 0; i < admitted.size(); ++i)
    candidates.push_back(PreemptionCandidate{static_cast<JobId>(i),
                                             book.find_queue(admitted[i].queue),
                                             admitted[i].priority, now, now, &usage[i]});
  Preemptor p;
  p.id = 99;
  p.queue = book.find_queue(queue);
  p.priority = priority;
  p.submit = now;
  p.usage = book.usage(p.queue, 0, "", cpu * kCpu, mem_gi * kGi);
  QuotaOnly sim(book, p);
  std::set<std::string> out;
  for (const PreemptionTarget& t :
       find_preemption_targets(book, config.queues, config.fair_sharing, p, candidates, sim))
    out.insert(admitted[static_cast<size_t>(t.id)].name + "/" + t.reason);
  return out;
}

using Set = std::set<std::string>;

TEST(KueueCases, PreemptLowestPriority) {
  EXPECT_EQ(
      preempted(
          {{"low", "standalone", -1, 2}, {"mid", "standalone", 0, 2}, {"high", "standalone", 1, 2}},
          "standalone", 1, 2),
      (Set{"low/Preempted"}));
}

TEST(KueueCases, PreemptMultiple) {
  EXPECT_EQ(
      preempted(
          {{"low", "standalone", -1, 2}, {"mid", "standalone", 0, 2}, {"high", "standalone", 1, 2}},
          "standalone", 1, 3),
      (Set{"low/Preempted", "mid/Preempted"}));
}

TEST(KueueCases, NoPreemptionForLowPriority) {
  EXPECT_EQ(
      preempted({{"low", "standalone", -1, 3}, {"mid", "standalone", 0, 3}}, "standalone", -1, 1),
      Set{});
}

TEST(KueueCases, NotEnoughLowPriorityWorkloads) {
  EXPECT_EQ(
      preempted({{"low", "standalone", -1, 3}, {"mid", "standalone", 0, 3}}, "standalone", 0, 4),
      Set{});
}

TEST(KueueCases, SomeFreeQuotaPreemptLowPriority) {
  EXPECT_EQ(
      preempted(
          {{"low", "standalone", -1, 1}, {"mid", "standalone", 0, 1}, {"high", "standalone", 1, 3}},
          "standalone", 1, 2),
      (Set{"low/Preempted"}));
}

TEST(KueueCases, MinimalSetExcludesLowPriority) {
  EXPECT_EQ(
      preempted(
          {{"low", "standalone", -1, 1}, {"mid", "standalone", 0, 2}, {"high", "standalone", 1, 3}},
          "standalone", 1, 2),
      (Set{"mid/Preempted"}));
}

TEST(KueueCases, ReclaimQuotaFromBorrower) {
  EXPECT_EQ(preempted({{"c1-low", "c1", -1, 3}, {"c2-mid", "c2", 0, 3}, {"c2-high", "c2", 1, 6}},
                      "c1", 1, 3),
            (Set{"c2-mid/InCohortReclamation"}));
}

TEST(KueueCases, NoWorkloadsBorrowing) {
  EXPECT_EQ(preempted({{"c1-high", "c1", 1, 4}, {"c2-low-1", "c2", -1, 4}}, "c1", 1, 4), Set{});
}

TEST(KueueCases, NotEnoughWorkloadsBorrowing) {
  EXPECT_EQ(
      preempted({{"c1-high", "c1", 1, 4}, {"c2-low-1", "c2", -1, 4}, {"c2-low-2", "c2", -1, 4}},
                "c1", 1, 4),
      Set{});
}

TEST(KueueCases, PreemptingLocallyAndBorrowingOtherResourcesInCohortWithoutCohortCandidates) {
  EXPECT_EQ(
      preempted({{"c1-low", "c1", -1, 4}, {"c2-low-1", "c2", -1, 4}, {"c2-high-2", "c2", 1, 4}},
                "c1", 1, 4, 5),
      (Set{"c1-low/Preempted"}));
}

TEST(KueueCases, PreemptingLocallyAndBorrowingSameResourceInCohort) {
  EXPECT_EQ(preempted({{"c1-med", "c1", 0, 4}, {"c1-low", "c1", -1, 4}, {"c2-low-1", "c2", -1, 4}},
                      "c1", 1, 4),
            (Set{"c1-low/Preempted"}));
}

TEST(KueueCases, PreemptingLocallyAndBorrowingOtherResourcesInCohortWithCohortCandidates) {
  EXPECT_EQ(preempted({{"c1-med", "c1", 0, 4},
                       {"c2-low-1", "c2", -1, 5},
                       {"c2-low-2", "c2", -1, 1},
                       {"c2-low-3", "c2", -1, 1}},
                      "c1", 1, 2, 5),
            (Set{"c1-med/Preempted"}));
}

TEST(KueueCases, PreemptingLocallyAndNotBorrowingSameResourceInOneQueueCohort) {
  EXPECT_EQ(preempted({{"l1-med", "l1", 0, 4}, {"l1-low", "l1", -1, 2}}, "l1", 1, 4),
            (Set{"l1-med/Preempted"}));
}

TEST(KueueCases, DoNotReclaimBorrowedQuotaFromSamePriorityForReclaimFromLowerPriority) {
  EXPECT_EQ(preempted({{"c1", "c1", 0, 2}, {"c2-1", "c2", 0, 4}, {"c2-2", "c2", 0, 4}}, "c1", 0, 4),
            Set{});
}

}  // namespace
}  // namespace gantry
