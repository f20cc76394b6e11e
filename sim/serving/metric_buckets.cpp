#include "sim/serving/metric_buckets.hpp"

#include <algorithm>
#include <cassert>

namespace gantry {

MetricBuckets::MetricBuckets(Time origin, Duration keep)
    : origin_us_(origin.micros()), keep_buckets_(keep.micros() / kWidth + 2) {}

void MetricBuckets::extend_to(size_t size) const {
  while (buckets_.size() < size) {
    const int64_t number = base_ + static_cast<int64_t>(buckets_.size());
    const auto far = far_.begin();
    if (far != far_.end() && far->first == number) {
      buckets_.push_back(far->second);
      far_.erase(far);
    } else {
      buckets_.emplace_back();
    }
  }
}

MetricBuckets::Bucket& MetricBuckets::bucket_of(int64_t at_us, int64_t* bucket_start) {
  const int64_t number = (at_us - origin_us_) / kWidth;
  assert(at_us >= origin_us_ && number >= base_ + settled_);
  *bucket_start = origin_us_ + number * kWidth;
  const int64_t i = number - base_;
  const auto dense = static_cast<int64_t>(buckets_.size());
  if (i >= dense + kDenseAhead) return far_[number];
  if (i >= dense) extend_to(static_cast<size_t>(i) + 1);
  return buckets_[static_cast<size_t>(i)];
}

void MetricBuckets::open(ServingMetric m, int64_t at_us, double weight) {
  int64_t start = 0;
  Bucket& b = bucket_of(at_us, &start);
  const auto k = static_cast<size_t>(m);
  b.partial[k] -= static_cast<double>(at_us - start) * weight;
  b.running_from[k] += weight;
}

void MetricBuckets::close(ServingMetric m, int64_t at_us, double weight) {
  int64_t start = 0;
  Bucket& b = bucket_of(at_us, &start);
  const auto k = static_cast<size_t>(m);
  b.partial[k] += static_cast<double>(at_us - start) * weight;
  b.running_from[k] -= weight;
}

void MetricBuckets::count(ServingMetric m, int64_t at_us, double weight) {
  int64_t start = 0;
  bucket_of(at_us, &start).partial[static_cast<size_t>(m)] += static_cast<double>(kWidth) * weight;
}

void MetricBuckets::settle(Time now) { settle_to(now.micros()); }

void MetricBuckets::settle_to(int64_t now_us) const {
  const int64_t done = (now_us - origin_us_) / kWidth;  // buckets ending at or before now
  while (base_ + settled_ < done) {
    if (static_cast<size_t>(settled_) >= buckets_.size())
      extend_to(static_cast<size_t>(settled_) + 1);
    Bucket& b = buckets_[static_cast<size_t>(settled_)];
    for (size_t k = 0; k < kMetrics; ++k) {
      running_[k] += b.running_from[k];
      b.integral[k] = b.partial[k] + static_cast<double>(kWidth) * running_[k];
      total_[k] += b.integral[k];
    }
    ++settled_;
    // Dropped as they go: a long catch-up never holds more than `keep` settled buckets.
    while (settled_ > keep_buckets_) {
      buckets_.pop_front();
      ++base_;
      --settled_;
    }
  }
}

double MetricBuckets::average(ServingMetric metric, Time now, Duration window) const {
  settle_to(now.micros());
  const int64_t now_us = now.micros();
  const int64_t from_us = std::max(origin_us_, now_us - window.micros());
  if (now_us <= from_us) return 0;
  const auto k = static_cast<size_t>(metric);
  double sum = 0;
  for (int64_t i = settled_ - 1; i >= 0; --i) {
    const int64_t start = origin_us_ + (base_ + i) * kWidth;
    if (start < from_us) break;
    sum += buckets_[static_cast<size_t>(i)].integral[k];
  }
  return sum / static_cast<double>(now_us - from_us);
}

double MetricBuckets::total(ServingMetric metric, Time now) const {
  settle_to(now.micros());
  return total_[static_cast<size_t>(metric)] / static_cast<double>(kWidth);
}

}  // namespace gantry
