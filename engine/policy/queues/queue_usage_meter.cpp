#include "engine/policy/queues/queue_usage_meter.hpp"

#include <algorithm>
#include <cmath>

namespace gantry {

QueueUsageMeter::QueueUsageMeter(const QuotaBook& book, Time start, Duration half_life)
    : book_(book),
      touched_(book.cohort_count(), start),
      totals_(book.queue_count()),
      decayed_(book.queue_count(), 0) {
  for (int r = 0; r < static_cast<int>(book.resources().size()); ++r) {
    const std::string& name = book.resources()[static_cast<size_t>(r)];
    if (name == kQuotaGpu || name.starts_with("gpu/")) gpu_resources_.push_back(r);
  }
  if (half_life.micros() > 0) lambda_ = std::log(2.0) / half_life.seconds();
}

QueueUsageMeter::Now QueueUsageMeter::now_of(int q) const {
  Now n;
  for (int r : gpu_resources_) {
    if (!book_.limits(q, r)) continue;
    const int64_t used = book_.used(q, r);
    const int64_t nominal = book_.nominal(q, r);
    n.used += used;
    n.borrowed += std::max<int64_t>(0, used - nominal);
    n.lendable += std::max<int64_t>(0, nominal - used);
  }
  return n;
}

void QueueUsageMeter::touch(int cohort, Time now) {
  Time& last = touched_[static_cast<size_t>(cohort)];
  if (now <= last) return;
  const double dt = (now - last).seconds();
  last = now;
  const std::vector<int>& members = book_.cohort_members(cohort);
  int64_t borrowed = 0, lendable = 0;
  for (int q : members) {
    const Now n = now_of(q);
    borrowed += n.borrowed;
    lendable += n.lendable;
  }
  // Lending limits cap what a queue lends; the cohort capacity already says how much can be
  // borrowed in all, so the proportional split only needs the unused nominal quota.
  const double decay = lambda_ > 0 ? std::exp(-lambda_ * dt) : 0;
  for (int q : members) {
    const Now n = now_of(q);
    Totals& t = totals_[static_cast<size_t>(q)];
    t.used_gpu_seconds += static_cast<double>(n.used) / 1000.0 * dt;
    t.borrowed_gpu_seconds += static_cast<double>(n.borrowed) / 1000.0 * dt;
    if (borrowed > 0 && lendable > 0)
      t.lent_gpu_seconds += static_cast<double>(borrowed) / 1000.0 * dt *
                            static_cast<double>(n.lendable) / static_cast<double>(lendable);
    if (lambda_ > 0) {
      double& s = decayed_[static_cast<size_t>(q)];
      s = s * decay + static_cast<double>(n.used) / 1000.0 * (1 - decay) / lambda_;
    }
  }
}

void QueueUsageMeter::touch_all(Time now) {
  for (int c = 0; c < static_cast<int>(touched_.size()); ++c) touch(c, now);
}

double QueueUsageMeter::decayed(int q, Time now) const {
  if (lambda_ <= 0) return 0;
  const Time last = touched_[static_cast<size_t>(book_.cohort_of(q))];
  const double dt = std::max(0.0, (now - last).seconds());
  const double decay = std::exp(-lambda_ * dt);
  return decayed_[static_cast<size_t>(q)] * decay +
         static_cast<double>(now_of(q).used) / 1000.0 * (1 - decay) / lambda_;
}

}  // namespace gantry
