#pragma once
// ServingMetrics from successive scrapes of a predictor's pods: the live world's counterpart of
// the simulator's MetricBuckets (sim/serving/metric_buckets.hpp), in the same one-second
// buckets, so the autoscaler reads the same kind of numbers in both worlds.
//
// A scrape round at time t gives each pod's counters (serving_metric_names.hpp: integrals of
// concurrency, GPU busy and slots busy, and the request count). For a pod last seen at t0 with
// counters c0, the increase c − c0 is spread evenly over [t0, t): a rate (c − c0) / (t − t0) per
// second, added to every bucket in proportion to its overlap with the interval. A counter that
// went down was reset (the pod's server restarted): its increase is c, as Prometheus' rate()
// takes it. A pod seen for the first time counts from 0 at the previous round (it was not
// there, or not ready, then); at the very first round there is nothing before, and the counters
// are only remembered. A pod whose scrape failed (`failed`) keeps its last sighting, and its
// increase is spread over the longer interval when it answers again; a pod neither in `pods` nor
// in `failed` is gone and forgotten (a later pod of the same name is a new one).
//
// Each round also marks [previous round, t) as covered. average(metric, now, window) is the sum
// of the buckets that start in [now − window, now) divided by the time they cover, so:
//   - over a window reaching back before the first round, the average is over the part that
//     has data (as Knative averages over the buckets it has, and as MetricBuckets does);
//   - a round that failed as a whole (no answer: add_scrape is not called) leaves its interval
//     uncovered until the next round spreads the increase over it;
//   - the last partial bucket counts for the part of it covered.
// With rounds on whole seconds from the first (a virtual clock, ticks of 2 s), every bucket is
// whole and the averages are exact: a pod whose concurrency counter grew by 10 s between rounds
// 2 s apart had an average concurrency of 5 over those 2 s.
//
//   operation     time                           memory
//   add_scrape    O(pods · (t − t0) / 1 s)        40 bytes per bucket from the oldest window
//   average       O(window / 1 s)                 start; buckets older than `keep` are dropped
//
// Thread-safety: none (the event loop's thread).

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "adapters/kube/serving/serving_metric_names.hpp"
#include "engine/core/time.hpp"
#include "engine/policy/serving/serving_metrics.hpp"

namespace gantry::kube {

class ScrapedServingMetrics final : public ServingMetrics {
 public:
  static constexpr int64_t kWidth = 1'000'000;  // µs per bucket
  static constexpr int kMetrics = 4;            // ServingMetric's values

  // `keep`: the longest window average() is asked for.
  explicit ScrapedServingMetrics(Duration keep);

  // A scrape round at `at` (later than the previous round; an earlier or equal one is ignored
  // and returns false): the counters of every pod that answered, and the pods whose scrape
  // failed.
  bool add_scrape(Time at, const std::map<std::string, PodCounters>& pods,
                  const std::set<std::string>& failed = {});

  double average(ServingMetric metric, Time now, Duration window) const override;

  std::optional<Time> last_round() const { return last_round_; }
  size_t pods() const { return last_.size(); }

 private:
  struct Bucket {
    std::array<double, kMetrics> integral{};  // metric · seconds
    int64_t covered_us = 0;
  };
  struct Seen {
    Time at;
    PodCounters counters;
  };
  // Adds `rate` (per second) of metric k over [from, to) to the buckets.
  void spread(size_t k, int64_t from_us, int64_t to_us, double rate);
  void cover(int64_t from_us, int64_t to_us);
  Bucket* bucket(int64_t number);  // creates up to it; nullptr when dropped already
  void drop_before(int64_t us);

  int64_t keep_us_;
  std::optional<int64_t> origin_us_;  // the first round: buckets start here
  std::optional<Time> last_round_;
  std::map<std::string, Seen> last_;
  std::deque<Bucket> buckets_;  // bucket number base_ + i
  int64_t base_ = 0;
};

}  // namespace gantry::kube
