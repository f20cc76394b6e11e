#pragma once
// Right-sizing of task requests (issue #4, opt-in per task with `autosize: true`), after
// cube-studio's "smart correction" of the compute of cron tasks: a task that runs every day
// with the same code uses about the same resources, so its requests can follow what it used.
//
// Rule: when a task has at least `min_successes` successful instances whose attempts ended in
// the last `window` (the interval (now − window, now]), its next attempt asks for
//   min(declared, ceil(factor × max used) + headroom)
// for CPU and for memory separately; otherwise it asks for what it declared.
//
// Defaults and where they come from:
//   min_successes 10, window 30 days, factor 1.4: issue #4.
//   headroom 25 milli-CPU and 250 MiB: the floors Kubernetes' Vertical Pod Autoscaler
//     recommender puts under every recommendation (--pod-recommendation-min-cpu-millicores=25,
//     --pod-recommendation-min-memory-mb=250); added rather than used as a floor, so a task
//     whose usage is tiny still gets a margin a spike cannot eat at once.
//   cap: the declared request. Autosize only ever lowers a request: a pipeline that fits the
//     cluster as written keeps fitting, and a task that uses more than it asked for (no
//     limits) is a problem for its author, not something to grow silently. A declared 0
//     (nothing asked) stays 0.
// GPU requests are never changed (a GPU share is not a quantity to trim by observation).
//
// Cost per task key: record O(1) amortised, requests O(1) amortised (monotone deques keep the
// window's maxima), memory O(successes in the window).

#include <deque>
#include <map>
#include <string>

#include "engine/cluster/resources.hpp"
#include "engine/core/time.hpp"

namespace gantry {

struct AutosizeConfig {
  int min_successes = 10;
  Duration window = days(30);
  int64_t factor_tenths = 14;  // 1.4, in tenths so the ceiling is exact integer arithmetic
  int64_t cpu_headroom_milli = 25;
  int64_t memory_headroom_bytes = int64_t{250} << 20;
};

class Autosizer {
 public:
  explicit Autosizer(AutosizeConfig config = {}) : config_(config) {}

  // A successful task instance of `key` ("pipeline/task") whose last attempt ended at `at`
  // (non-decreasing per key) and used `used` at its peak.
  void record_success(const std::string& key, Time at, const Resources& used);

  // The requests for an attempt of `key` starting at `now` (see the rule above).
  Resources requests(const std::string& key, Time now, const Resources& declared);

  const AutosizeConfig& config() const { return config_; }

 private:
  struct Sample {
    Time at;
    int64_t value;
  };
  struct History {
    size_t count = 0;            // samples still in the window
    std::deque<Time> times;      // all samples in the window
    std::deque<Sample> cpu_max;  // decreasing values: the front is the window's max
    std::deque<Sample> mem_max;
  };

  void prune(History& h, Time now) const;

  AutosizeConfig config_;
  std::map<std::string, History> history_;
};

}  // namespace gantry
