#pragma once
// One predictor's serving metrics in one-second buckets (the granularity Knative's autoscaler
// scrapes at), as ServingMetrics for the autoscalers.
//
// Every metric is a time integral, fed as intervals that open and close: a request is in the
// system from its arrival to its finish (concurrency), a batch slot is busy from a request's
// start to its finish, a replica's GPU from the start of a busy period to its end. An interval
// may open long before it closes (a request buffered in the activator learns its finish only
// when a replica is ready), so open and close are separate calls:
//
//   open(a):  partial[b(a)] -= a - start(b(a));  running_from[b(a)] += 1
//   close(f): partial[b(f)] += f - start(b(f));  running_from[b(f)] -= 1
//
// and the integral over bucket b is partial[b] + width · (sum of running_from up to b). Both
// calls are O(1); a bucket's value is settled once time has passed its end. Opens and closes
// must not fall in a settled bucket (they never do: the simulator feeds arrivals in time order
// and finishes are never in the past).
//
// Buckets are kept densely (a deque) from the oldest one still needed up to kDenseAhead past
// the furthest one touched so far; a bucket further ahead (the finish of a request of 10^7
// tokens, weeks away) is kept alone in an ordered map until the dense range reaches it. So
// memory follows the requests in flight, not how far ahead their finishes lie (issue 22: one
// such request took 4.9 GB, a bucket for every second until its finish).
//
//   operation          time            memory
//   open/close/count   O(1) amortised  96 bytes per bucket from the oldest window start to
//                      (O(log n) for a kDenseAhead past the furthest bucket touched near the
//                      far bucket)     dense range, plus about 150 bytes per far bucket (at
//   average()          O(window / 1 s) most one per interval in flight); settled buckets older
//                                      than the longest window are dropped
//
// Thread-safety: none.

#include <array>
#include <cstdint>
#include <deque>
#include <map>

#include "engine/core/time.hpp"
#include "engine/policy/serving/serving_metrics.hpp"

namespace gantry {

class MetricBuckets final : public ServingMetrics {
 public:
  static constexpr int64_t kWidth = 1'000'000;  // µs per bucket
  static constexpr int kMetrics = 4;            // ServingMetric's values
  // Buckets past the dense range's end by this many or more are kept sparsely (10 minutes:
  // longer than nearly every request, short enough that the dense range stays small).
  static constexpr int64_t kDenseAhead = 600;

  // `origin`: the first bucket starts here. `keep`: the longest window average() is asked for.
  MetricBuckets(Time origin, Duration keep);

  // Weighted open and close of an interval of `metric` at absolute times in µs.
  void open(ServingMetric m, int64_t at_us, double weight = 1.0);
  void close(ServingMetric m, int64_t at_us, double weight = 1.0);
  // An instantaneous event (an arrival): counts as one second of weight in its bucket, so the
  // average over a window is events per second.
  void count(ServingMetric m, int64_t at_us, double weight = 1.0);

  // Settles every bucket ending at or before `now` and drops the ones older than `keep`.
  void settle(Time now);

  // ServingMetrics: the average over the whole buckets inside [now - window, now), over
  // min(window, now - origin) (Knative averages over the buckets it has when its history is
  // shorter than the window). Settles first, hence the mutable members.
  double average(ServingMetric metric, Time now, Duration window) const override;

  // The integral of `metric` over the whole buckets from the origin to `now`, in metric ·
  // seconds (arrivals: the number of them): what a Prometheus counter of it would read at a
  // bucket boundary (adapters/kube/serving/serving_metric_names.hpp). Settles first.
  double total(ServingMetric metric, Time now) const;

  // Buckets held now, dense and far (for tests of the memory bound above).
  size_t buckets_held() const { return buckets_.size() + far_.size(); }

 private:
  struct Bucket {
    std::array<double, kMetrics> partial{};       // µs·weight
    std::array<double, kMetrics> running_from{};  // weight opened (+) or closed (−) here
    std::array<double, kMetrics> integral{};      // µs·weight, once settled
  };
  Bucket& bucket_of(int64_t at_us, int64_t* bucket_start);
  // Grows the dense range to `size` buckets, taking over the far ones it now covers.
  void extend_to(size_t size) const;
  void settle_to(int64_t now_us) const;

  int64_t origin_us_;
  int64_t keep_buckets_;
  mutable std::deque<Bucket> buckets_;  // bucket number base_ + i
  // Buckets past the dense range, by number; every key >= base_ + buckets_.size().
  mutable std::map<int64_t, Bucket> far_;
  mutable int64_t base_ = 0;
  mutable int64_t settled_ = 0;                     // buckets_[0..settled_) are settled
  mutable std::array<double, kMetrics> running_{};  // open weight at the end of the settled ones
  mutable std::array<double, kMetrics> total_{};    // µs·weight over every settled bucket
};

}  // namespace gantry
