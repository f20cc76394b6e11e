#pragma once
// LogHistogram: counts of non-negative integer samples (latencies in microseconds) in buckets of
// bounded relative width, so percentiles of any number of samples take fixed memory.
//
// Buckets follow HdrHistogram's layout: values below 2^kSubBits (128 µs) have a bucket each
// (exact); above, each power of two [2^e, 2^(e+1)) is cut into 2^(kSubBits-1) = 64 equal
// buckets, so a bucket is at most 1/64 of its lower bound wide. percentile() answers the
// midpoint of the bucket holding the sample of that rank (nearest rank: the ceil(p/100 · n)-th
// smallest, the 1st for p = 0), so it is within 0.8 % of the exact nearest-rank value.
// Samples at or above 2^40 µs (12.7 days) share the last bucket.
//
//   operation      time          memory
//   add(), remove() O(1)         (40 - 7 + 2) · 64 counters of 8 bytes = 17.9 KB, fixed
//   percentile()   O(buckets)
//   merge()        O(buckets)
//
// Thread-safety: none (a plain value).

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>

namespace gantry {

class LogHistogram {
 public:
  static constexpr int kSubBits = 7;
  static constexpr int kMaxExponent = 40;
  static constexpr int kBuckets = (kMaxExponent - kSubBits + 2) << (kSubBits - 1);

  // Adds `count` samples of `value` (negative values count as 0).
  void add(int64_t value, uint64_t count = 1) {
    counts_[index_of(value)] += count;
    total_ += count;
  }
  // Takes back `count` samples of `value` added before (a request counted served that failed
  // later). Removing what was not added is a caller's error (asserted; clamped at 0).
  void remove(int64_t value, uint64_t count = 1) {
    uint64_t& c = counts_[index_of(value)];
    assert(c >= count && total_ >= count);
    const uint64_t n = std::min(c, count);
    c -= n;
    total_ -= n;
  }
  void merge(const LogHistogram& other);
  void clear();

  uint64_t count() const { return total_; }
  // The nearest-rank p-th percentile (p in [0, 100]) as the midpoint of its bucket; 0 when empty.
  int64_t percentile(double p) const;
  // Samples <= value, exactly when value is a bucket's upper end (any value below 128 is), else
  // counting the whole bucket holding value.
  uint64_t count_at_most(int64_t value) const;

  static int index_of(int64_t value);
  // The smallest and largest value of bucket i.
  static int64_t lower_bound(int i);
  static int64_t upper_bound(int i);

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t total_ = 0;
};

}  // namespace gantry
