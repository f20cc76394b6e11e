#pragma once
// QueueUsageMeter: the GPU time each admission queue used, borrowed and lent, integrated over
// time, and (for admission fair sharing) its usage decayed with a half-life.
//
// At every instant, per queue q of a cohort, counting GPUs in milli-GPUs over the quota's GPU
// resources ("gpu" and every "gpu/<model>"):
//   used_q     = its usage
//   borrowed_q = Σ_r max(0, usage_r − nominal_r)
//   lent_q     = B · u_q / Σ u, where B = Σ borrowed over the cohort, u_q = what q leaves unused
//                now (its nominal minus its usage, at least 0), and Σ u over the cohort's
//                queues: borrowing is charged to the queues in proportion to what each leaves
//                unused (Kueue does not say whose quota a borrower uses).
// Integrals are in GPU-seconds. The decayed usage follows dS/dt = used(t) − λ·S with
// λ = ln 2 / half-life (a continuous version of Kueue's sampled exponential moving average).
//
// The caller calls touch(cohort, now) before it changes the usage of any queue of that cohort in
// the QuotaBook, so each cohort's figures are piecewise constant between its own changes: a
// change costs O(queues in the cohort), not O(queues).

#include <vector>

#include "engine/core/time.hpp"
#include "engine/policy/queues/quota_book.hpp"

namespace gantry {

class QueueUsageMeter {
 public:
  // `book` must outlive the meter. A half-life of zero turns decayed usage off.
  QueueUsageMeter(const QuotaBook& book, Time start, Duration half_life);

  // Integrates the cohort's queues from their last touch up to `now` at the book's current usage.
  void touch(int cohort, Time now);
  // touch() of every cohort.
  void touch_all(Time now);

  struct Totals {
    double used_gpu_seconds = 0;
    double borrowed_gpu_seconds = 0;
    double lent_gpu_seconds = 0;
  };
  // Up to the queue's cohort's last touch.
  const Totals& totals(int q) const { return totals_[static_cast<size_t>(q)]; }
  // The queue's decayed GPU usage (GPU-seconds) at `now` >= its cohort's last touch.
  double decayed(int q, Time now) const;

 private:
  // GPU milli the queue uses, borrows and could lend, from the book now.
  struct Now {
    int64_t used = 0, borrowed = 0, lendable = 0;
  };
  Now now_of(int q) const;

  const QuotaBook& book_;
  std::vector<int> gpu_resources_;
  double lambda_ = 0;          // per second; 0: no decay figures
  std::vector<Time> touched_;  // per cohort
  std::vector<Totals> totals_;
  std::vector<double> decayed_;  // per queue, at its cohort's last touch
};

}  // namespace gantry
