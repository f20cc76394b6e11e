#include "adapters/kube/serving/scraped_serving_metrics.hpp"

#include <algorithm>
#include <cmath>

#include "engine/core/floor_div.hpp"

namespace gantry::kube {

namespace {

constexpr ServingMetric kAll[] = {ServingMetric::kConcurrency, ServingMetric::kGpuBusy,
                                  ServingMetric::kSlotsBusy, ServingMetric::kArrivals};

}  // namespace

ScrapedServingMetrics::ScrapedServingMetrics(Duration keep) : keep_us_(keep.micros()) {}

ScrapedServingMetrics::Bucket* ScrapedServingMetrics::bucket(int64_t number) {
  if (number < base_) return nullptr;
  const auto i = static_cast<size_t>(number - base_);
  if (i >= buckets_.size()) buckets_.resize(i + 1);
  return &buckets_[i];
}

void ScrapedServingMetrics::spread(size_t k, int64_t from_us, int64_t to_us, double rate) {
  if (to_us <= from_us || rate == 0 || !std::isfinite(rate)) return;
  const int64_t origin = *origin_us_;
  for (int64_t b = floor_div(from_us - origin, kWidth); origin + b * kWidth < to_us; ++b) {
    const int64_t start = origin + b * kWidth;
    const int64_t overlap = std::min(to_us, start + kWidth) - std::max(from_us, start);
    if (overlap <= 0) continue;
    if (Bucket* bk = bucket(b)) bk->integral[k] += rate * static_cast<double>(overlap) / 1e6;
  }
}

void ScrapedServingMetrics::cover(int64_t from_us, int64_t to_us) {
  const int64_t origin = *origin_us_;
  for (int64_t b = floor_div(from_us - origin, kWidth); origin + b * kWidth < to_us; ++b) {
    const int64_t start = origin + b * kWidth;
    const int64_t overlap = std::min(to_us, start + kWidth) - std::max(from_us, start);
    if (overlap <= 0) continue;
    if (Bucket* bk = bucket(b)) bk->covered_us += overlap;
  }
}

void ScrapedServingMetrics::drop_before(int64_t us) {
  const int64_t origin = *origin_us_;
  while (!buckets_.empty() && origin + (base_ + 1) * kWidth <= us) {
    buckets_.pop_front();
    ++base_;
  }
}

bool ScrapedServingMetrics::add_scrape(Time at, const std::map<std::string, PodCounters>& pods,
                                       const std::set<std::string>& failed) {
  if (last_round_ && at <= *last_round_) return false;
  const int64_t now_us = at.micros();
  if (!origin_us_) origin_us_ = now_us;
  std::map<std::string, Seen> next;
  for (const auto& [pod, c] : pods) {
    const auto it = last_.find(pod);
    std::optional<Seen> before;
    if (it != last_.end()) {
      before = it->second;
    } else if (last_round_) {
      before = Seen{*last_round_, PodCounters{}};  // new since the last round: from 0 then
    }
    if (before) {
      const double seconds = static_cast<double>(now_us - before->at.micros()) / 1e6;
      for (ServingMetric m : kAll) {
        const double now_value = c.of(m);
        const double then_value = before->counters.of(m);
        if (!std::isfinite(now_value)) continue;
        const double increase = now_value >= then_value ? now_value - then_value : now_value;
        spread(static_cast<size_t>(m), before->at.micros(), now_us, increase / seconds);
      }
    }
    next.emplace(pod, Seen{at, c});
  }
  // A pod whose scrape failed keeps its last sighting (its increase is spread over the longer
  // interval when it answers again), unless the windows have moved past it; a pod neither
  // answering nor failed is gone, and one of the same name later is a new pod.
  for (const std::string& pod : failed) {
    const auto it = last_.find(pod);
    if (it != last_.end() && next.count(pod) == 0 && now_us - it->second.at.micros() <= keep_us_)
      next.emplace(pod, it->second);
  }
  last_ = std::move(next);
  if (last_round_) cover(last_round_->micros(), now_us);
  last_round_ = at;
  drop_before(now_us - keep_us_ - kWidth);
  return true;
}

double ScrapedServingMetrics::average(ServingMetric metric, Time now, Duration window) const {
  if (!origin_us_) return 0;
  const int64_t now_us = now.micros();
  const int64_t from_us = now_us - window.micros();
  const auto k = static_cast<size_t>(metric);
  double sum = 0;
  int64_t covered = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    const int64_t start = *origin_us_ + (base_ + static_cast<int64_t>(i)) * kWidth;
    if (start < from_us) continue;
    if (start >= now_us) break;
    sum += buckets_[i].integral[k];
    covered += buckets_[i].covered_us;
  }
  if (covered <= 0) return 0;
  return sum / (static_cast<double>(covered) / 1e6);
}

}  // namespace gantry::kube
