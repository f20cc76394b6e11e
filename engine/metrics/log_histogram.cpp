#include "engine/metrics/log_histogram.hpp"

#include <bit>
#include <cmath>

namespace gantry {

namespace {
constexpr int64_t kHalf = int64_t{1} << (LogHistogram::kSubBits - 1);  // 64 buckets per octave
constexpr int64_t kLinear = int64_t{1} << LogHistogram::kSubBits;      // 128 exact buckets
}  // namespace

int LogHistogram::index_of(int64_t value) {
  if (value < kLinear) return value < 0 ? 0 : static_cast<int>(value);
  const auto v = static_cast<uint64_t>(value);
  const int exponent = std::bit_width(v) - 1;  // 2^exponent <= v, exponent >= kSubBits
  if (exponent >= kMaxExponent) return kBuckets - 1;
  // The top kSubBits bits of v: 64..127, the bucket within [2^exponent, 2^(exponent+1)).
  const int top = static_cast<int>(v >> (exponent - kSubBits + 1));
  return static_cast<int>(kLinear + (exponent - kSubBits) * kHalf) +
         (top - static_cast<int>(kHalf));
}

int64_t LogHistogram::lower_bound(int i) {
  if (i < kLinear) return i;
  const int octave = static_cast<int>((i - kLinear) / kHalf);  // exponent - kSubBits
  const int64_t top = kHalf + (i - kLinear) % kHalf;
  return top << (octave + 1);
}

int64_t LogHistogram::upper_bound(int i) {
  if (i == kBuckets - 1) return INT64_MAX;
  return lower_bound(i + 1) - 1;
}

void LogHistogram::merge(const LogHistogram& other) {
  for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
}

void LogHistogram::clear() {
  counts_.fill(0);
  total_ = 0;
}

int64_t LogHistogram::percentile(double p) const {
  if (total_ == 0) return 0;
  p = std::fmin(100.0, std::fmax(0.0, p));
  auto rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total_)));
  if (rank == 0) rank = 1;
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      if (i < kLinear) return i;
      if (i == kBuckets - 1) return lower_bound(i);
      return lower_bound(i) + (upper_bound(i) - lower_bound(i)) / 2;
    }
  }
  return lower_bound(kBuckets - 1);
}

uint64_t LogHistogram::count_at_most(int64_t value) const {
  if (value < 0) return 0;
  const int last = index_of(value);
  uint64_t n = 0;
  for (int i = 0; i <= last; ++i) n += counts_[i];
  return n;
}

}  // namespace gantry
