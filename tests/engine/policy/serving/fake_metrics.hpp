#pragma once
// A ServingMetrics whose averages a test scripts: either a constant per (metric, window), or a
// piecewise-constant timeline per metric whose exact time average over [now − window, now) the
// fake computes (over the part after the timeline's first step, as ServingMetrics says). An
// average nobody scripted is 0. Every query is counted, so a test can check that nothing was
// read.

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "engine/policy/serving/serving_metrics.hpp"

namespace gantry::testing {

class FakeMetrics : public ServingMetrics {
 public:
  // average(metric, *, window) is `value`.
  void set(ServingMetric metric, Duration window, double value) {
    constants_[{metric, window.micros()}] = value;
  }
  // `metric` is `value` from `from` on (until the next step); steps in time order.
  void step(ServingMetric metric, Time from, double value) {
    timelines_[metric].push_back({from, value});
  }

  double average(ServingMetric metric, Time now, Duration window) const override {
    ++queries_;
    if (auto it = constants_.find({metric, window.micros()}); it != constants_.end()) {
      return it->second;
    }
    auto tl = timelines_.find(metric);
    if (tl == timelines_.end() || tl->second.empty()) return 0;
    const std::vector<Step>& steps = tl->second;
    const Time begin = std::max(now - window, steps.front().from);
    if (!(begin < now)) return 0;
    double integral = 0;  // value × seconds
    for (size_t i = 0; i < steps.size(); ++i) {
      const Time a = std::max(begin, steps[i].from);
      const Time b = i + 1 < steps.size() ? std::min(now, steps[i + 1].from) : now;
      if (a < b) integral += steps[i].value * (b - a).seconds();
    }
    return integral / (now - begin).seconds();
  }

  int queries() const { return queries_; }

 private:
  struct Step {
    Time from;
    double value = 0;
  };
  std::map<std::pair<ServingMetric, int64_t>, double> constants_;
  std::map<ServingMetric, std::vector<Step>> timelines_;
  mutable int queries_ = 0;
};

}  // namespace gantry::testing
