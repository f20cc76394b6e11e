#include "engine/policy/queues/preemption.hpp"

#include <algorithm>

namespace gantry {

namespace {

struct Chosen {
  const PreemptionCandidate* c;
  const char* reason;
  // Kueue's "reclaim without borrowing": usable only if the preemptor ends up not borrowing.
  bool only_without_borrowing = false;
};

bool priority_allows(PreemptionPolicy policy, const Preemptor& p, const PreemptionCandidate& c) {
  switch (policy) {
    case PreemptionPolicy::kNever:
      return false;
    case PreemptionPolicy::kLowerPriority:
      return c.priority < p.priority;
    case PreemptionPolicy::kLowerOrNewerEqualPriority:
      return c.priority < p.priority || (c.priority == p.priority && p.submit < c.submit);
    case PreemptionPolicy::kAny:
      return true;
  }
  return false;
}

// Kueue's CandidatesOrdering (see the header).
bool comes_first(const Preemptor& p, const PreemptionCandidate& a, const PreemptionCandidate& b) {
  const bool a_other = a.queue != p.queue;
  const bool b_other = b.queue != p.queue;
  if (a_other != b_other) return a_other;
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.admitted != b.admitted) return a.admitted > b.admitted;
  return a.id > b.id;
}

// Candidates the policies allow, each with the reason its eviction would carry.
std::vector<Chosen> eligible(const QuotaBook& book, const std::vector<QueueSpec>& queues,
                             const Preemptor& p, const std::vector<PreemptionCandidate>& all,
                             bool within_nominal, bool fair_sharing) {
  const QueueSpec& own = queues[static_cast<size_t>(p.queue)];
  std::vector<Chosen> out;
  for (const PreemptionCandidate& c : all) {
    const CandidateClass k = classify_candidate(book, own, p, c, within_nominal, fair_sharing);
    if (k == CandidateClass::kNever) continue;
    out.push_back({&c, k == CandidateClass::kOwnQueue ? kReasonPreempted : kReasonReclamation,
                   k == CandidateClass::kReclaimWithoutBorrowing});
  }
  return out;
}

// From the second-to-last chosen back to the first: keep running whatever the preemptor does
// not need. Everything chosen is removed from the model on entry.
std::vector<PreemptionTarget> minimal_set(std::vector<Chosen> chosen, PreemptionSimulation& sim,
                                          bool allow_borrowing) {
  for (size_t i = chosen.size() - 1; i-- > 0;) {
    sim.restore(*chosen[i].c);
    if (sim.fits(allow_borrowing)) {
      chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      sim.remove(*chosen[i].c);
    }
  }
  std::vector<PreemptionTarget> targets;
  for (const Chosen& ch : chosen) {
    sim.restore(*ch.c);
    targets.push_back({ch.c->id, ch.reason});
  }
  return targets;
}

std::vector<PreemptionTarget> give_up(const std::vector<Chosen>& chosen,
                                      PreemptionSimulation& sim) {
  for (auto it = chosen.rbegin(); it != chosen.rend(); ++it) sim.restore(*it->c);
  return {};
}

// Greedy in candidate order, then the minimal-set pass; with !allow_borrowing the preemptor
// must end up within its nominal quota.
// With every usable candidate gone the preemptor has the most room it can get: if it does not
// fit even then, no subset helps (one trial instead of one per candidate).
bool could_fit_at_all(const std::vector<Chosen>& candidates, bool allow_borrowing,
                      PreemptionSimulation& sim) {
  std::vector<const PreemptionCandidate*> gone;
  for (const Chosen& ch : candidates)
    if (!(allow_borrowing && ch.only_without_borrowing)) gone.push_back(ch.c);
  return sim.could_fit_without(gone, allow_borrowing);
}

std::vector<PreemptionTarget> greedy(const QuotaBook& book, const Preemptor& p,
                                     const std::vector<Chosen>& candidates, bool allow_borrowing,
                                     PreemptionSimulation& sim) {
  if (!allow_borrowing && !could_fit_at_all(candidates, false, sim)) return {};
  std::vector<Chosen> chosen;
  for (const Chosen& ch : candidates) {
    if (allow_borrowing && ch.only_without_borrowing) continue;
    // Another queue's workload helps only while that queue still borrows.
    if (ch.c->queue != p.queue && !book.borrowing_in(ch.c->queue, p.usage)) continue;
    sim.remove(*ch.c);
    chosen.push_back(ch);
    if (sim.fits(allow_borrowing)) return minimal_set(std::move(chosen), sim, allow_borrowing);
  }
  return give_up(chosen, sim);
}

// Kueue's classical preemption (classical_strategy.go): which borrowing modes to try, in which
// order. allow_borrowing = true leaves out the candidates only usable if the preemptor ends up
// not borrowing; false takes every candidate but the preemptor must end within nominal.
std::vector<PreemptionTarget> classical(const QuotaBook& book, const QueueSpec& own,
                                        const Preemptor& p, const std::vector<Chosen>& candidates,
                                        PreemptionSimulation& sim) {
  const bool no_other = std::all_of(candidates.begin(), candidates.end(),
                                    [&](const Chosen& ch) { return ch.c->queue == p.queue; });
  const bool forbidden = !own.borrow_within_cohort;
  const bool hierarchy = std::any_of(candidates.begin(), candidates.end(), [&](const Chosen& ch) {
    return ch.c->queue != p.queue && !ch.only_without_borrowing;
  });
  std::vector<bool> modes;
  if (no_other || (forbidden && !book.under_nominal_in(p.queue, p.usage)))
    modes = {true};
  else if (forbidden && !hierarchy)
    modes = {false, true};
  else
    modes = {true, false};
  for (const bool allow_borrowing : modes) {
    std::vector<PreemptionTarget> targets = greedy(book, p, candidates, allow_borrowing, sim);
    if (!targets.empty()) return targets;
  }
  return {};
}

std::vector<PreemptionTarget> fair(const QuotaBook& book, const FairSharingConfig& config,
                                   const Preemptor& p, const std::vector<Chosen>& candidates,
                                   bool within_nominal, PreemptionSimulation& sim) {
  // Candidates per queue, in order; the queues in play.
  std::vector<std::vector<Chosen>> by_queue(book.queue_count());
  for (const Chosen& ch : candidates) by_queue[static_cast<size_t>(ch.c->queue)].push_back(ch);
  std::vector<size_t> next(book.queue_count(), 0);
  std::vector<bool> dropped(book.queue_count(), false);
  const auto share_of = [&](int q) {
    return q == p.queue ? book.dominant_share(q, p.usage) : book.dominant_share(q);
  };
  // The live queue with the highest share, or -1.
  const auto pick = [&]() {
    int best = -1;
    int64_t best_share = -1;
    for (int q = 0; q < static_cast<int>(by_queue.size()); ++q) {
      if (dropped[static_cast<size_t>(q)] ||
          next[static_cast<size_t>(q)] >= by_queue[static_cast<size_t>(q)].size())
        continue;
      const int64_t s = share_of(q);
      if (s > best_share) {
        best = q;
        best_share = s;
      }
    }
    return best;
  };

  std::vector<Chosen> chosen;
  const auto take = [&](Chosen ch, const char* reason) {
    ch.reason = reason;
    sim.remove(*ch.c);
    chosen.push_back(ch);
    return sim.fits(true);
  };
  if (config.strategies.empty()) return {};
  const FairSharingStrategy first = config.strategies.front();
  for (int q = pick(); q >= 0; q = pick()) {
    auto& list = by_queue[static_cast<size_t>(q)];
    size_t& i = next[static_cast<size_t>(q)];
    if (q == p.queue) {
      if (take(list[i++], kReasonPreempted)) return minimal_set(std::move(chosen), sim, true);
      continue;
    }
    if (within_nominal) {
      if (take(list[i++], kReasonReclamation)) return minimal_set(std::move(chosen), sim, true);
      continue;
    }
    const int64_t preemptor_share = share_of(p.queue);
    const int64_t target_share = book.dominant_share(q);
    bool took = false;
    for (; i < list.size(); ++i) {
      // The target's share without this candidate.
      ResourceVector minus(list[i].c->usage->size());
      for (size_t r = 0; r < minus.size(); ++r) minus[r] = -(*list[i].c->usage)[r];
      const int64_t target_after = book.dominant_share(q, minus);
      const bool passes = first == FairSharingStrategy::kLessThanOrEqualToFinalShare
                              ? preemptor_share <= target_after
                              : preemptor_share < target_share;
      if (!passes) continue;
      took = true;
      if (take(list[i++], kReasonFairSharing)) return minimal_set(std::move(chosen), sim, true);
      break;  // shares changed: pick a queue again
    }
    if (!took) dropped[static_cast<size_t>(q)] = true;
  }
  if (config.strategies.size() > 1 &&
      config.strategies[1] == FairSharingStrategy::kLessThanInitialShare) {
    // Second strategy: the candidates the first one passed over, one per queue.
    std::vector<bool> done(book.queue_count(), false);
    for (;;) {
      int best = -1;
      int64_t best_share = -1;
      for (int q = 0; q < static_cast<int>(by_queue.size()); ++q) {
        if (q == p.queue || done[static_cast<size_t>(q)] ||
            by_queue[static_cast<size_t>(q)].empty())
          continue;
        const int64_t s = book.dominant_share(q);
        if (s > best_share) {
          best = q;
          best_share = s;
        }
      }
      if (best < 0) break;
      done[static_cast<size_t>(best)] = true;
      if (!(share_of(p.queue) < best_share)) continue;
      // Its first candidate not taken yet.
      for (const Chosen& ch : by_queue[static_cast<size_t>(best)]) {
        const bool taken =
            std::any_of(chosen.begin(), chosen.end(), [&](const Chosen& x) { return x.c == ch.c; });
        if (taken) continue;
        if (take(ch, kReasonFairSharing)) return minimal_set(std::move(chosen), sim, true);
        break;
      }
    }
  }
  return give_up(chosen, sim);
}

}  // namespace

CandidateClass classify_candidate(const QuotaBook& book, const QueueSpec& own, const Preemptor& p,
                                  const PreemptionCandidate& c, bool within_nominal,
                                  bool fair_sharing) {
  if (c.queue == p.queue)
    return priority_allows(own.within_queue, p, c) ? CandidateClass::kOwnQueue
                                                   : CandidateClass::kNever;
  if (book.cohort_of(c.queue) != book.cohort_of(p.queue)) return CandidateClass::kNever;
  if (!book.borrowing_in(c.queue, p.usage)) return CandidateClass::kNever;
  if (!priority_allows(own.reclaim_within_cohort, p, c)) return CandidateClass::kNever;
  if (within_nominal || fair_sharing) return CandidateClass::kReclaim;
  // The preemptor borrows: borrowWithinCohort lets it take strictly lower priorities up to the
  // threshold while borrowing; anything else only if it ends up not borrowing.
  if (own.borrow_within_cohort && c.priority < p.priority &&
      (!own.max_priority_threshold || c.priority <= *own.max_priority_threshold))
    return CandidateClass::kReclaimWhileBorrowing;
  return CandidateClass::kReclaimWithoutBorrowing;
}

bool PreemptionSimulation::could_fit_without(std::span<const PreemptionCandidate* const> gone,
                                             bool allow_borrowing) {
  for (const PreemptionCandidate* c : gone) remove(*c);
  const bool fit = fits(allow_borrowing);
  for (auto it = gone.rbegin(); it != gone.rend(); ++it) restore(**it);
  return fit;
}

bool may_preempt(const QueueSpec& queue) {
  return queue.within_queue != PreemptionPolicy::kNever ||
         queue.reclaim_within_cohort != PreemptionPolicy::kNever;
}

std::vector<PreemptionTarget> find_preemption_targets(const QuotaBook& book,
                                                      const std::vector<QueueSpec>& queues,
                                                      const FairSharingConfig& fair_sharing,
                                                      const Preemptor& preemptor,
                                                      std::vector<PreemptionCandidate> candidates,
                                                      PreemptionSimulation& sim) {
  const bool within_nominal = book.within_nominal(preemptor.queue, preemptor.usage);
  std::vector<Chosen> allowed =
      eligible(book, queues, preemptor, candidates, within_nominal, fair_sharing.enabled);
  if (allowed.empty()) return {};
  // The loosest bound of every mode below: every candidate gone, borrowing allowed. It needs no
  // order.
  {
    std::vector<const PreemptionCandidate*> gone;
    for (const Chosen& ch : allowed) gone.push_back(ch.c);
    if (!sim.could_fit_without(gone, true)) return {};
  }
  std::sort(allowed.begin(), allowed.end(),
            [&](const Chosen& a, const Chosen& b) { return comes_first(preemptor, *a.c, *b.c); });
  if (fair_sharing.enabled)
    return fair(book, fair_sharing, preemptor, allowed, within_nominal, sim);
  return classical(book, queues[static_cast<size_t>(preemptor.queue)], preemptor, allowed, sim);
}

}  // namespace gantry
